#!/usr/bin/env bash
# Installs everything the build and the tests need, idempotently:
#  - libclang (Debian's libclang-dev): the `fmi` crate (FMU import in the Rust tests)
#    runs bindgen in its build script, which needs libclang.
#  - a project-local Python venv (.venv) with fmpy, the reference FMI importer.
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
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  echo "ci/setup.sh: installing Debian packages: ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

venv="$root/.venv"
if [ ! -x "$venv/bin/fmpy" ]; then
  echo "ci/setup.sh: creating $venv with fmpy"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --upgrade pip
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$root/ci/requirements.txt"
fi
echo "ci/setup.sh: ready (fmpy $("$venv/bin/python" -c 'import fmpy; print(fmpy.__version__)'))"
