//! The models a world can hold, in the order the world calls them.
//!
//! Each entry names the model's scenario section, checks it, and declares the model's
//! variables and returns the model when the scenario uses it (see
//! [`super::model::Model`]). A new model is one entry here (and its field in
//! [`crate::scenario::Scenario`]); `docs/design.md`, "Adding a model".
//!
//! The order matters where models meet: the rig drives its wheel body before the SCM
//! soil evaluates it and steps it before the soil yields to it. It is also the order
//! of the sections' errors.

use super::model::{Declare, Model};
use crate::models::{bbcc, bekker, leite, pcm, rheological, rig, scm, terra};
use crate::scenario::{Checker, Scenario};

/// Reads a model's scenario section; declares its variables and returns the model
/// when the scenario uses it.
pub type DeclareFn = fn(&mut Declare) -> Option<Box<dyn Model>>;

/// Checks a model's scenario section (nothing when the scenario has none): ranges,
/// names, references to bodies and other sections, each problem with its field path.
pub(crate) type CheckFn = fn(&mut Checker, &Scenario);

/// One registered model.
pub struct Registered {
    /// Its section's key in the scenario JSON (`"scm"`).
    pub section: &'static str,
    /// Value checks of its section (`src/models/<model>/section.rs`).
    pub(crate) check: CheckFn,
    /// Declares it (`src/models/<model>/adapter.rs`).
    pub declare: DeclareFn,
}

/// Every model, in call order.
pub const MODELS: &[Registered] = &[
    Registered {
        section: "bbcc",
        check: bbcc::section::check,
        declare: bbcc::adapter::declare,
    },
    Registered {
        section: "terra",
        check: terra::section::check,
        declare: terra::adapter::declare,
    },
    Registered {
        section: "rig",
        check: rig::section::check,
        declare: rig::adapter::declare,
    },
    Registered {
        section: "scm",
        check: scm::section::check,
        declare: scm::adapter::declare,
    },
    Registered {
        section: "bekker",
        check: bekker::section::check_bekker,
        declare: bekker::adapter::declare_bekker,
    },
    Registered {
        section: "bjh",
        check: bekker::section::check_bjh,
        declare: bekker::adapter::declare_bjh,
    },
    Registered {
        section: "rheological",
        check: rheological::section::check,
        declare: rheological::adapter::declare,
    },
    Registered {
        section: "leite",
        check: leite::section::check,
        declare: leite::adapter::declare,
    },
    Registered {
        section: "pcm",
        check: pcm::section::check,
        declare: pcm::adapter::declare,
    },
];

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
