//! From a scenario's shape descriptions (and the current parameter values) to the
//! geometry the BBCC model builds its parry shapes from. Mesh files are read here, at
//! instantiation, never in the step loop.

use super::references::ShapeVrs;
use crate::geometry::primitive;
use crate::geometry::shape::Geometry;
use crate::scenario::assets::resolve_asset;
use crate::scenario::types::Shape;
use nalgebra::{Isometry3, Quaternion, Translation3, UnitQuaternion, Vector3};
use std::collections::BTreeMap;
use std::path::Path;

/// Vertices of the OBJ files a scenario references, by file name as written.
pub type Meshes = BTreeMap<String, Vec<[f64; 3]>>;

/// The scenario field that names mesh `file` first, for messages:
/// `bodies[2].shape.file`, or `bodies[0].shape.parts[1].shape.file` in a compound.
pub fn mesh_field(shapes: &[Shape], file: &str) -> String {
    fn find(shape: &Shape, file: &str) -> Option<String> {
        match shape {
            Shape::ConvexMesh { file: f, .. } | Shape::Mesh { file: f, .. } if f == file => {
                Some("shape.file".into())
            }
            Shape::Compound { parts } => parts.iter().enumerate().find_map(|(j, p)| {
                find(&p.shape, file).map(|inner| format!("shape.parts[{j}].{inner}"))
            }),
            _ => None,
        }
    }
    shapes
        .iter()
        .enumerate()
        .find_map(|(i, s)| find(s, file).map(|f| format!("bodies[{i}].{f}")))
        .unwrap_or_else(|| format!("mesh '{file}'"))
}

/// The mesh files of `shapes` (also inside compounds).
pub fn mesh_files(shapes: &[Shape]) -> Vec<String> {
    let mut files = vec![];
    for s in shapes {
        match s {
            Shape::ConvexMesh { file, .. } => files.push(file.clone()),
            Shape::Compound { parts } => files.extend(mesh_files(
                &parts.iter().map(|p| p.shape.clone()).collect::<Vec<_>>(),
            )),
            _ => {}
        }
    }
    files.sort();
    files.dedup();
    files
}

/// Reads every mesh of `shapes`, resolved against `dir` (and refused if it leaves it).
pub fn load_meshes(shapes: &[Shape], dir: Option<&Path>) -> Result<Meshes, String> {
    let mut meshes = Meshes::new();
    for file in mesh_files(shapes) {
        let dir = dir.ok_or_else(|| format!("mesh '{file}': no folder to read it from"))?;
        let path = resolve_asset(dir, &file)?;
        let vertices = crate::assets::mesh_read::obj::read_vertices(&path)
            .map_err(|e| format!("{}: {e}", mesh_field(shapes, &file)))?;
        meshes.insert(file, vertices);
    }
    // generated shapes: the mesh from its parameters (deterministic; the same mesh the
    // packager writes under resources/assets/)
    for s in shapes {
        if let Shape::Generated { asset } = s {
            // a pile of rocks repeats a few prototypes: each is generated once
            if meshes.contains_key(&generated_key(asset)) {
                continue;
            }
            let m = asset
                .mesh()
                .map_err(|e| format!("generated {}: {e}", asset.prefix()))?;
            let points = m.vertices.iter().map(|v| [v.x, v.y, v.z]).collect();
            meshes.insert(generated_key(asset), points);
        }
    }
    Ok(meshes)
}

/// The key of a generated shape's vertices in [`Meshes`].
fn generated_key(asset: &crate::assets::AssetRequest) -> String {
    format!(
        "generated:{}",
        serde_json::to_string(asset).expect("asset requests serialize")
    )
}

fn pose(position: &[f64; 3], orientation: &[f64; 4]) -> Isometry3<f64> {
    let q = UnitQuaternion::from_quaternion(Quaternion::new(
        orientation[0],
        orientation[1],
        orientation[2],
        orientation[3],
    ));
    Isometry3::from_parts(Translation3::from(Vector3::from(*position)), q)
}

/// The geometry the scenario gives for `shape`, without parameters and meshes
/// (`None` for meshes and TerRA wheels).
pub fn spec_geometry(shape: &Shape) -> Option<Geometry> {
    geometry_with(shape, None, &Meshes::new()).ok().flatten()
}

fn geometry_with(
    shape: &Shape,
    values: Option<(&ShapeVrs, &[f64], &[i32])>,
    meshes: &Meshes,
) -> Result<Option<Geometry>, String> {
    let r = |vr: usize| values.map(|(_, reals, _)| reals[vr]);
    Ok(Some(match (shape, values.map(|v| v.0)) {
        (Shape::Wheel { .. } | Shape::Mesh { .. } | Shape::Torus { .. }, _) => return Ok(None),
        (Shape::Sphere(s), Some(ShapeVrs::Sphere { radius: vr })) => {
            Geometry::Sphere(primitive::Sphere {
                radius: r(*vr).unwrap_or(s.radius),
            })
        }
        (Shape::Sphere(s), _) => Geometry::Sphere(*s),
        (Shape::Cuboid(c), Some(ShapeVrs::Cuboid { size: vrs })) => {
            Geometry::Cuboid(primitive::Cuboid {
                size: [0, 1, 2].map(|k| r(vrs[k]).unwrap_or(c.size[k])),
            })
        }
        (Shape::Cuboid(c), _) => Geometry::Cuboid(*c),
        (
            Shape::Cylinder(c),
            Some(ShapeVrs::Cylinder {
                radius: rv,
                height: hv,
            }),
        ) => Geometry::Cylinder(primitive::Cylinder {
            radius: r(*rv).unwrap_or(c.radius),
            height: r(*hv).unwrap_or(c.height),
        }),
        (Shape::Cylinder(c), _) => Geometry::Cylinder(*c),
        (Shape::GrouserWheel(g), v) => match (v, values) {
            (
                Some(ShapeVrs::GrouserWheel {
                    radius: rv,
                    width: wv,
                    count: cv,
                    height: hv,
                    thickness: tv,
                }),
                Some((_, reals, ints)),
            ) => Geometry::GrouserWheel(primitive::GrouserWheel {
                radius: reals[*rv],
                width: reals[*wv],
                count: ints[*cv].max(0) as u32,
                grouser_height: reals[*hv],
                grouser_thickness: reals[*tv],
            }),
            _ => Geometry::GrouserWheel(*g),
        },
        (Shape::Plate { radius, thickness }, v) => {
            let (radius, thickness) = match v {
                Some(ShapeVrs::Plate {
                    radius: rv,
                    thickness: tv,
                }) => (r(*rv).unwrap_or(*radius), r(*tv).unwrap_or(*thickness)),
                _ => (*radius, *thickness),
            };
            // a cylinder (axis y) turned onto z, its bottom face at the body origin
            let pose = Isometry3::new(
                Vector3::new(0.0, 0.0, 0.5 * thickness),
                Vector3::x() * std::f64::consts::FRAC_PI_2,
            );
            Geometry::Compound {
                parts: vec![(
                    pose,
                    Geometry::Cylinder(primitive::Cylinder {
                        radius,
                        height: thickness,
                    }),
                )],
            }
        }
        (Shape::ConvexMesh { file, scale }, _) => match meshes.get(file) {
            Some(points) => Geometry::Hull {
                points: points
                    .iter()
                    .map(|p| [p[0] * scale, p[1] * scale, p[2] * scale])
                    .collect(),
            },
            None => return Ok(None),
        },
        (Shape::Generated { asset }, _) => match meshes.get(&generated_key(asset)) {
            Some(points) => Geometry::Hull {
                points: points.clone(),
            },
            None => return Ok(None),
        },
        (Shape::Compound { parts }, _) => {
            let mut out = vec![];
            for part in parts {
                let g = geometry_with(&part.shape, None, meshes)?
                    .ok_or_else(|| "a compound part has no geometry".to_string())?;
                out.push((pose(&part.position, &part.orientation), g));
            }
            Geometry::Compound { parts: out }
        }
        (Shape::CuboidGrid { cell, heights }, _) => Geometry::CuboidGrid {
            cell: *cell,
            heights: heights.clone(),
        },
    }))
}

/// The geometry of a BBCC body from its shape, the current parameter values and the
/// loaded meshes.
pub fn geometry(
    shape: &Shape,
    vrs: &ShapeVrs,
    reals: &[f64],
    integers: &[i32],
    meshes: &Meshes,
) -> Result<Option<Geometry>, String> {
    geometry_with(shape, Some((vrs, reals, integers)), meshes)
}

/// The SCM contact mesh of a body (Krenn 2009, Fig. 5): the base mesh of its shape
/// scaled to size (Buse 2023, section 4.2), with circles cut into segments no longer
/// than the grid spacing `ds`.
pub fn scm_mesh(
    shape: &Shape,
    vrs: &ShapeVrs,
    reals: &[f64],
    integers: &[i32],
    meshes: &Meshes,
    ds: f64,
) -> Result<crate::geometry::TriMesh, String> {
    use crate::geometry::mesh::{segments, TriMesh};
    if let Shape::Generated { asset } = shape {
        // the full (non-convex) generated mesh: grousers, crowned treads, rough rocks
        return asset
            .mesh()
            .map_err(|e| format!("generated {}: {e}", asset.prefix()));
    }
    if let (Shape::Wheel { .. }, ShapeVrs::Wheel { radius, width }) = (shape, vrs) {
        let r = reals[*radius];
        return Ok(TriMesh::cylinder_y(r, reals[*width], segments(r, ds)));
    }
    fn build(g: &Geometry, ds: f64) -> Result<TriMesh, String> {
        Ok(match g {
            Geometry::Sphere(s) => TriMesh::sphere(s.radius, segments(s.radius, ds)),
            Geometry::Cuboid(primitive::Cuboid { size }) => TriMesh::cuboid(*size),
            Geometry::Cylinder(primitive::Cylinder { radius, height }) => {
                TriMesh::cylinder_y(*radius, *height, segments(*radius, ds))
            }
            Geometry::GrouserWheel(g) => TriMesh::grouser_wheel(g, segments(g.radius, ds)),
            Geometry::Hull { points } => TriMesh::convex_hull(points),
            Geometry::Compound { parts } => {
                let mut m = TriMesh::default();
                for (pose, part) in parts {
                    m.append(&build(part, ds)?, pose);
                }
                m
            }
            Geometry::CuboidGrid { .. } => {
                return Err("a cuboid_grid has no SCM contact mesh".into())
            }
        })
    }
    let g = geometry(shape, vrs, reals, integers, meshes)?
        .ok_or_else(|| "the shape has no geometry".to_string())?;
    build(&g, ds)
}
