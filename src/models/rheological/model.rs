//! The rheological wheel of the contact-dynamics library (Buse 2023, section 4.3.2):
//! the ground as a spring-damper whose constants follow from the wheel and the soil,
//! and a stiction controller that holds the wheel's contact point at rest until the
//! stiction force is overcome.
//!
//! The paper gives the idea, not the equations (it refers to Lichtenheldt 2016, which
//! is not among our sources). The choices below are ours; `docs/models/rheological.md`
//! says why each was made.
//!
//! - **Normal**: a Kelvin-Voigt element on the sinkage, F_n = max(0, k z + c dz/dt).
//!   The spring is the secant of Bekker's rigid-wheel load curve through the nominal
//!   load W_0: k = W_0 / z_0 with z_0 Bekker's static sinkage under W_0 (Wong 2008,
//!   ch. 2), so the wheel sinks as deep as the Bekker wheel under its nominal load.
//!   The damper is a fraction zeta of critical for the nominal mass W_0/g.
//! - **Tangential**: Mohr-Coulomb over the contact patch gives the sliding force
//!   F_s = A c + F_n tan(phi) (A = b r theta_1); the stiction force is `stiction`
//!   times F_s. While stuck, a PID controller in standard form acts on the contact
//!   point's displacement x since it stuck: F = -k_p (x + 1/T_i int x dt + T_d dx/dt),
//!   with k_p = F_s / K, the patch's initial Janosi-Hanamoto shear stiffness (the
//!   slope of (A c + W tan phi)(1 - exp(-j/K)) at j = 0). When |F| would exceed the
//!   stiction force the contact slides with F = -F_s sign(v_s); it sticks again when
//!   the slip speed falls below `v_stick`.
//! - **Rolling resistance**: Bekker's compaction resistance at the current sinkage,
//!   opposing the wheel's advance (regularized below `v_reg`), as in the pure Bekker
//!   wheel; while the contact sticks the wheel advances by rolling, so there it
//!   follows the rim speed.

use crate::pmath;
use crate::models::bekker::pure::{compaction_resistance, entry_angle, static_sinkage};
use crate::models::bekker::BekkerSoil;
use crate::models::wheel::{WheelForces, WheelInput};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Standard gravity, m/s^2: the nominal mass W_0/g in a world without gravity.
const STANDARD_GRAVITY: f64 = 9.80665;

/// Constants of the rheological wheel beyond the soil's (scenario `rheological.model`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RheologicalModel {
    /// Nominal wheel load W_0, N: the ground spring is the secant of Bekker's load
    /// curve through W_0 (the wheel's share of the vehicle's weight).
    pub load: f64,
    /// Damping ratio of the ground for the nominal mass W_0/g, 1 (1: critical).
    pub zeta: f64,
    /// Stiction force over the Mohr-Coulomb sliding force, 1 (>= 1).
    pub stiction: f64,
    /// Integral time T_i of the stiction controller, s.
    pub t_i: f64,
    /// Derivative time T_d of the stiction controller, s.
    pub t_d: f64,
    /// Slip speed below which a sliding contact sticks again, m/s.
    pub v_stick: f64,
    /// Hub speed below which the rolling resistance's direction is regularized, m/s.
    pub v_reg: f64,
}

impl Default for RheologicalModel {
    fn default() -> Self {
        RheologicalModel {
            load: 200.0,
            zeta: 1.0,
            stiction: 1.2,
            t_i: 0.5,
            t_d: 0.05,
            v_stick: 0.005,
            v_reg: 0.01,
        }
    }
}

/// The stiction controller's state of one wheel (part of the FMU state).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Stiction {
    /// The contact slides (false: it sticks and the controller holds it).
    pub sliding: bool,
    /// Displacement of the contact point along the forward direction since it stuck, m.
    pub x: f64,
    /// Its time integral, m s.
    pub integral: f64,
}

/// The ground's spring k (N/m) and damper c (N s/m) for a wheel of radius `r`, width
/// `b` (m) in gravity `g` (m/s^2).
pub fn ground(s: &BekkerSoil, m: &RheologicalModel, r: f64, b: f64, g: f64) -> (f64, f64) {
    let z0 = static_sinkage(s, r, b, m.load);
    let k = m.load / z0;
    let g = if g > 0.0 { g } else { STANDARD_GRAVITY };
    (k, 2.0 * m.zeta * (k * m.load / g).sqrt())
}

/// Forces on a wheel of radius `r`, width `b` (m) at `input` in gravity `g` (m/s^2);
/// advances the stiction controller by `dt` (s).
#[allow(clippy::too_many_arguments)]
pub fn step(
    s: &BekkerSoil,
    m: &RheologicalModel,
    r: f64,
    b: f64,
    g: f64,
    state: &mut Stiction,
    input: &WheelInput,
    dt: f64,
) -> WheelForces {
    let z = input.z;
    if z <= 0.0 {
        // off the ground: the contact point is anchored anew at the next touch
        *state = Stiction::default();
        return WheelForces::default();
    }
    let (k, c) = ground(s, m, r, b, g);
    let normal = (k * z + c * input.z_rate).max(0.0);
    let area = b * r * entry_angle(r, z);
    let sliding_force = area * s.c + normal * pmath::tan(s.phi);
    let stiction_force = m.stiction * sliding_force;
    // the contact point's speed over the ground, forward
    let v_s = input.forward_velocity - input.omega * r;
    let k_p = sliding_force / s.k_shear;
    let traction = if state.sliding && v_s.abs() >= m.v_stick {
        -sliding_force.copysign(v_s)
    } else {
        // stuck (or sticking again now): the PID holds the contact point
        let (x, integral) = if state.sliding {
            (0.0, 0.0)
        } else {
            let x = state.x + dt * v_s;
            (x, state.integral + dt * x)
        };
        let f = -k_p * (x + integral / m.t_i + m.t_d * v_s);
        if f.abs() <= stiction_force {
            *state = Stiction {
                sliding: false,
                x,
                integral,
            };
            f
        } else {
            *state = Stiction {
                sliding: true,
                x: 0.0,
                integral: 0.0,
            };
            sliding_force.copysign(f)
        }
    };
    // While the contact sticks the wheel advances only by rolling: the resistance
    // follows the rim speed (not the creep of a held wheel, which it would damp like
    // a dashpot of R_c/v_reg and slow the controller's return to rest).
    let advance = if state.sliding {
        input.forward_velocity
    } else {
        input.omega * r
    };
    let resistance = compaction_resistance(s, b, z) * pmath::tanh(advance / m.v_reg);
    let pressing = normal > 0.0;
    WheelForces {
        normal,
        tangential: traction - resistance,
        torque: -r * traction,
        stiffness: if pressing { k } else { 0.0 },
        damping: if pressing { c } else { 0.0 },
        in_contact: true,
        lateral: 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: f64 = 0.25;
    const B: f64 = 0.2;
    const G: f64 = 9.81;

    fn at(z: f64, omega: f64, v: f64) -> WheelInput {
        WheelInput {
            z,
            omega,
            forward_velocity: v,
            ..Default::default()
        }
    }

    #[test]
    fn the_nominal_load_sinks_the_wheel_as_deep_as_bekkers() {
        let (s, m) = (BekkerSoil::default(), RheologicalModel::default());
        let z0 = static_sinkage(&s, R, B, m.load);
        let f = step(
            &s,
            &m,
            R,
            B,
            G,
            &mut Stiction::default(),
            &at(z0, 0.0, 0.0),
            0.0,
        );
        assert!((f.normal / m.load - 1.0).abs() < 1e-12, "{}", f.normal);
        // critical damping for the nominal mass: c^2 = 4 k m
        let (k, c) = ground(&s, &m, R, B, G);
        assert!((c * c / (4.0 * k * m.load / G) - 1.0).abs() < 1e-12);
    }

    /// A locked wheel pushed along the ground: the controller holds the contact while
    /// the force it needs stays below stiction; the contact then slides at the
    /// Mohr-Coulomb force and sticks again below `v_stick`.
    #[test]
    fn the_contact_sticks_slides_and_sticks_again() {
        let (s, m) = (BekkerSoil::default(), RheologicalModel::default());
        let z0 = static_sinkage(&s, R, B, m.load);
        let mut st = Stiction::default();
        let dt = 1e-3;
        // creeping at 1 mm/s: stuck, the force grows with the displacement
        let mut last = 0.0;
        for _ in 0..10 {
            let f = step(&s, &m, R, B, G, &mut st, &at(z0, 0.0, 0.001), dt);
            assert!(!st.sliding);
            assert!(f.tangential < last);
            last = f.tangential;
        }
        // fast: breaks away and slides at F_s
        let area = B * R * entry_angle(R, z0);
        let f_s = area * s.c + m.load * pmath::tan(s.phi);
        let mut f = WheelForces::default();
        for _ in 0..2000 {
            f = step(&s, &m, R, B, G, &mut st, &at(z0, 0.0, 0.1), dt);
        }
        assert!(st.sliding);
        let r_c = compaction_resistance(&s, B, z0) * pmath::tanh(0.1 / m.v_reg);
        assert!((f.tangential + f_s + r_c).abs() < 1e-9, "{}", f.tangential);
        assert!((f.torque - R * f_s).abs() < 1e-9);
        // slow again: sticks
        step(&s, &m, R, B, G, &mut st, &at(z0, 0.0, 0.001), dt);
        assert!(!st.sliding);
        assert_eq!(st.x, 0.0);
    }

    #[test]
    fn a_driven_wheel_slides_with_the_mohr_coulomb_thrust() {
        let (s, m) = (BekkerSoil::default(), RheologicalModel::default());
        let z0 = static_sinkage(&s, R, B, m.load);
        let mut st = Stiction::default();
        let mut f = WheelForces::default();
        for _ in 0..1000 {
            f = step(&s, &m, R, B, G, &mut st, &at(z0, 1.0, 0.2), 1e-3);
        }
        let area = B * R * entry_angle(R, z0);
        let f_s = area * s.c + m.load * pmath::tan(s.phi);
        assert!(st.sliding);
        let r_c = compaction_resistance(&s, B, z0) * pmath::tanh(0.2 / m.v_reg);
        assert!((f.tangential - (f_s - r_c)).abs() < 1e-9);
        assert!(f.torque < 0.0);
    }

    #[test]
    fn off_the_ground_there_is_no_force_and_the_anchor_resets() {
        let (s, m) = (BekkerSoil::default(), RheologicalModel::default());
        let mut st = Stiction {
            sliding: false,
            x: 0.01,
            integral: 0.001,
        };
        let f = step(&s, &m, R, B, G, &mut st, &at(-0.01, 1.0, 0.0), 1e-3);
        assert_eq!(f, WheelForces::default());
        assert_eq!(st, Stiction::default());
    }
}
