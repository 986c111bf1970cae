//! Every relative link in README.md and docs/ points at a file that exists and, with a
//! `#anchor`, at a heading of that file (GitHub's anchor rule).

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The markdown files the check covers: README.md and docs/**.md.
fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let mut out = vec![root().join("README.md")];
    walk(&root().join("docs"), &mut out);
    out.sort();
    out
}

/// GitHub's anchor of a heading: lower case, punctuation dropped (but `-` and `_`),
/// spaces to hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The lines of a markdown text outside code fences.
fn prose(text: &str) -> Vec<&str> {
    let mut fenced = false;
    text.lines()
        .filter(|line| {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

/// The anchors of a markdown text (its headings).
fn anchors(text: &str) -> Vec<String> {
    prose(text)
        .into_iter()
        .filter(|line| line.starts_with('#'))
        .map(|line| slug(line.trim_start_matches('#')))
        .collect()
}

/// Link targets `](target)` of a markdown text.
fn links(text: &str) -> Vec<String> {
    let mut out = vec![];
    for line in prose(text) {
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(j) = after.find(')') else { break };
            out.push(after[..j].to_string());
            rest = &after[j..];
        }
    }
    out
}

#[test]
fn every_link_in_the_readme_and_docs_resolves() {
    let mut broken = vec![];
    let mut count = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for target in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            count += 1;
            let (file, anchor) = match target.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (target.as_str(), None),
            };
            let path = if file.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(file)
            };
            if !path.exists() {
                broken.push(format!(
                    "{}: {target}: no file {}",
                    page.display(),
                    path.display()
                ));
                continue;
            }
            if let Some(a) = anchor {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                if !anchors(&text).iter().any(|x| x == a) {
                    broken.push(format!(
                        "{}: {target}: no heading with anchor #{a}",
                        page.display()
                    ));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(
        count > 10,
        "only {count} links found: is the check reading the pages?"
    );
}

#[test]
fn the_anchor_rule_is_githubs() {
    assert_eq!(slug(" Adding a model"), "adding-a-model");
    assert_eq!(
        slug(" The FMU interface (contract)"),
        "the-fmu-interface-contract"
    );
    assert_eq!(
        slug(" SCM: choices where the paper is silent"),
        "scm-choices-where-the-paper-is-silent"
    );
    assert_eq!(links("see [a](b.md#c) and [d](e)"), vec!["b.md#c", "e"]);
}
