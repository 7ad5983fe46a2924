#!/usr/bin/env bash
# Checks C++ files against .clang-format (clang-format 14, as CI installs it).
#   scripts/check-format.sh [FILE...]    the files given, or with none every tracked C++ file
#                                        except those listed in scripts/format-exempt.txt
# Prints each file that is not formatted with the number of lines a reformat would change,
# and exits 1 if there is any (0 when all are formatted, 2 on a usage error). Fix a file with
# `clang-format-14 -i FILE`. Generated files (src/poker/preflop_table_data.cpp,
# src/certify/final_category_data.cpp) are skipped.
# scripts/format-exempt.txt lists the files written before .clang-format that are not yet
# formatted (a ratchet: CI checks every other file, so new files must be formatted; a file
# leaves the list when someone reformats it; a listed file that is formatted is an error, so
# the list only shrinks).
set -euo pipefail
cd "$(dirname "$0")/.."

format=${CLANG_FORMAT:-clang-format-14}
if ! command -v "$format" >/dev/null 2>&1; then
  echo "check-format: $format not found (Debian: apt-get install clang-format-14, or set CLANG_FORMAT)" >&2
  exit 2
fi
generated='^src/(poker/preflop_table_data|certify/final_category_data)\.cpp$'

files=()
if (($#)); then
  for f in "$@"; do
    case "$f" in
      -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
      -*) echo "check-format: unknown option '$f' (see --help)" >&2; exit 2 ;;
    esac
    [[ -f $f ]] || { echo "check-format: no such file: $f" >&2; exit 2; }
    files+=("$f")
  done
else
  exempt=scripts/format-exempt.txt
  mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cc' | grep -Ev "$generated" | grep -vxF -f <(grep -v '^#' "$exempt"))
  stale=0
  while read -r f; do
    [[ -z $f || $f == \#* ]] && continue
    if [[ ! -f $f ]]; then echo "$f: listed in $exempt but gone; remove the line" >&2; stale=1; continue; fi
    if [[ $("$format" --style=file "$f" | diff "$f" - | grep -c '^<' || true) == 0 ]]; then
      echo "$f: formatted now; remove it from $exempt" >&2; stale=1
    fi
  done < "$exempt"
  ((stale)) && exit 1
fi

bad=0 lines=0
for f in "${files[@]}"; do
  [[ $f =~ $generated ]] && continue
  n=$("$format" --style=file "$f" | diff "$f" - | grep -c '^<' || true)
  if ((n > 0)); then
    echo "$f: $n line(s) to reformat"
    bad=$((bad + 1)) lines=$((lines + n))
  fi
done
if ((bad)); then
  echo "check-format: $bad of ${#files[@]} file(s) not formatted ($lines line(s)); fix with: $format -i FILE" >&2
  exit 1
fi
echo "check-format: ${#files[@]} file(s) formatted"
