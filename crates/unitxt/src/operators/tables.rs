//! Operators that build tables, `{"header": [...], "rows": [[...], ...]}`, from the forms
//! datasets store them in (Unitxt's `struct_data_operators.py`): `map_table_lists_to_std_table_json`
//! (a list of lists, header first), `construct_table_from_rows_cols` (header and rows as Python
//! literals in two fields) and `parse_csv` (CSV or TSV text, read as Python's `csv.reader` reads
//! it).

use serde::Deserialize;

use super::literal::literal_eval;
use crate::py::ops::py_strip;
use super::{FieldOperator, InstanceOperator};
use crate::error::{Error, Result};
use crate::py::dict_path::dict_get;
use crate::value::{Instance, Value};

/// `{"header": header, "rows": rows}`, with room for a `caption` (the table augmentors build
/// their tables with it too).
pub(crate) fn table(header: Value, rows: Value) -> Instance {
    let mut m = Instance::with_capacity(3);
    m.push_new("header".into(), header);
    m.push_new("rows".into(), rows);
    m
}

/// `map_table_lists_to_std_table_json` (Unitxt's `MapTableListsToStdTableJSON`): a list whose
/// first item is the header and whose other items are the rows becomes a table (a string is
/// split the same way, first character and the rest, as Python's indexing does). Errors on an
/// empty list or string, and on other values.
#[derive(Debug, Clone, Deserialize)]
pub struct MapTableListsToStdTableJson {}

impl FieldOperator for MapTableListsToStdTableJson {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        match value {
            Value::Array(mut items) if !items.is_empty() => {
                let rows = items.split_off(1);
                let header = items.pop().unwrap_or(Value::Null);
                Ok(Value::Object(table(header, Value::Array(rows))))
            }
            Value::String(t) if !t.is_empty() => {
                let first = t.chars().next().map(|c| c.len_utf8()).unwrap_or(0);
                Ok(Value::Object(table(Value::from(&t[..first]), Value::from(&t[first..]))))
            }
            other => Err(Error::invalid(format!(
                "map_table_lists_to_std_table_json: expected a non-empty list (header, then rows), got {}",
                crate::artifact::short(&other)
            ))),
        }
    }
}

/// `construct_table_from_rows_cols` (Unitxt's `ConstructTableFromRowsCols`): the header and the
/// rows are Python literals (strings) at the paths `fields[0]` and `fields[1]`, read as
/// `ast.literal_eval` reads them; the table, with `caption` from top-level field `fields[2]` when
/// given and not `null`, goes to top-level field `to_field`. Errors on a missing field, a value
/// that is not a string, or a malformed literal.
#[derive(Debug, Clone, Deserialize)]
pub struct ConstructTableFromRowsCols {
    /// `fields`: the header path, the rows path, and optionally the caption's (top-level) field.
    pub fields: Vec<String>,
    /// `to_field`: the top-level field that receives the table.
    pub to_field: String,
}

impl InstanceOperator for ConstructTableFromRowsCols {
    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        let who = "construct_table_from_rows_cols";
        if self.fields.len() < 2 {
            return Err(Error::invalid(format!("{who}: `fields` needs the header and rows fields")));
        }
        let literal = |path: &str| -> Result<Value> {
            match &*dict_get(&instance, path)? {
                Value::String(s) => literal_eval(s).map_err(|e| e.context(format!("{who}: field {path:?}"))),
                other => Err(Error::invalid(format!(
                    "{who}: field {path:?} must be a string holding a Python literal, got {}",
                    crate::artifact::short(other)
                ))),
            }
        };
        let mut t = table(literal(&self.fields[0])?, literal(&self.fields[1])?);
        if let Some(f) = self.fields.get(2) {
            let caption = instance.get(f).ok_or_else(|| Error::not_found(format!("{who}: the instance has no field {f:?}")))?;
            if !caption.is_null() {
                t.push_new("caption".into(), caption.clone());
            }
        }
        instance.insert(self.to_field.as_str().into(), Value::Object(t));
        Ok(instance)
    }
}

fn comma() -> String {
    ",".into()
}

fn yes() -> bool {
    true
}

/// `parse_csv` (Unitxt's `ParseCSV`): CSV text becomes a table of strings. With `has_header`
/// (the default) the first record is the header; without it, or with `skip_header` (the first
/// record dropped), the header is `col_0`, `col_1`, ... as wide as the first row (an error when
/// there is none). `strip_cells` replaces new lines by spaces and strips every cell.
#[derive(Debug, Clone, Deserialize)]
pub struct ParseCsv {
    /// `separator`: the one-character field delimiter (default `,`).
    #[serde(default = "comma")]
    pub separator: String,
    /// `has_header`: the first record is the header (default true).
    #[serde(default = "yes")]
    pub has_header: bool,
    /// `skip_header`: drop the first record and name the columns `col_i` (default false).
    #[serde(default)]
    pub skip_header: bool,
    /// `dtype`: accepted (`"str"` or `null`) and unused: cells are strings either way.
    #[serde(default)]
    pub dtype: Option<String>,
    /// `strip_cells`: replace `\n` by a space in every cell and strip it (default false).
    #[serde(default)]
    pub strip_cells: bool,
}

impl FieldOperator for ParseCsv {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let text = value.as_str().ok_or_else(|| Error::invalid(format!("parse_csv: expected CSV text, got {}", crate::artifact::short(&value))))?;
        let mut sep = self.separator.chars();
        let (Some(delimiter), None) = (sep.next(), sep.next()) else {
            return Err(Error::invalid(format!("parse_csv: separator {:?} must be one character", self.separator)));
        };
        let records = csv_records(text, delimiter)?;
        let mut header = Vec::new();
        let mut rows = Vec::new();
        for (i, r) in records.into_iter().enumerate() {
            if i == 0 && self.has_header {
                header = r;
            } else {
                rows.push(r);
            }
        }
        if !self.has_header || self.skip_header {
            let width = rows.first().ok_or_else(|| Error::invalid("parse_csv: no row to name the columns from"))?.len();
            header = (0..width).map(|i| format!("col_{i}")).collect();
        }
        let clean = |s: String| if self.strip_cells { py_strip(&s.replace('\n', " ")).to_string() } else { s };
        let strings = |r: Vec<String>| Value::Array(r.into_iter().map(|c| Value::String(clean(c).into())).collect());
        Ok(Value::Object(table(strings(header), Value::Array(rows.into_iter().map(strings).collect()))))
    }
}

/// The records of `text` as Python's `csv.reader(io.StringIO(text), delimiter=d, quotechar='"')`
/// gives them (CPython's `Modules/_csv.c` state machine, `excel` dialect, not strict): lines
/// end at `\n`, an empty line is an empty record, `""` inside quotes is a quote, a quote inside
/// an unquoted field is kept, and an unterminated quoted field ends at the end of the text.
/// Errors where Python's reader raises `csv.Error` (a carriage return inside an unquoted line,
/// a NUL character).
pub fn csv_records(text: &str, d: char) -> Result<Vec<Vec<String>>> {
    #[derive(PartialEq, Clone, Copy)]
    enum S {
        StartRecord,
        StartField,
        InField,
        InQuoted,
        QuoteInQuoted,
        EatCrnl,
    }
    let err = |m: &str| Error::invalid(format!("parse_csv: {m}"));
    let mut records = Vec::new();
    let mut fields: Vec<String> = Vec::new();
    let mut field = String::new();
    let mut state = S::StartRecord;
    // `None` is the end of a line (CPython's EOL marker).
    let step = |c: Option<char>, state: &mut S, fields: &mut Vec<String>, field: &mut String| -> Result<()> {
        let nl = matches!(c, Some('\n' | '\r'));
        let end = |c: Option<char>| if c.is_none() { S::StartRecord } else { S::EatCrnl };
        let mut s = *state;
        if s == S::StartRecord {
            match c {
                None => return Ok(()),
                Some('\n' | '\r') => {
                    *state = S::EatCrnl;
                    return Ok(());
                }
                _ => s = S::StartField,
            }
        }
        *state = match s {
            // A quote opens a quoted field only at the start of a field.
            S::StartField if c == Some('"') && !nl => S::InQuoted,
            S::StartField | S::InField => {
                if nl || c.is_none() {
                    fields.push(std::mem::take(field));
                    end(c)
                } else if c == Some(d) {
                    fields.push(std::mem::take(field));
                    S::StartField
                } else {
                    field.extend(c);
                    S::InField
                }
            }
            S::InQuoted => match c {
                None => S::InQuoted,
                Some('"') => S::QuoteInQuoted,
                Some(ch) => {
                    field.push(ch);
                    S::InQuoted
                }
            },
            S::QuoteInQuoted => {
                if c == Some('"') {
                    field.push('"');
                    S::InQuoted
                } else if c == Some(d) {
                    fields.push(std::mem::take(field));
                    S::StartField
                } else if nl || c.is_none() {
                    fields.push(std::mem::take(field));
                    end(c)
                } else {
                    field.extend(c);
                    S::InField
                }
            }
            S::EatCrnl => match c {
                Some('\n' | '\r') => S::EatCrnl,
                None => S::StartRecord,
                Some(_) => return Err(err("new-line character seen in unquoted field")),
            },
            S::StartRecord => S::StartRecord,
        };
        Ok(())
    };
    for line in text.split_inclusive('\n') {
        for c in line.chars() {
            if c == '\0' {
                return Err(err("line contains NUL"));
            }
            step(Some(c), &mut state, &mut fields, &mut field)?;
        }
        step(None, &mut state, &mut fields, &mut field)?;
        if state == S::StartRecord {
            records.push(std::mem::take(&mut fields));
        }
    }
    // End of text inside a record: an unterminated quoted field (or a pending field) is saved.
    if !field.is_empty() || state == S::InQuoted {
        fields.push(field);
        records.push(fields);
    }
    Ok(records)
}

/// `str(v)` of Python, for the serializers below.
fn s(v: &Value) -> String {
    crate::py::repr::str(v)
}

/// The items of `v` unpacked into exactly `n` values (Python's `a, b, c = v`), an error
/// naming `who` otherwise.
fn unpack(v: &Value, n: usize, who: &str) -> Result<Vec<Value>> {
    let items = crate::py::ops::py_iter(v).map_err(|e| e.context(format!("{who}: cannot unpack {}", crate::artifact::short(v))))?;
    if items.len() != n {
        return Err(Error::invalid(format!("{who}: expected {n} values to unpack, got {}", items.len())));
    }
    Ok(items)
}

/// `serialize_triples` (Unitxt's `SerializeTriples`): `[[subject, relation, object], ...]`
/// becomes `"subject : relation : object | ..."`, each relation lower-cased (Python's
/// `str.lower`), subjects and objects as Python's `str()`. Errors when a triple does not unpack
/// into three values or a relation is not a string.
#[derive(Debug, Clone, Deserialize)]
pub struct SerializeTriples {}

impl FieldOperator for SerializeTriples {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let mut parts = Vec::new();
        for triple in crate::py::ops::py_iter(&value)? {
            let t = unpack(&triple, 3, "serialize_triples")?;
            let rel = t[1].as_str().ok_or_else(|| {
                Error::invalid(format!("serialize_triples: a relation must be a string, got {}", crate::artifact::short(&t[1])))
            })?;
            parts.push(format!("{} : {} : {}", s(&t[0]), rel.to_lowercase(), s(&t[2])));
        }
        Ok(Value::from(parts.join(" | ")))
    }
}

/// `serialize_key_val_pairs` (Unitxt's `SerializeKeyValPairs`): `{"k1": v1, "k2": v2}` becomes
/// `"k1 is v1, k2 is v2"` (values as Python's `str()`; `""` for an empty dict). Errors on a
/// value that is not a dict.
#[derive(Debug, Clone, Deserialize)]
pub struct SerializeKeyValPairs {}

impl FieldOperator for SerializeKeyValPairs {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let Value::Object(m) = &value else {
            return Err(Error::invalid(format!("'{}' object has no attribute 'items'", crate::py::repr::type_name(&value))));
        };
        Ok(Value::from(m.iter().map(|(k, v)| format!("{k} is {}", s(v))).collect::<Vec<_>>().join(", ")))
    }
}

/// `list_to_key_val_pairs` (Unitxt's `ListToKeyValPairs`): the lists at paths `fields[0]`
/// (keys) and `fields[1]` (values) are zipped into a dict at top-level field `to_field` (a
/// repeated key keeps its first place and its last value). Keys must be strings or integers
/// (an integer key is written as its digits, as JSON writes it). Errors on a missing field, a
/// value that is not iterable, or another key.
#[derive(Debug, Clone, Deserialize)]
pub struct ListToKeyValPairs {
    /// `fields`: the paths of the keys and of the values.
    pub fields: Vec<String>,
    /// `to_field`: the top-level field that receives the dict.
    pub to_field: String,
}

impl InstanceOperator for ListToKeyValPairs {
    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        let [keys_path, values_path, ..] = self.fields.as_slice() else {
            return Err(Error::invalid("list_to_key_val_pairs: `fields` needs the keys' and the values' fields"));
        };
        let keys = crate::py::ops::py_iter(&*dict_get(&instance, keys_path)?)?;
        let values = crate::py::ops::py_iter(&*dict_get(&instance, values_path)?)?;
        let mut out = Instance::new();
        for (k, v) in keys.into_iter().zip(values) {
            let key = match &k {
                Value::String(s) => s.to_string(),
                Value::Number(n) if n.as_i64().is_some() => s(&k),
                other => {
                    return Err(Error::invalid(format!(
                        "list_to_key_val_pairs: a key must be a string or an integer, got {}",
                        crate::artifact::short(other)
                    )))
                }
            };
            out.insert(key.as_str().into(), v);
        }
        instance.insert(self.to_field.as_str().into(), Value::Object(out));
        Ok(instance)
    }
}

/// Unitxt's `truncate_cell`: a string longer than `max_len` characters that is not blank is
/// cut to its first `max_len` characters (`Some`); `None` leaves the value as it is (`null`,
/// numbers, booleans, short or blank strings). Errors on other values (Python calls `strip` on
/// them).
pub(crate) fn truncate_cell(v: &Value, max_len: i64) -> Result<Option<Value>> {
    match v {
        Value::Null | Value::Number(_) | Value::Bool(_) => Ok(None),
        Value::String(t) => {
            let n = t.chars().count() as i64;
            if py_strip(t).is_empty() {
                return Ok(None);
            }
            if n > max_len {
                return Ok(Some(crate::py::ops::py_slice(v, None, Some(max_len), None)?));
            }
            Ok(None)
        }
        other => Err(Error::invalid(format!("'{}' object has no attribute 'strip'", crate::py::repr::type_name(other)))),
    }
}

/// `serialize_table_row_as_text` (Unitxt's `SerializeTableRowAsText`): the values at the
/// paths `fields` become `"f1 is v1, f2 is v2, "` (note the trailing separator, as in Unitxt;
/// values as Python's `str()`, strings cut to `max_cell_length` characters when given, see
/// [`truncate_cell`]), stored at top-level field `to_field`. Errors on a missing field.
#[derive(Debug, Clone, Deserialize)]
pub struct SerializeTableRowAsText {
    /// `fields`: the paths of the values, in order.
    pub fields: Vec<String>,
    /// `to_field`: the top-level field that receives the text.
    pub to_field: String,
    /// `max_cell_length`: the longest a string value may be (absent: no limit).
    #[serde(default)]
    pub max_cell_length: Option<i64>,
}

impl InstanceOperator for SerializeTableRowAsText {
    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        let mut text = String::new();
        for f in &self.fields {
            let mut value = dict_get(&instance, f)?.into_owned();
            if let Some(max) = self.max_cell_length {
                if let Some(cut) = truncate_cell(&value, max)? {
                    value = cut;
                }
            }
            text.push_str(&format!("{f} is {}, ", s(&value)));
        }
        instance.insert(self.to_field.as_str().into(), Value::from(text));
        Ok(instance)
    }
}

/// Python's `len(v)` of a list, string or dict, `TypeError` otherwise.
fn py_len(v: Option<&Value>, what: &str) -> Result<usize> {
    match v {
        Some(Value::Array(a)) => Ok(a.len()),
        Some(Value::String(t)) => Ok(t.chars().count()),
        Some(Value::Object(m)) => Ok(m.len()),
        Some(other) => Err(Error::invalid(format!("{what}: object of type '{}' has no len()", crate::py::repr::type_name(other)))),
        None => Err(Error::invalid(format!("{what}: object of type 'NoneType' has no len()"))),
    }
}

/// `get_num_of_table_cells` (Unitxt's `GetNumOfTableCells`): the number of rows times the
/// number of header cells of a table. Errors on a value that is not a dict, or a missing or
/// length-less `rows` or `header`.
#[derive(Debug, Clone, Deserialize)]
pub struct GetNumOfTableCells {}

impl FieldOperator for GetNumOfTableCells {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let Value::Object(m) = &value else {
            return Err(Error::invalid(format!("'{}' object has no attribute 'get'", crate::py::repr::type_name(&value))));
        };
        let rows = py_len(m.get("rows"), "get_num_of_table_cells: rows")?;
        let cols = py_len(m.get("header"), "get_num_of_table_cells: header")?;
        Ok(Value::from(rows * cols))
    }
}

/// `dump_json` (Unitxt's `DumpJson`): the value as Python's `json.dumps` writes it (non-ASCII
/// escaped, `", "` and `": "` separators).
#[derive(Debug, Clone, Deserialize)]
pub struct DumpJson {}

impl FieldOperator for DumpJson {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        Ok(Value::from(crate::py::json::dumps(&value, Default::default())))
    }
}
