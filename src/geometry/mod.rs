//! The world's geometry, shared by every model: a body's resolved geometry and parry
//! shape ([`shape`]), its triangle mesh ([`mesh`]), and the rigid terrain surface
//! ([`terrain`]). Below the models and the co-simulation interface alike; imports
//! neither.

pub mod mesh;
pub mod primitive;
pub mod shape;
pub mod terrain;

pub use mesh::{segments, TriMesh};
pub use shape::{default_inertia, Geometry};
