//! BBCC's adapter: the model as the world calls it (see [`crate::cosim::model`]).
//! Declares the materials, the BBCC constants and the per-body contact outputs, and
//! hands the contact scene ([`super::scene`]) the world's poses and current parameter
//! values ([`SceneInput`] over the [`Frame`]).

use crate::geometry::primitive;
use super::pair::BodyPose;
use super::pair_rule::PairRule;
use super::scene::{BbccState, ContactMaterial, FreeMass, Scene, SceneInput};
use crate::cosim::feedthrough::{Feedthrough, Group};
use crate::cosim::references::{MotionVrs, ShapeVrs};
use crate::cosim::model::{self, Declare, Frame, Model, ModelState};
use crate::cosim::variables::{Bounds, VarType, Variability, VariableTable};
use crate::cosim::WorldError;
use crate::geometry::terrain::Surface;
use crate::scenario::types::{Material, Shape};
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
        Shape::Sphere(primitive::Sphere { radius }) => 2.0 * radius,
        Shape::Wheel { radius, width }
        | Shape::Cylinder(primitive::Cylinder {
            radius,
            height: width,
        }) => (2.0 * radius).max(*width),
        Shape::GrouserWheel(primitive::GrouserWheel {
            radius,
            width,
            grouser_height,
            ..
        }) => (2.0 * (radius + grouser_height)).max(*width),
        Shape::Cuboid(primitive::Cuboid { size }) => size[0].max(size[1]).max(size[2]),
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

/// BBCC in a world: the value references it declared and its contact scene.
pub struct Bbcc {
    vars: Vars,
    outputs: Vec<Option<BodyOut>>,
    scene: Scene,
}

/// The parameters the scene reads at each evaluation.
struct Vars {
    constants: Option<BbccVrs>,
    terrain_material: Option<MaterialVrs>,
    /// Per body: its `contact_length` and material, when it has one.
    materials: Vec<Option<(usize, MaterialVrs)>>,
}

/// The world's frame as the scene reads it (with its Real values at hand: the pair
/// law reads a dozen per contact).
struct Input<'a, 'f> {
    w: &'a Frame<'f>,
    reals: &'a [f64],
    vars: &'a Vars,
}

#[inline]
fn material_of(reals: &[f64], m: &MaterialVrs) -> ContactMaterial {
    ContactMaterial {
        e: reals[m.e],
        nu: reals[m.nu],
        zeta: reals[m.zeta],
        mu: reals[m.mu],
        stiction: m.stiction.map(|(s, x)| (reals[s], reals[x])),
    }
}

impl SceneInput for Input<'_, '_> {
    #[inline]
    fn time(&self) -> f64 {
        self.w.time
    }
    #[inline]
    fn pose(&self, b: usize) -> BodyPose {
        self.w.pose_of(b)
    }
    #[inline]
    fn surface(&self) -> &Surface {
        self.w.surface
    }
    #[inline]
    fn constants(&self) -> Option<(f64, f64)> {
        let c = self.vars.constants.as_ref()?;
        Some((self.reals[c.v_d], self.reals[c.impact_velocity_min]))
    }
    #[inline]
    fn material(&self, b: Option<usize>) -> Option<ContactMaterial> {
        let m = match b {
            Some(i) => self.vars.materials[i].map(|(_, m)| m),
            None => self.vars.terrain_material,
        };
        m.map(|m| material_of(self.reals, &m))
    }
    #[inline]
    fn contact_length(&self, b: usize) -> f64 {
        self.vars.materials[b]
            .map(|(vr, _)| self.reals[vr])
            .unwrap_or(0.0)
    }
    #[inline]
    fn sphere_radius(&self, b: usize) -> Option<f64> {
        match self.w.bodies[b].shape {
            ShapeVrs::Sphere { radius } => Some(self.w.real(radius)),
            _ => None,
        }
    }
    #[inline]
    fn free_mass(&self, b: usize) -> Option<FreeMass> {
        let MotionVrs::Free {
            mass,
            inertia,
            locked,
            ..
        } = &self.w.bodies[b].motion
        else {
            return None;
        };
        Some(FreeMass {
            mass: self.w.real(*mass),
            inertia: inertia.map(|vr| self.w.real(vr)),
            locked: self.w.boolean(*locked),
        })
    }
    #[inline]
    fn gravity(&self) -> nalgebra::Vector3<f64> {
        self.w.gravity()
    }
    #[inline]
    fn applied(&self, b: usize) -> (nalgebra::Vector3<f64>, nalgebra::Vector3<f64>) {
        match &self.w.bodies[b].motion {
            MotionVrs::Free {
                f_ext: Some(f),
                t_ext: Some(t),
                ..
            } => (self.w.vec3(f), self.w.vec3(t)),
            _ => (nalgebra::Vector3::zeros(), nalgebra::Vector3::zeros()),
        }
    }
}

impl Bbcc {
    /// Broad-phase candidate pairs and narrow-phase queries of the last evaluation.
    pub fn contact_stats(&self) -> (usize, usize) {
        self.scene.stats()
    }

    /// `bbcc.implicit_normal`: what the last implicit solve did.
    pub fn implicit_stats(&self) -> super::implicit_normal::SolveStats {
        self.scene.implicit_stats()
    }

    /// Longest edge of body `b`'s bounding box (its R_i when `contact_length` is 0), m;
    /// 0 before the world is initialized or for bodies BBCC does not touch.
    pub fn body_size(&self, b: usize) -> f64 {
        self.scene.body_size(b)
    }

    /// Contacts (pairs of convex parts touching, the ground's included) of the last
    /// evaluation.
    pub fn contact_count(&self) -> usize {
        self.scene.contact_count()
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
    let scene = Scene::new(n, ground_pairs, rule, parts, s.bbcc.as_ref());
    Some(Box::new(Bbcc {
        vars: Vars {
            constants,
            terrain_material,
            materials,
        },
        outputs,
        scene,
    }))
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
        let rule = self.scene.rule();
        let classes = (0..n)
            .filter_map(|b| rule.class_of(b))
            .max()
            .map_or(0, |c| c as usize + 1);
        let mut members: Vec<Vec<usize>> = vec![vec![]; classes];
        for b in 0..n {
            if let Some(c) = rule.class_of(b) {
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
                .filter(|&d| rule.classes_touch(c as u32, d as u32))
                .flat_map(|d| members[d].iter().copied())
                .collect();
            if rule.classes_touch(c as u32, c as u32) {
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
            if self.outputs[b].is_some() && rule.class_of(b).is_none() {
                f.group(targets(&[b]));
            }
        }
    }

    fn build(&mut self, w: &mut Frame) -> Result<(), WorldError> {
        let names: Vec<&str> = w.bodies.iter().map(|b| b.name.as_str()).collect();
        let frame = &*w;
        self.scene
            .build(&names, frame.surface, |b| frame.body_geometry(b))
            .map_err(WorldError::Asset)
    }

    fn evaluate(&mut self, w: &mut Frame, dt: f64) {
        let model_step = w.real(w.model_step_vr);
        let input = Input {
            w,
            reals: &w.values.reals,
            vars: &self.vars,
        };
        let wrench = self.scene.evaluate(&input, dt, model_step);
        for (load, c) in w.loads.iter_mut().zip(wrench) {
            load.force += c.force;
            load.torque += c.torque;
            load.depth = load.depth.max(c.depth);
            load.in_contact |= c.in_contact;
        }
    }

    fn write_outputs(&self, w: &mut Frame) {
        let touching = self.scene.touching();
        for (b, out) in self.outputs.iter().enumerate() {
            if let Some(o) = out {
                w.values.reals[o.penetration] = w.loads[b].depth;
                w.values.integers[o.contacts] = touching[b];
            }
        }
    }

    fn inputs_changed(&mut self) {
        self.scene.inputs_changed();
    }

    fn save(&self) -> Option<ModelState> {
        Some(ModelState::new(self.scene.state()))
    }

    fn adaptive_steps(&self) -> bool {
        self.scene.adaptive()
    }

    fn step_bound(&self) -> f64 {
        self.scene.step_bound()
    }

    fn save_into(&self, target: &mut ModelState) {
        match target.get_mut::<BbccState>() {
            Some(t) => self.scene.save_into(t),
            None => *target = self.save().expect("BBCC has a state"),
        }
    }

    fn decode_state(&self, bytes: &[u8]) -> Result<ModelState, String> {
        model::decode::<BbccState>(self.key(), bytes)
    }

    fn fits(&self, state: Option<&ModelState>) -> Result<(), String> {
        match state.and_then(|s| s.get::<BbccState>()) {
            Some(st) if self.scene.fits(st) => Ok(()),
            _ => Err(
                "the FMU state does not belong to this model (its BBCC contact pairs differ)"
                    .into(),
            ),
        }
    }

    fn restore(&mut self, state: &ModelState) {
        self.scene.restore(state.get::<BbccState>());
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
