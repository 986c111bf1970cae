//! Leite's wheel's adapter: its constants as FMI parameters (`leite.*`; the
//! resolution fixed, the rest tunable), the model as a force element on wheel bodies
//! (see [`crate::models::wheel::element`]) with the discrete state of Fig. 10 as the
//! Integer output `<body>.contact_state`; with rocks (`leite.rocks`), the wheel-rock
//! contact of section 3.2 on those bodies (`leite.stone.*`).

use super::model::{self, Ground, LeiteState, RigidModel, RigidRegion};
use super::rock::{HullSupport, Rock, Workspace};
use super::shape::StressShape;
use super::soft::{SideMesh, SoftModel, SoftSetup};
use super::stone::{self, StoneContact, StoneFriction, StoneModel, Stones, MAX_STONES};
use crate::cosim::model::{Declare, Frame, Model};
use crate::cosim::variables::{Bounds, Variability, VariableTable};
use crate::cosim::WorldError;
use crate::models::bekker::adapter::{declare_soil, soil, SoilVrs};
use crate::models::wheel::element::{self, WheelSoil};
use crate::models::wheel::{WheelForces, WheelInput};
use parry3d_f64::bounding_volume::BoundingVolume;
use parry3d_f64::shape::{Cylinder, Shape};

/// Value references of the wheel-rock contact's parameters (`leite.stone.*`).
#[derive(Debug, Clone, Copy)]
struct StoneVrs {
    /// k, zeta, impact_velocity_min, k_t, d_t, mu, v_reg, margin
    reals: [usize; 8],
    /// friction (Integer)
    friction: usize,
}

/// Leite's wheel as a [`WheelSoil`].
pub struct Leite {
    soil: SoilVrs,
    /// `leite.ground` (Integer, tunable).
    ground: usize,
    regions: Vec<RigidRegion>,
    /// k_n, d_n, e, k_t, d_t, mu
    rigid: [usize; 6],
    /// c1, c2, rebound, k_y, density, k_l, k_r, v_stuck, stuck_stiffness,
    /// stuck_damping, damping, v_reg
    soft: [usize; 12],
    /// slices, points, chaikin_iterations, side_rings, side_sectors (Integer, fixed)
    resolution: [usize; 5],
    /// control_u[1..4], control_h[1..4] (fixed)
    control: [[usize; 2]; 4],
    /// Built from the fixed parameters.
    shape: StressShape,
    mesh: SideMesh,
    slices: usize,
    /// The rock bodies (`leite.rocks`, collections expanded; sorted).
    rock_bodies: Vec<usize>,
    /// Their convex shapes, built at initialization.
    rocks: Vec<(usize, Rock)>,
    stone: Option<StoneVrs>,
    /// The penetration query's buffers (no allocation per step).
    workspace: std::sync::Mutex<Workspace>,
}

impl Leite {
    /// The wheel-rock constants from the current parameter values.
    fn stone_model(&self, w: &Frame, vrs: &StoneVrs) -> StoneModel {
        let [k, zeta, impact_velocity_min, k_t, d_t, mu, v_reg, margin] =
            vrs.reals.map(|vr| w.real(vr));
        StoneModel {
            k,
            zeta,
            impact_velocity_min,
            k_t,
            d_t,
            mu,
            friction: StoneFriction::from_code(w.integer(vrs.friction)),
            v_reg,
            margin,
        }
    }
}

impl WheelSoil for Leite {
    type State = LeiteState;

    fn key(&self) -> &'static str {
        "leite"
    }

    fn state_output(&self) -> Option<&'static str> {
        Some(
            "discrete contact state (Leite 2010, Fig. 10): 0-3 rigid no contact/contact/rolling/sliding, \
             4-8 soft no contact/contact/stuck/slip accelerate/slip brake, \
             9-12 stone no collision/collision/rolling/sliding (while a rock is near)",
        )
    }

    fn state_code(&self, s: &LeiteState) -> i32 {
        s.code()
    }

    fn lateral(&self) -> bool {
        true
    }

    fn build(&mut self, w: &Frame) -> Result<(), WorldError> {
        self.rocks.clear();
        for &b in &self.rock_bodies {
            let name = &w.bodies[b].name;
            let geometry = w
                .body_geometry(b)
                .map_err(|e| WorldError::Asset(format!("leite.rocks: body '{name}': {e}")))?
                .ok_or_else(|| {
                    WorldError::Asset(format!("leite.rocks: body '{name}' has no convex shape"))
                })?;
            let shape = crate::geometry::shape::build(&geometry)
                .map_err(|e| WorldError::Asset(format!("leite.rocks: body '{name}': {e}")))?;
            let rock = match &geometry {
                crate::geometry::shape::Geometry::Hull { points } => {
                    HullSupport::new(points).map_or(Rock::Shape(shape), Rock::Hull)
                }
                _ => Rock::Shape(shape),
            };
            self.rocks.push((b, rock));
        }
        let int = |k: usize| w.integer(self.resolution[k]).max(0) as u32;
        let control = self.control.map(|[u, h]| [w.real(u), w.real(h)]);
        self.slices = int(0).clamp(1, 100) as usize;
        self.shape = StressShape::new(&control, int(2).min(10), int(1).clamp(1, 32) as usize);
        self.mesh = SideMesh::disc(int(3).clamp(1, 64) as usize, int(4).clamp(3, 512) as usize);
        Ok(())
    }

    /// Section 3.2: the wheel (a cylinder about its axle) against each rock whose box
    /// comes within the margin of the wheel's; the contacts' memories kept in the order
    /// of the rock list, at most [`MAX_STONES`].
    fn obstacles(
        &self,
        w: &mut Frame,
        wheel: usize,
        radius: f64,
        width: f64,
        state: &mut LeiteState,
        dt: f64,
    ) {
        let Some(vrs) = &self.stone else {
            return;
        };
        let m = self.stone_model(w, vrs);
        let pose = w.pose_of(wheel);
        let cylinder = Cylinder::new(0.5 * width, radius);
        let reach = cylinder.compute_aabb(&pose.iso).loosened(m.margin.max(0.0));
        let old = state.stones;
        let mut new = Stones::default();
        let mut used = 0;
        let mut ws = self
            .workspace
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        for (k, (body, rock)) in self.rocks.iter().enumerate() {
            let rock_pose = w.pose_of(*body);
            if !rock.aabb(&rock_pose.iso).intersects(&reach) {
                continue;
            }
            new.near = true;
            let id = k as u32 + 1;
            let mut memory = old
                .contacts
                .iter()
                .find(|c| c.rock == id)
                .copied()
                .unwrap_or_default();
            let Some(c) = stone::contact(
                &m,
                &cylinder,
                &pose,
                rock,
                &rock_pose,
                &mut memory,
                &mut ws,
                dt,
            ) else {
                continue;
            };
            if used < MAX_STONES {
                new.contacts[used] = StoneContact { rock: id, ..memory };
                used += 1;
            }
            let on_wheel = &mut w.loads[wheel];
            on_wheel.force += c.force;
            on_wheel.torque += (c.point - pose.iso.translation.vector).cross(&c.force);
            on_wheel.depth = on_wheel.depth.max(c.depth);
            on_wheel.in_contact = true;
            // the rig's implicit step: the penetration grows at -n . (v_hub - v_rock)
            // at v_z = 0 (the wheel's spin does not change it)
            let n = c.normal;
            let mut v = pose.v - rock_pose.velocity_at(&c.point);
            v.z -= pose.v.z;
            let o = &mut on_wheel.obstacles;
            o.k_zz += c.stiffness * n.z * n.z;
            o.c_zz += c.damping * n.z * n.z;
            o.f_rate += c.stiffness * n.z * -n.dot(&v);
            let on_rock = &mut w.loads[*body];
            on_rock.force -= c.force;
            on_rock.torque -= (c.point - rock_pose.iso.translation.vector).cross(&c.force);
            on_rock.depth = on_rock.depth.max(c.depth);
            on_rock.in_contact = true;
        }
        state.stones = new;
    }

    fn step(
        &self,
        w: &Frame,
        radius: f64,
        width: f64,
        state: &mut LeiteState,
        input: &WheelInput,
        dt: f64,
    ) -> WheelForces {
        let v = |vr: usize| w.real(vr);
        let r = &self.rigid;
        let rigid = RigidModel {
            k_n: v(r[0]),
            d_n: v(r[1]),
            e: v(r[2]),
            k_t: v(r[3]),
            d_t: v(r[4]),
            mu: v(r[5]),
        }
        .compliance();
        let s = &self.soft;
        let soft = SoftModel {
            c1: v(s[0]),
            c2: v(s[1]),
            rebound: v(s[2]),
            k_y: v(s[3]),
            density: v(s[4]),
            k_l: v(s[5]),
            k_r: v(s[6]),
            v_stuck: v(s[7]),
            stuck_stiffness: v(s[8]),
            stuck_damping: v(s[9]),
            damping: v(s[10]),
            v_reg: v(s[11]),
        };
        let soil = soil(w, &self.soil);
        let setup = SoftSetup {
            soil: &soil,
            model: &soft,
            shape: &self.shape,
            mesh: &self.mesh,
            slices: self.slices,
            g: w.gravity().norm(),
        };
        let ground = if self.regions.iter().any(|g| g.contains(input.position))
            || w.integer(self.ground) == 0
        {
            Ground::Rigid
        } else {
            Ground::Soft
        };
        model::forces(ground, &rigid, &setup, radius, width, state, input, dt)
    }
}

/// Adds tunable Reals `<prefix>.<name>` and returns their value references.
fn tunables<const N: usize>(
    t: &mut VariableTable,
    prefix: &str,
    vars: [(&str, Option<&'static str>, f64, Bounds, &str); N],
) -> [usize; N] {
    vars.map(|(name, unit, start, bounds, what)| {
        t.tunable_real(format!("{prefix}.{name}"), unit, start, bounds, what)
    })
}

/// Declares Leite's wheel when the scenario has a `leite` section.
pub fn declare(d: &mut Declare) -> Option<Box<dyn Model>> {
    let l = d.scenario.leite.as_ref()?;
    let t = &mut *d.table;
    let soil = declare_soil(t, "leite", &l.soil);
    let ground = t.integer_parameter(
        "leite.ground",
        Variability::Tunable,
        l.ground.code(),
        Bounds {
            min: Some(0.0),
            max: Some(1.0),
            positive: false,
        },
        "ground outside the rigid regions: 0 rigid surface (Leite 2010, section 3.1), 1 soft soil (section 3.3)",
    );
    let (pos, nn) = (Bounds::POSITIVE, Bounds::NON_NEGATIVE);
    let unit = Bounds {
        min: Some(0.0),
        max: Some(1.0),
        positive: false,
    };
    let r = &l.rigid;
    let rigid = tunables(
        t,
        "leite.rigid",
        [
            (
                "k_n",
                None,
                r.k_n,
                pos,
                "normal stiffness k_N of the rigid surface, N/m^e (eq. (3.1))",
            ),
            (
                "d_n",
                None,
                r.d_n,
                nn,
                "normal damping d_N, N s/m^(e+1): F_N = delta^e (k_N + d_N d(delta)/dt)",
            ),
            (
                "e",
                Some("1"),
                r.e,
                Bounds {
                    min: Some(1.0),
                    max: Some(3.0),
                    positive: true,
                },
                "exponent e of the penetration (1 linear, 1.5 Hertz)",
            ),
            (
                "k_t",
                Some("N/m"),
                r.k_t,
                pos,
                "tangential stiffness k_T of the 2D compliance (eq. (3.2))",
            ),
            ("d_t", Some("N.s/m"), r.d_t, nn, "tangential damping d_T"),
            (
                "mu",
                Some("1"),
                r.mu,
                nn,
                "Coulomb friction coefficient: the compliance's force stays within mu F_N",
            ),
        ],
    );
    let m = &l.soft;
    let soft = tunables(
        t,
        "leite.soft",
        [
            (
                "c1",
                Some("1"),
                m.c1,
                unit,
                "c_1: theta_m = theta_2 + (c_1 + c_2 s)(theta_1 - theta_2)",
            ),
            ("c2", Some("1"), m.c2, unit, "c_2 of theta_m (s the slip)"),
            (
                "rebound",
                Some("1"),
                m.rebound,
                unit,
                "exit angle theta_2 = -rebound theta_1",
            ),
            (
                "k_y",
                Some("m"),
                m.k_y,
                pos,
                "lateral shear deformation modulus k_y (eq. (3.12))",
            ),
            (
                "density",
                Some("kg/m3"),
                m.density,
                pos,
                "soil bulk density for the passive pressure of the bulldozing (eq. (3.8)-(3.9))",
            ),
            (
                "k_l",
                Some("Pa"),
                m.k_l,
                nn,
                "lateral drag constant k_l: F_l = k_l A_s (eq. (3.10))",
            ),
            (
                "k_r",
                Some("m/s"),
                m.k_r,
                pos,
                "velocity constant k_r: resistances grow as 1 - exp(-|v|/k_r) (eq. (3.13))",
            ),
            (
                "v_stuck",
                Some("m/s"),
                m.v_stuck,
                pos,
                "hub and rim speeds below which the wheel is stuck (slip indeterminate)",
            ),
            (
                "stuck_stiffness",
                Some("N/m"),
                m.stuck_stiffness,
                pos,
                "stiffness of the compliance holding a stuck wheel",
            ),
            (
                "stuck_damping",
                Some("N.s/m"),
                m.stuck_damping,
                nn,
                "damping of that compliance",
            ),
            (
                "damping",
                Some("Pa.s/m"),
                m.damping,
                nn,
                "soil damping: pressure per sinkage rate over the contact patch",
            ),
            (
                "v_reg",
                Some("m/s"),
                m.v_reg,
                pos,
                "speed below which the shear displacements are regularized",
            ),
        ],
    );
    let res = &l.discretization;
    let int = |t: &mut VariableTable, name: &str, v: u32, lo: f64, hi: f64, what: &str| {
        t.integer_parameter(
            format!("leite.{name}"),
            Variability::Fixed,
            v as i32,
            Bounds {
                min: Some(lo),
                max: Some(hi),
                positive: false,
            },
            what,
        )
    };
    let resolution = [
        int(
            t,
            "slices",
            res.slices,
            1.0,
            100.0,
            "lateral slices of the wheel (Leite 2010, Fig. 7)",
        ),
        int(
            t,
            "points",
            res.points,
            1.0,
            32.0,
            "Gauss-Legendre points on each half of a slice's contact arc",
        ),
        int(
            t,
            "chaikin_iterations",
            res.chaikin_iterations,
            0.0,
            10.0,
            "rounds of Chaikin's corner cutting of the stress shape (Fig. 8)",
        ),
        int(
            t,
            "side_rings",
            res.side_rings,
            1.0,
            64.0,
            "rings of the wheel sides' triangle mesh (Fig. 9)",
        ),
        int(
            t,
            "side_sectors",
            res.side_sectors,
            3.0,
            512.0,
            "sectors of the wheel sides' triangle mesh",
        ),
    ];
    let control = std::array::from_fn(|i| {
        let q = res.control_points[i];
        [
            t.real_parameter(
                format!("leite.control_u[{}]", i + 1),
                Variability::Fixed,
                "1",
                q[0],
                unit,
                "stress shape control point: position on the arc (0 exit, 1/2 maximum, 1 entry)",
            ),
            t.real_parameter(
                format!("leite.control_h[{}]", i + 1),
                Variability::Fixed,
                "1",
                q[1],
                nn,
                "stress shape control point: height over the Bekker pressure at theta_m",
            ),
        ]
    });
    let mut rock_bodies: Vec<usize> = l.rocks.iter().flat_map(|n| d.scenario.members(n)).collect();
    rock_bodies.sort_unstable();
    rock_bodies.dedup();
    let stone = (!rock_bodies.is_empty()).then(|| declare_stone(t, &l.stone));
    let model = Leite {
        rock_bodies,
        rocks: vec![],
        stone,
        workspace: Default::default(),
        soil,
        ground,
        regions: l.rigid_regions.clone(),
        rigid,
        soft,
        resolution,
        control,
        shape: StressShape::new(
            &res.control_points,
            res.chaikin_iterations,
            res.points as usize,
        ),
        mesh: SideMesh::disc(res.side_rings as usize, res.side_sectors as usize),
        slices: res.slices.max(1) as usize,
    };
    Some(element::declare(d, model, &l.wheels))
}

/// The wheel-rock contact's parameters `leite.stone.*` (section 3.2), all tunable.
fn declare_stone(t: &mut VariableTable, m: &StoneModel) -> StoneVrs {
    let (pos, nn) = (Bounds::POSITIVE, Bounds::NON_NEGATIVE);
    let reals = tunables(
        t,
        "leite.stone",
        [
            (
                "k",
                None,
                m.k,
                pos,
                "Hunt-Crossley stiffness k of wheel on rock, N/m^1.5: F_N = k delta^1.5 (1 + d d(delta)/dt) (Leite 2010, section 3.2; Buse 2023 eq. (1))",
            ),
            (
                "zeta",
                Some("1"),
                m.zeta,
                Bounds {
                    min: Some(0.0),
                    max: Some(1.0),
                    positive: true,
                },
                "coefficient of restitution: d = 8/5 (1 - zeta)/(zeta v_impact) (Buse 2023 eq. (2))",
            ),
            (
                "impact_velocity_min",
                Some("m/s"),
                m.impact_velocity_min,
                pos,
                "floor of the impact velocity in the damping",
            ),
            (
                "k_t",
                Some("N/m"),
                m.k_t,
                pos,
                "tangential stiffness k_T of the compliance on rocks",
            ),
            ("d_t", Some("N.s/m"), m.d_t, nn, "tangential damping d_T on rocks"),
            (
                "mu",
                Some("1"),
                m.mu,
                nn,
                "Coulomb friction coefficient of wheel on rock",
            ),
            (
                "v_reg",
                Some("m/s"),
                m.v_reg,
                pos,
                "velocity scale of the regularized friction: mu F_N tanh(|v_t|/v_reg)",
            ),
            (
                "margin",
                Some("m"),
                m.margin,
                nn,
                "a rock whose bounding box comes this close to the wheel's puts the wheel in the stone state (9: no collision)",
            ),
        ],
    );
    let friction = t.integer_parameter(
        "leite.stone.friction",
        Variability::Tunable,
        m.friction.code(),
        Bounds {
            min: Some(0.0),
            max: Some(1.0),
            positive: false,
        },
        "tangential law on rocks: 0 the compliance of section 3.1 (Coulomb with rolling held), 1 regularized Coulomb",
    );
    StoneVrs { reals, friction }
}
