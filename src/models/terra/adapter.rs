//! TerRA's adapter: force-element wheels (`terra.wheels`) as the world calls them
//! (see [`crate::cosim::model`]); the rig's TerRA wheel reuses its parameters and
//! outputs ([`TerraVrs::find`], [`wheel_soil_outputs`], [`write_wheel_soil`]).

use super::{TerraInput, TerraModel, TerraOutput, TerraParams, TerraRates, TerraSoil, TerraState};
use crate::cosim::references::ShapeVrs;
use crate::cosim::model::{self, BodyMotion, Declare, Frame, Model, ModelState};
use crate::cosim::variables::{
    Bounds, Causality, Initial, Start, VarType, Variability, Variable, VariableTable,
};
use crate::cosim::WorldError;
use crate::models::wheel::{contact, WheelGeometry};
use crate::scenario::types::TerraSettings;
use nalgebra::Vector3;
use std::any::Any;
use Variability::Tunable;

/// Outputs of a wheel-soil model (TerRA), shared by force-element wheels and the rig.
#[derive(Debug, Clone, Copy)]
pub struct WheelSoilVrs {
    pub sinkage: usize,
    pub z_eff: usize,
    pub z_s: usize,
    pub z_peak: usize,
    pub slip: usize,
    pub j_m: usize,
    pub f_n: usize,
    pub f_t: usize,
}

/// TerRA constants (`terra.*`, `soil.*`).
#[derive(Debug, Clone, Copy)]
pub struct TerraVrs {
    pub k_c: usize,
    pub k_exp: usize,
    pub k_d: usize,
    pub k_el: usize,
    pub k_s0: usize,
    pub k_s_exp: usize,
    pub k_s_max: usize,
    pub k_j: usize,
    pub t_pt1: usize,
    pub v_thresh: usize,
    pub k_p: usize,
    pub k_i: usize,
    pub k_awu: usize,
    pub c: usize,
    pub phi: usize,
    pub rho: usize,
}

pub fn wheel_soil_outputs(t: &mut VariableTable, n: &str) -> WheelSoilVrs {
    WheelSoilVrs {
        sinkage: t.real_output(format!("{n}.sinkage"), "m", "depth of the lowest wheel point below the undisturbed surface, z (Barthelmes 2018 eq. (1))"),
        z_eff: t.real_output(format!("{n}.z_eff"), "m", "effective sinkage z_eff = z - z_s (Barthelmes 2018 eq. (1))"),
        z_s: t.real_output(format!("{n}.z_s"), "m", "slip-sinkage z_s (Barthelmes 2018 eq. (18))"),
        z_peak: t.real_output(format!("{n}.z_peak"), "m", "peak sinkage z_peak (Barthelmes 2018 eq. (16))"),
        slip: t.real_output(format!("{n}.slip"), "1", "(omega r - v)/(omega r) driving, (omega r - v)/v braking; v along the terrain"),
        j_m: t.real_output(format!("{n}.j_m"), "m", "slip length j_m (Barthelmes 2018 eq. (21))"),
        f_n: t.real_output(format!("{n}.Fn"), "N", "TerRA normal force F_n along the terrain normal (Barthelmes 2018 eq. (7))"),
        f_t: t.real_output(format!("{n}.Ft"), "N", "TerRA tangential force F_t along the wheel's forward direction (Barthelmes 2018 eq. (26))"),
    }
}

fn terra_constants(t: &mut VariableTable, s: &TerraSettings) -> TerraVrs {
    let m = &s.model;
    let mut p = |name: &str, unit: Option<&'static str>, v: f64, bounds: Bounds, what: &str| {
        t.push(Variable {
            name: name.into(),
            vr: 0,
            ty: VarType::Real,
            causality: Causality::Parameter,
            variability: Tunable,
            initial: Some(Initial::Exact),
            unit,
            description: what.into(),
            start: Some(Start::Real(v)),
            bounds,
        })
    };
    let pos = Bounds::POSITIVE;
    let nonneg = Bounds::NON_NEGATIVE;
    TerraVrs {
        // k_c's unit N/m^k_exp depends on k_exp: no fixed SI unit to declare.
        k_c: p(
            "terra.k_c",
            None,
            m.k_c,
            pos,
            "spring constant k_c, N/m^k_exp (Barthelmes 2018 eq. (2))",
        ),
        k_exp: p(
            "terra.k_exp",
            Some("1"),
            m.k_exp,
            pos,
            "spring exponent k_exp (eq. (2))",
        ),
        k_d: p(
            "terra.k_d",
            Some("1"),
            m.k_d,
            nonneg,
            "damping ratio k_d < 1 (eq. (6))",
        ),
        k_el: p(
            "terra.k_el",
            Some("N/m"),
            m.k_el,
            pos,
            "elastic layer stiffness k_el (eq. (3), (5))",
        ),
        k_s0: p(
            "terra.k_s0",
            Some("m"),
            m.k_s0,
            pos,
            "sinkage k_s,0 where the slip-sinkage rate reaches zero (eq. (9))",
        ),
        k_s_exp: p(
            "terra.k_s_exp",
            Some("1"),
            m.k_s_exp,
            nonneg,
            "slip-sinkage nonlinearity k_s,exp (eq. (9))",
        ),
        k_s_max: p(
            "terra.k_s_max",
            Some("1"),
            m.k_s_max,
            nonneg,
            "slip-sinkage scaling k_s,max at zero sinkage (eq. (9))",
        ),
        k_j: p(
            "terra.k_j",
            Some("m"),
            m.k_j,
            pos,
            "Janosi-Hanamoto shear deformation modulus k_j (eq. (20))",
        ),
        t_pt1: p(
            "terra.t_pt1",
            Some("s"),
            m.t_pt1,
            pos,
            "time constant of the PT1 filter of x_m (eq. (22))",
        ),
        v_thresh: p(
            "terra.v_thresh",
            Some("m/s"),
            m.v_thresh,
            pos,
            "slip velocity of the tanh regularization of the traction (eq. (26))",
        ),
        k_p: p(
            "terra.k_p",
            Some("s/m"),
            m.k_p,
            pos,
            "gain k_P of the limited PI resistance (eq. (25))",
        ),
        k_i: p(
            "terra.k_i",
            Some("1/s"),
            m.k_i,
            nonneg,
            "integral gain k_I of the resistance (eq. (25))",
        ),
        k_awu: p(
            "terra.k_awu",
            Some("1"),
            m.k_awu,
            pos,
            "anti-windup factor k_awu (eq. (25))",
        ),
        c: p(
            "soil.c",
            Some("Pa"),
            s.soil.c,
            nonneg,
            "soil cohesion c (eq. (19), (24))",
        ),
        phi: p(
            "soil.phi",
            Some("rad"),
            s.soil.phi,
            Bounds {
                min: Some(0.0),
                max: Some(std::f64::consts::FRAC_PI_2),
                positive: true,
            },
            "soil internal friction angle phi (eq. (12), (24))",
        ),
        rho: p(
            "soil.rho",
            Some("kg/m3"),
            s.soil.rho,
            pos,
            "soil bulk density rho (eq. (24))",
        ),
    }
}

impl TerraVrs {
    /// The TerRA constants of a table that has them (declared by [`declare`]).
    pub fn find(t: &VariableTable) -> Option<TerraVrs> {
        let vr = |name: &str| t.by_name(name).map(|v| v.vr as usize);
        Some(TerraVrs {
            k_c: vr("terra.k_c")?,
            k_exp: vr("terra.k_exp")?,
            k_d: vr("terra.k_d")?,
            k_el: vr("terra.k_el")?,
            k_s0: vr("terra.k_s0")?,
            k_s_exp: vr("terra.k_s_exp")?,
            k_s_max: vr("terra.k_s_max")?,
            k_j: vr("terra.k_j")?,
            t_pt1: vr("terra.t_pt1")?,
            v_thresh: vr("terra.v_thresh")?,
            k_p: vr("terra.k_p")?,
            k_i: vr("terra.k_i")?,
            k_awu: vr("terra.k_awu")?,
            c: vr("soil.c")?,
            phi: vr("soil.phi")?,
            rho: vr("soil.rho")?,
        })
    }
}

/// TerRA parameters of a wheel (radius, width in m, mass in kg, gravity in m/s^2)
/// from the current values of `vrs` (Table 1 where the scenario has no TerRA section).
pub fn params(
    w: &Frame,
    vrs: Option<&TerraVrs>,
    radius: f64,
    width: f64,
    mass: f64,
    g: f64,
) -> TerraParams {
    let Some(t) = vrs else {
        return TerraParams::table1();
    };
    TerraParams {
        radius,
        width,
        mass,
        g,
        model: TerraModel {
            k_c: w.real(t.k_c),
            k_exp: w.real(t.k_exp),
            k_d: w.real(t.k_d),
            k_el: w.real(t.k_el),
            k_s0: w.real(t.k_s0),
            k_s_exp: w.real(t.k_s_exp),
            k_s_max: w.real(t.k_s_max),
            k_j: w.real(t.k_j),
            t_pt1: w.real(t.t_pt1),
            v_thresh: w.real(t.v_thresh),
            k_p: w.real(t.k_p),
            k_i: w.real(t.k_i),
            k_awu: w.real(t.k_awu),
        },
        soil: TerraSoil {
            c: w.real(t.c),
            phi: w.real(t.phi),
            rho: w.real(t.rho),
        },
    }
}

/// Writes the wheel-soil outputs `vrs` of a TerRA evaluation.
pub fn write_wheel_soil(
    reals: &mut [f64],
    vrs: &WheelSoilVrs,
    input: &TerraInput,
    out: &TerraOutput,
    state: &TerraState,
    radius: f64,
) {
    reals[vrs.sinkage] = input.z;
    reals[vrs.z_eff] = out.z_eff;
    reals[vrs.z_s] = state.z_s;
    reals[vrs.z_peak] = state.z_peak;
    reals[vrs.slip] = super::slip(input.omega * radius, input.forward_velocity);
    reals[vrs.j_m] = state.j_m;
    reals[vrs.f_n] = out.normal_force;
    reals[vrs.f_t] = out.tangential_force;
}

/// One force-element wheel.
#[derive(Debug, Clone, Copy)]
struct Wheel {
    body: usize,
    /// `<body>.mass_estimate`
    mass: usize,
    outputs: WheelSoilVrs,
}

/// TerRA force-element wheels on their bodies.
pub struct Terra {
    constants: TerraVrs,
    wheels: Vec<Wheel>,
    /// Per wheel: its TerRA state.
    states: Vec<TerraState>,
    /// Per wheel: the last evaluation and the state it implies, for the outputs.
    last: Vec<(TerraInput, TerraOutput, TerraState)>,
    /// Per wheel: the evaluation for the outputs at the end of a communication step,
    /// which serves the next step's first sub-step while nothing changed: not the
    /// wheel's motion (its bits), not its TerRA state, no input or parameter.
    fresh: Vec<Option<Evaluation>>,
}

/// One wheel's TerRA evaluation at one instant: what the world receives and what
/// advancing its state needs.
#[derive(Clone, Copy)]
struct Evaluation {
    /// The wheel's pose and velocities it was made at, as bits.
    motion: [u64; 13],
    params: TerraParams,
    input: TerraInput,
    out: TerraOutput,
    rates: TerraRates,
    /// Force and torque on the wheel body (world frame, N and N m, about its centre).
    force: Vector3<f64>,
    torque: Vector3<f64>,
    /// Sinkage, m (>= 0).
    depth: f64,
}

/// A body's pose and velocities as bits: equal bits, the same evaluation.
fn motion_bits(m: &BodyMotion) -> [u64; 13] {
    let t = &m.iso.translation.vector;
    let q = m.iso.rotation.quaternion();
    let all = [
        t.x, t.y, t.z, q.w, q.i, q.j, q.k, m.v.x, m.v.y, m.v.z, m.w.x, m.w.y, m.w.z,
    ];
    all.map(f64::to_bits)
}

/// Declares TerRA when the scenario has a `terra` section.
pub fn declare(d: &mut Declare) -> Option<Box<dyn Model>> {
    let ts = d.scenario.terra.as_ref()?;
    let constants = terra_constants(d.table, ts);
    let mut wheels: Vec<Wheel> = vec![];
    for tw in &ts.wheels {
        let Some(body) = d.body_index(&tw.body) else {
            continue;
        };
        // a body listed twice is one wheel with the first entry's mass estimate
        if let Some(w) = wheels.iter().find(|w| w.body == body) {
            wheels.push(*w);
            continue;
        }
        let n = &tw.body;
        let mass = d.table.real_parameter(
            format!("{n}.mass_estimate"),
            Tunable,
            "kg",
            tw.mass_estimate,
            Bounds::POSITIVE,
            "mass estimate m of the TerRA wheel (Barthelmes 2018 eq. (6), (10))",
        );
        let outputs = wheel_soil_outputs(d.table, n);
        wheels.push(Wheel {
            body,
            mass,
            outputs,
        });
    }
    let k = wheels.len();
    Some(Box::new(Terra {
        constants,
        wheels,
        states: vec![TerraState::default(); k],
        last: vec![Default::default(); k],
        fresh: vec![None; k],
    }))
}

impl Terra {
    /// TerRA parameters and contact geometry of wheel `k`.
    fn wheel(&self, w: &Frame, k: usize) -> (TerraParams, WheelGeometry) {
        let wheel = &self.wheels[k];
        let b = wheel.body;
        // validated: TerRA wheels have a wheel shape
        let (radius, width) = match w.bodies[b].shape {
            ShapeVrs::Wheel { radius, width } => (w.real(radius), w.real(width)),
            _ => (0.0, 0.0),
        };
        let mass = w.real(wheel.mass);
        let gravity = w.gravity();
        let p = params(
            w,
            Some(&self.constants),
            radius,
            width,
            mass,
            gravity.norm(),
        );
        let geo = contact(w.surface, &w.pose_of(b), radius, &gravity);
        (p, geo)
    }
}

impl Terra {
    /// Wheel `k`'s forces at the current state (`motion`: its pose and velocities).
    fn evaluation(&self, w: &Frame, k: usize, motion: [u64; 13]) -> Evaluation {
        let (p, geo) = self.wheel(w, k);
        let (out, rates) = super::evaluate(&p, &self.states[k], &geo.input);
        let force = geo.normal * out.normal_force + geo.forward * out.tangential_force;
        // The normal force acts at the lowest wheel point; the traction is shear on the
        // rim (torque -r F_traction about the axle); the resistance is earth pressure
        // through the hub.
        let axle = geo.normal.cross(&geo.forward);
        let torque =
            geo.lever.cross(&(geo.normal * out.normal_force)) - axle * (p.radius * out.traction);
        Evaluation {
            motion,
            params: p,
            input: geo.input,
            out,
            rates,
            force,
            torque,
            depth: geo.input.z.max(0.0),
        }
    }
}

impl Model for Terra {
    fn key(&self) -> &'static str {
        "terra"
    }

    fn build(&mut self, _w: &mut Frame) -> Result<(), WorldError> {
        self.states.fill(TerraState::default());
        self.fresh.fill(None);
        Ok(())
    }

    fn inputs_changed(&mut self) {
        self.fresh.fill(None);
    }

    fn evaluate(&mut self, w: &mut Frame, dt: f64) {
        let advance = dt > 0.0;
        for k in 0..self.wheels.len() {
            let b = self.wheels[k].body;
            let motion = motion_bits(&w.pose_of(b));
            let e = match self.fresh[k] {
                Some(e) if e.motion == motion => e,
                _ => self.evaluation(w, k, motion),
            };
            // dt = 0 advances a copy: the states stay as they are (the copy is the
            // state the outputs report).
            let mut state = self.states[k];
            super::advance(&e.params, &mut state, &e.rates, dt);
            if advance {
                self.states[k] = state;
                self.fresh[k] = None;
            } else {
                self.fresh[k] = Some(e);
            }
            let acc = &mut w.loads[b];
            acc.force += e.force;
            acc.torque += e.torque;
            acc.depth = acc.depth.max(e.depth);
            acc.in_contact |= e.out.in_contact;
            self.last[k] = (e.input, e.out, state);
        }
    }

    fn write_outputs(&self, w: &mut Frame) {
        for (wheel, (input, out, state)) in self.wheels.iter().zip(&self.last) {
            let radius = match w.bodies[wheel.body].shape {
                ShapeVrs::Wheel { radius, .. } => w.real(radius),
                _ => 0.0,
            };
            write_wheel_soil(
                &mut w.values.reals,
                &wheel.outputs,
                input,
                out,
                state,
                radius,
            );
        }
    }

    fn save(&self) -> Option<ModelState> {
        Some(ModelState::new(self.states.clone()))
    }

    fn save_into(&self, target: &mut ModelState) {
        target.set(&self.states);
    }

    fn decode_state(&self, bytes: &[u8]) -> Result<ModelState, String> {
        model::decode::<Vec<TerraState>>(self.key(), bytes)
    }

    fn fits(&self, state: Option<&ModelState>) -> Result<(), String> {
        match state.and_then(|s| s.get::<Vec<TerraState>>()) {
            Some(s) if s.len() == self.states.len() => Ok(()),
            _ => {
                Err("the FMU state does not belong to this model (its TerRA wheels differ)".into())
            }
        }
    }

    fn restore(&mut self, state: &ModelState) {
        self.fresh.fill(None);
        if let Some(s) = state.get::<Vec<TerraState>>() {
            self.states.clone_from(s);
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use crate::cosim::variables::{Phase, VarType};
    use crate::cosim::World;

    fn world(example: &str) -> World {
        let path = format!("{}/examples/{example}.json", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let mut w = World::new(&crate::scenario::parse_str(&text, &path).unwrap(), None).unwrap();
        w.exit_initialization().unwrap();
        w
    }

    fn outputs(w: &mut World) -> Vec<u64> {
        let vrs: Vec<u32> = (0..w.table().count(VarType::Real) as u32).collect();
        let mut out = vec![0.0; vrs.len()];
        w.get_reals(&vrs, &mut out).unwrap();
        out.iter().map(|x| x.to_bits()).collect()
    }

    /// The evaluation for the outputs at the end of a step serves the next step's first
    /// sub-step (TerRA's adapter and the rig's): setting any input or tunable parameter,
    /// one at a time, must make the next step evaluate anew. The reference is a world
    /// restored from a snapshot (which has no evaluation to reuse) given the same value.
    #[test]
    fn a_set_value_makes_the_next_step_evaluate_anew() {
        for example in ["terra_single_wheel", "terra_kinematic_wheel"] {
            let mut base = world(example);
            for _ in 0..300 {
                base.do_step(1e-3).unwrap();
            }
            let saved = base.snapshot();
            let settable: Vec<u32> = (base.table().variables.iter())
                .filter(|v| v.ty == VarType::Real && v.settable_in(Phase::Stepping))
                .map(|v| v.vr)
                .collect();
            let mut tried = 0;
            for &vr in &settable {
                let mut cached = world(example);
                cached.restore(&saved).unwrap();
                cached.do_step(1e-3).unwrap();
                let _ = outputs(&mut cached); // the evaluation for the outputs
                let mut old = [0.0];
                cached.get_reals(&[vr], &mut old).unwrap();
                let x = old[0] * 1.05 + 1e-3;
                if cached.set_reals(&[vr], &[x], Phase::Stepping).is_err() {
                    continue; // out of its range
                }
                let mut fresh = world(example);
                fresh.restore(&cached.snapshot()).unwrap();
                let name = cached.table().get(VarType::Real, vr).unwrap().name.clone();
                for k in 0..3 {
                    cached.do_step(1e-3).unwrap();
                    fresh.do_step(1e-3).unwrap();
                    let (a, b) = (outputs(&mut cached), outputs(&mut fresh));
                    assert_eq!(a, b, "{example}: {name} set, step {k}");
                }
                tried += 1;
            }
            assert!(tried > 0, "{example}: no value could be set");
        }
    }
}
