//! Checks of a fit description against the scenarios it runs, before the first
//! evaluation: every name a case or a tuner gives is a variable of the model, of the
//! kind it is used as, every value in its bounds, and every case's run of a length
//! that fits. A fit that passes can only fail later on values the optimizer itself
//! tries (and then ends with the message, [`super::run`]).

use super::{parameters, Case, FitSpec, Model};
use crate::cosim::variables::{Phase, VarType, VariableTable};
use std::collections::BTreeMap;

/// Most communication steps one case may run: 10 million (10^4 s at 1 ms, about
/// 10 s of TerRA or hours of SCM per evaluation); the window's points are kept.
pub const MAX_CASE_STEPS: f64 = 1e7;

/// The steps a case's run takes at the communication step `h`, refused above
/// [`MAX_CASE_STEPS`] with the longest `to` that fits. `p`: the case's field path.
pub fn case_steps(p: &str, case: &Case, h: f64) -> Result<usize, String> {
    let n = (case.measure.to / h).round();
    if !(n <= MAX_CASE_STEPS) {
        return Err(format!(
            "{p}.measure.to: {} s at a {h} s step is {n:.3e} steps: at most {MAX_CASE_STEPS:.0e} per case (to <= {} s at this step)",
            case.measure.to,
            MAX_CASE_STEPS * h
        ));
    }
    Ok(n as usize)
}

/// A variable `name` the fit sets to `value` before initialization, as
/// [`Model::trace`] does (a parameter or an input; `p`: where the fit names it).
fn settable(table: &VariableTable, p: &str, name: &str, value: f64) -> Result<(), String> {
    let Some(var) = table.by_name(name) else {
        // the message that lists variables with similar names
        let e = table.start_override(name, value).err().unwrap_or_default();
        return Err(format!("{p}: {e}"));
    };
    if !var.settable_in(Phase::Instantiated) {
        return Err(format!(
            "{p}: '{name}' ({}, {}) cannot be set before initialization (parameters and inputs can)",
            var.causality.as_str(),
            var.variability.as_str()
        ));
    }
    var.start_from(value)
        .map(|_| ())
        .map_err(|why| format!("{p}: '{name}': {why}"))
}

/// Checks `spec` against the model it fits ([`Model`], file shown as `file`).
pub fn check(spec: &FitSpec, model: &Model, file: &str) -> Result<(), String> {
    check_names(spec, model, file).map_err(crate::scenario::shorten_quoted)
}

fn check_names(spec: &FitSpec, model: &Model, file: &str) -> Result<(), String> {
    let (table, _, _) = crate::registry::layout(&model.scenario);
    let ctx = |e: String| format!("{e} (model {file})");
    for (i, c) in spec.cases.iter().enumerate() {
        let p = format!("cases[{i}]");
        for (name, v) in &c.set {
            settable(&table, &format!("{p}.set.{name}"), name, *v).map_err(ctx)?;
        }
        match table.by_name(&c.measure.output) {
            Some(v) if v.ty == VarType::Real => {}
            Some(v) => {
                return Err(ctx(format!(
                    "{p}.measure.output: '{}' is {}, not a Real",
                    c.measure.output,
                    v.ty.as_str()
                )))
            }
            None => {
                return Err(ctx(format!(
                    "{p}.measure.output: no variable '{}'",
                    c.measure.output
                )))
            }
        }
        case_steps(&p, c, model.step(c)).map_err(ctx)?;
    }
    for (i, s) in spec.stages.iter().enumerate() {
        for (j, t) in s.tuners.iter().enumerate() {
            let q = format!("stages[{i}].tuners[{j}]");
            // a Real the evaluations set before initialization (a parameter, or an
            // input held for the run)
            let var = table
                .by_name(&t.parameter)
                .filter(|v| v.ty == VarType::Real && v.settable_in(Phase::Instantiated))
                .ok_or_else(|| {
                    ctx(match settable(&table, &format!("{q}.parameter"), &t.parameter, t.start) {
                        Err(e) => e,
                        Ok(()) => format!("{q}.parameter: '{}' is not a Real", t.parameter),
                    })
                })?;
            // the tuner's own range must lie inside the parameter's bounds, or the
            // optimizer would walk out of them; a base tuner's range is of another
            // quantity (eq. (28), (29)) and its values are checked as they come
            if !t.is_base() {
                for (field, x) in [("min", t.min), ("max", t.max)] {
                    if let Some(why) = var.bounds.violation(x) {
                        return Err(ctx(format!(
                            "{q}.{field}: '{}': {why}",
                            t.parameter
                        )));
                    }
                }
            }
            // the exponents and limits a base tuner reads
            let derived = parameters(std::slice::from_ref(t), &[t.start], &BTreeMap::new());
            let read = t
                .base_spring
                .iter()
                .map(|b| (&b.exponent, b.exponent_start))
                .chain(
                    t.base_slip_sinkage
                        .iter()
                        .flat_map(|b| [(&b.exponent, b.exponent_start), (&b.limit, b.limit_start)]),
                );
            for (name, start) in read {
                settable(&table, &format!("{q}: base parameter"), name, start).map_err(ctx)?;
            }
            for name in derived.keys() {
                if table.by_name(name).is_none() {
                    return Err(ctx(format!("{q}: no variable '{name}'")));
                }
            }
        }
    }
    Ok(())
}
