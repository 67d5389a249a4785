//! Compact JSON output, byte for byte what `serde_json::to_writer` writes for a [`Value`], but
//! with a string escaper that tests sixteen bytes at a time (SSE2 on x86_64) and copies plain
//! runs whole. Prepared instances are
//! mostly long strings (`source`, `task_data`), so this is where writing JSON Lines spends its
//! time.
//!
//! Escaping follows `serde_json`: `"` and `\` escaped with a backslash; `\b`, `\t`, `\n`, `\f`,
//! `\r` by name; other bytes below 0x20 as `\u00XX`; everything else (DEL and non-ASCII
//! included) written as is.

use std::io::Write;

use crate::value::{Instance, Value};

/// Bit `k` set when byte `k` of the 16 at `chunk` is special in a quoted string: a byte below
/// 0x20, `\\`, `quote`, and with `non_ascii` also DEL and every non-ASCII byte. JSON escaping
/// uses `"` (with `non_ascii` for `json.dumps`'s `ensure_ascii`); Python's str `repr` uses its
/// quote with `non_ascii` (such bytes are escaped or checked for printability there).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn special_mask(chunk: &[u8; 16], quote: u8, non_ascii: bool) -> u32 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86_64 baseline, so every intrinsic here is available; the
    // load is unaligned and reads exactly the 16 bytes of `chunk`. Why not safe code: portable
    // SIMD (`std::simd`) is unstable, and on stable Rust the `core::arch` intrinsics are safe
    // to call only from a `#[target_feature]` function, itself unsafe to call from here.
    // Measured with callgrind on a standalone copy of this escaper, escaping the strings of
    // SST-2 train's 63,979 prepared lines: the byte-at-a-time form below (kept for other
    // targets) took 738M instructions against 260M with this one, 2.8 times as many. (The
    // escapers take about 62M of the 1.18G instructions of an SST-2 train prepare.)
    unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr() as *const __m128i);
        let low = _mm_set1_epi8(0x1f);
        let ctrl = _mm_cmpeq_epi8(_mm_max_epu8(v, low), low);
        let q = _mm_cmpeq_epi8(v, _mm_set1_epi8(quote as i8));
        let slash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        let mut m = _mm_or_si128(ctrl, _mm_or_si128(q, slash));
        if non_ascii {
            m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f)));
            // `v` itself has the high bit set on non-ASCII bytes.
            m = _mm_or_si128(m, v);
        }
        _mm_movemask_epi8(m) as u32
    }
}

/// Portable form of the x86_64 mask above.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn special_mask(chunk: &[u8; 16], quote: u8, non_ascii: bool) -> u32 {
    let mut m = 0;
    for (k, &c) in chunk.iter().enumerate() {
        if c < 0x20 || c == quote || c == b'\\' || (non_ascii && c >= 0x7f) {
            m |= 1 << k;
        }
    }
    m
}

/// Copies `b` to the end of `out`, sixteen bytes at a time, and hands each byte that `mask`
/// flags to `on_escape(at, out)`, which appends its escape and returns the index after what
/// it consumed (more than `at + 1` for a multi-byte character); copying resumes there.
///
/// Plain bytes are never copied one run at a time: each 16-byte chunk is stored whole into
/// `out`'s spare room and `out`'s length then advances over its plain prefix only (the rest
/// is overwritten by what follows). A string with many escapes (`task_data` inside a JSON
/// line) thus costs one load, mask and store per escape instead of a `memcpy` call per run.
/// The last partial chunk is read from a space-padded copy; `mask` must leave a space
/// unflagged.
#[inline(always)]
pub(crate) fn copy_escaping(
    b: &[u8],
    out: &mut Vec<u8>,
    mask: impl Fn(&[u8; 16]) -> u32,
    mut on_escape: impl FnMut(usize, &mut Vec<u8>) -> usize,
) {
    /// Stores `chunk` at the end of `out` and keeps its first `keep` bytes (at most 16).
    #[inline(always)]
    fn put(out: &mut Vec<u8>, chunk: &[u8; 16], keep: usize) {
        out.reserve(16);
        let len = out.len();
        // SAFETY: `reserve(16)` leaves room for 16 more bytes; the first `keep <= 16` of them
        // are initialized by the copy before the length covers them. Why not safe code: a
        // fixed 16-byte store needs no length-dependent copy. Measured with callgrind on a
        // standalone copy of this escaper, escaping the strings of SST-2 train's 63,979
        // prepared lines: 260M instructions with this store, 289M (11% more) with
        // `extend_from_slice(chunk)` then `truncate(len + keep)`, 311M (20% more) with
        // `extend_from_slice(&chunk[..keep])`.
        unsafe {
            std::ptr::copy_nonoverlapping(chunk.as_ptr(), out.as_mut_ptr().add(len), 16);
            out.set_len(len + keep);
        }
    }
    out.reserve(b.len() + 16);
    let mut i = 0;
    while i + 16 <= b.len() {
        let chunk: &[u8; 16] = b[i..i + 16].try_into().expect("16 bytes");
        let m = mask(chunk);
        if m == 0 {
            put(out, chunk, 16);
            i += 16;
        } else {
            let k = m.trailing_zeros() as usize;
            put(out, chunk, k);
            i = on_escape(i + k, out);
        }
    }
    // The last partial chunk, from a padded copy (32 bytes, so that a chunk can start at any
    // of the first 16).
    let mut tail = [b' '; 32];
    if i < b.len() {
        let n = b.len() - i;
        tail[..n].copy_from_slice(&b[i..]);
        let mut j = 0;
        loop {
            let chunk: &[u8; 16] = tail[j..j + 16].try_into().expect("16 bytes");
            let m = mask(chunk);
            let k = (m.trailing_zeros() as usize).min(n - j);
            put(out, chunk, k);
            if j + k == n {
                return;
            }
            let next = on_escape(i + j + k, out);
            // A handler that consumed a multi-byte character stays inside the tail.
            j = next - i;
            if j >= n {
                return;
            }
        }
    }
}

/// Walks `b` sixteen bytes at a time, as [`copy_escaping`] does, but writes nothing: it calls
/// `on_escape(plain_from, at)` for each byte that `mask` flags, in order, where the bytes
/// `plain_from..at` are plain and not yet handed out and `at` is the flagged byte.
/// `on_escape` returns the index after what it consumed (more than `at + 1` for a multi-byte
/// character); the walk resumes there. Returns where the final plain run starts. For output
/// into a `String`, which takes the plain runs as `&str` slices. As for `copy_escaping`,
/// `mask` must leave a space unflagged.
#[inline(always)]
pub(crate) fn scan_escaping(
    b: &[u8],
    mask: impl Fn(&[u8; 16]) -> u32,
    mut on_escape: impl FnMut(usize, usize) -> usize,
) -> usize {
    let mut done = 0;
    let mut i = 0;
    while i + 16 <= b.len() {
        let chunk: &[u8; 16] = b[i..i + 16].try_into().expect("16 bytes");
        let m = mask(chunk);
        if m == 0 {
            i += 16;
        } else {
            done = on_escape(done, i + m.trailing_zeros() as usize);
            i = done;
        }
    }
    // The last partial chunk, from a padded copy, as in `copy_escaping`.
    let mut tail = [b' '; 32];
    if i < b.len() {
        let n = b.len() - i;
        tail[..n].copy_from_slice(&b[i..]);
        let mut j = 0;
        while j < n {
            let chunk: &[u8; 16] = tail[j..j + 16].try_into().expect("16 bytes");
            let k = (mask(chunk).trailing_zeros() as usize).min(n - j);
            if j + k == n {
                break;
            }
            done = on_escape(done, i + j + k);
            j = done - i;
        }
    }
    done
}

/// [`scan_escaping`] with JSON's mask (see [`special_mask`]). (Used by tests, to list offsets.)
#[cfg(test)]
fn scan_escapes(b: &[u8], ensure_ascii: bool, on_escape: impl FnMut(usize, usize) -> usize) -> usize {
    scan_escaping(b, |c| special_mask(c, b'"', ensure_ascii), on_escape)
}

/// Appends the JSON escape of the single byte `c` (one that [`special_mask`] flags, below 0x80).
#[inline(always)]
fn push_byte_escape(c: u8, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match c {
        b'"' => out.extend_from_slice(b"\\\""),
        b'\\' => out.extend_from_slice(b"\\\\"),
        b'\n' => out.extend_from_slice(b"\\n"),
        b'\r' => out.extend_from_slice(b"\\r"),
        b'\t' => out.extend_from_slice(b"\\t"),
        0x08 => out.extend_from_slice(b"\\b"),
        0x0c => out.extend_from_slice(b"\\f"),
        c => out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[(c >> 4) as usize], HEX[(c & 0xf) as usize]]),
    }
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
    let b = s.as_bytes();
    copy_escaping(b, out, |c| special_mask(c, b'"', false), |at, out| {
        push_byte_escape(b[at], out);
        at + 1
    });
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
        Value::Array(a) => write_array(a, out),
        Value::Object(m) => write_object(m, out),
    }
}

/// Appends the list `items` as a compact JSON array.
pub fn write_array(items: &[Value], out: &mut Vec<u8>) {
    out.push(b'[');
    for (k, x) in items.iter().enumerate() {
        if k > 0 {
            out.push(b',');
        }
        write_value(x, out);
    }
    out.push(b']');
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
    fn escaped_strings_match_serde_json_at_every_offset() {
        // Specials (and a multi-byte character, copied as is) at every offset of strings of
        // 1 to 40 bytes, alone and two in a row: the copied chunks and the padded tail.
        for special in ["\"", "\\", "\n", "\u{1}", "é", "日", "🎉", "\"\""] {
            for len in 1..=40usize {
                for pos in 0..len {
                    let s = format!("{}{special}{}", "x".repeat(pos), "y".repeat(len - pos - 1));
                    let mut out = Vec::new();
                    write_str(&s, &mut out);
                    assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&s).unwrap(), "{s:?}");
                }
            }
        }
    }

    /// The offsets `scan_escapes` reports for `s`.
    fn escapes(s: &str, ensure_ascii: bool) -> Vec<usize> {
        let mut found = Vec::new();
        scan_escapes(s.as_bytes(), ensure_ascii, |_, at| {
            found.push(at);
            at + 1
        });
        found
    }

    #[test]
    fn escape_found_at_every_offset() {
        for special in ['"', '\\', '\n', '\u{1f}', '\u{7f}', 'é'] {
            for len in [1, 15, 16, 17, 20, 33] {
                for pos in 0..len {
                    let mut s: String = "x".repeat(len);
                    s.replace_range(pos..pos + 1, &special.to_string());
                    let plain_in_json = matches!(special, '\u{7f}' | 'é');
                    let expect: Vec<usize> = if plain_in_json { vec![] } else { vec![pos] };
                    assert_eq!(escapes(&s, false), expect, "{special:?} at {pos} of {len}");
                    let ascii: Vec<usize> = (pos..pos + special.len_utf8()).collect();
                    assert_eq!(escapes(&s, true), ascii, "{special:?} at {pos} of {len} (ascii)");
                }
            }
        }
        // Escapes in a run, across a chunk boundary, and a handler that consumes ahead.
        let s = format!("{}\"\"\"{}\\", "a".repeat(14), "b".repeat(20));
        assert_eq!(escapes(&s, false), vec![14, 15, 16, 37]);
        let mut seen = Vec::new();
        scan_escapes(s.as_bytes(), false, |_, at| {
            seen.push(at);
            at + 3
        });
        assert_eq!(seen, vec![14, 37]);
    }
}
