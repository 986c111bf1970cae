//! Gauss-Legendre quadrature: exact for polynomials of degree 2n - 1 with n points.

use crate::pmath;
/// An n-point Gauss-Legendre rule on [-1, 1].
#[derive(Debug, Clone, PartialEq)]
pub struct GaussLegendre {
    /// Nodes, ascending; symmetric (`nodes[n - 1 - i] == -nodes[i]` exactly).
    pub nodes: Vec<f64>,
    /// Weights (sum 2).
    pub weights: Vec<f64>,
}

impl GaussLegendre {
    /// The rule with `n` >= 1 points: the roots of P_n by Newton's method from
    /// Tricomi's initial guesses, weights 2 / ((1 - x^2) P_n'(x)^2).
    pub fn new(n: usize) -> GaussLegendre {
        let n = n.max(1);
        let mut nodes = vec![0.0; n];
        let mut weights = vec![0.0; n];
        for i in 0..n.div_ceil(2) {
            let mut x = pmath::cos(std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5));
            let mut dp = 1.0;
            for _ in 0..100 {
                // P_n(x) and P_n'(x) by the three-term recurrence
                let (mut p0, mut p1) = (1.0, x);
                for k in 2..=n {
                    let p2 = ((2 * k - 1) as f64 * x * p1 - (k - 1) as f64 * p0) / k as f64;
                    p0 = p1;
                    p1 = p2;
                }
                dp = n as f64 * (x * p1 - p0) / (x * x - 1.0);
                let dx = p1 / dp;
                x -= dx;
                if dx.abs() < 1e-16 {
                    break;
                }
            }
            if 2 * i + 1 == n {
                x = 0.0; // the middle root of an odd rule, exactly
            }
            let w = 2.0 / ((1.0 - x * x) * dp * dp);
            nodes[i] = -x;
            nodes[n - 1 - i] = x;
            weights[i] = w;
            weights[n - 1 - i] = w;
        }
        GaussLegendre { nodes, weights }
    }

    /// The integral of `f` over [a, b].
    pub fn integrate(&self, a: f64, b: f64, mut f: impl FnMut(f64) -> f64) -> f64 {
        let (h, m) = (0.5 * (b - a), 0.5 * (b + a));
        let mut s = 0.0;
        for (x, w) in self.nodes.iter().zip(&self.weights) {
            s += w * f(m + h * x);
        }
        s * h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_for_polynomials_up_to_degree_2n_minus_1() {
        for n in 1..=12 {
            let g = GaussLegendre::new(n);
            assert!((g.weights.iter().sum::<f64>() - 2.0).abs() < 1e-13, "n {n}");
            for deg in 0..2 * n {
                let exact = (1.0 - (-1f64).powi(deg as i32 + 1)) / (deg as f64 + 1.0);
                let got = g.integrate(-1.0, 1.0, |x| x.powi(deg as i32));
                assert!(
                    (got - exact).abs() < 1e-13,
                    "n {n} degree {deg}: {got} vs {exact}"
                );
            }
        }
    }

    /// The BJH wheel maps the rear arc's nodes onto the front's mirrored nodes and
    /// relies on this being exact.
    #[test]
    fn the_nodes_are_exactly_symmetric_and_ascending() {
        for n in 1..=64 {
            let g = GaussLegendre::new(n);
            for i in 0..n {
                assert_eq!(g.nodes[n - 1 - i], -g.nodes[i], "n {n} node {i}");
                assert_eq!(g.weights[n - 1 - i], g.weights[i]);
            }
            assert!(g.nodes.windows(2).all(|p| p[0] < p[1]), "n {n}");
        }
    }

    #[test]
    fn integrates_a_smooth_function_on_an_interval() {
        let g = GaussLegendre::new(8);
        let got = g.integrate(0.0, 1.0, f64::cos);
        assert!((got - pmath::sin(1f64)).abs() < 1e-14);
    }
}
