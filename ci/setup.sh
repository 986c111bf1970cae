#!/usr/bin/env bash
# Installs everything the build and the tests need, idempotently:
#  - libclang (Debian's libclang-dev): the `fmi` crate (FMU import in the Rust tests)
#    runs bindgen in its build script, which needs libclang.
#  - valgrind: ci/memcheck.sh runs every example FMU under memcheck.
#  - a project-local Python venv (.venv) with fmpy, the reference FMI importer, and
#    libcosimpy, a second co-simulation master (ci/requirements.txt; reinstalled when
#    that file changes).
#  - with --bench: also ci/bench-requirements.txt (MuJoCo, for benches/mujoco_scenes.py).
# Run from anywhere; safe to run again.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

need_apt=()
if ! dpkg -s libclang-dev >/dev/null 2>&1; then
  need_apt+=(libclang-dev)
fi
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  need_apt+=(python3-venv)
fi
if ! command -v valgrind >/dev/null 2>&1; then
  need_apt+=(valgrind)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  echo "ci/setup.sh: installing Debian packages: ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

venv="$root/.venv"
req="$root/ci/requirements.txt"
want="$(sha256sum "$req" | cut -d' ' -f1)"
if [ ! -x "$venv/bin/fmpy" ] || [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" != "$want" ]; then
  echo "ci/setup.sh: creating/updating $venv from ci/requirements.txt"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --upgrade pip
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
  echo "$want" > "$venv/.requirements.sha256"
fi
if [ "${1:-}" = "--bench" ]; then
  breq="$root/ci/bench-requirements.txt"
  bwant="$(sha256sum "$breq" | cut -d' ' -f1)"
  if [ "$(cat "$venv/.bench-requirements.sha256" 2>/dev/null)" != "$bwant" ]; then
    echo "ci/setup.sh: installing ci/bench-requirements.txt into $venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$breq"
    echo "$bwant" > "$venv/.bench-requirements.sha256"
  fi
fi
echo "ci/setup.sh: ready (fmpy $("$venv/bin/python" -c 'import fmpy; print(fmpy.__version__)'))"
