//! `terminalsAndIcons/terminalsAndIcons.xml` of an FMI 3.0 FMU (FMI 3.0, section 2.5.4):
//! each body as a mechanical frame terminal, so that tools that connect by terminal
//! connect a body of one FMU to the same body of another in one connection.
//!
//! A terminal `<body>` of kind [`FRAME_KIND`] has the members `r` (position, m, world),
//! `q` (orientation quaternion w, x, y, z), `v` (velocity, m/s, world), `w` (angular
//! velocity, rad/s, world), `f` (force, N, world) and `t` (torque about the body origin,
//! N.m, world), each the variable of that name where the body has it: a kinematic
//! body takes its pose and velocities in and gives its contact wrench out; a free body
//! gives its pose and velocities out and takes its external load in (`f_ext`, `t_ext`
//! as members `f`, `t`). Matched by member name (`matchingRule="bus"`): the frame of a
//! body FMU and the frame of a contact FMU close the loop of docs/cosimulation.md.
//! The bodies of a collection laid out as collection arrays are one terminal named
//! after the collection, its members those arrays (a row per body).

use super::model_description::{empty, end, start, W};
use crate::cosim::fmi3::{Collection, Fmi3View};
use crate::cosim::references::BodyVrs;
use crate::cosim::variables::{Causality, VariableTable};
use quick_xml::events::{BytesDecl, Event};
use quick_xml::Writer;
use std::collections::HashMap;

/// The `terminalKind` of a body's frame.
pub const FRAME_KIND: &str = "org.contact-fmu.Frame";

/// Where the file goes in the archive.
pub const PATH: &str = "terminalsAndIcons/terminalsAndIcons.xml";

/// The members of a frame, each with the variable names that can stand for it, in
/// order of preference.
const MEMBERS: [(&str, &[&str]); 6] = [
    ("r", &["r"]),
    ("q", &["q"]),
    ("v", &["v"]),
    ("w", &["w"]),
    ("f", &["f_ext", "f"]),
    ("t", &["t_ext", "t"]),
];

/// The terminals of the bodies `bodies` over the FMI 3.0 variables `view` of `table`,
/// or None when no body has a frame variable.
pub fn write(
    table: &VariableTable,
    view: &Fmi3View,
    bodies: &[BodyVrs],
    collections: &[Collection],
) -> Option<String> {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    // the bodies, and the collections whose bodies' frames are collection arrays
    let mut owners: Vec<(String, String)> = bodies
        .iter()
        .map(|b| {
            let text = format!("body '{}' as a mechanical frame", b.name);
            (b.name.clone(), text)
        })
        .collect();
    owners.extend(collections.iter().map(|c| {
        let text = format!(
            "the bodies of collection '{}' as mechanical frames, a row each ({}.count rows)",
            c.name, c.name
        );
        (c.name.clone(), text)
    }));
    // Writing into a Vec cannot fail.
    let any = write_into(&mut w, table, view, &owners).expect("XML into memory");
    any.then(|| {
        let mut text = String::from_utf8(w.into_inner()).expect("XML is UTF-8");
        text.push('\n');
        text
    })
}

/// The terminals of `owners` (name, description head) that have frame variables.
fn write_into(
    w: &mut W,
    table: &VariableTable,
    view: &Fmi3View,
    owners: &[(String, String)],
) -> std::io::Result<bool> {
    let by_name: HashMap<&str, usize> = view
        .variables
        .iter()
        .enumerate()
        .map(|(i, v)| (&v.name[..], i))
        .collect();
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    start(w, "fmiTerminalsAndIcons", &[("fmiVersion", "3.0".into())])?;
    start(w, "Terminals", &[])?;
    let mut any = false;
    for (owner, what) in owners {
        // (member name, variable name) of each member the body has: one array, or
        // its elements where the layout keeps them scalars
        let mut members = vec![];
        for (member, candidates) in MEMBERS {
            let found = candidates.iter().find_map(|c| {
                let name = format!("{owner}.{c}");
                if by_name.contains_key(&name[..]) {
                    return Some(vec![(member.to_string(), name)]);
                }
                let elements: Vec<_> = (1..)
                    .map(|k| (format!("{member}[{k}]"), format!("{name}[{k}]")))
                    .take_while(|(_, n)| by_name.contains_key(&n[..]))
                    .collect();
                (!elements.is_empty()).then_some(elements)
            });
            members.extend(found.unwrap_or_default());
        }
        // a frame needs a way in and a way out
        let causality = |name: &str| {
            let v = &view.variables[by_name[name]];
            v.members.first().map(|&p| table.variables[p].causality)
        };
        let has = |c: Causality| members.iter().any(|(_, n)| causality(n) == Some(c));
        if !(has(Causality::Input) && has(Causality::Output)) {
            continue;
        }
        any = true;
        start(
            w,
            "Terminal",
            &[
                ("name", owner.clone()),
                ("matchingRule", "bus".into()),
                ("terminalKind", FRAME_KIND.into()),
                (
                    "description",
                    format!(
                        "{what}: r, q, v, w (pose and velocities, world) and f, t (force and torque about the body origin, world)"
                    ),
                ),
            ],
        )?;
        for (member, variable) in members {
            empty(
                w,
                "TerminalMemberVariable",
                &[
                    ("variableName", variable),
                    ("memberName", member),
                    ("variableKind", "signal".into()),
                ],
            )?;
        }
        end(w, "Terminal")?;
    }
    end(w, "Terminals")?;
    end(w, "fmiTerminalsAndIcons")?;
    Ok(any)
}
