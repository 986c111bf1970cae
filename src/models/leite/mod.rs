//! Leite and Schäfer's comprehensive wheel-terrain contact model (Leite 2010, section
//! 3): one wheel model over a rigid surface ([`compliance`], section 3.1) and soft
//! soil ([`soft`] with the stress shape of [`shape`], section 3.3), switching by what
//! lies under the wheel ([`model`]), and against rocks ([`stone`], section 3.2). A
//! force element on wheel bodies like the Bekker wheels (see
//! [`crate::models::wheel`]).

pub mod adapter;
pub mod compliance;
pub mod model;
pub mod rock;
pub mod check;
pub mod section;
pub mod shape;
pub mod soft;
pub mod stone;

pub use model::{Ground, LeiteState, RigidModel, RigidRegion};
pub use section::LeiteSettings;
