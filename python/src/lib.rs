//! `contact_fmu._native`: the packager, the checker and the command line of the
//! `contact-fmu` crate, called in-process from Python. The typed, documented API is
//! the Python package around it (`python/contact_fmu/__init__.py`); this module takes
//! and returns plain strings and lists.
//!
//! Every call releases the GIL while Rust works (packaging runs in parallel in
//! Python threads). Errors raise `NativeError(kind, message, file, fields)`, which the
//! Python layer turns into `ScenarioError` or `PackagingError`: `kind` is "scenario"
//! (`fields`: (field path, message) pairs), "file" (a file could not be read) or
//! "packaging" (anything else, e.g. no runtime library).

use contact_fmu::packager::{self, PackageError};
use contact_fmu::scenario::{Patch, ScenarioError, Source};
use pyo3::prelude::*;
use std::path::PathBuf;

pyo3::create_exception!(
    _native,
    NativeError,
    pyo3::exceptions::PyException,
    "An error of the native layer: args = (kind, message, file, [(path, message), ...])."
);

/// What goes wrong in Rust, before it becomes a Python exception (built without the GIL).
struct Failure {
    kind: &'static str,
    message: String,
    file: String,
    fields: Vec<(String, String)>,
}

impl From<ScenarioError> for Failure {
    fn from(e: ScenarioError) -> Failure {
        let (kind, file) = match &e {
            ScenarioError::Read { file, .. } => ("file", file.clone()),
            ScenarioError::Parse { file, .. } | ScenarioError::Invalid { file, .. } => {
                ("scenario", file.clone())
            }
        };
        Failure {
            kind,
            message: e.to_string(),
            file,
            fields: e
                .field_errors()
                .into_iter()
                .map(|f| (f.path, f.message))
                .collect(),
        }
    }
}

impl From<PackageError> for Failure {
    fn from(e: PackageError) -> Failure {
        match e {
            PackageError::Scenario(s) => s.into(),
            other => Failure::packaging(other.to_string()),
        }
    }
}

impl Failure {
    fn packaging(message: String) -> Failure {
        Failure {
            kind: "packaging",
            message,
            file: String::new(),
            fields: vec![],
        }
    }
}

/// Runs `work` without the GIL; its failure becomes `NativeError`.
fn detached<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> Result<T, Failure> + Send,
) -> PyResult<T> {
    py.detach(work).map_err(PyErr::from)
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        NativeError::new_err((f.kind, f.message, f.file, f.fields))
    }
}

/// A scenario handed over by Python: its JSON text, name and folder, and the merge
/// patches as (name, JSON text).
type ScenarioArg = (String, String, PathBuf, Vec<(String, String)>);

fn source((text, file, dir, patches): ScenarioArg) -> Result<Source, Failure> {
    let patches: Vec<Patch> = patches
        .into_iter()
        .map(|(name, text)| Patch { name, text })
        .collect();
    Ok(Source { text, file, dir }.patched(&patches)?)
}

/// The version of the crate (and of every FMU's runtime): `contact_fmu.__version__`.
#[pyfunction]
fn version() -> &'static str {
    contact_fmu::RUNTIME_VERSION
}

/// Sets (or with None clears) the folder of the runtimes installed with the package,
/// laid out `<platform>/<library>`.
#[pyfunction]
#[pyo3(signature = (dir))]
fn set_runtimes(dir: Option<PathBuf>) {
    packager::platforms::set_installed(dir);
}

/// Packages a scenario; returns the FMU's path.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (scenario, out_dir, fmi, layout, runtime, runtimes, platforms))]
fn package(
    py: Python<'_>,
    scenario: ScenarioArg,
    out_dir: PathBuf,
    fmi: String,
    layout: Option<String>,
    runtime: Option<PathBuf>,
    runtimes: Option<PathBuf>,
    platforms: Vec<String>,
) -> PyResult<PathBuf> {
    detached(py, move || {
        let fmi = contact_fmu::cli::fmi_version(&fmi, layout.as_deref()).map_err(Failure::packaging)?;
        let source = source(scenario)?;
        let runtimes =
            contact_fmu::cli::runtimes(runtime, runtimes, &platforms).map_err(Failure::packaging)?;
        Ok(packager::package_source(&source, &out_dir, &runtimes, fmi)?)
    })
}

/// Checks a scenario as packaging does; returns (model identifier, GUID, canonical
/// scenario JSON).
#[pyfunction]
#[pyo3(signature = (scenario))]
fn check(py: Python<'_>, scenario: ScenarioArg) -> PyResult<(String, String, String)> {
    detached(py, move || {
        let s = packager::check_source(&source(scenario)?)?;
        Ok((s.model_identifier.clone(), s.guid(), s.canonical_json()))
    })
}

/// The modelDescription.xml of a scenario.
#[pyfunction]
#[pyo3(signature = (scenario, fmi, layout))]
fn model_description(
    py: Python<'_>,
    scenario: ScenarioArg,
    fmi: String,
    layout: Option<String>,
) -> PyResult<String> {
    detached(py, move || {
        let fmi = contact_fmu::cli::fmi_version(&fmi, layout.as_deref()).map_err(Failure::packaging)?;
        let s = source(scenario)?.parse()?;
        let now = packager::model_description::timestamp_now();
        Ok(packager::contents_for(&s, &now, fmi).model_description)
    })
}

/// The JSON Schema of the scenario format.
#[pyfunction]
fn schema() -> String {
    contact_fmu::scenario::json_schema()
}

/// Packages scenario files as one SSP system; returns (components as (name, FMU
/// source), connections as (from, output, to, input)).
#[pyfunction]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
#[pyo3(signature = (scenarios, out, step, params, osp, runtime, runtimes, platforms))]
fn ssp(
    py: Python<'_>,
    scenarios: Vec<PathBuf>,
    out: PathBuf,
    step: Option<f64>,
    params: Vec<(String, String, String)>,
    osp: Option<PathBuf>,
    runtime: Option<PathBuf>,
    runtimes: Option<PathBuf>,
    platforms: Vec<String>,
) -> PyResult<(Vec<(String, String)>, Vec<(String, String, String, String)>)> {
    detached(py, move || {
        let runtimes =
            contact_fmu::cli::runtimes(runtime, runtimes, &platforms).map_err(Failure::packaging)?;
        let params = params
            .into_iter()
            .map(|(c, v, value)| {
                packager::ssp::ParamValue::parse(&value)
                    .map(|p| (c.clone(), v.clone(), p))
                    .ok_or_else(|| {
                        Failure::packaging(format!(
                            "params: {c}:{v}={value}: the value is a number or true/false"
                        ))
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let (components, connections) = packager::ssp::package(
            &scenarios,
            &out,
            &runtimes,
            step,
            &params,
            osp.as_deref(),
        )
        .map_err(Failure::packaging)?;
        let names: Vec<String> = components.iter().map(|c| c.name.clone()).collect();
        Ok((
            components
                .iter()
                .map(|c| (c.name.clone(), c.source.clone()))
                .collect(),
            connections
                .iter()
                .map(|k| {
                    (
                        names[k.from].clone(),
                        k.output.clone(),
                        names[k.to].clone(),
                        k.input.clone(),
                    )
                })
                .collect(),
        ))
    })
}

/// Runs a fit description (text, name, folder its model path resolves against);
/// writes OUT/fit.json, patch.json, fit.md and returns fit.json's text.
#[pyfunction]
#[pyo3(signature = (text, file, dir, out, evaluator, runtime))]
fn fit(
    py: Python<'_>,
    text: String,
    file: String,
    dir: PathBuf,
    out: PathBuf,
    evaluator: Option<String>,
    runtime: Option<PathBuf>,
) -> PyResult<String> {
    detached(py, move || {
        contact_fmu::cli::fit(&text, &file, &dir, &out, evaluator.as_deref(), runtime)
            .map(|(json, _table)| json.to_string())
            .map_err(Failure::packaging)
    })
}

/// Runs the `contact-fmu` command line with `argv` (argv[0] the program name); returns
/// its exit code.
#[pyfunction]
fn cli(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(move || contact_fmu::cli::main_with_args(argv))
}

/// contact-fmu's packager and command line, in-process (see the `contact_fmu` package).
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("NativeError", m.py().get_type::<NativeError>())?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(set_runtimes, m)?)?;
    m.add_function(wrap_pyfunction!(package, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(model_description, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(ssp, m)?)?;
    m.add_function(wrap_pyfunction!(fit, m)?)?;
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    Ok(())
}
