//! The FMI 3.0 view of the variable table: the same variables, with every run of
//! `name[1]`, `name[2]`, ... `name[n]` (a body's position, quaternion, wrench, a
//! cuboid's size) as one array variable `name` of dimension n, and value references
//! unique across types (FMI 3.0, section 2.4.7), `time` (the independent variable) at 0.
//! The packager writes the FMI 3.0 modelDescription.xml from it and the runtime maps
//! its `fmi3Get*`/`fmi3Set*` calls through it, so both read one layout.

use super::feedthrough::{Dependencies, Set};
use super::variables::{VarType, Variable, VariableTable};
use std::collections::{BTreeSet, HashMap, HashSet};

/// How an FMI 3.0 FMU lays out the table's vectors: as arrays (the default), or every
/// element a scalar of its own named as in FMI 2.0 (`ball.r[1]`), for importers that
/// read FMI 3.0 but no arrays (OMSimulator 3.0, docs/fmi3.md). An FMU of the scalar
/// layout carries [`Layout::RESOURCE`], so that its runtime lays the variables out
/// the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    #[default]
    Arrays,
    Scalars,
}

impl Layout {
    /// The file under `resources/` that says `scalars`; without it: arrays.
    pub const RESOURCE: &'static str = "fmi3_layout.txt";

    /// The layout of the FMU whose resources folder is `dir`.
    pub fn of_resources(dir: &std::path::Path) -> Result<Layout, String> {
        let path = dir.join(Self::RESOURCE);
        match std::fs::read_to_string(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Layout::Arrays),
            Err(e) => Err(format!("{}: {e}", path.display())),
            Ok(text) => match text.trim() {
                "arrays" => Ok(Layout::Arrays),
                "scalars" => Ok(Layout::Scalars),
                other => Err(format!(
                    "{}: '{other}' is not an FMI 3.0 layout (arrays or scalars)",
                    path.display()
                )),
            },
        }
    }

    /// `arrays` or `scalars`, as in [`Layout::RESOURCE`].
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::Arrays => "arrays",
            Layout::Scalars => "scalars",
        }
    }
}

/// One FMI 3.0 variable: a scalar of the table, or an array of consecutive ones.
#[derive(Debug, Clone, PartialEq)]
pub struct Fmi3Variable {
    /// FMI 3.0 value reference: its index in [`Fmi3View::variables`].
    pub vr: u32,
    /// `ball.r` for an array, the table's name for a scalar.
    pub name: String,
    /// The table's type (Real is Float64, Integer is Int32).
    pub ty: VarType,
    /// Positions in the table's `variables`, in element order (empty for `time`).
    pub members: Vec<usize>,
    /// The members' value references in the table (FMI 2.0's, within the type).
    pub refs: Vec<u32>,
    /// Written with a `<Dimension>` (an array, even of one element).
    pub array: bool,
    /// The scalar's description, or the array's ([`array_description`]).
    pub description: String,
}

/// The table's variables as FMI 3.0 variables: `variables[0]` is `time`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fmi3View {
    pub variables: Vec<Fmi3Variable>,
    /// Per table position: the FMI 3.0 variable it is part of.
    pub of_position: Vec<u32>,
}

/// The FMI 3.0 type of a table type (Real is Float64, Integer is Int32).
pub fn type_name(ty: VarType) -> &'static str {
    match ty {
        VarType::Real => "Float64",
        VarType::Integer => "Int32",
        VarType::Boolean => "Boolean",
        VarType::String => "String",
    }
}

/// `base` and k of a name `base[k]`.
fn element(name: &str) -> Option<(&str, usize)> {
    let open = name.strip_suffix(']')?.rfind('[')?;
    let k = name[open + 1..name.len() - 1].parse().ok()?;
    Some((&name[..open], k))
}

/// Whether `b` can share one array variable with `a` (all attributes but the name and
/// the start value alike).
fn alike(a: &Variable, b: &Variable) -> bool {
    a.ty == b.ty
        && a.causality == b.causality
        && a.variability == b.variability
        && a.initial == b.initial
        && a.unit == b.unit
        && a.bounds == b.bounds
        && a.start.is_some() == b.start.is_some()
}

/// One description for the elements' descriptions `texts` (element k's is
/// `texts[k - 1]`): the common one; without the elements' ", component k"; with
/// "1..n" for a trailing element number ("about body axis 1..3"); else all of them,
/// joined by " | ".
pub fn array_description(texts: &[&str]) -> String {
    let n = texts.len();
    if texts.iter().all(|t| *t == texts[0]) {
        return texts[0].to_string();
    }
    let stripped: Option<Vec<&str>> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| t.strip_suffix(&format!(", component {}", i + 1)))
        .collect();
    if let Some(s) = stripped.filter(|s| s.iter().all(|t| *t == s[0])) {
        return s[0].to_string();
    }
    let numbered: Option<Vec<&str>> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| t.strip_suffix(&(i + 1).to_string()))
        .collect();
    if let Some(s) = numbered.filter(|s| s.iter().all(|t| *t == s[0])) {
        return format!("{}1..{n}", s[0]);
    }
    // "bounds [x_min, x_max]: x_min", "...: x_max": what they share before the colon
    let heads: Option<Vec<&str>> = texts.iter().map(|t| t.rsplit_once(": ").map(|h| h.0)).collect();
    if let Some(h) = heads.filter(|h| h.iter().all(|t| *t == h[0])) {
        return h[0].to_string();
    }
    texts.join(" | ")
}

impl Fmi3View {
    /// The FMI 3.0 view of `table` with its vectors as arrays.
    pub fn of(table: &VariableTable) -> Fmi3View {
        Self::with_layout(table, Layout::Arrays)
    }

    /// The FMI 3.0 view of `table` in `layout`.
    pub fn with_layout(table: &VariableTable, layout: Layout) -> Fmi3View {
        let vars = &table.variables;
        let mut view = Fmi3View {
            variables: vec![Fmi3Variable {
                vr: 0,
                name: "time".into(),
                ty: VarType::Real,
                members: vec![],
                refs: vec![],
                array: false,
                description: "Simulation time".into(),
            }],
            of_position: vec![0; vars.len()],
        };
        // the vectors: every base name whose elements 1..n are all there, alike; in
        // the table they may interleave with others (Leite's control_u[k], control_h[k])
        let mut runs: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
        if layout == Layout::Arrays {
            for (p, v) in vars.iter().enumerate() {
                if let Some((base, k)) = element(&v.name) {
                    runs.entry(base).or_default().push((k, p));
                }
            }
        }
        let plain: HashSet<&str> = vars.iter().map(|v| &v.name[..]).collect();
        let arrays: HashMap<&str, Vec<usize>> = runs
            .into_iter()
            .filter_map(|(base, mut elements)| {
                elements.sort_unstable();
                let whole = elements.iter().enumerate().all(|(i, &(k, _))| k == i + 1);
                let first = &vars[elements[0].1];
                // a vector whose elements differ in an attribute (their bounds) stays
                // scalars named as in FMI 2.0, and so does one whose base name is taken
                let ok = whole
                    && elements.iter().all(|&(_, p)| alike(first, &vars[p]))
                    && !plain.contains(base);
                ok.then(|| (base, elements.into_iter().map(|(_, p)| p).collect()))
            })
            .collect();
        for (p, v) in vars.iter().enumerate() {
            let (name, members, array) = match element(&v.name) {
                Some((base, k)) if arrays.contains_key(base) => {
                    if k != 1 {
                        continue; // in the array made at its first element
                    }
                    (base.to_string(), arrays[base].clone(), true)
                }
                _ => (v.name.clone(), vec![p], false),
            };
            let vr = view.variables.len() as u32;
            for &m in &members {
                view.of_position[m] = vr;
            }
            let description = if array {
                let texts: Vec<&str> = members.iter().map(|&m| &vars[m].description[..]).collect();
                array_description(&texts)
            } else {
                v.description.clone()
            };
            view.variables.push(Fmi3Variable {
                vr,
                name,
                ty: v.ty,
                refs: members.iter().map(|&m| vars[m].vr).collect(),
                members,
                array,
                description,
            });
        }
        view
    }

    /// The variable of FMI 3.0 value reference `vr`, if it is one of type `ty`.
    pub fn get(&self, ty: VarType, vr: u32) -> Option<&Fmi3Variable> {
        self.variables
            .get(vr as usize)
            .filter(|v| v.ty == ty && (vr != 0 || ty == VarType::Real))
    }

    /// The table's `<ModelStructure>` dependencies by FMI 3.0 variable: an array's
    /// set is the union of its elements' (FMI 3.0 lists whole variables), keyed and
    /// listed by value reference. `None` where a set is "every known".
    pub fn dependencies(&self, deps: &Dependencies) -> Fmi3Dependencies {
        let lift = |map: &std::collections::BTreeMap<usize, Set>| {
            let mut out: std::collections::BTreeMap<u32, Option<BTreeSet<u32>>> =
                Default::default();
            for (&p, set) in map {
                let vr = self.of_position[p];
                let lifted = set
                    .listed()
                    .map(|l| l.iter().map(|&q| self.of_position[q]).collect::<BTreeSet<_>>());
                let entry = out.entry(vr).or_insert_with(|| Some(BTreeSet::new()));
                match (entry.as_mut(), lifted) {
                    (Some(e), Some(l)) => e.extend(l),
                    _ => *entry = None,
                }
            }
            out
        };
        Fmi3Dependencies {
            outputs: lift(&deps.outputs),
            initial: lift(&deps.initial),
        }
    }
}

/// `<ModelStructure>` in FMI 3.0 terms: per unknown (by value reference) the knowns it
/// depends on, or `None`: every known.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fmi3Dependencies {
    pub outputs: std::collections::BTreeMap<u32, Option<BTreeSet<u32>>>,
    pub initial: std::collections::BTreeMap<u32, Option<BTreeSet<u32>>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_names() {
        assert_eq!(element("ball.r[3]"), Some(("ball.r", 3)));
        assert_eq!(element("a[b][12]"), Some(("a[b]", 12)));
        assert_eq!(element("ball.r"), None);
        assert_eq!(element("x[]"), None);
        assert_eq!(element("x[-1]"), None);
    }

    #[test]
    fn array_descriptions() {
        assert_eq!(array_description(&["a", "a"]), "a");
        assert_eq!(
            array_description(&["force, component 1", "force, component 2"]),
            "force"
        );
        assert_eq!(
            array_description(&["about body axis 1", "about body axis 2", "about body axis 3"]),
            "about body axis 1..3"
        );
        assert_eq!(array_description(&["x_min", "x_max"]), "x_min | x_max");
        assert_eq!(array_description(&["b [lo, hi]: lo", "b [lo, hi]: hi"]), "b [lo, hi]");
    }
}
