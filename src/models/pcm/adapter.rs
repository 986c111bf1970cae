//! PCM's adapter: the model as the world calls it (see [`crate::cosim::model`]).
//! Declares the pairs' parameters (`pcm.<pair>.*`) and outputs, meshes the bodies at
//! initialization (files read at instantiation) and adds each pair's wrench to its
//! bodies' loads.

use super::law::{combined_stiffness, Law, Layer};
use super::mesh::PcmMesh;
use super::pair::{MeshPair, PairWrench, TerrainGrid, TerrainPair};
use super::meshing::{geometry_mesh, geometry_triangles, triangle_budget};
use super::primitives;
use super::section::PcmSettings;
use crate::cosim::references::ShapeVrs;
use crate::cosim::model::{Declare, Frame, Model};
use crate::cosim::variables::{Bounds, Variability, VariableTable};
use crate::cosim::WorldError;
use crate::geometry::mesh::TriMesh;
use crate::scenario::types::Shape;
use nalgebra::Vector3;
use std::any::Any;
use std::collections::BTreeMap;
use std::sync::Arc;
use Variability::Tunable;

/// Value references of a pair's parameters and outputs.
#[derive(Debug, Clone)]
struct PairVrs {
    e: Vec<usize>,
    nu: Vec<usize>,
    b: Vec<usize>,
    u_max: usize,
    d_l: usize,
    mu: usize,
    v_reg: usize,
    damping_depth: usize,
    /// Boolean
    no_tensile: usize,
    /// Integer outputs
    active: usize,
    ray_tests: usize,
    box_tests: usize,
    max_penetration: usize,
    area: usize,
    force: [usize; 3],
}

/// A pair as built at initialization.
#[derive(Debug, Clone)]
enum Built {
    Meshes {
        pair: MeshPair,
        base: usize,
        target: usize,
    },
    Terrain {
        pair: TerrainPair,
        body: usize,
    },
}

/// One declared pair.
#[derive(Debug, Clone)]
struct PairEntry {
    label: String,
    /// Body indices; None: the terrain.
    bodies: [Option<usize>; 2],
    base: Option<usize>,
    frame_e: Option<usize>,
    vrs: PairVrs,
    built: Option<Built>,
    result: PairWrench,
    warned: bool,
}

/// A `mesh` body of a pair: body index and name, file (relative to the scenario), scale.
#[derive(Debug, Clone)]
struct MeshFile {
    body: usize,
    name: String,
    file: String,
    scale: f64,
}

/// PCM in a world.
pub struct Pcm {
    settings: PcmSettings,
    pairs: Vec<PairEntry>,
    /// The `mesh` bodies of the pairs.
    mesh_files: Vec<MeshFile>,
    /// Their meshes, by body index (read at instantiation).
    files: BTreeMap<usize, TriMesh>,
    /// The results hold the current state (nothing moved, no input changed since).
    fresh: bool,
    grid: TerrainGrid,
    warnings: Vec<String>,
}

fn layer_vrs(
    t: &mut VariableTable,
    p: &str,
    layers: &[super::section::PcmLayer],
) -> [Vec<usize>; 3] {
    let n = layers.len();
    let name = |f: &str, k: usize| {
        if n == 1 {
            format!("{p}.{f}")
        } else {
            format!("{p}.{f}[{}]", k + 1)
        }
    };
    let which = |k: usize| {
        if n == 1 {
            "of the pair's layer".to_string()
        } else {
            format!("of the layer on body {}", k + 1)
        }
    };
    let mut out = [vec![], vec![], vec![]];
    for (k, l) in layers.iter().enumerate() {
        out[0].push(t.real_parameter(
            name("E", k),
            Tunable,
            "Pa",
            l.E,
            Bounds::POSITIVE,
            format!("Young's modulus E {} (Hippmann 2023 eq. (3))", which(k)),
        ));
        out[1].push(t.real_parameter(
            name("nu", k),
            Tunable,
            "1",
            l.nu,
            Bounds {
                min: Some(0.0),
                max: Some(0.499),
                positive: false,
            },
            format!("Poisson ratio nu {} (Hippmann 2023 eq. (3))", which(k)),
        ));
        out[2].push(t.real_parameter(
            name("b", k),
            Tunable,
            "m",
            l.b,
            Bounds::POSITIVE,
            format!("thickness b {} (Hippmann 2023 eq. (2))", which(k)),
        ));
    }
    out
}

/// Declares PCM when the scenario has a `pcm` section.
pub fn declare(d: &mut Declare) -> Option<Box<dyn Model>> {
    let settings = d.scenario.pcm.clone()?;
    let t = &mut *d.table;
    let mut pairs = vec![];
    for pair in &settings.pairs {
        let label = pair.label();
        let p = format!("pcm.{label}");
        let [e, nu, b] = layer_vrs(t, &p, &pair.layers);
        let vrs = PairVrs {
            e,
            nu,
            b,
            u_max: t.real_parameter(format!("{p}.u_max"), Tunable, "m", pair.u_max, Bounds::POSITIVE, "maximum penetration u_max: penetration lines reach this deep (Hippmann 2023, section 3); the FMU warns when a penetration reaches 2/3 of it"),
            d_l: t.real_parameter(format!("{p}.d_l"), Tunable, "Pa.s/m", pair.d_l, Bounds::NON_NEGATIVE, "area-related layer damping d_l (Hippmann 2023 eq. (4))"),
            mu: t.real_parameter(format!("{p}.mu"), Tunable, "1", pair.mu, Bounds::NON_NEGATIVE, "Coulomb friction coefficient of the contact elements"),
            v_reg: t.real_parameter(format!("{p}.v_reg"), Tunable, "m/s", pair.v_reg, Bounds::POSITIVE, "sliding speed at which friction reaches mu F_n (linear below)"),
            damping_depth: t.real_parameter(format!("{p}.damping_depth"), Tunable, "m", pair.damping_depth, Bounds::NON_NEGATIVE, "penetration over which the damping grows from 0 to eq. (4)'s value (0: no ramp, the damping force jumps at first contact)"),
            no_tensile: t.boolean_parameter(format!("{p}.no_tensile"), Tunable, pair.no_tensile, "clamp each contact element's normal force at 0 (no pull from the damping)"),
            active: t.integer_output(format!("{p}.active"), "number of active contact elements (base triangles penetrating the target)"),
            ray_tests: t.integer_output(format!("{p}.ray_tests"), "ray-triangle tests of the last evaluation (Hippmann 2023, Fig. 6 and 9)"),
            box_tests: t.integer_output(format!("{p}.box_tests"), "bounding box tests of the last evaluation (Hippmann 2023, Fig. 6)"),
            max_penetration: t.real_output(format!("{p}.max_penetration"), "m", "largest penetration of an active contact element"),
            area: t.real_output(format!("{p}.area"), "m2", "contact area: the summed area of the active contact elements"),
            force: t.real_array(&format!("{p}.force"), |t, name, i| {
                t.real_output(name, "N", format!("contact force on the pair's first body, world frame, component {}", i + 1))
            }),
        };
        let index = |n: &str| {
            (n != "terrain")
                .then(|| d.bodies.iter().position(|b| b.name == n))
                .flatten()
        };
        pairs.push(PairEntry {
            label,
            bodies: [index(&pair.bodies[0]), index(&pair.bodies[1])],
            base: pair.base.as_deref().and_then(index),
            frame_e: pair.frame_e.as_deref().and_then(index),
            vrs,
            built: None,
            result: PairWrench::default(),
            warned: false,
        });
    }
    let mut mesh_files = vec![];
    for p in &pairs {
        for &b in p.bodies.iter().flatten() {
            if let Some(body) = d.scenario.bodies.get(b) {
                if let Shape::Mesh { file, scale } = &body.shape {
                    if !mesh_files.iter().any(|m: &MeshFile| m.body == b) {
                        mesh_files.push(MeshFile {
                            body: b,
                            name: body.name.clone(),
                            file: file.clone(),
                            scale: *scale,
                        });
                    }
                }
            }
        }
    }
    Some(Box::new(Pcm {
        mesh_files,
        grid: TerrainGrid {
            x0: 0.0,
            y0: 0.0,
            cell: settings.terrain_cell,
        },
        settings,
        pairs,
        files: BTreeMap::new(),
        fresh: false,
        warnings: vec![],
    }))
}

impl Pcm {
    /// The last evaluation of pair `k` (forces, counts).
    pub fn pair_result(&self, k: usize) -> PairWrench {
        self.pairs[k].result
    }

    /// Barycentres (base body frame, m) and penetrations (m) of the active contact
    /// elements of pair `k` at the last evaluation, in base triangle order.
    pub fn active_elements(&self, k: usize) -> Vec<(Vector3<f64>, f64)> {
        use super::detect::Status;
        let (base, el) = match &self.pairs[k].built {
            Some(Built::Meshes { pair, .. }) => (pair.base(), &pair.elements),
            Some(Built::Terrain { pair, .. }) => (pair.base(), &pair.elements),
            None => return vec![],
        };
        (0..base.len())
            .filter(|&i| el.status[i] == Status::Active)
            .map(|i| (base.centroids[i], el.depth[i]))
            .collect()
    }

    /// The PCM mesh of body `b`, body frame.
    fn body_mesh(&self, w: &Frame, b: usize) -> Result<TriMesh, String> {
        let body = &w.bodies[b];
        let meshing = self
            .settings
            .meshing
            .get(&body.name)
            .cloned()
            .unwrap_or_default();
        let seg = |k: usize, default: u32| meshing.segment(k, default);
        let r = |vr: usize| w.values.reals[vr];
        // the triangle count is checked before any mesh that large is made
        let fits = |base: f64| triangle_budget(&body.name, base, meshing.subdivisions);
        let mesh = match (&body.spec, &body.shape) {
            (Shape::Mesh { .. }, _) => {
                let m = self
                    .files
                    .get(&b)
                    .ok_or("its mesh file was not read (no resources folder?)")?;
                fits(m.triangles.len() as f64)?;
                m.clone()
            }
            (Shape::Torus { .. }, ShapeVrs::Torus { major, minor }) => {
                fits(primitives::torus_triangles(seg(0, 64), seg(1, 32)))?;
                primitives::torus(r(*major), r(*minor), seg(0, 64), seg(1, 32))
            }
            (Shape::Wheel { .. }, ShapeVrs::Wheel { radius, width }) => {
                let edge = meshing.edge.unwrap_or(0.25 * r(*width));
                fits(primitives::cylinder_triangles(r(*width), seg(0, 64), edge))?;
                primitives::cylinder_y(r(*radius), r(*width), seg(0, 64), edge)
            }
            (Shape::Generated { asset }, _) => {
                let m = asset
                    .mesh()
                    .map_err(|e| format!("generated {}: {e}", asset.prefix()))?;
                fits(m.triangles.len() as f64)?;
                m
            }
            _ => {
                let g = crate::cosim::bodies::geometry(
                    &body.spec,
                    &body.shape,
                    &w.values.reals,
                    &w.values.integers,
                    w.meshes,
                )?
                .ok_or("the shape has no geometry")?;
                fits(geometry_triangles(&g, &meshing))?;
                geometry_mesh(&g, &meshing)
            }
        };
        let mesh = primitives::subdivide(&mesh, meshing.subdivisions);
        if mesh.triangles.is_empty() {
            return Err("its mesh has no triangles".into());
        }
        Ok(mesh)
    }

    fn contacts(&mut self, w: &Frame) {
        for p in self.pairs.iter_mut() {
            let law = Self::law(w, &p.vrs);
            let u_max = w.real(p.vrs.u_max);
            p.result = match &mut p.built {
                Some(Built::Meshes { pair, base, target }) => {
                    pair.evaluate(&w.pose_of(*base), &w.pose_of(*target), &law, u_max)
                }
                Some(Built::Terrain { pair, body }) => {
                    pair.evaluate(&w.pose_of(*body), w.surface, &self.grid, &law, u_max)
                }
                None => PairWrench::default(),
            };
            if !p.warned && p.result.max_depth >= 2.0 / 3.0 * u_max {
                p.warned = true;
                self.warnings.push(format!(
                    "PCM pair '{}': a penetration of {:.4e} m reached 2/3 of u_max = {u_max} m at t = {} s; deeper ones are not seen (Hippmann 2023, section 3): raise pcm.{}.u_max",
                    p.label, p.result.max_depth, w.time, p.label
                ));
            }
        }
    }

    /// The pair's force law from the current parameters (no allocation).
    fn law(w: &Frame, v: &PairVrs) -> Law {
        let layer = |k: usize| Layer {
            e: w.real(v.e[k]),
            nu: w.real(v.nu[k]),
            b: w.real(v.b[k]),
        };
        let c_l = if v.e.len() == 2 {
            combined_stiffness(&[layer(0), layer(1)])
        } else {
            combined_stiffness(&[layer(0)])
        };
        Law {
            c_l,
            d_l: w.real(v.d_l),
            mu: w.real(v.mu),
            v_reg: w.real(v.v_reg),
            damping_depth: w.real(v.damping_depth),
            no_tensile: w.boolean(v.no_tensile),
        }
    }
}

impl Model for Pcm {
    fn key(&self) -> &'static str {
        "pcm"
    }

    fn load_assets(&mut self, dir: Option<&std::path::Path>) -> Result<(), WorldError> {
        self.files.clear();
        for m in &self.mesh_files {
            let read = |dir: &std::path::Path| {
                let path = crate::scenario::assets::resolve_asset(dir, &m.file)?;
                crate::assets::mesh_read::read_mesh(&path, m.scale)
            };
            let mesh = dir
                .ok_or_else(|| format!("no folder to read '{}' from", m.file))
                .and_then(read)
                .map_err(|e| {
                    WorldError::Asset(format!(
                        "bodies[{}].shape.file (PCM mesh of body '{}'): {e}",
                        m.body, m.name
                    ))
                })?;
            self.files.insert(m.body, mesh);
        }
        Ok(())
    }

    fn build(&mut self, w: &mut Frame) -> Result<(), WorldError> {
        self.fresh = false;
        self.grid = TerrainGrid::of(w.surface, self.settings.terrain_cell);
        let mut meshes: BTreeMap<usize, Arc<PcmMesh>> = BTreeMap::new();
        for k in 0..self.pairs.len() {
            for b in self.pairs[k].bodies.iter().flatten() {
                if !meshes.contains_key(b) {
                    let m = self.body_mesh(w, *b).map_err(|e| {
                        WorldError::Asset(format!(
                            "pcm.pairs[{k}]: body '{}': {e}",
                            w.bodies[*b].name
                        ))
                    })?;
                    meshes.insert(*b, Arc::new(PcmMesh::new(&m)));
                }
            }
        }
        for p in self.pairs.iter_mut() {
            p.warned = false;
            p.result = PairWrench::default();
            let u_max = w.real(p.vrs.u_max);
            p.built = Some(match p.bodies {
                [Some(a), Some(b)] => {
                    let (ma, mb) = (&meshes[&a], &meshes[&b]);
                    // base: given, else the finer mesh (smaller mean triangle area)
                    let base = p.base.unwrap_or(if mb.mean_area() < ma.mean_area() {
                        b
                    } else {
                        a
                    });
                    let target = if base == a { b } else { a };
                    // E: given, else the mesh with more triangles (section 2.3)
                    let e = p.frame_e.unwrap_or(if mb.len() > ma.len() { b } else { a });
                    Built::Meshes {
                        pair: MeshPair::new(
                            meshes[&base].clone(),
                            meshes[&target].clone(),
                            e == base,
                            u_max,
                        ),
                        base,
                        target,
                    }
                }
                [Some(a), None] | [None, Some(a)] => Built::Terrain {
                    pair: TerrainPair::new(meshes[&a].clone()),
                    body: a,
                },
                [None, None] => {
                    return Err(WorldError::Asset(format!(
                        "pcm pair '{}' has no body",
                        p.label
                    )))
                }
            });
        }
        Ok(())
    }

    fn evaluate(&mut self, w: &mut Frame, dt: f64) {
        let advance = dt > 0.0;
        if !(advance && self.fresh) {
            self.contacts(w);
        }
        self.fresh = !advance;
        for p in &self.pairs {
            let r = &p.result;
            let touching = r.active > 0;
            let mut put = |b: usize, f: Vector3<f64>, t: Vector3<f64>| {
                let load = &mut w.loads[b];
                load.force += f;
                load.torque += t;
                if touching {
                    load.depth = load.depth.max(r.max_depth);
                    load.in_contact = true;
                }
            };
            match &p.built {
                Some(Built::Meshes { base, target, .. }) => {
                    put(*target, r.force, r.torque_target);
                    put(*base, -r.force, r.torque_base);
                }
                Some(Built::Terrain { body, .. }) => put(*body, -r.force, r.torque_base),
                None => {}
            }
        }
    }

    fn write_outputs(&self, w: &mut Frame) {
        for p in &self.pairs {
            let r = &p.result;
            // the force on the pair's first body
            let first_is_target = match &p.built {
                Some(Built::Meshes { target, .. }) => p.bodies[0] == Some(*target),
                _ => false,
            };
            let f = if first_is_target { r.force } else { -r.force };
            let v = &p.vrs;
            w.values.integers[v.active] = r.active as i32;
            w.values.integers[v.ray_tests] = r.ray_tests.min(i32::MAX as u64) as i32;
            w.values.integers[v.box_tests] = r.box_tests.min(i32::MAX as u64) as i32;
            w.values.reals[v.max_penetration] = r.max_depth;
            w.values.reals[v.area] = r.area;
            for k in 0..3 {
                w.values.reals[v.force[k]] = f[k];
            }
        }
    }

    fn take_warnings(&mut self, out: &mut Vec<String>) {
        out.append(&mut self.warnings);
    }

    fn inputs_changed(&mut self) {
        self.fresh = false;
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
