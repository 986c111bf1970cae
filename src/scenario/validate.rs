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
    /// An angle in (0, pi/2) rad: friction, repose.
    fn acute_angle(&mut self, path: &str, v: f64) {
        if self.finite(path, v) && !(v > 0.0 && v < std::f64::consts::FRAC_PI_2) {
            self.err(path, format!("must be in (0, pi/2) rad, got {v}"));
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
    fn angle(&mut self, path: &str, a: f64) {
        if self.finite(path, a) && a.abs() >= 1.4 {
            self.err(
                path,
                format!("must be an inclination in rad within (-1.4, 1.4) (80 deg), got {a}"),
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
        match (m.mu_s, m.xi) {
            (Some(mu_s), Some(xi)) => {
                self.non_negative(&format!("{path}.mu_s"), mu_s);
                self.non_negative(&format!("{path}.xi"), xi);
            }
            (None, None) => {}
            _ => self.err(
                path,
                "give both mu_s and xi (Bengisu-Akay, eq. (5)) or neither",
            ),
        }
    }
    fn shape(&mut self, path: &str, shape: &Shape, top: bool) {
        match shape {
            Shape::Sphere { radius } => self.positive(&format!("{path}.radius"), *radius),
            Shape::Wheel { radius, width } => {
                self.positive(&format!("{path}.radius"), *radius);
                self.positive(&format!("{path}.width"), *width);
            }
            Shape::Cuboid { size } => {
                for (k, x) in size.iter().enumerate() {
                    self.positive(&format!("{path}.size[{k}]"), *x);
                }
            }
            Shape::Cylinder { radius, height } => {
                self.positive(&format!("{path}.radius"), *radius);
                self.positive(&format!("{path}.height"), *height);
            }
            Shape::GrouserWheel {
                radius,
                width,
                count,
                grouser_height,
                grouser_thickness,
            } => {
                self.positive(&format!("{path}.radius"), *radius);
                self.positive(&format!("{path}.width"), *width);
                self.non_negative(&format!("{path}.grouser_height"), *grouser_height);
                self.positive(&format!("{path}.grouser_thickness"), *grouser_thickness);
                if *count > 360 {
                    self.err(
                        format!("{path}.count"),
                        format!("at most 360 grousers, got {count}"),
                    );
                }
            }
            Shape::Plate { radius, thickness } => {
                self.positive(&format!("{path}.radius"), *radius);
                self.positive(&format!("{path}.thickness"), *thickness);
            }
            Shape::ConvexMesh { file, scale } => {
                self.positive(&format!("{path}.scale"), *scale);
                if file.is_empty() {
                    self.err(format!("{path}.file"), "must name an OBJ file");
                }
            }
            Shape::Generated { asset } => {
                use crate::assets::{AssetError, AssetRequest};
                if !matches!(asset, AssetRequest::Wheel(_) | AssetRequest::Rock(_)) {
                    self.err(
                        format!("{path}.asset.kind"),
                        format!(
                            "a body's shape is a wheel or a rock, not a {}",
                            asset.prefix()
                        ),
                    );
                } else if let Err(e) = asset.validate() {
                    match e {
                        // "wheel.grousers.height" -> "<path>.asset.params.grousers.height"
                        AssetError::Param { field, message } => {
                            let rest = field.split_once('.').map_or("", |(_, r)| r);
                            self.err(format!("{path}.asset.params.{rest}"), message);
                        }
                        e => self.err(format!("{path}.asset"), e.to_string()),
                    }
                }
            }
            Shape::Compound { parts } => {
                if !top {
                    self.err(path, "compounds cannot be nested");
                }
                if parts.is_empty() {
                    self.err(format!("{path}.parts"), "needs at least one part");
                }
                for (i, part) in parts.iter().enumerate() {
                    let pp = format!("{path}.parts[{i}]");
                    if !matches!(
                        part.shape,
                        Shape::Sphere { .. }
                            | Shape::Cuboid { .. }
                            | Shape::Cylinder { .. }
                            | Shape::ConvexMesh { .. }
                    ) {
                        self.err(format!("{pp}.shape"), "a compound part must be convex: sphere, cuboid, cylinder or convex_mesh");
                    }
                    self.shape(&format!("{pp}.shape"), &part.shape, false);
                    self.vec(&format!("{pp}.position"), &part.position);
                    self.quaternion(&format!("{pp}.orientation"), &part.orientation);
                }
            }
            Shape::CuboidGrid { cell, heights } => {
                self.positive(&format!("{path}.cell"), *cell);
                let nx = heights.first().map_or(0, |r| r.len());
                if heights.is_empty() || nx == 0 {
                    self.err(
                        format!("{path}.heights"),
                        "needs at least one row with one height",
                    );
                }
                for (j, row) in heights.iter().enumerate() {
                    if row.len() != nx {
                        self.err(
                            format!("{path}.heights[{j}]"),
                            format!("all rows need {nx} heights, got {}", row.len()),
                        );
                    }
                    for (i, h) in row.iter().enumerate() {
                        self.finite(&format!("{path}.heights[{j}][{i}]"), *h);
                    }
                }
            }
        }
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

    match &s.terrain.surface {
        SurfaceSpec::Flat { height } => {
            c.finite("terrain.surface.height", *height);
        }
        SurfaceSpec::Inclined { height, angle } => {
            c.finite("terrain.surface.height", *height);
            c.angle("terrain.surface.angle", *angle);
        }
        SurfaceSpec::Ramps { height, ramps } => {
            c.finite("terrain.surface.height", *height);
            if ramps.is_empty() {
                c.err("terrain.surface.ramps", "needs at least one ramp");
            }
            for (i, r) in ramps.iter().enumerate() {
                let p = format!("terrain.surface.ramps[{i}]");
                c.finite(&format!("{p}.x"), r.x);
                c.angle(&format!("{p}.angle"), r.angle);
                if i > 0 && r.x <= ramps[i - 1].x {
                    c.err(
                        format!("{p}.x"),
                        format!(
                            "must be > the previous ramp's x ({}), got {}",
                            ramps[i - 1].x,
                            r.x
                        ),
                    );
                }
            }
        }
        SurfaceSpec::Generated(p) => {
            if let Err(e) = p.validate() {
                match e {
                    crate::assets::AssetError::Param { field, message } => {
                        let rest = field.split_once('.').map_or("", |(_, r)| r);
                        c.err(format!("terrain.surface.{rest}"), message);
                    }
                    e => c.err("terrain.surface", e.to_string()),
                }
            }
        }
        SurfaceSpec::Profile { points } => {
            if points.len() < 2 {
                c.err(
                    "terrain.surface.points",
                    format!("needs at least 2 points, got {}", points.len()),
                );
            }
            for (i, pt) in points.iter().enumerate() {
                c.vec(&format!("terrain.surface.points[{i}]"), pt);
                if i > 0 && pt[0] <= points[i - 1][0] {
                    c.err(
                        format!("terrain.surface.points[{i}][0]"),
                        format!("x must increase: {} after {}", pt[0], points[i - 1][0]),
                    );
                }
            }
        }
    }
    if let Some(m) = &s.terrain.material {
        c.material("terrain.material", m);
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
        c.shape(&format!("{p}.shape"), &b.shape, true);
        if let Some(g) = &b.group {
            if !is_plain_name(g) {
                c.err(
                    format!("{p}.group"),
                    format!("must be letters, digits and '_', starting with a letter, got '{g}'"),
                );
            } else if s.bodies.iter().any(|o| &o.name == g) || g == "terrain" {
                c.err(
                    format!("{p}.group"),
                    format!(
                        "'{g}' is also a body name (or \"terrain\"): collection names must differ"
                    ),
                );
            }
        }
        if let Some(m) = &b.material {
            c.material(&format!("{p}.material"), m);
        }
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
                ..
            } => {
                c.positive(&format!("{p}.motion.mass"), *mass);
                if matches!(
                    b.shape,
                    Shape::ConvexMesh { .. }
                        | Shape::Compound { .. }
                        | Shape::CuboidGrid { .. }
                        | Shape::Generated { .. }
                ) && inertia.is_none()
                {
                    c.err(
                        format!("{p}.motion.inertia"),
                        "give the inertia of a mesh, compound or grid body (no default for it)",
                    );
                }
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
            Motion::Fixed {
                position,
                orientation,
                incline,
            } => {
                c.vec(&format!("{p}.motion.position"), position);
                c.quaternion(&format!("{p}.motion.orientation"), orientation);
                if let Some(a) = incline {
                    c.angle(&format!("{p}.motion.incline"), *a);
                }
            }
        }
    }

    if let Some(bbcc) = &s.bbcc {
        bbcc_pairs(&mut c, s, bbcc);
    }

    if let Some(t) = &s.terra {
        terra(&mut c, s, t);
    }
    if let Some(r) = &s.rig {
        rig(&mut c, s, r);
    }
    if let Some(scm) = &s.scm {
        scm_settings(&mut c, s, scm);
    }
    c.errors
}

fn scm_settings(c: &mut Checker, s: &Scenario, scm: &ScmSettings) {
    let soil = &scm.soil;
    c.positive("scm.soil.ds", soil.ds);
    c.positive("scm.soil.n", soil.n);
    for (name, v) in [
        ("kc", soil.kc),
        ("kphi", soil.kphi),
        ("c", soil.c),
        ("mu", soil.mu),
        ("damping", soil.damping),
    ] {
        c.non_negative(&format!("scm.soil.{name}"), v);
    }
    c.positive("scm.soil.k_e", soil.k_e);
    c.positive("scm.soil.v_shear", soil.v_shear);
    c.positive("scm.soil.k_shear", soil.k_shear);
    c.non_negative("scm.soil.density", soil.density);
    if soil.erosion_sweeps > i32::MAX as u32 {
        // an FMI Integer parameter
        c.err(
            "scm.soil.erosion_sweeps",
            "must be at most 2147483647 (0: until settled)",
        );
    }
    c.acute_angle("scm.soil.phi", soil.phi);
    c.acute_angle("scm.soil.repose", soil.repose);
    if soil.kc + soil.kphi <= 0.0 {
        c.err("scm.soil.kphi", "kc and kphi cannot both be 0");
    }
    c.vec("scm.extent", &scm.extent);
    if scm.extent[1] <= scm.extent[0] || scm.extent[3] <= scm.extent[2] {
        c.err(
            "scm.extent",
            "must be [x_min, x_max, y_min, y_max] with x_min < x_max and y_min < y_max",
        );
    } else if soil.ds > 0.0 {
        let nodes = ((scm.extent[1] - scm.extent[0]) / soil.ds)
            .max((scm.extent[3] - scm.extent[2]) / soil.ds);
        if nodes > 1e9 {
            c.err(
                "scm.extent",
                format!(
                    "{nodes:.3e} nodes along one side at ds = {}: at most 1e9",
                    soil.ds
                ),
            );
        }
    }
    c.non_negative("scm.update_interval", scm.update_interval);
    c.non_negative("scm.export_interval", scm.export_interval);
    if let Some(m) = &scm.soil_map {
        c.positive("scm.soil_map.cell", m.cell);
        c.vec("scm.soil_map.origin", &m.origin);
        if m.classes.is_empty() || m.classes.len() > 255 {
            c.err(
                "scm.soil_map.classes",
                format!("needs 1 to 255 classes, has {}", m.classes.len()),
            );
        }
        for (k, class) in m.classes.iter().enumerate() {
            let at = |name: &str| format!("scm.soil_map.classes[{k}].{name}");
            if let Some(n) = class.n {
                c.positive(&at("n"), n);
            }
            for (name, v) in [("kc", class.kc), ("kphi", class.kphi), ("c", class.c)] {
                if let Some(v) = v {
                    c.non_negative(&at(name), v);
                }
            }
            for (name, v) in [("phi", class.phi), ("repose", class.repose)] {
                if let Some(v) = v {
                    c.acute_angle(&at(name), v);
                }
            }
        }
    }
    if s.terra.is_some() {
        c.err(
            "scm",
            "a scenario has one soil: \"terra\" and \"scm\" both define soil.c and soil.phi",
        );
    }
    let mut seen: Vec<&str> = vec![];
    for (i, name) in scm.bodies.iter().enumerate() {
        let p = format!("scm.bodies[{i}]");
        match s.bodies.iter().find(|b| &b.name == name) {
            None => c.err(
                &p,
                format!(
                    "no body named '{name}' (bodies: {})",
                    s.bodies
                        .iter()
                        .map(|b| b.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            Some(b) => {
                if matches!(b.motion, Motion::Fixed { .. }) {
                    c.err(
                        &p,
                        format!("'{name}' is fixed: SCM bodies are kinematic or free"),
                    );
                }
                if matches!(b.shape, Shape::CuboidGrid { .. }) {
                    c.err(
                        &p,
                        format!("'{name}': a cuboid_grid has no SCM contact mesh"),
                    );
                }
            }
        }
        if seen.contains(&name.as_str()) {
            c.err(&p, format!("'{name}' is listed twice"));
        }
        seen.push(name);
    }
}

/// Members of a pair name: the body itself, or the members of a collection.
fn members<'a>(s: &'a Scenario, name: &str) -> Vec<&'a Body> {
    match s.bodies.iter().find(|b| b.name == name) {
        Some(b) => vec![b],
        None => s
            .bodies
            .iter()
            .filter(|b| b.group.as_deref() == Some(name))
            .collect(),
    }
}

fn bbcc_pairs(c: &mut Checker, s: &Scenario, bbcc: &BbccSettings) {
    c.positive("bbcc.v_d", bbcc.v_d);
    c.positive("bbcc.impact_velocity_min", bbcc.impact_velocity_min);
    let flat_terrain = matches!(
        s.terrain.surface,
        SurfaceSpec::Flat { .. } | SurfaceSpec::Inclined { .. }
    );
    let mut seen: Vec<(String, String)> = vec![];
    for (i, [a, b]) in bbcc.pairs.iter().enumerate() {
        let p = format!("bbcc.pairs[{i}]");
        let mut all = vec![];
        for (k, n) in [a, b].iter().enumerate() {
            if n.as_str() == "terrain" {
                if s.terrain.material.is_none() {
                    c.err(&p, "the terrain has no material (terrain.material: BBCC needs E, nu, zeta, mu)");
                }
                continue;
            }
            let m = members(s, n);
            if m.is_empty() {
                let names: Vec<&str> = s.bodies.iter().map(|b| b.name.as_str()).collect();
                c.err(
                    format!("{p}[{k}]"),
                    format!(
                        "no body or collection named '{n}' (bodies: {}, or \"terrain\")",
                        names.join(", ")
                    ),
                );
            }
            all.extend(m);
        }
        if a == b {
            c.err(&p, format!("a body or collection cannot be paired with itself ('{a}'): members of a collection do not collide with each other"));
        }
        for body in all {
            if matches!(body.shape, Shape::Wheel { .. }) {
                c.err(&p, format!("'{}' has a TerRA wheel shape; BBCC needs sphere, cuboid, cylinder, grouser_wheel, convex_mesh, compound or cuboid_grid", body.name));
            }
            if body.material.is_none() {
                c.err(
                    &p,
                    format!(
                        "'{}' has no material (BBCC needs E, nu, zeta, mu)",
                        body.name
                    ),
                );
            }
            if (a == "terrain" || b == "terrain")
                && !flat_terrain
                && !matches!(body.shape, Shape::Sphere { .. })
            {
                c.err(&p, format!("'{}': only spheres touch a ramps, profile or generated terrain; use a flat or inclined terrain, or a fixed cuboid or cuboid_grid body", body.name));
            }
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

fn terra(c: &mut Checker, s: &Scenario, t: &TerraSettings) {
    let m = &t.model;
    for (name, v) in [
        ("k_c", m.k_c),
        ("k_exp", m.k_exp),
        ("k_el", m.k_el),
        ("k_s0", m.k_s0),
        ("k_j", m.k_j),
        ("t_pt1", m.t_pt1),
        ("v_thresh", m.v_thresh),
        ("k_p", m.k_p),
        ("k_awu", m.k_awu),
    ] {
        c.positive(&format!("terra.model.{name}"), v);
    }
    for (name, v) in [
        ("k_d", m.k_d),
        ("k_s_exp", m.k_s_exp),
        ("k_s_max", m.k_s_max),
        ("k_i", m.k_i),
    ] {
        c.non_negative(&format!("terra.model.{name}"), v);
    }
    c.non_negative("terra.soil.c", t.soil.c);
    c.positive("terra.soil.rho", t.soil.rho);
    c.acute_angle("terra.soil.phi", t.soil.phi);
    let mut seen: Vec<&str> = vec![];
    for (i, w) in t.wheels.iter().enumerate() {
        let p = format!("terra.wheels[{i}]");
        c.positive(&format!("{p}.mass_estimate"), w.mass_estimate);
        match s.bodies.iter().find(|b| b.name == w.body) {
            None => c.err(format!("{p}.body"), format!("no body named '{}'", w.body)),
            Some(b) => {
                if !matches!(b.shape, Shape::Wheel { .. }) {
                    c.err(
                        format!("{p}.body"),
                        format!("'{}' must have a wheel shape", w.body),
                    );
                }
                if !matches!(b.motion, Motion::Kinematic { .. }) {
                    c.err(
                        format!("{p}.body"),
                        format!(
                            "'{}' must be kinematic (TerRA is a force element on a driven wheel)",
                            w.body
                        ),
                    );
                }
            }
        }
        if seen.contains(&w.body.as_str()) {
            c.err(format!("{p}.body"), format!("'{}' is listed twice", w.body));
        }
        seen.push(&w.body);
    }
}

fn rig(c: &mut Checker, s: &Scenario, r: &RigSpec) {
    if r.mode != 1 && r.mode != 2 {
        c.err(
            "rig.mode",
            format!(
                "must be 1 (slip-controlled) or 2 (force-controlled), got {}",
                r.mode
            ),
        );
    }
    c.positive("rig.load_mass", r.load_mass);
    c.positive("rig.g", r.g);
    c.positive("rig.radius", r.radius);
    c.positive("rig.width", r.width);
    c.vec("rig.position", &r.position);
    c.finite("rig.omega", r.omega);
    c.finite("rig.vx", r.vx);
    c.finite("rig.drawbar_force", r.drawbar_force);
    match r.soil_model {
        RigSoilModel::Terra => {
            if s.terra.is_none() {
                c.err(
                    "rig.soil_model",
                    "'terra' needs a \"terra\" section with the model and soil constants",
                );
            }
        }
        RigSoilModel::Scm => {
            if s.scm.is_none() {
                c.err(
                    "rig.soil_model",
                    "'scm' needs an \"scm\" section with the soil",
                );
            }
        }
    }
    if let Some(g) = &r.grousers {
        c.non_negative("rig.grousers.height", g.height);
        c.positive("rig.grousers.thickness", g.thickness);
        if g.count > 360 {
            c.err(
                "rig.grousers.count",
                format!("at most 360 grousers, got {}", g.count),
            );
        }
        if r.soil_model != RigSoilModel::Scm {
            c.err(
                "rig.grousers",
                "grousers shape the SCM wheel mesh: only with soil_model \"scm\"",
            );
        }
    }
    if let Some(i) = s.bodies.iter().position(|b| b.name == "wheel") {
        c.err(
            format!("bodies[{i}].name"),
            "'wheel' is the rig's wheel: choose another name",
        );
    }
}
