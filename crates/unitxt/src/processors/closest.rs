//! `match_closest_option`: snaps a prediction to the most similar of the instance's options,
//! with the similarity of Python's `difflib` (`SequenceMatcher.ratio`).


use serde::Deserialize;

use crate::error::{Error, Result};
use crate::py::ops::type_name;
use crate::operators::FieldOperator;
use crate::value::{Instance, Value};

/// A sequence as `difflib` sees it: characters of a string, items of a list (compared by
/// their JSON text, so `"a"` as a list item equals the character `a`).
fn elements(v: &Value) -> Result<Vec<String>> {
    match v {
        Value::String(s) => Ok(s.chars().map(|c| Value::from(c).to_string()).collect()),
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

/// `SequenceMatcher(None, a, b).ratio()` of two element sequences
/// ([`crate::splitters::difflib::ratio_seq`]).
pub fn ratio(a: &[String], b: &[String]) -> f64 {
    crate::splitters::difflib::ratio_seq(a, b)
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
    /// `options_field`: the `task_data` field with the list of options (default `options`).
    #[serde(default = "default_options_field")]
    pub options_field: String,
}

fn default_options_field() -> String {
    "options".into()
}

impl FieldOperator for MatchClosestOption {
    fn reads_instance(&self) -> bool {
        true
    }

    fn process_value(&self, value: Value, instance: &Instance) -> Result<Value> {
        let options = instance
            .get("task_data")
            .and_then(|t| t.get(&self.options_field))
            .ok_or_else(|| Error::not_found(format!("task_data has no options field {:?}", self.options_field)))?;
        let list = match options {
            Value::Array(a) => a.clone(),
            Value::String(s) => s.chars().map(|c| Value::from(c)).collect(),
            other => return Err(Error::invalid(format!("options must be a list, got '{}'", type_name(other)))),
        };
        closest_option(&value, &list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

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
