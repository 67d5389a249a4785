//! Python's `json.dumps`, byte for byte, and `json.loads`.

use crate::py::repr::{push_escape, TextOut};
use crate::value::{Number, Value};

/// Options of `json.dumps` that Unitxt uses.
#[derive(Debug, Clone, Copy)]
pub struct DumpOptions {
    /// `ensure_ascii` (default true): non-ASCII as `\uXXXX` (surrogate pairs above U+FFFF).
    pub ensure_ascii: bool,
    /// `sort_keys` (default false).
    pub sort_keys: bool,
    /// `indent`: None for one line.
    pub indent: Option<usize>,
}

impl Default for DumpOptions {
    fn default() -> Self {
        DumpOptions { ensure_ascii: true, sort_keys: false, indent: None }
    }
}

/// `json.dumps(v)` with default separators (`", "`, `": "`), floats as Python's `float.__repr__`.
///
/// With an indent, items are separated by `","` plus a newline and the nesting indent (as
/// Python does since 3.4); empty lists and dicts stay `[]` / `{}`. Non-finite floats print as
/// `NaN`, `Infinity`, `-Infinity` (Python's default `allow_nan=True`). Keys are sorted by code
/// point when `sort_keys` is set.
pub fn dumps(v: &Value, opts: DumpOptions) -> String {
    let mut out = String::new();
    write_value(v, &opts, 0, &mut out);
    out
}

/// `json.dumps(s)` of one string (with the quotes), honouring `ensure_ascii`.
pub fn dumps_str(s: &str, ensure_ascii: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.string(s, ensure_ascii);
    out
}

/// Where `json.dumps` text is written: a `String` takes it as is; [`InJsonString`] takes it
/// escaped as the inside of a JSON string (what a JSON Lines line holds of a `task_data` string),
/// so that the text need not be written first and escaped after.
pub trait PyJsonOut {
    /// Appends ASCII text without quotes, backslashes or control characters (punctuation,
    /// numbers, literals).
    fn plain(&mut self, s: &str);
    /// Appends a newline (indented output).
    fn newline(&mut self);
    /// Appends `s` as a JSON string, quotes included, as Python's encoder writes it: `"`, `\\`,
    /// `\n`, `\r`, `\t`, `\b`, `\f` escaped by name, other control characters as `\u00XX`,
    /// and with `ensure_ascii` every character outside space..`~` as `\uXXXX` UTF-16 units.
    fn string(&mut self, s: &str, ensure_ascii: bool);
    /// Appends `s`, printable ASCII without a quote or a backslash, as a JSON string (which
    /// Python writes as is): quoted without the escape scan.
    fn plain_string(&mut self, s: &str);
    /// Appends a float as Python's `json` writes it.
    fn float(&mut self, f: f64) {
        let mut t = String::new();
        write_float(f, &mut t);
        self.plain(&t);
    }
    /// Appends a piece of `json.dumps` text given both as text and as [`InJsonString`] would
    /// write it (`escaped`), taking the form this output wants.
    fn pre_written(&mut self, text: &str, escaped: &[u8]);
}

impl PyJsonOut for String {
    #[inline]
    fn plain(&mut self, s: &str) {
        self.push_str(s);
    }
    fn newline(&mut self) {
        self.push('\n');
    }
    fn string(&mut self, s: &str, ensure_ascii: bool) {
        write_string_into(s, ensure_ascii, self);
    }
    fn plain_string(&mut self, s: &str) {
        self.push('"');
        self.push_str(s);
        self.push('"');
    }
    fn float(&mut self, f: f64) {
        write_float(f, self);
    }
    fn pre_written(&mut self, text: &str, _escaped: &[u8]) {
        self.push_str(text);
    }
}

/// `json.dumps` text escaped as the inside of a JSON string, as
/// [`crate::value::json_lines::write_str_contents`] would escape the text: its quotes become `\"`
/// and the backslashes of its escapes `\\`. (The dumped text never holds control characters
/// or, with `ensure_ascii`, non-ASCII ones; without it, those pass through as the JSON Lines
/// writer passes them.)
pub struct InJsonString<'o>(pub &'o mut Vec<u8>);

impl PyJsonOut for InJsonString<'_> {
    #[inline]
    fn plain(&mut self, s: &str) {
        self.0.extend_from_slice(s.as_bytes());
    }
    fn newline(&mut self) {
        self.0.extend_from_slice(b"\\n");
    }
    fn string(&mut self, s: &str, ensure_ascii: bool) {
        write_string::<true>(s, ensure_ascii, self.0);
    }
    fn plain_string(&mut self, s: &str) {
        self.0.extend_from_slice(b"\\\"");
        self.0.extend_from_slice(s.as_bytes());
        self.0.extend_from_slice(b"\\\"");
    }
    fn pre_written(&mut self, _text: &str, escaped: &[u8]) {
        self.0.extend_from_slice(escaped);
    }
}

/// A JSON string as Python's encoder writes it (see [`PyJsonOut::string`]); with `NESTED`,
/// that text escaped once more as the inside of a JSON string. Runs of plain bytes are copied
/// whole.
#[inline]
fn write_string<const NESTED: bool>(s: &str, ensure_ascii: bool, v: &mut Vec<u8>) {
    let quote: &[u8] = if NESTED { b"\\\"" } else { b"\"" };
    v.extend_from_slice(quote);
    crate::value::json_lines::copy_escaping(
        s.as_bytes(),
        v,
        |chunk| crate::value::json_lines::special_mask(chunk, b'"', ensure_ascii),
        |at, v| push_char_escape::<NESTED>(s, at, v),
    );
    v.extend_from_slice(quote);
}

/// [`write_string`] without `NESTED`, into a `String`: the plain runs between flagged bytes
/// are appended as slices of `s`. Flagged bytes are ASCII or (with `ensure_ascii`) the first
/// byte of a character that the escape consumes whole, so every run starts and ends on a
/// character boundary.
fn write_string_into(s: &str, ensure_ascii: bool, out: &mut String) {
    out.reserve(s.len() + 2);
    out.push('"');
    let rest = crate::value::json_lines::scan_escaping(
        s.as_bytes(),
        |chunk| crate::value::json_lines::special_mask(chunk, b'"', ensure_ascii),
        |from, at| {
            out.push_str(&s[from..at]);
            push_char_escape::<false>(s, at, out)
        },
    );
    out.push_str(&s[rest..]);
    out.push('"');
}

/// Appends the escape of the character of `s` at byte `at` (one that the mask of
/// [`write_string`] flags), escaped once more with `NESTED`; returns the index after it.
#[inline(always)]
fn push_char_escape<const NESTED: bool>(s: &str, at: usize, v: &mut impl TextOut) -> usize {
    // A backslash and a quote of the dumped text, escaped again when nested: every escape
    // starts with `esc`, and an escaped backslash is two of them.
    let esc = if NESTED { "\\\\" } else { "\\" };
    let quote = if NESTED { "\\\"" } else { "\"" };
    let c = s.as_bytes()[at];
    if c < 0x80 {
        match c {
            b'"' => {
                v.push_text(esc);
                v.push_text(quote);
            }
            b'\\' => {
                v.push_text(esc);
                v.push_text(esc);
            }
            b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => {
                v.push_text(esc);
                v.push_ascii(match c {
                    b'\n' => b'n',
                    b'\r' => b'r',
                    b'\t' => b't',
                    0x08 => b'b',
                    _ => b'f',
                });
            }
            other => {
                if NESTED {
                    v.push_ascii(b'\\');
                }
                push_escape(b'u', other as u32, 4, v)
            }
        }
        at + 1
    } else {
        let ch = s[at..].chars().next().unwrap_or('\u{fffd}');
        let mut units = [0u16; 2];
        for u in ch.encode_utf16(&mut units) {
            if NESTED {
                v.push_ascii(b'\\');
            }
            push_escape(b'u', *u as u32, 4, v);
        }
        at + ch.len_utf8()
    }
}

fn write_float(f: f64, out: &mut String) {
    if f.is_nan() {
        out.push_str("NaN");
    } else if f.is_infinite() {
        out.push_str(if f > 0.0 { "Infinity" } else { "-Infinity" });
    } else {
        crate::py::repr::write_float_repr(f, out);
    }
}

fn newline_indent<O: PyJsonOut + ?Sized>(opts: &DumpOptions, level: usize, out: &mut O) {
    if let Some(ind) = opts.indent {
        out.newline();
        out.plain(&" ".repeat(ind * level));
    }
}

/// Writes `v` as `json.dumps(v, **opts)` does, nested `level` deep, into `out`.
pub fn write_value<O: PyJsonOut + ?Sized>(v: &Value, opts: &DumpOptions, level: usize, out: &mut O) {
    let item_sep = if opts.indent.is_some() { "," } else { ", " };
    match v {
        Value::Null => out.plain("null"),
        Value::Bool(b) => out.plain(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.plain(itoa::Buffer::new().format(i));
            } else if let Some(u) = n.as_u64() {
                out.plain(itoa::Buffer::new().format(u));
            } else {
                out.float(n.as_f64().unwrap_or(f64::NAN));
            }
        }
        Value::String(s) => out.string(s, opts.ensure_ascii),
        Value::Array(items) => {
            if items.is_empty() {
                out.plain("[]");
                return;
            }
            out.plain("[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.plain(item_sep);
                }
                newline_indent(opts, level + 1, out);
                write_value(item, opts, level + 1, out);
            }
            newline_indent(opts, level, out);
            out.plain("]");
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.plain("{}");
                return;
            }
            out.plain("{");
            let item = |i: usize, k: &str, v: &Value, out: &mut O| {
                if i > 0 {
                    out.plain(item_sep);
                }
                newline_indent(opts, level + 1, out);
                out.string(k, opts.ensure_ascii);
                out.plain(": ");
                write_value(v, opts, level + 1, out);
            };
            if opts.sort_keys {
                let mut entries: Vec<(&crate::value::Key, &Value)> = map.iter().collect();
                // UTF-8 byte order equals code point order, which is how Python sorts str keys.
                entries.sort_by(|a, b| a.0.cmp(b.0));
                for (i, (k, v)) in entries.into_iter().enumerate() {
                    item(i, k, v, out);
                }
            } else {
                for (i, (k, v)) in map.iter().enumerate() {
                    item(i, k, v, out);
                }
            }
            newline_indent(opts, level, out);
            out.plain("}");
        }
    }
}

/// Appends a dict key as a one-line `json.dumps` dict writes it before its value: `"key": `.
pub fn write_key<O: PyJsonOut + ?Sized>(out: &mut O, k: &str) {
    out.string(k, true);
    out.plain(": ");
}

/// Writes a one-line `json.dumps` dict (default options) item by item, for dicts assembled from
/// several places without building a map: `{`, then each `"key": value` with `", "` between,
/// then `}` on [`DictWriter::end`]. The caller keeps keys unique.
pub struct DictWriter<'o, O: PyJsonOut + ?Sized = String> {
    out: &'o mut O,
    empty: bool,
}

impl<'o, O: PyJsonOut + ?Sized> DictWriter<'o, O> {
    /// Starts a dict in `out`.
    pub fn begin(out: &'o mut O) -> Self {
        out.plain("{");
        DictWriter { out, empty: true }
    }

    /// The `", "` before every item but the first.
    fn separate(&mut self) {
        if !self.empty {
            self.out.plain(", ");
        }
        self.empty = false;
    }

    /// Writes `"key": ` and returns the output for the value.
    pub fn key(&mut self, k: &str) -> &mut O {
        self.separate();
        write_key(self.out, k);
        self.out
    }

    /// Writes `"key": value`.
    pub fn item(&mut self, k: &str, v: &Value) {
        let out = self.key(k);
        write_value(v, &DumpOptions::default(), 0, out);
    }

    /// Writes a piece of the dict's text that `json.dumps` would write for one item or its
    /// key (`"key": value` or `"key": `), given in both forms (see [`PyJsonOut::pre_written`]),
    /// and returns the output (for the value, after a key).
    pub fn pre_written(&mut self, text: &str, escaped: &[u8]) -> &mut O {
        self.separate();
        self.out.pre_written(text, escaped);
        self.out
    }

    /// [`DictWriter::key`] for a literal key of printable ASCII without a quote or a backslash,
    /// which `json.dumps` writes as is: written without the escape scan.
    pub fn plain_key(&mut self, k: &'static str) -> &mut O {
        debug_assert!(k.bytes().all(|c| (b' '..=b'~').contains(&c) && c != b'"' && c != b'\\'), "{k:?}");
        self.separate();
        self.out.plain_string(k);
        self.out.plain(": ");
        self.out
    }

    /// `"key": value` for a literal key (see [`DictWriter::plain_key`]).
    pub fn plain_item(&mut self, k: &'static str, v: &Value) {
        let out = self.plain_key(k);
        write_value(v, &DumpOptions::default(), 0, out);
    }

    /// Closes the dict.
    pub fn end(self) {
        self.out.plain("}");
    }
}

#[cfg(test)]
mod tests {
    // Expected values printed by CPython 3.11.7's `json.dumps` for the same inputs.
    use super::*;
    use crate::json;

    #[test]
    fn loads_reads_python_non_finite_tokens() {
        // json.loads('{"a": NaN, "b": [Infinity, -Infinity], "c": "NaN Infinity", "d": -0}')
        let v = loads(r#"{"a": NaN, "b": [Infinity, -Infinity], "c": "NaN Infinity", "d": -0}"#, true).unwrap();
        assert!(v["a"].as_f64().unwrap().is_nan() && v["a"].is_f64());
        assert_eq!(v["b"][0].as_f64(), Some(f64::INFINITY));
        assert_eq!(v["b"][1].as_f64(), Some(f64::NEG_INFINITY));
        assert_eq!(v["c"], "NaN Infinity");
        assert!(v["d"].is_i64());
        // json.dumps of the same: {"a": NaN, "b": [Infinity, -Infinity], "c": "NaN Infinity", "d": 0}
        assert_eq!(dumps(&v, DumpOptions::default()), r#"{"a": NaN, "b": [Infinity, -Infinity], "c": "NaN Infinity", "d": 0}"#);
        // Python refuses these spellings too.
        for bad in ["nan", "[Nan]", "[infinity]", "[+Infinity]", "[NaN"] {
            assert!(loads(bad, true).is_err(), "{bad}");
        }
        // A typed struct keeps the NaN (artifact configs deserialize through `from_value`).
        #[derive(serde::Deserialize)]
        struct Cast {
            failure_default: Value,
        }
        let c: Cast = crate::value::from_value(loads(r#"{"failure_default": NaN}"#, true).unwrap()).unwrap();
        assert!(c.failure_default.as_f64().unwrap().is_nan());
    }

    #[test]
    fn ascii_escapes_and_floats() {
        let v = json!({
            "k": "é中😀\"\\\n\r\t\u{8}\u{c}\u{1}\u{7f}",
            "f": [1e-07, 0.1 + 0.2, 1e16, 123456789.0],
            "n": null, "b": true, "i": -3, "e": {}, "l": []
        });
        let want = concat!(
            r#"{"k": "\u00e9\u4e2d\ud83d\ude00\"\\\n\r\t\b\f\u0001\u007f", "#,
            r#""f": [1e-07, 0.30000000000000004, 1e+16, 123456789.0], "#,
            r#""n": null, "b": true, "i": -3, "e": {}, "l": []}"#
        );
        assert_eq!(dumps(&v, DumpOptions::default()), want);
    }

    #[test]
    fn literal_keys_write_as_escaped_keys_do() {
        let v = json!(["a", 1]);
        let (mut a, mut b) = (String::new(), String::new());
        let mut w = DictWriter::begin(&mut a);
        w.item("x", &v);
        w.item("num_demos", &v);
        w.end();
        let mut w = DictWriter::begin(&mut b);
        w.item("x", &v);
        w.plain_item("num_demos", &v);
        w.end();
        assert_eq!(a, b);
        assert_eq!(a, r#"{"x": ["a", 1], "num_demos": ["a", 1]}"#);
    }

    #[test]
    fn non_finite_floats() {
        let mut s = String::new();
        for f in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            write_float(f, &mut s);
            s.push(' ');
        }
        assert_eq!(s, "NaN Infinity -Infinity ");
    }

    #[test]
    fn no_ensure_ascii() {
        let opts = DumpOptions { ensure_ascii: false, ..Default::default() };
        assert_eq!(dumps(&json!({"k": "é中😀\u{7f}\u{1}"}), opts), "{\"k\": \"é中😀\u{7f}\\u0001\"}");
        assert_eq!(dumps_str("a\"b", false), r#""a\"b""#);
    }

    #[test]
    fn escapes_at_every_offset() {
        // One special character at every offset of strings of 1 to 40 characters, with and
        // without `ensure_ascii` (the 16-byte chunks and the padded tail).
        let cases = [("é", r"\u00e9", "é"), ("😀", r"\ud83d\ude00", "😀"), ("\"", r#"\""#, r#"\""#), ("\u{1}", r"\u0001", r"\u0001")];
        for (special, ascii, raw) in cases {
            for len in 1..=40usize {
                for pos in 0..len {
                    let (a, b) = ("x".repeat(pos), "y".repeat(len - pos - 1));
                    let s = format!("{a}{special}{b}");
                    assert_eq!(dumps_str(&s, true), format!("\"{a}{ascii}{b}\""), "{s:?}");
                    assert_eq!(dumps_str(&s, false), format!("\"{a}{raw}{b}\""), "{s:?}");
                }
            }
        }
    }

    /// [`InJsonString`] writes what the JSON Lines writer makes of the dumped text, for every
    /// kind of value and every escape at every offset (with and without `ensure_ascii`, and
    /// indented, where newlines are escaped too).
    #[test]
    fn dumped_text_written_inside_a_json_string() {
        let mut values = vec![
            json!(null),
            json!([true, false, 0, -17, 18446744073709551615u64, 1.5, 1e-7, 123456789.0, f64::NAN]),
            json!({"k\"ey\\": {"nested": ["a\nb", "\u{7f}\u{1}\t\r\u{8}\u{c}", "é😀\u{2028}"], "": {}}, "e": []}),
        ];
        let specials = ["\"", "\\", "\n", "\u{1}", "\u{7f}", "é", "😀", "\u{ffff}"];
        for special in specials {
            for len in 1..=34usize {
                for pos in 0..len {
                    values.push(Value::String(compact_str::format_compact!("{}{special}{}", "x".repeat(pos), "y".repeat(len - pos - 1))));
                }
            }
        }
        let options = [
            DumpOptions::default(),
            DumpOptions { ensure_ascii: false, ..DumpOptions::default() },
            DumpOptions { indent: Some(2), sort_keys: true, ..DumpOptions::default() },
        ];
        for v in &values {
            for opts in options {
                let mut expected = Vec::new();
                crate::value::json_lines::write_str_contents(&dumps(v, opts), &mut expected);
                let mut got = Vec::new();
                write_value(v, &opts, 0, &mut InJsonString(&mut got));
                assert_eq!(String::from_utf8(got).unwrap(), String::from_utf8(expected).unwrap(), "{v:?} {opts:?}");
            }
        }
        // A dict written item by item, literal keys included.
        let (mut text, mut nested) = (String::new(), Vec::new());
        for out in [&mut text as &mut dyn PyJsonOut, &mut InJsonString(&mut nested)] {
            let mut w = DictWriter::begin(out);
            w.item("q\"", &json!("a \"b\" é"));
            let m = w.plain_key("metadata");
            m.pre_written("{\"x\": 1}", b"{\\\"x\\\": 1}");
            w.plain_item("n", &json!(2.5));
            w.end();
        }
        assert_eq!(text, r#"{"q\"": "a \"b\" \u00e9", "metadata": {"x": 1}, "n": 2.5}"#);
        let mut expected = Vec::new();
        crate::value::json_lines::write_str_contents(&text, &mut expected);
        assert_eq!(String::from_utf8(nested).unwrap(), String::from_utf8(expected).unwrap());
    }

    #[test]
    fn indent_and_sort_keys() {
        let v = json!({"b": [1, {"z": 2, "a": []}], "a": {}});
        let opts = DumpOptions { sort_keys: true, indent: Some(2), ..Default::default() };
        let want = "{\n  \"a\": {},\n  \"b\": [\n    1,\n    {\n      \"a\": [],\n      \"z\": 2\n    }\n  ]\n}";
        assert_eq!(dumps(&v, opts), want);
        let opts0 = DumpOptions { indent: Some(0), ..Default::default() };
        assert_eq!(dumps(&json!([1, [2]]), opts0), "[\n1,\n[\n2\n]\n]");
        assert_eq!(dumps(&json!({"b": 1, "a": 2}), DumpOptions::default()), r#"{"b": 1, "a": 2}"#);
    }
}

/// The string that stands for a non-finite float token while serde parses the text; made of a
/// NUL (which JSON text can only hold escaped) and a tag, and checked for in the input.
const NON_FINITE_TAG: &str = "unitxt-rs:non-finite:";

/// Parses JSON text as Python's `json.loads` does, into a [`Value`].
///
/// Beyond what serde_json reads: the bare tokens `NaN`, `Infinity` and `-Infinity` are floats
/// (Python's default `parse_constant`); the integer `-0` is the integer `0` (serde reads it as the
/// float `-0.0`); with `strict` false (Python's `strict=False`) raw control characters inside
/// strings are accepted. Errors: serde's message for invalid JSON (Python's `JSONDecodeError`).
pub fn loads(text: &str, strict: bool) -> Result<Value, String> {
    let (normalized, non_finite) = normalize(text, strict);
    if non_finite && text.contains(NON_FINITE_TAG) {
        return Err(format!("JSON with NaN or Infinity and the string {NON_FINITE_TAG:?} is not supported"));
    }
    let text = normalized;
    let mut v: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    if non_finite {
        restore_non_finite(&mut v);
    }
    Ok(v)
}

/// Puts the non-finite floats back where [`normalize`] left tagged strings.
fn restore_non_finite(v: &mut Value) {
    match v {
        Value::String(s) => {
            if let Some(tok) = s.strip_prefix('\0').and_then(|r| r.strip_prefix(NON_FINITE_TAG)) {
                let f = match tok {
                    "NaN" => f64::NAN,
                    "Infinity" => f64::INFINITY,
                    _ => f64::NEG_INFINITY,
                };
                *v = Value::Number(Number::float(f));
            }
        }
        Value::Array(a) => a.iter_mut().for_each(restore_non_finite),
        Value::Object(m) => m.values_mut().for_each(restore_non_finite),
        _ => {}
    }
}

/// Rewrites JSON text so that serde reads it as Python does (see [`loads`]); also says whether
/// a non-finite token was replaced by a tagged string.
fn normalize(text: &str, strict: bool) -> (String, bool) {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    let (mut in_str, mut escaped, mut non_finite) = (false, false, false);
    let starts = |i: usize, tok: &str| tok.chars().enumerate().all(|(k, c)| chars.get(i + k) == Some(&c));
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if in_str {
            if !escaped && c == '"' {
                in_str = false;
            }
            if !strict && !escaped && (c as u32) < 0x20 {
                out.push_str(&format!("\\u{:04x}", c as u32));
                i += 1;
                continue;
            }
            escaped = !escaped && c == '\\';
        } else if c == '"' {
            in_str = true;
        } else if let Some(tok) = ["NaN", "Infinity", "-Infinity"].into_iter().find(|t| starts(i, t)) {
            out.push_str(&format!("\"\\u0000{NON_FINITE_TAG}{tok}\""));
            non_finite = true;
            i += tok.chars().count();
            continue;
        } else if c == '-' && chars.get(i + 1) == Some(&'0') {
            let prev_ok = i == 0 || !(chars[i - 1].is_ascii_alphanumeric() || chars[i - 1] == '.');
            let next = chars.get(i + 2);
            let int_end = next.is_none_or(|n| !(n.is_ascii_digit() || matches!(n, '.' | 'e' | 'E')));
            if prev_ok && int_end {
                out.push('0');
                i += 2;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    (out, non_finite)
}
