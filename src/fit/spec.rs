//! The fit description: JSON read with field paths in its errors.

use crate::pmath;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// What to fit, to what, and how (docs/calibration.md).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FitSpec {
    /// Free text: what the fit is for.
    #[serde(default, rename = "description")]
    pub description: String,
    /// The scenario whose parameters are fitted (path relative to this file).
    pub model: String,
    /// A scenario run with every case to give its reference value (e.g. SCM on the
    /// same rig), relative to this file.
    #[serde(default)]
    pub reference: Option<String>,
    /// A CSV of measured reference values, one row per case.
    #[serde(default)]
    pub measurements: Option<Measurements>,
    pub cases: Vec<Case>,
    pub stages: Vec<Stage>,
}

/// `measurements`: the CSV file, the column naming the case and the value column.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measurements {
    pub file: String,
    #[serde(default = "case_column")]
    pub case_column: String,
    pub value_column: String,
    /// A time column, s: then a case's rows are a time series, interpolated linearly
    /// at the model's communication points (which the rows' times must cover).
    #[serde(default)]
    pub time_column: Option<String>,
}

fn case_column() -> String {
    "case".into()
}

/// One case: parameter values (a drop height, a slip), the measured output and
/// where its reference value comes from.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub name: String,
    /// FMI parameter values of this case, set in the model and in the reference.
    #[serde(default)]
    pub set: BTreeMap<String, f64>,
    /// Communication step, s (default: the scenario's default experiment's).
    #[serde(default)]
    pub step: Option<f64>,
    pub measure: Measure,
    /// The reference value, given (e.g. measured).
    #[serde(default)]
    pub reference: Option<f64>,
    /// The reference scenario's output to measure, when its name differs.
    #[serde(default)]
    pub reference_output: Option<String>,
}

/// `output` at the communication points in [`from`, `to`] (s), compared as `kind`
/// says; the run ends at `to`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measure {
    pub output: String,
    pub from: f64,
    pub to: f64,
    #[serde(default)]
    pub kind: MeasureKind,
}

/// How a case's model values are compared with its reference.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MeasureKind {
    /// The means over the window, relative error of Barthelmes 2018 eq. (27):
    /// (mean - mean_ref) / mean_ref (a settled value).
    #[default]
    Mean,
    /// Point by point, the relative RMS error sqrt(sum (v - v_ref)^2 / sum v_ref^2)
    /// (a transient: a drop's impact and rebound). A constant signal gives |eq. (27)|.
    Series,
}

impl Measure {
    /// The communication points in the window for the communication step `h`: the run
    /// takes `round(to / h)` steps from 0; points at `k h >= from` count.
    pub fn points(&self, h: f64) -> (usize, Vec<f64>) {
        let n = (self.to / h).round() as usize;
        let times = (1..=n)
            .map(|k| k as f64 * h)
            .filter(|t| *t >= self.from - 1e-9 * h)
            .collect();
        (n, times)
    }
}

/// One optimization run: its tuners and the cases its criterion sums over.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stage {
    pub name: String,
    /// Case names (default: all).
    #[serde(default)]
    pub cases: Option<Vec<String>>,
    pub tuners: Vec<Tuner>,
    /// Nelder-Mead iterations at most.
    #[serde(default = "max_iterations")]
    pub max_iterations: u64,
    /// Stop when the standard deviation of the simplex's costs falls below this.
    #[serde(default = "tolerance")]
    pub tolerance: f64,
    /// Start a fresh simplex around the best point this many times more (a simplex that
    /// collapsed onto a ridge stalls; a new one walks on). Each restart has its own
    /// `max_iterations`; restarts stop early once one gains nothing.
    #[serde(default)]
    pub restarts: u32,
}

fn max_iterations() -> u64 {
    200
}

fn tolerance() -> f64 {
    1e-10
}

/// A tuned FMI parameter: start value and bounds. Positive bounds are searched in
/// log space (a relative step means the same everywhere).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tuner {
    pub parameter: String,
    pub start: f64,
    pub min: f64,
    pub max: f64,
    /// Tune the base spring constant k̄ of Barthelmes 2018 eq. (28) instead:
    /// `parameter` = z_base^(1 - exponent) k̄; start, min and max are k̄'s.
    #[serde(default)]
    pub base_spring: Option<BaseSpring>,
    /// Tune the base maximum dynamic sinkage k̄_s,max of Barthelmes 2018 eq. (29)
    /// instead: `parameter` = ((k_s0 - z_base) / k_s0)^(1 - k_s,exp) k̄; start, min
    /// and max are k̄'s.
    #[serde(default)]
    pub base_slip_sinkage: Option<BaseSlipSinkage>,
}

/// Eq. (29): the dynamic sinkage rate at the base sinkage no longer depends on the
/// exponent k_s,exp (eq. (9) at z_base: ((k_s0 - z_base)/k_s0) k̄ |v_s|).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaseSlipSinkage {
    /// The exponent's FMI parameter (TerRA: `terra.k_s_exp`) and its value while no
    /// stage tunes it.
    pub exponent: String,
    pub exponent_start: f64,
    /// The sinkage limit's FMI parameter (TerRA: `terra.k_s0`, m) and its value while
    /// no stage tunes it.
    pub limit: String,
    pub limit_start: f64,
    /// The base sinkage z_base, m (below the limit).
    pub z_base: f64,
}

/// Eq. (28): the force at the base sinkage no longer depends on the exponent.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaseSpring {
    /// The exponent's FMI parameter (TerRA: `terra.k_exp`).
    pub exponent: String,
    /// Its value while no stage tunes it.
    pub exponent_start: f64,
    /// The base sinkage z_base, m.
    pub z_base: f64,
}

impl Tuner {
    /// The tuner's name across stages.
    pub fn name(&self) -> String {
        if self.is_base() {
            format!("{} (base)", self.parameter)
        } else {
            self.parameter.clone()
        }
    }

    /// Does it tune a base value (eq. (28) or (29)) rather than the parameter itself?
    pub fn is_base(&self) -> bool {
        self.base_spring.is_some() || self.base_slip_sinkage.is_some()
    }

    fn log(&self) -> bool {
        self.min > 0.0
    }

    /// Value -> the optimizer's coordinate.
    pub fn to_scaled(&self, x: f64) -> f64 {
        if self.log() {
            pmath::ln(x)
        } else {
            x / (self.max - self.min)
        }
    }

    /// The optimizer's coordinate -> value.
    pub fn from_scaled(&self, u: f64) -> f64 {
        if self.log() {
            pmath::exp(u)
        } else {
            u * (self.max - self.min)
        }
    }

    /// The initial simplex's step: 20 % in log space, a tenth of the range otherwise.
    pub fn simplex_step(&self) -> f64 {
        if self.log() {
            0.2
        } else {
            0.1
        }
    }
}

impl FitSpec {
    /// Reads and checks a fit description; errors name the file and field.
    pub fn load(path: &Path) -> Result<FitSpec, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        FitSpec::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parses and checks the fit description `text`; errors name the field.
    /// A quoted name or value over 1000 characters is shortened in the message.
    pub fn parse(text: &str) -> Result<FitSpec, String> {
        let short = crate::scenario::shorten_quoted;
        let de = &mut serde_json::Deserializer::from_str(text);
        let spec: FitSpec = serde_path_to_error::deserialize(de)
            .map_err(|e| short(format!("{}: {}", e.path(), e.inner())))?;
        spec.check().map_err(short)?;
        Ok(spec)
    }

    /// Field-level checks beyond the types.
    pub fn check(&self) -> Result<(), String> {
        if self.cases.is_empty() {
            return Err("cases: needs at least one case".into());
        }
        if self.stages.is_empty() {
            return Err("stages: needs at least one stage".into());
        }
        for (i, c) in self.cases.iter().enumerate() {
            let p = format!("cases[{i}]");
            if self.cases[..i].iter().any(|d| d.name == c.name) {
                return Err(format!("{p}.name: '{}' is used twice", c.name));
            }
            let m = &c.measure;
            if !(m.from >= 0.0 && m.to > m.from && m.to.is_finite()) {
                return Err(format!(
                    "{p}.measure: needs 0 <= from < to (from {}, to {})",
                    m.from, m.to
                ));
            }
            if let Some(h) = c.step {
                if !(h > 0.0 && h <= m.to - m.from) {
                    return Err(format!(
                        "{p}.step: {h} must be positive and fit into the window"
                    ));
                }
            }
            for (k, v) in &c.set {
                if !v.is_finite() {
                    return Err(format!("{p}.set.{k}: not a finite number"));
                }
            }
        }
        for (i, s) in self.stages.iter().enumerate() {
            let p = format!("stages[{i}]");
            if s.tuners.is_empty() {
                return Err(format!("{p}.tuners: needs at least one tuner"));
            }
            self.stage_cases(s).map_err(|e| format!("{p}.cases: {e}"))?;
            for (j, t) in s.tuners.iter().enumerate() {
                let q = format!("{p}.tuners[{j}]");
                if !(t.min < t.max && t.min.is_finite() && t.max.is_finite()) {
                    return Err(format!(
                        "{q}: needs min < max (min {}, max {})",
                        t.min, t.max
                    ));
                }
                if !(t.start >= t.min && t.start <= t.max) {
                    return Err(format!(
                        "{q}.start: {} is outside [{}, {}]",
                        t.start, t.min, t.max
                    ));
                }
                if let Some(b) = &t.base_spring {
                    if !(b.z_base > 0.0 && b.z_base.is_finite()) {
                        return Err(format!("{q}.base_spring.z_base: must be a positive length"));
                    }
                }
                if t.base_spring.is_some() && t.base_slip_sinkage.is_some() {
                    return Err(format!(
                        "{q}: base_spring and base_slip_sinkage exclude each other"
                    ));
                }
                if let Some(b) = &t.base_slip_sinkage {
                    if !(b.z_base > 0.0 && b.z_base < b.limit_start) {
                        return Err(format!(
                            "{q}.base_slip_sinkage.z_base: must lie in (0, limit_start = {}), got {}",
                            b.limit_start, b.z_base
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The cases a stage sums over.
    pub fn stage_cases<'a>(&'a self, s: &Stage) -> Result<Vec<&'a super::Case>, String> {
        match &s.cases {
            None => Ok(self.cases.iter().collect()),
            Some(names) => names
                .iter()
                .map(|n| {
                    self.cases
                        .iter()
                        .find(|c| &c.name == n)
                        .ok_or_else(|| format!("no case named '{n}'"))
                })
                .collect(),
        }
    }
}

/// Case name -> measured (time, value) rows from a CSV with a header row; without a
/// time column the time is NaN and there is one row per case.
pub fn read_measurements(
    path: &Path,
    m: &Measurements,
) -> Result<BTreeMap<String, Vec<(f64, f64)>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<&str> = lines
        .next()
        .ok_or_else(|| format!("{}: empty", path.display()))?
        .split(',')
        .map(str::trim)
        .collect();
    let col = |name: &str| {
        header.iter().position(|h| *h == name).ok_or_else(|| {
            format!(
                "{}: no column '{name}' (columns: {})",
                path.display(),
                header.join(", ")
            )
        })
    };
    let (ci, vi) = (col(&m.case_column)?, col(&m.value_column)?);
    let ti = m.time_column.as_deref().map(col).transpose()?;
    let mut out: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
    // line numbers count blank lines too, as an editor shows them
    let numbered = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .skip(1);
    for (n, line) in numbered {
        let at = format!("{}:{}", path.display(), n + 1);
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let number = |i: usize, what: &str| -> Result<f64, String> {
            let cell = cells
                .get(i)
                .ok_or_else(|| format!("{at}: too few columns (no {what})"))?;
            cell.parse()
                .ok()
                .filter(|x: &f64| x.is_finite())
                .ok_or_else(|| {
                    format!(
                        "{at}: {what} '{}' is not a number",
                        crate::scenario::shown(cell)
                    )
                })
        };
        let case = cells
            .get(ci)
            .ok_or_else(|| format!("{at}: too few columns (no case)"))?;
        let v = number(vi, "value")?;
        let t = match ti {
            Some(i) => number(i, "time")?,
            None => f64::NAN,
        };
        let rows = out.entry(case.to_string()).or_default();
        match ti {
            None if !rows.is_empty() => {
                return Err(format!(
                    "{at}: case '{case}' has a second row; a time series needs `time_column`"
                ))
            }
            Some(_) if rows.last().is_some_and(|(t0, _)| t <= *t0) => {
                return Err(format!(
                    "{at}: case '{case}': times must increase ({t} after {})",
                    rows.last().map_or(0.0, |r| r.0)
                ))
            }
            _ => rows.push((t, v)),
        }
    }
    Ok(out)
}

/// The rows' values at `times`, linearly interpolated; `None` when a time is outside
/// the rows' span.
pub fn interpolate(rows: &[(f64, f64)], times: &[f64]) -> Option<Vec<f64>> {
    times
        .iter()
        .map(|&t| {
            let i = rows.partition_point(|r| r.0 < t);
            if i < rows.len() && rows[i].0 == t {
                return Some(rows[i].1);
            }
            if i == 0 || i == rows.len() {
                return None;
            }
            let ((t0, v0), (t1, v1)) = (rows[i - 1], rows[i]);
            Some(v0 + (v1 - v0) * (t - t0) / (t1 - t0))
        })
        .collect()
}
