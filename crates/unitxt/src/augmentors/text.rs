//! Text augmentors: `augment_whitespace`, `augment_prefix_suffix` and `null_augmentor`.

use std::sync::Arc;

use serde::Deserialize;

use super::{task_inputs_op, Augmentor};
use crate::error::{Error, Result};
use crate::operators::{FieldOperator, InstanceOperator};
use crate::py::random::{new_random_generator, PyRandom};
use crate::value::{Instance, Value};

/// Python's `str.isspace()` for one character (also what `\s` matches in Python's `re`): the
/// one definition is [`crate::py::ops::is_py_space`].
pub use crate::py::ops::is_py_space as py_isspace;

/// Unitxt's `NullAugmentor`: leaves the values unchanged (a recipe skips it altogether, see
/// [`Augmentor::is_identity`]).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct NullAugmentor {}

impl FieldOperator for NullAugmentor {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        Ok(value)
    }
}

impl Augmentor for NullAugmentor {
    fn for_fields(&self, fields: &[String]) -> Result<Arc<dyn InstanceOperator>> {
        task_inputs_op(self.clone(), fields)
    }

    fn is_identity(&self) -> bool {
        true
    }
}

/// Unitxt's `AugmentWhitespace`: every run of white space in a string value is replaced by one
/// of `"\n"`, `"\t"`, `" "` (chosen at random) repeated 1 to 3 times. Values that are not
/// strings are left unchanged.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct AugmentWhitespace {}

impl AugmentWhitespace {
    /// Augments one string, seeded by the string itself.
    pub fn augment(&self, value: &str) -> String {
        const CHOICES: [&str; 3] = ["\n", "\t", " "];
        let mut rng = new_random_generator(&Value::String(value.into()));
        let mut out = String::with_capacity(value.len() + 8);
        let mut in_space = false;
        for c in value.chars() {
            if py_isspace(c) {
                if !in_space {
                    // Python evaluates `choice(...)` before `randint(1, 3)`.
                    let pick = CHOICES[rng.randbelow(3) as usize];
                    let times = 1 + rng.randbelow(3) as usize;
                    out.push_str(&pick.repeat(times));
                }
                in_space = true;
            } else {
                in_space = false;
                out.push(c);
            }
        }
        out
    }
}

impl FieldOperator for AugmentWhitespace {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        Ok(match value {
            Value::String(s) => Value::String(self.augment(&s).into()),
            other => other,
        })
    }
}

impl Augmentor for AugmentWhitespace {
    fn for_fields(&self, fields: &[String]) -> Result<Arc<dyn InstanceOperator>> {
        task_inputs_op(self.clone(), fields)
    }
}

/// Patterns to pick from: a list (equal weights) or a dict pattern → integer weight.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Patterns {
    /// Equal weights for every pattern.
    List(Vec<String>),
    /// Each pattern's integer weight (drawn with probability weight / sum).
    Weighted(indexmap::IndexMap<String, i64>),
}

fn default_patterns() -> Option<Patterns> {
    let mut m = indexmap::IndexMap::new();
    // Unitxt's defaults hold a backslash followed by `t` / `n`, not tab / new line.
    for (k, w) in [(" ", 20), ("\\t", 10), ("\\n", 40), ("", 30)] {
        m.insert(k.to_string(), w);
    }
    Some(Patterns::Weighted(m))
}

fn three() -> Option<i64> {
    Some(3)
}

/// A prepared pattern distribution: patterns, cumulative weights, how many to draw.
#[derive(Debug, Clone, Default)]
struct Distribution {
    patterns: Vec<String>,
    cum_weights: Vec<f64>,
    length: usize,
}

impl Distribution {
    /// Unitxt's `_calculate_distributions` followed by the running sums `random.choices` uses.
    fn new(p: &Option<Patterns>, length: usize, what: &str) -> Result<Self> {
        let (patterns, weights): (Vec<String>, Vec<f64>) = match p {
            None => (Vec::new(), Vec::new()),
            Some(Patterns::List(l)) => {
                if l.is_empty() {
                    return Err(Error::invalid(format!("augment_prefix_suffix: {what} is an empty list")));
                }
                let w = 1.0 / l.len() as f64;
                (l.clone(), vec![w; l.len()])
            }
            Some(Patterns::Weighted(m)) => {
                let total: i64 = m.values().sum();
                if !m.is_empty() && total == 0 {
                    return Err(Error::invalid(format!("augment_prefix_suffix: the weights of {what} sum to 0")));
                }
                (m.keys().cloned().collect(), m.values().map(|&w| w as f64 / total as f64).collect())
            }
        };
        let mut acc = 0.0;
        let cum_weights = weights
            .iter()
            .enumerate()
            .map(|(i, w)| {
                acc = if i == 0 { *w } else { acc + w };
                acc
            })
            .collect::<Vec<f64>>();
        if let Some(&total) = cum_weights.last() {
            if total <= 0.0 || !total.is_finite() {
                return Err(Error::invalid(format!(
                    "augment_prefix_suffix: the weights of {what} must have a positive finite total"
                )));
            }
        }
        Ok(Distribution { patterns, cum_weights, length })
    }

    /// `"".join(rng.choices(patterns, weights, k=length))`, or `""` without patterns.
    fn draw(&self, rng: &mut PyRandom) -> String {
        if self.patterns.is_empty() {
            return String::new();
        }
        let total = self.cum_weights[self.cum_weights.len() - 1];
        let hi = self.patterns.len() - 1;
        let mut out = String::new();
        for _ in 0..self.length {
            let x = rng.random() * total;
            // bisect_right(cum_weights, x, 0, hi)
            let (mut lo, mut h) = (0usize, hi);
            while lo < h {
                let mid = (lo + h) / 2;
                if x < self.cum_weights[mid] {
                    h = mid;
                } else {
                    lo = mid + 1;
                }
            }
            out.push_str(&self.patterns[lo]);
        }
        out
    }
}

/// Unitxt's `AugmentPrefixSuffix`: prepends `prefix_len` patterns drawn from `prefixes` and
/// appends `suffix_len` drawn from `suffixes` (after stripping white space at both ends when
/// `remove_existing_whitespaces`). Only string values are changed. Build it with
/// [`AugmentPrefixSuffix::prepared`], which checks the arguments as Unitxt's `verify` does.
#[derive(Debug, Clone, Deserialize)]
pub struct AugmentPrefixSuffix {
    /// `prefixes`: the patterns prepended (default: space, `\t`, `\n` and nothing, weighted
    /// 20/10/40/30; the `\t` and `\n` are a backslash and a letter, as in Unitxt); `null`: none.
    #[serde(default = "default_patterns")]
    pub prefixes: Option<Patterns>,
    /// `prefix_len`: how many prefix patterns are drawn and concatenated (default 3).
    #[serde(default = "three")]
    pub prefix_len: Option<i64>,
    /// `suffixes`: the patterns appended (same default as `prefixes`); `null`: none.
    #[serde(default = "default_patterns")]
    pub suffixes: Option<Patterns>,
    /// `suffix_len`: how many suffix patterns are drawn and concatenated (default 3).
    #[serde(default = "three")]
    pub suffix_len: Option<i64>,
    /// `remove_existing_whitespaces`: strip white space at both ends of the value first (default
    /// false).
    #[serde(default)]
    pub remove_existing_whitespaces: Option<bool>,
    #[serde(skip)]
    prefix_dist: Distribution,
    #[serde(skip)]
    suffix_dist: Distribution,
}

fn is_empty_patterns(p: &Option<Patterns>) -> bool {
    match p {
        None => true,
        Some(Patterns::List(l)) => l.is_empty(),
        Some(Patterns::Weighted(m)) => m.is_empty(),
    }
}

impl AugmentPrefixSuffix {
    /// Checks the arguments and prepares the distributions. Errors when both pattern sets are
    /// empty or absent, a length is not positive, or weights do not add up to a positive total.
    pub fn prepared(mut self) -> Result<Self> {
        if is_empty_patterns(&self.prefixes) && is_empty_patterns(&self.suffixes) {
            return Err(Error::invalid("augment_prefix_suffix: at least one of prefixes/suffixes must be given"));
        }
        let len = |l: Option<i64>, name: &str| -> Result<usize> {
            match l {
                Some(n) if n > 0 => Ok(n as usize),
                other => Err(Error::invalid(format!("augment_prefix_suffix: {name} must be positive, got {other:?}"))),
            }
        };
        let (pl, sl) = (len(self.prefix_len, "prefix_len")?, len(self.suffix_len, "suffix_len")?);
        self.prefix_dist = Distribution::new(&self.prefixes, pl, "prefixes")?;
        self.suffix_dist = Distribution::new(&self.suffixes, sl, "suffixes")?;
        Ok(self)
    }

    /// Augments one string, seeded by the string as given (before stripping).
    pub fn augment(&self, value: &str) -> String {
        let mut rng = new_random_generator(&Value::String(value.into()));
        let body = if self.remove_existing_whitespaces.unwrap_or(false) {
            value.trim_matches(py_isspace)
        } else {
            value
        };
        let prefix = self.prefix_dist.draw(&mut rng);
        let suffix = self.suffix_dist.draw(&mut rng);
        format!("{prefix}{body}{suffix}")
    }
}

impl FieldOperator for AugmentPrefixSuffix {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        Ok(match value {
            Value::String(s) => Value::String(self.augment(&s).into()),
            other => other,
        })
    }
}

impl Augmentor for AugmentPrefixSuffix {
    fn for_fields(&self, fields: &[String]) -> Result<Arc<dyn InstanceOperator>> {
        task_inputs_op(self.clone(), fields)
    }
}
