//! Prepared instances as Arrow record batches, with the columns and types of the datasets that
//! Unitxt's `load_dataset` returns (`unitxt.schema.UNITXT_DATASET_SCHEMA`):
//!
//! | column | Arrow type | value |
//! |---|---|---|
//! | `source` | string | the prompt; a chat (list of messages) as Python's `json.dumps` of it, as Unitxt stores it |
//! | `target`, `task_data` | string | as prepared |
//! | `references`, `metrics`, `groups`, `subset`, `postprocessors`, `data_classification_policy` | list of string | as prepared |
//! | `media` | struct of `images`, `audios`: lists of struct{`bytes`: binary, `path`: string} | empty lists (text recipes) |
//!
//! The schema carries the `huggingface` metadata entry (the `datasets` features), so that
//! `datasets` reads the columns back with Unitxt's feature types (`Image`, `Audio`, `List`).

use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::{new_empty_array, ArrayRef, ListArray, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};

use crate::error::{Error, Result};
use crate::value::{Instance, Value};

/// The `huggingface` schema metadata: the `datasets` features of Unitxt's dataset schema.
const HF_FEATURES: &str = r#"{"info": {"features": {"source": {"dtype": "string", "_type": "Value"}, "target": {"dtype": "string", "_type": "Value"}, "references": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "List"}, "metrics": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "List"}, "groups": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "List"}, "subset": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "List"}, "media": {"images": {"feature": {"_type": "Image"}, "_type": "List"}, "audios": {"feature": {"_type": "Audio"}, "_type": "List"}}, "postprocessors": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "List"}, "task_data": {"dtype": "string", "_type": "Value"}, "data_classification_policy": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "List"}}}}"#;

/// Columns holding lists of strings.
const LIST_COLUMNS: &[&str] = &["references", "metrics", "groups", "subset", "postprocessors", "data_classification_policy"];

/// The column order of Unitxt's schema.
const COLUMNS: &[&str] = &[
    "source", "target", "references", "metrics", "groups", "subset", "media", "postprocessors", "task_data",
    "data_classification_policy",
];

fn string_list_type() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
}

fn media_item_fields() -> Fields {
    Fields::from(vec![Field::new("bytes", DataType::Binary, true), Field::new("path", DataType::Utf8, true)])
}

fn media_fields() -> Fields {
    let list = DataType::List(Arc::new(Field::new("item", DataType::Struct(media_item_fields()), true)));
    Fields::from(vec![Field::new("images", list.clone(), true), Field::new("audios", list, true)])
}

/// The Arrow schema of a prepared split (see the module docs), with the `huggingface` metadata.
pub fn dataset_schema() -> SchemaRef {
    let fields: Vec<Field> = COLUMNS
        .iter()
        .map(|&c| match c {
            "media" => Field::new(c, DataType::Struct(media_fields()), true),
            c if LIST_COLUMNS.contains(&c) => Field::new(c, string_list_type(), true),
            c => Field::new(c, DataType::Utf8, true),
        })
        .collect();
    let meta: std::collections::HashMap<String, String> =
        [("huggingface".to_string(), HF_FEATURES.to_string())].into_iter().collect();
    Arc::new(Schema::new_with_metadata(fields, meta))
}

/// A string cell: strings as they are, chats (lists of messages) as `json.dumps` text,
/// absent or null as null. Other values are an error naming the column and row.
fn text_cell(v: Option<&Value>, column: &str, row: usize) -> Result<Option<String>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v @ Value::Array(_)) if column == "source" => Ok(Some(crate::py::json::dumps(v, Default::default()))),
        Some(other) => Err(Error::invalid(format!(
            "instance {row}: column `{column}` must be a string, got {}",
            crate::artifact::short(other)
        ))),
    }
}

/// Builds one record batch of `rows` (prepared instances, as `prepare` yields them). Errors
/// name the instance (its index in `rows`) and the column: a value of the wrong type, or media
/// (images, audio) in an instance, which this export does not carry.
pub fn instances_to_batch(rows: &[Instance]) -> Result<RecordBatch> {
    let schema = dataset_schema();
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(COLUMNS.len());
    for &c in COLUMNS {
        if c == "media" {
            for (i, r) in rows.iter().enumerate() {
                let empty = |k: &str| r.get("media").and_then(|m| m.get(k)).is_none_or(|v| v.as_array().is_some_and(|a| a.is_empty()));
                if !(empty("images") && empty("audios")) {
                    return Err(Error::unsupported(format!(
                        "instance {i}: media (images or audio) cannot be exported to Arrow yet"
                    )));
                }
            }
            columns.push(empty_media(rows.len())?);
        } else if LIST_COLUMNS.contains(&c) {
            let mut b = ListBuilder::new(StringBuilder::new());
            for (i, r) in rows.iter().enumerate() {
                match r.get(c) {
                    None | Some(Value::Null) => b.append_null(),
                    Some(Value::Array(items)) => {
                        for it in items {
                            match it {
                                Value::String(s) => b.values().append_value(s),
                                Value::Null => b.values().append_null(),
                                other => b.values().append_value(crate::py::repr::str(other)),
                            }
                        }
                        b.append(true);
                    }
                    Some(other) => {
                        return Err(Error::invalid(format!(
                            "instance {i}: column `{c}` must be a list of strings, got {}",
                            crate::artifact::short(other)
                        )))
                    }
                }
            }
            columns.push(Arc::new(b.finish()));
        } else {
            let mut b = StringBuilder::new();
            for (i, r) in rows.iter().enumerate() {
                b.append_option(text_cell(r.get(c), c, i)?);
            }
            columns.push(Arc::new(b.finish()));
        }
    }
    RecordBatch::try_new(schema, columns).map_err(|e| Error::invalid(format!("building the Arrow batch: {e}")))
}

/// `n` media structs with empty `images` and `audios` lists.
fn empty_media(n: usize) -> Result<ArrayRef> {
    let item = Arc::new(Field::new("item", DataType::Struct(media_item_fields()), true));
    let empty_lists = || -> ArrayRef {
        let offsets = arrow_buffer::OffsetBuffer::new_zeroed(n);
        Arc::new(ListArray::new(item.clone(), offsets, new_empty_array(&DataType::Struct(media_item_fields())), None))
    };
    let s = StructArray::try_new(media_fields(), vec![empty_lists(), empty_lists()], None)
        .map_err(|e| Error::invalid(format!("building the media column: {e}")))?;
    Ok(Arc::new(s))
}

/// Reads record batches with (at least) Unitxt's columns back into instances, the way
/// `datasets` yields rows, with one difference that Unitxt's dataset transform also makes: a
/// `source` holding a JSON chat (text starting with `[{"role":` or `[{"content":`) becomes the
/// list of messages again. Used to evaluate data handed over as Arrow.
pub fn batch_to_instances(batch: &RecordBatch) -> Result<Vec<Instance>> {
    let mut rows = crate::loaders::arrow_value::batch_rows(batch)?;
    for r in rows.iter_mut() {
        if let Some(Value::String(s)) = r.get("source") {
            if s.starts_with("[{\"role\":") || s.starts_with("[{\"content\":") {
                if let Ok(chat) = serde_json::from_str::<Value>(s) {
                    r.insert("source".into(), chat);
                }
            }
        }
    }
    Ok(rows)
}
