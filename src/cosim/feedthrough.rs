//! Which knowns each output reads: the `dependencies` of modelDescription.xml's
//! `<ModelStructure>` (FMI 2.0 section 2.2.8), from the models' own declarations.
//!
//! Two instants matter to a master:
//! - **a communication point** (`<Outputs>`): an output changes without a step only
//!   when an input it reads changes; parameters and states are not knowns here.
//! - **initialization mode** (`<InitialUnknowns>`): outputs are computed from the
//!   initial state, which follows the parameters; the knowns are the inputs and every
//!   variable with `initial="exact"` (our parameters).
//!
//! Each model says what its outputs read through [`super::model::Model::feedthrough`]:
//! groups of targets (its own outputs, and the contact wrench `<b>.f`, `<b>.t`,
//! `<b>.contact` of the bodies it loads) and what they read (the motion of bodies, the
//! loads other models put on a body, its own inputs and parameters). The world adds
//! what it writes itself (a free body's pose and velocity outputs). A body's motion is
//! then resolved to knowns: a kinematic body's are its inputs, a free body's are its
//! state (no known at a communication point; its initial-condition parameters at
//! initialization), a driven body's those of the model that drives it.
//!
//! The declarations are structural (true for any parameter values: "can touch", not
//! "touches now"), so an output may list a known that does not change it at the
//! values it was packaged with; never the reverse. `ci/feedthrough_check.py` checks
//! every example FMU by perturbing each input (and parameters in initialization mode)
//! and reading the outputs back without a step.

use super::references::{Layout, MotionVrs};
use super::variables::{Causality, VarType, VariableTable};
use std::collections::BTreeSet;
use std::ops::Range;

/// A variable by type and value reference.
pub type VarRef = (VarType, usize);

/// One group of a model's declaration: these targets read these knowns.
#[derive(Debug, Clone, Default)]
pub struct Group {
    /// The model's own outputs in the group.
    pub outputs: Vec<VarRef>,
    /// Bodies whose contact wrench (`<b>.f`, `<b>.t`, `<b>.contact`) the group adds to.
    pub wrench_of: Vec<usize>,
    /// Bodies whose motion (pose, velocities) the targets read.
    pub bodies: Vec<usize>,
    /// Bodies whose loads (what other models put on them) the targets read.
    pub loads_of: Vec<usize>,
    /// The model's inputs and parameters the targets read directly.
    pub vars: Vec<VarRef>,
}

/// What a model fills in ([`super::model::Model::feedthrough`]).
pub struct Feedthrough<'a> {
    table: &'a VariableTable,
    /// The model's own variables (positions in the table).
    own: Range<usize>,
    bodies: usize,
    groups: Vec<Group>,
    /// Bodies the model drives (their motion is written by it): the knowns that motion
    /// reads.
    drives: Vec<(usize, Vec<VarRef>)>,
}

impl Feedthrough<'_> {
    /// Number of bodies of the world.
    pub fn body_count(&self) -> usize {
        self.bodies
    }

    /// The model's own variables of causality `c`.
    pub fn own(&self, c: Causality) -> Vec<VarRef> {
        self.table.variables[self.own.clone()]
            .iter()
            .filter(|v| v.causality == c)
            .map(|v| (v.ty, v.vr as usize))
            .collect()
    }

    /// The model's own inputs and parameters.
    pub fn own_knowns(&self) -> Vec<VarRef> {
        let mut k = self.own(Causality::Input);
        k.extend(self.own(Causality::Parameter));
        k
    }

    /// Adds a group.
    pub fn group(&mut self, g: Group) {
        self.groups.push(g);
    }

    /// The model writes the motion of body `b` from `reads`.
    pub fn drives(&mut self, b: usize, reads: Vec<VarRef>) {
        self.drives.push((b, reads));
    }

    /// The coarse declaration that is always true: every output of the model and the
    /// wrench of every body read the motion and loads of every body and all of the
    /// model's inputs and parameters.
    pub fn everything(&mut self) {
        let all: Vec<usize> = (0..self.bodies).collect();
        let g = Group {
            outputs: self.own(Causality::Output),
            wrench_of: all.clone(),
            bodies: all.clone(),
            loads_of: all,
            vars: self.own_knowns(),
        };
        self.groups.push(g);
    }
}

/// The resolved dependencies, by variable position (0-based; the XML's index - 1).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dependencies {
    /// Per output position: the input positions it reads at a communication point.
    pub outputs: std::collections::BTreeMap<usize, Set>,
    /// Per initial unknown: the inputs and parameters it reads in initialization mode.
    pub initial: std::collections::BTreeMap<usize, Set>,
}

impl Dependencies {
    /// Leaves out the longest `<InitialUnknowns>` lists until the rest fits
    /// [`INITIAL_BUDGET`] for an FMU of `variables` variables and `inputs` inputs; only
    /// lists longer than `inputs` go. Empty lists ("reads no known") cost nothing and
    /// stay.
    pub fn fit_initial_budget(&mut self, variables: usize, inputs: usize) {
        let cap = INITIAL_BUDGET / variables.max(1);
        let len = |s: &Set| s.listed().map_or(0, BTreeSet::len);
        let mut total: usize = self.initial.values().map(len).sum();
        let mut lengths: Vec<usize> = self
            .initial
            .values()
            .map(len)
            .filter(|&l| l > inputs)
            .collect();
        lengths.sort_unstable();
        lengths.dedup();
        while total > cap {
            let Some(longest) = lengths.pop() else { break };
            for s in self.initial.values_mut().filter(|s| len(s) == longest) {
                total -= longest;
                *s = Set::ALL;
            }
        }
    }
}

/// Longest list an `<Unknown>` gets; past it the attribute is left out, which FMI 2.0
/// reads as "depends on every known" (true, and what a list that long would say).
pub const MAX_LISTED: usize = 4096;

/// Most entries all `<InitialUnknowns>` lists may have together, times the FMU's
/// variable count. An importer that builds a dependency graph pays for each entry:
/// OMSimulator about 0.15-0.2 µs per entry and variable (a linear search per entry),
/// so the budget is some 4-5 s of its loading. Past it the longest lists are left out
/// ("depends on every known", which is true), all lists of one length together, until
/// the rest fits; the short ones (a free body's state reads its own initial
/// conditions) go last. A list no longer than the FMU's input count stays: a list left
/// out reads as one dependency per input (OMSimulator makes those edges, and a master
/// sees that many more), so leaving it out would cost more than it saves. Measured
/// 2026-12-04: the 200-rock field's 113,776 entries over 4,269 variables took
/// OMSimulator 74-102 s to load, its remaining 25 entries 7 s.
pub const INITIAL_BUDGET: usize = 25_000_000;

/// A set of variable positions, or "too many to list" (`None`).
#[derive(Debug, Clone, PartialEq)]
pub struct Set(Option<BTreeSet<usize>>);

impl Default for Set {
    fn default() -> Self {
        Set(Some(BTreeSet::new()))
    }
}

impl Set {
    /// Too many to list.
    pub const ALL: Set = Set(None);

    /// The positions, or None when there are too many to list.
    pub fn listed(&self) -> Option<&BTreeSet<usize>> {
        self.0.as_ref()
    }

    fn insert(&mut self, p: usize) {
        if let Some(s) = &mut self.0 {
            s.insert(p);
            if s.len() > MAX_LISTED {
                self.0 = None;
            }
        }
    }

    fn extend<'a>(&mut self, it: impl IntoIterator<Item = &'a usize>) -> bool {
        let before = self.0.as_ref().map(|s| s.len());
        for &p in it {
            if self.0.is_none() {
                break;
            }
            self.insert(p);
        }
        before != self.0.as_ref().map(|s| s.len())
    }

    fn add(&mut self, o: &Set) -> bool {
        match &o.0 {
            None => {
                let changed = self.0.is_some();
                self.0 = None;
                changed
            }
            Some(s) => self.extend(s),
        }
    }
}

/// Knowns at the two instants.
#[derive(Debug, Clone, Default, PartialEq)]
struct Knowns {
    /// Inputs read at a communication point.
    step: Set,
    /// Inputs and parameters read in initialization mode.
    init: Set,
}

impl Knowns {
    fn add(&mut self, o: &Knowns) -> bool {
        let a = self.step.add(&o.step);
        let b = self.init.add(&o.init);
        a || b
    }
}

/// Resolves the models' declarations and the world's own outputs. `declare(k, f)` has
/// the world's `k`-th model fill in `f` (its [`super::model::Model::feedthrough`]), for
/// each model of `layout.model_vars`.
pub fn resolve(
    table: &VariableTable,
    layout: &Layout,
    mut declare: impl FnMut(usize, &mut Feedthrough),
) -> Dependencies {
    let pos = |(ty, vr): VarRef| table.position(ty, vr);
    let is = |p: usize, c: Causality| table.variables[p].causality == c;
    let n = layout.bodies.len();

    // Parameters that belong to no model: the world's (model step, gravity, terrain)
    // and the bodies'. A body's own variables are those named `<body>.`.
    let first_model = layout.model_vars.iter().map(|r| r.start).min().unwrap_or(table.variables.len());
    let mut owner: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (b, body) in layout.bodies.iter().enumerate() {
        owner.insert(body.name.as_str(), b);
    }
    let mut body_params: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    let mut owned = vec![false; table.variables.len()];
    let mut world_params = BTreeSet::new();
    for (p, v) in table.variables.iter().enumerate() {
        if v.causality != Causality::Parameter {
            continue;
        }
        match v.name.split_once('.').and_then(|(head, _)| owner.get(head)) {
            Some(&b) => {
                body_params[b].insert(p);
                owned[p] = true;
            }
            None if p < first_model => {
                world_params.insert(p);
            }
            None => {}
        }
    }

    // Each model's declaration.
    let mut decls = vec![];
    for (k, range) in layout.model_vars.iter().enumerate() {
        let mut f = Feedthrough {
            table,
            own: range.clone(),
            bodies: n,
            groups: vec![],
            drives: vec![],
        };
        declare(k, &mut f);
        // Parameters of the model that belong to no body (its constants) are read
        // wherever the model computes anything (a superset: simpler than tracking each).
        let globals: BTreeSet<usize> = range
            .clone()
            .filter(|&p| is(p, Causality::Parameter))
            .filter(|&p| !owned[p])
            .collect();
        decls.push((f.groups, f.drives, globals));
    }

    let known_of = |vars: &[VarRef]| {
        let mut k = Knowns::default();
        for &v in vars {
            if let Some(p) = pos(v) {
                if is(p, Causality::Input) {
                    k.step.insert(p);
                    k.init.insert(p);
                } else if is(p, Causality::Parameter) {
                    k.init.insert(p);
                }
            }
        }
        k
    };

    // A body's motion as knowns.
    let mut drivers: Vec<Option<Knowns>> = vec![None; n];
    for (_, drives, globals) in &decls {
        for (b, reads) in drives {
            let mut k = known_of(reads);
            k.init.extend(globals);
            drivers[*b].get_or_insert_with(Knowns::default).add(&k);
        }
    }
    let motion: Vec<Knowns> = layout
        .bodies
        .iter()
        .enumerate()
        .map(|(b, body)| {
            let mut k = Knowns::default();
            k.init.extend(&body_params[b]);
            match &body.motion {
                MotionVrs::Kinematic { r, q, v, w, .. } => {
                    let ins: Vec<VarRef> = r
                        .iter()
                        .chain(q)
                        .chain(v)
                        .chain(w)
                        .map(|&vr| (VarType::Real, vr))
                        .collect();
                    k.add(&known_of(&ins));
                }
                MotionVrs::Free { .. } | MotionVrs::Fixed { .. } => {}
                MotionVrs::Driven => match &drivers[b] {
                    Some(d) => {
                        k.add(d);
                    }
                    // No model said it drives the body: anything may.
                    None => {
                        k.step = Set::ALL;
                        k.init = Set::ALL;
                    }
                },
            }
            k.init.extend(&world_params);
            k
        })
        .collect();

    // Groups to knowns; a group reading loads takes the wrench of those bodies, which
    // other groups make: iterate until nothing changes (a few rounds at most).
    let groups: Vec<(&Group, &BTreeSet<usize>)> = decls
        .iter()
        .flat_map(|(gs, _, globals)| gs.iter().map(move |g| (g, globals)))
        .collect();
    let base: Vec<Knowns> = groups
        .iter()
        .map(|(g, globals)| {
            let mut k = known_of(&g.vars);
            k.init.extend(*globals);
            k.init.extend(&world_params);
            for &b in &g.bodies {
                k.add(&motion[b]);
            }
            k
        })
        .collect();
    let mut reads = base.clone();
    let mut wrench: Vec<Knowns> = vec![Knowns::default(); n];
    loop {
        let mut changed = false;
        for (i, (g, _)) in groups.iter().enumerate() {
            for &b in &g.wrench_of {
                changed |= wrench[b].add(&reads[i]);
            }
        }
        for (i, (g, _)) in groups.iter().enumerate() {
            for &b in &g.loads_of {
                let w = wrench[b].clone();
                changed |= reads[i].add(&w);
            }
        }
        if !changed {
            break;
        }
    }

    // Targets.
    let mut by_target: std::collections::BTreeMap<usize, Knowns> = Default::default();
    let mut put = |p: Option<usize>, k: &Knowns| {
        if let Some(p) = p {
            by_target.entry(p).or_default().add(k);
        }
    };
    for (i, (g, _)) in groups.iter().enumerate() {
        for &o in &g.outputs {
            put(pos(o), &reads[i]);
        }
    }
    for (b, body) in layout.bodies.iter().enumerate() {
        if let Some(o) = &body.outputs {
            let k = &wrench[b];
            for &vr in o.f.iter().chain(&o.t) {
                put(pos((VarType::Real, vr)), k);
            }
            put(pos((VarType::Boolean, o.contact)), k);
        }
        if let MotionVrs::Free { r, q, v, w, r0, q0, v0, w0, joint, .. } = &body.motion {
            // The state: no input at a communication point. In initialization mode each
            // component is its initial condition (`<b>.r[k]` = `<b>.r0[k]`), the
            // orientation the normalized `<b>.q0` (World::apply_initial_conditions):
            // one known per output, four for the quaternion, where "the body's
            // parameters" would list some thirty per output (an importer building a
            // dependency graph pays for each: OMSimulator on the 500-rock pile).
            let initial = |from: &[usize]| Knowns {
                step: Set::default(),
                init: Set(Some(from.iter().filter_map(|&vr| pos((VarType::Real, vr))).collect())),
            };
            for (out, from) in [(&r[..], &r0[..]), (&v[..], &v0[..]), (&w[..], &w0[..])] {
                for (&o, &i) in out.iter().zip(from) {
                    put(pos((VarType::Real, o)), &initial(&[i]));
                }
            }
            for &o in q {
                put(pos((VarType::Real, o)), &initial(q0));
            }
            // The joint's mean force over the last step: written by fmi2DoStep only
            // (zero before the first step).
            if let Some(j) = joint {
                for (_, out) in j.vx.iter().chain(&j.omega) {
                    put(pos((VarType::Real, *out)), &Knowns::default());
                }
            }
        }
    }

    let mut deps = Dependencies::default();
    for (p, v) in table.variables.iter().enumerate() {
        let calculated = matches!(
            v.initial,
            Some(super::variables::Initial::Approx) | Some(super::variables::Initial::Calculated)
        );
        let target = by_target.get(&p);
        if v.causality == Causality::Output {
            // An output no declaration names: it may read any input.
            let k = target.cloned().unwrap_or(Knowns {
                step: Set::ALL,
                init: Set::ALL,
            });
            deps.outputs.insert(p, k.step.clone());
            if calculated {
                deps.initial.insert(p, k.init);
            }
        } else if v.causality == Causality::CalculatedParameter {
            let k = target.map_or(Set::ALL, |k| k.init.clone());
            deps.initial.insert(p, k);
        }
    }
    let inputs = table.variables.iter().filter(|v| v.causality == Causality::Input).count();
    deps.fit_initial_budget(table.variables.len(), inputs);
    deps
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A free ball without external-load inputs above a kinematic probe.
    const SCENE: &str = r#"{
      "name": "t", "model_identifier": "t",
      "default_experiment": { "start_time": 0.0, "stop_time": 1.0, "step_size": 0.001 },
      "model_step": 0.0001, "gravity": [0.0, 0.0, -9.81],
      "terrain": { "surface": { "type": "flat", "height": 0.0 },
                   "material": { "E": 1.0e7, "nu": 0.4, "zeta": 0.6, "mu": 0.5 } },
      "bodies": [
        { "name": "ball", "shape": { "type": "sphere", "radius": 0.1 },
          "material": { "E": 1.0e7, "nu": 0.4, "zeta": 0.6, "mu": 0.5 },
          "motion": { "type": "free", "mass": 1.0, "position": [0.0, 0.0, 0.5],
                      "external_load": false } },
        { "name": "probe", "shape": { "type": "sphere", "radius": 0.1 },
          "material": { "E": 1.0e7, "nu": 0.4, "zeta": 0.6, "mu": 0.5 },
          "motion": { "type": "kinematic", "position": [1.0, 0.0, 0.5] } }
      ],
      "bbcc": { "pairs": [["ball", "terrain"], ["ball", "probe"]] }
    }"#;

    fn at(table: &VariableTable, name: &str) -> usize {
        let v = table.by_name(name).unwrap_or_else(|| panic!("no variable {name}"));
        table.position(v.ty, v.vr as usize).unwrap()
    }

    fn listed(set: &Set) -> Vec<usize> {
        set.listed().expect("a list").iter().copied().collect()
    }

    #[test]
    fn free_state_reads_its_own_initial_conditions_and_no_input() {
        let s = crate::scenario::parse_str(SCENE, "t.json").unwrap();
        let (table, layout, models) = crate::registry::layout(&s);
        assert!(table.by_name("ball.f_ext[1]").is_none() && table.by_name("ball.t_ext[3]").is_none());
        let d = resolve(&table, &layout, |k, f| models[k].feedthrough(f));
        for k in 1..=3 {
            for (out, from) in [("r", "r0"), ("v", "v0"), ("w", "w0")] {
                let o = at(&table, &format!("ball.{out}[{k}]"));
                assert_eq!(listed(&d.initial[&o]), vec![at(&table, &format!("ball.{from}[{k}]"))]);
                assert!(listed(&d.outputs[&o]).is_empty(), "a state reads no input");
            }
        }
        let q0: Vec<usize> = (1..=4).map(|k| at(&table, &format!("ball.q0[{k}]"))).collect();
        for k in 1..=4 {
            assert_eq!(listed(&d.initial[&at(&table, &format!("ball.q[{k}]"))]), q0);
        }
        // The ball's contact force reads the probe's pose inputs at a communication
        // point, not its own (state) pose.
        let f = listed(&d.outputs[&at(&table, "ball.f[3]")]);
        assert!(f.contains(&at(&table, "probe.r[1]")) && f.contains(&at(&table, "probe.w[3]")));
        assert!(f.iter().all(|&p| table.variables[p].causality == Causality::Input));
    }

    #[test]
    fn past_the_budget_the_longest_lists_go_first_but_none_as_short_as_the_inputs() {
        let list = |n: usize| Set(Some((0..n).collect()));
        let mut d = Dependencies::default();
        // 3 lists of 1, 2 of 4, 2 of 50, one empty: 111 entries
        for (p, n) in [1, 1, 1, 4, 4, 50, 50, 0].into_iter().enumerate() {
            d.initial.insert(p, list(n));
        }
        let kept = |d: &Dependencies| -> Vec<Option<usize>> {
            d.initial.values().map(|s| s.listed().map(BTreeSet::len)).collect()
        };
        // within the budget: unchanged
        let mut within = d.clone();
        within.fit_initial_budget(INITIAL_BUDGET / 111, 0);
        assert_eq!(within, d);
        // one entry over: both lists of 50 go, the rest (11 entries) fits
        let mut over = d.clone();
        over.fit_initial_budget(INITIAL_BUDGET / 110, 0);
        assert_eq!(kept(&over), [Some(1), Some(1), Some(1), Some(4), Some(4), None, None, Some(0)]);
        // room for 3 entries: only the empty list and the lists of one stay
        let mut tight = d.clone();
        tight.fit_initial_budget(INITIAL_BUDGET / 3, 0);
        assert_eq!(kept(&tight), [Some(1), Some(1), Some(1), None, None, None, None, Some(0)]);
        // room for none: every list goes but the empty one ("reads no known" is free)
        let mut none = d.clone();
        none.fit_initial_budget(INITIAL_BUDGET + 1, 0);
        assert_eq!(kept(&none), [None, None, None, None, None, None, None, Some(0)]);
        // with 4 inputs a list of 4 or fewer stays however tight the budget: left out,
        // it would read as a dependency on each of the 4 inputs
        let mut inputs = d;
        inputs.fit_initial_budget(INITIAL_BUDGET + 1, 4);
        assert_eq!(kept(&inputs), [Some(1), Some(1), Some(1), Some(4), Some(4), None, None, Some(0)]);
    }
}
