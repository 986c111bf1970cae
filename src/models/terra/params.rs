//! TerRA parameters (Barthelmes 2018, Table 1 and section 3), SI units.
//!
//! [`TerraModel`] and [`TerraSoil`] are at once the physics' constants and the
//! scenario's `terra.model` and `terra.soil` sections (their field docs are the JSON
//! Schema's descriptions: changing one changes `examples/scenario.schema.json`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Model and soil constants of one TerRA wheel-soil contact.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TerraParams {
    /// Wheel radius r, m.
    pub radius: f64,
    /// Wheel width w, m.
    pub width: f64,
    /// Mass estimate m of eq. (6) and (10), kg.
    pub mass: f64,
    /// Gravity g of eq. (10) and (24), m/s^2.
    pub g: f64,
    /// The model's constants.
    pub model: TerraModel,
    /// The soil's constants.
    pub soil: TerraSoil,
}

/// TerRA model constants (Barthelmes 2018, Table 1 and section 3).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// Table 1 of Barthelmes 2018 (k_c to k_s,max), with the constants the paper does
    /// not give chosen for a loose sand (see docs/models/terra.md): k_j = 0.02 m,
    /// PT1 0.1 s, v_thresh = 0.01 m/s, k_P = 100 s/m, k_I = 10 1/s, k_awu = 1 (the
    /// paper's value).
    fn default() -> Self {
        TerraModel {
            k_c: 3.6e4,
            k_exp: 1.17,
            k_d: 0.05,
            k_el: 5e5,
            k_s0: 0.15,
            k_s_exp: 5.0,
            k_s_max: 0.5,
            k_j: 0.02,
            t_pt1: 0.1,
            v_thresh: 0.01,
            k_p: 100.0,
            k_i: 10.0,
            k_awu: 1.0,
        }
    }
}

/// Soil constants of TerRA.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// A loose sand (the paper gives no soil): c = 50 Pa, phi = 35 deg,
    /// rho = 1500 kg/m^3.
    fn default() -> Self {
        TerraSoil {
            c: 50.0,
            phi: 35f64.to_radians(),
            rho: 1500.0,
        }
    }
}

impl TerraParams {
    /// The wheel and model of Table 1 of Barthelmes 2018 (r 0.125 m, w 0.15 m,
    /// m 10 kg, g 9.81 m/s^2) with the default model and soil constants.
    pub fn table1() -> TerraParams {
        TerraParams {
            radius: 0.125,
            width: 0.15,
            mass: 10.0,
            g: 9.81,
            model: TerraModel::default(),
            soil: TerraSoil::default(),
        }
    }
}
