//! Leite and Schäfer 2010, section 3.2: the wheel against rocks. A rock is a convex
//! body of the scenario (a generated rock's convex hull, a convex mesh, a cuboid, ...);
//! the wheel is a cylinder about its axle, as SOLID's support mapping is in the paper.
//! Collision detection (GJK/EPA, parry3d-f64) gives the deepest points of the two
//! (Fig. 5a); forces act only while they intersect (Fig. 5b), along the contact normal
//! c_n through those points.
//!
//! - Normal force: Hunt and Crossley's law, as the paper advises and as BBCC has it
//!   (Buse 2023 eq. (1) with the damping of eq. (2)):
//!   F_N = k delta^1.5 (1 + d d(delta)/dt), d = 8/5 (1 - zeta) / (zeta v_impact).
//! - Tangential force: the paper's choice between the compliance of section 3.1
//!   ([`super::compliance`]: Coulomb behaviour with the rolling constraint held inside
//!   the friction circle) and a regularized Coulomb law (Buse 2023 eq. (4)).
//! - States: the stone states of Fig. 10 as codes 9-12: no collision (a rock within
//!   the proximity margin but not touching), collision, rolling, sliding.

use super::compliance::{self, Compliance, RigidState, Tangent};
use super::rock::{Rock, Workspace};
use crate::models::bbcc::pair::BodyPose;
use crate::models::bbcc::{friction, hunt_crossley};
use nalgebra::Vector3;
use parry3d_f64::shape::Cylinder;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How the tangential force between wheel and rock is computed (Leite 2010, section
/// 3.2: "with Coulomb behavior as in section 3.1 or with a regularized Coulomb
/// behavior").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StoneFriction {
    /// The 2D compliance of section 3.1: rolling holds until mu F_N, then sliding.
    #[default]
    Compliance,
    /// mu F_N tanh(|v_t| / v_reg) against the slip velocity (Buse 2023 eq. (4)).
    Regularized,
}

impl StoneFriction {
    /// The FMI Integer code of `leite.stone.friction`.
    pub fn code(self) -> i32 {
        match self {
            StoneFriction::Compliance => 0,
            StoneFriction::Regularized => 1,
        }
    }

    /// The law of an FMI Integer code (anything but 1 is the compliance).
    pub fn from_code(code: i32) -> Self {
        if code == 1 {
            StoneFriction::Regularized
        } else {
            StoneFriction::Compliance
        }
    }
}

/// Constants of the wheel-rock contact (scenario `leite.stone`). The paper calls the
/// stiffness, damping and penetration tolerance simulation parameters to be tuned
/// (section 4.2); the defaults give a 200 N wheel about 34 um of penetration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct StoneModel {
    /// Hunt-Crossley stiffness k, N/m^1.5 (Buse 2023 eq. (1); eq. (3) gives it from the
    /// materials: about 5e10 for steel on granite).
    pub k: f64,
    /// Coefficient of restitution zeta of the damping (Buse 2023 eq. (2)), in (0, 1].
    pub zeta: f64,
    /// Floor of the impact velocity in the damping, m/s: keeps it finite for contacts
    /// that start at rest.
    pub impact_velocity_min: f64,
    /// Tangential stiffness k_T of the compliance, N/m.
    pub k_t: f64,
    /// Tangential damping d_T of the compliance, N s/m.
    pub d_t: f64,
    /// Coulomb friction coefficient mu of wheel on rock.
    pub mu: f64,
    /// The tangential law.
    pub friction: StoneFriction,
    /// Velocity scale v_reg of the regularized law, m/s.
    pub v_reg: f64,
    /// Proximity margin, m: a rock whose bounding box comes this close to the wheel's
    /// puts the wheel in the stone meta-state (code 9, no collision).
    pub margin: f64,
}

impl Default for StoneModel {
    fn default() -> Self {
        StoneModel {
            k: 1e9,
            zeta: 0.5,
            impact_velocity_min: 0.01,
            k_t: 1e5,
            d_t: 1e3,
            mu: 0.6,
            friction: StoneFriction::Compliance,
            v_reg: 0.01,
            margin: 0.05,
        }
    }
}

impl StoneModel {
    /// The tangential part as the compliance of section 3.1 (its normal constants
    /// unused).
    fn compliance(&self) -> Compliance {
        Compliance {
            k_n: self.k,
            d_n: 0.0,
            e: 1.5,
            k_t: self.k_t,
            d_t: self.d_t,
            mu: self.mu,
        }
    }
}

/// How many rocks one wheel remembers at a time (their impact velocity and tangential
/// spring). A further rock touching at the same instant still pushes, but starts from
/// a fresh memory each step.
pub const MAX_STONES: usize = 4;

/// The first stone state's code (Fig. 10): 9 no collision, 10 collision, 11 rolling,
/// 12 sliding.
pub const STONE_CODE: i32 = 9;

/// The memory of one wheel-rock contact (part of the FMU state).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct StoneContact {
    /// The rock: its index in the model's rock list plus one; 0: the slot is free.
    pub rock: u32,
    /// The tangential compliance and the contact's state.
    pub tangent: Tangent,
    /// Pre-impact penetration rate of eq. (2), m/s.
    pub impact_velocity: f64,
}

/// The wheel's rock contacts (part of the FMU state).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Stones {
    /// The touching rocks, in the order of the rock list; free slots last.
    pub contacts: [StoneContact; MAX_STONES],
    /// A rock is within the proximity margin.
    pub near: bool,
}

impl Stones {
    /// The stone state's code when a rock is near (the most engaged contact's: sliding
    /// over rolling over collision), else None.
    pub fn code(&self) -> Option<i32> {
        let touching = self
            .contacts
            .iter()
            .filter(|c| c.rock != 0)
            .map(|c| c.tangent.state as i32)
            .max();
        match touching {
            Some(s) => Some(STONE_CODE + s),
            None if self.near => Some(STONE_CODE),
            None => None,
        }
    }
}

/// One wheel-rock contact: what acts on the wheel (world frame).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StoneWrench {
    /// Force of the rock on the wheel, N; the rock gets the opposite.
    pub force: Vector3<f64>,
    /// Where it acts: midway between the deepest points, m.
    pub point: Vector3<f64>,
    /// Contact normal out of the rock, towards the wheel.
    pub normal: Vector3<f64>,
    /// Penetration, m.
    pub depth: f64,
    /// Normal force, N.
    pub normal_force: f64,
    /// dF_N/d(delta), N/m.
    pub stiffness: f64,
    /// dF_N/d(d delta/dt), N s/m.
    pub damping: f64,
}

/// The contact of the wheel (`wheel`, a cylinder about body y, at `wheel_pose`) with
/// the rock `rock` at `rock_pose`, or None when they do not intersect (Leite 2010,
/// section 3.2). `memory` is the contact's memory from the last step (default for a
/// new contact); it is advanced by `dt` (s). `ws`: the query's buffers.
pub fn contact(
    m: &StoneModel,
    wheel: &Cylinder,
    wheel_pose: &BodyPose,
    rock: &Rock,
    rock_pose: &BodyPose,
    memory: &mut StoneContact,
    ws: &mut Workspace,
    dt: f64,
) -> Option<StoneWrench> {
    // Fig. 5: the deepest points p_m (wheel) and p_s (rock) and the normal c_n
    let (depth, n, p) = rock.contact(wheel, &wheel_pose.iso, &rock_pose.iso, ws)?;
    let out = -n; // out of the rock, towards the wheel
                  // the wheel's contact point relative to the rock's
    let v_rel = wheel_pose.velocity_at(&p) - rock_pose.velocity_at(&p);
    let depth_rate = v_rel.dot(&n);
    let was_touching = memory.tangent.state != RigidState::NoContact;
    let impact_velocity = if was_touching {
        memory.impact_velocity
    } else {
        depth_rate.max(m.impact_velocity_min)
    };
    memory.impact_velocity = impact_velocity;
    let d = hunt_crossley::damping(m.zeta, impact_velocity); // Buse 2023 eq. (2)
    let f_n = hunt_crossley::normal_force(m.k, d, depth, depth_rate); // eq. (1)
                                                                      // the tangent plane: t1 along the wheel's rolling direction (axle x normal)
    let axle = wheel_pose.iso.rotation * Vector3::y();
    let t1 = {
        let t = axle.cross(&out);
        if t.norm_squared() > 1e-12 {
            t.normalize()
        } else {
            // the wheel's flat side on the rock: any tangent
            let a = if out.x.abs() < 0.9 {
                Vector3::x()
            } else {
                Vector3::y()
            };
            a.cross(&out).normalize()
        }
    };
    let t2 = out.cross(&t1);
    let v_t = v_rel - n * depth_rate;
    let tangential = match m.friction {
        StoneFriction::Compliance => {
            let f = compliance::tangential(
                &m.compliance(),
                &mut memory.tangent,
                true,
                f_n,
                [v_t.dot(&t1), v_t.dot(&t2)],
                dt,
            );
            t1 * f[0] + t2 * f[1]
        }
        StoneFriction::Regularized => {
            memory.tangent = Tangent {
                delta: [0.0; 2],
                state: if f_n <= 0.0 {
                    RigidState::Contact
                } else if v_t.norm() < m.v_reg {
                    RigidState::Rolling
                } else {
                    RigidState::Sliding
                },
            };
            friction::regularized_coulomb(m.mu, f_n, &v_t, m.v_reg) // Buse 2023 eq. (4)
        }
    };
    let pressing = f_n > 0.0;
    let root = depth.sqrt();
    Some(StoneWrench {
        force: out * f_n + tangential,
        point: p,
        normal: out,
        depth,
        normal_force: f_n,
        stiffness: if pressing {
            1.5 * m.k * root * (1.0 + d * depth_rate)
        } else {
            0.0
        },
        damping: if pressing {
            m.k * depth * root * d
        } else {
            0.0
        },
    })
}

#[cfg(test)]
mod tests {
    use crate::pmath;
    use super::*;
    use nalgebra::{Isometry3, UnitQuaternion};
    use parry3d_f64::shape::SharedShape;

    fn at(x: f64, z: f64, v: [f64; 3], w: [f64; 3]) -> BodyPose {
        BodyPose {
            iso: Isometry3::translation(x, 0.0, z),
            v: Vector3::from(v),
            w: Vector3::from(w),
        }
    }

    /// [`contact`] of the test wheel (r 0.25 m, 0.2 m wide) at `pose` with `rock` at
    /// `rock_pose`, advancing `mem` by `dt`.
    fn touch(
        m: &StoneModel,
        pose: &BodyPose,
        (rock, rock_pose): &(Rock, BodyPose),
        mem: &mut StoneContact,
        dt: f64,
    ) -> Option<StoneWrench> {
        let wheel = Cylinder::new(0.1, 0.25);
        contact(
            m,
            &wheel,
            pose,
            rock,
            rock_pose,
            mem,
            &mut Workspace::default(),
            dt,
        )
    }

    /// A flat-topped rock (a 1 m cube, top at z = 0) under a wheel of radius 0.25 m.
    fn rock() -> (Rock, BodyPose) {
        (
            Rock::Shape(SharedShape::cuboid(0.5, 0.5, 0.5)),
            at(0.0, -0.5, [0.0; 3], [0.0; 3]),
        )
    }

    /// A wheel pressed delta into a flat rock at rest: F_N = k delta^1.5 straight up
    /// (Buse 2023 eq. (1) without rate), acting at the rim's lowest line; the state is
    /// rolling (loaded, inside the friction circle); dF/d(delta) = 1.5 k delta^0.5.
    #[test]
    fn a_wheel_pressed_into_a_flat_rock_meets_the_hunt_crossley_force() {
        let m = StoneModel::default();
        let flat = rock();
        let delta: f64 = 4e-5;
        let mut mem = StoneContact::default();
        let pressed = at(0.3, 0.25 - delta, [0.0; 3], [0.0; 3]);
        let c = touch(&m, &pressed, &flat, &mut mem, 1e-3).unwrap();
        let f = m.k * pmath::powf(delta, 1.5);
        assert!((c.depth - delta).abs() < 1e-12, "{c:?}");
        assert!(
            (c.force - Vector3::new(0.0, 0.0, f)).norm() < 1e-9 * f,
            "{c:?}"
        );
        assert!((c.normal - Vector3::z()).norm() < 1e-12);
        assert!((c.point.x - 0.3).abs() < 1e-9 && c.point.y.abs() < 1e-9);
        assert!((c.stiffness - 1.5 * m.k * delta.sqrt()).abs() < 1e-6 * c.stiffness);
        assert_eq!(mem.tangent.state, RigidState::Rolling);
        // apart: no contact, the memory untouched
        let mut apart = StoneContact::default();
        let above = at(0.3, 0.2501, [0.0; 3], [0.0; 3]);
        assert!(touch(&m, &above, &flat, &mut apart, 1e-3).is_none());
        assert_eq!(apart, StoneContact::default());
    }

    /// A wheel spinning on the rock without moving: the rim slides backwards over the
    /// rock, so friction pushes the wheel forwards; with the compliance it holds for a
    /// while (rolling), then saturates at mu F_N (sliding); the regularized law gives
    /// mu F_N tanh(|v_t| / v_reg) at once. Approach speed raises the force (damping).
    #[test]
    fn a_spinning_wheel_is_pushed_forward_by_friction_up_to_mu_f_n() {
        let flat = rock();
        let delta: f64 = 4e-5;
        let spin = at(0.0, 0.25 - delta, [0.0; 3], [0.0, 0.2, 0.0]); // rim at -0.05 m/s in x
        let m = StoneModel::default();
        let mut mem = StoneContact::default();
        let at_spin = |m: &StoneModel, mem: &mut StoneContact, dt: f64| {
            touch(m, &spin, &flat, mem, dt).unwrap()
        };
        let first = at_spin(&m, &mut mem, 1e-4);
        assert_eq!(mem.tangent.state, RigidState::Rolling);
        assert!(first.force.x > 0.0 && first.force.x < m.mu * first.normal_force);
        for _ in 0..100 {
            at_spin(&m, &mut mem, 1e-3);
        }
        let slid = at_spin(&m, &mut mem, 1e-3);
        assert_eq!(mem.tangent.state, RigidState::Sliding);
        assert!((slid.force.x - m.mu * slid.normal_force).abs() < 1e-9 * slid.normal_force);
        assert!(slid.force.y.abs() < 1e-9);
        let reg = StoneModel {
            friction: StoneFriction::Regularized,
            ..m
        };
        let mut mem = StoneContact::default();
        let c = at_spin(&reg, &mut mem, 1e-3);
        let rim_speed = 0.2 * (0.25 - delta - c.point.z); // the contact point's lever
        let expect = reg.mu * c.normal_force * pmath::tanh(rim_speed / reg.v_reg);
        assert!((c.force.x - expect).abs() < 1e-9 * expect);
        assert_eq!(mem.tangent.state, RigidState::Sliding);
        // approaching at 0.1 m/s: more than the spring alone (Hunt-Crossley damping,
        // with the impact velocity remembered)
        let mut mem = StoneContact::default();
        let falling = at(0.0, 0.25 - delta, [0.0, 0.0, -0.1], [0.0; 3]);
        let c = touch(&m, &falling, &flat, &mut mem, 1e-3).unwrap();
        let d = hunt_crossley::damping(m.zeta, 0.1);
        let expect = m.k * pmath::powf(delta, 1.5) * (1.0 + d * 0.1);
        assert!((c.normal_force - expect).abs() < 1e-9 * expect, "{c:?}");
        assert!((mem.impact_velocity - 0.1).abs() < 1e-12);
    }

    /// Against a vertical rock face the normal is horizontal and the rolling direction
    /// vertical, so a wheel turning forward into the face is pushed back and up it
    /// (climbing).
    #[test]
    fn a_wheel_driving_into_a_rock_face_is_pushed_back_and_up() {
        let m = StoneModel::default();
        // a 0.3 m step: a cube whose face is at x = 0.5, its top at z = 0.3
        let step = Rock::Shape(SharedShape::cuboid(0.5, 0.5, 0.5));
        let sp = BodyPose {
            iso: Isometry3::from_parts(
                nalgebra::Translation3::new(1.0, 0.0, -0.2),
                UnitQuaternion::identity(),
            ),
            v: Vector3::zeros(),
            w: Vector3::zeros(),
        };
        // hub at height 0.25 (resting on the ground), rim 1 mm into the face
        let wheel_pose = at(0.5 - 0.25 + 1e-3, 0.25, [0.05, 0.0, 0.0], [0.0, 2.0, 0.0]);
        let mut mem = StoneContact::default();
        let c = touch(&m, &wheel_pose, &(step, sp), &mut mem, 1e-3).unwrap();
        eprintln!("{c:?}");
        assert!(c.normal.x < -0.99, "{c:?}");
        assert!(c.force.x < 0.0, "pushed back");
        assert!(c.force.z > 0.0, "friction lifts the wheel turning forward");
    }
}
