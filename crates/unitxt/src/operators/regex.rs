//! Regular-expression field operators (Unitxt's `RegexSplit`, `RegexReplace`, and the
//! `RegexParser`, `ExtractWithRegex`, `GroupDictWithRegex` processors). Python's `re` semantics
//! come from the expression evaluator ([`crate::expr`]), which implements the `re` module: each
//! operator is a small fixed expression over its arguments and the value.

use serde::{Deserialize, Deserializer};

use super::FieldOperator;
use crate::error::Result;
use crate::expr::Expression;
use crate::value::{Instance, Str, Value};

/// A fixed expression evaluated with named arguments.
pub struct Call {
    src: &'static str,
    parsed: Expression,
}

impl Call {
    fn new(src: &'static str) -> Result<Call> {
        Ok(Call { src, parsed: Expression::parse(src)? })
    }

    fn eval(&self, args: &[(&str, Value)]) -> Result<Value> {
        let mut vars = Instance::new();
        for (k, v) in args {
            vars.insert((*k).into(), v.clone());
        }
        self.parsed.eval(&vars).map_err(|e| e.context(format!("evaluating {}", self.src)))
    }
}

fn call<'de, D: Deserializer<'de>>(src: &'static str) -> std::result::Result<Call, D::Error> {
    Call::new(src).map_err(serde::de::Error::custom)
}

/// `regex_split`: `re.split(by, value)` (Unitxt's `RegexSplit`).
pub struct RegexSplit {
    /// `by`: the regular expression (Python `re` syntax) to split on.
    pub by: String,
    call: Call,
}

#[derive(Deserialize)]
struct RegexSplitArgs {
    by: String,
}

impl<'de> Deserialize<'de> for RegexSplit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let a = RegexSplitArgs::deserialize(d)?;
        Ok(RegexSplit { by: a.by, call: call::<D>("re.split(by, value)")? })
    }
}

impl FieldOperator for RegexSplit {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        self.call.eval(&[("by", Value::String(self.by.as_str().into())), ("value", value)])
    }
}

/// `regex_replace`: `re.sub(pattern, replacement, value)` for strings; other values pass
/// through (Unitxt's `RegexReplace`).
pub struct RegexReplace {
    /// `pattern`: the regular expression (Python `re` syntax) to replace.
    pub pattern: String,
    /// `replacement`: the replacement text (`re.sub` syntax: `\1`, `\g<name>`).
    pub replacement: String,
    call: Call,
}

#[derive(Deserialize)]
struct RegexReplaceArgs {
    pattern: String,
    replacement: String,
}

impl<'de> Deserialize<'de> for RegexReplace {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let a = RegexReplaceArgs::deserialize(d)?;
        let c = call::<D>("re.sub(pattern, replacement, value)")?;
        Ok(RegexReplace { pattern: a.pattern, replacement: a.replacement, call: c })
    }
}

impl FieldOperator for RegexReplace {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        if !value.is_string() {
            return Ok(value);
        }
        self.call.eval(&[
            ("pattern", Value::String(self.pattern.as_str().into())),
            ("replacement", Value::String(self.replacement.as_str().into())),
            ("value", value),
        ])
    }
}

/// `regex_parser`: `re.findall(regex, text)`, or `[]` when `termination_regex` fully matches
/// the text (Unitxt's `RegexParser`). With `first_only` (the `extract_with_regex` variant) the
/// first match, or `""` when there is none.
pub struct RegexParser {
    /// `regex`: the regular expression (Python `re` syntax) whose matches are returned.
    pub regex: String,
    /// `termination_regex`: when it matches the whole text, the result is empty (absent: never).
    pub termination_regex: Option<String>,
    first_only: bool,
    call: Call,
}

#[derive(Deserialize)]
struct RegexParserArgs {
    regex: String,
    #[serde(default)]
    termination_regex: Option<String>,
}

const FINDALL: &str =
    "[] if termination_regex is not None and re.fullmatch(termination_regex, text) else re.findall(regex, text)";

impl RegexParser {
    fn build<'de, D: Deserializer<'de>>(d: D, first_only: bool) -> std::result::Result<Self, D::Error> {
        let a = RegexParserArgs::deserialize(d)?;
        Ok(RegexParser { regex: a.regex, termination_regex: a.termination_regex, first_only, call: call::<D>(FINDALL)? })
    }
}

impl<'de> Deserialize<'de> for RegexParser {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        RegexParser::build(d, false)
    }
}

impl FieldOperator for RegexParser {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let term = self.termination_regex.clone().map_or(Value::Null, Value::from);
        let found = self.call.eval(&[
            ("regex", Value::String(self.regex.as_str().into())),
            ("termination_regex", term),
            ("text", value),
        ])?;
        if !self.first_only {
            return Ok(found);
        }
        Ok(match found {
            Value::Array(mut a) if !a.is_empty() => a.swap_remove(0),
            _ => Value::String(Str::default()),
        })
    }
}

/// `extract_with_regex`: the first `re.findall` match or `""` (Unitxt's `ExtractWithRegex`).
pub struct ExtractWithRegex(pub RegexParser);

impl<'de> Deserialize<'de> for ExtractWithRegex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        RegexParser::build(d, true).map(ExtractWithRegex)
    }
}

impl FieldOperator for ExtractWithRegex {
    fn reads_instance(&self) -> bool {
        true
    }

    fn process_value(&self, value: Value, instance: &Instance) -> Result<Value> {
        self.0.process_value(value, instance)
    }
}

/// `group_dict_with_regex`: `re.match(pattern, value, flags=flags).groupdict()`, or `{}` when
/// the pattern does not match at the start (Unitxt's `GroupDictWithRegex`; `flags` is the
/// integer of Python's `re` flags, e.g. 16 for `DOTALL`).
pub struct GroupDictWithRegex {
    /// `pattern`: the regular expression (Python `re` syntax) with named groups.
    pub pattern: String,
    /// `flags`: Python's `re` flags as an integer (e.g. 2 `IGNORECASE`, 16 `DOTALL`; default 0).
    pub flags: i64,
    call: Call,
}

#[derive(Deserialize)]
struct GroupDictArgs {
    pattern: String,
    #[serde(default)]
    flags: i64,
}

impl<'de> Deserialize<'de> for GroupDictWithRegex {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let a = GroupDictArgs::deserialize(d)?;
        let c = call::<D>(
            "re.match(pattern, value, flags=flags).groupdict() if re.match(pattern, value, flags=flags) else {}",
        )?;
        Ok(GroupDictWithRegex { pattern: a.pattern, flags: a.flags, call: c })
    }
}

impl FieldOperator for GroupDictWithRegex {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        self.call.eval(&[
            ("pattern", Value::String(self.pattern.as_str().into())),
            ("flags", Value::from(self.flags)),
            ("value", value),
        ])
    }
}
