#!/usr/bin/env bash
# Cross-builds the FMU runtime for the platforms beside Linux x86-64 and puts each where
# `contact-fmu package` finds it: target/release/runtimes/<platform>/<library>
# (docs/platforms.md).
#
#   bash ci/cross.sh                   # win64 and aarch64-linux
#   bash ci/cross.sh win64             # one platform
#   bash ci/cross.sh --test-tools      # also Wine and qemu-user, for ci/platforms.py
#
# rustup cannot download other targets' standard libraries here, so this uses Debian's
# Rust 1.96 (rustc-web, cargo-web) with the standard library's sources (rust-web-src)
# and builds std for the target (-Zbuild-std; RUSTC_BOOTSTRAP=1 lets a stable compiler
# take that flag). Linkers: gcc-mingw-w64-x86-64, and gcc-aarch64-linux-gnu against
# Debian 11's arm64 glibc (ci/sysroot.sh; libc6-dev-arm64-cross is qemu's sysroot in the
# tests). Debian installs its rustc and cargo into /usr/bin, where rustup's shims shadow
# them on PATH: they are called by their full path.
#
# Builds go to target/cross/ (its own target directory: Debian's compiler must not
# reuse rustup's artifacts); about 5 minutes per platform cold on two cores, seconds
# when nothing changed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

platforms=()
test_tools=0
for a in "$@"; do
  if [ "$a" = --test-tools ]; then test_tools=1; else platforms+=("$a"); fi
done
[ ${#platforms[@]} -gt 0 ] || platforms=(win64 aarch64-linux)

need_apt=()
if [ $test_tools = 1 ]; then
  dpkg -s wine64 >/dev/null 2>&1 || need_apt+=(wine64)
  dpkg -s qemu-user-static >/dev/null 2>&1 || need_apt+=(qemu-user-static)
fi
for p in rustc-web cargo-web rust-web-src; do
  dpkg -s "$p" >/dev/null 2>&1 || need_apt+=("$p")
done
for p in "${platforms[@]}"; do
  case "$p" in
    win64) dpkg -s gcc-mingw-w64-x86-64 >/dev/null 2>&1 || need_apt+=(gcc-mingw-w64-x86-64) ;;
    aarch64-linux)
      dpkg -s gcc-aarch64-linux-gnu >/dev/null 2>&1 || need_apt+=(gcc-aarch64-linux-gnu)
      dpkg -s libc6-dev-arm64-cross >/dev/null 2>&1 || need_apt+=(libc6-dev-arm64-cross) ;;
    *) echo "ci/cross.sh: unknown platform '$p' (win64, aarch64-linux)"; exit 2 ;;
  esac
done
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  echo "ci/cross.sh: installing Debian packages: ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

export RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1
# no symbol table in the shipped libraries (the linux64 one has none either)
export CARGO_PROFILE_RELEASE_STRIP=symbols
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
export CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc
# aarch64-linux-gnu-gcc against Debian 11's glibc 2.31, as for linux64 (ci/sysroot.sh)
bash ci/sysroot.sh
source target/sysroot/env.sh
echo "ci/cross.sh: $($RUSTC --version)"

for p in "${platforms[@]}"; do
  case "$p" in
    win64) triple=x86_64-pc-windows-gnu; lib=contact_fmu_runtime.dll ;;
    aarch64-linux) triple=aarch64-unknown-linux-gnu; lib=libcontact_fmu_runtime.so ;;
  esac
  t0=$(date +%s)
  echo "ci/cross.sh: building the runtime for $p ($triple)"
  # std's test crate built too, as ci/cross_tests.sh needs it: cargo makes every crate of
  # the build depend on the standard library's crates, so with the same set here the
  # unit tests' builds reuse every dependency (about 100 s per platform); the runtime
  # does not use or link it
  /usr/bin/cargo build --release --locked -p contact-fmu-runtime --lib --target "$triple" \
    -Zbuild-std=std,panic_abort,test --target-dir target/cross
  out="target/release/runtimes/$p"
  mkdir -p "$out"
  cp "target/cross/$triple/release/$lib" "$out/$lib"
  echo "ci/cross.sh: $out/$lib ($(du -h "$out/$lib" | cut -f1), $(( $(date +%s) - t0 )) s)"
done
