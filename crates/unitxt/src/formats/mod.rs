//! Formats: wrap the verbalized instance (instruction, demos, source, target prefix, system
//! prompt) into the model's input string or chat messages (Unitxt's `formats.py`).
//! Formats implement [`Format`] and are registered as `Artifact::Format`.
//!
//! A format runs after the template and the system prompt. It takes the rendered texts
//! (`source`, `instruction`, `target_prefix`) and the system prompt's text as [`Pieces`] (each
//! may be missing, which counts as `""`), and reads these fields of the instance:
//! - `demos` (or the format's `demos_field`): a list of templated demo instances, of which
//!   `source`, `target` and `target_prefix` are used; left in the instance;
//! - `media` (left in place) and `__turns__` (dialog turns, left in place).
//!
//! It gives the model input, the instance's new `source`.
//! [`system::SystemFormat`] produces a string, [`chat_api::ChatApiFormat`] a list of
//! `{role, content}` messages (Unitxt serializes that list with `json.dumps` when it finalizes
//! the instance, and `load_dataset` parses it back).

pub mod chat_api;
pub mod pyformat;
pub mod system;
pub mod tokenizer;

use crate::error::{Error, Result};
use crate::stream::StreamScope;
use crate::value::{Instance, Str, Value};

/// Name of the field that holds the demos unless a format says otherwise.
pub const DEFAULT_DEMOS_FIELD: &str = "demos";

fn default_demos_field() -> Option<String> {
    Some(DEFAULT_DEMOS_FIELD.to_string())
}

/// One demo as a format sees it: its `source`, `target` and `target_prefix` (each `""` when the
/// demo lacks it).
#[derive(Debug, Clone)]
pub struct Demo {
    /// The demo's `source` text.
    pub source: Value,
    /// The demo's `target` text.
    pub target: Value,
    /// The demo's `target_prefix` text.
    pub target_prefix: Value,
}

/// The pieces a format assembles ([`fields_with`]).
#[derive(Debug, Clone)]
pub struct FormatFields {
    /// The instance's `source`, as the template rendered it.
    pub source: Value,
    /// The instance's `instruction` (`""` when absent).
    pub instruction: Value,
    /// The instance's `system_prompt` (`""` when absent).
    pub system_prompt: Value,
    /// The instance's `target_prefix` (`""` when absent).
    pub target_prefix: Value,
    /// The instance's `__turns__`, when it has one.
    pub turns: Option<Value>,
    /// The rendered demos from the demos field, in order (empty without demos).
    pub demos: Vec<Demo>,
}

/// The value of field `name` as taken: `""` when missing, an error when it holds `null`
/// (Unitxt asserts non-None values).
fn present_or_empty(v: Option<Value>, name: &str, whole: &str) -> Result<Value> {
    match v {
        None => Ok(Value::String(Str::default())),
        Some(Value::Null) => Err(Error::invalid(format!("field {name:?} of the {whole} must not be None"))),
        Some(v) => Ok(v),
    }
}

/// The texts a format assembles: the template's (or the already rendered instance's)
/// `source`, `instruction` and `target_prefix`, and the system prompt's text. A missing one
/// (`None`) counts as `""`.
#[derive(Debug, Clone)]
pub struct Pieces {
    /// The template's `source` text.
    pub source: Option<Value>,
    /// The template's `instruction` text.
    pub instruction: Option<Value>,
    /// The system prompt's text.
    pub system_prompt: Option<Value>,
    /// The template's `target_prefix` text.
    pub target_prefix: Option<Value>,
}

/// The [`FormatFields`] of `instance` with the texts `pieces` (Unitxt's
/// `BaseFormat._prepare_instance_fields`): its `__turns__` and the demos of `demos_field` are
/// read from it, which stays as it is. Errors when one of the texts or `media` is `null`, or
/// the demos are not a list of dicts.
pub fn fields_with(instance: &Instance, demos_field: Option<&str>, pieces: Pieces) -> Result<FormatFields> {
    let Pieces { source, instruction, system_prompt, target_prefix } = pieces;
    let source = present_or_empty(source, "source", "instance")?;
    let instruction = present_or_empty(instruction, "instruction", "instance")?;
    let system_prompt = present_or_empty(system_prompt, "system_prompt", "instance")?;
    let target_prefix = present_or_empty(target_prefix, "target_prefix", "instance")?;
    // The fields read, found in one pass.
    let [p_turns, p_media, p_demos] = match demos_field {
        Some(df) => instance.positions_of(["__turns__", "media", df]),
        None => {
            const KEYS: [&str; 2] = ["__turns__", "media"];
            const TAGS: [u64; 2] = crate::value::map::tags_of(KEYS);
            let [t, m] = instance.positions_of_tagged(KEYS, TAGS);
            [t, m, None]
        }
    };
    let turns = p_turns.map(|i| instance.get_index(i).clone());
    if p_media.is_some_and(|i| instance.get_index(i).is_null()) {
        return Err(Error::invalid("field \"media\" of the instance must not be None"));
    }
    let mut demos = Vec::new();
    if let Some(df) = demos_field {
        if let Some(d) = p_demos.map(|i| instance.get_index(i)) {
            let list = match d {
                Value::Array(items) if items.iter().all(|x| x.is_object()) => items,
                other => {
                    return Err(Error::invalid(format!(
                        "field {df:?} must hold a list of dicts (the demos), got {}",
                        crate::artifact::short(other)
                    )))
                }
            };
            // Copied: the instance keeps its demos as they are (Unitxt's format does not
            // change them).
            for (i, item) in list.iter().enumerate() {
                let Value::Object(m) = item else { continue };
                let read = |name: &str| match m.get(name) {
                    None => Ok(Value::String(Str::default())),
                    Some(Value::Null) => Err(Error::invalid(format!("field {name:?} of the demo {i} must not be None"))),
                    Some(v) => Ok(v.clone()),
                };
                demos.push(Demo { source: read("source")?, target: read("target")?, target_prefix: read("target_prefix")? });
            }
        }
    }
    Ok(FormatFields { source, instruction, system_prompt, target_prefix, turns, demos })
}

/// A format (Unitxt's `Format`): builds the model input from the rendered texts, the system
/// prompt and the demos ([`system::SystemFormat`], [`chat_api::ChatApiFormat`]).
pub trait Format: Send + Sync {
    /// The splits it applies to; on the others the template's `source` is the model input.
    fn scope(&self) -> &StreamScope;
    /// The field holding the demos (`None`: no demos).
    fn demos_field(&self) -> Option<&str>;
    /// The model input built from `f` (the new `source`), for `instance`, which may be
    /// changed otherwise (a chat format empties `media/images`).
    fn model_input(&self, instance: &mut Instance, f: FormatFields) -> Result<Value>;

    /// The model input of `instance` from the texts `pieces` ([`fields_with`], then
    /// [`Format::model_input`]). Errors as both do.
    fn format(&self, instance: &mut Instance, pieces: Pieces) -> Result<Value> {
        let f = fields_with(instance, self.demos_field(), pieces)?;
        self.model_input(instance, f)
    }

    /// [`Format::format`] when the task's `input_fields` (as the template leaves them) are at
    /// hand: a format that reads them (Unitxt's `GraniteDocumentsFormat`) overrides this; the
    /// others ignore them.
    fn format_with_inputs(&self, instance: &mut Instance, pieces: Pieces, input_fields: Option<&crate::value::Map>) -> Result<Value> {
        let _ = input_fields;
        self.format(instance, pieces)
    }

    /// Python's `repr` of this kind of format made without arguments (Unitxt 1.26.10's
    /// dataclass `repr`), when the engine reproduces it (a recipe's refiner seeds from it, see
    /// [`crate::operators::streams::RefinerSeedContext`]); `None` by default.
    fn bare_repr(&self) -> Option<&'static str> {
        None
    }
}

/// Unitxt's `Format.process` on an instance of split `split`: on the splits of the format's
/// scope, `source`, `instruction`, `system_prompt` and `target_prefix` are moved out of the
/// instance into [`Pieces`] and the model input ([`Format::format`]) becomes its `source`, the
/// last field. A format that reads the task's input fields ([`Format::format_with_inputs`])
/// gets a copy of the instance's `input_fields`. On other splits the instance is returned
/// unchanged.
pub fn format_instance(format: &dyn Format, mut instance: Instance, split: &str) -> Result<Instance> {
    if !format.scope().applies(split) {
        return Ok(instance);
    }
    let mut take = |k: &str| instance.shift_remove(k);
    let pieces = Pieces { source: take("source"), instruction: take("instruction"), system_prompt: take("system_prompt"), target_prefix: take("target_prefix") };
    let inputs = instance.get("input_fields").and_then(|v| v.as_object()).cloned();
    let source = format.format_with_inputs(&mut instance, pieces, inputs.as_ref())?;
    instance.insert("source".into(), source);
    Ok(instance)
}

/// Python truthiness of a field value (for `if source`, `if instruction`).
pub(crate) fn truthy(v: &Value) -> bool {
    crate::value::truthy(v)
}

/// Python `str()` of a field value.
pub(crate) fn py_str(v: &Value) -> String {
    match v {
        Value::String(s) => s.as_str().to_owned(),
        other => crate::py::repr::str(other),
    }
}

/// The string in a field value, or an error naming `what` (Unitxt concatenates these with `+`,
/// which only works on strings).
pub(crate) fn need_str<'a>(v: &'a Value, what: &str) -> Result<&'a str> {
    v.as_str()
        .ok_or_else(|| Error::invalid(format!("{what} must be a string, got {}", crate::artifact::short(v))))
}

/// The position of the first `\N` in `b`: each backslash (found with `memchr`) is checked for
/// an `N` after it. Cheaper than a substring search for this two-byte needle on the short
/// texts formats produce.
fn find_capital_new_line(b: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(off) = memchr::memchr(b'\\', &b[from..]) {
        let p = from + off;
        if b.get(p + 1) == Some(&b'N') {
            return Some(p);
        }
        from = p + 1;
    }
    None
}

/// Unitxt's "capital new line notation": the two characters `\N` in a format string mean "a
/// new line, unless there is nothing before it". A leading run of new lines and `\N`s that
/// ends in `\N` is dropped; then every other run ending in one or more `\N`s becomes one
/// `"\n"`. As in Unitxt, such a run also swallows the characters `(`, `)`, `\` and `N` directly
/// before it (Unitxt's pattern uses a character class that contains them).
/// The text is returned as is when it holds no `\\N`; otherwise its kept stretches are copied
/// into a new string.
pub fn apply_capital_new_line_notation(text: String) -> String {
    let Some(first) = find_capital_new_line(text.as_bytes()) else { return text };
    let is_bn = |b: &[u8], i: usize| i + 1 < b.len() && b[i] == b'\\' && b[i + 1] == b'N';
    let in_class = |c: u8| matches!(c, b'\n' | b'(' | b'\\' | b'N' | b')');
    // Every byte examined or cut at is ASCII (`\n`, `\\`, `N`, `(`, `)`), so the kept stretches
    // start and end on character boundaries.
    let b = text.as_bytes();
    let mut out = String::with_capacity(b.len());
    // Leading part: (\n | \N)* that ends with \N, longest such prefix.
    let mut i = 0;
    let mut cut = 0;
    loop {
        if i < b.len() && b[i] == b'\n' {
            i += 1;
        } else if is_bn(b, i) {
            i += 2;
            cut = i;
        } else {
            break;
        }
    }
    // Only runs that hold a `\N` change: find each `\N`, then widen it to its maximal run of
    // class characters. `from` is the end of the last run handled, a non-class byte (or the
    // start), so a run never reaches back past it. `copied` is where the next kept stretch
    // starts.
    let mut copied = cut;
    let mut from = cut;
    let mut next = (first >= cut).then_some(first);
    loop {
        let p = match next.take() {
            Some(p) => p,
            None => match find_capital_new_line(&b[from..]) {
                Some(off) => from + off,
                None => break,
            },
        };
        let mut i = p;
        while i > from && in_class(b[i - 1]) {
            i -= 1;
        }
        let mut j = p + 2;
        while j < b.len() && in_class(b[j]) {
            j += 1;
        }
        // A match ends at the run's last `\N`; what follows it in the run is kept as is.
        let k = (p..j - 1).rev().find(|&k| is_bn(b, k)).unwrap_or(p);
        out.push_str(&text[copied..i]);
        out.push('\n');
        out.push_str(&text[k + 2..j]);
        copied = j;
        from = j;
    }
    out.push_str(&text[copied..]);
    out
}

impl crate::artifact::ArtifactKind for dyn Format {
    const KIND: &'static str = "format";
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values from unitxt.formats.apply_capital_new_line_notation (Unitxt 1.26.10).
    #[test]
    fn capital_new_line_notation() {
        let cases = [
            ("Hello World\n\n\\N", "Hello World\n"),
            ("\n\n\\NGoodbye World", "Goodbye World"),
            ("\\N", ""),
            ("\\N\\Nx\\Ny", "x\ny"),
            ("a (A)\\Nb", "a (A\nb"),
            ("ABN\\N\\N\n(\\Nz", "AB\nz"),
            ("sys\\N\\Nsrc\\N", "sys\nsrc\n"),
            ("a\\N\nb\\N\n\n", "a\n\nb\n\n\n"),
            ("\n\\N\n\\Nq\\", "q\\"),
            ("é\\Nü (\\N)\\N日", "é\nü \n日"),
            ("\\N\n\\Né (x)\\N\\N\\Ny\n\\N", "é (x\ny\n"),
            ("a\\Nb\\Nc\\Nd", "a\nb\nc\nd"),
            ("no marker é", "no marker é"),
        ];
        for (inp, exp) in cases {
            assert_eq!(apply_capital_new_line_notation(inp.to_string()), exp, "input {inp:?}");
        }
    }
}


#[cfg(test)]
mod oracle_tests;
