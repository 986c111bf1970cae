//! TerRA: Terramechanics for Real-time Application (Barthelmes 2018). A one-point
//! empirical wheel-soil model for the normal and longitudinal force of a wheel on sand,
//! with elasto-plastic sinkage, slip-sinkage, a slip length built up over the contact
//! patch, and passive earth pressure resistance. No spatial discretization.
//!
//! - [`normal`]: eq. (2)-(7), the elasto-plastic normal force.
//! - [`sinkage`]: eq. (8)-(18), dynamic slip-sinkage and driving out of the imprint.
//! - [`traction`]: eq. (19)-(23), Mohr-Coulomb / Janosi-Hanamoto traction.
//! - [`resistance`]: eq. (24)-(26), passive earth pressure through a limited PI.
//!
//! Frames: the contact frame of the wheel, with the terrain normal `n`, the forward
//! direction `f` (tangent to the terrain, perpendicular to the axle) and the axle.
//! Positive wheel rate `omega` drives forward.

use crate::pmath;
pub mod adapter;
pub mod normal;
pub mod params;
pub mod resistance;
pub mod check;
pub mod section;
pub mod sinkage;
pub mod traction;

pub use params::{TerraModel, TerraParams, TerraSoil};
use serde::{Deserialize, Serialize};

/// The model's states (Barthelmes 2018: z_peak, z_s, j_m, x_m and the PI integrator).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct TerraState {
    /// Peak sinkage z_peak, m (eq. (16)).
    pub z_peak: f64,
    /// Slip-sinkage z_s, m (eq. (18)).
    pub z_s: f64,
    /// Slip length j_m, m: integral of the slip velocity (eq. (21)), signed.
    pub j_m: f64,
    /// Length x_m over which the slip length builds up, m (eq. (22)).
    pub x_m: f64,
    /// Integrator I of the resistance controller, N m (eq. (25)).
    pub pi_integrator: f64,
}

/// What the multibody side gives TerRA at one instant (contact frame).
pub use crate::models::wheel::WheelInput as TerraInput;

/// Forces and diagnostics of one evaluation (contact frame).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TerraOutput {
    /// Normal force F_n on the wheel along n, N (eq. (7)).
    pub normal_force: f64,
    /// Tangential force F_t on the wheel along f, N (eq. (26)): traction plus resistance.
    pub tangential_force: f64,
    /// The traction part of F_t, N: shear on the rim; its torque about the axle is
    /// `-r F_traction`.
    pub traction: f64,
    /// The resistance part of F_t, N: earth pressure, through the hub.
    pub resistance: f64,
    /// Effective sinkage z_eff = z - z_s, m (eq. (1)).
    pub z_eff: f64,
    /// Slip velocity v_s = omega r - v_t,x, m/s (eq. (8)).
    pub slip_velocity: f64,
    /// dF_n/dz at this state, N/m: k_el in the elastic layer, the slope of eq. (2) on
    /// the virgin curve, 0 out of contact. For implicit integration of the carrier.
    pub normal_stiffness: f64,
    /// dF_n/d(dz/dt), N s/m: the damping coefficient of eq. (6) while sinking in, else 0.
    pub normal_damping: f64,
    /// The wheel touches the soil (z > 0).
    pub in_contact: bool,
}

pub use crate::models::wheel::slip;

/// What advancing the states by a step needs from an evaluation at its start: the
/// rates of eq. (16), (18), (21), (22) and (25), and z_peak after loading.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TerraRates {
    /// The wheel touches the soil (z > 0); out of it the states reset.
    pub in_soil: bool,
    /// Sinkage z, m.
    pub z: f64,
    /// Effective sinkage z_eff, m (eq. (1)).
    pub z_eff: f64,
    /// z_peak after eq. (16)'s loading branch, m.
    pub z_peak: f64,
    /// The peak's share of the outward sinkage rate, m/s (eq. (15)).
    pub z_out_peak: f64,
    /// dz_s/dt, m/s (eq. (18)).
    pub z_s_rate: f64,
    /// Slip velocity v_s, m/s (eq. (8)).
    pub slip_velocity: f64,
    /// Forward velocity v_t,x, m/s.
    pub forward_velocity: f64,
    /// dI/dt of the resistance controller, N m/s (eq. (25)).
    pub integrator_rate: f64,
}

/// Advances the TerRA states by `dt` (s, explicit Euler; the PT1 of eq. (22) backward
/// Euler) and returns the forces at the start of the step: [`evaluate`], then
/// [`advance`].
pub fn step(p: &TerraParams, s: &mut TerraState, input: &TerraInput, dt: f64) -> TerraOutput {
    let (out, rates) = evaluate(p, s, input);
    advance(p, s, &rates, dt);
    out
}

/// The forces at state `s` and the rates [`advance`] integrates; changes nothing.
pub fn evaluate(p: &TerraParams, s: &TerraState, input: &TerraInput) -> (TerraOutput, TerraRates) {
    evaluate_at(p, sinkage::ideal_sinkage(p), s, input)
}

/// [`evaluate`] with the ideal sinkage of eq. (10) (`z_ideal`, m:
/// [`sinkage::ideal_sinkage`] of `p`) already known; it depends on the constants only.
pub fn evaluate_at(
    p: &TerraParams,
    z_ideal: f64,
    s: &TerraState,
    input: &TerraInput,
) -> (TerraOutput, TerraRates) {
    let z = input.z;
    if z <= 0.0 {
        // Out of the soil: no force; advancing resets the slip-sinkage and the sheared
        // soil under the wheel. The plastic imprint (z_peak) stays where it is.
        let out = TerraOutput {
            slip_velocity: input.omega * p.radius - input.forward_velocity,
            ..Default::default()
        };
        return (out, TerraRates::default());
    }
    let v_s = input.omega * p.radius - input.forward_velocity; // eq. (8)
    let z_eff = z - s.z_s; // eq. (1)

    // eq. (16), loading: z_peak follows z_eff
    let loading = z_eff >= s.z_peak;
    let z_peak = if loading { z_eff } else { s.z_peak };

    // eq. (2), and while loading the stiffness's power of eq. (2) below with the same
    // ln z_eff (bits as normal::peak_force and pmath::powf give them)
    let (f_peak, stiffness_power) = if loading && z_eff > 0.0 {
        let (a, b) = pmath::powf_pair(z_eff, p.model.k_exp, p.model.k_exp - 1.0);
        (p.model.k_c * a, Some(b))
    } else {
        (normal::peak_force(p, z_peak), None)
    };
    let d_el = normal::elastic_layer(p, f_peak); // eq. (5)

    // tan of the modified friction angle phi_g = phi - alpha (eq. (12)), for the
    // outward sinkage (eq. (11)) and the shear stress limit (eq. (19))
    let tan_phi_g = pmath::tan(p.soil.phi - input.slope);

    // Sinkage rates, eq. (9), (11), (14), (15), (18).
    let z_in = sinkage::inward_rate(p, z, v_s);
    let z_out = sinkage::outward_rate_ideal(p, z, z_ideal, tan_phi_g, input.forward_velocity);
    let z_out_peak = sinkage::peak_fraction(z_peak, z_eff, d_el) * z_out;
    let z_out_s = z_out - z_out_peak;
    let z_s_rate = z_in - z_out_s;

    // Normal force, eq. (3), (6), (7).
    let z_eff_rate = input.z_rate - z_s_rate;
    let spring = normal::spring_force_at_peak(p, z_eff, z_peak, f_peak);
    let normal_force = spring + normal::damping_force(p, z_eff_rate);
    let normal_stiffness = if spring <= 0.0 {
        0.0
    } else if z_eff >= z_peak {
        let power = stiffness_power.unwrap_or_else(|| pmath::powf(z_eff, p.model.k_exp - 1.0));
        p.model.k_c * p.model.k_exp * power
    } else {
        p.model.k_el
    };
    let normal_damping = if z_eff_rate > 0.0 {
        p.model.k_d * 2.0 * (p.model.k_c * p.mass).sqrt()
    } else {
        0.0
    };

    // Traction, eq. (13), (19), (23), regularized around zero slip as in eq. (26). The
    // sign: v_s > 0 (rim faster than the hub) pushes the wheel forward.
    let x_e = 2.0 * sinkage::half_patch_length(p.radius, z);
    let tau_max = traction::max_shear_stress_tan(p, normal_force, x_e * p.width, tan_phi_g);
    let f_tr = traction::traction_force(p, tau_max, s.j_m, s.x_m, x_e);
    let traction_force = f_tr * pmath::tanh(v_s / p.model.v_thresh);

    // Resistance, eq. (24)-(26).
    let f_res = resistance::max_resistance(p, z);
    let res = resistance::limited_pi(p, input.forward_velocity, f_res, s.pi_integrator);

    let out = TerraOutput {
        normal_force,
        tangential_force: traction_force + res.force,
        traction: traction_force,
        resistance: res.force,
        z_eff,
        slip_velocity: v_s,
        normal_stiffness,
        normal_damping,
        in_contact: true,
    };
    let rates = TerraRates {
        in_soil: true,
        z,
        z_eff,
        z_peak,
        z_out_peak,
        z_s_rate,
        slip_velocity: v_s,
        forward_velocity: input.forward_velocity,
        integrator_rate: res.integrator_rate,
    };
    (out, rates)
}

/// Integrates the states by `dt` (s) with the rates of an [`evaluate`] of `s`.
pub fn advance(p: &TerraParams, s: &mut TerraState, r: &TerraRates, dt: f64) {
    if !r.in_soil {
        s.z_s = 0.0;
        s.j_m = 0.0;
        s.x_m = 0.0;
        s.pi_integrator = 0.0;
        return;
    }
    s.z_peak = r.z_peak;
    if r.z_eff < s.z_peak {
        s.z_peak = (s.z_peak - dt * r.z_out_peak).max(0.0); // eq. (16), decreasing
    }
    s.z_s = (s.z_s + dt * r.z_s_rate).clamp(0.0, r.z); // eq. (18)
    s.j_m += dt * r.slip_velocity; // eq. (21)
    let target = traction::build_up_length_target(r.forward_velocity, r.slip_velocity, s.j_m);
    let a = dt / p.model.t_pt1;
    s.x_m = (s.x_m + a * target) / (1.0 + a); // eq. (22), PT1
    s.pi_integrator += dt * r.integrator_rate; // eq. (25)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slip_is_defined_for_driving_and_braking() {
        assert_eq!(slip(1.0, 0.75), 0.25);
        assert_eq!(slip(1.0, 0.0), 1.0);
        assert_eq!(slip(0.5, 1.0), -0.5);
        assert_eq!(slip(0.0, 1.0), -1.0);
        assert_eq!(slip(0.0, 0.0), 0.0);
    }

    #[test]
    fn a_wheel_pressed_in_at_rest_carries_its_weight_on_the_virgin_curve() {
        let p = TerraParams::table1();
        let mut s = TerraState::default();
        let z = sinkage::ideal_sinkage(&p);
        let out = step(
            &p,
            &mut s,
            &TerraInput {
                z,
                ..Default::default()
            },
            1e-3,
        );
        assert!((out.normal_force - p.mass * p.g).abs() < 1e-9);
        assert_eq!(s.z_peak, z);
        assert_eq!(out.tangential_force, 0.0);
    }

    #[test]
    fn out_of_the_soil_there_is_no_force_and_no_slip_memory() {
        let p = TerraParams::table1();
        let mut s = TerraState {
            z_peak: 0.02,
            z_s: 0.01,
            j_m: 0.3,
            x_m: 0.1,
            pi_integrator: 3.0,
        };
        let out = step(
            &p,
            &mut s,
            &TerraInput {
                z: -0.001,
                omega: 1.0,
                ..Default::default()
            },
            1e-3,
        );
        assert_eq!(out.normal_force, 0.0);
        assert!(!out.in_contact);
        assert_eq!((s.z_s, s.j_m, s.x_m, s.pi_integrator), (0.0, 0.0, 0.0, 0.0));
        assert_eq!(s.z_peak, 0.02);
    }
}
