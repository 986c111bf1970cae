//! `contact-fmu fit`: calibration of a model's FMI parameters to a reference, by
//! running the model's scenario with changed parameters (never repackaged), as
//! Barthelmes 2018, section 4.2 tunes TerRA to SCM.
//!
//! A fit description ([`FitSpec`], JSON) names the scenario to fit, the cases (each a
//! set of parameter values, e.g. a drop height, and a measured output averaged over a
//! time window, as a settled mean or as a time series), where each case's reference
//! comes from (another scenario run with the same case, a value given inline, or a CSV
//! of measurements, one value or a time series per case) and the stages of the fit
//! (the tuners of each optimization run; later stages start where the earlier ones
//! ended, the paper's two-stage procedure). The criterion is the sum of squared
//! relative errors (eq. (27), or its RMS form for a series) over a stage's cases; the
//! optimizer is argmin's Nelder-Mead in a bounded, scaled space ([`Tuner`]).
//!
//! An [`Evaluator`] runs the cases: [`Model`] runs the scenario's `World` in-process,
//! the code the FMU runs, with the parameters set as an importer sets them before
//! initialization, the cases of one evaluation on parallel threads;
//! [`external::External`] hands them to another process (the packaged FMU on a Dask
//! cluster, `examples/fit_dask.py`).

use crate::pmath;
pub mod external;
pub mod preflight;
pub mod spec;

use crate::cosim::variables::{Phase, VarType};
use crate::cosim::World;
use crate::scenario::Scenario;
use argmin::core::{CostFunction, Error as ArgminError, Executor, State};
use argmin::solver::neldermead::NelderMead;
pub use spec::{BaseSlipSinkage, BaseSpring, Case, FitSpec, Measure, MeasureKind, Stage, Tuner};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A scenario ready to run: the scenario and the folder its files resolve against.
#[derive(Debug, Clone)]
pub struct Model {
    pub scenario: Scenario,
    pub dir: PathBuf,
}

impl Model {
    /// Loads a scenario file.
    pub fn load(path: &Path) -> Result<Model, String> {
        let scenario = crate::scenario::load(path).map_err(|e| e.to_string())?;
        let dir = crate::scenario::folder_of(path).to_path_buf();
        Ok(Model { scenario, dir })
    }

    /// Runs `case` with `params` (FMI parameter name -> value, set before
    /// initialization after the case's own values) and returns the measured output at
    /// the communication points of the case's window ([`Measure::points`]).
    pub fn trace(&self, case: &Case, params: &BTreeMap<String, f64>) -> Result<Vec<f64>, String> {
        let ctx = |e: String| {
            format!(
                "case '{}', scenario '{}': {e}",
                case.name, self.scenario.model_identifier
            )
        };
        let mut w = World::new(&self.scenario, Some(&self.dir)).map_err(|e| ctx(e.to_string()))?;
        for (name, value) in case.set.iter().chain(params.iter()) {
            let var = w
                .table()
                .by_name(name)
                .ok_or_else(|| ctx(format!("no variable '{name}'")))?
                .clone();
            let r = match var.ty {
                VarType::Real => w.set_reals(&[var.vr], &[*value], Phase::Instantiated),
                VarType::Integer => {
                    w.set_integers(&[var.vr], &[*value as i32], Phase::Instantiated)
                }
                VarType::Boolean => {
                    w.set_booleans(&[var.vr], &[*value != 0.0], Phase::Instantiated)
                }
                VarType::String => return Err(ctx(format!("'{name}' is a String"))),
            };
            r.map_err(|e| ctx(e.to_string()))?;
        }
        let out = w
            .table()
            .by_name(&case.measure.output)
            .filter(|v| v.ty == VarType::Real)
            .ok_or_else(|| ctx(format!("no Real output '{}'", case.measure.output)))?
            .vr;
        w.enter_initialization();
        w.exit_initialization().map_err(|e| ctx(e.to_string()))?;
        let h = self.step(case);
        let (n, times) = case.measure.points(h);
        if times.is_empty() {
            return Err(ctx(
                "the measuring window holds no communication point".into()
            ));
        }
        let first = n + 1 - times.len();
        let mut trace = Vec::with_capacity(times.len());
        let mut value = [0.0];
        for k in 1..=n {
            w.do_step(h).map_err(|e| ctx(e.to_string()))?;
            if k >= first {
                w.get_reals(&[out], &mut value)
                    .map_err(|e| ctx(e.to_string()))?;
                trace.push(value[0]);
            }
        }
        Ok(trace)
    }

    /// The case's communication step: its own, or the scenario's default experiment's.
    pub fn step(&self, case: &Case) -> f64 {
        case.step
            .unwrap_or(self.scenario.default_experiment.step_size)
    }

    /// The mean of [`Model::trace`]: the case's settled value.
    pub fn measure(&self, case: &Case, params: &BTreeMap<String, f64>) -> Result<f64, String> {
        self.trace(case, params).map(|t| mean(&t))
    }

    /// [`Model::measure`] for every case, on parallel threads (results in case order).
    pub fn measure_all(
        &self,
        cases: &[&Case],
        params: &BTreeMap<String, f64>,
    ) -> Result<Vec<f64>, String> {
        Ok(self
            .traces(cases, params)?
            .iter()
            .map(|t| mean(t))
            .collect())
    }
}

/// Runs a fit's cases with given parameters: in-process ([`Model`]) or elsewhere
/// ([`external::External`]). Results are in case order whatever runs them.
pub trait Evaluator: Sync {
    /// The measured output of every case at its window's communication points.
    fn traces(
        &self,
        cases: &[&Case],
        params: &BTreeMap<String, f64>,
    ) -> Result<Vec<Vec<f64>>, String>;
    /// The communication step a case runs with.
    fn step(&self, case: &Case) -> f64;
}

impl Evaluator for Model {
    fn traces(
        &self,
        cases: &[&Case],
        params: &BTreeMap<String, f64>,
    ) -> Result<Vec<Vec<f64>>, String> {
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .max(1);
        let mut out = vec![Ok(vec![]); cases.len()];
        for (chunk_cases, chunk_out) in cases.chunks(threads).zip(out.chunks_mut(threads)) {
            std::thread::scope(|s| {
                let handles: Vec<_> = chunk_cases
                    .iter()
                    .map(|c| s.spawn(move || self.trace(c, params)))
                    .collect();
                for (h, o) in handles.into_iter().zip(chunk_out.iter_mut()) {
                    *o = h.join().unwrap_or_else(|_| Err("a case panicked".into()));
                }
            });
        }
        out.into_iter().collect()
    }

    fn step(&self, case: &Case) -> f64 {
        Model::step(self, case)
    }
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// A case's reference: one value (compared with the mean), or a series at the case's
/// communication points.
#[derive(Debug, Clone, PartialEq)]
pub enum Reference {
    Value(f64),
    Series(Vec<f64>),
}

impl Reference {
    /// The value a table shows: the value, or the series' mean.
    pub fn shown(&self) -> f64 {
        match self {
            Reference::Value(v) => *v,
            Reference::Series(s) => mean(s),
        }
    }
}

/// A case's error: eq. (27) between the means, or the relative RMS error of the series
/// ([`MeasureKind`]).
pub fn case_error(kind: MeasureKind, trace: &[f64], reference: &Reference) -> f64 {
    match (kind, reference) {
        (MeasureKind::Mean, r) => relative_error(mean(trace), r.shown()),
        (MeasureKind::Series, Reference::Series(r)) => {
            let num: f64 = trace.iter().zip(r).map(|(v, r)| (v - r).powi(2)).sum();
            let den: f64 = r.iter().map(|r| r * r).sum();
            (num / den).sqrt()
        }
        (MeasureKind::Series, Reference::Value(r)) => {
            let num: f64 = trace.iter().map(|v| (v - r).powi(2)).sum();
            (num / (r * r * trace.len() as f64)).sqrt()
        }
    }
}

/// Relative error of eq. (27) of Barthelmes 2018: (z - z_ref) / z_ref.
pub fn relative_error(value: f64, reference: f64) -> f64 {
    (value - reference) / reference
}

/// One optimization stage's outcome.
#[derive(Debug, Clone)]
pub struct StageResult {
    pub name: String,
    /// The tuned parameters after the stage (FMI name -> value; base tuners also as
    /// `<name> (base)`).
    pub params: BTreeMap<String, f64>,
    /// Sum of squared relative errors over the stage's cases.
    pub cost: f64,
    pub evaluations: usize,
}

/// One case after the fit.
#[derive(Debug, Clone)]
pub struct CaseResult {
    pub case: String,
    pub kind: MeasureKind,
    /// The reference's value (a series: its mean over the window).
    pub reference: f64,
    /// The fitted model's mean over the window.
    pub fitted: f64,
    /// Eq. (27), or the relative RMS error of a series.
    pub error: f64,
}

/// The fit's outcome: the parameters, and per case reference, fitted value and error.
#[derive(Debug, Clone)]
pub struct FitResult {
    pub stages: Vec<StageResult>,
    /// All tuned FMI parameters at the end.
    pub params: BTreeMap<String, f64>,
    pub table: Vec<CaseResult>,
}

impl FitResult {
    /// The scenario patch (RFC 7386) that makes the fitted values the FMU's start
    /// values: `contact-fmu package MODEL.json --patch patch.json`.
    pub fn patch(&self) -> serde_json::Value {
        serde_json::json!({ "start_values": self.params })
    }
}

/// The FMI parameter values a point of tuner values gives (base tuners converted with
/// eq. (28) or (29)); `fixed` holds the values of parameters not tuned here (a base
/// tuner's exponent and limit come from there, or from their `_start` values). A
/// base slip-sinkage tuner whose limit is not above z_base gives NaN (not runnable).
pub fn parameters(
    tuners: &[Tuner],
    x: &[f64],
    fixed: &BTreeMap<String, f64>,
) -> BTreeMap<String, f64> {
    let mut p = fixed.clone();
    for (t, v) in tuners.iter().zip(x) {
        if !t.is_base() {
            p.insert(t.parameter.clone(), *v);
        }
    }
    for (t, v) in tuners.iter().zip(x) {
        if let Some(b) = &t.base_spring {
            // Barthelmes 2018, eq. (28): k_c = z_base^(1 - k_exp) k̄_c
            let exp = p.get(&b.exponent).copied().unwrap_or(b.exponent_start);
            p.insert(t.parameter.clone(), pmath::powf(b.z_base, 1.0 - exp) * v);
        }
        if let Some(b) = &t.base_slip_sinkage {
            // Barthelmes 2018, eq. (29):
            // k_s,max = ((k_s0 - z_base) / k_s0)^(1 - k_s,exp) k̄_s,max
            let exp = p.get(&b.exponent).copied().unwrap_or(b.exponent_start);
            let limit = p.get(&b.limit).copied().unwrap_or(b.limit_start);
            let f = pmath::powf((limit - b.z_base) / limit, 1.0 - exp);
            // a limit at or under z_base has no base rate: NaN, refused by the objective
            p.insert(
                t.parameter.clone(),
                if limit > b.z_base { f * v } else { f64::NAN },
            );
        }
    }
    p
}

struct Objective<'a> {
    evaluator: &'a dyn Evaluator,
    cases: Vec<&'a Case>,
    references: Vec<&'a Reference>,
    tuners: &'a [Tuner],
    fixed: &'a BTreeMap<String, f64>,
    evaluations: &'a AtomicUsize,
    progress: &'a (dyn Fn(usize, f64) + Sync),
    /// The first evaluation's error: it ends the fit (the optimizer is given the
    /// worst cost until it stops, without running anything more).
    failure: &'a std::sync::Mutex<Option<String>>,
}

/// The cost of a point whose parameters cannot be run (a derived value not finite).
const UNRUNNABLE: f64 = 1e30;

impl CostFunction for Objective<'_> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, u: &Self::Param) -> Result<f64, ArgminError> {
        // u: the optimizer's scaled coordinates; outside the bounds the point is
        // clamped and the excess penalized, so the simplex walks back in
        let mut penalty = 0.0;
        let x: Vec<f64> = self
            .tuners
            .iter()
            .zip(u)
            .map(|(t, ui)| {
                let (lo, hi) = (t.to_scaled(t.min), t.to_scaled(t.max));
                let c = ui.clamp(lo, hi);
                penalty += (ui - c).powi(2);
                t.from_scaled(c)
            })
            .collect();
        let failed = |f: &std::sync::Mutex<Option<String>>| {
            f.lock().map(|g| g.is_some()).unwrap_or(true)
        };
        if failed(self.failure) {
            return Ok(f64::MAX);
        }
        let p = parameters(self.tuners, &x, self.fixed);
        let cost = if p.values().all(|v| v.is_finite()) {
            let traces = match self.evaluator.traces(&self.cases, &p) {
                Ok(t) => t,
                Err(e) => {
                    if let Ok(mut f) = self.failure.lock() {
                        f.get_or_insert(e);
                    }
                    return Ok(f64::MAX);
                }
            };
            traces
                .iter()
                .zip(&self.cases)
                .zip(&self.references)
                .map(|((t, c), r)| case_error(c.measure.kind, t, r).powi(2))
                .sum::<f64>()
                + penalty
        } else {
            UNRUNNABLE + penalty
        };
        let n = self.evaluations.fetch_add(1, Ordering::Relaxed) + 1;
        (self.progress)(n, cost);
        Ok(if cost.is_finite() { cost } else { f64::MAX })
    }
}

/// Runs the fit: each stage in order, then every case with the result.
/// `references` are in the order of `spec.cases` ([`references`]);
/// `progress(stage, evaluation, cost)` is called after every evaluation.
pub fn run(
    spec: &FitSpec,
    evaluator: &dyn Evaluator,
    references: &[Reference],
    progress: &(dyn Fn(&str, usize, f64) + Sync),
) -> Result<FitResult, String> {
    let mut current: BTreeMap<String, f64> = BTreeMap::new();
    // tuner values carried from stage to stage (by tuner name)
    let mut tuned: BTreeMap<String, f64> = BTreeMap::new();
    let mut stages = vec![];
    let reference_of = |c: &Case| {
        &references[spec
            .cases
            .iter()
            .position(|d| d.name == c.name)
            .unwrap_or(0)]
    };
    for stage in &spec.stages {
        let cases: Vec<&Case> = spec.stage_cases(stage)?;
        let refs: Vec<&Reference> = cases.iter().map(|c| reference_of(c)).collect();
        let x0: Vec<f64> = stage
            .tuners
            .iter()
            .map(|t| tuned.get(&t.name()).copied().unwrap_or(t.start))
            .collect();
        let mut best: Vec<f64> = stage
            .tuners
            .iter()
            .zip(&x0)
            .map(|(t, x)| t.to_scaled(*x))
            .collect();
        let mut cost = f64::INFINITY;
        let evaluations = AtomicUsize::new(0);
        let failure = std::sync::Mutex::new(None);
        let name = stage.name.clone();
        let report = |n: usize, c: f64| progress(&name, n, c);
        for _ in 0..=stage.restarts {
            // the simplex: the start and one step along each scaled axis
            let mut simplex = vec![best.clone()];
            for i in 0..best.len() {
                let mut v = best.clone();
                v[i] += stage.tuners[i].simplex_step();
                simplex.push(v);
            }
            let objective = Objective {
                evaluator,
                cases: cases.clone(),
                references: refs.clone(),
                tuners: &stage.tuners,
                fixed: &current,
                evaluations: &evaluations,
                progress: &report,
                failure: &failure,
            };
            let solver = NelderMead::new(simplex)
                .with_sd_tolerance(stage.tolerance)
                .map_err(|e| format!("stage '{}': {e}", stage.name))?;
            let res = Executor::new(objective, solver)
                .configure(|s| s.max_iters(stage.max_iterations))
                .run()
                .map_err(|e| format!("stage '{}': {e}", stage.name))?;
            if let Some(e) = failure.lock().ok().and_then(|mut f| f.take()) {
                return Err(format!("stage '{}': an evaluation failed: {e}", stage.name));
            }
            let c = res.state().get_best_cost();
            let gained = c < cost * (1.0 - 1e-3);
            if c < cost {
                cost = c;
                best = res
                    .state()
                    .get_best_param()
                    .cloned()
                    .ok_or_else(|| format!("stage '{}': no best point", stage.name))?;
            }
            if !gained {
                break;
            }
        }
        let x: Vec<f64> = stage
            .tuners
            .iter()
            .zip(&best)
            .map(|(t, u)| t.from_scaled(u.clamp(t.to_scaled(t.min), t.to_scaled(t.max))))
            .collect();
        for (t, v) in stage.tuners.iter().zip(&x) {
            tuned.insert(t.name(), *v);
        }
        current = parameters(&stage.tuners, &x, &current);
        let mut shown = current.clone();
        for (t, v) in stage.tuners.iter().zip(&x) {
            if t.is_base() {
                shown.insert(t.name(), *v);
            }
        }
        stages.push(StageResult {
            name: stage.name.clone(),
            params: shown,
            cost,
            evaluations: evaluations.load(Ordering::Relaxed),
        });
    }
    let all: Vec<&Case> = spec.cases.iter().collect();
    let traces = evaluator.traces(&all, &current)?;
    let table = spec
        .cases
        .iter()
        .zip(references.iter().zip(&traces))
        .map(|(c, (r, t))| CaseResult {
            case: c.name.clone(),
            kind: c.measure.kind,
            reference: r.shown(),
            fitted: mean(t),
            error: case_error(c.measure.kind, t, r),
        })
        .collect();
    Ok(FitResult {
        stages,
        params: current,
        table,
    })
}

/// The reference of every case: inline, from the CSV of measurements (one value, or a
/// time series interpolated at the case's communication points), or by running the
/// reference scenario with the case (its `set` values; e.g. a drop height).
/// `step(case)` is the communication step the model runs the case with.
pub fn references(
    spec: &FitSpec,
    dir: &Path,
    step: &dyn Fn(&Case) -> f64,
) -> Result<Vec<Reference>, String> {
    let csv = match &spec.measurements {
        Some(m) => {
            let needing: Vec<String> = spec
                .cases
                .iter()
                .filter(|c| c.reference.is_none())
                .map(|c| format!("'{}'", c.name))
                .collect();
            if needing.is_empty() {
                None
            } else {
                let rows = spec::read_measurements(&dir.join(&m.file), m).map_err(|e| {
                    format!(
                        "measurements.file: {e} (the reference of case{} {})",
                        if needing.len() > 1 { "s" } else { "" },
                        needing.join(", ")
                    )
                })?;
                Some((m, rows))
            }
        }
        None => None,
    };
    let reference = match &spec.reference {
        Some(r) => Some(Model::load(&dir.join(r))?),
        None => None,
    };
    let mut out = vec![];
    for c in &spec.cases {
        let series = c.measure.kind == MeasureKind::Series;
        let r = if let Some(v) = c.reference {
            Reference::Value(v)
        } else if let Some((m, rows)) = csv.as_ref().and_then(|(m, t)| Some((m, t.get(&c.name)?))) {
            let file = dir.join(&m.file);
            if m.time_column.is_some() {
                let (_, times) = c.measure.points(step(c));
                let v = spec::interpolate(rows, &times).ok_or_else(|| {
                    format!(
                        "{}: case '{}': the rows' times ({} to {} s) do not cover the window [{}, {}] s",
                        file.display(),
                        c.name,
                        rows[0].0,
                        rows[rows.len() - 1].0,
                        c.measure.from,
                        c.measure.to
                    )
                })?;
                if series {
                    Reference::Series(v)
                } else {
                    Reference::Value(mean(&v))
                }
            } else {
                Reference::Value(rows[0].1)
            }
        } else if let Some(r) = &reference {
            let mut case = c.clone();
            if let Some(o) = &c.reference_output {
                case.measure.output = o.clone();
            }
            case.step = Some(step(c));
            let at = spec.cases.iter().position(|d| d.name == c.name).unwrap_or(0);
            preflight::case_steps(&format!("cases[{at}]"), &case, step(c))?;
            let t = r.trace(&case, &BTreeMap::new())?;
            if series {
                Reference::Series(t)
            } else {
                Reference::Value(mean(&t))
            }
        } else {
            return Err(format!(
                "case '{}': no reference value (give `reference`, a `measurements` CSV row, or a `reference` scenario)",
                c.name
            ));
        };
        let bad = match &r {
            Reference::Value(v) => !(v.is_finite() && *v != 0.0),
            Reference::Series(s) => {
                !(s.iter().all(|v| v.is_finite()) && s.iter().any(|v| *v != 0.0))
            }
        };
        if bad {
            return Err(format!(
                "case '{}': the reference {} cannot be divided by (the errors are relative)",
                c.name,
                r.shown()
            ));
        }
        out.push(r);
    }
    Ok(out)
}

/// The result as a Markdown table (like Barthelmes 2018, Tables 2 and 3).
pub fn table_markdown(r: &FitResult) -> String {
    let mut s = String::from("| parameter | fitted value |\n| --- | --- |\n");
    for (k, v) in &r.params {
        s += &format!("| `{k}` | {v:.6e} |\n");
    }
    s += "\n| case | reference | fitted | relative error |\n| --- | --- | --- | --- |\n";
    for c in &r.table {
        let (note, err) = match c.kind {
            MeasureKind::Mean => ("", format!("{:.2} % (eq. (27))", c.error * 100.0)),
            MeasureKind::Series => (
                " (series mean)",
                format!("{:.2} % (RMS of the series)", c.error * 100.0),
            ),
        };
        s += &format!(
            "| {}{note} | {:.6e} | {:.6e} | {err} |\n",
            c.case, c.reference, c.fitted
        );
    }
    s += "\n| stage | evaluations | sum of squared relative errors |\n| --- | --- | --- |\n";
    for st in &r.stages {
        s += &format!("| {} | {} | {:.3e} |\n", st.name, st.evaluations, st.cost);
    }
    s
}
