//! The `contact-fmu` command line: package contact-dynamics scenarios as FMI 2.0
//! Co-Simulation FMUs. In the library so that the executable (`src/main.rs`) and the
//! Python package's console script (`python/`) run the same code in-process.

mod asset;

use clap::{Parser, Subcommand};
use crate::packager::{self, model_description};
use crate::scenario;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "contact-fmu",
    version,
    about = "Package contact-dynamics and terramechanics scenarios as FMI 2.0 Co-Simulation FMUs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// parsed once per run: the size of the asset options does not matter
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Write DIR/<modelIdentifier>.fmu for each scenario (no recompilation).
    Package {
        /// Scenario JSON files.
        #[arg(required = true)]
        scenarios: Vec<PathBuf>,
        /// Output folder.
        #[arg(short, long, default_value = "target/fmu")]
        out: PathBuf,
        #[command(flatten)]
        runtimes: RuntimeArgs,
        /// A JSON merge patch (RFC 7386) applied to every scenario first, e.g. the
        /// patch.json of `contact-fmu fit` (repeatable, applied in order).
        #[arg(long = "patch", value_name = "PATCH.json")]
        patches: Vec<PathBuf>,
        #[command(flatten)]
        fmi: FmiArgs,
    },
    /// Check scenario files and report every problem with its field path.
    Check {
        #[arg(required = true)]
        scenarios: Vec<PathBuf>,
        /// A JSON merge patch applied to every scenario first (as for `package`).
        #[arg(long = "patch", value_name = "PATCH.json")]
        patches: Vec<PathBuf>,
    },
    /// Write DIR/<modelIdentifier>.xml, the modelDescription.xml of each scenario.
    ModelDescription {
        #[arg(required = true)]
        scenarios: Vec<PathBuf>,
        /// A JSON merge patch applied to every scenario first (as for `package`).
        #[arg(long = "patch", value_name = "PATCH.json")]
        patches: Vec<PathBuf>,
        #[arg(short, long, default_value = "modelDescription")]
        out: PathBuf,
        #[command(flatten)]
        fmi: FmiArgs,
    },
    /// Package several scenarios as one SSP system (`.ssp`: SystemStructure.ssd and the
    /// FMUs), connected by variable name: an output feeds the input of the same name
    /// in another FMU, a contact wrench `<b>.f`/`<b>.t` feeds a free body's
    /// `<b>.f_ext`/`<b>.t_ext`. For OMSimulator, libcosim and fmpy
    /// (docs/cosimulation.md).
    Ssp {
        /// Scenario JSON files, one component each (named by its model_identifier).
        #[arg(required = true, num_args = 2..)]
        scenarios: Vec<PathBuf>,
        /// The .ssp file to write.
        #[arg(short, long)]
        out: PathBuf,
        /// Communication step of the masters, s (default: the smallest
        /// default_experiment.step_size of the scenarios).
        #[arg(long)]
        step: Option<f64>,
        /// A parameter value bound in the SSD: COMPONENT:VARIABLE=VALUE, a number or
        /// true/false (repeatable).
        #[arg(long = "param", value_name = "COMPONENT:VARIABLE=VALUE")]
        params: Vec<String>,
        /// Also write the system for libcosim's own format into this folder:
        /// OspSystemStructure.xml and the FMUs beside it.
        #[arg(long, value_name = "DIR")]
        osp: Option<PathBuf>,
        #[command(flatten)]
        runtimes: RuntimeArgs,
    },
    /// Fit FMI parameters of a scenario to a reference (another scenario, given values
    /// or a CSV of measurements), stage by stage (docs/calibration.md).
    Fit {
        /// The fit description (JSON).
        spec: PathBuf,
        /// Folder for fit.json (the fitted parameters as FMI start values, the table),
        /// patch.json (the scenario patch: `package MODEL --patch patch.json`) and
        /// fit.md (the table).
        #[arg(short, long, default_value = "target/fit")]
        out: PathBuf,
        /// Run the evaluations in another process instead of on local threads: the
        /// model is packaged into OUT/fmu/ and handed to CMD (run by `sh -c`), e.g.
        /// ".venv/bin/python examples/fit_dask.py --scheduler tcp://host:8786"
        /// (docs/calibration.md).
        #[arg(long, value_name = "CMD")]
        evaluator: Option<String>,
        /// The runtime library for --evaluator's FMU (as for `package`).
        #[arg(long)]
        runtime: Option<PathBuf>,
    },
    /// Print the JSON Schema of the scenario format.
    Schema,
    /// Generate a procedural asset (wheel, surface, rock, rock field) into a folder:
    /// meshes, a JSON sidecar with the parameters, the content ID and the mass
    /// properties; files of the same request are reused.
    Asset(asset::AssetArgs),
}

/// Which runtime libraries go into the FMUs (docs/platforms.md).
#[derive(clap::Args)]
struct RuntimeArgs {
    /// The host platform's runtime library (default: $CONTACT_FMU_RUNTIME, or
    /// libcontact_fmu_runtime.so next to this executable).
    #[arg(long)]
    runtime: Option<PathBuf>,
    /// A folder of other platforms' runtimes, laid out <platform>/<library>
    /// (win64/contact_fmu_runtime.dll, aarch64-linux/libcontact_fmu_runtime.so,
    /// darwin64/libcontact_fmu_runtime.dylib) (default: $CONTACT_FMU_RUNTIMES, or
    /// runtimes/ next to this executable, where `bash ci/cross.sh` puts them).
    #[arg(long, value_name = "DIR")]
    runtimes: Option<PathBuf>,
    /// The platforms the FMUs carry, comma-separated: linux64, win64, aarch64-linux,
    /// darwin64 (default: every platform whose runtime is found; an error names a
    /// platform asked for whose runtime is missing).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    platforms: Vec<String>,
}

impl RuntimeArgs {
    fn resolve(self) -> Result<packager::Runtimes, String> {
        runtimes(self.runtime, self.runtimes, &self.platforms)
    }
}

/// The runtime libraries FMUs get, as `package --runtime R --runtimes DIR --platforms
/// LIST` chooses them: the host's (`runtime`, `$CONTACT_FMU_RUNTIME`, the installed
/// ones or beside the executable) and every other platform's found in `dir`
/// (`$CONTACT_FMU_RUNTIMES`, the installed ones or `runtimes/` beside the
/// executable); only `platforms` when that is not empty, each of which must be found.
pub fn runtimes(
    runtime: Option<PathBuf>,
    dir: Option<PathBuf>,
    platforms: &[String],
) -> Result<packager::Runtimes, String> {
    let host = runtime_library(runtime)?;
    // a folder the user names must exist (a typo would drop platforms silently)
    let named = dir.clone().map(|d| ("--runtimes", d)).or_else(|| {
        std::env::var_os("CONTACT_FMU_RUNTIMES").map(|d| ("CONTACT_FMU_RUNTIMES", d.into()))
    });
    if let Some((from, d)) = named {
        if !d.is_dir() {
            return Err(format!("{from} {}: not a folder", d.display()));
        }
    }
    let dirs = packager::platforms::runtime_dirs(dir.as_deref());
    let found = packager::Runtimes::discover(&host, &dirs).map_err(|e| e.to_string())?;
    if platforms.is_empty() {
        return Ok(found);
    }
    let wanted = platforms
        .iter()
        .map(|p| packager::Platform::parse(p.trim()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("--platforms: {e}"))?;
    found.select(&wanted, &dirs).map_err(|e| e.to_string())
}

/// `--fmi 2` or `--fmi 3`.
fn parse_fmi(text: &str) -> Result<packager::FmiVersion, String> {
    match text.trim() {
        "2" | "2.0" => Ok(packager::FmiVersion::V2),
        "3" | "3.0" => Ok(packager::FmiVersion::V3(Default::default())),
        other => Err(format!("'{other}': the FMI version is 2 or 3")),
    }
}

fn parse_layout(s: &str) -> Result<crate::cosim::fmi3::Layout, String> {
    crate::cosim::fmi3::Layout::parse(s)
}

/// `--fmi`, `--layout` and `--scalars` of `package` and `model-description`.
#[derive(clap::Args)]
struct FmiArgs {
    /// FMI version: 2 (FMI 2.0 Co-Simulation) or 3 (FMI 3.0 Co-Simulation, vectors
    /// as arrays; docs/fmi3.md).
    #[arg(long, default_value = "2", value_parser = parse_fmi)]
    fmi: packager::FmiVersion,
    /// With --fmi 3, how vectors are laid out (docs/fmi3.md): `arrays` (a body's
    /// vectors as arrays, a collection's bodies as one array of rows), `bodies`
    /// (arrays per body, no collection arrays) or `scalars` (every element a
    /// variable of its own, `ball.r[1]` as in FMI 2.0, for importers that read FMI
    /// 3.0 without arrays: OMSimulator).
    #[arg(long, value_parser = parse_layout)]
    layout: Option<crate::cosim::fmi3::Layout>,
    /// Same as --layout scalars.
    #[arg(long, conflicts_with = "layout")]
    scalars: bool,
}

impl FmiArgs {
    /// The FMI version with its layout (a layout with FMI 2.0 is refused).
    fn version(&self) -> Result<packager::FmiVersion, String> {
        use crate::cosim::fmi3::Layout;
        let layout = if self.scalars { Some(Layout::Scalars) } else { self.layout };
        with_layout(self.fmi, layout)
    }
}

/// `--fmi VERSION [--layout LAYOUT]` as text (the Python API's `fmi=3, layout="bodies"`).
pub fn fmi_version(fmi: &str, layout: Option<&str>) -> Result<packager::FmiVersion, String> {
    let version = parse_fmi(fmi)?;
    let layout = layout.map(parse_layout).transpose()?;
    with_layout(version, layout)
}

fn with_layout(
    fmi: packager::FmiVersion,
    layout: Option<crate::cosim::fmi3::Layout>,
) -> Result<packager::FmiVersion, String> {
    match (fmi, layout) {
        (f, None) => Ok(f),
        (packager::FmiVersion::V3(_), Some(l)) => Ok(packager::FmiVersion::V3(l)),
        (packager::FmiVersion::V2, Some(_)) => Err(
            "--layout and --scalars are for FMI 3.0 FMUs (--fmi 3); FMI 2.0 has only scalars"
                .into(),
        ),
    }
}

/// When started by `cargo run` and the runtime library is missing, build it (once):
/// `cargo run` builds only the CLI's package, not the cdylib beside it.
fn build_runtime_with_cargo() -> bool {
    let Some(cargo) = std::env::var_os("CARGO") else {
        return false;
    };
    let release = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(|d| d.ends_with("release")))
        .unwrap_or(false);
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let mut cmd = std::process::Command::new(cargo);
    cmd.args(["build", "-p", "contact-fmu-runtime", "--manifest-path"])
        .arg(&manifest);
    if release {
        cmd.arg("--release");
    }
    eprintln!("contact-fmu: the FMU runtime library is not built yet; building it once: cargo build -p contact-fmu-runtime{}", if release { " --release" } else { "" });
    matches!(cmd.status(), Ok(s) if s.success())
}

/// The runtime library to package (`--runtime`, `$CONTACT_FMU_RUNTIME` or beside the
/// executable), built once through cargo when it is missing under `cargo run`.
fn runtime_library(explicit: Option<PathBuf>) -> Result<PathBuf, String> {
    match packager::find_runtime(explicit.as_deref()) {
        Ok(r) => Ok(r),
        Err(e) if explicit.is_none() && build_runtime_with_cargo() => {
            packager::find_runtime(None).map_err(|_| e.to_string())
        }
        Err(e) => Err(e.to_string()),
    }
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Package {
            scenarios,
            out,
            runtimes,
            patches,
            fmi,
        } => {
            let fmi = fmi.version()?;
            let runtimes = runtimes.resolve()?;
            eprintln!("platforms: {}", runtimes.names());
            let mut failed = 0;
            for (i, s) in scenarios.iter().enumerate() {
                let t0 = Instant::now();
                match packager::package_fmi(s, &patches, &out, &runtimes, fmi) {
                    Ok(fmu) => eprintln!(
                        "[{}/{}] {} -> {} ({:.0} ms)",
                        i + 1,
                        scenarios.len(),
                        s.display(),
                        fmu.display(),
                        t0.elapsed().as_secs_f64() * 1e3
                    ),
                    Err(e) => {
                        eprintln!("[{}/{}] error: {e}", i + 1, scenarios.len());
                        failed += 1;
                    }
                }
            }
            if failed > 0 {
                return Err(format!(
                    "{failed} of {} scenario(s) could not be packaged",
                    scenarios.len()
                ));
            }
            Ok(())
        }
        Command::Check { scenarios, patches } => {
            let mut failed = 0;
            for s in &scenarios {
                match packager::check(s, &patches) {
                    Ok(sc) => eprintln!(
                        "{}: ok ({}, {} bodies)",
                        s.display(),
                        sc.model_identifier,
                        sc.bodies.len()
                    ),
                    Err(e) => {
                        eprintln!("error: {e}");
                        failed += 1;
                    }
                }
            }
            if failed > 0 {
                return Err(format!(
                    "{failed} of {} scenario(s) have problems",
                    scenarios.len()
                ));
            }
            Ok(())
        }
        Command::ModelDescription {
            scenarios,
            patches,
            out,
            fmi,
        } => {
            let fmi = fmi.version()?;
            std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
            for s in &scenarios {
                let sc = scenario::load_patched(s, &patches).map_err(|e| e.to_string())?;
                let c = packager::contents_for(&sc, &model_description::timestamp_now(), fmi);
                let path = out.join(format!("{}.xml", sc.model_identifier));
                std::fs::write(&path, c.model_description)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                eprintln!("{} -> {}", s.display(), path.display());
            }
            Ok(())
        }
        Command::Ssp {
            scenarios,
            out,
            step,
            params,
            osp,
            runtimes,
        } => {
            let runtimes = runtimes.resolve()?;
            let params = params
                .iter()
                .map(|p| parse_param(p))
                .collect::<Result<Vec<_>, _>>()?;
            let t0 = Instant::now();
            let (components, connections) =
                packager::ssp::package(&scenarios, &out, &runtimes, step, &params, osp.as_deref())?;
            for (i, c) in components.iter().enumerate() {
                let n_in = connections.iter().filter(|k| k.to == i).count();
                let n_out = connections.iter().filter(|k| k.from == i).count();
                eprintln!(
                    "  {}: {} inputs connected, {} outputs used ({})",
                    c.name, n_in, n_out, c.source
                );
            }
            eprintln!(
                "{} components, {} connections -> {} ({:.0} ms)",
                components.len(),
                connections.len(),
                out.display(),
                t0.elapsed().as_secs_f64() * 1e3
            );
            if let Some(dir) = &osp {
                eprintln!(
                    "  and {}/OspSystemStructure.xml with the FMUs",
                    dir.display()
                );
            }
            Ok(())
        }
        Command::Fit {
            spec,
            out,
            evaluator,
            runtime,
        } => fit_file(&spec, &out, evaluator.as_deref(), runtime),
        Command::Schema => {
            print!("{}", scenario::json_schema());
            Ok(())
        }
        Command::Asset(a) => asset::run(a),
    }
}

/// `contact-fmu fit FILE -o OUT [--evaluator CMD] [--runtime R]`.
fn fit_file(
    path: &Path,
    out: &Path,
    evaluator: Option<&str>,
    runtime: Option<PathBuf>,
) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = path.display().to_string();
    let (_, table) = fit(&text, &file, scenario::folder_of(path), out, evaluator, runtime)?;
    print!("{table}");
    Ok(())
}

/// Runs the fit description `text` (named `file` in messages, its model path relative
/// to `dir`) and writes OUT/fit.json, patch.json and fit.md; returns fit.json's
/// content and the table (Markdown). `evaluator`: a command that runs the evaluations (`--evaluator`).
pub fn fit(
    text: &str,
    file: &str,
    dir: &Path,
    out: &Path,
    evaluator: Option<&str>,
    runtime: Option<PathBuf>,
) -> Result<(serde_json::Value, String), String> {
    use crate::fit;
    let spec = fit::FitSpec::parse(text).map_err(|e| format!("{file}: {e}"))?;
    let model_path = dir.join(&spec.model);
    let model = fit::Model::load(&model_path)?;
    fit::preflight::check(&spec, &model, &model_path.display().to_string())
        .map_err(|e| format!("{file}: {e}"))?;
    let t0 = Instant::now();
    eprintln!("reference values of {} cases ...", spec.cases.len());
    let references = fit::references(&spec, dir, &|c| model.step(c))?;
    for (c, r) in spec.cases.iter().zip(&references) {
        let what = match r {
            fit::Reference::Value(_) => "",
            fit::Reference::Series(_) => " (series, mean)",
        };
        eprintln!(
            "  {}: {}{what} = {:.6e}",
            c.name,
            c.measure.output,
            r.shown()
        );
    }
    let progress = |stage: &str, n: usize, cost: f64| {
        if n % 50 == 0 {
            eprintln!("  stage '{stage}': {n} evaluations, cost {cost:.3e}");
        }
    };
    let external;
    let eval: &dyn fit::Evaluator = match evaluator {
        None => &model,
        Some(cmd) => {
            let runtime = runtime_library(runtime)?;
            let fmu = packager::package(&model_path, &out.join("fmu"), &runtime)
                .map_err(|e| e.to_string())?;
            external = fit::external::External::start(cmd, &fmu, model.clone())?;
            eprintln!(
                "evaluations by '{cmd}' ({} workers) with {}",
                external.workers,
                fmu.display()
            );
            &external
        }
    };
    let result = fit::run(&spec, eval, &references, &progress)?;
    let table = fit::table_markdown(&result);
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let json = serde_json::json!({
        "fit": file,
        "model": model_path.display().to_string(),
        "start_values": result.params,
        "cases": result.table.iter().map(|c| serde_json::json!({
            "case": c.case, "kind": c.kind, "reference": c.reference, "fitted": c.fitted,
            "relative_error": c.error })).collect::<Vec<_>>(),
        "stages": result.stages.iter().map(|s| serde_json::json!({
            "name": s.name, "evaluations": s.evaluations, "cost": s.cost, "params": s.params })).collect::<Vec<_>>(),
    });
    let write = |name: &str, text: String| {
        let p = out.join(name);
        std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))
    };
    let pretty = |v: &serde_json::Value| serde_json::to_string_pretty(v).unwrap_or_default() + "\n";
    write("fit.json", pretty(&json))?;
    write("patch.json", pretty(&result.patch()))?;
    write("fit.md", table.clone())?;
    eprintln!(
        "-> {o}/fit.json, {o}/fit.md, {o}/patch.json ({:.1} s)\n   FMU with the fitted values: contact-fmu package {} --patch {o}/patch.json",
        t0.elapsed().as_secs_f64(),
        model_path.display(),
        o = out.display()
    );
    Ok((json, table))
}

/// `COMPONENT:VARIABLE=VALUE` of `contact-fmu ssp --param`.
fn parse_param(p: &str) -> Result<(String, String, packager::ssp::ParamValue), String> {
    let bad = || {
        format!("--param '{p}': expected COMPONENT:VARIABLE=VALUE with a number or true/false, e.g. contact:terrain.zeta=0.8")
    };
    let (comp, rest) = p.split_once(':').ok_or_else(bad)?;
    let (var, value) = rest.rsplit_once('=').ok_or_else(bad)?;
    let value = packager::ssp::ParamValue::parse(value).ok_or_else(bad)?;
    if comp.is_empty() || var.is_empty() {
        return Err(bad());
    }
    Ok((comp.to_string(), var.to_string(), value))
}

/// Runs the command line `args` (the first is the program's name, as in
/// `std::env::args_os`) and returns the process exit code: 0 done, 1 an error (printed
/// to stderr), 2 a usage error (clap's). `--help` and `--version` print to stdout.
pub fn main_with_args<I, T>(args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return u8::try_from(e.exit_code()).unwrap_or(2);
        }
    };
    match run(cli) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}
