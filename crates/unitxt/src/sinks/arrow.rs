//! Prepared instances as Arrow record batches, with the columns and types of the datasets that
//! Unitxt's `load_dataset` returns (`unitxt.schema.UNITXT_DATASET_SCHEMA`):
//!
//! | column | Arrow type | value |
//! |---|---|---|
//! | `source` | string | the prompt; a chat (list of messages) as Python's `json.dumps` of it, as Unitxt stores it |
//! | `target`, `task_data` | string | as prepared |
//! | `references`, `metrics`, `groups`, `subset`, `postprocessors`, `data_classification_policy` | list of string | as prepared |
//! | `media` | struct of `images`, `audios`: lists of struct{`bytes`: binary, `path`: string} | each image's file bytes, `path` null; audio is refused |
//!
//! An image is stored as the file bytes the instance carries (its data URL decoded), as the
//! `datasets` `Image` feature stores a PIL image that has no file name. Unitxt hands `datasets`
//! the PIL image, which saves it again in its own format: for PNG, GIF, BMP and lossless WebP
//! the pixels read back are the same; a JPEG is kept as it is here, where Unitxt's re-save
//! (quality 75) changes its pixels.
//!
//! The schema carries the `huggingface` metadata entry (the `datasets` features), so that
//! `datasets` reads the columns back with Unitxt's feature types (`Image`, `Audio`, `List`).
//! Its images are `Image(decode=False)`: rows give `{"bytes": <the file>, "path": None}`, as
//! the rows of Unitxt's own `load_dataset` do.

use std::sync::Arc;

use arrow_array::builder::{BinaryBuilder, ListBuilder, StringBuilder};
use arrow_array::{new_empty_array, ArrayRef, ListArray, RecordBatch, StructArray};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};

use crate::error::{Error, Result};
use crate::recipe::OutputInstance;
use crate::value::{Instance, Value};

/// The `huggingface` schema metadata: the `datasets` features of Unitxt's dataset schema.
const HF_FEATURES: &str = r#"{"info": {"features": {"source": {"dtype": "string", "_type": "Value"}, "target": {"dtype": "string", "_type": "Value"}, "references": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "List"}, "metrics": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "List"}, "groups": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "List"}, "subset": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "List"}, "media": {"images": {"feature": {"decode": false, "_type": "Image"}, "_type": "List"}, "audios": {"feature": {"_type": "Audio"}, "_type": "List"}}, "postprocessors": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "List"}, "task_data": {"dtype": "string", "_type": "Value"}, "data_classification_policy": {"feature": {"dtype": "string", "_type": "Value"}, "_type": "List"}}}}"#;

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
/// cells in `COLUMNS` order (media apart: the image bytes are kept as they are). A row is
/// built where its instance was prepared (a worker thread, by [`ArrowRow::from_output`]), so
/// that the thread assembling batches only copies bytes. Rows come from a pool ([`ArrowRow::new`]) and go back
/// to it ([`recycle_rows`]), so their two buffers are reused rather than freed by another thread.
#[derive(Default)]
pub struct ArrowRow {
    /// The text of the cells, back to back.
    text: String,
    /// Each string column: one span. Each list column: `List(n)` then its `n` items' spans,
    /// or `Null`.
    spans: Vec<Span>,
    /// The file bytes of each image of `media.images`, in order.
    images: Vec<Vec<u8>>,
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
        r.images.clear();
        r.text.capacity() <= SPARE_ROW_MAX_BYTES
    });
}

impl ArrowRow {
    /// An empty row: a spare one from the pool, or a new one.
    pub fn new() -> ArrowRow {
        let spare = ROW_STASH.with(|stash| SPARE_ROWS.take(stash));
        spare.unwrap_or_else(|| ArrowRow { text: String::with_capacity(1024), spans: Vec::with_capacity(24), images: Vec::new() })
    }

    /// The row of a finished instance. Errors (kind `Invalid`) name the column whose value does
    /// not fit the schema, or the image that is not an image; audio (kind `Unsupported`) cannot
    /// be exported yet.
    pub fn from_output(o: &OutputInstance<'_>) -> Result<ArrowRow> {
        let mut r = ArrowRow::new();
        r.media(Some(&o.images), Some(&o.audios))?;
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
        let mut r = ArrowRow::new();
        let media = inst.get("media");
        r.media(media.and_then(|m| m.get("images")), media.and_then(|m| m.get("audios")))?;
        for &c in COLUMNS {
            match c {
                "media" => {}
                c if LIST_COLUMNS.contains(&c) => r.list_cell(c, inst.get(c))?,
                c => r.text_cell(c, inst.get(c))?,
            }
        }
        Ok(r)
    }

    /// Takes the images of `media.images` (each Unitxt's image dict `{"image": <data URL>,
    /// "format": ...}` or a bare data URL) as their file bytes. Errors: an item that is neither
    /// (kind `Invalid`, naming its position), or any audio (kind `Unsupported`).
    fn media(&mut self, images: Option<&Value>, audios: Option<&Value>) -> Result<()> {
        if audios.is_some_and(|v| !(v.is_null() || v.as_array().is_some_and(|a| a.is_empty()))) {
            return Err(Error::unsupported("audio in `media.audios` cannot be exported to Arrow yet"));
        }
        let items = match images {
            None | Some(Value::Null) => return Ok(()),
            Some(Value::Array(items)) => items,
            Some(other) => {
                return Err(Error::invalid(format!("`media.images` must be a list, got {}", crate::artifact::short(other))))
            }
        };
        for (i, item) in items.iter().enumerate() {
            let url = match item {
                Value::String(s) => Some(s.as_str()),
                Value::Object(m) => m.get("image").and_then(|v| v.as_str()),
                _ => None,
            };
            let url = url.ok_or_else(|| {
                Error::invalid(format!(
                    "`media.images[{i}]` is not an image (a data URL or {{\"image\": <data URL>}}): {}",
                    crate::artifact::short(item)
                ))
            })?;
            let image = crate::images::EncodedImage::from_data_url(url)
                .map_err(|e| Error::invalid(format!("`media.images[{i}]`: {}", e.message)))?;
            self.images.push(image.bytes);
        }
        Ok(())
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
            media_column(rows)?
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
/// name the instance (its index in `rows`) and the column: a value of the wrong type, an image
/// that is not one, or audio, which this export does not carry.
pub fn instances_to_batch(rows: &[Instance]) -> Result<RecordBatch> {
    let arrow_rows = rows
        .iter()
        .enumerate()
        .map(|(i, r)| ArrowRow::from_instance(r).map_err(|mut e| {
            e.message = format!("instance {i}: {}", e.message);
            e
        }))
        .collect::<Result<Vec<_>>>()?;
    let batch = rows_to_batch(&arrow_rows);
    recycle_rows(arrow_rows);
    batch
}

/// The `media` column of `rows`: `images` lists each row's image bytes (path null), `audios`
/// is empty.
fn media_column(rows: &[ArrowRow]) -> Result<ArrayRef> {
    let n_images: usize = rows.iter().map(|r| r.images.len()).sum();
    let n_bytes: usize = rows.iter().flat_map(|r| r.images.iter().map(|b| b.len())).sum();
    let mut bytes = BinaryBuilder::with_capacity(n_images, n_bytes);
    let mut paths = StringBuilder::with_capacity(n_images, 0);
    for image in rows.iter().flat_map(|r| r.images.iter()) {
        bytes.append_value(image);
        paths.append_null();
    }
    let err = |e: arrow_schema::ArrowError| Error::invalid(format!("building the media column: {e}"));
    let items = StructArray::try_new(media_item_fields(), vec![Arc::new(bytes.finish()), Arc::new(paths.finish())], None)
        .map_err(err)?;
    let item = Arc::new(Field::new("item", DataType::Struct(media_item_fields()), true));
    let images = ListArray::try_new(
        item.clone(),
        arrow_buffer::OffsetBuffer::from_lengths(rows.iter().map(|r| r.images.len())),
        Arc::new(items),
        None,
    )
    .map_err(err)?;
    let audios = ListArray::new(
        item,
        arrow_buffer::OffsetBuffer::new_zeroed(rows.len()),
        new_empty_array(&DataType::Struct(media_item_fields())),
        None,
    );
    let s = StructArray::try_new(media_fields(), vec![Arc::new(images), Arc::new(audios)], None).map_err(err)?;
    Ok(Arc::new(s))
}

/// Reads record batches with (at least) Unitxt's columns back into instances, the way
/// `datasets` yields rows, with one difference that Unitxt's dataset transform also makes: a
/// `source` holding a JSON chat (text starting with `[{"role":` or `[{"content":`) becomes the
/// list of messages again. Used to evaluate data handed over as Arrow. A `media` column of
/// this module's schema comes back as `{"images": [...], "audios": [...]}` with each image as
/// Unitxt's image dict (`{"image": <data URL>, "format": "PNG" | ...}`).
pub fn batch_to_instances(batch: &RecordBatch) -> Result<Vec<Instance>> {
    let schema = batch.schema();
    let media_index = schema.index_of("media").ok().filter(|&i| schema.field(i).data_type() == &DataType::Struct(media_fields()));
    let mut rows = match media_index {
        None => crate::loaders::arrow_value::batch_rows(batch)?,
        Some(m) => {
            let others: Vec<usize> = (0..batch.num_columns()).filter(|&i| i != m).collect();
            let rest = batch.project(&others).map_err(|e| Error::invalid(format!("reading the Arrow batch: {e}")))?;
            let mut rows = crate::loaders::arrow_value::batch_rows(&rest)?;
            let media = media_values(batch.column(m).as_ref())?;
            for (r, v) in rows.iter_mut().zip(media) {
                r.insert("media".into(), v);
            }
            rows
        }
    };
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

/// The rows of a `media` column (this module's schema) as values: an item with bytes as
/// Unitxt's image dict, one without as its path (or null). Errors: bytes that are not an image
/// (audio included: this module writes none).
fn media_values(column: &dyn arrow_array::Array) -> Result<Vec<Value>> {
    use arrow_array::cast::AsArray;
    use arrow_array::Array;
    let media = column.as_struct();
    let list_values = |name: &str, row: usize| -> Result<Vec<Value>> {
        let lists = media.column_by_name(name).map(|c| c.as_list::<i32>());
        let Some(lists) = lists.filter(|l| !l.is_null(row)) else { return Ok(Vec::new()) };
        let items = lists.value(row);
        let items = items.as_struct();
        let bytes = items.column_by_name("bytes").map(|c| c.as_binary::<i32>());
        let paths = items.column_by_name("path").map(|c| c.as_string::<i32>());
        (0..items.len())
            .map(|i| {
                if let Some(b) = bytes.filter(|b| !b.is_null(i)) {
                    let image = crate::images::EncodedImage::from_bytes(b.value(i).to_vec())
                        .map_err(|e| Error::invalid(format!("`media.{name}[{i}]` of row {row}: {}", e.message)))?;
                    let mut m = crate::value::Map::new();
                    m.insert("image".into(), Value::String(image.to_data_url().into()));
                    m.insert("format".into(), Value::String(image.pil_format().into()));
                    Ok(Value::Object(m))
                } else {
                    Ok(paths.filter(|p| !p.is_null(i)).map_or(Value::Null, |p| Value::String(p.value(i).into())))
                }
            })
            .collect()
    };
    (0..media.len())
        .map(|row| {
            if media.is_null(row) {
                return Ok(Value::Null);
            }
            let mut m = crate::value::Map::new();
            m.insert("images".into(), Value::Array(list_values("images", row)?));
            m.insert("audios".into(), Value::Array(list_values("audios", row)?));
            Ok(Value::Object(m))
        })
        .collect()
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
        let e = instances_to_batch(&[ok.clone(), media]).unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (crate::error::ErrorKind::Invalid, "instance 1: `media.images[0]` is not an image (a data URL or {\"image\": <data URL>}): {\"path\":\"x.png\"}")
        );
        let audio = json!({"source": "s", "media": {"images": [], "audios": ["a.wav"]}}).as_object().unwrap().clone();
        let e = instances_to_batch(&[ok, audio]).unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (crate::error::ErrorKind::Unsupported, "instance 1: audio in `media.audios` cannot be exported to Arrow yet")
        );
    }

    /// Images go out as their file bytes (path null), row by row, and come back as Unitxt's
    /// image dicts with the same data URL.
    #[test]
    fn images_are_stored_as_file_bytes() {
        let mut png = Vec::new();
        let img = image::RgbImage::from_fn(3, 2, |x, y| image::Rgb([x as u8 * 80, y as u8 * 120, 7]));
        img.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png).unwrap();
        let url = crate::images::EncodedImage::from_bytes(png.clone()).unwrap().to_data_url();
        let with = |images: Value| json!({"source": "s", "media": {"images": images, "audios": []}}).as_object().unwrap().clone();
        let rows = [
            with(json!([{"image": url.clone(), "format": "PNG"}, url.clone()])),
            with(json!([])),
            json!({"source": "t"}).as_object().unwrap().clone(),
            with(json!([{"image": url.clone(), "format": "PNG"}])),
        ];
        let batch = instances_to_batch(&rows).unwrap();
        let media = batch.column_by_name("media").unwrap().as_struct();
        let images = media.column_by_name("images").unwrap().as_list::<i32>();
        assert_eq!(images.value_offsets(), &[0, 2, 2, 2, 3]);
        let items = images.values().as_struct();
        let bytes = items.column_by_name("bytes").unwrap().as_binary::<i32>();
        assert!((0..3).all(|i| bytes.value(i) == png.as_slice()));
        assert_eq!(items.column_by_name("path").unwrap().null_count(), 3);
        assert_eq!(media.column_by_name("audios").unwrap().as_list::<i32>().value_offsets(), &[0, 0, 0, 0, 0]);
        let back = batch_to_instances(&batch).unwrap();
        let dict = json!({"image": url, "format": "PNG"});
        assert_eq!(back[0]["media"], json!({"images": [dict.clone(), dict.clone()], "audios": []}));
        assert_eq!(back[1]["media"], json!({"images": [], "audios": []}));
        assert_eq!(back[3]["media"], json!({"images": [dict], "audios": []}));
        assert_eq!(back[3]["source"], json!("s"));
    }

    /// A row whose spans do not give one cell per column is refused, not misread.
    #[test]
    fn malformed_rows_are_an_error() {
        let one_short = ArrowRow { text: "x".into(), spans: vec![Span::Text(1); 3], images: vec![] };
        assert!(rows_to_batch(&[one_short]).is_err());
        let mut r = ArrowRow::from_instance(json!({"source": "s"}).as_object().unwrap()).unwrap();
        r.spans.push(Span::Null);
        assert!(rows_to_batch(&[r]).is_err());
        let past_the_text = ArrowRow { text: String::new(), spans: vec![Span::Text(5); 9], images: vec![] };
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
