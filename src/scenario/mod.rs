//! The scenario: what one FMU simulates, as JSON. Parse, validate, canonical form,
//! JSON Schema.
//!
//! ```
//! let text = r#"{
//!   "name": "Drop", "model_identifier": "drop",
//!   "default_experiment": {"stop_time": 1.0, "step_size": 0.001},
//!   "terrain": {"surface": {"type": "flat"}, "material": {"E": 1e7, "nu": 0.3, "zeta": 0.6, "mu": 0.5}},
//!   "bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": -0.1},
//!               "material": {"E": 1e7, "nu": 0.3, "zeta": 0.6, "mu": 0.5},
//!               "motion": {"type": "free", "mass": 1.0}}]
//! }"#;
//! let err = contact_fmu::scenario::parse_str(text, "drop.json").unwrap_err();
//! assert!(err.to_string().contains("bodies[0].shape.radius: must be > 0, got -0.1"));
//! ```

// Below the models (the crate imports these modules, not this facade, from anything
// the registry reaches): the types, the checker, errors and asset paths.
pub mod assets;
pub mod checker;
pub mod error;
pub mod source;
pub mod types;
// Above the models: validation with every model of the registry.
mod validate;

pub use assets::resolve_asset;
pub use checker::{
    body_names, is_plain_name, shorten_quoted, shown, MAX_COORDINATE, MAX_LENGTH, MAX_NAME_LEN,
    RESERVED_NAMES,
};
pub use error::{FieldError, ScenarioError};
pub use source::{Patch, Source};
pub use types::*;
pub use validate::validate;

use std::path::Path;

/// A parse message cut to 300 characters (the value serde quotes can be huge).
fn shown_message(m: &str) -> String {
    let n = m.chars().count();
    if n <= 300 {
        m.to_string()
    } else {
        let head: String = m.chars().take(240).collect();
        format!("{head}... (message of {n} characters cut)")
    }
}

/// Parses and validates scenario JSON. `file` names the source in error messages.
pub fn parse_str(text: &str, file: &str) -> Result<Scenario, ScenarioError> {
    let whole = |message: String| ScenarioError::Parse {
        file: file.to_string(),
        error: FieldError {
            path: String::new(),
            message,
        },
    };
    // a scenario is one JSON object: say so before serde reports a field inside
    // something else (a top-level array, a number)
    match text.trim_start().chars().next() {
        Some('{') => {}
        Some(c) => {
            return Err(whole(format!(
                "a scenario is a JSON object ({{ ... }}); this file starts with '{c}'"
            )))
        }
        None => {
            return Err(whole(
                "the file is empty: a scenario is a JSON object".into(),
            ))
        }
    }
    let de = &mut serde_json::Deserializer::from_str(text);
    let scenario: Scenario = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let path = e.path().to_string();
        ScenarioError::Parse {
            file: file.to_string(),
            error: FieldError {
                // "." is the whole document, "?" where serde did not get into it (a
                // syntax error before the first field)
                path: if path == "." || path == "?" {
                    String::new()
                } else {
                    path
                },
                // serde quotes the offending value: a 50 MB string must not come back whole
                message: shown_message(&e.into_inner().to_string()),
            },
        }
    })?;
    // nothing may follow the object (a second object, a stray bracket)
    de.end()
        .map_err(|e| whole(format!("content after the scenario's closing brace: {e}")))?;
    let errors = validate(&scenario);
    if errors.is_empty() {
        Ok(scenario)
    } else {
        Err(ScenarioError::Invalid {
            file: file.to_string(),
            errors,
        })
    }
}

/// Reads, parses and validates a scenario file, and checks that the asset files it
/// references exist inside its folder.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    load_patched(path, &[])
}

/// [`load`] with JSON merge patches (RFC 7386) applied in order before parsing, e.g. the
/// `patch.json` of `contact-fmu fit` (`{"start_values": {...}}`). The scenario's files
/// still resolve against its own folder; errors name the scenario and the patches.
pub fn load_patched(
    path: &Path,
    patches: &[std::path::PathBuf],
) -> Result<Scenario, ScenarioError> {
    let source = Source::read(path)?;
    let patches = patches
        .iter()
        .map(|p| Patch::read(p))
        .collect::<Result<Vec<_>, _>>()?;
    source.patched(&patches)?.parse()
}

/// [`parse_str`], and every side file the scenario names must exist inside `dir`, its
/// folder (what [`load`] does after reading the file).
pub fn parse_in(text: &str, file: &str, dir: &Path) -> Result<Scenario, ScenarioError> {
    let scenario = parse_str(text, file)?;
    let errors: Vec<FieldError> = scenario
        .asset_references()
        .into_iter()
        .filter_map(|(field, reference)| {
            resolve_asset(dir, &reference)
                .err()
                .map(|message| FieldError {
                    path: field,
                    message,
                })
        })
        .collect();
    if errors.is_empty() {
        Ok(scenario)
    } else {
        Err(ScenarioError::Invalid {
            file: file.to_string(),
            errors,
        })
    }
}

/// The folder a scenario's (or fit description's) files resolve against: the file's
/// parent, or "." for a bare file name (whose parent is the empty path).
pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// RFC 7386 JSON merge patch: objects merge key by key, `null` deletes a key, anything
/// else replaces the target.
pub fn merge_patch(target: &mut serde_json::Value, patch: &serde_json::Value) {
    match (target.as_object_mut(), patch.as_object()) {
        (Some(t), Some(p)) => {
            for (k, v) in p {
                if v.is_null() {
                    t.remove(k);
                } else {
                    merge_patch(t.entry(k.clone()).or_insert(serde_json::Value::Null), v);
                }
            }
        }
        (None, Some(_)) => {
            *target = serde_json::Value::Object(Default::default());
            merge_patch(target, patch);
        }
        _ => *target = patch.clone(),
    }
}

impl Scenario {
    /// The canonical JSON text: defaults filled in, fixed field order, shortest
    /// round-trip number formatting. The packager writes this to
    /// `resources/scenario.json`; the GUID is its hash.
    pub fn canonical_json(&self) -> String {
        // Serializing plain data structs with finite numbers cannot fail.
        serde_json::to_string_pretty(self).expect("scenario serializes") + "\n"
    }

    /// The FMU GUID of this scenario (see [`crate::guid`]).
    pub fn guid(&self) -> String {
        crate::guid::guid_for(&self.canonical_json())
    }

    /// Asset files the scenario references: (field path, path as written).
    pub fn asset_references(&self) -> Vec<(String, String)> {
        let mut out = vec![];
        if let SurfaceSpec::Generated(p) = &self.terrain.surface {
            for (k, l) in p.layers.iter().enumerate() {
                if let crate::assets::surface::Layer::HeightMap { file, .. } = l {
                    out.push((format!("terrain.surface.layers[{k}].file"), file.clone()));
                }
            }
        }
        if let Some(m) = self.scm.as_ref().and_then(|s| s.soil_map.as_ref()) {
            out.push(("scm.soil_map.file".to_string(), m.file.clone()));
        }
        for (i, b) in self.bodies.iter().enumerate() {
            match &b.shape {
                Shape::ConvexMesh { file, .. } | Shape::Mesh { file, .. } => {
                    out.push((format!("bodies[{i}].shape.file"), file.clone()))
                }
                Shape::Compound { parts } => {
                    for (k, p) in parts.iter().enumerate() {
                        if let Shape::ConvexMesh { file, .. } = &p.shape {
                            out.push((
                                format!("bodies[{i}].shape.parts[{k}].shape.file"),
                                file.clone(),
                            ));
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// Index of the body named `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }

    /// Indices of the bodies a name stands for: the body itself, or the members of the
    /// collection (`group`) of that name; empty when neither exists.
    pub fn members(&self, name: &str) -> Vec<usize> {
        match self.body_index(name) {
            Some(i) => vec![i],
            None => (0..self.bodies.len())
                .filter(|&i| self.bodies[i].group.as_deref() == Some(name))
                .collect(),
        }
    }
}

/// The JSON Schema of the scenario format (draft 2020-12), pretty-printed.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Scenario);
    serde_json::to_string_pretty(&schema).expect("schema serializes") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{
      "name": "Drop", "model_identifier": "drop",
      "default_experiment": {"stop_time": 1.0, "step_size": 0.001},
      "terrain": {"surface": {"type": "flat"}, "material": {"E": 1e7, "nu": 0.3, "zeta": 0.6, "mu": 0.5}},
      "bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.1},
                  "material": {"E": 1e7, "nu": 0.3, "zeta": 0.6, "mu": 0.5},
                  "motion": {"type": "free", "mass": 1.0, "position": [0, 0, 0.5]}}],
      "bbcc": {"pairs": [["ball", "terrain"]]}
    }"#;

    #[test]
    fn a_good_scenario_parses_and_its_canonical_form_is_a_fixed_point() {
        let s = parse_str(GOOD, "good.json").unwrap();
        assert_eq!(s.model_step, 1e-4);
        let canon = s.canonical_json();
        let again = parse_str(&canon, "canon.json").unwrap();
        assert_eq!(again, s);
        assert_eq!(again.canonical_json(), canon);
        assert_eq!(again.guid(), s.guid());
    }

    #[test]
    fn a_scenario_is_one_json_object_and_nothing_after_it() {
        // issue 26: trailing content was silently ignored
        for tail in ["{}", "]", "x", "{\"name\": 1}"] {
            let e = parse_str(&format!("{GOOD}\n{tail}"), "t.json")
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with("t.json: ") && e.contains("after the scenario's closing brace"),
                "{e}"
            );
        }
        assert!(parse_str(&format!("{GOOD}\n  \n"), "t.json").is_ok());
        // a top-level array got a message about a field inside it
        let e = parse_str(&format!("[{GOOD}]"), "a.json")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("a scenario is a JSON object") && e.contains("'['"),
            "{e}"
        );
        let e = parse_str("  ", "e.json").unwrap_err().to_string();
        assert!(e.contains("empty"), "{e}");
        // a syntax error before the first field had the path "?"
        let e = parse_str("{\"name\": \"x\",", "s.json")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("s.json: EOF while parsing"), "{e}");
    }

    #[test]
    fn long_names_and_huge_values_are_refused_without_echoing_them_whole() {
        // issue 26: 1000-character model identifiers reached the file system's "File
        // name too long"; a 50 MB string in a number field came back whole
        let long = "a".repeat(1000);
        let text = GOOD.replace(
            "\"model_identifier\": \"drop\"",
            &format!("\"model_identifier\": \"{long}\""),
        );
        let e = parse_str(&text, "l.json").unwrap_err().to_string();
        assert!(
            e.contains("model_identifier")
                && e.contains("at most 100")
                && e.contains("(1000 characters)"),
            "{e}"
        );
        assert!(e.len() < 400, "{}", e.len());
        let text = GOOD
            .replace("\"name\": \"ball\"", &format!("\"name\": \"{long}\""))
            .replace("[\"ball\"", &format!("[\"{long}\""));
        let e = parse_str(&text, "l.json").unwrap_err().to_string();
        assert!(e.contains("bodies[0].name") && e.len() < 2000, "{e}");
        let huge = "x".repeat(5_000_000);
        let text = GOOD.replace("\"radius\": 0.1", &format!("\"radius\": \"{huge}\""));
        let e = parse_str(&text, "h.json").unwrap_err().to_string();
        assert!(
            e.contains("bodies[0].shape") && e.len() < 500,
            "{}",
            e.len()
        );
        assert!(parse_str(
            &GOOD.replace("\"drop\"", &format!("\"{}\"", "d".repeat(100))),
            "ok.json"
        )
        .is_ok());
    }

    #[test]
    fn a_model_step_no_step_can_reach_is_refused() {
        let text = GOOD.replace("\"bodies\"", "\"model_step\": 1e-300, \"bodies\"");
        let e = parse_str(&text, "m.json").unwrap_err().to_string();
        assert!(e.contains("model_step") && e.contains("at most 1e8"), "{e}");
    }

    #[test]
    fn a_scenario_with_thousands_of_bodies_builds_its_variable_table_in_linear_time() {
        // issue 26: 3000 bodies took over a minute (every new variable scanned all the
        // names before it); with the name index it is a fraction of a second
        let body = r#"{"name": "bNAME", "shape": {"type": "sphere", "radius": 0.1},
                      "motion": {"type": "kinematic", "position": [0, 0, 1]}}"#;
        let bodies: Vec<String> = (0..3000)
            .map(|i| body.replace("NAME", &i.to_string()))
            .collect();
        let text = format!(
            r#"{{"name": "many", "model_identifier": "many",
                "default_experiment": {{"stop_time": 1.0, "step_size": 0.001}},
                "terrain": {{"surface": {{"type": "flat"}}}}, "bodies": [{}]}}"#,
            bodies.join(",")
        );
        let s = parse_str(&text, "many.json").unwrap();
        let t0 = std::time::Instant::now();
        let (table, _, _) = crate::registry::layout(&s);
        let dt = t0.elapsed();
        assert!(table.by_name("b2999.r[3]").is_some());
        // generous for a debug build on a loaded 2-core machine
        assert!(dt.as_secs_f64() < 10.0, "{dt:?}");
    }

    #[test]
    fn unknown_fields_are_refused_with_their_path() {
        let text = GOOD.replace("\"radius\": 0.1", "\"radius\": 0.1, \"radios\": 2");
        let e = parse_str(&text, "x.json").unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with("x.json: bodies[0].shape"), "{msg}");
        assert!(msg.contains("radios"), "{msg}");
        let text = GOOD
            .replace("\"model_step\"", "\"x\"")
            .replace("\"name\": \"Drop\"", "\"name\": \"Drop\", \"colour\": 1");
        assert!(parse_str(&text, "x.json")
            .unwrap_err()
            .to_string()
            .contains("unknown field `colour`"));
    }

    #[test]
    fn wrong_types_name_the_field() {
        let text = GOOD.replace("\"mass\": 1.0", "\"mass\": \"heavy\"");
        let msg = parse_str(&text, "x.json").unwrap_err().to_string();
        assert!(msg.contains("bodies[0].motion"), "{msg}");
    }

    #[test]
    fn bad_values_are_all_reported_with_field_paths() {
        let text = GOOD
            .replace("\"radius\": 0.1", "\"radius\": -0.2")
            .replace(
                "\"zeta\": 0.6, \"mu\": 0.5}}",
                "\"zeta\": 0.0, \"mu\": 0.5}}",
            )
            .replace("[\"ball\", \"terrain\"]", "[\"bal\", \"terrain\"]")
            .replace("\"stop_time\": 1.0", "\"stop_time\": -1.0");
        let e = parse_str(&text, "x.json").unwrap_err();
        let errors: Vec<String> = e.field_errors().iter().map(|e| e.to_string()).collect();
        assert!(
            errors.contains(&"bodies[0].shape.radius: must be > 0, got -0.2".to_string()),
            "{errors:?}"
        );
        assert!(
            errors
                .iter()
                .any(|e| e.starts_with("terrain.material.zeta: must be in (0, 1]")),
            "{errors:?}"
        );
        assert!(
            errors
                .iter()
                .any(|e| e.starts_with("bbcc.pairs[0][0]: no body or collection named 'bal'")),
            "{errors:?}"
        );
        assert!(
            errors
                .iter()
                .any(|e| e.starts_with("default_experiment.stop_time")),
            "{errors:?}"
        );
    }

    #[test]
    fn names_must_be_plain_unique_and_not_reserved() {
        let two = GOOD.replace("\"bbcc\"", r#""description": "two", "bbcc""#);
        let s = parse_str(&two, "x.json").unwrap();
        let mut bad = s.clone();
        bad.bodies.push(bad.bodies[0].clone());
        bad.bodies.push(bad.bodies[0].clone());
        bad.bodies[2].name = "terrain".into();
        bad.model_identifier = "9lives".into();
        let errors: Vec<String> = validate(&bad).iter().map(|e| e.to_string()).collect();
        assert!(
            errors
                .iter()
                .any(|e| e.contains("bodies[1].name: 'ball' is used by another body")),
            "{errors:?}"
        );
        assert!(
            errors
                .iter()
                .any(|e| e.contains("bodies[2].name: 'terrain' is reserved")),
            "{errors:?}"
        );
        assert!(
            errors.iter().any(|e| e.starts_with("model_identifier")),
            "{errors:?}"
        );
    }

    #[test]
    fn the_schema_describes_the_format() {
        let schema: serde_json::Value = serde_json::from_str(&json_schema()).unwrap();
        let props = &schema["properties"];
        assert!(props["model_identifier"].is_object());
        assert_eq!(
            schema["additionalProperties"],
            serde_json::Value::Bool(false)
        );
    }
}
