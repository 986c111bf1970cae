//! Asset references (mesh files, height maps) in a scenario are paths relative to the
//! scenario file. They may not escape the scenario's folder: `../../etc/passwd` and
//! absolute paths are refused, also through symbolic links.

use std::path::{Component, Path, PathBuf};

/// Resolves `reference` (as written in the scenario) against `scenario_dir`.
///
/// Returns the canonical path of an existing file inside `scenario_dir`, or a sentence
/// saying why not.
pub fn resolve_asset(scenario_dir: &Path, reference: &str) -> Result<PathBuf, String> {
    if reference.is_empty() {
        return Err("asset path is empty".into());
    }
    let rel = Path::new(reference);
    if rel.is_absolute() || reference.starts_with('\\') || reference.contains(':') {
        return Err(format!(
            "asset path '{reference}' must be relative to the scenario file"
        ));
    }
    // Lexical check first, so that a missing file is still reported as escaping.
    let mut depth: i64 = 0;
    for c in rel.components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return Err(format!(
                        "asset path '{reference}' leaves the scenario's folder"
                    ));
                }
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(format!(
                    "asset path '{reference}' must be relative to the scenario file"
                ))
            }
        }
    }
    let base = scenario_dir
        .canonicalize()
        .map_err(|e| format!("scenario folder {}: {e}", scenario_dir.display()))?;
    let full = base
        .join(rel)
        .canonicalize()
        .map_err(|e| format!("asset '{reference}': {e}"))?;
    if !full.starts_with(&base) {
        return Err(format!(
            "asset path '{reference}' leaves the scenario's folder (through a link)"
        ));
    }
    if !full.is_file() {
        return Err(format!("asset '{reference}' is not a file"));
    }
    Ok(full)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_paths_that_escape_the_scenario_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("meshes")).unwrap();
        std::fs::write(dir.path().join("meshes/rock.obj"), "v 0 0 0\n").unwrap();
        let ok = resolve_asset(dir.path(), "meshes/rock.obj").unwrap();
        assert!(ok.ends_with("meshes/rock.obj"));
        assert!(resolve_asset(dir.path(), "meshes/../meshes/rock.obj").is_ok());
        for bad in [
            "../../etc/passwd",
            "/etc/passwd",
            "meshes/../../x",
            "",
            "C:/x",
        ] {
            let e = resolve_asset(dir.path(), bad).unwrap_err();
            assert!(!e.is_empty(), "{bad}");
        }
        assert!(resolve_asset(dir.path(), "../../etc/passwd")
            .unwrap_err()
            .contains("leaves the scenario's folder"));
        assert!(resolve_asset(dir.path(), "missing.obj").is_err());
    }

    #[test]
    fn refuses_a_link_that_points_outside() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::NamedTempFile::new().unwrap();
        let link = dir.path().join("link.obj");
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), &link).unwrap();
        #[cfg(windows)]
        if let Err(e) = std::os::windows::fs::symlink_file(outside.path(), &link) {
            // Windows lets only administrators and developer mode make links; where no
            // link can be made, no scenario can hold one either
            eprintln!("no symbolic link made ({e}): nothing to test");
            return;
        }
        let e = resolve_asset(dir.path(), "link.obj").unwrap_err();
        // Wine makes the link but cannot open the file through it: refused as not found
        if std::fs::metadata(&link).is_ok() {
            assert!(e.contains("through a link"), "{e}");
        }
    }
}
