//! A wheel-soil model as a force element of the world: on the kinematic wheel bodies
//! its scenario section lists, and on the single-wheel rig's wheel when the rig's
//! `soil_model` names it (a body the rig drives, tagged with the model's key). The
//! model itself only maps a [`WheelInput`] to [`WheelForces`] ([`WheelSoil`]).

use super::{contact, slip, WheelForces, WheelInput};
use crate::cosim::references::ShapeVrs;
use crate::cosim::model::{self, Declare, Frame, Model, ModelState};
use crate::cosim::WorldError;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::any::Any;
use std::fmt::Debug;

/// A wheel-soil model, as the force element calls it.
pub trait WheelSoil: Send + Sync + 'static {
    /// Per-wheel dynamic state (part of the FMU state); `()` for a memoryless model.
    type State: Copy
        + Default
        + Debug
        + PartialEq
        + Send
        + Sync
        + Serialize
        + DeserializeOwned
        + 'static;

    /// The scenario section's key, also the rig's `soil_model` value and the
    /// `contact_model` tag of the rig's wheel body.
    fn key(&self) -> &'static str;

    /// The description of the wheel's Integer output `<body>.contact_state` (the
    /// model's discrete state, [`WheelSoil::state_code`]); `None`: no such output.
    fn state_output(&self) -> Option<&'static str> {
        None
    }

    /// The Integer code of `state` for `<body>.contact_state`.
    fn state_code(&self, _state: &Self::State) -> i32 {
        0
    }

    /// The model returns a lateral force: the wheel gets an output `<body>.Fl`.
    fn lateral(&self) -> bool {
        false
    }

    /// Prepares what depends on fixed parameters (fmi2ExitInitializationMode and
    /// instantiation).
    fn build(&mut self, _w: &Frame) -> Result<(), WorldError> {
        Ok(())
    }

    /// Forces on a wheel of `radius` and `width` (m) at `input`, from the model's
    /// parameters' current values in `w`; advances `state` by `dt` (s; 0: evaluate
    /// only, the element passes a copy).
    fn step(
        &self,
        w: &Frame,
        radius: f64,
        width: f64,
        state: &mut Self::State,
        input: &WheelInput,
        dt: f64,
    ) -> WheelForces;

    /// Contacts of wheel body `wheel` with other bodies of the world (Leite's rocks),
    /// besides the ground: adds their wrenches to `w.loads` (the wheel's and the other
    /// bodies') and keeps their memory in `state`, advanced by `dt` (s; 0: evaluate
    /// only, on a copy). Called after [`WheelSoil::step`]; default: none.
    fn obstacles(
        &self,
        _w: &mut Frame,
        _wheel: usize,
        _radius: f64,
        _width: f64,
        _state: &mut Self::State,
        _dt: f64,
    ) {
    }
}

/// Outputs of one wheel: `<body>.sinkage`, `.slip`, `.Fn`, `.Ft`, and where the model
/// has them `.Fl` and `.contact_state`.
#[derive(Debug, Clone, Copy)]
struct Outputs {
    sinkage: usize,
    slip: usize,
    f_n: usize,
    f_t: usize,
    f_l: Option<usize>,
    state: Option<usize>,
}

/// A wheel body the element acts on.
#[derive(Debug, Clone, Copy)]
struct Wheel {
    body: usize,
    outputs: Outputs,
}

/// `soil` acting on wheel bodies.
pub struct WheelElement<S: WheelSoil> {
    soil: S,
    wheels: Vec<Wheel>,
    states: Vec<S::State>,
    last: Vec<(WheelInput, WheelForces)>,
}

/// Wheel-soil model `soil` on the bodies named in `listed` (kinematic bodies with a
/// `wheel` shape, validated with the section) and on every body tagged with its key
/// (the rig's wheel). Declares each wheel's outputs once, however often it is named.
pub fn declare<S: WheelSoil>(d: &mut Declare, soil: S, listed: &[String]) -> Box<dyn Model> {
    let mut bodies: Vec<usize> = listed.iter().filter_map(|n| d.body_index(n)).collect();
    let key = soil.key();
    bodies.extend((0..d.bodies.len()).filter(|&b| d.bodies[b].contact_model == Some(key)));
    let mut wheels: Vec<Wheel> = vec![];
    for b in bodies {
        if wheels.iter().any(|w| w.body == b) {
            continue;
        }
        let n = d.bodies[b].name.clone();
        let what = |s: &str| format!("{s} ({key} wheel-soil model)");
        let t = &mut *d.table;
        let outputs = Outputs {
            sinkage: t.real_output(
                format!("{n}.sinkage"),
                "m",
                &what("depth of the lowest wheel point below the surface"),
            ),
            slip: t.real_output(
                format!("{n}.slip"),
                "1",
                &what(
                    "(omega r - v)/(omega r) driving, (omega r - v)/v braking; v along the terrain",
                ),
            ),
            f_n: t.real_output(
                format!("{n}.Fn"),
                "N",
                &what("soil force on the wheel along the terrain normal"),
            ),
            f_t: t.real_output(
                format!("{n}.Ft"),
                "N",
                &what("soil force on the wheel along its forward direction (axle x normal)"),
            ),
            f_l: soil.lateral().then(|| {
                t.real_output(
                    format!("{n}.Fl"),
                    "N",
                    &what("soil force on the wheel along its axle in the tangent plane (normal x forward)"),
                )
            }),
            state: soil
                .state_output()
                .map(|d| t.integer_output(format!("{n}.contact_state"), what(d))),
        };
        wheels.push(Wheel { body: b, outputs });
    }
    let k = wheels.len();
    Box::new(WheelElement {
        soil,
        wheels,
        states: vec![S::State::default(); k],
        last: vec![Default::default(); k],
    })
}

/// Radius and width of a wheel body (validated: a `wheel` shape, or the rig's wheel).
fn wheel_size(w: &Frame, body: usize) -> (f64, f64) {
    match w.bodies[body].shape {
        ShapeVrs::Wheel { radius, width } | ShapeVrs::GrouserWheel { radius, width, .. } => {
            (w.real(radius), w.real(width))
        }
        _ => (0.0, 0.0),
    }
}

impl<S: WheelSoil> Model for WheelElement<S> {
    fn key(&self) -> &'static str {
        self.soil.key()
    }

    fn build(&mut self, w: &mut Frame) -> Result<(), WorldError> {
        self.soil.build(w)?;
        self.states.fill(S::State::default());
        Ok(())
    }

    fn evaluate(&mut self, w: &mut Frame, dt: f64) {
        let gravity = w.gravity();
        for k in 0..self.wheels.len() {
            let b = self.wheels[k].body;
            let (radius, width) = wheel_size(w, b);
            let geo = contact(w.surface, &w.pose_of(b), radius, &gravity);
            // dt = 0 evaluates on a copy: the states stay as they are.
            let mut state = self.states[k];
            let f = self.soil.step(w, radius, width, &mut state, &geo.input, dt);
            self.soil.obstacles(w, b, radius, width, &mut state, dt);
            if dt > 0.0 {
                self.states[k] = state;
            }
            let axle = geo.normal.cross(&geo.forward);
            let acc = &mut w.loads[b];
            acc.force += geo.normal * f.normal + geo.forward * f.tangential;
            if f.lateral != 0.0 {
                acc.force += axle * f.lateral;
            }
            acc.torque += geo.lever.cross(&(geo.normal * f.normal)) + axle * f.torque;
            acc.depth = acc.depth.max(geo.input.z.max(0.0));
            acc.in_contact |= f.in_contact;
            let nz2 = geo.normal.z * geo.normal.z;
            acc.k_zz += f.stiffness * nz2;
            acc.c_zz += f.damping * nz2;
            self.last[k] = (geo.input, f);
        }
    }

    fn write_outputs(&self, w: &mut Frame) {
        for (wheel, (input, f)) in self.wheels.iter().zip(&self.last) {
            let (radius, _) = wheel_size(w, wheel.body);
            let o = &wheel.outputs;
            let v = &mut w.values.reals;
            v[o.sinkage] = input.z;
            v[o.slip] = slip(input.omega * radius, input.forward_velocity);
            v[o.f_n] = f.normal;
            v[o.f_t] = f.tangential;
            if let Some(vr) = o.f_l {
                v[vr] = f.lateral;
            }
        }
        for (wheel, state) in self.wheels.iter().zip(&self.states) {
            if let Some(vr) = wheel.outputs.state {
                w.values.integers[vr] = self.soil.state_code(state);
            }
        }
    }

    fn save(&self) -> Option<ModelState> {
        Some(ModelState::new(self.states.clone()))
    }

    fn save_into(&self, target: &mut ModelState) {
        target.set(&self.states);
    }

    fn decode_state(&self, bytes: &[u8]) -> Result<ModelState, String> {
        model::decode::<Vec<S::State>>(self.key(), bytes)
    }

    fn fits(&self, state: Option<&ModelState>) -> Result<(), String> {
        match state.and_then(|s| s.get::<Vec<S::State>>()) {
            Some(s) if s.len() == self.states.len() => Ok(()),
            _ => Err(format!(
                "the FMU state does not belong to this model (its {} wheels differ)",
                self.key()
            )),
        }
    }

    fn restore(&mut self, state: &ModelState) {
        if let Some(s) = state.get::<Vec<S::State>>() {
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
