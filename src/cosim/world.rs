//! [`World`]: one simulated scenario.

use super::layout::{
    self, Layout, MaterialVrs, MotionVrs, ShapeVrs, SoilClassVrs, TerrainVrs, WheelSoilVrs,
};
use super::variables::{Phase, VarType, Variable, VariableTable};
use crate::models::bbcc::broad_phase::SweepAndPrune;
use crate::models::bbcc::pair::{pair_wrench, BodyPose, PairLaw};
use crate::models::bbcc::sphere_plane::{sphere_on_surface, ContactWrench, PairConstants};
use crate::models::bbcc::{harmonic_mean, hunt_crossley, BodyKinematics, ContactMemory};
use crate::models::rig::{RigDrive, RigMode, RigState};
use crate::models::rigid_body::{MassProperties, RigidBodyState};
use crate::models::scm::{self, BodyMotion, ContactResult, SoilGrid, SoilParams, TriMesh};
use crate::models::single_wheel::{self, RigReport};
use crate::models::terra::{self, TerraInput, TerraOutput, TerraParams, TerraState};
use crate::models::terrain::{ramps_profile, Surface};
use crate::parallel;
use crate::scenario::Scenario;
use nalgebra::Isometry3;
use nalgebra::{Quaternion, UnitQuaternion, Vector3};
use parry3d_f64::bounding_volume::Aabb;
use parry3d_f64::shape::SharedShape;
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
    /// One per BBCC contact pair.
    pub memory: Vec<ContactMemory>,
    /// One per TerRA force-element wheel.
    pub terra: Vec<TerraState>,
    /// The single-wheel rig: hub state and its wheel's TerRA state.
    pub rig: Option<(RigState, TerraState)>,
    /// The SCM soil.
    pub soil: Option<SoilState>,
    /// Inputs or parameters changed since the outputs were computed.
    pub outputs_dirty: bool,
    /// In initialization mode: initial states follow the parameters.
    pub initializing: bool,
}

/// The SCM soil and its clocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SoilState {
    pub grid: SoilGrid,
    /// Time since the last soil update, s.
    pub since_update: f64,
    /// Time of the next periodic export, s.
    pub next_export: f64,
    /// Per SCM body (then the rig's wheel): its motion at the end of the last
    /// sub-step, the "last known object position" the soil yields to in the next
    /// update (Buse 2023, section 4.2). Empty before the first sub-step.
    pub held: Vec<BodyMotion>,
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
    #[error("{0}")]
    Asset(String),
    #[error("soil export: {0}")]
    Export(String),
}

/// The pose of the rig's wheel in world: at (x, 0, z), turned by its angle about y.
fn rig_wheel_pose(rig: &RigState) -> Isometry3<f64> {
    Isometry3::new(Vector3::new(rig.x, 0.0, rig.z), Vector3::y() * rig.angle)
}

/// One simulated scenario: variables, model states, stepping.
pub struct World {
    table: Arc<VariableTable>,
    layout: Arc<Layout>,
    dynamic: Dynamic,
    /// The terrain surface, built from the (fixed) terrain parameters at
    /// initialization.
    surface: Surface,
    /// Per-body contact wrench of the current sub-step (preallocated: no allocation
    /// while stepping).
    scratch: Vec<ContactWrench>,
    /// The BBCC part of it, kept so that the evaluation at the end of a step (for the
    /// outputs) serves the first sub-step of the next one.
    bbcc_wrench: Vec<ContactWrench>,
    /// `bbcc_wrench` holds the BBCC contacts of the current state (nothing moved and
    /// no input changed since).
    bbcc_fresh: bool,
    /// Per TerRA wheel: the last evaluation and the state it implies, for the outputs.
    terra_out: Vec<(TerraInput, TerraOutput, TerraState)>,
    /// The rig's last evaluation and its wheel's state, for the outputs.
    rig_out: (RigReport, TerraState),
    /// The rig's last SCM evaluation.
    rig_scm_out: ContactResult,
    /// BBCC: the scenario's mesh vertices, read at instantiation.
    meshes: super::bodies::Meshes,
    /// The sampled procedural terrain surface, if the scenario has one (built once).
    field: Option<Arc<crate::models::terrain::HeightField>>,
    /// BBCC: each body's parry shape (built at initialization), None for non-BBCC bodies.
    shapes: Vec<Option<SharedShape>>,
    /// BBCC: R_i of each body when its `contact_length` is 0 (auto): the longest edge.
    auto_length: Vec<f64>,
    /// BBCC: the terrain as a half-space, for plane surfaces.
    halfspace: Option<(SharedShape, Isometry3<f64>)>,
    /// BBCC work buffers (no allocation while stepping).
    poses: Vec<BodyPose>,
    boxes: Vec<Option<Aabb>>,
    sweep: SweepAndPrune,
    candidates: Vec<(u32, u32)>,
    seen: Vec<bool>,
    touching: Vec<i32>,
    /// n x n: index into `layout.bbcc_pairs`, or u32::MAX.
    pair_index: Vec<u32>,
    /// Broad-phase candidate pairs and narrow-phase queries of the last sub-step.
    stats: (usize, usize),
    /// SCM: contact meshes of `layout.scm_bodies`, then the rig's wheel (built at
    /// initialization), their poses and work buffers.
    scm_meshes: Vec<TriMesh>,
    scm_motion: Vec<BodyMotion>,
    scm_ws: Vec<scm::Workspace>,
    /// Per SCM body: moved by its contact forces (a free body, the rig's wheel), so
    /// that a sub-step needs its forces; kinematic and fixed bodies only need theirs
    /// for the outputs.
    scm_dynamic: Vec<bool>,
    /// Per SCM body: the motion, parameters and soil epoch its work buffer's
    /// evaluation was made at (None: it holds none, e.g. after a soil update).
    scm_tag: Vec<Option<(BodyMotion, SoilParams, u64)>>,
    /// Bumped whenever the soil or the surface changes (update, restore, rebuild).
    scm_epoch: u64,
    /// The rig's SCM wheel is scan-converted at its next pose during the soil update
    /// (see [`scm::contact::scan_ahead`]); off only to test that it changes nothing.
    scm_scan_ahead: bool,
    /// Scratch: the motion to evaluate each body at, and whether to.
    scm_at: Vec<BodyMotion>,
    /// Scratch: each body's motion at the start of the current sub-step (where its
    /// forces were taken).
    scm_start: Vec<BodyMotion>,
    scm_pick: Vec<bool>,
    /// SCM soil classes per node (`scm.soil_map`), attached to the soil grid.
    scm_map: Option<Arc<scm::soil_map::SoilMap>>,
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

/// Is the world AABB of `shape` at `pose` entirely above the terrain plane (through
/// `plane.translation`, normal from `surface`)?
/// Reads the soil class map of `scm.soil_map` (its file relative to `dir`) and checks
/// that every class it uses is defined.
fn read_soil_map(
    m: &crate::scenario::ScmSoilMap,
    dir: Option<&std::path::Path>,
) -> Result<scm::soil_map::SoilMap, WorldError> {
    let err = |e: String| WorldError::Asset(format!("scm.soil_map.file '{}': {e}", m.file));
    let dir = dir.ok_or_else(|| err("no folder to read it from".into()))?;
    let path = crate::scenario::resolve_asset(dir, &m.file).map_err(err)?;
    let (nx, ny, class) = crate::assets::surface::read_classes(&path, "scm.soil_map.file")
        .map_err(|e| err(e.to_string()))?;
    if let Some(&top) = class
        .iter()
        .max()
        .filter(|&&c| c as usize > m.classes.len())
    {
        return Err(err(format!(
            "uses class {top}, but scm.soil_map.classes defines {} (classes 1 to {})",
            m.classes.len(),
            m.classes.len()
        )));
    }
    Ok(scm::soil_map::SoilMap {
        origin: m.origin,
        cell: m.cell,
        nx,
        ny,
        class,
        classes: m
            .classes
            .iter()
            .map(|c| scm::soil_map::ClassParams {
                n: c.n,
                k_c: c.kc,
                k_phi: c.kphi,
                c: c.c,
                phi: c.phi,
                repose: c.repose,
            })
            .collect(),
    })
}

fn above_plane(
    shape: &dyn parry3d_f64::shape::Shape,
    pose: &Isometry3<f64>,
    plane: &Isometry3<f64>,
    surface: &Surface,
) -> bool {
    let Surface::Plane { angle, .. } = surface else {
        return false;
    };
    let n = Vector3::new(-angle.sin(), 0.0, angle.cos());
    let aabb = shape.compute_aabb(pose);
    // the box corner furthest along -n
    let corner = Vector3::new(
        if n.x > 0.0 { aabb.mins.x } else { aabb.maxs.x },
        if n.y > 0.0 { aabb.mins.y } else { aabb.maxs.y },
        if n.z > 0.0 { aabb.mins.z } else { aabb.maxs.z },
    );
    (corner - plane.translation.vector).dot(&n) > 0.0
}

/// Hub geometry of a TerRA wheel over the terrain, for any axle orientation.
struct WheelGeometry {
    input: TerraInput,
    /// Terrain normal at the contact.
    normal: Vector3<f64>,
    /// Forward direction: axle x normal.
    forward: Vector3<f64>,
    /// From the hub to the lowest wheel point.
    lever: Vector3<f64>,
}

impl World {
    /// A world in the state after fmi2Instantiate: start values, time 0. Mesh files
    /// the scenario references are read from `asset_dir` (the FMU's resources).
    pub fn new(
        scenario: &Scenario,
        asset_dir: Option<&std::path::Path>,
    ) -> Result<World, WorldError> {
        let (table, layout) = layout::build(scenario);
        let meshes =
            super::bodies::load_meshes(&layout.shapes, asset_dir).map_err(WorldError::Asset)?;
        let field = match &scenario.terrain.surface {
            crate::scenario::SurfaceSpec::Generated(p) => {
                let dir = asset_dir.unwrap_or(std::path::Path::new("."));
                let t = crate::assets::surface::Terrain::new(p, dir)
                    .map_err(|e| WorldError::Asset(format!("terrain.surface: {e}")))?;
                Some(Arc::new(t.grid(p, &|_, _| {})))
            }
            _ => None,
        };
        let scm_map = match scenario.scm.as_ref().and_then(|s| s.soil_map.as_ref()) {
            Some(m) => Some(Arc::new(read_soil_map(m, asset_dir)?)),
            None => None,
        };
        let n = layout.bodies.len();
        let mut pair_index = vec![u32::MAX; n * n];
        for (k, &(i, j)) in layout.bbcc_pairs.iter().enumerate() {
            pair_index[i * n + j] = k as u32;
        }
        let values = start_values(&table);
        let n_bodies = layout.bodies.len();
        let mut world = World {
            dynamic: Dynamic {
                time: scenario.default_experiment.start_time,
                values,
                bodies: vec![RigidBodyState::default(); n_bodies],
                memory: vec![
                    ContactMemory::default();
                    layout.ground_pairs.len() + layout.bbcc_pairs.len()
                ],
                terra: vec![TerraState::default(); layout.terra_wheels.len()],
                rig: layout
                    .rig
                    .map(|_| (RigState::default(), TerraState::default())),
                soil: None,
                outputs_dirty: true,
                initializing: false,
            },
            scratch: vec![ContactWrench::default(); n_bodies],
            bbcc_wrench: vec![ContactWrench::default(); n_bodies],
            bbcc_fresh: false,
            terra_out: vec![Default::default(); layout.terra_wheels.len()],
            rig_out: (RigReport::default(), TerraState::default()),
            rig_scm_out: ContactResult::default(),
            meshes,
            field,
            shapes: vec![None; n],
            auto_length: vec![0.0; n],
            halfspace: None,
            poses: vec![
                BodyPose {
                    iso: Isometry3::identity(),
                    v: Vector3::zeros(),
                    w: Vector3::zeros()
                };
                n
            ],
            boxes: vec![None; n],
            sweep: SweepAndPrune::default(),
            candidates: Vec::with_capacity(layout.bbcc_pairs.len().min(4096)),
            seen: vec![false; layout.bbcc_pairs.len()],
            touching: vec![0; n],
            pair_index,
            stats: (0, 0),
            scm_meshes: vec![],
            scm_motion: vec![],
            scm_ws: vec![],
            scm_dynamic: vec![],
            scm_tag: vec![],
            scm_epoch: 0,
            scm_scan_ahead: true,
            scm_at: vec![],
            scm_start: vec![],
            scm_pick: vec![],
            scm_map,
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

    /// Broad-phase candidate pairs and narrow-phase queries of the last sub-step.
    pub fn contact_stats(&self) -> (usize, usize) {
        self.stats
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

    fn var_name(&self, ty: VarType, vr: usize) -> String {
        self.table
            .get(ty, vr as u32)
            .map(|v| v.name.clone())
            .unwrap_or_default()
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

    /// Builds the BBCC shapes from the scenario and the current (fixed) parameters.
    fn build_shapes(&mut self) -> Result<(), WorldError> {
        let layout = self.layout.clone();
        let in_bbcc: Vec<bool> = (0..layout.bodies.len())
            .map(|b| {
                layout.ground_pairs.contains(&b)
                    || layout.bbcc_pairs.iter().any(|&(i, j)| i == b || j == b)
            })
            .collect();
        for (b, body) in layout.bodies.iter().enumerate() {
            self.shapes[b] = None;
            if !in_bbcc[b] {
                continue;
            }
            let name = self
                .table
                .variables
                .iter()
                .find(|v| v.name.ends_with(".f[1]") && v.vr as usize == body.f[0])
                .map(|v| v.name.trim_end_matches(".f[1]").to_string())
                .unwrap_or_default();
            let geometry = super::bodies::geometry(
                &layout.shapes[b],
                &body.shape,
                &self.dynamic.values.reals,
                &self.dynamic.values.integers,
                &self.meshes,
            )
            .map_err(|e| WorldError::Asset(format!("body '{name}': {e}")))?
            .ok_or_else(|| WorldError::Asset(format!("body '{name}' has no BBCC shape")))?;
            let shape = crate::models::bbcc::shapes::build(&geometry)
                .map_err(|e| WorldError::Asset(format!("body '{name}': {e}")))?;
            self.auto_length[b] = crate::models::bbcc::shapes::longest_edge(&shape);
            self.shapes[b] = Some(shape);
        }
        self.halfspace = match self.surface {
            Surface::Plane { height, angle } => Some((
                SharedShape::halfspace(nalgebra::Unit::new_normalize(Vector3::new(
                    -angle.sin(),
                    0.0,
                    angle.cos(),
                ))),
                Isometry3::translation(0.0, 0.0, height),
            )),
            Surface::Profile { .. } | Surface::Field(_) => None,
        };
        Ok(())
    }

    fn apply_initial_conditions(&mut self) -> Result<(), WorldError> {
        self.bbcc_fresh = false;
        self.surface = self.build_surface()?;
        self.build_shapes()?;
        let layout = self.layout.clone();
        for (i, b) in layout.bodies.iter().enumerate() {
            if let MotionVrs::Free { r0, q0, v0, w0, .. } = &b.motion {
                let q = self
                    .quaternion(q0)
                    .ok_or_else(|| WorldError::BadParameter {
                        name: self.var_name(VarType::Real, q0[0]),
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
        for s in self.dynamic.terra.iter_mut() {
            *s = TerraState::default();
        }
        if let Some(r) = &layout.rig {
            let mode = self.dynamic.values.integers[r.mode];
            if RigMode::from_code(mode).is_none() {
                return Err(WorldError::BadParameter {
                    name: "rig.mode".into(),
                    reason: format!(
                        "must be 1 (slip-controlled) or 2 (force-controlled), got {mode}"
                    ),
                });
            }
            let rig = RigState {
                x: self.real(r.x0),
                z: self.real(r.z0),
                ..Default::default()
            };
            self.dynamic.rig = Some((rig, TerraState::default()));
        }
        self.build_scm()
    }

    /// SCM: a fresh soil field and the contact meshes, from the current parameters.
    fn build_scm(&mut self) -> Result<(), WorldError> {
        let layout = self.layout.clone();
        let Some(sv) = layout.scm else {
            return Ok(());
        };
        let ds = self.real(sv.ds);
        let e = sv.extent.map(|v| self.real(v));
        if e[1] <= e[0] || e[3] <= e[2] {
            return Err(WorldError::BadParameter {
                name: "soil.extent".into(),
                reason: format!("must be [x_min, x_max, y_min, y_max] with min < max, got {e:?}"),
            });
        }
        if ((e[1] - e[0]) / ds).max((e[3] - e[2]) / ds) > 1e9 {
            return Err(WorldError::BadParameter {
                name: "soil.ds".into(),
                reason: format!("{ds} m gives more than 1e9 nodes along a side of the field"),
            });
        }
        let mut grid = SoilGrid::new(ds, e[0], e[1], e[2], e[3]);
        grid.set_soil_map(self.scm_map.clone());
        self.dynamic.soil = Some(SoilState {
            grid,
            since_update: 0.0,
            next_export: self.dynamic.time + self.real(sv.export_interval),
            held: vec![],
        });
        self.scm_meshes.clear();
        for &b in &layout.scm_bodies {
            let body = &layout.bodies[b];
            let mesh = super::bodies::scm_mesh(
                &layout.shapes[b],
                &body.shape,
                &self.dynamic.values.reals,
                &self.dynamic.values.integers,
                &self.meshes,
                ds,
            )
            .map_err(|e| WorldError::Asset(format!("SCM body '{}': {e}", self.body_name(b))))?;
            self.scm_meshes.push(mesh);
        }
        if let Some((_, count, height, thickness, _)) = layout.rig.and_then(|r| r.scm) {
            let r = layout.rig.expect("rig");
            let radius = self.real(r.radius);
            self.scm_meshes.push(TriMesh::grouser_wheel(
                radius,
                self.real(r.width),
                self.dynamic.values.integers[count].max(0) as u32,
                self.real(height),
                self.real(thickness),
                scm::mesh::segments(radius, ds),
            ));
        }
        let n = self.scm_meshes.len();
        self.scm_motion = vec![
            BodyMotion {
                iso: Isometry3::identity(),
                v: Vector3::zeros(),
                w: Vector3::zeros(),
            };
            n
        ];
        self.scm_ws.resize_with(n, Default::default);
        self.scm_dynamic = layout
            .scm_bodies
            .iter()
            .map(|&b| matches!(layout.bodies[b].motion, MotionVrs::Free { .. }))
            .collect();
        if layout.rig.is_some_and(|r| r.scm.is_some()) {
            self.scm_dynamic.push(true);
        }
        self.scm_tag = vec![None; n];
        self.scm_epoch += 1;
        self.scm_at = self.scm_motion.clone();
        self.scm_start = self.scm_motion.clone();
        self.scm_pick = vec![false; n];
        Ok(())
    }

    fn body_name(&self, b: usize) -> String {
        let f = self.layout.bodies[b].f[0];
        self.var_name(VarType::Real, f)
            .trim_end_matches(".f[1]")
            .to_string()
    }

    /// SCM soil parameters from the current values.
    fn scm_params(&self) -> Option<SoilParams> {
        let v = self.layout.scm?;
        Some(SoilParams {
            n: self.real(v.n),
            k_c: self.real(v.kc),
            k_phi: self.real(v.kphi),
            c: self.real(v.c),
            phi: self.real(v.phi),
            repose: self.real(v.repose),
            mu: self.real(v.mu),
            k_e: self.real(v.k_e),
            damping: self.real(v.damping),
            v_shear: self.real(v.v_shear),
            k_shear: self.real(v.k_shear),
            erosion_sweeps: self.dynamic.values.integers[v.erosion_sweeps].max(0) as u32,
            density: self.real(v.density),
            gravity: self.vec3(&self.layout.gravity).norm(),
            side_pressure: self.dynamic.values.booleans[v.side_pressure],
        })
    }

    /// SCM: contact forces of the SCM bodies (and the rig's wheel) at the current
    /// state, in parallel over the bodies; each body's result lands in its own work
    /// buffer, so the outcome does not depend on the thread count.
    ///
    /// In a sub-step (`advance`) only the bodies its forces move are needed; for the
    /// outputs all are. A body whose last evaluation was of this very state (motion,
    /// parameters, soil) keeps it.
    fn scm_contacts(&mut self, advance: bool) {
        let Some(p) = self.scm_params() else {
            return;
        };
        self.scm_sync_classes();
        self.scm_current_motions();
        if advance {
            // where the sub-step finds the bodies (the soil update's free bodies)
            self.scm_start.copy_from_slice(&self.scm_motion);
        }
        for m in 0..self.scm_ws.len() {
            let needed = !advance || self.scm_dynamic[m];
            self.scm_at[m] = self.scm_motion[m];
            self.scm_pick[m] =
                needed && self.scm_tag[m] != Some((self.scm_motion[m], p, self.scm_epoch));
        }
        self.scm_evaluate_picked(&p);
        let layout = Arc::clone(&self.layout);
        for (m, &b) in layout.scm_bodies.iter().enumerate() {
            if advance && !self.scm_dynamic[m] {
                continue;
            }
            let r = self.scm_ws[m].result;
            let acc = &mut self.scratch[b];
            acc.force += r.force;
            acc.torque += r.torque;
            acc.depth = acc.depth.max(r.sinkage);
            acc.in_contact |= r.contact_nodes > 0;
        }
    }

    /// Makes the soil classes the soil uses those of the `soil.class<c>.*` parameters
    /// now: when one changed (set between steps, or by a restored state), a new class
    /// table goes to the soil, and the epoch moves on so that no evaluation of the old
    /// classes is reused. Compares only, unless something changed.
    fn scm_sync_classes(&mut self) {
        let Some(map) = &self.scm_map else {
            return;
        };
        let reals = &self.dynamic.values.reals;
        // class c as its parameters set it now (the values it leaves out stay None)
        let now = |v: &SoilClassVrs, c: &scm::soil_map::ClassParams| {
            let at = |vr: Option<usize>, old: Option<f64>| vr.map(|v| reals[v]).or(old);
            scm::soil_map::ClassParams {
                n: at(v.n, c.n),
                k_c: at(v.kc, c.k_c),
                k_phi: at(v.kphi, c.k_phi),
                c: at(v.c, c.c),
                phi: at(v.phi, c.phi),
                repose: at(v.repose, c.repose),
            }
        };
        let classes = self.layout.scm_classes.iter().zip(&map.classes);
        if classes.clone().all(|(v, c)| now(v, c) == *c) {
            return;
        }
        let classes = classes.map(|(v, c)| now(v, c)).collect();
        let map = Arc::new(scm::soil_map::SoilMap {
            classes,
            ..(**map).clone()
        });
        self.scm_map = Some(Arc::clone(&map));
        if let Some(soil) = self.dynamic.soil.as_mut() {
            soil.grid.set_soil_map(Some(map));
        }
        self.scm_epoch += 1;
    }

    /// The current motion of every SCM body and the rig's wheel into `scm_motion`.
    fn scm_current_motions(&mut self) {
        let layout = Arc::clone(&self.layout);
        for (m, &b) in layout.scm_bodies.iter().enumerate() {
            let pose = self.pose_of(b);
            self.scm_motion[m] = BodyMotion {
                iso: pose.iso,
                v: pose.v,
                w: pose.w,
            };
        }
        if let (Some(r), Some((rig, _))) = (layout.rig, self.dynamic.rig) {
            if r.scm.is_some() {
                let omega = self.real(r.omega_in);
                let last = self.scm_motion.len() - 1;
                self.scm_motion[last] = BodyMotion {
                    iso: rig_wheel_pose(&rig),
                    v: Vector3::new(rig.vx, 0.0, rig.vz),
                    w: Vector3::new(0.0, omega, 0.0),
                };
            }
        }
    }

    /// Evaluates each SCM body `m` with `scm_pick[m]` at the motion `scm_at[m]` (in
    /// parallel) and tags its evaluation.
    fn scm_evaluate_picked(&mut self, p: &SoilParams) {
        let p = *p;
        let Some(soil) = &self.dynamic.soil else {
            return;
        };
        if !self.scm_pick.iter().any(|&x| x) {
            return;
        }
        let (grid, base) = (&soil.grid, &self.surface);
        let (meshes, motions, pick) = (&self.scm_meshes, &self.scm_at, &self.scm_pick);
        parallel::for_each_mut(&mut self.scm_ws, |m, ws| {
            if pick[m] {
                scm::evaluate(&p, grid, base, &meshes[m], &motions[m], ws);
            }
        });
        for m in 0..self.scm_ws.len() {
            if self.scm_pick[m] {
                self.scm_tag[m] = Some((self.scm_at[m], p, self.scm_epoch));
            }
        }
    }

    /// Records every SCM body's current motion as the one the next soil update
    /// yields to (`SoilState::held`), at the end of each sub-step. (Before the first
    /// sub-step nothing is held: the first update yields to the motion of its time,
    /// whatever the inputs were set to after initialization.)
    fn scm_hold_motions(&mut self) {
        if self.dynamic.soil.is_none() || self.scm_ws.is_empty() {
            return;
        }
        self.scm_current_motions();
        let Some(soil) = self.dynamic.soil.as_mut() else {
            return;
        };
        soil.held.clear();
        soil.held.extend_from_slice(&self.scm_motion);
    }

    /// SCM soil update (the second clock): after `dt` of model time, when the update
    /// interval has passed, the soil yields to the bodies' last evaluated positions.
    fn scm_soil_update(&mut self, dt: f64) {
        let (Some(p), Some(v)) = (self.scm_params(), self.layout.scm) else {
            return;
        };
        self.scm_sync_classes();
        let interval = self.real(v.update_interval);
        let deform = self.dynamic.values.booleans[v.deformation];
        let Some(soil) = self.dynamic.soil.as_mut() else {
            return;
        };
        soil.since_update += dt;
        if soil.since_update < interval * (1.0 - 1e-9) {
            return;
        }
        let elapsed = soil.since_update;
        soil.since_update = 0.0;
        // the soil yields to each kinematic or fixed body's motion at the end of the
        // last sub-step (its last known position; with no sub-step yet, the one at
        // the start of this sub-step), and to a free body's (or the rig wheel's)
        // motion at the start of this sub-step, where its forces were evaluated (the
        // same unless a state was restored): evaluate there unless that is what the
        // work buffer holds (as after the evaluation for the outputs, or for a free
        // body's forces)
        let held = (soil.held.len() == self.scm_ws.len()).then_some(&soil.held);
        for m in 0..self.scm_ws.len() {
            // a free body or the rig's wheel: where the sub-step found it
            self.scm_at[m] = match held {
                Some(held) if !self.scm_dynamic[m] => held[m],
                _ => self.scm_start[m],
            };
            self.scm_pick[m] = self.scm_tag[m] != Some((self.scm_at[m], p, self.scm_epoch));
        }
        self.scm_evaluate_picked(&p);
        // the update changes the work buffers and the soil
        self.scm_tag.iter_mut().for_each(|t| *t = None);
        self.scm_epoch += 1;
        let Some(soil) = self.dynamic.soil.as_mut() else {
            return;
        };
        // bodies whose windows do not overlap prepare their updates in parallel and
        // commit in body order: the same soil as updating them one after the other
        // (each reads only its own window, which no other body's commit writes)
        let n = self.scm_ws.len();
        let disjoint = (0..n).all(|a| {
            (a + 1..n).all(|b| {
                self.scm_ws[a]
                    .update_rect
                    .intersect(&self.scm_ws[b].update_rect)
                    .is_empty()
            })
        });
        if n > 1 && disjoint {
            // each body's commit as soon as it and the bodies before it are prepared,
            // while the others still work
            let (base, ds) = (&self.surface, soil.grid.ds);
            parallel::for_each_ordered_commit(
                &mut self.scm_ws,
                &mut soil.grid,
                |_, ws, grid| ws.pending = scm::deform::load(grid, base, ws),
                |_, ws| {
                    ws.pending = ws.pending && scm::deform::settle(&p, ds, ws, elapsed, deform);
                },
                |_, ws, grid| {
                    if ws.pending {
                        scm::deform::commit(grid, base, ws);
                    }
                },
            );
        } else {
            // the rig's wheel: its next pose is known (the rig stepped before this
            // update), so its next evaluation's scan conversion runs beside the update
            let rig_wheel = match (self.layout.rig, self.dynamic.rig) {
                (Some(r), Some((rig, _))) if r.scm.is_some() && self.scm_scan_ahead => {
                    Some((n - 1, rig_wheel_pose(&rig)))
                }
                _ => None,
            };
            let (ds, extent) = (soil.grid.ds, soil.grid.extent);
            for (m, ws) in self.scm_ws.iter_mut().enumerate() {
                let (grid, base) = (&mut soil.grid, &self.surface);
                match rig_wheel {
                    Some((w, iso)) if w == m => {
                        let mut ahead = ws.ahead.take().unwrap_or_default();
                        let (mesh, z_top) = (&self.scm_meshes[m], ws.z_top);
                        let beside =
                            || scm::contact::scan_ahead(mesh, &iso, ds, &extent, z_top, &mut ahead);
                        scm::deform::update_beside(&p, grid, base, ws, elapsed, deform, beside);
                        ws.ahead = Some(ahead);
                    }
                    _ => scm::deform::update(&p, grid, base, ws, elapsed, deform),
                }
            }
        }
    }

    /// Switches the scan conversion ahead of the rig wheel's evaluations (on by
    /// default) on or off: results are the same either way (for tests).
    #[doc(hidden)]
    pub fn set_scm_scan_ahead(&mut self, on: bool) {
        self.scm_scan_ahead = on;
    }

    /// Evaluations of the SCM bodies that took a scan conversion made ahead (for
    /// tests).
    #[doc(hidden)]
    pub fn scm_scans_taken_ahead(&self) -> u64 {
        self.scm_ws.iter().map(|ws| ws.ahead_taken).sum()
    }

    /// Writes the soil surface (PNG height image, PLY mesh) to `soil.export_dir`, if set.
    pub fn export_soil(&self) -> Result<Option<String>, WorldError> {
        let (Some(v), Some(soil)) = (self.layout.scm, &self.dynamic.soil) else {
            return Ok(None);
        };
        let dir = &self.dynamic.values.strings[v.export_dir];
        if dir.is_empty() {
            return Ok(None);
        }
        let stem = std::path::Path::new(dir).join(format!("soil_t{:010.4}", self.dynamic.time));
        scm::export::write(&soil.grid, &self.surface, &stem)
            .map(Some)
            .map_err(WorldError::Export)
    }

    /// fmi2Terminate: the final soil export.
    pub fn terminate(&mut self) -> Result<Option<String>, WorldError> {
        self.export_soil()
    }

    fn material_of(&self, m: &MaterialVrs) -> (f64, f64, f64, f64) {
        (
            self.real(m.e),
            self.real(m.nu),
            self.real(m.zeta),
            self.real(m.mu),
        )
    }

    /// R_i of body `b`, m: its `contact_length`, or its longest edge when that is 0.
    fn contact_length(&self, b: usize) -> f64 {
        let set = self.layout.bodies[b]
            .contact_length
            .map(|vr| self.real(vr))
            .unwrap_or(0.0);
        if set > 0.0 {
            set
        } else {
            self.auto_length[b]
        }
    }

    /// Constants of the BBCC contact of body `a` (None: the terrain) with body `b`,
    /// from the current parameters (Buse 2023 section 4.1.1). Pairs are validated: both
    /// sides have materials.
    fn bbcc_law(&self, a: Option<usize>, b: usize) -> PairLaw {
        let mat = |x: Option<usize>| match x {
            Some(i) => self.layout.bodies[i].material,
            None => self.layout.terrain_material,
        };
        let (Some(ma), Some(mb), Some(bb)) = (mat(a), mat(Some(b)), &self.layout.bbcc) else {
            return PairLaw {
                k: 0.0,
                r_eff: 1.0,
                zeta: 1.0,
                mu: 0.0,
                stiction: None,
                v_d: 1.0,
                impact_velocity_min: 1.0,
            };
        };
        let (e1, nu1, z1, mu1) = self.material_of(&ma);
        let (e2, nu2, z2, mu2) = self.material_of(&mb);
        // 1/R = 1/R_1 + 1/R_2; the terrain is unbounded.
        let r_a = a.map(|i| self.contact_length(i)).unwrap_or(f64::INFINITY);
        let r_eff = hunt_crossley::effective_radius(r_a, self.contact_length(b));
        let st = |m: &MaterialVrs| m.stiction.map(|(s, x)| (self.real(s), self.real(x)));
        let stiction = match (st(&ma), st(&mb)) {
            (Some((s1, x1)), Some((s2, x2))) => {
                Some((harmonic_mean(s1, s2), harmonic_mean(x1, x2)))
            }
            (Some(v), None) | (None, Some(v)) => Some(v),
            (None, None) => None,
        };
        PairLaw {
            k: hunt_crossley::stiffness(r_eff, e1, nu1, e2, nu2),
            r_eff,
            zeta: harmonic_mean(z1, z2),
            mu: harmonic_mean(mu1, mu2),
            stiction,
            v_d: self.real(bb.v_d),
            impact_velocity_min: self.real(bb.impact_velocity_min),
        }
    }

    /// Pose of a fixed body: q0 and r0, turned about the world y axis by `incline`.
    fn fixed_pose(
        &self,
        r0: &[usize; 3],
        q0: &[usize; 4],
        incline: Option<usize>,
    ) -> Isometry3<f64> {
        let q = self.quaternion(q0).unwrap_or_else(UnitQuaternion::identity);
        let base = Isometry3::from_parts(nalgebra::Translation3::from(self.vec3(r0)), q);
        match incline {
            // positive incline raises the +x side: a rotation by -incline about +y
            Some(a) => Isometry3::rotation(Vector3::y() * -self.real(a)) * base,
            None => base,
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
            MotionVrs::Fixed { r0, q0, incline } => BodyKinematics {
                r: self.fixed_pose(r0, q0, *incline).translation.vector,
                v: Vector3::zeros(),
                w: Vector3::zeros(),
            },
        }
    }

    /// Orientation of body `b`, body to world.
    fn orientation_of(&self, b: usize) -> UnitQuaternion<f64> {
        match &self.layout.bodies[b].motion {
            MotionVrs::Kinematic { q, .. } => {
                self.quaternion(q).unwrap_or_else(UnitQuaternion::identity)
            }
            MotionVrs::Free { .. } => self.dynamic.bodies[b].q,
            MotionVrs::Fixed { r0, q0, incline } => self.fixed_pose(r0, q0, *incline).rotation,
        }
    }

    fn terra_params(&self, radius: f64, width: f64, mass: f64, g: f64) -> TerraParams {
        let Some(t) = &self.layout.terra else {
            return TerraParams::table1();
        };
        TerraParams {
            radius,
            width,
            mass,
            g,
            k_c: self.real(t.k_c),
            k_exp: self.real(t.k_exp),
            k_d: self.real(t.k_d),
            k_el: self.real(t.k_el),
            k_s0: self.real(t.k_s0),
            k_s_exp: self.real(t.k_s_exp),
            k_s_max: self.real(t.k_s_max),
            k_j: self.real(t.k_j),
            t_pt1: self.real(t.t_pt1),
            v_thresh: self.real(t.v_thresh),
            k_p: self.real(t.k_p),
            k_i: self.real(t.k_i),
            k_awu: self.real(t.k_awu),
            c: self.real(t.c),
            phi: self.real(t.phi),
            rho: self.real(t.rho),
        }
    }

    /// TerRA parameters and contact geometry of force-element wheel `k` (body `b`).
    fn terra_wheel(&self, b: usize) -> (TerraParams, WheelGeometry) {
        let body = &self.layout.bodies[b];
        // validated: TerRA wheels have a wheel shape
        let (radius, width) = match body.shape {
            ShapeVrs::Wheel { radius, width } => (self.real(radius), self.real(width)),
            _ => (0.0, 0.0),
        };
        let mass = body.terra.map(|(m, _)| self.real(m)).unwrap_or(1.0);
        let gravity = self.vec3(&self.layout.gravity);
        let p = self.terra_params(radius, width, mass, gravity.norm());
        let m = self.motion_of(b);
        let axle = self.orientation_of(b) * Vector3::y();
        let sp = self.surface.disc_contact(&m.r, radius);
        let n = sp.normal;
        // The disc's lowest point towards the ground: along -n projected onto the
        // wheel plane. Its depth below the tangent plane is r |n_perp| - distance.
        let n_perp = n - axle * n.dot(&axle);
        let n_perp_len = n_perp.norm().max(1e-12);
        let lever = -n_perp * (radius / n_perp_len);
        let forward = axle
            .cross(&n)
            .try_normalize(1e-12)
            .unwrap_or_else(Vector3::x);
        let down = if gravity.norm() > 0.0 {
            gravity.normalize()
        } else {
            -Vector3::z()
        };
        let input = TerraInput {
            z: radius * n_perp_len - sp.distance,
            z_rate: -m.v.dot(&n),
            omega: m.w.dot(&axle),
            forward_velocity: m.v.dot(&forward),
            slope: (-forward.dot(&down)).clamp(-1.0, 1.0).asin(),
        };
        (
            p,
            WheelGeometry {
                input,
                normal: n,
                forward,
                lever,
            },
        )
    }

    /// The rig's drive when its wheel runs on SCM soil.
    fn rig_scm_drive(&self) -> Option<RigDrive> {
        let r = self.layout.rig?;
        r.scm?;
        let mode = RigMode::from_code(self.dynamic.values.integers[r.mode])
            .unwrap_or(RigMode::ForceControlled);
        Some(RigDrive {
            mode,
            load_mass: self.real(r.load_mass),
            g: self.real(r.g),
            omega: self.real(r.omega_in),
            vx: self.real(r.vx_in),
            drawbar_force: self.real(r.drawbar_force),
        })
    }

    fn rig_drive(&self) -> Option<(TerraParams, RigDrive)> {
        let r = self.layout.rig?;
        let g = self.real(r.g);
        let load = self.real(r.load_mass);
        let p = self.terra_params(self.real(r.radius), self.real(r.width), load, g);
        let mode = RigMode::from_code(self.dynamic.values.integers[r.mode])
            .unwrap_or(RigMode::ForceControlled);
        Some((
            p,
            RigDrive {
                mode,
                load_mass: load,
                g,
                omega: self.real(r.omega_in),
                vx: self.real(r.vx_in),
                drawbar_force: self.real(r.drawbar_force),
            },
        ))
    }

    /// Pose and velocities of body `b` for the contact models.
    fn pose_of(&self, b: usize) -> BodyPose {
        let m = self.motion_of(b);
        BodyPose {
            iso: Isometry3::from_parts(nalgebra::Translation3::from(m.r), self.orientation_of(b)),
            v: m.v,
            w: m.w,
        }
    }

    fn accumulate(
        &mut self,
        b: usize,
        force: Vector3<f64>,
        torque: Vector3<f64>,
        depth: f64,
        in_contact: bool,
    ) {
        let acc = &mut self.bbcc_wrench[b];
        acc.force += force;
        acc.torque += torque;
        if in_contact {
            acc.depth = acc.depth.max(depth);
            acc.in_contact = true;
            self.touching[b] += 1;
        }
    }

    /// BBCC (Buse 2023, section 4.1): bodies with the terrain, then body pairs through
    /// the AABB broad phase and parry's narrow phase.
    fn bbcc_contacts(&mut self, advance: bool) {
        for t in self.touching.iter_mut() {
            *t = 0;
        }
        if self.layout.bbcc.is_none() {
            return;
        }
        for b in 0..self.poses.len() {
            if self.shapes[b].is_some() {
                self.poses[b] = self.pose_of(b);
            }
        }
        let layout = Arc::clone(&self.layout);
        let mut ground_queries = 0;
        // Bodies on the terrain: the plane as a parry half-space; spheres on a profile
        // analytically.
        for (p, &b) in layout.ground_pairs.iter().enumerate() {
            // broad phase against the plane: skip a body whose box is above it (before
            // any per-pair work)
            if let (Some((_, iso)), Some(shape)) = (&self.halfspace, &self.shapes[b]) {
                if above_plane(shape.as_ref(), &self.poses[b].iso, iso, &self.surface) {
                    if advance {
                        self.dynamic.memory[p] = ContactMemory::default();
                    }
                    continue;
                }
            }
            let law = self.bbcc_law(None, b);
            let mut memory = self.dynamic.memory[p];
            let (force, torque, depth, touch) = match (&self.halfspace, &self.shapes[b]) {
                (Some((ground, iso)), Some(shape)) => {
                    let ground_pose = BodyPose {
                        iso: *iso,
                        v: Vector3::zeros(),
                        w: Vector3::zeros(),
                    };
                    let w = pair_wrench(
                        ground.as_ref(),
                        &ground_pose,
                        shape.as_ref(),
                        &self.poses[b],
                        &law,
                        &mut memory,
                        advance,
                    );
                    (w.force2, w.torque2, w.depth, w.in_contact)
                }
                _ => {
                    let ShapeVrs::Sphere { radius } = layout.bodies[b].shape else {
                        continue;
                    };
                    let radius = self.real(radius);
                    let body = self.motion_of(b);
                    let ground = self.surface.disc_contact(&body.r, radius);
                    let c = PairConstants {
                        k: law.k,
                        zeta: law.zeta,
                        mu: law.mu,
                        v_d: law.v_d,
                        impact_velocity_min: law.impact_velocity_min,
                    };
                    let w = sphere_on_surface(&body, radius, &ground, &c, &mut memory, advance);
                    (w.force, w.torque, w.depth, w.in_contact)
                }
            };
            ground_queries += 1;
            if advance {
                self.dynamic.memory[p] = memory;
            }
            self.accumulate(b, force, torque, depth, touch);
        }
        if layout.bbcc_pairs.is_empty() {
            self.stats = (0, ground_queries);
            return;
        }
        // Broad phase: world AABBs, sweep and prune over the allowed pairs.
        for b in 0..self.boxes.len() {
            self.boxes[b] = self.shapes[b]
                .as_ref()
                .map(|s| s.compute_aabb(&self.poses[b].iso));
        }
        let n = self.boxes.len();
        {
            let (sweep, boxes, index, candidates) = (
                &mut self.sweep,
                &self.boxes,
                &self.pair_index,
                &mut self.candidates,
            );
            candidates.clear();
            sweep.overlapping_pairs(
                boxes,
                |i, j| index[i * n + j] != u32::MAX,
                |i, j| candidates.push((i as u32, j as u32)),
            );
        }
        // Deterministic order whatever the sweep found first.
        self.candidates.sort_unstable();
        for s in self.seen.iter_mut() {
            *s = false;
        }
        let base = layout.ground_pairs.len();
        for c in 0..self.candidates.len() {
            let (i, j) = (self.candidates[c].0 as usize, self.candidates[c].1 as usize);
            let k = self.pair_index[i * n + j] as usize;
            self.seen[k] = true;
            let law = self.bbcc_law(Some(i), j);
            let mut memory = self.dynamic.memory[base + k];
            let (Some(si), Some(sj)) = (&self.shapes[i], &self.shapes[j]) else {
                continue;
            };
            let w = pair_wrench(
                si.as_ref(),
                &self.poses[i],
                sj.as_ref(),
                &self.poses[j],
                &law,
                &mut memory,
                advance,
            );
            if advance {
                self.dynamic.memory[base + k] = memory;
            }
            self.accumulate(i, w.force1, w.torque1, w.depth, w.in_contact);
            self.accumulate(j, w.force2, w.torque2, w.depth, w.in_contact);
        }
        if advance {
            for (k, seen) in self.seen.iter().enumerate() {
                if !seen {
                    self.dynamic.memory[base + k] = ContactMemory::default();
                }
            }
        }
        self.stats = (
            self.candidates.len(),
            self.candidates.len() + ground_queries,
        );
    }

    /// Contact wrenches of all bodies at the current state into `scratch` (and the
    /// TerRA evaluations into `terra_out`). With `dt > 0` the contact states advance by
    /// a model step of `dt`; with `dt = 0` they are only evaluated.
    fn evaluate_contacts(&mut self, dt: f64) {
        let advance = dt > 0.0;
        // BBCC at the current state, unless the last evaluation was of this very state
        // (the evaluation for the outputs at the end of a step serves the next sub-step).
        // Its contact memories always advance: the next sub-step would record the same.
        if !(advance && self.bbcc_fresh) {
            for w in self.bbcc_wrench.iter_mut() {
                *w = ContactWrench::default();
            }
            self.bbcc_contacts(true);
        }
        // After a sub-step the bodies move; after an output evaluation they do not.
        self.bbcc_fresh = !advance;
        self.scratch.copy_from_slice(&self.bbcc_wrench);
        for k in 0..self.layout.terra_wheels.len() {
            let b = self.layout.terra_wheels[k];
            let (p, geo) = self.terra_wheel(b);
            // dt = 0 evaluates on a copy: the states stay as they are.
            let mut state = self.dynamic.terra[k];
            let out = terra::step(&p, &mut state, &geo.input, dt);
            if advance {
                self.dynamic.terra[k] = state;
            }
            let force = geo.normal * out.normal_force + geo.forward * out.tangential_force;
            // The normal force acts at the lowest wheel point; the traction is shear on
            // the rim (torque -r F_traction about the axle); the resistance is earth
            // pressure through the hub.
            let axle = geo.normal.cross(&geo.forward);
            let torque = geo.lever.cross(&(geo.normal * out.normal_force))
                - axle * (p.radius * out.traction);
            let acc = &mut self.scratch[b];
            acc.force += force;
            acc.torque += torque;
            acc.depth = acc.depth.max(geo.input.z.max(0.0));
            acc.in_contact |= out.in_contact;
            self.terra_out[k] = (geo.input, out, state);
        }
        self.scm_contacts(advance);
        if let Some(drive) = self.rig_scm_drive() {
            if let Some((rig, _)) = self.dynamic.rig.as_mut() {
                let res = self.scm_ws.last().map(|w| w.result).unwrap_or_default();
                self.rig_scm_out = res;
                if advance {
                    rig.step(&drive, res.force.x, res.force.z, res.k_zz, res.c_zz, dt);
                }
            }
        } else if let Some((p, drive)) = self.rig_drive() {
            if let Some((rig, state)) = self.dynamic.rig.as_mut() {
                let (mut r, mut s) = (*rig, *state);
                let report = single_wheel::step(&mut r, &mut s, &p, &drive, &self.surface, dt);
                self.rig_out = (report, s);
                if advance {
                    *rig = r;
                    *state = s;
                }
            }
        }
    }

    fn substep(&mut self, dt: f64) {
        self.evaluate_contacts(dt);
        self.scm_soil_update(dt);
        let g = self.vec3(&self.layout.gravity);
        let layout = Arc::clone(&self.layout);
        for (b, body) in layout.bodies.iter().enumerate() {
            if let MotionVrs::Free {
                mass,
                inertia,
                f_ext,
                t_ext,
                locked,
                ..
            } = &body.motion
            {
                let m = MassProperties {
                    mass: self.real(*mass),
                    inertia: self.vec3(inertia),
                };
                let f = self.scratch[b].force + self.vec3(f_ext);
                let mut t = self.scratch[b].torque + self.vec3(t_ext);
                if self.dynamic.values.booleans[*locked] {
                    // rotation locked: no spin, no turning
                    self.dynamic.bodies[b].w = Vector3::zeros();
                    t = Vector3::zeros();
                }
                self.dynamic.bodies[b].step(&m, &f, &t, &g, dt);
            }
        }
        self.scm_hold_motions();
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
        self.check_finite()?;
        if let Some(v) = self.layout.scm {
            let interval = self.real(v.export_interval);
            let due = self
                .dynamic
                .soil
                .as_ref()
                .is_some_and(|s| self.dynamic.time >= s.next_export * (1.0 - 1e-12));
            if interval > 0.0 && due {
                self.export_soil()?;
                if let Some(s) = self.dynamic.soil.as_mut() {
                    while s.next_export <= self.dynamic.time * (1.0 + 1e-12) {
                        s.next_export += interval;
                    }
                }
            }
        }
        Ok(())
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

    /// Writes all outputs from the current state (no model state changes).
    fn refresh_outputs(&mut self) {
        if self.dynamic.initializing {
            // Parameters may have changed: initial states follow them. A bad value is
            // reported at fmi2ExitInitializationMode.
            let _ = self.apply_initial_conditions();
        }
        self.evaluate_contacts(0.0);
        let layout = Arc::clone(&self.layout);
        for (b, body) in layout.bodies.iter().enumerate() {
            let w = self.scratch[b];
            let vals = &mut self.dynamic.values;
            for k in 0..3 {
                vals.reals[body.f[k]] = w.force[k];
                vals.reals[body.t[k]] = w.torque[k];
            }
            if let Some(p) = body.penetration {
                vals.reals[p] = w.depth;
            }
            if let Some(c) = body.contacts {
                vals.integers[c] = self.touching[b];
            }
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
        for (k, &b) in layout.terra_wheels.iter().enumerate() {
            let Some((_, vrs)) = layout.bodies[b].terra else {
                continue;
            };
            let (input, out, state) = self.terra_out[k];
            let radius = match layout.bodies[b].shape {
                ShapeVrs::Wheel { radius, .. } => self.real(radius),
                _ => 0.0,
            };
            self.write_wheel_soil(&vrs, &input, &out, &state, radius);
        }
        if let (Some(r), Some((rig, _))) = (layout.rig, self.dynamic.rig) {
            let (rep, state) = self.rig_out;
            let omega = self.real(r.omega_in);
            let vals = &mut self.dynamic.values.reals;
            vals[r.x] = rig.x;
            vals[r.z] = rig.z;
            vals[r.vx] = rig.vx;
            vals[r.vz] = rig.vz;
            vals[r.omega] = omega;
            vals[r.fx] = rep.fx;
            vals[r.fz] = rep.fz;
            vals[r.my] = rep.my;
            if let Some(s) = r.soil {
                vals[s.sinkage] = rep.sinkage;
                vals[s.z_eff] = rep.terra.z_eff;
                vals[s.z_s] = state.z_s;
                vals[s.z_peak] = state.z_peak;
                vals[s.slip] = rep.slip;
                vals[s.j_m] = state.j_m;
                vals[s.f_n] = rep.terra.normal_force;
                vals[s.f_t] = rep.terra.tangential_force;
            }
            if let Some((s, _, _, _, slip)) = r.scm {
                let res = self.rig_scm_out;
                let radius = vals[r.radius];
                vals[r.fx] = res.force.x;
                vals[r.fz] = res.force.z;
                vals[r.my] = res.torque.y;
                // the rim's lowest point below the undisturbed (base) surface
                vals[s.sinkage] = self.surface.height(rig.x) - (rig.z - radius);
                vals[s.footprint_area] = res.area;
                vals[s.b_eff] = res.b_eff;
                vals[slip] = terra::slip(omega * radius, rig.vx);
                self.dynamic.values.integers[s.contact_nodes] = res.contact_nodes as i32;
            }
        }
        for (m, &b) in layout.scm_bodies.iter().enumerate() {
            let (Some(s), Some(ws)) = (layout.bodies[b].scm, self.scm_ws.get(m)) else {
                continue;
            };
            let res = ws.result;
            let vals = &mut self.dynamic.values;
            vals.reals[s.sinkage] = res.sinkage;
            vals.reals[s.footprint_area] = res.area;
            vals.reals[s.b_eff] = res.b_eff;
            vals.integers[s.contact_nodes] = res.contact_nodes as i32;
        }
        if let (Some(v), Some(soil)) = (layout.scm, &self.dynamic.soil) {
            self.dynamic.values.reals[v.volume] = soil.grid.volume();
        }
        self.dynamic.outputs_dirty = false;
    }

    fn write_wheel_soil(
        &mut self,
        vrs: &WheelSoilVrs,
        input: &TerraInput,
        out: &TerraOutput,
        state: &TerraState,
        radius: f64,
    ) {
        let vals = &mut self.dynamic.values.reals;
        vals[vrs.sinkage] = input.z;
        vals[vrs.z_eff] = out.z_eff;
        vals[vrs.z_s] = state.z_s;
        vals[vrs.z_peak] = state.z_peak;
        vals[vrs.slip] = terra::slip(input.omega * radius, input.forward_velocity);
        vals[vrs.j_m] = state.j_m;
        vals[vrs.f_n] = out.normal_force;
        vals[vrs.f_t] = out.tangential_force;
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
        self.bbcc_fresh = false;
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
            self.dynamic.values.integers[vr as usize] = x;
        }
        self.dynamic.outputs_dirty = true;
        self.bbcc_fresh = false;
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
        self.bbcc_fresh = false;
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
        self.bbcc_fresh = false;
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
        if let Some(soil) = self.dynamic.soil.as_mut() {
            soil.grid.rebuild_index();
            soil.grid.set_soil_map(self.scm_map.clone());
        }
        self.bbcc_fresh = false;
        self.scm_epoch += 1;
        self.dynamic.outputs_dirty = true;
        // The terrain parameters are part of the values: rebuild the surface from them.
        if let Ok(surface) = self.build_surface() {
            self.surface = surface;
        }
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
            || d.memory.len() != self.layout.ground_pairs.len() + self.layout.bbcc_pairs.len()
            || d.terra.len() != self.layout.terra_wheels.len()
            || d.rig.is_some() != self.layout.rig.is_some()
            || d.soil.is_some() != self.layout.scm.is_some()
            || d.soil.as_ref().is_some_and(|s| {
                self.dynamic
                    .soil
                    .as_ref()
                    .is_some_and(|o| o.grid.ds != s.grid.ds)
            })
        {
            return Err(
                "the FMU state does not belong to this model (its variables or bodies differ)"
                    .into(),
            );
        }
        Ok(())
    }
}
