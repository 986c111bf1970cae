//! The models this crate ships, in the order the world calls them: the one place that
//! names every model, above both the models and the co-simulation interface
//! ([`crate::cosim`] knows none of them and is handed their declare functions).
//!
//! Each entry names the model's scenario section, checks it, and declares the model's
//! variables and returns the model when the scenario uses it (see
//! [`crate::cosim::model::Model`]). A new model is one entry here (and its field in
//! [`crate::scenario::types::Scenario`]); `docs/design.md`, "Adding a model".
//!
//! The order matters where models meet: the rig drives its wheel body before the SCM
//! soil evaluates it and steps it before the soil yields to it. It is also the order
//! of the sections' errors.

use crate::cosim::layout;

use crate::cosim::references::Layout;
use crate::cosim::model::{DeclareFn, Model};
use crate::cosim::variables::VariableTable;
use crate::cosim::{World, WorldError};
use crate::models::{bbcc, bekker, leite, pcm, rheological, rig, scm, terra};
use crate::scenario::checker::Checker;
use crate::scenario::types::Scenario;

/// Checks a model's scenario section (nothing when the scenario has none): ranges,
/// names, references to bodies and other sections, each problem with its field path.
pub(crate) type CheckFn = fn(&mut Checker, &Scenario);

/// One registered model.
pub struct Registered {
    /// Its section's key in the scenario JSON (`"scm"`).
    pub section: &'static str,
    /// Value checks of its section (`src/models/<model>/check.rs`).
    pub(crate) check: CheckFn,
    /// Declares it (`src/models/<model>/adapter.rs`).
    pub declare: DeclareFn,
}

/// Every model, in call order.
pub const MODELS: &[Registered] = &[
    Registered {
        section: "bbcc",
        check: bbcc::check::check,
        declare: bbcc::adapter::declare,
    },
    Registered {
        section: "terra",
        check: terra::check::check,
        declare: terra::adapter::declare,
    },
    Registered {
        section: "rig",
        check: rig::check::check,
        declare: rig::adapter::declare,
    },
    Registered {
        section: "scm",
        check: scm::check::check,
        declare: scm::adapter::declare,
    },
    Registered {
        section: "bekker",
        check: bekker::check::check_bekker,
        declare: bekker::adapter::declare_bekker,
    },
    Registered {
        section: "bjh",
        check: bekker::check::check_bjh,
        declare: bekker::adapter::declare_bjh,
    },
    Registered {
        section: "rheological",
        check: rheological::check::check,
        declare: rheological::adapter::declare,
    },
    Registered {
        section: "leite",
        check: leite::check::check,
        declare: leite::adapter::declare,
    },
    Registered {
        section: "pcm",
        check: pcm::check::check,
        declare: pcm::adapter::declare,
    },
];

/// Every model's declare function, in call order (what the world is handed).
pub fn declare_fns() -> impl Iterator<Item = DeclareFn> {
    MODELS.iter().map(|m| m.declare)
}

/// The variable table, the world's layout and the models of `s`, with every model
/// of [`MODELS`] ([`layout::build`]).
pub fn layout(s: &Scenario) -> (VariableTable, Layout, Vec<Box<dyn Model>>) {
    layout::build(s, declare_fns())
}

impl World {
    /// A world of every model of [`MODELS`] in the state after fmi2Instantiate:
    /// start values, time 0 ([`World::with_models`]). Files the scenario references
    /// (meshes, soil maps) are read from `asset_dir` (the FMU's resources).
    pub fn new(
        scenario: &Scenario,
        asset_dir: Option<&std::path::Path>,
    ) -> Result<World, WorldError> {
        World::with_models(scenario, asset_dir, declare_fns())
    }
}

#[cfg(test)]
mod tests {
    use super::MODELS;

    /// Every registered section is a top-level field of the scenario, spelled as in
    /// its JSON Schema.
    #[test]
    fn every_section_is_a_scenario_field() {
        let schema: serde_json::Value =
            serde_json::from_str(&crate::scenario::json_schema()).unwrap();
        let fields = &schema["properties"];
        for m in MODELS {
            assert!(
                fields.get(m.section).is_some(),
                "registry section '{}' is not a field of Scenario",
                m.section
            );
        }
    }
}
