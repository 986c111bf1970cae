//! The models use no platform math library: `src/` calls the transcendental functions
//! through `contact_fmu::pmath` (the `libm` crate), so an FMU gives the same bits on
//! every platform (docs/platforms.md). A call such as `x.sin()` or nalgebra's
//! `UnitQuaternion::from_axis_angle` (which calls the platform's sine) in `src/` fails
//! here with its file and line.

use std::path::Path;

/// f64 methods that call the platform's C math library.
const METHODS: [&str; 15] = [
    ".sin(", ".cos(", ".tan(", ".asin(", ".acos(", ".atan(", ".atan2(", ".exp(", ".exp_m1(",
    ".ln(", ".powf(", ".hypot(", ".tanh(", ".sin_cos(", ".cbrt(",
];
/// nalgebra constructors that do (outside test modules; pmath has portable versions).
const NALGEBRA: [&str; 5] = [
    "UnitQuaternion::from_axis_angle(",
    "UnitQuaternion::from_scaled_axis(",
    "UnitQuaternion::from_euler_angles(",
    "UnitQuaternion::new(",
    ".angle()",
];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn src_calls_no_platform_math() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![];
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("fmu-template/src"), &mut files);
    let mut found = vec![];
    for f in files {
        // the portable functions themselves, and their tests against the platform's
        if f.ends_with("pmath.rs") || f.components().any(|c| c.as_os_str() == "pmath") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        let test_from = text.find("#[cfg(test)]").unwrap_or(text.len());
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let offset = text.lines().take(i).map(|l| l.len() + 1).sum::<usize>();
            let mut bad: Vec<&str> = METHODS.iter().copied().filter(|m| code.contains(m)).collect();
            if offset < test_from {
                bad.extend(NALGEBRA.iter().copied().filter(|m| code.contains(m)));
            }
            if !bad.is_empty() {
                found.push(format!("{}:{}: {} (use contact_fmu::pmath)", f.display(), i + 1, bad.join(" ")));
            }
        }
    }
    assert!(found.is_empty(), "platform math in src/:\n{}", found.join("\n"));
}
