#!/usr/bin/env bash
# Builds the Python package's wheel (issue 51, docs/python.md) into target/wheels/ and
# checks it is manylinux (auditwheel show). Needs `cargo build --release --workspace`
# first (the linux64 runtime) and, for the other platforms' runtimes in the wheel,
# `bash ci/cross.sh`; .venv from ci/setup.sh (maturin, auditwheel).
#   bash ci/wheel.sh [--install]   --install: also into .venv (the examples use the API)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
venv="$root/.venv"
so=target/release/libcontact_fmu_runtime.so
[ -f "$so" ] || { echo "ci/wheel.sh: $so missing: run cargo build --release --workspace first"; exit 1; }

# the runtimes go into the package as contact_fmu/runtimes/<platform>/<library>
pkg=python/contact_fmu/runtimes
rm -rf "$pkg"
mkdir -p "$pkg/linux64"
cp "$so" "$pkg/linux64/"
for p in win64 aarch64-linux darwin64; do
  if [ -d "target/release/runtimes/$p" ]; then
    mkdir -p "$pkg/$p"
    cp target/release/runtimes/$p/* "$pkg/$p/"
  fi
done
echo "ci/wheel.sh: runtimes in the wheel: $(ls "$pkg" | tr '\n' ' ')"

rm -rf target/wheels
t0=$(date +%s)
# the extension module linked against glibc 2.31 like the runtimes (ci/sysroot.sh):
# the wheel is manylinux_2_31 (python/pyproject.toml); the tag check below fails if a
# runtime copied above was linked against a newer glibc
bash ci/sysroot.sh
source target/sysroot/env.sh
# the same target folder as the workspace build: only pyo3 and the module compile anew
"$venv/bin/maturin" build --release -m python/Cargo.toml -o target/wheels
echo "ci/wheel.sh: wheel built in $(( $(date +%s) - t0 )) s"
wheel=$(ls target/wheels/*.whl)
"$venv/bin/auditwheel" show "$wheel"
# the wheel's tag must be the one auditwheel finds its libraries need
tag=$(basename "$wheel" .whl | awk -F- '{print $NF}')
shown=$("$venv/bin/auditwheel" show "$wheel" | tr '\n' ' ')
grep -q "platform tag: \"$tag\"" <<< "$shown" \
  || { echo "ci/wheel.sh: the wheel is tagged $tag, auditwheel finds another tag (above)"; exit 1; }
# the sdist (for platforms without a wheel: pip builds it with cargo; docs/python.md):
# the workspace's sources, the lock file and the runtimes
"$venv/bin/maturin" sdist -m python/Cargo.toml -o target/wheels
sdist=$(ls target/wheels/*.tar.gz)
listing=$(tar tzf "$sdist")
for f in Cargo.lock python/Cargo.toml src/lib.rs fmu-template/src/lib.rs contact_fmu/runtimes/linux64/libcontact_fmu_runtime.so; do
  grep -qx "contact_fmu-[^/]*/$f" <<< "$listing" || { echo "ci/wheel.sh: $sdist lacks $f"; exit 1; }
done
echo "ci/wheel.sh: $(basename "$wheel") ($(du -h "$wheel" | cut -f1)) and $(basename "$sdist") ($(du -h "$sdist" | cut -f1))"
if [ "${1:-}" = "--install" ]; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheel"
  echo "ci/wheel.sh: installed into $venv: $("$venv/bin/python" -c 'import contact_fmu; print(contact_fmu.__version__, sorted(contact_fmu.runtimes()))')"
fi
