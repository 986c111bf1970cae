//! The Bekker wheels' adapter: their constants as FMI parameters (`bekker.*`,
//! `bjh.*`, tunable) and the models as force elements on wheel bodies (see
//! [`crate::models::wheel::element`]).

use super::{bjh, pure, BekkerModel, BekkerSoil, BjhModel};
use crate::cosim::model::{Declare, Frame, Model};
use crate::cosim::variables::{Bounds, Variability, VariableTable};
use crate::models::quadrature::GaussLegendre;
use crate::models::wheel::element::{self, WheelSoil};
use crate::models::wheel::{WheelForces, WheelInput};

/// Value references of the soil constants `<key>.n`, `.kc`, `.kphi`, `.c`, `.phi`,
/// `.k_shear`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SoilVrs {
    n: usize,
    kc: usize,
    kphi: usize,
    c: usize,
    phi: usize,
    k_shear: usize,
}

/// Declares the soil constants of section `key` as tunable parameters.
pub(crate) fn declare_soil(t: &mut VariableTable, key: &str, s: &BekkerSoil) -> SoilVrs {
    let name = |c: &str| format!("{key}.{c}");
    SoilVrs {
        n: t.tunable_real(
            name("n"),
            Some("1"),
            s.n,
            Bounds {
                min: Some(0.0),
                max: Some(3.0),
                positive: true,
            },
            "exponent of sinkage n (Bekker; Wong 2008, ch. 2)",
        ),
        // the units of k_c and k_phi depend on n: no fixed SI unit to declare
        kc: t.tunable_real(
            name("kc"),
            None,
            s.kc,
            Bounds::ANY,
            "cohesive modulus k_c, N/m^(n+1) (may be negative; k_c/b + k_phi > 0)",
        ),
        kphi: t.tunable_real(
            name("kphi"),
            None,
            s.kphi,
            Bounds::ANY,
            "frictional modulus k_phi, N/m^(n+2)",
        ),
        c: t.tunable_real(
            name("c"),
            Some("Pa"),
            s.c,
            Bounds::NON_NEGATIVE,
            "soil cohesion c",
        ),
        phi: t.tunable_real(
            name("phi"),
            Some("rad"),
            s.phi,
            Bounds {
                min: Some(0.0),
                max: Some(std::f64::consts::FRAC_PI_2),
                positive: false,
            },
            "angle of internal friction phi",
        ),
        k_shear: t.tunable_real(
            name("k_shear"),
            Some("m"),
            s.k_shear,
            Bounds::POSITIVE,
            "Janosi-Hanamoto shear deformation modulus K",
        ),
    }
}

/// The soil constants' current values.
pub(crate) fn soil(w: &Frame, v: &SoilVrs) -> BekkerSoil {
    BekkerSoil {
        n: w.real(v.n),
        kc: w.real(v.kc),
        kphi: w.real(v.kphi),
        c: w.real(v.c),
        phi: w.real(v.phi),
        k_shear: w.real(v.k_shear),
    }
}

/// `<key>.damping` and `<key>.v_reg`.
fn declare_damping(t: &mut VariableTable, key: &str, damping: f64, v_reg: f64) -> [usize; 2] {
    [
        t.tunable_real(
            format!("{key}.damping"),
            Some("Pa.s/m"),
            damping,
            Bounds::NON_NEGATIVE,
            "soil damping: pressure per sinkage rate over the contact patch",
        ),
        t.tunable_real(
            format!("{key}.v_reg"),
            Some("m/s"),
            v_reg,
            Bounds::POSITIVE,
            "speed below which the shear displacement is regularized",
        ),
    ]
}

/// The pure Bekker wheel as a [`WheelSoil`].
pub struct PureBekker {
    soil: SoilVrs,
    /// damping, v_reg
    model: [usize; 2],
}

impl WheelSoil for PureBekker {
    type State = ();

    fn key(&self) -> &'static str {
        "bekker"
    }

    fn step(
        &self,
        w: &Frame,
        radius: f64,
        width: f64,
        _: &mut (),
        input: &WheelInput,
        _dt: f64,
    ) -> WheelForces {
        let m = BekkerModel {
            damping: w.real(self.model[0]),
            v_reg: w.real(self.model[1]),
        };
        pure::forces(&soil(w, &self.soil), &m, radius, width, input)
    }
}

/// Declares the pure Bekker wheel when the scenario has a `bekker` section.
pub fn declare_bekker(d: &mut Declare) -> Option<Box<dyn Model>> {
    let b = d.scenario.bekker.as_ref()?;
    let soil = declare_soil(d.table, "bekker", &b.soil);
    let model = declare_damping(d.table, "bekker", b.model.damping, b.model.v_reg);
    Some(element::declare(d, PureBekker { soil, model }, &b.wheels))
}

/// The Bekker-Janosi-Hanamoto wheel as a [`WheelSoil`].
pub struct Bjh {
    soil: SoilVrs,
    /// c1, c2, rebound
    arc: [usize; 3],
    /// damping, v_reg
    model: [usize; 2],
    /// `bjh.points` (Integer, fixed).
    points: usize,
    /// The rule for the current `bjh.points`.
    rule: GaussLegendre,
}

impl WheelSoil for Bjh {
    type State = ();

    fn key(&self) -> &'static str {
        "bjh"
    }

    fn build(&mut self, w: &Frame) -> Result<(), crate::cosim::WorldError> {
        let n = w.integer(self.points).clamp(1, 64) as usize;
        if self.rule.nodes.len() != n {
            self.rule = GaussLegendre::new(n);
        }
        Ok(())
    }

    fn step(
        &self,
        w: &Frame,
        radius: f64,
        width: f64,
        _: &mut (),
        input: &WheelInput,
        _dt: f64,
    ) -> WheelForces {
        let m = BjhModel {
            c1: w.real(self.arc[0]),
            c2: w.real(self.arc[1]),
            rebound: w.real(self.arc[2]),
            points: self.rule.nodes.len() as u32,
            damping: w.real(self.model[0]),
            v_reg: w.real(self.model[1]),
        };
        bjh::forces(&soil(w, &self.soil), &m, radius, width, &self.rule, input)
    }
}

/// Declares the Bekker-Janosi-Hanamoto wheel when the scenario has a `bjh` section.
pub fn declare_bjh(d: &mut Declare) -> Option<Box<dyn Model>> {
    let b = d.scenario.bjh.as_ref()?;
    let t = &mut *d.table;
    let soil = declare_soil(t, "bjh", &b.soil);
    let m = &b.model;
    let unit = Bounds {
        min: Some(0.0),
        max: Some(1.0),
        positive: false,
    };
    let arc = [
        t.tunable_real(
            "bjh.c1",
            Some("1"),
            m.c1,
            unit,
            "c_1 of the angle of maximum stress theta_m = (c_1 + c_2 i) theta_1 (Wong 2008, ch. 2)",
        ),
        t.tunable_real(
            "bjh.c2",
            Some("1"),
            m.c2,
            unit,
            "c_2 of theta_m = (c_1 + c_2 i) theta_1",
        ),
        t.tunable_real(
            "bjh.rebound",
            Some("1"),
            m.rebound,
            unit,
            "exit angle theta_2 = -rebound theta_1",
        ),
    ];
    let model = declare_damping(t, "bjh", m.damping, m.v_reg);
    let points = t.integer_parameter(
        "bjh.points",
        Variability::Fixed,
        m.points as i32,
        Bounds {
            min: Some(1.0),
            max: Some(64.0),
            positive: false,
        },
        "Gauss-Legendre points on each of the arcs behind and in front of theta_m",
    );
    let model = Bjh {
        soil,
        arc,
        model,
        points,
        rule: GaussLegendre::new(m.points.clamp(1, 64) as usize),
    };
    Some(element::declare(d, model, &b.wheels))
}
