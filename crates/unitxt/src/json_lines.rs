//! Compact JSON output, byte for byte what `serde_json::to_writer` writes for a [`Value`], but
//! with a string escaper that skips plain text eight bytes at a time. Prepared instances are
//! mostly long strings (`source`, `task_data`), so this is where writing JSON Lines spends its
//! time.
//!
//! Escaping follows `serde_json`: `"` and `\` escaped with a backslash; `\b`, `\t`, `\n`, `\f`,
//! `\r` by name; other bytes below 0x20 as `\u00XX`; everything else (DEL and non-ASCII
//! included) written as is.

use std::io::Write;

use crate::value::{Instance, Value};

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Whether some byte of `w` is zero (exact as a yes/no test).
#[inline]
fn has_zero(w: u64) -> bool {
    w.wrapping_sub(LO) & !w & HI != 0
}

/// The index of the first byte at or after `from` that a JSON string must escape: `"`, `\`, a
/// byte below 0x20, and with `ensure_ascii` also DEL and every non-ASCII byte (Python's
/// `json.dumps`); `b.len()` when there is none.
pub(crate) fn next_escape(b: &[u8], from: usize, ensure_ascii: bool) -> usize {
    let special = |c: u8| c < 0x20 || c == b'"' || c == b'\\' || (ensure_ascii && c >= 0x7f);
    let mut i = from;
    while i + 8 <= b.len() {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[i..i + 8]);
        let w = u64::from_le_bytes(a);
        // A byte below 0x20: (w - 0x20..) & !w has its high bit set (exact as a yes/no test).
        let mut hit = w.wrapping_sub(0x20 * LO) & !w & HI != 0 || has_zero(w ^ (b'"' as u64 * LO)) || has_zero(w ^ (b'\\' as u64 * LO));
        if ensure_ascii {
            hit = hit || w & HI != 0 || has_zero(w ^ (0x7f * LO));
        }
        if hit {
            break;
        }
        i += 8;
    }
    while i < b.len() && !special(b[i]) {
        i += 1;
    }
    i
}

/// Appends `s` as a JSON string (with its quotes), escaped as `serde_json` does.
pub fn write_str(s: &str, out: &mut Vec<u8>) {
    out.reserve(s.len() + 2);
    out.push(b'"');
    write_str_contents(s, out);
    out.push(b'"');
}

/// Appends `s` escaped as the inside of a JSON string (no quotes), as [`write_str`] does.
pub fn write_str_contents(s: &str, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let b = s.as_bytes();
    let mut i = 0;
    loop {
        let j = next_escape(b, i, false);
        out.extend_from_slice(&b[i..j]);
        if j == b.len() {
            break;
        }
        match b[j] {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            c => out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[(c >> 4) as usize], HEX[(c & 0xf) as usize]]),
        }
        i = j + 1;
    }
}

/// Appends `v` as compact JSON (no spaces), keys in map order.
pub fn write_value(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        // `Number`'s Display is the text its serializer writes (itoa / shortest float).
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::String(s) => write_str(s, out),
        Value::Array(a) => {
            out.push(b'[');
            for (k, x) in a.iter().enumerate() {
                if k > 0 {
                    out.push(b',');
                }
                write_value(x, out);
            }
            out.push(b']');
        }
        Value::Object(m) => write_object(m, out),
    }
}

/// Appends the map `m` as a compact JSON object.
pub fn write_object(m: &Instance, out: &mut Vec<u8>) {
    out.push(b'{');
    for (k, (key, x)) in m.iter().enumerate() {
        if k > 0 {
            out.push(b',');
        }
        write_str(key, out);
        out.push(b':');
        write_value(x, out);
    }
    out.push(b'}');
}

/// One JSON Lines line for `inst`: its compact JSON and `\n`.
pub fn instance_line(inst: &Instance) -> Vec<u8> {
    let mut out = Vec::with_capacity(1024);
    write_object(inst, &mut out);
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn same_bytes_as_serde_json() {
        let v = json!({
            "s": "plain text that is longer than eight bytes, with \"quotes\" and \\ slashes",
            "ctl": "\u{0}\u{1}\u{7}\u{8}\t\n\u{b}\u{c}\r\u{1f} \u{7f}",
            "uni": "café — 日本語 🎉 long enough to use whole words",
            "nums": [0, -1, 18446744073709551615u64, 1.5, 1e-7, 1e21, 0.1, -0.0, 123456789.0],
            "nested": {"a": [true, false, null, {}], "": []},
            "edge": "\"\"\"\"\"\"\"\"\\",
        });
        let mut out = Vec::new();
        write_value(&v, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&v).unwrap());
    }

    #[test]
    fn escape_found_at_every_offset() {
        for special in ['"', '\\', '\n', '\u{1f}', '\u{7f}', 'é'] {
            for pos in 0..20 {
                let mut s: String = "x".repeat(20);
                s.replace_range(pos..pos + 1, &special.to_string());
                let plain_in_json = matches!(special, '\u{7f}' | 'é');
                let expect = if plain_in_json { s.len() } else { pos };
                assert_eq!(next_escape(s.as_bytes(), 0, false), expect, "{special:?} at {pos}");
                assert_eq!(next_escape(s.as_bytes(), 0, true), pos, "{special:?} at {pos} (ascii)");
            }
        }
        assert_eq!(next_escape(b"ab\"cd", 3, false), 5);
    }
}
