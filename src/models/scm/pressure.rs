//! Node pressure with loading history (Krenn 2009, eq. (1), (7)).
//!
//! A node's sinkage z in eq. (7) is its total sinkage below its level before loading,
//! `h + zp` (the surface height plus the plastic sinkage it has taken). Loading beyond
//! everything the node carried before follows the Bekker curve `gamma k z^n`
//! (plastic); unloading is elastic with the stiffness `k_e` (Pa/m), and reloading
//! climbs the same elastic line until it meets the Bekker curve again. A plate pressed
//! down steadily therefore traces eq. (2); a wheel in a rut first meets the stiff
//! elastic soil the first pass compacted.

use crate::pmath;
/// Bekker's pressure-sinkage law, eq. (1)/(7) without gamma: `k z^n`, Pa, with
/// `k = k_c / b + k_phi`.
pub fn bekker(k: f64, n: f64, z: f64) -> f64 {
    if z > 0.0 {
        k * pmath::powf(z, n)
    } else {
        0.0
    }
}

/// Pressure at a node (Pa) of total sinkage `z` (m) and plastic sinkage `zp` (m) whose
/// Bekker yield pressure at `z` is `yield_p` (Pa): the elastic trial
/// `k_e (z - zp)`, capped by the yield curve. Second value: the node yields.
pub fn node_pressure(z: f64, zp: f64, yield_p: f64, k_e: f64) -> (f64, bool) {
    let elastic = k_e * (z - zp);
    if elastic >= yield_p {
        (yield_p, true)
    } else {
        (elastic.max(0.0), false)
    }
}

/// Plastic sinkage after a node was loaded to total sinkage `z`: unchanged while the
/// elastic trial stays below the yield pressure, else `z - yield_p / k_e` (the
/// unloading line through the current point meets zero pressure there).
pub fn plastic_sinkage(z: f64, zp: f64, yield_p: f64, k_e: f64) -> f64 {
    if k_e * (z - zp) > yield_p {
        (z - yield_p / k_e).max(zp)
    } else {
        zp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_unload_reload_rejoins_the_bekker_curve() {
        let (k, n, k_e) = (60_000.0, 0.63, 5e7);
        let mut zp = 0.0;
        // steady loading follows eq. (1)
        for s in 1..=50 {
            let z = s as f64 * 1e-3;
            let y = bekker(k, n, z);
            let (p, plastic) = node_pressure(z, zp, y, k_e);
            assert!(plastic && p == y);
            zp = plastic_sinkage(z, zp, y, k_e);
        }
        let z1 = 0.05;
        assert!((zp - (z1 - bekker(k, n, z1) / k_e)).abs() < 1e-15);
        // unloading: elastic, zero pressure at the plastic sinkage
        let (p, plastic) = node_pressure(zp + 1e-5, zp, bekker(k, n, zp + 1e-5), k_e);
        assert!(!plastic && (p - 500.0).abs() < 1e-6);
        assert_eq!(node_pressure(zp - 1e-4, zp, 0.0, k_e).0, 0.0);
        // reloading meets the curve again at z1 and follows it beyond
        let (p, plastic) = node_pressure(z1, zp, bekker(k, n, z1), k_e);
        assert!(plastic && (p - bekker(k, n, z1)).abs() < 1e-9);
        assert_eq!(
            plastic_sinkage(z1 - 1e-4, zp, bekker(k, n, z1 - 1e-4), k_e),
            zp
        );
    }
}
