//! SSP 1.0 archives: several of our FMUs, connected, as one system that OMSimulator,
//! libcosim (`CosimExecution.from_ssp_file`) and fmpy read.
//!
//! An `.ssp` is a zip archive holding `SystemStructure.ssd` ([`write_ssd`]) and the FMUs
//! under `resources/<modelIdentifier>.fmu`. Each scenario becomes one component, named
//! by its `model_identifier`. The connections are found from the variable names
//! ([`connect`]): an output feeds every input of another component with the same
//! name and type (a free body's `ball.r[1]` in the body FMU drives the kinematic
//! `ball.r[1]` of the contact FMU), and a contact wrench `<b>.f[k]` / `<b>.t[k]` feeds
//! the free body's `<b>.f_ext[k]` / `<b>.t_ext[k]`.

use super::model_description::{empty, end, real, start};
use crate::cosim::variables::{Causality, VarType, VariableTable};
use quick_xml::events::{BytesDecl, Event};
use quick_xml::Writer;

/// SSP 1.0 namespaces (SSP standard, section 1.3).
pub const NS_SSD: &str = "http://ssp-standard.org/SSP1/SystemStructureDescription";
pub const NS_SSC: &str = "http://ssp-standard.org/SSP1/SystemStructureCommon";
pub const NS_SSV: &str = "http://ssp-standard.org/SSP1/SystemStructureParameterValues";
/// OMSimulator's annotation schema: its fixed-step master reads the step size there.
pub const NS_OMS: &str =
    "https://raw.githubusercontent.com/OpenModelica/OMSimulator/master/schema/oms.xsd";

/// One FMU of the system.
#[derive(Debug, Clone)]
pub struct Component {
    /// Element name in the SSD (the scenario's `model_identifier`).
    pub name: String,
    /// Archive path of the FMU, `resources/<name>.fmu`.
    pub source: String,
    /// Its variables, as in its modelDescription.xml.
    pub table: VariableTable,
    /// Parameter values bound in the SSD (`ssv:ParameterSet`), by variable name.
    pub parameters: Vec<(String, ParamValue)>,
}

/// A parameter value of an SSD binding.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamValue {
    Real(f64),
    Boolean(bool),
}

impl ParamValue {
    /// `true`/`false` is a Boolean, anything else must be a finite number.
    pub fn parse(text: &str) -> Option<ParamValue> {
        match text.trim() {
            "true" => Some(ParamValue::Boolean(true)),
            "false" => Some(ParamValue::Boolean(false)),
            t => t
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .map(ParamValue::Real),
        }
    }

    /// The value as written on the command line.
    fn text(&self) -> String {
        match self {
            ParamValue::Real(x) => x.to_string(),
            ParamValue::Boolean(b) => b.to_string(),
        }
    }

    fn ty(&self) -> VarType {
        match self {
            ParamValue::Real(_) => VarType::Real,
            ParamValue::Boolean(_) => VarType::Boolean,
        }
    }
}

/// One signal from an output of `from` to an input of `to` (indices into the
/// components).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Connection {
    pub from: usize,
    pub output: String,
    pub to: usize,
    pub input: String,
}

/// The output name that feeds `input` under the naming rules: the same name, or for a
/// free body's external wrench `<b>.f_ext[k]` / `<b>.t_ext[k]`, the contact wrench
/// `<b>.f[k]` / `<b>.t[k]`.
fn source_names(input: &str) -> Vec<String> {
    let mut names = vec![input.to_string()];
    for (ext, plain) in [(".f_ext[", ".f["), (".t_ext[", ".t[")] {
        if let Some(i) = input.rfind(ext) {
            names.push(format!(
                "{}{}{}",
                &input[..i],
                plain,
                &input[i + ext.len()..]
            ));
        }
    }
    names
}

/// The connections between `components` by the naming rules (module docs). An input
/// with outputs in two other components is an error naming both; inputs without a
/// source are left to their start values.
pub fn connect(components: &[Component]) -> Result<Vec<Connection>, String> {
    let mut out = vec![];
    for (to, c) in components.iter().enumerate() {
        for input in c
            .table
            .variables
            .iter()
            .filter(|v| v.causality == Causality::Input)
        {
            let mut found: Vec<Connection> = vec![];
            for (from, d) in components.iter().enumerate() {
                if from == to {
                    continue;
                }
                for name in source_names(&input.name) {
                    let hit = d.table.variables.iter().find(|v| {
                        v.causality == Causality::Output && v.name == name && v.ty == input.ty
                    });
                    if let Some(v) = hit {
                        found.push(Connection {
                            from,
                            output: v.name.clone(),
                            to,
                            input: input.name.clone(),
                        });
                        break;
                    }
                }
            }
            if found.len() > 1 {
                return Err(format!(
                    "input '{}' of '{}' has several sources: {}",
                    input.name,
                    c.name,
                    found
                        .iter()
                        .map(|f| format!("'{}' of '{}'", f.output, components[f.from].name))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            out.extend(found);
        }
    }
    Ok(out)
}

/// The experiment of the system: `DefaultExperiment` and the masters' fixed step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Experiment {
    /// s
    pub start_time: f64,
    /// s
    pub stop_time: f64,
    /// Communication step of the fixed-step masters, s.
    pub step_size: f64,
}

type W = Writer<Vec<u8>>;

fn connector(w: &mut W, name: &str, kind: &str, ty: VarType) -> std::io::Result<()> {
    start(
        w,
        "ssd:Connector",
        &[("name", name.into()), ("kind", kind.into())],
    )?;
    empty(w, &format!("ssc:{}", ty.as_str()), &[])?;
    end(w, "ssd:Connector")
}

fn component(
    w: &mut W,
    c: &Component,
    index: usize,
    connections: &[Connection],
) -> std::io::Result<()> {
    start(
        w,
        "ssd:Component",
        &[
            ("name", c.name.clone()),
            ("type", "application/x-fmu-sharedlibrary".into()),
            ("source", c.source.clone()),
        ],
    )?;
    // The connectors the connections use, in modelDescription order (OMSimulator warns
    // about components without connectors).
    let used: Vec<_> = c
        .table
        .variables
        .iter()
        .filter(|v| {
            connections.iter().any(|k| {
                (k.from == index && k.output == v.name) || (k.to == index && k.input == v.name)
            })
        })
        .collect();
    if !used.is_empty() {
        start(w, "ssd:Connectors", &[])?;
        for v in used {
            connector(w, &v.name, v.causality.as_str(), v.ty)?;
        }
        end(w, "ssd:Connectors")?;
    }
    if !c.parameters.is_empty() {
        start(w, "ssd:ParameterBindings", &[])?;
        start(w, "ssd:ParameterBinding", &[])?;
        start(w, "ssd:ParameterValues", &[])?;
        start(
            w,
            "ssv:ParameterSet",
            &[
                ("version", "1.0".into()),
                ("name", format!("{}_parameters", c.name)),
            ],
        )?;
        start(w, "ssv:Parameters", &[])?;
        for (name, value) in &c.parameters {
            start(w, "ssv:Parameter", &[("name", name.clone())])?;
            match value {
                ParamValue::Real(x) => empty(w, "ssv:Real", &[("value", real(*x))])?,
                ParamValue::Boolean(b) => empty(w, "ssv:Boolean", &[("value", b.to_string())])?,
            }
            end(w, "ssv:Parameter")?;
        }
        end(w, "ssv:Parameters")?;
        end(w, "ssv:ParameterSet")?;
        end(w, "ssd:ParameterValues")?;
        end(w, "ssd:ParameterBinding")?;
        end(w, "ssd:ParameterBindings")?;
    }
    end(w, "ssd:Component")
}

/// `SystemStructure.ssd` of the system `name`: one component per FMU, the
/// `connections`, the default experiment, and OMSimulator's fixed-step master
/// annotation (without it OMSimulator does not load the system).
pub fn write_ssd(
    name: &str,
    components: &[Component],
    connections: &[Connection],
    experiment: &Experiment,
    generated_at: &str,
) -> String {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    // Writing into a Vec cannot fail.
    write_ssd_into(
        &mut w,
        name,
        components,
        connections,
        experiment,
        generated_at,
    )
    .expect("XML into memory");
    let mut text = String::from_utf8(w.into_inner()).expect("XML is UTF-8");
    text.push('\n');
    text
}

fn write_ssd_into(
    w: &mut W,
    name: &str,
    components: &[Component],
    connections: &[Connection],
    e: &Experiment,
    generated_at: &str,
) -> std::io::Result<()> {
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    start(
        w,
        "ssd:SystemStructureDescription",
        &[
            ("xmlns:ssc", NS_SSC.into()),
            ("xmlns:ssd", NS_SSD.into()),
            ("xmlns:ssv", NS_SSV.into()),
            ("xmlns:oms", NS_OMS.into()),
            ("version", "1.0".into()),
            ("name", name.into()),
            ("generationTool", crate::GENERATION_TOOL.into()),
            ("generationDateAndTime", generated_at.into()),
        ],
    )?;
    start(w, "ssd:System", &[("name", "root".into())])?;
    start(w, "ssd:Elements", &[])?;
    for (i, c) in components.iter().enumerate() {
        component(w, c, i, connections)?;
    }
    end(w, "ssd:Elements")?;
    if !connections.is_empty() {
        start(w, "ssd:Connections", &[])?;
        for k in connections {
            empty(
                w,
                "ssd:Connection",
                &[
                    ("startElement", components[k.from].name.clone()),
                    ("startConnector", k.output.clone()),
                    ("endElement", components[k.to].name.clone()),
                    ("endConnector", k.input.clone()),
                ],
            )?;
        }
        end(w, "ssd:Connections")?;
    }
    start(w, "ssd:Annotations", &[])?;
    start(w, "ssc:Annotation", &[("type", "org.openmodelica".into())])?;
    start(w, "oms:Annotations", &[])?;
    start(w, "oms:SimulationInformation", &[])?;
    empty(
        w,
        "oms:FixedStepMaster",
        &[
            ("description", "oms-ma".into()),
            ("stepSize", real(e.step_size)),
            ("absoluteTolerance", "0.0001".into()),
            ("relativeTolerance", "0.0001".into()),
        ],
    )?;
    end(w, "oms:SimulationInformation")?;
    end(w, "oms:Annotations")?;
    end(w, "ssc:Annotation")?;
    end(w, "ssd:Annotations")?;
    end(w, "ssd:System")?;
    start(
        w,
        "ssd:DefaultExperiment",
        &[
            ("startTime", real(e.start_time)),
            ("stopTime", real(e.stop_time)),
        ],
    )?;
    // OMSimulator reads its result settings from here; without them it loads the
    // system with "Wrong/deprecated content detected" (its own export writes them)
    start(w, "ssd:Annotations", &[])?;
    start(w, "ssc:Annotation", &[("type", "org.openmodelica".into())])?;
    start(w, "oms:Annotations", &[])?;
    empty(
        w,
        "oms:SimulationInformation",
        &[
            ("resultFile", format!("{name}_res.mat")),
            ("loggingInterval", "0.0".into()),
            ("bufferSize", "10".into()),
        ],
    )?;
    end(w, "oms:Annotations")?;
    end(w, "ssc:Annotation")?;
    end(w, "ssd:Annotations")?;
    end(w, "ssd:DefaultExperiment")?;
    end(w, "ssd:SystemStructureDescription")
}

/// `OspSystemStructure.xml` of the same system, for libcosim's own configuration format
/// (`CosimExecution.from_osp_config_file`): the FMUs beside it as `<name>.fmu`, the
/// fixed-step algorithm at the experiment's step, the parameter values as initial
/// values, one `VariableConnection` per connection (source first).
pub fn write_osp(components: &[Component], connections: &[Connection], e: &Experiment) -> String {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    write_osp_into(&mut w, components, connections, e).expect("XML into memory");
    let mut text = String::from_utf8(w.into_inner()).expect("XML is UTF-8");
    text.push('\n');
    text
}

/// OSP-IS system structure namespace (libcosim).
pub const NS_OSP: &str = "http://opensimulationplatform.com/MSMI/OSPSystemStructure";

fn text_element(w: &mut W, name: &str, text: &str) -> std::io::Result<()> {
    start(w, name, &[])?;
    w.write_event(Event::Text(quick_xml::events::BytesText::new(text)))?;
    end(w, name)
}

fn write_osp_into(
    w: &mut W,
    components: &[Component],
    connections: &[Connection],
    e: &Experiment,
) -> std::io::Result<()> {
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    start(
        w,
        "OspSystemStructure",
        &[("xmlns", NS_OSP.into()), ("version", "0.1".into())],
    )?;
    text_element(w, "StartTime", &real(e.start_time))?;
    text_element(w, "BaseStepSize", &real(e.step_size))?;
    text_element(w, "Algorithm", "fixedStep")?;
    start(w, "Simulators", &[])?;
    for c in components {
        let attrs = [
            ("name", c.name.clone()),
            ("source", format!("{}.fmu", c.name)),
            ("stepSize", real(e.step_size)),
        ];
        if c.parameters.is_empty() {
            empty(w, "Simulator", &attrs)?;
            continue;
        }
        start(w, "Simulator", &attrs)?;
        start(w, "InitialValues", &[])?;
        for (name, value) in &c.parameters {
            start(w, "InitialValue", &[("variable", name.clone())])?;
            match value {
                ParamValue::Real(x) => empty(w, "Real", &[("value", real(*x))])?,
                ParamValue::Boolean(b) => empty(w, "Boolean", &[("value", b.to_string())])?,
            }
            end(w, "InitialValue")?;
        }
        end(w, "InitialValues")?;
        end(w, "Simulator")?;
    }
    end(w, "Simulators")?;
    start(w, "Connections", &[])?;
    for k in connections {
        start(w, "VariableConnection", &[])?;
        empty(
            w,
            "Variable",
            &[
                ("simulator", components[k.from].name.clone()),
                ("name", k.output.clone()),
            ],
        )?;
        empty(
            w,
            "Variable",
            &[
                ("simulator", components[k.to].name.clone()),
                ("name", k.input.clone()),
            ],
        )?;
        end(w, "VariableConnection")?;
    }
    end(w, "Connections")?;
    end(w, "OspSystemStructure")
}

/// Packages `scenarios` (one FMU each, as [`super::package`] does) and writes them with
/// their `SystemStructure.ssd` into the SSP archive `ssp_path`. `step_size` defaults
/// to the smallest `default_experiment.step_size` of the scenarios; start and stop
/// time come from the first scenario. `parameters` are `(component, variable, value)`
/// bindings. Returns the connections for the caller to report.
pub fn package(
    scenarios: &[std::path::PathBuf],
    ssp_path: &std::path::Path,
    runtimes: &super::Runtimes,
    step_size: Option<f64>,
    parameters: &[(String, String, ParamValue)],
    osp_dir: Option<&std::path::Path>,
) -> Result<(Vec<Component>, Vec<Connection>), String> {
    if scenarios.len() < 2 {
        return Err("an SSP system needs at least two scenarios".into());
    }
    // the FMUs are packaged into a staging folder beside the archive, removed at the end
    let stem = ssp_path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "system".into());
    let parent = ssp_path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let staging = parent.join(format!(".{stem}.ssp-fmus"));
    let result = package_staged(
        scenarios, ssp_path, &stem, &staging, runtimes, step_size, parameters, osp_dir,
    );
    let _ = std::fs::remove_dir_all(&staging);
    result
}

/// Checks the values the SSD binds to component `name` (scenario `s` from `path`) as
/// its `start_values` would be checked: in the variable's bounds, a whole number for
/// an Integer, and through the scenario's rules and instantiation with them.
fn check_bound_values(
    path: &std::path::Path,
    s: &crate::scenario::Scenario,
    name: &str,
    values: &[(String, ParamValue)],
) -> Result<(), String> {
    let mut probe = s.clone();
    for (var, value) in values {
        let x = match value {
            ParamValue::Real(x) => *x,
            ParamValue::Boolean(b) => f64::from(u8::from(*b)),
        };
        probe.start_values.insert(var.clone(), x);
    }
    let shown = values
        .iter()
        .map(|(v, x)| format!("--param {name}:{v}={}", x.text()))
        .collect::<Vec<_>>()
        .join(" ");
    let errors = crate::scenario::validate(&probe);
    if let Some(e) = errors.first() {
        return Err(format!("{shown}: {}: {}: {}", path.display(), e.path, e.message));
    }
    let dir = crate::scenario::folder_of(path);
    crate::cosim::World::new(&probe, Some(dir))
        .map(|_| ())
        .map_err(|e| format!("{shown}: {}: {e}", path.display()))
}

#[allow(clippy::too_many_arguments)]
fn package_staged(
    scenarios: &[std::path::PathBuf],
    ssp_path: &std::path::Path,
    name: &str,
    staging: &std::path::Path,
    runtimes: &super::Runtimes,
    step_size: Option<f64>,
    parameters: &[(String, String, ParamValue)],
    osp_dir: Option<&std::path::Path>,
) -> Result<(Vec<Component>, Vec<Connection>), String> {
    use std::io::Write;
    let mut components: Vec<Component> = vec![];
    let mut experiment: Option<Experiment> = None;
    let mut fmus = vec![];
    let mut loaded = vec![];
    for path in scenarios {
        let s = crate::scenario::load(path).map_err(|e| e.to_string())?;
        if components.iter().any(|c| c.name == s.model_identifier) {
            return Err(format!(
                "{}: model_identifier '{}' is used by another scenario of the system; component names must differ",
                path.display(),
                s.model_identifier
            ));
        }
        let fmu = super::package(path, staging, runtimes).map_err(|e| e.to_string())?;
        let (table, _, _) = crate::registry::layout(&s);
        let e = &s.default_experiment;
        let x = experiment.get_or_insert(Experiment {
            start_time: e.start_time,
            stop_time: e.stop_time,
            step_size: e.step_size,
        });
        x.step_size = x.step_size.min(e.step_size);
        components.push(Component {
            name: s.model_identifier.clone(),
            source: format!("resources/{}.fmu", s.model_identifier),
            table,
            parameters: vec![],
        });
        fmus.push(fmu);
        loaded.push((path, s));
    }
    for (comp, var, value) in parameters {
        let c = components
            .iter_mut()
            .find(|c| c.name == *comp)
            .ok_or_else(|| format!("--param {comp}:{var}: no component '{comp}' in the system"))?;
        let ok = c.table.variables.iter().any(|v| {
            v.name == *var
                && v.ty == value.ty()
                && v.settable_in(crate::cosim::variables::Phase::Instantiated)
        });
        if !ok {
            return Err(format!(
                "--param {comp}:{var}: '{comp}' has no {} variable '{var}' with a start value to set",
                value.ty().as_str()
            ));
        }
        c.parameters.push((var.clone(), *value));
    }
    // a --param value passes the checks the same value as a start value passes
    // (bounds, the scenario's own rules, instantiation)
    for (c, (path, s)) in components.iter().zip(&loaded) {
        if !c.parameters.is_empty() {
            check_bound_values(path, s, &c.name, &c.parameters)?;
        }
    }
    let mut experiment = experiment.expect("at least two scenarios");
    if let Some(h) = step_size {
        if !(h > 0.0 && h.is_finite()) {
            return Err(format!(
                "--step {h}: the communication step must be positive"
            ));
        }
        experiment.step_size = h;
    }
    let connections = connect(&components)?;
    if connections.is_empty() {
        let files: Vec<String> = scenarios.iter().map(|p| p.display().to_string()).collect();
        return Err(format!(
            "{}: the scenarios share no signal: no output of one has the name of an input of another (see docs/cosimulation.md)",
            files.join(", ")
        ));
    }
    let ssd = write_ssd(
        name,
        &components,
        &connections,
        &experiment,
        &super::model_description::timestamp_now(),
    );
    let tmp = ssp_path.with_extension("ssp.tmp");
    let zerr = |e: zip::result::ZipError| format!("{}: {e}", tmp.display());
    let ioerr = |e: std::io::Error| format!("{}: {e}", tmp.display());
    let file = std::fs::File::create(&tmp).map_err(ioerr)?;
    let mut zip = zip::ZipWriter::new(file);
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644);
    zip.start_file("SystemStructure.ssd", opts).map_err(zerr)?;
    zip.write_all(ssd.as_bytes()).map_err(ioerr)?;
    for (c, fmu) in components.iter().zip(&fmus) {
        let bytes = std::fs::read(fmu).map_err(|e| format!("{}: {e}", fmu.display()))?;
        // the FMU is already deflated
        zip.start_file(
            c.source.as_str(),
            opts.compression_method(zip::CompressionMethod::Stored),
        )
        .map_err(zerr)?;
        zip.write_all(&bytes).map_err(ioerr)?;
    }
    zip.finish().map_err(zerr)?;
    std::fs::rename(&tmp, ssp_path).map_err(|e| format!("{}: {e}", ssp_path.display()))?;
    if let Some(dir) = osp_dir {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for (c, fmu) in components.iter().zip(&fmus) {
            let to = dir.join(format!("{}.fmu", c.name));
            std::fs::copy(fmu, &to).map_err(|e| format!("{}: {e}", to.display()))?;
        }
        let xml = dir.join("OspSystemStructure.xml");
        std::fs::write(&xml, write_osp(&components, &connections, &experiment))
            .map_err(|e| format!("{}: {e}", xml.display()))?;
    }
    Ok((components, connections))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    fn scenario(motion: &str, contact: bool) -> Scenario {
        let bbcc = if contact {
            r#", "bbcc": { "pairs": [["ball", "terrain"]] }"#
        } else {
            ""
        };
        let text = format!(
            r#"{{ "name": "t", "model_identifier": "{}",
                "default_experiment": {{ "start_time": 0.0, "stop_time": 1.0, "step_size": 0.001 }},
                "model_step": 0.0001,
                "terrain": {{ "surface": {{ "type": "flat", "height": 0.0 }},
                             "material": {{ "E": 1.0e7, "nu": 0.4, "zeta": 0.6, "mu": 0.5 }} }},
                "bodies": [ {{ "name": "ball", "shape": {{ "type": "sphere", "radius": 0.1 }},
                              "material": {{ "E": 1.0e7, "nu": 0.4, "zeta": 0.6, "mu": 0.5 }},
                              "motion": {} }} ]{bbcc} }}"#,
            if contact { "contact" } else { "body" },
            motion
        );
        serde_json::from_str(&text).unwrap()
    }

    fn component(s: &Scenario) -> Component {
        let (table, _, _) = crate::registry::layout(s);
        Component {
            name: s.model_identifier.clone(),
            source: format!("resources/{}.fmu", s.model_identifier),
            table,
            parameters: vec![],
        }
    }

    #[test]
    fn a_body_fmu_and_a_contact_fmu_connect_by_name_in_both_directions() {
        let body = component(&scenario(r#"{ "type": "free", "mass": 1.0 }"#, false));
        let contact = component(&scenario(r#"{ "type": "kinematic" }"#, true));
        let k = connect(&[body, contact]).unwrap();
        // pose and velocities (3 + 4 + 3 + 3) body -> contact, wrench (3 + 3) back
        assert_eq!(k.len(), 19, "{k:#?}");
        assert!(k.contains(&Connection {
            from: 0,
            output: "ball.q[4]".into(),
            to: 1,
            input: "ball.q[4]".into()
        }));
        assert!(k.contains(&Connection {
            from: 1,
            output: "ball.t[2]".into(),
            to: 0,
            input: "ball.t_ext[2]".into()
        }));
        assert!(k.iter().all(|c| c.from != c.to));
    }

    #[test]
    fn an_input_with_two_sources_is_refused_with_both_names() {
        let body = component(&scenario(r#"{ "type": "free", "mass": 1.0 }"#, false));
        let mut other = body.clone();
        other.name = "body2".into();
        let contact = component(&scenario(r#"{ "type": "kinematic" }"#, true));
        let e = connect(&[body, other, contact]).unwrap_err();
        assert!(
            e.contains("several sources") && e.contains("'body'") && e.contains("'body2'"),
            "{e}"
        );
    }

    #[test]
    fn the_ssd_names_every_connected_connector_and_the_fixed_step() {
        let body = component(&scenario(r#"{ "type": "free", "mass": 1.0 }"#, false));
        let mut contact = component(&scenario(r#"{ "type": "kinematic" }"#, true));
        contact
            .parameters
            .push(("terrain.zeta".into(), ParamValue::Real(0.8)));
        contact
            .parameters
            .push(("ball.extrapolate".into(), ParamValue::Boolean(true)));
        let comps = [body, contact];
        let k = connect(&comps).unwrap();
        let e = Experiment {
            start_time: 0.0,
            stop_time: 2.0,
            step_size: 0.0005,
        };
        let ssd = write_ssd("loop", &comps, &k, &e, "2026-11-28T12:00:00Z");
        assert!(
            ssd.contains(r#"<ssd:Connector name="ball.r[1]" kind="output">"#),
            "{ssd}"
        );
        assert!(ssd.contains(r#"<ssd:Connector name="ball.r[1]" kind="input">"#));
        assert!(ssd.contains(r#"<ssd:Connector name="ball.f_ext[3]" kind="input">"#));
        assert!(ssd.contains(r#"stepSize="0.0005""#));
        assert!(ssd.contains(r#"<ssd:DefaultExperiment startTime="0.0" stopTime="2.0">"#));
        assert!(ssd.contains(r#"<oms:SimulationInformation resultFile="#));
        assert!(ssd.contains(r#"<ssv:Parameter name="terrain.zeta">"#));
        assert!(ssd.contains(r#"<ssv:Boolean value="true"/>"#));
        // unconnected outputs are not listed
        assert!(!ssd.contains(r#"name="ball.penetration""#));
        assert_eq!(ssd.matches("<ssd:Connection ").count(), 19);
        let osp = write_osp(&comps, &k, &e);
        assert!(osp.contains("<BaseStepSize>0.0005</BaseStepSize>"), "{osp}");
        assert!(
            osp.contains(r#"<Simulator name="contact" source="contact.fmu" stepSize="0.0005">"#)
        );
        assert!(osp.contains(r#"<InitialValue variable="terrain.zeta">"#));
        assert_eq!(osp.matches("<VariableConnection>").count(), 19);
        assert!(osp.contains(
            r#"<Variable simulator="contact" name="ball.f[1]"/>
      <Variable simulator="body" name="ball.f_ext[1]"/>"#
        ));
    }
}
