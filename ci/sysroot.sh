#!/usr/bin/env bash
# The C library our Linux runtimes are linked against: Debian 11's glibc 2.31 and GCC 10's
# static unwinder, one sysroot per architecture, and a C compiler wrapper for each.
#
#   bash ci/sysroot.sh && source target/sysroot/env.sh
#
# Why: a shared library asks for the newest symbol versions of the glibc it was linked
# against. Linked on Debian 12 (glibc 2.36, GCC 12), the runtime needs glibc 2.35
# (pthread_* and dlsym at GLIBC_2.34, GCC 12's libgcc_eh calls _dl_find_object, 2.35)
# and does not load on Ubuntu 20.04, Debian 11, SLES 15 or Jetson's JetPack 5. Linked
# against glibc 2.31, with exp and log taken from our own code (fmu-template/src/
# glibc_math.rs), it asks for GLIBC_2.17 at most (docs/platforms.md, "Which Linux").
#
# What: apt (with a private configuration: the host's sources and state are untouched)
# downloads libc6, libc6-dev, libgcc-s1, libgcc-10-dev and linux-libc-dev from Debian 11
# for amd64 and arm64 (about 20 MB, seconds), unpacks them into
# target/sysroot/{amd64,arm64}, and writes target/sysroot/bin/<triple>-cc: the host's
# gcc (or aarch64-linux-gnu-gcc) with --sysroot and GCC 10's startup files and
# libgcc_eh. target/sysroot/env.sh exports them as the x86_64 and aarch64 Linux C
# compilers and linkers for cargo, so every Rust artifact (runtime, command line, tests,
# the Python extension) links against glibc 2.31; run from Debian 12 they work as before.
# It also sets PYO3_BUILD_EXTENSION_MODULE (the Python extension then does not link
# libpython, which is not in the sysroot; maturin sets it too).
#
# Safe to run again: nothing is downloaded when target/sysroot is complete and was made
# by this version of the script.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/target/sysroot"
stamp="$(sha256sum "${BASH_SOURCE[0]}" | cut -d' ' -f1)"
if [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "ci/sysroot.sh: $out ready (glibc $(ls "$out"/amd64/lib/x86_64-linux-gnu/libc-*.so | sed 's/.*libc-\(.*\)\.so/\1/'))"
  exit 0
fi

mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
suite=bullseye
packages=(libc6 libc6-dev libgcc-s1 libgcc-10-dev linux-libc-dev)
t0=$(date +%s)
rm -rf "$out"
apt_dir="$out/apt"
mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs" "$out/bin"
: > "$apt_dir/status"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" > "$apt_dir/sources.list"
apt_opts=(
  -o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State=$apt_dir/state" -o "Dir::State::status=$apt_dir/status"
  -o "Dir::Cache=$apt_dir/cache" -o APT::Architectures::=amd64 -o APT::Architectures::=arm64
  -o Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false
  -o Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false
  -o Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled=false
  -o Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false
  -o Debug::NoLocking=1 -o APT::Sandbox::User=root -qq
)
echo "ci/sysroot.sh: downloading ${packages[*]} from Debian 11 ($mirror) for amd64 and arm64"
apt-get "${apt_opts[@]}" update
wanted=()
for p in "${packages[@]}"; do wanted+=("$p:amd64" "$p:arm64"); done
(cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" download "${wanted[@]}")

for arch in amd64 arm64; do
  sysroot="$out/$arch"
  mkdir -p "$sysroot"
  for deb in "$apt_dir"/debs/*_"$arch".deb; do
    dpkg-deb -x "$deb" "$sysroot"
  done
  # Absolute symlinks (lib64/ld-linux-x86-64.so.2 -> /lib/...) point into the host:
  # make them relative to the sysroot.
  find "$sysroot" -type l | while read -r link; do
    dest="$(readlink "$link")"
    case "$dest" in
      /*) ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$sysroot$dest")" "$link" ;;
    esac
  done
done

# One wrapper per target: the host's compiler driver, Debian 11's headers and libraries,
# GCC 10's crtbegin/libgcc/libgcc_eh (-B puts its folder first, and build scripts asking
# for -print-file-name=libgcc_eh.a get that copy: fmu-template/build.rs).
write_wrapper() { # triple gcc arch
  local sysroot="$out/$3"
  cat > "$out/bin/$1-cc" <<EOF
#!/bin/sh
# Made by ci/sysroot.sh: $2 against Debian 11's glibc 2.31 and GCC 10's libgcc.
exec $2 --sysroot=$sysroot -B$sysroot/usr/lib/gcc/$1/10 -B$sysroot/usr/lib/$1 -B$sysroot/lib/$1 "\$@"
EOF
  chmod +x "$out/bin/$1-cc"
}
write_wrapper x86_64-linux-gnu gcc amd64
write_wrapper aarch64-linux-gnu aarch64-linux-gnu-gcc arm64

cat > "$out/env.sh" <<EOF
# Made by ci/sysroot.sh: link the Linux targets against Debian 11's glibc 2.31.
export CC_x86_64_unknown_linux_gnu=$out/bin/x86_64-linux-gnu-cc
export CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER=$out/bin/x86_64-linux-gnu-cc
export CC_aarch64_unknown_linux_gnu=$out/bin/aarch64-linux-gnu-cc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=$out/bin/aarch64-linux-gnu-cc
export PYO3_BUILD_EXTENSION_MODULE=1
EOF
echo "$stamp" > "$out/.stamp"
echo "ci/sysroot.sh: $out ready in $(( $(date +%s) - t0 )) s ($(du -sh "$out" | cut -f1)); source $out/env.sh"
