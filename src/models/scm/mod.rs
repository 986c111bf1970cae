//! SCM, the Soil Contact Model (Krenn and Hirzinger 2009), with the extensions of
//! Buse 2023, section 4.2 (two update rates, parallel evaluation, surface export).
//!
//! - [`grid`]: the sparse soil height grid (DEM) over a base surface.
//! - contact-object meshes: [`crate::geometry::mesh`] (base meshes scaled to size).
//! - [`contact`]: contact detection, footprint, pressure and forces, eq. (1)-(9).
//! - [`footprint`]: A, L, b_eff and the pressure weighting, eq. (3)-(6).
//! - [`pressure`]: the pressure-sinkage law with loading history, eq. (1), (7).
//! - [`deform`]: a body's soil update: displacement, eq. (10), the flows, Fig. 10-13.
//! - [`erosion`]: slopes levelled to the angle of repose, Fig. 14.
//! - [`update_state`]: what a soil update keeps in the workspace between steps.
//! - [`rect`]: rectangles of grid nodes (windows, blocks).
//! - [`export`]: the soil height field as a PNG image and a PLY mesh.
//! - [`soil_map`]: soil classes per node (a parameter map).

pub mod adapter;
pub mod contact;
pub mod deform;
pub mod erosion;
pub mod export;
pub mod footprint;
pub mod grid;
pub mod pressure;
pub mod rect;
mod row_walk;
pub mod scene;
pub mod check;
pub mod section;
pub mod side_pressure;
pub mod soil_map;
pub mod update_state;

pub use contact::{evaluate, BodyMotion, ContactResult, Workspace};
pub use grid::SoilGrid;

/// `x.floor() as i32` for |x| < 2^31 without a libm call (the baseline x86-64
/// target has no rounding instruction; these run per face row in the hot loop).
#[inline(always)]
pub(crate) fn floor_i32(x: f64) -> i32 {
    let t = x as i32;
    if (t as f64) > x {
        t - 1
    } else {
        t
    }
}

/// `x.ceil() as i32` for |x| < 2^31 without a libm call.
#[inline(always)]
pub(crate) fn ceil_i32(x: f64) -> i32 {
    let t = x as i32;
    if (t as f64) < x {
        t + 1
    } else {
        t
    }
}

/// Soil and contact parameters (Krenn 2009, Table 1 and section 3.1) as the physics
/// takes them: the scenario's `scm.soil` at the current FMI parameter values, with
/// the world's gravity.
pub type SoilParams = section::ScmSoil;

#[cfg(test)]
mod tests {
    use crate::pmath;
    use super::*;
    use crate::geometry::TriMesh;
    use crate::geometry::terrain::Surface;
    use nalgebra::{Isometry3, UnitQuaternion, Vector3};

    fn flat() -> Surface {
        Surface::Plane {
            height: 0.0,
            angle: 0.0,
        }
    }

    /// Footprints over `contact::PARALLEL_NODES` compute node forces in parallel: the
    /// totals, the node data and the soil are the same bits on 1 and 3 threads.
    #[test]
    fn large_footprints_give_the_same_bits_on_any_thread_count() {
        let run = |threads: usize| {
            crate::parallel::with_threads(threads, || {
                let (ds, p, base) = (0.004, SoilParams::dlr_a(), flat());
                let mut grid = SoilGrid::new(ds, -1.0, 1.0, -1.0, 1.0);
                let mesh = TriMesh::sphere(0.3, 64);
                let mut ws = Workspace::default();
                let mut out = vec![];
                for s in 0..20 {
                    // a sphere sinking, sliding and spinning: every term of eq. (8)
                    let motion = BodyMotion {
                        iso: Isometry3::translation(0.002 * s as f64, 0.0, 0.3 - 0.002 * s as f64),
                        v: Vector3::new(0.2, 0.05, -0.1),
                        w: Vector3::new(0.3, 1.0, 0.2),
                    };
                    let r = evaluate(&p, &grid, &base, &mesh, &motion, &mut ws);
                    out.push((r.force, r.torque, r.sinkage, r.k_zz, r.c_zz));
                    deform::update(&p, &mut grid, &base, &mut ws, 1e-3, true);
                }
                assert!(
                    ws.nodes.len() >= contact::PARALLEL_NODES,
                    "{}",
                    ws.nodes.len()
                );
                (out, ws.foot.clone(), grid)
            })
        };
        let (a, b) = (run(1), run(3));
        assert_eq!(a.0, b.0);
        assert_eq!(a.1, b.1);
        assert!(a.2 == b.2);
    }

    /// Bodies across the field's edge: a sphere sinking in half on the field; a
    /// dumbbell whose low sphere sinks just outside it while the high one hangs over it
    /// (the faces below the soil top have their box beyond the edge, the update window
    /// reaches in); a sphere far outside. Forces only where there is soil, no panic,
    /// volume conserved.
    #[test]
    fn bodies_at_and_beyond_the_field_edge() {
        let (ds, p, base) = (0.01, SoilParams::dlr_a(), flat());
        let mut grid = SoilGrid::new(ds, -1.0, 1.0, -1.0, 1.0);
        let sphere = TriMesh::sphere(0.1, 32);
        let mut dumbbell = sphere.clone();
        dumbbell.append(&sphere, &Isometry3::translation(-0.25, 0.0, 0.4));
        for (mesh, x, touches) in [
            (&sphere, 1.0, true),
            (&dumbbell, 1.08, false),
            (&sphere, 1.5, false),
        ] {
            let mut ws = Workspace::default();
            for s in 0..20 {
                let motion = BodyMotion {
                    iso: Isometry3::translation(x, 0.0, 0.1 - 0.001 * s as f64),
                    v: Vector3::new(0.0, 0.0, -1.0),
                    w: Vector3::zeros(),
                };
                let r = evaluate(&p, &grid, &base, mesh, &motion, &mut ws);
                assert_eq!(r.contact_nodes > 0, touches && s > 0, "x {x}, step {s}");
                deform::update(&p, &mut grid, &base, &mut ws, 1e-3, true);
            }
        }
        assert!(grid.volume().abs() < 1e-12, "{}", grid.volume());
    }

    /// What [`rolling`] rolls through: ds = 1 cm, DLR-A soil on flat ground over 2 m
    /// by 2 m, a grouser wheel (r = 0.2 m, 16 grousers) and a fresh workspace.
    fn rolling_rig() -> (f64, SoilParams, Surface, SoilGrid, TriMesh, Workspace) {
        let ds = 0.01;
        (
            ds,
            SoilParams::dlr_a(),
            flat(),
            SoilGrid::new(ds, -1.0, 1.0, -1.0, 1.0),
            TriMesh::grouser_wheel(
                &crate::geometry::primitive::GrouserWheel {
                    radius: 0.2,
                    width: 0.15,
                    count: 16,
                    grouser_height: 0.01,
                    grouser_thickness: 0.01,
                },
                64,
            ),
            Workspace::default(),
        )
    }

    /// Step `s` of a wheel rolling forward and sinking, slowly enough that berms rise
    /// around it.
    fn rolling(s: usize) -> BodyMotion {
        BodyMotion {
            iso: Isometry3::new(
                Vector3::new(0.002 * s as f64, 0.0, 0.19 - 0.0002 * s as f64),
                Vector3::y() * 0.01 * s as f64,
            ),
            v: Vector3::new(0.1, 0.0, -0.01),
            w: Vector3::new(0.0, 0.5, 0.0),
        }
    }

    /// A body evaluated again at the same pose after a soil update (the World's output
    /// evaluation) reuses its scan conversion: the same result, node for node, as a
    /// fresh workspace that scan-converts anew.
    #[test]
    fn an_evaluation_at_the_same_pose_reuses_the_scan_conversion_exactly() {
        let (_, p, base, mut grid, mesh, mut ws) = rolling_rig();
        let mut reused = 0;
        for s in 0..60 {
            let motion = rolling(s);
            evaluate(&p, &grid, &base, &mesh, &motion, &mut ws);
            deform::update(&p, &mut grid, &base, &mut ws, 1e-3, true);
            let before = ws.raster_reuses;
            let again = evaluate(&p, &grid, &base, &mesh, &motion, &mut ws);
            reused += ws.raster_reuses - before;
            let mut fresh = Workspace::default();
            let anew = evaluate(&p, &grid, &base, &mesh, &motion, &mut fresh);
            assert_eq!(again, anew, "step {s}");
            assert_eq!(ws.foot, fresh.foot, "step {s}");
            assert_eq!(ws.rect, fresh.rect, "step {s}");
        }
        assert!(ws.result.force.z > 10.0, "the wheel carries load");
        // a pile of soil under the wheel's front, where its faces were above all soil
        // and left out of the scan conversion: no reuse, the same result as anew
        let motion = BodyMotion {
            iso: Isometry3::new(Vector3::new(0.118, 0.0, 0.178), Vector3::y() * 0.59),
            v: Vector3::zeros(),
            w: Vector3::zeros(),
        };
        evaluate(&p, &grid, &base, &mesh, &motion, &mut ws);
        let pile = rect::Rect {
            i0: 24,
            j0: -1,
            nx: 1,
            ny: 3,
        };
        let (mut h, mut zp, mut j) = (vec![], vec![], vec![]);
        grid.load(&base, &pile, &mut h, &mut zp, &mut j);
        h.iter_mut().for_each(|h| *h = 0.08);
        grid.store(&base, &pile, &h, &zp, &j, &[true; 3]);
        let before = ws.raster_reuses;
        let again = evaluate(&p, &grid, &base, &mesh, &motion, &mut ws);
        let anew = evaluate(&p, &grid, &base, &mesh, &motion, &mut Workspace::default());
        assert_eq!(ws.raster_reuses, before, "faces left out were reused");
        assert_eq!(again, anew);
        // the soil top around the wheel changes: most, not all, evaluations reuse
        eprintln!("reused the scan conversion {reused} of 60 times");
        assert!(reused >= 30, "reused {reused} of 60");
    }

    /// A scan conversion made ahead (`contact::scan_ahead`, beside the soil update) is
    /// taken only by an evaluation at exactly its pose, and gives the result of
    /// scan-converting there: a wheel rolling on, with the pose ahead right, off by
    /// 1e-12 m in x or turned by 1e-12 rad more (the evaluation must not take those).
    #[test]
    fn a_scan_made_ahead_is_taken_at_its_pose_only_and_changes_nothing() {
        let (ds, p, base, mut grid, mesh, mut ws) = rolling_rig();
        let motion = rolling;
        let mut taken = 0;
        for s in 0..60 {
            let here = evaluate(&p, &grid, &base, &mesh, &motion(s), &mut ws);
            let mut fresh = Workspace::default();
            assert_eq!(
                here,
                evaluate(&p, &grid, &base, &mesh, &motion(s), &mut fresh),
                "step {s}"
            );
            assert_eq!(ws.foot, fresh.foot, "step {s}");
            // ahead for the next pose, or one off by a hair in x, or turned a hair
            let mut next = motion(s + 1).iso;
            match s % 3 {
                0 => {}
                1 => next.translation.vector.x += 1e-12,
                _ => {
                    next.rotation =
                        UnitQuaternion::from_euler_angles(0.0, 0.01 * (s + 1) as f64 + 1e-12, 0.0)
                }
            }
            let mut ahead = ws.ahead.take().unwrap_or_default();
            contact::scan_ahead(&mesh, &next, ds, &grid.extent, ws.z_top, &mut ahead)();
            ws.ahead = Some(ahead);
            deform::update(&p, &mut grid, &base, &mut ws, 1e-3, true);
            let before = ws.ahead_taken;
            // the evaluation of the next step (above) takes it or not
            let _ = evaluate(&p, &grid, &base, &mesh, &motion(s + 1), &mut ws);
            let took = ws.ahead_taken - before;
            assert_eq!(took, u64::from(s % 3 == 0), "step {s}");
            taken += took;
            // and the same result as anew (the next iteration evaluates again at that
            // pose, reusing its own scan: compare here too)
            let mut fresh = Workspace::default();
            assert_eq!(
                ws.result,
                evaluate(&p, &grid, &base, &mesh, &motion(s + 1), &mut fresh),
                "step {s}"
            );
            assert_eq!(ws.foot, fresh.foot, "step {s}");
        }
        assert_eq!(taken, 20);
        assert!(ws.result.force.z > 10.0, "the wheel carries load");
    }

    /// Bodies with disjoint windows: preparing all updates, then committing them in
    /// order, leaves the same soil as updating body by body (what lets the World run
    /// the preparations in parallel).
    #[test]
    fn disjoint_bodies_prepare_then_commit_like_sequential_updates() {
        let (ds, p, base) = (0.01, SoilParams::dlr_a(), flat());
        let mesh = TriMesh::sphere(0.2, 48);
        let motion = |x: f64, s: usize| BodyMotion {
            iso: Isometry3::translation(x + 0.003 * s as f64, 0.0, 0.2 - 0.003 * s as f64),
            v: Vector3::new(0.3, 0.0, -0.1),
            w: Vector3::new(0.0, 1.0, 0.0),
        };
        let mut seq = SoilGrid::new(ds, -2.0, 2.0, -1.0, 1.0);
        let mut two = seq.clone();
        let (mut a, mut b) = (
            [Workspace::default(), Workspace::default()],
            [Workspace::default(), Workspace::default()],
        );
        for s in 0..15 {
            for (k, x) in [-0.6, 0.6].into_iter().enumerate() {
                evaluate(&p, &seq, &base, &mesh, &motion(x, s), &mut a[k]);
                evaluate(&p, &two, &base, &mesh, &motion(x, s), &mut b[k]);
            }
            assert!(b[0].update_rect.intersect(&b[1].update_rect).is_empty());
            for ws in a.iter_mut() {
                deform::update(&p, &mut seq, &base, ws, 1e-3, true);
            }
            for ws in b.iter_mut() {
                ws.pending = deform::prepare(&p, &two, &base, ws, 1e-3, true);
            }
            for ws in b.iter_mut() {
                if ws.pending {
                    deform::commit(&mut two, &base, ws);
                }
            }
            assert!(seq == two, "step {s}");
        }
        assert!(seq.volume().abs() < 1e-12 && seq.tile_count() > 0);
    }

    /// The erosion's first sweep visits only what the last update did not leave at
    /// rest, and the shear reset only the nodes that can hold a shear displacement
    /// (deform::AtRest): the same soil, bit for bit, as full passes, for a body
    /// sinking and sliding across nodes (its windows shift), for two bodies whose
    /// windows overlap (each one's store spoils the other's record and buffers), and across a
    /// restore of an earlier soil (a new history), on flat soil and on a base surface
    /// with a cliff steeper than the repose slope that the windows reach; with the
    /// erosion stopping at the body's underside too (pairs it holds steep are swept
    /// again in the next update).
    #[test]
    fn soil_updates_from_the_last_rest_give_the_bits_of_full_passes() {
        let cliff = Surface::Profile {
            points: vec![[-1.0, 0.0], [0.2, 0.0], [0.22, 0.05], [1.0, 0.05]],
        };
        for base in [flat(), cliff] {
            for stops in [false, true] {
                erosion_from_rest_on(&base, stops);
            }
        }
    }

    fn erosion_from_rest_on(base: &Surface, stops: bool) {
        let ds = 0.01;
        let p = SoilParams {
            erosion_stops_at_bodies: stops,
            ..SoilParams::dlr_a()
        };
        // stopping at the underside, a few more updates after the restore start over
        // (the spheres sit deep in the restored soil, whose walls they hold)
        let slack = if stops { 3 } else { 1 };
        let mesh = TriMesh::sphere(0.15, 48);
        let motion = |x: f64, s: usize| BodyMotion {
            iso: Isometry3::translation(x + 0.004 * s as f64, 0.0, 0.15 - 0.002 * s as f64),
            v: Vector3::new(0.4, 0.1, -0.2),
            w: Vector3::new(0.0, 1.0, 0.0),
        };
        for xs in [&[0.0][..], &[0.0, 0.2], &[-0.6, 0.6]] {
            let mut full = SoilGrid::new(ds, -1.0, 1.0, -1.0, 1.0);
            let mut seeded = full.clone();
            let mut wf: Vec<Workspace> = xs.iter().map(|_| Workspace::default()).collect();
            let mut wsd: Vec<Workspace> = xs.iter().map(|_| Workspace::default()).collect();
            wf.iter_mut().for_each(|w| w.full_sweeps = true);
            let mut early = None;
            for s in 0..60 {
                if s == 20 {
                    early = Some((full.clone(), seeded.clone()));
                }
                if s == 40 {
                    // back to step 20's soil (the bodies carry on from where they are)
                    let (f, d) = early.take().unwrap();
                    (full, seeded) = (f, d);
                    full.rebuild_index();
                    seeded.rebuild_index();
                }
                for (k, &x) in xs.iter().enumerate() {
                    let rf = evaluate(&p, &full, base, &mesh, &motion(x, s), &mut wf[k]);
                    let rs = evaluate(&p, &seeded, base, &mesh, &motion(x, s), &mut wsd[k]);
                    assert_eq!(rf, rs, "bodies {xs:?}, step {s}, {base:?}");
                    deform::update(&p, &mut full, base, &mut wf[k], 1e-3, true);
                    deform::update(&p, &mut seeded, base, &mut wsd[k], 1e-3, true);
                    assert!(full == seeded, "bodies {xs:?}, step {s}, {base:?}");
                }
            }
            assert!(wf.iter().all(|w| w.seeded_erosions == 0));
            // the loads over the last window's buffers: all but the first and the one
            // after the restore for one body or two far apart, none for two close
            // together (each one's store writes into the other's window)
            assert!(wf.iter().all(|w| w.update_bufs.reused == 0));
            let loads: u64 = wsd.iter().map(|w| w.update_bufs.reused).sum();
            if xs[0] == 0.0 && xs.len() == 2 {
                assert_eq!(loads, 0, "{base:?}");
            } else {
                assert!(
                    loads + (2 + slack) * xs.len() as u64 >= 60 * xs.len() as u64,
                    "{loads} {xs:?}"
                );
            }
            let n: u64 = wsd.iter().map(|w| w.seeded_erosions).sum();
            // one body, or two far apart: every update but the first one or two (the
            // sphere touches the soil from step 0 or 1) and the one after the
            // restore; two bodies close together: none (each one's store writes
            // tiles of the other's window)
            if xs[0] == 0.0 && xs.len() == 2 {
                assert_eq!(n, 0, "{base:?}");
            } else {
                let most = 58 * xs.len() as u64;
                assert!(
                    n + slack * xs.len() as u64 >= most && n <= most,
                    "{n} {xs:?} {base:?}"
                );
            }
            assert!(full.tile_count() > 0);
        }
    }

    #[test]
    fn fast_floor_and_ceil_match_the_library() {
        for &x in &[
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            2.999999,
            -2.999999,
            1e6 + 0.25,
            -7.0,
            1e-300,
            -1e-300,
        ] {
            assert_eq!(floor_i32(x), x.floor() as i32, "{x}");
            assert_eq!(ceil_i32(x), x.ceil() as i32, "{x}");
        }
    }

    /// A plate pressed into flat soil follows eq. (2) with the discrete A and L, and
    /// the soil it displaces stays in the field (volume conserved).
    #[test]
    fn a_pressed_plate_traces_eq_2_and_conserves_volume() {
        let ds = 0.01;
        let p = SoilParams::dlr_a();
        let base = flat();
        let mut grid = SoilGrid::new(ds, -1.0, 1.0, -1.0, 1.0);
        let mesh = TriMesh::plate(0.15, 0.02, crate::geometry::segments(0.15, ds));
        let mut ws = Workspace::default();
        for s in 1..=40 {
            let z = -(s as f64) * 1e-3;
            let motion = BodyMotion {
                iso: Isometry3::translation(0.0, 0.0, z),
                v: Vector3::zeros(),
                w: Vector3::zeros(),
            };
            let r = evaluate(&p, &grid, &base, &mesh, &motion, &mut ws);
            let ideal = (r.contour * p.kc / 2.0 + r.area * p.kphi) * pmath::powf(-z, p.n);
            assert!(
                (r.force.z / ideal - 1.0).abs() < 1e-9,
                "z {z}: {} vs {ideal}",
                r.force.z
            );
            assert!(r.force.x.abs() < 1e-9 && r.force.y.abs() < 1e-9);
            deform::update(&p, &mut grid, &base, &mut ws, 1e-3, true);
            let v = grid.volume();
            assert!(v.abs() < 1e-12, "volume {v}");
        }
        // true circle: A within 3 %, L within 5 %
        let r = ws.result;
        let a0 = std::f64::consts::PI * 0.15 * 0.15;
        assert!((r.area / a0 - 1.0).abs() < 0.03, "{}", r.area / a0);
        assert!((r.contour / (2.0 * std::f64::consts::PI * 0.15) - 1.0).abs() < 0.05);
        // the displaced soil sits around the plate
        let (h, _) = grid.node(&base, 17, 0);
        assert!(h > 0.0, "{h}");
    }

    /// Soil classes per node: a plate pressed into a class's region traces eq. (2)
    /// with that class's parameters (as on a field of that soil alone), next to a
    /// plate on the global soil; erosion levels each region to its own angle of repose.
    #[test]
    fn a_soil_map_gives_each_region_its_bekker_curve_and_repose() {
        use section::ScmSoilClass;
        use soil_map::SoilMap;
        let (ds, p, base) = (0.01, SoilParams::dlr_a(), flat());
        let class1 = SoilParams {
            n: 0.8,
            kc: 5000.0,
            kphi: 120_000.0,
            c: 500.0,
            phi: 30f64.to_radians(),
            repose: 25f64.to_radians(),
            ..p
        };
        // x < 0: class 0 (the global soil), x >= 0: class 1; 2 cm pixels
        let (nx, ny) = (100, 50);
        let map = SoilMap {
            origin: [-1.0, -0.5],
            cell: 0.02,
            nx,
            ny,
            class: (0..nx * ny).map(|k| (k % nx >= 50) as u8).collect(),
            classes: vec![ScmSoilClass {
                n: Some(class1.n),
                kc: Some(class1.kc),
                kphi: Some(class1.kphi),
                c: Some(class1.c),
                phi: Some(class1.phi),
                repose: Some(class1.repose),
            }],
        };
        assert_eq!((map.class_at(-0.3, 0.0), map.class_at(0.3, 0.0)), (0, 1));
        assert_eq!(map.class_at(5.0, 0.0), 0, "off the map: class 0");
        let mut mapped = SoilGrid::new(ds, -1.0, 1.0, -0.5, 0.5);
        mapped.set_soil_map(Some(std::sync::Arc::new(map)));
        let mut alone = SoilGrid::new(ds, -1.0, 1.0, -0.5, 0.5);
        let mesh = TriMesh::plate(0.15, 0.02, crate::geometry::segments(0.15, ds));
        let (mut left, mut right, mut reference) = (
            Workspace::default(),
            Workspace::default(),
            Workspace::default(),
        );
        let at = |x: f64, z: f64| BodyMotion {
            iso: Isometry3::translation(x, 0.0, z),
            v: Vector3::zeros(),
            w: Vector3::zeros(),
        };
        for s in 1..=40 {
            let z = -(s as f64) * 1e-3;
            for (x, q, ws) in [(-0.45, &p, &mut left), (0.45, &class1, &mut right)] {
                let r = evaluate(&p, &mapped, &base, &mesh, &at(x, z), ws);
                let ideal = (r.contour * q.kc / 2.0 + r.area * q.kphi) * pmath::powf(-z, q.n);
                assert!(
                    (r.force.z / ideal - 1.0).abs() < 1e-9,
                    "x {x}, z {z}: {} vs {ideal}",
                    r.force.z
                );
                deform::update(&p, &mut mapped, &base, ws, 1e-3, true);
            }
            // the class-1 plate as on a field of class-1 soil alone
            let r = evaluate(&class1, &alone, &base, &mesh, &at(0.45, z), &mut reference);
            assert!((right.result.force.z / r.force.z - 1.0).abs() < 1e-9);
            deform::update(&class1, &mut alone, &base, &mut reference, 1e-3, true);
            assert!(mapped.volume().abs() < 1e-12);
        }
        // let the berms settle, then compare the steepest slopes beside each plate
        for _ in 0..30 {
            for (x, ws) in [(-0.45, &mut left), (0.45, &mut right)] {
                evaluate(&p, &mapped, &base, &mesh, &at(x, -0.04), ws);
                deform::update(&p, &mut mapped, &base, ws, 1e-3, true);
            }
        }
        // the steepest pair beside a plate (centre node ic), inside its update window
        // (the footprint's box, nodes ic - 14 to ic + 14, and 6 more): erosion levels
        // pairs off the footprint inside the window only
        let steepest = |ic: i32| {
            let off = |i: i32, j: i32| (((i - ic) * (i - ic) + j * j) as f64).sqrt() > 15.5;
            let mut top = 0.0f64;
            for j in -20..=20 {
                for i in ic - 20..=ic + 20 {
                    let (h, _) = mapped.node(&base, i, j);
                    for (a, b) in [(i + 1, j), (i, j + 1)] {
                        if a <= ic + 20 && b <= 20 && off(i, j) && off(a, b) {
                            top = top.max((h - mapped.node(&base, a, b).0).abs());
                        }
                    }
                }
            }
            top / ds
        };
        let (left_slope, right_slope) = (steepest(-45), steepest(45));
        let tol = erosion::EROSION_TOL / ds;
        assert!(
            right_slope <= pmath::tan(class1.repose) + tol,
            "class 1: {right_slope}"
        );
        assert!(
            left_slope > pmath::tan(class1.repose) + 10.0 * tol,
            "class 0: {left_slope}"
        );
        assert!(left_slope <= pmath::tan(p.repose) + tol, "class 0: {left_slope}");
    }
}
