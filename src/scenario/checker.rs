//! The checker every value check writes to (`Checker`: ranges, names, shapes and
//! materials, each problem with its field path) and the helpers messages share. The
//! scenario's own checks ([`super::validate`]) and each model's section checks
//! (`src/models/<model>/check.rs`) use it; it knows no model.

use crate::geometry::primitive;
use super::error::FieldError;
use super::types::*;

/// The largest body dimension, m: no contact or terramechanics model here handles a
/// larger body, and the grids the models index by coordinate (SCM nodes, PCM terrain
/// cells) must not overflow their 64-bit indices (a 5e298 m cylinder did, issue 26).
pub const MAX_LENGTH: f64 = 1e4;
/// The largest start position coordinate, m (1000 km: far beyond any rover traverse;
/// a double still resolves 0.1 nm there).
pub const MAX_COORDINATE: f64 = 1e6;

/// A number for a message: plain, or in exponent notation where plain would be long
/// (1e300 has 301 digits).
pub fn num(v: f64) -> String {
    if v != 0.0 && !(1e-5..1e7).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// The body names of `s` for a message: the first ten, then how many there are.
pub fn body_names(s: &Scenario) -> String {
    let mut out: Vec<&str> = s.bodies.iter().take(10).map(|b| b.name.as_str()).collect();
    if s.bodies.len() > 10 {
        out.push("...");
    }
    let list = out.join(", ");
    if s.bodies.len() > 10 {
        format!("{list} ({} bodies)", s.bodies.len())
    } else {
        list
    }
}

/// Names that may not be used for bodies: they prefix other variables.
pub const RESERVED_NAMES: &[&str] = &["terrain", "world", "bbcc", "rig", "soil", "time"];

/// Collects the problems of a scenario, each with its field path; the model sections'
/// checks (`src/models/<model>/check.rs`) add theirs through it.
pub(crate) struct Checker {
    pub(super) errors: Vec<FieldError>,
}

impl Checker {
    /// A problem at `path`. Quoted text in the message ('...') over
    /// [`QUOTED_MAX`] characters is [`shown`] shortened: a message may quote a
    /// reference the scenario makes (a body name that does not exist, a pair listed
    /// twice), and a 200 kB name must not come back whole, whichever check quotes it.
    pub(crate) fn err(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.errors.push(FieldError {
            path: path.into(),
            message: shorten_quoted(message.into()),
        });
    }
    pub(crate) fn finite(&mut self, path: &str, v: f64) -> bool {
        if !v.is_finite() {
            self.err(path, format!("must be a finite number, got {v}"));
            return false;
        }
        true
    }
    pub(crate) fn positive(&mut self, path: &str, v: f64) {
        if self.finite(path, v) && v <= 0.0 {
            self.err(path, format!("must be > 0, got {}", num(v)));
        }
    }
    /// A body's size (a radius, a width, an edge), m: > 0 and at most [`MAX_LENGTH`].
    pub(crate) fn length(&mut self, path: &str, v: f64) {
        if self.finite(path, v) && v <= 0.0 {
            self.err(path, format!("must be > 0, got {}", num(v)));
        } else if v > MAX_LENGTH {
            self.err(
                path,
                format!("must be at most {MAX_LENGTH:e} m, got {}", num(v)),
            );
        }
    }
    /// A position in the world or body frame, m: each coordinate within
    /// +-[`MAX_COORDINATE`].
    pub(crate) fn position(&mut self, path: &str, v: &[f64; 3]) {
        for (i, x) in v.iter().enumerate() {
            let p = format!("{path}[{i}]");
            if self.finite(&p, *x) && x.abs() > MAX_COORDINATE {
                self.err(
                    p,
                    format!("must lie within +-{MAX_COORDINATE:e} m, got {}", num(*x)),
                );
            }
        }
    }
    pub(crate) fn non_negative(&mut self, path: &str, v: f64) {
        if self.finite(path, v) && v < 0.0 {
            self.err(path, format!("must be >= 0, got {}", num(v)));
        }
    }
    /// An angle in (0, pi/2) rad: friction, repose.
    pub(crate) fn acute_angle(&mut self, path: &str, v: f64) {
        if self.finite(path, v) && !(v > 0.0 && v < std::f64::consts::FRAC_PI_2) {
            self.err(path, format!("must be in (0, pi/2) rad, got {v}"));
        }
    }
    pub(crate) fn vec<const N: usize>(&mut self, path: &str, v: &[f64; N]) {
        for (i, x) in v.iter().enumerate() {
            self.finite(&format!("{path}[{i}]"), *x);
        }
    }
    pub(crate) fn quaternion(&mut self, path: &str, q: &[f64; 4]) {
        self.vec(path, q);
        let norm = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm.is_finite() && (norm - 1.0).abs() > 1e-6 {
            self.err(
                path,
                format!("must be a unit quaternion [w, x, y, z], got norm {norm}"),
            );
        }
    }
    pub(crate) fn angle(&mut self, path: &str, a: f64) {
        if self.finite(path, a) && a.abs() >= 1.4 {
            self.err(
                path,
                format!("must be an inclination in rad within (-1.4, 1.4) (80 deg), got {a}"),
            );
        }
    }
    pub(crate) fn material(&mut self, path: &str, m: &Material) {
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
    pub(crate) fn shape(&mut self, path: &str, shape: &Shape, top: bool) {
        match shape {
            Shape::Sphere(s) => self.length(&format!("{path}.radius"), s.radius),
            Shape::Wheel { radius, width } => {
                self.length(&format!("{path}.radius"), *radius);
                self.length(&format!("{path}.width"), *width);
            }
            Shape::Cuboid(primitive::Cuboid { size }) => {
                for (k, x) in size.iter().enumerate() {
                    self.length(&format!("{path}.size[{k}]"), *x);
                }
            }
            Shape::Cylinder(primitive::Cylinder { radius, height }) => {
                self.length(&format!("{path}.radius"), *radius);
                self.length(&format!("{path}.height"), *height);
            }
            Shape::GrouserWheel(primitive::GrouserWheel {
                radius,
                width,
                count,
                grouser_height,
                grouser_thickness,
            }) => {
                self.length(&format!("{path}.radius"), *radius);
                self.length(&format!("{path}.width"), *width);
                self.non_negative(&format!("{path}.grouser_height"), *grouser_height);
                if *grouser_height > MAX_LENGTH {
                    self.length(&format!("{path}.grouser_height"), *grouser_height);
                }
                self.length(&format!("{path}.grouser_thickness"), *grouser_thickness);
                if *count > 360 {
                    self.err(
                        format!("{path}.count"),
                        format!("at most 360 grousers, got {count}"),
                    );
                }
            }
            Shape::Plate { radius, thickness } => {
                self.length(&format!("{path}.radius"), *radius);
                self.length(&format!("{path}.thickness"), *thickness);
            }
            Shape::ConvexMesh { file, scale } => {
                self.length(&format!("{path}.scale"), *scale);
                if file.is_empty() {
                    self.err(format!("{path}.file"), "must name an OBJ file");
                }
            }
            Shape::Mesh { file, scale } => {
                self.length(&format!("{path}.scale"), *scale);
                if crate::assets::mesh_read::MeshFormat::of(file).is_none() {
                    self.err(
                        format!("{path}.file"),
                        format!("'{file}': name an .obj, .stl or .ply file"),
                    );
                }
            }
            Shape::Torus {
                major_radius,
                minor_radius,
            } => {
                self.length(&format!("{path}.major_radius"), *major_radius);
                self.length(&format!("{path}.minor_radius"), *minor_radius);
                if minor_radius >= major_radius {
                    self.err(
                        format!("{path}.minor_radius"),
                        format!(
                            "must be less than major_radius ({major_radius}), got {minor_radius}"
                        ),
                    );
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
                        Shape::Sphere(primitive::Sphere { .. })
                            | Shape::Cuboid(primitive::Cuboid { .. })
                            | Shape::Cylinder(primitive::Cylinder { .. })
                            | Shape::ConvexMesh { .. }
                    ) {
                        self.err(format!("{pp}.shape"), "a compound part must be convex: sphere, cuboid, cylinder or convex_mesh");
                    }
                    self.shape(&format!("{pp}.shape"), &part.shape, false);
                    self.position(&format!("{pp}.position"), &part.position);
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
/// Longest name or model identifier, characters: a body's variables (`<name>.r[1]`),
/// the FMU's file (`<model_identifier>.fmu`) and its library must stay well inside the
/// file systems' 255 bytes.
pub const MAX_NAME_LEN: usize = 100;

/// Quoted text in a problem message longer than this many characters is shortened.
const QUOTED_MAX: usize = 1000;

/// `message` with every quoted run ('...' or "...") of more than [`QUOTED_MAX`]
/// characters replaced by its [`shown`] form (serde quotes a wrong string whole).
pub fn shorten_quoted(message: String) -> String {
    if message.len() <= QUOTED_MAX {
        return message;
    }
    let mut out = message;
    for quote in ['\'', '"'] {
        let parts: Vec<&str> = out.split(quote).collect();
        if parts.iter().all(|p| p.chars().count() <= QUOTED_MAX) {
            continue;
        }
        out = parts
            .iter()
            .enumerate()
            .map(|(k, p)| {
                if k % 2 == 1 && p.chars().count() > QUOTED_MAX {
                    shown(p)
                } else {
                    p.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(&quote.to_string());
    }
    out
}

/// `s` as an error message quotes it: whole when short, else its start and its length
/// (a 50 MB name must not come back whole in a message).
pub fn shown(s: &str) -> String {
    const KEEP: usize = 40;
    if s.chars().count() <= 60 {
        s.to_string()
    } else {
        let head: String = s.chars().take(KEEP).collect();
        format!("{head}... ({} characters)", s.chars().count())
    }
}

/// A C identifier of at most [`MAX_NAME_LEN`] characters.
pub fn is_plain_name(s: &str) -> bool {
    if s.len() > MAX_NAME_LEN {
        return false;
    }
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
