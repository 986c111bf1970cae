//! The FMI 3.0 modelDescription.xml (FMI 3.0, section 2.4), written from the same
//! variable table as the 2.0 one through its FMI 3.0 view
//! ([`crate::cosim::fmi3::Fmi3View`]): vectors as arrays, `time` as the independent
//! variable, value references unique across types, `<ModelStructure>` by value
//! reference.

use super::model_description::{
    bounds_attributes, default_experiment, empty, end, log_categories, real, start,
    unit_definitions, W,
};
use crate::cosim::capabilities::CAPABILITIES;
use crate::cosim::feedthrough::Dependencies;
use crate::cosim::fmi3::{collections, Dimension, Fmi3Variable, Fmi3View, Layout};
use crate::cosim::variables::{Causality, Start, VarType, Variable, VariableTable};
use crate::scenario::Scenario;
use quick_xml::events::{BytesDecl, Event};
use quick_xml::Writer;
use std::collections::BTreeSet;

fn b(v: bool) -> String {
    v.to_string()
}

/// A start value as FMI 3.0 writes it in a `start` attribute.
fn start_text(s: &Start) -> String {
    match s {
        Start::Real(x) => real(*x),
        Start::Integer(x) => x.to_string(),
        Start::Boolean(x) => x.to_string(),
        Start::String(x) => x.clone(),
    }
}

fn variable(w: &mut W, table: &VariableTable, v: &Fmi3Variable) -> std::io::Result<()> {
    let tag = v.type_name();
    if let Some(n) = v.count {
        // a collection's size: fixed by the scenario (FMI 3.0 section 2.4.7.3)
        return empty(
            w,
            tag,
            &[
                ("name", v.name.clone()),
                ("valueReference", v.vr.to_string()),
                ("description", v.description.clone()),
                ("causality", "structuralParameter".into()),
                ("variability", "fixed".into()),
                ("start", n.to_string()),
            ],
        );
    }
    if v.members.is_empty() {
        // the independent variable
        return empty(
            w,
            tag,
            &[
                ("name", v.name.clone()),
                ("valueReference", v.vr.to_string()),
                ("description", v.description.clone()),
                ("causality", "independent".into()),
                ("variability", "continuous".into()),
                ("unit", "s".into()),
            ],
        );
    }
    let first: &Variable = &table.variables[v.members[0]];
    let mut attrs = vec![
        ("name", v.name.clone()),
        ("valueReference", v.vr.to_string()),
        ("description", v.description.clone()),
        ("causality", first.causality.as_str().to_string()),
        ("variability", first.variability.as_str().to_string()),
    ];
    // FMI 3.0 allows no initial on inputs (their start is exact)
    if let Some(i) = first
        .initial
        .filter(|_| first.causality != Causality::Input)
    {
        attrs.push(("initial", i.as_str().to_string()));
    }
    if let Some(u) = first.unit {
        attrs.push(("unit", u.to_string()));
    }
    attrs.extend(bounds_attributes(first));
    let starts: Vec<&Start> = v
        .members
        .iter()
        .filter_map(|&p| table.variables[p].start.as_ref())
        .collect();
    let string = v.ty == VarType::String;
    if !string && starts.len() == v.members.len() {
        let text: Vec<String> = starts.iter().map(|s| start_text(s)).collect();
        attrs.push(("start", text.join(" ")));
    }
    let children = v.is_array() || (string && !starts.is_empty());
    if !children {
        return empty(w, tag, &attrs);
    }
    start(w, tag, &attrs)?;
    if string {
        for s in &starts {
            empty(w, "Start", &[("value", start_text(s))])?;
        }
    }
    for d in &v.dims {
        match d {
            Dimension::Fixed(n) => empty(w, "Dimension", &[("start", n.to_string())])?,
            Dimension::Count(vr) => empty(w, "Dimension", &[("valueReference", vr.to_string())])?,
        }
    }
    end(w, tag)
}

/// The FMI 3.0 modelDescription.xml of `scenario` with the variables `table` and the
/// `<ModelStructure>` dependencies `deps`, its vectors laid out as `layout` says;
/// `generated_at` as in [`super::model_description::write`].
pub fn write(
    scenario: &Scenario,
    table: &VariableTable,
    deps: &Dependencies,
    generated_at: &str,
    layout: Layout,
) -> String {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    // Writing into a Vec cannot fail.
    write_into(&mut w, scenario, table, deps, generated_at, layout).expect("XML into memory");
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
    layout: Layout,
) -> std::io::Result<()> {
    let view = Fmi3View::with_layout(table, layout, &collections(s));
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    start(
        w,
        "fmiModelDescription",
        &[
            ("fmiVersion", "3.0".into()),
            ("modelName", s.name.clone()),
            ("instantiationToken", s.guid()),
            ("description", s.description.clone()),
            ("generationTool", crate::GENERATION_TOOL.into()),
            ("generationDateAndTime", generated_at.into()),
            ("variableNamingConvention", "structured".into()),
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
                "canBeInstantiatedOnlyOncePerProcess",
                b(c.can_be_instantiated_only_once_per_process),
            ),
            ("canGetAndSetFMUState", b(c.can_get_and_set_fmu_state)),
            ("canSerializeFMUState", b(c.can_serialize_fmu_state)),
            (
                "providesDirectionalDerivatives",
                b(c.provides_directional_derivative),
            ),
            ("providesAdjointDerivatives", b(false)),
            ("providesPerElementDependencies", b(false)),
            (
                "canHandleVariableCommunicationStepSize",
                b(c.can_handle_variable_communication_step_size),
            ),
            (
                "maxOutputDerivativeOrder",
                c.max_output_derivative_order.to_string(),
            ),
            ("providesIntermediateUpdate", b(false)),
            ("mightReturnEarlyFromDoStep", b(false)),
            ("canReturnEarlyAfterIntermediateUpdate", b(false)),
            ("hasEventMode", b(false)),
            ("providesEvaluateDiscreteStates", b(false)),
        ],
    )?;

    unit_definitions(w, table, true)?;
    log_categories(w)?;
    default_experiment(w, s)?;

    start(w, "ModelVariables", &[])?;
    for v in &view.variables {
        variable(w, table, v)?;
    }
    end(w, "ModelVariables")?;

    // dependencies by value reference; an unknown with none listed reads no known;
    // "every known": the attribute left out
    let d = view.dependencies(deps);
    start(w, "ModelStructure", &[])?;
    for (element, map) in [("Output", &d.outputs), ("InitialUnknown", &d.initial)] {
        for (vr, set) in map {
            unknown(w, element, *vr, set.as_ref())?;
        }
    }
    end(w, "ModelStructure")?;
    end(w, "fmiModelDescription")
}

fn unknown(w: &mut W, element: &str, vr: u32, set: Option<&BTreeSet<u32>>) -> std::io::Result<()> {
    let mut attrs = vec![("valueReference", vr.to_string())];
    if let Some(list) = set {
        let text = |each: &dyn Fn(u32) -> String| {
            list.iter().map(|&p| each(p)).collect::<Vec<_>>().join(" ")
        };
        attrs.push(("dependencies", text(&|p| p.to_string())));
        if !list.is_empty() {
            attrs.push(("dependenciesKind", text(&|_| "dependent".to_string())));
        }
    }
    empty(w, element, &attrs)
}
