//! PCM: the Polygonal Contact Model with penetration detection (Hippmann 2023).
//!
//! Compliant contact between arbitrary (non-convex, "unclean") triangle meshes with a
//! contact patch instead of a point:
//! - [`mesh`]: a mesh with the per-triangle data of section 2.1;
//! - [`meshing`]: a body's mesh from its geometry, and the triangle budget;
//! - [`primitives`]: the built-in shapes meshed at a chosen resolution, midpoint
//!   subdivision (section 4.2);
//! - [`bvh`]: the bounding-volume trees over penetration lines and triangles (section 3);
//! - [`detect`]: ray-triangle tests and the contact elements' valid/invalid rule
//!   (section 3, Fig. 4);
//! - [`law`]: the elastic foundation, damping and friction, eq. (1)-(4);
//! - [`pair`]: a mesh-mesh or mesh-terrain pair, evaluated in the E frame (section 2.3).

pub mod adapter;
pub mod bvh;
pub mod check;
pub mod detect;
pub mod law;
pub mod mesh;
pub mod meshing;
pub mod pair;
pub mod primitives;
pub mod section;

pub use section::PcmSettings;
