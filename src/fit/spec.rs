//! The fit description: JSON read with field paths in its errors.

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

/// The mean of `output` over the communication points in [`from`, `to`] (s); the run
/// ends at `to`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measure {
    pub output: String,
    pub from: f64,
    pub to: f64,
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
        match self.base_spring {
            Some(_) => format!("{} (base)", self.parameter),
            None => self.parameter.clone(),
        }
    }

    fn log(&self) -> bool {
        self.min > 0.0
    }

    /// Value -> the optimizer's coordinate.
    pub fn to_scaled(&self, x: f64) -> f64 {
        if self.log() {
            x.ln()
        } else {
            x / (self.max - self.min)
        }
    }

    /// The optimizer's coordinate -> value.
    pub fn from_scaled(&self, u: f64) -> f64 {
        if self.log() {
            u.exp()
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
        let de = &mut serde_json::Deserializer::from_str(&text);
        let spec: FitSpec = serde_path_to_error::deserialize(de)
            .map_err(|e| format!("{}: {}: {}", path.display(), e.path(), e.inner()))?;
        spec.check()
            .map_err(|e| format!("{}: {e}", path.display()))?;
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

/// Case name -> measured value from a CSV with a header row.
pub fn read_measurements(path: &Path, m: &Measurements) -> Result<BTreeMap<String, f64>, String> {
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
    let mut out = BTreeMap::new();
    for (n, line) in lines.enumerate() {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let (Some(case), Some(v)) = (cells.get(ci), cells.get(vi)) else {
            return Err(format!("{}:{}: too few columns", path.display(), n + 2));
        };
        let v: f64 = v
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite())
            .ok_or_else(|| format!("{}:{}: '{v}' is not a number", path.display(), n + 2))?;
        out.insert(case.to_string(), v);
    }
    Ok(out)
}
