#!/usr/bin/env bash
# RUSTC_WORKSPACE_WRAPPER for ci/cross_tests.sh: `cargo rustc --lib -- --test` builds the
# library's unit tests as an executable, but cargo hands a library's build its
# dependencies as .rmeta (metadata only, enough for a library), and with pipelining
# starts it as soon as those exist, while the dependencies' code is still being
# generated. A test executable links them, so this waits until every .rlib this cargo
# run is writing exists (each .rmeta newer than RLIB_EXTERNS_SINCE, a file touched
# before the run, has its .rlib, no older: rustc writes the .rmeta first and moves the
# finished archive into place), then swaps each --extern .rmeta for the .rlib beside it.
# Other builds pass through unchanged.
rustc="$1"
shift
case " $* " in
  *" --test "*) ;;
  *) exec "$rustc" "$@" ;;
esac
# the folders of the dependencies (the target's and the host's, for proc macros)
deps=()
prev=
for a in "$@"; do
  [ "$prev" = -L ] && [[ $a == dependency=* ]] && deps+=("${a#dependency=}")
  prev=$a
done
if [ ${#deps[@]} -gt 0 ] && [ -f "${RLIB_EXTERNS_SINCE:-}" ]; then
  waited=0
  while :; do
    pending=$(find "${deps[@]}" -maxdepth 1 -name '*.rmeta' -newer "$RLIB_EXTERNS_SINCE" | while read -r m; do
      r=${m%.rmeta}.rlib
      if [ ! -f "$r" ] || [ "$m" -nt "$r" ]; then echo "$m"; fi
    done | head -n 1)
    [ -z "$pending" ] && break
    if [ $waited -ge 6000 ]; then
      echo "ci/platforms/rlib_externs.sh: after 10 min, still no .rlib beside $pending" >&2
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
fi
args=()
for a in "$@"; do
  # an extern is NAME=PATH or OPTIONS:NAME=PATH
  path=${a##*=}
  if [[ $a == *=*.rmeta && -f ${path%.rmeta}.rlib ]]; then a=${a%.rmeta}.rlib; fi
  args+=("$a")
done
exec "$rustc" "${args[@]}"
