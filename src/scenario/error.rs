//! Scenario errors: every message names the file and the field path.

use std::fmt;

/// One problem with one field: `bodies[1].shape.radius: must be > 0, got -0.2`.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    /// Field path in the scenario, `bodies[1].shape.radius`; empty for the whole file.
    pub path: String,
    /// What is wrong, with the offending value.
    pub message: String,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Why a scenario could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("{file}: cannot read the scenario: {source}")]
    Read {
        file: String,
        #[source]
        source: std::io::Error,
    },
    /// The JSON is malformed or does not fit the format (unknown field, wrong type).
    #[error("{file}: {error}")]
    Parse { file: String, error: FieldError },
    /// The JSON fits the format but values are out of range or inconsistent.
    #[error("{file}: {} problem(s):\n{}", .errors.len(), .errors.iter().map(|e| format!("  {e}")).collect::<Vec<_>>().join("\n"))]
    Invalid {
        file: String,
        errors: Vec<FieldError>,
    },
}

impl ScenarioError {
    /// All field errors, for tests and tools.
    pub fn field_errors(&self) -> Vec<FieldError> {
        match self {
            ScenarioError::Read { .. } => vec![],
            ScenarioError::Parse { error, .. } => vec![error.clone()],
            ScenarioError::Invalid { errors, .. } => errors.clone(),
        }
    }
}
