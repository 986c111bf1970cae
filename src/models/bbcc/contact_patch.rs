//! Where the one BBCC contact of two flat-faced convex parts acts, with
//! `bbcc.contact_patch`: spread over the vertices of their overlap, each weighted by
//! its depth.
//!
//! BBCC gives one contact per pair of convex parts (Buse 2023, section 4.1), and the
//! narrow phase (GJK/EPA, the face test) reports the deepest point. A rock resting on a
//! face touches with several vertices at nearly the same depth; the deepest one changes
//! as the rock tilts by a micro-radian, so the force jumps from vertex to vertex. That
//! force field is not conservative: a rock rocks between its vertices without end, and
//! with friction holding each vertex in turn it walks (measured: twelve rocks on a flat
//! slab drifted 0.3 mm in 10 s at v_d = 0.01 m/s, 3 mm at v_d = 1e-4 m/s). A single
//! point also has no lever against rocking or twisting: at the face's centre, a block
//! rocked and spun undamped.
//!
//! Here the overlap of the two parts (a convex polytope) is found through its
//! vertices: each part's vertices inside the other and the points where each part's
//! edges cross the other's surface. Each is weighted as a contact of eq. (1) at its
//! own depth d along the normal (past the other part's extreme plane) would be, by
//! d^1.5, and they are gathered into at most four points, the quadrants around their
//! weighted centre; each point carries its quadrant's share of the contact (`pair`:
//! that share of eq. (1), with its own penetration rate, and the friction of that
//! share at its own slip). The total is the paper's, one contact at the deepest
//! penetration, so the stiffness a model step must integrate is the paper's (each
//! vertex a contact of its own made a face as many times stiffer as it has overlap
//! vertices, and the pile went non-finite at 0.2 s). A vertex entering through the
//! face square to the normal enters with weight zero; one entering elsewhere brings
//! the crossings of its edges, at the same place, and these count once ([`Merger`]),
//! so the points move nearly continuously as a part tilts, and rocking and twisting
//! meet the damping and friction of points apart. A corner on a face is one
//! point, the paper's contact. The points lie midway through the overlap along the
//! normal, as the narrow phase's points do.

use nalgebra::{Isometry3, Point3, Vector3};
use parry3d_f64::shape::{ConvexPolyhedron, Shape};

/// A flat-faced convex part as the patch sees it (its own frame).
enum Solid<'a> {
    /// Half extents, m.
    Cuboid(Vector3<f64>),
    /// The hull and its box (own frame: half extents about a centre), a cheap first
    /// test before its faces.
    Hull(&'a ConvexPolyhedron, Vector3<f64>, Vector3<f64>),
    /// Outward unit normal; the plane passes through the frame's origin.
    Plane(Vector3<f64>),
}

/// Most hull vertices and faces [`Near`] lists; bigger hulls test every face.
const NEAR_MAX: usize = 256;

/// The faces of a hull that reach below a level along a direction (the overlap's
/// side of it): the only faces that can bound the overlap there. A point on the
/// overlap's side of the level inside all of them is inside the hull (the first face a
/// path from inside to it crosses reaches below the level), so `contains` and `clip`
/// test these (a rock's three to ten of its eighty).
struct Near {
    ids: [u16; NEAR_MAX],
    len: usize,
    /// Every face (the hull is too big for the lists).
    all: bool,
}

impl Near {
    const ALL: Near = Near {
        ids: [0; NEAR_MAX],
        len: 0,
        all: true,
    };

    /// The faces of `side`'s hull with a vertex of depth `depth(x . n) > 0`; every
    /// face for a solid that is not a hull or too big.
    fn of(side: &Side, depth: &dyn Fn(f64) -> f64) -> Near {
        let Solid::Hull(c, ..) = side.solid else {
            return Near::ALL;
        };
        let (faces, vertices, adj) = (c.faces(), c.vertices(), c.faces_adj_to_vertex());
        if side.count > NEAR_MAX || faces.len() > NEAR_MAX {
            return Near::ALL;
        }
        // the faces around each vertex of positive depth, marked once
        let mut marked = [false; NEAR_MAX];
        for (v, vertex) in vertices.iter().enumerate() {
            if depth(side.along[v]) > 0.0 {
                let first = vertex.first_adj_face_or_edge as usize;
                for &f in &adj[first..first + vertex.num_adj_faces_or_edge as usize] {
                    marked[f as usize] = true;
                }
            }
        }
        let mut near = Near {
            ids: [0; NEAR_MAX],
            len: 0,
            all: false,
        };
        for (f, &m) in marked.iter().enumerate().take(faces.len()) {
            if m {
                near.ids[near.len] = f as u16;
                near.len += 1;
            }
        }
        near
    }

    /// The faces to test among `count`.
    fn each(&self, count: usize, f: &mut dyn FnMut(usize) -> bool) -> bool {
        if self.all {
            (0..count).all(f)
        } else {
            self.ids[..self.len].iter().all(|&k| f(k as usize))
        }
    }
}

impl<'a> Solid<'a> {
    fn of(s: &'a dyn Shape) -> Option<Solid<'a>> {
        if let Some(c) = s.as_cuboid() {
            Some(Solid::Cuboid(c.half_extents))
        } else if let Some(h) = s.as_convex_polyhedron() {
            let b = h.local_aabb();
            Some(Solid::Hull(h, b.center().coords, b.half_extents()))
        } else {
            s.as_halfspace()
                .map(|h| Solid::Plane(h.normal.into_inner()))
        }
    }

    /// Its largest half extent, m (a plane: infinite).
    fn half_size(&self) -> f64 {
        match self {
            Solid::Cuboid(h) => h.max(),
            Solid::Hull(_, _, half) => half.max(),
            Solid::Plane(_) => f64::INFINITY,
        }
    }

    /// Its number of vertices (a plane has none).
    fn vertex_count(&self) -> usize {
        match self {
            Solid::Cuboid(_) => 8,
            Solid::Hull(c, ..) => c.points().len(),
            Solid::Plane(_) => 0,
        }
    }

    /// Vertex `k` (own frame).
    fn vertex(&self, k: usize) -> Vector3<f64> {
        match self {
            Solid::Cuboid(h) => {
                let s = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
                Vector3::new(s(1) * h.x, s(2) * h.y, s(4) * h.z)
            }
            Solid::Hull(c, ..) => c.points()[k].coords,
            Solid::Plane(_) => Vector3::zeros(),
        }
    }

    /// Calls `f` with the vertex numbers of each edge's ends; a plane has none.
    fn for_each_edge(&self, mut f: impl FnMut(usize, usize)) {
        match self {
            Solid::Cuboid(_) => {
                for k in 0..8 {
                    for bit in [1, 2, 4] {
                        if k & bit == 0 {
                            f(k, k | bit);
                        }
                    }
                }
            }
            Solid::Hull(c, ..) => {
                // parry keeps the edges merged away inside a flat face (both sides
                // on the same face): skipped
                for e in c.edges() {
                    if e.faces[0] != e.faces[1] {
                        f(e.vertices[0] as usize, e.vertices[1] as usize);
                    }
                }
            }
            Solid::Plane(_) => {}
        }
    }

    /// The part of the segment from `p` to `q` (own frame) inside: its parameters
    /// (t0, t1), 0 <= t0 <= t1 <= 1, or None when it misses.
    /// For a hull, only the faces of `near` (the segment is on the overlap's side).
    fn clip(&self, p: &Vector3<f64>, q: &Vector3<f64>, near: &Near) -> Option<(f64, f64)> {
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        let d = q - p;
        // the segment against the half space normal . x <= offset; false once empty
        let mut cut = |normal: &Vector3<f64>, offset: f64| {
            let (start, rate) = (normal.dot(p) - offset, normal.dot(&d));
            if rate == 0.0 {
                if start > 0.0 {
                    t1 = -1.0;
                }
            } else if rate > 0.0 {
                t1 = t1.min(-start / rate);
            } else {
                t0 = t0.max(-start / rate);
            }
            t0 <= t1
        };
        if !self.planes(near, &mut cut) {
            return None;
        }
        (t0 <= t1).then_some((t0, t1))
    }

    /// Calls `f(normal, offset)` with each half space normal . x <= offset (own frame)
    /// that bounds it, until `f` gives false; whether every call gave true. A hull:
    /// its box first (most edges near a contact miss the hull), then the faces of
    /// `near`.
    fn planes(&self, near: &Near, f: &mut impl FnMut(&Vector3<f64>, f64) -> bool) -> bool {
        let axes = [Vector3::x(), Vector3::y(), Vector3::z()];
        match self {
            Solid::Cuboid(h) => (0..3).all(|k| f(&axes[k], h[k]) && f(&-axes[k], h[k])),
            Solid::Hull(c, centre, half) => {
                (0..3)
                    .all(|k| f(&axes[k], half[k] + centre[k]) && f(&-axes[k], half[k] - centre[k]))
                    && {
                        let (points, adj, faces) =
                            (c.points(), c.vertices_adj_to_face(), c.faces());
                        near.each(faces.len(), &mut |k| {
                            let face = &faces[k];
                            let on = points[adj[face.first_vertex_or_edge as usize] as usize];
                            f(&face.normal, face.normal.dot(&on.coords))
                        })
                    }
            }
            Solid::Plane(n) => f(n, 0.0),
        }
    }

    /// Whether the point `x` (own frame) is inside (on the boundary counts).
    /// For a hull, only the faces of `near` (the point is on the overlap's side).
    fn contains(&self, x: &Vector3<f64>, near: &Near) -> bool {
        match self {
            Solid::Cuboid(h) => x.x.abs() <= h.x && x.y.abs() <= h.y && x.z.abs() <= h.z,
            Solid::Hull(c, centre, half) => {
                let r = x - centre;
                if (0..3).any(|k| r[k].abs() > half[k]) {
                    return false;
                }
                let (points, adj, faces) = (c.points(), c.vertices_adj_to_face(), c.faces());
                near.each(faces.len(), &mut |f| {
                    let face = &faces[f];
                    let on = points[adj[face.first_vertex_or_edge as usize] as usize];
                    face.normal.dot(&(x - on.coords)) <= 0.0
                })
            }
            Solid::Plane(n) => n.dot(x) <= 0.0,
        }
    }
}

/// A contact spread over up to four points of the overlap (world frame), each with
/// its share of the contact (the shares sum to 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Patch {
    pub len: usize,
    pub points: [Vector3<f64>; 4],
    /// Each point's fraction of the contact (they sum to 1).
    pub shares: [f64; 4],
    /// With `bbcc.elastic_foundation`: the overlap's integral of t^1.5 over the
    /// tangent plane (t its thickness along the normal), m^3.5, and its rate under a
    /// uniform press, the integral of 1.5 t^0.5, m^2.5 ([`by_thickness`]).
    pub foundation: Option<(f64, f64)>,
}

impl Patch {
    /// One point carrying the whole contact.
    pub fn single(p: Vector3<f64>) -> Patch {
        Patch {
            len: 1,
            points: [p, p, p, p],
            shares: [1.0, 0.0, 0.0, 0.0],
            foundation: None,
        }
    }

    /// The penetration-weighted centre (the shares' centre).
    pub fn centre(&self) -> Vector3<f64> {
        (0..self.len).fold(Vector3::zeros(), |c, k| c + self.points[k] * self.shares[k])
    }
}

/// Most vertices of one overlap kept for the quadrant pass; beyond, they are
/// gathered again.
const KEPT: usize = 32;

/// One part of a patch: the solid at its pose and its vertices' positions along the
/// normal, each computed once.
struct Side<'a> {
    solid: Solid<'a>,
    iso: Isometry3<f64>,
    /// x . n (world) of each vertex, for the first [`NEAR_MAX`].
    along: [f64; NEAR_MAX],
    count: usize,
}

impl<'a> Side<'a> {
    fn new(solid: Solid<'a>, iso: &Isometry3<f64>, n: &Vector3<f64>) -> Side<'a> {
        let n_own = iso.rotation.inverse_transform_vector(n);
        let offset = iso.translation.vector.dot(n);
        let count = solid.vertex_count();
        let mut along = [0.0; NEAR_MAX];
        for (k, a) in along.iter_mut().enumerate().take(count) {
            *a = solid.vertex(k).dot(&n_own) + offset;
        }
        Side {
            solid,
            iso: *iso,
            along,
            count,
        }
    }

    /// x . n (world) of vertex `k`.
    fn along(&self, k: usize, n: &Vector3<f64>) -> f64 {
        if k < NEAR_MAX {
            self.along[k]
        } else {
            (self.iso * Point3::from(self.solid.vertex(k)))
                .coords
                .dot(n)
        }
    }

    /// Its largest x . n (the smallest with `max` false); a plane's level along its
    /// normal (it reaches infinitely far inwards).
    fn extreme(&self, n: &Vector3<f64>, max: bool) -> f64 {
        if let Solid::Plane(_) = self.solid {
            return self.iso.translation.vector.dot(n);
        }
        let sign = if max { 1.0 } else { -1.0 };
        let best = (0..self.count)
            .map(|k| sign * self.along(k, n))
            .fold(f64::NEG_INFINITY, f64::max);
        sign * best
    }
}

/// Calls `f(x, weight)` for each vertex x (world) of the overlap of the two parts (a
/// convex polytope): the vertices of either part inside the other and the points
/// where an edge of either crosses the other's surface, weighted by the depth along
/// `n` (world): past 2's lowest level `bottom2` for a point of 1, short of 1's highest
/// `top1` for one of 2. `restrict`: test only a hull's [`Near`] faces.
fn overlap_vertices(
    a: &Side,
    b: &Side,
    n: &Vector3<f64>,
    bottom2: f64,
    top1: f64,
    [near1, near2]: [&Near; 2],
    f: &mut dyn FnMut(Vector3<f64>, f64),
) {
    let depth1 = |along: f64| along - bottom2;
    let depth2 = |along: f64| top1 - along;
    gather(a, b, n, near2, depth1, f);
    gather(b, a, n, near1, depth2, f);
}

/// The faces of each side that bound the overlap from 2's lowest point (`bottom2`) to
/// 1's highest (`top1`) along the normal: the overlap is on 1's side of 2's far level
/// and the reverse, so the faces of each reaching there bound it. `restrict` false:
/// every face.
fn near_faces(a: &Side, b: &Side, bottom2: f64, top1: f64, restrict: bool) -> [Near; 2] {
    if restrict {
        [
            Near::of(a, &|along: f64| along - bottom2),
            Near::of(b, &|along: f64| top1 - along),
        ]
    } else {
        [Near::ALL, Near::ALL]
    }
}

/// The points of `inner` inside `outer` (see [`overlap_vertices`]), by their depth
/// `depth(x . n)`.
fn gather(
    inner: &Side,
    outer: &Side,
    n: &Vector3<f64>,
    near: &Near,
    depth: impl Fn(f64) -> f64,
    f: &mut dyn FnMut(Vector3<f64>, f64),
) {
    let rel = outer.iso.inv_mul(&inner.iso);
    for k in 0..inner.count {
        // only a vertex past the other's extreme plane can be inside it
        let d = depth(inner.along(k, n));
        if d > 0.0 {
            let x = inner.solid.vertex(k);
            if outer.solid.contains(&(rel * Point3::from(x)).coords, near) {
                f((inner.iso * Point3::from(x)).coords, d);
            }
        }
    }
    // where an edge crosses the other's surface (its ends inside are vertices)
    inner.solid.for_each_edge(|i, j| {
        let (di, dj) = (depth(inner.along(i, n)), depth(inner.along(j, n)));
        if di <= 0.0 && dj <= 0.0 {
            return;
        }
        let (x, y) = (inner.solid.vertex(i), inner.solid.vertex(j));
        let (px, py) = (
            (rel * Point3::from(x)).coords,
            (rel * Point3::from(y)).coords,
        );
        if let Some((t0, t1)) = outer.solid.clip(&px, &py, near) {
            for t in [t0, t1] {
                let d = di + t * (dj - di);
                // (a crossing at depth 0 still bounds the overlap: reported, and
                // weighed by the callers as nothing)
                if t > 0.0 && t < 1.0 {
                    f((inner.iso * Point3::from(x + (y - x) * t)).coords, d);
                }
            }
        }
    });
}

/// The merge radius of the patch's vertices ([`Merger`]) in overlap thicknesses...
const MERGE_DEPTHS: f64 = 100.0;
/// ...and at most this fraction of the smaller part's largest half extent.
const MERGE_SIZE: f64 = 0.1;

/// Counts nearly coincident overlap vertices once. A corner of one part entering the
/// other comes with the points where its edges cross the other's surface, all at the
/// corner; each carries the depth from the level, so a corner leaving a face took two
/// or three full weights away in one sub-step, a kick that kept two stacked cubes
/// rocking (docs/bbcc-at-scale.md: 8 of 24 stacks at rest at 0.5 ms). A vertex within
/// the radius r of an earlier one (in the overlap's order, fixed by the parts' vertex
/// and edge numbers) weighs (distance / r)^2 of its weight: coincident, nothing; from
/// r apart, all of it; continuous in between. Measured: all 24 stacks at rest.
struct Merger {
    radius: f64,
    seen: [Vector3<f64>; KEPT],
    len: usize,
}

impl Merger {
    fn new(radius: f64) -> Merger {
        Merger {
            radius,
            seen: [Vector3::zeros(); KEPT],
            len: 0,
        }
    }

    /// The weight `w` of the vertex at `x` (world), after the vertices before it.
    fn weight(&mut self, x: Vector3<f64>, w: f64) -> f64 {
        let near = self.seen[..self.len]
            .iter()
            .map(|y| (x - y).norm())
            .fold(f64::INFINITY, f64::min);
        if self.len < KEPT {
            self.seen[self.len] = x;
            self.len += 1;
        }
        if !(self.radius > 0.0) {
            return w;
        }
        let r = (near / self.radius).min(1.0);
        w * r * r
    }
}

/// The contact patch of convex parts `s1` at `iso1` and `s2` at `iso2` touching with
/// unit normal `n` (world, from 1 towards 2): the vertices of their overlap (each
/// part's vertices inside the other, each part's edges crossing the other's surface),
/// each weighted by d^1.5 (d: its depth in the overlap), gathered
/// into at most four points (the quadrants of the tangent plane around their weighted
/// centre, each point its quadrant's weighted centre, its share the quadrant's weight),
/// placed midway through the overlap along `n`. The shares' centre is the weighted
/// centre of all the vertices (see the module's documentation). `None` when a part is not flat-faced (a
/// ball, a cylinder: their points are placed by their own rules) or the overlap has
/// no vertex of depth above zero. `foundation` (`bbcc.elastic_foundation`): the
/// points and shares of [`by_thickness`] instead, where its lattice samples the
/// overlap.
pub fn patch(
    s1: &dyn Shape,
    iso1: &Isometry3<f64>,
    s2: &dyn Shape,
    iso2: &Isometry3<f64>,
    n: &Vector3<f64>,
    foundation: bool,
) -> Option<Patch> {
    patch_with(s1, iso1, s2, iso2, n, true, foundation)
}

/// [`patch`]; `restrict`: test a hull's [`Near`] faces only (else all of them).
fn patch_with(
    s1: &dyn Shape,
    iso1: &Isometry3<f64>,
    s2: &dyn Shape,
    iso2: &Isometry3<f64>,
    n: &Vector3<f64>,
    restrict: bool,
    foundation: bool,
) -> Option<Patch> {
    let (a, b) = (Solid::of(s1)?, Solid::of(s2)?);
    let (a, b) = (Side::new(a, iso1, n), Side::new(b, iso2, n));
    // the overlap along n: from 2's lowest point to 1's highest
    let top1 = a.extreme(n, true);
    let bottom2 = b.extreme(n, false);
    let mut sum = Vector3::zeros();
    let mut weight = 0.0;
    let mut kept = [(Vector3::zeros(), 0.0); KEPT];
    let mut count = 0;
    // each vertex weighted as a contact of eq. (1) at its depth would be, d^1.5, less
    // where it nearly coincides with an earlier one ([`Merger`])
    let radius = (MERGE_DEPTHS * (top1 - bottom2).abs())
        .min(MERGE_SIZE * a.solid.half_size().min(b.solid.half_size()));
    let mut merger = Merger::new(radius);
    // the quadrants' axes in the tangent plane
    let t1 = n
        .cross(&if n.x.abs() < 0.6 {
            Vector3::x()
        } else {
            Vector3::y()
        })
        .normalize();
    let t2 = n.cross(&t1);
    let [near1, near2] = near_faces(&a, &b, bottom2, top1, restrict);
    let near = [&near1, &near2];
    // the overlap's box in the tangent plane, for the foundation's lattice
    let mut bounds = [
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    overlap_vertices(&a, &b, n, bottom2, top1, near, &mut |x, d| {
        if foundation {
            let (u, v) = (x.dot(&t1), x.dot(&t2));
            bounds = [
                bounds[0].min(u),
                bounds[1].max(u),
                bounds[2].min(v),
                bounds[3].max(v),
            ];
        }
        if !(d > 0.0) {
            return;
        }
        let d = merger.weight(x, d * d.sqrt());
        sum += x * d;
        weight += d;
        if count < KEPT {
            kept[count] = (x, d);
        }
        count += 1;
    });
    if !(weight > 0.0) {
        return None;
    }
    if foundation {
        let p = by_thickness(&a, &b, n, [&t1, &t2], bounds, [bottom2, top1], near);
        if p.is_some() {
            return p;
        }
        // (no lattice point inside both: an overlap too thin to sample, weighted by
        // its vertices, with eq. (1))
    }
    let centre = sum / weight;
    let mut sums = [Vector3::zeros(); 4];
    let mut weights = [0.0; 4];
    let mut bin = |x: Vector3<f64>, d: f64| {
        let r = x - centre;
        let q = usize::from(r.dot(&t1) >= 0.0) + 2 * usize::from(r.dot(&t2) >= 0.0);
        sums[q] += x * d;
        weights[q] += d;
    };
    if count <= KEPT {
        kept[..count].iter().for_each(|&(x, d)| bin(x, d));
    } else {
        let mut merger = Merger::new(radius);
        overlap_vertices(&a, &b, n, bottom2, top1, near, &mut |x, d| {
            if d > 0.0 {
                bin(x, merger.weight(x, d * d.sqrt()))
            }
        });
    }
    let total: f64 = weights.iter().sum();
    let level = 0.5 * (top1 + bottom2);
    Some(quadrant_points(centre, &sums, &weights, total, n, level))
}

/// The patch of the quadrants' weighted sums of points `sums` and weights `weights`:
/// each non-empty quadrant's weighted centre, moved along `n` to `level`, with its
/// share of `total` (the unused points at `centre`).
fn quadrant_points(
    centre: Vector3<f64>,
    sums: &[Vector3<f64>; 4],
    weights: &[f64; 4],
    total: f64,
    n: &Vector3<f64>,
    level: f64,
) -> Patch {
    let mut out = Patch::single(centre);
    out.len = 0;
    for q in 0..4 {
        if weights[q] > 0.0 {
            let c = sums[q] / weights[q];
            out.points[out.len] = c + n * (level - c.dot(n));
            out.shares[out.len] = weights[q] / total;
            out.len += 1;
        }
    }
    out
}

/// Lattice points per side of [`by_thickness`]: 4 x 4, so that each quadrant holds
/// about four.
const LATTICE: usize = 4;

/// Most bounding planes of each kind a [`LineClip`] holds; a solid with more (a hull
/// with more near faces) clips each line as [`Solid::clip`] does.
const LINE_PLANES: usize = 24;

/// One solid's clip of the lattice's lines of [`by_thickness`], set up once per patch.
/// The line at (u, v) in the tangent plane runs from x0 + u t1 + v t2 to that plus d
/// (world); in the solid's frame it is P0 + u U + v V + t D, so where it meets the
/// plane normal . x = offset is linear in u and v, t = a + u b + v c, with
/// (a, b, c) = -(normal . P0 - offset, normal . U, normal . V) / (normal . D): a plane
/// the line leaves through bounds t from above, one it enters through from below, and
/// one it runs along keeps it (start = normal . P0 - offset + u normal . U + v normal .
/// V <= 0) or cuts it away. Per line, two multiply-adds per plane instead of moving
/// both ends into the solid's frame and two dot products.
struct LineClip {
    /// (a, b, c) of the planes bounding t from above, and their count.
    upper: [[f64; 3]; LINE_PLANES],
    uppers: usize,
    /// ... from below.
    lower: [[f64; 3]; LINE_PLANES],
    lowers: usize,
    /// The start's (normal . P0 - offset, normal . U, normal . V) of the planes the
    /// lines run along.
    along: [[f64; 3]; LINE_PLANES],
    alongs: usize,
}

impl LineClip {
    /// The clip of `side`'s solid (a hull: its box and `near` faces, as
    /// [`Solid::clip`]) for the lines from `x0 + u t1 + v t2` along `d` (world);
    /// None when it has more planes of a kind than [`LINE_PLANES`].
    fn of(
        side: &Side,
        near: &Near,
        x0: &Vector3<f64>,
        [t1, t2]: [&Vector3<f64>; 2],
        d: &Vector3<f64>,
    ) -> Option<LineClip> {
        let inv = side.iso.inverse();
        let p0 = (inv * Point3::from(*x0)).coords;
        let (u, v, dd) = (inv * t1, inv * t2, inv * d);
        let mut clip = LineClip {
            upper: [[0.0; 3]; LINE_PLANES],
            uppers: 0,
            lower: [[0.0; 3]; LINE_PLANES],
            lowers: 0,
            along: [[0.0; 3]; LINE_PLANES],
            alongs: 0,
        };
        let mut add = |normal: &Vector3<f64>, offset: f64| {
            let start = [normal.dot(&p0) - offset, normal.dot(&u), normal.dot(&v)];
            let rate = normal.dot(&dd);
            let (list, len) = if rate == 0.0 {
                (&mut clip.along, &mut clip.alongs)
            } else if rate > 0.0 {
                (&mut clip.upper, &mut clip.uppers)
            } else {
                (&mut clip.lower, &mut clip.lowers)
            };
            if *len == LINE_PLANES {
                return false;
            }
            list[*len] = if rate == 0.0 {
                start
            } else {
                start.map(|s| -s / rate)
            };
            *len += 1;
            true
        };
        side.solid.planes(near, &mut add).then_some(clip)
    }

    /// The part of the line at (`u`, `v`) inside the solid: its parameters (t0, t1),
    /// 0 <= t0 <= t1 <= 1, or None when it misses.
    fn clip(&self, u: f64, v: f64) -> Option<(f64, f64)> {
        let at = |[a, b, c]: &[f64; 3]| a + u * b + v * c;
        if self.along[..self.alongs].iter().any(|s| at(s) > 0.0) {
            return None;
        }
        let t1 = self.upper[..self.uppers]
            .iter()
            .map(at)
            .fold(1.0f64, f64::min);
        let t0 = self.lower[..self.lowers]
            .iter()
            .map(at)
            .fold(0.0f64, f64::max);
        (t0 <= t1).then_some((t0, t1))
    }
}

/// The patch of `bbcc.elastic_foundation`: the overlap's thickness t along `n` on a
/// lattice of [`LATTICE`]² cell centres over the box (in `t1`, `t2`) of its vertices,
/// each line clipped against both parts, the pressure in proportion to t^1.5. The box
/// counts the crossings at depth 0 too, so its edges are the overlap's extremes, and a
/// lattice point near a quadrant's edge is shared between the quadrants beside it
/// over one cell's width: every weight, point and share changes continuously with the
/// pose. [`Patch::foundation`] carries the midpoint rule's integrals of t^1.5 and
/// 1.5 t^0.5 over the box. None: no lattice point inside both parts.
fn by_thickness(
    a: &Side,
    b: &Side,
    n: &Vector3<f64>,
    [t1, t2]: [&Vector3<f64>; 2],
    bounds: [f64; 4],
    [bottom2, top1]: [f64; 2],
    [near1, near2]: [&Near; 2],
) -> Option<Patch> {
    let s = LATTICE;
    let span = top1 - bottom2;
    if !(span > 0.0) {
        return None;
    }
    let mut pts = [(Vector3::zeros(), 0.0); LATTICE * LATTICE];
    let mut rate = 0.0;
    let (mut sum, mut weight, mut count) = (Vector3::zeros(), 0.0, 0);
    let (x0, d) = (n * bottom2, n * span);
    // each part with its lines' clip set up, or (too many planes) its inverse pose
    let parts = [(a, near1), (b, near2)].map(|(side, near)| {
        (
            side,
            near,
            LineClip::of(side, near, &x0, [t1, t2], &d),
            side.iso.inverse(),
        )
    });
    for i in 0..s {
        let u = bounds[0] + (i as f64 + 0.5) / s as f64 * (bounds[1] - bounds[0]);
        for j in 0..s {
            let v = bounds[2] + (j as f64 + 0.5) / s as f64 * (bounds[3] - bounds[2]);
            let base = t1 * u + t2 * v;
            let (p, q) = (base + n * bottom2, base + n * top1);
            let [ia, ib] = parts.each_ref().map(|(side, near, line, inv)| match line {
                Some(l) => l.clip(u, v),
                None => side.solid.clip(
                    &(inv * Point3::from(p)).coords,
                    &(inv * Point3::from(q)).coords,
                    near,
                ),
            });
            let (Some((a0, a1)), Some((b0, b1))) = (ia, ib) else {
                continue;
            };
            let (lo, hi) = (a0.max(b0), a1.min(b1));
            if hi > lo {
                let x = p + (q - p) * (0.5 * (lo + hi));
                // the thickness, and its pressure's weight t^1.5 and rate 1.5 t^0.5
                let t = (hi - lo) * span;
                let w = t * t.sqrt();
                rate += 1.5 * t.sqrt();
                sum += x * w;
                weight += w;
                pts[count] = (x, w);
                count += 1;
            }
        }
    }
    if !(weight > 0.0) {
        return None;
    }
    let centre = sum / weight;
    let mut sums = [Vector3::zeros(); 4];
    let mut weights = [0.0; 4];
    // each sample's weight split between the quadrants beside it over a cell's width
    // (a sample on a quadrant's edge half to each): the shares and the points move
    // continuously as the centre crosses a sample
    let (cu, cv) = (
        (bounds[1] - bounds[0]) / s as f64,
        (bounds[3] - bounds[2]) / s as f64,
    );
    let ramp = |r: f64, cell: f64| {
        if cell > 0.0 {
            (0.5 + r / cell).clamp(0.0, 1.0)
        } else if r >= 0.0 {
            1.0
        } else {
            0.0
        }
    };
    for &(x, w) in &pts[..count] {
        let r = x - centre;
        let (f1, f2) = (ramp(r.dot(t1), cu), ramp(r.dot(t2), cv));
        for (q, part) in [
            (1.0 - f1) * (1.0 - f2),
            f1 * (1.0 - f2),
            (1.0 - f1) * f2,
            f1 * f2,
        ]
        .into_iter()
        .enumerate()
        {
            if part > 0.0 {
                sums[q] += x * (w * part);
                weights[q] += w * part;
            }
        }
    }
    let level = 0.5 * (top1 + bottom2);
    let mut out = quadrant_points(centre, &sums, &weights, weight, n, level);
    // the midpoint rule's integrals over the box
    let cell = (bounds[1] - bounds[0]) * (bounds[3] - bounds[2]) / (s * s) as f64;
    out.foundation = Some((weight * cell, rate * cell));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::UnitQuaternion;
    use parry3d_f64::shape::{Cuboid, HalfSpace};

    fn cube_hull(half: f64) -> ConvexPolyhedron {
        let c = Cuboid::new(Vector3::repeat(half));
        let (pts, idx) = c.to_trimesh();
        ConvexPolyhedron::from_convex_mesh(pts, &idx).unwrap()
    }

    /// A 0.1 m cube's hull, a 2 m x 2 m x 0.2 m ground box with its top at z = 0 and
    /// its pose, and the contact normal (up).
    fn cube_over_ground() -> (ConvexPolyhedron, Cuboid, Isometry3<f64>, Vector3<f64>) {
        let ground = Cuboid::new(Vector3::new(1.0, 1.0, 0.1));
        let g_iso = Isometry3::translation(0.0, 0.0, -0.1);
        (cube_hull(0.05), ground, g_iso, Vector3::z())
    }

    #[test]
    fn a_hull_flat_on_a_box_acts_at_the_centre_and_a_tilt_moves_the_point_continuously() {
        let (hull, ground, g_iso, n) = cube_over_ground();
        // flat, 1e-4 m into the ground, off the box's centre
        let flat = Isometry3::translation(0.3, 0.2, 0.05 - 1e-4);
        let four = patch(&ground, &g_iso, &hull, &flat, &n, false).unwrap();
        let p = four.centre();
        assert!((p - Vector3::new(0.3, 0.2, -0.5e-4)).norm() < 1e-12, "{p}");
        // its four bottom corners, a quarter each
        assert_eq!(four.len, 4);
        for k in 0..4 {
            let r = four.points[k] - p;
            assert!((four.shares[k] - 0.25).abs() < 1e-12);
            assert!((r.x.abs() - 0.05).abs() < 1e-12 && (r.y.abs() - 0.05).abs() < 1e-12);
        }
        // tilted about y by small angles: the point moves monotonically towards the
        // lower edge (the +x side goes down for a positive turn about y), without a jump
        let mut last = p.x;
        for k in 1..=20 {
            let angle = k as f64 * 1e-4;
            let rot = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), angle);
            let iso = Isometry3::from_parts(flat.translation, rot);
            let q = patch(&ground, &g_iso, &hull, &iso, &n, false)
                .unwrap()
                .centre();
            assert!(
                q.x >= last - 1e-12 && q.x - last < 0.02,
                "{k}: {} after {last}",
                q.x
            );
            last = q.x;
        }
        // once only one edge is inside, the point is on that edge
        assert!((last - 0.35).abs() < 1e-3, "{last}");
    }

    /// A random rock: the hull of 40 points on a bumpy 0.12 x 0.1 x 0.06 m ellipsoid.
    fn rock(rnd: &mut dyn FnMut() -> f64) -> ConvexPolyhedron {
        let pts: Vec<Point3<f64>> = (0..40)
            .map(|_| {
                let v = Vector3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize();
                Point3::from(v.component_mul(&Vector3::new(0.06, 0.05, 0.03)) * (0.8 + 0.4 * rnd()))
            })
            .collect();
        ConvexPolyhedron::from_convex_hull(&pts).unwrap()
    }

    /// The foundation's lattice clip set up once per patch ([`LineClip`]) gives each
    /// line the part [`Solid::clip`] gives it from its ends moved into the solid's
    /// frame, to rounding: rocks (with the faces near a level, as the patch uses
    /// them), boxes and a half-space at random poses, lines along random normals.
    #[test]
    fn the_lattice_clip_set_up_per_patch_gives_each_lines_part_as_the_solids_clip() {
        let mut rnd = super::super::test_random(777);
        let cell = Cuboid::new(Vector3::new(0.05, 0.04, 0.2));
        let ground = HalfSpace::new(Vector3::z_axis());
        let (mut lines, mut crossing, mut grazing) = (0, 0, 0);
        for k in 0..300 {
            let hull = rock(&mut rnd);
            let shape: &dyn Shape = match k % 3 {
                0 => &hull,
                1 => &cell,
                _ => &ground,
            };
            let at = Vector3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * 0.05;
            let turn = UnitQuaternion::from_euler_angles(6.0 * rnd(), 6.0 * rnd(), 6.0 * rnd());
            let iso = Isometry3::from_parts(at.into(), turn);
            let n = Vector3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize();
            let side = Side::new(Solid::of(shape).unwrap(), &iso, &n);
            // the faces reaching past a level 0-15 mm below its top (a patch's three to
            // ten)
            let level = side.extreme(&n, true) - 0.015 * rnd();
            let near = Near::of(&side, &|along: f64| along - level);
            let t1 = n.cross(&Vector3::x()).normalize();
            let t2 = n.cross(&t1);
            // lines 0.2 m long along n, from 0.1 m below the solid's origin
            let (x0, d) = (n * (at.dot(&n) - 0.1), n * 0.2);
            let clip = LineClip::of(&side, &near, &x0, [&t1, &t2], &d).unwrap();
            let inv = iso.inverse();
            for _ in 0..20 {
                let (u, v) = (
                    at.dot(&t1) + 0.16 * (rnd() - 0.5),
                    at.dot(&t2) + 0.16 * (rnd() - 0.5),
                );
                let p = x0 + t1 * u + t2 * v;
                let ends = [inv * Point3::from(p), inv * Point3::from(p + d)];
                let slow = side.solid.clip(&ends[0].coords, &ends[1].coords, &near);
                lines += 1;
                match (clip.clip(u, v), slow) {
                    (Some(x), Some(y)) => {
                        crossing += 1;
                        assert!(
                            (x.0 - y.0).abs() < 1e-12 && (x.1 - y.1).abs() < 1e-12,
                            "case {k}: {x:?} {y:?}"
                        );
                    }
                    (None, None) => {}
                    (x, y) => {
                        // only a line grazing the solid may differ
                        let part = x.or(y).unwrap();
                        assert!(part.1 - part.0 < 1e-12, "case {k}: {x:?} {y:?}");
                        grazing += 1;
                    }
                }
            }
        }
        assert!(
            crossing > lines / 3 && crossing < lines && grazing < 3,
            "{lines} lines, {crossing} crossing, {grazing} grazing"
        );
    }

    #[test]
    fn the_faces_near_the_overlap_give_the_patch_of_all_faces() {
        // random rocks (hulls of 40 points on a bumpy ellipsoid) pressed into each
        // other and into boxes along random normals
        let mut rnd = super::super::test_random(12345);
        let cell = Cuboid::new(Vector3::new(0.05, 0.05, 0.2));
        let (mut compared, mut points) = (0, 0);
        for k in 0..300 {
            let a = rock(&mut rnd);
            let b = rock(&mut rnd);
            let turn = |rnd: &mut dyn FnMut() -> f64| {
                UnitQuaternion::from_euler_angles(6.0 * rnd(), 6.0 * rnd(), 6.0 * rnd())
            };
            let n = Vector3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize();
            let ia = Isometry3::from_parts(nalgebra::Translation3::identity(), turn(&mut rnd));
            let ib0 = Isometry3::from_parts(nalgebra::Translation3::identity(), turn(&mut rnd));
            // b placed along n just touching a, then pushed 0.1-2 mm into it
            let top = a
                .points()
                .iter()
                .map(|p| (ia * p).coords.dot(&n))
                .fold(f64::MIN, f64::max);
            let bottom = b
                .points()
                .iter()
                .map(|p| (ib0 * p).coords.dot(&n))
                .fold(f64::MAX, f64::min);
            let push = 1e-4 + 2e-3 * rnd();
            let side = Vector3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * 0.02;
            let shift = n * (top - bottom - push) + (side - n * side.dot(&n));
            let ib = Isometry3::from_parts(shift.into(), ib0.rotation);
            let pairs: [(&dyn Shape, &dyn Shape); 2] = if k % 2 == 0 {
                [(&a, &b), (&b, &a)]
            } else {
                [(&cell, &b), (&a, &cell)]
            };
            for ((s1, s2), thickness) in pairs.into_iter().zip([k % 4 < 2, k % 4 >= 2]) {
                let near = patch_with(s1, &ia, s2, &ib, &n, true, thickness);
                let all = patch_with(s1, &ia, s2, &ib, &n, false, thickness);
                assert_eq!(near.map(|p| p.len), all.map(|p| p.len), "case {k}");
                if let (Some(x), Some(y)) = (near, all) {
                    compared += 1;
                    points += x.len;
                    for j in 0..x.len {
                        assert!((x.points[j] - y.points[j]).norm() < 1e-12, "case {k}");
                        assert!((x.shares[j] - y.shares[j]).abs() < 1e-12, "case {k}");
                    }
                }
            }
        }
        assert!(
            compared > 300 && points > 2 * compared,
            "{compared} patches, {points} points"
        );
    }

    #[test]
    fn a_bar_across_a_box_acts_at_the_middle_of_their_crossing() {
        // a 0.3 x 0.02 x 0.02 bar lying across the top of a 0.1 m box, along x, off
        // centre in y: no vertex of either is inside the other, the overlap's vertices
        // are where the edges cross
        let bar = Cuboid::new(Vector3::new(0.15, 0.01, 0.01));
        let block = cube_hull(0.05);
        let b_iso = Isometry3::translation(0.0, 0.0, -0.05);
        let iso = Isometry3::translation(0.02, 0.03, 0.01 - 1e-4);
        let p = patch(&block, &b_iso, &bar, &iso, &Vector3::z(), false).unwrap();
        let c = p.centre();
        // the crossing is x in [-0.05, 0.05], y in [0.02, 0.04]
        assert!((c - Vector3::new(0.0, 0.03, -0.5e-4)).norm() < 1e-12, "{c}");
        assert_eq!(p.len, 4);
        assert!(p.shares.iter().all(|&s| (s - 0.25).abs() < 1e-12));
    }

    #[test]
    fn a_corner_on_a_face_is_its_own_point_and_edge_across_edge_is_where_they_cross() {
        let hull = cube_hull(0.05);
        let plane = HalfSpace::new(Vector3::z_axis());
        // the cube on a corner: (1,1,1) down
        let rot = UnitQuaternion::rotation_between(&Vector3::new(-1.0, -1.0, -1.0), &-Vector3::z())
            .unwrap();
        let drop = 0.05 * 3f64.sqrt() - 1e-4;
        let iso = Isometry3::from_parts(nalgebra::Translation3::new(0.0, 0.0, drop), rot);
        let p = patch(
            &plane,
            &Isometry3::identity(),
            &hull,
            &iso,
            &Vector3::z(),
            false,
        )
        .unwrap()
        .centre();
        assert!(p.xy().norm() < 1e-9 && (p.z + 0.5e-4).abs() < 1e-9, "{p}");
        // two boxes crossing edge on edge: no vertex of either inside the other; the
        // overlap is a small tetrahedron around the crossing of the two edges
        let a = Cuboid::new(Vector3::repeat(0.05));
        let turn_a =
            UnitQuaternion::from_axis_angle(&Vector3::x_axis(), std::f64::consts::FRAC_PI_4);
        let turn_b =
            UnitQuaternion::from_axis_angle(&Vector3::y_axis(), std::f64::consts::FRAC_PI_4);
        let e = 0.05 * 2f64.sqrt();
        let ia = Isometry3::from_parts(nalgebra::Translation3::identity(), turn_a);
        let ib = Isometry3::from_parts(
            nalgebra::Translation3::new(0.0, 0.0, 2.0 * e - 1e-4),
            turn_b,
        );
        // (its four vertices, 1e-4 m apart, count as one: the first of them, within
        // the tetrahedron's size of the crossing)
        let p = patch(&a, &ia, &hull, &ib, &Vector3::z(), false)
            .unwrap()
            .centre();
        assert!(
            (p - Vector3::new(0.0, 0.0, e - 0.5e-4)).norm() < 1.5e-4,
            "{p}"
        );
    }

    #[test]
    fn the_foundation_presses_a_tilted_face_at_its_pressures_centre_and_never_jumps() {
        // a 0.1 m cube pressed 0.1 mm into the ground, tilted about y by theta: the
        // depth under it is t(x) = delta + theta x over x in [-a/2, a/2] (a = 0.1 m, x
        // from its centre), and the foundation's centre of pressure is the centre of
        // t^1.5, here integrated finely
        let (hull, ground, g_iso, n) = cube_over_ground();
        let (a, delta) = (0.1, 1e-4);
        let centre_at = |angle: f64| {
            let rot = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), angle);
            let iso =
                Isometry3::from_parts(nalgebra::Translation3::new(0.3, 0.2, 0.05 - delta), rot);
            patch(&ground, &g_iso, &hull, &iso, &n, true).unwrap()
        };
        let exact_at = |angle: f64| {
            let (mut m, mut w) = (0.0, 0.0);
            for k in 0..20_000 {
                let x = ((k as f64 + 0.5) / 20_000.0 - 0.5) * a;
                let t = (delta + angle * x).max(0.0);
                m += x * t * t.sqrt();
                w += t * t.sqrt();
            }
            0.3 + m / w
        };
        let flat = centre_at(0.0);
        assert!((flat.centre() - Vector3::new(0.3, 0.2, -0.5e-4)).norm() < 1e-12);
        assert_eq!(flat.len, 4);
        assert!(flat.shares.iter().all(|&s| (s - 0.25).abs() < 1e-12));
        // the integral of t^1.5 over the face: a^2 delta^1.5
        let (integral, rate) = flat.foundation.unwrap();
        assert!((integral - a * a * delta * delta.sqrt()).abs() < 1e-12 * integral);
        assert!((rate - 1.5 * a * a * delta.sqrt()).abs() < 1e-12 * rate);
        let mut last = 0.3;
        let mut largest_step: f64 = 0.0;
        let mut worst: f64 = 0.0;
        let (mut exact_last, mut exact_step) = (0.3, 0.0f64);
        for k in 1..=400 {
            let angle = k as f64 * 1e-5;
            let x = centre_at(angle).centre().x;
            let exact = exact_at(angle);
            worst = worst.max((x - exact).abs() / (exact - 0.3));
            exact_step = exact_step.max((exact - exact_last).abs());
            exact_last = exact;
            largest_step = largest_step.max((x - last).abs());
            last = x;
        }
        // a 4 x 4 lattice's midpoint rule: the lever within 8 % (measured 6.6 %)
        assert!(worst < 0.08, "{worst}");
        // no jump: over each 1e-5 rad the centre moves no more than the exact centre
        // does at its fastest (0.125 mm, where the face's edge lifts; the lattice 0.117)
        assert!(largest_step <= exact_step, "{largest_step} > {exact_step}");
    }

    #[test]
    fn the_foundation_does_no_work_around_a_closed_path_of_poses() {
        // the cube of the test above, pressed 0.1 to 0.2 mm and tilted 0 to 4 mrad
        // (past the tilt where its face lifts at one edge) around the rectangle's
        // edges: the foundation's force (the integral of t^1.5 at the patch's points,
        // k / R^2 = 1) is an energy's gradient and does no work around it; eq. (1) at
        // the deepest point, spread over the same points, does
        let (hull, ground, g_iso, n) = cube_over_ground();
        let a = 0.1;
        // (force along z, torque about y at the cube's centre) at a pose
        let wrench = |delta: f64, angle: f64, foundation: bool| {
            let rot = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), angle);
            let centre = Vector3::new(0.3, 0.2, 0.05 - delta);
            let iso = Isometry3::from_parts(centre.into(), rot);
            let p = patch(&ground, &g_iso, &hull, &iso, &n, true).unwrap();
            let deepest = delta + 0.5 * a * crate::pmath::sin(angle);
            let force = if foundation {
                p.foundation.unwrap().0
            } else {
                deepest * deepest.sqrt() * a * a
            };
            let torque = (0..p.len)
                .map(|k| (p.points[k] - centre).cross(&(n * force * p.shares[k])).y)
                .sum::<f64>();
            (force, torque)
        };
        // the pose (delta, theta) around the rectangle, counter-clockwise
        let corners = [
            (1e-4, 0.0),
            (2e-4, 0.0),
            (2e-4, 4e-3),
            (1e-4, 4e-3),
            (1e-4, 0.0),
        ];
        let around = |foundation: bool| {
            let (mut work, mut gross) = (0.0, 0.0);
            for c in corners.windows(2) {
                let steps = 2000;
                for k in 0..steps {
                    let at = |f: f64| {
                        (
                            c[0].0 + (c[1].0 - c[0].0) * f,
                            c[0].1 + (c[1].1 - c[0].1) * f,
                        )
                    };
                    let (d0, t0) = at(k as f64 / steps as f64);
                    let (d1, t1) = at((k + 1) as f64 / steps as f64);
                    let (f, m) = wrench(0.5 * (d0 + d1), 0.5 * (t0 + t1), foundation);
                    // the cube's centre moves by -d delta along z
                    let dw = -f * (d1 - d0) + m * (t1 - t0);
                    work += dw;
                    gross += dw.abs();
                }
            }
            (work, gross)
        };
        let (work, gross) = around(true);
        let (mixed, mixed_gross) = around(false);
        // measured: 0.33 % of the work done along the way (the lattice's quadrature
        // of the energy is not exact) against 33 %
        assert!(work.abs() < 0.01 * gross, "{work} of {gross}");
        assert!(mixed.abs() > 0.2 * mixed_gross, "{mixed} of {mixed_gross}");
    }
}
