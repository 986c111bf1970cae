#!/usr/bin/env bash
# Prints the newest glibc version an ELF file needs: the highest GLIBC_x.y among its
# strong undefined dynamic symbols (weak ones, such as gettid, are looked up at run time
# and may be missing). Usage: bash ci/glibc_needed.sh FILE
set -euo pipefail
objdump -T "$1" | grep '\*UND\*' | grep -v -E '^[0-9a-f]+ +w ' | grep -o 'GLIBC_[0-9.]*' \
  | sed 's/GLIBC_//' | sort -V | tail -1
