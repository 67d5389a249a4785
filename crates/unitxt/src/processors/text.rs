//! Text-cleaning postprocessors: line, word and character extraction, case and punctuation
//! handling, and fixed label mappings (Unitxt's `processors.py` string processors).

use serde::Deserialize;

use super::{as_text, eval_py};
use crate::error::{Error, Result};
use crate::py::ops::{is_py_space, py_float, py_iter, py_slice, py_str, py_strip, type_name};
use crate::operators::FieldOperator;
use crate::value::{Instance, Value};

fn s(x: impl Into<crate::value::Str>) -> Value {
    Value::String(x.into())
}

/// `to_string`: `str(value)` (Unitxt's `ToString`).
#[derive(Debug, Deserialize)]
pub struct ToString {}

impl FieldOperator for ToString {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        Ok(s(py_str(&value)))
    }
}

/// `to_string_stripped`: `str(value)` without surrounding whitespace (Unitxt's `ToStringStripped`).
#[derive(Debug, Deserialize)]
pub struct ToStringStripped {}

impl FieldOperator for ToStringStripped {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        Ok(s(py_strip(&py_str(&value))))
    }
}

/// `split_strip` and its presets `to_list_by_comma` (`","`) and `to_list_by_comma_space`
/// (`", "`), both stripping every piece: a string in, a list of strings out (Unitxt's
/// `SplitStrip`, `ToListByComma`, `ToListByCommaSpace`). Errors on non-strings.
#[derive(Debug, Deserialize)]
pub struct SplitStrip {
    /// `delimiter`: what the text is split on (default a space).
    #[serde(default = "space")]
    pub delimiter: String,
    /// `strip_every_element`: strip white space from every piece (default false).
    #[serde(default)]
    pub strip_every_element: bool,
}

fn space() -> String {
    " ".into()
}

impl SplitStrip {
    /// The `to_list_by_comma` / `to_list_by_comma_space` preset with `delimiter` unless the
    /// JSON sets one.
    pub fn preset(v: &Value, delimiter: &str) -> Result<SplitStrip> {
        let mut v = v.clone();
        if let Value::Object(m) = &mut v {
            m.entry("delimiter").or_insert_with(|| s(delimiter));
            m.entry("strip_every_element").or_insert(Value::Bool(true));
        }
        crate::artifact::from_value::<SplitStrip>("split_strip", &v)
    }
}

impl FieldOperator for SplitStrip {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        let t = as_text(&value, "split")?;
        if self.delimiter.is_empty() {
            return Err(Error::invalid("empty separator"));
        }
        let parts =
            t.split(self.delimiter.as_str()).map(|x| s(if self.strip_every_element { py_strip(x) } else { x }));
        Ok(Value::Array(parts.collect()))
    }
}

/// `take_first_non_empty_line` / `take_last_non_empty_line`: of `str(value)` stripped, the first
/// (last) line, stripped (Unitxt's `TakeFirstNonEmptyLine`, `TakeLastNonEmptyLine`).
#[derive(Debug, Deserialize)]
pub struct TakeLine {
    /// Take the last non-empty line instead of the first (set by the artifact's name, not from
    /// JSON).
    #[serde(skip)]
    pub last: bool,
}

impl TakeLine {
    /// The variant taking the last line.
    pub fn last() -> TakeLine {
        TakeLine { last: true }
    }
}

impl FieldOperator for TakeLine {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        let text = py_str(&value);
        let mut lines = py_strip(&text).split('\n');
        let line = if self.last { lines.next_back() } else { lines.next() };
        Ok(s(py_strip(line.unwrap_or(""))))
    }
}

/// `convert_to_boolean`: `"FALSE"` when the lower-cased text contains `no`, `not`, `wrong` or
/// `false`; else `"TRUE"` when it contains `yes`, `right`, `correct` or `true`; else `"OTHER"`
/// (Unitxt's `ConvertToBoolean`; substring tests, so `"know"` is `FALSE`).
#[derive(Debug, Deserialize)]
pub struct ConvertToBoolean {}

impl FieldOperator for ConvertToBoolean {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        let t = py_strip(&py_str(&value)).to_lowercase();
        let has = |ws: &[&str]| ws.iter().any(|w| t.contains(w));
        Ok(s(if has(&["no", "not", "wrong", "false"]) {
            "FALSE"
        } else if has(&["yes", "right", "correct", "true"]) {
            "TRUE"
        } else {
            "OTHER"
        }))
    }
}

/// `lower_case_till_punc`: the lower-cased text up to its first `.`, `,`, `!`, `?` or `;`
/// (Unitxt's `LowerCaseTillPunc`). Errors on non-strings.
#[derive(Debug, Deserialize)]
pub struct LowerCaseTillPunc {}

impl FieldOperator for LowerCaseTillPunc {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        let low = as_text(&value, "lower")?.to_lowercase();
        let cut = low.find(['.', ',', '!', '?', ';']).unwrap_or(low.len());
        Ok(s(&low[..cut]))
    }
}

/// `get_string_after`: the text after the first `substring` (all of it when absent), stripped
/// (Unitxt's `GetStringAfter`). Errors on non-strings and an empty `substring`.
#[derive(Debug, Deserialize)]
pub struct GetStringAfter {
    /// `substring`: the marker the text is taken after (must not be empty).
    pub substring: String,
}

impl FieldOperator for GetStringAfter {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        let t = as_text(&value, "split")?;
        if self.substring.is_empty() {
            return Err(Error::invalid("empty separator"));
        }
        let after = t.split_once(self.substring.as_str()).map_or(t, |(_, a)| a);
        Ok(s(py_strip(after)))
    }
}

/// `substring`: `value[begin:end]` of a string or list (Unitxt's `Substring`).
#[derive(Debug, Deserialize)]
pub struct Substring {
    /// `begin`: the first index kept (default 0; negative counts from the end).
    #[serde(default)]
    pub begin: i64,
    /// `end`: the index where the slice stops, excluded (absent: to the end).
    #[serde(default)]
    pub end: Option<i64>,
}

impl FieldOperator for Substring {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        py_slice(&value, Some(self.begin), self.end, None)
    }
}

/// `add_prefix`: the text stripped of Python whitespace at both ends, with `prefix` put in
/// front unless it already starts with it (Unitxt's `AddPrefix`). Errors on non-strings.
#[derive(Debug, Deserialize)]
pub struct AddPrefix {
    /// `prefix`: the text to put in front.
    pub prefix: String,
}

impl FieldOperator for AddPrefix {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        let text = py_strip(as_text(&value, "add_prefix")?);
        if text.starts_with(self.prefix.as_str()) {
            return Ok(Value::from(text.to_string()));
        }
        Ok(Value::from(format!("{}{text}", self.prefix)))
    }
}

/// `first_character`: the first word character (`\w`) of the text, or `""` (Unitxt's
/// `FirstCharacter`). Errors on non-strings.
#[derive(Debug, Deserialize)]
pub struct FirstCharacter {}

impl FieldOperator for FirstCharacter {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        // The first match of `\s*(\w)` is the first `\w` character of the text.
        eval_py(r#"(re.findall(r"\s*(\w)", text) + [""])[0]"#, &[("text", value)])
    }
}

/// `take_first_word`: the first number (`-12.5`, `3`) or word of the text, or `""` (Unitxt's
/// `TakeFirstWord`). Errors on non-strings.
#[derive(Debug, Deserialize)]
pub struct TakeFirstWord {}

impl FieldOperator for TakeFirstWord {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        eval_py(r#"(re.findall(r"(?:[-]*[0-9]+(?:\.(?:[0-9]+))*)|(?:[\w]+)", text) + [""])[0]"#, &[("text", value)])
    }
}

/// The fixed label mappings of Unitxt's `YesNoToInt`, `YesToOneElseZero`, `ToYesOrNone` and
/// `StanceToProCon`: the value compared with string labels (non-strings never equal them).
#[derive(Debug, Clone, Copy)]
pub enum LabelMap {
    /// `yes_no_to_int`: `"yes"`→`"1"`, `"no"`→`"0"`, anything else unchanged.
    YesNoToInt,
    /// `yes_to_one_else_zero`: `"yes"`→`"1"`, anything else `"0"`.
    YesToOneElseZero,
    /// `to_yes_or_none`: `"yes"`→`"yes"`, anything else `"none"`.
    ToYesOrNone,
    /// `stance_to_pro_con`: `"positive"`→`"PRO"`, `"negative"`/`"suggestion"`→`"CON"`, else `"none"`.
    StanceToProCon,
}

impl FieldOperator for LabelMap {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        let t = value.as_str();
        Ok(match self {
            LabelMap::YesNoToInt => match t {
                Some("yes") => s("1"),
                Some("no") => s("0"),
                _ => value,
            },
            LabelMap::YesToOneElseZero => s(if t == Some("yes") { "1" } else { "0" }),
            LabelMap::ToYesOrNone => s(if t == Some("yes") { "yes" } else { "none" }),
            LabelMap::StanceToProCon => s(match t {
                Some("positive") => "PRO",
                Some("negative") | Some("suggestion") => "CON",
                _ => "none",
            }),
        })
    }
}

/// `str_to_float_format`: `str(float(value))` (`"3"`→`"3.0"`), or `str(value)` when it is not a
/// number (Unitxt's `StrToFloatFormat`).
#[derive(Debug, Deserialize)]
pub struct StrToFloatFormat {}

impl FieldOperator for StrToFloatFormat {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        if let Value::String(t) = &value {
            // float() accepts these, and their str() is not representable as a JSON number.
            if let Some(f) = crate::py::ops::parse_py_float(t) {
                if f.is_nan() {
                    return Ok(s("nan"));
                }
                if f.is_infinite() {
                    return Ok(s(if f > 0.0 { "inf" } else { "-inf" }));
                }
            }
        }
        Ok(s(match py_float(&value) {
            Ok(f) => py_str(&f),
            Err(_) => py_str(&value),
        }))
    }
}

/// `string_equals`: `"not <string>"` when the lower-cased text contains it, else `<string>`
/// (lower-cased) when it contains that, else the text unchanged (Unitxt's `StringEquals`).
/// Errors on non-strings.
#[derive(Debug, Deserialize)]
pub struct StringEquals {
    /// `string`: the word looked for.
    pub string: String,
}

impl FieldOperator for StringEquals {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        let t = as_text(&value, "lower")?.to_lowercase();
        let want = self.string.to_lowercase();
        let neg = format!("not {want}");
        if t.contains(&neg) {
            return Ok(s(neg));
        }
        if t.contains(&want) {
            return Ok(s(want));
        }
        Ok(value)
    }
}

/// `remove_articles`: each whole word `a`, `an`, `the` (case-sensitive) replaced by a space
/// (Unitxt's `RemoveArticles`). Errors on non-strings.
#[derive(Debug, Deserialize)]
pub struct RemoveArticles {}

impl FieldOperator for RemoveArticles {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        eval_py(r#"re.sub(r"\b(a|an|the)\b", " ", text)"#, &[("text", value)])
    }
}

/// `remove_punctuations`: the text without ASCII punctuation (Python's `string.punctuation`)
/// (Unitxt's `RemovePunctuations`). Errors on non-strings.
#[derive(Debug, Deserialize)]
pub struct RemovePunctuations {}

impl FieldOperator for RemovePunctuations {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        if let Value::String(t) = &value {
            return Ok(s(t.chars().filter(|c| !c.is_ascii_punctuation()).collect::<String>()));
        }
        // Python iterates any other iterable (list items, dict keys) and joins what is left,
        // which must be strings.
        let mut out = String::new();
        for item in py_iter(&value)? {
            match &item {
                Value::String(x) => {
                    let mut cs = x.chars();
                    let single_punct = matches!((cs.next(), cs.next()), (Some(c), None) if c.is_ascii_punctuation());
                    if !single_punct {
                        out.push_str(x);
                    }
                }
                Value::Array(_) | Value::Object(_) => {
                    return Err(Error::invalid(format!("unhashable type: '{}'", type_name(&item))))
                }
                other => {
                    return Err(Error::invalid(format!("sequence item: expected str instance, {} found", type_name(other))))
                }
            }
        }
        Ok(s(out))
    }
}

/// `fix_white_space`: runs of whitespace collapsed to one space, ends trimmed (Unitxt's
/// `FixWhiteSpace`). Errors on non-strings.
#[derive(Debug, Deserialize)]
pub struct FixWhiteSpace {}

impl FieldOperator for FixWhiteSpace {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        let t = as_text(&value, "split")?;
        Ok(s(t.split(is_py_space).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")))
    }
}

/// `list_to_empty_entities_tuples`: each item `x` of a list becomes the pair `[str(x), ""]`
/// (Unitxt's `ListToEmptyEntitiesTuples`). A string gives one pair per character.
#[derive(Debug, Deserialize)]
pub struct ListToEmptyEntitiesTuples {}

impl FieldOperator for ListToEmptyEntitiesTuples {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        let items = py_iter(&value)?;
        Ok(Value::Array(items.iter().map(|x| Value::Array(vec![s(py_str(x)), s("")])).collect()))
    }
}

/// `get_sql`: the SQL query in a model's answer (Unitxt's `GetSQL`): the last ```` ```sql ````
/// block, else the last ```` ``` ```` block when it starts with an SQL keyword, else the text
/// from the last SQL keyword on; cut at the first `;`, fences removed, stripped. Gives
/// `"No query found in generation"` when there is none and `"Input must be a string"` for
/// non-strings.
#[derive(Debug, Deserialize)]
pub struct GetSql {}

const SQL_KEYWORDS: &str = "SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|WITH|DROP|TRUNCATE";

fn last_str(v: Value) -> Option<String> {
    v.as_array().and_then(|a| a.last()).and_then(|x| x.as_str()).map(str::to_string)
}

impl FieldOperator for GetSql {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        let Some(text) = value.as_str() else { return Ok(s("Input must be a string")) };
        let kw = || s(SQL_KEYWORDS);
        let mut candidate: Option<String> =
            last_str(eval_py(r#"re.findall(r"```sql\s*(.*?)\s*```", text, re.DOTALL | re.IGNORECASE)"#, &[(
                "text",
                value.clone(),
            )])?)
            .map(|b| py_strip(&b).to_string());
        if candidate.is_none() {
            if let Some(b) = last_str(eval_py(r#"re.findall(r"```\s*(.*?)\s*```", text, re.DOTALL)"#, &[(
                "text",
                value.clone(),
            )])?) {
                let b = py_strip(&b).to_string();
                let starts = eval_py(
                    r#"re.match("^(" + kw + r")\b", b, re.IGNORECASE) is not None"#,
                    &[("kw", kw()), ("b", s(b.clone()))],
                )?;
                if starts == Value::Bool(true) {
                    candidate = Some(b);
                }
            }
        }
        if candidate.is_none() {
            let starts = eval_py(
                r#"[m.start() for m in re.finditer(r"\b(" + kw + r")\b", text, re.IGNORECASE)]"#,
                &[("kw", kw()), ("text", value.clone())],
            )?;
            if let Some(start) = starts.as_array().and_then(|a| a.last()).and_then(|x| x.as_u64()) {
                let rest: String = text.chars().skip(start as usize).collect();
                candidate = Some(py_strip(&rest).to_string());
            }
        }
        match candidate.filter(|c| !c.is_empty()) {
            Some(c) => {
                let q = py_strip(c.split(';').next().unwrap_or(""));
                Ok(s(py_strip(&q.replace("```sql", "").replace("```", ""))))
            }
            None => Ok(s("No query found in generation")),
        }
    }
}
