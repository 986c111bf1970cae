//! BBCC's contact scene (Buse 2023, section 4.1): bodies with the terrain (a plane as
//! a parry half-space, a sphere on a profile analytically) and with each other through
//! the sweep-and-prune broad phase and parry's narrow phase, one contact per pair of
//! convex parts that touch, each with its memory (eq. (2)'s impact velocity, the
//! friction's slip). It knows no FMI variable: it reads poses, materials and masses
//! through [`SceneInput`], which the adapter implements over the world's frame.

use super::broad_phase::SweepAndPrune;
use super::implicit_normal::{ImplicitSolve, SolveBody, SolveRow, SolveStats};
use super::pair::{pair_wrench, BodyPose, InvMass, PairLaw, PairWrench, PartMemory, RowBuf};
use super::pair_rule::PairRule;
use super::section::BbccSettings;
use super::sphere_plane::{sphere_on_surface, ContactWrench, PairConstants};
use super::{harmonic_mean, hunt_crossley, BodyKinematics, ContactMemory};
use crate::geometry::shape::Geometry;
use crate::geometry::terrain::Surface;
use crate::pmath;
use nalgebra::{Isometry3, Vector3};
use parry3d_f64::bounding_volume::Aabb;
use parry3d_f64::shape::SharedShape;

/// A contact material at the current parameters (Buse 2023, eq. (2)-(5)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactMaterial {
    /// Young's modulus, Pa.
    pub e: f64,
    /// Poisson ratio, 1.
    pub nu: f64,
    /// Coefficient of restitution, 1.
    pub zeta: f64,
    /// Coulomb friction coefficient, 1.
    pub mu: f64,
    /// Bengisu-Akay (mu_s, xi in s/m), eq. (5), when given.
    pub stiction: Option<(f64, f64)>,
}

/// A free body's mass properties at the current parameters (for mass splitting).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FreeMass {
    /// kg
    pub mass: f64,
    /// Principal moments about the body axes, kg m^2.
    pub inertia: [f64; 3],
    /// Rotation locked (no angular response).
    pub locked: bool,
}

impl FreeMass {
    /// The inverse inertia in the world frame at `rotation`, times `scale` (a count of
    /// contacts sharing the body, or 1), 1/(kg m^2): R diag(scale / I) R^T; zero when
    /// the rotation is locked.
    fn inverse_inertia(
        &self,
        rotation: &nalgebra::UnitQuaternion<f64>,
        scale: f64,
    ) -> nalgebra::Matrix3<f64> {
        if self.locked {
            return nalgebra::Matrix3::zeros();
        }
        let r = rotation.to_rotation_matrix();
        let d = Vector3::from(self.inertia.map(|i| scale / i));
        r.matrix() * nalgebra::Matrix3::from_diagonal(&d) * r.matrix().transpose()
    }
}

/// What the scene reads of the world at each evaluation; bodies by index, world frame.
pub trait SceneInput {
    /// Time, s.
    fn time(&self) -> f64;
    /// Body `b`'s pose and velocities.
    fn pose(&self, b: usize) -> BodyPose;
    /// The terrain surface.
    fn surface(&self) -> &Surface;
    /// `bbcc.v_d` and `bbcc.impact_velocity_min`, m/s; None without a `bbcc` section
    /// (then nothing touches).
    fn constants(&self) -> Option<(f64, f64)>;
    /// The material of body `b` (None: the terrain's), when it has one.
    fn material(&self, b: Option<usize>) -> Option<ContactMaterial>;
    /// Body `b`'s `contact_length` parameter, m (0: its longest edge; 0 without a
    /// material).
    fn contact_length(&self, b: usize) -> f64;
    /// The radius of body `b` when it is a sphere, m.
    fn sphere_radius(&self, b: usize) -> Option<f64>;
    /// Body `b`'s mass properties when it is free.
    fn free_mass(&self, b: usize) -> Option<FreeMass>;
    /// Gravity, m/s^2 (`bbcc.implicit_normal` predicts the velocities with it).
    fn gravity(&self) -> Vector3<f64>;
    /// The force (N) and torque (N m) applied to body `b` from outside (its `f_ext` and
    /// `t_ext` inputs), zero where it has none.
    fn applied(&self, b: usize) -> (Vector3<f64>, Vector3<f64>);
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
    /// With `bbcc.adaptive_step` and a kept `wrench`: that evaluation's largest
    /// omega^2, 1/s^2 (the step bound of the sub-step it serves); 0 otherwise.
    #[serde(default)]
    pub omega2: f64,
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

/// BBCC's contact scene (Buse 2023, section 4.1): the parry shapes, the broad phase,
/// the contact memories and each body's wrench of the last evaluation. It reads the
/// world only through [`SceneInput`].
pub struct Scene {
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
    /// `bbcc.adaptive_step` (with `semi_implicit`): the step bound is tracked.
    adaptive: bool,
    /// With `adaptive`: the largest omega^2 = stiffness x inverse mass of the last
    /// evaluation's contact points, 1/s^2 (0: none).
    max_omega2: f64,
    /// `bbcc.contact_patch`: flat-faced contacts spread over their overlap.
    contact_patch: bool,
    /// `bbcc.elastic_foundation`: the patch an elastic foundation over the overlap.
    elastic_foundation: bool,
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
    /// `bbcc.implicit_normal` (with `semi_implicit`): the elastic part of the normal
    /// forces linearly implicit, all contacts together ([`super::implicit_normal`]).
    implicit_normal: bool,
    /// With `implicit_normal`: the rows of this evaluation (work buffer)...
    rows: Vec<SolveRow>,
    /// ...each candidate pair's from the parallel narrow phase, one pair's from a
    /// serial call (work buffers), and the rows left out past `ROWS_MAX` per pair...
    pair_rows: Vec<RowBuf>,
    one_pair_rows: RowBuf,
    rows_dropped: usize,
    /// ...the bodies as the solve sees them (work buffer), and the solve.
    solve_bodies: Vec<SolveBody>,
    /// (which of them are worked out in this solve),
    solve_ready: Vec<bool>,
    solve: ImplicitSolve,
}

impl Scene {
    /// The scene of `n` bodies: `ground_pairs` (sorted) touch the terrain, `rule` lets
    /// body pairs touch, body `b` has `parts[b]` convex parts (one ground memory slot
    /// each); `settings`, the scenario's `bbcc` section.
    pub fn new(
        n: usize,
        ground_pairs: Vec<usize>,
        rule: PairRule,
        parts: Vec<usize>,
        settings: Option<&BbccSettings>,
    ) -> Scene {
        let mut slots = Vec::with_capacity(ground_pairs.len() + 1);
        let mut total = 0usize;
        for &b in &ground_pairs {
            slots.push(total);
            total += parts[b];
        }
        slots.push(total);
        Scene {
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
            semi_implicit: settings.is_some_and(|b| b.semi_implicit),
            adaptive: settings.is_some_and(|b| b.semi_implicit && b.adaptive_step),
            max_omega2: 0.0,
            // the stick spring needs a contact point that does not jump between a face's
            // vertices: it implies the patch
            contact_patch: settings
                .is_some_and(|b| b.contact_patch || b.stick || b.elastic_foundation),
            elastic_foundation: settings.is_some_and(|b| b.elastic_foundation),
            stick: settings.is_some_and(|b| b.stick),
            rolling: settings.map_or(0.0, |b| b.rolling_resistance),
            // resting contacts need their rocking damped: the stick spring implies it
            reimpact: settings.is_some_and(|b| b.reimpact || b.stick),
            inv_mass: vec![InvMass::ZERO; n],
            share: vec![0; n],
            implicit_normal: settings.is_some_and(|b| b.semi_implicit && b.implicit_normal),
            rows: vec![],
            pair_rows: vec![],
            one_pair_rows: RowBuf::default(),
            rows_dropped: 0,
            solve_bodies: Vec::with_capacity(n),
            solve_ready: Vec::with_capacity(n),
            solve: ImplicitSolve::default(),
        }
    }

    /// Each body's wrench at the current state for a sub-step of `dt` (s; 0: an
    /// evaluation for the outputs, nothing advances) of a world whose model step is
    /// `model_step` (s). Unless the last evaluation was of this very state for this
    /// sub-step (the evaluation for the outputs at the end of a step serves the next
    /// sub-step), the contacts are evaluated again; the contact memories always
    /// advance (the next sub-step would record the same).
    pub fn evaluate(&mut self, w: &impl SceneInput, dt: f64, model_step: f64) -> &[ContactWrench] {
        let advance = dt > 0.0;
        // the sub-step: the model step when they agree to rounding (a communication
        // step of 1 ms in sub-steps of 1e-4 s gives 1e-3 / 10, not quite 1e-4); between
        // steps, the last one's (the next step's sub-steps are likely the same)
        let step = if !advance && self.step > 0.0 {
            self.step
        } else if advance && (dt - model_step).abs() > 1e-9 * model_step {
            dt
        } else {
            model_step
        };
        if !(advance && self.fresh && step == self.step) {
            self.step = step;
            for c in self.wrench.iter_mut() {
                *c = ContactWrench::default();
            }
            self.contacts(w);
        }
        // After a sub-step the bodies move; after an output evaluation they do not.
        self.fresh = !advance;
        &self.wrench
    }

    /// An input changed: the last evaluation no longer serves the next sub-step.
    pub fn inputs_changed(&mut self) {
        self.fresh = false;
    }

    /// Per body: the partners it touched in the last evaluation.
    pub fn touching(&self) -> &[i32] {
        &self.touching
    }

    /// Broad-phase candidate pairs and narrow-phase queries of the last evaluation.
    pub fn stats(&self) -> (usize, usize) {
        self.stats
    }

    /// Longest edge of body `b`'s bounding box (its R_i when `contact_length` is 0), m;
    /// 0 before the scene is built or for bodies BBCC does not touch.
    pub fn body_size(&self, b: usize) -> f64 {
        self.auto_length.get(b).copied().unwrap_or(0.0)
    }

    /// Contacts (pairs of convex parts touching, the ground's included) of the last
    /// evaluation.
    pub fn contact_count(&self) -> usize {
        self.part_contacts
    }

    /// Which body pairs may touch.
    pub fn rule(&self) -> &PairRule {
        &self.rule
    }

    /// The FMU state: the memories, the last sub-step, the last wrenches when current.
    pub fn state(&self) -> BbccState {
        BbccState {
            ground: self.memory.clone(),
            pairs: self.pair_memory.clone(),
            step: self.step,
            wrench: if self.fresh {
                self.wrench.clone()
            } else {
                vec![]
            },
            omega2: if self.fresh { self.max_omega2 } else { 0.0 },
        }
    }

    /// [`Scene::state`] into `t`, reusing its buffers.
    pub fn save_into(&self, t: &mut BbccState) {
        t.ground.clone_from(&self.memory);
        t.pairs.clone_from(&self.pair_memory);
        t.step = self.step;
        t.wrench.clear();
        t.omega2 = 0.0;
        if self.fresh {
            t.wrench.extend_from_slice(&self.wrench);
            t.omega2 = self.max_omega2;
        }
    }

    /// Whether `st` can be this scene's state: as many ground slots, finite values, and
    /// body pairs' contacts the rule allows, of part pairs they have, in order, each
    /// once.
    pub fn fits(&self, st: &BbccState) -> bool {
        if st.ground.len() != self.memory.len()
            || !(st.step.is_finite() && st.step >= 0.0)
            || !(st.omega2.is_finite() && st.omega2 >= 0.0)
        {
            return false;
        }
        let finite = |v: &Vector3<f64>| v.iter().all(|x| x.is_finite());
        if !(st.wrench.is_empty() || st.wrench.len() == self.wrench.len())
            || !st
                .wrench
                .iter()
                .all(|c| finite(&c.force) && finite(&c.torque) && c.depth.is_finite())
        {
            return false;
        }
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
                return false;
            }
            last = Some(key);
        }
        true
    }

    /// With `bbcc.adaptive_step`: the longest sub-step the last evaluation's contacts
    /// allow, s: 1 / omega of the stiffest contact point, half the elastic part's
    /// stability limit 2 / omega under symplectic Euler (infinite without a contact or
    /// without `adaptive_step`).
    pub fn step_bound(&self) -> f64 {
        if self.adaptive && self.max_omega2 > 0.0 {
            1.0 / self.max_omega2.sqrt()
        } else {
            f64::INFINITY
        }
    }

    /// Whether `bbcc.adaptive_step` is on.
    pub fn adaptive(&self) -> bool {
        self.adaptive
    }

    /// Restores `st` (one that [`Scene::fits`]; None keeps the memories); the kept
    /// evaluation of that state, when there is one, serves the next sub-step.
    pub fn restore(&mut self, st: Option<&BbccState>) {
        if let Some(st) = st {
            self.memory.clone_from(&st.ground);
            self.pair_memory.clone_from(&st.pairs);
            self.step = st.step;
        }
        self.fresh = false;
        if let Some(st) = st {
            if st.wrench.len() == self.wrench.len() {
                self.wrench.clone_from(&st.wrench);
                self.max_omega2 = st.omega2;
                self.fresh = true;
            }
        }
        self.active_known = false;
    }
}

impl Scene {
    /// R_i of body `b`, m: its `contact_length`, or its longest edge when that is 0.
    fn contact_length(&self, w: &impl SceneInput, b: usize) -> f64 {
        let set = w.contact_length(b);
        if set > 0.0 {
            set
        } else {
            self.auto_length[b]
        }
    }

    /// Constants of the BBCC contact of body `a` (None: the terrain) with body `b`,
    /// from the current parameters (Buse 2023 section 4.1.1). Pairs are validated: both
    /// sides have materials.
    fn law(&self, w: &impl SceneInput, a: Option<usize>, b: usize) -> PairLaw {
        let (Some(ma), Some(mb), Some((v_d, impact_velocity_min))) =
            (w.material(a), w.material(Some(b)), w.constants())
        else {
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
                adaptive: false,
                implicit_normal: false,
                patch: false,
                elastic_foundation: false,
                stick: None,
                rolling: 0.0,
                now: w.time(),
            };
        };
        let (e1, nu1, z1, mu1) = (ma.e, ma.nu, ma.zeta, ma.mu);
        let (e2, nu2, z2, mu2) = (mb.e, mb.nu, mb.zeta, mb.mu);
        // 1/R = 1/R_1 + 1/R_2; the terrain is unbounded.
        let r_a = a
            .map(|i| self.contact_length(w, i))
            .unwrap_or(f64::INFINITY);
        let r_eff = hunt_crossley::effective_radius(r_a, self.contact_length(w, b));
        let stiction = match (ma.stiction, mb.stiction) {
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
            v_d,
            impact_velocity_min,
            reimpact: self.reimpact,
            implicit_step: if self.semi_implicit { self.step } else { 0.0 },
            adaptive: self.adaptive,
            implicit_normal: self.implicit_normal,
            patch: self.contact_patch,
            elastic_foundation: self.elastic_foundation,
            // Mindlin's ratio of tangential to normal stiffness, nu of the pair's mean
            stick: self.stick.then(|| {
                let nu = 0.5 * (nu1 + nu2);
                2.0 * (1.0 - nu) / (2.0 - nu)
            }),
            rolling: self.rolling,
            now: w.time(),
        }
    }

    /// Builds the BBCC shapes of the bodies it touches (`geometry` resolves body `b`'s
    /// from the current, fixed, parameters; `names` name them in messages) and the
    /// terrain's half-space for a plane `surface`. A new build forgets nothing but
    /// whether the last evaluation is current.
    pub fn build(
        &mut self,
        names: &[&str],
        surface: &Surface,
        mut geometry: impl FnMut(usize) -> Result<Option<Geometry>, String>,
    ) -> Result<(), String> {
        self.fresh = false;
        self.active_known = false;
        let in_bbcc: Vec<bool> = (0..names.len())
            .map(|b| self.ground_pairs.contains(&b) || self.rule.pairs_body(b))
            .collect();
        for (b, name) in names.iter().enumerate() {
            self.shapes[b] = None;
            self.box_poses[b] = None;
            if !in_bbcc[b] {
                continue;
            }
            let geometry = geometry(b)
                .map_err(|e| format!("body '{name}': {e}"))?
                .ok_or_else(|| format!("body '{name}' has no BBCC shape"))?;
            let shape = crate::geometry::shape::build(&geometry)
                .map_err(|e| format!("body '{name}': {e}"))?;
            let parts = super::pair::part_count(shape.as_ref());
            if parts != self.parts[b] {
                return Err(format!(
                    "body '{name}': its BBCC shape has {parts} convex parts, {} declared",
                    self.parts[b]
                ));
            }
            self.auto_length[b] = crate::geometry::shape::longest_edge(&shape);

            self.shapes[b] = Some(shape);
        }
        self.halfspace = match *surface {
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
    fn contacts(&mut self, w: &impl SceneInput) {
        for t in self.touching.iter_mut() {
            *t = 0;
        }
        self.max_omega2 = 0.0;
        self.now_active.clear();
        self.rows.clear();
        self.rows_dropped = 0;
        if w.constants().is_none() {
            return;
        }
        for b in 0..self.poses.len() {
            if let Some(shape) = &self.shapes[b] {
                self.poses[b] = w.pose(b);
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
                if above_plane(aabb, iso, w.surface()) {
                    continue;
                }
            }
            let law = self.law(w, None, b);
            let first = self.slots[p];
            let (force, torque, depth, touch, omega2) = match (&self.halfspace, &self.shapes[b]) {
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
                        self.implicit_normal.then_some(&mut self.one_pair_rows),
                    );
                    if self.implicit_normal {
                        self.rows_dropped += SolveRow::take_from(
                            &mut self.one_pair_rows,
                            [None, Some(b as u32)],
                            &mut self.rows,
                        );
                    }
                    (c.force2, c.torque2, c.depth, c.in_contact, c.omega2)
                }
                _ => {
                    let Some(radius) = w.sphere_radius(b) else {
                        continue;
                    };
                    let pose = &self.poses[b];
                    let body = BodyKinematics {
                        r: pose.iso.translation.vector,
                        v: pose.v,
                        w: pose.w,
                    };
                    let ground = w.surface().disc_contact(&body.r, radius);
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
                    // spheres on a profile are not semi-implicit: no bound
                    (c.force, c.torque, c.depth, c.in_contact, 0.0)
                }
            };
            self.max_omega2 = self.max_omega2.max(omega2);
            ground_queries += 1;
            self.accumulate(b, force, torque, depth, touch);
        }
        self.next_memory.clear();
        if !self.candidates.is_empty() {
            self.narrow_phase(w);
        }
        if self.implicit_normal && self.step > 0.0 && !self.rows.is_empty() {
            self.solve_normal(w);
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
    fn narrow_phase(&mut self, w: &impl SceneInput) {
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
            if self.implicit_normal && self.pair_rows.len() < n {
                self.pair_rows.resize(n, RowBuf::default());
            }
            let (candidates, shapes, poses, inv_mass, boxes, memory, laws) = (
                &self.candidates,
                &self.shapes,
                &self.poses,
                &self.inv_mass,
                &self.boxes,
                &self.pair_memory,
                &self.laws,
            );
            let one = |c: usize, out: &mut Option<PairResult>, mut rows: Option<&mut RowBuf>| {
                let Candidate { i, j, first, end } = candidates[c];
                let (i, j) = (i as usize, j as usize);
                let (Some(si), Some(sj)) = (&shapes[i], &shapes[j]) else {
                    return;
                };
                if let Some(rows) = rows.as_deref_mut() {
                    rows.clear();
                }
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
                    rows,
                );
                if count <= TOUCHED_MAX {
                    *out = Some((wrench, touched, count as u8));
                }
            };
            use rayon::prelude::*;
            if self.implicit_normal {
                self.results
                    .par_iter_mut()
                    .zip(self.pair_rows[..n].par_iter_mut())
                    .enumerate()
                    .with_min_len(64)
                    .for_each(|(c, (out, rows))| one(c, out, Some(rows)));
            } else {
                self.results
                    .par_iter_mut()
                    .enumerate()
                    .with_min_len(64)
                    .for_each(|(c, out)| one(c, out, None));
            }
        }
        for c in 0..n {
            let Candidate { i, j, first, end } = self.candidates[c];
            let (ci, cj) = (i, j);
            let (i, j) = (i as usize, j as usize);
            let start = self.next_memory.len();
            let from_parallel = self.results.get(c).copied().flatten().filter(|_| parallel);
            let wrench = match from_parallel {
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
                        self.implicit_normal.then_some(&mut self.one_pair_rows),
                    )
                }
            };
            // sorted by slot within the pair (the parts are visited in tree order)
            self.next_memory[start..].sort_unstable_by_key(|c| c.slot);
            if self.implicit_normal {
                let rows = if from_parallel.is_some() {
                    &mut self.pair_rows[c]
                } else {
                    &mut self.one_pair_rows
                };
                self.rows_dropped +=
                    SolveRow::take_from(rows, [Some(ci), Some(cj)], &mut self.rows);
            }
            self.max_omega2 = self.max_omega2.max(wrench.omega2);
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

    /// Body `b` as the implicit normal solve sees it: its velocities at the sub-step's
    /// end with every force so far (gravity `g`, m/s^2).
    fn solve_body(&self, w: &impl SceneInput, b: usize, g: Vector3<f64>) -> SolveBody {
        let h = self.step;
        let pose = &self.poses[b];
        let origin = pose.iso.translation.vector;
        let Some(free) = w.free_mass(b) else {
            return SolveBody {
                origin,
                v: pose.v,
                w: pose.w,
                ..SolveBody::IMMOVABLE
            };
        };
        let (f_ext, t_ext) = w.applied(b);
        let acc = &self.wrench[b];
        let inv_inertia = free.inverse_inertia(&pose.iso.rotation, 1.0);
        // the sub-step as the world takes it (symplectic Euler), without the
        // gyroscopic term
        let spin = if free.locked {
            Vector3::zeros()
        } else {
            pose.w + inv_inertia * ((acc.torque + t_ext) * h)
        };
        SolveBody {
            inv_mass: 1.0 / free.mass,
            inv_inertia,
            origin,
            v: pose.v + ((acc.force + f_ext) / free.mass + g) * h,
            w: spin,
        }
    }

    /// `bbcc.implicit_normal`: each contact point's implicit impulse over the sub-step
    /// ([`ImplicitSolve`]), from the velocities every force so far gives the bodies (the
    /// contacts', gravity, the `f_ext`/`t_ext` inputs), added to the bodies' wrenches as
    /// the force impulse / h at the point.
    fn solve_normal(&mut self, w: &impl SceneInput) {
        let h = self.step;
        let g = w.gravity();
        // only the bodies with a contact point are worked out; the solve reads no other
        self.solve_bodies.clear();
        self.solve_bodies
            .resize(self.poses.len(), SolveBody::IMMOVABLE);
        self.solve_ready.clear();
        self.solve_ready.resize(self.poses.len(), false);
        for r in 0..self.rows.len() {
            for b in self.rows[r].bodies.into_iter().flatten() {
                let b = b as usize;
                if !self.solve_ready[b] {
                    self.solve_ready[b] = true;
                    self.solve_bodies[b] = self.solve_body(w, b, g);
                }
            }
        }
        self.solve.solve(&self.rows, &mut self.solve_bodies, h);
        for (r, &impulse) in self.rows.iter().zip(&self.solve.impulses) {
            if impulse == 0.0 {
                continue;
            }
            let f = r.row.normal * (impulse / h);
            for (k, b) in r.bodies.iter().enumerate() {
                if let Some(b) = b {
                    let b = *b as usize;
                    let force = if k == 0 { -f } else { f };
                    let acc = &mut self.wrench[b];
                    acc.force += force;
                    acc.torque += (r.row.point - self.solve_bodies[b].origin).cross(&force);
                }
            }
        }
    }

    /// What the last implicit solve did (`bbcc.implicit_normal`; for benchmarks).
    pub fn implicit_stats(&self) -> SolveStats {
        SolveStats {
            sweeps: self.solve.sweeps,
            rows: self.rows.len(),
            visits: self.solve.visits,
            dropped: self.rows_dropped,
        }
    }

    /// Each free body's inverse mass and inertia, shared among its part contacts (mass
    /// splitting, so that the implicit viscous forces of all its contacts together
    /// still never reverse its motion within a step). The contacts counted are those of
    /// the last evaluation, which the contact memories hold (so a restored state counts
    /// the same), and at least one: a contact that starts now is shared with them.
    fn share_masses(&mut self, w: &impl SceneInput) {
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
            let Some(free) = w.free_mass(b) else {
                continue;
            };
            let n = self.share[b].max(1) as f64;
            let i = free.inverse_inertia(&self.poses[b].iso.rotation, n);
            self.inv_mass[b] = InvMass {
                m: n / free.mass,
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
