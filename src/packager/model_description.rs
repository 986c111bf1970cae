//! modelDescription.xml, written from the same variable table the runtime uses.

use crate::cosim::capabilities::{CAPABILITIES, LOG_CATEGORIES};
use crate::cosim::feedthrough::{Dependencies, Set};
use crate::cosim::units;
use crate::cosim::variables::{Start, VarType, Variable, VariableTable};
use crate::scenario::Scenario;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, Event};
use quick_xml::Writer;

pub(crate) type W = Writer<Vec<u8>>;

pub(crate) fn empty(w: &mut W, name: &str, attrs: &[(&str, String)]) -> std::io::Result<()> {
    let mut e = BytesStart::new(name);
    for (k, v) in attrs {
        e.push_attribute((*k, v.as_str()));
    }
    w.write_event(Event::Empty(e))
}

pub(crate) fn start(w: &mut W, name: &str, attrs: &[(&str, String)]) -> std::io::Result<()> {
    let mut e = BytesStart::new(name);
    for (k, v) in attrs {
        e.push_attribute((*k, v.as_str()));
    }
    w.write_event(Event::Start(e))
}

pub(crate) fn end(w: &mut W, name: &str) -> std::io::Result<()> {
    w.write_event(Event::End(BytesEnd::new(name)))
}

fn b(v: bool) -> String {
    v.to_string()
}

/// A Real as xs:double: the shortest text that reads back to the same value.
pub fn real(x: f64) -> String {
    format!("{x:?}")
}

fn variable(w: &mut W, v: &Variable) -> std::io::Result<()> {
    let mut attrs = vec![
        ("name", v.name.clone()),
        ("valueReference", v.vr.to_string()),
        ("description", v.description.clone()),
        ("causality", v.causality.as_str().to_string()),
        ("variability", v.variability.as_str().to_string()),
    ];
    if let Some(i) = v.initial {
        attrs.push(("initial", i.as_str().to_string()));
    }
    start(w, "ScalarVariable", &attrs)?;
    let mut t = vec![];
    if let Some(u) = v.unit {
        t.push(("unit", u.to_string()));
    }
    t.extend(bounds_attributes(v));
    match &v.start {
        Some(Start::Real(x)) => t.push(("start", real(*x))),
        Some(Start::Integer(x)) => t.push(("start", x.to_string())),
        Some(Start::Boolean(x)) => t.push(("start", x.to_string())),
        Some(Start::String(x)) => t.push(("start", x.clone())),
        None => {}
    }
    empty(w, v.ty.as_str(), &t)?;
    end(w, "ScalarVariable")
}

/// The modelDescription.xml of `scenario` with the variables `table` and the
/// `<ModelStructure>` dependencies `deps` ([`crate::cosim::feedthrough::resolve`]).
/// `generated_at` is the `generationDateAndTime` (xs:dateTime, UTC).
pub fn write(
    scenario: &Scenario,
    table: &VariableTable,
    deps: &Dependencies,
    generated_at: &str,
) -> String {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    // Writing into a Vec cannot fail.
    write_into(&mut w, scenario, table, deps, generated_at).expect("XML into memory");
    let mut text = String::from_utf8(w.into_inner()).expect("XML is UTF-8");
    text.push('\n');
    text
}

fn write_into(
    w: &mut W,
    s: &Scenario,
    table: &VariableTable,
    deps: &Dependencies,
    generated_at: &str,
) -> std::io::Result<()> {
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    start(
        w,
        "fmiModelDescription",
        &[
            ("fmiVersion", "2.0".into()),
            ("modelName", s.name.clone()),
            ("guid", s.guid()),
            ("description", s.description.clone()),
            ("generationTool", crate::GENERATION_TOOL.into()),
            ("generationDateAndTime", generated_at.into()),
            ("variableNamingConvention", "structured".into()),
            ("numberOfEventIndicators", "0".into()),
        ],
    )?;
    let c = CAPABILITIES;
    empty(
        w,
        "CoSimulation",
        &[
            ("modelIdentifier", s.model_identifier.clone()),
            ("needsExecutionTool", b(c.needs_execution_tool)),
            (
                "canHandleVariableCommunicationStepSize",
                b(c.can_handle_variable_communication_step_size),
            ),
            ("canInterpolateInputs", b(c.can_interpolate_inputs)),
            (
                "maxOutputDerivativeOrder",
                c.max_output_derivative_order.to_string(),
            ),
            ("canRunAsynchronuously", b(c.can_run_asynchronuously)),
            (
                "canBeInstantiatedOnlyOncePerProcess",
                b(c.can_be_instantiated_only_once_per_process),
            ),
            (
                "canNotUseMemoryManagementFunctions",
                b(c.can_not_use_memory_management_functions),
            ),
            ("canGetAndSetFMUstate", b(c.can_get_and_set_fmu_state)),
            ("canSerializeFMUstate", b(c.can_serialize_fmu_state)),
            (
                "providesDirectionalDerivative",
                b(c.provides_directional_derivative),
            ),
        ],
    )?;

    unit_definitions(w, table, false)?;
    log_categories(w)?;
    default_experiment(w, s)?;

    start(w, "ModelVariables", &[])?;
    for v in &table.variables {
        variable(w, v)?;
    }
    end(w, "ModelVariables")?;

    // index = 1-based position in ModelVariables; dependencies as the models declare
    // them (an output with none listed reads no known; too many to list: left out,
    // "depends on every known").
    start(w, "ModelStructure", &[])?;
    for (element, list) in [("Outputs", &deps.outputs), ("InitialUnknowns", &deps.initial)] {
        if list.is_empty() {
            continue;
        }
        start(w, element, &[])?;
        for (p, set) in list {
            unknown(w, *p, set)?;
        }
        end(w, element)?;
    }
    end(w, "ModelStructure")?;
    end(w, "fmiModelDescription")
}

/// `<UnitDefinitions>`: only the units the variables use (and the second, with
/// `seconds`: FMI 3.0's `time`), in the catalogue's order; none at all when no variable
/// has a unit.
pub(crate) fn unit_definitions(w: &mut W, table: &VariableTable, seconds: bool) -> std::io::Result<()> {
    let used: Vec<&units::UnitDef> = units::UNITS
        .iter()
        .filter(|u| (seconds && u.name == "s") || table.variables.iter().any(|v| v.unit == Some(u.name)))
        .collect();
    if used.is_empty() {
        return Ok(());
    }
    start(w, "UnitDefinitions", &[])?;
    for u in used {
        start(w, "Unit", &[("name", u.name.into())])?;
        let mut exps = vec![];
        for (k, e) in [("kg", u.kg), ("m", u.m), ("s", u.s), ("rad", u.rad)] {
            if e != 0 {
                exps.push((k, e.to_string()));
            }
        }
        empty(w, "BaseUnit", &exps)?;
        end(w, "Unit")?;
    }
    end(w, "UnitDefinitions")
}

/// `<LogCategories>`: the runtime's.
pub(crate) fn log_categories(w: &mut W) -> std::io::Result<()> {
    start(w, "LogCategories", &[])?;
    for (name, description) in LOG_CATEGORIES {
        empty(
            w,
            "Category",
            &[
                ("name", name.to_string()),
                ("description", description.to_string()),
            ],
        )?;
    }
    end(w, "LogCategories")
}

/// `<DefaultExperiment>` of the scenario.
pub(crate) fn default_experiment(w: &mut W, s: &Scenario) -> std::io::Result<()> {
    let e = &s.default_experiment;
    empty(
        w,
        "DefaultExperiment",
        &[
            ("startTime", real(e.start_time)),
            ("stopTime", real(e.stop_time)),
            ("stepSize", real(e.step_size)),
        ],
    )
}

/// The `min` and `max` attributes of a variable: a Real's bounds, an Integer's as
/// whole numbers the setters enforce (a positive Integer: >= 1).
pub(crate) fn bounds_attributes(v: &Variable) -> Vec<(&'static str, String)> {
    let mut t = vec![];
    match v.ty {
        VarType::Real => {
            if let Some(min) = v.bounds.min {
                t.push(("min", real(min)));
            }
            if let Some(max) = v.bounds.max {
                t.push(("max", real(max)));
            }
        }
        VarType::Integer => {
            let min = v.bounds.min.map(|m| if v.bounds.positive && m <= 0.0 { m.floor() + 1.0 } else { m.ceil() });
            if let Some(min) = min.filter(|m| *m >= i32::MIN as f64) {
                t.push(("min", (min as i64).to_string()));
            }
            if let Some(max) = v.bounds.max.filter(|m| *m <= i32::MAX as f64) {
                t.push(("max", (max.floor() as i64).to_string()));
            }
        }
        _ => {}
    }
    t
}

/// One `<Unknown>`: its 1-based index and, when listed, its dependencies (each
/// `dependent`: no particular structure).
fn unknown(w: &mut W, position: usize, set: &Set) -> std::io::Result<()> {
    let mut attrs = vec![("index", (position + 1).to_string())];
    if let Some(list) = set.listed() {
        let text = |each: &dyn Fn(usize) -> String| {
            list.iter().map(|&p| each(p)).collect::<Vec<_>>().join(" ")
        };
        attrs.push(("dependencies", text(&|p| (p + 1).to_string())));
        if !list.is_empty() {
            attrs.push(("dependenciesKind", text(&|_| "dependent".to_string())));
        }
    }
    empty(w, "Unknown", &attrs)
}

/// `generationDateAndTime` for now, or for `SOURCE_DATE_EPOCH` when set (reproducible
/// builds): `2026-11-25T12:00:00Z`.
pub fn timestamp_now() -> String {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0)
        });
    format_utc(secs)
}

/// Seconds since 1970 as an xs:dateTime in UTC (civil-from-days, H. Hinnant's algorithm).
pub fn format_utc(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_formatting() {
        assert_eq!(format_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_utc(1_795_608_000), "2026-11-25T12:00:00Z");
        assert_eq!(format_utc(951_782_400), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn reals_read_back_exactly() {
        for x in [0.1, 1e-7, 9.81, -3.0, 4.5e5, 1.0 / 3.0] {
            assert_eq!(real(x).parse::<f64>().unwrap(), x);
        }
    }
}
