//! TerRA parameters (Barthelmes 2018, Table 1 and section 3), SI units.

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
    /// Spring constant k_c of eq. (2), N/m^k_exp.
    pub k_c: f64,
    /// Spring exponent k_exp of eq. (2), 1.
    pub k_exp: f64,
    /// Damping ratio k_d of eq. (6), 1 (< 1: undercritical).
    pub k_d: f64,
    /// Elastic layer stiffness k_el of eq. (3) and (5), N/m.
    pub k_el: f64,
    /// Sinkage k_s,0 at which the inward slip-sinkage rate of eq. (9) reaches zero, m.
    pub k_s0: f64,
    /// Nonlinearity k_s,exp of eq. (9), 1.
    pub k_s_exp: f64,
    /// Slip-sinkage scaling k_s,max of eq. (9) at zero sinkage, 1.
    pub k_s_max: f64,
    /// Janosi-Hanamoto shear deformation modulus k_j of eq. (20), m.
    pub k_j: f64,
    /// Time constant of the PT1 filter of eq. (22), s.
    pub t_pt1: f64,
    /// Slip velocity of the tanh regularization of eq. (26), m/s.
    pub v_thresh: f64,
    /// Proportional gain k_P of the resistance controller, eq. (25), s/m.
    pub k_p: f64,
    /// Integral gain k_I of eq. (25), 1/s.
    pub k_i: f64,
    /// Anti-windup factor k_awu of eq. (25), 1 (1 in the paper).
    pub k_awu: f64,
    /// Soil cohesion c of eq. (19) and (24), Pa.
    pub c: f64,
    /// Soil internal friction angle phi of eq. (12) and (24), rad.
    pub phi: f64,
    /// Soil bulk density rho of eq. (24), kg/m^3.
    pub rho: f64,
}

impl TerraParams {
    /// Table 1 of Barthelmes 2018 (wheel and model), with the soil and the constants the
    /// paper does not give chosen for a loose sand (see README, TerRA):
    /// c = 50 Pa, phi = 35 deg, rho = 1500 kg/m^3, k_j = 0.02 m, PT1 0.1 s,
    /// v_thresh = 0.01 m/s, k_P = 100 s/m, k_I = 10 1/s, k_awu = 1.
    pub fn table1() -> TerraParams {
        TerraParams {
            radius: 0.125,
            width: 0.15,
            mass: 10.0,
            g: 9.81,
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
            c: 50.0,
            phi: 35f64.to_radians(),
            rho: 1500.0,
        }
    }
}
