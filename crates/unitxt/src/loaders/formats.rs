//! Readers of data files, each giving a lazy [`Stream`] of rows in file order.
//!
//! - Parquet: read in record batches as the stream is consumed (one batch in memory at a time),
//!   converted with [`super::arrow_value`]; batches read once are kept in the local Arrow cache
//!   and read from there next time ([`super::arrow_cache`]).
//! - JSON and JSON lines, CSV/TSV: read when the stream is first pulled, with the column typing of
//!   the reader being imitated ([`Typing::Arrow`] for the `datasets` library, [`Typing::Pandas`]
//!   for Unitxt's pandas loaders).
//! - Text: one `{"text": line}` row per line, as the `datasets` text builder gives.
//!
//! Errors name the file; a corrupt file gives an [`crate::error::ErrorKind::Invalid`] error.

use std::collections::VecDeque;
use std::fs::File;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use arrow_array::RecordBatch;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder,
};

use crate::error::{Error, Result};
use crate::stream::Stream;
use crate::value::{Instance, Value};

/// Rows per Arrow batch when reading parquet.
const BATCH_ROWS: usize = 512;

/// A file format the loaders read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// Apache Parquet, decoded 512 rows at a time.
    Parquet,
    /// A JSON array/object or JSON lines (told apart by content, as `datasets` does).
    Json,
    /// Delimited text with a header row, the delimiter given.
    Csv(u8),
    /// Plain text: one instance per line, in a `text` field.
    Text,
}

impl FileFormat {
    /// The format of a file by its extension (compression suffixes are not supported), `None`
    /// when unknown.
    pub fn from_path(path: &Path) -> Option<FileFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "parquet" => FileFormat::Parquet,
            "json" | "jsonl" | "ndjson" => FileFormat::Json,
            "csv" => FileFormat::Csv(b','),
            "tsv" => FileFormat::Csv(b'\t'),
            "txt" | "text" => FileFormat::Text,
            _ => return None,
        })
    }
}

/// How columns read from JSON or CSV get their types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Typing {
    /// pyarrow (the `datasets` library): a column mixing ints and floats becomes float; missing
    /// values are `None`.
    Arrow,
    /// pandas: as `Arrow`, and an int or float column with a missing value becomes float with
    /// NaN (given as `None`) for the missing ones; a bool column with a missing value stays
    /// bools and `None`.
    Pandas,
}

/// A stream built only when first pulled (so opening files is lazy too).
pub fn lazy(make: impl FnOnce() -> Result<Stream> + Send + 'static) -> Stream {
    let mut make = Some(make);
    let mut inner: Option<Stream> = None;
    Box::new(std::iter::from_fn(move || {
        if inner.is_none() {
            let f = make.take()?;
            match f() {
                Ok(s) => inner = Some(s),
                Err(e) => return Some(Err(e)),
            }
        }
        inner.as_mut()?.next()
    }))
}

/// Rows of several files, one after the other, each opened when reached.
pub fn files_stream(files: Vec<PathBuf>, format: Option<FileFormat>, typing: Typing) -> Stream {
    files_stream_columns(files, format, typing, None)
}

/// [`files_stream`], parquet files read only for the top-level `columns` when given (see
/// [`parquet_columns_stream`]); other formats give every column.
pub fn files_stream_columns(
    files: Vec<PathBuf>,
    format: Option<FileFormat>,
    typing: Typing,
    columns: Option<Arc<[String]>>,
) -> Stream {
    Box::new(files.into_iter().flat_map(move |p| file_stream_columns(p, format, typing, columns.clone())))
}

/// Rows of one file; `format` `None` picks it from the extension.
pub fn file_stream(path: PathBuf, format: Option<FileFormat>, typing: Typing) -> Stream {
    file_stream_columns(path, format, typing, None)
}

fn file_stream_columns(path: PathBuf, format: Option<FileFormat>, typing: Typing, columns: Option<Arc<[String]>>) -> Stream {
    lazy(move || {
        let fmt = match format.or_else(|| FileFormat::from_path(&path)) {
            Some(f) => f,
            None => {
                return Err(Error::unsupported(format!(
                    "cannot read {}: unknown data file format (supported: parquet, json, jsonl, csv, tsv, txt)",
                    path.display()
                )))
            }
        };
        match fmt {
            FileFormat::Parquet => parquet_columns_stream(&path, columns.as_deref()),
            FileFormat::Json => Ok(vec_stream(read_json(&path, None, typing)?)),
            FileFormat::Csv(sep) => {
                Ok(vec_stream(read_csv(&path, &CsvOptions { sep, ..Default::default() }, typing)?))
            }
            FileFormat::Text => Ok(vec_stream(read_text(&path)?)),
        }
    })
}

fn vec_stream(rows: Vec<Instance>) -> Stream {
    Box::new(rows.into_iter().map(Ok))
}

fn open(path: &Path) -> Result<File> {
    File::open(path).map_err(|e| Error::from(e).context(format!("opening {}", path.display())))
}

/// A lazy stream over the rows of a parquet file, batch by batch. Errors (kind `Invalid`) name
/// the file when it is not valid parquet.
pub fn parquet_stream(path: &Path) -> Result<Stream> {
    parquet_columns_stream(path, None)
}

/// [`parquet_stream`] reading only the top-level `columns` when given (in the file's order; a
/// struct or list column is read whole). Names the file lacks are ignored; when none of the
/// file's columns is named, every column is read (a batch of no columns would lose its rows).
/// Decoded batches are kept in the local Arrow cache and read from it next time (see
/// [`super::arrow_cache`]; `UNITXT_RS_ARROW_CACHE=off` reads the Parquet file every time).
pub fn parquet_columns_stream(path: &Path, columns: Option<&[String]>) -> Result<Stream> {
    parquet_columns_stream_cached(path, columns, super::arrow_cache::cache_dir().as_deref())
}

/// [`parquet_columns_stream`] with the cache in `cache_dir` (`None`: no cache).
fn parquet_columns_stream_cached(path: &Path, columns: Option<&[String]>, cache_dir: Option<&Path>) -> Result<Stream> {
    let cache_file = cache_dir.and_then(|dir| super::arrow_cache::entry_key(dir, path, columns, BATCH_ROWS));
    let entry = cache_file.as_ref().and_then(super::arrow_cache::open_entry);
    let mut batches = Batches {
        path: path.to_path_buf(),
        columns: columns.map(|c| c.to_vec()),
        entry_rows: entry.as_ref().map_or(0, |e| e.rows),
        entry,
        cache_file,
        from_entry: 0,
        parquet: None,
        writer: None,
        done: false,
    };
    if batches.entry.is_none() {
        // Without a cache entry the file is opened now: a file that is not Parquet fails
        // here rather than at the first row.
        batches.start_parquet()?;
    }
    Ok(Box::new(ParquetRows { path: path.to_path_buf(), batches, buf: VecDeque::new() }))
}

/// The reader of a Parquet file for `columns` (see [`parquet_columns_stream`]), skipping its
/// first `offset` rows.
fn parquet_reader(path: &Path, columns: Option<&[String]>, offset: usize) -> Result<ParquetRecordBatchReader> {
    let file = open(path)?;
    let bad =
        |e: parquet::errors::ParquetError| Error::invalid(format!("cannot read parquet file {}: {e}", path.display()));
    let meta = ArrowReaderMetadata::load(&file, ArrowReaderOptions::new()).map_err(bad)?;
    // Strings are read as views into the decoded pages: no copy of a dictionary page into
    // a string array, nor of each row's string out of the dictionary.
    let meta = match string_views(meta.schema()) {
        Some(schema) => {
            ArrowReaderMetadata::try_new(meta.metadata().clone(), ArrowReaderOptions::new().with_schema(schema)).map_err(bad)?
        }
        None => meta,
    };
    let mut builder = ParquetRecordBatchReaderBuilder::new_with_metadata(file, meta);
    if let Some(columns) = columns {
        let roots = builder.parquet_schema().root_schema().get_fields();
        let keep: Vec<usize> = (0..roots.len()).filter(|&i| columns.iter().any(|c| c == roots[i].name())).collect();
        if !keep.is_empty() && keep.len() < roots.len() {
            let mask = parquet::arrow::ProjectionMask::roots(builder.parquet_schema(), keep);
            builder = builder.with_projection(mask);
        }
    }
    if offset > 0 {
        builder = builder.with_offset(offset);
    }
    builder.with_batch_size(BATCH_ROWS).build().map_err(bad)
}

/// The record batches of a Parquet file: those of its cache entry first (see
/// [`super::arrow_cache`]), then, unless the entry holds the whole file, the file's own from
/// the first row the entry lacks. Batches read from the file are written to a new entry, kept
/// when the file is read to its end or when it holds more rows than the old entry.
struct Batches {
    path: PathBuf,
    columns: Option<Vec<String>>,
    cache_file: Option<super::arrow_cache::EntryKey>,
    entry: Option<super::arrow_cache::Entry>,
    /// Rows of the entry opened at the start (0 without one).
    entry_rows: usize,
    /// Rows given from the entry so far.
    from_entry: usize,
    parquet: Option<ParquetRecordBatchReader>,
    writer: Option<super::arrow_cache::Writer>,
    done: bool,
}

impl Batches {
    /// Opens the Parquet file after the rows the entry gave, and starts a new entry holding
    /// those rows again (copied from the old entry).
    fn start_parquet(&mut self) -> Result<()> {
        let reader = parquet_reader(&self.path, self.columns.as_deref(), self.from_entry)?;
        if let Some(target) = &self.cache_file {
            let schema = arrow_array::RecordBatchReader::schema(&reader);
            self.writer = super::arrow_cache::Writer::create(target, &schema);
            if self.from_entry > 0 {
                let copied = match (self.writer.as_mut(), super::arrow_cache::open_entry(target)) {
                    (Some(w), Some(old)) => {
                        for b in old.reader.take_while(|b| b.is_ok()).flatten() {
                            if w.rows() < self.from_entry {
                                w.write(&b);
                            }
                        }
                        w.rows() == self.from_entry
                    }
                    _ => false,
                };
                if !copied {
                    self.writer = None;
                }
            }
        }
        self.parquet = Some(reader);
        Ok(())
    }
}

impl Iterator for Batches {
    type Item = Result<RecordBatch>;
    fn next(&mut self) -> Option<Result<RecordBatch>> {
        if self.done {
            return None;
        }
        if let Some(e) = self.entry.as_mut() {
            if let Some(Ok(b)) = e.reader.next() {
                self.from_entry += b.num_rows();
                return Some(Ok(b));
            }
            // The entry's end (or an unreadable rest, then read from the file).
            let whole = e.complete && self.from_entry == e.rows;
            self.entry = None;
            if whole {
                self.done = true;
                return None;
            }
        }
        if self.parquet.is_none() {
            if let Err(e) = self.start_parquet() {
                self.done = true;
                return Some(Err(e));
            }
        }
        match self.parquet.as_mut()?.next() {
            None => {
                self.done = true;
                self.parquet = None;
                if let Some(w) = self.writer.take() {
                    w.finish(true);
                }
                None
            }
            Some(Err(e)) => {
                self.done = true;
                self.parquet = None;
                self.writer = None;
                Some(Err(Error::invalid(format!("cannot read parquet file {}: {e}", self.path.display()))))
            }
            Some(Ok(b)) => {
                if let Some(w) = self.writer.as_mut() {
                    w.write(&b);
                }
                Some(Ok(b))
            }
        }
    }
}

impl Drop for Batches {
    /// A reader stopped early keeps the rows it read as a prefix entry, when that is more than
    /// the entry it started from held.
    fn drop(&mut self) {
        if let Some(w) = self.writer.take() {
            if w.rows() > self.entry_rows {
                w.finish(false);
            }
        }
    }
}

/// `schema` with every `Utf8` type (at any depth: in lists and structs) read as `Utf8View`;
/// `None` when it has none.
fn string_views(schema: &arrow_schema::SchemaRef) -> Option<arrow_schema::SchemaRef> {
    use arrow_schema::{DataType, Field, Fields};
    fn view(t: &DataType) -> Option<DataType> {
        let field = |f: &Arc<Field>| view(f.data_type()).map(|t| Arc::new(f.as_ref().clone().with_data_type(t)));
        Some(match t {
            DataType::Utf8 => DataType::Utf8View,
            DataType::List(f) => DataType::List(field(f)?),
            DataType::LargeList(f) => DataType::LargeList(field(f)?),
            DataType::FixedSizeList(f, n) => DataType::FixedSizeList(field(f)?, *n),
            DataType::Struct(fs) => {
                let changed: Vec<Option<Arc<Field>>> = fs.iter().map(field).collect();
                if changed.iter().all(Option::is_none) {
                    return None;
                }
                DataType::Struct(Fields::from(
                    fs.iter().zip(changed).map(|(f, c)| c.unwrap_or_else(|| f.clone())).collect::<Vec<_>>(),
                ))
            }
            _ => return None,
        })
    }
    let fields: Vec<Option<DataType>> = schema.fields().iter().map(|f| view(f.data_type())).collect();
    if fields.iter().all(Option::is_none) {
        return None;
    }
    let new: Vec<Field> = schema
        .fields()
        .iter()
        .zip(fields)
        .map(|(f, t)| match t {
            Some(t) => f.as_ref().clone().with_data_type(t),
            None => f.as_ref().clone(),
        })
        .collect();
    Some(Arc::new(arrow_schema::Schema::new_with_metadata(new, schema.metadata().clone())))
}

struct ParquetRows {
    path: PathBuf,
    batches: Batches,
    buf: VecDeque<Instance>,
}

impl Iterator for ParquetRows {
    type Item = Result<Instance>;
    fn next(&mut self) -> Option<Result<Instance>> {
        loop {
            if let Some(r) = self.buf.pop_front() {
                return Some(Ok(r));
            }
            let batch = match self.batches.next()? {
                Err(e) => return Some(Err(e)),
                Ok(b) => b,
            };
            match super::arrow_value::batch_rows(&batch) {
                Ok(rows) => self.buf.extend(rows),
                Err(e) => {
                    self.batches.done = true;
                    return Some(Err(e.context(format!("in file {}", self.path.display()))));
                }
            }
        }
    }
}

/// Reads a JSON file: JSON lines (one object per line), a list of objects, or one object, or,
/// with `field`, the list of objects at that top-level key. Columns are unified over rows
/// (missing ones are `None`, in first-seen order) and typed by `typing`.
pub fn read_json(path: &Path, field: Option<&str>, typing: Typing) -> Result<Vec<Instance>> {
    let text =
        std::fs::read_to_string(path).map_err(|e| Error::from(e).context(format!("reading {}", path.display())))?;
    let bad = |msg: String| Error::invalid(format!("{}: {msg}", path.display()));
    let rows: Vec<Value> = match serde_json::from_str::<Value>(&text) {
        Ok(v) if field.is_none() || matches!(v, Value::Object(_)) => {
            let v = match field {
                Some(f) => v.get(f).cloned().ok_or_else(|| bad(format!("no field {f:?} in the JSON object")))?,
                None => v,
            };
            match v {
                Value::Array(a) => a,
                o @ Value::Object(_) => vec![o],
                _ => return Err(bad("expected a JSON object or a list of objects".into())),
            }
        }
        _ => text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| serde_json::from_str::<Value>(l).map_err(|e| bad(format!("line {}: {e}", i + 1))))
            .collect::<Result<_>>()?,
    };
    let objs = rows
        .into_iter()
        .enumerate()
        .map(|(i, r)| match r {
            Value::Object(o) => Ok(o),
            _ => Err(bad(format!("row {i} is not a JSON object"))),
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(unify_columns(objs, typing))
}

/// Gives every row the same columns (first-seen order, missing as `None`) and types numeric
/// columns by `typing`.
pub fn unify_columns(rows: Vec<Instance>, typing: Typing) -> Vec<Instance> {
    let mut cols: indexmap::IndexSet<crate::value::Key> = indexmap::IndexSet::new();
    for r in &rows {
        for k in r.keys() {
            if !cols.contains(k) {
                cols.insert(k.clone());
            }
        }
    }
    // Which numeric columns must become float.
    let to_float: Vec<bool> = cols
        .iter()
        .map(|c| {
            let (mut any_float, mut any_missing, mut all_num, mut any_num) = (false, false, true, false);
            for r in &rows {
                match r.get(c) {
                    None | Some(Value::Null) => any_missing = true,
                    Some(Value::Number(n)) => {
                        any_num = true;
                        if !(n.is_i64() || n.is_u64()) {
                            any_float = true;
                        }
                    }
                    Some(_) => all_num = false,
                }
            }
            all_num && any_num && (any_float || (typing == Typing::Pandas && any_missing))
        })
        .collect();
    rows.into_iter()
        .map(|mut r| {
            let mut out = Instance::new();
            for (c, f) in cols.iter().zip(&to_float) {
                let v = r.remove(c).unwrap_or(Value::Null);
                let v = match v {
                    Value::Number(n) if *f => n.as_f64().map(super::float_value).unwrap_or(Value::Null),
                    other => other,
                };
                out.insert(c.as_str().into(), v);
            }
            out
        })
        .collect()
}

/// Reads a text file as `{"text": line}` rows (line ends removed).
pub fn read_text(path: &Path) -> Result<Vec<Instance>> {
    let text =
        std::fs::read_to_string(path).map_err(|e| Error::from(e).context(format!("reading {}", path.display())))?;
    Ok(text
        .lines()
        .map(|l| {
            let mut m = Instance::new();
            m.insert("text".into(), Value::String(l.into()));
            m
        })
        .collect())
}

/// Options of a CSV read (the subset of pandas' `read_csv` arguments Unitxt passes).
#[derive(Debug, Clone)]
pub struct CsvOptions {
    /// Field delimiter.
    pub sep: u8,
    /// Column names to use instead of a header row (then every row is data).
    pub column_names: Option<Vec<String>>,
    /// Read at most this many data rows (`nrows`).
    pub nrows: Option<usize>,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions { sep: b',', column_names: None, nrows: None }
    }
}

/// The strings pandas reads as missing values by default.
const NA_VALUES: &[&str] = &[
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA",
    "NULL", "NaN", "None", "n/a", "nan", "null",
];

#[derive(Clone, Copy, PartialEq)]
enum ColType {
    Int,
    Float,
    Bool,
    Str,
}

fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "True" | "TRUE" | "true" => Some(true),
        "False" | "FALSE" | "false" => Some(false),
        _ => None,
    }
}

fn parse_float(s: &str) -> Option<f64> {
    let t = s.trim();
    match t.to_ascii_lowercase().as_str() {
        "inf" | "+inf" | "infinity" | "+infinity" => return Some(f64::INFINITY),
        "-inf" | "-infinity" => return Some(f64::NEG_INFINITY),
        _ => {}
    }
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-')) {
        return None;
    }
    t.parse::<f64>().ok()
}

fn parse_int(s: &str) -> Option<i64> {
    let t = s.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse::<i64>().ok()
}

/// Reads a delimited file as pandas' `read_csv` with default options would: a header row (or
/// `column_names`), missing cells and pandas' NA strings as missing, then each column typed as
/// int, float, bool or string from its values (see [`Typing`] for missing values in numeric
/// columns; in string columns missing values are NaN, given as `None`).
pub fn read_csv(path: &Path, opts: &CsvOptions, typing: Typing) -> Result<Vec<Instance>> {
    let file = open(path)?;
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(opts.sep)
        .has_headers(false)
        .flexible(true)
        .from_reader(std::io::BufReader::new(file));
    let bad = |e: csv::Error| Error::invalid(format!("cannot read CSV file {}: {e}", path.display()));
    let mut records = rdr.records();
    let header: Vec<String> = match &opts.column_names {
        Some(n) => n.clone(),
        None => match records.next() {
            None => return Ok(Vec::new()),
            Some(r) => r
                .map_err(bad)?
                .iter()
                .enumerate()
                .map(|(i, h)| if h.is_empty() { format!("Unnamed: {i}") } else { h.to_string() })
                .collect(),
        },
    };
    // pandas renames repeated column names `a`, `a.1`, `a.2`, ...
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let header: Vec<String> = header
        .into_iter()
        .map(|h| {
            let n = seen.entry(h.clone()).or_insert(0);
            *n += 1;
            if *n == 1 {
                h
            } else {
                format!("{h}.{}", *n - 1)
            }
        })
        .collect();
    let mut cells: Vec<Vec<Option<String>>> = Vec::new();
    for rec in records {
        if opts.nrows.is_some_and(|n| cells.len() >= n) {
            break;
        }
        let rec = rec.map_err(bad)?;
        let row =
            (0..header.len()).map(|i| rec.get(i).filter(|s| !NA_VALUES.contains(s)).map(|s| s.to_string())).collect();
        cells.push(row);
    }
    let types: Vec<ColType> = (0..header.len())
        .map(|c| {
            let present: Vec<&str> = cells.iter().filter_map(|r| r[c].as_deref()).collect();
            if present.is_empty() {
                ColType::Float
            } else if present.iter().all(|s| parse_int(s).is_some()) {
                ColType::Int
            } else if present.iter().all(|s| parse_float(s).is_some()) {
                ColType::Float
            } else if present.iter().all(|s| parse_bool(s).is_some()) {
                ColType::Bool
            } else {
                ColType::Str
            }
        })
        .collect();
    let missing: Vec<bool> = (0..header.len()).map(|c| cells.iter().any(|r| r[c].is_none())).collect();
    Ok(cells
        .into_iter()
        .map(|row| {
            let mut m = Instance::new();
            for (c, cell) in row.into_iter().enumerate() {
                let v = match (cell, types[c]) {
                    (None, _) => Value::Null,
                    (Some(s), ColType::Int) if typing == Typing::Pandas && missing[c] => {
                        parse_float(&s).map(super::float_value).unwrap_or(Value::Null)
                    }
                    (Some(s), ColType::Int) => parse_int(&s).map(Value::from).unwrap_or(Value::Null),
                    (Some(s), ColType::Float) => parse_float(&s).map(super::float_value).unwrap_or(Value::Null),
                    (Some(s), ColType::Bool) => parse_bool(&s).map(Value::Bool).unwrap_or(Value::Null),
                    (Some(s), ColType::Str) => Value::String(s.into()),
                };
                m.insert(header[c].as_str().into(), v);
            }
            m
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_schema::{DataType, Field, Fields, Schema};

    #[test]
    fn strings_are_read_as_views_at_any_depth() {
        let list = |t: DataType| DataType::List(Arc::new(Field::new("item", t, true)));
        let answers = |t: DataType| {
            DataType::Struct(Fields::from(vec![Field::new("text", list(t), true), Field::new("start", list(DataType::Int32), true)]))
        };
        let meta: std::collections::HashMap<String, String> = [("huggingface".to_string(), "{}".to_string())].into();
        let schema = |t: DataType| {
            Arc::new(Schema::new_with_metadata(
                vec![
                    Field::new("id", DataType::Int64, false),
                    Field::new("context", t.clone(), true),
                    Field::new("choices", list(t.clone()), true),
                    Field::new("answers", answers(t), true),
                ],
                meta.clone(),
            ))
        };
        assert_eq!(string_views(&schema(DataType::Utf8)), Some(schema(DataType::Utf8View)));
        // Nothing to change: no new schema.
        let numbers = Arc::new(Schema::new(vec![Field::new("label", list(DataType::Int64), true)]));
        assert_eq!(string_views(&numbers), None);
        assert_eq!(string_views(&schema(DataType::LargeUtf8)), None);
    }

    /// SQuAD's validation file in the shared hub cache: 10,570 rows, strings in dictionary
    /// pages and a struct of lists.
    fn squad_validation() -> PathBuf {
        let snapshots = crate::loaders::test_hub().join("datasets--rajpurkar--squad/snapshots");
        let snap = std::fs::read_dir(&snapshots).unwrap().next().unwrap().unwrap().path();
        snap.join("plain_text/validation-00000-of-00001.parquet")
    }

    /// A fresh directory under the system's temporary directory, removed when dropped.
    struct TempDir(PathBuf);
    impl TempDir {
        fn new(name: &str) -> TempDir {
            let p = std::env::temp_dir().join(format!("unitxt-rs-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&p);
            std::fs::create_dir_all(&p).unwrap();
            TempDir(p)
        }
    }
    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn rows_of(path: &Path, columns: Option<&[String]>, cache: Option<&Path>, n: usize) -> Vec<String> {
        let s = parquet_columns_stream_cached(path, columns, cache).unwrap();
        s.take(n).map(|r| Value::Object(r.unwrap()).to_string()).collect()
    }

    #[test]
    fn the_arrow_cache_gives_the_rows_of_the_parquet_file() {
        use crate::loaders::arrow_cache::{entry_key, open_entry};
        let file = squad_validation();
        let dir = TempDir::new("arrow-cache");
        let cols: Vec<String> = ["context", "question", "answers"].map(String::from).to_vec();
        let plain = rows_of(&file, Some(&cols), None, usize::MAX);
        assert_eq!(plain.len(), 10_570);
        assert!(plain[0].contains(r#""answers":{"text":["Denver Broncos","Denver Broncos","Denver Broncos"]"#), "{}", plain[0]);
        let key = entry_key(&dir.0, &file, Some(&cols), BATCH_ROWS).unwrap();
        assert!(open_entry(&key).is_none());
        // A reader that stops early leaves the batches it read as a prefix entry.
        assert_eq!(rows_of(&file, Some(&cols), Some(&dir.0), 100), plain[..100]);
        let e = open_entry(&key).unwrap();
        assert_eq!((e.rows, e.complete), (BATCH_ROWS, false));
        // The next reader takes the prefix from the entry and the rest from the file, and leaves
        // the whole file in the entry.
        assert_eq!(rows_of(&file, Some(&cols), Some(&dir.0), usize::MAX), plain);
        let e = open_entry(&key).unwrap();
        assert_eq!((e.rows, e.complete), (10_570, true));
        assert_eq!(rows_of(&file, Some(&cols), Some(&dir.0), usize::MAX), plain);
        assert_eq!(rows_of(&file, Some(&cols), Some(&dir.0), 700), plain[..700]);
        // Other columns have their own entry; no temporary file is left behind.
        let all = rows_of(&file, None, None, 3);
        assert_eq!(rows_of(&file, None, Some(&dir.0), 3), all);
        assert_eq!(rows_of(&file, None, Some(&dir.0), 3), all);
        let mut names: Vec<String> =
            std::fs::read_dir(&dir.0).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(names.iter().all(|n| n.ends_with(".arrow")), "{names:?}");
    }

    #[test]
    fn a_changed_file_does_not_use_the_old_entry() {
        use crate::loaders::arrow_cache::{entry_key, open_entry};
        let dir = TempDir::new("arrow-cache-changed");
        let file = dir.0.join("data.parquet");
        std::fs::copy(squad_validation(), &file).unwrap();
        let cache = dir.0.join("cache");
        let cols: Vec<String> = vec!["title".into()];
        let first = rows_of(&file, Some(&cols), Some(&cache), usize::MAX);
        assert_eq!(first[0], r#"{"title":"Super_Bowl_50"}"#);
        let key = entry_key(&cache, &file, Some(&cols), BATCH_ROWS).unwrap();
        assert!(open_entry(&key).unwrap().complete);
        // Another file at the same path (here: a later modification time): the entry is stale.
        let f = std::fs::File::options().write(true).open(&file).unwrap();
        f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5)).unwrap();
        drop(f);
        let key2 = entry_key(&cache, &file, Some(&cols), BATCH_ROWS).unwrap();
        assert_eq!(key2.file, key.file);
        assert!(open_entry(&key2).is_none());
        // Read again from the file, the entry is replaced.
        assert_eq!(rows_of(&file, Some(&cols), Some(&cache), usize::MAX), first);
        assert!(open_entry(&key2).unwrap().complete);
        assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 1);
    }

    #[test]
    fn a_cache_that_cannot_be_written_is_skipped() {
        let dir = TempDir::new("arrow-cache-blocked");
        // The cache "directory" is a file: no entry can be made, the rows still come.
        let blocked = dir.0.join("not-a-dir");
        std::fs::write(&blocked, b"x").unwrap();
        let cols: Vec<String> = vec!["title".into()];
        let file = squad_validation();
        assert_eq!(rows_of(&file, Some(&cols), Some(&blocked), 2), rows_of(&file, Some(&cols), None, 2));
    }
}
