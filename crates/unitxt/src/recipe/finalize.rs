//! The last step of a recipe (Unitxt's `FinalizeDataset` in `schema.py`): builds `task_data`
//! (input fields, metadata, reference fields, demos) as Python's `json.dumps` writes it, and
//! keeps exactly the output fields.

use crate::error::{Error, Result};
use crate::py::json::{dumps, DumpOptions};
use crate::value::{dict_get, Instance, Value};

/// The fields of a prepared instance, in the order we write them.
pub const OUTPUT_FIELDS: &[&str] = &[
    "source", "target", "references", "metrics", "groups", "subset", "media", "postprocessors", "task_data",
    "data_classification_policy",
];

fn take_obj(inst: &mut Instance, k: &str) -> Result<serde_json::Map<String, Value>> {
    match inst.swap_remove(k) {
        Some(Value::Object(m)) => Ok(m),
        _ => Err(Error::invalid(format!("instance has no {k:?} dict"))),
    }
}

/// `task_data` of one instance or demo: its input fields, then `metadata` (holding its
/// `data_classification_policy`), then its reference fields; `input_fields` and
/// `reference_fields` are moved out of `inst`.
fn task_data_of(inst: &mut Instance, with_references: bool) -> Result<Instance> {
    let mut td = take_obj(inst, "input_fields")?;
    let mut meta = Instance::with_capacity(4);
    meta.insert(
        "data_classification_policy".into(),
        inst.get("data_classification_policy").cloned().unwrap_or(Value::Null),
    );
    td.insert("metadata".into(), Value::Object(meta));
    if with_references {
        for (k, v) in take_obj(inst, "reference_fields")? {
            td.insert(k, v);
        }
    }
    Ok(td)
}

/// What `task_data.metadata` holds of the recipe, after the instance's
/// `data_classification_policy` (Unitxt keeps these in `recipe_metadata`).
#[derive(Debug, Clone)]
pub struct RecipeMeta {
    /// The number of demos of this instance.
    pub num_demos: Value,
    /// `demos_pool_size` (0 without demos, `null` when unset).
    pub demos_pool_size: Value,
    /// The template used, as its catalog name or its definition.
    pub template: Value,
}

/// Finalizes one verbalized instance: the output instance with [`OUTPUT_FIELDS`]. The input
/// instance is consumed (fields are moved out with `swap_remove`: its key order no longer
/// matters).
pub fn finalize_instance(mut inst: Instance, group_by: &[Value], recipe: RecipeMeta) -> Result<Instance> {
    let mut td = task_data_of(&mut inst, true)?;
    if let Some(Value::Object(meta)) = td.get_mut("metadata") {
        meta.insert("num_demos".into(), recipe.num_demos);
        meta.insert("demos_pool_size".into(), recipe.demos_pool_size);
        meta.insert("template".into(), recipe.template);
    }
    if let Some(Value::Array(demos)) = inst.swap_remove("demos") {
        let mut out = Vec::with_capacity(demos.len());
        for d in demos {
            let Value::Object(mut d) = d else { return Err(Error::invalid("a demo is not a dict")) };
            out.push(Value::Object(task_data_of(&mut d, true)?));
        }
        td.insert("demos".into(), Value::Array(out));
    }
    let mut groups = Vec::new();
    if !group_by.is_empty() {
        let mut data = td.clone();
        if let Some(Value::Object(meta)) = td.get("metadata") {
            for (k, v) in meta {
                data.insert(k.clone(), v.clone());
            }
        }
        for g in group_by {
            let attrs: Vec<String> = match g {
                Value::String(s) => vec![s.clone()],
                Value::Array(a) => a.iter().map(|x| x.as_str().unwrap_or_default().to_string()).collect(),
                other => return Err(Error::invalid(format!("group_by entries must be strings or lists, got {other}"))),
            };
            let mut group = Instance::new();
            for a in attrs {
                let v = dict_get(&data, &a)?.clone();
                group.insert(a, v);
            }
            groups.push(Value::String(dumps(&Value::Object(group), DumpOptions::default())));
        }
    }
    let task_data = dumps(&Value::Object(td), DumpOptions::default());
    let mut media = match inst.swap_remove("media") {
        Some(Value::Object(m)) => m,
        _ => Instance::new(),
    };
    let mut task_data = Some(task_data);
    let mut groups = Some(groups);
    let mut out = Instance::with_capacity(OUTPUT_FIELDS.len());
    for f in OUTPUT_FIELDS {
        let v = match *f {
            "task_data" => Value::String(task_data.take().unwrap_or_default()),
            "groups" => Value::Array(groups.take().unwrap_or_default()),
            "subset" => Value::Array(vec![]),
            "media" => {
                let mut m = Instance::with_capacity(2);
                m.insert("images".into(), media.swap_remove("images").unwrap_or(Value::Array(vec![])));
                m.insert("audios".into(), media.swap_remove("audios").unwrap_or(Value::Array(vec![])));
                Value::Object(m)
            }
            other => inst.swap_remove(other).ok_or_else(|| Error::invalid(format!("the finished instance has no {other:?} field")))?,
        };
        out.insert(f.to_string(), v);
    }
    Ok(out)
}
