//! The co-simulation world: the variable table, the model states, stepping and FMU
//! state snapshots. This is what the FMI runtime calls; it knows FMI's rules for
//! variables (causality, when a variable may be set) but no C types.

pub mod bodies;
pub mod capabilities;
pub mod errors;
pub mod feedthrough;
pub mod fmi3;
pub mod layout;
pub mod model;
pub mod references;
pub mod snapshot;
pub mod units;
pub mod values;
pub mod variables;
mod world;

pub use errors::{VarError, WorldError};
pub use values::Values;
pub use world::{Dynamic, World};
