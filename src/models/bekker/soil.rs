//! Bekker's soil constants (Wong 2008, *Theory of Ground Vehicles*, ch. 2), shared by
//! the pure Bekker and the Bekker-Janosi-Hanamoto wheel. The struct is also the
//! scenario's `bekker.soil` and `bjh.soil` section (its field docs are the JSON
//! Schema's descriptions).

use crate::pmath;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Bekker soil constants. Defaults: the Mars soil simulant DLR-A of Krenn 2009
/// (n, kc, kphi) with the SCM defaults for the rest (c 100 Pa, phi 35 deg, K 1.5 cm),
/// so that the Bekker wheels and SCM can be compared in one soil.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BekkerSoil {
    /// Exponent of sinkage n, 1 (below 3: Bekker's rigid-wheel formulas need 3 - n > 0).
    pub n: f64,
    /// Cohesive modulus k_c, N/m^(n+1); may be negative (DLR-D2: -6.67e5), as long as
    /// k_c/b + k_phi > 0 for the wheel's width b.
    pub kc: f64,
    /// Frictional modulus k_phi, N/m^(n+2).
    pub kphi: f64,
    /// Cohesion c, Pa.
    pub c: f64,
    /// Angle of internal friction phi, rad.
    pub phi: f64,
    /// Shear deformation modulus K of Janosi and Hanamoto, m.
    pub k_shear: f64,
}

impl Default for BekkerSoil {
    fn default() -> Self {
        BekkerSoil {
            n: 0.63,
            kc: 2370.0,
            kphi: 60300.0,
            c: 100.0,
            phi: 35f64.to_radians(),
            k_shear: 0.015,
        }
    }
}

impl BekkerSoil {
    /// The pressure-sinkage modulus of a plate of width `b` (m): p = (k_c/b + k_phi)
    /// z^n (Bekker; Wong 2008, ch. 2), N/m^(n+2).
    pub fn k_eq(&self, b: f64) -> f64 {
        self.kc / b + self.kphi
    }

    /// Mohr-Coulomb shear strength under normal stress `sigma` (Pa): c + sigma tan(phi).
    pub fn shear_strength(&self, sigma: f64) -> f64 {
        self.c + sigma * pmath::tan(self.phi)
    }

    /// Janosi-Hanamoto mobilized fraction of the shear strength at shear displacement
    /// `j` (m), signed with j: 1 - exp(-|j|/K).
    pub fn mobilized(&self, j: f64) -> f64 {
        (1.0 - pmath::exp(-j.abs() / self.k_shear)).copysign(j)
    }
}
