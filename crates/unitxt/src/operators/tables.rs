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
