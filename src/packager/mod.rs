//! The packaging tool: scenario JSON in, `.fmu` out, without recompiling.
//!
//! An FMU is a zip archive holding
//! - `modelDescription.xml` ([`model_description`]),
//! - `binaries/<platform>/<modelIdentifier>.<so|dll|dylib>`: the runtime library of each
//!   platform ([`platforms`]; `linux64`, `win64`, `aarch64-linux`), copied unchanged,
//! - `resources/scenario.json`: the canonical scenario the runtime reads at
//!   fmi2Instantiate (its hash is the GUID),
//! - `documentation/index.html` ([`documentation`]).

pub mod documentation;
pub mod model_description;
pub mod model_description3;
pub mod platforms;
pub mod runtime_cache;
pub mod ssp;
pub mod terminals;

pub use platforms::{Platform, Runtimes};

use crate::scenario::{self, Scenario, ScenarioError};
use std::io::Write;
use std::path::{Path, PathBuf};

/// File name of the runtime library that cargo builds (`fmu-template`).
pub const RUNTIME_FILE_NAME: &str = "libcontact_fmu_runtime.so";

/// Why packaging failed.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    #[error("the FMU runtime library was not found (looked for {looked}).\n  Build it with `cargo build --release` at the top of the repository (it builds the whole workspace), or pass --runtime PATH / set CONTACT_FMU_RUNTIME.")]
    RuntimeMissing { looked: String },
    #[error("no FMU runtime for the platform '{platform}' (looked in {looked}; found: {found}).\n  Build the other platforms' runtimes with `bash ci/cross.sh`, or pass --runtimes DIR (a folder of <platform>/<library>, e.g. built on another machine) / set CONTACT_FMU_RUNTIMES.")]
    PlatformMissing {
        platform: String,
        looked: String,
        found: String,
    },
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: the FMU variable '{name}' would start at {value}: a scenario value it is derived from is too large (or too small) for a double; modelDescription.xml cannot hold it")]
    NonFiniteStart {
        file: String,
        name: String,
        value: f64,
    },
    #[error("{file}: {message}")]
    Asset { file: String, message: String },
    #[error("{path}: cannot write the archive: {source}")]
    Zip {
        path: String,
        #[source]
        source: zip::result::ZipError,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> PackageError + '_ {
    move |source| PackageError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Finds the runtime library: `explicit` if given, else `$CONTACT_FMU_RUNTIME`, else
/// the host platform's in the installed runtimes ([`platforms::set_installed`]), else
/// next to the running executable (`target/<profile>/`, where cargo puts both).
pub fn find_runtime(explicit: Option<&Path>) -> Result<PathBuf, PackageError> {
    let mut candidates = vec![];
    if let Some(p) = explicit {
        candidates.push(p.to_path_buf());
    } else if let Some(p) = std::env::var_os("CONTACT_FMU_RUNTIME") {
        candidates.push(PathBuf::from(p));
    } else {
        if let (Some(dir), Some(host)) = (platforms::installed(), Platform::host()) {
            candidates.push(dir.join(host.folder()).join(RUNTIME_FILE_NAME));
        }
        candidates.extend(
            platforms::beside_executable()
                .iter()
                .map(|d| d.join(RUNTIME_FILE_NAME)),
        );
    }
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .ok_or_else(|| PackageError::RuntimeMissing {
            looked: candidates
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// The FMI version an FMU is written for (`contact-fmu package --fmi 2|3`). The same
/// runtime library serves both: it exports the `fmi2*` and the `fmi3*` functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FmiVersion {
    /// FMI 2.0 Co-Simulation (the default).
    #[default]
    V2,
    /// FMI 3.0 Co-Simulation, its vectors laid out as arrays or scalars (docs/fmi3.md).
    V3(crate::cosim::fmi3::Layout),
}

/// Everything that goes into one FMU, in memory.
pub struct FmuContents {
    pub scenario: Scenario,
    pub model_description: String,
    /// FMI 3.0: `terminalsAndIcons/terminalsAndIcons.xml` ([`terminals`]), when a body
    /// has a frame.
    pub terminals: Option<String>,
    pub documentation: String,
    pub scenario_json: String,
}

/// Builds the contents of the FMI 2.0 FMU of `scenario`.
pub fn contents(scenario: &Scenario, generated_at: &str) -> FmuContents {
    contents_for(scenario, generated_at, FmiVersion::V2)
}

/// Builds the contents of the FMU of `scenario` for FMI version `fmi`.
pub fn contents_for(scenario: &Scenario, generated_at: &str, fmi: FmiVersion) -> FmuContents {
    let (table, layout, models) = crate::registry::layout(scenario);
    let deps = crate::cosim::feedthrough::resolve(&table, &layout, |k, f| models[k].feedthrough(f));
    let (model_description, terminals) = match fmi {
        FmiVersion::V2 => (
            model_description::write(scenario, &table, &deps, generated_at),
            None,
        ),
        FmiVersion::V3(arrays) => {
            let collections = crate::cosim::fmi3::collections(scenario);
            let view = crate::cosim::fmi3::Fmi3View::with_layout(&table, arrays, &collections);
            (
                model_description3::write(scenario, &table, &deps, generated_at, arrays),
                terminals::write(&table, &view, &layout.bodies, &collections),
            )
        }
    };
    FmuContents {
        scenario: scenario.clone(),
        model_description,
        terminals,
        documentation: documentation::write(scenario, &table),
        scenario_json: scenario.canonical_json(),
    }
}

/// Refuses a scenario whose FMU would declare a non-finite start value (a radius of
/// 1e308 makes the default inertia infinite): `start="inf"` is not an xs:double.
pub fn check_starts(scenario: &Scenario, file: &str) -> Result<(), PackageError> {
    use crate::cosim::variables::Start;
    let (table, _, _) = crate::registry::layout(scenario);
    for v in &table.variables {
        if let Some(Start::Real(x)) = v.start {
            if !x.is_finite() {
                return Err(PackageError::NonFiniteStart {
                    file: file.to_string(),
                    name: v.name.clone(),
                    value: x,
                });
            }
        }
    }
    Ok(())
}

/// Reads and checks every file the scenario names (meshes, soil maps, height maps,
/// generated assets) as the FMU will at fmi2Instantiate, so that a broken file is
/// refused by `check` and `package`, with the scenario file and field, and not in the
/// user's importer (issue 26). `dir` is the scenario's folder.
pub fn check_assets(scenario: &Scenario, dir: &Path, file: &str) -> Result<(), PackageError> {
    crate::cosim::World::new(scenario, Some(dir))
        .map(|_| ())
        .map_err(|e| PackageError::Asset {
            file: file.to_string(),
            message: e.to_string(),
        })
}

/// Everything `contact-fmu check` does to scenario text `text` (named `file` in
/// messages, its side files in `dir`): parse, validate, the side files exist, the start
/// values are finite, every side file reads and the world instantiates
/// ([`check_starts`], [`check_assets`]). What passes packages and instantiates.
pub fn check_text(text: &str, file: &str, dir: &Path) -> Result<Scenario, PackageError> {
    let scenario = scenario::parse_in(text, file, dir)?;
    check_starts(&scenario, file)?;
    check_assets(&scenario, dir, file)?;
    Ok(scenario)
}

/// [`check_text`] of the scenario file `path` with the merge patches `patches`
/// ([`scenario::load_patched`]).
pub fn check(path: &Path, patches: &[PathBuf]) -> Result<Scenario, PackageError> {
    let scenario = scenario::load_patched(path, patches)?;
    let file = path.display().to_string();
    check_starts(&scenario, &file)?;
    check_assets(&scenario, scenario::folder_of(path), &file)?;
    Ok(scenario)
}

/// [`check`] of a scenario source (text, its name and folder; patches already merged).
pub fn check_source(source: &scenario::Source) -> Result<Scenario, PackageError> {
    let scenario = source.parse()?;
    check_starts(&scenario, &source.file)?;
    check_assets(&scenario, &source.dir, &source.file)?;
    Ok(scenario)
}

/// Packages the scenario file `scenario_path` into `out_dir/<modelIdentifier>.fmu`
/// with the runtime libraries `runtimes` (a path: the host's only; or [`Runtimes`]).
/// Returns the path of the FMU.
pub fn package(
    scenario_path: &Path,
    out_dir: &Path,
    runtimes: impl Into<Runtimes>,
) -> Result<PathBuf, PackageError> {
    package_patched(scenario_path, &[], out_dir, runtimes)
}

/// [`package`] with JSON merge patches applied to the scenario first
/// ([`scenario::load_patched`]; `contact-fmu package --patch`).
pub fn package_patched(
    scenario_path: &Path,
    patches: &[PathBuf],
    out_dir: &Path,
    runtimes: impl Into<Runtimes>,
) -> Result<PathBuf, PackageError> {
    package_fmi(scenario_path, patches, out_dir, runtimes, FmiVersion::V2)
}

/// [`package_patched`] for FMI version `fmi`.
pub fn package_fmi(
    scenario_path: &Path,
    patches: &[PathBuf],
    out_dir: &Path,
    runtimes: impl Into<Runtimes>,
    fmi: FmiVersion,
) -> Result<PathBuf, PackageError> {
    let scenario = check(scenario_path, patches)?;
    let dir = crate::scenario::folder_of(scenario_path);
    write_fmu(&scenario, dir, out_dir, &runtimes.into(), fmi)
}

/// Packages the scenario `source` (patches merged, [`scenario::Source::patched`]) into
/// `out_dir/<modelIdentifier>.fmu` for FMI version `fmi`: [`package_fmi`] for JSON
/// that is not a file (the Python API's dicts). Returns the path of the FMU.
pub fn package_source(
    source: &scenario::Source,
    out_dir: &Path,
    runtimes: &Runtimes,
    fmi: FmiVersion,
) -> Result<PathBuf, PackageError> {
    let scenario = check_source(source)?;
    write_fmu(&scenario, &source.dir, out_dir, runtimes, fmi)
}

/// Writes the FMU of the checked `scenario`, whose files resolve against `dir`.
fn write_fmu(
    scenario: &Scenario,
    dir: &Path,
    out_dir: &Path,
    runtimes: &Runtimes,
    fmi: FmiVersion,
) -> Result<PathBuf, PackageError> {
    let c = contents_for(scenario, &model_description::timestamp_now(), fmi);
    let mut binaries = vec![];
    for (p, lib) in &runtimes.libraries {
        let folder = match fmi {
            FmiVersion::V2 => p.folder(),
            FmiVersion::V3(_) => p.tuple(),
        };
        let name = format!(
            "binaries/{folder}/{}.{}",
            scenario.model_identifier,
            p.extension()
        );
        // read, checked and deflated once per process (and deflated once for good:
        // beside the library, else in the output folder)
        let zipped = runtime_cache::remembered(lib, || {
            let bytes = std::fs::read(lib).map_err(io(lib))?;
            p.check_library(&bytes).map_err(|e| PackageError::Io {
                path: lib.display().to_string(),
                source: std::io::Error::other(e),
            })?;
            let places = [lib.parent().unwrap_or(out_dir), out_dir];
            runtime_cache::deflated(&bytes, &places).map_err(|source| PackageError::Zip {
                path: lib.display().to_string(),
                source,
            })
        })?;
        binaries.push((name, zipped));
    }
    // Assets go to resources/ under the path the scenario gives (validated to stay inside
    // the scenario's folder), so the runtime resolves them the same way.
    let mut assets = vec![];
    for (_, reference) in scenario.asset_references() {
        let resolved = scenario::resolve_asset(dir, &reference).map_err(|e| PackageError::Io {
            path: reference.clone(),
            source: std::io::Error::other(e),
        })?;
        let normalized: String = Path::new(&reference)
            .components()
            .filter_map(|c| match c {
                std::path::Component::Normal(p) => Some(p.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("/");
        assets.push((
            format!("resources/{normalized}"),
            std::fs::read(&resolved).map_err(io(&resolved))?,
        ));
    }
    if let FmiVersion::V3(layout) = fmi {
        assets.push((
            format!("resources/{}", crate::cosim::fmi3::Layout::RESOURCE),
            format!("{}\n", layout.as_str()).into_bytes(),
        ));
    }
    std::fs::create_dir_all(out_dir).map_err(io(out_dir))?;
    // Generated shapes: their mesh and sidecar under resources/assets/, made through
    // the asset cache in <out_dir>/.asset-cache (reused by later packaging runs)
    let cache = out_dir.join(".asset-cache");
    for (i, b) in scenario.bodies.iter().enumerate() {
        if let scenario::Shape::Generated { asset } = &b.shape {
            let w = crate::assets::write(
                asset,
                dir,
                &cache,
                &[crate::assets::MeshFormat::Obj],
                &|_, _, _| {},
            )
            .map_err(|e| PackageError::Io {
                path: format!("bodies[{i}].shape.asset"),
                source: std::io::Error::other(e.to_string()),
            })?;
            for f in &w.files {
                let name = f
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let entry = format!("resources/assets/{name}");
                if !assets.iter().any(|(n, _)| *n == entry) {
                    assets.push((entry, std::fs::read(f).map_err(io(f))?));
                }
            }
        }
    }
    let fmu_path = out_dir.join(format!("{}.fmu", scenario.model_identifier));
    // Write next to the target and rename, so a reader never sees half an archive; the
    // temporary name is this call's own (threads and processes packaging the same
    // scenario into one folder each write their own file, the last rename wins).
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp_path = out_dir.join(format!(
        ".{}.fmu.{}-{call}.tmp",
        scenario.model_identifier,
        std::process::id()
    ));
    let written = write_archive(&tmp_path, &c, &binaries, &assets)
        .and_then(|()| std::fs::rename(&tmp_path, &fmu_path).map_err(io(&fmu_path)));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp_path);
    }
    written?;
    Ok(fmu_path)
}

/// Writes the FMU archive `path`: `binaries` are (entry name, the runtime deflated by
/// [`runtime_cache::deflated`]), copied in as they are; the rest is deflated here.
fn write_archive(
    path: &Path,
    c: &FmuContents,
    binaries: &[(String, std::sync::Arc<Vec<u8>>)],
    assets: &[(String, Vec<u8>)],
) -> Result<(), PackageError> {
    use zip::write::SimpleFileOptions;
    let zerr = |source| PackageError::Zip {
        path: path.display().to_string(),
        source,
    };
    let file = std::fs::File::create(path).map_err(io(path))?;
    let mut zip = zip::ZipWriter::new(file);
    // Fixed timestamps: the same scenario and runtime give the same archive entries.
    let opts = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644);
    let head: [(&str, &[u8], u32); 1] = [(
        "modelDescription.xml",
        c.model_description.as_bytes(),
        0o644,
    )];
    let tail: [(&str, &[u8], u32); 2] = [
        ("resources/scenario.json", c.scenario_json.as_bytes(), 0o644),
        (
            "documentation/index.html",
            c.documentation.as_bytes(),
            0o644,
        ),
    ];
    let terminals = c
        .terminals
        .iter()
        .map(|t| (terminals::PATH, t.as_bytes(), 0o644));
    let asset_entries = assets
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice(), 0o644));
    let deflate = |zip: &mut zip::ZipWriter<std::fs::File>,
                   (name, bytes, mode): (&str, &[u8], u32)| {
        zip.start_file(name, opts.unix_permissions(mode))
            .map_err(zerr)?;
        zip.write_all(bytes).map_err(io(path))
    };
    // the description first, then the binaries (copied as deflated once), then the rest
    for entry in head {
        deflate(&mut zip, entry)?;
    }
    for (name, zipped) in binaries {
        runtime_cache::copy_into(&mut zip, zipped, name).map_err(zerr)?;
    }
    for entry in tail.into_iter().chain(terminals).chain(asset_entries) {
        deflate(&mut zip, entry)?;
    }
    zip.finish().map_err(zerr)?;
    Ok(())
}
