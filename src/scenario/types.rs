//! The scenario format: serde types. Field docs become the JSON Schema's descriptions.
//!
//! Every number is SI. World frame: z up. Orientations are unit quaternions
//! `[w, x, y, z]`, body to world.

use crate::geometry::primitive;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// Each model's section lives with the model (`src/models/<model>/section.rs`).
pub use crate::models::bbcc::section::BbccSettings;
pub use crate::models::bekker::section::{BekkerSettings, BjhSettings};
pub use crate::models::bekker::{BekkerModel, BekkerSoil, BjhModel};
pub use crate::models::leite::LeiteSettings;
pub use crate::models::pcm::section::{Meshing, PcmLayer, PcmPair};
pub use crate::models::pcm::PcmSettings;
pub use crate::models::rheological::section::RheologicalSettings;
pub use crate::models::rheological::RheologicalModel;
pub use crate::models::rig::section::{Grousers, RigSoilModel, RigSpec};
pub use crate::models::scm::section::{ScmSettings, ScmSoil, ScmSoilClass, ScmSoilMap};
pub use crate::models::terra::section::{TerraModel, TerraSettings, TerraSoil, TerraWheel};

/// A scenario: everything one FMU simulates. One scenario file gives one `.fmu`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Optional JSON Schema reference for editors (`"scenario.schema.json"`); ignored.
    #[serde(rename = "$schema", default, skip_serializing)]
    pub schema: Option<String>,
    /// Human-readable model name (`modelName` in modelDescription.xml).
    pub name: String,
    /// FMI model identifier: the `.fmu` and `.so` file stem. A C identifier of at most 100 characters.
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
    /// TerRA wheel-soil model (Barthelmes 2018): constants, soil, and the kinematic
    /// wheel bodies it acts on. Also the soil model of a `rig`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terra: Option<TerraSettings>,
    /// The single-wheel test rig (DESIGN.md): a wheel whose hub the FMU moves in the
    /// x-z plane over the terrain, driven at a commanded rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rig: Option<RigSpec>,
    /// SCM deformable soil (Krenn 2009) over the terrain surface, and the bodies that
    /// touch it. Also the soil model of a `rig` with `soil_model: "scm"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scm: Option<ScmSettings>,
    /// The pure Bekker wheel (Buse 2023, section 4.3.2; Wong 2008, ch. 2): constants,
    /// soil, and the kinematic wheel bodies it acts on. Also the soil model of a `rig`
    /// with `soil_model: "bekker"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bekker: Option<BekkerSettings>,
    /// The Bekker-Janosi-Hanamoto wheel (Wong and Reece's stress distributions): constants,
    /// soil, and the kinematic wheel bodies it acts on. Also the soil model of a `rig`
    /// with `soil_model: "bjh"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bjh: Option<BjhSettings>,
    /// The rheological wheel (spring-damper ground with stiction): constants, soil, and
    /// the kinematic wheel bodies it acts on. Also the soil model of a `rig` with
    /// `soil_model: "rheological"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rheological: Option<RheologicalSettings>,
    /// Leite and Schäfer's wheel (Leite 2010, section 3): a rigid surface and soft soil
    /// with lateral slices, switching by what lies under the hub; constants, soil,
    /// rigid regions, and the kinematic wheel bodies it acts on. Also the soil model of
    /// a `rig` with `soil_model: "leite"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leite: Option<LeiteSettings>,
    /// PCM contact pairs (Hippmann 2023): compliant contact between triangle meshes of
    /// any shape (non-convex too), with a contact patch instead of a point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcm: Option<PcmSettings>,
    /// Start values of FMI parameters by variable name, over the ones the fields above
    /// give (`{"terra.k_c": 8.01e5, "wheel.z0": 0.25}`): what an importer sets before
    /// initialization, kept in the FMU. Integer parameters take whole numbers, Boolean
    /// ones 0 or 1. `contact-fmu fit` writes its result as this field (a patch).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub start_values: std::collections::BTreeMap<String, f64>,
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

/// The ground: a rigid surface (world frame, z up) and, for BBCC contacts with it, its
/// material.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Terrain {
    /// The surface's shape.
    pub surface: SurfaceSpec,
    /// Contact material of the ground (FMI parameters `terrain.E`, ...); required when
    /// a BBCC pair includes the terrain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<Material>,
}

/// Shape of the ground surface. None varies along y.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum SurfaceSpec {
    /// The plane `z = height` (FMI parameter `terrain.height`).
    Flat {
        /// m
        #[serde(default)]
        height: f64,
    },
    /// The plane `z = height + x tan(angle)`, rising along +x (`terrain.height`,
    /// `terrain.angle`).
    Inclined {
        /// Height at x = 0, m.
        #[serde(default)]
        height: f64,
        /// Inclination about y, rad.
        angle: f64,
    },
    /// Flat at `height`, then ramps: ramp i starts at `x` and rises at `angle` until
    /// the next ramp starts (FMI parameters `terrain.slope<i>_x`,
    /// `terrain.slope<i>_angle`, i from 1). The last ramp runs 100 m.
    Ramps {
        /// m
        #[serde(default)]
        height: f64,
        /// In order of increasing `x`.
        ramps: Vec<Ramp>,
    },
    /// A height profile z(x) through `points` `[x, z]` (m, increasing x), flat before
    /// the first and after the last (FMI parameters `terrain.profile_x[i]`,
    /// `terrain.profile_z[i]`).
    Profile { points: Vec<[f64; 2]> },
    /// A procedural surface of the asset generator (`layers` summed: slope, profile,
    /// height map, noise), sampled every `resolution` m over `extent` and bilinear in
    /// between, the edge continued outside. Height-map files are relative to the
    /// scenario (the packager copies them). For SCM soil and spheres; other bodies
    /// see the local tangent plane. No FMI parameters.
    Generated(crate::assets::surface::SurfaceParams),
}

/// One ramp of a [`SurfaceSpec::Ramps`] surface.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ramp {
    /// Start of the ramp, m.
    pub x: f64,
    /// Inclination, rad (uphill along +x positive).
    pub angle: f64,
}

/// A contact body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Body {
    /// Name; prefixes the body's FMI variables (`<name>.f[1]`). Letters, digits and
    /// `_`, starting with a letter, at most 100 characters.
    pub name: String,
    /// Geometry, body frame (origin at the shape's centre unless the shape says otherwise).
    pub shape: Shape,
    /// Contact material; required for bodies in BBCC pairs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<Material>,
    /// Who moves the body: the importing tool (`kinematic`), the FMU (`free`), or
    /// nobody (`fixed`).
    pub motion: Motion,
    /// BBCC collection the body belongs to: members of one collection do not collide
    /// with each other unless `bbcc.pairs` pairs the collection with itself;
    /// `bbcc.pairs` can name the collection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// Body geometry in the body frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Shape {
    /// Sphere centred at the body origin.
    Sphere(primitive::Sphere),
    /// Wheel: a disc of `radius` and `width` centred at the body origin, axle along the
    /// body y axis (FMI parameters `<body>.radius`, `<body>.width`). For wheel-soil
    /// models (TerRA).
    Wheel {
        /// m
        radius: f64,
        /// m
        width: f64,
    },
    /// Box centred at the body origin, edges along the body axes (`<body>.size[1..3]`).
    Cuboid(primitive::Cuboid),
    /// Cylinder centred at the body origin, axis along the body y axis (a wheel rolls
    /// about y) (`<body>.radius`, `<body>.height`).
    Cylinder(primitive::Cylinder),
    /// BBCC wheel (Buse 2023, section 4.1): a cylinder (axis body y) with `count`
    /// cuboid grousers on its rim, each `grouser_height` tall (radially),
    /// `grouser_thickness` wide (tangentially) and as wide as the wheel.
    GrouserWheel(primitive::GrouserWheel),
    /// The convex hull of the vertices of an OBJ mesh file (path relative to the
    /// scenario file; the packager copies it into the FMU), in body coordinates.
    ConvexMesh {
        /// OBJ file.
        file: String,
        /// Scale applied to the vertices.
        #[serde(default = "one")]
        scale: f64,
    },
    /// A triangle mesh file of any shape, convex or not (OBJ, STL or PLY, by its
    /// extension; path relative to the scenario file, the packager copies it into the
    /// FMU), in body coordinates. For PCM; faces should be counter-clockwise seen from
    /// outside (outward normals). Free bodies need their `inertia`.
    Mesh {
        /// OBJ, STL (binary or ASCII) or PLY (ASCII or binary) file.
        file: String,
        /// Scale applied to the vertices.
        #[serde(default = "one")]
        scale: f64,
    },
    /// A torus about the body z axis, centred at the body origin (`<body>.major_radius`,
    /// `<body>.minor_radius`). For PCM.
    Torus {
        /// Radius of the tube's centre circle, m.
        major_radius: f64,
        /// Radius of the tube, m (less than `major_radius`).
        minor_radius: f64,
    },
    /// A flat circular plate (a bevameter probe): axis along body z, the body origin
    /// at the centre of its flat bottom face (`<body>.radius`, `<body>.thickness`).
    Plate {
        /// m
        radius: f64,
        /// m
        thickness: f64,
    },
    /// Several convex parts with one set of properties (Buse 2023, section 4.1).
    Compound { parts: Vec<CompoundPart> },
    /// A surface of unit-height cuboids following an elevation grid (Buse 2023,
    /// section 4.1): cell (i, j) is centred at (i + 0.5, j + 0.5) `cell` in body x, y,
    /// with its top at `heights[j][i]`.
    CuboidGrid {
        /// Cell edge, m.
        cell: f64,
        /// Rows along y of heights along x, m.
        heights: Vec<Vec<f64>>,
    },
    /// A procedurally generated wheel or rock (Buse 2023, section 3.2; the asset
    /// generator, `contact-fmu asset`): `asset` is the request
    /// `{"kind": "wheel" | "rock", "params": {...}}`. The packager writes its mesh under
    /// `resources/assets/`; SCM uses the full mesh, BBCC its convex hull. A rock's
    /// centre of mass is the body origin; a wheel's axle is body y.
    Generated { asset: crate::assets::AssetRequest },
}

impl Shape {
    /// The largest extent of the shape, m (an upper bound on its size across), where
    /// the scenario gives it; None for meshes and generated shapes (sized by their
    /// files and parameters).
    pub fn size_bound(&self) -> Option<f64> {
        Some(match self {
            Shape::Sphere(primitive::Sphere { radius })
            | Shape::Plate { radius, .. } => 2.0 * radius,
            Shape::Wheel { radius, width } => (2.0 * radius).max(*width),
            Shape::Cylinder(primitive::Cylinder { radius, height }) => (2.0 * radius).max(*height),
            Shape::GrouserWheel(primitive::GrouserWheel {
                radius,
                width,
                grouser_height,
                ..
            }) => (2.0 * (radius + grouser_height)).max(*width),
            Shape::Cuboid(c) => c.size.iter().fold(0.0, |m: f64, x| m.max(*x)),
            Shape::Torus {
                major_radius,
                minor_radius,
            } => 2.0 * (major_radius + minor_radius),
            _ => return None,
        })
    }
}

/// One part of a [`Shape::Compound`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompoundPart {
    /// A convex shape (sphere, cuboid, cylinder, convex_mesh).
    pub shape: Shape,
    /// Part origin in body coordinates, m.
    #[serde(default)]
    pub position: [f64; 3],
    /// Part orientation, unit quaternion [w, x, y, z], part to body.
    #[serde(default = "identity_quaternion")]
    pub orientation: [f64; 4],
}

fn one() -> f64 {
    1.0
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
    /// Static friction coefficient of the Bengisu-Akay law (Buse 2023 eq. (5)), 1;
    /// with `xi` it replaces the regularized Coulomb law of eq. (4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mu_s: Option<f64>,
    /// Decay xi of the Bengisu-Akay law, s/m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xi: Option<f64>,
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
        /// Start value of the Boolean parameter `<body>.extrapolate`: within a
        /// communication step the FMU moves the body on from the pose inputs with the
        /// velocity inputs (`r + v t`, `q` turned by `w t`) instead of holding the pose,
        /// and the outputs after the step are the wrench at the pose reached. For closed
        /// loops with another simulator (docs/cosimulation.md).
        #[serde(default, skip_serializing_if = "is_false")]
        extrapolate: bool,
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
        /// Start value of the Boolean parameter `<body>.locked`: the body cannot rotate.
        #[serde(default)]
        locked: bool,
        /// A joint to the world, as a multibody tool's test rig holds a wheel: the body
        /// moves in the world x-z plane and turns only about the world y axis, at a
        /// prescribed speed and rate if given (docs/cosimulation.md).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        joint: Option<Joint>,
        /// Default true: the FMU has the inputs `<body>.f_ext` and `<body>.t_ext` (an
        /// external force and torque, world frame). `false` leaves them out: a scene of
        /// hundreds of free bodies that nothing outside pushes then has six inputs
        /// fewer per body, which large-scene importers (OMSimulator) load much faster
        /// (docs/fmu-interface.md, "Large scenes in OMSimulator").
        #[serde(default = "yes", skip_serializing_if = "is_true")]
        external_load: bool,
    },
    /// Does not move (obstacles, a ground cuboid). Parameters `<body>.r0`, `<body>.q0`
    /// and, when given, `<body>.incline`.
    Fixed {
        /// m, world
        #[serde(default)]
        position: [f64; 3],
        /// unit quaternion [w, x, y, z], body to world
        #[serde(default = "identity_quaternion")]
        orientation: [f64; 4],
        /// A rotation about the world y axis applied on top of `orientation`, rad
        /// (positive: the body's +x side rises). FMI parameter `<body>.incline`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        incline: Option<f64>,
    },
}

/// A planar joint of a free body to the world: y and the rotations about x and z are
/// held; x and the rotation about y follow the forces, or a prescribed speed and rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Joint {
    /// Prescribed speed along world x, m/s: start value of the input `<body>.joint.vx`;
    /// the joint's force along x is the output `<body>.joint.fx`. Absent: x is free.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vx: Option<f64>,
    /// Prescribed angular rate about world y (a wheel's axle), rad/s: start value of
    /// the input `<body>.joint.omega`; the joint's torque is the output
    /// `<body>.joint.my`. Absent: the rotation about y is free.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub omega: Option<f64>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_true(b: &bool) -> bool {
    *b
}

fn yes() -> bool {
    true
}

pub(crate) fn identity_quaternion() -> [f64; 4] {
    [1.0, 0.0, 0.0, 0.0]
}
