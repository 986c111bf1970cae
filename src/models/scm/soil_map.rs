//! Soil classes per node (Krenn 2009, Table 1, per grid node): a raster of class
//! numbers over the field and the parameters of each class. Class 0 is the soil of
//! the global parameters ([`super::SoilParams`]); nodes off the raster are class 0.

use crate::pmath;
use super::section::ScmSoilClass;
use super::SoilParams;

/// One class's soil as the node computations use it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NodeSoil {
    /// Exponent of sinkage n, 1.
    pub n: f64,
    /// Cohesive modulus k_c, N/m^(n+1).
    pub kc: f64,
    /// Frictional modulus k_phi, N/m^(n+2).
    pub kphi: f64,
    /// Cohesion c, Pa.
    pub c: f64,
    /// tan of the angle of internal friction, 1.
    pub tan_phi: f64,
    /// tan of the angle of repose, 1.
    pub tan_repose: f64,
}

impl NodeSoil {
    /// The soil of the global parameters (class 0).
    pub fn of(p: &SoilParams) -> NodeSoil {
        NodeSoil {
            n: p.n,
            kc: p.kc,
            kphi: p.kphi,
            c: p.c,
            tan_phi: pmath::tan(p.phi),
            tan_repose: pmath::tan(p.repose),
        }
    }
}

/// A raster of soil classes: pixel (i, j) covers world (x, y) around
/// `origin + (i, j) cell`, m (nearest pixel).
#[derive(Debug, Clone, PartialEq)]
pub struct SoilMap {
    pub origin: [f64; 2],
    /// Pixel spacing, m.
    pub cell: f64,
    pub nx: usize,
    pub ny: usize,
    /// Class of each pixel, row-major (rows along y).
    pub class: Vec<u8>,
    /// Classes 1, 2, ...
    pub classes: Vec<ScmSoilClass>,
}

impl SoilMap {
    /// Class of the node at world (x, y), m.
    #[inline]
    pub fn class_at(&self, x: f64, y: f64) -> u8 {
        let u = (x - self.origin[0]) / self.cell + 0.5;
        let v = (y - self.origin[1]) / self.cell + 0.5;
        if u >= 0.0 && v >= 0.0 && u < self.nx as f64 && v < self.ny as f64 {
            self.class[v as usize * self.nx + u as usize]
        } else {
            0
        }
    }

    /// The class table for global parameters `p`: class 0, then the map's classes with
    /// what they leave out from `p`.
    pub fn table(&self, p: &SoilParams, out: &mut Vec<NodeSoil>) {
        out.clear();
        out.push(NodeSoil::of(p));
        for c in &self.classes {
            out.push(NodeSoil::of(&SoilParams {
                n: c.n.unwrap_or(p.n),
                kc: c.kc.unwrap_or(p.kc),
                kphi: c.kphi.unwrap_or(p.kphi),
                c: c.c.unwrap_or(p.c),
                phi: c.phi.unwrap_or(p.phi),
                repose: c.repose.unwrap_or(p.repose),
                ..*p
            }));
        }
    }

    /// Classes of the nodes of `rect` on a grid of spacing `ds` (m), row-major.
    pub fn classes_of(&self, rect: &super::rect::Rect, ds: f64, out: &mut Vec<u8>) {
        out.clear();
        for jj in 0..rect.ny {
            let y = (rect.j0 + jj) as f64 * ds;
            out.extend((0..rect.nx).map(|ii| self.class_at((rect.i0 + ii) as f64 * ds, y)));
        }
    }
}
