//! Which body pairs BBCC evaluates, as the rule `bbcc.pairs` states it and not as a
//! list of pairs: a self-paired collection of 10,000 rocks names 5e7 pairs, but the
//! broad phase only asks about the few hundred whose boxes overlap.
//!
//! Every name in the body pairs (a body or a collection) is a bit. A body's
//! `members` bits are the names it belongs to, its `partners` bits the names it is
//! paired with; bodies with the same bits share a class. Bodies `i != j` touch when
//! `partners(i) & members(j)` is not empty (symmetric: a pair [a, b] sets b in the
//! partners of a's members and a in the partners of b's).

use crate::scenario::types::Scenario;
use std::collections::HashMap;

/// The body-pair rule of a scenario's `bbcc.pairs` (the terrain pairs apart).
#[derive(Debug, Clone, Default)]
pub struct PairRule {
    /// Words per bit set.
    words: usize,
    /// Per body: its class, or `u32::MAX` when it is in no body pair.
    class: Vec<u32>,
    /// Per class: `words` words of member bits, then `words` words of partner bits.
    bits: Vec<u64>,
}

impl PairRule {
    /// The rule of `s`'s body pairs.
    pub fn new(s: &Scenario) -> PairRule {
        let n = s.bodies.len();
        let pairs: Vec<&[String; 2]> = s
            .bbcc
            .iter()
            .flat_map(|b| b.pairs.iter())
            .filter(|[a, b]| a != "terrain" && b != "terrain")
            .collect();
        let mut names: HashMap<&str, usize> = HashMap::new();
        for [a, b] in &pairs {
            for x in [a, b] {
                let next = names.len();
                names.entry(x.as_str()).or_insert(next);
            }
        }
        let words = names.len().div_ceil(64).max(1);
        // per body: member bits, then partner bits
        let mut body_bits = vec![0u64; n * 2 * words];
        let set = |bits: &mut [u64], body: usize, second: bool, bit: usize| {
            bits[(body * 2 + second as usize) * words + bit / 64] |= 1 << (bit % 64);
        };
        // the names in the order of their first mention, so classes number the same
        // on every build
        let mut ordered: Vec<(&str, usize)> = names.iter().map(|(k, v)| (*k, *v)).collect();
        ordered.sort_unstable_by_key(|&(_, bit)| bit);
        let mut members_of: Vec<Vec<usize>> = Vec::with_capacity(ordered.len());
        for &(name, bit) in &ordered {
            let m = s.members(name);
            for &i in &m {
                set(&mut body_bits, i, false, bit);
            }
            members_of.push(m);
        }
        for [a, b] in &pairs {
            let (ba, bb) = (names[a.as_str()], names[b.as_str()]);
            for &i in &members_of[ba] {
                set(&mut body_bits, i, true, bb);
            }
            for &i in &members_of[bb] {
                set(&mut body_bits, i, true, ba);
            }
        }
        let mut classes: HashMap<&[u64], u32> = HashMap::new();
        let mut class = vec![u32::MAX; n];
        let mut bits = vec![];
        for (i, c) in class.iter_mut().enumerate() {
            let own = &body_bits[i * 2 * words..(i + 1) * 2 * words];
            if own[words..].iter().all(|&w| w == 0) {
                continue;
            }
            let next = classes.len() as u32;
            *c = *classes.entry(own).or_insert_with(|| {
                bits.extend_from_slice(own);
                next
            });
        }
        PairRule { words, class, bits }
    }

    /// Does BBCC evaluate bodies `i` and `j` together?
    #[inline]
    pub fn allows(&self, i: usize, j: usize) -> bool {
        let (ci, cj) = (self.class[i], self.class[j]);
        if i == j || ci == u32::MAX || cj == u32::MAX {
            return false;
        }
        let w = self.words;
        let partners = &self.bits[(ci as usize * 2 + 1) * w..(ci as usize * 2 + 2) * w];
        let members = &self.bits[cj as usize * 2 * w..(cj as usize * 2 + 1) * w];
        partners.iter().zip(members).any(|(p, m)| p & m != 0)
    }

    /// The class of body `b` (bodies of a class have the same partners), or None
    /// when it is in no body pair.
    pub fn class_of(&self, b: usize) -> Option<u32> {
        let c = *self.class.get(b)?;
        (c != u32::MAX).then_some(c)
    }

    /// Do members of class `a` touch members of class `b` (other than themselves)?
    pub fn classes_touch(&self, a: u32, b: u32) -> bool {
        let w = self.words;
        let partners = &self.bits[(a as usize * 2 + 1) * w..(a as usize * 2 + 2) * w];
        let members = &self.bits[b as usize * 2 * w..(b as usize * 2 + 1) * w];
        partners.iter().zip(members).any(|(p, m)| p & m != 0)
    }

    /// Is body `b` in any body pair?
    pub fn pairs_body(&self, b: usize) -> bool {
        self.class[b] != u32::MAX
    }

    /// Is there any body pair at all?
    pub fn is_empty(&self) -> bool {
        self.bits.is_empty()
    }

    /// Words the rule keeps for `bodies` bodies and `names` names in its pairs, at
    /// most (every body its own class): what `check` bounds.
    pub fn words_at_most(bodies: usize, names: usize) -> f64 {
        bodies as f64 * 2.0 * (names.div_ceil(64).max(1)) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(bodies: &[(&str, Option<&str>)], pairs: &[[&str; 2]]) -> Scenario {
        let mat = serde_json::json!({"E": 1e7, "nu": 0.3, "zeta": 0.5, "mu": 0.5});
        let v = serde_json::json!({
            "name": "t", "model_identifier": "t",
            "default_experiment": {"stop_time": 1.0, "step_size": 0.001},
            "terrain": {"surface": {"type": "flat"}, "material": mat},
            "bodies": bodies.iter().map(|(n, g)| {
                let mut b = serde_json::json!({"name": n, "shape": {"type": "sphere", "radius": 0.1},
                    "material": mat, "motion": {"type": "free", "mass": 1.0, "inertia": [1.0, 1.0, 1.0]}});
                if let Some(g) = g { b["group"] = serde_json::json!(g); }
                b
            }).collect::<Vec<_>>(),
            "bbcc": {"pairs": pairs},
        });
        crate::scenario::parse_str(&v.to_string(), "t.json").unwrap()
    }

    /// Every (i, j) the rule allows, i < j.
    fn allowed(r: &PairRule, n: usize) -> Vec<(usize, usize)> {
        let mut out = vec![];
        for i in 0..n {
            for j in 0..n {
                assert_eq!(r.allows(i, j), r.allows(j, i), "symmetric");
                if i < j && r.allows(i, j) {
                    out.push((i, j));
                }
            }
        }
        out
    }

    #[test]
    fn the_rule_allows_exactly_the_pairs_the_collections_name() {
        let bodies = [
            ("rover", None),
            ("a", Some("rocks")),
            ("b", Some("rocks")),
            ("c", Some("rocks")),
            ("p", Some("pile")),
            ("q", Some("pile")),
            ("lone", None),
        ];
        let s = scenario(
            &bodies,
            &[
                ["rover", "rocks"],
                ["pile", "pile"],
                ["a", "p"],
                ["rover", "terrain"],
            ],
        );
        let r = PairRule::new(&s);
        assert_eq!(
            allowed(&r, bodies.len()),
            vec![(0, 1), (0, 2), (0, 3), (1, 4), (4, 5)]
        );
        assert!(!r.pairs_body(6) && r.pairs_body(0) && !r.is_empty());
        // b and c have the same bits: one class
        assert_eq!(r.class[2], r.class[3]);
    }

    #[test]
    fn more_than_64_names_spread_over_several_words() {
        let names: Vec<String> = (0..150).map(|i| format!("b{i}")).collect();
        let bodies: Vec<(&str, Option<&str>)> = names.iter().map(|n| (n.as_str(), None)).collect();
        // a chain b0-b1, b1-b2, ..., and b0 with the last
        let mut pairs: Vec<[&str; 2]> = (0..149).map(|i| [bodies[i].0, bodies[i + 1].0]).collect();
        pairs.push(["b0", "b149"]);
        let r = PairRule::new(&scenario(&bodies, &pairs));
        assert_eq!(r.words, 3);
        let mut want: Vec<(usize, usize)> = (0..149).map(|i| (i, i + 1)).collect();
        want.push((0, 149));
        want.sort_unstable();
        assert_eq!(allowed(&r, 150), want);
    }
}
