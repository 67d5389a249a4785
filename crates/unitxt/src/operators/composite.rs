//! Operators made of other operators.

use std::sync::Arc;

use serde::Deserialize;

use super::{apply_all, Operator};
use crate::artifact::{Art, BuildContext};
use crate::error::{Error, Result, ResultExt};
use crate::stream::MultiStream;
use crate::value::Value;

/// The catalog JSON of `sequential_operator` (Unitxt's `SequentialOperator`), which builds
/// into a [`SequentialOperator`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SequentialOperatorConfig {
    /// `steps`: the operators, in order (default none), each a nested artifact or a catalog
    /// name.
    #[serde(default)]
    pub steps: Vec<Value>,
    /// `max_steps`: run only the first this many steps (absent: all).
    #[serde(default)]
    pub max_steps: Option<usize>,
}

impl SequentialOperatorConfig {
    /// Builds the steps in `cx`.
    pub fn build(self, cx: &BuildContext<'_>) -> Result<SequentialOperator> {
        Ok(SequentialOperator { steps: cx.build_all(&self.steps)?, max_steps: self.max_steps })
    }
}

/// `sequential_operator`: applies `steps` in order, only the first `max_steps` when given
/// (Unitxt's `SequentialOperator`).
pub struct SequentialOperator {
    /// The operators, in order.
    pub steps: Vec<Art<dyn Operator>>,
    /// Run only the first this many steps (`None`: all).
    pub max_steps: Option<usize>,
}

impl Operator for SequentialOperator {
    fn process(self: Arc<Self>, ms: MultiStream) -> Result<MultiStream> {
        let n = self.max_steps.unwrap_or(self.steps.len()).min(self.steps.len());
        apply_all(&self.steps[..n], ms)
    }
}

/// Operators named by the data, built when first met (in a root context over the catalog of
/// the build that made their user) and kept by name.
struct NamedOperators {
    catalog: Arc<crate::catalog::Catalog>,
    build_fn: crate::artifact::BuildFn,
    built: std::sync::Mutex<std::collections::HashMap<String, Art<dyn Operator>>>,
}

impl NamedOperators {
    fn new(cx: &BuildContext<'_>) -> Self {
        NamedOperators { catalog: cx.catalog().clone(), build_fn: cx.build_fn(), built: Default::default() }
    }

    /// The operator `name` (a catalog name, with optional `[overwrites]`) names.
    fn get(&self, name: &str) -> Result<Art<dyn Operator>> {
        if let Some(op) = self.built.lock().ok().and_then(|m| m.get(name).cloned()) {
            return Ok(op);
        }
        let cx = BuildContext::new(&self.catalog, self.build_fn);
        let op = cx.build::<dyn Operator>(&Value::from(name))?;
        if let Ok(mut m) = self.built.lock() {
            m.insert(name.to_string(), op.clone());
        }
        Ok(op)
    }
}

/// The names in `v`: a string is one name, a list of strings several. Errors otherwise.
fn names_in(v: &Value, what: &str) -> Result<Vec<String>> {
    match v {
        Value::String(s) => Ok(vec![s.to_string()]),
        Value::Array(a) => a
            .iter()
            .map(|x| x.as_str().map(str::to_string).ok_or_else(|| Error::invalid(format!("{what}: an operator name must be a string, got {x}"))))
            .collect(),
        other => Err(Error::invalid(format!("{what}: expected an operator name or a list of them, got {other}"))),
    }
}

/// The catalog JSON of `apply_operators_field` (Unitxt's `ApplyOperatorsField`).
#[derive(Deserialize)]
pub struct ApplyOperatorsFieldConfig {
    /// `operators_field`: the top-level field holding the name, or list of names, of the
    /// operators to apply to the instance.
    pub operators_field: String,
    /// `default_operators`: the names used when the field is absent or `null`.
    #[serde(default)]
    pub default_operators: Option<Vec<String>>,
}

impl ApplyOperatorsFieldConfig {
    /// The operator, which builds the operators it is asked for in the catalog of `cx`.
    pub fn build(self, cx: &BuildContext<'_>) -> ApplyOperatorsField {
        ApplyOperatorsField { config: self, ops: NamedOperators::new(cx) }
    }
}

/// `apply_operators_field` (Unitxt's `ApplyOperatorsField`): applies to each instance, one after
/// the other, the catalog operators its field `operators_field` names (a name or a list of
/// names; `default_operators` when the field is absent or `null`), each as a step of a
/// one-instance stream of the instance's split. Errors: no names and no default, a name that
/// does not build into an operator, what the operators raise.
pub struct ApplyOperatorsField {
    config: ApplyOperatorsFieldConfig,
    ops: NamedOperators,
}

impl super::InstanceOperator for ApplyOperatorsField {
    fn process_instance(&self, mut instance: crate::value::Instance, split: &str) -> Result<crate::value::Instance> {
        let field = self.config.operators_field.as_str();
        let names = match instance.get(field) {
            None | Some(Value::Null) => match &self.config.default_operators {
                Some(d) => d.clone(),
                None => {
                    return Err(Error::invalid(format!("No operators found in field '{field}', and no default operators provided.")))
                }
            },
            Some(v) => names_in(v, "apply_operators_field")?,
        };
        for name in names {
            let op = self.ops.get(&name)?;
            instance = super::apply_to_instance(&op, instance, split).with_ctx(|| format!("in operator `{name}`"))?;
        }
        Ok(instance)
    }
}

/// The catalog JSON of `apply_stream_operators_field` (Unitxt's `ApplyStreamOperatorsField`).
#[derive(Deserialize)]
pub struct ApplyStreamOperatorsFieldConfig {
    /// `field`: the top-level field of a split's first instance that names the operators (a
    /// name or a list of names) applied to the whole split.
    pub field: String,
    /// `reversed`: apply them last to first (default false).
    #[serde(default)]
    pub reversed: bool,
}

impl ApplyStreamOperatorsFieldConfig {
    /// The operator, which builds the operators it is asked for in the catalog of `cx`.
    pub fn build(self, cx: &BuildContext<'_>) -> ApplyStreamOperatorsField {
        ApplyStreamOperatorsField { config: self, ops: NamedOperators::new(cx) }
    }
}

/// `apply_stream_operators_field` (Unitxt's `ApplyStreamOperatorsField`): applies to each split
/// the catalog operators that field `field` of its first instance names (none when it lacks
/// the field), in order or `reversed`. Each split is read whole. Errors: an empty split (as
/// Unitxt's, which peeks at the first instance), a name that does not build into an operator,
/// what the operators raise.
pub struct ApplyStreamOperatorsField {
    config: ApplyStreamOperatorsFieldConfig,
    ops: NamedOperators,
}

impl super::StreamOperator for ApplyStreamOperatorsField {
    fn process_stream(self: Arc<Self>, stream: crate::stream::Stream, split: &str) -> Result<crate::stream::Stream> {
        let items: Vec<crate::value::Instance> = stream.collect::<Result<_>>()?;
        let Some(first) = items.first() else {
            return Err(Error::invalid(format!(
                "apply_stream_operators_field: split {split:?} is empty: no first instance names the operators"
            )));
        };
        let mut names = match first.get(self.config.field.as_str()) {
            None => Vec::new(),
            Some(v) => names_in(v, "apply_stream_operators_field")?,
        };
        if self.config.reversed {
            names.reverse();
        }
        let mut lists = indexmap::IndexMap::new();
        lists.insert(split.to_string(), items);
        let mut ms = MultiStream::from_lists(lists);
        for name in names {
            let op = self.ops.get(&name)?;
            ms = op.inner.clone().process(ms).with_ctx(|| format!("in operator `{name}`"))?;
        }
        let out: Vec<crate::value::Instance> = crate::stream::collect(ms.take(split)?)?;
        Ok(Box::new(out.into_iter().map(Ok)))
    }
}
