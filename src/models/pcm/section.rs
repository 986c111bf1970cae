//! The `pcm` section of a scenario: its serde types (field docs become the JSON
//! Schema's descriptions). Its value checks are [`super::check`].

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
