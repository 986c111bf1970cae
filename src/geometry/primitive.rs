//! The primitive shapes, one definition each: as the scenario describes them
//! ([`crate::scenario::types::Shape`]) and as a resolved [`super::Geometry`] holds
//! them at the current parameter values. Body frame: centred at the body origin;
//! cylinders and wheels turn about body y.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A sphere centred at the body origin.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Sphere {
    /// m (FMI parameter `<body>.radius`).
    pub radius: f64,
}

/// A box centred at the body origin, edges along the body axes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cuboid {
    /// Edge lengths along x, y, z, m.
    pub size: [f64; 3],
}

/// A cylinder centred at the body origin, axis along body y.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Cylinder {
    /// m
    pub radius: f64,
    /// Length along the axis, m.
    pub height: f64,
}

/// A cylinder (axis body y) with `count` cuboid grousers evenly spaced on its rim,
/// each as wide as the wheel (Buse 2023, section 4.1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrouserWheel {
    /// Rim radius, m.
    pub radius: f64,
    /// m
    pub width: f64,
    /// Number of grousers, evenly spaced.
    pub count: u32,
    /// Radial height of a grouser, m.
    pub grouser_height: f64,
    /// Tangential thickness of a grouser, m.
    pub grouser_thickness: f64,
}
