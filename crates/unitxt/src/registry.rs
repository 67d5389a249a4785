//! The one map from catalog `__type__` names (Unitxt's snake_case class names) to the Rust
//! structs that implement them. Adding an artifact type touches its own file and this one.

use std::sync::Arc;

use serde::de::DeserializeOwned;

use crate::artifact::{from_value, Art, Artifact};
use crate::error::{Error, Result};
use crate::operators::{FieldOp, FieldOperator, FieldSpec, InstanceOp, InstanceOperator, Operator, StreamOp, StreamOperator, StreamScope};
use crate::value::Value;

/// Builds the artifact described by `v` (an object with `__type__`). Errors name the type and
/// suggest the nearest known type for unknown ones.
pub fn build(v: &Value) -> Result<Artifact> {
    let t = v
        .get("__type__")
        .and_then(|t| t.as_str())
        .ok_or_else(|| Error::invalid(format!("artifact has no `__type__`: {}", crate::artifact::short(v))))?;
    let raw = || v.clone();
    use crate::{augmentors as aug, formats as fmt, loaders as ld, operators as op, splitters as sp, system_prompts as sysp, templates as tp};
    let _ = raw;
    let a = match t {
        // ---- cards, tasks, template collections (card.rs, task.rs) ----
        "task_card" => Artifact::Card(plain::<crate::card::Card>(t, v)?),
        "task" => Artifact::Task(Art::new(Arc::new(crate::task::Task::from_json(v)?), v.clone())),
        "templates_list" => {
            let items = v.get("items").ok_or_else(|| Error::invalid("templates_list needs `items`"))?;
            match crate::card::Templates::from_value(items)? {
                crate::card::Templates::List(l) => Artifact::TemplatesList(l),
                _ => return Err(Error::invalid("templates_list `items` must be a list")),
            }
        }
        "templates_dict" => {
            let items = v.get("items").ok_or_else(|| Error::invalid("templates_dict needs `items`"))?;
            match crate::card::Templates::from_value(items)? {
                crate::card::Templates::Dict(d) => Artifact::TemplatesDict(d),
                _ => return Err(Error::invalid("templates_dict `items` must be a dict")),
            }
        }

        // ---- loaders (loaders/) ----

        // ---- operators (operators/) ----
        "add_constant" => field_op::<op::fields::AddConstant>(t, v)?,
        "apply" => instance_op::<op::expressions::Apply>(t, v)?,
        "capitalize" => field_op::<op::strings::Capitalize>(t, v)?,
        "cast" => field_op::<op::fields::Cast>(t, v)?,
        "cast_fields" => instance_op::<op::fields::CastFields>(t, v)?,
        "chunk" => field_op::<op::collections::Chunk>(t, v)?,
        "copy" | "copy_fields" | "recursive_copy" => field_op::<op::fields::Copy>(t, v)?,
        "dict_of_lists_to_pairs" => field_op::<op::collections::DictOfListsToPairs>(t, v)?,
        "dict_to_tuples_list" => field_op::<op::collections::DictToTuplesList>(t, v)?,
        "dictify" => field_op::<op::collections::Dictify>(t, v)?,
        "execute_expression" => instance_op::<op::expressions::ExecuteExpression>(t, v)?,
        "extract_with_regex" => field_op::<op::regex::ExtractWithRegex>(t, v)?,
        "fillna" => field_op::<op::fields::Fillna>(t, v)?,
        "filter" => field_op::<op::collections::Filter>(t, v)?,
        "flatten" => field_op::<op::collections::Flatten>(t, v)?,
        "format_text" => instance_op::<op::strings::FormatText>(t, v)?,
        "get" => field_op::<op::collections::Get>(t, v)?,
        "get_item_by_index" => field_op::<op::fields::GetItemByIndex>(t, v)?,
        "get_length" => field_op::<op::collections::GetLength>(t, v)?,
        "group_dict_with_regex" => field_op::<op::regex::GroupDictWithRegex>(t, v)?,
        "index_of" => instance_op::<op::fields::IndexOf>(t, v)?,
        "interleave_lists_to_dialog_operator" => instance_op::<op::fields::InterleaveListsToDialogOperator>(t, v)?,
        "join" => field_op::<op::strings::Join>(t, v)?,
        "join_str" => field_op::<op::fields::JoinStr>(t, v)?,
        "list_field_values" => instance_op::<op::fields::ListFieldValues>(t, v)?,
        "literal_eval" => field_op::<op::expressions::LiteralEval>(t, v)?,
        "lower" | "lower_case" => field_op::<op::strings::Lower>(t, v)?,
        "map_instance_values" => instance_op::<op::fields::MapInstanceValues>(t, v)?,
        "map_replace" => field_op::<op::strings::MapReplace>(t, v)?,
        "map_values" => field_op::<op::fields::MapValues>(t, v)?,
        "move" => instance_op::<op::fields::Move>(t, v)?,
        "regex_parser" => field_op::<op::regex::RegexParser>(t, v)?,
        "regex_replace" => field_op::<op::regex::RegexReplace>(t, v)?,
        "regex_split" => field_op::<op::regex::RegexSplit>(t, v)?,
        "remove_fields" => instance_op::<op::fields::RemoveFields>(t, v)?,
        "remove_values" => field_op::<op::fields::RemoveValues>(t, v)?,
        "rename" | "rename_fields" => instance_op::<op::fields::Rename>(t, v)?,
        "replace" => field_op::<op::strings::Replace>(t, v)?,
        "select_fields" => instance_op::<op::fields::SelectFields>(t, v)?,
        "sequential_operator" => operator::<op::composite::SequentialOperator>(t, v)?,
        "set" | "add_fields" => instance_op::<op::fields::Set>(t, v)?,
        "slice" => field_op::<op::collections::Slice>(t, v)?,
        "split" => field_op::<op::strings::Split>(t, v)?,
        "strip" => field_op::<op::strings::Strip>(t, v)?,
        "take_by_field" => instance_op::<op::fields::TakeByField>(t, v)?,
        "upper" => field_op::<op::strings::Upper>(t, v)?,
        "wrap" => field_op::<op::collections::Wrap>(t, v)?,
        "zip" => instance_op::<op::collections::Zip>(t, v)?,
        "zip_field_values" => instance_op::<op::fields::ZipFieldValues>(t, v)?,
        "zip_longest" => instance_op::<op::collections::ZipLongest>(t, v)?,

        // ---- splitters and samplers (splitters/) ----

        // ---- templates and serializers (templates/) ----

        // ---- formats (formats/) ----

        // ---- system prompts (system_prompts/) ----

        // ---- augmentors (augmentors/) ----

        _ => {
            let _ = (std::any::type_name::<fmt::Marker>(), std::any::type_name::<sysp::Marker>(), std::any::type_name::<ld::Marker>(), std::any::type_name::<tp::Marker>(), std::any::type_name::<op::Marker>());
            let _ = (std::any::type_name::<dyn aug::Augmentor>(), std::any::type_name::<dyn sp::Sampler>());
            return Err(Error::not_found(format!("unknown artifact type `__type__: {t}`")));
        }
    };
    Ok(a)
}

/// Deserializes a plain struct artifact.
pub fn plain<T: DeserializeOwned + 'static>(t: &str, v: &Value) -> Result<Art<T>> {
    Ok(Art::new(Arc::new(from_value::<T>(t, v)?), v.clone()))
}

/// Builds an [`Operator`] from a struct implementing it.
pub fn operator<T: Operator + DeserializeOwned + 'static>(t: &str, v: &Value) -> Result<Artifact> {
    let op: Arc<dyn Operator> = Arc::new(from_value::<T>(t, v)?);
    Ok(Artifact::Operator(Art::new(op, v.clone())))
}

/// Wraps a built [`InstanceOperator`] as an [`Operator`] with the stream scope read from `v`.
pub fn wrap_instance_op<T: InstanceOperator + 'static>(t: &str, v: &Value, op: T) -> Result<Artifact> {
    let scope: StreamScope = from_value(t, v)?;
    let op: Arc<dyn Operator> = Arc::new(InstanceOp { name: t.to_string(), scope, op: Arc::new(op) });
    Ok(Artifact::Operator(Art::new(op, v.clone())))
}

/// Builds an [`InstanceOperator`] struct and wraps it as an [`Operator`].
pub fn instance_op<T: InstanceOperator + DeserializeOwned + 'static>(t: &str, v: &Value) -> Result<Artifact> {
    wrap_instance_op(t, v, from_value::<T>(t, v)?)
}

/// Builds a [`StreamOperator`] struct and wraps it as an [`Operator`].
pub fn stream_op<T: StreamOperator + DeserializeOwned + 'static>(t: &str, v: &Value) -> Result<Artifact> {
    let scope: StreamScope = from_value(t, v)?;
    let op: Arc<dyn Operator> = Arc::new(StreamOp { name: t.to_string(), scope, op: Arc::new(from_value::<T>(t, v)?) });
    Ok(Artifact::Operator(Art::new(op, v.clone())))
}

/// Builds a [`FieldOperator`] struct with its [`FieldSpec`] and wraps it as an [`Operator`].
pub fn field_op<T: FieldOperator + DeserializeOwned + 'static>(t: &str, v: &Value) -> Result<Artifact> {
    let spec: FieldSpec = from_value(t, v)?;
    let inner = FieldOp::new(spec, Arc::new(from_value::<T>(t, v)?)).map_err(|e| e.context(format!("in `{t}`")))?;
    wrap_instance_op(t, v, inner)
}
