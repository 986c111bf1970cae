//! Procedural wheels (Buse 2023, section 3.2, Fig. 1): radius, width, radial profile
//! (flat or convex) and grousers (count, height, thickness; straight, slanted or
//! chevron), as a closed triangle mesh with outward normals.
//!
//! Frame: the body frame of a wheel in this project, axle along y, centre at the
//! origin. Angle theta runs from the contact point (-z, theta = 0) towards +x: a rim
//! point is (rho sin theta, y, -rho cos theta). Grouser k is centred at
//! theta_k = 2 pi k / count (the first one under the wheel, as in `grouser_wheel`).
//!
//! Construction: the outer surface is a structured grid of "stations" (around) by
//! rows (across the width). Each grouser contributes its two walls (stations at the
//! same angle, rising radially) and its top; the gaps between grousers are tread. A
//! slanted or chevron grouser shifts every station of a row by the same angle, so the
//! grid stays structured and the surface closed. The two side faces are closed by
//! concentric rings around the hub and a small fan over each grouser's end face.
//! Every outer-surface edge is at most `max_edge` long (the SCM grid spacing, say).

use crate::pmath;
use super::AssetError;
use crate::geometry::mesh::TriMesh;
use nalgebra::Vector3;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// Radial profile across the width.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Profile {
    /// A cylinder.
    Flat,
    /// A crowned tread: a circular arc of `crown_radius` (m) across the width, the
    /// full radius at the centre plane (y = 0).
    Convex { crown_radius: f64 },
}

/// Shape of the grousers seen from above the tread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum GrouserPattern {
    /// Along the axle.
    Straight,
    /// Inclined by `angle` (degrees) against the axle.
    Slanted { angle: f64 },
    /// Two halves inclined by `angle` (degrees) in opposite senses, tip at y = 0.
    Chevron { angle: f64 },
}

/// Grousers on the tread.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Grousers {
    /// Number, evenly spaced.
    pub count: u32,
    /// Radial height above the tread, m.
    pub height: f64,
    /// Thickness along the rim (at the tread), m.
    pub thickness: f64,
    /// Straight (default), slanted or chevron.
    #[serde(default = "straight")]
    pub pattern: GrouserPattern,
}

fn straight() -> GrouserPattern {
    GrouserPattern::Straight
}

/// Parameters of a generated wheel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WheelParams {
    /// Tread radius at the centre plane, m (grousers stand on it).
    pub radius: f64,
    /// Width along the axle, m.
    pub width: f64,
    /// Radial profile (default flat).
    #[serde(default = "flat")]
    pub profile: Profile,
    /// Grousers (none by default).
    #[serde(default)]
    pub grousers: Option<Grousers>,
    /// Longest edge of the outer surface, m (default radius / 10).
    #[serde(default)]
    pub max_edge: Option<f64>,
}

fn flat() -> Profile {
    Profile::Flat
}

impl WheelParams {
    /// Checks the parameters; errors name the field.
    pub fn validate(&self) -> Result<(), AssetError> {
        let bad = |field: &str, why: String| Err(AssetError::param(format!("wheel.{field}"), why));
        if !(self.radius > 0.0 && self.radius.is_finite()) {
            return bad("radius", format!("must be > 0 m, got {}", self.radius));
        }
        if !(self.width > 0.0 && self.width.is_finite()) {
            return bad("width", format!("must be > 0 m, got {}", self.width));
        }
        if let Profile::Convex { crown_radius } = self.profile {
            if !(crown_radius >= 0.5 * self.width) || !crown_radius.is_finite() {
                return bad(
                    "profile.crown_radius",
                    format!(
                        "must be at least half the width ({} m), got {crown_radius}",
                        0.5 * self.width
                    ),
                );
            }
            if self.drop(0.5 * self.width) >= 0.5 * self.radius {
                return bad(
                    "profile.crown_radius",
                    "drops the tread edge below half the radius".into(),
                );
            }
        }
        if let Some(g) = &self.grousers {
            if g.count == 0 {
                return bad("grousers.count", "must be at least 1".into());
            }
            if !(g.height > 0.0 && g.height.is_finite()) {
                return bad(
                    "grousers.height",
                    format!("must be > 0 m, got {}", g.height),
                );
            }
            if !(g.thickness > 0.0) || g.thickness * g.count as f64 >= 2.0 * PI * self.radius * 0.95
            {
                return bad(
                    "grousers.thickness",
                    format!(
                        "{} grousers of {} m do not fit on the rim ({:.4} m around)",
                        g.count,
                        g.thickness,
                        2.0 * PI * self.radius
                    ),
                );
            }
            if let GrouserPattern::Slanted { angle } | GrouserPattern::Chevron { angle } = g.pattern
            {
                if !(angle.abs() < 75.0) {
                    return bad(
                        "grousers.pattern.angle",
                        format!("must be within +-75 degrees, got {angle}"),
                    );
                }
            }
        }
        let e = self.edge();
        if !(e > 0.0 && e.is_finite()) {
            return bad("max_edge", format!("must be > 0 m, got {e}"));
        }
        // the faces `generate` makes: two per tread cell, and the two side discs of
        // concentric rings every max_edge, each ring as many stations as the rim
        // (issue 26: a narrow wheel of large radius passed a tread-only count and
        // needed over 5 GB for its sides)
        let around = 2.0 * PI * self.radius / e;
        let (across, rings) = ((self.width / e).ceil().max(1.0), (self.radius / e).ceil());
        let faces = 2.0 * around * across + 4.0 * around * rings;
        if !(faces <= MAX_WHEEL_FACES) {
            return bad(
                "max_edge",
                format!(
                    "{e} m makes about {:.0} million faces (tread and side discs), at most {:.0} million are made (about {:.0} MB each million while generating); choose {:.2e} m or more",
                    faces / 1e6,
                    MAX_WHEEL_FACES / 1e6,
                    MB_PER_MILLION_FACES,
                    e * (faces / MAX_WHEEL_FACES).sqrt() * 1.01
                ),
            );
        }
        Ok(())
    }

    fn edge(&self) -> f64 {
        self.max_edge.unwrap_or(self.radius / 10.0)
    }

    /// How far the tread at `y` lies below the radius at the centre plane, m.
    fn drop(&self, y: f64) -> f64 {
        match self.profile {
            Profile::Flat => 0.0,
            Profile::Convex { crown_radius: c } => c - (c * c - y * y).max(0.0).sqrt(),
        }
    }

    /// Angular shift of the grouser pattern at `y`, rad.
    fn shift(&self, y: f64) -> f64 {
        match self.grousers.as_ref().map(|g| &g.pattern) {
            Some(GrouserPattern::Slanted { angle }) => y * pmath::tan(angle.to_radians()) / self.radius,
            Some(GrouserPattern::Chevron { angle }) => {
                y.abs() * pmath::tan(angle.to_radians()) / self.radius
            }
            _ => 0.0,
        }
    }
}

/// One station around the rim: its angle (before the row's shift), its height above
/// the tread, and whether it lies on the tread (part of the side faces' base circle).
#[derive(Clone, Copy)]
struct Station {
    theta: f64,
    lift: f64,
    base: bool,
    /// Index of the grouser whose end face it bounds (None on the tread between).
    grouser: Option<u32>,
}

fn stations(p: &WheelParams) -> Vec<Station> {
    let e = p.edge();
    let r = p.radius;
    let mut out = vec![];
    let Some(g) = &p.grousers else {
        let n = ((2.0 * PI * r / e).ceil() as usize).max(16);
        for k in 0..n {
            out.push(Station {
                theta: 2.0 * PI * k as f64 / n as f64,
                lift: 0.0,
                base: true,
                grouser: None,
            });
        }
        return out;
    };
    let n = g.count as usize;
    let pitch = 2.0 * PI / n as f64;
    let half = 0.5 * g.thickness / r;
    let walls = ((g.height / e).ceil() as usize).max(1);
    let top = ((2.0 * half * (r + g.height) / e).ceil() as usize).max(1);
    let gap = (((pitch - 2.0 * half) * r / e).ceil() as usize).max(1);
    for k in 0..n {
        let c = pitch * k as f64;
        let gk = Some(k as u32);
        let (lead, trail) = (c - half, c + half);
        out.push(Station {
            theta: lead,
            lift: 0.0,
            base: true,
            grouser: gk,
        });
        for w in 1..walls {
            out.push(Station {
                theta: lead,
                lift: g.height * w as f64 / walls as f64,
                base: false,
                grouser: gk,
            });
        }
        for t in 0..=top {
            out.push(Station {
                theta: lead + 2.0 * half * t as f64 / top as f64,
                lift: g.height,
                base: false,
                grouser: gk,
            });
        }
        for w in (1..walls).rev() {
            out.push(Station {
                theta: trail,
                lift: g.height * w as f64 / walls as f64,
                base: false,
                grouser: gk,
            });
        }
        out.push(Station {
            theta: trail,
            lift: 0.0,
            base: true,
            grouser: gk,
        });
        for s in 1..gap {
            out.push(Station {
                theta: trail + (pitch - 2.0 * half) * s as f64 / gap as f64,
                lift: 0.0,
                base: true,
                grouser: None,
            });
        }
    }
    out
}

fn point(theta: f64, y: f64, rho: f64) -> Vector3<f64> {
    Vector3::new(rho * pmath::sin(theta), y, -rho * pmath::cos(theta))
}

/// Most faces a generated wheel may have: 20 million, about 1.5 GB while generating
/// and packaging ([`MB_PER_MILLION_FACES`]), well inside a 24 GB machine with room for
/// the FMU's own copy.
pub const MAX_WHEEL_FACES: f64 = 2e7;

/// Memory per million faces of a generated wheel while it is generated and written,
/// MB (measured with `/usr/bin/time -v`: r 0.5 m, w 0.2 m, max_edge 1.4 mm, 3.85 million
/// faces, 281 MB peak for `contact-fmu asset wheel` and 280 MB for `package` of an SCM
/// scenario with it: 73 MB per million).
pub const MB_PER_MILLION_FACES: f64 = 75.0;

/// Generates the wheel mesh (validate the parameters first).
pub fn generate(p: &WheelParams) -> Result<TriMesh, AssetError> {
    p.validate()?;
    let e = p.edge();
    let st = stations(p);
    let ns = st.len();
    let mut rows = ((p.width / e).ceil() as usize).max(1);
    if matches!(
        p.grousers.as_ref().map(|g| &g.pattern),
        Some(GrouserPattern::Chevron { .. })
    ) && rows % 2 == 1
    {
        rows += 1; // a row at the chevron's tip
    }
    let ys: Vec<f64> = (0..=rows)
        .map(|k| p.width * (k as f64 / rows as f64 - 0.5))
        .collect();
    let mut m = TriMesh::default();
    for &y in &ys {
        let (shift, rho) = (p.shift(y), p.radius - p.drop(y));
        for s in &st {
            m.vertices.push(point(s.theta + shift, y, rho + s.lift));
        }
    }
    let at = |s: usize, k: usize| (k * ns + s % ns) as u32;
    // outer surface: outward winding (see the module notes)
    for k in 0..rows {
        for s in 0..ns {
            let (a, b, c, d) = (at(s, k), at(s + 1, k), at(s + 1, k + 1), at(s, k + 1));
            m.triangles.push([a, d, c]);
            m.triangles.push([a, c, b]);
        }
    }
    // side faces
    for (k, side) in [(0usize, -1.0f64), (rows, 1.0)] {
        let y = ys[k];
        let (shift, rho) = (p.shift(y), p.radius - p.drop(y));
        // (centre, s, s + 1) faces -y; the +y side takes the other sense
        let tri = |m: &mut TriMesh, c: u32, a: u32, b: u32| {
            m.triangles
                .push(if side < 0.0 { [c, a, b] } else { [c, b, a] })
        };
        // the base circle: concentric rings down to the hub centre
        let base: Vec<usize> = (0..ns).filter(|&s| st[s].base).collect();
        let rings = ((rho / e).ceil() as usize).max(1);
        let mut ring_ix: Vec<Vec<u32>> = vec![base.iter().map(|&s| at(s, k)).collect()];
        for j in (1..rings).rev() {
            let r = rho * j as f64 / rings as f64;
            let first = m.vertices.len() as u32;
            for &s in &base {
                m.vertices.push(point(st[s].theta + shift, y, r));
            }
            ring_ix.push((0..base.len() as u32).map(|q| first + q).collect());
        }
        let centre = m.vertices.len() as u32;
        m.vertices.push(Vector3::new(0.0, y, 0.0));
        let nb = base.len();
        for w in ring_ix.windows(2) {
            let (outer, inner) = (&w[0], &w[1]);
            for q in 0..nb {
                let q1 = (q + 1) % nb;
                tri(&mut m, outer[q], outer[q1], inner[q1]);
                tri(&mut m, outer[q], inner[q1], inner[q]);
            }
        }
        let inner = ring_ix.last().unwrap();
        for q in 0..nb {
            tri(&mut m, centre, inner[q], inner[(q + 1) % nb]);
        }
        // each grouser's end face: a fan from its centroid over its outline, closed by
        // the chord the base circle shares
        let mut s = 0;
        while s < ns {
            let Some(gk) = st[s]
                .grouser
                .filter(|_| st[s].base && !st[(s + 1) % ns].base)
            else {
                s += 1;
                continue;
            };
            let mut outline = vec![s];
            let mut q = s + 1;
            while !(st[q % ns].base && st[q % ns].grouser == Some(gk)) {
                outline.push(q % ns);
                q += 1;
            }
            outline.push(q % ns);
            let mut c = Vector3::zeros();
            for &o in &outline {
                c += m.vertices[at(o, k) as usize];
            }
            c /= outline.len() as f64;
            let ci = m.vertices.len() as u32;
            m.vertices.push(c);
            for w in outline.windows(2) {
                tri(&mut m, ci, at(w[0], k), at(w[1], k));
            }
            tri(
                &mut m,
                ci,
                at(*outline.last().unwrap(), k),
                at(outline[0], k),
            );
            s = q;
        }
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::io::check_closed_manifold;
    use crate::assets::mass::mass_properties;
    use parry3d_f64::query::{Ray, RayCast};
    use parry3d_f64::shape::TriMesh as ParryMesh;

    fn wheel(pattern: GrouserPattern, profile: Profile) -> WheelParams {
        WheelParams {
            radius: 0.25,
            width: 0.2,
            profile,
            grousers: Some(Grousers {
                count: 12,
                height: 0.01,
                thickness: 0.008,
                pattern,
            }),
            max_edge: Some(0.01),
        }
    }

    fn parry(m: &TriMesh) -> ParryMesh {
        ParryMesh::new(
            m.vertices.iter().map(|v| (*v).into()).collect(),
            m.triangles.clone(),
        )
        .unwrap()
    }

    /// Distance from the axle point (0, y, 0) to the surface along the rim angle theta.
    fn reach(pm: &ParryMesh, theta: f64, y: f64) -> f64 {
        let dir = point(theta, 0.0, 1.0);
        let ray = Ray::new(nalgebra::Point3::new(0.0, y, 0.0), dir);
        pm.cast_local_ray(&ray, 10.0, false)
            .expect("the ray leaves the wheel")
    }

    #[test]
    fn every_pattern_and_profile_gives_a_closed_outward_manifold() {
        for pattern in [
            GrouserPattern::Straight,
            GrouserPattern::Slanted { angle: 30.0 },
            GrouserPattern::Chevron { angle: 40.0 },
        ] {
            for profile in [Profile::Flat, Profile::Convex { crown_radius: 0.3 }] {
                let p = wheel(pattern.clone(), profile.clone());
                let m = generate(&p).unwrap();
                check_closed_manifold(&m)
                    .unwrap_or_else(|e| panic!("{pattern:?} {profile:?}: {e}"));
                let v = mass_properties(&m).volume;
                // outward normals: positive volume, close to the tread cylinder's
                let cyl = std::f64::consts::PI * 0.25 * 0.25 * 0.2;
                assert!(
                    v > 0.9 * cyl && v < 1.1 * cyl,
                    "{pattern:?} {profile:?}: {v} vs {cyl}"
                );
                // Euler characteristic of a sphere
                let mut edges = std::collections::HashSet::new();
                for t in &m.triangles {
                    for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                        edges.insert((a.min(b), a.max(b)));
                    }
                }
                let chi = m.vertices.len() as i64 - edges.len() as i64 + m.triangles.len() as i64;
                assert_eq!(chi, 2, "{pattern:?} {profile:?}");
            }
        }
    }

    #[test]
    fn grousers_stand_where_the_parameters_put_them() {
        let p = wheel(GrouserPattern::Straight, Profile::Flat);
        let m = parry(&generate(&p).unwrap());
        let pitch = 2.0 * PI / 12.0;
        // a grouser's top is one chord (8 mm < max_edge): its sagitta at the centre
        let top = 0.26 * (1.0 - pmath::cos(0.004f64 / 0.25)) + 1e-9;
        for k in 0..12 {
            let c = pitch * k as f64;
            for y in [-0.09, 0.0, 0.07] {
                // on a grouser: radius + height; halfway between two: the tread
                assert!((reach(&m, c, y) - 0.26).abs() < top, "grouser {k} at y {y}");
                let r = reach(&m, c + 0.5 * pitch, y);
                assert!(
                    (r - 0.25).abs() < 0.25 * (1.0 - pmath::cos(PI / 24.0)) + 1e-9,
                    "tread {r}"
                );
            }
            // just beside the grouser (thickness 8 mm): tread again
            assert!(reach(&m, c + 0.006 / 0.25, 0.0) < 0.2505);
        }
        // slanted by 30 degrees: at y the grouser centre moves by y tan 30 / r
        let p = wheel(GrouserPattern::Slanted { angle: 30.0 }, Profile::Flat);
        let m = parry(&generate(&p).unwrap());
        let y = 0.08;
        let shift = y * pmath::tan(30f64.to_radians()) / 0.25;
        assert!((reach(&m, shift, y) - 0.26).abs() < top);
        assert!(reach(&m, 0.0, y) < 0.2505, "not straight any more");
        // chevron: the same shift on both sides
        let p = wheel(GrouserPattern::Chevron { angle: 30.0 }, Profile::Flat);
        let m = parry(&generate(&p).unwrap());
        assert!((reach(&m, shift, y) - 0.26).abs() < top);
        assert!((reach(&m, shift, -y) - 0.26).abs() < top);
        // convex profile: the tread drops by c - sqrt(c^2 - y^2) towards the edge
        let p = wheel(
            GrouserPattern::Straight,
            Profile::Convex { crown_radius: 0.3 },
        );
        let m = parry(&generate(&p).unwrap());
        let drop = 0.3 - (0.09f64 - 0.1 * 0.1).sqrt();
        let r = reach(&m, 0.5 * pitch, 0.1 - 1e-9);
        assert!((r - (0.25 - drop)).abs() < 1e-3, "{r}");
    }

    #[test]
    fn the_face_estimate_counts_the_side_discs_and_bounds_the_work() {
        // issue 26: the estimate counted the tread only; a narrow wheel of large
        // radius passed it and needed over 5 GB for its side discs
        let p = WheelParams {
            radius: 0.5,
            width: 0.2,
            max_edge: Some(0.01),
            profile: Profile::Flat,
            grousers: None,
        };
        let n = generate(&p).unwrap().triangles.len() as f64;
        let around = 2.0 * PI * 0.5 / 0.01;
        let estimate = 2.0 * around * 20.0 + 4.0 * around * 50.0;
        assert!(
            (n / estimate - 1.0).abs() < 0.02,
            "{n} faces, estimated {estimate}"
        );
        let narrow = WheelParams {
            radius: 1.0,
            width: 0.01,
            max_edge: Some(2e-4),
            profile: Profile::Flat,
            grousers: None,
        };
        let e = narrow.validate().unwrap_err().to_string();
        assert!(e.contains("max_edge") && e.contains("631 million"), "{e}");
    }

    #[test]
    fn no_outer_edge_is_longer_than_max_edge() {
        for pattern in [
            GrouserPattern::Straight,
            GrouserPattern::Slanted { angle: 20.0 },
        ] {
            let p = wheel(pattern, Profile::Flat);
            let m = generate(&p).unwrap();
            // edges of the outer surface: both ends off the axle by more than the radius
            // minus a little (the side faces' rings are inside)
            let mut longest: f64 = 0.0;
            for t in &m.triangles {
                let v = t.map(|k| m.vertices[k as usize]);
                for (a, b) in [(0, 1), (1, 2), (2, 0)] {
                    let on_rim = |p: &Vector3<f64>| pmath::hypot(p.x, p.z) > 0.25 - 1e-9;
                    if on_rim(&v[a]) && on_rim(&v[b]) && (v[a].y - v[b].y).abs() > 1e-12 {
                        longest = longest.max((v[a] - v[b]).norm());
                    }
                }
            }
            // a cell's diagonal: sides of at most max_edge, sheared by the slant
            let e = 0.01;
            let shear = 0.01 * pmath::tan(20f64.to_radians());
            assert!(
                longest <= (e * e + (e + shear).powi(2)).sqrt() + 1e-12,
                "{longest}"
            );
            // and along the rim (rows at fixed y): at most max_edge
            let mut around: f64 = 0.0;
            for t in &m.triangles {
                let v = t.map(|k| m.vertices[k as usize]);
                for (a, b) in [(0, 1), (1, 2), (2, 0)] {
                    if (v[a].y - v[b].y).abs() < 1e-12
                        && pmath::hypot(v[a].x, v[a].z) > 0.25 - 1e-9
                        && pmath::hypot(v[b].x, v[b].z) > 0.25 - 1e-9
                    {
                        around = around.max((v[a] - v[b]).norm());
                    }
                }
            }
            assert!(around <= e + 1e-12, "{around}");
        }
    }

    #[test]
    fn bad_parameters_name_their_field() {
        let mut p = wheel(GrouserPattern::Straight, Profile::Flat);
        p.grousers.as_mut().unwrap().thickness = 0.2;
        assert!(generate(&p)
            .unwrap_err()
            .to_string()
            .starts_with("wheel.grousers.thickness"));
        let mut p = wheel(
            GrouserPattern::Straight,
            Profile::Convex { crown_radius: 0.05 },
        );
        p.radius = 0.25;
        assert!(generate(&p)
            .unwrap_err()
            .to_string()
            .starts_with("wheel.profile.crown_radius"));
        let p = WheelParams {
            radius: -1.0,
            ..wheel(GrouserPattern::Straight, Profile::Flat)
        };
        assert!(generate(&p)
            .unwrap_err()
            .to_string()
            .starts_with("wheel.radius"));
    }
}
