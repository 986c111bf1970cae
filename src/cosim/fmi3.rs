//! The FMI 3.0 view of the variable table: the same variables, with every run of
//! `name[1]`, `name[2]`, ... `name[n]` (a body's position, quaternion, wrench, a
//! cuboid's size) as one array variable `name` of dimension n, and value references
//! unique across types (FMI 3.0, section 2.4.7), `time` (the independent variable) at 0.
//! The packager writes the FMI 3.0 modelDescription.xml from it and the runtime maps
//! its `fmi3Get*`/`fmi3Set*` calls through it, so both read one layout.

use super::feedthrough::{Dependencies, Set};
use super::variables::{VarType, Variable, VariableTable};
use std::collections::{BTreeSet, HashMap, HashSet};

/// How an FMI 3.0 FMU lays out the table's vectors: as arrays, each collection of
/// bodies (a scenario `group`) as one array per variable over its bodies (the
/// default); as arrays per body only (`Bodies`); or every element a scalar of its own
/// named as in FMI 2.0 (`ball.r[1]`), for importers that read FMI 3.0 but no arrays
/// (OMSimulator 3.0, docs/fmi3.md). An FMU of another layout than the default carries
/// [`Layout::RESOURCE`], so that its runtime lays the variables out the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    #[default]
    Arrays,
    Bodies,
    Scalars,
}

impl Layout {
    /// The file under `resources/` that names the layout; without it: arrays.
    pub const RESOURCE: &'static str = "fmi3_layout.txt";

    /// Every layout, the default first.
    pub const ALL: [Layout; 3] = [Layout::Arrays, Layout::Bodies, Layout::Scalars];

    /// The layout of the FMU whose resources folder is `dir`.
    pub fn of_resources(dir: &std::path::Path) -> Result<Layout, String> {
        let path = dir.join(Self::RESOURCE);
        match std::fs::read_to_string(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Layout::Arrays),
            Err(e) => Err(format!("{}: {e}", path.display())),
            Ok(text) => Self::parse(text.trim()).map_err(|e| format!("{}: {e}", path.display())),
        }
    }

    /// The layout named `name` ([`Layout::as_str`]).
    pub fn parse(name: &str) -> Result<Layout, String> {
        Self::ALL
            .into_iter()
            .find(|l| l.as_str() == name)
            .ok_or_else(|| format!("'{name}' is not an FMI 3.0 layout (arrays, bodies or scalars)"))
    }

    /// `arrays`, `bodies` or `scalars`, as in [`Layout::RESOURCE`].
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::Arrays => "arrays",
            Layout::Bodies => "bodies",
            Layout::Scalars => "scalars",
        }
    }
}

/// A collection of bodies: the bodies of a scenario `group`, in scenario order (the
/// rows of the collection's arrays).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collection {
    pub name: String,
    pub bodies: Vec<String>,
}

/// The collections of `scenario` (its bodies' `group`s), in order of first member.
pub fn collections(scenario: &crate::scenario::types::Scenario) -> Vec<Collection> {
    let mut out: Vec<Collection> = vec![];
    for b in &scenario.bodies {
        let Some(g) = &b.group else { continue };
        match out.iter_mut().find(|c| &c.name == g) {
            Some(c) => c.bodies.push(b.name.clone()),
            None => out.push(Collection {
                name: g.clone(),
                bodies: vec![b.name.clone()],
            }),
        }
    }
    out
}

/// One dimension of an array variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dimension {
    /// A fixed size (`<Dimension start="n"/>`): a vector's length.
    Fixed(usize),
    /// The size the structural parameter of this value reference holds
    /// (`<Dimension valueReference=".."/>`): a collection's number of bodies.
    Count(u32),
}

/// One FMI 3.0 variable: a scalar of the table, an array of its elements, or a
/// collection's size.
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
    /// Its dimensions, outermost first (row-major, as FMI 3.0 serializes arrays):
    /// none for a scalar, `[Fixed(3)]` for a body's position, `[Count(c), Fixed(3)]`
    /// for a collection's positions (a row per body).
    pub dims: Vec<Dimension>,
    /// `Some(n)` for a collection's size: a structural parameter (UInt64, fixed) of
    /// value n that no table variable backs (its `members` are empty, `ty` unused).
    pub count: Option<u64>,
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

impl Fmi3Variable {
    /// Its FMI 3.0 type: UInt64 for a collection's size, else [`type_name`].
    pub fn type_name(&self) -> &'static str {
        if self.count.is_some() {
            "UInt64"
        } else {
            type_name(self.ty)
        }
    }

    /// Written with `<Dimension>`s (an array, even of one element).
    pub fn is_array(&self) -> bool {
        !self.dims.is_empty()
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
    let heads: Option<Vec<&str>> = texts
        .iter()
        .map(|t| t.rsplit_once(": ").map(|h| h.0))
        .collect();
    if let Some(h) = heads.filter(|h| h.iter().all(|t| *t == h[0])) {
        return h[0].to_string();
    }
    texts.join(" | ")
}

/// A variable of the view before value references are given: a table scalar, a
/// body's vector, or a collection's array or size.
struct Item {
    name: String,
    members: Vec<usize>,
    dims: Vec<Dimension>,
    /// For a collection's array or size: the collection's index.
    collection: Option<usize>,
    count: Option<u64>,
    description: String,
}

/// The table's variables as items: every whole, alike run `name[1..n]` one vector
/// (unless `layout` is scalars), else one item per variable; in table order.
fn vectors(vars: &[Variable], layout: Layout) -> Vec<Item> {
    // the vectors: every base name whose elements 1..n are all there, alike; in the
    // table they may interleave with others (Leite's control_u[k], control_h[k])
    let mut runs: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    if layout != Layout::Scalars {
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
    let mut items = vec![];
    for (p, v) in vars.iter().enumerate() {
        let item = match element(&v.name) {
            Some((base, k)) if arrays.contains_key(base) => {
                if k != 1 {
                    continue; // in the array made at its first element
                }
                let members = arrays[base].clone();
                let texts: Vec<&str> = members.iter().map(|&m| &vars[m].description[..]).collect();
                Item {
                    name: base.to_string(),
                    dims: vec![Dimension::Fixed(members.len())],
                    description: array_description(&texts),
                    members,
                    collection: None,
                    count: None,
                }
            }
            _ => Item {
                name: v.name.clone(),
                members: vec![p],
                dims: vec![],
                collection: None,
                count: None,
                description: v.description.clone(),
            },
        };
        items.push(item);
    }
    items
}

/// `items` with the variables every body of a collection has alike (same shape, same
/// attributes, same description) as one array `<collection>.<suffix>` of a row per
/// body, at the place of its first body's, after the collection's size
/// `<collection>.count`. What a collection's bodies do not share stays per body; a
/// collection whose size or array names are taken stays per body whole.
fn collect(vars: &[Variable], items: Vec<Item>, collections: &[Collection]) -> Vec<Item> {
    let index: HashMap<&str, usize> = items
        .iter()
        .enumerate()
        .map(|(i, it)| (&it.name[..], i))
        .collect();
    let taken = |name: &str| index.contains_key(name);
    // per item: replaced by the collection item (Some) or gone into one (None); the
    // collections' sizes, by the item they go before
    let mut replace: HashMap<usize, Option<Item>> = HashMap::new();
    let mut before: HashMap<usize, Item> = HashMap::new();
    for (c, coll) in collections.iter().enumerate() {
        let Some(first) = coll.bodies.first() else {
            continue;
        };
        let count_name = format!("{}.count", coll.name);
        if taken(&count_name) {
            continue;
        }
        let prefix = format!("{first}.");
        let mut made: Vec<(usize, Item)> = vec![];
        for (i, it) in items.iter().enumerate() {
            let Some(suffix) = it.name.strip_prefix(&prefix) else {
                continue;
            };
            let name = format!("{}.{suffix}", coll.name);
            if taken(&name) || suffix == "count" {
                continue;
            }
            let lead = &vars[it.members[0]];
            let rows: Option<Vec<usize>> = coll
                .bodies
                .iter()
                .map(|b| {
                    let j = *index.get(&format!("{b}.{suffix}")[..])?;
                    let other = &items[j];
                    let same = other.dims == it.dims
                        && other.description == it.description
                        && other.members.iter().all(|&p| alike(lead, &vars[p]));
                    same.then_some(j)
                })
                .collect();
            let Some(rows) = rows else { continue };
            let mut dims = vec![Dimension::Count(0)]; // the size's vr, given later
            dims.extend(&it.dims);
            made.push((
                i,
                Item {
                    name,
                    members: rows
                        .iter()
                        .flat_map(|&j| items[j].members.iter().copied())
                        .collect(),
                    dims,
                    collection: Some(c),
                    count: None,
                    description: format!(
                        "{}; a row per body of collection {}",
                        it.description, coll.name
                    ),
                },
            ));
            for &j in &rows[1..] {
                replace.insert(j, None);
            }
        }
        let bodies = coll.bodies.join(", ");
        for (k, (i, item)) in made.into_iter().enumerate() {
            let size = Item {
                name: count_name.clone(),
                members: vec![],
                dims: vec![],
                collection: Some(c),
                count: Some(coll.bodies.len() as u64),
                description: format!(
                    "number of bodies in collection {}, the rows of its arrays in this order: {bodies}",
                    coll.name
                ),
            };
            // the size goes before the collection's first array
            replace.insert(i, Some(item));
            if k == 0 {
                before.insert(i, size);
            }
        }
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, it) in items.into_iter().enumerate() {
        out.extend(before.remove(&i));
        match replace.remove(&i) {
            None => out.push(it),
            Some(Some(item)) => out.push(item),
            Some(None) => {}
        }
    }
    out
}

impl Fmi3View {
    /// The FMI 3.0 view of `table` with its vectors as arrays (no collections).
    pub fn of(table: &VariableTable) -> Fmi3View {
        Self::with_layout(table, Layout::Bodies, &[])
    }

    /// The FMI 3.0 view of `table` in `layout`, with the bodies of `collections` as
    /// collection arrays where the layout is [`Layout::Arrays`].
    pub fn with_layout(
        table: &VariableTable,
        layout: Layout,
        collections: &[Collection],
    ) -> Fmi3View {
        let vars = &table.variables;
        let mut items = vectors(vars, layout);
        if layout == Layout::Arrays {
            items = collect(vars, items, collections);
        }
        let mut view = Fmi3View {
            variables: vec![Fmi3Variable {
                vr: 0,
                name: "time".into(),
                ty: VarType::Real,
                members: vec![],
                refs: vec![],
                dims: vec![],
                count: None,
                description: "Simulation time".into(),
            }],
            of_position: vec![0; vars.len()],
        };
        let mut size_vr: HashMap<usize, u32> = HashMap::new();
        for it in items {
            let vr = view.variables.len() as u32;
            for &m in &it.members {
                view.of_position[m] = vr;
            }
            if it.count.is_some() {
                size_vr.insert(it.collection.unwrap_or(usize::MAX), vr);
            }
            let dims = it
                .dims
                .iter()
                .map(|d| match (d, it.collection) {
                    (Dimension::Count(_), Some(c)) => Dimension::Count(size_vr[&c]),
                    _ => *d,
                })
                .collect();
            view.variables.push(Fmi3Variable {
                vr,
                name: it.name,
                ty: it.members.first().map_or(VarType::Integer, |&m| vars[m].ty),
                refs: it.members.iter().map(|&m| vars[m].vr).collect(),
                members: it.members,
                dims,
                count: it.count,
                description: it.description,
            });
        }
        view
    }

    /// The variable of FMI 3.0 value reference `vr`, if it is one of type `ty`.
    pub fn get(&self, ty: VarType, vr: u32) -> Option<&Fmi3Variable> {
        self.variables
            .get(vr as usize)
            .filter(|v| v.ty == ty && v.count.is_none() && (vr != 0 || ty == VarType::Real))
    }

    /// The collection size of value reference `vr`, if it is one.
    pub fn count(&self, vr: u32) -> Option<u64> {
        self.variables.get(vr as usize).and_then(|v| v.count)
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
                let lifted = set.listed().map(|l| {
                    l.iter()
                        .map(|&q| self.of_position[q])
                        .collect::<BTreeSet<_>>()
                });
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

    /// A collection shares what all its bodies have alike; the rest stays per body;
    /// a collection whose names are taken stays per body whole.
    #[test]
    fn collections_share_what_is_alike() {
        use crate::cosim::variables::Variability;
        let mut t = VariableTable::default();
        for b in ["a", "b", "c"] {
            for k in 1..=3 {
                t.real_output(
                    format!("{b}.r[{k}]"),
                    "m",
                    format!("position, component {k}"),
                );
            }
            let mass = if b == "c" { "mass of c" } else { "mass" };
            t.real_parameter(
                format!("{b}.mass"),
                Variability::Fixed,
                "kg",
                1.0,
                Default::default(),
                mass,
            );
        }
        t.real_output("a.extra", "m", "only a has it");
        let group = |name: &str, bodies: &[&str]| Collection {
            name: name.into(),
            bodies: bodies.iter().map(|b| b.to_string()).collect(),
        };
        let v = Fmi3View::with_layout(&t, Layout::Arrays, &[group("g", &["a", "b", "c"])]);
        let names: Vec<&str> = v.variables.iter().map(|v| &v.name[..]).collect();
        // c's mass is described otherwise: every mass stays per body
        assert_eq!(
            names,
            ["time", "g.count", "g.r", "a.mass", "b.mass", "c.mass", "a.extra"]
        );
        assert_eq!(v.variables[1].count, Some(3));
        assert_eq!(
            v.variables[2].dims,
            [Dimension::Count(1), Dimension::Fixed(3)]
        );
        assert_eq!(v.variables[2].members.len(), 9);
        assert_eq!(t.variables[v.variables[2].members[3]].name, "b.r[1]");
        // the name g.count taken: no collection arrays
        t.real_output("g.count", "1", "taken");
        let v = Fmi3View::with_layout(&t, Layout::Arrays, &[group("g", &["a", "b"])]);
        assert!(v
            .variables
            .iter()
            .all(|v| v.count.is_none() && v.dims.len() <= 1));
        // per-body layout: none either
        let v = Fmi3View::with_layout(&t, Layout::Bodies, &[group("g", &["a", "b"])]);
        assert!(v.variables.iter().all(|v| v.count.is_none()));
    }

    #[test]
    fn layouts_by_name() {
        for l in Layout::ALL {
            assert_eq!(Layout::parse(l.as_str()), Ok(l));
        }
        assert!(Layout::parse("rows")
            .unwrap_err()
            .contains("arrays, bodies or scalars"));
    }

    #[test]
    fn array_descriptions() {
        assert_eq!(array_description(&["a", "a"]), "a");
        assert_eq!(
            array_description(&["force, component 1", "force, component 2"]),
            "force"
        );
        assert_eq!(
            array_description(&[
                "about body axis 1",
                "about body axis 2",
                "about body axis 3"
            ]),
            "about body axis 1..3"
        );
        assert_eq!(array_description(&["x_min", "x_max"]), "x_min | x_max");
        assert_eq!(
            array_description(&["b [lo, hi]: lo", "b [lo, hi]: hi"]),
            "b [lo, hi]"
        );
    }
}
