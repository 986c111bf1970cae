//! Leite and Schäfer 2010, section 3.1: the wheel on a rigid surface. The normal force
//! is a penalty spring-damper on the penetration (eq. (3.1)); the tangential force is
//! a 2D spring-damper on the contact point's tangential displacement (eq. (3.2)) that
//! holds the rolling constraint until it reaches the Coulomb limit mu F_N, after which
//! its displacement is held on the circle of radius mu F_N / k_T and may only turn
//! (Fig. 3b; the compliance scheme of Kraus et al. 1997). The discrete states are the
//! rigid-surface states of Fig. 10: no contact, contact, rolling, sliding (Fig. 4).
//!
//! Section 3.2 uses the same compliance against rocks, with Hunt and Crossley's normal
//! force; [`normal_force`] is that law with exponent `e` (1: linear spring-damper).

use crate::pmath;
use serde::{Deserialize, Serialize};

/// The discrete state of a wheel on a rigid surface or a rock (Leite 2010, Fig. 10);
/// the value is the contract's Integer code.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RigidState {
    /// Apart: no penetration.
    #[default]
    NoContact = 0,
    /// Touching without load (penetrating, but the normal force is zero: separating).
    Contact = 1,
    /// Loaded, the tangential spring inside the Coulomb circle: the contact point holds.
    Rolling = 2,
    /// Loaded, the tangential force on the Coulomb circle: the contact point slides.
    Sliding = 3,
}

/// Constants of the compliance (section 3.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Compliance {
    /// Normal stiffness k_N, N/m^e.
    pub k_n: f64,
    /// Normal damping d_N, N s/m^(e+1) (Hunt-Crossley: the damping grows with the
    /// penetration, so there is no force jump at impact).
    pub d_n: f64,
    /// Exponent e of the penetration (1: linear; 1.5: Hertz).
    pub e: f64,
    /// Tangential stiffness k_T, N/m.
    pub k_t: f64,
    /// Tangential damping d_T, N s/m.
    pub d_t: f64,
    /// Coulomb friction coefficient mu.
    pub mu: f64,
}

/// The tangential compliance's state of one contact (part of the FMU state).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Tangent {
    /// The tangential spring's displacement, m, in the contact's tangent frame (t1, t2).
    pub delta: [f64; 2],
    /// The discrete state.
    pub state: RigidState,
}

/// Normal force (N) at penetration `depth` (m) and penetration rate `rate` (m/s):
/// F_N = k_N delta^e + d_N delta^e d(delta)/dt, never pulling (eq. (3.1) with Hunt and
/// Crossley's damper). Zero when apart.
pub fn normal_force(c: &Compliance, depth: f64, rate: f64) -> f64 {
    if depth <= 0.0 {
        return 0.0;
    }
    let de = if c.e == 1.0 { depth } else { pmath::powf(depth, c.e) };
    (de * (c.k_n + c.d_n * rate)).max(0.0)
}

/// Tangential force (N, tangent frame) on the wheel at the contact point moving at
/// `v_t` (m/s, tangent frame) over the surface, under the normal force `f_n` (N);
/// advances `s` by `dt` (s). `touching`: the wheel penetrates the surface.
///
/// Return mapping of the compliance (eq. (3.2), Fig. 3b and 4): the spring stretches by
/// `v_t dt`; if `k_T delta + d_T v_t` lies inside the circle mu F_N the contact rolls,
/// otherwise it slides with the force on the circle and the spring held at radius
/// mu F_N / k_T in the force's direction.
pub fn tangential(
    c: &Compliance,
    s: &mut Tangent,
    touching: bool,
    f_n: f64,
    v_t: [f64; 2],
    dt: f64,
) -> [f64; 2] {
    if !touching {
        *s = Tangent::default();
        return [0.0; 2];
    }
    if f_n <= 0.0 {
        // touching without load: the spring relaxes, no force
        *s = Tangent {
            delta: [0.0; 2],
            state: RigidState::Contact,
        };
        return [0.0; 2];
    }
    let delta = [s.delta[0] + dt * v_t[0], s.delta[1] + dt * v_t[1]];
    let trial = [
        c.k_t * delta[0] + c.d_t * v_t[0],
        c.k_t * delta[1] + c.d_t * v_t[1],
    ];
    let limit = c.mu * f_n;
    let size = pmath::hypot(trial[0], trial[1]);
    if size <= limit {
        *s = Tangent {
            delta,
            state: RigidState::Rolling,
        };
        return [-trial[0], -trial[1]];
    }
    let dir = [trial[0] / size, trial[1] / size];
    let radius = limit / c.k_t;
    *s = Tangent {
        delta: [dir[0] * radius, dir[1] * radius],
        state: RigidState::Sliding,
    };
    [-dir[0] * limit, -dir[1] * limit]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c() -> Compliance {
        Compliance {
            k_n: 1e5,
            d_n: 1e4,
            e: 1.0,
            k_t: 1e4,
            d_t: 200.0,
            mu: 0.5,
        }
    }

    #[test]
    fn the_normal_force_is_a_penalty_spring_damper_that_never_pulls() {
        let c = c();
        assert_eq!(normal_force(&c, -1e-3, 0.0), 0.0);
        assert!((normal_force(&c, 2e-3, 0.0) - 200.0).abs() < 1e-9);
        assert!((normal_force(&c, 2e-3, 0.1) - 202.0).abs() < 1e-9);
        assert_eq!(normal_force(&c, 2e-3, -20.0), 0.0);
        let hertz = Compliance { e: 1.5, ..c };
        assert!((normal_force(&hertz, 4e-2, 0.0) - 1e5 * 8e-3).abs() < 1e-6);
    }

    /// A contact pushed along t1 at a constant speed: the spring holds it (rolling)
    /// with a force growing by k_T v dt per step until mu F_N, then it slides with the
    /// force on the circle; when the push reverses it sticks again at once and the
    /// force unwinds from the circle.
    #[test]
    fn rolls_until_the_coulomb_circle_then_slides_then_rolls_again() {
        let c = c();
        let (f_n, dt, v) = (100.0, 1e-3, 0.1);
        let mut s = Tangent::default();
        let mut f = [0.0; 2];
        let mut rolled = 0;
        for _ in 0..200 {
            f = tangential(&c, &mut s, true, f_n, [v, 0.0], dt);
            if s.state == RigidState::Rolling {
                rolled += 1;
            }
        }
        // rolling while k_T v t + d_T v <= mu F_N: t <= (50 - 20)/1000 = 30 ms (the
        // 30th step sits on the circle, either side by rounding)
        assert!((29..=30).contains(&rolled), "{rolled}");
        assert_eq!(s.state, RigidState::Sliding);
        assert!((f[0] + c.mu * f_n).abs() < 1e-9 && f[1] == 0.0);
        assert!((s.delta[0] - c.mu * f_n / c.k_t).abs() < 1e-12);
        let f = tangential(&c, &mut s, true, f_n, [-v, 0.0], dt);
        assert_eq!(s.state, RigidState::Rolling);
        assert!(f[0] < 0.0 && f[0] > -c.mu * f_n);
    }

    /// Pushed along t1 and then along t2, the sliding force turns with the push and
    /// stays on the circle (the spring "can change its direction but its displacement
    /// is limited by a circle").
    #[test]
    fn the_sliding_force_turns_on_the_circle() {
        let c = c();
        let mut s = Tangent::default();
        for _ in 0..100 {
            tangential(&c, &mut s, true, 100.0, [0.1, 0.0], 1e-3);
        }
        let mut f = [0.0; 2];
        for _ in 0..500 {
            f = tangential(&c, &mut s, true, 100.0, [0.0, 0.1], 1e-3);
        }
        assert_eq!(s.state, RigidState::Sliding);
        assert!((pmath::hypot(f[0], f[1]) - 50.0).abs() < 1e-9);
        assert!(f[1] < -49.0, "turned to oppose t2: {f:?}");
    }

    #[test]
    fn apart_and_unloaded_contacts_carry_no_tangential_force() {
        let c = c();
        let mut s = Tangent {
            delta: [1e-3, 0.0],
            state: RigidState::Rolling,
        };
        assert_eq!(
            tangential(&c, &mut s, true, 0.0, [0.1, 0.0], 1e-3),
            [0.0; 2]
        );
        assert_eq!(s.state, RigidState::Contact);
        assert_eq!(
            tangential(&c, &mut s, false, 50.0, [0.1, 0.0], 1e-3),
            [0.0; 2]
        );
        assert_eq!(s, Tangent::default());
    }
}
