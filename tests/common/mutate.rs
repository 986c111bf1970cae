//! Structural mutations of JSON documents (scenarios, fit descriptions) and text-level
//! damage, shared by the mutation fuzzers (tests/scenario_fuzz.rs, tests/file_fuzz.rs).
//! `names`: strings a mutation may put where a string was (file names, variables).
#![allow(dead_code)]

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

/// Paths to every node of `v` (object keys and array indices).
pub fn nodes(v: &Value, here: &mut Vec<PathStep>, out: &mut Vec<Vec<PathStep>>) {
    out.push(here.clone());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                here.push(PathStep::Key(k.clone()));
                nodes(x, here, out);
                here.pop();
            }
        }
        Value::Array(a) => {
            // long arrays (mesh vertices, terrain points): a few of them suffice
            for (i, x) in a.iter().enumerate().take(8) {
                here.push(PathStep::Index(i));
                nodes(x, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
pub enum PathStep {
    Key(String),
    Index(usize),
}

pub fn at<'a>(v: &'a mut Value, path: &[PathStep]) -> &'a mut Value {
    path.iter().fold(v, |v, s| match s {
        PathStep::Key(k) => &mut v[k.as_str()],
        PathStep::Index(i) => &mut v[*i],
    })
}

pub fn deep(levels: usize) -> Value {
    (0..levels).fold(Value::from(1.0), |v, _| Value::Array(vec![v]))
}

/// An extreme or odd value.
pub fn odd_value(names: &[&str], rng: &mut ChaCha8Rng) -> Value {
    match rng.gen_range(0..22) {
        0 => Value::Null,
        1 => Value::Bool(true),
        2 => Value::from(0),
        3 => Value::from(-1),
        4 => Value::from(1e308),
        5 => Value::from(-1e308),
        6 => Value::from(5e-324),
        7 => Value::from(-0.0),
        8 => Value::from(u64::MAX),
        9 => Value::from(i64::MIN),
        10 => Value::from(""),
        11 => Value::from("a".repeat(rng.gen_range(100..200_000))),
        12 => Value::from("\u{202e}名前 🦀\u{7}\u{feff}"),
        13 => Value::Array(vec![]),
        14 => Value::Object(Default::default()),
        15 => Value::Array(vec![Value::from(0.0); rng.gen_range(1000..100_000)]),
        16 => deep(rng.gen_range(20..300)),
        17 => Value::from(1e6),
        18 => Value::from(1e-9),
        19 => Value::from(9007199254740993u64),
        20 => Value::from(names[rng.gen_range(0..names.len())]),
        _ => Value::from(rng.gen_range(-1e3..1e3)),
    }
}

/// One structural mutation of `v`; `donors` give subtrees of other scenarios.
pub fn mutate(v: &mut Value, donors: &[(String, Value)], names: &[&str], rng: &mut ChaCha8Rng) {
    let mut all = vec![];
    nodes(v, &mut vec![], &mut all);
    let path = all[rng.gen_range(0..all.len())].clone();
    match rng.gen_range(0..10) {
        // delete the node
        0 => {
            if let Some((last, parent)) = path.split_last() {
                match (at(v, parent), last) {
                    (Value::Object(m), PathStep::Key(k)) => {
                        m.remove(k);
                    }
                    (Value::Array(a), PathStep::Index(i)) if *i < a.len() => {
                        a.remove(*i);
                    }
                    _ => {}
                }
            }
        }
        // an odd value in its place
        1 | 2 => *at(v, &path) = odd_value(names, rng),
        // a number scaled, negated or zeroed; a string made a file name or a number
        3 | 4 => {
            let node = at(v, &path);
            match node {
                Value::Number(n) => {
                    let x = n.as_f64().unwrap_or(1.0);
                    let y = match rng.gen_range(0..5) {
                        0 => -x,
                        1 => 0.0,
                        _ => {
                            x * 10f64.powi([-300, -30, -6, -3, 3, 6, 30, 300][rng.gen_range(0..8)])
                        }
                    };
                    *node = serde_json::Number::from_f64(y).map_or(Value::Null, Value::Number);
                }
                Value::String(_) => {
                    *node = if rng.gen() {
                        Value::from(names[rng.gen_range(0..names.len())])
                    } else {
                        Value::from(rng.gen_range(-10.0..10.0))
                    }
                }
                Value::Bool(b) => *node = Value::from(*b as i32),
                Value::Array(a) if !a.is_empty() => *node = a[0].clone(),
                Value::Object(m) => *node = Value::Array(m.values().cloned().collect()),
                _ => *node = odd_value(names, rng),
            }
        }
        // an array element repeated: duplicate names, many bodies, long lists
        5 | 6 => {
            if let Value::Array(a) = at(v, &path) {
                if !a.is_empty() {
                    let x = a[rng.gen_range(0..a.len())].clone();
                    let n = [1, 1, 2, 10, 100, 2000][rng.gen_range(0..6)];
                    a.extend(std::iter::repeat_n(x, n));
                }
            }
        }
        // a subtree of another scenario
        7 | 8 => {
            let (_, d) = &donors[rng.gen_range(0..donors.len())];
            let mut dn = vec![];
            nodes(d, &mut vec![], &mut dn);
            let dp = &dn[rng.gen_range(0..dn.len())];
            let mut d = d.clone();
            *at(v, &path) = at(&mut d, dp).clone();
        }
        // an unknown key
        _ => {
            if let Value::Object(m) = at(v, &path) {
                m.insert("colour".into(), Value::from("red"));
            }
        }
    }
}

/// Text-level damage: a duplicated key, a cut, a stray byte, trailing content.
pub fn garble(text: &mut String, rng: &mut ChaCha8Rng) {
    match rng.gen_range(0..5) {
        0 => {
            // duplicate the first key-value pair of a random object
            let braces: Vec<usize> = text.match_indices("{\"").map(|(i, _)| i).collect();
            if let Some(&i) = braces.get(rng.gen_range(0..braces.len().max(1))) {
                if let Some(end) = text[i..].find(',') {
                    let pair = text[i + 1..i + end + 1].to_string();
                    text.insert_str(i + 1, &pair);
                }
            }
        }
        1 => {
            let mut cut = rng.gen_range(0..text.len().max(1));
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
        }
        2 => {
            let mut i = rng.gen_range(0..text.len().max(1));
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            text.insert(i, ['}', '"', '\\', '\u{0}', 'ÿ', ','][rng.gen_range(0..6)]);
        }
        3 => text.push_str(["{}", "]", "\u{0}", " x"][rng.gen_range(0..4)]),
        _ => {}
    }
}

