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
    fn process_instance(&self, instance: Instance, _split: &str) -> Result<Instance> {
        serialize_row(instance, &self.fields, self.max_cell_length, &self.to_field, " is ")
    }
}

/// The row serializers' work: `"{field}{between}{value}, "` for each of `fields` (values as
/// Python's `str()`, strings cut to `max_cell_length`), stored at `to_field`.
fn serialize_row(mut instance: Instance, fields: &[String], max_cell_length: Option<i64>, to_field: &str, between: &str) -> Result<Instance> {
    let mut text = String::new();
    for f in fields {
        let mut value = dict_get(&instance, f)?.into_owned();
        if let Some(max) = max_cell_length {
            if let Some(cut) = truncate_cell(&value, max)? {
                value = cut;
            }
        }
        text.push_str(&format!("{f}{between}{}, ", s(&value)));
    }
    instance.insert(to_field.into(), Value::from(text));
    Ok(instance)
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

/// `map_html_table_to_json` (Unitxt's `MapHTMLTableToJSON`, which reads the HTML with
/// BeautifulSoup's `html.parser` builder): the header is the text of every `th` inside the
/// first `thead`, each row the texts of the `td`s inside one `tr` of the first `tbody` (every
/// `tr` and `td` below it, nested tables included, as `find_all` finds them). The HTML is read
/// as that builder reads it: tags are not closed implicitly (a `td` opened before the previous
/// one is closed lies inside it), an end tag closes the nearest open element of its name and
/// is ignored when there is none, void elements (`br`, `img`, ...) hold nothing, comments and
/// the text of `script` and `style` are not text, and character references are decoded as
/// Python's `html.unescape` decodes them (named references: the common ones; an unknown one
/// stays as written). Errors (Unitxt's `AttributeError`) when there is no `thead` or no
/// `tbody`, and on a value that is not a string.
#[derive(Debug, Clone, Deserialize)]
pub struct MapHtmlTableToJson {}

impl FieldOperator for MapHtmlTableToJson {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let html = value.as_str().ok_or_else(|| {
            Error::invalid(format!("map_html_table_to_json: expected HTML text, got {}", crate::artifact::short(&value)))
        })?;
        let doc = html_soup::parse(html);
        let section = |name: &str| {
            doc.find(0, name).ok_or_else(|| Error::invalid(format!("map_html_table_to_json: the HTML has no <{name}>")))
        };
        let header: Vec<Value> = doc.find_all(section("thead")?, "th").into_iter().map(|c| Value::from(doc.text(c))).collect();
        let rows: Vec<Value> = doc
            .find_all(section("tbody")?, "tr")
            .into_iter()
            .map(|r| Value::Array(doc.find_all(r, "td").into_iter().map(|c| Value::from(doc.text(c))).collect()))
            .collect();
        Ok(Value::Object(table(Value::Array(header), Value::Array(rows))))
    }
}

/// A small HTML tree as BeautifulSoup builds it with Python's `html.parser` (see
/// [`MapHtmlTableToJson`]).
mod html_soup {
    /// What an element holds.
    enum Child {
        Text(String),
        Elem(usize),
    }

    struct Node {
        name: String,
        children: Vec<Child>,
    }

    /// The elements; element 0 is the document.
    pub struct Doc {
        nodes: Vec<Node>,
    }

    const VOID: &[&str] = &[
        "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "menuitem", "meta", "param", "source",
        "track", "wbr", "basefont", "bgsound", "command", "frame", "image", "isindex", "nextid", "spacer",
    ];

    impl Doc {
        /// The first element named `name` below element `at`, in document order.
        pub fn find(&self, at: usize, name: &str) -> Option<usize> {
            self.find_all(at, name).into_iter().next()
        }

        /// Every element named `name` below element `at`, in document order.
        pub fn find_all(&self, at: usize, name: &str) -> Vec<usize> {
            let mut out = Vec::new();
            self.walk(at, &mut |i| {
                if self.nodes[i].name == name {
                    out.push(i)
                }
            });
            out
        }

        fn walk(&self, at: usize, f: &mut impl FnMut(usize)) {
            for c in &self.nodes[at].children {
                if let Child::Elem(i) = c {
                    f(*i);
                    self.walk(*i, f);
                }
            }
        }

        /// The text below element `at` (BeautifulSoup's `get_text()`).
        pub fn text(&self, at: usize) -> String {
            let mut out = String::new();
            self.collect_text(at, &mut out);
            out
        }

        fn collect_text(&self, at: usize, out: &mut String) {
            for c in &self.nodes[at].children {
                match c {
                    Child::Text(t) => out.push_str(t),
                    Child::Elem(i) => self.collect_text(*i, out),
                }
            }
        }
    }

    struct Builder {
        doc: Doc,
        open: Vec<usize>,
        text: String,
    }

    impl Builder {
        fn flush(&mut self) {
            self.flush_text(false);
        }

        /// Adds the pending text (`last`: it ends the document).
        fn flush_text(&mut self, last: bool) {
            if !self.text.is_empty() {
                let t = super::html_unescape(&std::mem::take(&mut self.text), last);
                let top = *self.open.last().unwrap_or(&0);
                self.doc.nodes[top].children.push(Child::Text(t));
            }
        }

        fn start(&mut self, name: String, self_closing: bool) {
            self.flush();
            let i = self.doc.nodes.len();
            let top = *self.open.last().unwrap_or(&0);
            let void = VOID.contains(&name.as_str());
            self.doc.nodes.push(Node { name: name.clone(), children: Vec::new() });
            self.doc.nodes[top].children.push(Child::Elem(i));
            if !void {
                self.open.push(i);
                if self_closing {
                    self.end(&name);
                }
            }
        }

        fn end(&mut self, name: &str) {
            self.flush();
            if let Some(at) = self.open.iter().rposition(|&i| i != 0 && self.doc.nodes[i].name == name) {
                self.open.truncate(at);
            }
        }
    }

    /// The byte index of the `>` that ends the tag starting at `from` (quoted attribute values
    /// may hold `>`), or `None`.
    fn tag_end(s: &str, from: usize) -> Option<usize> {
        let b = s.as_bytes();
        let mut i = from;
        let mut after_eq = false;
        while i < b.len() {
            match b[i] {
                b'>' => return Some(i),
                b'=' => after_eq = true,
                q @ (b'"' | b'\'') if after_eq => {
                    i += 1 + s[i + 1..].find(q as char)?;
                    after_eq = false;
                }
                c if c.is_ascii_whitespace() => {}
                _ => after_eq = false,
            }
            i += 1;
        }
        None
    }

    /// Reads `html` into a tree.
    pub fn parse(html: &str) -> Doc {
        let mut b = Builder { doc: Doc { nodes: vec![Node { name: String::new(), children: Vec::new() }] }, open: vec![0], text: String::new() };
        let bytes = html.as_bytes();
        let mut i = 0;
        while i < html.len() {
            let Some(lt) = html[i..].find('<').map(|p| p + i) else {
                b.text.push_str(&html[i..]);
                break;
            };
            b.text.push_str(&html[i..lt]);
            let next = bytes.get(lt + 1).copied();
            let close = |from: usize| html[from..].find('>').map_or(html.len(), |p| from + p + 1);
            match next {
                Some(c) if c.is_ascii_alphabetic() => {
                    let Some(end) = tag_end(html, lt + 1) else {
                        b.text.push_str(&html[lt..]);
                        break;
                    };
                    let inner = &html[lt + 1..end];
                    let name_len = inner.find(|c: char| c.is_whitespace() || c == '/' || c == '\0').unwrap_or(inner.len());
                    let name = inner[..name_len].to_ascii_lowercase();
                    let self_closing = inner.ends_with('/');
                    b.start(name.clone(), self_closing);
                    i = end + 1;
                    if (name == "script" || name == "style") && !self_closing {
                        // Raw text up to the closing tag, which is not text for get_text().
                        let lower = html[i..].to_ascii_lowercase();
                        let stop = lower.find(&format!("</{name}")).map_or(html.len(), |p| i + p);
                        i = stop;
                    }
                }
                Some(b'/') => match bytes.get(lt + 2) {
                    Some(c) if c.is_ascii_alphabetic() => {
                        let end = close(lt + 2);
                        let inner = &html[lt + 2..end.saturating_sub(1).max(lt + 2)];
                        let name = inner.split(|c: char| c.is_whitespace() || c == '/' || c == '>').next().unwrap_or_default().to_ascii_lowercase();
                        b.end(&name);
                        i = end;
                    }
                    // `</>` and bogus comments are dropped.
                    Some(_) => i = close(lt + 2),
                    None => {
                        b.text.push_str(&html[lt..]);
                        break;
                    }
                },
                Some(b'!') if html[lt..].starts_with("<!--") => {
                    b.flush();
                    i = html[lt + 4..].find("-->").map_or(html.len(), |p| lt + 4 + p + 3);
                }
                Some(b'!') | Some(b'?') => {
                    b.flush();
                    i = close(lt + 2);
                }
                _ => {
                    b.text.push('<');
                    i = lt + 1;
                }
            }
        }
        b.flush_text(true);
        b.doc
    }
}

/// Named character references decoded by [`html_unescape`] (a common subset of HTML's):
/// (name, text, unused flag).
const ENTITIES: &[(&str, &str, bool)] = &[
    ("amp", "&", true), ("lt", "<", true), ("gt", ">", true), ("quot", "\"", true), ("apos", "'", false),
    ("nbsp", "\u{a0}", true), ("copy", "\u{a9}", true), ("reg", "\u{ae}", true), ("deg", "\u{b0}", true),
    ("plusmn", "\u{b1}", true), ("times", "\u{d7}", true), ("divide", "\u{f7}", true), ("middot", "\u{b7}", true),
    ("para", "\u{b6}", true), ("sect", "\u{a7}", true), ("pound", "\u{a3}", true), ("euro", "\u{20ac}", false),
    ("yen", "\u{a5}", true), ("cent", "\u{a2}", true), ("laquo", "\u{ab}", true), ("raquo", "\u{bb}", true),
    ("micro", "\u{b5}", true), ("frac12", "\u{bd}", true), ("frac14", "\u{bc}", true), ("frac34", "\u{be}", true),
    ("sup2", "\u{b2}", true), ("sup3", "\u{b3}", true), ("ndash", "\u{2013}", false), ("mdash", "\u{2014}", false),
    ("lsquo", "\u{2018}", false), ("rsquo", "\u{2019}", false), ("ldquo", "\u{201c}", false), ("rdquo", "\u{201d}", false),
    ("hellip", "\u{2026}", false), ("bull", "\u{2022}", false), ("le", "\u{2264}", false), ("ge", "\u{2265}", false),
    ("ne", "\u{2260}", false), ("minus", "\u{2212}", false), ("asymp", "\u{2248}", false), ("infin", "\u{221e}", false),
    ("alpha", "\u{3b1}", false), ("beta", "\u{3b2}", false), ("gamma", "\u{3b3}", false), ("delta", "\u{3b4}", false),
    ("mu", "\u{3bc}", false), ("pi", "\u{3c0}", false), ("sigma", "\u{3c3}", false), ("thinsp", "\u{2009}", false),
    ("ensp", "\u{2002}", false), ("emsp", "\u{2003}", false), ("zwnj", "\u{200c}", false), ("zwj", "\u{200d}", false),
];

/// Character references as BeautifulSoup's `html.parser` builder decodes them: `&#NN` /
/// `&#xHH` (the code point; 128-159 as Windows-1252 reads the byte; 0, surrogates and values
/// past U+10FFFF as U+FFFD) and `&name` of [`ENTITIES`] (else `&name` is kept, its `;`
/// dropped), each ended by `;` (consumed) or by another character that cannot continue it;
/// a reference at the very end of the document (`last`) stays as written.
fn html_unescape(s: &str, last: bool) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    const CP1252: [u32; 32] = [
        0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
        0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
    ];
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find('&') {
        out.push_str(&rest[..p]);
        let after = &rest[p + 1..];
        // (bytes used after `&`, the text) of a reference ended properly.
        let ended = |n: usize, stop: &dyn Fn(char) -> bool| -> Option<usize> {
            match after[n..].chars().next() {
                Some(';') => Some(n + 1),
                Some(c) if !stop(c) => Some(n),
                None if !last => Some(n),
                _ => None,
            }
        };
        let mut done = false;
        if let Some(num) = after.strip_prefix('#') {
            let (hex, digits) = match num.strip_prefix(['x', 'X']) {
                Some(h) => (true, h),
                None => (false, num),
            };
            let n = digits.find(|c: char| if hex { !c.is_ascii_hexdigit() } else { !c.is_ascii_digit() }).unwrap_or(digits.len());
            if n > 0 {
                if let Some(used) = ended(1 + usize::from(hex) + n, &|c: char| c.is_ascii_hexdigit()) {
                    let code = u32::from_str_radix(&digits[..n], if hex { 16 } else { 10 }).unwrap_or(u32::MAX);
                    let code = if (128..160).contains(&code) { CP1252[(code - 128) as usize] } else { code };
                    out.push(if code == 0 { '\u{fffd}' } else { char::from_u32(code).unwrap_or('\u{fffd}') });
                    rest = &after[used..];
                    done = true;
                }
            }
        } else if after.starts_with(|c: char| c.is_ascii_alphabetic()) {
            let n = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.')).unwrap_or(after.len());
            if let Some(used) = ended(n, &|c: char| c.is_ascii_alphanumeric()) {
                let name = &after[..n];
                match ENTITIES.iter().find(|(e, _, _)| *e == name) {
                    Some((_, text, _)) => out.push_str(text),
                    None => {
                        out.push('&');
                        out.push_str(name);
                    }
                }
                rest = &after[used..];
                done = true;
            }
        }
        if !done {
            out.push('&');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

fn default_max_length() -> i64 {
    15
}

/// `truncate_table_cells` (Unitxt's `TruncateTableCells`, `struct_data_operators`): cuts every
/// string cell of the table at path `table` (a dict with `rows`, a list of lists) that is
/// longer than `max_length` characters and not blank to its first `max_length` characters
/// (see [`truncate_cell`]); other cells stay. With `text_output`, the path of a list of
/// answers, an answer equal to a cut cell's old text becomes its new text, so that answers
/// still name cells. Errors, as Unitxt raises: no `table`, a table that is not a dict, a row
/// that is not a list, a cell that is neither a string, a number, a boolean nor `null`, answers
/// that are not a list or hold a list or dict.
#[derive(Debug, Clone, Deserialize)]
pub struct TruncateTableCells {
    /// `max_length`: the most characters a cell keeps (default 15).
    #[serde(default = "default_max_length")]
    pub max_length: i64,
    /// `table`: the path of the table.
    #[serde(default)]
    pub table: Option<String>,
    /// `text_output`: the path of the answers to keep in step with the cut cells (absent: none).
    #[serde(default)]
    pub text_output: Option<String>,
}

impl InstanceOperator for TruncateTableCells {
    fn process_instance(&self, mut instance: Instance, _split: &str) -> Result<Instance> {
        let path = self.table.as_deref().ok_or_else(|| Error::invalid("truncate_table_cells: `table` is not set"))?;
        let mut table = dict_get(&instance, path)?.into_owned();
        let Value::Object(m) = &mut table else {
            return Err(Error::invalid(format!("truncate_table_cells: '{}' object has no attribute 'get'", crate::py::repr::type_name(&table))));
        };
        let mut cut: std::collections::HashMap<String, Value> = std::collections::HashMap::new();
        match m.get_mut("rows") {
            None => {}
            Some(Value::Array(rows)) => {
                for row in rows.iter_mut() {
                    let Value::Array(cells) = row else {
                        return Err(Error::invalid(format!(
                            "truncate_table_cells: a row must be a list, got '{}'",
                            crate::py::repr::type_name(row)
                        )));
                    };
                    for cell in cells.iter_mut() {
                        if let Some(new) = truncate_cell(cell, self.max_length)? {
                            if let Value::String(old) = cell {
                                cut.insert(old.to_string(), new.clone());
                            }
                            *cell = new;
                        }
                    }
                }
            }
            Some(other) => {
                return Err(Error::invalid(format!("truncate_table_cells: rows must be a list, got '{}'", crate::py::repr::type_name(other))))
            }
        }
        crate::py::dict_path::dict_set(&mut instance, path, table)?;
        if let Some(out) = &self.text_output {
            let mut answers = dict_get(&instance, out)?.into_owned();
            let Value::Array(items) = &mut answers else {
                return Err(Error::invalid(format!(
                    "truncate_table_cells: the answers at {out:?} must be a list, got '{}'",
                    crate::py::repr::type_name(&answers)
                )));
            };
            for a in items.iter_mut() {
                match a {
                    Value::String(t) => {
                        if let Some(new) = cut.get(t.as_str()) {
                            *a = new.clone();
                        }
                    }
                    Value::Array(_) | Value::Object(_) => {
                        return Err(Error::invalid(format!("truncate_table_cells: unhashable type: '{}'", crate::py::repr::type_name(a))))
                    }
                    _ => {}
                }
            }
            crate::py::dict_path::dict_set(&mut instance, out, answers)?;
        }
        Ok(instance)
    }
}

/// `serialize_table_row_as_list` (Unitxt's `SerializeTableRowAsList`): the values at the paths
/// `fields` become `"f1: v1, f2: v2, "` (the trailing separator kept; values as Python's
/// `str()`, strings cut to `max_cell_length` characters when given, see [`truncate_cell`]),
/// stored at top-level field `to_field`. Errors on a missing field.
#[derive(Debug, Clone, Deserialize)]
pub struct SerializeTableRowAsList {
    /// `fields`: the paths of the values, in order.
    pub fields: Vec<String>,
    /// `to_field`: the top-level field that receives the text.
    pub to_field: String,
    /// `max_cell_length`: the longest a string value may be (absent: no limit).
    #[serde(default)]
    pub max_cell_length: Option<i64>,
}

impl InstanceOperator for SerializeTableRowAsList {
    fn process_instance(&self, instance: Instance, _split: &str) -> Result<Instance> {
        serialize_row(instance, &self.fields, self.max_cell_length, &self.to_field, ": ")
    }
}

/// `convert_table_col_names_to_sequential` (Unitxt's `ConvertTableColNamesToSequential`): a
/// table (a dict) whose `header` becomes `["col_0", "col_1", ...]`, as many names as it had.
/// Errors on a value that is not a dict, and on a missing or empty header.
#[derive(Debug, Clone, Deserialize)]
pub struct ConvertTableColNamesToSequential {}

impl FieldOperator for ConvertTableColNamesToSequential {
    fn process_value(&self, mut value: Value, _instance: &Instance) -> Result<Value> {
        let Value::Object(m) = &mut value else {
            return Err(Error::invalid(format!("'{}' object has no attribute 'get'", crate::py::repr::type_name(&value))));
        };
        let n = match m.get("header") {
            None | Some(Value::Null) => 0,
            Some(h) => {
                if !crate::value::truthy(h) {
                    0
                } else {
                    py_len(Some(h), "convert_table_col_names_to_sequential: header")?
                }
            }
        };
        if n == 0 {
            return Err(Error::invalid("Input table missing header"));
        }
        m.insert("header".into(), Value::Array((0..n).map(|i| Value::from(format!("col_{i}"))).collect()));
        Ok(value)
    }
}
