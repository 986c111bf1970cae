//! [`World`]: one simulated scenario.

use super::layout::{self, Layout, MaterialVrs, MotionVrs};
use super::variables::{Phase, VarType, Variable, VariableTable};
use crate::models::bbcc::sphere_plane::{sphere_on_ground, ContactWrench, PairConstants};
use crate::models::bbcc::{harmonic_mean, hunt_crossley, BodyKinematics, ContactMemory};
use crate::models::rigid_body::{MassProperties, RigidBodyState};
use crate::scenario::Scenario;
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Current values of all variables, indexed by value reference per type.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Values {
    pub reals: Vec<f64>,
    pub integers: Vec<i32>,
    pub booleans: Vec<bool>,
    pub strings: Vec<String>,
}

/// Everything that changes while simulating: what an FMU state snapshot holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dynamic {
    /// Simulation time, s.
    pub time: f64,
    pub values: Values,
    /// One per body; used by free bodies.
    pub bodies: Vec<RigidBodyState>,
    /// One per contact pair.
    pub memory: Vec<ContactMemory>,
    /// Inputs or parameters changed since the outputs were computed.
    pub outputs_dirty: bool,
    /// In initialization mode: initial states follow the parameters.
    pub initializing: bool,
}

/// A refused variable access. Messages name the variable.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VarError {
    #[error("value reference {vr} is not a {ty} variable of this FMU (it has {count} {ty} variables, value references 0..{count})")]
    UnknownVr {
        vr: u32,
        ty: &'static str,
        count: usize,
    },
    #[error("variable '{name}' ({causality}, {variability}) cannot be set {when}")]
    NotSettable {
        name: String,
        causality: &'static str,
        variability: &'static str,
        when: &'static str,
    },
    #[error("variable '{name}': {reason}; nothing was set")]
    BadValue { name: String, reason: String },
}

/// A refused step or initialization.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WorldError {
    #[error("communication step size must be > 0 and finite, got {0}")]
    BadStepSize(f64),
    #[error("communication step {h} s needs {substeps} sub-steps of world.model_step = {model_step} s; too many (max 100000000)")]
    TooManySubsteps {
        h: f64,
        model_step: f64,
        substeps: f64,
    },
    #[error("the simulation became non-finite at t = {time} s: '{name}' = {value}")]
    NonFinite { time: f64, name: String, value: f64 },
    #[error("parameter '{name}': {reason}")]
    BadParameter { name: String, reason: String },
}

/// One simulated scenario: variables, model states, stepping.
pub struct World {
    table: Arc<VariableTable>,
    layout: Arc<Layout>,
    dynamic: Dynamic,
    /// Per-body contact wrench of the current sub-step (preallocated: no allocation
    /// while stepping).
    scratch: Vec<ContactWrench>,
}

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

impl World {
    /// A world in the state after fmi2Instantiate: start values, time 0.
    pub fn new(scenario: &Scenario) -> World {
        let (table, layout) = layout::build(scenario);
        let values = start_values(&table);
        let n_bodies = layout.bodies.len();
        let n_pairs = layout.ground_pairs.len();
        let mut world = World {
            table: Arc::new(table),
            layout: Arc::new(layout),
            dynamic: Dynamic {
                time: scenario.default_experiment.start_time,
                values,
                bodies: vec![RigidBodyState::default(); n_bodies],
                memory: vec![ContactMemory::default(); n_pairs],
                outputs_dirty: true,
                initializing: false,
            },
            scratch: vec![ContactWrench::default(); n_bodies],
        };
        // Valid start values cannot fail here (the scenario was validated).
        let _ = world.apply_initial_conditions();
        world.refresh_outputs();
        world
    }

    /// The variable table (shared, immutable).
    pub fn table(&self) -> &Arc<VariableTable> {
        &self.table
    }

    /// Simulation time, s.
    pub fn time(&self) -> f64 {
        self.dynamic.time
    }

    /// Sets the simulation time (fmi2SetupExperiment's startTime).
    pub fn set_time(&mut self, t: f64) {
        self.dynamic.time = t;
    }

    /// Enters initialization mode: initial states follow parameter changes.
    pub fn enter_initialization(&mut self) {
        self.dynamic.initializing = true;
        self.dynamic.outputs_dirty = true;
    }

    /// Leaves initialization mode: initial states from the parameters, outputs computed.
    pub fn exit_initialization(&mut self) -> Result<(), WorldError> {
        self.apply_initial_conditions()?;
        self.dynamic.initializing = false;
        self.refresh_outputs();
        self.check_finite()
    }

    fn real(&self, vr: usize) -> f64 {
        self.dynamic.values.reals[vr]
    }

    fn vec3(&self, vrs: &[usize; 3]) -> Vector3<f64> {
        Vector3::new(self.real(vrs[0]), self.real(vrs[1]), self.real(vrs[2]))
    }

    fn quaternion(&self, vrs: &[usize; 4]) -> Option<UnitQuaternion<f64>> {
        let q = Quaternion::new(
            self.real(vrs[0]),
            self.real(vrs[1]),
            self.real(vrs[2]),
            self.real(vrs[3]),
        );
        let n = q.norm();
        (n > 1e-12 && n.is_finite()).then(|| UnitQuaternion::from_quaternion(q))
    }

    fn apply_initial_conditions(&mut self) -> Result<(), WorldError> {
        let layout = self.layout.clone();
        for (i, b) in layout.bodies.iter().enumerate() {
            if let MotionVrs::Free { r0, q0, v0, w0, .. } = &b.motion {
                let q = self
                    .quaternion(q0)
                    .ok_or_else(|| WorldError::BadParameter {
                        name: self
                            .table
                            .get(VarType::Real, q0[0] as u32)
                            .map(|v| v.name.clone())
                            .unwrap_or_default(),
                        reason: "the initial orientation quaternion has zero length".into(),
                    })?;
                self.dynamic.bodies[i] = RigidBodyState {
                    r: self.vec3(r0),
                    q,
                    v: self.vec3(v0),
                    w: self.vec3(w0),
                };
            }
        }
        Ok(())
    }

    fn material_of(&self, m: &MaterialVrs) -> (f64, f64, f64, f64) {
        (
            self.real(m.e),
            self.real(m.nu),
            self.real(m.zeta),
            self.real(m.mu),
        )
    }

    /// Constants of the contact of body `b` with the ground, from the current parameters.
    fn ground_constants(&self, b: usize) -> PairConstants {
        let body = &self.layout.bodies[b];
        let (e1, nu1, z1, mu1) = self.material_of(&body.material);
        let (e2, nu2, z2, mu2) = self.material_of(&self.layout.terrain_material);
        // Buse 2023 section 4.1.1: 1/R = 1/R_1 + 1/R_2; the flat ground is unbounded.
        let r_eff = hunt_crossley::effective_radius(self.real(body.contact_length), f64::INFINITY);
        PairConstants {
            k: hunt_crossley::stiffness(r_eff, e1, nu1, e2, nu2),
            zeta: harmonic_mean(z1, z2),
            mu: harmonic_mean(mu1, mu2),
            v_d: self.real(self.layout.v_d),
            impact_velocity_min: self.real(self.layout.impact_velocity_min),
        }
    }

    /// Position, velocity and angular velocity of body `b` (world).
    fn motion_of(&self, b: usize) -> BodyKinematics {
        match &self.layout.bodies[b].motion {
            MotionVrs::Kinematic { r, v, w, .. } => BodyKinematics {
                r: self.vec3(r),
                v: self.vec3(v),
                w: self.vec3(w),
            },
            MotionVrs::Free { .. } => {
                let s = &self.dynamic.bodies[b];
                BodyKinematics {
                    r: s.r,
                    v: s.v,
                    w: s.w,
                }
            }
        }
    }

    /// Contact wrenches of all bodies at the current state into `scratch`. With
    /// `advance`, contact memories move on (a model step).
    fn evaluate_contacts(&mut self, advance: bool) {
        for w in self.scratch.iter_mut() {
            *w = ContactWrench::default();
        }
        let ground = self.real(self.layout.terrain_height);
        for p in 0..self.layout.ground_pairs.len() {
            let b = self.layout.ground_pairs[p];
            let body = self.motion_of(b);
            let c = self.ground_constants(b);
            let radius = self.real(self.layout.bodies[b].radius);
            let mut memory = self.dynamic.memory[p];
            let cw = sphere_on_ground(&body, radius, ground, &c, &mut memory, advance);
            if advance {
                self.dynamic.memory[p] = memory;
            }
            let acc = &mut self.scratch[b];
            acc.force += cw.force;
            acc.torque += cw.torque;
            acc.depth = acc.depth.max(cw.depth);
            acc.in_contact |= cw.in_contact;
        }
    }

    fn substep(&mut self, dt: f64) {
        self.evaluate_contacts(true);
        let g = self.vec3(&self.layout.gravity);
        let layout = Arc::clone(&self.layout);
        for (b, body) in layout.bodies.iter().enumerate() {
            if let MotionVrs::Free {
                mass,
                inertia,
                f_ext,
                t_ext,
                ..
            } = &body.motion
            {
                let m = MassProperties {
                    mass: self.real(*mass),
                    inertia: self.vec3(inertia),
                };
                let f = self.scratch[b].force + self.vec3(f_ext);
                let t = self.scratch[b].torque + self.vec3(t_ext);
                self.dynamic.bodies[b].step(&m, &f, &t, &g, dt);
            }
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
        for _ in 0..n {
            self.substep(dt);
        }
        self.dynamic.time += h;
        self.refresh_outputs();
        self.check_finite()
    }

    fn check_finite(&self) -> Result<(), WorldError> {
        for var in &self.table.variables {
            if var.ty == VarType::Real {
                let value = self.dynamic.values.reals[var.vr as usize];
                if !value.is_finite() {
                    return Err(WorldError::NonFinite {
                        time: self.dynamic.time,
                        name: var.name.clone(),
                        value,
                    });
                }
            }
        }
        Ok(())
    }

    /// Writes all outputs from the current state (no model memory changes).
    fn refresh_outputs(&mut self) {
        if self.dynamic.initializing {
            // Parameters may have changed: initial states follow them. A bad value is
            // reported at fmi2ExitInitializationMode.
            let _ = self.apply_initial_conditions();
        }
        self.evaluate_contacts(false);
        let layout = Arc::clone(&self.layout);
        let vals = &mut self.dynamic.values;
        for (b, body) in layout.bodies.iter().enumerate() {
            let w = self.scratch[b];
            for k in 0..3 {
                vals.reals[body.f[k]] = w.force[k];
                vals.reals[body.t[k]] = w.torque[k];
            }
            vals.reals[body.penetration] = w.depth;
            vals.booleans[body.contact] = w.in_contact;
            if let MotionVrs::Free { r, q, v, w, .. } = &body.motion {
                let s = &self.dynamic.bodies[b];
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
        self.dynamic.outputs_dirty = false;
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
        if self.dynamic.outputs_dirty {
            self.refresh_outputs();
        }
        Ok(())
    }

    /// Reads Real values (fmi2GetReal). All references are checked before any is read.
    pub fn get_reals(&mut self, vrs: &[u32], out: &mut [f64]) -> Result<(), VarError> {
        self.prepare_get(VarType::Real, vrs)?;
        for (o, &vr) in out.iter_mut().zip(vrs) {
            *o = self.dynamic.values.reals[vr as usize];
        }
        Ok(())
    }

    /// Reads Integer values (fmi2GetInteger).
    pub fn get_integers(&mut self, vrs: &[u32], out: &mut [i32]) -> Result<(), VarError> {
        self.prepare_get(VarType::Integer, vrs)?;
        for (o, &vr) in out.iter_mut().zip(vrs) {
            *o = self.dynamic.values.integers[vr as usize];
        }
        Ok(())
    }

    /// Reads Boolean values (fmi2GetBoolean).
    pub fn get_booleans(&mut self, vrs: &[u32], out: &mut [bool]) -> Result<(), VarError> {
        self.prepare_get(VarType::Boolean, vrs)?;
        for (o, &vr) in out.iter_mut().zip(vrs) {
            *o = self.dynamic.values.booleans[vr as usize];
        }
        Ok(())
    }

    /// The String value of `vr` (fmi2GetString).
    pub fn get_string(&mut self, vr: u32) -> Result<&str, VarError> {
        self.prepare_get(VarType::String, &[vr])?;
        Ok(&self.dynamic.values.strings[vr as usize])
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
            self.dynamic.values.reals[vr as usize] = x;
        }
        self.dynamic.outputs_dirty = true;
        Ok(())
    }

    /// Writes Integer values (fmi2SetInteger), checked first like [`World::set_reals`].
    pub fn set_integers(
        &mut self,
        vrs: &[u32],
        values: &[i32],
        phase: Phase,
    ) -> Result<(), VarError> {
        for &vr in vrs {
            let var = self.lookup(VarType::Integer, vr)?;
            self.check_settable(var, phase)?;
        }
        for (&vr, &x) in vrs.iter().zip(values) {
            self.dynamic.values.integers[vr as usize] = x;
        }
        self.dynamic.outputs_dirty = true;
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
            self.dynamic.values.booleans[vr as usize] = x;
        }
        self.dynamic.outputs_dirty = true;
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
            self.dynamic.values.strings[vr as usize].clone_from(x);
        }
        self.dynamic.outputs_dirty = true;
        Ok(())
    }

    /// A deep copy of everything that changes (for fmi2GetFMUstate).
    pub fn snapshot(&self) -> Dynamic {
        self.dynamic.clone()
    }

    /// Copies the state of this world into an existing snapshot (fmi2GetFMUstate with
    /// a state to overwrite: reuses its buffers).
    pub fn snapshot_into(&self, target: &mut Dynamic) {
        target.clone_from(&self.dynamic);
    }

    /// Restores a snapshot taken from a world of the same scenario. Refuses one whose
    /// shape does not fit (a state of another FMU).
    pub fn restore(&mut self, d: &Dynamic) -> Result<(), String> {
        self.fits(d)?;
        self.dynamic.clone_from(d);
        Ok(())
    }

    /// Does snapshot `d` fit this world (same variables, bodies and contact pairs)?
    pub fn fits(&self, d: &Dynamic) -> Result<(), String> {
        let v = &d.values;
        let t = &self.table;
        if v.reals.len() != t.count(VarType::Real)
            || v.integers.len() != t.count(VarType::Integer)
            || v.booleans.len() != t.count(VarType::Boolean)
            || v.strings.len() != t.count(VarType::String)
            || d.bodies.len() != self.layout.bodies.len()
            || d.memory.len() != self.layout.ground_pairs.len()
        {
            return Err(
                "the FMU state does not belong to this model (its variables or bodies differ)"
                    .into(),
            );
        }
        Ok(())
    }
}
