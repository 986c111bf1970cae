#!/usr/bin/env bash
# The FMU runtime crate's unit tests (resource URIs in both path syntaxes, the FMI state
# machine, the logger) built for win64 and aarch64-linux and run where those run: under
# Wine and under qemu-aarch64 (docs/platforms.md). Needs what `bash ci/cross.sh
# --test-tools` installs; reuses its target/cross/ builds.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

export RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 CARGO_PROFILE_RELEASE_STRIP=symbols
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
export CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc
# aarch64 against Debian 11's glibc 2.31 as in ci/cross.sh, and run on it (qemu -L)
bash ci/sysroot.sh >/dev/null
source target/sysroot/env.sh

# the test executable cargo built for TRIPLE (the last "executable" it reports)
build_tests() {
  /usr/bin/cargo test --release --locked -p contact-fmu-runtime --lib --target "$1" \
    -Zbuild-std=std,panic_abort,test --target-dir target/cross --no-run --message-format=json 2>/dev/null \
    | python3 -c 'import json,sys
exe=[json.loads(l).get("executable") for l in sys.stdin if l.startswith("{")]
print([e for e in exe if e][-1])'
}

work="$root/target/cross-tests"
mkdir -p "$work"

exe=$(build_tests x86_64-pc-windows-gnu)
cp "$exe" "$work/runtime_tests.exe"
x86_64-w64-mingw32-gcc -shared -O1 -o "$work/bcryptprimitives.dll" ci/platforms/bcryptprimitives.c -ladvapi32
echo "ci/cross_tests.sh: win64 under Wine"
WINEPREFIX="$root/target/platforms-wine" WINEDEBUG=-all WINEDLLOVERRIDES="bcryptprimitives=n" \
  wine "$work/runtime_tests.exe" --test-threads 1

exe=$(build_tests aarch64-unknown-linux-gnu)
echo "ci/cross_tests.sh: aarch64-linux under qemu"
qemu-aarch64-static -L target/sysroot/arm64 "$exe" --test-threads 1
