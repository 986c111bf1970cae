#!/usr/bin/env python3
"""Turns a copy of this repository into the build that uses the platform's C math
library, to measure what the portable math costs (docs/platforms.md, "What the portable
math costs").

In the copy, `src/pmath.rs` calls `f64::sin`, `exp`, `ln`, `powf`, `hypot`, ... (glibc on
Linux) instead of the `libm` crate and `src/pmath/exp_ln.rs` (and `src/pmath/batch.rs`
takes them element by element, without its four-lane versions), and the runtime is linked
without the `--wrap=exp,--wrap=log` of fmu-template/build.rs. Everything else is the
same source.

Usage:
  git worktree add /tmp/platform-math HEAD
  ci/platforms/platform_math.py /tmp/platform-math
  (cd /tmp/platform-math && CARGO_TARGET_DIR=/tmp/platform-math/target \\
     cargo build --release -p contact-fmu-runtime)
  ci/platforms/compare_speed.py NAME STEPS ROUNDS \\
     /tmp/platform-math/target/release/libcontact_fmu_runtime.so \\
     target/release/libcontact_fmu_runtime.so
"""
import re
import sys
from pathlib import Path

# pmath's body of each function -> the platform call
CALLS = {
    "libm::sin(x)": "x.sin()", "libm::cos(x)": "x.cos()", "libm::sincos(x)": "x.sin_cos()",
    "libm::tan(x)": "x.tan()", "libm::asin(x)": "x.asin()", "libm::acos(x)": "x.acos()",
    "libm::atan(x)": "x.atan()", "libm::atan2(y, x)": "y.atan2(x)", "exp_ln::exp(x)": "x.exp()",
    "libm::expm1(x)": "x.exp_m1()", "exp_ln::ln(x)": "x.ln()", "libm::tanh(x)": "x.tanh()",
    "libm::pow(x, y)": "x.powf(y)", "exp(y * ln(x))": "x.powf(y)", "exp(y * ln_x)": "x.powf(y)",
}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = Path(sys.argv[1])
    pmath = root / "src" / "pmath.rs"
    s = pmath.read_text()
    for a, b in CALLS.items():
        if a not in s:
            sys.exit(f"{pmath}: `{a}` not found: update ci/platforms/platform_math.py")
        s = s.replace(a, b)
    # hypot: the whole body, inlined (a call into glibc's keeps the callers small)
    s = s.replace("#[inline(never)]\npub fn hypot", "#[inline]\npub fn hypot")
    s, n = re.subn(r"(pub fn hypot\(x: f64, y: f64\) -> f64 \{)(.*?)(\n\})", r"\1\n    x.hypot(y)\3", s,
                   count=1, flags=re.S)
    if n != 1:
        sys.exit(f"{pmath}: hypot not found: update ci/platforms/platform_math.py")
    pmath.write_text(s)
    # the four-lane versions (src/pmath/batch.rs) off: every element by the calls above
    batch = root / "src" / "pmath" / "batch.rs"
    t = batch.read_text()
    for a in ("simd::exp(x)", "simd::powf(x, y)"):
        if a not in t:
            sys.exit(f"{batch}: `{a}` not found: update ci/platforms/platform_math.py")
        t = t.replace(a, "0")
    batch.write_text(t)
    build = root / "fmu-template" / "build.rs"
    b = build.read_text()
    wrap = 'println!("cargo:rustc-cdylib-link-arg=-Wl,--wrap=exp,--wrap=log");'
    if wrap not in b:
        sys.exit(f"{build}: the --wrap line not found: update ci/platforms/platform_math.py")
    build.write_text(b.replace(wrap, ""))
    print(f"{root}: pmath calls the platform's math library; runtime linked without --wrap")


if __name__ == "__main__":
    main()
