//! `contact-fmu fit`: calibration of a model's FMI parameters to a reference, by
//! running the model's scenario with changed parameters (never repackaged), as
//! Barthelmes 2018, section 4.2 tunes TerRA to SCM.
//!
//! A fit description ([`FitSpec`], JSON) names the scenario to fit, the cases (each a
//! set of parameter values, e.g. a drop height, and a measured output averaged over a
//! time window), where each case's reference value comes from (another scenario run
//! with the same case, a value given inline, or a CSV of measurements) and the stages
//! of the fit (the tuners of each optimization run; later stages start where the
//! earlier ones ended, the paper's two-stage procedure). The criterion is the sum of
//! squared relative errors of eq. (27) over a stage's cases; the optimizer is argmin's
//! Nelder-Mead in a bounded, scaled space ([`Tuner`]).
//!
//! Each case runs the scenario's `World` in-process, the code the FMU runs, with the
//! parameters set as an importer sets them before initialization; the cases of one
//! evaluation run on parallel threads.

pub mod spec;

use crate::cosim::variables::{Phase, VarType};
use crate::cosim::World;
use crate::scenario::Scenario;
use argmin::core::{CostFunction, Error as ArgminError, Executor, State};
use argmin::solver::neldermead::NelderMead;
pub use spec::{BaseSpring, Case, FitSpec, Measure, Stage, Tuner};
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
        let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        Ok(Model { scenario, dir })
    }

    /// Runs `case` with `params` (FMI parameter name -> value, set before
    /// initialization after the case's own values) and returns the mean of the
    /// measured output over the case's window, at the communication points in it.
    pub fn measure(&self, case: &Case, params: &BTreeMap<String, f64>) -> Result<f64, String> {
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
        let h = case
            .step
            .unwrap_or(self.scenario.default_experiment.step_size);
        let n = (case.measure.to / h).round() as usize;
        let (mut sum, mut count) = (0.0, 0usize);
        let mut value = [0.0];
        for k in 1..=n {
            w.do_step(h).map_err(|e| ctx(e.to_string()))?;
            let t = k as f64 * h;
            if t >= case.measure.from - 1e-9 * h {
                w.get_reals(&[out], &mut value)
                    .map_err(|e| ctx(e.to_string()))?;
                sum += value[0];
                count += 1;
            }
        }
        if count == 0 {
            return Err(ctx(
                "the measuring window holds no communication point".into()
            ));
        }
        Ok(sum / count as f64)
    }

    /// [`Model::measure`] for every case, on parallel threads (results in case order).
    pub fn measure_all(
        &self,
        cases: &[&Case],
        params: &BTreeMap<String, f64>,
    ) -> Result<Vec<f64>, String> {
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .max(1);
        let mut out = vec![Ok(0.0); cases.len()];
        for (chunk_cases, chunk_out) in cases.chunks(threads).zip(out.chunks_mut(threads)) {
            std::thread::scope(|s| {
                let handles: Vec<_> = chunk_cases
                    .iter()
                    .map(|c| s.spawn(move || self.measure(c, params)))
                    .collect();
                for (h, o) in handles.into_iter().zip(chunk_out.iter_mut()) {
                    *o = h.join().unwrap_or_else(|_| Err("a case panicked".into()));
                }
            });
        }
        out.into_iter().collect()
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
    /// The tuned parameters after the stage (FMI name -> value; base-spring tuners
    /// also as `<name> (base)`).
    pub params: BTreeMap<String, f64>,
    /// Sum of squared relative errors over the stage's cases.
    pub cost: f64,
    pub evaluations: usize,
}

/// The fit's outcome: the parameters, and per case reference, fitted value and error.
#[derive(Debug, Clone)]
pub struct FitResult {
    pub stages: Vec<StageResult>,
    /// All tuned FMI parameters at the end.
    pub params: BTreeMap<String, f64>,
    /// (case, reference, fitted value, relative error)
    pub table: Vec<(String, f64, f64, f64)>,
}

/// The FMI parameter values a point of tuner values gives (base-spring tuners
/// converted with eq. (28)); `fixed` holds the values of parameters not tuned here.
fn parameters(tuners: &[Tuner], x: &[f64], fixed: &BTreeMap<String, f64>) -> BTreeMap<String, f64> {
    let mut p = fixed.clone();
    for (t, v) in tuners.iter().zip(x) {
        if t.base_spring.is_none() {
            p.insert(t.parameter.clone(), *v);
        }
    }
    for (t, v) in tuners.iter().zip(x) {
        if let Some(b) = &t.base_spring {
            // Barthelmes 2018, eq. (28): k_c = z_base^(1 - k_exp) k̄_c
            let exp = p.get(&b.exponent).copied().unwrap_or(b.exponent_start);
            p.insert(t.parameter.clone(), b.z_base.powf(1.0 - exp) * v);
        }
    }
    p
}

struct Objective<'a> {
    model: &'a Model,
    cases: Vec<&'a Case>,
    references: Vec<f64>,
    tuners: &'a [Tuner],
    fixed: &'a BTreeMap<String, f64>,
    evaluations: &'a AtomicUsize,
    progress: &'a (dyn Fn(usize, f64) + Sync),
}

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
        let p = parameters(self.tuners, &x, self.fixed);
        let values = self
            .model
            .measure_all(&self.cases, &p)
            .map_err(|e| ArgminError::msg(e))?;
        let cost: f64 = values
            .iter()
            .zip(&self.references)
            .map(|(v, r)| relative_error(*v, *r).powi(2))
            .sum::<f64>()
            + penalty;
        let n = self.evaluations.fetch_add(1, Ordering::Relaxed) + 1;
        (self.progress)(n, cost);
        Ok(if cost.is_finite() { cost } else { f64::MAX })
    }
}

/// Runs the fit: reference values for every case, then each stage in order.
/// `progress(stage, evaluation, cost)` is called after every evaluation.
pub fn run(
    spec: &FitSpec,
    model: &Model,
    references: &[f64],
    progress: &(dyn Fn(&str, usize, f64) + Sync),
) -> Result<FitResult, String> {
    let mut current: BTreeMap<String, f64> = BTreeMap::new();
    // tuner values carried from stage to stage (by tuner name)
    let mut tuned: BTreeMap<String, f64> = BTreeMap::new();
    let mut stages = vec![];
    for stage in &spec.stages {
        let cases: Vec<&Case> = spec.stage_cases(stage)?;
        let refs: Vec<f64> = cases
            .iter()
            .map(|c| {
                references[spec
                    .cases
                    .iter()
                    .position(|d| d.name == c.name)
                    .unwrap_or(0)]
            })
            .collect();
        let x0: Vec<f64> = stage
            .tuners
            .iter()
            .map(|t| tuned.get(&t.name()).copied().unwrap_or(t.start))
            .collect();
        let u0: Vec<f64> = stage
            .tuners
            .iter()
            .zip(&x0)
            .map(|(t, x)| t.to_scaled(*x))
            .collect();
        // initial simplex: the start and one step along each scaled axis
        let mut simplex = vec![u0.clone()];
        for i in 0..u0.len() {
            let mut v = u0.clone();
            v[i] += stage.tuners[i].simplex_step();
            simplex.push(v);
        }
        let evaluations = AtomicUsize::new(0);
        let name = stage.name.clone();
        let report = |n: usize, c: f64| progress(&name, n, c);
        let objective = Objective {
            model,
            cases: cases.clone(),
            references: refs,
            tuners: &stage.tuners,
            fixed: &current,
            evaluations: &evaluations,
            progress: &report,
        };
        let solver = NelderMead::new(simplex)
            .with_sd_tolerance(stage.tolerance)
            .map_err(|e| format!("stage '{}': {e}", stage.name))?;
        let res = Executor::new(objective, solver)
            .configure(|s| s.max_iters(stage.max_iterations))
            .run()
            .map_err(|e| format!("stage '{}': {e}", stage.name))?;
        let best = res
            .state()
            .get_best_param()
            .cloned()
            .ok_or_else(|| format!("stage '{}': no best point", stage.name))?;
        let cost = res.state().get_best_cost();
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
            if t.base_spring.is_some() {
                shown.insert(format!("{} (base)", t.parameter), *v);
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
    let fitted = model.measure_all(&all, &current)?;
    let table = spec
        .cases
        .iter()
        .zip(references.iter().zip(&fitted))
        .map(|(c, (r, v))| (c.name.clone(), *r, *v, relative_error(*v, *r)))
        .collect();
    Ok(FitResult {
        stages,
        params: current,
        table,
    })
}

/// The reference value of every case: inline, from the CSV of measurements, or by
/// running the reference scenario with the case (its `set` values that the reference
/// has; e.g. a drop height).
pub fn references(spec: &FitSpec, dir: &Path) -> Result<Vec<f64>, String> {
    let csv = match &spec.measurements {
        Some(m) => Some(spec::read_measurements(&dir.join(&m.file), m)?),
        None => None,
    };
    let reference = match &spec.reference {
        Some(r) => Some(Model::load(&dir.join(r))?),
        None => None,
    };
    let mut out = vec![];
    for c in &spec.cases {
        if let Some(v) = c.reference {
            out.push(v);
        } else if let Some(v) = csv.as_ref().and_then(|m| m.get(&c.name)) {
            out.push(*v);
        } else if let Some(r) = &reference {
            let mut case = c.clone();
            if let Some(o) = &c.reference_output {
                case.measure.output = o.clone();
            }
            out.push(r.measure(&case, &BTreeMap::new())?);
        } else {
            return Err(format!(
                "case '{}': no reference value (give `reference`, a `measurements` CSV row, or a `reference` scenario)",
                c.name
            ));
        }
        if !(out.last().is_some_and(|v| v.is_finite() && *v != 0.0)) {
            return Err(format!(
                "case '{}': the reference value {} cannot be divided by (eq. (27) is relative)",
                c.name,
                out.last().copied().unwrap_or(f64::NAN)
            ));
        }
    }
    Ok(out)
}

/// The result as a Markdown table (like Barthelmes 2018, Tables 2 and 3).
pub fn table_markdown(r: &FitResult) -> String {
    let mut s = String::from("| parameter | fitted value |\n| --- | --- |\n");
    for (k, v) in &r.params {
        s += &format!("| `{k}` | {v:.6e} |\n");
    }
    s += "\n| case | reference | fitted | relative error (eq. (27)) |\n| --- | --- | --- | --- |\n";
    for (c, reference, v, e) in &r.table {
        s += &format!("| {c} | {reference:.6e} | {v:.6e} | {:.2} % |\n", e * 100.0);
    }
    s += "\n| stage | evaluations | sum of squared relative errors |\n| --- | --- | --- |\n";
    for st in &r.stages {
        s += &format!("| {} | {} | {:.3e} |\n", st.name, st.evaluations, st.cost);
    }
    s
}
