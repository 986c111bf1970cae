//! [`World`]: one simulated scenario: the variable table, the bodies, time, the
//! sub-step loop, and the list of models (see [`super::model`]). It knows no model
//! by name.

use super::layout;

use super::references::{Layout, MotionVrs, TerrainVrs};
use super::errors::{VarError, WorldError};
use super::model::{BodyLoad, Frame, Model, ModelState};
use super::values::Values;
use super::variables::{Phase, VarType, Variable, VariableTable};
use crate::rigid_body::{MassProperties, RigidBodyState};
use crate::geometry::terrain::{ramps_profile, HeightField, Surface};
use crate::scenario::types::Scenario;
use nalgebra::Vector3;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Everything that changes while simulating: what an FMU state snapshot holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dynamic {
    /// Simulation time, s.
    pub time: f64,
    pub values: Values,
    /// One per body; used by free and driven bodies.
    pub bodies: Vec<RigidBodyState>,
    /// One per model of the world, in its order: the model's own state (None for a
    /// model without one).
    pub models: Vec<Option<ModelState>>,
    /// Inputs or parameters changed since the outputs were computed.
    pub outputs_dirty: bool,
    /// In initialization mode: initial states follow the parameters.
    pub initializing: bool,
}

impl Dynamic {
    /// The first model state of type `T` (e.g. the SCM soil), if any.
    pub fn model<T: 'static>(&self) -> Option<&T> {
        self.models.iter().flatten().find_map(|m| m.get::<T>())
    }

    /// The first model state of type `T`, mutable.
    pub fn model_mut<T: 'static>(&mut self) -> Option<&mut T> {
        self.models
            .iter_mut()
            .flatten()
            .find_map(|m| m.get_mut::<T>())
    }
}

/// What the world itself keeps between steps (the models keep their own).
#[derive(Debug, Clone)]
struct Own {
    time: f64,
    values: Values,
    bodies: Vec<RigidBodyState>,
    outputs_dirty: bool,
    initializing: bool,
}

/// One simulated scenario: variables, bodies, models, stepping.
pub struct World {
    table: Arc<VariableTable>,
    layout: Arc<Layout>,
    own: Own,
    /// The terrain surface, built from the terrain parameters at initialization.
    surface: Surface,
    /// Per body: what the models put on it in the current evaluation (preallocated:
    /// no allocation while stepping).
    loads: Vec<BodyLoad>,
    /// Mesh vertices the scenario's bodies reference, read at instantiation.
    meshes: super::bodies::Meshes,
    /// The sampled procedural terrain surface, if the scenario has one (built once).
    field: Option<Arc<HeightField>>,
    /// The models, in the order of the list the world was handed.
    models: Vec<Box<dyn Model>>,
    /// The models' warnings of the last steps, for the FMU's log.
    warnings: Vec<String>,
    /// Per body: the planar joint's impulse along x and about y within the current
    /// communication step, N s and N m s (for its mean force and torque outputs).
    joint_impulse: Vec<[f64; 2]>,
    /// Within a communication step: the time of the current sub-step's state since the
    /// step began, s (0 between steps).
    elapsed: f64,
    /// Adaptive sub-steps ([`Model::adaptive_steps`]): the state before the current
    /// piece (its buffers filled at the first such step, reused after).
    step_save: StepSave,
    /// Adaptive sub-steps taken and taken again shorter since the world was made
    /// (for benchmarks; not part of the state).
    adaptive_counts: (u64, u64),
}

/// What a sub-step changes, for adaptive sub-steps to take it again shorter.
#[derive(Default)]
struct StepSave {
    bodies: Vec<RigidBodyState>,
    values: Values,
    models: Vec<Option<ModelState>>,
    joint_impulse: Vec<[f64; 2]>,
}

/// Each model's state into `target` (one slot per model), reusing the buffers of the
/// slots filled before.
fn save_models(models: &[Box<dyn Model>], target: &mut Vec<Option<ModelState>>) {
    target.resize_with(models.len(), || None);
    for (m, t) in models.iter().zip(target.iter_mut()) {
        match t {
            Some(t) => m.save_into(t),
            None => *t = m.save(),
        }
    }
}

/// Adaptive sub-steps: a model step is split into at most 2^ADAPTIVE_LEVELS pieces.
const ADAPTIVE_LEVELS: u32 = 6;

fn start_values(table: &VariableTable) -> Values {
    use super::variables::Start;
    let mut v = Values {
        reals: vec![0.0; table.count(VarType::Real)],
        integers: vec![0; table.count(VarType::Integer)],
        booleans: vec![false; table.count(VarType::Boolean)],
        strings: vec![String::new(); table.count(VarType::String)],
    };
    for var in &table.variables {
        let i = var.vr as usize;
        match &var.start {
            Some(Start::Real(x)) => v.reals[i] = *x,
            Some(Start::Integer(x)) => v.integers[i] = *x,
            Some(Start::Boolean(x)) => v.booleans[i] = *x,
            Some(Start::String(x)) => v.strings[i] = x.clone(),
            None => {}
        }
    }
    v
}

/// Splits a world into the frame its models see and the models themselves.
macro_rules! frame {
    ($w:expr) => {{
        let w = &mut *$w;
        (
            Frame {
                table: &w.table,
                values: &mut w.own.values,
                bodies: &w.layout.bodies,
                states: &mut w.own.bodies,
                loads: &mut w.loads,
                surface: &w.surface,
                meshes: &w.meshes,
                time: w.own.time + w.elapsed,
                gravity_vrs: w.layout.gravity,
                model_step_vr: w.layout.model_step,
            },
            &mut w.models,
        )
    }};
}

impl World {
    /// A world of `models` (declare functions, in call order; `World::new` hands it
    /// every model of [`crate::registry`]) in the state after fmi2Instantiate: start
    /// values, time 0. Files the scenario references (meshes, soil maps) are read from
    /// `asset_dir` (the FMU's resources).
    pub fn with_models(
        scenario: &Scenario,
        asset_dir: Option<&std::path::Path>,
        models: impl IntoIterator<Item = super::model::DeclareFn>,
    ) -> Result<World, WorldError> {
        let (table, layout, mut models) = layout::build(scenario, models);
        let specs: Vec<_> = layout.bodies.iter().map(|b| b.spec.clone()).collect();
        let meshes = super::bodies::load_meshes(&specs, asset_dir).map_err(WorldError::Asset)?;
        let field = match &scenario.terrain.surface {
            crate::scenario::types::SurfaceSpec::Generated(p) => {
                let dir = asset_dir.unwrap_or(std::path::Path::new("."));
                let t = crate::assets::surface::Terrain::new(p, dir)
                    .map_err(|e| WorldError::Asset(format!("terrain.surface: {e}")))?;
                Some(Arc::new(t.grid(p, &|_, _| {})))
            }
            _ => None,
        };
        for m in models.iter_mut() {
            m.load_assets(asset_dir)?;
        }
        let values = start_values(&table);
        let n_bodies = layout.bodies.len();
        let mut world = World {
            own: Own {
                time: scenario.default_experiment.start_time,
                values,
                bodies: vec![RigidBodyState::default(); n_bodies],
                outputs_dirty: true,
                initializing: false,
            },
            loads: vec![BodyLoad::default(); n_bodies],
            meshes,
            field,
            models,
            warnings: vec![],
            joint_impulse: vec![[0.0; 2]; n_bodies],
            elapsed: 0.0,
            step_save: StepSave::default(),
            adaptive_counts: (0, 0),
            surface: Surface::Plane {
                height: 0.0,
                angle: 0.0,
            },
            table: Arc::new(table),
            layout: Arc::new(layout),
        };
        world.apply_initial_conditions()?;
        world.refresh_outputs();
        Ok(world)
    }

    /// The variable table (shared, immutable).
    pub fn table(&self) -> &Arc<VariableTable> {
        &self.table
    }

    /// The terrain surface as the models see it (after initialization: from the
    /// current parameters).
    pub fn surface(&self) -> &Surface {
        &self.surface
    }

    /// Simulation time, s.
    pub fn time(&self) -> f64 {
        self.own.time
    }

    /// Sets the simulation time (fmi2SetupExperiment's startTime).
    pub fn set_time(&mut self, t: f64) {
        self.own.time = t;
    }

    /// The first model of type `T` (for tests and benchmarks).
    pub fn model<T: 'static>(&self) -> Option<&T> {
        self.models.iter().find_map(|m| m.as_any().downcast_ref())
    }

    /// The first model of type `T`, mutable (for tests and benchmarks).
    pub fn model_mut<T: 'static>(&mut self) -> Option<&mut T> {
        self.models
            .iter_mut()
            .find_map(|m| m.as_any_mut().downcast_mut())
    }

    /// Enters initialization mode: initial states follow parameter changes.
    pub fn enter_initialization(&mut self) {
        self.own.initializing = true;
        self.own.outputs_dirty = true;
    }

    /// Leaves initialization mode: initial states from the parameters, outputs computed.
    pub fn exit_initialization(&mut self) -> Result<(), WorldError> {
        self.apply_initial_conditions()?;
        self.own.initializing = false;
        self.refresh_outputs();
        self.check_finite()
    }

    fn real(&self, vr: usize) -> f64 {
        self.own.values.reals[vr]
    }

    fn vec3(&self, vrs: &[usize; 3]) -> Vector3<f64> {
        super::model::vec3(&self.own.values, vrs)
    }

    fn var_name(&self, ty: VarType, vr: usize) -> String {
        self.table.name_of(ty, vr)
    }

    /// The terrain surface from the current parameters.
    fn build_surface(&self) -> Result<Surface, WorldError> {
        Ok(match &self.layout.terrain {
            TerrainVrs::Flat { height } => Surface::Plane {
                height: self.real(*height),
                angle: 0.0,
            },
            TerrainVrs::Inclined { height, angle } => Surface::Plane {
                height: self.real(*height),
                angle: self.real(*angle),
            },
            TerrainVrs::Ramps {
                height,
                starts,
                angles,
            } => {
                let xs: Vec<f64> = starts.iter().map(|&v| self.real(v)).collect();
                for (i, w) in xs.windows(2).enumerate() {
                    if w[1] <= w[0] {
                        return Err(WorldError::BadParameter {
                            name: self.var_name(VarType::Real, starts[i + 1]),
                            reason: format!(
                                "ramps must start at increasing x: {} after {}",
                                w[1], w[0]
                            ),
                        });
                    }
                }
                let a: Vec<f64> = angles.iter().map(|&v| self.real(v)).collect();
                Surface::Profile {
                    points: ramps_profile(self.real(*height), &xs, &a, 100.0),
                }
            }
            TerrainVrs::Profile { xs, zs } => {
                let points: Vec<[f64; 2]> = xs
                    .iter()
                    .zip(zs)
                    .map(|(&x, &z)| [self.real(x), self.real(z)])
                    .collect();
                for (i, w) in points.windows(2).enumerate() {
                    if w[1][0] <= w[0][0] {
                        return Err(WorldError::BadParameter {
                            name: self.var_name(VarType::Real, xs[i + 1]),
                            reason: format!(
                                "profile x must increase: {} after {}",
                                w[1][0], w[0][0]
                            ),
                        });
                    }
                }
                Surface::Profile { points }
            }
            TerrainVrs::Generated => match &self.field {
                Some(f) => Surface::Field(Arc::clone(f)),
                None => {
                    return Err(WorldError::Asset(
                        "terrain.surface: the generated surface was not built".into(),
                    ))
                }
            },
        })
    }

    /// Initial states from the current parameters: the terrain, the free bodies, then
    /// each model's.
    fn apply_initial_conditions(&mut self) -> Result<(), WorldError> {
        self.surface = self.build_surface()?;
        let layout = self.layout.clone();
        for (i, b) in layout.bodies.iter().enumerate() {
            if let MotionVrs::Free { r0, q0, v0, w0, .. } = &b.motion {
                let q = super::model::quaternion(&self.own.values, q0).ok_or_else(|| {
                    WorldError::BadParameter {
                        name: self.var_name(VarType::Real, q0[0]),
                        reason: "the initial orientation quaternion has zero length".into(),
                    }
                })?;
                self.own.bodies[i] = RigidBodyState {
                    r: self.vec3(r0),
                    q,
                    v: self.vec3(v0),
                    w: self.vec3(w0),
                };
            }
        }
        self.sync_kinematic();
        let (mut frame, models) = frame!(self);
        for m in models.iter_mut() {
            m.build(&mut frame)?;
        }
        Ok(())
    }

    /// Extrapolating kinematic bodies: their state from their inputs (at a
    /// communication point, and whenever inputs change).
    fn sync_kinematic(&mut self) {
        for (b, body) in self.layout.bodies.iter().enumerate() {
            if let MotionVrs::Kinematic {
                r,
                q,
                v,
                w,
                extrapolate,
            } = &body.motion
            {
                if self.own.values.booleans[*extrapolate] {
                    let (r, q, v, w) = super::model::kinematic_inputs(&self.own.values, r, q, v, w);
                    self.own.bodies[b] = RigidBodyState { r, q, v, w };
                }
            }
        }
    }

    /// Extrapolating kinematic bodies move on by `dt` with their velocity inputs:
    /// `r += v dt`, `q` turned by `w dt` (exact for constant v, w).
    fn advance_kinematic(&mut self, dt: f64) {
        for (b, body) in self.layout.bodies.iter().enumerate() {
            if let MotionVrs::Kinematic { extrapolate, .. } = &body.motion {
                if self.own.values.booleans[*extrapolate] {
                    self.own.bodies[b].advance_pose(dt);
                }
            }
        }
    }

    /// Every model's wrenches at the current state into `loads`. With `dt > 0` the
    /// models' states advance by a model step of `dt`; with `dt = 0` they are only
    /// evaluated.
    fn evaluate(&mut self, dt: f64) {
        self.loads.fill(BodyLoad::default());
        let (mut frame, models) = frame!(self);
        for m in models.iter_mut() {
            m.evaluate(&mut frame, dt);
        }
    }

    fn substep(&mut self, dt: f64) {
        self.evaluate(dt);
        {
            let (mut frame, models) = frame!(self);
            for m in models.iter_mut() {
                m.after_forces(&mut frame, dt);
            }
        }
        let g = self.vec3(&self.layout.gravity);
        let layout = Arc::clone(&self.layout);
        for (b, body) in layout.bodies.iter().enumerate() {
            if let MotionVrs::Free {
                mass,
                inertia,
                f_ext,
                t_ext,
                locked,
                joint,
                ..
            } = &body.motion
            {
                let m = MassProperties {
                    mass: self.real(*mass),
                    inertia: self.vec3(inertia),
                };
                let mut f = self.loads[b].force;
                let mut t = self.loads[b].torque;
                if let (Some(f_ext), Some(t_ext)) = (f_ext, t_ext) {
                    f += self.vec3(f_ext);
                    t += self.vec3(t_ext);
                }
                if self.own.values.booleans[*locked] {
                    // rotation locked: no spin, no turning
                    self.own.bodies[b].w = Vector3::zeros();
                    t = Vector3::zeros();
                }
                if let Some(j) = joint {
                    let vals = &self.own.values;
                    let vx = j.vx.map(|(i, _)| vals.reals[i]);
                    let omega = j.omega.map(|(i, _)| vals.reals[i]);
                    let (fx, my) = self.own.bodies[b].step_planar(&m, &f, &t, &g, dt, vx, omega);
                    let acc = &mut self.joint_impulse[b];
                    acc[0] += fx * dt;
                    acc[1] += my * dt;
                } else {
                    self.own.bodies[b].step(&m, &f, &t, &g, dt);
                }
            }
        }
        self.advance_kinematic(dt);
        let (mut frame, models) = frame!(self);
        for m in models.iter_mut() {
            m.end_substep(&mut frame);
        }
    }

    /// Advances the world by the communication step `h` (s), in equal sub-steps no
    /// longer than `world.model_step`.
    pub fn do_step(&mut self, h: f64) -> Result<(), WorldError> {
        if !(h > 0.0 && h.is_finite()) {
            return Err(WorldError::BadStepSize(h));
        }
        let model_step = self.real(self.layout.model_step);
        // The small relative slack keeps h = 10 * model_step (with rounding) at 10 sub-steps.
        let substeps = (h / model_step * (1.0 - 1e-9)).ceil().max(1.0);
        if substeps > 1e8 {
            return Err(WorldError::TooManySubsteps {
                h,
                model_step,
                substeps,
            });
        }
        let n = substeps as u64;
        let dt = h / substeps;
        self.sync_kinematic();
        self.joint_impulse.fill([0.0; 2]);
        // adaptive sub-steps end with the evaluation of the end state, the outputs'
        let evaluated = self.models.iter().any(|m| m.adaptive_steps());
        if evaluated {
            self.adaptive_substeps(n, dt, h);
        } else {
            for k in 0..n {
                self.elapsed = k as f64 * dt;
                self.substep(dt);
            }
        }
        self.elapsed = 0.0;
        self.write_joint_outputs(h);
        self.own.time += h;
        if evaluated {
            self.write_outputs();
        } else {
            self.refresh_outputs();
        }
        self.check_finite()?;
        let (mut frame, models) = frame!(self);
        for m in models.iter_mut() {
            m.after_step(&mut frame)?;
        }
        for m in self.models.iter_mut() {
            m.take_warnings(&mut self.warnings);
        }
        Ok(())
    }

    /// `n` sub-steps of `dt` (together the communication step `h`), each split in
    /// halves, quarters, ... (at most 2^ADAPTIVE_LEVELS pieces) as the models'
    /// [`Model::step_bound`] asks. Each piece's end state is evaluated before the piece
    /// is accepted (that evaluation serves the next piece, or the outputs after the
    /// last): where a piece is longer than the bound there (a contact that closed fast
    /// within it went deep), it is taken again in halves from the saved state. The
    /// first piece is as long as the bound of the state the step starts from allows;
    /// after a piece within its bound the next may be twice as long, back to `dt`.
    /// Where no piece is split this is the fixed sub-steps' arithmetic, to the bit.
    fn adaptive_substeps(&mut self, n: u64, dt: f64, h: f64) {
        let per_step: u64 = 1 << ADAPTIVE_LEVELS;
        let tick = dt / per_step as f64;
        let end = n * per_step;
        let fits = |level: u32, bound: f64| (per_step >> level) as f64 * tick <= bound;
        let mut level = 0u32;
        let start_bound = self.step_bound();
        while level < ADAPTIVE_LEVELS && !fits(level, start_bound) {
            level += 1;
        }
        let mut t = 0u64;
        while t < end {
            let span = per_step >> level;
            let piece = span as f64 * tick;
            self.save_step();
            self.elapsed = t as f64 * tick;
            self.substep(piece);
            // the end state's evaluation, at the time the next piece's (or, after the
            // last, the outputs': own.time + h) would take it
            let next = t + span;
            self.elapsed = if next == end { h } else { next as f64 * tick };
            self.evaluate(0.0);
            let bound = self.step_bound();
            if !fits(level, bound) && level < ADAPTIVE_LEVELS {
                self.restore_step();
                self.adaptive_counts.1 += 1;
                level += 1;
                continue;
            }
            self.adaptive_counts.0 += 1;
            t = next;
            if level > 0 && t % (2 * span) == 0 && fits(level - 1, bound) {
                level -= 1;
            }
        }
    }

    /// With adaptive sub-steps: how many sub-steps were accepted, and how many taken
    /// again shorter, since the world was made (for benchmarks).
    pub fn adaptive_counts(&self) -> (u64, u64) {
        self.adaptive_counts
    }

    /// The models' tightest [`Model::step_bound`] after their last evaluation, s.
    fn step_bound(&self) -> f64 {
        self.models
            .iter()
            .map(|m| m.step_bound())
            .fold(f64::INFINITY, f64::min)
    }

    /// Saves what a sub-step changes into `step_save`, reusing its buffers.
    fn save_step(&mut self) {
        let s = &mut self.step_save;
        s.bodies.clone_from(&self.own.bodies);
        s.values.clone_from(&self.own.values);
        s.joint_impulse.clone_from(&self.joint_impulse);
        save_models(&self.models, &mut s.models);
    }

    /// Puts back what [`World::save_step`] saved.
    fn restore_step(&mut self) {
        let s = &self.step_save;
        self.own.bodies.clone_from(&s.bodies);
        self.own.values.clone_from(&s.values);
        self.joint_impulse.clone_from(&s.joint_impulse);
        for (m, state) in self.models.iter_mut().zip(&s.models) {
            if let Some(state) = state {
                m.restore(state);
            }
        }
    }

    /// The joints' mean force and torque over the communication step `h` into their
    /// outputs.
    fn write_joint_outputs(&mut self, h: f64) {
        for (b, body) in self.layout.bodies.iter().enumerate() {
            if let MotionVrs::Free { joint: Some(j), .. } = &body.motion {
                let acc = self.joint_impulse[b];
                if let Some((_, fx)) = j.vx {
                    self.own.values.reals[fx] = acc[0] / h;
                }
                if let Some((_, my)) = j.omega {
                    self.own.values.reals[my] = acc[1] / h;
                }
            }
        }
    }

    /// The models' warnings since the last call (for the FMU's log).
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// fmi2Terminate: each model's last word (e.g. the final soil export), one line.
    pub fn terminate(&mut self) -> Result<Option<String>, WorldError> {
        let (mut frame, models) = frame!(self);
        let mut lines = vec![];
        for m in models.iter_mut() {
            lines.extend(m.terminate(&mut frame)?);
        }
        Ok((!lines.is_empty()).then(|| lines.join("; ")))
    }

    fn check_finite(&self) -> Result<(), WorldError> {
        // one pass over the values without an early exit (so it vectorizes); only a
        // non-finite one looks for its variable, first in the table's order as always
        let reals = &self.own.values.reals;
        if !reals.iter().fold(false, |bad, v| bad | !v.is_finite()) {
            return Ok(());
        }
        for var in &self.table.variables {
            if var.ty == VarType::Real {
                let value = self.own.values.reals[var.vr as usize];
                if !value.is_finite() {
                    return Err(WorldError::NonFinite {
                        time: self.own.time,
                        name: var.name.clone(),
                        value,
                    });
                }
            }
        }
        Ok(())
    }

    /// Writes all outputs from the current state (no model state changes).
    fn refresh_outputs(&mut self) {
        if self.own.initializing {
            // Parameters may have changed: initial states follow them. A bad value is
            // reported at fmi2ExitInitializationMode.
            let _ = self.apply_initial_conditions();
        }
        self.evaluate(0.0);
        self.write_outputs();
    }

    /// The outputs from the current state and the evaluation of it in `loads`.
    fn write_outputs(&mut self) {
        let layout = Arc::clone(&self.layout);
        for (b, body) in layout.bodies.iter().enumerate() {
            let w = self.loads[b];
            let vals = &mut self.own.values;
            if let Some(o) = &body.outputs {
                for k in 0..3 {
                    vals.reals[o.f[k]] = w.force[k];
                    vals.reals[o.t[k]] = w.torque[k];
                }
                vals.booleans[o.contact] = w.in_contact;
            }
            if let MotionVrs::Free { r, q, v, w, .. } = &body.motion {
                let s = &self.own.bodies[b];
                for k in 0..3 {
                    vals.reals[r[k]] = s.r[k];
                    vals.reals[v[k]] = s.v[k];
                    vals.reals[w[k]] = s.w[k];
                }
                let qq = s.q.quaternion();
                vals.reals[q[0]] = qq.w;
                vals.reals[q[1]] = qq.i;
                vals.reals[q[2]] = qq.j;
                vals.reals[q[3]] = qq.k;
            }
        }
        let (mut frame, models) = frame!(self);
        for m in models.iter() {
            m.write_outputs(&mut frame);
        }
        self.own.outputs_dirty = false;
    }

    fn inputs_changed(&mut self) {
        self.own.outputs_dirty = true;
        self.sync_kinematic();
        for m in self.models.iter_mut() {
            m.inputs_changed();
        }
    }

    fn lookup(&self, ty: VarType, vr: u32) -> Result<&Variable, VarError> {
        self.table.get(ty, vr).ok_or(VarError::UnknownVr {
            vr,
            ty: ty.as_str(),
            count: self.table.count(ty),
        })
    }

    fn check_settable(&self, var: &Variable, phase: Phase) -> Result<(), VarError> {
        if var.settable_in(phase) {
            return Ok(());
        }
        Err(VarError::NotSettable {
            name: var.name.clone(),
            causality: var.causality.as_str(),
            variability: var.variability.as_str(),
            when: match phase {
                Phase::Instantiated => "before initialization",
                Phase::Initialization => "in initialization mode",
                Phase::Stepping => "after initialization (only inputs and tunable parameters can)",
            },
        })
    }

    fn prepare_get(&mut self, ty: VarType, vrs: &[u32]) -> Result<(), VarError> {
        for &vr in vrs {
            self.lookup(ty, vr)?;
        }
        if self.own.outputs_dirty {
            self.refresh_outputs();
        }
        Ok(())
    }

    /// Reads Real values (fmi2GetReal). All references are checked before any is read.
    pub fn get_reals(&mut self, vrs: &[u32], out: &mut [f64]) -> Result<(), VarError> {
        self.prepare_get(VarType::Real, vrs)?;
        for (o, &vr) in out.iter_mut().zip(vrs) {
            *o = self.own.values.reals[vr as usize];
        }
        Ok(())
    }

    /// Reads Integer values (fmi2GetInteger).
    pub fn get_integers(&mut self, vrs: &[u32], out: &mut [i32]) -> Result<(), VarError> {
        self.prepare_get(VarType::Integer, vrs)?;
        for (o, &vr) in out.iter_mut().zip(vrs) {
            *o = self.own.values.integers[vr as usize];
        }
        Ok(())
    }

    /// Reads Boolean values (fmi2GetBoolean).
    pub fn get_booleans(&mut self, vrs: &[u32], out: &mut [bool]) -> Result<(), VarError> {
        self.prepare_get(VarType::Boolean, vrs)?;
        for (o, &vr) in out.iter_mut().zip(vrs) {
            *o = self.own.values.booleans[vr as usize];
        }
        Ok(())
    }

    /// The String value of `vr` (fmi2GetString).
    pub fn get_string(&mut self, vr: u32) -> Result<&str, VarError> {
        self.prepare_get(VarType::String, &[vr])?;
        Ok(&self.own.values.strings[vr as usize])
    }

    /// Writes Real values (fmi2SetReal). Every value is checked (reference, may it be
    /// set now, finite, in range) before any is written: a refused call changes nothing.
    pub fn set_reals(&mut self, vrs: &[u32], values: &[f64], phase: Phase) -> Result<(), VarError> {
        for (&vr, &x) in vrs.iter().zip(values) {
            let var = self.lookup(VarType::Real, vr)?;
            self.check_settable(var, phase)?;
            if let Some(reason) = var.bounds.violation(x) {
                return Err(VarError::BadValue {
                    name: var.name.clone(),
                    reason,
                });
            }
        }
        for (&vr, &x) in vrs.iter().zip(values) {
            self.own.values.reals[vr as usize] = x;
        }
        self.inputs_changed();
        Ok(())
    }

    /// Writes Integer values (fmi2SetInteger), checked first like [`World::set_reals`].
    pub fn set_integers(
        &mut self,
        vrs: &[u32],
        values: &[i32],
        phase: Phase,
    ) -> Result<(), VarError> {
        for (&vr, &x) in vrs.iter().zip(values) {
            let var = self.lookup(VarType::Integer, vr)?;
            self.check_settable(var, phase)?;
            if let Some(reason) = var.bounds.violation(x as f64) {
                return Err(VarError::BadValue {
                    name: var.name.clone(),
                    reason,
                });
            }
        }
        for (&vr, &x) in vrs.iter().zip(values) {
            self.own.values.integers[vr as usize] = x;
        }
        self.inputs_changed();
        Ok(())
    }

    /// Writes Boolean values (fmi2SetBoolean), checked first like [`World::set_reals`].
    pub fn set_booleans(
        &mut self,
        vrs: &[u32],
        values: &[bool],
        phase: Phase,
    ) -> Result<(), VarError> {
        for &vr in vrs {
            let var = self.lookup(VarType::Boolean, vr)?;
            self.check_settable(var, phase)?;
        }
        for (&vr, &x) in vrs.iter().zip(values) {
            self.own.values.booleans[vr as usize] = x;
        }
        self.inputs_changed();
        Ok(())
    }

    /// Writes String values (fmi2SetString), checked first like [`World::set_reals`].
    pub fn set_strings(
        &mut self,
        vrs: &[u32],
        values: &[String],
        phase: Phase,
    ) -> Result<(), VarError> {
        for &vr in vrs {
            let var = self.lookup(VarType::String, vr)?;
            self.check_settable(var, phase)?;
        }
        for (&vr, x) in vrs.iter().zip(values) {
            self.own.values.strings[vr as usize].clone_from(x);
        }
        self.inputs_changed();
        Ok(())
    }

    /// A deep copy of everything that changes (for fmi2GetFMUstate).
    pub fn snapshot(&self) -> Dynamic {
        Dynamic {
            time: self.own.time,
            values: self.own.values.clone(),
            bodies: self.own.bodies.clone(),
            models: self.models.iter().map(|m| m.save()).collect(),
            outputs_dirty: self.own.outputs_dirty,
            initializing: self.own.initializing,
        }
    }

    /// Copies the state of this world into an existing snapshot (fmi2GetFMUstate with
    /// a state to overwrite: reuses its buffers).
    pub fn snapshot_into(&self, target: &mut Dynamic) {
        target.time = self.own.time;
        target.values.clone_from(&self.own.values);
        target.bodies.clone_from(&self.own.bodies);
        target.outputs_dirty = self.own.outputs_dirty;
        target.initializing = self.own.initializing;
        save_models(&self.models, &mut target.models);
    }

    /// Reads the model states of a deserialized snapshot (fmi2DeSerializeFMUstate):
    /// each model decodes its own part, and the whole must fit this world.
    pub fn adopt(&self, mut d: Dynamic) -> Result<Dynamic, String> {
        if d.models.len() != self.models.len() {
            return Err(format!(
                "the FMU state does not belong to this model (it has {} model states, this FMU {})",
                d.models.len(),
                self.models.len()
            ));
        }
        for (m, s) in self.models.iter().zip(d.models.iter_mut()) {
            if let Some(ModelState::Encoded(bytes)) = s {
                *s = Some(m.decode_state(bytes)?);
            }
        }
        self.fits(&d)?;
        Ok(d)
    }

    /// Restores a snapshot taken from a world of the same scenario. Refuses one whose
    /// shape does not fit (a state of another FMU).
    pub fn restore(&mut self, d: &Dynamic) -> Result<(), String> {
        self.fits(d)?;
        let rebuild = !d.initializing && self.parameters_differ(&d.values);
        self.own.time = d.time;
        self.own.values.clone_from(&d.values);
        self.own.bodies.clone_from(&d.bodies);
        self.own.initializing = d.initializing;
        // The terrain parameters are part of the values: rebuild the surface from them.
        if let Ok(surface) = self.build_surface() {
            self.surface = surface;
        }
        // A state saved where the parameters were others (another instance of this FMU
        // given other start values, or this one before a reset): what the models derive
        // from them at initialization (shapes, meshes, contact constants) is derived
        // again before their states are restored (the FMI call fuzzer found a restored
        // cylinder keeping the radius of the instance it was restored into, issue 26).
        if rebuild {
            let (mut frame, models) = frame!(self);
            for m in models.iter_mut() {
                m.build(&mut frame).map_err(|e| e.to_string())?;
            }
        }
        // what the models derived from the state they had is void; then each restores
        // its own (BBCC the evaluation of the saved state, when it had one)
        self.inputs_changed();
        for (m, s) in self.models.iter_mut().zip(&d.models) {
            match s {
                Some(ModelState::Encoded(bytes)) => {
                    let s = m.decode_state(bytes)?;
                    m.restore(&s);
                }
                Some(s) => m.restore(s),
                None => {}
            }
        }
        // the saved outputs are the saved state's (evaluating them again would advance
        // the contact memories a second time)
        self.own.outputs_dirty = d.outputs_dirty;
        Ok(())
    }

    /// Do the parameter values in `v` differ from this world's (bit for bit)?
    fn parameters_differ(&self, v: &Values) -> bool {
        let now = &self.own.values;
        self.table.variables.iter().any(|var| {
            if var.causality != super::variables::Causality::Parameter {
                return false;
            }
            let k = var.vr as usize;
            match var.ty {
                VarType::Real => now.reals[k].to_bits() != v.reals[k].to_bits(),
                VarType::Integer => now.integers[k] != v.integers[k],
                VarType::Boolean => now.booleans[k] != v.booleans[k],
                VarType::String => now.strings[k] != v.strings[k],
            }
        })
    }

    /// Does snapshot `d` fit this world (same variables, bodies and model states)?
    pub fn fits(&self, d: &Dynamic) -> Result<(), String> {
        let v = &d.values;
        let t = &self.table;
        if v.reals.len() != t.count(VarType::Real)
            || v.integers.len() != t.count(VarType::Integer)
            || v.booleans.len() != t.count(VarType::Boolean)
            || v.strings.len() != t.count(VarType::String)
            || d.bodies.len() != self.layout.bodies.len()
            || d.models.len() != self.models.len()
        {
            return Err(
                "the FMU state does not belong to this model (its variables or bodies differ)"
                    .into(),
            );
        }
        for (m, s) in self.models.iter().zip(&d.models) {
            match s {
                Some(ModelState::Encoded(bytes)) => m.fits(Some(&m.decode_state(bytes)?))?,
                s => m.fits(s.as_ref())?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_value_reference_names_the_range_there_is() {
        // issue 26: "it has 50 Real variables, value references 0..50" was off by one
        let e = VarError::UnknownVr {
            vr: 50,
            ty: "Real",
            count: 50,
        }
        .to_string();
        assert!(
            e.contains("it has 50 Real variables, value references 0 to 49"),
            "{e}"
        );
        let e = VarError::UnknownVr {
            vr: 0,
            ty: "String",
            count: 0,
        }
        .to_string();
        assert!(e.contains("it has no String variables"), "{e}");
    }
}
