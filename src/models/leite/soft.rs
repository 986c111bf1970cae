//! Leite 2010, section 3.3: the wheel on soft soil. The wheel is cut into lateral
//! slices (Fig. 7), each with its own sinkage (the wheel's camber tilts them) and its
//! own contact arc; on each arc the normal stress has the Chaikin shape of Fig. 8
//! ([`super::shape`]) and the shear stresses follow Janosi and Hanamoto with the shear
//! displacements of Wong and Ishigami. Integrated over all slices:
//! - drawbar pull DP = F_t - F_r (3.3), thrust F_t (3.4)-(3.5), resistance
//!   F_r = F_c + F_b + F_l (3.6): compaction (3.7), bulldozing front and lateral (3.8)
//!   with the side pressure summed over a triangle mesh of the wheel's sides (3.9),
//!   lateral drag k_l A_s (3.10);
//! - the lateral force F_ls + F_b,lat sin(beta) (3.11)-(3.12);
//! - the driving modes (3.13): stuck (slip indeterminate: a compliance holds the
//!   wheel up to the thrust at zero slip), accelerating (slip >= 0), braking
//!   (slip < 0), with the resistances faded in by 1 - exp(-|v|/k_r).
//!
//! Angles are measured from the bottom of the wheel, positive towards the front.

use crate::pmath;
use super::shape::StressShape;
use crate::models::bekker::pure::{entry_angle, in_contact};
use crate::models::bekker::BekkerSoil;
use crate::models::earth_pressure::passive_sqrt;
use crate::models::wheel::{slip, travel_direction, WheelForces, WheelInput};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Constants of the soft-soil model beyond the Bekker soil's (scenario `leite.soft`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SoftModel {
    /// c_1 of the angle of maximum stress theta_m = theta_2 + (c_1 + c_2 s)(theta_1 -
    /// theta_2), 1: where the Chaikin shape's middle (u = 1/2) sits (Wong 2008, ch. 2).
    pub c1: f64,
    /// c_2 of theta_m, 1 (s the slip): the slip-dependent shift of the shape.
    pub c2: f64,
    /// Exit angle as a fraction of the entry angle, theta_2 = -rebound theta_1, 1.
    pub rebound: f64,
    /// Lateral shear deformation modulus k_y of eq. (3.12), m (k_x is the soil's
    /// `k_shear`).
    pub k_y: f64,
    /// Bulk density of the soil, kg/m^3, for the passive earth pressure of the
    /// bulldozing terms (3.8)-(3.9).
    pub density: f64,
    /// Lateral drag constant k_l of eq. (3.10), Pa (force per sunk side area; 0: no
    /// lateral drag, the paper fits it to measurements).
    pub k_l: f64,
    /// Velocity constant k_r of eq. (3.13), m/s: the resistances grow as
    /// 1 - exp(-|v|/k_r) from rest.
    pub k_r: f64,
    /// Speed below which both the hub and the rim count as stopped: the stuck mode, m/s.
    pub v_stuck: f64,
    /// Stiffness of the compliance that holds a stuck wheel, N/m.
    pub stuck_stiffness: f64,
    /// Damping of that compliance, N s/m.
    pub stuck_damping: f64,
    /// Soil damping: a pressure of `damping` times the sinkage rate over the contact
    /// patch, Pa s/m (the stresses are static; without it a dropped wheel bounces).
    pub damping: f64,
    /// Speed below which the shear displacements are regularized, m/s.
    pub v_reg: f64,
}

impl Default for SoftModel {
    fn default() -> Self {
        SoftModel {
            c1: 0.4,
            c2: 0.15,
            rebound: 0.0,
            k_y: 0.015,
            density: 1500.0,
            k_l: 0.0,
            k_r: 1e-3,
            v_stuck: 1e-3,
            stuck_stiffness: 1e5,
            stuck_damping: 1e3,
            damping: 2e4,
            v_reg: 1e-3,
        }
    }
}

/// The soft-soil states of Fig. 10; the value is the contract's Integer code.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SoftState {
    /// Above the soil.
    #[default]
    NoContact = 4,
    /// Touching without load.
    Contact = 5,
    /// Stuck or rolling without slip: hub and rim both stopped (slip indeterminate).
    Stuck = 6,
    /// Slipping with slip >= 0 (driving).
    Accelerating = 7,
    /// Slipping with slip < 0 (braking, skid).
    Braking = 8,
}

/// The soft-soil state of one wheel (part of the FMU state).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Soft {
    /// Displacement of the stuck compliance along the wheel's forward direction, m.
    pub delta: f64,
    /// The discrete state.
    pub state: SoftState,
}

/// The sides of the wheel as triangles, for the lateral bulldozing of eq. (3.9):
/// a flat disc of unit radius cut into rings and sectors, each triangle as its
/// barycentre's height above the hub (in radii) and its area (in radii^2), sorted by
/// height so that the submerged ones come first.
#[derive(Debug, Clone, PartialEq)]
pub struct SideMesh {
    /// (height, area) per triangle, ascending height.
    pub triangles: Vec<[f64; 2]>,
}

impl SideMesh {
    /// The disc with `rings` rings and `sectors` sectors (the innermost ring a fan).
    pub fn disc(rings: usize, sectors: usize) -> SideMesh {
        let (rings, sectors) = (rings.max(1), sectors.max(3));
        let at = |ring: usize, k: usize| {
            let rad = ring as f64 / rings as f64;
            let a = std::f64::consts::TAU * k as f64 / sectors as f64;
            [rad * pmath::cos(a), rad * pmath::sin(a)]
        };
        let mut triangles = vec![];
        let mut push = |p: [[f64; 2]; 3]| {
            let area = 0.5
                * ((p[1][0] - p[0][0]) * (p[2][1] - p[0][1])
                    - (p[2][0] - p[0][0]) * (p[1][1] - p[0][1]))
                    .abs();
            triangles.push([(p[0][1] + p[1][1] + p[2][1]) / 3.0, area]);
        };
        for ring in 0..rings {
            for k in 0..sectors {
                let (a, b) = (at(ring + 1, k), at(ring + 1, k + 1));
                if ring == 0 {
                    push([[0.0, 0.0], a, b]);
                } else {
                    let (c, d) = (at(ring, k), at(ring, k + 1));
                    push([c, a, b]);
                    push([c, b, d]);
                }
            }
        }
        triangles.sort_by(|p, q| p[0].total_cmp(&q[0]));
        SideMesh { triangles }
    }

    /// The horizontal passive-pressure force (N) on one side of a wheel of radius `r`
    /// whose lowest point is `z` (m) below the surface: sigma_p(d) A summed over the
    /// submerged triangles, sigma_p(d) = gamma d N_phi + 2 c sqrt(N_phi) at the
    /// barycentre's depth d (Rankine; Wong 2008, ch. 2), the side vertical (alpha = 0
    /// in Fig. 9b).
    pub fn passive_force(&self, r: f64, z: f64, gamma: f64, c: f64, sqrt_nphi: f64) -> f64 {
        if z <= 0.0 {
            return 0.0;
        }
        // the hub is r - z above the surface: a triangle at height y (radii) is
        // submerged when r y + r - z < 0
        let limit = (z - r) / r;
        let mut f = 0.0;
        for t in &self.triangles {
            if t[0] >= limit {
                break;
            }
            let depth = z - r - r * t[0];
            f += (gamma * depth * sqrt_nphi * sqrt_nphi + 2.0 * c * sqrt_nphi) * t[1];
        }
        f * r * r
    }
}

impl Default for SideMesh {
    fn default() -> Self {
        SideMesh::disc(8, 48)
    }
}

/// Sums over one slice's contact arc (the slice's width and r included).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SliceSums {
    /// Vertical force r b int (sigma cos + tau_x sin) dtheta, N.
    pub vertical: f64,
    /// Thrust F_t = r b int tau_x cos dtheta (3.4)-(3.5), N.
    pub thrust: f64,
    /// Compaction resistance F_c = r b int sigma sin dtheta (3.7), N.
    pub compaction: f64,
    /// Driving torque r^2 b int tau_x dtheta, N m.
    pub torque: f64,
    /// Lateral shear force F_ls = r b int tau_y dtheta (3.12), N, signed with the
    /// lateral shear displacement (the force on the wheel is its opposite).
    pub lateral: f64,
}

/// Kinematics of one evaluation in the forward-mirrored frame.
#[derive(Debug, Clone, Copy)]
pub struct ArcMotion {
    /// Rim speed omega r, m/s.
    pub v_rim: f64,
    /// Forward hub speed, m/s.
    pub v: f64,
    /// Lateral hub speed, m/s.
    pub v_y: f64,
    /// The shear displacements' reference speed: max(|v_rim|, |v|, v_reg), m/s.
    pub v_ref: f64,
    /// Where theta_m sits on the arc, (c_1 + c_2 s) clamped to [0, 1].
    pub frac: f64,
}

/// The sums of a slice of width `b_s` (m) at sinkage `z` (m) on a wheel of radius `r`
/// and width `b` (the pressure-sinkage modulus k_c/b + k_phi is the wheel's).
#[allow(clippy::too_many_arguments)]
pub fn slice(
    s: &BekkerSoil,
    m: &SoftModel,
    shape: &StressShape,
    r: f64,
    b: f64,
    b_s: f64,
    z: f64,
    k: &ArcMotion,
) -> SliceSums {
    if z <= 0.0 {
        return SliceSums::default();
    }
    let theta1 = entry_angle(r, z);
    let theta2 = -m.rebound * theta1;
    let theta_m = theta2 + k.frac * (theta1 - theta2);
    let (sin1, cos1) = pmath::sin_cos(theta1);
    // the Bekker pressure at theta_m scales the shape (Fig. 8)
    let d_m = pmath::cos(theta_m) - cos1;
    let sigma_m = if d_m > 0.0 {
        s.k_eq(b) * pmath::powf(r * d_m, s.n)
    } else {
        0.0
    };
    let tan_phi = pmath::tan(s.phi);
    let mut sum = [0.0; 5];
    let mut half = |lo: f64, hi: f64, heights: &[f64]| {
        let (h, mid) = (0.5 * (hi - lo), 0.5 * (hi + lo));
        if h <= 0.0 {
            return;
        }
        for ((x, wt), shape_h) in shape
            .rule
            .nodes
            .iter()
            .zip(&shape.rule.weights)
            .zip(heights)
        {
            let theta = mid + h * x;
            let (sin, cos) = pmath::sin_cos(theta);
            let sigma = shape_h * sigma_m;
            let strength = s.c + sigma * tan_phi;
            // Wong 2008, ch. 2 (Ishigami 2008): j_x = r[(theta_1 - theta) - (1 - s)
            // (sin theta_1 - sin theta)], in speeds
            let j_x = r * (k.v_rim * (theta1 - theta) - k.v * (sin1 - sin)) / k.v_ref;
            // Ishigami 2008: j_y = r (1 - s)(theta_1 - theta) tan(beta), in speeds
            let j_y = r * (theta1 - theta) * k.v_y / k.v_ref;
            // (3.5) and (3.12)
            let tau_x = strength * (1.0 - pmath::exp(-j_x.abs() / s.k_shear)).copysign(j_x);
            let tau_y = if k.v_y == 0.0 {
                0.0
            } else {
                strength * (1.0 - pmath::exp(-j_y.abs() / m.k_y)).copysign(j_y)
            };
            let w = wt * h;
            sum[0] += w * (sigma * cos + tau_x * sin);
            sum[1] += w * tau_x * cos;
            sum[2] += w * sigma * sin;
            sum[3] += w * tau_x;
            sum[4] += w * tau_y;
        }
    };
    half(theta2, theta_m, &shape.rear);
    half(theta_m, theta1, &shape.front);
    let rb = r * b_s;
    SliceSums {
        vertical: rb * sum[0],
        thrust: rb * sum[1],
        compaction: rb * sum[2],
        torque: r * rb * sum[3],
        lateral: rb * sum[4],
    }
}

/// Everything the soft-soil forces need besides the wheel's motion.
#[derive(Debug, Clone, Copy)]
pub struct SoftSetup<'a> {
    pub soil: &'a BekkerSoil,
    pub model: &'a SoftModel,
    pub shape: &'a StressShape,
    pub mesh: &'a SideMesh,
    /// Number of lateral slices (Fig. 7).
    pub slices: usize,
    /// Gravity, m/s^2 (the soil's unit weight is density g).
    pub g: f64,
}

/// The totals over all slices and the sides.
#[derive(Debug, Clone, Copy, Default)]
struct Totals {
    sums: SliceSums,
    /// Deepest slice's sinkage, m.
    z_max: f64,
    /// Front bulldozing F_b,front, N.
    bulldozing_front: f64,
    /// Lateral bulldozing F_b,lat (3.9), N.
    bulldozing_lateral: f64,
    /// Sunk side area A_s of both sides (3.10), m^2.
    sunk_area: f64,
}

fn totals(u: &SoftSetup, r: f64, b: f64, input: &WheelInput, k: &ArcMotion) -> Totals {
    let n = u.slices.max(1);
    let b_s = b / n as f64;
    let tilt = pmath::sin(input.camber);
    let s = u.soil;
    let sqrt_nphi = passive_sqrt(s.phi);
    let gamma = u.model.density * u.g;
    let mut t = Totals::default();
    // upright (no camber) all slices sink alike: one slice's sums stand for all
    let (count, weight) = if tilt == 0.0 { (1, n as f64) } else { (n, 1.0) };
    for i in 0..count {
        // a slice at y along the axle sits y sin(camber) higher (Fig. 7c)
        let y = -0.5 * b + (i as f64 + 0.5) * b_s;
        let z = if tilt == 0.0 {
            input.z
        } else {
            input.z - y * tilt
        };
        t.z_max = t.z_max.max(z);
        let mut one = slice(s, u.model, u.shape, r, b, b_s, z, k);
        if weight != 1.0 {
            one = SliceSums {
                vertical: weight * one.vertical,
                thrust: weight * one.thrust,
                compaction: weight * one.compaction,
                torque: weight * one.torque,
                lateral: weight * one.lateral,
            };
        }
        t.sums.vertical += one.vertical;
        t.sums.thrust += one.thrust;
        t.sums.compaction += one.compaction;
        t.sums.torque += one.torque;
        t.sums.lateral += one.lateral;
        if z > 0.0 {
            // Rankine's passive force on the slice's front, closed form (Wong 2008,
            // ch. 2): int_0^z sigma_p dd per unit width
            t.bulldozing_front += weight
                * b_s
                * (0.5 * gamma * z * z * sqrt_nphi * sqrt_nphi + 2.0 * s.c * z * sqrt_nphi);
        }
    }
    // the two sides, b/2 either way along the axle
    let side = |sign: f64| input.z - sign * 0.5 * b * tilt;
    let mv = pmath::hypot(k.v, k.v_y).max(u.model.v_reg);
    for sign in [-1.0, 1.0] {
        let z = side(sign);
        if z <= 0.0 {
            continue;
        }
        let theta1 = entry_angle(r, z);
        t.sunk_area += r * r * (theta1 - pmath::sin(theta1) * pmath::cos(theta1));
        // only the side facing the lateral motion pushes soil: its outward normal
        // (sign along the axle) against the direction of motion (v, v_y)/|v|
        let facing = (sign * k.v_y / mv).max(0.0);
        if facing > 0.0 {
            t.bulldozing_lateral += facing * u.mesh.passive_force(r, z, gamma, s.c, sqrt_nphi);
        }
    }
    t
}

/// Forces of the soft soil on a wheel of radius `r`, width `b` (m) at `input`;
/// advances `state` by `dt` (s).
pub fn forces(
    u: &SoftSetup,
    r: f64,
    b: f64,
    state: &mut Soft,
    input: &WheelInput,
    dt: f64,
) -> WheelForces {
    let m = u.model;
    let tilt = pmath::sin(input.camber);
    let z_max = input.z + 0.5 * b * tilt.abs();
    if z_max <= 0.0 {
        *state = Soft::default();
        return WheelForces::default();
    }
    // Moving backwards, the arc is mirrored: evaluate forwards and turn the signs.
    let (omega, v) = (input.omega, input.forward_velocity);
    let dir = travel_direction(omega, v);
    let (v_rim, v_f) = (dir * omega * r, dir * v);
    let stuck = v_rim.abs().max(v_f.abs()) < m.v_stuck;
    let v_ref = v_rim.abs().max(v_f.abs()).max(m.v_reg);
    let k = if stuck {
        // slip indeterminate: the stresses of zero slip, F_t(s = 0) (3.13); sideways
        // the soil still shears, j_y as when moving (regularized by v_reg), so that a
        // wheel at rest on a cross slope is held
        ArcMotion {
            v_rim: 1.0,
            v: 1.0,
            v_y: input.lateral_velocity / v_ref,
            v_ref: 1.0,
            frac: (m.c1).clamp(0.0, 1.0),
        }
    } else {
        ArcMotion {
            v_rim,
            v: v_f,
            v_y: input.lateral_velocity,
            v_ref,
            frac: (m.c1 + m.c2 * slip(v_rim, v_f).clamp(-1.0, 1.0)).clamp(0.0, 1.0),
        }
    };
    let t = totals(u, r, b, input, &k);
    // the resistances fade in from rest (3.13)
    let fade = 1.0 - pmath::exp(-v_f.abs() / m.k_r);
    let mv = pmath::hypot(v_f, input.lateral_velocity).max(m.v_reg);
    let resistance = fade
        * (t.sums.compaction
            + t.bulldozing_front
            + m.k_l * t.sunk_area
            + t.bulldozing_lateral * v_f / mv); // (3.6), (3.8), (3.10)
    let (traction, torque, new_state) = if stuck {
        // the compliance holds the contact point up to the thrust at zero slip
        let vs = v - omega * r;
        let delta = state.delta + dt * vs;
        let trial = m.stuck_stiffness * delta + m.stuck_damping * vs;
        let limit = t.sums.thrust.abs();
        let (force, delta) = if trial.abs() <= limit {
            (-trial, delta)
        } else {
            (
                -limit.copysign(trial),
                limit.copysign(trial) / m.stuck_stiffness,
            )
        };
        (
            force,
            -r * force,
            Soft {
                delta,
                state: SoftState::Stuck,
            },
        )
    } else {
        let mode = if v_rim >= v_f {
            SoftState::Accelerating
        } else {
            SoftState::Braking
        };
        (
            dir * t.sums.thrust,
            -dir * t.sums.torque,
            Soft {
                delta: 0.0,
                state: mode,
            },
        )
    };
    // (3.11): lateral shear and the lateral share of the side's bulldozing, both
    // against the lateral motion
    let lateral = -t.sums.lateral - t.bulldozing_lateral * input.lateral_velocity / mv;
    // soil damping over the patch, as the Bekker wheels
    let theta1 = entry_angle(r, t.z_max);
    let c = m.damping * b * r * theta1 * (1.0 + m.rebound);
    let normal = (t.sums.vertical + c * input.z_rate).max(0.0);
    *state = if normal > 0.0 {
        new_state
    } else {
        Soft {
            delta: 0.0,
            state: SoftState::Contact,
        }
    };
    let mut f = in_contact(
        u.soil,
        t.z_max,
        t.sums.vertical,
        c,
        normal,
        traction - dir * resistance,
        torque,
    );
    f.lateral = lateral;
    if normal <= 0.0 {
        f.tangential = 0.0;
        f.torque = 0.0;
        f.lateral = 0.0;
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: f64 = 0.25;
    const B: f64 = 0.2;

    fn d2() -> BekkerSoil {
        // Leite 2010, Table 1 (DLR-D2)
        BekkerSoil {
            n: 1.4,
            kc: -6.67e5,
            kphi: 1.92e8,
            c: 13.0,
            phi: 32f64.to_radians(),
            k_shear: 0.015,
        }
    }

    fn at(z: f64, omega: f64, v: f64, v_y: f64) -> WheelInput {
        WheelInput {
            z,
            omega,
            forward_velocity: v,
            lateral_velocity: v_y,
            ..Default::default()
        }
    }

    fn run(input: &WheelInput, state: &mut Soft, m: &SoftModel, slices: usize) -> WheelForces {
        let (s, shape, mesh) = (d2(), StressShape::default(), SideMesh::default());
        let u = SoftSetup {
            soil: &s,
            model: m,
            shape: &shape,
            mesh: &mesh,
            slices,
            g: 9.81,
        };
        forces(&u, R, B, state, input, 1e-3)
    }

    /// The side mesh tiles the disc: its areas sum to pi r^2 (to the polygon's
    /// inscribed area), and a side sunk to the hub carries Rankine's force on a half
    /// disc within the mesh's resolution.
    #[test]
    fn the_side_mesh_integrates_the_passive_pressure() {
        let mesh = SideMesh::disc(16, 96);
        let area: f64 = mesh.triangles.iter().map(|t| t[1]).sum();
        let polygon = 0.5 * 96.0 * pmath::sin(std::f64::consts::TAU / 96.0);
        assert!((area - polygon).abs() < 1e-12, "{area} vs {polygon}");
        // cohesion only: sigma_p = 2 c sqrt(N_phi) uniform over the submerged half disc
        let f = mesh.passive_force(1.0, 1.0, 0.0, 10.0, 2.0);
        let exact = 40.0 * 0.5 * std::f64::consts::PI;
        assert!((f - exact).abs() < 0.02 * exact, "{f} vs {exact}");
        // weight only: int over the half disc of gamma depth dA = gamma 2/3 r^3
        let f = mesh.passive_force(1.0, 1.0, 3.0, 0.0, 1.0);
        assert!((f - 2.0).abs() < 0.02 * 2.0, "{f}");
    }

    /// Driving at growing slip, the drawbar pull rises and saturates and the torque
    /// resists ever more; braking turns both.
    #[test]
    fn drawbar_pull_rises_with_slip_and_saturates() {
        let m = SoftModel::default();
        let v = 0.0108;
        let dp = |s: f64| {
            let omega = v / (1.0 - s) / R;
            run(&at(0.02, omega, v, 0.0), &mut Soft::default(), &m, 10)
        };
        let curve: Vec<f64> = [0.05, 0.1, 0.2, 0.4, 0.6, 0.8]
            .iter()
            .map(|&s| dp(s).tangential)
            .collect();
        assert!(curve.windows(2).all(|w| w[1] > w[0]), "{curve:?}");
        // saturating: the last step adds far less than the first
        assert!(
            curve[5] - curve[4] < 0.3 * (curve[1] - curve[0]) * 4.0,
            "{curve:?}"
        );
        let f = dp(0.4);
        assert!(f.torque < 0.0 && f.normal > 0.0);
        let mut st = Soft::default();
        let braked = run(&at(0.02, 0.5 * v / R, v, 0.0), &mut st, &m, 10);
        assert!(braked.tangential < 0.0 && braked.torque > 0.0);
        assert_eq!(st.state, SoftState::Braking);
    }

    /// The lateral force opposes the side slip, grows with it, and the side's
    /// bulldozing adds to it; without side slip there is none.
    #[test]
    fn side_slip_meets_lateral_shear_and_bulldozing() {
        let m = SoftModel::default();
        let omega = 0.1 / R;
        let none = run(&at(0.03, omega, 0.1, 0.0), &mut Soft::default(), &m, 10);
        assert_eq!(none.lateral, 0.0);
        let small = run(&at(0.03, omega, 0.1, 0.01), &mut Soft::default(), &m, 10);
        let large = run(&at(0.03, omega, 0.1, 0.05), &mut Soft::default(), &m, 10);
        assert!(
            small.lateral < 0.0 && large.lateral < small.lateral,
            "{small:?} {large:?}"
        );
        let left = run(&at(0.03, omega, 0.1, -0.05), &mut Soft::default(), &m, 10);
        assert!((left.lateral + large.lateral).abs() < 1e-9 * large.lateral.abs());
    }

    /// A cambered wheel sinks its lower slices deeper; with one slice the tilt is
    /// invisible (the middle's sinkage only), with ten the load grows (n > 1: deeper
    /// slices gain more than the higher ones lose).
    #[test]
    fn slices_see_the_camber() {
        let m = SoftModel::default();
        let mut input = at(0.02, 0.0, 0.0, 0.0);
        let flat = run(&input, &mut Soft::default(), &m, 10).normal;
        input.camber = 0.1;
        let one = run(&input, &mut Soft::default(), &m, 1).normal;
        let ten = run(&input, &mut Soft::default(), &m, 10).normal;
        assert!((one - flat).abs() < 1e-9 * flat);
        assert!(ten > flat * 1.001, "{ten} vs {flat}");
    }

    /// Stuck (hub and rim stopped): the compliance holds the wheel against a push up to
    /// the thrust at zero slip, then lets it slip at that force.
    #[test]
    fn a_stuck_wheel_holds_up_to_the_thrust_at_zero_slip() {
        let m = SoftModel::default();
        let mut st = Soft::default();
        // pushed backwards by 0.5 mm/s: the spring winds up
        let mut forces = vec![];
        for _ in 0..4000 {
            let f = run(&at(0.01, 0.0, -9e-4, 0.0), &mut st, &m, 10);
            forces.push(f.tangential);
        }
        assert_eq!(st.state, SoftState::Stuck);
        let hold = forces[forces.len() - 1];
        assert!(hold > 0.0 && forces[10] < hold, "{forces:?}");
        // saturated at F_t(s = 0): stays there
        assert!((forces[3999] - forces[3998]).abs() < 1e-9 * hold);
        let zero_slip = run(
            &at(0.01, 1.0 / R * 0.01, 0.01, 0.0),
            &mut Soft::default(),
            &m,
            10,
        );
        assert!(
            hold < zero_slip.normal,
            "{hold} vs the load {}",
            zero_slip.normal
        );
    }

    /// The quadrature converges: the drawbar pull and the load of the default 4 points
    /// per half arc (and of 6) are within 0.5 % of 32 points' at 10 % and 50 % slip.
    #[test]
    fn the_arc_quadrature_converges() {
        let (s, m, mesh) = (d2(), SoftModel::default(), SideMesh::default());
        let f = |points: usize, slip: f64| {
            let shape = StressShape::new(&super::super::shape::DEFAULT_CONTROL, 5, points);
            let u = SoftSetup {
                soil: &s,
                model: &m,
                shape: &shape,
                mesh: &mesh,
                slices: 10,
                g: 9.81,
            };
            let omega = 0.1 / (1.0 - slip) / R;
            forces(
                &u,
                R,
                B,
                &mut Soft::default(),
                &at(0.02, omega, 0.1, 0.0),
                1e-3,
            )
        };
        for slip in [0.1, 0.5] {
            let exact = f(32, slip);
            for points in [4, 6] {
                let g = f(points, slip);
                let e = [
                    (g.tangential - exact.tangential).abs() / exact.tangential.abs(),
                    (g.normal - exact.normal).abs() / exact.normal,
                ];
                eprintln!(
                    "slip {slip}, {points} points: relative errors DP {:.2e}, W {:.2e}",
                    e[0], e[1]
                );
                assert!(e[0] < 5e-3 && e[1] < 5e-3, "{points} points: {e:?}");
            }
        }
    }

    /// An upright wheel's slices all sink alike: evaluating one for all gives the
    /// ten-slice sum to round-off.
    #[test]
    fn upright_slices_are_one_slice_times_their_number() {
        let m = SoftModel::default();
        let upright = run(&at(0.02, 0.5, 0.1, 0.01), &mut Soft::default(), &m, 10);
        let mut tiny = at(0.02, 0.5, 0.1, 0.01);
        tiny.camber = 1e-300; // takes the per-slice path with the same sinkages
        let sliced = run(&tiny, &mut Soft::default(), &m, 10);
        for (a, b) in [
            (upright.normal, sliced.normal),
            (upright.tangential, sliced.tangential),
            (upright.lateral, sliced.lateral),
        ] {
            assert!((a - b).abs() < 1e-12 * b.abs(), "{a} vs {b}");
        }
    }

    /// A stuck wheel creeping sideways (a rover parked across a slope) meets the
    /// lateral shear: at 0.5 mm/s more than a fifth of W tan(phi), against the creep.
    #[test]
    fn a_stuck_wheel_resists_sideways_creep() {
        let m = SoftModel::default();
        let mut st = Soft::default();
        let f = run(&at(0.01, 0.0, 0.0, 5e-4), &mut st, &m, 10);
        assert_eq!(st.state, SoftState::Stuck);
        let limit = f.normal * pmath::tan(d2().phi);
        assert!(
            f.lateral < -0.2 * limit,
            "{} vs W tan(phi) {limit}",
            f.lateral
        );
        let back = run(&at(0.01, 0.0, 0.0, -5e-4), &mut Soft::default(), &m, 10);
        assert!((back.lateral + f.lateral).abs() < 1e-9 * f.lateral.abs());
    }

    #[test]
    fn apart_is_no_contact() {
        let m = SoftModel::default();
        let mut st = Soft {
            delta: 1e-3,
            state: SoftState::Stuck,
        };
        let f = run(&at(-1e-3, 1.0, 0.2, 0.0), &mut st, &m, 10);
        assert_eq!(f, WheelForces::default());
        assert_eq!(st, Soft::default());
    }
}
