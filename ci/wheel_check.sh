#!/usr/bin/env bash
# The wheel on a machine with only Python (issue 51, docs/python.md): a fresh venv,
# the wheel from ci/wheel.sh and its test extras (pytest, fmpy, numpy) installed with
# pip, neither cargo nor rustc on PATH. Runs the API's tests (python/tests), packages
# every example through the API and the console script (identical to the cargo
# executable's FMUs, ci/wheel_check.py) and checks fmpy's outputs of the API's FMUs
# bit for bit against ci/reference/behaviour.json (ci/behaviour.py).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
wheel=$(ls target/wheels/*.whl)
venv=target/wheel-venv
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "${wheel}[test]"
# only the venv's bin and the system's, without the Rust toolchains (rustup's in
# ~/.cargo/bin; Debian's rustc/cargo, which ci/cross.sh installs, in /usr/bin)
nobin=$(mktemp -d)
for t in sh env; do ln -s "$(command -v $t)" "$nobin/$t"; done
py() { env -i HOME="$HOME" PATH="$root/$venv/bin:$nobin" LANG=C.UTF-8 "$root/$venv/bin/python" "$@"; }
py -c 'import shutil, sys; bad = [t for t in ("cargo", "rustc") if shutil.which(t)]; sys.exit(f"on PATH: {bad}") if bad else print("no cargo, no rustc on PATH")'
py -m pytest -q -p no:cacheprovider python/tests
py ci/wheel_check.py --cargo-cli "$root/target/release/contact-fmu" --out target/wheel-check examples/*.json
py ci/behaviour.py check target/wheel-check/api ci/reference/behaviour.json
rm -rf "$nobin"
