//! Issue 53: the import graph of `src/` (every path from one module of the crate to
//! another: `use crate::..`, `use super::..`, `crate::a::b::f(..)` in code, a module's
//! own children named in its code; comments and `#[cfg(test)]` modules left out) runs
//! one way between folders: the registry above the models, the models above the
//! interface (`cosim/`), the scenario's types and checker and the shared geometry
//! below both; and one way between the files of every folder. No import circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};


fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `models/scm/deform.rs` -> `models::scm::deform`; `mod.rs` names its folder;
/// `lib.rs` and `main.rs` are the crate root "".
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
        parts.clear();
    }
    parts.join("::")
}

/// The code of a file without comments and without its test module.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod ") {
        Some(k) => &text[..k],
        None => text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(k) => &l[..k],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The module paths `text` names after each `crate::` and `super::` (with the items
/// of a `::{..}` group), as full paths from the crate root.
fn paths(text: &str, module: &str) -> Vec<Vec<String>> {
    let mut out = vec![];
    let here: Vec<String> = module
        .split("::")
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    for (start, base) in [("crate::", 0usize), ("super::", 1)] {
        let mut from = 0;
        while let Some(k) = text[from..].find(start) {
            let at = from + k;
            from = at + start.len();
            // `super::super::` counts twice; skip the inner occurrences
            if base == 1 && text[..at].ends_with("super::") {
                continue;
            }
            let mut prefix: Vec<String> = if base == 0 {
                vec![]
            } else {
                // `super`: the parent module (of a file module its folder's; of a
                // mod.rs, the folder's parent)
                here[..here.len().saturating_sub(1)].to_vec()
            };
            let mut rest = &text[at + start.len()..];
            while let Some(r) = rest.strip_prefix("super::") {
                prefix.pop();
                rest = r;
            }
            let mut path = prefix;
            loop {
                let id = ident_at(rest);
                if id.is_empty() {
                    break;
                }
                path.push(id.to_string());
                rest = &rest[id.len()..];
                match rest.strip_prefix("::") {
                    Some(r) if r.starts_with('{') => {
                        let group = &r[1..r.find('}').unwrap_or(r.len())];
                        for item in group.split(',') {
                            let id = ident_at(item.trim());
                            if !id.is_empty() {
                                let mut p = path.clone();
                                p.push(id.to_string());
                                out.push(p);
                            }
                        }
                        break;
                    }
                    Some(r) => rest = r,
                    None => break,
                }
            }
            out.push(path);
        }
    }
    out
}

/// Every module and the modules it imports.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![];
    rust_files(&src, &mut files);
    let modules: BTreeMap<String, PathBuf> =
        files.iter().map(|f| (module_of(&src, f), f.clone())).collect();
    // the longest prefix of `path` that is a module
    let resolve = |path: &[String]| -> Option<String> {
        (1..=path.len())
            .rev()
            .map(|k| path[..k].join("::"))
            .find(|m| modules.contains_key(m))
    };
    let mut g = BTreeMap::new();
    for (m, f) in &modules {
        let text = code(&std::fs::read_to_string(f).unwrap());
        let mut deps = BTreeSet::new();
        let found = paths(&text, m);
        for p in &found {
            if let Some(d) = resolve(p) {
                deps.insert(d);
            }
        }
        // modules imported by name (`use crate::models::{bbcc, scm}`), then used by
        // it (`bbcc::adapter::declare`)
        for p in &found {
            let full = p.join("::");
            if !modules.contains_key(&full) {
                continue;
            }
            let alias = p.last().unwrap();
            let mut from = 0;
            while let Some(k) = text[from..].find(&format!("{alias}::")) {
                let at = from + k;
                from = at + alias.len() + 2;
                let before = text[..at].chars().next_back();
                if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                let mut q = p.clone();
                let mut rest = &text[from..];
                loop {
                    let id = ident_at(rest);
                    if id.is_empty() {
                        break;
                    }
                    q.push(id.to_string());
                    rest = &rest[id.len()..];
                    match rest.strip_prefix("::") {
                        Some(r) => rest = r,
                        None => break,
                    }
                }
                if let Some(d) = resolve(&q) {
                    deps.insert(d);
                }
            }
        }
        // a module's children named in its code (`use child::..`, `child::f(..)`)
        for child in modules.keys() {
            let name = match m.is_empty() {
                true => child.as_str(),
                false => match child.strip_prefix(&format!("{m}::")) {
                    Some(rest) => rest,
                    None => continue,
                },
            };
            if !name.is_empty() && !name.contains("::") && text.contains(&format!("{name}::")) {
                deps.insert(child.clone());
            }
        }
        // a module is not an import of itself, nor its own ancestors (the path to it)
        deps.retain(|d| d != m && !m.starts_with(&format!("{d}::")));
        g.insert(m.clone(), deps);
    }
    g
}

/// The strongly connected components of more than one module (Tarjan).
fn circles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        let g = t.g;
        for w in g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !g.contains_key(w) {
                continue;
            }
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut c = vec![];
            loop {
                let w = t.stack.pop().unwrap();
                t.on.remove(w);
                c.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if c.len() > 1 {
                c.sort();
                t.out.push(c);
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: vec![],
        on: BTreeSet::new(),
        out: vec![],
    };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn the_import_graph_has_no_circle_and_its_arrows_run_one_way() {
    let g = graph();
    // the graph sees what it should: a known import each way
    assert!(g["models::scm::deform"].contains("models::scm::contact"));
    assert!(g["models::scm::contact"].contains("models::scm::update_state"));
    assert!(!g["models::scm::contact"].contains("models::scm::deform"));
    assert!(g["cosim::world"].contains("cosim::model"));
    assert!(!g["cosim::model"].contains("cosim::world"));
    // inside each folder (a model's, cosim/, scenario/, ...): none
    let folder = |m: &str| -> String {
        let parts: Vec<&str> = m.split("::").collect();
        match parts.as_slice() {
            ["models", model, ..] => format!("models::{model}"),
            [first, ..] => first.to_string(),
            [] => String::new(),
        }
    };
    let folders: BTreeSet<String> = g.keys().map(|m| folder(m)).collect();
    for f in &folders {
        let inside: BTreeMap<String, BTreeSet<String>> = g
            .iter()
            .filter(|(m, _)| folder(m) == *f)
            .map(|(m, d)| (m.clone(), d.iter().filter(|x| folder(x) == *f).cloned().collect()))
            .collect();
        let c = circles(&inside);
        assert!(c.is_empty(), "import circles inside {f}: {c:?}");
    }
    // and across folders: none
    let found = circles(&g);
    assert!(found.is_empty(), "import circles: {found:?}");
    // the arrows of issue 53, item 1: the interface imports no model and not the
    // list of them; a body's geometry imports neither; the scenario's types and
    // checker (below the models) import no interface, adapter or registry
    let imports = |from: &str, to: &str| -> Vec<(String, String)> {
        g.iter()
            .filter(|(m, _)| *m == from || m.starts_with(&format!("{from}::")))
            .flat_map(|(m, d)| {
                d.iter()
                    .filter(|x| *x == to || x.starts_with(&format!("{to}::")))
                    .map(move |x| (m.clone(), x.clone()))
            })
            .collect()
    };
    for (from, to) in [
        ("cosim", "models"),
        ("cosim", "registry"),
        ("geometry", "cosim"),
        ("geometry", "models"),
        ("scenario::types", "cosim"),
        ("scenario::types", "registry"),
        ("scenario::checker", "cosim"),
        ("scenario::checker", "models"),
        ("scenario::checker", "registry"),
    ] {
        let found = imports(from, to);
        assert!(found.is_empty(), "{from} imports {to}: {found:?}");
    }
    // inside a model's folder, only its adapter sees the interface (`wheel/element.rs`
    // is the adapter every wheel-soil model shares): the physics knows no FMI
    for (m, d) in &g {
        let adapter = m.ends_with("::adapter") || m == "models::wheel::element";
        if m.starts_with("models::") && !adapter {
            let seen: Vec<&String> = d.iter().filter(|x| x.starts_with("cosim")).collect();
            assert!(seen.is_empty(), "{m} is not an adapter but imports {seen:?}");
        }
    }
    // and no module below the registry imports the scenario's facade (parse and
    // validate, which call the registry)
    for (m, d) in &g {
        let below = ["cosim", "models", "geometry", "assets"]
            .iter()
            .any(|f| m == f || m.starts_with(&format!("{f}::")));
        assert!(
            !below || !d.contains("scenario"),
            "{m} imports the scenario's facade (`crate::scenario::X`); import `crate::scenario::types` or `::checker`"
        );
    }
}
