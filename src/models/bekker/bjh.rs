//! The Bekker-Janosi-Hanamoto wheel (Buse 2023, section 4.3.2) in Wong and Reece's
//! form (Wong 2008, ch. 2): normal and shear stress along the contact arc of a rigid
//! wheel, integrated for the vertical force, the drawbar pull and the driving torque.
//!
//! Angles are measured from the bottom of the wheel, positive towards the front:
//! entry theta_1, exit theta_2 (<= 0), maximum stress theta_m in between.

use crate::pmath;
use super::pure::{entry_angle, in_contact};
use super::BekkerSoil;
use crate::models::quadrature::GaussLegendre;
use crate::models::wheel::{slip, travel_direction, WheelForces, WheelInput};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Constants of the Bekker-Janosi-Hanamoto wheel beyond the soil's (scenario
/// `bjh.model`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct BjhModel {
    /// c_1 of the angle of maximum stress theta_m = (c_1 + c_2 i) theta_1, 1 (Wong
    /// 2008, ch. 2; 0.4 as measured by Wong and Reece on sand).
    pub c1: f64,
    /// c_2 of theta_m = (c_1 + c_2 i) theta_1, 1 (0.15 for sand; i the slip).
    pub c2: f64,
    /// Exit angle as a fraction of the entry angle, theta_2 = -rebound theta_1, 1
    /// (0: no rebound of the soil behind the wheel).
    pub rebound: f64,
    /// Gauss-Legendre points on each of the two arcs [theta_2, theta_m] and
    /// [theta_m, theta_1].
    pub points: u32,
    /// Soil damping: a pressure of `damping` times the sinkage rate over the contact
    /// patch, Pa s/m.
    pub damping: f64,
    /// Speed below which the shear displacement is regularized, m/s.
    pub v_reg: f64,
}

impl Default for BjhModel {
    fn default() -> Self {
        BjhModel {
            c1: 0.4,
            c2: 0.15,
            rebound: 0.0,
            points: 8,
            damping: 2e4,
            v_reg: 0.01,
        }
    }
}

/// The contact arc of one evaluation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Arc {
    /// Entry angle theta_1, rad.
    pub theta1: f64,
    /// Exit angle theta_2, rad (<= 0).
    pub theta2: f64,
    /// Angle of the maximum normal stress theta_m, rad.
    pub theta_m: f64,
}

impl Arc {
    /// The arc of a wheel of radius `r` at sinkage `z` (m) and slip `i`.
    pub fn new(m: &BjhModel, r: f64, z: f64, i: f64) -> Arc {
        let theta1 = entry_angle(r, z);
        let theta2 = -m.rebound * theta1;
        let frac = (m.c1 + m.c2 * i.clamp(-1.0, 1.0)).clamp(0.0, 1.0);
        Arc {
            theta1,
            theta2,
            theta_m: theta2 + frac * (theta1 - theta2),
        }
    }
}

/// Normal stress sigma(theta) (Pa) on a wheel of radius `r`, width `b` (m): in front of
/// theta_m, (k_c/b + k_phi) r^n (cos theta - cos theta_1)^n; behind it, the same with
/// theta mapped linearly from [theta_2, theta_m] onto [theta_1, theta_m] (Wong and
/// Reece; Wong 2008, ch. 2).
pub fn normal_stress(s: &BekkerSoil, r: f64, b: f64, a: &Arc, theta: f64) -> f64 {
    stress_at(s.k_eq(b), s.n, r, a, theta, pmath::cos(theta), pmath::cos(a.theta1))
}

/// [`normal_stress`] with the modulus `k` = k_c/b + k_phi, cos(theta) and
/// cos(theta_1) given (the quadrature has them).
/// Rules up to this many points reuse the front's stresses behind theta_m (the
/// scenario allows 64).
const MAX_POINTS: usize = 64;

#[inline]
fn stress_at(k: f64, n: f64, r: f64, a: &Arc, theta: f64, cos: f64, cos1: f64) -> f64 {
    let c = if theta >= a.theta_m {
        cos
    } else {
        pmath::cos(a.theta1 - (theta - a.theta2) / (a.theta_m - a.theta2) * (a.theta1 - a.theta_m))
    };
    let d = c - cos1;
    if d <= 0.0 {
        0.0
    } else {
        k * pmath::powf(r * d, n)
    }
}

/// Shear displacement at angle `theta` (rad) of the contact arc [theta, theta_1] of a
/// wheel of radius `r` turning with rim speed `v_rim` and moving at `v` (m/s):
/// j = r [v_rim (theta_1 - theta) - v (sin theta_1 - sin theta)] / v_ref (Wong 2008,
/// ch. 2: j = r[(theta_1 - theta) - (1 - i)(sin theta_1 - sin theta)] when driving,
/// v_ref = v_rim; the skid form with v_ref = v when braking), v_ref the larger of
/// |v_rim|, |v| and `v_reg`.
pub fn shear_displacement(r: f64, theta1: f64, theta: f64, v_rim: f64, v: f64, v_reg: f64) -> f64 {
    let v_ref = v_rim.abs().max(v.abs()).max(v_reg);
    shear_at(r, theta1, pmath::sin(theta1), theta, pmath::sin(theta), v_rim, v, v_ref)
}

/// [`shear_displacement`] with the sines and v_ref given.
#[inline]
#[allow(clippy::too_many_arguments)]
fn shear_at(
    r: f64,
    theta1: f64,
    sin1: f64,
    theta: f64,
    sin: f64,
    v_rim: f64,
    v: f64,
    v_ref: f64,
) -> f64 {
    r * (v_rim * (theta1 - theta) - v * (sin1 - sin)) / v_ref
}

/// Integrals over the contact arc (per unit width and radius, see [`integrate`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ArcIntegrals {
    /// Vertical force W = r b int (sigma cos + tau sin) dtheta, N.
    pub vertical: f64,
    /// Drawbar pull DP = r b int (tau cos - sigma sin) dtheta, N.
    pub drawbar: f64,
    /// Driving torque T = r^2 b int tau dtheta, N m (what the axle must supply).
    pub torque: f64,
}

/// W, DP and T of a wheel of radius `r`, width `b` on `arc`, rim speed `v_rim`, speed
/// `v` (m/s, v >= 0 or driving forward), with `rule` on each of the two arcs.
#[allow(clippy::too_many_arguments)]
pub fn integrate(
    s: &BekkerSoil,
    r: f64,
    b: f64,
    arc: &Arc,
    v_rim: f64,
    v: f64,
    v_reg: f64,
    rule: &GaussLegendre,
) -> ArcIntegrals {
    let tan_phi = pmath::tan(s.phi);
    let k = s.k_eq(b);
    let (sin1, cos1) = pmath::sin_cos(arc.theta1);
    let v_ref = v_rim.abs().max(v.abs()).max(v_reg);
    let n = rule.nodes.len();
    let (mut w, mut dp, mut t) = (0.0, 0.0, 0.0);
    let mut add = |theta: f64, sin: f64, cos: f64, sigma: f64, wh: f64| {
        let j = shear_at(r, arc.theta1, sin1, theta, sin, v_rim, v, v_ref);
        let tau = (s.c + sigma * tan_phi) * s.mobilized(j);
        w += wh * (sigma * cos + tau * sin);
        dp += wh * (tau * cos - sigma * sin);
        t += wh * tau;
    };
    // In front of theta_m. The normal stress at the front nodes is kept: the rear
    // maps node x_i onto the front's node -x_i (the rule is symmetric), so the rear
    // reuses it instead of a cosine and a power per node.
    let mut front = [0.0; MAX_POINTS];
    let (h, mid) = (
        0.5 * (arc.theta1 - arc.theta_m),
        0.5 * (arc.theta1 + arc.theta_m),
    );
    for (i, (x, wt)) in rule.nodes.iter().zip(&rule.weights).enumerate() {
        let theta = mid + h * x;
        let (sin, cos) = pmath::sin_cos(theta);
        let sigma = stress_at(k, s.n, r, arc, theta, cos, cos1);
        if i < MAX_POINTS {
            front[i] = sigma;
        }
        if h > 0.0 {
            add(theta, sin, cos, sigma, wt * h);
        }
    }
    // Behind theta_m.
    let (h, mid) = (
        0.5 * (arc.theta_m - arc.theta2),
        0.5 * (arc.theta_m + arc.theta2),
    );
    if h > 0.0 {
        for (i, (x, wt)) in rule.nodes.iter().zip(&rule.weights).enumerate() {
            let theta = mid + h * x;
            let (sin, cos) = pmath::sin_cos(theta);
            let sigma = if n <= MAX_POINTS {
                front[n - 1 - i]
            } else {
                stress_at(k, s.n, r, arc, theta, cos, cos1)
            };
            add(theta, sin, cos, sigma, wt * h);
        }
    }
    ArcIntegrals {
        vertical: r * b * w,
        drawbar: r * b * dp,
        torque: r * r * b * t,
    }
}

/// Forces on a wheel of radius `r`, width `b` (m) at `input`, with `rule` built for
/// `m.points`.
pub fn forces(
    s: &BekkerSoil,
    m: &BjhModel,
    r: f64,
    b: f64,
    rule: &GaussLegendre,
    input: &WheelInput,
) -> WheelForces {
    let z = input.z;
    if z <= 0.0 {
        return WheelForces::default();
    }
    // Moving backwards, the arc is mirrored: evaluate forwards and turn the signs.
    let (omega, v) = (input.omega, input.forward_velocity);
    let dir = travel_direction(omega, v);
    let v_rim = dir * omega * r;
    let v = dir * v;
    let arc = Arc::new(m, r, z, slip(v_rim, v));
    let i = integrate(s, r, b, &arc, v_rim, v, m.v_reg, rule);
    let c = m.damping * b * r * (arc.theta1 - arc.theta2);
    let normal = (i.vertical + c * input.z_rate).max(0.0);
    in_contact(
        s,
        z,
        i.vertical,
        c,
        normal,
        dir * i.drawbar,
        -dir * i.torque,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: f64 = 0.25;
    const B: f64 = 0.2;

    /// Wong and Reece's integrals written out by hand from Wong 2008, ch. 2, with
    /// composite Simpson on each arc (`n` intervals each): an independent check of
    /// [`integrate`]'s stresses, shear displacement and quadrature.
    fn by_hand(s: &BekkerSoil, z: f64, i: f64, n: usize) -> (f64, f64, f64) {
        let k = s.kc / B + s.kphi;
        let t1 = pmath::acos(1.0 - z / R);
        let t2 = 0.0;
        let tm = (0.4 + 0.15 * i) * t1;
        let sigma = |t: f64| {
            let te = if t >= tm {
                t
            } else {
                t1 - (t - t2) / (tm - t2) * (t1 - tm)
            };
            k * pmath::powf((R * (pmath::cos(te) - pmath::cos(t1))).max(0.0), s.n)
        };
        // driving at slip i: v = (1 - i) omega r, j = r[(t1 - t) - (1 - i)(sin t1 - sin t)]
        let j = |t: f64| R * ((t1 - t) - (1.0 - i) * (pmath::sin(t1) - pmath::sin(t)));
        let tau = |t: f64| (s.c + sigma(t) * pmath::tan(s.phi)) * (1.0 - pmath::exp(-j(t) / s.k_shear));
        let simpson = |f: &dyn Fn(f64) -> f64, a: f64, b: f64| {
            let h = (b - a) / n as f64;
            let mut acc = f(a) + f(b);
            for m in 1..n {
                acc += f(a + m as f64 * h) * if m % 2 == 1 { 4.0 } else { 2.0 };
            }
            acc * h / 3.0
        };
        let both = |f: &dyn Fn(f64) -> f64| simpson(f, t2, tm) + simpson(f, tm, t1);
        (
            R * B * both(&|t| sigma(t) * pmath::cos(t) + tau(t) * pmath::sin(t)),
            R * B * both(&|t| tau(t) * pmath::cos(t) - sigma(t) * pmath::sin(t)),
            R * R * B * both(&tau),
        )
    }

    fn model_integrals(s: &BekkerSoil, z: f64, i: f64, points: usize) -> ArcIntegrals {
        let m = BjhModel::default();
        let omega = 1.0;
        let v = (1.0 - i) * omega * R;
        let arc = Arc::new(&m, R, z, slip(omega * R, v));
        integrate(
            s,
            R,
            B,
            &arc,
            omega * R,
            v,
            m.v_reg,
            &GaussLegendre::new(points),
        )
    }

    /// At three slips, the model's integrals with 64 points per arc against Simpson
    /// with 2 x 200 000 intervals: relative 1e-6. The stress (cos t - cos t1)^n with
    /// n = 0.63 has an infinite slope at the entry, which both rules resolve only
    /// algebraically; 1e-6 is what both reach there.
    #[test]
    fn stresses_integrate_as_wong_and_reece_by_hand() {
        let s = BekkerSoil::default();
        let z = 0.03;
        for i in [0.1, 0.3, 0.6] {
            let got = model_integrals(&s, z, i, 64);
            let (w, dp, t) = by_hand(&s, z, i, 200_000);
            for (name, a, b) in [
                ("W", got.vertical, w),
                ("DP", got.drawbar, dp),
                ("T", got.torque, t),
            ] {
                assert!(((a - b) / b).abs() < 1e-6, "slip {i}: {name} {a} vs {b}");
            }
        }
    }

    /// The quadrature's convergence: the error of W against 64 points falls with the
    /// points per arc; with the default 8 it is below 1 % (measured 0.2 %).
    #[test]
    fn the_quadrature_converges() {
        let s = BekkerSoil::default();
        let reference = model_integrals(&s, 0.03, 0.3, 64);
        let mut last = f64::INFINITY;
        for points in [2, 4, 8, 16, 32] {
            let got = model_integrals(&s, 0.03, 0.3, points);
            let err = ((got.vertical - reference.vertical) / reference.vertical)
                .abs()
                .max(((got.drawbar - reference.drawbar) / reference.drawbar).abs());
            assert!(err < last, "{points} points: error {err} not below {last}");
            if points == 8 {
                assert!(err < 1e-2, "8 points: {err}");
            }
            last = err;
        }
    }

    fn at(z: f64, omega: f64, v: f64) -> WheelForces {
        let m = BjhModel::default();
        forces(
            &BekkerSoil::default(),
            &m,
            R,
            B,
            &GaussLegendre::new(m.points as usize),
            &WheelInput {
                z,
                omega,
                forward_velocity: v,
                ..Default::default()
            },
        )
    }

    /// Drawbar pull and torque rise with slip and saturate; in skid both turn
    /// negative; backwards the forces mirror.
    #[test]
    fn drawbar_pull_rises_with_slip_and_saturates() {
        let z = 0.03;
        let dp = |i: f64| at(z, 1.0, (1.0 - i) * R);
        let slips = [0.0, 0.1, 0.2, 0.4, 0.6, 0.8];
        let f: Vec<WheelForces> = slips.iter().map(|&i| dp(i)).collect();
        for k in 1..f.len() {
            assert!(
                f[k].tangential > f[k - 1].tangential,
                "DP at slip {}",
                slips[k]
            );
            assert!(f[k].torque < f[k - 1].torque, "torque at slip {}", slips[k]);
        }
        // saturating: the last 20 % of slip adds less than the first 10 %
        assert!(f[5].tangential - f[4].tangential < f[1].tangential - f[0].tangential);
        // a towed wheel (zero slip) only resists: compaction
        assert!(f[0].tangential < 0.0);
        // skid: braking at -30 % slip (omega r = 0.7 v)
        let skid = at(z, 0.7 * 0.1 / R, 0.1);
        assert!(skid.tangential < f[0].tangential && skid.torque > 0.0);
        // backwards
        let back = at(z, -1.0, -(1.0 - 0.3) * R);
        let fwd = at(z, 1.0, (1.0 - 0.3) * R);
        assert_eq!(back.tangential, -fwd.tangential);
        assert_eq!(back.torque, -fwd.torque);
        assert_eq!(back.normal, fwd.normal);
    }
}
