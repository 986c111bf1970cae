//! SCM's adapter: the soil and its bodies as the world calls them (see
//! [`crate::cosim::model`]). Declares the soil's parameters, its soil classes and the
//! per-body outputs; reads them and the bodies' poses into SCM's [`Scene`] (the soil,
//! the bodies' meshes and work buffers, the soil update at its own rate) and its
//! contacts back into the bodies' loads and the outputs.

use super::scene::{BodyRole, Scene, SoilState};
use super::section::ScmSoilClass;
use super::soil_map::SoilMap;
use super::{SoilGrid, SoilParams};
use crate::cosim::references::MotionVrs;
use crate::cosim::model::{self, Declare, Frame, Model, ModelState};
use crate::cosim::variables::{
    Bounds, Causality, Initial, Start, VarType, Variability, Variable, VariableTable,
};
use crate::cosim::WorldError;
use std::any::Any;
use Variability::{Fixed, Tunable};

/// Outputs of a body with SCM contact.
#[derive(Debug, Clone, Copy)]
pub struct ScmBodyVrs {
    /// None where the body's driver declares its own (the rig's `wheel.sinkage`).
    pub sinkage: Option<usize>,
    /// Integer value reference.
    pub contact_nodes: usize,
    pub footprint_area: usize,
    pub b_eff: usize,
}

/// SCM soil parameters (`soil.*`).
#[derive(Debug, Clone, Copy)]
pub struct ScmVrs {
    pub ds: usize,
    pub n: usize,
    pub kc: usize,
    pub kphi: usize,
    pub c: usize,
    pub phi: usize,
    pub repose: usize,
    pub mu: usize,
    pub k_e: usize,
    pub damping: usize,
    pub v_shear: usize,
    pub k_shear: usize,
    pub density: usize,
    /// Integer value reference.
    pub erosion_sweeps: usize,
    pub extent: [usize; 4],
    pub update_interval: usize,
    /// Boolean value references.
    pub deformation: usize,
    pub side_pressure: usize,
    pub erosion_stops_at_bodies: usize,
    /// String value reference.
    pub export_dir: usize,
    pub export_interval: usize,
    /// Real outputs: soil volume above the base surface, and stored tiles.
    pub volume: usize,
}

/// Tunable parameters of one SCM soil class (`soil.class<c>.*`, `scm.soil_map`): one
/// for each value the class sets; `None` where it takes the `soil.*` parameter.
#[derive(Debug, Clone, Copy, Default)]
pub struct SoilClassVrs {
    pub n: Option<usize>,
    pub kc: Option<usize>,
    pub kphi: Option<usize>,
    pub c: Option<usize>,
    pub phi: Option<usize>,
    pub repose: Option<usize>,
}

/// An angle strictly between 0 and 90 degrees, rad (friction, repose).
const ACUTE: Bounds = Bounds {
    min: Some(0.0),
    max: Some(std::f64::consts::FRAC_PI_2),
    positive: true,
};

/// SCM outputs of body (or rig wheel) `n`, its sinkage described by `sinkage`.
fn scm_body_outputs(t: &mut VariableTable, n: &str, sinkage: &str) -> ScmBodyVrs {
    let name = format!("{n}.sinkage");
    ScmBodyVrs {
        sinkage: t
            .by_name(&name)
            .is_none()
            .then(|| t.real_output(name, "m", sinkage)),
        contact_nodes: t.integer_output(
            format!("{n}.contact_nodes"),
            "SCM: soil grid nodes in the footprint",
        ),
        footprint_area: t.real_output(
            format!("{n}.footprint_area"),
            "m2",
            "SCM: footprint area A (Krenn 2009 eq. (4))",
        ),
        b_eff: t.real_output(
            format!("{n}.b_eff"),
            "m",
            "SCM: effective contact width b_eff = 2A/L (Krenn 2009 eq. (3))",
        ),
    }
}

/// `soil.class<c>.<name>` for each value soil class c of `scm.soil_map` sets, with the
/// unit and bounds of `soil.<name>`.
fn scm_classes(t: &mut VariableTable, s: &crate::scenario::types::ScmSettings) -> Vec<SoilClassVrs> {
    let Some(map) = &s.soil_map else {
        return vec![];
    };
    let angle = ACUTE;
    let mut out = vec![];
    for (k, class) in map.classes.iter().enumerate() {
        let c = k + 1;
        let mut p =
            |value: Option<f64>, name: &str, unit: Option<&'static str>, bounds, what: &str| {
                value.map(|v| {
                    t.push(Variable {
                        name: format!("soil.class{c}.{name}"),
                        vr: 0,
                        ty: VarType::Real,
                        causality: Causality::Parameter,
                        variability: Tunable,
                        initial: Some(Initial::Exact),
                        unit,
                        description: format!("soil class {c} of scm.soil_map: {what}"),
                        start: Some(Start::Real(v)),
                        bounds,
                    })
                })
            };
        out.push(SoilClassVrs {
            n: p(
                class.n,
                "n",
                Some("1"),
                Bounds::POSITIVE,
                "exponent of sinkage n",
            ),
            kc: p(
                class.kc,
                "kc",
                None,
                Bounds::NON_NEGATIVE,
                "cohesive modulus k_c, N/m^(n+1)",
            ),
            kphi: p(
                class.kphi,
                "kphi",
                None,
                Bounds::NON_NEGATIVE,
                "frictional modulus k_phi, N/m^(n+2)",
            ),
            c: p(class.c, "c", Some("Pa"), Bounds::NON_NEGATIVE, "cohesion c"),
            phi: p(
                class.phi,
                "phi",
                Some("rad"),
                angle,
                "angle of internal friction phi",
            ),
            repose: p(
                class.repose,
                "repose",
                Some("rad"),
                angle,
                "maximum angle of repose psi",
            ),
        });
    }
    out
}

fn scm_constants(t: &mut VariableTable, s: &crate::scenario::types::ScmSettings) -> ScmVrs {
    let soil = &s.soil;
    let mut p = |name: &str,
                 unit: Option<&'static str>,
                 variability: Variability,
                 v: f64,
                 bounds: Bounds,
                 what: &str| {
        t.push(Variable {
            name: name.into(),
            vr: 0,
            ty: VarType::Real,
            causality: Causality::Parameter,
            variability,
            initial: Some(Initial::Exact),
            unit,
            description: what.into(),
            start: Some(Start::Real(v)),
            bounds,
        })
    };
    let angle = ACUTE;
    let ds = p(
        "soil.ds",
        Some("m"),
        Fixed,
        soil.ds,
        Bounds::POSITIVE,
        "SCM grid spacing ds (Krenn 2009 section 3.1)",
    );
    let n = p(
        "soil.n",
        Some("1"),
        Tunable,
        soil.n,
        Bounds::POSITIVE,
        "exponent of sinkage n (Krenn 2009 Table 1)",
    );
    let kc = p(
        "soil.kc",
        None,
        Tunable,
        soil.kc,
        Bounds::NON_NEGATIVE,
        "cohesive modulus k_c, N/m^(n+1) (Krenn 2009 Table 1)",
    );
    let kphi = p(
        "soil.kphi",
        None,
        Tunable,
        soil.kphi,
        Bounds::NON_NEGATIVE,
        "frictional modulus k_phi, N/m^(n+2) (Krenn 2009 Table 1)",
    );
    let c = p(
        "soil.c",
        Some("Pa"),
        Tunable,
        soil.c,
        Bounds::NON_NEGATIVE,
        "cohesion c (Krenn 2009 Table 1, eq. (8))",
    );
    let phi = p(
        "soil.phi",
        Some("rad"),
        Tunable,
        soil.phi,
        angle,
        "angle of internal friction phi (Krenn 2009 Table 1, eq. (8))",
    );
    let repose = p(
        "soil.repose",
        Some("rad"),
        Tunable,
        soil.repose,
        angle,
        "maximum angle of repose psi (Krenn 2009 section 3.1): erosion levels steeper slopes",
    );
    let mu = p(
        "soil.mu",
        Some("1"),
        Tunable,
        soil.mu,
        Bounds::NON_NEGATIVE,
        "Coulomb friction coefficient mu between soil and body (Krenn 2009 eq. (8))",
    );
    let k_e = p(
        "soil.k_e",
        Some("Pa/m"),
        Tunable,
        soil.k_e,
        Bounds::POSITIVE,
        "elastic unloading/reloading stiffness of the soil",
    );
    let damping = p(
        "soil.damping",
        Some("Pa.s/m"),
        Tunable,
        soil.damping,
        Bounds::NON_NEGATIVE,
        "linear velocity damping of the contact pressure (Krenn 2009 section 5)",
    );
    let v_shear = p(
        "soil.v_shear",
        Some("m/s"),
        Tunable,
        soil.v_shear,
        Bounds::POSITIVE,
        "sliding speed over which the shear direction is regularized (tanh)",
    );
    let k_shear = p(
        "soil.k_shear",
        Some("m"),
        Tunable,
        soil.k_shear,
        Bounds::POSITIVE,
        "shear deformation modulus K of Janosi and Hanamoto: shear mobilized as 1 - exp(-j/K)",
    );
    let density = p(
        "soil.density",
        Some("kg/m3"),
        Tunable,
        soil.density,
        Bounds::NON_NEGATIVE,
        "bulk density of the soil: its unit weight (with world.gravity) in the passive earth pressure on side faces",
    );
    let ext = ["x_min", "x_max", "y_min", "y_max"];
    let extent = [0, 1, 2, 3].map(|i| {
        p(
            &format!("soil.extent[{}]", i + 1),
            Some("m"),
            Fixed,
            s.extent[i],
            Bounds::ANY,
            &format!("soil field bounds [x_min, x_max, y_min, y_max]: {}", ext[i]),
        )
    });
    let update_interval = p("soil.update_interval", Some("s"), Tunable, s.update_interval, Bounds::NON_NEGATIVE, "soil deformation update interval (0: every model step); contact forces are computed every model step at the current poses, the soil update yields to each kinematic body's pose at the end of the previous sub-step (its last known position, Buse 2023 section 4.2)");
    let export_interval = p(
        "soil.export_interval",
        Some("s"),
        Tunable,
        s.export_interval,
        Bounds::NON_NEGATIVE,
        "soil surface export interval (0: only at fmi2Terminate)",
    );
    let deformation = t.boolean_parameter(
        "soil.deformation",
        Tunable,
        s.deformation,
        "plastic soil deformation on (Krenn 2009 section 3.3); off, the soil keeps its shape",
    );
    let side_pressure = t.boolean_parameter("soil.side_pressure", Tunable, soil.side_pressure, "passive earth pressure on body faces no vertical ray sees (a wheel's side against a rut's wall; Leite 2010 eq. (3.9))");
    let erosion_stops_at_bodies = t.boolean_parameter("soil.erosion_stops_at_bodies", Tunable, soil.erosion_stops_at_bodies, "erosion stops at the bodies' undersides: soil slumping towards a body does not fill the space it takes (off, as in Krenn 2009 section 3.3, a body resting in its crater is lifted)");
    let erosion_sweeps = t.integer_parameter("soil.erosion_sweeps", Tunable, soil.erosion_sweeps.min(i32::MAX as u32) as i32, Bounds::NON_NEGATIVE, "erosion sweeps per soil update: 0 erodes until no slope exceeds the angle of repose (Krenn 2009 section 3.3); a positive number caps them for speed, the rest continues next update");
    let export_dir = t.push(Variable {
        name: "soil.export_dir".into(),
        vr: 0,
        ty: VarType::String,
        causality: Causality::Parameter,
        variability: Fixed,
        initial: Some(Initial::Exact),
        unit: None,
        description: "folder for the soil surface export (PNG height image, PLY mesh); empty: none"
            .into(),
        start: Some(Start::String(s.export_dir.clone())),
        bounds: Bounds::ANY,
    });
    let volume = t.real_output(
        "soil.volume",
        "m3",
        "soil volume above the base surface (conserved by the deformation)",
    );
    ScmVrs {
        ds,
        n,
        kc,
        kphi,
        c,
        phi,
        repose,
        mu,
        k_e,
        damping,
        v_shear,
        k_shear,
        density,
        erosion_sweeps,
        extent,
        update_interval,
        deformation,
        side_pressure,
        erosion_stops_at_bodies,
        export_dir,
        export_interval,
        volume,
    }
}

/// Reads the soil class map of `scm.soil_map` (its file relative to `dir`) and checks
/// that every class it uses is defined.
fn read_soil_map(
    m: &crate::scenario::types::ScmSoilMap,
    dir: Option<&std::path::Path>,
) -> Result<SoilMap, WorldError> {
    let err = |e: String| WorldError::Asset(format!("scm.soil_map.file '{}': {e}", m.file));
    let dir = dir.ok_or_else(|| err("no folder to read it from".into()))?;
    let path = crate::scenario::assets::resolve_asset(dir, &m.file).map_err(err)?;
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
    Ok(SoilMap {
        origin: m.origin,
        cell: m.cell,
        nx,
        ny,
        class,
        classes: m
            .classes
            .iter()
            .map(|c| ScmSoilClass {
                n: c.n,
                kc: c.kc,
                kphi: c.kphi,
                c: c.c,
                phi: c.phi,
                repose: c.repose,
            })
            .collect(),
    })
}

/// One body SCM acts on.
#[derive(Debug, Clone, Copy)]
struct ScmBody {
    /// Its index in the world.
    index: usize,
    outputs: ScmBodyVrs,
}

/// The SCM soil and the bodies on it, in the world.
pub struct Scm {
    vrs: ScmVrs,
    classes: Vec<SoilClassVrs>,
    /// The scenario's SCM bodies, then the bodies a model added for SCM (the rig's
    /// wheel): the scene's bodies, in its order.
    bodies: Vec<ScmBody>,
    scene: Scene,
    /// `scm.soil_map` as the scenario gives it (read at load_assets).
    map_spec: Option<crate::scenario::types::ScmSoilMap>,
    /// Whether the contact evaluation and the soil update run with the helper threads
    /// or on the calling thread alone, whichever is faster on this machine now (the
    /// same bits either way); a round is one sub-step's evaluation and update.
    gate: crate::parallel::Gate,
}

/// Declares SCM when the scenario has an `scm` section.
pub fn declare(d: &mut Declare) -> Option<Box<dyn Model>> {
    let s = d.scenario.scm.as_ref()?;
    let mut bodies = vec![];
    for name in &s.bodies {
        let Some(index) = d.body_index(name) else {
            continue;
        };
        let outputs = scm_body_outputs(d.table, name, "SCM: deepest footprint node sinkage below its level before loading (Krenn 2009 eq. (7))");
        bodies.push(ScmBody { index, outputs });
    }
    for (index, b) in d.bodies.iter().enumerate() {
        if b.contact_model == Some("scm") {
            let outputs = scm_body_outputs(d.table, &b.name, "SCM: deepest footprint node sinkage below its level before loading (Krenn 2009 eq. (7))");
            bodies.push(ScmBody { index, outputs });
        }
    }
    let vrs = scm_constants(d.table, s);
    let classes = scm_classes(d.table, s);
    let roles = bodies
        .iter()
        .map(|b| {
            let motion = &d.bodies[b.index].motion;
            BodyRole {
                dynamic: matches!(motion, MotionVrs::Free { .. } | MotionVrs::Driven),
                driven: matches!(motion, MotionVrs::Driven),
            }
        })
        .collect();
    Some(Box::new(Scm {
        vrs,
        classes,
        bodies,
        scene: Scene::new(roles),
        map_spec: s.soil_map.clone(),
        gate: Default::default(),
    }))
}

impl Scm {
    /// SCM soil parameters from the current values.
    fn params(&self, w: &Frame) -> SoilParams {
        let v = &self.vrs;
        SoilParams {
            ds: w.real(v.ds),
            n: w.real(v.n),
            kc: w.real(v.kc),
            kphi: w.real(v.kphi),
            c: w.real(v.c),
            phi: w.real(v.phi),
            repose: w.real(v.repose),
            mu: w.real(v.mu),
            k_e: w.real(v.k_e),
            damping: w.real(v.damping),
            v_shear: w.real(v.v_shear),
            k_shear: w.real(v.k_shear),
            erosion_sweeps: w.integer(v.erosion_sweeps).max(0) as u32,
            density: w.real(v.density),
            gravity: w.gravity().norm(),
            side_pressure: w.boolean(v.side_pressure),
            erosion_stops_at_bodies: w.boolean(v.erosion_stops_at_bodies),
        }
    }

    /// SCM: a fresh soil field and the contact meshes, from the current parameters.
    fn build_soil(&mut self, w: &Frame) -> Result<(), WorldError> {
        let sv = self.vrs;
        let ds = w.real(sv.ds);
        let e = sv.extent.map(|v| w.real(v));
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
        let mut meshes = Vec::with_capacity(self.bodies.len());
        for sb in &self.bodies {
            let body = &w.bodies[sb.index];
            let mesh = crate::cosim::bodies::scm_mesh(
                &body.spec,
                &body.shape,
                &w.values.reals,
                &w.values.integers,
                w.meshes,
                ds,
            )
            .map_err(|e| WorldError::Asset(format!("SCM body '{}': {e}", body.name)))?;
            meshes.push(mesh);
        }
        let grid = SoilGrid::new(ds, e[0], e[1], e[2], e[3]);
        self.scene
            .build(grid, w.time + w.real(sv.export_interval), meshes);
        Ok(())
    }

    /// SCM: contact forces of the SCM bodies (and the rig's wheel) at the current
    /// state, added to their loads; in a sub-step (`advance`) only of the bodies
    /// they move.
    fn contacts(&mut self, w: &mut Frame, advance: bool) {
        let p = self.params(w);
        self.sync_classes(w);
        let (bodies, scene) = (&self.bodies, &mut self.scene);
        let frame = &*w;
        self.gate.run(|| {
            scene.contacts(&p, frame.surface, advance, |m| frame.pose_of(bodies[m].index))
        });
        for (m, body) in self.bodies.iter().enumerate() {
            if !self.scene.needed(m, advance) {
                continue;
            }
            let r = self.scene.result(m);
            let acc = &mut w.loads[body.index];
            acc.force += r.force;
            acc.torque += r.torque;
            acc.depth = acc.depth.max(r.sinkage);
            acc.in_contact |= r.contact_nodes > 0;
            acc.k_zz += r.k_zz;
            acc.c_zz += r.c_zz;
        }
    }

    /// Makes the soil classes the soil uses those of the `soil.class<c>.*` parameters
    /// now: when one changed (set between steps, or by a restored state), a new class
    /// table goes to the scene. Compares only, unless something changed.
    fn sync_classes(&mut self, w: &Frame) {
        let Some(in_use) = self.scene.classes() else {
            return;
        };
        let reals = &w.values.reals;
        // class c as its parameters set it now (the values it leaves out stay None)
        let now = |v: &SoilClassVrs, c: &ScmSoilClass| {
            let at = |vr: Option<usize>, old: Option<f64>| vr.map(|v| reals[v]).or(old);
            ScmSoilClass {
                n: at(v.n, c.n),
                kc: at(v.kc, c.kc),
                kphi: at(v.kphi, c.kphi),
                c: at(v.c, c.c),
                phi: at(v.phi, c.phi),
                repose: at(v.repose, c.repose),
            }
        };
        let classes = self.classes.iter().zip(in_use);
        if classes.clone().all(|(v, c)| now(v, c) == *c) {
            return;
        }
        let classes = classes.map(|(v, c)| now(v, c)).collect();
        self.scene.set_classes(classes);
    }

    /// SCM soil update (the second clock), after `dt` of model time.
    fn soil_update(&mut self, w: &Frame, dt: f64) {
        let p = self.params(w);
        self.sync_classes(w);
        let interval = w.real(self.vrs.update_interval);
        let deform = w.boolean(self.vrs.deformation);
        let (bodies, scene) = (&self.bodies, &mut self.scene);
        self.gate.run(|| {
            scene.update(&p, w.surface, dt, interval, deform, |m| {
                w.pose_of(bodies[m].index).iso
            })
        });
        self.gate.round_done();
    }

    /// Switches the scan conversion ahead of a driven body's evaluations (on by
    /// default) on or off: results are the same either way (for tests).
    #[doc(hidden)]
    pub fn set_scan_ahead(&mut self, on: bool) {
        self.scene.set_scan_ahead(on);
    }

    /// Evaluations of the SCM bodies that took a scan conversion made ahead (for
    /// tests).
    #[doc(hidden)]
    pub fn scans_taken_ahead(&self) -> u64 {
        self.scene.scans_taken_ahead()
    }

    /// Writes the soil surface (PNG height image, PLY mesh) to `soil.export_dir`, if set.
    fn export_soil(&self, w: &Frame) -> Result<Option<String>, WorldError> {
        let Some(soil) = self.scene.soil() else {
            return Ok(None);
        };
        let dir = &w.values.strings[self.vrs.export_dir];
        if dir.is_empty() {
            return Ok(None);
        }
        let stem = std::path::Path::new(dir).join(format!("soil_t{:010.4}", w.time));
        super::export::write(&soil.grid, w.surface, &stem)
            .map(Some)
            .map_err(WorldError::Export)
    }
}

impl Model for Scm {
    fn key(&self) -> &'static str {
        "scm"
    }

    fn load_assets(&mut self, dir: Option<&std::path::Path>) -> Result<(), WorldError> {
        if let Some(m) = &self.map_spec {
            self.scene.set_map(read_soil_map(m, dir)?);
        }
        Ok(())
    }

    fn build(&mut self, w: &mut Frame) -> Result<(), WorldError> {
        self.build_soil(w)
    }

    fn evaluate(&mut self, w: &mut Frame, dt: f64) {
        self.contacts(w, dt > 0.0);
    }

    fn after_forces(&mut self, w: &mut Frame, dt: f64) {
        self.soil_update(w, dt);
    }

    fn end_substep(&mut self, w: &mut Frame) {
        let bodies = &self.bodies;
        self.scene.hold_motions(|m| w.pose_of(bodies[m].index));
    }

    fn write_outputs(&self, w: &mut Frame) {
        for (body, res) in self.bodies.iter().zip(self.scene.results()) {
            let (s, vals) = (&body.outputs, &mut *w.values);
            if let Some(sinkage) = s.sinkage {
                vals.reals[sinkage] = res.sinkage;
            }
            vals.reals[s.footprint_area] = res.area;
            vals.reals[s.b_eff] = res.b_eff;
            vals.integers[s.contact_nodes] = res.contact_nodes as i32;
        }
        if let Some(soil) = self.scene.soil() {
            w.values.reals[self.vrs.volume] = soil.grid.volume();
        }
    }

    fn after_step(&mut self, w: &mut Frame) -> Result<(), WorldError> {
        let interval = w.real(self.vrs.export_interval);
        if interval > 0.0 && self.scene.export_due(w.time) {
            self.export_soil(w)?;
            self.scene.exported(w.time, interval);
        }
        Ok(())
    }

    fn terminate(&mut self, w: &mut Frame) -> Result<Option<String>, WorldError> {
        self.export_soil(w)
    }

    fn save(&self) -> Option<ModelState> {
        self.scene.soil().cloned().map(ModelState::new)
    }

    fn save_into(&self, target: &mut ModelState) {
        if let Some(s) = self.scene.soil() {
            target.set(s);
        }
    }

    fn decode_state(&self, bytes: &[u8]) -> Result<ModelState, String> {
        model::decode::<SoilState>(self.key(), bytes)
    }

    fn fits(&self, state: Option<&ModelState>) -> Result<(), String> {
        self.scene.fits(state.and_then(|s| s.get::<SoilState>()))
    }

    fn restore(&mut self, state: &ModelState) {
        if let Some(s) = state.get::<SoilState>() {
            self.scene.restore(s);
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
