//! Python's `str.format(**fields)` ([`py_format`]; [`FormatString`] for the format strings
//! of artifacts, parsed when the artifact is built), `str.title()` ([`py_title`]), and the equality and indexing of values as
//! Python compares and indexes them ([`py_eq`], [`py_index`]).

use std::borrow::Cow;

use crate::py::repr::{repr, str as py_str};
use crate::value::{Map as Fields, Value};

/// Why [`py_format`] failed: a missing key (Python's `KeyError`) or anything else.
#[derive(Debug, Clone, PartialEq)]
pub enum FormatError {
    /// A field or dict key that is not there.
    Key(String),
    /// Malformed format string, bad index, unsupported spec, ...
    Other(String),
}

fn other<T>(m: impl Into<String>) -> std::result::Result<T, FormatError> {
    Err(FormatError::Other(m.into()))
}

/// Named arguments of [`py_format`]: a dict of fields, or a list of (name, value) pairs.
pub trait FormatArgs {
    /// The value of argument `name`, if given.
    fn arg(&self, name: &str) -> Option<&Value>;
    /// [`FormatArgs::arg`] for `name`, also given as a [`crate::value::FieldName`] (whose
    /// position hint a dict of fields uses).
    fn arg_named(&self, name: &str, _field: &crate::value::FieldName) -> Option<&Value> {
        self.arg(name)
    }
}

impl FormatArgs for Fields {
    fn arg(&self, name: &str) -> Option<&Value> {
        self.get(name)
    }
    fn arg_named(&self, _name: &str, field: &crate::value::FieldName) -> Option<&Value> {
        self.get_name(field)
    }
}

impl FormatArgs for [(&str, &Value)] {
    fn arg(&self, name: &str) -> Option<&Value> {
        self.iter().find(|(k, _)| *k == name).map(|(_, v)| *v)
    }
}

/// Python's `fmt.format(**data)`: `{name}`, `{name[0]}`, `{name[key]}`, conversions `!s`,
/// `!r`, `!a`, format specs (nested `{}` allowed) and `{{` / `}}` escapes. Positional fields
/// (`{}`, `{0}`) fail as in Python, since only keyword arguments are given. Parses `fmt` on
/// every call: a string formatted again and again (an artifact's) is a [`FormatString`].
pub fn py_format<A: FormatArgs + ?Sized>(fmt: &str, data: &A) -> std::result::Result<String, FormatError> {
    match compile(fmt) {
        Some(pieces) => format_pieces(&pieces, fmt, 0, data),
        None => format_full(fmt, data),
    }
}

/// A format string of an artifact (a template's `input_format`, a format's
/// `model_input_format`), parsed once when the artifact is built and then formatted for
/// every instance with Python's `str.format(**data)` ([`py_format`]'s texts and errors).
/// Deserializes from a JSON string; dereferences to its text.
pub struct FormatString {
    text: String,
    /// The parse; `None` for a string that needs the full parse (malformed, or a spec with
    /// nested fields), whose error or text [`py_format`]'s slow path gives.
    pieces: Option<Vec<Piece>>,
    /// The longest text formatted so far (a capacity hint; formatting reads it from any
    /// thread, any value is correct).
    longest: std::sync::atomic::AtomicUsize,
}

impl FormatString {
    /// Parses `text`.
    pub fn new(text: impl Into<String>) -> FormatString {
        let text = text.into();
        let pieces = compile(&text);
        FormatString { text, pieces, longest: std::sync::atomic::AtomicUsize::new(0) }
    }

    /// The format string's text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The pieces of the string when it is well-formed and every field is a plain `{name}` (no
    /// `!r` conversion, no `:spec`, no index, attribute or position); `None` otherwise.
    /// Formatting such a string with string arguments is concatenation: each field gives its
    /// argument's text, as Python's `str.format` does. Adjacent literal texts are one piece.
    pub fn plain_pieces(&self) -> Option<Vec<PlainPiece>> {
        let fmt = &self.text;
        let mut out: Vec<PlainPiece> = Vec::new();
        for p in self.pieces.as_deref()? {
            match p {
                Piece::Lit(r) => match out.last_mut() {
                    Some(PlainPiece::Text(t)) => t.push_str(&fmt[r.clone()]),
                    _ => out.push(PlainPiece::Text(fmt[r.clone()].to_string())),
                },
                Piece::Field { name, conversion: None, spec, plain: Some(_) } if spec.is_empty() => out.push(PlainPiece::Field(fmt[name.clone()].to_string())),
                Piece::Field { .. } => return None,
            }
        }
        Some(out)
    }

    /// `self.format(**data)`, as [`py_format`].
    pub fn format<A: FormatArgs + ?Sized>(&self, data: &A) -> std::result::Result<String, FormatError> {
        match &self.pieces {
            Some(p) => {
                let longest = self.longest.load(std::sync::atomic::Ordering::Relaxed);
                let out = format_pieces(p, &self.text, longest, data)?;
                if out.len() > longest {
                    self.longest.store(out.len(), std::sync::atomic::Ordering::Relaxed);
                }
                Ok(out)
            }
            None => format_full(&self.text, data),
        }
    }

    /// [`FormatString::format`] as a [`Str`](crate::value::Str), for texts that become string
    /// values: a string that is one `{name}` of a string argument gives that argument's text
    /// without a `String` in between.
    pub fn format_str<A: FormatArgs + ?Sized>(&self, data: &A) -> std::result::Result<crate::value::Str, FormatError> {
        if let Some([Piece::Field { name, conversion: None, spec, plain: Some(field) }]) = self.pieces.as_deref() {
            if spec.is_empty() {
                if let Some(Value::String(text)) = data.arg_named(&self.text[name.clone()], field) {
                    return Ok(text.clone());
                }
            }
        }
        self.format(data).map(crate::value::Str::from)
    }
}

impl Clone for FormatString {
    fn clone(&self) -> Self {
        FormatString::new(self.text.clone())
    }
}

impl std::fmt::Debug for FormatString {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.text)
    }
}

impl PartialEq for FormatString {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl std::ops::Deref for FormatString {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

impl Default for FormatString {
    /// The empty format string.
    fn default() -> Self {
        FormatString::new(String::new())
    }
}

impl From<&str> for FormatString {
    fn from(s: &str) -> Self {
        FormatString::new(s)
    }
}

impl From<String> for FormatString {
    fn from(s: String) -> Self {
        FormatString::new(s)
    }
}

impl<'de> serde::Deserialize<'de> for FormatString {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        String::deserialize(d).map(FormatString::new)
    }
}

/// Formats the parsed `pieces` of `fmt`, into a buffer of at least `capacity` bytes.
fn format_pieces<A: FormatArgs + ?Sized>(pieces: &[Piece], fmt: &str, capacity: usize, data: &A) -> std::result::Result<String, FormatError> {
    // Sized for the longest text this string gave so far (fields such as a question
    // with its choices are much longer than the format string itself).
    let mut out = String::with_capacity(capacity.max(fmt.len() + 64));
    for p in pieces {
        match p {
            Piece::Lit(r) => out.push_str(&fmt[r.clone()]),
            // `{name}` of a string argument: its text.
            Piece::Field { name, conversion: None, spec, plain: Some(field) } if spec.is_empty() => {
                let name = &fmt[name.clone()];
                match data.arg_named(name, field) {
                    Some(Value::String(text)) => out.push_str(text),
                    Some(value) => emit_value(value, None, "", &mut out)?,
                    None => return Err(FormatError::Key(name.to_string())),
                }
            }
            Piece::Field { name, conversion, spec, .. } => {
                let value = lookup(&fmt[name.clone()], data)?;
                emit_value(&value, *conversion, &fmt[spec.clone()], &mut out)?
            }
        }
    }
    Ok(out)
}

/// [`py_format`] of a malformed string or one with a spec holding nested fields: the full
/// parse, with Python's errors.
fn format_full<A: FormatArgs + ?Sized>(fmt: &str, data: &A) -> std::result::Result<String, FormatError> {
    let mut out = String::with_capacity(fmt.len() + 64);
    format_depth(fmt, data, 2, &mut out)?;
    Ok(out)
}

/// A piece of a parsed format string, as byte ranges into it.
enum Piece {
    /// Literal text (a `{{` or `}}` escape is a one-byte literal).
    Lit(std::ops::Range<usize>),
    /// A replacement field without nested fields in its spec; `plain` (the name, ready for
    /// hinted lookups, see [`crate::value::FieldName`]) when the name is one keyword argument
    /// (no `.`, `[`, not a position), which needs no [`lookup`].
    Field { name: std::ops::Range<usize>, conversion: Option<char>, spec: std::ops::Range<usize>, plain: Option<crate::value::FieldName> },
}

/// A piece of a format string made of literal text and `{name}` fields only (see
/// [`FormatString::plain_pieces`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlainPiece {
    /// Literal text, with `{{` and `}}` escapes resolved.
    Text(String),
    /// A `{name}` field: one keyword argument, without conversion or format spec.
    Field(String),
}

/// Parses `fmt` into pieces; `None` when it is malformed or a spec holds nested fields (then
/// [`format_depth`] formats it and reports the error Python would).
fn compile(fmt: &str) -> Option<Vec<Piece>> {
    let b = fmt.as_bytes();
    let mut pieces = Vec::new();
    let mut lit = 0;
    let mut i = 0;
    let push_lit = |pieces: &mut Vec<Piece>, r: std::ops::Range<usize>| {
        if !r.is_empty() {
            pieces.push(Piece::Lit(r));
        }
    };
    while i < b.len() {
        match b[i] {
            b'}' => {
                if b.get(i + 1) != Some(&b'}') {
                    return None;
                }
                push_lit(&mut pieces, lit..i + 1);
                i += 2;
                lit = i;
            }
            b'{' => {
                push_lit(&mut pieces, lit..i);
                if b.get(i + 1) == Some(&b'{') {
                    push_lit(&mut pieces, i..i + 1);
                    i += 2;
                    lit = i;
                    continue;
                }
                let start = i + 1;
                let end = start + field_end(&b[start..]).ok()??;
                let (name, conversion, spec) = parse_field(&fmt[start..end]).ok()?;
                let (name, spec) = (start + name.start..start + name.end, start + spec.start..start + spec.end);
                if fmt[spec.clone()].contains('{') {
                    return None;
                }
                let n = &fmt[name.clone()];
                let plain = (!n.is_empty() && !n.contains(['.', '[']) && !n.bytes().all(|c| c.is_ascii_digit())).then(|| crate::value::FieldName::new(n));
                pieces.push(Piece::Field { name, conversion, spec, plain });
                i = end + 1;
                lit = i;
            }
            _ => i = memchr::memchr2(b'{', b'}', &b[i..]).map_or(b.len(), |k| i + k),
        }
    }
    push_lit(&mut pieces, lit..b.len());
    Some(pieces)
}

/// The length of a replacement field's text (after its `{`, up to its matching `}`): `Ok(None)`
/// when the string ends first, an error on a `{` in the field name.
fn field_end(b: &[u8]) -> std::result::Result<Option<usize>, FormatError> {
    let mut j = 0;
    let mut count = 1;
    let mut in_spec = false;
    while j < b.len() {
        match b[j] {
            b'[' if !in_spec => {
                while j < b.len() && b[j] != b']' {
                    j += 1;
                }
                if j >= b.len() {
                    return Ok(None);
                }
            }
            b':' if !in_spec => in_spec = true,
            b'{' => {
                if !in_spec {
                    return other("unexpected '{' in field name");
                }
                count += 1;
            }
            b'}' => {
                count -= 1;
                if count == 0 {
                    return Ok(Some(j));
                }
            }
            _ => {}
        }
        j += 1;
    }
    Ok(None)
}

/// Appends `fmt` formatted with `data` to `out`. All delimiters are ASCII, so the scan works on
/// bytes and slices `fmt` only at delimiter positions.
fn format_depth<A: FormatArgs + ?Sized>(
    fmt: &str,
    data: &A,
    depth: u32,
    out: &mut String,
) -> std::result::Result<(), FormatError> {
    if depth == 0 {
        return other("Max string recursion exceeded");
    }
    let b = fmt.as_bytes();
    let mut i = 0;
    let mut lit = 0;
    while i < b.len() {
        match b[i] {
            b'}' => {
                if b.get(i + 1) == Some(&b'}') {
                    out.push_str(&fmt[lit..=i]);
                    i += 2;
                    lit = i;
                    continue;
                }
                return other("Single '}' encountered in format string");
            }
            b'{' => {
                out.push_str(&fmt[lit..i]);
                if b.get(i + 1) == Some(&b'{') {
                    out.push('{');
                    i += 2;
                    lit = i;
                    continue;
                }
                // a replacement field: find its closing brace
                let start = i + 1;
                let Some(len) = field_end(&b[start..])? else {
                    return other("expected '}' before end of string");
                };
                let j = start + len;
                render_field(&fmt[start..j], data, depth, out)?;
                i = j + 1;
                lit = i;
            }
            // Literal text: skip to the next brace.
            _ => i = memchr::memchr2(b'{', b'}', &b[i..]).map_or(b.len(), |k| i + k),
        }
    }
    out.push_str(&fmt[lit..]);
    Ok(())
}

fn render_field<A: FormatArgs + ?Sized>(
    field: &str,
    data: &A,
    depth: u32,
    out: &mut String,
) -> std::result::Result<(), FormatError> {
    let (name, conversion, spec) = parse_field(field)?;
    // Python looks the field up first, then formats a nested spec.
    let value = lookup(&field[name], data)?;
    let spec = &field[spec];
    if spec.contains('{') {
        let mut nested = String::new();
        format_depth(spec, data, depth - 1, &mut nested)?;
        return emit_value(&value, conversion, &nested, out);
    }
    emit_value(&value, conversion, spec, out)
}

/// Splits a replacement field's text into its name, conversion (`!x`) and spec (after `:`),
/// as byte ranges (a `[...]` in the name may hold `!` or `:`).
fn parse_field(field: &str) -> std::result::Result<(std::ops::Range<usize>, Option<char>, std::ops::Range<usize>), FormatError> {
    let b = field.as_bytes();
    let mut k = 0;
    while k < b.len() && b[k] != b'!' && b[k] != b':' {
        if b[k] == b'[' {
            while k < b.len() && b[k] != b']' {
                k += 1;
            }
            if k >= b.len() {
                break;
            }
        }
        k += 1;
    }
    let name = 0..k.min(b.len());
    let mut conversion = None;
    let mut spec = b.len()..b.len();
    if k < b.len() {
        if b[k] == b'!' {
            let rest = &field[k + 1..];
            let c = rest
                .chars()
                .next()
                .ok_or(FormatError::Other("end of string while looking for conversion specifier".into()))?;
            conversion = Some(c);
            let after = k + 1 + c.len_utf8();
            if after < b.len() {
                if b[after] != b':' {
                    return other("expected ':' after conversion specifier");
                }
                spec = after + 1..b.len();
            }
        } else {
            spec = k + 1..b.len();
        }
    }
    Ok((name, conversion, spec))
}

/// Converts a field's value and appends it formatted with `spec` (which holds no nested
/// fields any more).
fn emit_value(value: &Value, conversion: Option<char>, spec: &str, out: &mut String) -> std::result::Result<(), FormatError> {
    let converted;
    let v: &Value = match conversion {
        None => value,
        Some('s') => {
            converted = Value::String(py_str(value).into());
            &converted
        }
        Some('r') => {
            converted = Value::String(repr(value).into());
            &converted
        }
        Some('a') => {
            converted = Value::String(ascii_escape(&repr(value)).into());
            &converted
        }
        Some(c) => return other(format!("Unknown conversion specifier {c}")),
    };
    if spec.is_empty() {
        match v {
            Value::String(s) => out.push_str(s),
            other_v => out.push_str(&py_str(other_v)),
        }
        return Ok(());
    }
    out.push_str(&format_value(v, spec)?);
    Ok(())
}

fn ascii_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        let n = c as u32;
        if n < 128 {
            out.push(c);
        } else if n < 0x100 {
            out.push_str(&format!("\\x{n:02x}"));
        } else if n < 0x10000 {
            out.push_str(&format!("\\u{n:04x}"));
        } else {
            out.push_str(&format!("\\U{n:08x}"));
        }
    }
    out
}

fn lookup<'a, A: FormatArgs + ?Sized>(name: &str, data: &'a A) -> std::result::Result<Cow<'a, Value>, FormatError> {
    let first_end = name.bytes().position(|c| c == b'.' || c == b'[').unwrap_or(name.len());
    let first = &name[..first_end];
    if first.is_empty() || first.bytes().all(|c| c.is_ascii_digit()) {
        return other("Replacement index 0 out of range for positional args tuple");
    }
    let mut cur = Cow::Borrowed(data.arg(first).ok_or_else(|| FormatError::Key(first.to_string()))?);
    let mut rest = &name[first_end..];
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            return other(format!("attribute access .{} is not supported", &r[..end]));
        }
        let r = rest.strip_prefix('[').ok_or(FormatError::Other("Only '.' or '[' may follow ']' in format field specifier".into()))?;
        let end = r.find(']').ok_or(FormatError::Other("Missing ']' in format string".into()))?;
        let key = &r[..end];
        if key.is_empty() {
            return other("Empty attribute in format string");
        }
        cur = match cur {
            Cow::Borrowed(v) => get_item(v, key)?,
            Cow::Owned(v) => Cow::Owned(get_item(&v, key)?.into_owned()),
        };
        rest = &r[end + 1..];
    }
    Ok(cur)
}

fn get_item<'a>(v: &'a Value, key: &str) -> std::result::Result<Cow<'a, Value>, FormatError> {
    let idx: Option<usize> = if key.bytes().all(|c| c.is_ascii_digit()) { key.parse().ok() } else { None };
    match (v, idx) {
        (Value::Object(m), _) => {
            m.get(key).filter(|_| idx.is_none()).map(Cow::Borrowed).ok_or_else(|| FormatError::Key(key.to_string()))
        }
        (Value::Array(a), Some(i)) => a.get(i).map(Cow::Borrowed).ok_or(FormatError::Other("list index out of range".into())),
        (Value::String(s), Some(i)) => s
            .chars()
            .nth(i)
            .map(|c| Cow::Owned(Value::from(c)))
            .ok_or(FormatError::Other("string index out of range".into())),
        (Value::Array(_), None) => other("list indices must be integers or slices, not str"),
        (Value::String(_), None) => other("string indices must be integers, not 'str'"),
        (other_v, _) => other(format!("'{}' object is not subscriptable", crate::py::repr::type_name(other_v))),
    }
}

/// Python's `format(value, spec)` for JSON-like values: strings, numbers and bools through
/// [`crate::py::format_spec`]; `null`, lists and dicts only with an empty spec (their `str`).
fn format_value(v: &Value, spec: &str) -> std::result::Result<String, FormatError> {
    use crate::py::format_spec::{format_spec, Formattable};
    if spec.is_empty() {
        return Ok(py_str(v));
    }
    let f = match v {
        Value::String(t) => Formattable::Str(t),
        Value::Bool(b) => Formattable::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Formattable::Int(i as i128),
            (None, Some(u)) => Formattable::Int(u as i128),
            _ => Formattable::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        other_v => return other(format!("unsupported format string passed to {}.__format__", crate::py::repr::type_name(other_v))),
    };
    format_spec(f, spec).map_err(FormatError::Other)
}

/// Python's `str.title()`: the first cased character of each run of cased characters is
/// upper-cased, the rest lower-cased.
pub fn py_title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev_cased = false;
    for c in s.chars() {
        let cased = c.is_uppercase() || c.is_lowercase();
        if cased {
            if prev_cased {
                out.extend(c.to_lowercase());
            } else {
                out.extend(title_case(c));
            }
        } else {
            out.push(c);
        }
        prev_cased = cased;
    }
    out
}

fn title_case(c: char) -> Vec<char> {
    // Unicode titlecase digraphs differ from their uppercase forms.
    match c {
        'Ǆ' | 'ǅ' | 'ǆ' => vec!['ǅ'],
        'Ǉ' | 'ǈ' | 'ǉ' => vec!['ǈ'],
        'Ǌ' | 'ǋ' | 'ǌ' => vec!['ǋ'],
        'Ǳ' | 'ǲ' | 'ǳ' => vec!['ǲ'],
        _ => c.to_uppercase().collect(),
    }
}

/// Python truthiness-free equality used by `list.index` / `in`: numbers compare by value
/// (`1 == 1.0 == True`), everything else structurally.
pub fn py_eq(a: &Value, b: &Value) -> bool {
    fn num(v: &Value) -> Option<f64> {
        match v {
            Value::Bool(b) => Some(*b as i64 as f64),
            Value::Number(n) => n.as_f64(),
            _ => None,
        }
    }
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_eq(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| py_eq(v, w)))
        }
        _ => match (num(a), num(b)) {
            (Some(p), Some(q)) => {
                if let (Some(i), Some(j)) = (as_int(a), as_int(b)) {
                    i == j
                } else {
                    p == q
                }
            }
            _ => a == b,
        },
    }
}

/// The value as a Python int (`bool` included), if it is one.
pub fn as_int(v: &Value) -> Option<i128> {
    match v {
        Value::Bool(b) => Some(*b as i128),
        Value::Number(n) => n.as_i64().map(|i| i as i128).or_else(|| n.as_u64().map(|u| u as i128)),
        _ => None,
    }
}

/// Python `seq[i]` with negative indices; `None` when out of range.
pub fn py_index<T>(seq: &[T], i: i128) -> Option<&T> {
    let n = seq.len() as i128;
    let j = if i < 0 { i + n } else { i };
    if j < 0 || j >= n {
        None
    } else {
        seq.get(j as usize)
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn d(v: Value) -> Fields {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn plain_pieces_of_format_strings() {
        use PlainPiece::{Field, Text};
        let t = |s: &str| Text(s.to_string());
        let f = |s: &str| Field(s.to_string());
        assert_eq!(FormatString::new("{a}x{{y}}\\N{b}{c}").plain_pieces(), Some(vec![f("a"), t("x{y}\\N"), f("b"), f("c")]));
        assert_eq!(FormatString::new("").plain_pieces(), Some(vec![]));
        assert_eq!(FormatString::new("no fields").plain_pieces(), Some(vec![t("no fields")]));
        // A conversion, a spec, an index, an attribute, a position, malformed braces.
        for s in ["{a!r}", "{a:>3}", "{a[0]}", "{a.b}", "{0}", "{}", "a}b", "{a", "{a:{b}}"] {
            assert_eq!(FormatString::new(s).plain_pieces(), None, "{s}");
        }
    }

    /// A [`FormatString`] gives [`py_format`]'s texts and errors, whatever the fields (plain
    /// names of strings, other values, missing ones), as a `String` or a `Str`.
    #[test]
    fn format_strings_format_as_py_format() {
        let fs = FormatString::new("Classify the {kind} into {classes}.");
        for (args, want) in [
            (json!({"kind": "sentiment", "classes": "negative, positive", "other": 1}), Ok("Classify the sentiment into negative, positive.".to_string())),
            (json!({"classes": "a, b", "kind": "topic"}), Ok("Classify the topic into a, b.".to_string())),
            (json!({"kind": 3, "classes": "x"}), Ok("Classify the 3 into x.".to_string())),
            (json!({"kind": "k"}), Err(FormatError::Key("classes".into()))),
        ] {
            assert_eq!(fs.format(&d(args.clone())), want, "{args}");
            assert_eq!(fs.format(&d(args.clone())), py_format(&fs, &d(args.clone())));
            assert_eq!(fs.format_str(&d(args.clone())).map(|s| s.to_string()), want, "{args}");
        }
        let one = FormatString::new("{label}");
        assert_eq!(one.format_str(&d(json!({"label": "negative"}))).unwrap(), "negative");
        assert_eq!(one.format_str(&d(json!({"label": 3}))).unwrap(), "3");
        assert_eq!(one.format_str(&d(json!({}))), Err(FormatError::Key("label".into())));
        let bad = FormatString::new("{a");
        assert_eq!(bad.format(&d(json!({"a": 1}))), py_format("{a", &d(json!({"a": 1}))));
        assert!(bad.format(&d(json!({"a": 1}))).is_err());
    }

    // Expected strings obtained by running the same `str.format` calls in CPython 3.11.
    #[test]
    fn format_basics() {
        let data = d(json!({"a": "xyz", "b": "q", "w": 4, "m": {"x:y": "1"}, "l": ["p", "q"]}));
        assert_eq!(py_format("{a[0]!r:>5}|{b:{w}}|", &data).unwrap(), "  'x'|q   |");
        assert_eq!(py_format("{{{a}}} {m[x:y]} {l[1]}", &data).unwrap(), "{xyz} 1 q");
        assert_eq!(py_format("{a:^7}|{a:.2}|{w:03}|{w:+}", &data).unwrap(), "  xyz  |xy|004|+4");
        assert_eq!(py_format("[{b:05}][{w:*<4}][{w:,}]", &data).unwrap(), "[q0000][4***][4]");
        assert_eq!(py_format("{nope}", &data), Err(FormatError::Key("nope".into())));
        assert!(matches!(py_format("{}", &data), Err(FormatError::Other(_))));
        assert!(matches!(py_format("a } b", &data), Err(FormatError::Other(_))));
        assert!(matches!(py_format("{a", &data), Err(FormatError::Other(_))));
    }

    /// Specs go through the shared mini-language ([`crate::py::format_spec`]): general float
    /// format, grouped zero padding, bools as integers, explicit alignment with the `0` flag.
    #[test]
    fn format_specs_follow_cpython() {
        let data = d(json!({"p": 0.0001234, "n": 1234, "t": true, "s": "ab"}));
        // CPython 3.11: '{p:.3g}|{n:010,}|{t:>3}|{n:<06}|{n:_x}'.format(**data)
        assert_eq!(py_format("{p:.3g}|{n:010,}|{t:>3}|{n:<06}|{n:_x}", &data).unwrap(), "0.000123|00,001,234|  1|123400|4d2");
        assert!(matches!(py_format("{s:=5}", &data), Err(FormatError::Other(m)) if m.contains("'=' alignment")));
    }

    /// The parsed path (of [`py_format`] and of a [`FormatString`]) and the full parse agree,
    /// results and errors, on well-formed and malformed strings.
    #[test]
    fn parsed_formats_match_the_full_parse() {
        let data = d(json!({"a": "xyz", "b": "q", "w": 4, "m": {"x:y": "1", "k": "v"}, "l": ["p", "q"]}));
        let cases = [
            "", "plain", "{a}", "x{a}y{b}z", "{{{a}}}", "}}{{", "{a!r}", "{a!s:>6}", "{w:03}", "{m[x:y]}{l[1]}",
            "{b:{w}}", "{a!x}", "{a!r;}", "{nope}", "{a", "a}", "{}", "{0}", "{a[}", "{l[5]}", "{m.k}", "{w:q}",
            "{\u{e9}}", "é{a}ü",
        ];
        for f in cases {
            let mut slow = String::new();
            let slow = format_depth(f, &data, 2, &mut slow).map(|_| slow);
            assert_eq!(py_format(f, &data), slow, "format {f:?}");
            assert_eq!(FormatString::new(f).format(&data), slow, "format {f:?}, parsed once");
        }
        assert!(compile("x{a}y").is_some() && compile("{b:{w}}").is_none() && compile("a}").is_none());
    }

    #[test]
    fn title() {
        // "they're bill's o'neil 3rd ǆx".title() in CPython 3.11
        assert_eq!(py_title("they're bill's o'neil 3rd ǆx"), "They'Re Bill'S O'Neil 3Rd ǅx");
        assert_eq!(py_title("HELLO wORLD"), "Hello World");
    }
}
