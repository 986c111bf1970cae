//! Leite 2010's wheel as one model over two grounds: a rigid surface (section 3.1,
//! [`super::compliance`]) and soft soil (section 3.3, [`super::soft`]), chosen by what
//! lies under the wheel's hub: a rigid region of the scenario, or else the model's
//! default ground. Rocks ([`super::stone`], section 3.2) act besides the ground. The
//! wheel's discrete state is one of Fig. 10's, as an Integer code: rigid 0-3, soft 4-8,
//! stone 9-12 (while a rock is near, its state shows).

use crate::pmath;
use super::compliance::{self, Compliance, RigidState, Tangent};
use super::soft::{self, Soft, SoftSetup, SoftState};
use super::stone::{Stones, STONE_CODE};
use crate::models::wheel::{WheelForces, WheelInput};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Constants of the rigid-surface compliance (scenario `leite.rigid`; section 3.1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RigidModel {
    /// Normal stiffness k_N, N/m^e.
    pub k_n: f64,
    /// Normal damping d_N, N s/m^(e+1) (Hunt-Crossley: the damping grows with the
    /// penetration).
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

impl Default for RigidModel {
    fn default() -> Self {
        RigidModel {
            k_n: 1e6,
            d_n: 5e6,
            e: 1.0,
            k_t: 1e5,
            d_t: 1e3,
            mu: 0.6,
        }
    }
}

impl RigidModel {
    /// The compliance of [`super::compliance`].
    pub fn compliance(&self) -> Compliance {
        Compliance {
            k_n: self.k_n,
            d_n: self.d_n,
            e: self.e,
            k_t: self.k_t,
            d_t: self.d_t,
            mu: self.mu,
        }
    }
}

/// The ground under a wheel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Ground {
    /// A rigid surface (section 3.1).
    Rigid,
    /// Soft soil with the section's Bekker constants (section 3.3).
    #[default]
    Soft,
}

impl Ground {
    /// The FMI Integer code of `leite.ground`: 0 rigid, 1 soft.
    pub fn code(self) -> i32 {
        match self {
            Ground::Rigid => 0,
            Ground::Soft => 1,
        }
    }
}

/// A rectangle of the terrain (world x and y, m) where the ground is rigid: a rock
/// plate, a bedrock outcrop, a lander's ramp.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RigidRegion {
    /// [x_min, x_max], m.
    pub x: [f64; 2],
    /// [y_min, y_max], m.
    pub y: [f64; 2],
}

impl RigidRegion {
    /// The hub at (x, y) is over the region (edges included).
    pub fn contains(&self, p: [f64; 2]) -> bool {
        (self.x[0]..=self.x[1]).contains(&p[0]) && (self.y[0]..=self.y[1]).contains(&p[1])
    }
}

/// The state of one wheel (part of the FMU state): both grounds' compliances (the one
/// not under the wheel rests) and the rock contacts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LeiteState {
    /// The rigid-surface compliance.
    pub rigid: Tangent,
    /// The soft-soil compliance and mode.
    pub soft: Soft,
    /// The wheel is on the rigid ground (else on soft soil).
    pub on_rigid: bool,
    /// The contacts with rocks (section 3.2).
    pub stones: Stones,
}

impl LeiteState {
    /// The wheel's discrete state as Fig. 10's Integer code (rigid 0-3, soft 4-8, stone
    /// 9-12: the stone meta-state wins while a rock is near).
    pub fn code(&self) -> i32 {
        if let Some(c) = self.stones.code() {
            c
        } else if self.on_rigid {
            self.rigid.state as i32
        } else {
            self.soft.state as i32
        }
    }
}

/// Forces of the rigid surface on a wheel of radius `r` at `input` (section 3.1): the
/// penalty normal force on the penetration, and the tangential compliance on the
/// contact point's slip velocity (v - omega r along the forward direction, the hub's
/// lateral velocity along the axle).
pub fn rigid_forces(
    c: &Compliance,
    r: f64,
    state: &mut Tangent,
    input: &WheelInput,
    dt: f64,
) -> WheelForces {
    let z = input.z;
    let touching = z > 0.0;
    let normal = compliance::normal_force(c, z, input.z_rate);
    let v_t = [
        input.forward_velocity - input.omega * r,
        input.lateral_velocity,
    ];
    let f = compliance::tangential(c, state, touching, normal, v_t, dt);
    if touching && state.state == RigidState::NoContact {
        state.state = RigidState::Contact;
    }
    let pressing = normal > 0.0;
    let ze = if c.e == 1.0 {
        1.0
    } else {
        pmath::powf(z.max(0.0), c.e - 1.0)
    };
    WheelForces {
        normal,
        tangential: f[0],
        torque: -r * f[0],
        stiffness: if pressing { c.e * c.k_n * ze } else { 0.0 },
        damping: if pressing { c.d_n * ze * z } else { 0.0 },
        in_contact: touching,
        lateral: f[1],
    }
}

/// Forces on the wheel at `input` over `ground` (after the rigid regions), advancing
/// `state` by `dt`: the ground's model, and the other ground's state reset when the
/// wheel changes ground.
pub fn forces(
    ground: Ground,
    rigid: &Compliance,
    soft_setup: &SoftSetup,
    r: f64,
    b: f64,
    state: &mut LeiteState,
    input: &WheelInput,
    dt: f64,
) -> WheelForces {
    let on_rigid = ground == Ground::Rigid;
    if on_rigid != state.on_rigid {
        *state = LeiteState {
            on_rigid,
            stones: state.stones,
            ..Default::default()
        };
    }
    if on_rigid {
        rigid_forces(rigid, r, &mut state.rigid, input, dt)
    } else {
        soft::forces(soft_setup, r, b, &mut state.soft, input, dt)
    }
}

/// Every code `<body>.contact_state` can take, with its meaning (Fig. 10).
pub const STATE_CODES: [(i32, &str); 13] = [
    (RigidState::NoContact as i32, "rigid: no contact"),
    (RigidState::Contact as i32, "rigid: contact"),
    (RigidState::Rolling as i32, "rigid: rolling"),
    (RigidState::Sliding as i32, "rigid: sliding"),
    (SoftState::NoContact as i32, "soft: no contact"),
    (SoftState::Contact as i32, "soft: contact"),
    (SoftState::Stuck as i32, "soft: stuck/roll"),
    (SoftState::Accelerating as i32, "soft: slip accelerate"),
    (SoftState::Braking as i32, "soft: slip brake"),
    (STONE_CODE, "stone: no collision (a rock within the margin)"),
    (STONE_CODE + RigidState::Contact as i32, "stone: collision"),
    (STONE_CODE + RigidState::Rolling as i32, "stone: rolling"),
    (STONE_CODE + RigidState::Sliding as i32, "stone: sliding"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::bekker::BekkerSoil;
    use crate::models::leite::shape::StressShape;
    use crate::models::leite::soft::{SideMesh, SoftModel};

    /// A wheel resting on the rigid plate, then driven: rolling while the rim and the
    /// hub move together, sliding when the rim spins faster than mu F_N allows; moved
    /// onto soft soil its state becomes a soft one and the rigid compliance rests.
    #[test]
    fn the_wheel_switches_between_the_rigid_and_the_soft_ground() {
        let rigid = RigidModel::default().compliance();
        let (s, m, shape, mesh) = (
            BekkerSoil::default(),
            SoftModel::default(),
            StressShape::default(),
            SideMesh::default(),
        );
        let setup = SoftSetup {
            soil: &s,
            model: &m,
            shape: &shape,
            mesh: &mesh,
            slices: 10,
            g: 9.81,
        };
        let mut st = LeiteState::default();
        let input = |z: f64, omega: f64, v: f64| WheelInput {
            z,
            omega,
            forward_velocity: v,
            ..Default::default()
        };
        let f = forces(
            Ground::Rigid,
            &rigid,
            &setup,
            0.25,
            0.2,
            &mut st,
            &input(2e-4, 0.4, 0.1),
            1e-3,
        );
        assert_eq!(st.code(), RigidState::Rolling as i32);
        assert!((f.normal - 200.0).abs() < 1e-9);
        for _ in 0..100 {
            forces(
                Ground::Rigid,
                &rigid,
                &setup,
                0.25,
                0.2,
                &mut st,
                &input(2e-4, 2.0, 0.1),
                1e-3,
            );
        }
        assert_eq!(st.code(), RigidState::Sliding as i32);
        let f = forces(
            Ground::Soft,
            &rigid,
            &setup,
            0.25,
            0.2,
            &mut st,
            &input(0.02, 0.6, 0.1),
            1e-3,
        );
        assert_eq!(st.code(), SoftState::Accelerating as i32);
        assert_eq!(st.rigid, Tangent::default());
        assert!(f.normal > 0.0 && f.tangential.is_finite());
        assert_eq!(
            STATE_CODES.iter().map(|c| c.0).collect::<Vec<_>>(),
            (0..13).collect::<Vec<_>>()
        );
    }
}
