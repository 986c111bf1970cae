//! The scenario format: serde types. Field docs become the JSON Schema's descriptions.
//!
//! Every number is SI. World frame: z up. Orientations are unit quaternions
//! `[w, x, y, z]`, body to world.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A scenario: everything one FMU simulates. One scenario file gives one `.fmu`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Optional JSON Schema reference for editors (`"scenario.schema.json"`); ignored.
    #[serde(rename = "$schema", default, skip_serializing)]
    pub schema: Option<String>,
    /// Human-readable model name (`modelName` in modelDescription.xml).
    pub name: String,
    /// FMI model identifier: the `.fmu` and `.so` file stem. A C identifier.
    pub model_identifier: String,
    /// What the scenario shows; written to modelDescription.xml and the FMU documentation.
    #[serde(default)]
    pub description: String,
    /// The `<DefaultExperiment>` importers use when the user gives no other.
    pub default_experiment: DefaultExperiment,
    /// Internal integration step of the models, s. `fmi2DoStep` takes as many equal
    /// sub-steps as needed so that none is longer than this.
    #[serde(default = "default_model_step")]
    pub model_step: f64,
    /// Gravity vector in the world frame, m/s^2.
    #[serde(default = "default_gravity")]
    pub gravity: [f64; 3],
    /// The ground.
    pub terrain: Terrain,
    /// The contact bodies.
    #[serde(default)]
    pub bodies: Vec<Body>,
    /// BBCC contact settings (Buse 2023, section 4.1): which pairs touch, and the
    /// model constants. Without it, nothing touches anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bbcc: Option<BbccSettings>,
}

pub(crate) fn default_model_step() -> f64 {
    1e-4
}
pub(crate) fn default_gravity() -> [f64; 3] {
    [0.0, 0.0, -9.81]
}

/// `<DefaultExperiment>` of the FMU.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DefaultExperiment {
    /// s
    #[serde(default)]
    pub start_time: f64,
    /// s
    pub stop_time: f64,
    /// Communication step size, s.
    pub step_size: f64,
}

/// The ground. Its surface is the plane `z = height` (world frame), normal `+z`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Terrain {
    /// Flat rigid ground.
    Flat {
        /// Height of the ground surface, m (FMI parameter `terrain.height`).
        #[serde(default)]
        height: f64,
        /// Contact material of the ground (FMI parameters `terrain.E`, ...).
        material: Material,
    },
}

/// A contact body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Body {
    /// Name; prefixes the body's FMI variables (`<name>.f[1]`). Letters, digits and
    /// `_`, starting with a letter.
    pub name: String,
    /// Geometry, body frame (origin at the shape's centre unless the shape says otherwise).
    pub shape: Shape,
    /// Contact material.
    pub material: Material,
    /// Who moves the body: the importing tool (`kinematic`) or the FMU (`free`).
    pub motion: Motion,
}

/// Body geometry in the body frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Shape {
    /// Sphere centred at the body origin.
    Sphere {
        /// m (FMI parameter `<body>.radius`).
        radius: f64,
    },
}

/// Contact material (Buse 2023, section 4.1.1). FMI parameters `<body>.E`, `.nu`, `.zeta`, `.mu`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(non_snake_case)]
pub struct Material {
    /// Young's modulus, Pa.
    pub E: f64,
    /// Poisson ratio, 1. In [0, 0.5].
    pub nu: f64,
    /// Coefficient of restitution, 1. In (0, 1].
    pub zeta: f64,
    /// Coulomb friction coefficient, 1.
    pub mu: f64,
}

/// Motion of a body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Motion {
    /// Driven by the importing tool: pose and velocities are FMI inputs
    /// (`<body>.r`, `.q`, `.v`, `.w`); the contact wrench is an output. The values
    /// here are the inputs' start values.
    Kinematic {
        /// m, world
        #[serde(default)]
        position: [f64; 3],
        /// unit quaternion [w, x, y, z], body to world
        #[serde(default = "identity_quaternion")]
        orientation: [f64; 4],
        /// m/s, world
        #[serde(default)]
        velocity: [f64; 3],
        /// rad/s, world
        #[serde(default)]
        angular_velocity: [f64; 3],
    },
    /// Integrated by the FMU under gravity, contact and external forces. The values
    /// here are the start values of the parameters `<body>.mass`, `.inertia`, `.r0`,
    /// `.q0`, `.v0`, `.w0`.
    Free {
        /// kg
        mass: f64,
        /// Principal moments of inertia about the body axes, kg m^2. Default: the
        /// solid shape of uniform density.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        inertia: Option<[f64; 3]>,
        /// Initial position, m, world.
        #[serde(default)]
        position: [f64; 3],
        /// Initial orientation, unit quaternion [w, x, y, z], body to world.
        #[serde(default = "identity_quaternion")]
        orientation: [f64; 4],
        /// Initial velocity, m/s, world.
        #[serde(default)]
        velocity: [f64; 3],
        /// Initial angular velocity, rad/s, world.
        #[serde(default)]
        angular_velocity: [f64; 3],
    },
}

pub(crate) fn identity_quaternion() -> [f64; 4] {
    [1.0, 0.0, 0.0, 0.0]
}

/// BBCC contact settings (Buse 2023, section 4.1). FMI parameters `bbcc.v_d`,
/// `bbcc.impact_velocity_min`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BbccSettings {
    /// Velocity dead band v_d of the regularized Coulomb friction, eq. (4), m/s.
    #[serde(default = "BbccSettings::default_v_d")]
    pub v_d: f64,
    /// Lower bound of the pre-impact velocity in the Hunt-Crossley damping, eq. (2),
    /// m/s. Keeps the damping finite for contacts that start at rest.
    #[serde(default = "BbccSettings::default_impact_velocity_min")]
    pub impact_velocity_min: f64,
    /// Pairs that may touch: body names, or `"terrain"`.
    pub pairs: Vec<[String; 2]>,
}

impl BbccSettings {
    /// Default of `v_d`, m/s.
    pub fn default_v_d() -> f64 {
        0.01
    }
    /// Default of `impact_velocity_min`, m/s.
    pub fn default_impact_velocity_min() -> f64 {
        0.01
    }
}
