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
use crate::recipe::OutputInstance;
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

/// One prepared instance's cells, ready to append to the columns of a batch
/// ([`rows_to_batch`]): the text of every string cell and list item back to back, and the
/// cells in `COLUMNS` order (media left out, it is always empty). A row is built where its
/// instance was prepared (a worker thread, by [`ArrowRow::from_output`]), so that the thread
/// assembling batches only copies bytes. Rows come from a pool ([`ArrowRow::new`]) and go back
/// to it ([`recycle_rows`]), so their two buffers are reused rather than freed by another thread.
#[derive(Default)]
pub struct ArrowRow {
    /// The text of the cells, back to back.
    text: String,
    /// Each string column: one span. Each list column: `List(n)` then its `n` items' spans,
    /// or `Null`.
    spans: Vec<Span>,
}

/// A cell of an [`ArrowRow`].
#[derive(Clone, Copy, Debug, PartialEq)]
enum Span {
    /// A null cell or list item.
    Null,
    /// A string: the text up to this byte offset (from the end of the previous text).
    Text(usize),
    /// A list of this many items (their spans follow).
    List(usize),
}

/// Spare rows, emptied, for [`ArrowRow::new`]; at most [`SPARE_ROWS_MAX`].
static SPARE_ROWS: super::spares::Spares<ArrowRow> = super::spares::Spares::new(SPARE_ROWS_MAX);

thread_local! {
    /// The spare rows this thread has taken from [`SPARE_ROWS`]: not a cache but buffers for
    /// reuse, at most [`super::spares::Spares::REFILL`] per thread (a thread takes more only
    /// when it has none left), each of at most [`SPARE_ROW_MAX_BYTES`] of text.
    static ROW_STASH: std::cell::RefCell<Vec<ArrowRow>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// At most this many spare rows are kept (two of the Python bindings' batches).
const SPARE_ROWS_MAX: usize = 4096;

/// Rows whose text grew past this many bytes are freed, not kept.
const SPARE_ROW_MAX_BYTES: usize = 64 * 1024;

/// Hands rows appended to a batch back to the pool of [`ArrowRow::new`].
pub fn recycle_rows(rows: impl IntoIterator<Item = ArrowRow>) {
    SPARE_ROWS.give_back(rows, |r| {
        r.text.clear();
        r.spans.clear();
        r.text.capacity() <= SPARE_ROW_MAX_BYTES
    });
}

impl ArrowRow {
    /// An empty row: a spare one from the pool, or a new one.
    pub fn new() -> ArrowRow {
        let spare = ROW_STASH.with(|stash| SPARE_ROWS.take(stash));
        spare.unwrap_or_else(|| ArrowRow { text: String::with_capacity(1024), spans: Vec::with_capacity(24) })
    }

    /// The row of a finished instance. Errors (kind `Invalid`) name the column whose value does
    /// not fit the schema; media (kind `Unsupported`) cannot be exported yet.
    pub fn from_output(o: &OutputInstance<'_>) -> Result<ArrowRow> {
        let empty = |v: &Value| v.is_null() || v.as_array().is_some_and(|a| a.is_empty());
        if !(empty(&o.images) && empty(&o.audios)) {
            return Err(media_error());
        }
        let mut r = ArrowRow::new();
        r.text_cell("source", Some(&o.source))?;
        r.text_cell("target", Some(&o.target))?;
        r.list_cell("references", Some(&o.references))?;
        r.list_cell("metrics", Some(&*o.metrics))?;
        r.list_items(&o.groups);
        r.list_items(&o.subset);
        r.list_cell("postprocessors", Some(&*o.postprocessors))?;
        o.write_task_data(&mut r.text);
        r.spans.push(Span::Text(r.text.len()));
        r.list_cell("data_classification_policy", Some(o.data_classification_policy()))?;
        Ok(r)
    }

    /// The row of a prepared instance (a map with Unitxt's dataset columns; absent ones are
    /// null). Errors as [`ArrowRow::from_output`].
    pub fn from_instance(inst: &Instance) -> Result<ArrowRow> {
        let media_empty = |k: &str| inst.get("media").and_then(|m| m.get(k)).is_none_or(|v| v.as_array().is_some_and(|a| a.is_empty()));
        if !(media_empty("images") && media_empty("audios")) {
            return Err(media_error());
        }
        let mut r = ArrowRow::new();
        for &c in COLUMNS {
            match c {
                "media" => {}
                c if LIST_COLUMNS.contains(&c) => r.list_cell(c, inst.get(c))?,
                c => r.text_cell(c, inst.get(c))?,
            }
        }
        Ok(r)
    }

    /// Appends a string cell: a string as it is, a chat (list of messages) in `source` as
    /// `json.dumps` text, absent or null as null; other values are an error naming `column`.
    fn text_cell(&mut self, column: &str, v: Option<&Value>) -> Result<()> {
        match v {
            None | Some(Value::Null) => self.spans.push(Span::Null),
            Some(Value::String(s)) => self.push_text(s),
            Some(v @ Value::Array(_)) if column == "source" => {
                self.push_text(&crate::py::json::dumps(v, Default::default()))
            }
            Some(other) => {
                return Err(Error::invalid(format!(
                    "column `{column}` must be a string, got {}",
                    crate::artifact::short(other)
                )))
            }
        }
        Ok(())
    }

    /// Appends a list-of-strings cell: items as [`ArrowRow::list_items`] writes them, absent or
    /// null as null; other values are an error naming `column`.
    fn list_cell(&mut self, column: &str, v: Option<&Value>) -> Result<()> {
        match v {
            None | Some(Value::Null) => self.spans.push(Span::Null),
            Some(Value::Array(items)) => self.list_items(items),
            Some(other) => {
                return Err(Error::invalid(format!(
                    "column `{column}` must be a list of strings, got {}",
                    crate::artifact::short(other)
                )))
            }
        }
        Ok(())
    }

    /// Appends a list cell of `items`: strings as they are, nulls as null, other values as
    /// Python's `str()` of them.
    fn list_items(&mut self, items: &[Value]) {
        self.spans.push(Span::List(items.len()));
        for it in items {
            match it {
                Value::String(s) => self.push_text(s),
                Value::Null => self.spans.push(Span::Null),
                other => self.push_text(&crate::py::repr::str(other)),
            }
        }
    }

    fn push_text(&mut self, s: &str) {
        self.text.push_str(s);
        self.spans.push(Span::Text(self.text.len()));
    }
}

fn media_error() -> Error {
    Error::unsupported("media (images or audio) cannot be exported to Arrow yet")
}

/// Builds one record batch of `rows` (see [`ArrowRow`]), copying their text into the columns.
/// Errors: a row that does not hold one cell per column (a bug), or Arrow's own.
pub fn rows_to_batch(rows: &[ArrowRow]) -> Result<RecordBatch> {
    let bytes: usize = rows.iter().map(|r| r.text.len()).sum();
    // Three string columns (source, target, task_data; source and task_data hold most of the
    // text) and six list columns.
    let mut strings: Vec<StringBuilder> =
        (0..3).map(|_| StringBuilder::with_capacity(rows.len(), bytes / 2)).collect();
    let mut lists: Vec<ListBuilder<StringBuilder>> =
        (0..LIST_COLUMNS.len()).map(|_| ListBuilder::with_capacity(StringBuilder::new(), rows.len())).collect();
    let bad = || Error::invalid("an Arrow row does not hold one cell per column");
    for r in rows {
        let mut spans = r.spans.iter();
        let mut from = 0;
        let text = |end: usize, from: &mut usize| -> Result<&str> {
            let t = r.text.get(*from..end).ok_or_else(bad)?;
            *from = end;
            Ok(t)
        };
        let (mut s, mut l) = (0, 0);
        for &c in COLUMNS {
            if c == "media" {
                continue;
            }
            let span = *spans.next().ok_or_else(bad)?;
            if LIST_COLUMNS.contains(&c) {
                let b = &mut lists[l];
                l += 1;
                match span {
                    Span::Null => b.append_null(),
                    Span::List(n) => {
                        for _ in 0..n {
                            match *spans.next().ok_or_else(bad)? {
                                Span::Text(end) => b.values().append_value(text(end, &mut from)?),
                                Span::Null => b.values().append_null(),
                                Span::List(_) => return Err(bad()),
                            }
                        }
                        b.append(true);
                    }
                    Span::Text(_) => return Err(bad()),
                }
            } else {
                let b = &mut strings[s];
                s += 1;
                match span {
                    Span::Null => b.append_null(),
                    Span::Text(end) => b.append_value(text(end, &mut from)?),
                    Span::List(_) => return Err(bad()),
                }
            }
        }
        if spans.next().is_some() {
            return Err(bad());
        }
    }
    let (mut strings, mut lists) = (strings.into_iter(), lists.into_iter());
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(COLUMNS.len());
    for &c in COLUMNS {
        let array: ArrayRef = if c == "media" {
            empty_media(rows.len())?
        } else if LIST_COLUMNS.contains(&c) {
            Arc::new(lists.next().ok_or_else(bad)?.finish())
        } else {
            Arc::new(strings.next().ok_or_else(bad)?.finish())
        };
        columns.push(array);
    }
    RecordBatch::try_new(dataset_schema(), columns).map_err(|e| Error::invalid(format!("building the Arrow batch: {e}")))
}

/// Builds one record batch of `rows` (prepared instances, as `prepare` yields them). Errors
/// name the instance (its index in `rows`) and the column: a value of the wrong type, or media
/// (images, audio) in an instance, which this export does not carry.
pub fn instances_to_batch(rows: &[Instance]) -> Result<RecordBatch> {
    let arrow_rows = rows
        .iter()
        .enumerate()
        .map(|(i, r)| ArrowRow::from_instance(r).map_err(|e| Error { message: format!("instance {i}: {}", e.message), ..e }))
        .collect::<Result<Vec<_>>>()?;
    let batch = rows_to_batch(&arrow_rows);
    recycle_rows(arrow_rows);
    batch
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;
    use arrow_array::cast::AsArray;
    use arrow_array::Array;

    /// The cells of list column `c` of `batch`, row by row (`None` for a null list or item).
    fn lists(batch: &RecordBatch, c: &str) -> Vec<Option<Vec<Option<String>>>> {
        let a = batch.column_by_name(c).unwrap().as_list::<i32>();
        (0..a.len())
            .map(|r| {
                (!a.is_null(r)).then(|| {
                    let v = a.value(r);
                    let s = v.as_string::<i32>();
                    (0..s.len()).map(|i| (!s.is_null(i)).then(|| s.value(i).to_string())).collect()
                })
            })
            .collect()
    }

    fn strings(batch: &RecordBatch, c: &str) -> Vec<Option<String>> {
        let a = batch.column_by_name(c).unwrap().as_string::<i32>();
        (0..a.len()).map(|r| (!a.is_null(r)).then(|| a.value(r).to_string())).collect()
    }

    #[test]
    fn rows_become_columns() {
        let a = json!({
            "source": "Q: 1+1?", "target": "2", "references": ["2", null, 3], "metrics": ["metrics.accuracy"],
            "groups": [], "subset": [], "media": {"images": [], "audios": []}, "postprocessors": [],
            "task_data": "{\"a\": 1}", "data_classification_policy": ["public"],
        });
        // A chat source is stored as its `json.dumps` text; absent columns are null.
        let b = json!({"source": [{"role": "user", "content": "hé"}], "references": []});
        let rows = [a.as_object().unwrap().clone(), b.as_object().unwrap().clone()];
        let batch = instances_to_batch(&rows).unwrap();
        assert_eq!(batch.schema(), dataset_schema());
        assert_eq!(batch.num_rows(), 2);
        assert_eq!(
            strings(&batch, "source"),
            [Some("Q: 1+1?".to_string()), Some(r#"[{"role": "user", "content": "h\u00e9"}]"#.to_string())]
        );
        assert_eq!(strings(&batch, "target"), [Some("2".to_string()), None]);
        assert_eq!(strings(&batch, "task_data"), [Some("{\"a\": 1}".to_string()), None]);
        assert_eq!(
            lists(&batch, "references"),
            [Some(vec![Some("2".to_string()), None, Some("3".to_string())]), Some(vec![])]
        );
        assert_eq!(lists(&batch, "metrics"), [Some(vec![Some("metrics.accuracy".to_string())]), None]);
        assert_eq!(lists(&batch, "groups"), [Some(vec![]), None]);
        assert_eq!(lists(&batch, "data_classification_policy"), [Some(vec![Some("public".to_string())]), None]);
        assert_eq!(batch.column_by_name("media").unwrap().len(), 2);
    }

    #[test]
    fn errors_name_the_instance_and_the_column() {
        let ok = json!({"source": "s"}).as_object().unwrap().clone();
        let bad = json!({"source": "s", "metrics": "metrics.accuracy"}).as_object().unwrap().clone();
        let e = instances_to_batch(&[ok.clone(), bad]).unwrap_err();
        assert_eq!(e.message, "instance 1: column `metrics` must be a list of strings, got \"metrics.accuracy\"");
        let media = json!({"source": "s", "media": {"images": [{"path": "x.png"}], "audios": []}}).as_object().unwrap().clone();
        let e = instances_to_batch(&[ok, media]).unwrap_err();
        assert_eq!((e.kind, e.message.as_str()), (crate::error::ErrorKind::Unsupported, "instance 1: media (images or audio) cannot be exported to Arrow yet"));
    }

    /// A row whose spans do not give one cell per column is refused, not misread.
    #[test]
    fn malformed_rows_are_an_error() {
        let one_short = ArrowRow { text: "x".into(), spans: vec![Span::Text(1); 3] };
        assert!(rows_to_batch(&[one_short]).is_err());
        let mut r = ArrowRow::from_instance(json!({"source": "s"}).as_object().unwrap()).unwrap();
        r.spans.push(Span::Null);
        assert!(rows_to_batch(&[r]).is_err());
        let past_the_text = ArrowRow { text: String::new(), spans: vec![Span::Text(5); 9] };
        assert!(rows_to_batch(&[past_the_text]).is_err());
    }

    /// A recycled row comes back from [`ArrowRow::new`] emptied, with its buffers.
    #[test]
    fn rows_are_reused_emptied() {
        let r = ArrowRow::from_instance(json!({"source": "some text"}).as_object().unwrap()).unwrap();
        let text_ptr = r.text.as_ptr();
        recycle_rows([r]);
        // Other tests (threads of one process under `cargo test`) may recycle rows too: draw
        // until this one comes back; every row drawn is empty.
        let found = (0..SPARE_ROWS_MAX + 1).map(|_| ArrowRow::new()).any(|again| {
            assert_eq!((again.text.len(), again.spans.len()), (0, 0));
            again.text.as_ptr() == text_ptr
        });
        assert!(found);
    }
}
