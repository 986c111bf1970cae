//! The `scm` section of a scenario: its serde types (their field docs become the JSON
//! Schema's descriptions and the field reference in docs/scenario-format.md). Its value checks are [`super::check`].
//!
//! Read by [`super::adapter`], which turns it into FMI parameters `soil.*` and the
//! soil grid.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};


/// The most soil nodes one SCM body may span ((size / ds)^2): 1e7 (a 3 m body at 1 mm).
/// Bodies beyond it make steps of many seconds (the scenario fuzzer's 40 m and 400 m
/// wheels sunk into the 2e6 nodes of a 20 m x 10 m field at 1 cm: 13 s and 18 s for
/// the first step) and soil state of gigabytes.
pub const MAX_BODY_NODES: f64 = 1e7;

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
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
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
// The physics takes these as they are at each step (`super::SoilParams`, read back
// from the FMI parameters `soil.*`): one definition for the scenario and the model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// Erosion stops at the bodies' undersides (`soil.erosion_stops_at_bodies`): soil
    /// slumping towards a body does not fill the space the body takes. Off (the
    /// default, as in Krenn 2009), a body resting in its crater is lifted by the
    /// walls slumping under it (docs/models/scm.md).
    pub erosion_stops_at_bodies: bool,
    /// Gravity acting on the soil, m/s^2: the norm of the world's gravity
    /// (`world.gravity`), not read from this section.
    #[serde(skip)]
    pub gravity: f64,
}

impl Default for ScmSoil {
    fn default() -> Self {
        Self::dlr_a()
    }
}

impl ScmSoil {
    /// The Mars soil simulant DLR-A of Krenn 2009, section 4 (n, k_c, k_phi), with the
    /// other values as our defaults (the paper gives none): ds = 1 cm, c = 100 Pa,
    /// phi = 35 deg, repose 35 deg, mu = 0, k_e = 5e7 Pa/m, damping 2e4 Pa s/m,
    /// v_shear 1 mm/s, K = 1.5 cm, erosion until settled, a bulk density of 1600
    /// kg/m^3 under 9.81 m/s^2 and the side pressure on.
    pub fn dlr_a() -> ScmSoil {
        ScmSoil {
            ds: 0.01,
            n: 0.63,
            kc: 2370.0,
            kphi: 60300.0,
            c: 100.0,
            phi: 35f64.to_radians(),
            repose: 35f64.to_radians(),
            mu: 0.0,
            k_e: 5e7,
            damping: 2e4,
            v_shear: 0.001,
            k_shear: 0.015,
            erosion_sweeps: 0,
            density: 1600.0,
            side_pressure: true,
            erosion_stops_at_bodies: false,
            gravity: 9.81,
        }
    }
}
