//! Serializers: turn field values into the text templates format (Unitxt's `serializers.py`).
//!
//! Each single-type serializer answers `None` for values outside its type (Unitxt's
//! `isoftype(value, serialized_type)` test), so that [`MultiTypeSerializer`] can try the next;
//! when none matches, the value is rendered with Python's `str()`.

use std::sync::Arc;

use serde::Deserialize;

use crate::artifact::Art;
use crate::error::{Error, Result};
use crate::py::json::{dumps, DumpOptions};
use crate::py::random::new_random_generator;
use crate::py::repr::{float_repr, str as py_str};
use crate::templates::Serializer;
use crate::value::{Instance, Value};

/// Serializes `v` with `ser`, falling back to Python's `str(v)` when `ser` does not handle the
/// value's type. Uses [`Serializer::serialize_mut`], so image and tool serializers can record
/// media and tools in the instance.
pub fn serialize_with(ser: &dyn Serializer, v: &mut Value, instance: &mut Instance) -> Result<String> {
    match ser.serialize_mut(v, instance)? {
        Some(s) => Ok(s),
        None => Ok(py_str(v)),
    }
}

fn art(s: Arc<dyn Serializer>, type_name: &str) -> Art<dyn Serializer> {
    Art::new(s, crate::json!({ "__type__": type_name }))
}

/// The serializer of a template that names none (Unitxt's `Template.serializer` default):
/// image, video, table, tool call, tools, dialog, conversation, list, SQL database. Built once
/// per process and shared (templates ask for it for every instance).
pub fn default_template_serializer() -> &'static dyn Serializer {
    static DEFAULT: std::sync::OnceLock<Arc<dyn Serializer>> = std::sync::OnceLock::new();
    DEFAULT.get_or_init(build_default_template_serializer).as_ref()
}

fn build_default_template_serializer() -> Arc<dyn Serializer> {
    Arc::new(MultiTypeSerializer::new(vec![
        art(Arc::new(ImageSerializer {}), "image_serializer"),
        art(Arc::new(VideoSerializer {}), "video_serializer"),
        art(Arc::new(TableSerializer {}), "table_serializer"),
        art(Arc::new(ToolCallSerializer {}), "tool_call_serializer"),
        art(Arc::new(ToolsSerializer {}), "tools_serializer"),
        art(Arc::new(DialogSerializer {}), "dialog_serializer"),
        art(Arc::new(ConversationSerializer {}), "conversation_serializer"),
        art(Arc::new(ListSerializer {}), "list_serializer"),
        art(Arc::new(SqlDatabaseAsSchemaSerializer {}), "sql_database_as_schema_serializer"),
    ]))
}

/// The serializers of a `multi_type_serializer` that names none (Unitxt's
/// `MultiTypeSerializer.serializers` default; note: no list serializer).
pub fn default_multi_type_serializers() -> Vec<Art<dyn Serializer>> {
    vec![
        art(Arc::new(DocumentSerializer {}), "document_serializer"),
        art(Arc::new(ToolCallSerializer {}), "tool_call_serializer"),
        art(Arc::new(DialogSerializer {}), "dialog_serializer"),
        art(Arc::new(MultiDocumentSerializer {}), "multi_document_serializer"),
        art(Arc::new(ImageSerializer {}), "image_serializer"),
        art(Arc::new(VideoSerializer {}), "video_serializer"),
        art(Arc::new(TableSerializer {}), "table_serializer"),
        art(Arc::new(ToolsSerializer {}), "tools_serializer"),
        art(Arc::new(DialogSerializer {}), "dialog_serializer"),
    ]
}

// ---- type tests (Unitxt's isoftype against the types of `types.py`) ----

fn is_str(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::String(_)))
}

fn opt_str(v: Option<&Value>) -> bool {
    matches!(v, None | Some(Value::Null) | Some(Value::String(_)))
}

fn is_number(v: &Value) -> bool {
    matches!(v, Value::Number(_) | Value::Bool(_))
}

fn is_image(v: &Value) -> bool {
    v.as_object().is_some_and(|m| m.contains_key("image") && is_str(m.get("format")))
}

fn is_video(v: &Value) -> bool {
    v.as_array().is_some_and(|a| a.iter().all(is_image))
}

fn is_table(v: &Value) -> bool {
    v.as_object().is_some_and(|m| {
        m.get("header").and_then(|h| h.as_array()).is_some_and(|h| h.iter().all(|x| x.is_string()))
            && m.get("rows").and_then(|r| r.as_array()).is_some_and(|r| r.iter().all(|x| x.is_array()))
    })
}

fn is_tool_call(v: &Value) -> bool {
    v.as_object().is_some_and(|m| is_str(m.get("name")) && m.get("arguments").is_some_and(|a| a.is_object()))
}

fn is_tool(v: &Value) -> bool {
    v.as_object().is_some_and(|m| {
        is_str(m.get("name"))
            && is_str(m.get("description"))
            && m.get("parameters").is_some_and(|p| p.is_object())
            && matches!(m.get("type"), None | Some(Value::Null)) | (m.get("type").and_then(|t| t.as_str()) == Some("function"))
    })
}

fn is_tools(v: &Value) -> bool {
    v.as_array().is_some_and(|a| a.iter().all(is_tool))
}

fn is_turn(v: &Value) -> bool {
    let Some(m) = v.as_object() else { return false };
    let role = m.get("role").and_then(|r| r.as_str());
    let text_turn =
        matches!(role, Some("system" | "user" | "agent" | "assistant")) && is_str(m.get("content"));
    let tool_call_turn = role == Some("assistant")
        && opt_str(m.get("content"))
        && m.get("tool_calls").and_then(|t| t.as_array()).is_some_and(|calls| {
            calls.iter().all(|c| {
                c.as_object().is_some_and(|c| {
                    is_str(c.get("id"))
                        && c.get("type").and_then(|t| t.as_str()) == Some("function")
                        && c.get("function").is_some_and(is_tool_call)
                })
            })
        });
    let tool_output_turn = role == Some("tool")
        && is_str(m.get("tool_call_id"))
        && is_str(m.get("name"))
        && is_str(m.get("content"));
    text_turn || tool_call_turn || tool_output_turn
}

fn is_dialog(v: &Value) -> bool {
    v.as_array().is_some_and(|a| a.iter().all(is_turn))
}

fn is_conversation(v: &Value) -> bool {
    v.as_object().is_some_and(|m| is_str(m.get("id")) && m.get("dialog").is_some_and(is_dialog))
}

fn is_document(v: &Value) -> bool {
    v.as_object().is_some_and(|m| is_str(m.get("title")) && is_str(m.get("body")))
}

fn is_multi_document(v: &Value) -> bool {
    v.as_array().is_some_and(|a| a.iter().all(is_document))
}

fn is_sql_database(v: &Value) -> bool {
    v.as_object().is_some_and(|m| {
        opt_str(m.get("db_id"))
            && matches!(m.get("db_type").and_then(|t| t.as_str()), Some("local" | "in_memory" | "remote"))
            && opt_str(m.get("dbms"))
            && match m.get("data") {
                None | Some(Value::Null) => true,
                Some(Value::Object(d)) => d.values().all(|x| x.is_object()),
                _ => false,
            }
    })
}

fn join_str(items: &[Value]) -> String {
    // Room for the strings and separators (other items grow it as needed).
    let room = items.iter().map(|x| x.as_str().map_or(0, str::len) + 2).sum::<usize>();
    let mut out = String::with_capacity(room);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        match item {
            // `str()` of a string is its text.
            Value::String(s) => out.push_str(s),
            other => out.push_str(&py_str(other)),
        }
    }
    out
}

// ---- serializers ----

/// `default_serializer`: Python's `str(value)` for everything.
#[derive(Deserialize, Default)]
pub struct DefaultSerializer {}

impl Serializer for DefaultSerializer {
    fn serialize(&self, value: &Value, _instance: &Instance) -> Result<Option<String>> {
        Ok(Some(py_str(value)))
    }
}

/// `default_list_serializer`: a list as its items' `str()` joined by `", "`; anything else
/// with `str()`.
#[derive(Deserialize, Default)]
pub struct DefaultListSerializer {}

impl Serializer for DefaultListSerializer {
    fn serialize(&self, value: &Value, _instance: &Instance) -> Result<Option<String>> {
        Ok(Some(match value {
            Value::Array(a) => join_str(a),
            other => py_str(other),
        }))
    }
}

/// `list_serializer`: a list as its items' `str()` joined by `", "`.
#[derive(Deserialize, Default)]
pub struct ListSerializer {}

impl Serializer for ListSerializer {
    fn skips_strings(&self) -> bool {
        true
    }
    fn serialize(&self, value: &Value, _instance: &Instance) -> Result<Option<String>> {
        Ok(value.as_array().map(|a| join_str(a)))
    }
}

/// `dict_as_json_serializer`: a dict as `json.dumps(value)` (ASCII, default separators).
#[derive(Deserialize, Default)]
pub struct DictAsJsonSerializer {}

impl Serializer for DictAsJsonSerializer {
    fn skips_strings(&self) -> bool {
        true
    }
    fn skips_string_lists(&self) -> bool {
        true
    }
    fn serialize(&self, value: &Value, _instance: &Instance) -> Result<Option<String>> {
        Ok(value.is_object().then(|| dumps(value, DumpOptions::default())))
    }
}

fn dialog_text(turns: &[Value]) -> String {
    let mut out = Vec::new();
    for turn in turns {
        let mut s = format!("{}: ", turn.get("role").map(py_str).unwrap_or_default());
        if let Some(c) = turn.get("content") {
            s.push_str(&py_str(c));
        }
        if let Some(tc) = turn.get("tool_calls") {
            s.push('\n');
            s.push_str(&dumps(tc, DumpOptions::default()));
        }
        out.push(s);
    }
    out.join("\n")
}

/// `dialog_serializer`: a dialog (list of turns) as `role: content` lines; tool calls as
/// JSON on the next line.
#[derive(Deserialize, Default)]
pub struct DialogSerializer {}

impl Serializer for DialogSerializer {
    fn skips_strings(&self) -> bool {
        true
    }
    fn skips_string_lists(&self) -> bool {
        true
    }
    fn serialize(&self, value: &Value, _instance: &Instance) -> Result<Option<String>> {
        Ok(match value {
            Value::Array(a) if is_dialog(value) => Some(dialog_text(a)),
            _ => None,
        })
    }
}

/// `conversation_serializer`: a conversation (`{id, dialog}`) as its dialog's text.
#[derive(Deserialize, Default)]
pub struct ConversationSerializer {}

impl Serializer for ConversationSerializer {
    fn skips_strings(&self) -> bool {
        true
    }
    fn skips_string_lists(&self) -> bool {
        true
    }
    fn serialize(&self, value: &Value, _instance: &Instance) -> Result<Option<String>> {
        if !is_conversation(value) {
            return Ok(None);
        }
        Ok(value.get("dialog").and_then(|d| d.as_array()).map(|a| dialog_text(a)))
    }
}

/// `number_serializer`: an int with `str()`, a float with one decimal (`f"{x:.1f}"`).
#[derive(Deserialize, Default)]
pub struct NumberSerializer {}

impl Serializer for NumberSerializer {
    fn skips_strings(&self) -> bool {
        true
    }
    fn skips_string_lists(&self) -> bool {
        true
    }
    fn serialize(&self, value: &Value, _instance: &Instance) -> Result<Option<String>> {
        Ok(match value {
            Value::Bool(_) => Some(py_str(value)),
            Value::Number(n) if n.is_f64() => Some(format!("{:.1}", n.as_f64().unwrap_or(f64::NAN))),
            Value::Number(_) => Some(py_str(value)),
            _ => None,
        })
    }
}

/// `number_quantizing_serializer`: a number rounded to a multiple of `quantum`
/// (`round(x / quantum) / (1 / quantum)`, an int when `quantum` is an int).
#[derive(Deserialize)]
pub struct NumberQuantizingSerializer {
    /// The step: an int or a float (default 0.1).
    #[serde(default = "default_quantum")]
    pub quantum: Value,
}

fn default_quantum() -> Value {
    crate::json!(0.1)
}

/// Python's `round(x)` of a float: nearest integer, ties to even.
fn round_half_even(x: f64) -> f64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 {
        2.0 * (x / 2.0).round()
    } else {
        r
    }
}

impl NumberQuantizingSerializer {
    /// Quantizes `value` (an int, float or bool).
    pub fn quantize(&self, value: &Value) -> Result<String> {
        let q = self
            .quantum
            .as_f64()
            .ok_or_else(|| Error::invalid(format!("quantum must be a number, got {}", self.quantum)))?;
        let x = match value {
            Value::Bool(b) => *b as i64 as f64,
            Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
            _ => return Err(Error::invalid("unsupported type for NumberSerializer")),
        };
        if q == 0.0 {
            return Err(Error::invalid("quantum must not be zero (division by zero)"));
        }
        let ratio = x / q;
        if !ratio.is_finite() {
            return Err(Error::invalid(format!("cannot quantize {}", py_str(value))));
        }
        let quantized = round_half_even(ratio) / (1.0 / q);
        if self.quantum.is_i64() || self.quantum.is_u64() {
            Ok(format!("{}", quantized.trunc() as i64))
        } else {
            Ok(crate::py::repr::float_repr(quantized))
        }
    }
}

impl Serializer for NumberQuantizingSerializer {
    fn skips_strings(&self) -> bool {
        true
    }
    fn skips_string_lists(&self) -> bool {
        true
    }
    fn serialize(&self, value: &Value, _instance: &Instance) -> Result<Option<String>> {
        if !is_number(value) {
            return Ok(None);
        }
        self.quantize(value).map(Some)
    }
}

/// One CSV field as Python's `csv.writer` (excel dialect, `"\n"` line ends) writes it.
fn csv_field(v: &Value, only_field: bool) -> String {
    let s = match v {
        Value::Null => String::new(),
        other => py_str(other),
    };
    if s.is_empty() && only_field {
        return "\"\"".into();
    }
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

fn csv_row(row: &[Value]) -> String {
    let only = row.len() == 1;
    row.iter().map(|v| csv_field(v, only)).collect::<Vec<_>>().join(",")
}

/// `table_serializer`: a table (`{header, rows}`) as CSV text, surrounding whitespace removed.
#[derive(Deserialize, Default)]
pub struct TableSerializer {}

impl Serializer for TableSerializer {
    fn skips_strings(&self) -> bool {
        true
    }
    fn skips_string_lists(&self) -> bool {
        true
    }
    fn serialize(&self, value: &Value, _instance: &Instance) -> Result<Option<String>> {
        if !is_table(value) {
            return Ok(None);
        }
        let mut out = String::new();
        if let Some(h) = value.get("header").and_then(|h| h.as_array()) {
            out.push_str(&csv_row(h));
            out.push('\n');
        }
        for row in value.get("rows").and_then(|r| r.as_array()).map(|r| r.as_slice()).unwrap_or(&[]) {
            out.push_str(&csv_row(row.as_array().map(|r| r.as_slice()).unwrap_or(&[])));
            out.push('\n');
        }
        Ok(Some(py_strip(&out).to_string()))
    }
}

use crate::py::ops::py_strip;

/// The layout of a [`SerializeTable`] serializer: one per `serialize_table_as_*` type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableLayout {
    /// `serialize_table_as_indexed_row_major`: `col : a | b row 1 : 1 | 2 row 2 : ...`.
    IndexedRowMajor,
    /// `serialize_table_as_markdown`: `|a|b|`, `|---|---|`, then one `|1|2|` line per row.
    Markdown,
    /// `serialize_table_as_json`: `json.dumps({0: {a: 1, b: 2}, 1: ...})` (row index as key).
    Json,
    /// `serialize_table_as_html`: `<table>` with a `<thead>` row and a `<tbody>` row per row,
    /// cells as Python's `str()`, unescaped (as Unitxt writes them).
    Html,
    /// `serialize_table_as_concatenation`: header then every row, cells `str()`-ed, joined by
    /// spaces.
    Concatenation,
    /// `serialize_table_as_df_loader`: `pd.DataFrame({<columns as JSON lists>},\nindex=[0, ...])`,
    /// the columns as pandas' `to_dict(orient="list")` gives them (see [`df_column`]), a
    /// repeated column name suffixed `_1`, `_2`, ...
    DfLoader,
    /// `serialize_table_as_image`: the table drawn as a PNG (see
    /// [`crate::images::table_image`]; its pixels differ from matplotlib's), recorded in the
    /// instance's `media/images` as `{image, format: "png"}` and stood for by its
    /// `<unitxt-img src="media/images/<i>">` tag, as Unitxt's `ImageSerializer` does.
    Image,
}

/// One column of a table as pandas 3 infers and `DataFrame.to_dict(orient="list")` returns it,
/// written as `json.dumps` writes the list: all integers stay integers; integers and floats
/// (with `None` as NaN) become floats; all booleans stay booleans; strings with `None` become
/// pandas' string dtype, `None` as NaN; anything else (objects, mixed types, all `None`) is
/// kept as it is.
fn df_column(values: &[&Value]) -> String {
    let is_int = |v: &Value| v.is_i64() || v.is_u64();
    let is_num = |v: &Value| matches!(v, Value::Number(_));
    let float = |v: &Value| match v.as_f64() {
        Some(f) if f.is_finite() => float_repr(f),
        Some(f) if f.is_nan() => "NaN".to_string(),
        Some(f) if f > 0.0 => "Infinity".to_string(),
        Some(_) => "-Infinity".to_string(),
        None => "NaN".to_string(),
    };
    let any = |f: &dyn Fn(&Value) -> bool| values.iter().any(|v| f(v));
    let all = |f: &dyn Fn(&Value) -> bool| values.iter().all(|v| f(v));
    let items: Vec<String> = if !values.is_empty() && all(&is_int) {
        values.iter().map(|v| dumps(v, DumpOptions::default())).collect()
    } else if all(&|v| is_num(v) || v.is_null()) && any(&is_num) {
        values.iter().map(|v| float(v)).collect()
    } else if all(&|v| v.is_string() || v.is_null()) && any(&|v| v.is_string()) {
        values.iter().map(|v| if v.is_null() { "NaN".to_string() } else { dumps(v, DumpOptions::default()) }).collect()
    } else {
        values.iter().map(|v| dumps(v, DumpOptions::default())).collect()
    };
    format!("[{}]", items.join(", "))
}

/// Unitxt's `SerializeTable` subclasses (`struct_data_operators.py`): a table (`{header,
/// rows}`) as text in one [`TableLayout`]. With `shuffle_columns`, the columns are first put
/// in an order drawn from a generator seeded with the table and `seed` (Unitxt's
/// `shuffle_columns`); then, with `shuffle_rows`, the rows, from a generator seeded with the
/// table as it then is (`shuffle_rows`). Errors: an empty header or no rows (Unitxt's
/// assertion), and a header cell that is not a string for the layouts that join it as text.
#[derive(Deserialize)]
pub struct SerializeTable {
    /// Which layout; set by the registry from the `__type__`.
    #[serde(skip, default = "default_layout")]
    pub layout: TableLayout,
    /// `seed`: mixed into the shuffles' seeds (default 0).
    #[serde(default)]
    pub seed: Value,
    /// `shuffle_rows` (default false).
    #[serde(default)]
    pub shuffle_rows: bool,
    /// `shuffle_columns` (default false).
    #[serde(default)]
    pub shuffle_columns: bool,
}

fn default_layout() -> TableLayout {
    TableLayout::Markdown
}

impl SerializeTable {
    /// The header and rows after the configured shuffles.
    fn shuffled(&self, value: &Value) -> Result<(Vec<Value>, Vec<Vec<Value>>)> {
        let mut header: Vec<Value> = value.get("header").and_then(|h| h.as_array()).cloned().unwrap_or_default();
        let mut rows: Vec<Vec<Value>> = value
            .get("rows")
            .and_then(|r| r.as_array())
            .map(|r| r.iter().map(|row| row.as_array().cloned().unwrap_or_default()).collect())
            .unwrap_or_default();
        let table = |header: &Vec<Value>, rows: &Vec<Vec<Value>>| {
            let mut t = value.as_object().cloned().unwrap_or_default();
            t.insert("header".into(), Value::Array(header.clone()));
            t.insert("rows".into(), Value::Array(rows.iter().cloned().map(Value::Array).collect()));
            Value::Object(t)
        };
        let seeded = |t: Value| {
            let mut m = crate::value::Map::new();
            m.insert("table".into(), t);
            m.insert("seed".into(), if self.seed.is_null() { Value::from(0) } else { self.seed.clone() });
            new_random_generator(&Value::Object(m))
        };
        if self.shuffle_columns {
            let mut order: Vec<usize> = (0..header.len()).collect();
            seeded(table(&header, &rows)).shuffle(&mut order);
            header = order.iter().map(|&i| header[i].clone()).collect();
            rows = rows
                .iter()
                .map(|r| order.iter().map(|&i| r.get(i).cloned().ok_or_else(|| Error::invalid("list index out of range"))).collect())
                .collect::<Result<_>>()?;
        }
        if self.shuffle_rows {
            seeded(table(&header, &rows)).shuffle(&mut rows);
        }
        Ok((header, rows))
    }
}

/// The header's cells as strings, for layouts that join them as text (`TypeError` in Python
/// otherwise).
fn header_texts(header: &[Value]) -> Result<Vec<&str>> {
    header
        .iter()
        .map(|h| h.as_str().ok_or_else(|| Error::invalid(format!("sequence item: expected str instance, {} found", crate::py::repr::type_name(h)))))
        .collect()
}

impl Serializer for SerializeTable {
    fn skips_strings(&self) -> bool {
        true
    }
    fn skips_string_lists(&self) -> bool {
        true
    }
    fn serialize_mut(&self, value: &mut Value, instance: &mut Instance) -> Result<Option<String>> {
        if self.layout != TableLayout::Image {
            return self.serialize(value, instance);
        }
        if !is_table(value) {
            return Ok(None);
        }
        let (header, rows) = self.shuffled(value)?;
        if header.is_empty() || rows.is_empty() {
            return Err(Error::invalid("Incorrect input table format"));
        }
        let bytes = crate::images::table_image::table_png(&header, &rows)?;
        let url = crate::images::EncodedImage { bytes, format: image::ImageFormat::Png }.to_data_url();
        let mut img = crate::json!({"image": url, "format": "png"});
        record_image(&mut img, instance).map(Some)
    }
    fn serialize(&self, value: &Value, _instance: &Instance) -> Result<Option<String>> {
        if !is_table(value) {
            return Ok(None);
        }
        let (header, rows) = self.shuffled(value)?;
        if header.is_empty() || rows.is_empty() {
            return Err(Error::invalid("Incorrect input table format"));
        }
        let cells = |row: &[Value], sep: &str| row.iter().map(py_str).collect::<Vec<_>>().join(sep);
        let text = match self.layout {
            TableLayout::IndexedRowMajor => {
                let mut s = format!("col : {} ", header_texts(&header)?.join(" | "));
                for (i, row) in rows.iter().enumerate() {
                    s.push_str(&format!("row {} : {} ", i + 1, cells(row, " | ")));
                }
                py_strip(&s).to_string()
            }
            TableLayout::Markdown => {
                let h = header_texts(&header)?;
                let mut s = format!("|{}|\n|{}|\n", h.join("|"), vec!["---"; h.len()].join("|"));
                for row in &rows {
                    s.push_str(&format!("|{}|\n", cells(row, "|")));
                }
                py_strip(&s).to_string()
            }
            TableLayout::Json => {
                let mut out = crate::value::Map::new();
                for (i, row) in rows.iter().enumerate() {
                    let mut r = crate::value::Map::new();
                    for (j, v) in row.iter().enumerate() {
                        let key = header.get(j).ok_or_else(|| Error::invalid("list index out of range"))?;
                        let key = key.as_str().map(str::to_string).unwrap_or_else(|| py_str(key));
                        r.insert(key.into(), v.clone());
                    }
                    out.insert(i.to_string().into(), Value::Object(r));
                }
                dumps(&Value::Object(out), DumpOptions::default())
            }
            TableLayout::Html => {
                let mut s = String::from("<table>\n  <thead>\n    <tr>");
                for h in &header {
                    s.push_str(&format!("<th>{}</th>", py_str(h)));
                }
                s.push_str("</tr>\n  </thead>\n  <tbody>");
                for row in &rows {
                    s.push_str("\n    <tr>");
                    for c in row {
                        s.push_str(&format!("<td>{}</td>", py_str(c)));
                    }
                    s.push_str("</tr>");
                }
                s.push_str("\n  </tbody>\n</table>");
                py_strip(&s).to_string()
            }
            TableLayout::DfLoader => {
                let names: Vec<String> = header
                    .iter()
                    .enumerate()
                    .map(|(i, h)| {
                        let n = header[..i].iter().filter(|x| crate::py::ops::py_eq(x, h)).count();
                        let h = py_str(h);
                        if n > 0 { format!("{h}_{n}") } else { h }
                    })
                    .collect();
                if let Some(r) = rows.iter().find(|r| r.len() != header.len()) {
                    return Err(Error::invalid(format!("{} columns passed, passed data had {} columns", header.len(), r.len())));
                }
                let columns: Vec<String> = names
                    .iter()
                    .enumerate()
                    .map(|(j, n)| {
                        let col: Vec<&Value> = rows.iter().map(|r| &r[j]).collect();
                        format!("{}: {}", crate::py::json::dumps_str(n, true), df_column(&col))
                    })
                    .collect();
                let index: Vec<String> = (0..rows.len()).map(|i| i.to_string()).collect();
                format!("pd.DataFrame({{\n{}}},\nindex=[{}])", columns.join(", "), index.join(", "))
            }
            TableLayout::Concatenation => {
                let mut s = cells(&header, " ");
                for row in &rows {
                    s.push(' ');
                    s.push_str(&cells(row, " "));
                }
                py_strip(&s).to_string()
            }
            TableLayout::Image => {
                return Err(Error::invalid("serialize_table_as_image needs to record the image in the instance (use serialize_mut)"));
            }
        };
        Ok(Some(text))
    }
}

fn record_image(value: &mut Value, instance: &mut Instance) -> Result<String> {
    let media = instance.entry("media").or_insert_with(|| Value::Object(Default::default()));
    let media = media.as_object_mut().ok_or_else(|| Error::invalid("instance field `media` must be a dict"))?;
    let images = media.entry("images").or_insert_with(|| Value::Array(vec![]));
    let images = images.as_array_mut().ok_or_else(|| Error::invalid("`media/images` must be a list"))?;
    let idx = images.len();
    let mut rec = crate::value::Map::new();
    rec.insert("image".into(), value.get("image").cloned().unwrap_or(Value::Null));
    rec.insert("format".into(), value.get("format").cloned().unwrap_or(Value::Null));
    images.push(Value::Object(rec));
    if let Some(m) = value.as_object_mut() {
        m.insert("image".into(), Value::String(compact_str::format_compact!("media/images/{idx}")));
    }
    Ok(format!("<unitxt-img src=\"media/images/{idx}\">"))
}

/// `image_serializer`: stores an image (`{image, format}`) in the instance's `media/images`
/// and stands for it with `<unitxt-img src="media/images/<i>">`.
#[derive(Deserialize, Default)]
pub struct ImageSerializer {}

impl Serializer for ImageSerializer {
    fn skips_strings(&self) -> bool {
        true
    }
    fn skips_string_lists(&self) -> bool {
        true
    }
    fn serialize(&self, value: &Value, _instance: &Instance) -> Result<Option<String>> {
        if !is_image(value) {
            return Ok(None);
        }
        Err(Error::invalid("image_serializer needs to record the image in the instance (use serialize_mut)"))
    }
    fn serialize_mut(&self, value: &mut Value, instance: &mut Instance) -> Result<Option<String>> {
        if !is_image(value) {
            return Ok(None);
        }
        record_image(value, instance).map(Some)
    }
}

/// `video_serializer`: a video (list of images) as the concatenated image tags.
#[derive(Deserialize, Default)]
pub struct VideoSerializer {}

impl Serializer for VideoSerializer {
    fn skips_strings(&self) -> bool {
        true
    }
    fn skips_string_lists(&self) -> bool {
        true
    }
    fn serialize(&self, value: &Value, _instance: &Instance) -> Result<Option<String>> {
        match value.as_array() {
            Some(a) if a.is_empty() => Ok(Some(String::new())),
            Some(_) if is_video(value) => Err(Error::invalid("video_serializer needs a mutable instance")),
            _ => Ok(None),
        }
    }
    fn serialize_mut(&self, value: &mut Value, instance: &mut Instance) -> Result<Option<String>> {
        if !is_video(value) {
            return Ok(None);
        }
        let mut out = String::new();
        if let Some(a) = value.as_array_mut() {
            for img in a.iter_mut() {
                out.push_str(&record_image(img, instance)?);
            }
        }
        Ok(Some(out))
    }
}

/// `document_serializer`: `# <title>\n\n<body>`.
#[derive(Deserialize, Default)]
pub struct DocumentSerializer {}

fn document_text(v: &Value) -> String {
    format!(
        "# {}\n\n{}",
        v.get("title").map(py_str).unwrap_or_default(),
        v.get("body").map(py_str).unwrap_or_default()
    )
}

impl Serializer for DocumentSerializer {
    fn skips_strings(&self) -> bool {
        true
    }
    fn skips_string_lists(&self) -> bool {
        true
    }
    fn serialize(&self, value: &Value, _instance: &Instance) -> Result<Option<String>> {
        Ok(is_document(value).then(|| document_text(value)))
    }
}

/// `multi_document_serializer`: documents separated by a blank line.
#[derive(Deserialize, Default)]
pub struct MultiDocumentSerializer {}

impl Serializer for MultiDocumentSerializer {
    fn skips_strings(&self) -> bool {
        true
    }
    fn skips_string_lists(&self) -> bool {
        true
    }
    fn serialize(&self, value: &Value, _instance: &Instance) -> Result<Option<String>> {
        if !is_multi_document(value) {
            return Ok(None);
        }
        let docs: Vec<String> = value.as_array().map(|a| a.iter().map(document_text).collect()).unwrap_or_default();
        Ok(Some(docs.join("\n\n")))
    }
}

/// `tools_serializer`: appends the tools to the instance's `__tools__` and renders that list
/// as JSON indented by 4.
#[derive(Deserialize, Default)]
pub struct ToolsSerializer {}

impl Serializer for ToolsSerializer {
    fn skips_strings(&self) -> bool {
        true
    }
    fn skips_string_lists(&self) -> bool {
        true
    }
    fn serialize(&self, value: &Value, _instance: &Instance) -> Result<Option<String>> {
        if !is_tools(value) {
            return Ok(None);
        }
        Err(Error::invalid("tools_serializer needs a mutable instance"))
    }
    fn serialize_mut(&self, value: &mut Value, instance: &mut Instance) -> Result<Option<String>> {
        if !is_tools(value) {
            return Ok(None);
        }
        let tools = instance.entry("__tools__").or_insert_with(|| Value::Array(vec![]));
        let list = tools.as_array_mut().ok_or_else(|| Error::invalid("instance field `__tools__` must be a list"))?;
        for tool in value.as_array().map(|a| a.as_slice()).unwrap_or(&[]) {
            list.push(crate::json!({"type": "function", "function": tool}));
        }
        Ok(Some(dumps(tools, DumpOptions { indent: Some(4), ..DumpOptions::default() })))
    }
}

/// `tool_call_serializer`: a tool call (`{name, arguments}`) as `json.dumps`.
#[derive(Deserialize, Default)]
pub struct ToolCallSerializer {}

impl Serializer for ToolCallSerializer {
    fn skips_strings(&self) -> bool {
        true
    }
    fn skips_string_lists(&self) -> bool {
        true
    }
    fn serialize(&self, value: &Value, _instance: &Instance) -> Result<Option<String>> {
        Ok(is_tool_call(value).then(|| dumps(value, DumpOptions::default())))
    }
}

/// `sql_database_as_schema_serializer`: would render a database's schema; connecting to
/// databases is not supported, so a database value is an error.
#[derive(Deserialize, Default)]
pub struct SqlDatabaseAsSchemaSerializer {}

impl Serializer for SqlDatabaseAsSchemaSerializer {
    fn skips_strings(&self) -> bool {
        true
    }
    fn skips_string_lists(&self) -> bool {
        true
    }
    fn serialize(&self, value: &Value, _instance: &Instance) -> Result<Option<String>> {
        if !is_sql_database(value) {
            return Ok(None);
        }
        Err(Error::unsupported("serializing an SQL database as its schema needs a database connection"))
    }
}

/// The catalog JSON of `multi_type_serializer`, which builds into a [`MultiTypeSerializer`].
#[derive(Deserialize)]
pub struct MultiTypeSerializerConfig {
    /// `serializers`: tried in order (catalog names or inline serializers; absent: document,
    /// tool call, dialog, multi-document, image, video, table and tools serializers, as
    /// Unitxt lists them).
    #[serde(default)]
    pub serializers: Option<Vec<Value>>,
}

impl MultiTypeSerializerConfig {
    /// Builds the serializers in `cx`.
    pub fn build(self, cx: &crate::artifact::BuildContext<'_>) -> Result<MultiTypeSerializer> {
        Ok(MultiTypeSerializer::new(match self.serializers {
            Some(list) => cx.build_all(&list)?,
            None => default_multi_type_serializers(),
        }))
    }
}

/// `multi_type_serializer`: the first of `serializers` that handles the value's type, else
/// Python's `str()`.
pub struct MultiTypeSerializer {
    /// Tried in order; the first that handles the value's type writes it.
    pub serializers: Vec<Art<dyn Serializer>>,
    /// Whether every one of `serializers` skips strings (then a string is its own text, as
    /// `str()` gives it); worked out on first use.
    strings_pass: std::sync::OnceLock<bool>,
    /// Position in `serializers` of the first one that may claim a non-empty list of strings
    /// (the ones before it all skip such lists); worked out on first use.
    first_for_string_lists: std::sync::OnceLock<usize>,
}

impl MultiTypeSerializer {
    /// A multi-type serializer trying `serializers` in order.
    pub fn new(serializers: Vec<Art<dyn Serializer>>) -> Self {
        MultiTypeSerializer {
            serializers,
            strings_pass: std::sync::OnceLock::new(),
            first_for_string_lists: std::sync::OnceLock::new(),
        }
    }

    /// Whether no serializer of the list can claim a string (worked out once).
    fn strings_pass(&self) -> bool {
        *self.strings_pass.get_or_init(|| self.serializers.iter().all(|x| x.skips_strings()))
    }

    /// The serializers that may claim `value`: all of them, except for a non-empty list of
    /// strings, which skips those that never claim one.
    fn candidates(&self, value: &Value) -> &[Art<dyn Serializer>] {
        match value {
            Value::Array(a) if !a.is_empty() && a.iter().all(|x| x.is_string()) => {
                let first = *self
                    .first_for_string_lists
                    .get_or_init(|| self.serializers.iter().take_while(|x| x.skips_string_lists()).count());
                &self.serializers[first..]
            }
            _ => &self.serializers,
        }
    }

    /// The text of a string value when no serializer can claim it.
    fn passed_string(&self, value: &Value) -> Option<String> {
        match value {
            Value::String(s) if self.strings_pass() => Some(s.as_str().to_owned()),
            _ => None,
        }
    }
}

impl Serializer for MultiTypeSerializer {
    fn passes_strings(&self) -> bool {
        self.strings_pass()
    }
    fn serializers(&self) -> Option<&[Art<dyn Serializer>]> {
        Some(&self.serializers)
    }
    fn serialize(&self, value: &Value, instance: &Instance) -> Result<Option<String>> {
        if let Some(text) = self.passed_string(value) {
            return Ok(Some(text));
        }
        for s in self.candidates(value) {
            if let Some(out) = s.serialize(value, instance)? {
                return Ok(Some(out));
            }
        }
        Ok(Some(py_str(value)))
    }
    fn serialize_mut(&self, value: &mut Value, instance: &mut Instance) -> Result<Option<String>> {
        if let Some(text) = self.passed_string(value) {
            return Ok(Some(text));
        }
        for s in self.candidates(value) {
            if let Some(out) = s.serialize_mut(value, instance)? {
                return Ok(Some(out));
            }
        }
        Ok(Some(py_str(value)))
    }
}

/// A serializer that tries a number quantizer first, then `inner` (how Unitxt's
/// `OutputQuantizingTemplate` prepends a `NumberQuantizingSerializer` to its serializer).
pub struct QuantizingFirst {
    /// Rounds numbers first; declines everything else.
    pub quantizer: NumberQuantizingSerializer,
    /// Serializes whatever the quantizer declines.
    pub inner: Arc<dyn Serializer>,
    /// The same chain as one list, the quantizer first, when `inner` is a multi-type
    /// serializer (Unitxt's template adds its quantizer to that serializer's list).
    items: Option<Vec<Art<dyn Serializer>>>,
}

impl QuantizingFirst {
    /// `quantizer` in front of `inner`.
    pub fn new(quantizer: NumberQuantizingSerializer, inner: Arc<dyn Serializer>) -> Self {
        let items = inner.serializers().map(|rest| {
            let raw = crate::json!({"__type__": "number_quantizing_serializer", "quantum": quantizer.quantum.clone()});
            let first: Art<dyn Serializer> = Art::new(Arc::new(NumberQuantizingSerializer { quantum: quantizer.quantum.clone() }), raw);
            std::iter::once(first).chain(rest.iter().cloned()).collect()
        });
        QuantizingFirst { quantizer, inner, items }
    }
}

impl Serializer for QuantizingFirst {
    fn serializers(&self) -> Option<&[Art<dyn Serializer>]> {
        self.items.as_deref()
    }
    fn serialize(&self, value: &Value, instance: &Instance) -> Result<Option<String>> {
        match self.quantizer.serialize(value, instance)? {
            Some(s) => Ok(Some(s)),
            None => self.inner.serialize(value, instance),
        }
    }
    fn serialize_mut(&self, value: &mut Value, instance: &mut Instance) -> Result<Option<String>> {
        match self.quantizer.serialize(value, instance)? {
            Some(s) => Ok(Some(s)),
            None => self.inner.serialize_mut(value, instance),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn ser(s: &dyn Serializer, v: Value) -> (String, Instance) {
        let mut inst = Instance::new();
        let mut v = v;
        let out = serialize_with(s, &mut v, &mut inst).unwrap();
        (out, inst)
    }

    // Expected values from Unitxt 1.26.10's serializers run in /work/venv on the same values.
    #[test]
    fn default_chain_lists_tables_dialogs() {
        let d = default_template_serializer();
        assert_eq!(ser(&*d, json!(["a", "b"])).0, "a, b");
        assert_eq!(ser(&*d, json!([])).0, "");
        assert_eq!(ser(&*d, json!(["a", 1, 2.5, null, true])).0, "a, 1, 2.5, None, True");
        assert_eq!(ser(&*d, json!("text")).0, "text");
        assert_eq!(
            ser(&*d, json!({"header": ["a", "b"], "rows": [["x,y", "q\"r"], ["", null]]})).0,
            "a,b\n\"x,y\",\"q\"\"r\"\n,"
        );
        assert_eq!(
            ser(&*d, json!([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}])).0,
            "user: hi\nassistant: yo"
        );
        let (out, inst) = ser(&*d, json!({"image": "data", "format": "png"}));
        assert_eq!(out, "<unitxt-img src=\"media/images/0\">");
        assert_eq!(inst["media"], json!({"images": [{"image": "data", "format": "png"}]}));
    }

    /// A non-empty list of strings skips the serializers that never claim one and goes to the
    /// first that may, whatever it is; other values still meet every serializer in order.
    #[test]
    fn string_lists_go_to_the_first_serializer_that_may_claim_them() {
        let multi = |list: Vec<Art<dyn Serializer>>| MultiTypeSerializer::new(list);
        let dialog = || art(Arc::new(DialogSerializer {}), "dialog_serializer");
        let with_str = multi(vec![dialog(), art(Arc::new(DefaultSerializer {}), "default_serializer")]);
        assert_eq!(ser(&with_str, json!(["x", "y"])).0, "['x', 'y']");
        assert_eq!(ser(&with_str, json!([{"role": "user", "content": "hi"}])).0, "user: hi");
        let with_list = multi(vec![dialog(), art(Arc::new(DefaultListSerializer {}), "default_list_serializer")]);
        assert_eq!(ser(&with_list, json!(["x", "y"])).0, "x, y");
        // Without any serializer that claims them, str() of the list.
        let none = multi(vec![dialog()]);
        assert_eq!(ser(&none, json!(["x", "y"])).0, "['x', 'y']");
    }

    #[test]
    fn quantizing() {
        let q = NumberQuantizingSerializer { quantum: json!(1) };
        let inst = Instance::new();
        // round(2.5/1)=2 (banker's rounding) -> int(2/1.0) = 2
        assert_eq!(q.serialize(&json!(2.5), &inst).unwrap().as_deref(), Some("2"));
        assert_eq!(q.serialize(&json!(3.5), &inst).unwrap().as_deref(), Some("4"));
        assert_eq!(q.serialize(&json!("x"), &inst).unwrap(), None);
    }
}
