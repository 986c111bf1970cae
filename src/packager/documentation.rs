//! `documentation/index.html` of an FMU: the scenario and its variables with units and
//! meaning.

use crate::cosim::variables::{Start, VariableTable};
use crate::scenario::Scenario;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page.
pub fn write(s: &Scenario, table: &VariableTable) -> String {
    let mut rows = String::new();
    for v in &table.variables {
        let start = match &v.start {
            Some(Start::Real(x)) => super::model_description::real(*x),
            Some(Start::Integer(x)) => x.to_string(),
            Some(Start::Boolean(x)) => x.to_string(),
            Some(Start::String(x)) => format!("\"{x}\""),
            None => String::new(),
        };
        rows.push_str(&format!(
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            esc(&v.name),
            v.ty.as_str(),
            v.causality.as_str(),
            v.variability.as_str(),
            v.unit.unwrap_or(""),
            esc(&start),
            v.vr,
            esc(&v.description)
        ));
    }
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{name}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; }}
table {{ border-collapse: collapse; }}
td, th {{ border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }}
th {{ background: #eee; }}
</style>
</head>
<body>
<h1>{name}</h1>
<p>{description}</p>
<p>FMI 2.0 Co-Simulation FMU <code>{id}</code>, made by {tool}. Frames: world z up; SI units.
Orientations are unit quaternions (w, x, y, z), body to world. Forces and torques are those the
contacts exert on each body, world frame, torques about the body origin.</p>
<p>Default experiment: start {t0} s, stop {t1} s, step {h} s. Internal model step: {dt} s.</p>
<h2>Variables</h2>
<table>
<tr><th>name</th><th>type</th><th>causality</th><th>variability</th><th>unit</th><th>start</th><th>value reference</th><th>description</th></tr>
{rows}</table>
</body>
</html>
"#,
        name = esc(&s.name),
        description = esc(&s.description),
        id = esc(&s.model_identifier),
        tool = esc(crate::GENERATION_TOOL),
        t0 = s.default_experiment.start_time,
        t1 = s.default_experiment.stop_time,
        h = s.default_experiment.step_size,
        dt = s.model_step,
    )
}
