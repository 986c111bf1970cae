//! The rheological wheel of the contact-dynamics library (Buse 2023, section 4.3.2):
//! spring-damper ground with stiction, its constants derived from Bekker's soil
//! constants ([`model`]). A force element on wheel bodies like the Bekker wheels (see
//! [`crate::models::wheel`]).

pub mod adapter;
pub mod model;
pub mod check;
pub mod section;

pub use model::{RheologicalModel, Stiction};
