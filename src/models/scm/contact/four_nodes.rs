//! The node forces of eq. (7), (8) four footprint nodes at a time where the processor
//! has AVX2: the same IEEE operations in the same order on each lane as
//! [`NodeInput::force`] (no fused multiply-add), so each node gets the same bits, and
//! the totals are still summed node by node in node order. Other processors take
//! [`NodeInput::force`] node by node.
//!
//! Written with the intrinsics: the compiler's own vectorization of the same lane-wise
//! code was slower than one node at a time (one thread at 1 cm, 42.5 -> 46.9 µs).
//!
//! Why: the node forces were about 5 of a wheel's 42 µs step at 1 cm and 15 of 141 µs
//! at 5 mm on one thread (2026-12-06), and at 1 cm they run on the caller with the
//! helper beside them on the side pressure only.

use super::{Flow, FootNode, NodeInput, NodeOut};
#[cfg(target_arch = "x86_64")]
use {crate::pmath, nalgebra::Vector3};

/// The node forces of footprint nodes `m0 ..` (`nodes`: their window indices) into
/// `foot`, and their sum in node order (as [`NodeOut::merge`] one by one from zero).
pub(super) fn run(
    node: &NodeInput<'_>,
    m0: usize,
    nodes: &[u32],
    foot: &mut [FootNode],
) -> NodeOut {
    debug_assert_eq!(nodes.len(), foot.len());
    let mut total = NodeOut::default();
    #[cfg(target_arch = "x86_64")]
    let done = if std::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is there (checked above)
        unsafe { groups_avx2(node, m0, nodes, foot, &mut total) }
    } else {
        0
    };
    #[cfg(not(target_arch = "x86_64"))]
    let done = 0;
    for (o, (&k, fo)) in nodes.iter().zip(foot.iter_mut()).enumerate().skip(done) {
        let (f, out) = node.force(m0 + o, k as usize);
        *fo = f;
        total.merge(&out);
    }
    total
}

/// The whole groups of four of [`run`] (with one soil; none with classes), merged into
/// `total`; returns how many leading nodes it did.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn groups_avx2(
    nd: &NodeInput<'_>,
    m0: usize,
    nodes: &[u32],
    foot: &mut [FootNode],
    total: &mut NodeOut,
) -> usize {
    use std::arch::x86_64::*;
    if !nd.class.is_empty() {
        return 0;
    }
    let (p, soil) = (nd.p, &nd.soils[0]);
    let all = _mm256_set1_pd;
    let (soil_c, soil_tan, soil_n, k_b) =
        (all(soil.c), all(soil.tan_phi), all(soil.n), all(nd.k_b[0]));
    let (k_e, damping, mu, v_shear) = (all(p.k_e), all(p.damping), all(p.mu), all(p.v_shear));
    let (ds, da) = (all(nd.ds), all(nd.da));
    let (o, v0, w0) = (nd.origin, nd.v0, nd.w0);
    let (ox, oy, oz) = (all(o.x), all(o.y), all(o.z));
    let (v0x, v0y, v0z) = (all(v0.x), all(v0.y), all(v0.z));
    let (w0x, w0y, w0z) = (all(w0.x), all(w0.y), all(w0.z));
    let (zero, quarter, tiny) = (all(0.0), all(0.25), all(1e-9));
    // Sliding at 22 v_shear or faster, tanh(speed / v_shear) is 1 to the last bit (from
    // about 19 on), so `speed < 22 v_shear` picks the nodes that need it without the
    // division: where the two tests differ (a quotient within an ulp or two of 22),
    // both give 1. With a v_shear that is not a positive number every sliding node
    // takes the division, as in `force`.
    let fast_speed = if p.v_shear > 0.0 && p.v_shear.is_finite() {
        all(22.0 * p.v_shear)
    } else {
        all(f64::INFINITY)
    };
    let sign = all(-0.0);
    let flow_tiny = all(1e-12);
    // the pressure weights' parts (`Weights::at`: ((1 - chi) + chi u (2 - u)) scale)
    let weights = nd.weights.map(|w| {
        let (u, chi, scale) = w.parts();
        (u, all(1.0 - chi), all(chi), all(scale))
    });
    let two = all(2.0);
    macro_rules! add {
        ($a:expr, $b:expr) => {
            _mm256_add_pd($a, $b)
        };
    }
    macro_rules! sub {
        ($a:expr, $b:expr) => {
            _mm256_sub_pd($a, $b)
        };
    }
    macro_rules! mul {
        ($a:expr, $b:expr) => {
            _mm256_mul_pd($a, $b)
        };
    }
    macro_rules! lanes {
        (|$l:ident| $e:expr) => {{
            let f = |$l: usize| $e;
            _mm256_set_pd(f(3), f(2), f(1), f(0))
        }};
    }
    macro_rules! at_k {
        ($a:expr, $ks:expr, $run:expr) => {{
            let a: &[f64] = $a;
            if $run {
                let s = &a[$ks[0]..$ks[0] + 4];
                _mm256_loadu_pd(s.as_ptr())
            } else {
                _mm256_set_pd(a[$ks[3]], a[$ks[2]], a[$ks[1]], a[$ks[0]])
            }
        }};
    }
    macro_rules! at_m {
        ($a:expr, $m:expr) => {{
            let s: &[f64] = &$a[$m..$m + 4];
            _mm256_loadu_pd(s.as_ptr())
        }};
    }
    macro_rules! out {
        ($v:expr) => {{
            let mut a = [0.0f64; 4];
            _mm256_storeu_pd(a.as_mut_ptr(), $v);
            a
        }};
    }
    let groups = nodes.len() / 4;
    for g in 0..groups {
        let at = 4 * g;
        let m = m0 + at;
        let ks = [0, 1, 2, 3].map(|l| nodes[at + l] as usize);
        // consecutive window nodes (most groups: a footprint row) load at once
        let run = ks[3] == ks[0] + 3 && ks[1] == ks[0] + 1 && ks[2] == ks[0] + 2;
        let zmin = at_k!(nd.zmin, ks, run);
        let h = at_k!(nd.h, ks, run);
        let zp = at_k!(nd.zp, ks, run);
        let gamma = match weights {
            Some((u, one_less, chi, scale)) => {
                let u = at_m!(u, m);
                mul!(add!(one_less, mul!(mul!(chi, u), sub!(two, u))), scale)
            }
            None => all(1.0),
        };
        let zn = at_m!(nd.zn, m);
        let mob = at_m!(nd.mobilized, m);
        // the four faces' normals: x and y of each at once, then transposed (copies
        // of whole normals made lanes through the stack, stalling the loads)
        // (a Vector3 holds its three coordinates in a row)
        let n = ks.map(|k| nd.face_normal[nd.face[k] as usize].as_ptr());
        let xy = n.map(|n| _mm_loadu_pd(n));
        let xy02 = _mm256_insertf128_pd::<1>(_mm256_castpd128_pd256(xy[0]), xy[2]);
        let xy13 = _mm256_insertf128_pd::<1>(_mm256_castpd128_pd256(xy[1]), xy[3]);
        let (nx, ny) = (
            _mm256_unpacklo_pd(xy02, xy13),
            _mm256_unpackhi_pd(xy02, xy13),
        );
        let nz = lanes!(|l| *n[l].add(2));
        let cells = &nd.cells[m..m + 4];
        let ci = lanes!(|l| cells[l].0 as f64);
        let cj = lanes!(|l| cells[l].1 as f64);
        // point - origin; v = v0 + w0 x lever (nalgebra's cross: ay bz - az by, ...)
        let lx = sub!(mul!(ci, ds), ox);
        let ly = sub!(mul!(cj, ds), oy);
        let lz = sub!(zmin, oz);
        let vx = add!(v0x, sub!(mul!(w0y, lz), mul!(w0z, ly)));
        let vy = add!(v0y, sub!(mul!(w0z, lx), mul!(w0x, lz)));
        let vz = add!(v0z, sub!(mul!(w0x, ly), mul!(w0y, lx)));
        let z = sub!(add!(h, zp), zmin);
        let gk = mul!(gamma, k_b);
        let yield_p = mul!(gk, zn);
        // node_pressure: the yield pressure where the elastic trial reaches it
        let elastic = mul!(k_e, sub!(z, zp));
        let plastic = _mm256_cmp_pd::<_CMP_GE_OQ>(elastic, yield_p);
        let sigma = _mm256_blendv_pd(_mm256_max_pd(elastic, zero), yield_p, plastic);
        // v . n as nalgebra's dot: (a0 b0 + a1 b1) + a2 b2
        let vdn = add!(add!(mul!(vx, nx), mul!(vy, ny)), mul!(vz, nz));
        let v_pen = _mm256_xor_pd(vdn, sign);
        let pressure = _mm256_max_pd(add!(sigma, mul!(damping, v_pen)), zero);
        let nzc = _mm256_max_pd(nz, quarter);
        let a_i = _mm256_div_pd(da, nzc);
        let (vnx, vny, vnz) = (mul!(nx, vdn), mul!(ny, vdn), mul!(nz, vdn));
        let (tx, ty, tz) = (sub!(vx, vnx), sub!(vy, vny), sub!(vz, vnz));
        let speed = _mm256_sqrt_pd(add!(add!(mul!(tx, tx), mul!(ty, ty)), mul!(tz, tz)));
        let pa = mul!(pressure, a_i);
        // the shear where the node slides; tanh only below 22 v_shear (see `force`),
        // the division by v_shear only where a node may slide slower (about one group
        // in a hundred at 5 mm: the division held up the rest of the group)
        let sliding = _mm256_cmp_pd::<_CMP_GT_OQ>(speed, zero);
        let slow = _mm256_and_pd(sliding, _mm256_cmp_pd::<_CMP_LT_OQ>(speed, fast_speed));
        let reg = if _mm256_movemask_pd(slow) == 0 {
            all(1.0)
        } else {
            let (s, slow) = (
                out!(_mm256_div_pd(speed, v_shear)),
                _mm256_movemask_pd(slow),
            );
            // (as `force`: a NaN quotient takes tanh)
            lanes!(|l| if slow >> l & 1 == 0 || s[l] >= 22.0 {
                1.0
            } else {
                pmath::tanh(s[l])
            })
        };
        let tau_max = add!(add!(soil_c, mul!(pressure, soil_tan)), mul!(mu, pressure));
        let tau = mul!(mul!(tau_max, mob), reg);
        let q = _mm256_div_pd(mul!(tau, a_i), speed);
        let fx = _mm256_blendv_pd(mul!(nx, pa), sub!(mul!(nx, pa), mul!(tx, q)), sliding);
        let fy = _mm256_blendv_pd(mul!(ny, pa), sub!(mul!(ny, pa), mul!(ty, q)), sliding);
        let fz = _mm256_blendv_pd(mul!(nz, pa), sub!(mul!(nz, pa), mul!(tz, q)), sliding);
        let yielding = _mm256_div_pd(mul!(soil_n, yield_p), _mm256_max_pd(z, tiny));
        // (f64::min(x, k_e) gives k_e for a NaN x, as min_pd; a NaN k_e yields nowhere)
        let slope = _mm256_blendv_pd(k_e, _mm256_min_pd(yielding, k_e), plastic);
        let mx = sub!(mul!(ly, fz), mul!(lz, fy));
        let my = sub!(mul!(lz, fx), mul!(lx, fz));
        let mz = sub!(mul!(lx, fy), mul!(ly, fx));
        let k_zz = mul!(mul!(mul!(a_i, nzc), nzc), slope);
        let c_zz = mul!(mul!(mul!(damping, a_i), nzc), nzc);
        let (fx, fy, fz, mx, my, mz) = (out!(fx), out!(fy), out!(fz), out!(mx), out!(my), out!(mz));
        let (z, k_zz, c_zz, gk) = (out!(z), out!(k_zz), out!(c_zz), out!(gk));
        // the flow (`Flow::of`): f64::max's rule for a NaN (the other one) is max_pd's
        // for a NaN first operand only
        let horizontal = _mm256_sqrt_pd(add!(mul!(vnx, vnx), mul!(vny, vny)));
        let both = add!(horizontal, _mm256_andnot_pd(sign, vnz));
        let share = _mm256_blendv_pd(
            zero,
            _mm256_div_pd(horizontal, both),
            _mm256_cmp_pd::<_CMP_GT_OQ>(both, flow_tiny),
        );
        let (ax, ay) = (_mm256_andnot_pd(sign, vnx), _mm256_andnot_pd(sign, vny));
        let m = _mm256_blendv_pd(
            _mm256_max_pd(ax, ay),
            ax,
            _mm256_cmp_pd::<_CMP_UNORD_Q>(ay, ay),
        );
        let stepping = _mm256_cmp_pd::<_CMP_GT_OQ>(m, flow_tiny);
        let step_x = _mm256_blendv_pd(zero, _mm256_div_pd(vnx, m), stepping);
        let step_y = _mm256_blendv_pd(zero, _mm256_div_pd(vny, m), stepping);
        let (share, step_x, step_y, speed) = (out!(share), out!(step_x), out!(step_y), out!(speed));
        let (zn, zmin) = (out!(zn), out!(zmin));
        for l in 0..4 {
            foot[at + l] = FootNode {
                k: ks[l] as u32,
                gk: gk[l],
                flow: Flow {
                    share: share[l],
                    step: [step_x[l], step_y[l]],
                },
                slide: speed[l],
                z: z[l],
                zn: zn[l],
                zmin: zmin[l],
            };
            total.merge(&NodeOut {
                f: Vector3::new(fx[l], fy[l], fz[l]),
                torque: Vector3::new(mx[l], my[l], mz[l]),
                z: z[l],
                k_zz: k_zz[l],
                c_zz: c_zz[l],
            });
        }
    }
    groups * 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::scm::soil_map::NodeSoil;
    use crate::models::scm::footprint::Weights;
    use crate::models::scm::SoilParams;
    use nalgebra::Vector3;
    use rand::{Rng, SeedableRng};

    /// Bits of everything a node gives the update and the totals.
    fn bits(f: &FootNode, o: &NodeOut) -> Vec<u64> {
        let mut b = vec![f.k as u64, f.gk.to_bits(), f.slide.to_bits(), f.z.to_bits()];
        b.extend([f.zn, f.zmin, f.flow.share, f.flow.step[0], f.flow.step[1]].map(f64::to_bits));
        b.extend([o.f.x, o.f.y, o.f.z, o.torque.x, o.torque.y, o.torque.z].map(f64::to_bits));
        b.extend([o.z, o.k_zz, o.c_zz].map(f64::to_bits));
        b
    }

    /// Where `speed < 22 v_shear` (the four-node test) and `speed / v_shear < 22` (one
    /// node's) differ, tanh of the quotient is 1 to the last bit: both give the shear
    /// its full direction. Speeds within 64 ulps of 22 v_shear, v_shear over twelve
    /// decades.
    #[test]
    fn sliding_at_22_v_shear_needs_no_division() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(22);
        let mut differ = 0;
        for _ in 0..200_000 {
            let v_shear = crate::pmath::powf(10.0, rng.gen_range(-9.0..3.0));
            let edge = 22.0 * v_shear;
            let speed = f64::from_bits((edge.to_bits() as i64 + rng.gen_range(-64..=64)) as u64);
            let quotient = speed / v_shear;
            if (speed < edge) != (quotient < 22.0) {
                differ += 1;
                assert_eq!(crate::pmath::tanh(quotient), 1.0, "{speed} / {v_shear}");
            }
        }
        assert_eq!(crate::pmath::tanh(19.5), 1.0);
        assert!(differ > 100, "the two tests differed {differ} times");
    }

    /// Four at a time gives each node, and the totals, the bits of one node at a time:
    /// random footprints with runs and jumps of window nodes, nodes above the soil,
    /// unloaded and yielding ones, at rest, sliding slower than 22 v_shear (tanh) and
    /// faster, flows on either side of their 1e-12 m/s, and a NaN k_e (f64::min's
    /// rule).
    #[test]
    fn four_at_a_time_gives_the_bits_of_one_at_a_time() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        #[cfg(target_arch = "x86_64")]
        let mut grouped = 0;
        for case in 0..400 {
            let mut p = SoilParams::dlr_a();
            if case % 50 == 49 {
                p.k_e = f64::NAN;
            }
            if case % 7 == 3 {
                p.mu = 0.3;
            }
            let soils = [NodeSoil::of(&p)];
            let w = 96;
            let face_normal: Vec<Vector3<f64>> = (0..6)
                .map(|f| match f {
                    0 => Vector3::z(),
                    1 => Vector3::new(0.0, 1.0, 0.1).normalize(),
                    _ => Vector3::new(rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0), 1.0)
                        .normalize(),
                })
                .collect();
            let face: Vec<u32> = (0..w).map(|_| rng.gen_range(0..6)).collect();
            let zmin: Vec<f64> = (0..w).map(|_| rng.gen_range(-0.05..0.01)).collect();
            // (every fifth node at its mesh point: an elastic trial of zero)
            let h: Vec<f64> = (0..w)
                .map(|k| {
                    if k % 5 == 1 {
                        zmin[k]
                    } else {
                        rng.gen_range(-0.03..0.0)
                    }
                })
                .collect();
            let zp: Vec<f64> = (0..w)
                .map(|k| {
                    if k % 5 == 0 {
                        0.0
                    } else {
                        rng.gen_range(0.0..0.02)
                    }
                })
                .collect();
            // runs of consecutive window nodes and jumps
            let mut nodes = Vec::new();
            let mut k = rng.gen_range(0..4);
            while k < w && nodes.len() < 61 {
                nodes.push(k as u32);
                k += if rng.gen_bool(0.8) {
                    1
                } else {
                    rng.gen_range(2..5)
                };
            }
            let count = nodes.len();
            // centralities for the pressure weights, or none (no cohesion)
            let u: Vec<f64> = (0..count).map(|_| rng.gen_range(0.0..=1.0)).collect();
            let chi = [0.0, 0.3, 1.0][case % 3];
            let zn: Vec<f64> = (0..count)
                .map(|m| {
                    let k = nodes[m] as usize;
                    let z = h[k] + zp[k] - zmin[k];
                    if z > 0.0 {
                        crate::pmath::powf(z, p.n)
                    } else {
                        0.0
                    }
                })
                .collect();
            let mobilized: Vec<f64> = (0..count).map(|_| rng.gen_range(0.0..1.0)).collect();
            let cells: Vec<(i32, i32)> = (0..count)
                .map(|m| (nodes[m] as i32 % 12 - 3, nodes[m] as i32 / 12 + 40))
                .collect();
            // at rest, creeping (tanh), rolling, and about the flow's 1e-12 m/s
            let scale = [0.0, 1e-5, 1e-3, 0.2, 2e-12][case % 5];
            let mut vec3 =
                |s: f64| Vector3::from_fn(|_, _| if s > 0.0 { rng.gen_range(-s..s) } else { 0.0 });
            let (v0, w0, origin) = (vec3(scale), vec3(10.0 * scale), vec3(0.3));
            let node = NodeInput {
                p: &p,
                ds: 0.01,
                origin,
                v0,
                w0,
                soils: &soils,
                class: &[],
                k_b: &[rng.gen_range(50_000.0..300_000.0)],
                da: 1e-4,
                zmin: &zmin,
                h: &h,
                zp: &zp,
                face: &face,
                face_normal: &face_normal,
                weights: Weights::of(chi, &u),
                zn: &zn,
                mobilized: &mobilized,
                cells: &cells,
            };
            let mut want = NodeOut::default();
            let mut want_bits = Vec::new();
            for (m, &k) in nodes.iter().enumerate() {
                let (f, o) = node.force(m, k as usize);
                want.merge(&o);
                want_bits.push(bits(&f, &o));
            }
            let mut foot = vec![FootNode::default(); count];
            let got = run(&node, 0, &nodes, &mut foot);
            let empty = NodeOut::default();
            assert_eq!(
                bits(&foot[0], &got),
                bits(&foot[0], &want),
                "case {case}: totals"
            );
            for (m, f) in foot.iter().enumerate() {
                assert_eq!(
                    bits(f, &empty)[..9],
                    want_bits[m][..9],
                    "case {case}, node {m}"
                );
            }
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("avx2") {
                let mut total = NodeOut::default();
                // SAFETY: AVX2 is there (checked above)
                grouped += unsafe { groups_avx2(&node, 0, &nodes, &mut foot, &mut total) };
            }
        }
        // the four-lane path ran where the processor has it
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            assert!(grouped > 400 * 40, "{grouped} nodes in groups of four");
        }
    }
}
