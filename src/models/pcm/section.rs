//! The `pcm` section of a scenario: its serde types (field docs become the JSON
//! Schema's descriptions) and the value checks serde cannot express, each problem with
//! its field path.

use crate::scenario::{is_plain_name, Checker, Scenario, Shape};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// PCM contact pairs (Hippmann 2023): compliant contact between triangle meshes of
/// any shape. FMI parameters and outputs `pcm.<pair>.*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PcmSettings {
    /// The contact pairs.
    pub pairs: Vec<PcmPair>,
    /// How the bodies' shapes become triangle meshes, by body name (bodies not listed:
    /// the defaults of [`Meshing`]).
    #[serde(default)]
    pub meshing: BTreeMap<String, Meshing>,
    /// Cell edge of the terrain's triangle grid for flat, inclined, ramps and profile
    /// surfaces, m (a generated surface uses its own nodes).
    #[serde(default = "PcmSettings::default_terrain_cell")]
    pub terrain_cell: f64,
}

impl PcmSettings {
    /// Default of `terrain_cell`, m.
    pub fn default_terrain_cell() -> f64 {
        0.05
    }
}

/// How a body's shape becomes a triangle mesh for PCM. The base mesh's triangles scan
/// the contact patch (Hippmann 2023, section 2.1): make them small against the
/// expected patch.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Meshing {
    /// Segment counts of a primitive: sphere `[frequency]` (a geodesic icosahedron,
    /// 20 frequency^2 triangles; default 8), torus `[around the axis, around the
    /// tube]` (default [64, 32]), cylinder and wheel `[around the axis]` (default 64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segments: Option<Vec<u32>>,
    /// Longest edge of a cuboid's triangles, and of a cylinder's along its axis, m
    /// (default: a quarter of the shortest edge, or of the cylinder's height).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edge: Option<f64>,
    /// Midpoint subdivisions applied afterwards, any shape (mesh files too): each
    /// multiplies the triangles by 4 (Hippmann 2023, section 4.2, Fig. 8). 0-8.
    #[serde(default)]
    pub subdivisions: u32,
}

impl Meshing {
    /// Segment count `k` of [`Meshing::segments`], or `default` when not given.
    pub fn segment(&self, k: usize, default: u32) -> u32 {
        self.segments
            .as_ref()
            .and_then(|s| s.get(k).copied())
            .unwrap_or(default)
    }
}

/// One PCM contact pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PcmPair {
    /// Prefix of the pair's FMI variables `pcm.<name>.*` (default `<body1>_<body2>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The two bodies, or a body and `"terrain"`.
    pub bodies: [String; 2],
    /// The base body, whose triangles are the contact elements (section 2.1). Default:
    /// the body with the smaller mean triangle area (the finer scan). The terrain is
    /// always the target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// The body whose frame all detection runs in (E, section 2.3). Default: the body
    /// with more triangles; the terrain (world frame) when it is in the pair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_e: Option<String>,
    /// Elastic layers: one for the pair, or two (on `bodies[0]` and `bodies[1]`, in
    /// series). FMI parameters `pcm.<name>.E[k]`, `.nu[k]`, `.b[k]`.
    pub layers: Vec<PcmLayer>,
    /// Maximum penetration u_max, m: penetration lines reach this deep (section 3).
    /// Penetrations beyond it are not seen; the FMU warns at 2/3 of it.
    pub u_max: f64,
    /// Area-related damping d_l, N s/m^3 (eq. (4)).
    #[serde(default)]
    pub d_l: f64,
    /// Coulomb friction coefficient.
    #[serde(default)]
    pub mu: f64,
    /// Sliding speed at which friction reaches mu F_n (linear below), m/s.
    #[serde(default = "PcmPair::default_v_reg")]
    pub v_reg: f64,
    /// Penetration over which the damping grows from 0 to its full value, m; 0: eq. (4)
    /// as is (the damping force jumps when an element activates).
    #[serde(default)]
    pub damping_depth: f64,
    /// Clamp each element's normal force at 0 (no pull from the damping when the
    /// bodies separate fast). FMI Boolean parameter `pcm.<name>.no_tensile`.
    #[serde(default = "yes")]
    pub no_tensile: bool,
}

fn yes() -> bool {
    true
}

impl PcmPair {
    /// Default of `v_reg`, m/s.
    pub fn default_v_reg() -> f64 {
        0.01
    }

    /// The pair's name: given, or `<body1>_<body2>`.
    pub fn label(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| format!("{}_{}", self.bodies[0], self.bodies[1]))
    }
}

/// An elastic layer (Hippmann 2023, eq. (2)-(3)).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(non_snake_case)]
pub struct PcmLayer {
    /// Young's modulus, Pa.
    pub E: f64,
    /// Poisson ratio, in [0, 0.5).
    pub nu: f64,
    /// Layer thickness b, m.
    pub b: f64,
}

/// Shapes PCM can mesh.
pub(crate) fn meshable(shape: &Shape) -> bool {
    !matches!(shape, Shape::CuboidGrid { .. })
}

/// Value checks of the scenario's `pcm` section (none without one).
pub(crate) fn check(c: &mut Checker, s: &Scenario) {
    let Some(pcm) = &s.pcm else { return };
    c.positive("pcm.terrain_cell", pcm.terrain_cell);
    if pcm.pairs.is_empty() {
        c.err("pcm.pairs", "needs at least one pair");
    }
    for (name, m) in &pcm.meshing {
        let p = format!("pcm.meshing.{name}");
        let Some(b) = s.bodies.iter().find(|b| &b.name == name) else {
            c.err(&p, format!("no body named '{name}'"));
            continue;
        };
        if let Some(e) = m.edge {
            c.positive(&format!("{p}.edge"), e);
        }
        if m.subdivisions > 8 {
            c.err(
                format!("{p}.subdivisions"),
                format!(
                    "at most 8 (4^8 = 65536 times the triangles), got {}",
                    m.subdivisions
                ),
            );
        }
        if let Some(seg) = &m.segments {
            let want = match b.shape {
                Shape::Sphere { .. } => Some((1, "[frequency]", 1, 200)),
                Shape::Torus { .. } => Some((2, "[around the axis, around the tube]", 3, 2048)),
                Shape::Cylinder { .. } | Shape::Wheel { .. } | Shape::Plate { .. } => {
                    Some((1, "[around the axis]", 3, 4096))
                }
                _ => None,
            };
            match want {
                None => c.err(
                    format!("{p}.segments"),
                    "only spheres, tori, cylinders, wheels and plates take segments",
                ),
                Some((n, what, lo, hi)) => {
                    if seg.len() != n {
                        c.err(
                            format!("{p}.segments"),
                            format!("a {} takes {what}", shape_kind(&b.shape)),
                        );
                    }
                    for (k, v) in seg.iter().enumerate() {
                        if *v < lo || *v > hi {
                            c.err(
                                format!("{p}.segments[{k}]"),
                                format!("must be in {lo}..={hi}, got {v}"),
                            );
                        }
                    }
                }
            }
        }
    }
    let mut names: Vec<String> = vec![];
    for (i, pair) in pcm.pairs.iter().enumerate() {
        let p = format!("pcm.pairs[{i}]");
        let label = pair.label();
        if !is_plain_name(&label) {
            c.err(
                format!("{p}.name"),
                format!(
                    "'{}' must be letters, digits and '_', starting with a letter, at most {} characters",
                    crate::scenario::shown(&label),
                    crate::scenario::MAX_NAME_LEN
                ),
            );
        }
        if names.contains(&label) {
            c.err(
                format!("{p}.name"),
                format!("two pairs are named '{label}'"),
            );
        }
        names.push(label);
        let [a, b] = &pair.bodies;
        if a == b {
            c.err(
                format!("{p}.bodies"),
                format!("a body cannot touch itself ('{a}')"),
            );
        }
        if a == "terrain" && b == "terrain" {
            c.err(format!("{p}.bodies"), "one side must be a body");
        }
        for (k, n) in pair.bodies.iter().enumerate() {
            if n == "terrain" {
                continue;
            }
            match s.bodies.iter().find(|b| &b.name == n) {
                None => {
                    c.err(
                        format!("{p}.bodies[{k}]"),
                        format!(
                            "no body named '{n}' (bodies: {}, or \"terrain\")",
                            crate::scenario::body_names(s)
                        ),
                    );
                }
                Some(body) if !meshable(&body.shape) => c.err(
                    format!("{p}.bodies[{k}]"),
                    format!("'{n}' is a cuboid_grid: PCM needs a meshable shape (give the ground as the terrain or as a mesh file)"),
                ),
                Some(_) => {}
            }
        }
        for (field, v) in [("base", &pair.base), ("frame_e", &pair.frame_e)] {
            if let Some(v) = v {
                if !pair.bodies.contains(v) {
                    c.err(
                        format!("{p}.{field}"),
                        format!("'{v}' is not one of the pair's bodies ({a}, {b})"),
                    );
                }
            }
        }
        if pair.base.as_deref() == Some("terrain") {
            c.err(format!("{p}.base"), "the terrain is always the target (its triangles are made on demand, so they cannot be contact elements); make the body the base");
        }
        if pair.layers.is_empty() || pair.layers.len() > 2 {
            c.err(
                format!("{p}.layers"),
                format!(
                    "one layer (for the pair) or two (one per body), got {}",
                    pair.layers.len()
                ),
            );
        }
        for (k, l) in pair.layers.iter().enumerate() {
            let lp = format!("{p}.layers[{k}]");
            c.positive(&format!("{lp}.E"), l.E);
            c.positive(&format!("{lp}.b"), l.b);
            if !(l.nu >= 0.0 && l.nu < 0.5) {
                c.err(
                    format!("{lp}.nu"),
                    format!(
                        "must be in [0, 0.5) (eq. (3) divides by 1 - 2 nu), got {}",
                        l.nu
                    ),
                );
            }
        }
        c.positive(&format!("{p}.u_max"), pair.u_max);
        c.non_negative(&format!("{p}.d_l"), pair.d_l);
        c.non_negative(&format!("{p}.mu"), pair.mu);
        c.positive(&format!("{p}.v_reg"), pair.v_reg);
        c.non_negative(&format!("{p}.damping_depth"), pair.damping_depth);
    }
}

fn shape_kind(s: &Shape) -> &'static str {
    match s {
        Shape::Sphere { .. } => "sphere",
        Shape::Torus { .. } => "torus",
        Shape::Cylinder { .. } => "cylinder",
        Shape::Wheel { .. } => "wheel",
        Shape::Plate { .. } => "plate",
        _ => "shape",
    }
}
