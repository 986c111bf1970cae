#!/usr/bin/env bash
# Instructions per fmi2DoStep of packaged FMUs, counted by valgrind's callgrind: the
# same on a noisy and a quiet machine, so two builds compare without timing noise
# (docs/performance.md, "The model interface against the code before it").
#
#   ci/instructions/count.sh DIR_WITH_FMUS [MAX_STEPS] [SCM_MAX_STEPS]
#
# Each FMU runs its default experiment (at most MAX_STEPS steps, default 2000; SCM
# scenes SCM_MAX_STEPS, default 50) through ci/instructions/drive.c. Non-SCM FMUs:
# instructions inside fmi2DoStep only. FMUs whose name starts with scm_ (the soil
# update runs on rayon's threads, which a toggle on fmi2DoStep would miss): every
# thread, RAYON_NUM_THREADS=1, the run minus a run without steps. Prints
# "name steps instructions_per_step". Needs gcc, unzip and valgrind.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
fmus="$(cd "$1" && pwd)"; max=${2:-2000}; scm_max=${3:-50}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
gcc -O2 -o "$work/drive" "$here/drive.c" -ldl
attr() { grep -o "$1=\"[^\"]*\"" "$2" | head -1 | cut -d'"' -f2; }
ir() { grep -m1 '^summary:' "$1" | awk '{print $2}'; }
for f in "$fmus"/*.fmu; do
  name=$(basename "$f" .fmu); d="$work/$name"; mkdir -p "$d"; (cd "$d" && unzip -qo "$f")
  md="$d/modelDescription.xml"
  h=$(attr stepSize "$md"); stop=$(attr stopTime "$md"); id=$(attr modelIdentifier "$md")
  case $name in scm_*) cap=$scm_max;; *) cap=$max;; esac
  n=$(python3 -c "print(max(1, min(round($stop/$h), $cap)))")
  if [[ $name == scm_* ]]; then
    for k in 0 "$n"; do
      RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$work/$name.$k.out" \
        "$work/drive" "$d" "$id" "$k" "$h" 2>/dev/null
    done
    per=$(( ($(ir "$work/$name.$n.out") - $(ir "$work/$name.0.out")) / n ))
  else
    valgrind --tool=callgrind --callgrind-out-file="$work/$name.out" --collect-atstart=no \
      --toggle-collect=fmi2DoStep "$work/drive" "$d" "$id" "$n" "$h" 2>/dev/null
    per=$(( $(ir "$work/$name.out") / n ))
  fi
  echo "$name $n $per"
done
