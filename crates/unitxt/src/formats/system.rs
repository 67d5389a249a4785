//! `system_format`: the model input as one string built from two Python format strings
//! (Unitxt's `SystemFormat`).

use indexmap::IndexMap;
use serde::Deserialize;

use super::pyformat::format_kwargs;
use super::{apply_capital_new_line_notation, truthy, FormatFields, Format};
use crate::error::{Error, Result, ResultExt};
use crate::stream::StreamScope;
use crate::py::str_format::{FormatString, PlainPiece};
use crate::value::{Instance, Value};

fn default_demo_format() -> FormatString {
    "{source}\\N{target_prefix}{target}\n\n".into()
}

fn default_model_input_format() -> FormatString {
    "{system_prompt}\\N{instruction}\\N{demos}{source}\\N{target_prefix}".into()
}

/// Unitxt's `SystemFormat`. Each demo is rendered with `demo_format` (fields `source`,
/// `target`, `target_prefix` of the demo, `instruction` of the instance, and `format_args`);
/// the rendered demos are concatenated into `{demos}` of `model_input_format` (with
/// `system_prompt`, `instruction`, `source`, `target_prefix` and `format_args`); `\N` markers are
/// then resolved by [`apply_capital_new_line_notation`]. The result replaces `source`.
///
/// When the instance has `__turns__` and an empty `source`, the source is the turns as
/// `json.dumps` writes them. Errors on a malformed format string, a name it uses that is not
/// given, a `format_args` key that clashes with a built-in name, or fields holding `null`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SystemFormat {
    /// Field holding the demos; `null` means no demos.
    #[serde(default = "super::default_demos_field")]
    pub demos_field: Option<String>,
    /// `demo_format`: one demo, a format string over the demo's `source`, `target` and
    /// `target_prefix`, the instance's `instruction` and `format_args` (default
    /// `{source}\N{target_prefix}{target}` and two new lines).
    #[serde(default = "default_demo_format")]
    pub demo_format: FormatString,
    /// `model_input_format`: the whole model input, a format string over `system_prompt`,
    /// `instruction`, `demos`, `source`, `target_prefix` and `format_args` (default
    /// `{system_prompt}\N{instruction}\N{demos}{source}\N{target_prefix}`).
    #[serde(default = "default_model_input_format")]
    pub model_input_format: FormatString,
    /// Extra named values for both format strings.
    #[serde(default)]
    pub format_args: IndexMap<String, Value>,
    /// Which splits it applies to (`apply_to_streams`, `dont_apply_to_streams`), flattened into the
    /// artifact.
    #[serde(flatten)]
    pub scope: StreamScope,
    /// The two format strings as [`Plans`], made on first use.
    #[serde(skip)]
    plans: std::sync::OnceLock<Plans>,
}

/// A piece of a format string over the values the format fills in itself (see [`Plans`]).
#[derive(Debug, Clone)]
enum Part {
    /// Literal text.
    Text(String),
    /// The value at this position of the format's list of names ([`MODEL_INPUT_ARGS`] or
    /// [`DEMO_ARGS`]).
    Arg(usize),
}

/// `model_input_format` and `demo_format` as literal texts and positions of the values the
/// format fills in, when a string is made of plain `{name}` fields over those values only
/// ([`FormatString::plain_pieces`]) and there are no `format_args`; `None` for a string that is not. With
/// string values, formatting such a string is concatenating its pieces
/// ([`concat_into`]); anything else goes through [`format_kwargs`].
#[derive(Debug, Clone, Default)]
struct Plans {
    model_input: Option<Vec<Part>>,
    demo: Option<Vec<Part>>,
}

/// The values `model_input_format` is given, in the order of [`Part::Arg`] positions.
const MODEL_INPUT_ARGS: [&str; 5] = ["system_prompt", "instruction", "demos", "source", "target_prefix"];
/// The values `demo_format` is given, in the order of [`Part::Arg`] positions.
const DEMO_ARGS: [&str; 4] = ["source", "target", "target_prefix", "instruction"];

/// `fmt` as [`Part`]s over `names`; `None` when it is not plain or names anything else.
fn plan(fmt: &FormatString, names: &[&str]) -> Option<Vec<Part>> {
    fmt.plain_pieces()?
        .into_iter()
        .map(|p| match p {
            PlainPiece::Text(t) => Some(Part::Text(t)),
            PlainPiece::Field(n) => names.iter().position(|k| *k == n).map(Part::Arg),
        })
        .collect()
}

/// Appends `parts` with `args` in place of their positions, and returns true, when every
/// value used is a string (Python's `str.format` then concatenates); false, with `out`
/// unchanged, otherwise.
fn concat_into(parts: &[Part], args: &[&Value], out: &mut String) -> bool {
    let mut len = 0;
    for p in parts {
        len += match p {
            Part::Text(t) => t.len(),
            Part::Arg(i) => match args[*i].as_str() {
                Some(s) => s.len(),
                None => return false,
            },
        };
    }
    out.reserve(len);
    for p in parts {
        match p {
            Part::Text(t) => out.push_str(t),
            Part::Arg(i) => out.push_str(args[*i].as_str().unwrap_or_default()),
        }
    }
    true
}

impl Default for SystemFormat {
    /// `SystemFormat()` with Unitxt's defaults: the recipe's format when none is given.
    fn default() -> Self {
        SystemFormat {
            demos_field: super::default_demos_field(),
            demo_format: default_demo_format(),
            model_input_format: default_model_input_format(),
            format_args: IndexMap::new(),
            scope: StreamScope::default(),
            plans: std::sync::OnceLock::new(),
        }
    }
}

impl SystemFormat {
    /// The default format as an artifact, with the JSON Unitxt records for it
    /// (`{"__type__": "system_format"}`).
    pub fn default_artifact() -> crate::artifact::Art<dyn Format> {
        let op: std::sync::Arc<dyn Format> = std::sync::Arc::new(SystemFormat::default());
        crate::artifact::Art::new(op, crate::json!({"__type__": "system_format"}))
    }

    /// The format strings as [`Plans`] (none with `format_args`).
    fn plans(&self) -> &Plans {
        self.plans.get_or_init(|| {
            if !self.format_args.is_empty() {
                return Plans::default();
            }
            Plans { model_input: plan(&self.model_input_format, &MODEL_INPUT_ARGS), demo: plan(&self.demo_format, &DEMO_ARGS) }
        })
    }

    /// The keyword arguments: `fixed` then `format_args`; a clash is Python's "got multiple
    /// values for keyword argument" error.
    fn kwargs<'a>(&'a self, fixed: Vec<(&'a str, &'a Value)>, which: &str) -> Result<Vec<(&'a str, &'a Value)>> {
        let mut args = fixed;
        for (k, v) in &self.format_args {
            if args.iter().any(|(n, _)| n == k) {
                return Err(Error::invalid(format!(
                    "format_args key {k:?} clashes with a value the format fills in itself ({which})"
                )));
            }
            args.push((k.as_str(), v));
        }
        Ok(args)
    }
}

impl Format for SystemFormat {
    fn scope(&self) -> &StreamScope {
        &self.scope
    }

    /// Python's `repr` of `SystemFormat()` in Unitxt 1.26.10.
    fn bare_repr(&self) -> Option<&'static str> {
        Some(r"SystemFormat(__type__='system_format', __title__=None, __description__=None, __tags__={}, __deprecated_msg__=None, data_classification_policy=None, requirements=[], caching=None, apply_to_streams=None, dont_apply_to_streams=None, demos_field='demos', demo_format='{source}\\N{target_prefix}{target}\n\n', model_input_format='{system_prompt}\\N{instruction}\\N{demos}{source}\\N{target_prefix}', format_args={})")
    }

    fn demos_field(&self) -> Option<&str> {
        self.demos_field.as_deref()
    }

    fn model_input(&self, _instance: &mut Instance, mut f: FormatFields) -> Result<Value> {
        let mut source = std::mem::take(&mut f.source);
        if let Some(turns) = &f.turns {
            if !truthy(&source) {
                source = Value::String(crate::py::json::dumps(turns, Default::default()).into());
            }
        }
        let plans = self.plans();
        let mut demos = String::new();
        for (i, d) in f.demos.iter().enumerate() {
            if let Some(p) = &plans.demo {
                if concat_into(p, &[&d.source, &d.target, &d.target_prefix, &f.instruction], &mut demos) {
                    continue;
                }
            }
            let fixed = vec![
                ("source", &d.source),
                ("target", &d.target),
                ("target_prefix", &d.target_prefix),
                ("instruction", &f.instruction),
            ];
            let args = self.kwargs(fixed, "demo_format")?;
            demos.push_str(&format_kwargs(&self.demo_format, &args).with_ctx(|| format!("rendering demo {i}"))?);
        }
        let demos = Value::String(demos.into());
        let mut out = String::new();
        let planned = plans.model_input.as_ref().is_some_and(|p| concat_into(p, &[&f.system_prompt, &f.instruction, &demos, &source, &f.target_prefix], &mut out));
        if !planned {
            let fixed = vec![
                ("system_prompt", &f.system_prompt),
                ("instruction", &f.instruction),
                ("demos", &demos),
                ("source", &source),
                ("target_prefix", &f.target_prefix),
            ];
            let args = self.kwargs(fixed, "model_input_format")?;
            out = format_kwargs(&self.model_input_format, &args).ctx("rendering model_input_format")?;
        }
        Ok(Value::String(apply_capital_new_line_notation(out).into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{Demo, FormatFields};
    use crate::json;

    fn fields(demos: Vec<Demo>) -> FormatFields {
        FormatFields {
            source: json!("Q: 2+2?"),
            instruction: json!("Answer."),
            system_prompt: json!("Be brief."),
            target_prefix: json!("A: "),
            turns: None,
            demos,
        }
    }

    fn demo(source: Value, target: &str) -> Demo {
        Demo { source, target: json!(target), target_prefix: json!("A: ") }
    }

    fn source_of(format: &SystemFormat, f: FormatFields) -> Value {
        format.model_input(&mut Instance::new(), f).unwrap()
    }

    /// Plain format strings are concatenated; the text is the one `format_kwargs` gives
    /// (a format with `format_args` has no plans and takes that path).
    #[test]
    fn planned_and_formatted_model_inputs_agree() {
        let planned = SystemFormat::default();
        assert!(planned.plans().model_input.is_some() && planned.plans().demo.is_some());
        let mut general = SystemFormat::default();
        general.format_args.insert("unused".into(), json!("x"));
        assert!(general.plans().model_input.is_none() && general.plans().demo.is_none());
        // Expected text from Unitxt 1.26.10's default SystemFormat.
        let expected = "Be brief.\nAnswer.\nQ: 1+1?\nA: 2\n\nQ: 2+2?\nA: ";
        let demos = || vec![demo(json!("Q: 1+1?"), "2")];
        assert_eq!(source_of(&planned, fields(demos())), json!(expected));
        assert_eq!(source_of(&general, fields(demos())), json!(expected));
        // A demo source that is not a string goes through Python's `str()` either way.
        let odd = || vec![demo(json!(["a", 1]), "2")];
        assert_eq!(source_of(&planned, fields(odd())), source_of(&general, fields(odd())));
        assert_eq!(source_of(&planned, fields(odd())), json!("Be brief.\nAnswer.\n['a', 1]\nA: 2\n\nQ: 2+2?\nA: "));
    }

    /// A string with a spec or a name the format does not fill in has no plan.
    #[test]
    fn strings_that_are_not_plain_have_no_plan() {
        assert!(plan(&"{source:>5}".into(), &MODEL_INPUT_ARGS).is_none());
        assert!(plan(&"{source}{question}".into(), &MODEL_INPUT_ARGS).is_none());
        assert!(plan(&"{target}".into(), &MODEL_INPUT_ARGS).is_none());
        assert!(plan(&"{target}".into(), &DEMO_ARGS).is_some());
    }
}
