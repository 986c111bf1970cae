//! A body's resolved geometry (Buse 2023, section 4.1) and its parry3d-f64 shape:
//! cuboids, cylinders, spheres, a wheel as a cylinder with cuboid grousers, convex
//! hulls of meshes, compounds of convex parts, and a terrain of unit-height cuboids
//! following an elevation grid; its default inertia. Body frame: the body origin;
//! cylinders and wheels turn about body y. BBCC and Leite collide these shapes, PCM
//! meshes them, the world takes inertias from them.

use nalgebra::{Isometry3, Point3, Translation3, UnitQuaternion, Vector3};
use parry3d_f64::shape::SharedShape;
use super::primitive::{self, Cuboid, Cylinder, GrouserWheel, Sphere};

/// A shape's geometry, with everything resolved (mesh vertices read, sizes known).
#[derive(Debug, Clone, PartialEq)]
pub enum Geometry {
    Sphere(Sphere),
    Cuboid(Cuboid),
    Cylinder(Cylinder),
    GrouserWheel(GrouserWheel),
    /// Convex hull of the points, m, body frame.
    Hull {
        points: Vec<[f64; 3]>,
    },
    /// Convex parts at their poses in the body frame.
    Compound {
        parts: Vec<(Isometry3<f64>, Geometry)>,
    },
    /// Unit-height cuboids of edge `cell` with tops at `heights[j][i]`, cell (i, j)
    /// centred at ((i + 0.5) cell, (j + 0.5) cell).
    CuboidGrid {
        cell: f64,
        heights: Vec<Vec<f64>>,
    },
}

/// Why a shape could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ShapeError(pub String);

fn cylinder_y(radius: f64, height: f64) -> SharedShape {
    // parry's cylinder axis is y already
    SharedShape::cylinder(0.5 * height, radius)
}

/// The parry shape of `g`.
pub fn build(g: &Geometry) -> Result<SharedShape, ShapeError> {
    Ok(match g {
        Geometry::Sphere(primitive::Sphere { radius }) => SharedShape::ball(*radius),
        Geometry::Cuboid(primitive::Cuboid { size }) => {
            SharedShape::cuboid(0.5 * size[0], 0.5 * size[1], 0.5 * size[2])
        }
        Geometry::Cylinder(primitive::Cylinder { radius, height }) => cylinder_y(*radius, *height),
        Geometry::GrouserWheel(primitive::GrouserWheel {
            radius,
            width,
            count,
            grouser_height,
            grouser_thickness,
        }) => {
            let mut parts = vec![(Isometry3::identity(), cylinder_y(*radius, *width))];
            if *grouser_height > 0.0 {
                // Each grouser: a cuboid reaching from slightly inside the rim to
                // radius + height, tangentially `thickness` wide, across the width.
                let inset = 0.25 * grouser_height.min(*radius);
                let radial = grouser_height + inset;
                let centre = radius - inset + 0.5 * radial;
                let g = SharedShape::cuboid(0.5 * grouser_thickness, 0.5 * width, 0.5 * radial);
                for k in 0..*count {
                    let angle = std::f64::consts::TAU * k as f64 / *count as f64;
                    // grouser k points along (sin a, 0, cos a) in the wheel's x-z plane
                    let rot = crate::pmath::quat_from_axis_angle(&Vector3::y_axis(), angle);
                    let pos = rot * Vector3::new(0.0, 0.0, centre);
                    parts.push((
                        Isometry3::from_parts(Translation3::from(pos), rot),
                        g.clone(),
                    ));
                }
            }
            SharedShape::compound(parts)
        }
        Geometry::Hull { points } => {
            let pts: Vec<Point3<f64>> = points
                .iter()
                .map(|p| Point3::new(p[0], p[1], p[2]))
                .collect();
            let degenerate = || {
                ShapeError(format!(
                    "the convex hull of {} points is degenerate (flat or fewer than 4 points)",
                    pts.len()
                ))
            };
            let hull = SharedShape::convex_hull(&pts).ok_or_else(degenerate)?;
            let aabb = hull.compute_local_aabb();
            let extent = (aabb.maxs - aabb.mins).norm();
            if pts.len() < 4 || hull.mass_properties(1.0).mass() <= 1e-9 * extent * extent * extent
            {
                return Err(degenerate());
            }
            hull
        }
        Geometry::Compound { parts } => {
            let mut built = Vec::with_capacity(parts.len());
            for (iso, part) in parts {
                built.push((*iso, build(part)?));
            }
            SharedShape::compound(built)
        }
        Geometry::CuboidGrid { cell, heights } => {
            let c = SharedShape::cuboid(0.5 * cell, 0.5 * cell, 0.5);
            let mut parts =
                Vec::with_capacity(heights.len() * heights.first().map_or(0, |r| r.len()));
            for (j, row) in heights.iter().enumerate() {
                for (i, h) in row.iter().enumerate() {
                    let centre =
                        Vector3::new((i as f64 + 0.5) * cell, (j as f64 + 0.5) * cell, h - 0.5);
                    parts.push((
                        Isometry3::from_parts(
                            Translation3::from(centre),
                            UnitQuaternion::identity(),
                        ),
                        c.clone(),
                    ));
                }
            }
            SharedShape::compound(parts)
        }
    })
}

/// R_i of Buse 2023 section 4.1.1: the body's longest edge, here the longest edge of
/// its bounding box in the body frame, m.
pub fn longest_edge(shape: &SharedShape) -> f64 {
    let aabb = shape.compute_local_aabb();
    let e = aabb.maxs - aabb.mins;
    e.x.max(e.y).max(e.z)
}

/// Principal moments of inertia of a solid of uniform density and mass `mass` (kg)
/// about the body axes through the origin, kg m^2, for the shapes that have a closed
/// form (sphere, cuboid, cylinder about y; a grouser wheel as its cylinder).
pub fn default_inertia(g: &Geometry, mass: f64) -> Option<[f64; 3]> {
    Some(match g {
        Geometry::Sphere(primitive::Sphere { radius }) => [0.4 * mass * radius * radius; 3],
        Geometry::Cuboid(primitive::Cuboid { size: [a, b, c] }) => [
            mass / 12.0 * (b * b + c * c),
            mass / 12.0 * (a * a + c * c),
            mass / 12.0 * (a * a + b * b),
        ],
        Geometry::Cylinder(primitive::Cylinder { radius, height })
        | Geometry::GrouserWheel(primitive::GrouserWheel {
            radius,
            width: height,
            ..
        }) => {
            let side = mass / 12.0 * (3.0 * radius * radius + height * height);
            [side, 0.5 * mass * radius * radius, side]
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grouser_wheel_reaches_out_to_its_grousers() {
        let g = Geometry::GrouserWheel(primitive::GrouserWheel {
            radius: 0.25,
            width: 0.2,
            count: 12,
            grouser_height: 0.01,
            grouser_thickness: 0.005,
        });
        let s = build(&g).unwrap();
        let aabb = s.compute_local_aabb();
        assert!((aabb.maxs.z - 0.26).abs() < 1e-9, "{aabb:?}");
        assert!((aabb.maxs.y - 0.1).abs() < 1e-9);
        assert!((longest_edge(&s) - 0.52).abs() < 1e-9);
        // 12 grousers: one points along +z, one along +x (90 deg)
        assert!((aabb.maxs.x - 0.26).abs() < 1e-9);
    }

    #[test]
    fn grids_and_hulls_build_and_degenerate_hulls_are_refused() {
        let grid = build(&Geometry::CuboidGrid {
            cell: 1.0,
            heights: vec![vec![0.0, 0.5], vec![1.0, 0.0]],
        })
        .unwrap();
        let aabb = grid.compute_local_aabb();
        assert_eq!(
            (aabb.maxs.x, aabb.maxs.y, aabb.maxs.z, aabb.mins.z),
            (2.0, 2.0, 1.0, -1.0)
        );
        let cube: Vec<[f64; 3]> = (0..8)
            .map(|i| [(i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64])
            .collect();
        assert!(build(&Geometry::Hull { points: cube }).is_ok());
        assert!(build(&Geometry::Hull {
            points: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
        })
        .is_err());
    }

    #[test]
    fn default_inertias_are_the_textbook_ones() {
        let [ix, iy, iz] = default_inertia(
            &Geometry::Cuboid(primitive::Cuboid {
                size: [1.0, 2.0, 3.0],
            }),
            12.0,
        )
        .unwrap();
        assert_eq!((ix, iy, iz), (13.0, 10.0, 5.0));
        let [_, iy, _] = default_inertia(
            &Geometry::Cylinder(primitive::Cylinder {
                radius: 0.5,
                height: 1.0,
            }),
            1.0,
        )
        .unwrap();
        assert_eq!(iy, 0.125);
    }
}
