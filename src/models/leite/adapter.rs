//! Leite's wheel's adapter: its constants as FMI parameters (`leite.*`; the
//! resolution fixed, the rest tunable), the model as a force element on wheel bodies
//! (see [`crate::models::wheel::element`]) with the discrete state of Fig. 10 as the
//! Integer output `<body>.contact_state`.

use super::model::{self, Ground, LeiteState, RigidModel, RigidRegion};
use super::shape::StressShape;
use super::soft::{SideMesh, SoftModel, SoftSetup};
use crate::cosim::model::{Declare, Frame, Model};
use crate::cosim::variables::{Bounds, Variability, VariableTable};
use crate::models::bekker::adapter::{declare_soil, soil, SoilVrs};
use crate::models::wheel::element::{self, WheelSoil};
use crate::models::wheel::{WheelForces, WheelInput};

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
}

impl WheelSoil for Leite {
    type State = LeiteState;

    fn key(&self) -> &'static str {
        "leite"
    }

    fn state_output(&self) -> Option<&'static str> {
        Some(
            "discrete contact state (Leite 2010, Fig. 10): 0-3 rigid no contact/contact/rolling/sliding, \
             4-8 soft no contact/contact/stuck/slip accelerate/slip brake",
        )
    }

    fn state_code(&self, s: &LeiteState) -> i32 {
        s.code()
    }

    fn lateral(&self) -> bool {
        true
    }

    fn build(&mut self, w: &Frame) {
        let int = |k: usize| w.integer(self.resolution[k]).max(0) as u32;
        let control = self.control.map(|[u, h]| [w.real(u), w.real(h)]);
        self.slices = int(0).clamp(1, 100) as usize;
        self.shape = StressShape::new(&control, int(2).min(10), int(1).clamp(1, 32) as usize);
        self.mesh = SideMesh::disc(int(3).clamp(1, 64) as usize, int(4).clamp(3, 512) as usize);
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
    let model = Leite {
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
