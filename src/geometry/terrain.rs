//! Rigid terrain surfaces, world frame (z up): where a point is relative to the ground,
//! and the ground's normal there.

use crate::pmath;
use nalgebra::Vector3;
use std::sync::Arc;

/// The closest surface point to a query point, and the surface normal there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SurfacePoint {
    /// Closest point on the surface, m.
    pub point: Vector3<f64>,
    /// Unit normal pointing out of the ground.
    pub normal: Vector3<f64>,
    /// Signed distance of the query point from the surface, m (negative below).
    pub distance: f64,
}

/// A ground surface: a plane inclined about y, a piecewise-linear height profile z(x)
/// (neither varies along y), or a height field z(x, y) sampled from a procedural
/// surface (the asset generator).
#[derive(Debug, Clone, PartialEq)]
pub enum Surface {
    /// `z = height + x tan(angle)`: flat for angle 0, rising along +x for angle > 0.
    Plane { height: f64, angle: f64 },
    /// Height profile through the points `(x, z)`, sorted by increasing x, continued
    /// flat before the first and after the last point.
    Profile { points: Vec<[f64; 2]> },
    /// A regular height grid, bilinear between its nodes (shared: it can be large).
    Field(Arc<HeightField>),
}

/// Heights on a regular grid, node (i, j) at (x0 + i cell, y0 + j cell), row-major;
/// bilinear in between, the edge continued outside. Keeps the maximum of each block
/// of `BLOCK` x `BLOCK` cells for quick upper bounds over rectangles.
#[derive(Debug, Clone, PartialEq)]
pub struct HeightField {
    pub x0: f64,
    pub y0: f64,
    pub cell: f64,
    pub nx: usize,
    pub ny: usize,
    pub h: Vec<f64>,
    block_max: Vec<f64>,
    bnx: usize,
}

const BLOCK: usize = 16;

impl HeightField {
    /// A field from its grid (`h.len() == nx * ny`, nx, ny >= 2).
    pub fn new(x0: f64, y0: f64, cell: f64, nx: usize, ny: usize, h: Vec<f64>) -> HeightField {
        assert!(nx >= 2 && ny >= 2 && h.len() == nx * ny && cell > 0.0);
        // block (bi, bj) covers nodes bi*BLOCK ..= (bi+1)*BLOCK (shared edges)
        let (bnx, bny) = ((nx - 1).div_ceil(BLOCK), (ny - 1).div_ceil(BLOCK));
        let mut block_max = vec![f64::NEG_INFINITY; bnx * bny];
        for bj in 0..bny {
            for bi in 0..bnx {
                let mut m = f64::NEG_INFINITY;
                for j in bj * BLOCK..=((bj + 1) * BLOCK).min(ny - 1) {
                    for i in bi * BLOCK..=((bi + 1) * BLOCK).min(nx - 1) {
                        m = m.max(h[j * nx + i]);
                    }
                }
                block_max[bj * bnx + bi] = m;
            }
        }
        HeightField {
            x0,
            y0,
            cell,
            nx,
            ny,
            h,
            block_max,
            bnx,
        }
    }

    /// Cell coordinates of (x, y): the lower node and the fractions, clamped.
    fn locate(&self, x: f64, y: f64) -> (usize, usize, f64, f64) {
        let u = ((x - self.x0) / self.cell).clamp(0.0, (self.nx - 1) as f64);
        let v = ((y - self.y0) / self.cell).clamp(0.0, (self.ny - 1) as f64);
        let i = (u.floor() as usize).min(self.nx - 2);
        let j = (v.floor() as usize).min(self.ny - 2);
        (i, j, u - i as f64, v - j as f64)
    }

    /// The bilinear patch under (x, y): its corner heights (i, j), (i+1, j), (i, j+1),
    /// (i+1, j+1) and the fractions of (x, y) across it.
    fn patch(&self, x: f64, y: f64) -> ([f64; 4], f64, f64) {
        let (i, j, fu, fv) = self.locate(x, y);
        let k = j * self.nx + i;
        let h = &self.h;
        ([h[k], h[k + 1], h[k + self.nx], h[k + self.nx + 1]], fu, fv)
    }

    /// Height at (x, y), m.
    pub fn height(&self, x: f64, y: f64) -> f64 {
        let ([a, b, c, d], fu, fv) = self.patch(x, y);
        let lo = a + (b - a) * fu;
        let hi = c + (d - c) * fu;
        lo + (hi - lo) * fv
    }

    /// Unit upward normal of the bilinear patch at (x, y) (flat outside the grid).
    pub fn normal(&self, x: f64, y: f64) -> Vector3<f64> {
        let ([a, b, c, d], fu, fv) = self.patch(x, y);
        let inside_x = x > self.x0 && x < self.x0 + (self.nx - 1) as f64 * self.cell;
        let inside_y = y > self.y0 && y < self.y0 + (self.ny - 1) as f64 * self.cell;
        let gx = if inside_x {
            ((b - a) * (1.0 - fv) + (d - c) * fv) / self.cell
        } else {
            0.0
        };
        let gy = if inside_y {
            ((c - a) * (1.0 - fu) + (d - b) * fu) / self.cell
        } else {
            0.0
        };
        Vector3::new(-gx, -gy, 1.0).normalize()
    }

    /// An upper bound of the height over [x0, x1] x [y0, y1], m.
    pub fn max_height(&self, x0: f64, x1: f64, y0: f64, y1: f64) -> f64 {
        let (i0, j0, _, _) = self.locate(x0, y0);
        let (i1, j1, _, _) = self.locate(x1, y1);
        let bny = self.block_max.len() / self.bnx;
        let mut m = f64::NEG_INFINITY;
        for bj in (j0 / BLOCK).min(bny - 1)..=((j1 + 1) / BLOCK).min(bny - 1) {
            for bi in (i0 / BLOCK).min(self.bnx - 1)..=((i1 + 1) / BLOCK).min(self.bnx - 1) {
                m = m.max(self.block_max[bj * self.bnx + bi]);
            }
        }
        m
    }
}

impl Surface {
    /// Ground height at (x, y), m.
    pub fn height_at(&self, x: f64, y: f64) -> f64 {
        match self {
            Surface::Field(f) => f.height(x, y),
            _ => self.height(x),
        }
    }

    /// An upper bound of the ground height over [x0, x1] x [y0, y1], m (exact for
    /// planes and profiles).
    pub fn max_height_rect(&self, x0: f64, x1: f64, y0: f64, y1: f64) -> f64 {
        match self {
            Surface::Field(f) => f.max_height(x0, x1, y0, y1),
            _ => self.max_height_x(x0, x1),
        }
    }

    /// Ground height under (x, y), m.
    /// (For a height field: along y = 0; see [`Surface::height_at`].)
    pub fn height(&self, x: f64) -> f64 {
        match self {
            Surface::Plane { height, angle } => height + x * pmath::tan(*angle),
            Surface::Profile { points } => profile_height(points, x),
            Surface::Field(f) => f.height(x, 0.0),
        }
    }

    /// Highest ground between x0 and x1 (x0 <= x1), m. Exact: the surface is
    /// piecewise linear in x.
    pub fn max_height_x(&self, x0: f64, x1: f64) -> f64 {
        if let Surface::Field(f) = self {
            return f.max_height(x0, x1, f64::NEG_INFINITY, f64::INFINITY);
        }
        let mut top = self.height(x0).max(self.height(x1));
        if let Surface::Profile { points } = self {
            for p in points.iter().filter(|p| p[0] > x0 && p[0] < x1) {
                top = top.max(p[1]);
            }
        }
        top
    }

    /// The closest surface point to `p` (in the x-z plane: the surface does not vary
    /// along y) and the normal there.
    pub fn closest(&self, p: &Vector3<f64>) -> SurfacePoint {
        match self {
            Surface::Plane { height, angle } => {
                let normal = Vector3::new(-pmath::sin(*angle), 0.0, pmath::cos(*angle));
                let origin = Vector3::new(0.0, p.y, *height);
                let distance = (p - origin).dot(&normal);
                SurfacePoint {
                    point: p - normal * distance,
                    normal,
                    distance,
                }
            }
            Surface::Profile { points } => closest_on_profile(points, p),
            // the local tangent plane under p (Buse 2023, section 3.2: the surface
            // approximated by one frame at the query position)
            Surface::Field(f) => {
                let normal = f.normal(p.x, p.y);
                let origin = Vector3::new(p.x, p.y, f.height(p.x, p.y));
                let distance = (p - origin).dot(&normal);
                SurfacePoint {
                    point: p - normal * distance,
                    normal,
                    distance,
                }
            }
        }
    }

    /// Contact of a disc or sphere of `radius` (m) centred at `center` with the
    /// surface: `distance` is the centre's distance from the surface along the
    /// returned normal, so the penetration depth is `radius - distance`.
    ///
    /// Where a profile's corner puts the body on two faces at once (a valley between
    /// flat ground and a ramp), the normal is the penetration-weighted mean of the
    /// faces' normals and the depth the deepest: the contact direction turns
    /// continuously while the body rolls through the corner, instead of jumping at the
    /// bisector.
    pub fn disc_contact(&self, center: &Vector3<f64>, radius: f64) -> SurfacePoint {
        let Surface::Profile { points } = self else {
            return self.closest(center);
        };
        let nearest = closest_on_profile(points, center);
        if nearest.distance >= radius {
            return nearest;
        }
        let (px, pz) = (center.x, center.z);
        let mut deepest: f64 = 0.0;
        let mut blended = Vector3::zeros();
        let mut face = |a: [f64; 2], b: [f64; 2], a_open: bool, b_open: bool| {
            if beyond(a, b, a_open, b_open, px, radius) {
                return; // farther along x than the radius: out of reach
            }
            let (t, q, n) = on_segment(a, b, px, pz, a_open, b_open);
            let (ex, ez) = (px - q[0], pz - q[1]);
            let side = ex * n[0] + ez * n[1];
            if side <= 0.0 {
                return; // the centre is behind this face
            }
            let dist = pmath::hypot(ex, ez);
            let depth = radius - dist;
            if depth <= 0.0 {
                return;
            }
            let interior = (a_open || t > 0.0) && (b_open || t < 1.0);
            let normal = if interior {
                Vector3::new(n[0], 0.0, n[1])
            } else {
                Vector3::new(ex, 0.0, ez) / dist
            };
            deepest = deepest.max(depth);
            blended += normal * depth;
        };
        let first = points[0];
        let last = points[points.len() - 1];
        face([first[0] - 1.0, first[1]], first, true, false);
        for w in points.windows(2) {
            face(w[0], w[1], false, false);
        }
        face(last, [last[0] + 1.0, last[1]], false, true);
        if deepest <= 0.0 || blended.norm() == 0.0 {
            return nearest; // centre below the surface: the nearest face decides
        }
        let normal = blended.normalize();
        let distance = radius - deepest;
        SurfacePoint {
            point: center - normal * distance,
            normal,
            distance,
        }
    }
}

/// Height of the profile through `points` at x.
fn profile_height(points: &[[f64; 2]], x: f64) -> f64 {
    let first = points[0];
    let last = points[points.len() - 1];
    if x <= first[0] {
        return first[1];
    }
    if x >= last[0] {
        return last[1];
    }
    for w in points.windows(2) {
        if x <= w[1][0] {
            let t = (x - w[0][0]) / (w[1][0] - w[0][0]);
            return w[0][1] + t * (w[1][1] - w[0][1]);
        }
    }
    last[1]
}

/// Whether the segment from `a` to `b` (x increasing; open ends continue without end)
/// lies farther than `reach` from `px` along x alone, with a margin for rounding: then
/// its closest point is farther than `reach` too, whatever [`on_segment`] and
/// `pmath::hypot` would round to, so skipping it changes no result.
fn beyond(a: [f64; 2], b: [f64; 2], a_open: bool, b_open: bool, px: f64, reach: f64) -> bool {
    let gap = if !a_open && px < a[0] {
        a[0] - px
    } else if !b_open && px > b[0] {
        px - b[0]
    } else {
        return false;
    };
    gap - reach > 1e-9 * (1.0 + px.abs() + reach)
}

/// Closest point on a segment from `a` to `b` in x-z (with `a_open`/`b_open`: the
/// segment continues without end on that side), as (t, point, segment normal).
fn on_segment(
    a: [f64; 2],
    b: [f64; 2],
    px: f64,
    pz: f64,
    a_open: bool,
    b_open: bool,
) -> (f64, [f64; 2], [f64; 2]) {
    let (dx, dz) = (b[0] - a[0], b[1] - a[1]);
    let len2 = dx * dx + dz * dz;
    let mut t = ((px - a[0]) * dx + (pz - a[1]) * dz) / len2;
    if !a_open {
        t = t.max(0.0);
    }
    if !b_open {
        t = t.min(1.0);
    }
    let len = len2.sqrt();
    (t, [a[0] + t * dx, a[1] + t * dz], [-dz / len, dx / len])
}

fn closest_on_profile(points: &[[f64; 2]], p: &Vector3<f64>) -> SurfacePoint {
    let (px, pz) = (p.x, p.z);
    let first = points[0];
    let last = points[points.len() - 1];
    let height = profile_height(points, px);
    // The profile point straight above or below is |pz - height| away: no segment
    // farther than that along x alone can be the closest (pruned by `beyond`, which
    // leaves the result as it was, bit for bit).
    let bound = (pz - height).abs();
    // (unsigned distance, closest point, segment normal, closest point inside the segment)
    let mut best = (f64::INFINITY, first, [0.0, 1.0], true);
    let mut consider = |a: [f64; 2], b: [f64; 2], a_open: bool, b_open: bool| {
        // farther along x than the best so far: cannot be closer (the same result,
        // without the distance)
        if beyond(a, b, a_open, b_open, px, best.0.min(bound)) {
            return;
        }
        let (t, q, n) = on_segment(a, b, px, pz, a_open, b_open);
        let dist = pmath::hypot(px - q[0], pz - q[1]);
        if dist < best.0 {
            best = (dist, q, n, (a_open || t > 0.0) && (b_open || t < 1.0));
        }
    };
    // the flat continuations are rays
    consider([first[0] - 1.0, first[1]], first, true, false);
    for w in points.windows(2) {
        consider(w[0], w[1], false, false);
    }
    consider(last, [last[0] + 1.0, last[1]], false, true);
    let (dist, q, n, interior) = best;
    // a height field: above or below is decided by the height under the point
    let sign = if pz >= height {
        1.0
    } else {
        -1.0
    };
    let normal = if interior || dist < 1e-12 {
        Vector3::new(n[0], 0.0, n[1])
    } else {
        // at a corner: the normal points from the vertex to the query point
        Vector3::new(px - q[0], 0.0, pz - q[1]) * (sign / dist)
    };
    SurfacePoint {
        point: Vector3::new(q[0], p.y, q[1]),
        normal,
        distance: sign * dist,
    }
}

/// The profile of a flat ground at `height` followed by ramps: ramp i starts at
/// `starts[i]` (m, increasing) with inclination `angles[i]` (rad) and runs until the
/// next start; the last one runs `tail` metres.
pub fn ramps_profile(height: f64, starts: &[f64], angles: &[f64], tail: f64) -> Vec<[f64; 2]> {
    let mut pts = vec![[starts.first().copied().unwrap_or(0.0) - 1.0, height]];
    let mut z = height;
    for (i, (&x0, &a)) in starts.iter().zip(angles).enumerate() {
        pts.push([x0, z]);
        let x1 = starts.get(i + 1).copied().unwrap_or(x0 + tail);
        z += (x1 - x0) * pmath::tan(a);
        if i + 1 == starts.len() {
            pts.push([x1, z]);
        }
    }
    pts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inclined_plane_has_its_normal_and_distance() {
        let s = Surface::Plane {
            height: 0.0,
            angle: 10f64.to_radians(),
        };
        let p = Vector3::new(1.0, 5.0, 1.0);
        let c = s.closest(&p);
        assert!((c.point.z - s.height(c.point.x)).abs() < 1e-12);
        assert!(((p - c.point).normalize() - c.normal).norm() < 1e-12);
        assert!(
            (c.distance - (1.0 - pmath::tan(10f64.to_radians())) * pmath::cos(10f64.to_radians())).abs()
                < 1e-12
        );
    }

    #[test]
    fn a_disc_in_a_valley_turns_its_normal_continuously() {
        let a = 20f64.to_radians();
        let s = Surface::Profile {
            points: ramps_profile(0.0, &[1.0], &[a], 2.0),
        };
        let r = 0.125;
        let mut last_angle: f64 = 0.0;
        // roll a disc of radius r through the valley at x = 1, 1 cm deep everywhere
        for i in 0..=400 {
            let x = 0.8 + 0.001 * i as f64;
            // find the hub height that gives 1 cm of penetration (bisection)
            let (mut lo, mut hi) = (s.height(x) - 0.5, s.height(x) + 1.0);
            for _ in 0..80 {
                let mid = 0.5 * (lo + hi);
                if r - s.disc_contact(&Vector3::new(x, 0.0, mid), r).distance > 0.01 {
                    lo = mid
                } else {
                    hi = mid
                }
            }
            let c = s.disc_contact(&Vector3::new(x, 0.0, hi), r);
            let angle = pmath::atan2(-c.normal.x, c.normal.z);
            assert!(
                angle >= last_angle - 1e-9 && angle - last_angle < 2f64.to_radians(),
                "x {x}: {angle} after {last_angle}"
            );
            last_angle = angle;
        }
        assert!((last_angle - a).abs() < 1e-9);
    }

    #[test]
    fn a_profile_gives_segment_normals_and_crest_normals() {
        let pts = ramps_profile(0.0, &[1.0, 2.0], &[20f64.to_radians(), 0.0], 1.0);
        let s = Surface::Profile { points: pts };
        assert_eq!(s.height(0.5), 0.0);
        assert!((s.height(1.5) - 0.5 * pmath::tan(20f64.to_radians())).abs() < 1e-12);
        assert!((s.height(5.0) - pmath::tan(20f64.to_radians())).abs() < 1e-12);
        // above the flat part
        let c = s.closest(&Vector3::new(0.0, 0.0, 0.3));
        assert!(
            (c.distance - 0.3).abs() < 1e-12 && (c.normal - Vector3::z()).norm() < 1e-12,
            "{c:?}"
        );
        // above the ramp
        let on = Vector3::new(1.5, 0.0, s.height(1.5));
        let n = Vector3::new(-pmath::sin(20f64.to_radians()), 0.0, pmath::cos(20f64.to_radians()));
        let c = s.closest(&(on + 0.1 * n));
        assert!((c.distance - 0.1).abs() < 1e-12 && (c.normal - n).norm() < 1e-12);
        // below the surface: negative distance
        assert!(s.closest(&Vector3::new(0.5, 0.0, -0.01)).distance < 0.0);
        // above the crest at x = 2 (ramp, then flat): the vertex is closest and the
        // normal points from it to the query point
        let crest = Vector3::new(2.0, 0.0, s.height(2.0));
        let offset = Vector3::new(-0.02, 0.0, 0.1);
        let c = s.closest(&(crest + offset));
        assert!((c.distance - offset.norm()).abs() < 1e-12, "{c:?}");
        assert!((c.normal - offset.normalize()).norm() < 1e-12);
    }
}
