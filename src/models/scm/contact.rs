//! SCM force and torque computation for one contact object (Krenn 2009, section 3.2):
//! contact detection, footprint, node data, pressure and forces.
//!
//! **Contact detection.** The paper maps mesh vertices into columns at the grid nodes
//! (vertex columns), which needs faces no longer than ds. We cast a vertical ray from
//! every grid node instead, and do it by scan conversion: each face of the mesh that
//! reaches below the soil top is rasterized onto the grid nodes it covers, keeping
//! per node the lowest surface point. That is exactly the first hit of an upward ray
//! from the node, costs O(faces + covered nodes), and is exact for meshes of any
//! coarseness (a box of 12 triangles works at any ds), so no refinement or warning is
//! needed. A node is in contact when the lowest mesh point above it is below its soil
//! surface.

use crate::pmath;
use super::footprint::{area_and_contour, centrality, Edt, Weights};
use super::grid::SoilGrid;
use super::rect::Rect;
use crate::geometry::TriMesh;
use super::pressure::{bekker, node_pressure};
use super::side_pressure::side_pressure;
use super::soil_map::{NodeSoil, SoilMap};
use super::{ceil_i32, floor_i32, SoilParams};
use crate::geometry::terrain::Surface;
use nalgebra::{Isometry3, Point3, Vector3};

mod footprint_rows;
mod four_nodes;

/// Nodes of margin around a footprint window: room for the deposition ring and erosion
/// (at least; see [`update_margin`]).
pub const MARGIN: i32 = 6;

/// At most this many nodes of margin.
pub const MAX_MARGIN: i32 = 128;

/// Nodes of margin of the soil update's window around a footprint `b` m across (its
/// box's longer side) and `z` m deep at most, on a grid of spacing `ds` (m) with the
/// repose slope `tan_psi`: room for the berm the displaced soil settles into (erosion
/// works inside the window only; soil that reaches its edge would stand there as a
/// cliff). The cross-section a body of width b displaces beside its path, z b / 2 to
/// each side, at rest as a berm with its outer slope at the angle of repose, H^2 /
/// (2 tan psi) = z b / 2, runs out W = sqrt(z b / tan psi); the margin is W and two
/// nodes, at least [`MARGIN`], at most [`MAX_MARGIN`]. (For a plate, b = 2R
/// overestimates the ring's run sqrt(R z / tan psi) by sqrt(2).)
pub fn update_margin(b: f64, z: f64, ds: f64, tan_psi: f64) -> i32 {
    let run = (z.max(0.0) * b / tan_psi).sqrt();
    let nodes = (run / ds).ceil().min(MAX_MARGIN as f64) as i32 + 2;
    nodes.clamp(MARGIN, MAX_MARGIN)
}

pub use crate::rigid_body::BodyMotion;

/// What one SCM evaluation gives for a body (world frame).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ContactResult {
    /// Soil force on the body, eq. (9), N.
    pub force: Vector3<f64>,
    /// Its torque about the body origin, eq. (9), N m.
    pub torque: Vector3<f64>,
    /// Deepest node sinkage below its level before loading, m.
    pub sinkage: f64,
    /// Footprint nodes.
    pub contact_nodes: usize,
    /// Footprint area A, eq. (4), m^2.
    pub area: f64,
    /// Footprint contour length L, eq. (5), m.
    pub contour: f64,
    /// Effective contact width b_eff = 2A/L, eq. (3), m.
    pub b_eff: f64,
    /// Growth of the vertical force with downward motion, N/m (for implicit rigs).
    pub k_zz: f64,
    /// Vertical damping of the velocity damping term, N s/m.
    pub c_zz: f64,
}

/// Data of one footprint node (section 3.2, "footprint node specific computations").
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FootNode {
    /// Index in the evaluation's window.
    pub k: u32,
    /// gamma_i (k_c / b_eff + k_phi), Pa / m^n: the yield pressure is this times z^n.
    pub gk: f64,
    /// Where the soil it displaces flows, from the normal part of its contact
    /// velocity (Fig. 11).
    pub flow: Flow,
    /// Sliding speed: the tangential part of v_i, |v_i - vn|, m/s.
    pub slide: f64,
    /// Sinkage z_i below the node's level before loading at the evaluation, m.
    pub z: f64,
    /// z_i^n, so that the soil update need not recompute it for the same z.
    pub zn: f64,
    /// The lowest mesh point above the node, m (world z).
    pub zmin: f64,
}

/// Where the soil a footprint node displaces flows (Fig. 11-13), from the normal part
/// `vn` of the contact velocity v_i of the body surface at the node, (v_i . n_i) n_i
/// with n_i the unit contact normal (from the soil into the body), m/s: its
/// horizontal part drives the parallel (bulldozing) field, its vertical part the
/// radial (sinkage) field, in the ratio of the two. Worked out by the evaluation's
/// node forces (four nodes at a time there), read by the soil update.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Flow {
    /// The parallel field's share, |vn_xy| / (|vn_xy| + |vn_z|) (0 where that sum is
    /// 1e-12 m/s or less); the radial field takes the rest.
    pub share: f64,
    /// The grid step along the horizontal normal velocity, scaled so that its larger
    /// coordinate is 1 in size; (0, 0) where both are 1e-12 m/s or less.
    pub step: [f64; 2],
}

impl Flow {
    /// The flow of a node whose contact velocity has the normal part `vn`, m/s (world
    /// frame).
    #[inline(always)]
    pub fn of(vn: Vector3<f64>) -> Flow {
        let horizontal = (vn.x * vn.x + vn.y * vn.y).sqrt();
        let vertical = vn.z.abs();
        let share = if horizontal + vertical > 1e-12 {
            horizontal / (horizontal + vertical)
        } else {
            0.0
        };
        let m = vn.x.abs().max(vn.y.abs());
        let step = if m > 1e-12 {
            [vn.x / m, vn.y / m]
        } else {
            [0.0, 0.0]
        };
        Flow { share, step }
    }

    /// The grid step of the parallel field (x, y), if there is one.
    pub fn step(&self) -> Option<(f64, f64)> {
        let [x, y] = self.step;
        (x != 0.0 || y != 0.0).then_some((x, y))
    }
}

/// The scan conversion of an evaluation, kept for the next one of the same body at the
/// same pose (a rover's wheel is evaluated for the sub-step and again for the outputs
/// after the soil update): it depends on the mesh's world vertices, the grid and the
/// set of faces reaching below the soil top, and on nothing else.
#[derive(Default)]
struct Raster {
    valid: bool,
    /// The grid it was made on: spacing and extent.
    ds: f64,
    extent: Rect,
    /// The mesh's triangles (address and count; the vertices are compared in world).
    triangles: (usize, usize),
    /// The evaluation's window: the kept faces' box and one node around it.
    rect: Rect,
    /// The kept faces' box and [`MARGIN`]: the evaluation's window when there is no
    /// footprint.
    idle: Rect,
    /// The kept faces' box.
    faces: Rect,
    /// A soil top in (`hi_kept`, `lo_excluded`] keeps the same faces: the highest
    /// lowest point of a kept face, the lowest lowest point of a face left out.
    hi_kept: f64,
    lo_excluded: f64,
    /// Scan lines along y at each node column (see [`rasterize`]).
    columns: bool,
    zmin: Vec<f64>,
    face: Vec<u32>,
    /// The faces reaching below the soil top that a vertical ray sees (mesh indices),
    /// and each one's unit normal into the body.
    kept: Vec<u32>,
    face_normal: Vec<Vector3<f64>>,
    /// Faces reaching below the soil top that no vertical ray sees and that may
    /// carry side pressure (see [`is_side_face`]).
    side: Vec<u32>,
    /// The mesh's faces in groups, to leave out at once the groups above the soil top.
    groups: FaceGroups,
}

/// Faces per group of [`FaceGroups`].
const GROUP: usize = 16;

/// A mesh's faces in groups of [`GROUP`] consecutive ones, each with the vertices its
/// faces use, once each: the lowest of those is the lowest point of the group's
/// faces, so a group above the soil top is left out after reading each of its
/// vertices once (about 10 for 16 faces) instead of three per face. Built once per
/// mesh.
#[derive(Default)]
struct FaceGroups {
    /// The mesh it was made for: its triangles' address and count, its vertex count.
    mesh: (usize, usize, usize),
    /// Group g's vertices are `verts[start[g]..start[g + 1]]`.
    start: Vec<u32>,
    verts: Vec<u32>,
}

impl FaceGroups {
    /// Made for `mesh` (built here if not).
    fn of(&mut self, mesh: &TriMesh) -> &Self {
        let key = (
            mesh.triangles.as_ptr() as usize,
            mesh.triangles.len(),
            mesh.vertices.len(),
        );
        if self.mesh != key || self.start.is_empty() {
            self.mesh = key;
            self.start.clear();
            self.verts.clear();
            self.start.push(0);
            let mut group = Vec::with_capacity(3 * GROUP);
            for faces in mesh.triangles.chunks(GROUP) {
                group.clear();
                group.extend(faces.iter().flatten());
                group.sort_unstable();
                group.dedup();
                self.verts.extend_from_slice(&group);
                self.start.push(self.verts.len() as u32);
            }
        }
        self
    }
}

/// Whether a face with the normal `n` of its winding (outward; length `len`) is a
/// side face for [`super::side_pressure`]: vertical, or facing up steeper than 60
/// degrees. A vertical ray sees the faces facing down (the test of [`rasterize`]).
fn is_side_face(n: &Vector3<f64>, len: f64) -> bool {
    n.z >= -1e-12 * len && n.z <= 0.5 * len
}

/// Distance of each footprint node to the nearest node outside the footprint, for the
/// pressure weighting of eq. (6), with its work buffers. Found on a helper thread
/// while the caller writes the fields around it: its own cache lines (aligned to two,
/// the adjacent-line prefetch's pair), or every push would move a line between cores.
#[derive(Default)]
#[repr(align(128))]
struct Distances {
    /// In nodes, footprint order.
    node: Vec<f64>,
    /// Their centralities for the pressure weights (see [`centrality`]): the weights'
    /// divisions here, off the caller's path.
    centrality: Vec<f64>,
    /// The footprint's box and one node around it: mask and squared distances.
    sub_mask: Vec<bool>,
    sub_dist2: Vec<f64>,
    edt: Edt,
    /// Work buffer of [`area_and_contour`].
    codes: Vec<u8>,
}

impl Distances {
    /// The distances of the footprint nodes `cells` (grid columns and rows) whose
    /// `mask` covers the window `rect` (`nx` nodes wide) inside its box `foot_box`
    /// (grid nodes), into `self.node`.
    fn find(
        &mut self,
        mask: &[bool],
        cells: &[(i32, i32)],
        nx: usize,
        rect: &Rect,
        foot_box: &Rect,
    ) {
        // the transform over the footprint's bounding box grown by one node only: the
        // nearest node outside the footprint of any of its nodes lies in that box
        // (clamping an outside node onto the box brings it no farther), so this is
        // exact. The footprint never touches the window's edge: the box fits in it.
        let i0 = (foot_box.i0 - rect.i0) as usize;
        let j0 = (foot_box.j0 - rect.j0) as usize;
        let (i1, j1) = (i0 + foot_box.nx as usize - 1, j0 + foot_box.ny as usize - 1);
        let (i0, i1, j0, j1) = (i0 - 1, i1 + 1, j0 - 1, j1 + 1);
        let sx = i1 - i0 + 1;
        self.sub_mask.clear();
        for j in j0..=j1 {
            self.sub_mask
                .extend_from_slice(&mask[j * nx + i0..=j * nx + i1]);
        }
        self.edt
            .outside_distance(&self.sub_mask, sx, j1 - j0 + 1, &mut self.sub_dist2);
        self.node.clear();
        // the box's first node in grid columns and rows
        let (gi, gj) = (rect.i0 + i0 as i32, rect.j0 + j0 as i32);
        // the squared distances, then their roots in a pass of their own (in vector
        // lanes: the same bits; the divider took 2.5 % of one thread's step, one root
        // at a time)
        let d2 = &self.sub_dist2;
        self.node.extend(cells.iter().map(|&(i, j)| {
            let (i, j) = ((i - gi) as usize, (j - gj) as usize);
            d2[j * sx + i]
        }));
        for d in self.node.iter_mut() {
            *d = d.sqrt();
        }
        centrality(&self.node, &mut self.centrality);
    }
}

/// A scan conversion made ahead of its evaluation, at the pose the body is expected
/// at next (see [`scan_ahead`]). Written on a helper thread while the caller works on
/// the rest of the workspace: its own cache lines.
#[derive(Default)]
#[repr(align(128))]
pub struct Ahead {
    /// The pose and the mesh (its vertices' address and count) it was made for.
    iso: Isometry3<f64>,
    mesh: (usize, usize),
    /// The mesh's vertices in world at that pose, and their bounds.
    world: Vec<Vector3<f64>>,
    lo: Vector3<f64>,
    hi: Vector3<f64>,
    raster: Raster,
}

impl Ahead {
    /// Made for `mesh` at exactly `iso` (to the bit: the world vertices are then the
    /// ones an evaluation there computes).
    fn made_for(&self, iso: &Isometry3<f64>, mesh: &TriMesh) -> bool {
        let bits = |i: &Isometry3<f64>| {
            let (q, t) = (i.rotation.coords, i.translation.vector);
            [q.x, q.y, q.z, q.w, t.x, t.y, t.z].map(f64::to_bits)
        };
        self.mesh == (mesh.vertices.as_ptr() as usize, mesh.vertices.len())
            && bits(&self.iso) == bits(iso)
    }
}

/// Scan-converts `mesh` at the pose `iso` against the soil top `z_top` (m) on a grid
/// of spacing `ds` (m) and extent `extent`, into `ahead`: the work of the next
/// [`evaluate`], done while the soil update that precedes it runs on another thread
/// (it reads no soil). That evaluation uses it when the body is there (the same world
/// vertices, to the bit) and its own soil top keeps the same faces; otherwise it scan-
/// converts as usual. Either way the result is the same.
///
/// In two parts: this call places the vertices, picks the faces and clears the
/// window; the returned closure scan-converts the faces (call it before the
/// evaluation; until then `ahead` holds no scan conversion).
pub fn scan_ahead<'a>(
    mesh: &'a TriMesh,
    iso: &Isometry3<f64>,
    ds: f64,
    extent: &Rect,
    z_top: f64,
    ahead: &'a mut Ahead,
) -> impl FnOnce() + Send + use<'a> {
    ahead.iso = *iso;
    ahead.mesh = (mesh.vertices.as_ptr() as usize, mesh.vertices.len());
    (ahead.lo, ahead.hi) = to_world(mesh, iso, &mut ahead.world);
    let picked = pick_faces(&mut ahead.raster, &ahead.world, mesh, ds, extent, z_top);
    move || {
        if picked.is_some() {
            scan_faces(&mut ahead.raster, &ahead.world, mesh, ds);
        }
    }
}

/// The vertices of `mesh` at the pose `iso` into `world`, and their bounds (lowest
/// and highest coordinates).
fn to_world(
    mesh: &TriMesh,
    iso: &Isometry3<f64>,
    world: &mut Vec<Vector3<f64>>,
) -> (Vector3<f64>, Vector3<f64>) {
    world.clear();
    let mut lo = Vector3::repeat(f64::INFINITY);
    let mut hi = Vector3::repeat(f64::NEG_INFINITY);
    for v in &mesh.vertices {
        let w = (iso * Point3::from(*v)).coords;
        lo = lo.inf(&w);
        hi = hi.sup(&w);
        world.push(w);
    }
    (lo, hi)
}

/// The sums of eq. (9) over one chunk of footprint nodes, in its own cache lines (a
/// helper thread writes it).
#[derive(Debug, Clone, Copy, Default)]
#[repr(align(128))]
struct ChunkSum(NodeOut);

/// Work buffers of one body (reused from step to step: no allocation once warm).
#[derive(Default)]
pub struct Workspace {
    world: Vec<Vector3<f64>>,
    /// The world vertices of the evaluation before (to tell whether the pose changed).
    world_before: Vec<Vector3<f64>>,
    raster: Raster,
    /// Evaluations that reused the scan conversion (for tests).
    pub(crate) raster_reuses: u64,
    /// The scan conversion made ahead for the next evaluation, if any (see
    /// [`scan_ahead`]); evaluations that took it (for tests).
    pub ahead: Option<Box<Ahead>>,
    pub ahead_taken: u64,
    /// The soil top of the last evaluation below the body, m (-inf: none).
    pub z_top: f64,
    /// The window of the last evaluation: the box of the faces reaching below the
    /// soil top and one node around it.
    pub rect: Rect,
    /// The window of the soil update that follows: the footprint's box and
    /// [`MARGIN`] (room for deposition and erosion), or with no footprint the kept
    /// faces' box and [`MARGIN`]. Bodies whose update windows do not overlap can
    /// prepare their updates in parallel.
    pub update_rect: Rect,
    /// The soil of the window `rect`: heights, and plastic sinkage and shear
    /// displacement (these two only of the footprint's box: the rest is stale).
    pub(crate) h: Vec<f64>,
    pub(crate) zp: Vec<f64>,
    pub(crate) j: Vec<f64>,
    /// The soil update's own window buffers, swapped with `h`, `zp`, `j` and `mask`
    /// while an update runs (see [`super::deform::load`]): apart from the
    /// evaluation's, which a helper thread reads, so that writing them moves no cache
    /// line back, and kept between updates for the next window's overlap.
    pub(crate) update_bufs: super::update_state::UpdateBuffers,
    /// Footprint mask over the window.
    pub mask: Vec<bool>,
    /// Footprint nodes (window indices), row-major order.
    pub nodes: Vec<u32>,
    /// Node data of the footprint nodes, same order.
    pub foot: Vec<FootNode>,
    /// Column and row of each footprint node in the soil update's window (set by
    /// [`super::deform::load`], so that the update divides no index).
    pub(crate) foot_ij: Vec<[u32; 2]>,
    /// Index of each footprint node in the soil update's window (set by
    /// [`super::deform::load`]; the node data keep the evaluation's: they were
    /// written on both cores, and rewriting them would pull every line over).
    pub(crate) foot_k: Vec<u32>,
    /// The sums of eq. (9) per chunk of a large footprint's nodes.
    chunk_sums: Vec<ChunkSum>,
    /// Each footprint node's distance to the nearest node outside (eq. (6)).
    dist: Distances,
    /// z^n of each footprint node (its sinkage to the Bekker exponent).
    zn: Vec<f64>,
    /// Work buffer of [`area_and_contour`] when this thread finds A and L.
    contour_codes: Vec<u8>,
    /// The share of its shear strength each footprint node mobilizes (see
    /// [`mobilized`]): worked out beside z^n, where the loads leave the node's j.
    mobilized: Vec<f64>,
    /// Soil each window node receives in a soil update, m; zero between updates.
    pub(crate) deposit: Vec<f64>,
    /// The window nodes with a deposit, each once.
    pub(crate) deposited: Vec<u32>,
    /// The update's footprint border nodes (window indices), row by row.
    pub(crate) border: Vec<u32>,
    /// The radial field's sources and the border nodes it feeds.
    pub(crate) radial: super::update_state::RadialField,
    /// The parallel field's walks: from footprint node (window column and row) along
    /// (dx, dy) with the soil it carries, m.
    pub(crate) walks: Vec<([u32; 2], f64, f64, f64)>,
    pub(crate) changed: Vec<bool>,
    /// A prepared soil update waits for its commit (see [`super::deform::prepare`]).
    pub(crate) pending: bool,
    /// Footprint runs for the parallel field's walks that do not go along a row.
    pub(crate) runs: super::update_state::Runs,
    /// Erosion scratch: per row, the column blocks changed in the last two sweeps.
    pub(crate) erosion_rows: Vec<[u64; 2]>,
    /// What the last soil update's erosion left at rest, the record the next commit
    /// will make (built by the erosion), and whether it may make it.
    pub(crate) at_rest: super::update_state::AtRest,
    pub(crate) at_rest_spare: super::update_state::AtRest,
    pub(crate) at_rest_next: bool,
    /// Of a soil update whose window is as the last commit left it, the window nodes
    /// of that commit's footprint (and held steep) outside this footprint.
    pub(crate) left: Vec<u32>,
    /// The columns and rows (window, half-open) of the soil update's footprint nodes.
    pub(crate) foot_span: ((usize, usize), (usize, usize)),
    /// The box of the last evaluation's footprint nodes (grid columns and rows; empty
    /// without a footprint).
    pub(crate) foot_grid_box: Rect,
    /// Found by [`super::deform::load`] as it places the footprint nodes in the update
    /// window: their first and last columns and rows (usize::MAX, 0, usize::MAX, 0
    /// for none), the sums of their columns and of their rows, and whether they come
    /// row by row.
    pub(crate) foot_box: [usize; 4],
    pub(crate) foot_sums: [usize; 2],
    pub(crate) foot_rows_in_order: bool,
    /// The soil of the update window is as the last commit left it (see
    /// [`super::update_state::AtRest`]).
    pub(crate) at_rest_valid: bool,
    /// Every soil update passes over its whole window: the load, the shear reset and
    /// the erosion's first sweep (for tests: the result must not change).
    pub(crate) full_sweeps: bool,
    /// Erosions that started from the last update's rest (for tests).
    pub(crate) seeded_erosions: u64,
    /// The soil classes per node of the grid (None: one soil), the class of each
    /// window node (empty without classes), the class table (class 0: the global
    /// parameters) and each class's k = k_c / b_eff + k_phi of this evaluation.
    pub(crate) map: Option<std::sync::Arc<SoilMap>>,
    pub(crate) class: Vec<u8>,
    pub(crate) soils: Vec<NodeSoil>,
    k_b: Vec<f64>,
    /// Erosion: the repose rise over one spacing at each window node (with classes).
    pub(crate) limits: Vec<f64>,
    /// With `soil.erosion_stops_at_bodies`, per node of the soil update's window the
    /// highest erosion may raise it: the body's lowest point over it (+inf where the
    /// body is not over it).
    pub(crate) caps: Vec<f64>,
    /// The footprint of the last A, L and distance computation (its nodes' grid
    /// columns and rows, in node order), with A and L in node units: a footprint on
    /// the same nodes reuses them (a body at rest, or moving less than a node). After
    /// an evaluation, its footprint's nodes (none without one): the soil update and
    /// the node forces read each node's column and row here.
    pub(crate) cached_nodes: Vec<(i32, i32)>,
    /// The same footprint's nodes of this evaluation (scratch for the comparison).
    abs_nodes: Vec<(i32, i32)>,
    cached_al: (f64, f64),
    /// `dist` holds this footprint's distances.
    cached_dist: bool,
    /// The last result.
    pub result: ContactResult,
    /// Horizontal velocity of the body origin at the last evaluation, m/s (x, y).
    pub(crate) body_v: [f64; 2],
}

/// The soil classes of `grid` for the global parameters `p` into `soils`: the map's
/// table, or the one soil of `p` (class 0) without a map.
fn soil_table(p: &SoilParams, grid: &SoilGrid, soils: &mut Vec<NodeSoil>) {
    match grid.soil_map() {
        Some(m) => m.table(p, soils),
        None => {
            soils.clear();
            soils.push(NodeSoil::of(p));
        }
    }
}

/// The lowest repose slope (tan of the angle) of the classes in `soils`.
fn least_tan_repose(soils: &[NodeSoil]) -> f64 {
    soils
        .iter()
        .map(|s| s.tan_repose)
        .fold(f64::INFINITY, f64::min)
}

fn clear_result(ws: &mut Workspace) -> ContactResult {
    ws.rect = Rect::default();
    ws.update_rect = Rect::default();
    ws.nodes.clear();
    ws.foot.clear();
    ws.cached_nodes.clear();
    ws.result = ContactResult::default();
    ws.result
}

/// Rasterizes face `f` (kept index `kf`) onto the window: per covered node the lowest
/// point of the face above it. Scans along x at each node row, or along y at each
/// node column with `columns`: a mesh whose faces are mostly much longer in y than x
/// (the strips of a wheel's tread across its width) is scanned by columns, a few
/// scan lines per face instead of one per node. One direction for all faces of a
/// mesh: a node on an edge two faces share is then found by one of them (two
/// directions compute the edge's crossing differently and could both miss it).
fn rasterize(
    r: &mut Raster,
    world: &[Vector3<f64>],
    tri: [u32; 3],
    kf: u32,
    ds: f64,
    columns: bool,
) {
    let [a, b, c] = tri.map(|k| world[k as usize]);
    let n = (b - a).cross(&(c - a));
    if n.z.abs() <= 1e-12 * n.norm() {
        return; // vertical face: no vertical ray hits it
    }
    if columns {
        scan::<true>(r, [a, b, c], n, kf, ds);
    } else {
        scan::<false>(r, [a, b, c], n, kf, ds);
    }
}

/// The scan conversion of [`rasterize`]: scan lines along x at each node row y
/// (`T` false), or along y at each node column x (`T` true, coordinates swapped).
fn scan<const T: bool>(
    raster: &mut Raster,
    tri: [Vector3<f64>; 3],
    n: Vector3<f64>,
    kf: u32,
    ds: f64,
) {
    // (u, v): u along the scan line, v across; z = z_a + gu (u - u_a) + gv (v - v_a)
    let uv = |p: &Vector3<f64>| if T { (p.y, p.x, p.z) } else { (p.x, p.y, p.z) };
    let [a, b, c] = tri.map(|p| uv(&p));
    let (gx, gy) = (-n.x / n.z, -n.y / n.z);
    let (gu, gv) = if T { (gy, gx) } else { (gx, gy) };
    let r = raster.rect;
    // node ranges and strides of u and v in the window
    let (u0, nu, v0, nv, su, sv) = if T {
        (r.j0, r.ny, r.i0, r.nx, r.nx as usize, 1)
    } else {
        (r.i0, r.nx, r.j0, r.ny, 1, r.nx as usize)
    };
    let v_lo = a.1.min(b.1).min(c.1);
    let v_hi = a.1.max(b.1).max(c.1);
    let l0 = ceil_i32(v_lo / ds).max(v0);
    let l1 = floor_i32(v_hi / ds).min(v0 + nv - 1);
    // edges as (low end, high end, du/dv), sorted once per face, not per line
    let edges = [(a, b), (b, c), (c, a)].map(|(p, q)| {
        let (lo, hi) = if p.1 <= q.1 { (p, q) } else { (q, p) };
        let slope = if hi.1 > lo.1 {
            (hi.0 - lo.0) / (hi.1 - lo.1)
        } else {
            f64::NAN // edge along the scan line: both ends count
        };
        (lo, hi, slope)
    });
    for l in l0..=l1 {
        let v = l as f64 * ds;
        let (mut ul, mut ur) = (f64::INFINITY, f64::NEG_INFINITY);
        for &(lo, hi, slope) in &edges {
            if v < lo.1 || v > hi.1 {
                continue;
            }
            if slope.is_nan() {
                ul = ul.min(lo.0.min(hi.0));
                ur = ur.max(lo.0.max(hi.0));
            } else {
                let u = lo.0 + (v - lo.1) * slope;
                ul = ul.min(u);
                ur = ur.max(u);
            }
        }
        if ul > ur {
            continue;
        }
        let m0 = ceil_i32(ul / ds).max(u0);
        let m1 = floor_i32(ur / ds).min(u0 + nu - 1);
        if m0 > m1 {
            continue;
        }
        let zv = a.2 + gv * (v - a.1);
        // the line's nodes, `su` apart, sliced once (no index product and no bounds
        // check per node: 20 % less time in the scan, perf, one thread at 5 mm); node
        // m's u is `m as f64 * ds`, with m counted in f64 (whole numbers, exact: the
        // same bits)
        let first = (l - v0) as usize * sv + (m0 - u0) as usize * su;
        let last = first + (m1 - m0) as usize * su;
        let zmin = &mut raster.zmin[first..=last];
        let face = &mut raster.face[first..=last][..zmin.len()];
        let (mut m, mut at) = (m0 as f64, 0);
        while at < zmin.len() {
            let z = zv + gu * (m * ds - a.0);
            let lower = z < zmin[at];
            zmin[at] = if lower { z } else { zmin[at] };
            face[at] = if lower { kf } else { face[at] };
            (m, at) = (m + 1.0, at + su);
        }
    }
}

/// Footprints with at least this many nodes compute their node forces in parallel.
pub const PARALLEL_NODES: usize = 512;
/// Nodes per parallel task.
const PARALLEL_CHUNK: usize = 256;


/// What one footprint node adds to the totals of eq. (9).
#[derive(Debug, Clone, Copy, Default)]
struct NodeOut {
    f: Vector3<f64>,
    torque: Vector3<f64>,
    z: f64,
    k_zz: f64,
    c_zz: f64,
}

impl NodeOut {
    /// Adds the share `o` (of a node or of a group of nodes) to this one.
    #[inline]
    fn merge(&mut self, o: &NodeOut) {
        self.f += o.f;
        self.torque += o.torque;
        self.z = self.z.max(o.z);
        self.k_zz += o.k_zz;
        self.c_zz += o.c_zz;
    }

    /// Adds these shares to the totals of eq. (9).
    fn add_to(&self, res: &mut ContactResult) {
        res.force += self.f;
        res.torque += self.torque;
        res.sinkage = res.sinkage.max(self.z);
        res.k_zz += self.k_zz;
        res.c_zz += self.c_zz;
    }
}

/// Everything the node forces read (shared by the parallel tasks).
struct NodeInput<'a> {
    p: &'a SoilParams,
    ds: f64,
    origin: Vector3<f64>,
    v0: Vector3<f64>,
    w0: Vector3<f64>,
    /// Class table, each window node's class (empty: all class 0), each class's k.
    soils: &'a [NodeSoil],
    class: &'a [u8],
    k_b: &'a [f64],
    da: f64,
    zmin: &'a [f64],
    h: &'a [f64],
    zp: &'a [f64],
    face: &'a [u32],
    face_normal: &'a [Vector3<f64>],
    /// The pressure weights of eq. (6); None: all 1 (no cohesion).
    weights: Option<Weights<'a>>,
    zn: &'a [f64],
    mobilized: &'a [f64],
    /// Grid column and row of each footprint node.
    cells: &'a [(i32, i32)],
}

impl NodeInput<'_> {
    /// Node data and force of footprint node `m` (window index `k`): eq. (7), (8).
    #[inline(always)]
    fn force(&self, m: usize, k: usize) -> (FootNode, NodeOut) {
        let (p, ds) = (self.p, self.ds);
        let (i, j) = self.cells[m];
        let point = Vector3::new(i as f64 * ds, j as f64 * ds, self.zmin[k]);
        let n = self.face_normal[self.face[k] as usize];
        let c = if self.class.is_empty() {
            0
        } else {
            self.class[k] as usize
        };
        let soil = &self.soils[c];
        let lever = point - self.origin;
        let v = self.v0 + self.w0.cross(&lever);
        let z = self.h[k] + self.zp[k] - self.zmin[k];
        let gamma = self.weights.map_or(1.0, |w| w.at(m));
        let gk = gamma * self.k_b[c];
        let yield_p = gk * self.zn[m];
        let (sigma, plastic) = node_pressure(z, self.zp[k], yield_p, p.k_e);
        // the stabilizing linear damping of section 5, on the penetration rate
        let v_pen = -v.dot(&n);
        let pressure = (sigma + p.damping * v_pen).max(0.0);
        // the pressure acts on the mesh surface over the node's cell: ds^2 / n_z
        let nz = n.z.max(0.25);
        let a_i = self.da / nz;
        // shear, eq. (8): Mohr-Coulomb c + p tan(phi) plus Coulomb friction mu p,
        // against the sliding velocity; mobilized with the node's shear displacement
        // j (Janosi-Hanamoto, 1 - exp(-j/K)), its direction regularized over v_shear
        let vn = n * v.dot(&n);
        let v_t = v - vn;
        let speed = v_t.norm();
        let mut f = n * (pressure * a_i);
        if speed > 0.0 {
            let tau_max = soil.c + pressure * soil.tan_phi + p.mu * pressure;
            // tanh is 1.0 to the last bit from 22 on (the C library's own cut-off): a
            // node sliding faster than 22 v_shear needs no call
            let s = speed / p.v_shear;
            let reg = if s >= 22.0 { 1.0 } else { pmath::tanh(s) };
            let tau = tau_max * self.mobilized[m] * reg;
            f -= v_t * (tau * a_i / speed);
        }
        let slope = if plastic {
            (soil.n * yield_p / z.max(1e-9)).min(p.k_e)
        } else {
            p.k_e
        };
        (
            FootNode {
                k: k as u32,
                gk,
                flow: Flow::of(vn),
                slide: speed,
                z,
                zn: self.zn[m],
                zmin: self.zmin[k],
            },
            NodeOut {
                f,
                torque: lever.cross(&f),
                z,
                k_zz: a_i * nz * nz * slope,
                c_zz: p.damping * a_i * nz * nz,
            },
        )
    }
}

/// z^n of the sinkage `z(k)` (m) of each node k of `nodes`, into `zn`: [`bekker`] with
/// k = 1, four nodes at a time where the processor can ([`pmath::powf_in_place`], the
/// same bits). Returns the largest sinkage (0 for none).
fn sinkage_powers(nodes: &[u32], zn: &mut [f64], n: f64, z: impl Fn(usize) -> f64) -> f64 {
    let (mut z_max, mut all_positive) = (0.0f64, true);
    for (&k, x) in nodes.iter().zip(zn.iter_mut()) {
        let s = z(k as usize);
        *x = s;
        z_max = z_max.max(s);
        all_positive &= s > 0.0;
    }
    pmath::powf_in_place(zn, n);
    if !all_positive {
        // no sinkage, no pressure
        for (&k, x) in nodes.iter().zip(zn.iter_mut()) {
            if !(z(k as usize) > 0.0) {
                *x = 0.0;
            }
        }
    }
    z_max
}

/// The share of its shear strength each node k of `nodes` mobilizes at shear
/// displacement `j(k)` (m), shear modulus `k_shear` (m), into `mob`: Janosi-Hanamoto's
/// 1 - e^(-j/K) of eq. (8), four nodes at a time where the processor can
/// ([`pmath::exp_in_place`], the same bits).
fn mobilized(nodes: &[u32], mob: &mut [f64], k_shear: f64, j: impl Fn(usize) -> f64) {
    for (&k, m) in nodes.iter().zip(mob.iter_mut()) {
        *m = -j(k as usize) / k_shear;
    }
    pmath::exp_in_place(mob);
    for m in mob {
        *m = 1.0 - *m;
    }
}

/// Scan conversion of the faces of `mesh` (its vertices in world, `world`) that reach
/// below `z_top` on a grid of spacing `ds` and extent `extent`: the window (their box
/// and one node around it), each window node's lowest mesh point above it and its
/// face, into `r` (kept there for the next evaluation). None: no face reaches below,
/// or even the box with [`MARGIN`] (the update window without a footprint) is too
/// small.
fn scan_convert(
    r: &mut Raster,
    world: &[Vector3<f64>],
    mesh: &TriMesh,
    ds: f64,
    extent: &Rect,
    z_top: f64,
) -> Option<Rect> {
    let rect = pick_faces(r, world, mesh, ds, extent, z_top)?;
    scan_faces(r, world, mesh, ds);
    Some(rect)
}

crate::wide::copies! {
    /// The first part of [`scan_convert`]: the faces, the window, and the window's
    /// nodes cleared (no face above them yet). `r` is not valid until [`scan_faces`].
    /// Compiled for AVX2 where the processor has it ([`crate::wide`]: the same bits;
    /// 25-30 % less time here than at the baseline).
    fn pick_faces / pick_faces_v3 => pick_faces_any(
        r: &mut Raster,
        world: &[Vector3<f64>],
        mesh: &TriMesh,
        ds: f64,
        extent: &Rect,
        z_top: f64,
    ) -> Option<Rect> {
        r.valid = false;
        // faces reaching below the soil top, and their node range
        r.kept.clear();
        r.face_normal.clear();
        r.side.clear();
        let (mut xa, mut xb, mut ya, mut yb) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        let (mut sum_x, mut sum_y) = (0.0, 0.0);
        let (mut hi_kept, mut lo_excluded) = (f64::NEG_INFINITY, f64::INFINITY);
        let groups = r.groups.of(mesh);
        for (g, group) in mesh.triangles.chunks(GROUP).enumerate() {
            // a group wholly at or above the soil top (none of its vertices NaN): each
            // face's lowest point is, and the lowest of them is its lowest vertex
            let (from, to) = (groups.start[g] as usize, groups.start[g + 1] as usize);
            let (mut lowest, mut above) = (f64::INFINITY, true);
            for &k in &groups.verts[from..to] {
                let z = world[k as usize].z;
                lowest = lowest.min(z);
                above &= z >= z_top;
            }
            if above {
                lo_excluded = lo_excluded.min(lowest);
                continue;
            }
            for (l, t) in group.iter().enumerate() {
                let f = g * GROUP + l;
                let [a, b, c] = t.map(|k| world[k as usize]);
                let lowest = a.z.min(b.z).min(c.z);
                if lowest >= z_top {
                    lo_excluded = lo_excluded.min(lowest);
                    continue;
                }
                let n = (b - a).cross(&(c - a));
                let len = n.norm();
                if len == 0.0 {
                    continue;
                }
                if is_side_face(&n, len) {
                    hi_kept = hi_kept.max(lowest);
                    r.side.push(f as u32);
                }
                if n.z.abs() <= 1e-12 * len {
                    continue;
                }
                // the lowest surface of a closed body faces down: the soil pushes along -n_out
                let n_in = if n.z < 0.0 { -n / len } else { n / len };
                hi_kept = hi_kept.max(lowest);
                r.kept.push(f as u32);
                r.face_normal.push(n_in);
                let (fx0, fx1) = (a.x.min(b.x).min(c.x), a.x.max(b.x).max(c.x));
                let (fy0, fy1) = (a.y.min(b.y).min(c.y), a.y.max(b.y).max(c.y));
                (xa, xb, ya, yb) = (xa.min(fx0), xb.max(fx1), ya.min(fy0), yb.max(fy1));
                (sum_x, sum_y) = (sum_x + (fx1 - fx0), sum_y + (fy1 - fy0));
            }
        }
        if r.kept.is_empty() {
            return None;
        }
        let i0 = (xa / ds).ceil() as i32;
        let j0 = (ya / ds).ceil() as i32;
        let faces = Rect {
            i0,
            j0,
            nx: (xb / ds).floor() as i32 - i0 + 1,
            ny: (yb / ds).floor() as i32 - j0 + 1,
        };
        let idle = faces.grow(MARGIN).intersect(extent);
        if idle.nx < 3 || idle.ny < 3 {
            return None;
        }
        // every footprint node lies under a kept face, inside their box: one node around
        // it holds the footprint's neighbours
        let rect = faces.grow(1).intersect(extent);
        let len = rect.len();
        // scan by columns only for meshes clearly longer in y (a margin, so that a body
        // about as long in x as in y does not switch from step to step: a node exactly on
        // an edge may fall on either side in the two directions)
        r.columns = sum_y > 2.0 * sum_x;
        r.rect = rect;
        r.zmin.clear();
        r.zmin.resize(len, f64::INFINITY);
        r.face.clear();
        r.face.resize(len, 0);
        (r.ds, r.extent, r.idle) = (ds, *extent, idle);
        r.faces = faces;
        r.triangles = (mesh.triangles.as_ptr() as usize, mesh.triangles.len());
        (r.hi_kept, r.lo_excluded) = (hi_kept, lo_excluded);
        Some(rect)
    }
}

/// The second part of [`scan_convert`], after [`pick_faces`] found faces: each kept
/// face onto the window's nodes. `r` is valid then.
fn scan_faces(r: &mut Raster, world: &[Vector3<f64>], mesh: &TriMesh, ds: f64) {
    let columns = r.columns;
    for kf in 0..r.kept.len() {
        let tri = mesh.triangles[r.kept[kf] as usize];
        rasterize(r, world, tri, kf as u32, ds, columns);
    }
    r.valid = true;
}

impl Workspace {
    /// Per node of `rect` (row-major), the lowest point of the body above it, m (world
    /// z), from the last evaluation's scan conversion of the faces reaching below the
    /// soil top; +inf where none covers the node (or there was none).
    pub(crate) fn lowest_over(&self, rect: &Rect, out: &mut Vec<f64>) {
        out.clear();
        out.resize(rect.len(), f64::INFINITY);
        let r = &self.raster;
        if !r.valid {
            return;
        }
        let both = rect.intersect(&r.rect);
        if both.is_empty() {
            return;
        }
        let (nx, rnx) = (rect.nx as usize, r.rect.nx as usize);
        for gj in both.j0..both.j0 + both.ny {
            let (a, b) = (
                (gj - rect.j0) as usize * nx + (both.i0 - rect.i0) as usize,
                (gj - r.rect.j0) as usize * rnx + (both.i0 - r.rect.i0) as usize,
            );
            let n = both.nx as usize;
            out[a..a + n].copy_from_slice(&r.zmin[b..b + n]);
        }
    }
}

/// The soil update's window (the footprint's box and room for its berm, see
/// [`update_margin`]) is grown to lie on multiples of this many grid nodes. A rolling
/// wheel's window then stays the same for several updates (the update keeps its
/// buffers as they are instead of copying them into a window shifted by a node, and
/// its erosion has no new nodes to start from), where the exact box moved almost
/// every update: at 5 mm the step took 3-7 µs less (docs/models/scm.md, Session 73).
/// The erosion's window is a little larger (a few nodes more on some sides, where the
/// soil is at rest): results change in the last digits, then as a grouser wheel's
/// contact does with any change, at the per cent level after seconds.
pub const UPDATE_ALIGN: i32 = 8;

/// Contact forces of `mesh` (body frame) moving with `motion` on the soil: eq. (1) to
/// (9). Reads the soil, changes nothing in it; the footprint stays in `ws` for
/// [`super::deform::update`].
pub fn evaluate(
    p: &SoilParams,
    grid: &SoilGrid,
    base: &Surface,
    mesh: &TriMesh,
    motion: &BodyMotion,
    ws: &mut Workspace,
) -> ContactResult {
    let ds = grid.ds;
    // the evaluation's window buffers back in place after a soil update (the
    // update's stay aside, for its next window)
    if ws.update_bufs.swapped {
        ws.update_bufs
            .swap_with(&mut ws.h, &mut ws.zp, &mut ws.j, &mut ws.mask);
    }
    // vertices to world, and the body's bounds: made ahead for this very pose (with
    // the scan conversion, see `scan_ahead`), or here; the last scan conversion holds
    // only for the same vertices
    std::mem::swap(&mut ws.world, &mut ws.world_before);
    let ahead = ws
        .ahead
        .as_deref_mut()
        .filter(|a| a.raster.valid && a.made_for(&motion.iso, mesh));
    let (lo, hi) = match ahead {
        Some(a) => {
            std::mem::swap(&mut ws.world, &mut a.world);
            std::mem::swap(&mut ws.raster, &mut a.raster);
            ws.ahead_taken += 1;
            (a.lo, a.hi)
        }
        None => {
            let bounds = to_world(mesh, &motion.iso, &mut ws.world);
            if ws.world != ws.world_before {
                ws.raster.valid = false;
            }
            bounds
        }
    };
    if let Some(a) = ws.ahead.as_deref_mut() {
        a.raster.valid = false;
    }
    let body_rect = Rect {
        i0: (lo.x / ds).ceil() as i32,
        j0: (lo.y / ds).ceil() as i32,
        nx: (((hi.x / ds).floor() - (lo.x / ds).ceil()) as i32).saturating_add(1),
        ny: (((hi.y / ds).floor() - (lo.y / ds).ceil()) as i32).saturating_add(1),
    }
    .intersect(&grid.extent);
    if body_rect.is_empty() || !lo.z.is_finite() {
        return clear_result(ws);
    }
    let z_top = grid.max_height(base, &body_rect);
    ws.z_top = z_top;
    if lo.z >= z_top {
        return clear_result(ws);
    }
    let raster = &ws.raster;
    let reuse = raster.valid
        && raster.ds == ds
        && raster.extent == grid.extent
        && raster.triangles == (mesh.triangles.as_ptr() as usize, mesh.triangles.len())
        && raster.hi_kept < z_top
        && z_top <= raster.lo_excluded;
    let rect;
    if reuse {
        // the same faces at the same place: the same window, lowest points and faces
        rect = raster.rect;
        ws.raster_reuses += 1;
        ws.rect = rect;
    } else {
        match scan_convert(&mut ws.raster, &ws.world, mesh, ds, &grid.extent, z_top) {
            Some(r) => {
                rect = r;
                ws.rect = r;
            }
            None => return clear_result(ws),
        }
    }
    // heights for the detection; the rest of the soil state once the window is final
    grid.load_heights(base, &rect, &mut ws.h);
    // footprint: nodes whose lowest mesh point is below the soil surface (not on the
    // window's edge, whose neighbours are unknown), their grid columns and rows, and
    // the footprint's box in the window
    let nx = rect.nx as usize;
    let (zmin, h) = (&ws.raster.zmin, &ws.h);
    let (mask, nodes, cells) = (&mut ws.mask, &mut ws.nodes, &mut ws.abs_nodes);
    let Some((a0, a1, b0, b1)) = footprint_rows::find(zmin, h, &rect, mask, nodes, cells) else {
        ws.foot.clear();
        // (no footprint: the next one is new)
        ws.cached_nodes.clear();
        // no footprint, but the body reaches below the soil top around it (in a hole or
        // rut it made, or lifting out of it): nothing reads the window's lowest points;
        // the soil update resets the shear displacement around the body and erodes
        // the soil its footprint held up, in a window with room for the walls of a
        // hole as deep as the body reaches below that top to slump
        soil_table(p, grid, &mut ws.soils);
        let tan_psi = least_tan_repose(&ws.soils);
        let faces = ws.raster.faces;
        let across = faces.nx.max(faces.ny) as f64 * ds;
        ws.rect = ws.raster.idle;
        ws.update_rect = faces
            .grow(update_margin(across, z_top - lo.z, ds, tan_psi))
            .intersect(&grid.extent);
        ws.mask.clear();
        ws.mask.resize(ws.rect.len(), false);
        ws.result = ContactResult::default();
        add_side_pressure(p, grid, base, mesh, motion, ws, z_top);
        return ws.result;
    };
    // the footprint's box: for the distances and the soil update's window (which adds
    // a margin for deposition and erosion, below, once the footprint's depth is
    // known). The window stays the scan conversion's: its lowest points and faces
    // are read where they are (the footprint's box would need copies of them, more
    // than the state of the nodes between the two boxes costs to load)
    let foot_box = Rect {
        i0: rect.i0 + a0 as i32,
        j0: rect.j0 + b0 as i32,
        nx: (a1 - a0 + 1) as i32,
        ny: (b1 - b0 + 1) as i32,
    };
    ws.foot_grid_box = foot_box;
    // footprint specific: eq. (4), (5), (3). A footprint that did not change since the
    // last evaluation (a body resting, or moving less than a node) keeps its A, L and
    // distances: they depend on the mask only
    let new_footprint = ws.cached_nodes != ws.abs_nodes;
    if new_footprint {
        std::mem::swap(&mut ws.cached_nodes, &mut ws.abs_nodes);
        ws.cached_dist = false;
    }
    // the soil of each node: one class, or the map's class of each window node
    soil_table(p, grid, &mut ws.soils);
    // The distances of eq. (6) count with cohesion only (chi > 0 below). They depend
    // on the mask alone: a helper thread finds them while this one loads the soil
    // state and works out A, L and z^n (little data crosses: the mask in, one distance
    // per node out)
    let need_dist = !ws.cached_dist && ws.soils.iter().any(|s| s.c > 0.0);
    let count = ws.nodes.len();
    ws.zn.resize(count, 0.0);
    ws.mobilized.resize(count, 0.0);
    let (zn_all, mob_all) = (&mut ws.zn[..], &mut ws.mobilized[..]);
    let k_shear = p.k_shear;
    let (mask, nodes, cells) = (&ws.mask, &ws.nodes, &ws.cached_nodes);
    let (h, zmin) = (&ws.h, &ws.raster.zmin);
    let dist = &mut ws.dist;
    // with the distances, the helper finds A and L too (the mask and the nodes only)
    let boxw = (a0, a1, b0, b1);
    let distances = move || {
        dist.find(mask, cells, nx, &rect, &foot_box);
        new_footprint.then(|| area_and_contour(mask, nx, nodes, boxw, &mut dist.codes))
    };
    let soil = &ws.soils;
    let (zp, js, class) = (&mut ws.zp, &mut ws.j, &mut ws.class);
    let codes = &mut ws.contour_codes;
    let mut loads = move |al: bool| {
        // the rest of the soil state (the heights are those of the detection, moved
        // with the window), of the footprint's box: only its nodes read it
        grid.load_state_of(&rect, &foot_box, zp, js);
        let (zp, js) = (&*zp, &*js);
        let sinkage = |k: usize| h[k] + zp[k] - zmin[k];
        mobilized(nodes, mob_all, k_shear, |k| js[k]);
        let al = al.then(|| area_and_contour(mask, nx, nodes, boxw, codes));
        match grid.soil_map() {
            Some(m) => m.classes_of(&rect, ds, class),
            None => class.clear(),
        }
        let (mut c_sum, mut tan_sum, mut z_max) = (0.0, 0.0, 0.0f64);
        if class.is_empty() {
            // z^n, once per node (reused for its yield pressure below)
            z_max = sinkage_powers(nodes, zn_all, p.n, sinkage);
        } else {
            for (&k, x) in nodes.iter().zip(zn_all.iter_mut()) {
                let c = class[k as usize] as usize;
                let s = &soil[c];
                let z = sinkage(k as usize);
                *x = bekker(1.0, s.n, z);
                c_sum += s.c;
                tan_sum += s.tan_phi;
                z_max = z_max.max(z);
            }
        }
        (al, c_sum, tan_sum, z_max)
    };
    let ((al, c_sum, tan_sum, z_max), al_helper) = if need_dist {
        crate::parallel::join(|| loads(false), distances)
    } else {
        (loads(new_footprint), None)
    };
    if let Some(al) = al.or(al_helper) {
        ws.cached_al = al;
    }
    let (a_nodes, l_nodes) = ws.cached_al;
    let area = a_nodes * ds * ds;
    let contour = l_nodes * ds;
    let b_eff = if contour > 0.0 {
        2.0 * area / contour
    } else {
        ds
    };
    // eq. (7): k = k_c / b_eff + k_phi, per class
    ws.k_b.clear();
    ws.k_b.extend(ws.soils.iter().map(|s| s.kc / b_eff + s.kphi));
    // pressure weighting, eq. (6): the mean pressure, node by node in node order
    let mut p_mean = 0.0;
    if ws.class.is_empty() {
        for &x in ws.zn.iter() {
            p_mean += ws.k_b[0] * x;
        }
    } else {
        for (&k, &x) in ws.nodes.iter().zip(ws.zn.iter()) {
            p_mean += ws.k_b[ws.class[k as usize] as usize] * x;
        }
    }
    ws.cached_dist |= need_dist;
    // the soil update's window: the footprint's box and room for its berm
    let tan_psi = least_tan_repose(&ws.soils);
    let across = foot_box.nx.max(foot_box.ny) as f64 * ds;
    // (on multiples of UPDATE_ALIGN nodes: see there)
    ws.update_rect = foot_box
        .grow(update_margin(across, z_max, ds, tan_psi))
        .aligned(UPDATE_ALIGN)
        .intersect(&grid.extent);
    let n_nodes = ws.nodes.len() as f64;
    p_mean /= n_nodes;
    // the share of cohesion in the shear strength: of the one soil, or with classes
    // of the footprint's mean cohesion and friction
    let (c_mean, tan_mean) = if ws.class.is_empty() {
        (p.c, pmath::tan(p.phi))
    } else {
        (c_sum / n_nodes, tan_sum / n_nodes)
    };
    let shear = p_mean * tan_mean;
    let chi = if c_mean > 0.0 {
        c_mean / (c_mean + shear)
    } else {
        0.0
    };
    if chi > 0.0 && !ws.cached_dist {
        // (cohesion implies need_dist above: not reached)
        ws.cached_dist = true;
        ws.dist
            .find(&ws.mask, &ws.cached_nodes, nx, &rect, &foot_box);
    }
    // (each node's weight where its force is worked out)
    let weights = Weights::of(chi, &ws.dist.centrality);
    // node forces, eq. (7), (8); totals, eq. (9)
    let origin = motion.iso.translation.vector;
    let da = ds * ds;
    let mut res = ContactResult {
        contact_nodes: ws.nodes.len(),
        area,
        contour,
        b_eff,
        ..Default::default()
    };
    // per node into its own slot (in parallel for large footprints), then summed in
    // node order: the same bits for any thread count
    let node = NodeInput {
        p,
        ds,
        origin,
        v0: motion.v,
        w0: motion.w,
        soils: &ws.soils,
        class: &ws.class,
        k_b: &ws.k_b,
        da,
        zmin: &ws.raster.zmin,
        h: &ws.h,
        zp: &ws.zp,
        face: &ws.raster.face,
        face_normal: &ws.raster.face_normal,
        weights,
        zn: &ws.zn,
        mobilized: &ws.mobilized,
        cells: &ws.cached_nodes,
    };
    let count = ws.nodes.len();
    // (every node's entry is written below: only new ones need a value here)
    ws.foot.resize(count, FootNode::default());
    // the nodes' totals, and the side faces' passive earth pressure added after them
    let (total, side) = if count >= PARALLEL_NODES {
        // per chunk of PARALLEL_CHUNK nodes its own sums, in node order; the chunks'
        // sums in chunk order: the same bits for any thread count (the chunks do not
        // depend on it), and little crosses between cores
        let chunks = count.div_ceil(PARALLEL_CHUNK);
        ws.chunk_sums.clear();
        ws.chunk_sums.resize(chunks, ChunkSum::default());
        let nodes = &ws.nodes;
        // the side faces' passive earth pressure as one more item (it reads the mesh
        // and the soil heights, which the nodes do not need)
        let (raster, world, soils) = (&ws.raster, &ws.world, &ws.soils);
        let side = crate::parallel::for_each_chunk(
            &mut ws.foot,
            PARALLEL_CHUNK,
            &mut ws.chunk_sums,
            |c, foot, sum| {
                let m0 = c * PARALLEL_CHUNK;
                let nodes = &nodes[m0..m0 + foot.len()];
                sum.0 = if crate::parallel::on_helper() {
                    // a helper's nodes into lines of its own, then copied over whole:
                    // the soil update on the caller read these lines, and writing into
                    // them node by node waited for each line to come back (at 5 mm a
                    // chunk of 256 took a helper 7-10 µs against the caller's 3; into
                    // its own lines 3.3, and 1.8 for the copy, whole lines at a time;
                    // docs/models/scm.md, Session 76)
                    HELPER_FOOT.with_borrow_mut(|own| {
                        own.resize(foot.len(), FootNode::default());
                        let total = four_nodes::run(&node, m0, nodes, own);
                        foot.copy_from_slice(own);
                        total
                    })
                } else {
                    four_nodes::run(&node, m0, nodes, foot)
                };
            },
            || side_force(p, grid, base, mesh, motion, raster, world, soils, z_top),
        );
        let mut total = NodeOut::default();
        for c in &ws.chunk_sums {
            total.merge(&c.0);
        }
        (total, side)
    } else {
        // summed as they come, in node order; the side pressure beside them on a
        // helper (it reads the mesh and the soil heights, which the nodes do not need)
        let (nodes, foot) = (&ws.nodes, &mut ws.foot);
        let mut forces = || four_nodes::run(&node, 0, nodes, foot);
        let (raster, world, soils) = (&ws.raster, &ws.world, &ws.soils);
        if p.side_pressure && !raster.side.is_empty() {
            crate::parallel::join(forces, || {
                side_force(p, grid, base, mesh, motion, raster, world, soils, z_top)
            })
        } else {
            (forces(), None)
        }
    };
    total.add_to(&mut res);
    if let Some((f, t)) = side {
        res.force += f;
        res.torque += t;
    }
    ws.result = res;
    ws.body_v = [motion.v.x, motion.v.y];
    ws.result
}

thread_local! {
    /// A helper's chunk of node forces before they are copied into the workspace (see
    /// the parallel node forces in [`evaluate`]); grows to [`PARALLEL_CHUNK`] once.
    static HELPER_FOOT: std::cell::RefCell<Vec<FootNode>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Adds the passive earth pressure on the body's side faces (see
/// [`super::side_pressure`]) to the result in `ws`.
fn add_side_pressure(
    p: &SoilParams,
    grid: &SoilGrid,
    base: &Surface,
    mesh: &TriMesh,
    motion: &BodyMotion,
    ws: &mut Workspace,
    z_top: f64,
) {
    let (raster, world, soils) = (&ws.raster, &ws.world, &ws.soils);
    if let Some((f, t)) = side_force(p, grid, base, mesh, motion, raster, world, soils, z_top) {
        ws.result.force += f;
        ws.result.torque += t;
    }
}

/// The passive earth pressure on the side faces of the scan conversion `r` (mesh
/// vertices in world `world`, soil classes `soils`): force, N, and torque about the
/// body's origin, N m (world frame); None when there is none to work out.
#[allow(clippy::too_many_arguments)]
fn side_force(
    p: &SoilParams,
    grid: &SoilGrid,
    base: &Surface,
    mesh: &TriMesh,
    motion: &BodyMotion,
    r: &Raster,
    world: &[Vector3<f64>],
    soils: &[NodeSoil],
    z_top: f64,
) -> Option<(Vector3<f64>, Vector3<f64>)> {
    if !p.side_pressure || r.side.is_empty() {
        return None;
    }
    let ds = grid.ds;
    let (f, t) = side_pressure(
        p,
        grid,
        base,
        soils,
        world,
        &mesh.triangles,
        &r.side,
        motion.iso.translation.vector,
        motion.v,
        motion.w,
        z_top,
        |q| {
            // the nearest node under a face of the scan conversion
            let (i, j) = (
                floor_i32(q.x / ds + 0.5) - r.rect.i0,
                floor_i32(q.y / ds + 0.5) - r.rect.j0,
            );
            i >= 0
                && j >= 0
                && i < r.rect.nx
                && j < r.rect.ny
                && r.zmin[(j * r.rect.nx + i) as usize] < f64::INFINITY
        },
    );
    Some((f, t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Leaving out whole groups of faces above the soil top keeps the faces, the side
    /// faces and the bounds a face-by-face pass gives: a bumpy sheet of faces in
    /// order (whole groups left out) and the same faces shuffled (mixed groups), at
    /// soil tops through the sheet's height. The copy for AVX2 ([`crate::wide`])
    /// picks what the baseline one picks, bit for bit.
    #[test]
    fn face_groups_keep_what_face_by_face_keeps() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let n = 24;
        let mut vertices: Vec<Vector3<f64>> = (0..n * n)
            .map(|k| {
                let (x, y) = ((k % n) as f64 * 0.013, (k / n) as f64 * 0.011);
                Vector3::new(x, y, 0.05 * pmath::sin(9.0 * x) * pmath::cos(7.0 * y) + 0.2 * x)
            })
            .collect();
        let mut triangles = Vec::new();
        for j in 0..n - 1 {
            for i in 0..n - 1 {
                let k = (j * n + i) as u32;
                triangles.push([k, k + 1, k + n as u32 + 1]);
                // every fifth face wound the other way (facing down)
                triangles.push(if k % 5 == 0 {
                    [k, k + n as u32, k + n as u32 + 1]
                } else {
                    [k, k + n as u32 + 1, k + n as u32]
                });
            }
        }
        // a face of zero area: neither kept nor a side face
        triangles.push([0, 1, 0]);
        // faces at heights through the sheet's: vertical ones (a grouser's flanks) and
        // ones facing up with n_z / |n| = 0.29 (side faces), and with 0.83 (not)
        for m in 0..24 {
            let (x, z) = (m as f64 * 0.012, -0.08 + m as f64 * 0.015);
            let dx = [0.0, -0.3, -1.5][m % 3] * 0.03;
            let k = vertices.len() as u32;
            vertices.push(Vector3::new(x, 0.3, z));
            vertices.push(Vector3::new(x, 0.33, z));
            vertices.push(Vector3::new(x + dx, 0.3, z + 0.03));
            triangles.push([k, k + 1, k + 2]);
        }
        let ordered = TriMesh {
            vertices: vertices.clone(),
            triangles: triangles.clone(),
        };
        for i in (1..triangles.len()).rev() {
            triangles.swap(i, rng.gen_range(0..=i));
        }
        let shuffled = TriMesh {
            vertices,
            triangles,
        };
        let extent = Rect {
            i0: -10,
            j0: -10,
            nx: 100,
            ny: 100,
        };
        let (mut left_out, mut sides) = (0, 0);
        for mesh in [&ordered, &shuffled] {
            for z_top in [-0.2, -0.03, 0.0, 0.02, 0.05, 0.1, 0.3] {
                let mut r = Raster::default();
                let got = scan_convert(&mut r, &mesh.vertices, mesh, 0.01, &extent, z_top);
                #[cfg(target_arch = "x86_64")]
                if crate::wide::v3() {
                    // the copy for AVX2 picks the same faces, normals and bounds
                    let (mut any, mut v3) = (Raster::default(), Raster::default());
                    let (vs, ds) = (&mesh.vertices, 0.01);
                    let a = pick_faces_any(&mut any, vs, mesh, ds, &extent, z_top);
                    // SAFETY: the processor has the features (checked above)
                    let b = unsafe { pick_faces_v3(&mut v3, vs, mesh, ds, &extent, z_top) };
                    assert_eq!(a, b, "z_top {z_top}");
                    let of = |r: &Raster| {
                        let normals = r
                            .face_normal
                            .iter()
                            .flat_map(|n| n.iter().map(|x| x.to_bits()));
                        let bounds = [r.hi_kept, r.lo_excluded].map(f64::to_bits);
                        let picked = (r.kept.clone(), r.side.clone(), r.columns, r.idle, r.faces);
                        (picked, normals.collect::<Vec<_>>(), bounds)
                    };
                    assert_eq!(of(&any), of(&v3), "z_top {z_top}");
                }
                // face by face
                let (mut kept, mut side) = (Vec::new(), Vec::new());
                let (mut hi_kept, mut lo_excluded) = (f64::NEG_INFINITY, f64::INFINITY);
                for (f, t) in mesh.triangles.iter().enumerate() {
                    let lowest = t
                        .iter()
                        .map(|&k| mesh.vertices[k as usize].z)
                        .fold(f64::INFINITY, f64::min);
                    if lowest >= z_top {
                        lo_excluded = lo_excluded.min(lowest);
                        continue;
                    }
                    let [a, b, c] = t.map(|k| mesh.vertices[k as usize]);
                    let nrm = (b - a).cross(&(c - a));
                    let len = nrm.norm();
                    if len > 0.0 && is_side_face(&nrm, len) {
                        side.push(f as u32);
                        hi_kept = hi_kept.max(lowest);
                    }
                    if len > 0.0 && nrm.z.abs() > 1e-12 * len {
                        kept.push(f as u32);
                        hi_kept = hi_kept.max(lowest);
                    }
                }
                assert_eq!(r.kept, kept, "z_top {z_top}");
                assert_eq!(r.side, side, "z_top {z_top}");
                sides += side.len();
                assert_eq!(got.is_some(), !kept.is_empty());
                if got.is_some() {
                    assert_eq!(r.lo_excluded, lo_excluded, "z_top {z_top}");
                    assert_eq!(r.hi_kept, hi_kept, "z_top {z_top}");
                }
                let groups = &r.groups;
                left_out += (0..groups.start.len() - 1)
                    .filter(|&g| {
                        let (from, to) = (groups.start[g], groups.start[g + 1]);
                        let vs = &groups.verts[from as usize..to as usize];
                        vs.iter().all(|&k| mesh.vertices[k as usize].z >= z_top)
                    })
                    .count();
            }
        }
        // groups were left out whole, and side faces found
        assert!(left_out > 20, "{left_out}");
        assert!(sides > 40, "{sides}");
    }
}
