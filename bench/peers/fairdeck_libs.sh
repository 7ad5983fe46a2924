#!/usr/bin/env bash
# What a program linking the static build/release/libfairdeck.a names after it: the library's
# public dependencies (CMakeLists.txt, target fairdeck: libsodium, Nettle, zlib, threads) and fmt,
# which it uses inside. The one list the peer scripts (ompeval.sh, ompeval_eval.sh) link their
# fairdeck side with, and that tests/peers_link_test.sh checks, so a new dependency of the
# library cannot leave them unable to link unnoticed.
set -euo pipefail
echo "$(pkg-config --libs libsodium nettle fmt) -lz -pthread"
