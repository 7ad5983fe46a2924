#!/bin/sh
# Regenerates one runtime's golden vectors from the real runtime and compares them with the
# checked-in file (tests/runtimes/golden/NAME.txt), which fairdeck_tests compares with
# fairdeck's emulation. Exit 77 (CTest: skipped) with the reason when the runtime is missing.
# Usage: live.sh NAME SOURCE_DIR WORK_DIR
set -u
name=$1 src=$2 work=$3
here=$src/tests/runtimes
golden=$here/golden/$name.txt
mkdir -p "$work" || exit 1
out=$work/$name.txt
skip() { echo "SKIP: $*"; exit 77; }

cxx_gen() {  # compiler, extra flags, output binary
  "$1" -std=c++20 -O2 $2 -o "$3" "$here/gen_cxx.cpp" 2>"$3.log" || { cat "$3.log"; return 1; }
}

case $name in
  php)
    command -v php >/dev/null || skip "php not installed (Debian: php8.2-cli)"
    php -r 'exit(PHP_MAJOR_VERSION == 8 && PHP_MINOR_VERSION == 2 ? 0 : 1);' || skip "php is $(php -r 'echo PHP_VERSION;'), the vectors are PHP 8.2's"
    php "$here/gen_php.php" "$here/cases.txt" >"$out" || exit 1 ;;
  python)
    [ -x /usr/bin/python3 ] || skip "/usr/bin/python3 not installed (Debian: python3)"
    /usr/bin/python3 -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' || skip "/usr/bin/python3 is not CPython 3.11"
    /usr/bin/python3 "$here/gen_python.py" "$here/cases.txt" >"$out" || exit 1 ;;
  libstdc++|libstdc++-default)
    command -v g++ >/dev/null || skip "g++ not installed"
    cxx_gen g++ "" "$work/gen_$name" || exit 1
    engine=mt19937; [ "$name" = libstdc++-default ] && engine=default
    "$work/gen_$name" $engine "$here/cases.txt" >"$out" || exit 1 ;;
  libc++|libc++-default)
    command -v clang++-14 >/dev/null || skip "clang++-14 not installed (Debian: clang-14)"
    [ -d /usr/lib/llvm-14/include/c++/v1 ] || skip "libc++ 14 not installed (Debian: libc++-14-dev libc++abi-14-dev)"
    cxx_gen clang++-14 "-stdlib=libc++" "$work/gen_$name" || exit 1
    engine=mt19937; [ "$name" = libc++-default ] && engine=default
    "$work/gen_$name" $engine "$here/cases.txt" >"$out" || exit 1 ;;
  *) echo "live.sh: unknown runtime $name" >&2; exit 2 ;;
esac

if cmp -s "$out" "$golden"; then
  echo "$name: $(wc -l <"$out") lines from the live runtime match $golden"
  exit 0
fi
echo "$name: the live runtime disagrees with $golden (first difference below; regenerate with the command in docs/engines.md if the runtime changed on purpose)"
diff "$golden" "$out" | head -4 | cut -c1-300
exit 1
