//! The models a world can hold, in the order the world calls them.
//!
//! Each entry reads its scenario section and, when the scenario uses the model,
//! declares its variables and returns the model (see [`super::model::Model`]). A new
//! model is one line here.
//!
//! The order matters where models meet: the rig drives its wheel body before the SCM
//! soil evaluates it and steps it before the soil yields to it.

use super::model::{Declare, Model};
use crate::models::{bbcc, rig, scm, terra};

/// Reads a model's scenario section; declares its variables and returns the model
/// when the scenario uses it.
pub type DeclareFn = fn(&mut Declare) -> Option<Box<dyn Model>>;

/// Every model, in call order.
pub const MODELS: &[DeclareFn] = &[
    bbcc::adapter::declare,
    terra::adapter::declare,
    rig::adapter::declare,
    scm::adapter::declare,
];
