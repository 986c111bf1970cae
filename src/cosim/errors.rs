//! Why the world refuses a variable access ([`VarError`]) or a step, an
//! initialization or a model's files ([`WorldError`]); messages name the variable or
//! the parameter.

/// "it has 50 Real variables, value references 0 to 49" (or none).
fn vr_range(count: usize, ty: &str) -> String {
    match count {
        0 => format!("it has no {ty} variables"),
        1 => format!("it has 1 {ty} variable, value reference 0"),
        n => format!("it has {n} {ty} variables, value references 0 to {}", n - 1),
    }
}

/// A refused variable access. Messages name the variable.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VarError {
    #[error("value reference {vr} is not a {ty} variable of this FMU ({})", vr_range(*.count, .ty))]
    UnknownVr {
        vr: u32,
        ty: &'static str,
        count: usize,
    },
    #[error("variable '{name}' ({causality}, {variability}) cannot be set {when}")]
    NotSettable {
        name: String,
        causality: &'static str,
        variability: &'static str,
        when: &'static str,
    },
    #[error("variable '{name}': {reason}; nothing was set")]
    BadValue { name: String, reason: String },
}

/// A refused step or initialization.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WorldError {
    #[error("communication step size must be > 0 and finite, got {0}")]
    BadStepSize(f64),
    #[error("communication step {h} s needs {substeps} sub-steps of world.model_step = {model_step} s; too many (max 100000000)")]
    TooManySubsteps {
        h: f64,
        model_step: f64,
        substeps: f64,
    },
    #[error("the simulation became non-finite at t = {time} s: '{name}' = {value}")]
    NonFinite { time: f64, name: String, value: f64 },
    #[error("parameter '{name}': {reason}")]
    BadParameter { name: String, reason: String },
    #[error("{0}")]
    Asset(String),
    #[error("soil export: {0}")]
    Export(String),
}
