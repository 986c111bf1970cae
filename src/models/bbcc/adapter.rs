//! BBCC's adapter: the model as the world calls it (see [`crate::cosim::model`]).
//! Declares the materials, the BBCC constants and the per-body contact outputs; keeps
//! the parry shapes, the broad phase and the contact memories.

use crate::pmath;
use super::broad_phase::SweepAndPrune;
use super::pair::{pair_wrench, BodyPose, InvMass, PairLaw, PairWrench, PartMemory};
use super::pair_rule::PairRule;
use super::sphere_plane::{sphere_on_surface, ContactWrench, PairConstants};
use super::{harmonic_mean, hunt_crossley, BodyKinematics, ContactMemory};
use crate::cosim::layout::MotionVrs;
use crate::cosim::layout::ShapeVrs;
use crate::cosim::model::{self, Declare, Frame, Model, ModelState};
use crate::cosim::feedthrough::{Feedthrough, Group};
use crate::cosim::variables::{Bounds, VarType, Variability, VariableTable};
use crate::cosim::WorldError;
use crate::geometry::terrain::Surface;
use crate::scenario::types::{Material, Shape};
use nalgebra::{Isometry3, Vector3};
use parry3d_f64::bounding_volume::Aabb;
use parry3d_f64::shape::SharedShape;
use std::any::Any;
use Variability::Tunable;

/// Value references of a contact material.
#[derive(Debug, Clone, Copy)]
pub struct MaterialVrs {
    pub e: usize,
    pub nu: usize,
    pub zeta: usize,
    pub mu: usize,
    /// Bengisu-Akay (mu_s, xi), eq. (5), when given.
    pub stiction: Option<(usize, usize)>,
}

/// BBCC constants.
#[derive(Debug, Clone, Copy)]
pub struct BbccVrs {
    pub v_d: usize,
    pub impact_velocity_min: usize,
}

fn material(t: &mut VariableTable, prefix: &str, m: &Material) -> MaterialVrs {
    MaterialVrs {
        e: t.real_parameter(
            format!("{prefix}.E"),
            Tunable,
            "Pa",
            m.E,
            Bounds::POSITIVE,
            "Young's modulus E (Buse 2023 eq. (3))",
        ),
        nu: t.real_parameter(
            format!("{prefix}.nu"),
            Tunable,
            "1",
            m.nu,
            Bounds {
                min: Some(0.0),
                max: Some(0.5),
                positive: false,
            },
            "Poisson ratio nu (Buse 2023 eq. (3))",
        ),
        zeta: t.real_parameter(
            format!("{prefix}.zeta"),
            Tunable,
            "1",
            m.zeta,
            Bounds {
                min: Some(0.0),
                max: Some(1.0),
                positive: true,
            },
            "coefficient of restitution zeta (Buse 2023 eq. (2)); a pair uses the harmonic mean",
        ),
        mu: t.real_parameter(
            format!("{prefix}.mu"),
            Tunable,
            "1",
            m.mu,
            Bounds::NON_NEGATIVE,
            "Coulomb friction coefficient mu (Buse 2023 eq. (4)); a pair uses the harmonic mean",
        ),
        stiction: match (m.mu_s, m.xi) {
            (Some(mu_s), Some(xi)) => Some((
                t.real_parameter(
                    format!("{prefix}.mu_s"),
                    Tunable,
                    "1",
                    mu_s,
                    Bounds::NON_NEGATIVE,
                    "static friction coefficient mu_s of the Bengisu-Akay law (Buse 2023 eq. (5))",
                ),
                t.real_parameter(
                    format!("{prefix}.xi"),
                    Tunable,
                    "s/m",
                    xi,
                    Bounds::NON_NEGATIVE,
                    "decay xi of the Bengisu-Akay law (Buse 2023 eq. (5))",
                ),
            )),
            _ => None,
        },
    }
}

/// Longest edge of the body's bounding box, m: the paper's R_i estimate.
fn longest_edge(shape: &Shape) -> f64 {
    match shape {
        Shape::Sphere { radius } => 2.0 * radius,
        Shape::Wheel { radius, width }
        | Shape::Cylinder {
            radius,
            height: width,
        } => (2.0 * radius).max(*width),
        Shape::GrouserWheel {
            radius,
            width,
            grouser_height,
            ..
        } => (2.0 * (radius + grouser_height)).max(*width),
        Shape::Cuboid { size } => size[0].max(size[1]).max(size[2]),
        Shape::Plate { radius, thickness } => (2.0 * radius).max(*thickness),
        // from the built shape's bounding box at initialization (see World)
        Shape::Torus {
            major_radius,
            minor_radius,
        } => 2.0 * (major_radius + minor_radius),
        Shape::ConvexMesh { .. }
        | Shape::Mesh { .. }
        | Shape::Compound { .. }
        | Shape::CuboidGrid { .. }
        | Shape::Generated { .. } => 0.0,
    }
}

/// Per-body BBCC outputs.
#[derive(Debug, Clone, Copy)]
struct BodyOut {
    /// `<body>.penetration`
    penetration: usize,
    /// `<body>.contacts` (Integer)
    contacts: usize,
}

/// BBCC in a world: bodies with the terrain and with each other.
pub struct Bbcc {
    constants: Option<BbccVrs>,
    terrain_material: Option<MaterialVrs>,
    /// Per body: its `contact_length` and material, when it has one.
    materials: Vec<Option<(usize, MaterialVrs)>>,
    outputs: Vec<Option<BodyOut>>,
    /// Bodies in contact with the terrain.
    ground_pairs: Vec<usize>,
    /// Which body pairs may touch (`bbcc.pairs` as a rule, not a list).
    rule: PairRule,
    /// The ground pairs' contact memories, one per convex part of each body (see
    /// [`pair_wrench`]).
    memory: Vec<ContactMemory>,
    /// Where each ground pair's slots start in `memory`, then the end.
    slots: Vec<usize>,
    /// The body pairs' part pairs in contact after the last evaluation with their
    /// memories, sorted by (i, j, slot): memory for the contacts only, however many
    /// pairs the rule allows.
    pair_memory: Vec<PartContact>,
    /// `pair_memory` being written by the current evaluation (work buffer).
    next_memory: Vec<PartContact>,
    /// Per body: its convex parts (declared from the scenario, checked at build).
    parts: Vec<usize>,
    /// Per body: the wrench of the last evaluation, kept so that the evaluation at the
    /// end of a step (for the outputs) serves the first sub-step of the next one.
    wrench: Vec<ContactWrench>,
    /// `wrench` holds the contacts of the current state (nothing moved and no input
    /// changed since), evaluated for a sub-step of `step`.
    fresh: bool,
    /// The sub-step the last evaluation was for, s (the implicit parts of
    /// `semi_implicit` integrate over it): the sub-step being taken, or for an
    /// evaluation between steps (the outputs) the last one taken (the model step
    /// before any), which the next step's sub-steps likely are; when they are not,
    /// the first sub-step evaluates again.
    step: f64,
    /// Each body's parry shape (built at initialization), None for non-BBCC bodies.
    shapes: Vec<Option<SharedShape>>,
    /// R_i of each body when its `contact_length` is 0 (auto): the longest edge.
    auto_length: Vec<f64>,
    /// The terrain as a half-space, for plane surfaces.
    halfspace: Option<(SharedShape, Isometry3<f64>)>,
    /// Per body: the pose its `boxes` entry was computed at.
    box_poses: Vec<Option<Isometry3<f64>>>,
    /// Work buffers (no allocation while stepping).
    poses: Vec<BodyPose>,
    boxes: Vec<Option<Aabb>>,
    sweep: SweepAndPrune,
    /// The body pairs whose boxes overlap, (i, j) with i < j, sorted, and where each
    /// one's memories start and end in `pair_memory`.
    candidates: Vec<Candidate>,
    /// The ground slots in contact after the last evaluation: the only ones that may
    /// not be the default.
    active: Vec<u32>,
    /// The ground slots in contact in this evaluation.
    now_active: Vec<u32>,
    /// Per ground slot: in `now_active` (all false between evaluations).
    mark: Vec<bool>,
    /// `active` holds for `memory` (false after a restore or a build).
    active_known: bool,
    touching: Vec<i32>,
    /// Broad-phase candidate pairs and narrow-phase queries of the last evaluation.
    stats: (usize, usize),
    /// Part contacts of the last evaluation.
    part_contacts: usize,
    /// The narrow phase's work buffers: each candidate's law and, for convex pairs
    /// computed in parallel, its wrench.
    laws: Vec<PairLaw>,
    results: Vec<Option<PairResult>>,
    /// `bbcc.semi_implicit`: viscous forces linearly implicit over the model step.
    semi_implicit: bool,
    /// `bbcc.contact_patch`: flat-faced contacts spread over their overlap.
    contact_patch: bool,
    /// `bbcc.stick`: a tangential stick spring beside the friction.
    stick: bool,
    /// `bbcc.rolling_resistance`: mu_r, 1 (0: none).
    rolling: f64,
    /// `bbcc.reimpact` (or `stick`): each new compression of a lasting contact is an
    /// impact for eq. (2).
    reimpact: bool,
    /// Per body, with `semi_implicit`: its inverse mass and inertia shared among the
    /// contacts it may have in this evaluation (work buffer).
    inv_mass: Vec<InvMass>,
    /// Per body: how many part contacts it may have in this evaluation (work buffer).
    share: Vec<usize>,
}

/// Candidate pairs from which the narrow phase runs on all threads (fewer: the
/// hand-over costs more than it saves).
const PARALLEL_CANDIDATES: usize = 256;

/// Part contacts of one pair a parallel task reports (more: the pair is computed
/// again in order).
const TOUCHED_MAX: usize = 8;

/// A part pair of two bodies in contact, and its memory (the FMU state keeps them).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PartContact {
    /// The bodies, i < j.
    pub i: u32,
    pub j: u32,
    /// The part pair (see [`pair_wrench`]).
    pub slot: u32,
    pub memory: ContactMemory,
}

/// What a parallel task found for one candidate: its wrench, its part contacts (slot,
/// memory) and how many.
type PairResult = (PairWrench, [(u32, ContactMemory); TOUCHED_MAX], u8);

/// A body pair whose boxes overlap, and its memories' range in `pair_memory`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Candidate {
    i: u32,
    j: u32,
    first: u32,
    end: u32,
}

/// BBCC's FMU state: the ground pairs' memories and the body pairs' contacts.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BbccState {
    pub ground: Vec<ContactMemory>,
    pub pairs: Vec<PartContact>,
    /// The sub-step the last evaluation was for, s (0 before any): the outputs at a
    /// restored state are evaluated for it, as they were when it was saved.
    #[serde(default)]
    pub step: f64,
    /// Each body's wrench from the last evaluation when it was of this very state (the
    /// outputs' evaluation at the end of a step, which serves the next step's first
    /// sub-step); empty otherwise. Kept so that a restored state continues bit for bit:
    /// evaluated again, a state's contacts share each body's mass among the contacts of
    /// that evaluation, not of the one before it (`semi_implicit`).
    #[serde(default)]
    pub wrench: Vec<ContactWrench>,
}

/// The ground slots of one body as [`pair_wrench`] sees them: touched slots are
/// listed in `now_active` (the others are forgotten after the evaluation).
struct GroundMemory<'a> {
    slots: &'a mut [ContactMemory],
    first: usize,
    now_active: &'a mut Vec<u32>,
}

impl PartMemory for GroundMemory<'_> {
    fn get(&self, slot: usize) -> ContactMemory {
        self.slots[slot]
    }
    fn touch(&mut self, slot: usize, m: ContactMemory) {
        self.slots[slot] = m;
        self.now_active.push((self.first + slot) as u32);
    }
}

/// One body pair's memories from the last evaluation (`prior`, its range of
/// `pair_memory`) and where the contacts of this one go.
struct PairMemory<'a, F: FnMut(usize, ContactMemory)> {
    prior: &'a [PartContact],
    touched: F,
}

impl<F: FnMut(usize, ContactMemory)> PartMemory for PairMemory<'_, F> {
    fn get(&self, slot: usize) -> ContactMemory {
        self.prior
            .iter()
            .find(|c| c.slot as usize == slot)
            .map_or(ContactMemory::default(), |c| c.memory)
    }
    fn touch(&mut self, slot: usize, m: ContactMemory) {
        (self.touched)(slot, m);
    }
}

/// Declares BBCC when the scenario has a `bbcc` section or a material anywhere.
pub fn declare(d: &mut Declare) -> Option<Box<dyn Model>> {
    let s = d.scenario;
    if s.bbcc.is_none()
        && s.terrain.material.is_none()
        && s.bodies.iter().all(|b| b.material.is_none())
    {
        return None;
    }
    let t = &mut *d.table;
    let terrain_material = s
        .terrain
        .material
        .as_ref()
        .map(|m| material(t, "terrain", m));
    let constants = s.bbcc.as_ref().map(|b| BbccVrs {
        v_d: t.real_parameter("bbcc.v_d", Tunable, "m/s", b.v_d, Bounds::POSITIVE, "velocity dead band v_d of the regularized Coulomb friction (Buse 2023 eq. (4))"),
        impact_velocity_min: t.real_parameter("bbcc.impact_velocity_min", Tunable, "m/s", b.impact_velocity_min, Bounds::POSITIVE, "lower bound of the pre-impact velocity in the damping of Buse 2023 eq. (2); keeps it finite for contacts that start at rest"),
    });
    let n = d.bodies.len();
    let mut materials = vec![None; n];
    let mut outputs = vec![None; n];
    for (i, b) in s.bodies.iter().enumerate() {
        let Some(m) = &b.material else { continue };
        let name = &b.name;
        let contact_length = t.real_parameter(
            format!("{name}.contact_length"),
            Tunable,
            "m",
            longest_edge(&b.shape),
            Bounds::NON_NEGATIVE,
            "R_i of Buse 2023 eq. (3): the body's longest edge (0: the longest edge of its bounding box); a pair uses 1/R = 1/R_1 + 1/R_2 (the ground counts as infinite)",
        );
        materials[i] = Some((contact_length, material(t, name, m)));
        let penetration = t.real_output(
            format!("{name}.penetration"),
            "m",
            "deepest penetration of the body into what it touches",
        );
        let contacts = t.integer_output(
            format!("{name}.contacts"),
            "number of touching BBCC partners",
        );
        outputs[i] = Some(BodyOut {
            penetration,
            contacts,
        });
    }
    // The bodies paired with the terrain; the body pairs as a rule.
    let members = |name: &str| s.members(name);
    let mut ground_pairs: Vec<usize> = vec![];
    for [a, b] in s.bbcc.iter().flat_map(|b| b.pairs.iter()) {
        if a == "terrain" || b == "terrain" {
            ground_pairs.extend(members(if a == "terrain" { b } else { a }));
        }
    }
    ground_pairs.sort_unstable();
    ground_pairs.dedup();
    let rule = PairRule::new(s);
    // One ground memory slot per convex part.
    let parts: Vec<usize> = s
        .bodies
        .iter()
        .map(|b| crate::models::bbcc::parts::part_count(&b.shape))
        .collect();
    let mut slots = Vec::with_capacity(ground_pairs.len() + 1);
    let mut total = 0usize;
    for &b in &ground_pairs {
        slots.push(total);
        total += parts[b];
    }
    slots.push(total);
    Some(Box::new(Bbcc {
        constants,
        terrain_material,
        materials,
        outputs,
        memory: vec![ContactMemory::default(); total],
        slots,
        parts,
        candidates: Vec::with_capacity(1024),
        pair_memory: Vec::with_capacity(1024),
        next_memory: Vec::with_capacity(1024),
        active: Vec::with_capacity(total.min(4096)),
        now_active: Vec::with_capacity(total.min(4096)),
        mark: vec![false; total],
        active_known: false,
        ground_pairs,
        rule,
        wrench: vec![ContactWrench::default(); n],
        fresh: false,
        step: 0.0,
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
        box_poses: vec![None; n],
        sweep: SweepAndPrune::default(),
        touching: vec![0; n],
        stats: (0, 0),
        part_contacts: 0,
        laws: vec![],
        results: vec![],
        semi_implicit: s.bbcc.as_ref().is_some_and(|b| b.semi_implicit),
        // the stick spring needs a contact point that does not jump between a face's
        // vertices: it implies the patch
        contact_patch: s.bbcc.as_ref().is_some_and(|b| b.contact_patch || b.stick),
        stick: s.bbcc.as_ref().is_some_and(|b| b.stick),
        rolling: s.bbcc.as_ref().map_or(0.0, |b| b.rolling_resistance),
        // resting contacts need their rocking damped: the stick spring implies it
        reimpact: s.bbcc.as_ref().is_some_and(|b| b.reimpact || b.stick),
        inv_mass: vec![InvMass::ZERO; n],
        share: vec![0; n],
    }))
}

/// Is the world box `aabb` entirely above the terrain plane (through
/// `plane.translation`, normal from `surface`)?
fn above_plane(aabb: &Aabb, plane: &Isometry3<f64>, surface: &Surface) -> bool {
    let Surface::Plane { angle, .. } = surface else {
        return false;
    };
    let n = Vector3::new(-pmath::sin(*angle), 0.0, pmath::cos(*angle));
    !super::pair::below_plane(aabb, &plane.translation.vector, &n)
}

fn material_of(w: &Frame, m: &MaterialVrs) -> (f64, f64, f64, f64) {
    (w.real(m.e), w.real(m.nu), w.real(m.zeta), w.real(m.mu))
}

impl Bbcc {
    /// Broad-phase candidate pairs and narrow-phase queries of the last evaluation.
    pub fn contact_stats(&self) -> (usize, usize) {
        self.stats
    }

    /// R_i of body `b`, m: its `contact_length`, or its longest edge when that is 0.
    fn contact_length(&self, w: &Frame, b: usize) -> f64 {
        let set = self.materials[b].map(|(vr, _)| w.real(vr)).unwrap_or(0.0);
        if set > 0.0 {
            set
        } else {
            self.auto_length[b]
        }
    }

    /// Constants of the BBCC contact of body `a` (None: the terrain) with body `b`,
    /// from the current parameters (Buse 2023 section 4.1.1). Pairs are validated: both
    /// sides have materials.
    fn law(&self, w: &Frame, a: Option<usize>, b: usize) -> PairLaw {
        let mat = |x: Option<usize>| match x {
            Some(i) => self.materials[i].map(|(_, m)| m),
            None => self.terrain_material,
        };
        let (Some(ma), Some(mb), Some(bb)) = (mat(a), mat(Some(b)), &self.constants) else {
            return PairLaw {
                k: 0.0,
                r_eff: 1.0,
                zeta: 1.0,
                mu: 0.0,
                stiction: None,
                v_d: 1.0,
                impact_velocity_min: 1.0,
                reimpact: false,
                implicit_step: 0.0,
                patch: false,
                stick: None,
                rolling: 0.0,
                now: w.time,
            };
        };
        let (e1, nu1, z1, mu1) = material_of(w, &ma);
        let (e2, nu2, z2, mu2) = material_of(w, &mb);
        // 1/R = 1/R_1 + 1/R_2; the terrain is unbounded.
        let r_a = a
            .map(|i| self.contact_length(w, i))
            .unwrap_or(f64::INFINITY);
        let r_eff = hunt_crossley::effective_radius(r_a, self.contact_length(w, b));
        let st = |m: &MaterialVrs| m.stiction.map(|(s, x)| (w.real(s), w.real(x)));
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
            v_d: w.real(bb.v_d),
            impact_velocity_min: w.real(bb.impact_velocity_min),
            reimpact: self.reimpact,
            implicit_step: if self.semi_implicit { self.step } else { 0.0 },
            patch: self.contact_patch,
            // Mindlin's ratio of tangential to normal stiffness, nu of the pair's mean
            stick: self.stick.then(|| {
                let nu = 0.5 * (nu1 + nu2);
                2.0 * (1.0 - nu) / (2.0 - nu)
            }),
            rolling: self.rolling,
            now: w.time,
        }
    }

    /// Builds the BBCC shapes from the scenario and the current (fixed) parameters.
    fn build_shapes(&mut self, w: &Frame) -> Result<(), WorldError> {
        let in_bbcc: Vec<bool> = (0..w.bodies.len())
            .map(|b| self.ground_pairs.contains(&b) || self.rule.pairs_body(b))
            .collect();
        for (b, body) in w.bodies.iter().enumerate() {
            self.shapes[b] = None;
            self.box_poses[b] = None;
            if !in_bbcc[b] {
                continue;
            }
            let name = &body.name;
            let geometry = w
                .body_geometry(b)
                .map_err(|e| WorldError::Asset(format!("body '{name}': {e}")))?
                .ok_or_else(|| WorldError::Asset(format!("body '{name}' has no BBCC shape")))?;
            let shape = crate::geometry::shape::build(&geometry)
                .map_err(|e| WorldError::Asset(format!("body '{name}': {e}")))?;
            let parts = crate::models::bbcc::pair::part_count(shape.as_ref());
            if parts != self.parts[b] {
                return Err(WorldError::Asset(format!(
                    "body '{name}': its BBCC shape has {parts} convex parts, {} declared",
                    self.parts[b]
                )));
            }
            self.auto_length[b] = crate::geometry::shape::longest_edge(&shape);

            self.shapes[b] = Some(shape);
        }
        self.halfspace = match *w.surface {
            Surface::Plane { height, angle } => Some((
                SharedShape::halfspace(nalgebra::Unit::new_normalize(Vector3::new(
                    -pmath::sin(angle),
                    0.0,
                    pmath::cos(angle),
                ))),
                Isometry3::translation(0.0, 0.0, height),
            )),
            Surface::Profile { .. } | Surface::Field(_) => None,
        };
        Ok(())
    }

    fn accumulate(
        &mut self,
        b: usize,
        force: Vector3<f64>,
        torque: Vector3<f64>,
        depth: f64,
        in_contact: bool,
    ) {
        let acc = &mut self.wrench[b];
        acc.force += force;
        acc.torque += torque;
        if in_contact {
            acc.depth = acc.depth.max(depth);
            acc.in_contact = true;
            self.touching[b] += 1;
        }
    }

    /// BBCC (Buse 2023, section 4.1): bodies with the terrain, then body pairs through
    /// the AABB broad phase and parry's narrow phase, one contact per pair of convex
    /// parts that touch.
    fn contacts(&mut self, w: &Frame) {
        for t in self.touching.iter_mut() {
            *t = 0;
        }
        self.now_active.clear();
        if self.constants.is_none() {
            return;
        }
        for b in 0..self.poses.len() {
            if let Some(shape) = &self.shapes[b] {
                self.poses[b] = w.pose_of(b);
                // once per evaluation, and only when the body moved: a hull's box goes
                // through all its points (the box around its turned body-frame box is
                // cheaper but looser, and the extra candidates cost more: the first
                // 0.5 s of the 500-rock pile took 6.3-6.8 ms per step with it, 4.5-4.6
                // ms without); 200 fixed rock hulls spent 59 % of a step here
                let iso = self.poses[b].iso;
                if self.box_poses[b] != Some(iso) || self.boxes[b].is_none() {
                    self.boxes[b] = Some(shape.compute_aabb(&iso));
                    self.box_poses[b] = Some(iso);
                }
            }
        }
        self.candidates.clear();
        if !self.rule.is_empty() {
            self.broad_phase();
        }
        if self.semi_implicit {
            self.share_masses(w);
        }
        let mut ground_queries = 0;
        // Bodies on the terrain: the plane as a parry half-space; spheres on a profile
        // analytically.
        for p in 0..self.ground_pairs.len() {
            let b = self.ground_pairs[p];
            // broad phase against the plane: skip a body whose box is above it (before
            // any per-pair work)
            if let (Some((_, iso)), Some(aabb)) = (&self.halfspace, &self.boxes[b]) {
                if above_plane(aabb, iso, w.surface) {
                    continue;
                }
            }
            let law = self.law(w, None, b);
            let first = self.slots[p];
            let (force, torque, depth, touch) = match (&self.halfspace, &self.shapes[b]) {
                (Some((ground, iso)), Some(shape)) => {
                    let ground_pose = BodyPose {
                        iso: *iso,
                        v: Vector3::zeros(),
                        w: Vector3::zeros(),
                    };
                    let c = pair_wrench(
                        ground.as_ref(),
                        &ground_pose,
                        shape.as_ref(),
                        &self.poses[b],
                        &law,
                        [&InvMass::ZERO, &self.inv_mass[b]],
                        [None, self.boxes[b].as_ref()],
                        &mut GroundMemory {
                            slots: &mut self.memory[first..self.slots[p + 1]],
                            first,
                            now_active: &mut self.now_active,
                        },
                    );
                    (c.force2, c.torque2, c.depth, c.in_contact)
                }
                _ => {
                    let ShapeVrs::Sphere { radius } = w.bodies[b].shape else {
                        continue;
                    };
                    let radius = w.real(radius);
                    let pose = &self.poses[b];
                    let body = BodyKinematics {
                        r: pose.iso.translation.vector,
                        v: pose.v,
                        w: pose.w,
                    };
                    let ground = w.surface.disc_contact(&body.r, radius);
                    let c = PairConstants {
                        k: law.k,
                        zeta: law.zeta,
                        mu: law.mu,
                        v_d: law.v_d,
                        impact_velocity_min: law.impact_velocity_min,
                        reimpact: law.reimpact,
                        rolling: law.rolling,
                        r_eff: law.r_eff,
                    };
                    let c = sphere_on_surface(
                        &body,
                        radius,
                        &ground,
                        &c,
                        &mut self.memory[first],
                        true,
                    );
                    if c.in_contact {
                        self.now_active.push(first as u32);
                    }
                    (c.force, c.torque, c.depth, c.in_contact)
                }
            };
            ground_queries += 1;
            self.accumulate(b, force, torque, depth, touch);
        }
        self.next_memory.clear();
        if !self.candidates.is_empty() {
            self.narrow_phase(w);
        }
        self.part_contacts = self.now_active.len() + self.next_memory.len();
        self.forget();
        std::mem::swap(&mut self.pair_memory, &mut self.next_memory);
        self.stats = (
            self.candidates.len(),
            self.candidates.len() + ground_queries,
        );
    }

    /// The body pairs whose boxes overlap and that the rule allows, sorted, each with
    /// its range of `pair_memory` (both sorted: one merge).
    fn broad_phase(&mut self) {
        {
            let (sweep, boxes, rule, candidates) = (
                &mut self.sweep,
                &self.boxes,
                &self.rule,
                &mut self.candidates,
            );
            sweep.overlapping_pairs(
                boxes,
                |i, j| rule.allows(i, j).then_some(()),
                |i, j, ()| {
                    candidates.push(Candidate {
                        i: i as u32,
                        j: j as u32,
                        first: 0,
                        end: 0,
                    })
                },
            );
        }
        // Deterministic order whatever the sweep found first.
        self.candidates.sort_unstable();
        let mut m = 0;
        let memory = &self.pair_memory;
        for c in self.candidates.iter_mut() {
            while m < memory.len() && (memory[m].i, memory[m].j) < (c.i, c.j) {
                m += 1;
            }
            c.first = m as u32;
            while m < memory.len() && (memory[m].i, memory[m].j) == (c.i, c.j) {
                m += 1;
            }
            c.end = m as u32;
        }
    }

    /// Each candidate's part contacts. With many candidates the pairs are computed in
    /// parallel, each into its own result (its wrench and its part contacts; a pair
    /// with more than [`TOUCHED_MAX`] part contacts again below, from the same
    /// memories, which gives the same result); then every candidate is summed onto its
    /// bodies and its contacts recorded in the candidates' order, so the forces are
    /// the same bits on any number of threads.
    fn narrow_phase(&mut self, w: &Frame) {
        let n = self.candidates.len();
        let parallel = n >= PARALLEL_CANDIDATES && rayon::current_num_threads() > 1;
        if parallel {
            self.laws.clear();
            for c in 0..n {
                let Candidate { i, j, .. } = self.candidates[c];
                let law = self.law(w, Some(i as usize), j as usize);
                self.laws.push(law);
            }
            self.results.clear();
            self.results.resize(n, None);
            let (candidates, shapes, poses, inv_mass, boxes, memory, laws) = (
                &self.candidates,
                &self.shapes,
                &self.poses,
                &self.inv_mass,
                &self.boxes,
                &self.pair_memory,
                &self.laws,
            );
            use rayon::prelude::*;
            self.results
                .par_iter_mut()
                .enumerate()
                .with_min_len(64)
                .for_each(|(c, out)| {
                    let Candidate { i, j, first, end } = candidates[c];
                    let (i, j) = (i as usize, j as usize);
                    let (Some(si), Some(sj)) = (&shapes[i], &shapes[j]) else {
                        return;
                    };
                    let mut touched = [(0u32, ContactMemory::default()); TOUCHED_MAX];
                    let mut count = 0usize;
                    let wrench = pair_wrench(
                        si.as_ref(),
                        &poses[i],
                        sj.as_ref(),
                        &poses[j],
                        &laws[c],
                        [&inv_mass[i], &inv_mass[j]],
                        [boxes[i].as_ref(), boxes[j].as_ref()],
                        &mut PairMemory {
                            prior: &memory[first as usize..end as usize],
                            touched: |slot, m| {
                                if count < TOUCHED_MAX {
                                    touched[count] = (slot as u32, m);
                                }
                                count += 1;
                            },
                        },
                    );
                    if count <= TOUCHED_MAX {
                        *out = Some((wrench, touched, count as u8));
                    }
                });
        }
        for c in 0..n {
            let Candidate { i, j, first, end } = self.candidates[c];
            let (ci, cj) = (i, j);
            let (i, j) = (i as usize, j as usize);
            let start = self.next_memory.len();
            let wrench = match self.results.get(c).copied().flatten().filter(|_| parallel) {
                Some((wrench, touched, count)) => {
                    self.next_memory
                        .extend(touched[..count as usize].iter().map(|&(slot, memory)| {
                            PartContact {
                                i: ci,
                                j: cj,
                                slot,
                                memory,
                            }
                        }));
                    wrench
                }
                None => {
                    let law = self.law(w, Some(i), j);
                    let (Some(si), Some(sj)) = (&self.shapes[i], &self.shapes[j]) else {
                        continue;
                    };
                    let next = &mut self.next_memory;
                    pair_wrench(
                        si.as_ref(),
                        &self.poses[i],
                        sj.as_ref(),
                        &self.poses[j],
                        &law,
                        [&self.inv_mass[i], &self.inv_mass[j]],
                        [self.boxes[i].as_ref(), self.boxes[j].as_ref()],
                        &mut PairMemory {
                            prior: &self.pair_memory[first as usize..end as usize],
                            touched: |slot, memory| {
                                next.push(PartContact {
                                    i: ci,
                                    j: cj,
                                    slot: slot as u32,
                                    memory,
                                })
                            },
                        },
                    )
                }
            };
            // sorted by slot within the pair (the parts are visited in tree order)
            self.next_memory[start..].sort_unstable_by_key(|c| c.slot);
            self.accumulate(
                i,
                wrench.force1,
                wrench.torque1,
                wrench.depth,
                wrench.in_contact,
            );
            self.accumulate(
                j,
                wrench.force2,
                wrench.torque2,
                wrench.depth,
                wrench.in_contact,
            );
        }
    }

    /// Each free body's inverse mass and inertia, shared among its part contacts (mass
    /// splitting, so that the implicit viscous forces of all its contacts together
    /// still never reverse its motion within a step). The contacts counted are those of
    /// the last evaluation, which the contact memories hold (so a restored state counts
    /// the same), and at least one: a contact that starts now is shared with them.
    fn share_masses(&mut self, w: &Frame) {
        if !self.active_known {
            self.active.clear();
            for (slot, m) in self.memory.iter().enumerate() {
                if m.in_contact {
                    self.active.push(slot as u32);
                }
            }
            self.active_known = true;
        }
        self.share.fill(0);
        for &slot in &self.active {
            let p = self.slots.partition_point(|&first| first <= slot as usize) - 1;
            self.share[self.ground_pairs[p]] += 1;
        }
        for c in &self.pair_memory {
            self.share[c.i as usize] += 1;
            self.share[c.j as usize] += 1;
        }
        for b in 0..self.inv_mass.len() {
            self.inv_mass[b] = InvMass::ZERO;
            let MotionVrs::Free {
                mass,
                inertia,
                locked,
                ..
            } = &w.bodies[b].motion
            else {
                continue;
            };
            let n = self.share[b].max(1) as f64;
            let r = self.poses[b].iso.rotation.to_rotation_matrix();
            let i = if w.boolean(*locked) {
                nalgebra::Matrix3::zeros()
            } else {
                let d = Vector3::from(inertia.map(|vr| n / w.real(vr)));
                r.matrix() * nalgebra::Matrix3::from_diagonal(&d) * r.matrix().transpose()
            };
            self.inv_mass[b] = InvMass {
                m: n / w.real(*mass),
                i,
            };
        }
    }

    /// Ground part pairs no longer in contact forget their contact (their impact
    /// velocity, eq. (2)); the body pairs keep only their contacts anyway. Only the
    /// slots in contact after the last evaluation can hold a memory (every other one
    /// was reset then), so only they are visited. After a restore or a build every
    /// slot is gone through once.
    fn forget(&mut self) {
        for &s in &self.now_active {
            self.mark[s as usize] = true;
        }
        if self.active_known {
            for &s in &self.active {
                if !self.mark[s as usize] {
                    self.memory[s as usize] = ContactMemory::default();
                }
            }
        } else {
            for (m, &touching) in self.memory.iter_mut().zip(&self.mark) {
                if !touching {
                    *m = ContactMemory::default();
                }
            }
            self.active_known = true;
        }
        for &s in &self.now_active {
            self.mark[s as usize] = false;
        }
        std::mem::swap(&mut self.active, &mut self.now_active);
    }

    /// Longest edge of body `b`'s bounding box (its R_i when `contact_length` is 0), m;
    /// 0 before the world is initialized or for bodies BBCC does not touch.
    pub fn body_size(&self, b: usize) -> f64 {
        self.auto_length.get(b).copied().unwrap_or(0.0)
    }

    /// Contacts (pairs of convex parts touching, the ground's included) of the last
    /// evaluation.
    pub fn contact_count(&self) -> usize {
        self.part_contacts
    }
}

impl Model for Bbcc {
    fn key(&self) -> &'static str {
        "bbcc"
    }

    /// A body's wrench, `.penetration` and `.contacts` read its own motion and that of
    /// the bodies the pair rule lets it touch (structural: "can touch", not "touches");
    /// the terrain is parameters only.
    fn feedthrough(&self, f: &mut Feedthrough) {
        let n = self.outputs.len();
        let classes = (0..n).filter_map(|b| self.rule.class_of(b)).max().map_or(0, |c| c as usize + 1);
        let mut members: Vec<Vec<usize>> = vec![vec![]; classes];
        for b in 0..n {
            if let Some(c) = self.rule.class_of(b) {
                members[c as usize].push(b);
            }
        }
        let targets = |bodies: &[usize]| -> Group {
            let mut g = Group {
                wrench_of: bodies.to_vec(),
                bodies: bodies.to_vec(),
                ..Group::default()
            };
            for &b in bodies {
                if let Some(o) = &self.outputs[b] {
                    g.outputs.push((VarType::Real, o.penetration));
                    g.outputs.push((VarType::Integer, o.contacts));
                }
            }
            g
        };
        for (c, own) in members.iter().enumerate() {
            let partners: Vec<usize> = (0..classes)
                .filter(|&d| self.rule.classes_touch(c as u32, d as u32))
                .flat_map(|d| members[d].iter().copied())
                .collect();
            if self.rule.classes_touch(c as u32, c as u32) {
                // members touch each other: one group reads them all and the partners
                let mut g = targets(own);
                g.bodies = partners;
                g.bodies.extend(own);
                f.group(g);
            } else {
                for &b in own {
                    let mut g = targets(&[b]);
                    g.bodies.extend(&partners);
                    f.group(g);
                }
            }
        }
        // bodies on the terrain only (or in no pair: outputs that stay zero)
        for b in 0..n {
            if self.outputs[b].is_some() && self.rule.class_of(b).is_none() {
                f.group(targets(&[b]));
            }
        }
    }

    fn build(&mut self, w: &mut Frame) -> Result<(), WorldError> {
        self.fresh = false;
        self.active_known = false;
        self.build_shapes(w)
    }

    fn evaluate(&mut self, w: &mut Frame, dt: f64) {
        let advance = dt > 0.0;
        // the sub-step: the model step when they agree to rounding (a communication
        // step of 1 ms in sub-steps of 1e-4 s gives 1e-3 / 10, not quite 1e-4); between
        // steps, the last one's (the next step's sub-steps are likely the same)
        let model_step = w.real(w.model_step_vr);
        let step = if !advance && self.step > 0.0 {
            self.step
        } else if advance && (dt - model_step).abs() > 1e-9 * model_step {
            dt
        } else {
            model_step
        };
        // At the current state, unless the last evaluation was of this very state for
        // this sub-step (the evaluation for the outputs at the end of a step serves the
        // next sub-step). The contact memories always advance: the next sub-step would
        // record the same.
        if !(advance && self.fresh && step == self.step) {
            self.step = step;
            for c in self.wrench.iter_mut() {
                *c = ContactWrench::default();
            }
            self.contacts(w);
        }
        // After a sub-step the bodies move; after an output evaluation they do not.
        self.fresh = !advance;
        for (load, c) in w.loads.iter_mut().zip(&self.wrench) {
            load.force += c.force;
            load.torque += c.torque;
            load.depth = load.depth.max(c.depth);
            load.in_contact |= c.in_contact;
        }
    }

    fn write_outputs(&self, w: &mut Frame) {
        for (b, out) in self.outputs.iter().enumerate() {
            if let Some(o) = out {
                w.values.reals[o.penetration] = w.loads[b].depth;
                w.values.integers[o.contacts] = self.touching[b];
            }
        }
    }

    fn inputs_changed(&mut self) {
        self.fresh = false;
    }

    fn save(&self) -> Option<ModelState> {
        Some(ModelState::new(BbccState {
            ground: self.memory.clone(),
            pairs: self.pair_memory.clone(),
            step: self.step,
            wrench: if self.fresh {
                self.wrench.clone()
            } else {
                vec![]
            },
        }))
    }

    fn save_into(&self, target: &mut ModelState) {
        match target.get_mut::<BbccState>() {
            Some(t) => {
                t.ground.clone_from(&self.memory);
                t.pairs.clone_from(&self.pair_memory);
                t.step = self.step;
                t.wrench.clear();
                if self.fresh {
                    t.wrench.extend_from_slice(&self.wrench);
                }
            }
            None => *target = self.save().expect("BBCC has a state"),
        }
    }

    fn decode_state(&self, bytes: &[u8]) -> Result<ModelState, String> {
        model::decode::<BbccState>(self.key(), bytes)
    }

    fn fits(&self, state: Option<&ModelState>) -> Result<(), String> {
        let foreign =
            || "the FMU state does not belong to this model (its BBCC contact pairs differ)";
        let Some(st) = state.and_then(|s| s.get::<BbccState>()) else {
            return Err(foreign().into());
        };
        if st.ground.len() != self.memory.len() || !(st.step.is_finite() && st.step >= 0.0) {
            return Err(foreign().into());
        }
        let finite = |v: &Vector3<f64>| v.iter().all(|x| x.is_finite());
        if !(st.wrench.is_empty() || st.wrench.len() == self.wrench.len())
            || !st
                .wrench
                .iter()
                .all(|c| finite(&c.force) && finite(&c.torque) && c.depth.is_finite())
        {
            return Err(foreign().into());
        }
        // the body pairs' contacts: pairs the rule allows, part pairs they have, in
        // order, each once
        let n = self.parts.len();
        let mut last: Option<(u32, u32, u32)> = None;
        for c in &st.pairs {
            let (i, j) = (c.i as usize, c.j as usize);
            let key = (c.i, c.j, c.slot);
            let fine = i < j
                && j < n
                && self.rule.allows(i, j)
                && (c.slot as usize) < self.parts[i].saturating_mul(self.parts[j])
                && c.memory.in_contact
                && c.memory.impact_velocity.is_finite()
                && c.memory.slip.iter().all(|x| x.is_finite())
                && c.memory.time.is_finite()
                && c.memory.twist.is_finite()
                && last.is_none_or(|l| l < key);
            if !fine {
                return Err(foreign().into());
            }
            last = Some(key);
        }
        Ok(())
    }

    fn restore(&mut self, state: &ModelState) {
        if let Some(st) = state.get::<BbccState>() {
            self.memory.clone_from(&st.ground);
            self.pair_memory.clone_from(&st.pairs);
            self.step = st.step;
        }
        // the evaluation of this state, when it was kept: the next sub-step uses it
        self.fresh = false;
        if let Some(st) = state.get::<BbccState>() {
            if st.wrench.len() == self.wrench.len() {
                self.wrench.clone_from(&st.wrench);
                self.fresh = true;
            }
        }
        self.active_known = false;
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
