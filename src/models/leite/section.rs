//! The `leite` section of a scenario: its serde type (field docs become the JSON
//! Schema's descriptions). Its value checks are [`super::check`].

use super::model::{Ground, RigidModel, RigidRegion};
use super::shape::DEFAULT_CONTROL;
use super::soft::SoftModel;
use super::stone::StoneModel;
use crate::models::bekker::BekkerSoil;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Leite and Schäfer's wheel (Leite 2010, section 3): one model over a rigid surface
/// and soft soil, switching by what lies under the hub. FMI parameters
/// `leite.<constant>`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LeiteSettings {
    /// The ground outside the rigid regions (start of the tunable Integer parameter
    /// `leite.ground`: 0 rigid, 1 soft).
    #[serde(default)]
    pub ground: Ground,
    /// Rectangles of the terrain where the ground is rigid whatever `ground` says.
    #[serde(default)]
    pub rigid_regions: Vec<RigidRegion>,
    /// The rigid surface's compliance (section 3.1).
    #[serde(default)]
    pub rigid: RigidModel,
    /// The soft soil's model constants (section 3.3).
    #[serde(default)]
    pub soft: SoftModel,
    /// Bekker soil constants of the soft soil; default: DLR-A of Krenn 2009 (Leite
    /// 2010, Table 1 gives DLR-D2: n 1.4, k_c -6.67e5, k_phi 1.92e8, c 13 Pa, phi 32 deg).
    #[serde(default)]
    pub soil: BekkerSoil,
    /// How finely the wheel and its stresses are resolved (fixed FMI parameters).
    #[serde(default)]
    pub discretization: Discretization,
    /// Kinematic bodies with a `wheel` shape the model acts on as a force element.
    #[serde(default)]
    pub wheels: Vec<String>,
    /// Rocks the wheels meet (section 3.2): bodies or collections (`group`) with a
    /// convex shape (a generated rock's hull, convex_mesh, cuboid, sphere, cylinder,
    /// compound, cuboid_grid), fixed, kinematic or free (free rocks are pushed back).
    #[serde(default)]
    pub rocks: Vec<String>,
    /// The wheel-rock contact (section 3.2; FMI parameters `leite.stone.*`, declared
    /// when there are rocks).
    #[serde(default)]
    pub stone: StoneModel,
}

/// The soft-soil model's resolution (Leite 2010, Fig. 7-9).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Discretization {
    /// Lateral slices of the wheel (Fig. 7), 1-100.
    pub slices: u32,
    /// Gauss-Legendre points on each half of a slice's contact arc, 1-32.
    pub points: u32,
    /// Rounds of Chaikin's corner cutting (Fig. 8), 0-10.
    pub chaikin_iterations: u32,
    /// The four middle control points (u, h) of the normal stress shape: u along the
    /// arc (0 exit, 1/2 maximum stress, 1 entry), ascending, h over the Bekker pressure
    /// at the angle of maximum stress. Default: the fit to Wong and Reece's shape for
    /// n = 1.4 (DLR-D2).
    pub control_points: [[f64; 2]; 4],
    /// Rings of the side mesh for the lateral bulldozing (Fig. 9), 1-64.
    pub side_rings: u32,
    /// Sectors of the side mesh, 3-512.
    pub side_sectors: u32,
}

impl Default for Discretization {
    fn default() -> Self {
        Discretization {
            slices: 10,
            points: 4,
            chaikin_iterations: 5,
            control_points: DEFAULT_CONTROL,
            side_rings: 8,
            side_sectors: 48,
        }
    }
}
