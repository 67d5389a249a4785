//! Python's `json.dumps`, byte for byte.

use crate::py::repr::push_escape;
use crate::value::Value;

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
    write_str(s, ensure_ascii, &mut out);
    out
}

/// A JSON string as Python's encoder writes it: `"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f`
/// escaped by name, other control characters as `\u00XX`, and with `ensure_ascii` every
/// character outside space..`~` as `\uXXXX` UTF-16 units. Runs of plain bytes are copied whole.
fn write_str(s: &str, ensure_ascii: bool, out: &mut String) {
    let b = s.as_bytes();
    // SAFETY: what is appended is valid UTF-8: plain runs are copied between flagged bytes,
    // which are ASCII or (with `ensure_ascii`) the first byte of a character that the handler
    // consumes whole, and escapes are ASCII. A run without `ensure_ascii` may end mid-character
    // only until the next chunk completes it, before this function returns.
    let v = unsafe { out.as_mut_vec() };
    v.push(b'"');
    crate::json_lines::copy_escaping(
        b,
        v,
        |chunk| crate::json_lines::special_mask(chunk, b'"', ensure_ascii),
        |at, v| {
            let c = b[at];
            if c < 0x80 {
                match c {
                    b'"' => v.extend_from_slice(b"\\\""),
                    b'\\' => v.extend_from_slice(b"\\\\"),
                    b'\n' => v.extend_from_slice(b"\\n"),
                    b'\r' => v.extend_from_slice(b"\\r"),
                    b'\t' => v.extend_from_slice(b"\\t"),
                    0x08 => v.extend_from_slice(b"\\b"),
                    0x0c => v.extend_from_slice(b"\\f"),
                    other => push_escape(b'u', other as u32, 4, v),
                }
                at + 1
            } else {
                let ch = s[at..].chars().next().unwrap_or('\u{fffd}');
                let mut units = [0u16; 2];
                for u in ch.encode_utf16(&mut units) {
                    push_escape(b'u', *u as u32, 4, v);
                }
                at + ch.len_utf8()
            }
        },
    );
    v.push(b'"');
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

fn newline_indent(opts: &DumpOptions, level: usize, out: &mut String) {
    if let Some(ind) = opts.indent {
        out.push('\n');
        out.push_str(&" ".repeat(ind * level));
    }
}

fn write_value(v: &Value, opts: &DumpOptions, level: usize, out: &mut String) {
    let item_sep = if opts.indent.is_some() { "," } else { ", " };
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            use std::fmt::Write as _;
            if let Some(i) = n.as_i64() {
                let _ = write!(out, "{i}");
            } else if let Some(u) = n.as_u64() {
                let _ = write!(out, "{u}");
            } else {
                write_float(n.as_f64().unwrap_or(f64::NAN), out);
            }
        }
        Value::String(s) => write_str(s, opts.ensure_ascii, out),
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(item_sep);
                }
                newline_indent(opts, level + 1, out);
                write_value(item, opts, level + 1, out);
            }
            newline_indent(opts, level, out);
            out.push(']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            let item = |i: usize, k: &str, v: &Value, out: &mut String| {
                if i > 0 {
                    out.push_str(item_sep);
                }
                newline_indent(opts, level + 1, out);
                write_str(k, opts.ensure_ascii, out);
                out.push_str(": ");
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
            out.push('}');
        }
    }
}

/// Writes a one-line `json.dumps` dict (default options) item by item, for dicts assembled from
/// several places without building a map: `{`, then each `"key": value` with `", "` between,
/// then `}` on [`DictWriter::end`]. The caller keeps keys unique.
pub struct DictWriter<'o> {
    out: &'o mut String,
    empty: bool,
}

impl<'o> DictWriter<'o> {
    /// Starts a dict in `out`.
    pub fn begin(out: &'o mut String) -> Self {
        out.push('{');
        DictWriter { out, empty: true }
    }

    /// The `", "` before every item but the first.
    fn separate(&mut self) {
        if !self.empty {
            self.out.push_str(", ");
        }
        self.empty = false;
    }

    /// Writes `"key": ` and returns the buffer for the value.
    pub fn key(&mut self, k: &str) -> &mut String {
        self.separate();
        write_str(k, true, self.out);
        self.out.push_str(": ");
        self.out
    }

    /// Writes `"key": value`.
    pub fn item(&mut self, k: &str, v: &Value) {
        let out = self.key(k);
        write_value(v, &DumpOptions::default(), 0, out);
    }

    /// [`DictWriter::key`] for a literal key of printable ASCII without a quote or a backslash,
    /// which `json.dumps` writes as is: copied without the escape scan.
    pub fn plain_key(&mut self, k: &'static str) -> &mut String {
        debug_assert!(k.bytes().all(|c| (b' '..=b'~').contains(&c) && c != b'"' && c != b'\\'), "{k:?}");
        self.separate();
        self.out.push('"');
        self.out.push_str(k);
        self.out.push_str("\": ");
        self.out
    }

    /// `"key": value` for a literal key (see [`DictWriter::plain_key`]).
    pub fn plain_item(&mut self, k: &'static str, v: &Value) {
        let out = self.plain_key(k);
        write_value(v, &DumpOptions::default(), 0, out);
    }

    /// Closes the dict.
    pub fn end(self) {
        self.out.push('}');
    }
}

#[cfg(test)]
mod tests {
    // Expected values printed by CPython 3.11.7's `json.dumps` for the same inputs.
    use super::*;
    use crate::json;

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
