//! The BBCC wrench between two convex (or compound) bodies (Buse 2023, section 4.1.1):
//! parry's narrow phase (GJK/EPA) gives the deepest contact point, normal and
//! penetration of each pair of convex parts; eq. (1)-(3) give the normal force, eq. (4) or (5) the friction and
//! eq. (6) the spin torque.

use super::contact_patch::{patch, Patch};
use super::convex_box::{face_test, CylinderDims, FaceTest};
use super::{friction, hunt_crossley, ContactMemory};
use nalgebra::{Isometry3, Point3, Vector3};
use parry3d_f64::bounding_volume::{Aabb, BoundingVolume};
use parry3d_f64::query::epa::EPA;
use parry3d_f64::query::gjk::{self, CSOPoint, GJKResult, VoronoiSimplex};
use parry3d_f64::query::Ray;
use parry3d_f64::shape::{HalfSpace, Shape, SupportMap};
use std::cell::RefCell;

/// A body as the contact sees it, world frame.
pub type BodyPose = crate::rigid_body::BodyMotion;

impl BodyPose {
    /// Velocity of the body-fixed point at `p` (world), m/s.
    pub fn velocity_at(&self, p: &Vector3<f64>) -> Vector3<f64> {
        self.v + self.w.cross(&(p - self.iso.translation.vector))
    }
}

/// Constants of one pair, combined as the paper says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairLaw {
    /// Stiffness k of eq. (3), N/m^1.5.
    pub k: f64,
    /// Effective radius R, m.
    pub r_eff: f64,
    /// Restitution (harmonic mean), 1.
    pub zeta: f64,
    /// Friction coefficient (harmonic mean), 1.
    pub mu: f64,
    /// Bengisu-Akay (mu_s, xi) when the bodies give them, eq. (5).
    pub stiction: Option<(f64, f64)>,
    /// Velocity dead band v_d, m/s.
    pub v_d: f64,
    /// Floor of the impact velocity in eq. (2), m/s.
    pub impact_velocity_min: f64,
    /// `bbcc.reimpact`: each new compression of a lasting contact is an impact for
    /// eq. (2) ([`ContactMemory::touching`]).
    pub reimpact: bool,
    /// The sub-step h, s, when the viscous parts of the contact are taken linearly
    /// implicitly (`bbcc.semi_implicit`); 0: explicitly, as the paper's eq. (1)-(6).
    pub implicit_step: f64,
    /// `bbcc.adaptive_step`: report each contact's omega^2 ([`PairWrench::omega2`]).
    pub adaptive: bool,
    /// `bbcc.implicit_normal`: report each contact point's [`ImplicitRow`], and with
    /// `stick` the spring's tangent pair, with its rate part left to the solve (with
    /// `implicit_step` > 0).
    pub implicit_normal: bool,
    /// Spread a contact of flat-faced parts over its overlap's vertices
    /// (`bbcc.contact_patch`, [`super::contact_patch`]); off: one point, the paper's.
    pub patch: bool,
    /// With `patch`: the patch an elastic foundation over the overlap's thickness
    /// (`bbcc.elastic_foundation`); off: eq. (1) spread over its vertices.
    pub elastic_foundation: bool,
    /// `bbcc.stick`: the tangential stick spring's stiffness relative to the normal
    /// contact's ([`stick_spring`]); None: the paper's friction alone.
    pub stick: Option<f64>,
    /// `bbcc.rolling_resistance`: the rolling resistance coefficient mu_r, 1
    /// ([`rolling_torque`]); 0: none, the paper's.
    pub rolling: f64,
    /// Simulated time of this evaluation, s (the stick spring's slip grows with the
    /// time since its memory's).
    pub now: f64,
}

/// A body's inverse mass (1/kg) and inverse inertia (world frame, 1/(kg m^2)) as one
/// contact sees them: shared among the contacts the body may have in this evaluation
/// (mass splitting), zero for bodies that do not move with the forces.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InvMass {
    pub m: f64,
    pub i: nalgebra::Matrix3<f64>,
}

impl InvMass {
    /// An immovable body (the ground, fixed and kinematic bodies).
    pub const ZERO: InvMass = InvMass {
        m: 0.0,
        i: nalgebra::Matrix3::new(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    };

    /// Inverse of the effective mass at `p` (world) along the unit `u` of a body whose
    /// origin is at `origin`: 1/m + (r x u) . I^-1 (r x u).
    fn along(&self, origin: &Vector3<f64>, p: &Vector3<f64>, u: &Vector3<f64>) -> f64 {
        let ru = (p - origin).cross(u);
        self.m + ru.dot(&(self.i * ru))
    }
}

/// Linearly implicit viscous force (Euler backward on its velocity): a force `f`
/// (magnitude) that grows with a relative speed `v` acts like a viscosity c = f / v;
/// taken implicitly over a step h on an effective inverse mass `inv`, it is
/// f / (1 + c h inv). Small c h inv: the explicit force; large: the force that brings
/// `v` to rest within the step, m v / h, never more (stable for any h).
fn implicit(f: f64, v: f64, h: f64, inv: f64) -> f64 {
    if v == 0.0 || f == 0.0 {
        return f;
    }
    f / (1.0 + (f / v).abs() * h * inv)
}

/// What an [`ImplicitRow`]'s impulse is bounded by.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum RowKind {
    /// A contact point's normal: the impulse is at least -h F (the point never pulls).
    #[default]
    Normal,
    /// The first of the stick spring's two tangent directions (`bbcc.stick`): the
    /// next row is the second, and the two forces together stay within Coulomb's
    /// bound, N.
    Tangent { bound: f64 },
    /// The second tangent direction.
    TangentSecond,
}

/// One row of the implicit contact solve (world frame): a contact point's normal,
/// whose elastic part of eq. (1) is taken again, linearly implicitly, with all
/// contacts together ([`super::implicit_normal`]), or one tangent direction of the
/// stick spring at the contact's centre (with `bbcc.stick`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ImplicitRow {
    /// The point, m.
    pub point: Vector3<f64>,
    /// Unit direction the row's force acts along on body 2 (the normal from body 1
    /// towards body 2, or a tangent).
    pub normal: Vector3<f64>,
    /// h^2 K, K the point's stiffness along the row (the share of eq. (1)'s elastic
    /// 1.5 k delta^0.5, or the stick spring's k_t), h the sub-step: the impulse per
    /// unit of closing rate along the row, N s^2/m (kg).
    pub gain: f64,
    /// The row's force as computed, N, on body 2 along `normal` (the point's normal
    /// force, elastic and damping; the stick spring's explicit part).
    pub force: f64,
    pub kind: RowKind,
}

/// Most rows one body pair gives the implicit solve (`bbcc.implicit_normal`, a
/// [`RowBuf`]): a part contact gives up to six (four patch points, a tangent pair),
/// and a rock on a cuboid grid of the ground touches two or three cuboids (measured in
/// the pile: 0.3 of 4 800 rows per solve left out at 16).
pub const ROWS_MAX: usize = 16;

/// The wrench of one contact on both bodies, world frame, torques about each body
/// origin.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PairWrench {
    pub force1: Vector3<f64>,
    pub torque1: Vector3<f64>,
    pub force2: Vector3<f64>,
    pub torque2: Vector3<f64>,
    /// Penetration depth, m (0 without contact).
    pub depth: f64,
    pub in_contact: bool,
    /// With `bbcc.adaptive_step`: the largest omega^2 of its contact points, 1/s^2:
    /// eq. (1)'s elastic stiffness 1.5 k delta^0.5 on the inverse mass at the point
    /// along the normal (0 otherwise).
    pub omega2: f64,
}

/// The rows of one body pair's contacts for the implicit solve (`bbcc.implicit_normal`),
/// at most [`ROWS_MAX`]: rows past it are left out (a normal point keeps its elastic
/// part explicit, a tangent pair its spring's explicit part), counted in `dropped`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowBuf {
    pub rows: [ImplicitRow; ROWS_MAX],
    pub len: usize,
    pub dropped: usize,
}

impl Default for RowBuf {
    fn default() -> Self {
        RowBuf {
            rows: [ImplicitRow::default(); ROWS_MAX],
            len: 0,
            dropped: 0,
        }
    }
}

impl RowBuf {
    /// The rows held.
    pub fn rows(&self) -> &[ImplicitRow] {
        &self.rows[..self.len]
    }

    /// Empties it for the next body pair.
    pub fn clear(&mut self) {
        self.len = 0;
        self.dropped = 0;
    }

    /// Appends `row` where there is room.
    fn push(&mut self, row: ImplicitRow) {
        if self.len < ROWS_MAX {
            self.rows[self.len] = row;
            self.len += 1;
        } else {
            self.dropped += 1;
        }
    }

    /// Appends both rows of a tangent pair where there is room for both, else neither.
    fn push_pair(&mut self, rows: [ImplicitRow; 2]) {
        if self.len + 2 <= ROWS_MAX {
            self.rows[self.len] = rows[0];
            self.rows[self.len + 1] = rows[1];
            self.len += 2;
        } else {
            self.dropped += 2;
        }
    }
}

/// Convex parts of a built shape: a compound's parts, else 1.
pub fn part_count(s: &dyn Shape) -> usize {
    s.as_compound().map_or(1, |c| c.shapes().len())
}

/// The contact memories of one body pair's part pairs, as [`pair_wrench`] sees them:
/// part `a` of `s1` with part `b` of `s2` is slot `a * part_count(s2) + b`.
pub trait PartMemory {
    /// The memory of `slot` from the last advancing evaluation (the default when the
    /// part pair was not in contact then).
    fn get(&self, slot: usize) -> ContactMemory;
    /// `slot` is in contact now, with memory `m` (kept by the owner when the
    /// evaluation advances; slots not touched forget their contact).
    fn touch(&mut self, slot: usize, m: ContactMemory);
}

/// Contact of shape `s1` at `b1` with shape `s2` at `b2`: one BBCC contact per pair of
/// convex parts that touch, summed (Buse 2023, section 3.1: a compound keeps "separate
/// convex hulls", as a wheel is a cylinder with cuboid grousers and a surface a
/// collection of cuboids). Each part pair's memory carries the impact velocity of eq.
/// (2) while its contact lasts ([`PartMemory`]). Torques are about each body's origin;
/// `depth` is the deepest part contact.
#[allow(clippy::too_many_arguments)]
pub fn pair_wrench(
    s1: &dyn Shape,
    b1: &BodyPose,
    s2: &dyn Shape,
    b2: &BodyPose,
    law: &PairLaw,
    inv: [&InvMass; 2],
    boxes: [Option<&Aabb>; 2],
    memory: &mut dyn PartMemory,
    mut rows: Option<&mut RowBuf>,
) -> PairWrench {
    let n2 = part_count(s2);
    let mut total = PairWrench::default();
    let mut one = |a: usize,
                   p1: &dyn Shape,
                   iso1: &Isometry3<f64>,
                   b: usize,
                   p2: &dyn Shape,
                   iso2: &Isometry3<f64>| {
        let slot = a * n2 + b;
        let prior = memory.get(slot);
        let (w, m) = convex_wrench(
            p1,
            iso1,
            p2,
            iso2,
            b1,
            b2,
            law,
            inv,
            prior,
            rows.as_deref_mut(),
        );
        if w.in_contact {
            memory.touch(slot, m);
            total.force1 += w.force1;
            total.torque1 += w.torque1;
            total.force2 += w.force2;
            total.torque2 += w.torque2;
            total.depth = total.depth.max(w.depth);
            total.in_contact = true;
            total.omega2 = total.omega2.max(w.omega2);
        }
    };
    for_each_part_pair(s1, &b1.iso, s2, &b2.iso, boxes, &mut one);
    total
}

/// `f(a, part a of s1 at its pose, b, part b of s2 at its pose)`.
type PartPairFn<'a> =
    dyn FnMut(usize, &dyn Shape, &Isometry3<f64>, usize, &dyn Shape, &Isometry3<f64>) + 'a;

/// Calls `one` for every pair of convex parts of `s1` at `iso1` and `s2` at `iso2`
/// whose world boxes overlap (a convex shape is its own part 0): the compounds'
/// trees give the parts near the other shape's box, each part's world box then
/// filters them before the narrow phase. `boxes`: the shapes' world boxes when known
/// (computing a hull's box goes through all its points).
fn for_each_part_pair(
    s1: &dyn Shape,
    iso1: &Isometry3<f64>,
    s2: &dyn Shape,
    iso2: &Isometry3<f64>,
    boxes: [Option<&Aabb>; 2],
    one: &mut PartPairFn,
) {
    match (s1.as_compound(), s2.as_compound()) {
        (None, None) => one(0, s1, iso1, 0, s2, iso2),
        (Some(c1), None) => {
            let other = boxes[1].copied().unwrap_or_else(|| s2.compute_aabb(iso2));
            let local = other.transform_by(&iso1.inverse());
            for a in c1.bvh().intersect_aabb(&local) {
                let (part_iso, part) = &c1.shapes()[a as usize];
                let at = iso1 * part_iso;
                if part.compute_aabb(&at).intersects(&other) {
                    one(a as usize, part.as_ref(), &at, 0, s2, iso2);
                }
            }
        }
        (None, Some(c2)) if s1.as_halfspace().is_some() => {
            // the ground plane: every part whose box (in the compound's frame, kept by
            // the compound) reaches below it (the plane's box is unbounded, the tree
            // would return every part; a part's world box costs support queries)
            let n = iso1.rotation
                * s1.as_halfspace()
                    .map_or(Vector3::z(), |h| h.normal.into_inner());
            let n_local = iso2.rotation.inverse_transform_vector(&n);
            let origin_local = iso2.inverse_transform_point(&iso1.translation.vector.into());
            for (b, ((part_iso, part), aabb)) in c2.shapes().iter().zip(c2.aabbs()).enumerate() {
                if below_plane(aabb, &origin_local.coords, &n_local) {
                    one(0, s1, iso1, b, part.as_ref(), &(iso2 * part_iso));
                }
            }
        }
        (None, Some(c2)) => {
            let other = boxes[0].copied().unwrap_or_else(|| s1.compute_aabb(iso1));
            let local = other.transform_by(&iso2.inverse());
            for b in c2.bvh().intersect_aabb(&local) {
                let (part_iso, part) = &c2.shapes()[b as usize];
                let at = iso2 * part_iso;
                if part.compute_aabb(&at).intersects(&other) {
                    one(0, s1, iso1, b as usize, part.as_ref(), &at);
                }
            }
        }
        (Some(c1), Some(c2)) => {
            let other = boxes[1].copied().unwrap_or_else(|| s2.compute_aabb(iso2));
            let local = other.transform_by(&iso1.inverse());
            for a in c1.bvh().intersect_aabb(&local) {
                let (part_iso1, part1) = &c1.shapes()[a as usize];
                let at1 = iso1 * part_iso1;
                let local2 = part1.compute_aabb(&(iso2.inverse() * at1));
                for b in c2.bvh().intersect_aabb(&local2) {
                    let (part_iso2, part2) = &c2.shapes()[b as usize];
                    one(
                        a as usize,
                        part1.as_ref(),
                        &at1,
                        b as usize,
                        part2.as_ref(),
                        &(iso2 * part_iso2),
                    );
                }
            }
        }
    }
}

/// Whether the box reaches below the plane through `origin` with unit normal `n` (all
/// in one frame): its lowest corner along `n` is on or under the plane.
pub(crate) fn below_plane(aabb: &Aabb, origin: &Vector3<f64>, n: &Vector3<f64>) -> bool {
    let lowest = Vector3::new(
        if n.x > 0.0 { aabb.mins.x } else { aabb.maxs.x },
        if n.y > 0.0 { aabb.mins.y } else { aabb.maxs.y },
        if n.z > 0.0 { aabb.mins.z } else { aabb.maxs.z },
    );
    (lowest - origin).dot(n) <= 0.0
}

/// One BBCC contact (Buse 2023, eq. (1)-(6)) of convex shape `s1` at `iso1` (part of
/// the body at `b1`) with convex shape `s2` at `iso2` (part of the body at `b2`), and
/// the part pair's memory after it (`prior`: before).
#[allow(clippy::too_many_arguments)]
fn convex_wrench(
    s1: &dyn Shape,
    iso1: &Isometry3<f64>,
    s2: &dyn Shape,
    iso2: &Isometry3<f64>,
    b1: &BodyPose,
    b2: &BodyPose,
    law: &PairLaw,
    inv: [&InvMass; 2],
    prior: ContactMemory,
    rows: Option<&mut RowBuf>,
) -> (PairWrench, ContactMemory) {
    let found = deepest_contact(s1, iso1, s2, iso2);
    let Some((depth, n, p)) = found else {
        return (PairWrench::default(), ContactMemory::default());
    };
    // velocity of body 2 relative to body 1 at the contact point
    let v_rel = b2.velocity_at(&p) - b1.velocity_at(&p);
    let depth_rate = -v_rel.dot(&n);
    let mut memory = prior.touching(depth_rate, law.impact_velocity_min, law.reimpact);
    let d = hunt_crossley::damping(law.zeta, memory.impact_velocity); // eq. (2)
    let h = law.implicit_step;
    let (o1, o2) = (b1.iso.translation.vector, b2.iso.translation.vector);
    // the point, or with `bbcc.contact_patch` the points of a flat-faced overlap, each
    // carrying its share of eq. (1) and the friction its share gives
    let spread = law
        .patch
        .then(|| patch(s1, iso1, s2, iso2, &n, law.elastic_foundation))
        .flatten()
        .unwrap_or(Patch::single(p));
    // with `bbcc.elastic_foundation` the elastic force is the foundation's, k / R^2
    // times the overlap's integral of t^1.5 (its energy's gradient), not eq. (1)'s
    let kappa = law.k / (law.r_eff * law.r_eff);
    let elastic_total = match spread.foundation {
        Some((integral, _)) => kappa * integral,
        None => hunt_crossley::normal_force(law.k, 0.0, depth, 0.0),
    };
    // a point with a share of the contact moves a share of the bodies' mass
    let inv_along = |q: &Vector3<f64>, share: f64, u: &Vector3<f64>| {
        (inv[0].along(&o1, q, u) + inv[1].along(&o2, q, u)) / share
    };
    // the normal force of each point: its share of eq. (1), or of the foundation's
    let mut f_ns = [0.0; 4];
    let mut v_rels = [Vector3::zeros(); 4];
    let mut f_n_total = 0.0;
    let mut omega2: f64 = 0.0;
    for k in 0..spread.len {
        let (q, share) = (spread.points[k], spread.shares[k]);
        let v_rel = b2.velocity_at(&q) - b1.velocity_at(&q);
        v_rels[k] = v_rel;
        let depth_rate = -v_rel.dot(&n);
        let mut f_n = if spread.foundation.is_some() {
            // eq. (1)'s form with the foundation's elastic force: F (1 + d delta_dot)
            (share * elastic_total * (1.0 + d * depth_rate)).max(0.0)
        } else {
            share * hunt_crossley::normal_force(law.k, d, depth, depth_rate) // eq. (1)
        };
        if h > 0.0 {
            // the damping part of eq. (1), k delta^1.5 d delta_dot, implicitly
            let elastic = share * elastic_total;
            f_n = (elastic + implicit(f_n - elastic, depth_rate, h, inv_along(&q, share, &n)))
                .max(0.0);
        }
        f_ns[k] = f_n;
        f_n_total = if k == 0 { f_n } else { f_n_total + f_n };
        if law.adaptive {
            // the point's share of the stiffness on its share of the mass
            let stiffness = match spread.foundation {
                Some((_, rate)) => share * kappa * rate,
                None => share * 1.5 * law.k * depth.sqrt(),
            };
            omega2 = omega2.max(stiffness * inv_along(&q, share, &n));
        }
    }
    // with `bbcc.stick`: the tangential spring at the contact's centre, and the twist
    // spring about the normal (its torque on the patch's points and as a point contact)
    // with `bbcc.implicit_normal` the spring's rate part joins the implicit solve (a
    // caller without row buffers keeps it in the spring, as without the option)
    let tangent_rows = law.implicit_normal && h > 0.0 && rows.is_some();
    let mut tangent = None;
    let (spring, twist) = law
        .stick
        .map(|ratio| {
            let c = spread.centre();
            let k_t = stick_stiffness(ratio, law, depth);
            let inv_c = |u: &Vector3<f64>| inv_along(&c, 1.0, u);
            let spring_step = if tangent_rows { 0.0 } else { h };
            let (f_s, slip) = stick_spring(
                k_t,
                law,
                spring_step,
                f_n_total,
                &n,
                &c,
                b1,
                b2,
                &prior,
                &inv_c,
            );
            if tangent_rows {
                tangent = Some((c, k_t, f_s));
            }
            let t = stick_twist(
                k_t, law, depth, &f_ns, f_n_total, &n, &spread, &c, b1, b2, &prior, inv,
            );
            memory.slip = slip.into();
            memory.time = law.now;
            memory.twist = t.twist;
            (f_s, t)
        })
        .unzip();
    let mut force2 = Vector3::zeros();
    let (mut torque1, mut torque2) = (Vector3::zeros(), Vector3::zeros());
    for k in 0..spread.len {
        let (q, share, f_n) = (spread.points[k], spread.shares[k], f_ns[k]);
        let v_rel = v_rels[k];
        let v_t = v_rel - n * v_rel.dot(&n);
        let mut f_t = match law.stiction {
            Some((mu_s, xi)) => friction::bengisu_akay(law.mu, mu_s, xi, f_n, &v_t, law.v_d), // eq. (5)
            None => friction::regularized_coulomb(law.mu, f_n, &v_t, law.v_d), // eq. (4)
        };
        let speed = v_t.norm();
        if h > 0.0 && speed > 0.0 {
            // friction, eq. (4)/(5), as a viscosity along the sliding direction
            let f = f_t.norm();
            f_t *= implicit(f, speed, h, inv_along(&q, share, &(v_t / speed)))
                / f.max(f64::MIN_POSITIVE);
        }
        if let Some(f_s) = spring {
            // the spring's share, the sum within Coulomb's bound
            f_t += f_s * share;
            if let Some(t) = &twist {
                f_t += t.at_point(&q, &n, share);
            }
            let bound = law.mu * f_n;
            let norm = f_t.norm();
            if norm > bound {
                f_t *= bound / norm;
            }
        }
        // force on body 2; body 1 gets the opposite
        let f = n * f_n + f_t;
        let (t1, t2) = ((q - o1).cross(&-f), (q - o2).cross(&f));
        if k == 0 {
            (force2, torque1, torque2) = (f, t1, t2);
        } else {
            force2 += f;
            torque1 += t1;
            torque2 += t2;
        }
    }
    let spin = (b2.w - b1.w).dot(&n);
    let mut tau = friction::spin_torque(law.mu, f_n_total, law.r_eff, depth, spin, law.v_d); // eq. (6)
    if h > 0.0 {
        tau = implicit(tau, spin, h, n.dot(&((inv[0].i + inv[1].i) * n)));
    }
    let mut spin_torque2 = -n * (tau * spin.signum());
    if let Some(t) = &twist {
        // the twist spring's part as a point contact, with eq. (6) within its bound
        let total = (t.point_torque - tau * spin.signum()).clamp(-t.point_bound, t.point_bound);
        spin_torque2 = n * total;
    }
    let roll_torque2 = rolling_torque(law, f_n_total, &n, b1, b2, inv);
    let wrench = PairWrench {
        force1: -force2,
        torque1: torque1 - spin_torque2 - roll_torque2,
        force2,
        torque2: torque2 + spin_torque2 + roll_torque2,
        depth,
        in_contact: true,
        omega2,
    };
    if let (Some(rows), true) = (rows, law.implicit_normal && h > 0.0) {
        if let Some((c, k_t, f_s)) = tangent {
            // the spring's two tangent directions, the first along its force
            let f = f_s.norm();
            let t1 = if f > 0.0 {
                f_s / f
            } else {
                let any = if n.x.abs() < 0.9 {
                    Vector3::x()
                } else {
                    Vector3::y()
                };
                n.cross(&any).normalize()
            };
            let t2 = n.cross(&t1);
            let bound = law.mu * f_n_total.max(0.0);
            let row = |t: Vector3<f64>, force: f64, kind: RowKind| ImplicitRow {
                point: c,
                normal: t,
                gain: h * h * k_t,
                force,
                kind,
            };
            rows.push_pair([
                row(t1, f, RowKind::Tangent { bound }),
                row(t2, 0.0, RowKind::TangentSecond),
            ]);
        }
        for k in 0..spread.len {
            // the point's share of eq. (1)'s elastic stiffness, d/d delta k delta^1.5
            // (the foundation's: its integral of 1.5 t^0.5)
            let stiffness = match spread.foundation {
                Some((_, rate)) => spread.shares[k] * kappa * rate,
                None => spread.shares[k] * 1.5 * law.k * depth.sqrt(),
            };
            rows.push(ImplicitRow {
                point: spread.points[k],
                normal: n,
                gain: h * h * stiffness,
                force: f_ns[k],
                kind: RowKind::Normal,
            });
        }
    }
    (wrench, memory)
}

/// The rolling resistance of `bbcc.rolling_resistance` on body 2, N m, world frame
/// ([`friction::rolling_resistance`]); with `bbcc.semi_implicit` taken linearly
/// implicitly on the bodies' shared inverse inertia about the rolling axis, so it never
/// reverses the rolling within a step.
fn rolling_torque(
    law: &PairLaw,
    f_n: f64,
    n: &Vector3<f64>,
    b1: &BodyPose,
    b2: &BodyPose,
    inv: [&InvMass; 2],
) -> Vector3<f64> {
    let w_rel = b2.w - b1.w;
    let t = friction::rolling_resistance(law.rolling, law.r_eff, f_n, &w_rel, n, law.v_d);
    let tau = t.norm();
    if law.implicit_step <= 0.0 || tau == 0.0 {
        return t;
    }
    let u = t / tau;
    let speed = w_rel.dot(&u).abs();
    let inv = u.dot(&((inv[0].i + inv[1].i) * u));
    t * (implicit(tau, speed, law.implicit_step, inv) / tau)
}

/// The tangential stick spring of `bbcc.stick` (an extension of Buse 2023's friction,
/// which as eq. (4)/(5) is zero at zero slip and so lets any tangential load creep):
/// its force on body 2 (N, world) and its elongation after this evaluation (m). The
/// elongation is the slip of body 2 relative to body 1 at the contact's centre `c`
/// accumulated since the contact began, projected onto the current tangent plane
/// (Cundall and Strack's discrete-element spring); its stiffness is `k_t`
/// ([`stick_stiffness`]). Past Coulomb's bound mu F_N the spring slides: its
/// elongation is held at the bound. With `bbcc.semi_implicit` (`h` the sub-step) the
/// spring is taken linearly implicitly on the bodies' effective inverse mass at the
/// centre (`inv_at`): -k_t (s + h v_t) / (1 + k_t h^2 m^-1), stable at any step, where
/// the explicit spring on a light rock's far corner is not (measured: a pile went
/// non-finite at 1.7 s at 0.5 ms); the bound then applies to that force. `h` = 0: the
/// explicit spring -k_t s (with `bbcc.implicit_normal` the implicit solve adds the rate
/// part -k_t h v_t, with all contacts together).
#[allow(clippy::too_many_arguments)]
fn stick_spring(
    k_t: f64,
    law: &PairLaw,
    h: f64,
    f_n: f64,
    n: &Vector3<f64>,
    c: &Vector3<f64>,
    b1: &BodyPose,
    b2: &BodyPose,
    prior: &ContactMemory,
    inv_at: &dyn Fn(&Vector3<f64>) -> f64,
) -> (Vector3<f64>, Vector3<f64>) {
    let (before, dt) = if prior.in_contact {
        (Vector3::from(prior.slip), (law.now - prior.time).max(0.0))
    } else {
        (Vector3::zeros(), 0.0)
    };
    // into the current tangent plane (the contact turned): projected, never longer,
    // so a normal that swings (an edge rolling onto a face) cannot feed the spring
    let mut slip = before - n * before.dot(n);
    let v_rel = b2.velocity_at(c) - b1.velocity_at(c);
    let v_t = v_rel - n * v_rel.dot(n);
    slip += v_t * dt;
    // Euler backward over the sub-step h: the stretch at the step's end, on the
    // effective mass along it (explicit: h = 0)
    let ahead = slip + v_t * h;
    let len = ahead.norm();
    let k = if h > 0.0 && len > 0.0 {
        k_t / (1.0 + k_t * h * h * inv_at(&(ahead / len)))
    } else {
        k_t
    };
    // Coulomb's bound: the spring slides, its stretch held where it pulls mu F_N
    let bound = law.mu * f_n.max(0.0);
    let stretch = k * slip.norm();
    if stretch > bound {
        slip *= bound / stretch;
    }
    if !slip.iter().all(|x| x.is_finite()) {
        return (Vector3::zeros(), Vector3::zeros());
    }
    let mut force = -(slip + v_t * h) * k;
    let f = force.norm();
    if f > bound {
        force *= bound / f;
    }
    (force, slip)
}

/// The twist spring of `bbcc.stick` after one evaluation: what it exerts on body 2.
struct Twist {
    /// The elongation after this evaluation, rad (the contact's memory).
    twist: f64,
    /// The torque about the normal carried by the patch's points, divided by the sum
    /// of share times squared lever (N / m; zero for one point).
    per_lever: f64,
    /// The torque about the normal as a point contact, on body 2, N m.
    point_torque: f64,
    /// Coulomb's bound of the point part with eq. (6), mu F_N pi a^2, N m.
    point_bound: f64,
    /// The patch's centre, world, m.
    centre: Vector3<f64>,
}

impl Twist {
    /// The tangential force on body 2 at patch point `q` (world, m) carrying `share`
    /// of the contact: its part of the patch's torque.
    fn at_point(&self, q: &Vector3<f64>, n: &Vector3<f64>, share: f64) -> Vector3<f64> {
        n.cross(&(q - self.centre)) * (self.per_lever * share)
    }
}

/// The stick spring's tangential stiffness at penetration `depth` (m), N/m: the
/// normal contact's, eq. (1) linearized (1.5 k delta^0.5), times `ratio` (Mindlin's
/// 2 (1 - nu) / (2 - nu)).
fn stick_stiffness(ratio: f64, law: &PairLaw, depth: f64) -> f64 {
    ratio * 1.5 * law.k * depth.max(0.0).sqrt()
}

/// The twist spring of `bbcc.stick`: the stick spring holds the contact's in-plane
/// rigid motion, its slip ([`stick_spring`]) and its rotation about the normal. Eq. (6)
/// is zero at zero spin as eq. (4) is at zero slip, so without it any twisting load
/// creeps (measured: a pile rock on an edge, leaning on a sliding neighbour, turned
/// about the vertical at 5 mrad/s and gained 60 % a second). Each patch point k at
/// lever d_k from the centre `c` is a stick spring of stiffness share_k k_t stretched by
/// the twist theta, n x d_k theta; a point contact is an elastic disc of radius
/// a = sqrt(R delta) in torsion, (2/3) a^2 k_t (Lubkin 1951, 16 G a^3 / 3, over Mindlin's
/// k_t = 8 G a). The twist accumulates the relative spin since the contact began and
/// slides past Coulomb's bound mu (sum f_k |d_k| + F_N pi a^2) (the points' friction
/// at their levers, and eq. (6)'s greatest torque); the points' forces are then held
/// within mu f_k each with the rest of their friction. With `bbcc.semi_implicit`
/// taken linearly implicitly on the bodies' shared inverse inertia about the normal,
/// as the spin torque.
#[allow(clippy::too_many_arguments)]
fn stick_twist(
    k_t: f64,
    law: &PairLaw,
    depth: f64,
    f_ns: &[f64; 4],
    f_n: f64,
    n: &Vector3<f64>,
    spread: &Patch,
    c: &Vector3<f64>,
    b1: &BodyPose,
    b2: &BodyPose,
    prior: &ContactMemory,
    inv: [&InvMass; 2],
) -> Twist {
    let (before, dt) = if prior.in_contact {
        (prior.twist, (law.now - prior.time).max(0.0))
    } else {
        (0.0, 0.0)
    };
    let spin = (b2.w - b1.w).dot(n);
    let mut twist = before + spin * dt;
    let a2 = law.r_eff * depth.max(0.0);
    let (mut levers, mut reach) = (0.0, 0.0);
    for ((q, share), f_k) in spread
        .points
        .iter()
        .zip(&spread.shares)
        .zip(f_ns)
        .take(spread.len)
    {
        let d = q - c;
        let d = d - n * d.dot(n);
        levers += share * d.norm_squared();
        reach += f_k * d.norm();
    }
    let point = 2.0 / 3.0 * a2;
    let k_twist = k_t * (levers + point);
    let h = law.implicit_step;
    let k = if h > 0.0 {
        k_twist / (1.0 + k_twist * h * h * n.dot(&((inv[0].i + inv[1].i) * n)))
    } else {
        k_twist
    };
    let point_bound = law.mu * f_n.max(0.0) * std::f64::consts::PI * a2;
    let bound = law.mu * reach.max(0.0) + point_bound;
    if k * twist.abs() > bound {
        twist *= bound / (k * twist.abs());
    }
    if !twist.is_finite() || k_twist <= 0.0 {
        return Twist {
            twist: 0.0,
            per_lever: 0.0,
            point_torque: 0.0,
            point_bound,
            centre: *c,
        };
    }
    let torque = (-(twist + spin * h) * k).clamp(-bound, bound);
    Twist {
        twist,
        per_lever: torque / (levers + point),
        point_torque: torque * point / (levers + point),
        point_bound,
        centre: *c,
    }
}

/// The deepest contact of `s1` at `iso1` with `s2` at `iso2`: (depth, unit normal
/// from 1 towards 2, contact point), world frame. Compounds are split into their parts
/// (through their bounding-volume tree) and the deepest part contact is returned (Leite's
/// wheel-rock contact takes one point; BBCC's [`pair_wrench`] takes every part contact).
pub fn deepest_contact(
    s1: &dyn Shape,
    iso1: &Isometry3<f64>,
    s2: &dyn Shape,
    iso2: &Isometry3<f64>,
) -> Option<(f64, Vector3<f64>, Vector3<f64>)> {
    let deeper = |best: Option<(f64, Vector3<f64>, Vector3<f64>)>,
                  c: Option<(f64, Vector3<f64>, Vector3<f64>)>| match (best, c) {
        (Some(b), Some(c)) => Some(if c.0 > b.0 { c } else { b }),
        (b, c) => b.or(c),
    };
    if let Some(compound) = s1.as_compound() {
        let local = s2.compute_aabb(&(iso1.inverse() * iso2));
        let mut best = None;
        for idx in compound.bvh().intersect_aabb(&local) {
            let (part_iso, part) = &compound.shapes()[idx as usize];
            best = deeper(
                best,
                deepest_contact(part.as_ref(), &(iso1 * part_iso), s2, iso2),
            );
        }
        return best;
    }
    if let Some(compound) = s2.as_compound() {
        let local = s1.compute_aabb(&(iso2.inverse() * iso1));
        let mut best = None;
        for idx in compound.bvh().intersect_aabb(&local) {
            let (part_iso, part) = &compound.shapes()[idx as usize];
            best = deeper(
                best,
                deepest_contact(s1, iso1, part.as_ref(), &(iso2 * part_iso)),
            );
        }
        return best;
    }
    let found = match (s1.as_cuboid(), s2.as_cuboid()) {
        (Some(c1), Some(c2)) => {
            super::box_box::box_box(&c1.half_extents, iso1, &c2.half_extents, iso2)
                .map(|c| (c.depth, c.normal, c.point))
        }
        (Some(c1), None) => on_box(&c1.half_extents, iso1, s2, iso2, false)
            .unwrap_or_else(|| parry_contact(s1, iso1, s2, iso2)),
        (None, Some(c2)) => on_box(&c2.half_extents, iso2, s1, iso1, true)
            .unwrap_or_else(|| parry_contact(s1, iso1, s2, iso2)),
        _ => parry_contact(s1, iso1, s2, iso2),
    };
    // A cylinder lying on a face touches along a line (or a disc): GJK/EPA returns an
    // arbitrary point of it. Use the penetration-weighted centre of the line instead,
    // midway through the overlap, as for boxes, so a cylinder dropped flat does not
    // start to rock.
    // Only the part of that line inside the other shape touches it (a rock under a
    // wheel's rim: the line's centre can lie beside the rock, and a force there turns
    // the rock; measured: a rock pinched under a driven wheel spun up to 280 rad/s
    // and was thrown at 6 m/s). Where the line misses the other shape (it touches the
    // rim's edge), the narrow phase's point.
    found.map(|(depth, n, p)| {
        let on = |cyl: &parry3d_f64::shape::Cylinder, iso: &Isometry3<f64>, dir: Vector3<f64>| {
            let (other, pose) = if s2.as_cylinder().is_some() {
                (s1, iso1)
            } else {
                (s2, iso2)
            };
            let cast = |ray: &Ray| other.cast_ray(pose, ray, 1.0, true);
            cylinder_line_within(cyl, iso, &dir, depth, &cast)
        };
        if let Some(c) = s2.as_cylinder() {
            (
                depth,
                n,
                on(c, iso2, -n).map_or(p, |q| q + n * (0.5 * depth)),
            )
        } else if let Some(c) = s1.as_cylinder() {
            (
                depth,
                n,
                on(c, iso1, n).map_or(p, |q| q - n * (0.5 * depth)),
            )
        } else {
            (depth, n, p)
        }
    })
}

/// [`cylinder_feature`] restricted to the part of the deepest surface line inside the
/// other shape, which `cast` finds (a solid ray cast into it, world frame, up to time 1:
/// 0 from inside): the penetration-weighted centre of that part, or None when the line
/// misses the other shape. The whole line inside: [`cylinder_feature`] to the bit.
pub(crate) fn cylinder_line_within(
    cylinder: &parry3d_f64::shape::Cylinder,
    iso: &Isometry3<f64>,
    dir: &Vector3<f64>,
    depth: f64,
    cast: &dyn Fn(&Ray) -> Option<f64>,
) -> Option<Vector3<f64>> {
    let (radius, half_height) = (cylinder.radius, cylinder.half_height);
    let dims = CylinderDims {
        radius,
        half_height,
    };
    let Some(line) = DeepestLine::of(iso, dims, dir, depth) else {
        return Some(cylinder_feature(iso, radius, half_height, dir, depth));
    };
    // the line from each end into the other shape (an end inside: 0)
    let seg = line.e2 - line.e1;
    let ta = cast(&Ray::new(Point3::from(line.e1), seg))?;
    let tb = 1.0 - cast(&Ray::new(Point3::from(line.e2), -seg))?;
    if ta == 0.0 && tb == 1.0 {
        return Some(cylinder_feature(iso, radius, half_height, dir, depth));
    }
    // the penetration along the line, linear: where it is positive, within [ta, tb]
    let (d1, d2) = (line.d1, line.d2);
    let (mut lo, mut hi) = (ta, tb);
    if d1 != d2 {
        let zero = d1 / (d1 - d2);
        if d2 > d1 {
            lo = lo.max(zero);
        } else {
            hi = hi.min(zero);
        }
    }
    if !(hi > lo) {
        return None;
    }
    let at = |t: f64| (d1 + t * (d2 - d1)).max(0.0);
    let (da, db) = (at(lo), at(hi));
    // the centroid of the linear weight over [lo, hi] (a trapezoid)
    let t = if da + db > 0.0 {
        lo + (hi - lo) * (da + 2.0 * db) / (3.0 * (da + db))
    } else {
        0.5 * (lo + hi)
    };
    Some(line.lifted(line.e1 + seg * t, dir))
}

/// A cylinder's deepest surface line along `dir`: its ends (world) and the
/// penetration at each (m) when the deepest point is `depth` in.
struct DeepestLine {
    e1: Vector3<f64>,
    e2: Vector3<f64>,
    d1: f64,
    d2: f64,
    /// x . dir of the deepest point.
    deepest: f64,
}

impl DeepestLine {
    /// None when `dir` runs along the axis (body y): an end disc is deepest.
    fn of(
        iso: &Isometry3<f64>,
        cylinder: CylinderDims,
        dir: &Vector3<f64>,
        depth: f64,
    ) -> Option<DeepestLine> {
        let (radius, half_height) = (cylinder.radius, cylinder.half_height);
        let axis = iso.rotation * Vector3::y();
        let perp = dir - axis * dir.dot(&axis);
        let len = perp.norm();
        if len < 1e-9 {
            return None;
        }
        let out = perp / len;
        let centre = iso.translation.vector;
        let e1 = centre + out * radius - axis * half_height;
        let e2 = centre + out * radius + axis * half_height;
        let (p1, p2) = (e1.dot(dir), e2.dot(dir));
        let deepest = p1.max(p2);
        Some(DeepestLine {
            e1,
            e2,
            d1: depth - (deepest - p1),
            d2: depth - (deepest - p2),
            deepest,
        })
    }

    /// `on_line` lifted onto the level of the deepest point along `dir`.
    fn lifted(&self, on_line: Vector3<f64>, dir: &Vector3<f64>) -> Vector3<f64> {
        on_line + dir * (self.deepest - on_line.dot(dir))
    }
}

/// A convex `shape` at `iso` against the cuboid of half extents `half` at `box_iso`
/// through [`face_test`]: `Some(contact)` (depth, unit normal, the point midway
/// through the overlap; the normal from the box towards the shape, or the reverse with
/// `box_second`) or `Some(None)` when decided, `None` to ask GJK/EPA (balls go there
/// directly: parry's ball query is exact already).
fn on_box(
    half: &Vector3<f64>,
    box_iso: &Isometry3<f64>,
    shape: &dyn Shape,
    iso: &Isometry3<f64>,
    box_second: bool,
) -> Option<Option<(f64, Vector3<f64>, Vector3<f64>)>> {
    if shape.as_ball().is_some() {
        return None;
    }
    match face_test(
        half,
        box_iso,
        shape.as_support_map()?,
        iso,
        cylinder_dims(shape),
    ) {
        FaceTest::Apart => Some(None),
        FaceTest::Face {
            depth,
            normal,
            point,
        } => {
            let mid = point + normal * (0.5 * depth);
            Some(Some((
                depth,
                if box_second { -normal } else { normal },
                mid,
            )))
        }
        FaceTest::Unknown => None,
    }
}

fn cylinder_dims(s: &dyn Shape) -> Option<CylinderDims> {
    s.as_cylinder().map(|c| CylinderDims {
        radius: c.radius,
        half_height: c.half_height,
    })
}

/// parry's contact query (GJK/EPA for two support maps): (depth, unit normal from 1
/// towards 2, the point midway through the overlap), world frame.
fn parry_contact(
    s1: &dyn Shape,
    iso1: &Isometry3<f64>,
    s2: &dyn Shape,
    iso2: &Isometry3<f64>,
) -> Option<(f64, Vector3<f64>, Vector3<f64>)> {
    if let Some((g1, g2)) = support_map_pair(s1, s2) {
        // what `query::contact` does for this pair, with this thread's EPA buffers
        let pos12 = iso1.inv_mul(iso2);
        let (depth, n, p1, p2_1) =
            EPA_BUFFERS.with(|epa| penetration(&pos12, g1, g2, &mut epa.borrow_mut()))?;
        // moved to the world as `Contact::transform_by_mut` moves them
        let point1 = iso1 * p1;
        let point2 = iso2 * pos12.inverse_transform_point(&p2_1);
        return Some((depth, iso1 * n, 0.5 * (point1.coords + point2.coords)));
    }
    match parry3d_f64::query::contact(iso1, s1, iso2, s2, 0.0) {
        Ok(Some(c)) if c.dist < 0.0 => Some((
            -c.dist,
            c.normal1.into_inner(),
            0.5 * (c.point1.coords + c.point2.coords),
        )),
        _ => None,
    }
}

thread_local! {
    /// Each thread's EPA buffers, kept between queries: parry's `query::contact` makes
    /// a new EPA per call, whose buffers grew anew for every overlapping pair (about
    /// 6,000 allocations per 1 ms step of the 500-rock pile).
    static EPA_BUFFERS: RefCell<EPA> = RefCell::new(EPA::new());
}

/// The two shapes as support maps where parry's `DefaultQueryDispatcher::contact`
/// hands them to `contact_support_map_support_map` (neither a ball nor a half-space,
/// both support-mapped); None for every other pair.
fn support_map_pair<'a>(
    s1: &'a dyn Shape,
    s2: &'a dyn Shape,
) -> Option<(&'a dyn SupportMap, &'a dyn SupportMap)> {
    let plain = |s: &dyn Shape| s.as_ball().is_none() && s.as_shape::<HalfSpace>().is_none();
    if plain(s1) && plain(s2) {
        Some((s1.as_support_map()?, s2.as_support_map()?))
    } else {
        None
    }
}

/// Penetration of the support-mapped `g2` at `pos12` (in `g1`'s frame) into `g1`:
/// (depth, unit normal out of g1 towards g2, the deepest points on g1 and on g2), all
/// in g1's frame; None when apart. parry's `contact_support_map_support_map` step by
/// step (the same GJK start, then EPA), with the caller's EPA buffers `epa`, so that
/// a query allocates nothing once they have grown.
pub(crate) fn penetration<G1, G2>(
    pos12: &Isometry3<f64>,
    g1: &G1,
    g2: &G2,
    epa: &mut EPA,
) -> Option<(f64, Vector3<f64>, Point3<f64>, Point3<f64>)>
where
    G1: ?Sized + SupportMap,
    G2: ?Sized + SupportMap,
{
    let dir = nalgebra::Unit::try_new(pos12.translation.vector, parry3d_f64::math::DEFAULT_EPSILON)
        .unwrap_or_else(Vector3::x_axis);
    let mut simplex = VoronoiSimplex::new();
    simplex.reset(CSOPoint::from_shapes(pos12, g1, g2, &dir));
    let (p1, p2_1, n) = match gjk::closest_points(pos12, g1, g2, 0.0, true, &mut simplex) {
        GJKResult::ClosestPoints(p1, p2_1, n) => (p1, p2_1, n),
        GJKResult::Intersection => epa.closest_points(pos12, g1, g2, &simplex)?,
        _ => return None,
    };
    let dist = (p2_1 - p1).dot(&n);
    (dist < 0.0).then(|| (-dist, n.into_inner(), p1, p2_1))
}

/// Contact point of a cylinder (axis body y) that penetrates by `depth` along `dir`
/// (the direction into the other body): for a side contact the penetration-weighted
/// centroid of the deepest surface line, so that the point moves continuously from the
/// middle of the line towards an end as the cylinder tilts (and rocking meets a
/// restoring moment, as under a real line contact); for an end contact the centre of
/// the deepest end disc's rim region. Returned at the deepest point's level.
pub(crate) fn cylinder_feature(
    iso: &Isometry3<f64>,
    radius: f64,
    half_height: f64,
    dir: &Vector3<f64>,
    depth: f64,
) -> Vector3<f64> {
    let dims = CylinderDims {
        radius,
        half_height,
    };
    let Some(line) = DeepestLine::of(iso, dims, dir, depth) else {
        // end disc flat on the other body
        let axis = iso.rotation * Vector3::y();
        return iso.translation.vector + axis * (half_height * dir.dot(&axis).signum());
    };
    let (d1, d2) = (line.d1, line.d2);
    let t = if d1 >= 0.0 && d2 >= 0.0 {
        if d1 + d2 <= 0.0 {
            0.5
        } else {
            (d1 + 2.0 * d2) / (3.0 * (d1 + d2))
        }
    } else if d1 >= 0.0 {
        // only the e1 end penetrates: a triangle from e1 to where the depth reaches 0
        (d1 / (d1 - d2)) / 3.0
    } else {
        1.0 - (d2 / (d2 - d1)) / 3.0
    };
    line.lifted(line.e1 + (line.e2 - line.e1) * t, dir)
}

#[cfg(test)]
mod tests {
    use crate::pmath;
    use super::*;
    use parry3d_f64::shape::{Ball, Cuboid};

    /// Dense memories, kept on touch.
    struct Slots(Vec<ContactMemory>);

    impl PartMemory for Slots {
        fn get(&self, slot: usize) -> ContactMemory {
            self.0[slot]
        }
        fn touch(&mut self, slot: usize, m: ContactMemory) {
            self.0[slot] = m;
        }
    }

    /// parry's own contact query, as `parry_contact` made it before it kept its EPA
    /// buffers.
    fn parry_query(
        s1: &dyn Shape,
        iso1: &Isometry3<f64>,
        s2: &dyn Shape,
        iso2: &Isometry3<f64>,
    ) -> Option<(f64, Vector3<f64>, Vector3<f64>)> {
        parry3d_f64::query::contact(iso1, s1, iso2, s2, 0.0)
            .unwrap()
            .filter(|c| c.dist < 0.0)
            .map(|c| {
                let p = 0.5 * (c.point1.coords + c.point2.coords);
                (-c.dist, c.normal1.into_inner(), p)
            })
    }

    #[test]
    fn the_kept_epa_buffers_give_parrys_contact_bit_for_bit() {
        use parry3d_f64::shape::{ConvexPolyhedron, Cylinder, SharedShape};
        use nalgebra::UnitQuaternion;
        let mut seed = 7u64;
        let mut rnd = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let hull = |rnd: &mut dyn FnMut() -> f64| {
            let pts: Vec<Point3<f64>> = (0..30)
                .map(|_| Point3::new(rnd() - 0.5, 0.8 * rnd() - 0.4, 0.6 * rnd() - 0.3))
                .collect();
            SharedShape::new(ConvexPolyhedron::from_convex_hull(&pts).unwrap())
        };
        let shapes = [
            hull(&mut rnd),
            hull(&mut rnd),
            SharedShape::new(Cuboid::new(Vector3::new(0.4, 0.3, 0.2))),
            SharedShape::new(Cylinder::new(0.2, 0.3)),
            SharedShape::new(Ball::new(0.3)),
            SharedShape::new(HalfSpace::new(Vector3::z_axis())),
        ];
        let pose = |rnd: &mut dyn FnMut() -> f64| {
            Isometry3::from_parts(
                Vector3::new(0.6 * rnd() - 0.3, 0.6 * rnd() - 0.3, 0.6 * rnd() - 0.3).into(),
                UnitQuaternion::from_scaled_axis(Vector3::new(
                    4.0 * rnd() - 2.0,
                    4.0 * rnd() - 2.0,
                    4.0 * rnd() - 2.0,
                )),
            )
        };
        let mut through_epa = 0;
        for _ in 0..400 {
            for a in &shapes {
                for b in &shapes {
                    let (i1, i2) = (pose(&mut rnd), pose(&mut rnd));
                    let (s1, s2) = (a.as_ref(), b.as_ref());
                    if s1.as_shape::<HalfSpace>().is_some() && s2.as_shape::<HalfSpace>().is_some()
                    {
                        continue;
                    }
                    let want = parry_query(s1, &i1, s2, &i2);
                    // twice: the second time with the buffers the first one grew
                    assert_eq!(parry_contact(s1, &i1, s2, &i2), want);
                    assert_eq!(parry_contact(s1, &i1, s2, &i2), want);
                    if want.is_some() && support_map_pair(s1, s2).is_some() {
                        through_epa += 1;
                    }
                }
            }
        }
        // most overlapping pairs of support maps go through the kept buffers
        assert!(through_epa > 2000, "{through_epa} pairs through the kept EPA");
    }

    fn law() -> PairLaw {
        PairLaw {
            k: 1e6,
            r_eff: 0.5,
            zeta: 0.6,
            mu: 0.4,
            stiction: None,
            v_d: 0.01,
            impact_velocity_min: 0.01,
            reimpact: false,
            implicit_step: 0.0,
            adaptive: false,
            implicit_normal: false,
            patch: false,
            elastic_foundation: false,
            stick: None,
            rolling: 0.0,
            now: 0.0,
        }
    }

    fn at(x: f64, y: f64, z: f64) -> BodyPose {
        BodyPose {
            iso: Isometry3::translation(x, y, z),
            v: Vector3::zeros(),
            w: Vector3::zeros(),
        }
    }

    #[test]
    fn a_ball_resting_in_a_box_gets_k_delta_to_the_1_5_upwards_and_the_box_the_opposite() {
        let ground = Cuboid::new(Vector3::new(5.0, 5.0, 0.5));
        let ball = Ball::new(0.1);
        let delta: f64 = 1e-3;
        let mut m = Slots(vec![ContactMemory::default()]);
        let w = pair_wrench(
            &ground,
            &at(0.0, 0.0, -0.5),
            &ball,
            &at(1.0, 2.0, 0.1 - delta),
            &law(),
            [&InvMass::ZERO; 2],
            [None; 2],
            &mut m,
            None,
        );
        assert!(w.in_contact && (w.depth - delta).abs() < 1e-12);
        assert!((w.force2.z - 1e6 * pmath::powf(delta, 1.5)).abs() < 1e-6, "{w:?}");
        assert!((w.force1 + w.force2).norm() < 1e-12);
        assert!(w.torque2.norm() < 1e-9);
        // the ground's torque is about its own origin: the contact is 1 m, 2 m away
        assert!(w.torque1.norm() > 1.0);
        let mut m = Slots(vec![ContactMemory::default()]);
        assert!(
            !pair_wrench(
                &ground,
                &at(0.0, 0.0, -0.5),
                &ball,
                &at(0.0, 0.0, 0.2),
                &law(),
                [&InvMass::ZERO; 2],
                [None; 2],
                &mut m,
                None,
            )
            .in_contact
        );
    }

    #[test]
    fn friction_opposes_sliding_and_spin_torque_opposes_spinning() {
        let ground = Cuboid::new(Vector3::new(5.0, 5.0, 0.5));
        let ball = Ball::new(0.1);
        let mut b = at(0.0, 0.0, 0.099);
        b.v = Vector3::new(1.0, 0.0, 0.0);
        b.w = Vector3::new(0.0, 0.0, 3.0);
        let mut m = Slots(vec![ContactMemory::default()]);
        let w = pair_wrench(
            &ground,
            &at(0.0, 0.0, -0.5),
            &ball,
            &b,
            &law(),
            [&InvMass::ZERO; 2],
            [None; 2],
            &mut m,
            None,
        );
        assert!(w.force2.x < 0.0);
        assert!(w.torque2.z < 0.0, "spin about +z is braked: {w:?}");
    }

    #[test]
    fn a_cylinder_on_a_small_block_touches_where_the_block_is() {
        // a wheel (axis y, r = 0.25 m, 0.2 m wide) 1 mm into a 5 cm block under its
        // rim at y = 0.06: the contact acts on the block's part of the rim's line, not
        // at the wheel's mid-plane (y = 0, beside the block, where a force would turn it)
        let wheel = parry3d_f64::shape::Cylinder::new(0.1, 0.25);
        let block = Cuboid::new(Vector3::new(0.05, 0.025, 0.05));
        let wheel_iso = Isometry3::translation(0.0, 0.0, 0.3 - 1e-3);
        let block_iso = Isometry3::translation(0.0, 0.06, 0.0);
        for (s1, i1, s2, i2) in [
            (
                &wheel as &dyn Shape,
                &wheel_iso,
                &block as &dyn Shape,
                &block_iso,
            ),
            (&block, &block_iso, &wheel, &wheel_iso),
        ] {
            let (depth, _, p) = deepest_contact(s1, i1, s2, i2).unwrap();
            assert!((depth - 1e-3).abs() < 1e-9, "{depth}");
            assert!((p.y - 0.06).abs() < 1e-9 && p.x.abs() < 1e-9, "{p}");
        }
        // on a block wider than the wheel the whole line touches: its middle
        let slab = Cuboid::new(Vector3::new(0.05, 0.5, 0.05));
        let (_, _, p) = deepest_contact(&wheel, &wheel_iso, &slab, &Isometry3::identity()).unwrap();
        assert!(p.y.abs() < 1e-12, "{p}");
        // tilted about x so that only the +y end of the line reaches the block: the
        // weighted centre of the part inside, between the block's edge and the end
        let tilt = Isometry3::from_parts(
            nalgebra::Translation3::new(0.0, 0.0, 0.3 - 1e-3),
            nalgebra::UnitQuaternion::from_axis_angle(&Vector3::x_axis(), 0.004),
        );
        let (_, _, p) = deepest_contact(&wheel, &tilt, &block, &block_iso).unwrap();
        assert!(p.y > 0.035 && p.y < 0.085, "{p}");
    }
}
