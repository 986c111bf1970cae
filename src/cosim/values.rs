//! The current values of all variables, by type and value reference: what the world
//! holds, the models read through their frame and a snapshot keeps.

use serde::{Deserialize, Serialize};

/// Current values of all variables, indexed by value reference per type.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Values {
    pub reals: Vec<f64>,
    pub integers: Vec<i32>,
    pub booleans: Vec<bool>,
    pub strings: Vec<String>,
}
