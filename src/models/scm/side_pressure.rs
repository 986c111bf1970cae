//! Passive earth pressure on the side faces of a contact object: the lateral soil
//! resistance that makes a wheel follow a rut (Krenn 2009, section 3.3, "lateral
//! guidance inside ruts").
//!
//! SCM's footprint sees a body through vertical rays from the grid nodes (see
//! [`super::contact`]): only faces that face down carry soil pressure, and the soil
//! flows vertically. A vertical face (a wheel's side, a grouser's flank, a box's
//! side) is never hit, so soil standing beside it, a rut's wall against the wheel, did
//! not push back at all. Leite 2010 (section 3, eq. (3.8)-(3.11)) closes that gap for
//! its wheels: the lateral bulldozing resistance is the passive earth pressure on the
//! triangles of the wheel's side, summed over the mesh (eq. (3.9)). We do the same
//! for every face of a body that no vertical ray sees (outward normal horizontal or
//! facing up, steeper than 60 degrees) and that moves into the soil beside it.
//!
//! **Pressure.** Rankine's passive pressure on a smooth vertical wall at depth d below
//! the soil surface beside it (Wong 2008; its integral over depth is TerRA's eq. (24),
//! Barthelmes 2018): sigma_p(d) = gamma d N_phi + 2 c sqrt(N_phi), with the unit
//! weight gamma = rho g and N_phi = tan^2(pi/4 + phi/2). It acts against the face's
//! outward normal on the part of the face below the soil surface beside it, integrated
//! exactly over that part (edge-midpoint quadrature is exact for the linear pressure
//! times the linear lever). The face is cut into slabs at most one grid spacing wide
//! along it, each with the soil surface beside it: the node heights one spacing out
//! from the slab's middle at the face's bottom, bilinear. So a face of any size
//! beside soil that varies along it (a box's side beside a berm) is integrated piece
//! by piece, as the footprint is node by node. The arithmetic runs in the face's own
//! coordinates (along it, and up).
//!
//! **Mobilization.** The pressure is passive only while the face moves into the soil:
//! it is scaled by tanh(v_n / v_shear) for a face advancing at v_n (its centre's
//! velocity along the outward normal), and is zero for a face moving away (the active
//! pressure, at most a third of the passive one, is left out). A wheel rolling
//! straight moves its sides in their own planes: they carry nothing.
//!
//! **Confinement.** Soil the body covers (a node under one of its faces: between a
//! wheel's grousers, under its tread) has no free surface for the failure wedge to
//! heave to, and carries none: a grouser's flank pushes only where it meets soil
//! beside the body.
//!
//! **Limits.** A smooth wall: no wall friction, so no vertical reaction of the failure
//! wedge; the soil beside the face keeps its shape (the wedge's heave is not
//! modelled; the face presses the soil down through the footprint once it moves over
//! it).

use crate::pmath;
use super::grid::{base_height, SoilGrid};
use super::soil_map::NodeSoil;
use super::{floor_i32, SoilParams};
use crate::models::earth_pressure::passive_sqrt;
use crate::geometry::terrain::Surface;
use nalgebra::Vector3;

/// The soil's force (N) and torque about `origin` (N m) on the faces `side` (indices
/// into `triangles`: faces no vertical ray sees, reaching below the soil top) of a
/// mesh with world vertices `world` and `triangles` (outward winding) moving with
/// velocity `v0` (m/s) at `origin` and angular velocity `w0` (rad/s), world frame,
/// below the highest soil around, `z_top` (m). `soils`: the class table (class 0
/// without a soil map). `covered` tells whether the body covers the soil at a world
/// point (x, y): there the soil is confined under the body and carries none.
#[allow(clippy::too_many_arguments)]
pub fn side_pressure(
    p: &SoilParams,
    grid: &SoilGrid,
    base: &Surface,
    soils: &[NodeSoil],
    world: &[Vector3<f64>],
    triangles: &[[u32; 3]],
    side: &[u32],
    origin: Vector3<f64>,
    v0: Vector3<f64>,
    w0: Vector3<f64>,
    z_top: f64,
    covered: impl Fn(&Vector3<f64>) -> bool,
) -> (Vector3<f64>, Vector3<f64>) {
    let mut force = Vector3::zeros();
    let mut torque = Vector3::zeros();
    let gamma_w = p.density * p.gravity;
    // Rankine's coefficients of the last soil class met: (class, k_d, k_0)
    let mut coefficients = (usize::MAX, 0.0, 0.0);
    for &f in side {
        let tri = triangles[f as usize].map(|k| world[k as usize]);
        let n_out = (tri[1] - tri[0]).cross(&(tri[2] - tri[0])).normalize();
        let h_len = (n_out.x * n_out.x + n_out.y * n_out.y).sqrt();
        if h_len < 1e-9 {
            continue;
        }
        // passive only while the face moves into the soil
        let centre = (tri[0] + tri[1] + tri[2]) / 3.0;
        let v_n = (v0 + w0.cross(&(centre - origin))).dot(&n_out);
        if v_n <= 0.0 {
            continue;
        }
        let s = v_n / p.v_shear;
        if s < 1e-6 {
            // (a face moving in its own plane, to rounding: less than a millionth)
            continue;
        }
        let mobilized = if s >= 22.0 { 1.0 } else { pmath::tanh(s) };
        // the face in its own coordinates (s, z): s along its horizontal tangent t,
        // z up; a point is X(s, z) = s t + u(z) m + z e_z with m its horizontal
        // normal and u(z) = (d - n_z z) / h_len, and dA = ds dz / h_len
        let m = Vector3::new(n_out.x, n_out.y, 0.0) / h_len;
        let t = Vector3::new(-m.y, m.x, 0.0);
        let d = n_out.dot(&tri[0]);
        let lift =
            |q: [f64; 2]| t * q[0] + m * ((d - n_out.z * q[1]) / h_len) + Vector3::z() * q[1];
        // the part below the highest soil around
        let face = Polygon::triangle(tri.map(|c| [c.dot(&t), c.z])).below(z_top);
        if face.count < 3 {
            continue;
        }
        // in slabs at most one spacing wide along s, each with the soil beside it
        let (mut s0, mut s1) = (f64::INFINITY, f64::NEG_INFINITY);
        for c in &face.corners[..face.count] {
            (s0, s1) = (s0.min(c[0]), s1.max(c[0]));
        }
        let out = m * grid.ds;
        let z_low = face.corners[..face.count]
            .iter()
            .fold(f64::INFINITY, |z, c| z.min(c[1]));
        let slabs = ((s1 - s0) / grid.ds).ceil().max(1.0) as usize;
        let width = (s1 - s0) / slabs as f64;
        let (mut sum, mut sum_s, mut sum_z) = (0.0, 0.0, 0.0);
        for k in 0..slabs {
            let (a, b) = (s0 + k as f64 * width, s0 + (k + 1) as f64 * width);
            // the soil one spacing out from the slab's middle at the face's bottom (on
            // a vertical face every point of the slab at that s lies there); soil the
            // body covers (between a wheel's grousers, under its tread) is confined:
            // no wedge can heave to a free surface there
            let q = lift([0.5 * (a + b), z_low]) + out;
            if covered(&q) {
                continue;
            }
            let slab = if slabs == 1 {
                face
            } else {
                face.cut(|c| a - c[0]).cut(|c| c[0] - b)
            };
            if slab.count < 3 {
                continue;
            }
            let (h, class) = surface_beside(grid, base, q);
            let part = slab.below(h);
            if part.count < 3 {
                continue;
            }
            if coefficients.0 != class {
                let s = &soils[class.min(soils.len() - 1)];
                let n_phi = passive_sqrt(pmath::atan(s.tan_phi)).powi(2);
                coefficients = (class, gamma_w * n_phi, 2.0 * s.c * n_phi.sqrt());
            }
            let (_, k_d, k_0) = coefficients;
            // sigma_p(z) = k_d (h - z) + k_0 over the part: its integral and first
            // moments in s and z (over ds dz)
            let [f, fs, fz] = part.integrate(|z| k_d * (h - z) + k_0);
            (sum, sum_s, sum_z) = (sum + f, sum_s + fs, sum_z + fz);
        }
        if sum == 0.0 {
            continue;
        }
        // back to world: the force along -n_out, its moment about the origin
        let (f, f_lever) = (
            sum / h_len,
            (t * sum_s + m * ((d * sum - n_out.z * sum_z) / h_len) + Vector3::z() * sum_z) / h_len
                - origin * (sum / h_len),
        );
        force -= n_out * (f * mobilized);
        torque -= f_lever.cross(&n_out) * mobilized;
    }
    (force, torque)
}

/// The soil surface height (m) and soil class at world point `q` (bilinear between
/// the four nodes around it; the class of the nearest node).
fn surface_beside(grid: &SoilGrid, base: &Surface, q: Vector3<f64>) -> (f64, usize) {
    let ds = grid.ds;
    let (u, v) = (q.x / ds, q.y / ds);
    let (i, j) = (floor_i32(u), floor_i32(v));
    let (fu, fv) = (u - i as f64, v - j as f64);
    let e = &grid.extent;
    let inside = |i: i32, j: i32| i >= e.i0 && j >= e.j0 && i < e.i0 + e.nx && j < e.j0 + e.ny;
    let [h00, h10, h01, h11] = if inside(i, j) && inside(i + 1, j + 1) {
        grid.cell_heights(base, i, j)
    } else {
        [(i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)].map(|(i, j)| {
            if inside(i, j) {
                grid.node(base, i, j).0
            } else {
                base_height(base, i as f64 * ds, j as f64 * ds)
            }
        })
    };
    let h = (1.0 - fv) * ((1.0 - fu) * h00 + fu * h10) + fv * ((1.0 - fu) * h01 + fu * h11);
    let class = match grid.soil_map() {
        Some(m) => m.class_at(q.x, q.y) as usize,
        None => 0,
    };
    (h, class)
}

/// A convex polygon in a face's own coordinates (s, z) of at most [`Polygon::MAX`]
/// corners, counter-clockwise: a triangle clipped by a few lines.
#[derive(Clone, Copy)]
struct Polygon {
    corners: [[f64; 2]; Polygon::MAX],
    count: usize,
}

impl Polygon {
    /// A triangle clipped by four lines has at most seven corners.
    const MAX: usize = 8;

    fn triangle(c: [[f64; 2]; 3]) -> Polygon {
        let mut p = Polygon {
            corners: [[0.0; 2]; Polygon::MAX],
            count: 3,
        };
        p.corners[..3].copy_from_slice(&c);
        p
    }

    fn push(&mut self, q: [f64; 2]) {
        if self.count < Polygon::MAX {
            self.corners[self.count] = q;
            self.count += 1;
        }
    }

    /// The part where the linear function `f` of the corners is negative
    /// (Sutherland-Hodgman).
    fn cut(&self, f: impl Fn(&[f64; 2]) -> f64) -> Polygon {
        let mut neg = Polygon {
            corners: [[0.0; 2]; Polygon::MAX],
            count: 0,
        };
        let c = &self.corners[..self.count];
        let Some(first) = c.first() else {
            return neg;
        };
        let mut fa = f(first);
        for k in 0..c.len() {
            let (a, b) = (c[k], c[(k + 1) % c.len()]);
            let fb = f(&b);
            if fa < 0.0 {
                neg.push(a);
            }
            if (fa < 0.0) != (fb < 0.0) {
                let w = fa / (fa - fb);
                neg.push([a[0] + (b[0] - a[0]) * w, a[1] + (b[1] - a[1]) * w]);
            }
            fa = fb;
        }
        neg
    }

    /// The part below height `h`.
    fn below(&self, h: f64) -> Polygon {
        self.cut(|q| q[1] - h)
    }

    /// The fan triangles from the first corner: (twice the area, corners).
    fn fan(&self) -> impl Iterator<Item = (f64, [[f64; 2]; 3])> + '_ {
        let c = &self.corners;
        (1..self.count.saturating_sub(1)).map(move |k| {
            let (a, b, d) = (c[0], c[k], c[k + 1]);
            let area2 = (b[0] - a[0]) * (d[1] - a[1]) - (b[1] - a[1]) * (d[0] - a[0]);
            (area2, [a, b, d])
        })
    }

    /// The integrals over the polygon (over ds dz) of `f(z)` and of `f(z)` times s
    /// and times z: edge-midpoint quadrature on the fan, exact for `f` linear.
    fn integrate(&self, f: impl Fn(f64) -> f64) -> [f64; 3] {
        let mut sums = [0.0; 3];
        for (a2, [a, b, d]) in self.fan() {
            for q in [mid(a, b), mid(b, d), mid(d, a)] {
                let w = f(q[1]) * a2 / 6.0;
                sums[0] += w;
                sums[1] += w * q[0];
                sums[2] += w * q[1];
            }
        }
        sums
    }
}

fn mid(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1])]
}

#[cfg(test)]
mod tests {
    use crate::pmath;
    use super::super::rect::Rect;
    use super::super::{evaluate, BodyMotion, SoilGrid, SoilParams, Workspace};
    use crate::geometry::TriMesh;
    use crate::geometry::terrain::Surface;
    use nalgebra::{Isometry3, Vector3};

    const DEPTH: f64 = 0.04;
    const WIDTH: f64 = 0.3;

    /// Force and torque of a box 0.2 m long (x), `WIDTH` wide (y) and 0.1 m tall,
    /// its bottom `DEPTH` deep in untouched flat soil, moving with `v` (m/s): with the
    /// side pressure minus without it.
    fn side_of_box(p: &SoilParams, v: Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
        let grid = SoilGrid::new(0.01, -1.0, 1.0, -1.0, 1.0);
        side_of_box_in(p, &grid, 0.002, v)
    }

    /// [`side_of_box`] on `grid`, the box's centre at y = `y`.
    fn side_of_box_in(
        p: &SoilParams,
        grid: &SoilGrid,
        y: f64,
        v: Vector3<f64>,
    ) -> (Vector3<f64>, Vector3<f64>) {
        let base = Surface::Plane {
            height: 0.0,
            angle: 0.0,
        };
        let mesh = TriMesh::cuboid([0.2, WIDTH, 0.1]);
        let motion = BodyMotion {
            iso: Isometry3::translation(0.003, y, 0.05 - DEPTH),
            v,
            w: Vector3::zeros(),
        };
        let with = evaluate(p, grid, &base, &mesh, &motion, &mut Workspace::default());
        let off = SoilParams {
            side_pressure: false,
            ..*p
        };
        let without = evaluate(&off, grid, &base, &mesh, &motion, &mut Workspace::default());
        (with.force - without.force, with.torque - without.torque)
    }

    /// A vertical face pushed through flat soil meets the passive earth pressure of a
    /// smooth vertical wall: per metre of width 0.5 rho g z^2 N_phi + 2 c z
    /// sqrt(N_phi) (Barthelmes 2018, eq. (24)), to rounding; the face behind, moving
    /// away, and the faces moving in their own planes carry nothing; the torque is
    /// that of the pressure growing linearly with depth.
    #[test]
    fn a_box_pushed_sideways_meets_the_passive_earth_pressure_of_rankine() {
        let p = SoilParams::dlr_a();
        let n_phi = pmath::tan(std::f64::consts::FRAC_PI_4 + 0.5 * p.phi).powi(2);
        let gamma = p.density * p.gravity;
        let expected =
            WIDTH * (0.5 * gamma * DEPTH * DEPTH * n_phi + 2.0 * p.c * DEPTH * n_phi.sqrt());
        for sign in [1.0, -1.0] {
            let (f, t) = side_of_box(&p, Vector3::new(sign * 0.1, 0.0, 0.0));
            assert!(
                (f.x + sign * expected).abs() < 1e-9 * expected,
                "{f} vs {expected}"
            );
            assert!(f.y.abs() < 1e-12 && f.z.abs() < 1e-12, "{f}");
            // about the box centre, 0.05 m above its bottom: the pressure's centre
            // lies at depth z_c = integral of z sigma / integral of sigma
            let moment = |z: f64| {
                // integral of (z' - z_centre) sigma(z') dz' over [-z, 0] per width
                let zc = 0.05 - DEPTH;
                let (a, b) = (gamma * n_phi, 2.0 * p.c * n_phi.sqrt());
                // sigma(z') = -a z' + b; (z' - zc) sigma = -a z'^2 + (b + a zc) z' - b zc
                -a * z.powi(3) / 3.0 - (b + a * zc) * z * z / 2.0 - b * zc * z
            };
            // tau_y = r_z F_x over the face, F_x = -sign sigma
            let t_y = -sign * WIDTH * moment(DEPTH);
            assert!((t.y - t_y).abs() < 1e-9 * t_y.abs(), "{t} vs {t_y}");
            assert!(t.x.abs() < 1e-12, "{t}");
            // the face is 3 mm off the grid along y: still symmetric to rounding
            assert!(t.z.abs() < 1e-9 * expected, "{t}");
        }
        // moving along y, the +y face meets its own pressure (0.2 m wide)
        let (f, _) = side_of_box(&p, Vector3::new(0.0, 0.1, 0.0));
        assert!(
            (f.y + expected * 0.2 / WIDTH).abs() < 1e-9 * expected,
            "{f}"
        );
    }

    /// A face beside soil whose height varies along it (a ramp rising 2 cm per 10 cm
    /// along y) is integrated in slabs at most one spacing wide, each with the soil
    /// beside it: the force is the integral of eq. (24) over the face's width, to the
    /// slabs' error (each takes the soil beside its middle: the midpoint rule, 1.3e-4
    /// here). One sample for the whole face is 20 % off.
    #[test]
    fn a_face_beside_soil_that_varies_along_it_meets_the_pressure_of_each_part() {
        let p = SoilParams::dlr_a();
        let base = Surface::Plane {
            height: 0.0,
            angle: 0.0,
        };
        let slope = 0.2;
        let mut grid = SoilGrid::new(0.01, -1.0, 1.0, -1.0, 1.0);
        let rect = Rect {
            i0: -20,
            j0: -30,
            nx: 50,
            ny: 61,
        };
        let h: Vec<f64> = (0..rect.len())
            .map(|k| slope * (rect.j0 + (k / rect.nx as usize) as i32) as f64 * 0.01)
            .collect();
        let zeros = vec![0.0; rect.len()];
        grid.store(&base, &rect, &h, &zeros, &zeros, &vec![true; rect.len()]);
        let y = 0.004;
        let (f, _) = side_of_box_in(&p, &grid, y, Vector3::new(0.1, 0.0, 0.0));
        let n_phi = pmath::tan(std::f64::consts::FRAC_PI_4 + 0.5 * p.phi).powi(2);
        let gamma = p.density * p.gravity;
        // the depth below the soil beside the face u = DEPTH + slope y; per width
        // 0.5 gamma N_phi u^2 + 2 c sqrt(N_phi) u, integrated over y
        let r = |u: f64| gamma * n_phi * u.powi(3) / 6.0 + p.c * n_phi.sqrt() * u * u;
        let (y0, y1) = (y - 0.5 * WIDTH, y + 0.5 * WIDTH);
        let expected = (r(DEPTH + slope * y1) - r(DEPTH + slope * y0)) / slope;
        let error = (f.x + expected).abs() / expected;
        eprintln!(
            "face beside a ramp: {} N, eq. (24) integrated {expected} N",
            -f.x
        );
        assert!(error < 3e-4, "{} vs {expected}: {error}", -f.x);
    }

    /// The passive pressure is mobilized with the face's speed into the soil as
    /// tanh(v / v_shear), is zero for a body moving straight down (its faces move in
    /// their planes) and without the side pressure.
    #[test]
    fn the_side_pressure_is_mobilized_with_the_faces_speed_into_the_soil() {
        let p = SoilParams::dlr_a();
        let (full, _) = side_of_box(&p, Vector3::new(0.1, 0.0, 0.0));
        let (slow, _) = side_of_box(&p, Vector3::new(p.v_shear, 0.0, 0.0));
        assert!((slow.x - full.x * pmath::tanh(1f64)).abs() < 1e-12 * full.x.abs());
        let (down, _) = side_of_box(&p, Vector3::new(0.0, 0.0, -0.1));
        assert_eq!(down, Vector3::zeros());
        let off = SoilParams {
            side_pressure: false,
            ..p
        };
        let (none, _) = side_of_box(&off, Vector3::new(0.1, 0.0, 0.0));
        assert_eq!(none, Vector3::zeros());
    }
}
