#!/usr/bin/env bash
# RUSTC_WORKSPACE_WRAPPER for ci/cross_tests.sh: `cargo rustc --lib -- --test` builds the
# library's unit tests as an executable, but cargo hands a library's build its
# dependencies as .rmeta (metadata only, enough for a library). A test executable links
# them, so each .rmeta is swapped for the .rlib beside it (built by the `cargo build`
# that ci/cross_tests.sh runs first). Other builds pass through unchanged.
rustc="$1"
shift
case " $* " in
  *" --test "*) ;;
  *) exec "$rustc" "$@" ;;
esac
args=()
for a in "$@"; do
  # an extern is NAME=PATH or OPTIONS:NAME=PATH
  path=${a##*=}
  if [[ $a == *=*.rmeta && -f ${path%.rmeta}.rlib ]]; then a=${a%.rmeta}.rlib; fi
  args+=("$a")
done
exec "$rustc" "${args[@]}"
