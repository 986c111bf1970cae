//! SCM's scene: the soil with the bodies on it, and its two clocks (Krenn 2009,
//! section 3; Buse 2023, section 4.2). Every sub-step evaluates the contact of each
//! body against the soil as it is (the first clock); every update interval the soil
//! yields to the bodies' last known positions (the second). Bodies are evaluated in
//! parallel, each into its own work buffer, so the result does not depend on the
//! thread count. It knows no FMI variable: the adapter hands it the parameters and
//! each body's motion.

use super::section::ScmSoilClass;
use super::soil_map::SoilMap;
use super::{BodyMotion, ContactResult, SoilGrid, SoilParams, Workspace};
use crate::geometry::terrain::Surface;
use crate::geometry::TriMesh;
use crate::parallel;
use nalgebra::{Isometry3, Vector3};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The SCM soil and its clocks: what an FMU state keeps of SCM.
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

/// How a body on the soil moves, fixed when the scene is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyRole {
    /// Moved by its contact forces (a free body, a driven body), so that a sub-step
    /// needs its forces; kinematic and fixed bodies only need theirs for the outputs.
    pub dynamic: bool,
    /// Driven (the rig's wheel): its next pose is known when the soil updates, so its
    /// next scan conversion can run beside the update.
    pub driven: bool,
}

/// The soil and the bodies SCM acts on, body `m` being the adapter's `m`-th.
pub struct Scene {
    roles: Vec<BodyRole>,
    /// The soil and its clocks (None before the first build).
    soil: Option<SoilState>,
    /// SCM soil classes per node (`scm.soil_map`), attached to the soil grid.
    map: Option<Arc<SoilMap>>,
    /// Per body: its contact mesh (built at initialization), motion and work buffer.
    meshes: Vec<TriMesh>,
    motion: Vec<BodyMotion>,
    ws: Vec<Workspace>,
    /// Per body: the motion, parameters and soil epoch its work buffer's evaluation
    /// was made at (None: it holds none, e.g. after a soil update).
    tag: Vec<Option<(BodyMotion, SoilParams, u64)>>,
    /// Bumped whenever the soil or the surface changes (update, restore, rebuild).
    epoch: u64,
    /// A driven body is scan-converted at its next pose during the soil update (see
    /// [`super::contact::scan_ahead`]); off only to test that it changes nothing.
    scan_ahead: bool,
    /// Scratch: the motion to evaluate each body at, and whether to.
    at: Vec<BodyMotion>,
    /// Scratch: each body's motion at the start of the current sub-step (where its
    /// forces were taken).
    start: Vec<BodyMotion>,
    pick: Vec<bool>,
}

impl Scene {
    /// A scene for bodies of these roles, with no soil yet (see [`Scene::build`]).
    pub fn new(roles: Vec<BodyRole>) -> Self {
        Scene {
            roles,
            soil: None,
            map: None,
            meshes: vec![],
            motion: vec![],
            ws: vec![],
            tag: vec![],
            epoch: 0,
            scan_ahead: true,
            at: vec![],
            start: vec![],
            pick: vec![],
        }
    }

    /// Attaches the soil class map (`scm.soil_map`) to this and every later soil.
    pub fn set_map(&mut self, map: SoilMap) {
        self.map = Some(Arc::new(map));
    }

    /// The soil classes in use, if the soil has a class map.
    pub fn classes(&self) -> Option<&[ScmSoilClass]> {
        self.map.as_ref().map(|m| &m.classes[..])
    }

    /// Makes `classes` the soil classes in use (a class parameter changed): the
    /// epoch moves on, so that no evaluation of the old classes is reused.
    pub fn set_classes(&mut self, classes: Vec<ScmSoilClass>) {
        let Some(map) = &self.map else {
            return;
        };
        let map = Arc::new(SoilMap {
            classes,
            ..(**map).clone()
        });
        self.map = Some(Arc::clone(&map));
        if let Some(soil) = self.soil.as_mut() {
            soil.grid.set_soil_map(Some(map));
        }
        self.epoch += 1;
    }

    /// A fresh soil `grid` with the bodies' contact meshes (one per body, in order);
    /// the first periodic export is due at `next_export`, s.
    pub fn build(&mut self, mut grid: SoilGrid, next_export: f64, meshes: Vec<TriMesh>) {
        grid.set_soil_map(self.map.clone());
        self.soil = Some(SoilState {
            grid,
            since_update: 0.0,
            next_export,
            held: vec![],
        });
        self.meshes = meshes;
        let n = self.meshes.len();
        self.motion = vec![
            BodyMotion {
                iso: Isometry3::identity(),
                v: Vector3::zeros(),
                w: Vector3::zeros(),
            };
            n
        ];
        self.ws.resize_with(n, Default::default);
        self.tag = vec![None; n];
        self.epoch += 1;
        self.at = self.motion.clone();
        self.start = self.motion.clone();
        self.pick = vec![false; n];
    }

    /// Contact of each body at its current motion (`motion(m)`, world frame) on the
    /// soil, over the rigid `base` surface. In a sub-step (`advance`) only the bodies
    /// its forces move are needed ([`Scene::needed`]); for the outputs all are. A
    /// body whose last evaluation was of this very state (motion, parameters, soil)
    /// keeps it. Each body's result is then [`Scene::result`].
    pub fn contacts(
        &mut self,
        p: &SoilParams,
        base: &Surface,
        advance: bool,
        motion: impl Fn(usize) -> BodyMotion,
    ) {
        self.current_motions(motion);
        if advance {
            // where the sub-step finds the bodies (the soil update's free bodies)
            self.start.copy_from_slice(&self.motion);
        }
        for m in 0..self.ws.len() {
            self.at[m] = self.motion[m];
            self.pick[m] =
                self.needed(m, advance) && self.tag[m] != Some((self.motion[m], *p, self.epoch));
        }
        self.evaluate_picked(p, base);
    }

    /// Whether body `m`'s forces are needed: for the outputs (not `advance`) every
    /// body's, in a sub-step those of the bodies they move.
    pub fn needed(&self, m: usize, advance: bool) -> bool {
        !advance || self.roles[m].dynamic
    }

    /// Body `m`'s contact as last evaluated.
    pub fn result(&self, m: usize) -> &ContactResult {
        &self.ws[m].result
    }

    /// Body `m`'s contact as last evaluated, for each body.
    pub fn results(&self) -> impl Iterator<Item = &ContactResult> {
        self.ws.iter().map(|ws| &ws.result)
    }

    /// The soil and its clocks (None before the first build).
    pub fn soil(&self) -> Option<&SoilState> {
        self.soil.as_ref()
    }

    /// Whether the periodic export is due at `time`, s.
    pub fn export_due(&self, time: f64) -> bool {
        self.soil
            .as_ref()
            .is_some_and(|s| time >= s.next_export * (1.0 - 1e-12))
    }

    /// Moves the next periodic export past `time` by whole `interval`s, s.
    pub fn exported(&mut self, time: f64, interval: f64) {
        if let Some(s) = self.soil.as_mut() {
            while s.next_export <= time * (1.0 + 1e-12) {
                s.next_export += interval;
            }
        }
    }

    /// The current motion of every body into `motion`.
    fn current_motions(&mut self, motion: impl Fn(usize) -> BodyMotion) {
        for (m, slot) in self.motion.iter_mut().enumerate() {
            *slot = motion(m);
        }
    }

    /// Evaluates each body `m` with `pick[m]` at the motion `at[m]` (in parallel)
    /// and tags its evaluation.
    fn evaluate_picked(&mut self, p: &SoilParams, base: &Surface) {
        let p = *p;
        let Some(soil) = &self.soil else {
            return;
        };
        if !self.pick.iter().any(|&x| x) {
            return;
        }
        let grid = &soil.grid;
        let (meshes, motions, pick) = (&self.meshes, &self.at, &self.pick);
        parallel::for_each_mut(&mut self.ws, |m, ws| {
            if pick[m] {
                super::evaluate(&p, grid, base, &meshes[m], &motions[m], ws);
            }
        });
        for m in 0..self.ws.len() {
            if self.pick[m] {
                self.tag[m] = Some((self.at[m], p, self.epoch));
            }
        }
    }

    /// Records every body's current motion (`motion(m)`) as the one the next soil
    /// update yields to (`SoilState::held`), at the end of each sub-step. (Before the
    /// first sub-step nothing is held: the first update yields to the motion of its
    /// time, whatever the inputs were set to after initialization.)
    pub fn hold_motions(&mut self, motion: impl Fn(usize) -> BodyMotion) {
        if self.soil.is_none() || self.ws.is_empty() {
            return;
        }
        self.current_motions(motion);
        let Some(soil) = self.soil.as_mut() else {
            return;
        };
        soil.held.clear();
        soil.held.extend_from_slice(&self.motion);
    }

    /// The soil update (the second clock): after `dt` of model time, s, when the
    /// update `interval` has passed, the soil yields to the bodies' last evaluated
    /// positions (with `deform` off it does not: Krenn 2009's rigid soil). `pose(m)`
    /// is a driven body's pose now, where its next evaluation will be.
    #[allow(clippy::too_many_arguments)]
    pub fn update(
        &mut self,
        p: &SoilParams,
        base: &Surface,
        dt: f64,
        interval: f64,
        deform: bool,
        pose: impl Fn(usize) -> Isometry3<f64>,
    ) {
        let p = *p;
        let Some(soil) = self.soil.as_mut() else {
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
        let held = (soil.held.len() == self.ws.len()).then_some(&soil.held);
        for m in 0..self.ws.len() {
            // a free body or the rig's wheel: where the sub-step found it
            self.at[m] = match held {
                Some(held) if !self.roles[m].dynamic => held[m],
                _ => self.start[m],
            };
            self.pick[m] = self.tag[m] != Some((self.at[m], p, self.epoch));
        }
        self.evaluate_picked(&p, base);
        // the update changes the work buffers and the soil
        self.tag.iter_mut().for_each(|t| *t = None);
        self.epoch += 1;
        let Some(soil) = self.soil.as_mut() else {
            return;
        };
        // bodies whose windows do not overlap prepare their updates in parallel and
        // commit in body order: the same soil as updating them one after the other
        // (each reads only its own window, which no other body's commit writes)
        let n = self.ws.len();
        let disjoint = (0..n).all(|a| {
            (a + 1..n).all(|b| {
                self.ws[a]
                    .update_rect
                    .intersect(&self.ws[b].update_rect)
                    .is_empty()
            })
        });
        if n > 1 && disjoint {
            // each body's commit as soon as it and the bodies before it are prepared,
            // while the others still work
            let ds = soil.grid.ds;
            parallel::for_each_ordered_commit(
                &mut self.ws,
                &mut soil.grid,
                |_, ws, grid| ws.pending = super::deform::load(grid, base, ws),
                |_, ws| {
                    ws.pending = ws.pending && super::deform::settle(&p, ds, ws, elapsed, deform);
                },
                |_, ws, grid| {
                    if ws.pending {
                        super::deform::commit(grid, base, ws);
                    }
                },
            );
        } else {
            // a driven body (the rig's wheel): its next pose is known (its driver
            // stepped before this update), so its next evaluation's scan conversion
            // runs beside the update
            let (ds, extent) = (soil.grid.ds, soil.grid.extent);
            for (m, ws) in self.ws.iter_mut().enumerate() {
                let grid = &mut soil.grid;
                if self.roles[m].driven && self.scan_ahead {
                    let iso = pose(m);
                    let mut ahead = ws.ahead.take().unwrap_or_default();
                    let (mesh, z_top, next) = (&self.meshes[m], ws.z_top, &mut ahead);
                    super::deform::update_beside(&p, grid, base, ws, elapsed, deform, move || {
                        super::contact::scan_ahead(mesh, &iso, ds, &extent, z_top, next)
                    });
                    ws.ahead = Some(ahead);
                } else {
                    super::deform::update(&p, grid, base, ws, elapsed, deform);
                }
            }
        }
    }

    /// Switches the scan conversion ahead of a driven body's evaluations (on by
    /// default) on or off: results are the same either way (for tests).
    pub fn set_scan_ahead(&mut self, on: bool) {
        self.scan_ahead = on;
    }

    /// Evaluations that took a scan conversion made ahead (for tests).
    pub fn scans_taken_ahead(&self) -> u64 {
        self.ws.iter().map(|ws| ws.ahead_taken).sum()
    }

    /// Whether `state` fits this scene's soil: an error saying why not.
    pub fn fits(&self, state: Option<&SoilState>) -> Result<(), String> {
        match (state, &self.soil) {
            (Some(s), Some(o)) if o.grid.ds != s.grid.ds => Err(
                "the FMU state does not belong to this model (its soil grid spacing differs)"
                    .into(),
            ),
            (Some(_), _) => Ok(()),
            (None, _) => {
                Err("the FMU state does not belong to this model (it has no SCM soil)".into())
            }
        }
    }

    /// Makes `state` the soil (a restored FMU state); no evaluation before it is
    /// reused.
    pub fn restore(&mut self, state: &SoilState) {
        match self.soil.as_mut() {
            Some(soil) => soil.clone_from(state),
            None => self.soil = Some(state.clone()),
        }
        if let Some(soil) = self.soil.as_mut() {
            soil.grid.rebuild_index();
            soil.grid.set_soil_map(self.map.clone());
        }
        self.epoch += 1;
    }
}
