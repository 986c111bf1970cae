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
}

/// SCM settings (Krenn 2009; Buse 2023, section 4.2). All values are start values of
/// FMI parameters (`soil.*`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScmSettings {
    /// Soil parameters.
    #[serde(default)]
    pub soil: ScmSoil,
    /// The soil field `[x_min, x_max, y_min, y_max]` over the terrain surface, m
    /// (`soil.extent[1..4]`). Memory grows with the area touched, not with this.
    #[serde(default = "ScmSettings::default_extent")]
    pub extent: [f64; 4],
    /// Soil update interval, s: the second sampled clock of Buse 2023, section 4.2
    /// (contact forces every model step, soil deformation at this rate); 0 updates at
    /// every model step (`soil.update_interval`).
    #[serde(default)]
    pub update_interval: f64,
    /// Plastic soil deformation on (`soil.deformation`); off, the soil keeps its shape.
    #[serde(default = "yes")]
    pub deformation: bool,
    /// Bodies (kinematic or free) with SCM contact.
    #[serde(default)]
    pub bodies: Vec<String>,
    /// Folder the soil surface is exported to (PNG height image and PLY mesh) at
    /// terminate and every `export_interval`; empty: no export (`soil.export_dir`).
    #[serde(default)]
    pub export_dir: String,
    /// Export interval, s; 0: only at terminate (`soil.export_interval`).
    #[serde(default)]
    pub export_interval: f64,
    /// Soil classes per node: a map whose value at a node selects the soil there
    /// (0: `soil`, k: `classes[k - 1]`). None: one soil everywhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soil_map: Option<ScmSoilMap>,
}

/// A map of soil classes over the field (Krenn 2009, Table 1 per node): a file of
/// whole numbers, pixel (i, j) at `origin` + (i, j) `cell` (m; rows along y, columns
/// along x), each grid node taking the nearest pixel's class. Class 0 is the soil of
/// the FMI parameters `soil.*`, class k is `classes[k - 1]`; nodes outside the map
/// are class 0. The file: an 8-bit grayscale PNG (the pixel value is the class) or a
/// CSV of integers, relative to the scenario (the packager copies it). The classes
/// are fixed in the scenario (no FMI parameters).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScmSoilMap {
    pub file: String,
    /// Pixel spacing, m.
    pub cell: f64,
    /// World (x, y) of pixel (0, 0), m.
    #[serde(default)]
    pub origin: [f64; 2],
    /// Classes 1, 2, ...: a value left out is that of `soil` (the FMI parameter's).
    pub classes: Vec<ScmSoilClass>,
}

/// One soil class of a [`ScmSoilMap`]: the Bekker parameters and the angle of repose;
/// each left out takes the value of the FMI parameter `soil.<name>`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScmSoilClass {
    /// Exponent of sinkage n, 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<f64>,
    /// Cohesive modulus k_c, N/m^(n+1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kc: Option<f64>,
    /// Frictional modulus k_phi, N/m^(n+2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kphi: Option<f64>,
    /// Cohesion c, Pa.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c: Option<f64>,
    /// Angle of internal friction phi, rad.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phi: Option<f64>,
    /// Maximum angle of repose, rad.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repose: Option<f64>,
}

impl ScmSettings {
    /// Default field: 100 m x 100 m around the origin.
    pub fn default_extent() -> [f64; 4] {
        [-50.0, 50.0, -50.0, 50.0]
    }
}

fn yes() -> bool {
    true
}

/// SCM soil parameters (Krenn 2009, Table 1 and section 3.1). Defaults: the Mars soil
/// simulant DLR-A of the paper's section 4 (n, k_c, k_phi) and our values for the rest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ScmSoil {
    /// Grid spacing ds, m (`soil.ds`).
    pub ds: f64,
    /// Exponent of sinkage n, 1 (`soil.n`).
    pub n: f64,
    /// Cohesive modulus k_c, N/m^(n+1) (`soil.kc`).
    pub kc: f64,
    /// Frictional modulus k_phi, N/m^(n+2) (`soil.kphi`).
    pub kphi: f64,
    /// Cohesion c, Pa (`soil.c`).
    pub c: f64,
    /// Angle of internal friction phi, rad (`soil.phi`).
    pub phi: f64,
    /// Maximum angle of repose psi, rad (`soil.repose`).
    pub repose: f64,
    /// Coulomb friction coefficient mu between soil and body (`soil.mu`).
    pub mu: f64,
    /// Elastic unloading/reloading stiffness, Pa/m (`soil.k_e`).
    pub k_e: f64,
    /// Linear velocity damping of the pressure (Krenn 2009, section 5), Pa s/m
    /// (`soil.damping`).
    pub damping: f64,
    /// Sliding speed over which the shear direction is regularized (tanh), m/s
    /// (`soil.v_shear`).
    pub v_shear: f64,
    /// Shear deformation modulus K of Janosi and Hanamoto, m (`soil.k_shear`).
    pub k_shear: f64,
    /// Erosion sweeps per soil update (`soil.erosion_sweeps`): 0 erodes until no slope
    /// exceeds the angle of repose (Krenn 2009 section 3.3); a positive number caps
    /// the sweeps for speed, and what remains continues in the next update.
    pub erosion_sweeps: u32,
    /// Bulk density of the soil, kg/m^3 (`soil.density`): with the world's gravity
    /// its unit weight in the passive earth pressure on side faces.
    pub density: f64,
    /// Passive earth pressure on the side faces of the bodies (`soil.side_pressure`):
    /// the soil beside a face no vertical ray sees (a wheel's side against a rut's
    /// wall) resists its motion (Leite 2010, eq. (3.9)).
    pub side_pressure: bool,
}

impl Default for ScmSoil {
    fn default() -> Self {
        let p = crate::models::scm::SoilParams::dlr_a();
        ScmSoil {
            ds: 0.01,
            n: p.n,
            kc: p.k_c,
            kphi: p.k_phi,
            c: p.c,
            phi: p.phi,
            repose: p.repose,
            mu: p.mu,
            k_e: p.k_e,
            damping: p.damping,
            v_shear: p.v_shear,
            k_shear: p.k_shear,
            erosion_sweeps: p.erosion_sweeps,
            density: p.density,
            side_pressure: p.side_pressure,
        }
    }
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
    /// `_`, starting with a letter.
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
    /// with each other; `bbcc.pairs` can name the collection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
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
    Cuboid {
        /// Edge lengths along x, y, z, m.
        size: [f64; 3],
    },
    /// Cylinder centred at the body origin, axis along the body y axis (a wheel rolls
    /// about y) (`<body>.radius`, `<body>.height`).
    Cylinder {
        /// m
        radius: f64,
        /// Length along the axis, m.
        height: f64,
    },
    /// BBCC wheel (Buse 2023, section 4.1): a cylinder (axis body y) with `count`
    /// cuboid grousers on its rim, each `height` tall (radially), `thickness` wide
    /// (tangentially) and as wide as the wheel.
    GrouserWheel {
        /// Rim radius, m.
        radius: f64,
        /// m
        width: f64,
        /// Number of grousers, evenly spaced.
        count: u32,
        /// m
        grouser_height: f64,
        /// m
        grouser_thickness: f64,
    },
    /// The convex hull of the vertices of an OBJ mesh file (path relative to the
    /// scenario file; the packager copies it into the FMU), in body coordinates.
    ConvexMesh {
        /// OBJ file.
        file: String,
        /// Scale applied to the vertices.
        #[serde(default = "one")]
        scale: f64,
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
    /// Pairs that may touch: body names, collection names (`group`), or `"terrain"`.
    /// A pair of collections lets every member of one touch every member of the other.
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

/// TerRA settings (Barthelmes 2018). FMI parameters `terra.<constant>` and
/// `soil.c`, `soil.phi`, `soil.rho`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TerraSettings {
    /// Model constants; default: Table 1 of the paper and the defaults named there.
    #[serde(default)]
    pub model: TerraModel,
    /// Soil constants.
    #[serde(default)]
    pub soil: TerraSoil,
    /// Kinematic `wheel` bodies TerRA acts on as a force element.
    #[serde(default)]
    pub wheels: Vec<TerraWheel>,
}

/// A kinematic wheel body with TerRA contact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TerraWheel {
    /// Name of a kinematic body with a `wheel` shape.
    pub body: String,
    /// Mass estimate m of eq. (6) and (10): the load the wheel carries, kg
    /// (FMI parameter `<body>.mass_estimate`).
    pub mass_estimate: f64,
}

/// TerRA model constants (Barthelmes 2018, Table 1 and section 3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TerraModel {
    /// Spring constant of eq. (2), N/m^k_exp.
    pub k_c: f64,
    /// Spring exponent of eq. (2), 1.
    pub k_exp: f64,
    /// Damping ratio of eq. (6), 1.
    pub k_d: f64,
    /// Elastic layer stiffness of eq. (3), N/m.
    pub k_el: f64,
    /// Sinkage where slip-sinkage stops, eq. (9), m.
    pub k_s0: f64,
    /// Slip-sinkage exponent, eq. (9), 1.
    pub k_s_exp: f64,
    /// Slip-sinkage scaling at zero sinkage, eq. (9), 1.
    pub k_s_max: f64,
    /// Shear deformation modulus of eq. (20), m.
    pub k_j: f64,
    /// PT1 time constant of eq. (22), s.
    pub t_pt1: f64,
    /// Slip velocity of the tanh regularization, eq. (26), m/s.
    pub v_thresh: f64,
    /// Resistance controller gain k_P, eq. (25), s/m.
    pub k_p: f64,
    /// Resistance controller integral gain k_I, eq. (25), 1/s.
    pub k_i: f64,
    /// Anti-windup factor, eq. (25), 1.
    pub k_awu: f64,
}

impl Default for TerraModel {
    fn default() -> Self {
        let p = crate::models::terra::TerraParams::table1();
        TerraModel {
            k_c: p.k_c,
            k_exp: p.k_exp,
            k_d: p.k_d,
            k_el: p.k_el,
            k_s0: p.k_s0,
            k_s_exp: p.k_s_exp,
            k_s_max: p.k_s_max,
            k_j: p.k_j,
            t_pt1: p.t_pt1,
            v_thresh: p.v_thresh,
            k_p: p.k_p,
            k_i: p.k_i,
            k_awu: p.k_awu,
        }
    }
}

/// Soil constants of TerRA.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct TerraSoil {
    /// Cohesion, Pa.
    pub c: f64,
    /// Internal friction angle, rad.
    pub phi: f64,
    /// Bulk density, kg/m^3.
    pub rho: f64,
}

impl Default for TerraSoil {
    fn default() -> Self {
        let p = crate::models::terra::TerraParams::table1();
        TerraSoil {
            c: p.c,
            phi: p.phi,
            rho: p.rho,
        }
    }
}

/// The single-wheel rig. The values are start values of its FMI variables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RigSpec {
    /// 1: slip-controlled (carriage speed `vx` prescribed); 2: force-controlled
    /// (carriage free in x, pulled back by `drawbar_force`). `rig.mode`.
    pub mode: i32,
    /// Vertical load on the wheel, wheel included, kg. `rig.load_mass`.
    pub load_mass: f64,
    /// Gravity, m/s^2. `rig.g`.
    #[serde(default = "default_g")]
    pub g: f64,
    /// Wheel radius, m. `wheel.radius`.
    pub radius: f64,
    /// Wheel width, m. `wheel.width`.
    pub width: f64,
    /// Initial hub position [x, z], m. `wheel.x0`, `wheel.z0`.
    pub position: [f64; 2],
    /// Start value of the input `rig.omega`, rad/s.
    #[serde(default)]
    pub omega: f64,
    /// Start value of the input `rig.vx`, m/s.
    #[serde(default)]
    pub vx: f64,
    /// Start value of the input `rig.drawbar_force`, N.
    #[serde(default)]
    pub drawbar_force: f64,
    /// The wheel-soil model: `terra` (the scenario's `terra` settings) or `scm` (its
    /// `scm` soil).
    pub soil_model: RigSoilModel,
    /// Grousers of the generated SCM wheel (`wheel.grouser_count`,
    /// `wheel.grouser_height`, `wheel.grouser_thickness`); none: a plain cylinder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grousers: Option<Grousers>,
}

/// Grousers on a generated wheel: straight, across the full width, evenly spaced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Grousers {
    /// Number of grousers.
    pub count: u32,
    /// Radial height, m.
    pub height: f64,
    /// Tangential thickness, m.
    pub thickness: f64,
}

/// Wheel-soil models the rig can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RigSoilModel {
    /// TerRA (Barthelmes 2018).
    Terra,
    /// SCM (Krenn 2009) with a generated wheel mesh.
    Scm,
}

fn default_g() -> f64 {
    9.81
}
