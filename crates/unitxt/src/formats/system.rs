//! `system_format`: the model input as one string built from two Python format strings
//! (Unitxt's `SystemFormat`).

use indexmap::IndexMap;
use serde::Deserialize;

use super::pyformat::format_kwargs;
use super::{apply_capital_new_line_notation, truthy, FormatFields, FormatKind};
use crate::error::{Error, Result, ResultExt};
use crate::operators::{InstanceOperator, StreamScope};
use crate::value::{Instance, Value};

fn default_demo_format() -> String {
    "{source}\\N{target_prefix}{target}\n\n".to_string()
}

fn default_model_input_format() -> String {
    "{system_prompt}\\N{instruction}\\N{demos}{source}\\N{target_prefix}".to_string()
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
pub struct SystemFormat {
    /// Field holding the demos; `null` means no demos.
    #[serde(default = "super::default_demos_field")]
    pub demos_field: Option<String>,
    /// `demo_format`: one demo, a format string over the demo's `source`, `target` and
    /// `target_prefix`, the instance's `instruction` and `format_args` (default
    /// `{source}\N{target_prefix}{target}` and two new lines).
    #[serde(default = "default_demo_format")]
    pub demo_format: String,
    /// `model_input_format`: the whole model input, a format string over `system_prompt`,
    /// `instruction`, `demos`, `source`, `target_prefix` and `format_args` (default
    /// `{system_prompt}\N{instruction}\N{demos}{source}\N{target_prefix}`).
    #[serde(default = "default_model_input_format")]
    pub model_input_format: String,
    /// Extra named values for both format strings.
    #[serde(default)]
    pub format_args: IndexMap<String, Value>,
    /// Which splits it applies to (`apply_to_streams`, `dont_apply_to_streams`), flattened into the
    /// artifact.
    #[serde(flatten)]
    pub scope: StreamScope,
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
        }
    }
}

impl SystemFormat {
    /// The default format as an artifact, with the JSON Unitxt records for it
    /// (`{"__type__": "system_format"}`).
    pub fn default_artifact() -> crate::artifact::Art<dyn InstanceOperator> {
        let op: std::sync::Arc<dyn InstanceOperator> = std::sync::Arc::new(SystemFormat::default());
        crate::artifact::Art::new(op, crate::json!({"__type__": "system_format"}))
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

impl FormatKind for SystemFormat {
    fn scope(&self) -> &StreamScope {
        &self.scope
    }

    fn demos_field(&self) -> Option<&str> {
        self.demos_field.as_deref()
    }

    fn assemble(&self, mut instance: Instance, mut f: FormatFields) -> Result<Instance> {
        let mut source = std::mem::take(&mut f.source);
        if let Some(turns) = &f.turns {
            if !truthy(&source) {
                source = Value::String(crate::py::json::dumps(turns, Default::default()).into());
            }
        }
        let mut demos = String::new();
        for (i, d) in f.demos.iter().enumerate() {
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
        let fixed = vec![
            ("system_prompt", &f.system_prompt),
            ("instruction", &f.instruction),
            ("demos", &demos),
            ("source", &source),
            ("target_prefix", &f.target_prefix),
        ];
        let args = self.kwargs(fixed, "model_input_format")?;
        let out = format_kwargs(&self.model_input_format, &args).ctx("rendering model_input_format")?;
        instance.insert("source".into(), Value::String(apply_capital_new_line_notation(out).into()));
        Ok(instance)
    }
}
