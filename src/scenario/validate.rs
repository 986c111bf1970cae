//! Value checks that serde cannot express: ranges, names, references between fields.
//! All problems are collected, each with its field path.

use super::error::FieldError;
use super::types::*;

/// Names that may not be used for bodies: they prefix other variables.
pub const RESERVED_NAMES: &[&str] = &["terrain", "world", "bbcc", "rig", "soil", "time"];

struct Checker {
    errors: Vec<FieldError>,
}

impl Checker {
    fn err(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.errors.push(FieldError {
            path: path.into(),
            message: message.into(),
        });
    }
    fn finite(&mut self, path: &str, v: f64) -> bool {
        if !v.is_finite() {
            self.err(path, format!("must be a finite number, got {v}"));
            return false;
        }
        true
    }
    fn positive(&mut self, path: &str, v: f64) {
        if self.finite(path, v) && v <= 0.0 {
            self.err(path, format!("must be > 0, got {v}"));
        }
    }
    fn non_negative(&mut self, path: &str, v: f64) {
        if self.finite(path, v) && v < 0.0 {
            self.err(path, format!("must be >= 0, got {v}"));
        }
    }
    fn vec<const N: usize>(&mut self, path: &str, v: &[f64; N]) {
        for (i, x) in v.iter().enumerate() {
            self.finite(&format!("{path}[{i}]"), *x);
        }
    }
    fn quaternion(&mut self, path: &str, q: &[f64; 4]) {
        self.vec(path, q);
        let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm.is_finite() && (norm - 1.0).abs() > 1e-6 {
            self.err(
                path,
                format!("must be a unit quaternion [w, x, y, z], got norm {norm}"),
            );
        }
    }
    fn material(&mut self, path: &str, m: &Material) {
        self.positive(&format!("{path}.E"), m.E);
        let nu = format!("{path}.nu");
        if self.finite(&nu, m.nu) && !(0.0..=0.5).contains(&m.nu) {
            self.err(nu, format!("must be in [0, 0.5], got {}", m.nu));
        }
        let zeta = format!("{path}.zeta");
        if self.finite(&zeta, m.zeta) && !(m.zeta > 0.0 && m.zeta <= 1.0) {
            self.err(zeta, format!("must be in (0, 1], got {}", m.zeta));
        }
        self.non_negative(&format!("{path}.mu"), m.mu);
    }
}

/// True for `[A-Za-z][A-Za-z0-9_]*`.
pub fn is_plain_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// All problems of `s`; empty when it is valid.
pub fn validate(s: &Scenario) -> Vec<FieldError> {
    let mut c = Checker { errors: vec![] };
    if s.name.trim().is_empty() {
        c.err("name", "must not be empty");
    }
    if !is_plain_name(&s.model_identifier) {
        c.err(
            "model_identifier",
            format!(
                "must be a C identifier (letters, digits, '_', starting with a letter), got '{}'",
                s.model_identifier
            ),
        );
    }
    let e = &s.default_experiment;
    c.finite("default_experiment.start_time", e.start_time);
    c.positive("default_experiment.step_size", e.step_size);
    if c.finite("default_experiment.stop_time", e.stop_time) && e.stop_time <= e.start_time {
        c.err(
            "default_experiment.stop_time",
            format!(
                "must be > start_time ({}), got {}",
                e.start_time, e.stop_time
            ),
        );
    }
    c.positive("model_step", s.model_step);
    c.vec("gravity", &s.gravity);

    match &s.terrain {
        Terrain::Flat { height, material } => {
            c.finite("terrain.height", *height);
            c.material("terrain.material", material);
        }
    }

    let mut names: Vec<&str> = vec![];
    for (i, b) in s.bodies.iter().enumerate() {
        let p = format!("bodies[{i}]");
        if !is_plain_name(&b.name) {
            c.err(
                format!("{p}.name"),
                format!(
                    "must be letters, digits and '_', starting with a letter, got '{}'",
                    b.name
                ),
            );
        } else if RESERVED_NAMES.contains(&b.name.as_str()) {
            c.err(format!("{p}.name"), format!("'{}' is reserved", b.name));
        } else if names.contains(&b.name.as_str()) {
            c.err(
                format!("{p}.name"),
                format!("'{}' is used by another body", b.name),
            );
        }
        names.push(&b.name);
        match &b.shape {
            Shape::Sphere { radius } => c.positive(&format!("{p}.shape.radius"), *radius),
        }
        c.material(&format!("{p}.material"), &b.material);
        match &b.motion {
            Motion::Kinematic {
                position,
                orientation,
                velocity,
                angular_velocity,
            } => {
                c.vec(&format!("{p}.motion.position"), position);
                c.quaternion(&format!("{p}.motion.orientation"), orientation);
                c.vec(&format!("{p}.motion.velocity"), velocity);
                c.vec(&format!("{p}.motion.angular_velocity"), angular_velocity);
            }
            Motion::Free {
                mass,
                inertia,
                position,
                orientation,
                velocity,
                angular_velocity,
            } => {
                c.positive(&format!("{p}.motion.mass"), *mass);
                if let Some(inertia) = inertia {
                    for (k, j) in inertia.iter().enumerate() {
                        c.positive(&format!("{p}.motion.inertia[{k}]"), *j);
                    }
                }
                c.vec(&format!("{p}.motion.position"), position);
                c.quaternion(&format!("{p}.motion.orientation"), orientation);
                c.vec(&format!("{p}.motion.velocity"), velocity);
                c.vec(&format!("{p}.motion.angular_velocity"), angular_velocity);
            }
        }
    }

    if let Some(bbcc) = &s.bbcc {
        c.positive("bbcc.v_d", bbcc.v_d);
        c.positive("bbcc.impact_velocity_min", bbcc.impact_velocity_min);
        let mut seen: Vec<(String, String)> = vec![];
        for (i, [a, b]) in bbcc.pairs.iter().enumerate() {
            let p = format!("bbcc.pairs[{i}]");
            for (k, n) in [a, b].iter().enumerate() {
                if n.as_str() != "terrain" && !names.contains(&n.as_str()) {
                    c.err(
                        format!("{p}[{k}]"),
                        format!(
                            "no body named '{n}' (bodies: {}, or \"terrain\")",
                            names.join(", ")
                        ),
                    );
                }
            }
            if a == b {
                c.err(&p, format!("a body cannot touch itself ('{a}')"));
            } else if a != "terrain" && b != "terrain" {
                c.err(
                    &p,
                    format!(
                        "body-to-body pairs ('{a}', '{b}') are not supported yet: this version pairs bodies with the terrain only"
                    ),
                );
            }
            let key = if a < b {
                (a.clone(), b.clone())
            } else {
                (b.clone(), a.clone())
            };
            if seen.contains(&key) {
                c.err(&p, format!("pair ('{a}', '{b}') is listed twice"));
            }
            seen.push(key);
        }
    }
    c.errors
}
