//! PCM's contact element force law (Hippmann 2023, section 2.4): the elastic
//! foundation, eq. (1)-(3), area-related damping, eq. (4), and regularized Coulomb
//! friction in the element's tangent plane (section 2.1, step 6).

use nalgebra::Vector3;
use serde::{Deserialize, Serialize};

/// An elastic layer on a body: Young's modulus `e` (Pa), Poisson ratio `nu` and
/// thickness `b` (m).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Layer {
    pub e: f64,
    pub nu: f64,
    pub b: f64,
}

impl Layer {
    /// Elastic modulus K = (1 - nu) / ((1 + nu)(1 - 2 nu)) E, Pa: Hippmann 2023,
    /// eq. (3) (the constrained modulus of a layer that cannot expand sideways).
    pub fn modulus(&self) -> f64 {
        (1.0 - self.nu) / ((1.0 + self.nu) * (1.0 - 2.0 * self.nu)) * self.e
    }

    /// Layer stiffness c_l = K / b, N/m^3: Hippmann 2023, eq. (2).
    pub fn stiffness(&self) -> f64 {
        self.modulus() / self.b
    }
}

/// Layer stiffness of the pair, N/m^3: one layer as given; two layers (one on each
/// body) in series, 1/c_l = 1/c_1 + 1/c_2 (both are compressed by the same pressure,
/// their deformations add up to the penetration).
pub fn combined_stiffness(layers: &[Layer]) -> f64 {
    1.0 / layers.iter().map(|l| 1.0 / l.stiffness()).sum::<f64>()
}

/// The force law of a pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Law {
    /// Layer stiffness c_l, N/m^3 (eq. (2)).
    pub c_l: f64,
    /// Area-related damping d_l, N s/m^3 (eq. (4)).
    pub d_l: f64,
    /// Coulomb friction coefficient.
    pub mu: f64,
    /// Sliding speed at which friction reaches mu F_n, m/s (below it, friction grows
    /// linearly with speed).
    pub v_reg: f64,
    /// Penetration over which the damping grows linearly from 0 to eq. (4)'s full
    /// value, m; 0: eq. (4) as is (the damping force jumps when an element activates).
    pub damping_depth: f64,
    /// No element pulls (its normal force is at least 0).
    pub no_tensile: bool,
}

impl Law {
    /// Normal force of an element of area `a` (m^2) at penetration `u` (m) growing at
    /// `u_dot` (m/s), N (positive pushes the bodies apart): eq. (1) + eq. (4), with the
    /// options against the damping's jump and pull.
    #[inline]
    pub fn normal(&self, a: f64, u: f64, u_dot: f64) -> f64 {
        let ramp = if self.damping_depth > 0.0 {
            (u / self.damping_depth).min(1.0)
        } else {
            1.0
        };
        let f = self.c_l * a * u + ramp * self.d_l * a * u_dot;
        if self.no_tensile {
            f.max(0.0)
        } else {
            f
        }
    }

    /// Friction on the target of an element with normal force `f_n` (N) whose target
    /// slides at `v_t` (m/s, in the tangent plane) relative to the base, N:
    /// -mu f_n v_t / max(|v_t|, v_reg).
    #[inline]
    pub fn friction(&self, f_n: f64, v_t: &Vector3<f64>) -> Vector3<f64> {
        let s = v_t.norm().max(self.v_reg);
        if s > 0.0 {
            v_t * (-self.mu * f_n.max(0.0) / s)
        } else {
            Vector3::zeros()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_stiffness_follows_eq_2_and_3_and_layers_add_in_series() {
        let l = Layer {
            e: 1e6,
            nu: 0.4,
            b: 0.01,
        };
        // K = 0.6 / (1.4 * 0.2) E
        assert!((l.modulus() - 0.6 / 0.28 * 1e6).abs() < 1e-6);
        assert!((l.stiffness() - 0.6 / 0.28 * 1e8).abs() < 1e-4);
        let c = combined_stiffness(&[l, l]);
        assert!((c - 0.5 * l.stiffness()).abs() < 1e-6);
        // nu = 0: K = E
        let z = Layer {
            e: 2e6,
            nu: 0.0,
            b: 0.02,
        };
        assert_eq!(z.stiffness(), 1e8);
    }

    #[test]
    fn damping_options_avoid_pull_and_jump_and_friction_saturates() {
        let mut law = Law {
            c_l: 1e8,
            d_l: 1e4,
            mu: 0.3,
            v_reg: 0.01,
            damping_depth: 0.0,
            no_tensile: false,
        };
        // eq. (1) + (4)
        assert!(
            (law.normal(0.01, 1e-3, 0.5) - (1e8 * 0.01 * 1e-3 + 1e4 * 0.01 * 0.5)).abs() < 1e-9
        );
        // separating fast: tensile unless clamped
        assert!(law.normal(0.01, 1e-5, -2.0) < 0.0);
        law.no_tensile = true;
        assert_eq!(law.normal(0.01, 1e-5, -2.0), 0.0);
        // a ramp makes the force continuous at u = 0
        law.damping_depth = 1e-3;
        // at u = 1e-9 m the damping share is 1e-6 of eq. (4)'s 100 N
        let f = law.normal(0.01, 1e-9, 1.0);
        assert!((f - 1e8 * 0.01 * 1e-9 - 1e-4).abs() < 1e-12, "{f}");
        assert!((law.normal(0.01, 2e-3, 1.0) - (1e8 * 0.01 * 2e-3 + 1e4 * 0.01)).abs() < 1e-9);
        // friction: saturates at mu f_n against the sliding, linear below v_reg
        let f = law.friction(100.0, &Vector3::new(2.0, 0.0, 0.0));
        assert!((f - Vector3::new(-30.0, 0.0, 0.0)).norm() < 1e-12);
        let f = law.friction(100.0, &Vector3::new(0.0, 0.005, 0.0));
        assert!((f - Vector3::new(0.0, -15.0, 0.0)).norm() < 1e-12);
    }
}
