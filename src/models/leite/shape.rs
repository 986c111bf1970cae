//! The normal stress shape of Leite 2010, section 3.3 and Fig. 8: a Chaikin curve
//! (Chaikin 1974) over six control points shapes sigma along each slice's contact arc.
//!
//! The curve lives in normalized coordinates (u, h): u runs over the contact arc, 0 at
//! the exit angle theta_2, 1/2 at the angle of maximum stress theta_m, 1 at the entry
//! angle theta_1 (linear in theta on each half); h is sigma over the Bekker pressure at
//! theta_m. The two end points are fixed at (0, 0) and (1, 0) (the soil carries no
//! stress where the wheel enters and leaves it); the four in between are parameters.
//! So the curve is computed once per parameter set ([`StressShape::new`]) and each
//! slice only scales it: the "high-speed curve generation" of the paper.

use crate::models::quadrature::GaussLegendre;

/// Control points in (u, h) between the fixed ends: the default is the least-squares
/// fit (5 iterations, symmetric) to Wong and Reece's distribution with n = 1.4 (DLR-D2,
/// the soil of Leite 2010, Table 1), RMS error 0.3 % of the peak.
pub const DEFAULT_CONTROL: [[f64; 2]; 4] = [
    [0.058, 0.054],
    [0.465, 0.984],
    [0.535, 0.984],
    [0.942, 0.054],
];

/// The open Chaikin curve after `iterations` rounds of corner cutting: each segment
/// P_i P_i+1 becomes the points 3/4 P_i + 1/4 P_i+1 and 1/4 P_i + 3/4 P_i+1; the
/// end points stay (Chaikin 1974). The limit is the quadratic B-spline of the points.
pub fn chaikin(points: &[[f64; 2]], iterations: u32) -> Vec<[f64; 2]> {
    let mut p = points.to_vec();
    for _ in 0..iterations {
        if p.len() < 3 {
            break;
        }
        let mut q = Vec::with_capacity(2 * p.len());
        q.push(p[0]);
        for s in p.windows(2) {
            let (a, b) = (s[0], s[1]);
            q.push([0.75 * a[0] + 0.25 * b[0], 0.75 * a[1] + 0.25 * b[1]]);
            q.push([0.25 * a[0] + 0.75 * b[0], 0.25 * a[1] + 0.75 * b[1]]);
        }
        q.push(p[p.len() - 1]);
        p = q;
    }
    p
}

/// h at `u` on the polyline `curve` (ascending u), linearly between its points; 0
/// outside.
pub fn height_at(curve: &[[f64; 2]], u: f64) -> f64 {
    let i = curve.partition_point(|p| p[0] < u);
    if i == 0 || i == curve.len() {
        return if i == 0 && curve.first().is_some_and(|p| p[0] == u) {
            curve[0][1]
        } else {
            0.0
        };
    }
    let (a, b) = (curve[i - 1], curve[i]);
    let t = if b[0] > a[0] {
        (u - a[0]) / (b[0] - a[0])
    } else {
        1.0
    };
    a[1] + t * (b[1] - a[1])
}

/// The stress shape sampled where the quadrature evaluates it: Gauss-Legendre nodes
/// on the rear half (u in [0, 1/2], theta in [theta_2, theta_m]) and on the front
/// half (u in [1/2, 1], theta in [theta_m, theta_1]).
#[derive(Debug, Clone, PartialEq)]
pub struct StressShape {
    /// The rule on each half.
    pub rule: GaussLegendre,
    /// h at the rule's nodes on the rear half.
    pub rear: Vec<f64>,
    /// h at the rule's nodes on the front half.
    pub front: Vec<f64>,
}

impl StressShape {
    /// The shape of the four middle `control` points (u ascending) after `iterations`
    /// Chaikin rounds, sampled at `points` Gauss-Legendre nodes per half.
    pub fn new(control: &[[f64; 2]; 4], iterations: u32, points: usize) -> StressShape {
        let mut all = vec![[0.0, 0.0]];
        all.extend_from_slice(control);
        all.push([1.0, 0.0]);
        let curve = chaikin(&all, iterations);
        let rule = GaussLegendre::new(points);
        let at = |lo: f64| -> Vec<f64> {
            rule.nodes
                .iter()
                .map(|x| height_at(&curve, lo + 0.25 * (1.0 + x)))
                .collect()
        };
        StressShape {
            rear: at(0.0),
            front: at(0.5),
            rule,
        }
    }
}

impl Default for StressShape {
    fn default() -> Self {
        StressShape::new(&DEFAULT_CONTROL, 5, 4)
    }
}

#[cfg(test)]
mod tests {
    use crate::pmath;
    use super::*;

    /// Each round keeps the ends and doubles the inner segments: 6 -> 12 -> 24 points;
    /// the cut points lie at 1/4 and 3/4 of each segment.
    #[test]
    fn chaikin_cuts_every_corner_at_a_quarter() {
        let p = [[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]];
        let c = chaikin(&p, 1);
        assert_eq!(
            c,
            vec![
                [0.0, 0.0],
                [0.25, 0.25],
                [0.75, 0.75],
                [1.25, 0.75],
                [1.75, 0.25],
                [2.0, 0.0]
            ]
        );
        let six = [
            [0.0, 0.0],
            [0.1, 0.2],
            [0.4, 1.0],
            [0.6, 1.0],
            [0.9, 0.2],
            [1.0, 0.0],
        ];
        assert_eq!(chaikin(&six, 1).len(), 12);
        assert_eq!(chaikin(&six, 2).len(), 24);
        // the curve never rises above its control polygon's highest point
        assert!(chaikin(&six, 6).iter().all(|q| q[1] <= 1.0 && q[1] >= 0.0));
    }

    /// Corner cutting converges to the quadratic B-spline: the peak of the symmetric
    /// default shape changes by less than 0.1 % from 5 to 8 rounds.
    #[test]
    fn the_default_shape_converges_with_the_rounds() {
        let mut all = vec![[0.0, 0.0]];
        all.extend_from_slice(&DEFAULT_CONTROL);
        all.push([1.0, 0.0]);
        let peak = |k| height_at(&chaikin(&all, k), 0.5);
        assert!(
            (peak(5) - peak(8)).abs() < 1e-3 * peak(8),
            "{} {}",
            peak(5),
            peak(8)
        );
    }

    /// The default control points reproduce Wong and Reece's distribution for n = 1.4
    /// (the fit they come from): within 2 % of the peak everywhere on the arc, for
    /// entry angles 0.2-0.4 rad.
    #[test]
    fn the_default_shape_is_wong_and_reeces_for_dlr_d2() {
        let mut all = vec![[0.0, 0.0]];
        all.extend_from_slice(&DEFAULT_CONTROL);
        all.push([1.0, 0.0]);
        let curve = chaikin(&all, 5);
        for t1 in [0.2f64, 0.3, 0.4] {
            let tm = 0.4 * t1;
            let wr = |u: f64| {
                let th = if u >= 0.5 {
                    tm + (u - 0.5) * 2.0 * (t1 - tm)
                } else {
                    tm + (0.5 - u) * 2.0 * (t1 - tm)
                };
                pmath::powf((pmath::cos(th) - pmath::cos(t1)).max(0.0) / (pmath::cos(tm) - pmath::cos(t1)), 1.4)
            };
            for k in 0..=100 {
                let u = k as f64 / 100.0;
                let e = (height_at(&curve, u) - wr(u)).abs();
                assert!(e < 0.02, "theta_1 {t1}, u {u}: error {e}");
            }
        }
    }

    #[test]
    fn samples_cover_both_halves() {
        let s = StressShape::default();
        assert_eq!(s.rear.len(), 4);
        // symmetric control points: rear and front mirror each other
        for i in 0..4 {
            assert!((s.rear[i] - s.front[3 - i]).abs() < 1e-12);
        }
        assert_eq!(height_at(&[[0.0, 1.0], [1.0, 2.0]], 2.0), 0.0);
        assert_eq!(height_at(&[[0.0, 1.0], [1.0, 2.0]], 0.5), 1.5);
    }
}
