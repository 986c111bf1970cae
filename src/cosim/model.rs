//! The model interface: how a contact or wheel model reaches the world.
//!
//! A model is a folder under `src/models/<model>/`: its physics (FMI-free) and one
//! adapter that implements [`Model`]. The world keeps the variable table, the bodies,
//! time and the sub-step loop, and calls the list of models it is handed (their
//! [`DeclareFn`]s; the crate's list is [`crate::registry`]) without knowing any of
//! them by name. `docs/design.md`, "Adding
//! a model", walks through the files a new model touches.

use super::references::{BodyVrs, MotionVrs};
use super::variables::{VarType, VariableTable};
use super::errors::WorldError;
use super::values::Values;
pub use crate::rigid_body::BodyMotion;
use crate::rigid_body::{ObstacleRates, RigidBodyState};
use crate::geometry::terrain::Surface;
use crate::scenario::types::Scenario;
use nalgebra::{Isometry3, Quaternion, UnitQuaternion, Vector3};
use std::any::Any;
use std::fmt::Debug;

/// What the models of one sub-step put on a body: the contact wrench (world frame,
/// torque about the body origin) and what a body driver needs to integrate it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BodyLoad {
    /// Contact force on the body, N, world frame.
    pub force: Vector3<f64>,
    /// Contact torque on the body about its origin, N m, world frame.
    pub torque: Vector3<f64>,
    /// Deepest penetration or sinkage of the body into what it touches, m.
    pub depth: f64,
    /// The body touches something.
    pub in_contact: bool,
    /// -dF_z/dz of the contact force with the body's height, N/m (for drivers that
    /// integrate the vertical motion implicitly, as the single-wheel rig does).
    pub k_zz: f64,
    /// -dF_z/dv_z with the body's vertical velocity, N s/m.
    pub c_zz: f64,
    /// The same for contacts with other bodies (Leite's rocks), whose surfaces do not
    /// follow the terrain's slope.
    pub obstacles: ObstacleRates,
}

/// The world as a model sees it during a call: the variable values, the bodies and
/// their states, the sub-step's loads, the terrain. Read the bodies' motion through
/// [`Frame::pose_of`]; add wrenches to `loads`.
pub struct Frame<'a> {
    /// The variable table (names for error messages).
    pub table: &'a VariableTable,
    /// Current values of all variables, by value reference.
    pub values: &'a mut Values,
    /// Every body of the world: the scenario's, then those models added.
    pub bodies: &'a [BodyVrs],
    /// Per body: the state of a free body (integrated by the world) or of a driven
    /// body (written by the model that drives it); unused for the others.
    pub states: &'a mut [RigidBodyState],
    /// Per body: what the models put on it in this evaluation.
    pub loads: &'a mut [BodyLoad],
    /// The terrain surface.
    pub surface: &'a Surface,
    /// BBCC and SCM mesh vertices read at instantiation (body geometry).
    pub meshes: &'a super::bodies::Meshes,
    /// Simulation time of the state the model sees, s (within a communication step,
    /// the current sub-step's).
    pub time: f64,
    /// `world.gravity[1..3]`.
    pub gravity_vrs: [usize; 3],
    /// `world.model_step`: the longest sub-step, s.
    pub model_step_vr: usize,
}

impl Frame<'_> {
    /// Real value of `vr`.
    pub fn real(&self, vr: usize) -> f64 {
        self.values.reals[vr]
    }

    /// Integer value of `vr`.
    pub fn integer(&self, vr: usize) -> i32 {
        self.values.integers[vr]
    }

    /// Boolean value of `vr`.
    pub fn boolean(&self, vr: usize) -> bool {
        self.values.booleans[vr]
    }

    /// Three Real values as a vector.
    pub fn vec3(&self, vrs: &[usize; 3]) -> Vector3<f64> {
        vec3(self.values, vrs)
    }

    /// A unit quaternion (w, x, y, z) from four Real values; None for zero length.
    pub fn quaternion(&self, vrs: &[usize; 4]) -> Option<UnitQuaternion<f64>> {
        quaternion(self.values, vrs)
    }

    /// Gravity, m/s^2, world frame.
    pub fn gravity(&self) -> Vector3<f64> {
        self.vec3(&self.gravity_vrs)
    }

    /// The name of variable `vr` of type `ty` (for messages).
    pub fn var_name(&self, ty: VarType, vr: usize) -> String {
        self.table.name_of(ty, vr)
    }

    /// The resolved geometry of body `b` from the current parameter values (sizes,
    /// mesh vertices); None for the shapes that have none (wheel, mesh, torus).
    pub fn body_geometry(
        &self,
        b: usize,
    ) -> Result<Option<crate::geometry::shape::Geometry>, String> {
        let body = &self.bodies[b];
        super::bodies::geometry(
            &body.spec,
            &body.shape,
            &self.values.reals,
            &self.values.integers,
            self.meshes,
        )
    }

    /// Pose and velocities of body `b`.
    pub fn pose_of(&self, b: usize) -> BodyMotion {
        pose_of(self.bodies, self.states, self.values, b)
    }
}

/// Three Real values as a vector.
pub fn vec3(values: &Values, vrs: &[usize; 3]) -> Vector3<f64> {
    Vector3::new(
        values.reals[vrs[0]],
        values.reals[vrs[1]],
        values.reals[vrs[2]],
    )
}

/// A unit quaternion from four Real values (w, x, y, z); None for zero length.
pub fn quaternion(values: &Values, vrs: &[usize; 4]) -> Option<UnitQuaternion<f64>> {
    let r = &values.reals;
    let q = Quaternion::new(r[vrs[0]], r[vrs[1]], r[vrs[2]], r[vrs[3]]);
    let n = q.norm();
    (n > 1e-12 && n.is_finite()).then(|| UnitQuaternion::from_quaternion(q))
}

/// Pose of a fixed body: q0 and r0, turned about the world y axis by `incline`.
fn fixed_pose(
    values: &Values,
    r0: &[usize; 3],
    q0: &[usize; 4],
    incline: Option<usize>,
) -> Isometry3<f64> {
    let q = quaternion(values, q0).unwrap_or_else(UnitQuaternion::identity);
    let base = Isometry3::from_parts(nalgebra::Translation3::from(vec3(values, r0)), q);
    match incline {
        // positive incline raises the +x side: a rotation by -incline about +y
        Some(a) => Isometry3::rotation(Vector3::y() * -values.reals[a]) * base,
        None => base,
    }
}

/// Pose and velocities a kinematic body's inputs give (world frame).
pub fn kinematic_inputs(
    values: &Values,
    r: &[usize; 3],
    q: &[usize; 4],
    v: &[usize; 3],
    w: &[usize; 3],
) -> (
    Vector3<f64>,
    UnitQuaternion<f64>,
    Vector3<f64>,
    Vector3<f64>,
) {
    (
        vec3(values, r),
        quaternion(values, q).unwrap_or_else(UnitQuaternion::identity),
        vec3(values, v),
        vec3(values, w),
    )
}

/// Pose and velocities of body `b` of `bodies` (world frame).
pub fn pose_of(
    bodies: &[BodyVrs],
    states: &[RigidBodyState],
    values: &Values,
    b: usize,
) -> BodyMotion {
    let (r, q, v, w) = match &bodies[b].motion {
        MotionVrs::Kinematic {
            r,
            q,
            v,
            w,
            extrapolate,
        } => {
            if values.booleans[*extrapolate] {
                // moved on by the world within the step (World::advance_kinematic)
                let s = &states[b];
                (s.r, s.q, s.v, s.w)
            } else {
                kinematic_inputs(values, r, q, v, w)
            }
        }
        MotionVrs::Free { .. } | MotionVrs::Driven => {
            let s = &states[b];
            (s.r, s.q, s.v, s.w)
        }
        MotionVrs::Fixed { r0, q0, incline } => {
            let iso = fixed_pose(values, r0, q0, *incline);
            return BodyMotion {
                iso,
                v: Vector3::zeros(),
                w: Vector3::zeros(),
            };
        }
    };
    BodyMotion {
        iso: Isometry3::from_parts(nalgebra::Translation3::from(r), q),
        v,
        w,
    }
}

/// Where a model declares its variables: the table, the bodies declared so far (it
/// may add bodies it drives), and the scenario.
pub struct Declare<'a> {
    pub table: &'a mut VariableTable,
    pub bodies: &'a mut Vec<BodyVrs>,
    pub scenario: &'a Scenario,
}

impl Declare<'_> {
    /// Index of the body named `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }
}

/// A model's dynamic state as an FMU state holds it.
///
/// Each model saves its own type ([`ModelState::new`]); a deserialized FMU state holds
/// the bytes until the model that wrote them reads them back ([`Model::decode_state`]).
pub enum ModelState {
    /// As the model saved it.
    Live(Box<dyn StateData>),
    /// Serialized, not yet read by its model.
    Encoded(Vec<u8>),
}

/// The data of a [`ModelState`]: any plain, serializable, cloneable type.
pub trait StateData: Any + Send + Sync + Debug {
    fn clone_box(&self) -> Box<dyn StateData>;
    /// Copies `self` into `target` when it holds the same type (reusing its buffers).
    fn clone_into_box(&self, target: &mut Box<dyn StateData>);
    fn to_bytes(&self) -> Vec<u8>;
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T> StateData for T
where
    T: Any + Send + Sync + Debug + Clone + serde::Serialize,
{
    fn clone_box(&self) -> Box<dyn StateData> {
        Box::new(self.clone())
    }
    fn clone_into_box(&self, target: &mut Box<dyn StateData>) {
        match target.as_any_mut().downcast_mut::<T>() {
            Some(t) => t.clone_from(self),
            None => *target = self.clone_box(),
        }
    }
    fn to_bytes(&self) -> Vec<u8> {
        // postcard of plain data into a Vec cannot fail.
        postcard::to_stdvec(self).expect("model state serializes")
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

impl ModelState {
    /// A live state of type `T`.
    pub fn new<T: StateData>(data: T) -> ModelState {
        ModelState::Live(Box::new(data))
    }

    /// The state as `T`, if it is live and of that type.
    pub fn get<T: 'static>(&self) -> Option<&T> {
        match self {
            ModelState::Live(d) => d.as_any().downcast_ref(),
            ModelState::Encoded(_) => None,
        }
    }

    /// The state as `T`, mutable.
    pub fn get_mut<T: 'static>(&mut self) -> Option<&mut T> {
        match self {
            ModelState::Live(d) => d.as_any_mut().downcast_mut(),
            ModelState::Encoded(_) => None,
        }
    }

    /// The serialized form (postcard).
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            ModelState::Live(d) => d.to_bytes(),
            ModelState::Encoded(b) => b.clone(),
        }
    }

    /// Overwrites `self` with `data`, reusing its buffers where it holds a `T`.
    pub fn set<T: StateData + Clone>(&mut self, data: &T) {
        match self {
            ModelState::Live(d) => data.clone_into_box(d),
            ModelState::Encoded(_) => *self = ModelState::new(data.clone()),
        }
    }
}

impl Clone for ModelState {
    fn clone(&self) -> Self {
        match self {
            ModelState::Live(d) => ModelState::Live(d.clone_box()),
            ModelState::Encoded(b) => ModelState::Encoded(b.clone()),
        }
    }
    fn clone_from(&mut self, source: &Self) {
        match (self as &mut ModelState, source) {
            (ModelState::Live(t), ModelState::Live(s)) => s.clone_into_box(t),
            (me, s) => *me = s.clone(),
        }
    }
}

impl Debug for ModelState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModelState::Live(d) => d.fmt(f),
            ModelState::Encoded(b) => write!(f, "Encoded({} bytes)", b.len()),
        }
    }
}

impl PartialEq for ModelState {
    /// Equal when their serialized forms are (exact for f64).
    fn eq(&self, other: &Self) -> bool {
        self.to_bytes() == other.to_bytes()
    }
}

impl serde::Serialize for ModelState {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.to_bytes())
    }
}

impl<'de> serde::Deserialize<'de> for ModelState {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let bytes: serde_bytes_vec::Bytes = serde::Deserialize::deserialize(d)?;
        Ok(ModelState::Encoded(bytes.0))
    }
}

mod serde_bytes_vec {
    /// A byte vector that deserializes from serde's bytes.
    pub struct Bytes(pub Vec<u8>);
    impl<'de> serde::Deserialize<'de> for Bytes {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = Bytes;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("bytes")
                }
                fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Bytes, E> {
                    Ok(Bytes(v.to_vec()))
                }
                fn visit_byte_buf<E: serde::de::Error>(self, v: Vec<u8>) -> Result<Bytes, E> {
                    Ok(Bytes(v))
                }
            }
            d.deserialize_bytes(V)
        }
    }
}

/// Reads a model's scenario section; declares its variables and returns the model
/// when the scenario uses it. The world is handed one per model, in call order.
pub type DeclareFn = fn(&mut Declare) -> Option<Box<dyn Model>>;

/// A model as the world drives it. Every method but [`Model::key`] has a default
/// that does nothing, so a model implements what it needs.
///
/// A model is created by its declare function ([`DeclareFn`], listed in
/// [`crate::registry`]), which reads its scenario section and adds its variables; the
/// world then calls, in the order of that list:
/// - [`Model::load_assets`] once at fmi2Instantiate (files of the FMU's resources);
/// - [`Model::build`] whenever initial states follow the parameters (instantiation,
///   initialization mode, fmi2ExitInitializationMode);
/// - per sub-step of length dt: [`Model::evaluate`] of every model (wrenches into
///   `loads`, own states advanced), then [`Model::after_forces`] of every model (state
///   updates that need every model's forces, e.g. a driver integrating its body, the
///   soil yielding), then the world integrates its free bodies, then
///   [`Model::end_substep`];
/// - for the outputs: [`Model::evaluate`] with dt = 0 (nothing advances), then
///   [`Model::write_outputs`];
/// - [`Model::after_step`] at the end of each communication step,
///   [`Model::terminate`] at fmi2Terminate.
pub trait Model: Send + Sync {
    /// Short name (the scenario section): used in messages and state checks.
    fn key(&self) -> &'static str;

    /// Reads the files the model needs from the FMU's resources (`dir`).
    fn load_assets(&mut self, _dir: Option<&std::path::Path>) -> Result<(), WorldError> {
        Ok(())
    }

    /// Builds the model's state from the current parameter values (initial states,
    /// shapes, meshes, soil grids).
    fn build(&mut self, _w: &mut Frame) -> Result<(), WorldError> {
        Ok(())
    }

    /// Adds the model's wrenches at the current state to `w.loads`. With `dt > 0` the
    /// model's own states advance by `dt`; with `dt = 0` they are only evaluated.
    fn evaluate(&mut self, _w: &mut Frame, _dt: f64) {}

    /// After every model's [`Model::evaluate`] of a sub-step of `dt`, before the
    /// world integrates its free bodies.
    fn after_forces(&mut self, _w: &mut Frame, _dt: f64) {}

    /// At the end of a sub-step, after the free bodies moved.
    fn end_substep(&mut self, _w: &mut Frame) {}

    /// Whether the world should take this model's sub-steps adaptively: save, step,
    /// and step again shorter from the saved state where [`Model::step_bound`] says
    /// the sub-step was too long (`bbcc.adaptive_step`). False: fixed sub-steps.
    fn adaptive_steps(&self) -> bool {
        false
    }

    /// After a sub-step: the longest sub-step its evaluation's forces allow, s
    /// (infinite: no bound). Read only where [`Model::adaptive_steps`].
    fn step_bound(&self) -> f64 {
        f64::INFINITY
    }

    /// Writes the model's outputs from its last evaluation (`w.loads` holds the
    /// wrenches of that evaluation).
    fn write_outputs(&self, _w: &mut Frame) {}

    /// At the end of a communication step (time already advanced).
    fn after_step(&mut self, _w: &mut Frame) -> Result<(), WorldError> {
        Ok(())
    }

    /// Moves the warnings the model has for the log (since the last call) into `out`;
    /// the FMU logs them as fmi2Warning at the end of the communication step.
    fn take_warnings(&mut self, _out: &mut Vec<String>) {}

    /// fmi2Terminate; returns a line for the log, if any.
    fn terminate(&mut self, _w: &mut Frame) -> Result<Option<String>, WorldError> {
        Ok(None)
    }

    /// An input or parameter was set: cached evaluations are stale.
    fn inputs_changed(&mut self) {}

    /// What the model's outputs and the wrenches it adds read within one instant (a
    /// communication point, initialization mode): modelDescription.xml's
    /// `dependencies` ([`super::feedthrough`]). The default, everything reads
    /// everything the model can see, is always true; a model states less where it
    /// knows less is read (a contact pair reads its two bodies).
    fn feedthrough(&self, f: &mut super::feedthrough::Feedthrough) {
        f.everything();
    }

    /// The model's dynamic state (for an FMU state). None: it has none.
    fn save(&self) -> Option<ModelState> {
        None
    }

    /// Copies the dynamic state into `target` (reusing its buffers).
    fn save_into(&self, target: &mut ModelState) {
        if let Some(s) = self.save() {
            *target = s;
        }
    }

    /// Reads back what [`Model::save`] wrote, serialized.
    fn decode_state(&self, _bytes: &[u8]) -> Result<ModelState, String> {
        Err(format!("the {} model has no state", self.key()))
    }

    /// Does `state` (None: the snapshot has none for this model) fit this model, a
    /// state of the same scenario? A model with a state refuses None.
    fn fits(&self, _state: Option<&ModelState>) -> Result<(), String> {
        Ok(())
    }

    /// Restores a state that [`Model::fits`].
    fn restore(&mut self, _state: &ModelState) {}

    /// For tests and benchmarks: the model as `Any`.
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// Decodes a postcard state of type `T` written by [`StateData::to_bytes`].
pub fn decode<T: StateData + serde::de::DeserializeOwned>(
    key: &str,
    bytes: &[u8],
) -> Result<ModelState, String> {
    postcard::from_bytes::<T>(bytes)
        .map(ModelState::new)
        .map_err(|e| format!("the {key} part of the FMU state is damaged: {e}"))
}
