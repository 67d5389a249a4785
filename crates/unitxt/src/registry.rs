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
        "load_csv" => Artifact::Loader(Art::new(Arc::new(from_value::<ld::files::LoadCSV>(t, v)?), v.clone())),
        "load_from_dictionary" => {
            Artifact::Loader(Art::new(Arc::new(from_value::<ld::memory::LoadFromDictionary>(t, v)?), v.clone()))
        }
        "load_hf" => Artifact::Loader(Art::new(Arc::new(from_value::<ld::hf::LoadHF>(t, v)?), v.clone())),
        "load_json_file" => {
            Artifact::Loader(Art::new(Arc::new(from_value::<ld::files::LoadJsonFile>(t, v)?), v.clone()))
        }
        "multiple_source_loader" => {
            Artifact::Loader(Art::new(Arc::new(from_value::<ld::memory::MultipleSourceLoader>(t, v)?), v.clone()))
        }

        // ---- operators (operators/) ----

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
