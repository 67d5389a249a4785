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

fn obj<'a>(inst: &'a Instance, k: &str) -> Result<&'a serde_json::Map<String, Value>> {
    inst.get(k).and_then(|v| v.as_object()).ok_or_else(|| Error::invalid(format!("instance has no {k:?} dict")))
}

fn task_data_of(inst: &Instance, with_references: bool) -> Result<Instance> {
    let mut td = obj(inst, "input_fields")?.clone();
    let mut meta = Instance::new();
    meta.insert(
        "data_classification_policy".into(),
        inst.get("data_classification_policy").cloned().unwrap_or(Value::Null),
    );
    td.insert("metadata".into(), Value::Object(meta));
    if with_references {
        for (k, v) in obj(inst, "reference_fields")? {
            td.insert(k.clone(), v.clone());
        }
    }
    Ok(td)
}

/// Finalizes one verbalized instance: the output instance with [`OUTPUT_FIELDS`].
pub fn finalize_instance(mut inst: Instance, group_by: &[Value]) -> Result<Instance> {
    let mut td = task_data_of(&inst, true)?;
    let rm = obj(&inst, "recipe_metadata")?.clone();
    if let Some(Value::Object(meta)) = td.get_mut("metadata") {
        for k in ["num_demos", "demos_pool_size", "template"] {
            meta.insert(k.into(), rm.get(k).cloned().unwrap_or(Value::Null));
        }
    }
    if let Some(Value::Array(demos)) = inst.shift_remove("demos") {
        let mut out = Vec::with_capacity(demos.len());
        for d in demos {
            let d = d.as_object().cloned().ok_or_else(|| Error::invalid("a demo is not a dict"))?;
            out.push(Value::Object(task_data_of(&d, true)?));
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
    let mut media = match inst.shift_remove("media") {
        Some(Value::Object(m)) => m,
        _ => Instance::new(),
    };
    for k in ["images", "audios"] {
        if !media.contains_key(k) {
            media.insert(k.into(), Value::Array(vec![]));
        }
    }
    let mut out = Instance::new();
    for f in OUTPUT_FIELDS {
        let v = match *f {
            "task_data" => Value::String(task_data.clone()),
            "groups" => Value::Array(groups.clone()),
            "subset" => Value::Array(vec![]),
            "media" => {
                let mut m = Instance::new();
                m.insert("images".into(), media.get("images").cloned().unwrap_or(Value::Array(vec![])));
                m.insert("audios".into(), media.get("audios").cloned().unwrap_or(Value::Array(vec![])));
                Value::Object(m)
            }
            other => inst.shift_remove(other).ok_or_else(|| Error::invalid(format!("the finished instance has no {other:?} field")))?,
        };
        out.insert(f.to_string(), v);
    }
    Ok(out)
}
