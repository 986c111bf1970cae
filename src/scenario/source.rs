//! A scenario's JSON text with where it came from: a file, or text handed in by a
//! program (the Python API's dicts), with the merge patches applied to it.

use super::error::{FieldError, ScenarioError};
use std::path::{Path, PathBuf};

/// Scenario JSON before parsing: its text, the name errors give it, and the folder its
/// relative file references (meshes, soil maps) resolve against.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    /// The JSON text.
    pub text: String,
    /// The name in error messages: the file's path, or what the caller calls it.
    pub file: String,
    /// The folder relative paths in the scenario resolve against.
    pub dir: PathBuf,
}

/// A JSON merge patch (RFC 7386) with the name errors give it.
#[derive(Debug, Clone, PartialEq)]
pub struct Patch {
    /// The name in error messages (a file's path, or the caller's).
    pub name: String,
    /// The patch text.
    pub text: String,
}

fn read(p: &Path) -> Result<String, ScenarioError> {
    std::fs::read_to_string(p).map_err(|source| ScenarioError::Read {
        file: p.display().to_string(),
        source,
    })
}

fn json(text: &str, file: &str) -> Result<serde_json::Value, ScenarioError> {
    serde_json::from_str::<serde_json::Value>(text).map_err(|e| ScenarioError::Parse {
        file: file.to_string(),
        error: FieldError {
            path: String::new(),
            message: super::shown_message(&e.to_string()),
        },
    })
}

impl Patch {
    /// The patch in file `path`.
    pub fn read(path: &Path) -> Result<Patch, ScenarioError> {
        Ok(Patch {
            name: path.display().to_string(),
            text: read(path)?,
        })
    }
}

impl Source {
    /// The scenario file `path`; its files resolve against its folder.
    pub fn read(path: &Path) -> Result<Source, ScenarioError> {
        Ok(Source {
            text: read(path)?,
            file: path.display().to_string(),
            dir: super::folder_of(path).to_path_buf(),
        })
    }

    /// The scenario with `patches` merged into it in order. Errors name the patch; the
    /// result's name says which patches it has ("a.json patched by p.json").
    pub fn patched(self, patches: &[Patch]) -> Result<Source, ScenarioError> {
        if patches.is_empty() {
            return Ok(self);
        }
        let mut value = json(&self.text, &self.file)?;
        for p in patches {
            let patch = json(&p.text, &p.name)?;
            if !patch.is_object() {
                return Err(ScenarioError::Parse {
                    file: p.name.clone(),
                    error: FieldError {
                        path: String::new(),
                        message: "a patch is a JSON object (RFC 7386 merge patch)".into(),
                    },
                });
            }
            super::merge_patch(&mut value, &patch);
        }
        let names: Vec<&str> = patches.iter().map(|p| p.name.as_str()).collect();
        Ok(Source {
            text: value.to_string(),
            file: format!("{} patched by {}", self.file, names.join(", ")),
            dir: self.dir,
        })
    }

    /// Parses and validates the scenario; its side files must exist in its folder
    /// ([`super::parse_in`]).
    pub fn parse(&self) -> Result<super::Scenario, ScenarioError> {
        super::parse_in(&self.text, &self.file, &self.dir)
    }
}
