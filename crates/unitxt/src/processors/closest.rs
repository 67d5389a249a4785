//! `match_closest_option`: snaps a prediction to the most similar of the instance's options,
//! with the similarity of Python's `difflib` (`SequenceMatcher.ratio`).

use std::collections::HashMap;

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::operators::pyops::type_name;
use crate::operators::FieldOperator;
use crate::value::{Instance, Value};

/// A sequence as `difflib` sees it: characters of a string, items of a list (compared by
/// their JSON text, so `"a"` as a list item equals the character `a`).
fn elements(v: &Value) -> Result<Vec<String>> {
    match v {
        Value::String(s) => Ok(s.chars().map(|c| Value::String(c.to_string()).to_string()).collect()),
        Value::Array(a) => a
            .iter()
            .map(|x| match x {
                Value::Array(_) | Value::Object(_) => {
                    Err(Error::invalid(format!("unhashable type: '{}'", type_name(x))))
                }
                _ => Ok(x.to_string()),
            })
            .collect(),
        other => Err(Error::invalid(format!("object of type '{}' has no len()", type_name(other)))),
    }
}

/// The number of matched elements between `a` and `b`, as `difflib.SequenceMatcher(None, a, b)`
/// counts them (longest matching blocks found recursively, with the "popular element"
/// heuristic for `b` of 200 elements or more).
pub fn matching_count(a: &[String], b: &[String]) -> usize {
    let mut b2j: HashMap<&str, Vec<usize>> = HashMap::new();
    for (j, x) in b.iter().enumerate() {
        b2j.entry(x.as_str()).or_default().push(j);
    }
    if b.len() >= 200 {
        let limit = b.len() / 100 + 1;
        b2j.retain(|_, idx| idx.len() <= limit);
    }
    let longest = |alo: usize, ahi: usize, blo: usize, bhi: usize| -> (usize, usize, usize) {
        let (mut bi, mut bj, mut size) = (alo, blo, 0usize);
        let mut j2len: HashMap<usize, usize> = HashMap::new();
        for (i, x) in a.iter().enumerate().take(ahi).skip(alo) {
            let mut next: HashMap<usize, usize> = HashMap::new();
            if let Some(js) = b2j.get(x.as_str()) {
                for &j in js {
                    if j < blo {
                        continue;
                    }
                    if j >= bhi {
                        break;
                    }
                    let k = j.checked_sub(1).and_then(|p| j2len.get(&p)).copied().unwrap_or(0) + 1;
                    next.insert(j, k);
                    if k > size {
                        bi = i + 1 - k;
                        bj = j + 1 - k;
                        size = k;
                    }
                }
            }
            j2len = next;
        }
        while bi > alo && bj > blo && a[bi - 1] == b[bj - 1] {
            bi -= 1;
            bj -= 1;
            size += 1;
        }
        while bi + size < ahi && bj + size < bhi && a[bi + size] == b[bj + size] {
            size += 1;
        }
        (bi, bj, size)
    };
    let mut total = 0;
    let mut queue = vec![(0, a.len(), 0, b.len())];
    while let Some((alo, ahi, blo, bhi)) = queue.pop() {
        let (i, j, k) = longest(alo, ahi, blo, bhi);
        if k > 0 {
            total += k;
            if alo < i && blo < j {
                queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                queue.push((i + k, ahi, j + k, bhi));
            }
        }
    }
    total
}

/// `SequenceMatcher(None, a, b).ratio()`: `2 * matches / (len(a) + len(b))`, `1.0` for two
/// empty sequences.
pub fn ratio(a: &[String], b: &[String]) -> f64 {
    let n = a.len() + b.len();
    if n == 0 {
        return 1.0;
    }
    2.0 * matching_count(a, b) as f64 / n as f64
}

/// `difflib.get_close_matches(word, options, n=1, cutoff=0.0)[0]`: the option with the highest
/// ratio to `word`; ties go to the greatest option (Python compares the `(score, option)`
/// pairs). Errors when there are no options.
pub fn closest_option(word: &Value, options: &[Value]) -> Result<Value> {
    let w = elements(word)?;
    let mut best: Option<(f64, &Value)> = None;
    for opt in options {
        // difflib puts the word second (the sequence it indexes) and each option first.
        let score = ratio(&elements(opt)?, &w);
        let better = match best {
            None => true,
            Some((s, cur)) => score > s || (score == s && py_greater(opt, cur)?),
        };
        if better {
            best = Some((score, opt));
        }
    }
    best.map(|(_, o)| o.clone()).ok_or_else(|| Error::invalid("match_closest_option: the options list is empty"))
}

/// Python's `a > b` for two strings (by code point) or two lists of strings.
fn py_greater(a: &Value, b: &Value) -> Result<bool> {
    match (a, b) {
        (Value::String(x), Value::String(y)) => Ok(x.chars().gt(y.chars())),
        (Value::Array(x), Value::Array(y)) => {
            for (p, q) in x.iter().zip(y) {
                if p != q {
                    return py_greater(p, q);
                }
            }
            Ok(x.len() > y.len())
        }
        _ => Err(Error::invalid(format!(
            "'>' not supported between instances of '{}' and '{}'",
            type_name(a),
            type_name(b)
        ))),
    }
}

/// `match_closest_option`: replaces the value by the most similar entry of
/// `task_data[options_field]` (default `options`) (Unitxt's `MatchClosestOption`). Errors when
/// the instance has no such options list or it is empty.
#[derive(Debug, Deserialize)]
pub struct MatchClosestOption {
    #[serde(default = "default_options_field")]
    pub options_field: String,
}

fn default_options_field() -> String {
    "options".into()
}

impl FieldOperator for MatchClosestOption {
    fn process_value(&self, value: Value, instance: &Instance) -> Result<Value> {
        let options = instance
            .get("task_data")
            .and_then(|t| t.get(&self.options_field))
            .ok_or_else(|| Error::not_found(format!("task_data has no options field {:?}", self.options_field)))?;
        let list = match options {
            Value::Array(a) => a.clone(),
            Value::String(s) => s.chars().map(|c| Value::String(c.to_string())).collect(),
            other => return Err(Error::invalid(format!("options must be a list, got '{}'", type_name(other)))),
        };
        closest_option(&value, &list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn seq(s: &str) -> Vec<String> {
        elements(&Value::from(s)).unwrap_or_default()
    }

    // Expected values from Python 3.11 `difflib`.
    #[test]
    fn ratio_like_difflib() {
        assert_eq!(ratio(&seq("abcd"), &seq("bcde")), 0.75);
        // 255-element second sequence: the popular-element heuristic applies.
        let (a, b) = ("e".repeat(210) + "hello", "hello ".to_string() + &"e".repeat(250));
        assert_eq!(ratio(&seq(&a), &seq(&b)), 0.021231422505307854);
        assert_eq!(ratio(&seq(&b), &seq(&a)), 0.021231422505307854);
    }

    #[test]
    fn ties_go_to_the_greatest_option() {
        let opts = [json!("ab"), json!("ba")];
        assert_eq!(closest_option(&json!("a"), &opts).ok(), Some(json!("ba")));
        assert!(closest_option(&json!("a"), &[]).is_err());
    }
}
