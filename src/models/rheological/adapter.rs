//! The rheological wheel's adapter: its constants as FMI parameters
//! (`rheological.*`, tunable) and the model as a force element on wheel bodies (see
//! [`crate::models::wheel::element`]).

use super::model::{self, RheologicalModel, Stiction};
use crate::cosim::model::{Declare, Frame, Model};
use crate::cosim::variables::Bounds;
use crate::models::bekker::adapter::{declare_soil, soil, SoilVrs};
use crate::models::wheel::element::{self, WheelSoil};
use crate::models::wheel::{WheelForces, WheelInput};

/// The rheological wheel as a [`WheelSoil`].
pub struct Rheological {
    soil: SoilVrs,
    /// load, zeta, stiction, t_i, t_d, v_stick, v_reg
    model: [usize; 7],
}

impl WheelSoil for Rheological {
    type State = Stiction;

    fn key(&self) -> &'static str {
        "rheological"
    }

    fn step(
        &self,
        w: &Frame,
        radius: f64,
        width: f64,
        state: &mut Stiction,
        input: &WheelInput,
        dt: f64,
    ) -> WheelForces {
        let v = |k: usize| w.real(self.model[k]);
        let m = RheologicalModel {
            load: v(0),
            zeta: v(1),
            stiction: v(2),
            t_i: v(3),
            t_d: v(4),
            v_stick: v(5),
            v_reg: v(6),
        };
        let g = w.gravity().norm();
        model::step(&soil(w, &self.soil), &m, radius, width, g, state, input, dt)
    }
}

/// Declares the rheological wheel when the scenario has a `rheological` section.
pub fn declare(d: &mut Declare) -> Option<Box<dyn Model>> {
    let r = d.scenario.rheological.as_ref()?;
    let t = &mut *d.table;
    let soil = declare_soil(t, "rheological", &r.soil);
    let m = &r.model;
    let name = |c: &str| format!("rheological.{c}");
    let at_least_one = Bounds {
        min: Some(1.0),
        max: None,
        positive: true,
    };
    let model = [
        t.tunable_real(
            name("load"),
            Some("N"),
            m.load,
            Bounds::POSITIVE,
            "nominal wheel load W_0: the ground spring is W_0 over Bekker's static sinkage under W_0",
        ),
        t.tunable_real(
            name("zeta"),
            Some("1"),
            m.zeta,
            Bounds::NON_NEGATIVE,
            "damping ratio of the ground for the nominal mass W_0/g",
        ),
        t.tunable_real(
            name("stiction"),
            Some("1"),
            m.stiction,
            at_least_one,
            "stiction force over the Mohr-Coulomb sliding force A c + F_n tan(phi)",
        ),
        t.tunable_real(
            name("t_i"),
            Some("s"),
            m.t_i,
            Bounds::POSITIVE,
            "integral time T_i of the stiction controller",
        ),
        t.tunable_real(
            name("t_d"),
            Some("s"),
            m.t_d,
            Bounds::NON_NEGATIVE,
            "derivative time T_d of the stiction controller",
        ),
        t.tunable_real(
            name("v_stick"),
            Some("m/s"),
            m.v_stick,
            Bounds::POSITIVE,
            "slip speed below which a sliding contact sticks again",
        ),
        t.tunable_real(
            name("v_reg"),
            Some("m/s"),
            m.v_reg,
            Bounds::POSITIVE,
            "hub speed below which the rolling resistance's direction is regularized",
        ),
    ];
    Some(element::declare(d, Rheological { soil, model }, &r.wheels))
}
