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
    #[error("{file}: {} problem(s):\n{}", .errors.len(), listed(errors))]
    Invalid {
        file: String,
        errors: Vec<FieldError>,
    },
}

/// The problems of a scenario, one per line: the first [`SHOWN_PROBLEMS`], then how
/// many more (2000 duplicated pairs made a 127 kB message, issue 26).
fn listed(errors: &[FieldError]) -> String {
    let mut lines: Vec<String> = errors
        .iter()
        .take(SHOWN_PROBLEMS)
        .map(|e| format!("  {e}"))
        .collect();
    if errors.len() > SHOWN_PROBLEMS {
        lines.push(format!("  ... and {} more", errors.len() - SHOWN_PROBLEMS));
    }
    lines.join("\n")
}

/// The most problems a scenario error lists.
pub const SHOWN_PROBLEMS: usize = 20;

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
