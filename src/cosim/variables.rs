//! The variable table: the one mapping of value references to model inputs, outputs
//! and parameters. The runtime reads and writes values through it and the packager
//! writes modelDescription.xml from it, so the two cannot disagree.
//!
//! Value references are numbered per type from 0: Real `vr` indexes the Real value
//! array directly, and so on for Integer, Boolean and String.

use super::units;
use serde::{Deserialize, Serialize};

/// FMI base type of a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum VarType {
    Real,
    Integer,
    Boolean,
    String,
}

impl VarType {
    /// Element name in modelDescription.xml and in FMI function names.
    pub fn as_str(self) -> &'static str {
        match self {
            VarType::Real => "Real",
            VarType::Integer => "Integer",
            VarType::Boolean => "Boolean",
            VarType::String => "String",
        }
    }
}

/// FMI 2.0 causality.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Causality {
    Parameter,
    CalculatedParameter,
    Input,
    Output,
    Local,
}

impl Causality {
    pub fn as_str(self) -> &'static str {
        match self {
            Causality::Parameter => "parameter",
            Causality::CalculatedParameter => "calculatedParameter",
            Causality::Input => "input",
            Causality::Output => "output",
            Causality::Local => "local",
        }
    }
}

/// FMI 2.0 variability.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variability {
    Constant,
    Fixed,
    Tunable,
    Discrete,
    Continuous,
}

impl Variability {
    pub fn as_str(self) -> &'static str {
        match self {
            Variability::Constant => "constant",
            Variability::Fixed => "fixed",
            Variability::Tunable => "tunable",
            Variability::Discrete => "discrete",
            Variability::Continuous => "continuous",
        }
    }
}

/// FMI 2.0 `initial` attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Initial {
    Exact,
    Approx,
    Calculated,
}

impl Initial {
    pub fn as_str(self) -> &'static str {
        match self {
            Initial::Exact => "exact",
            Initial::Approx => "approx",
            Initial::Calculated => "calculated",
        }
    }
}

/// A start value.
#[derive(Debug, Clone, PartialEq)]
pub enum Start {
    Real(f64),
    Integer(i32),
    Boolean(bool),
    String(String),
}

/// Where an FMI call may set a variable (see [`Variable::settable_in`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// After fmi2Instantiate, before fmi2EnterInitializationMode.
    Instantiated,
    /// Between fmi2EnterInitializationMode and fmi2ExitInitializationMode.
    Initialization,
    /// After initialization (StepComplete).
    Stepping,
}

/// Allowed values of a Real variable: `min <= v <= max`, and `v > 0` when `positive`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Bounds {
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub positive: bool,
}

impl Bounds {
    /// Strictly positive.
    pub const POSITIVE: Bounds = Bounds {
        min: Some(0.0),
        max: None,
        positive: true,
    };
    /// Zero or more.
    pub const NON_NEGATIVE: Bounds = Bounds {
        min: Some(0.0),
        max: None,
        positive: false,
    };
    /// Any finite value.
    pub const ANY: Bounds = Bounds {
        min: None,
        max: None,
        positive: false,
    };

    /// Why `v` is not allowed, or `None`.
    pub fn violation(&self, v: f64) -> Option<String> {
        if !v.is_finite() {
            return Some(format!("{v} is not a finite number"));
        }
        if self.positive && v <= 0.0 {
            return Some(format!("must be > 0, got {v}"));
        }
        if let Some(min) = self.min {
            if v < min {
                return Some(format!("must be >= {min}, got {v}"));
            }
        }
        if let Some(max) = self.max {
            if v > max {
                return Some(format!("must be <= {max}, got {v}"));
            }
        }
        None
    }
}

/// One FMI variable.
#[derive(Debug, Clone, PartialEq)]
pub struct Variable {
    /// Structured name, `ball.r[3]`.
    pub name: String,
    /// Value reference within its type.
    pub vr: u32,
    pub ty: VarType,
    pub causality: Causality,
    pub variability: Variability,
    pub initial: Option<Initial>,
    /// Unit name from [`units::UNITS`].
    pub unit: Option<&'static str>,
    pub description: String,
    pub start: Option<Start>,
    /// Real variables only.
    pub bounds: Bounds,
}

impl Variable {
    /// `v` as this variable's start value (a JSON number for any type), or why it
    /// cannot be one ("must be > 0, got -1", "an Integer: 0.5 is not one", ...).
    pub fn start_from(&self, v: f64) -> Result<Start, String> {
        match self.ty {
            VarType::Real => match self.bounds.violation(v) {
                Some(why) => Err(why),
                None => Ok(Start::Real(v)),
            },
            VarType::Integer if v.fract() == 0.0 && v.abs() <= i32::MAX as f64 => {
                Ok(Start::Integer(v as i32))
            }
            VarType::Integer => Err(format!("an Integer: {v} is not one")),
            VarType::Boolean if v == 0.0 || v == 1.0 => Ok(Start::Boolean(v == 1.0)),
            VarType::Boolean => Err(format!("a Boolean: give 0 or 1, not {v}")),
            VarType::String => Err("a String: not settable here".into()),
        }
    }

    /// May an FMI setter write this variable in `phase`? (FMI 2.0 section 4.2.4:
    /// before/in initialization everything with a start value that is not constant;
    /// after it, inputs and tunable parameters.)
    pub fn settable_in(&self, phase: Phase) -> bool {
        match phase {
            Phase::Instantiated | Phase::Initialization => {
                self.variability != Variability::Constant
                    && (self.causality == Causality::Input
                        || matches!(self.initial, Some(Initial::Exact) | Some(Initial::Approx)))
            }
            Phase::Stepping => {
                self.causality == Causality::Input
                    || (self.causality == Causality::Parameter
                        && self.variability == Variability::Tunable)
            }
        }
    }
}

/// All variables of one FMU, in modelDescription.xml order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VariableTable {
    /// In `<ModelVariables>` order; `index` in the XML is position + 1.
    pub variables: Vec<Variable>,
    /// For each type, variable positions by value reference.
    by_vr: [Vec<usize>; 4],
    /// Variable positions by name: the duplicate check and `by_name` in O(log n), so
    /// building the table of a scenario with thousands of bodies stays linear-ish.
    names: std::collections::HashMap<String, usize>,
}

fn type_slot(ty: VarType) -> usize {
    match ty {
        VarType::Real => 0,
        VarType::Integer => 1,
        VarType::Boolean => 2,
        VarType::String => 3,
    }
}

impl VariableTable {
    /// Number of variables of type `ty` (value references are `0..count`).
    pub fn count(&self, ty: VarType) -> usize {
        self.by_vr[type_slot(ty)].len()
    }

    /// The variable of type `ty` with value reference `vr`.
    pub fn get(&self, ty: VarType, vr: u32) -> Option<&Variable> {
        self.by_vr[type_slot(ty)]
            .get(vr as usize)
            .map(|&i| &self.variables[i])
    }

    /// The position in [`VariableTable::variables`] of the variable of type `ty` with
    /// value reference `vr` (its modelDescription.xml `index` is this + 1).
    pub fn position(&self, ty: VarType, vr: usize) -> Option<usize> {
        self.by_vr[type_slot(ty)].get(vr).copied()
    }

    /// The variable named `name`.
    pub fn by_name(&self, name: &str) -> Option<&Variable> {
        self.names.get(name).map(|&i| &self.variables[i])
    }

    /// The start value `v` would give the parameter `name` (a scenario's
    /// `start_values`), or why it cannot: no such variable, not a parameter, out of
    /// its bounds, not a whole number (Integer) or 0/1 (Boolean).
    pub fn start_override(&self, name: &str, v: f64) -> Result<Start, String> {
        let var = self.by_name(name).ok_or_else(|| {
            let close: Vec<&str> = self
                .variables
                .iter()
                .filter(|w| w.causality == Causality::Parameter)
                .map(|w| w.name.as_str())
                .filter(|n| {
                    let last = |s: &'_ str| s.rsplit('.').next().unwrap_or("").to_string();
                    let first = |s: &'_ str| s.split('.').next().unwrap_or("").to_string();
                    last(n) == last(name) || first(n) == first(name)
                })
                .take(8)
                .collect();
            format!(
                "no FMI variable '{name}'{}",
                if close.is_empty() {
                    String::new()
                } else {
                    format!(" (parameters with similar names: {})", close.join(", "))
                }
            )
        })?;
        if var.causality != Causality::Parameter {
            return Err(format!(
                "'{name}' has causality {}: start values are for parameters",
                var.causality.as_str()
            ));
        }
        var.start_from(v).map_err(|why| match var.ty {
            VarType::Real => format!("'{name}': {why}"),
            _ => format!("'{name}' is {why}"),
        })
    }

    /// Replaces the start value of the variable `name` (no-op for an unknown name).
    pub fn set_start(&mut self, name: &str, start: Start) {
        if let Some(&i) = self.names.get(name) {
            self.variables[i].start = Some(start);
        }
    }

    /// Appends a variable and returns its value reference.
    ///
    /// Panics (a bug in the runtime, not bad input) when the name is taken, the unit is
    /// unknown, or the causality/variability/initial combination is not legal FMI 2.0.
    pub fn push(&mut self, mut var: Variable) -> usize {
        assert!(
            self.by_name(&var.name).is_none(),
            "duplicate variable {}",
            var.name
        );
        if let Some(u) = var.unit {
            assert!(units::unit(u).is_some(), "unknown unit {u} on {}", var.name);
        }
        check_combination(&var);
        let slot = type_slot(var.ty);
        let vr = self.by_vr[slot].len();
        var.vr = vr as u32;
        self.by_vr[slot].push(self.variables.len());
        self.names.insert(var.name.clone(), self.variables.len());
        self.variables.push(var);
        vr
    }

    /// Adds a Real parameter (`initial="exact"`) and returns its value reference.
    pub fn real_parameter(
        &mut self,
        name: impl Into<String>,
        variability: Variability,
        unit: &'static str,
        start: f64,
        bounds: Bounds,
        description: impl Into<String>,
    ) -> usize {
        self.parameter(name, variability, Some(unit), start, bounds, description)
    }

    /// Adds a tunable Real parameter whose unit may be none (`None`: a unit that
    /// depends on another parameter, as Bekker's k_c in N/m^(n+1)).
    pub fn tunable_real(
        &mut self,
        name: impl Into<String>,
        unit: Option<&'static str>,
        start: f64,
        bounds: Bounds,
        description: impl Into<String>,
    ) -> usize {
        self.parameter(name, Variability::Tunable, unit, start, bounds, description)
    }

    fn parameter(
        &mut self,
        name: impl Into<String>,
        variability: Variability,
        unit: Option<&'static str>,
        start: f64,
        bounds: Bounds,
        description: impl Into<String>,
    ) -> usize {
        self.push(Variable {
            name: name.into(),
            vr: 0,
            ty: VarType::Real,
            causality: Causality::Parameter,
            variability,
            initial: Some(Initial::Exact),
            unit,
            description: description.into(),
            start: Some(Start::Real(start)),
            bounds,
        })
    }

    /// Adds a continuous Real input and returns its value reference.
    pub fn real_input(
        &mut self,
        name: impl Into<String>,
        unit: &'static str,
        start: f64,
        description: impl Into<String>,
    ) -> usize {
        self.push(Variable {
            name: name.into(),
            vr: 0,
            ty: VarType::Real,
            causality: Causality::Input,
            variability: Variability::Continuous,
            initial: None,
            unit: Some(unit),
            description: description.into(),
            start: Some(Start::Real(start)),
            bounds: Bounds::ANY,
        })
    }

    /// Adds a continuous Real output (`initial="calculated"`) and returns its value reference.
    pub fn real_output(
        &mut self,
        name: impl Into<String>,
        unit: &'static str,
        description: impl Into<String>,
    ) -> usize {
        self.push(Variable {
            name: name.into(),
            vr: 0,
            ty: VarType::Real,
            causality: Causality::Output,
            variability: Variability::Continuous,
            initial: Some(Initial::Calculated),
            unit: Some(unit),
            description: description.into(),
            start: None,
            bounds: Bounds::ANY,
        })
    }

    /// Adds a discrete Boolean output (`initial="calculated"`) and returns its value reference.
    pub fn boolean_output(
        &mut self,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> usize {
        self.push(Variable {
            name: name.into(),
            vr: 0,
            ty: VarType::Boolean,
            causality: Causality::Output,
            variability: Variability::Discrete,
            initial: Some(Initial::Calculated),
            unit: None,
            description: description.into(),
            start: None,
            bounds: Bounds::ANY,
        })
    }

    /// The name of variable `vr` of type `ty`, empty if there is none (for messages).
    pub fn name_of(&self, ty: VarType, vr: usize) -> String {
        self.get(ty, vr as u32)
            .map(|v| v.name.clone())
            .unwrap_or_default()
    }

    /// Adds a discrete Integer output (`initial="calculated"`) and returns its value reference.
    pub fn integer_output(
        &mut self,
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> usize {
        self.push(Variable {
            name: name.into(),
            vr: 0,
            ty: VarType::Integer,
            causality: Causality::Output,
            variability: Variability::Discrete,
            initial: Some(Initial::Calculated),
            unit: None,
            description: description.into(),
            start: None,
            bounds: Bounds::ANY,
        })
    }

    /// Adds an Integer parameter (`initial="exact"`) within `bounds` and returns its
    /// value reference.
    pub fn integer_parameter(
        &mut self,
        name: impl Into<String>,
        variability: Variability,
        start: i32,
        bounds: Bounds,
        description: impl Into<String>,
    ) -> usize {
        self.push(Variable {
            name: name.into(),
            vr: 0,
            ty: VarType::Integer,
            causality: Causality::Parameter,
            variability,
            initial: Some(Initial::Exact),
            unit: None,
            description: description.into(),
            start: Some(Start::Integer(start)),
            bounds,
        })
    }

    /// Adds a Boolean parameter (`initial="exact"`) and returns its value reference.
    pub fn boolean_parameter(
        &mut self,
        name: impl Into<String>,
        variability: Variability,
        start: bool,
        description: impl Into<String>,
    ) -> usize {
        self.push(Variable {
            name: name.into(),
            vr: 0,
            ty: VarType::Boolean,
            causality: Causality::Parameter,
            variability,
            initial: Some(Initial::Exact),
            unit: None,
            description: description.into(),
            start: Some(Start::Boolean(start)),
            bounds: Bounds::ANY,
        })
    }

    /// Adds `name[1..N]` Real variables through `add` and returns their value references.
    pub fn real_array<const N: usize>(
        &mut self,
        name: &str,
        mut add: impl FnMut(&mut Self, String, usize) -> usize,
    ) -> [usize; N] {
        std::array::from_fn(|i| add(self, format!("{name}[{}]", i + 1), i))
    }
}

/// Asserts a legal FMI 2.0 causality/variability/initial combination (FMI 2.0
/// section 2.2.7, the table of combinations) and start-value presence.
fn check_combination(v: &Variable) {
    use Causality::*;
    use Variability::*;
    let ok = match v.causality {
        Parameter => {
            matches!(v.variability, Fixed | Tunable)
                && v.initial == Some(Initial::Exact)
                && v.start.is_some()
        }
        CalculatedParameter => {
            matches!(v.variability, Fixed | Tunable)
                && matches!(v.initial, Some(Initial::Calculated) | Some(Initial::Approx))
        }
        Input => {
            matches!(v.variability, Continuous | Discrete)
                && v.initial.is_none()
                && v.start.is_some()
        }
        Output => {
            matches!(v.variability, Continuous | Discrete | Constant)
                && match v.initial {
                    Some(Initial::Calculated) | None => v.start.is_none(),
                    Some(_) => v.start.is_some(),
                }
        }
        Local => true,
    };
    assert!(
        ok,
        "illegal FMI 2.0 combination on {}: {:?}/{:?}/{:?}",
        v.name, v.causality, v.variability, v.initial
    );
    if v.ty != VarType::Real {
        assert!(
            v.variability != Continuous,
            "{} is {} and cannot be continuous",
            v.name,
            v.ty.as_str()
        );
    }
}
