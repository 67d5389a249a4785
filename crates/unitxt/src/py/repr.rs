//! Python's `repr()` / `str()` of JSON-like values, as CPython 3.11 prints them.
//!
//! Values map to Python as `json.loads` would build them: null is `None`, booleans are
//! `True`/`False`, integers are `int`, other numbers are `float`, arrays are lists and objects
//! are dicts in insertion order.

use crate::value::Value;

/// `repr(v)`: `None`, `True`, `1`, `1.5`, `'text'`, `[1, 2]`, `{'a': 1}`.
pub fn repr(v: &Value) -> String {
    let mut out = String::new();
    write_repr(v, &mut out);
    out
}

/// `str(v)`: like [`repr`] except that a top-level string is returned as is.
pub fn str(v: &Value) -> String {
    match v {
        Value::String(s) => s.as_str().to_owned(),
        other => repr(other),
    }
}

/// Appends `repr(v)` to `out`.
pub(crate) fn write_repr(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("None"),
        Value::Bool(true) => out.push_str("True"),
        Value::Bool(false) => out.push_str("False"),
        Value::Number(n) => out.push_str(&number_repr(n)),
        Value::String(s) => write_str_repr(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            if !write_artifact_repr(map, out) {
                write_dict_repr(map.iter().map(|(k, v)| (k.as_str(), v)), out)
            }
        }
    }
}

/// The artifact objects that instances can hold as values (LLM-judge criteria, made by the
/// operators of [`crate::operators::criteria`]): `__type__`, Python class name, and the class's
/// own fields in declaration order, each with whether the object must have been given it
/// (the others default to `None`).
const VALUE_ARTIFACTS: &[(&str, &str, &[(&str, bool)])] = &[
    (
        "criteria_with_options",
        "CriteriaWithOptions",
        &[
            ("name", true),
            ("description", true),
            ("prediction_field", false),
            ("context_fields", false),
            ("options", true),
            ("option_map", false),
        ],
    ),
    ("criteria", "Criteria", &[("name", true), ("description", true), ("prediction_field", false), ("context_fields", false)]),
    ("criteria_option", "CriteriaOption", &[("name", true), ("description", true)]),
];

/// Appends the dataclass `repr` of an artifact object held as a value, when `map` is such an
/// object's dict (its `to_dict()`: the `__type__`, every required field, and no key that is not
/// a field): `Class(__type__='t', __title__=None, __description__=None, __tags__={},
/// __deprecated_msg__=None, data_classification_policy=None, field=repr, ...)` with every field,
/// those not given as `None`, as Python prints Unitxt's `Artifact` dataclasses. Returns false
/// (nothing written) for any other dict.
fn write_artifact_repr(map: &crate::value::Map, out: &mut String) -> bool {
    let Some(t) = map.get("__type__").and_then(Value::as_str) else { return false };
    let Some((_, class, fields)) = VALUE_ARTIFACTS.iter().find(|(ty, _, _)| *ty == t) else { return false };
    let known = |k: &str| k == "__type__" || fields.iter().any(|(f, _)| *f == k);
    if !map.keys().all(|k| known(k)) || !fields.iter().all(|(f, required)| !required || map.contains_key(*f)) {
        return false;
    }
    out.push_str(class);
    out.push_str("(__type__=");
    write_str_repr(t, out);
    out.push_str(", __title__=None, __description__=None, __tags__={}, __deprecated_msg__=None, data_classification_policy=None");
    for (f, _) in fields.iter() {
        out.push_str(", ");
        out.push_str(f);
        out.push('=');
        match map.get(*f) {
            Some(v) => write_repr(v, out),
            None => out.push_str("None"),
        }
    }
    out.push(')');
    true
}

/// Appends `repr` of a dict with these items (in order) to `out`, with no map built.
pub fn write_dict_repr<'a>(items: impl IntoIterator<Item = (&'a str, &'a Value)>, out: &mut String) {
    out.push('{');
    for (i, (k, item)) in items.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_str_repr(k, out);
        out.push_str(": ");
        write_repr(item, out);
    }
    out.push('}');
}

/// `repr` of a JSON number: integers in decimal, anything else as a Python float.
pub fn number_repr(n: &crate::value::Number) -> String {
    if let Some(i) = n.as_i64() {
        i.to_string()
    } else if let Some(u) = n.as_u64() {
        u.to_string()
    } else {
        float_repr(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// Splits a finite, non-zero `|f|` into its shortest round-trip decimal digits (no leading or
/// trailing zeros) and the decimal exponent of the first digit (`f = d.ddd × 10^exp`).
///
/// The digits are Ryu's (Adams, "Ryū: fast float-to-string conversion", PLDI 2018, through
/// the `ryu` crate): the shortest string that round-trips and, of those, the one closest to
/// the exact value, an exact tie going to the even digit. That is also CPython's choice
/// (`repr` uses David Gay's correctly rounded `dtoa`, mode 0). The digits are read back from
/// Ryu's text, which has no leading zeros other than `0.` / `0.000` and no trailing zeros
/// other than a `.0` or a run before it.
pub(crate) fn shortest_digits(f: f64) -> ([u8; 17], usize, i32) {
    let mut buf = ryu::Buffer::new();
    let text = buf.format_finite(f.abs()).as_bytes();
    let (mant, exp10) = match text.iter().position(|&c| c == b'e') {
        Some(e) => (&text[..e], std::str::from_utf8(&text[e + 1..]).ok().and_then(|x| x.parse().ok()).unwrap_or(0)),
        None => (text, 0),
    };
    let point = mant.iter().position(|&c| c == b'.').unwrap_or(mant.len());
    let mut digits = [0u8; 17];
    let mut n = 0;
    // The exponent of the first significant digit: the place of the first non-zero digit
    // relative to the decimal point, plus the written exponent.
    let mut first: Option<i32> = None;
    for (i, &c) in mant.iter().enumerate() {
        if c == b'.' || (first.is_none() && c == b'0') {
            continue;
        }
        if first.is_none() {
            first = Some(if i < point { (point - i - 1) as i32 } else { -((i - point) as i32) });
        }
        if n < digits.len() {
            digits[n] = c;
            n += 1;
        }
    }
    while n > 1 && digits[n - 1] == b'0' {
        n -= 1;
    }
    (digits, n, first.unwrap_or(0) + exp10)
}

/// `repr(f)` of a Python float: shortest round-trip digits, `1e-05`, `1e+16`, `inf`, `nan`.
///
/// Positional notation is used when the decimal exponent `e` of the first significant digit
/// satisfies `-4 <= e < 16`, otherwise scientific notation with at least two exponent digits.
pub fn float_repr(f: f64) -> String {
    let mut out = String::with_capacity(24);
    write_float_repr(f, &mut out);
    out
}

/// Appends [`float_repr`] of `f` to `out`. Integral values below 1e16 are written from their
/// integer digits; other values go through a small per-thread memo of recent texts (keyed by the
/// float's bits), since instances repeat the same few floats (a task's bounds, a quantized
/// label) and the shortest-digits search costs about a thousand instructions.
pub fn write_float_repr(f: f64, out: &mut String) {
    if f.fract() == 0.0 && f.abs() < 1e16 {
        if f.is_sign_negative() {
            out.push('-');
        }
        out.push_str(itoa::Buffer::new().format(f.abs() as u64));
        return out.push_str(".0");
    }
    /// A memo slot: the float's bits and its repr (at most 24 bytes: `-1.2345678901234567e-308`).
    type Slot = (u64, u8, [u8; 24]);
    const SLOTS: usize = 64;
    thread_local! {
        // A bounded cache of a pure function (float bits -> repr text): 64 direct-mapped
        // slots of 33 bytes per thread, a new float replacing the one in its slot. On the
        // heap, allocated on first use: thread-local storage itself stays a few words (the
        // Python extension is loaded with `dlopen`, whose static TLS room is small).
        static MEMO: std::cell::RefCell<Vec<Slot>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    // Never 0 (+0.0 is written above), the bits of an empty slot.
    let bits = f.to_bits();
    let slot = (bits.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize;
    let hit = MEMO.with(|m| {
        let m = m.borrow();
        let Some((b, n, text)) = m.get(slot) else { return false };
        if *b == bits {
            // Only ASCII is stored.
            out.push_str(std::str::from_utf8(&text[..*n as usize]).unwrap_or_default());
            true
        } else {
            false
        }
    });
    if hit {
        return;
    }
    let start = out.len();
    write_float_repr_uncached(f, out);
    let written = &out.as_bytes()[start..];
    if written.len() <= 24 {
        MEMO.with(|m| {
            let mut text = [0u8; 24];
            text[..written.len()].copy_from_slice(written);
            let mut m = m.borrow_mut();
            if m.is_empty() {
                m.resize(SLOTS, (0, 0, [0; 24]));
            }
            m[slot] = (bits, written.len() as u8, text);
        });
    }
}

fn write_float_repr_uncached(f: f64, out: &mut String) {
    if f.is_nan() {
        return out.push_str("nan");
    }
    if f.is_sign_negative() {
        out.push('-');
    }
    if f.is_infinite() {
        return out.push_str("inf");
    }
    if f == 0.0 {
        return out.push_str("0.0");
    }
    let (buf, n, exp) = shortest_digits(f);
    // ASCII digits only.
    let digits = std::str::from_utf8(&buf[..n]).unwrap_or("0");
    let zeros = |k: i32, out: &mut String| (0..k).for_each(|_| out.push('0'));
    if !(-4..16).contains(&exp) {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let e = exp.unsigned_abs();
        if e < 10 {
            out.push('0');
        }
        out.push_str(itoa::Buffer::new().format(e));
    } else if exp < 0 {
        out.push_str("0.");
        zeros(-exp - 1, out);
        out.push_str(digits);
    } else if exp + 1 >= n as i32 {
        out.push_str(digits);
        zeros(exp + 1 - n as i32, out);
        out.push_str(".0");
    } else {
        let point = (exp + 1) as usize;
        out.push_str(&digits[..point]);
        out.push('.');
        out.push_str(&digits[point..]);
    }
}

/// `str.isprintable()` for one character, per CPython 3.11's Unicode tables.
pub fn is_printable(c: char) -> bool {
    let cp = c as u32;
    // Binary search the sorted, disjoint ranges.
    let idx = NON_PRINTABLE.partition_point(|&(_, hi)| hi < cp);
    match NON_PRINTABLE.get(idx) {
        Some(&(lo, _)) => cp < lo,
        None => true,
    }
}

/// `repr(s)` of a Python str: single quotes unless the text holds a `'` and no `"`; escapes
/// backslash, the quote, `\t` `\n` `\r`, other ASCII controls as `\xNN`, and non-printable
/// non-ASCII characters as `\xNN`, `\uNNNN` or `\UNNNNNNNN`.
pub fn str_repr(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_str_repr(s, &mut out);
    out
}

/// Appends [`str_repr`] of `s` to `out`. Runs of printable ASCII are copied whole.
pub fn write_str_repr(s: &str, out: &mut String) {
    let b = s.as_bytes();
    let has = |c: u8| b.contains(&c);
    let quote = if has(b'\'') && !has(b'"') { b'"' } else { b'\'' };
    out.reserve(s.len() + 2);
    out.push(quote as char);
    // Flagged bytes are ASCII or the first byte of a character (every non-ASCII byte is
    // flagged), so each plain run starts and ends on a character boundary.
    let rest = crate::value::json_lines::scan_escaping(
        b,
        |chunk| crate::value::json_lines::special_mask(chunk, quote, true),
        |from, at| {
            out.push_str(&s[from..at]);
            let c = b[at];
            if c < 0x80 {
                match c {
                    b'\\' => out.push_str("\\\\"),
                    b'\t' => out.push_str("\\t"),
                    b'\n' => out.push_str("\\n"),
                    b'\r' => out.push_str("\\r"),
                    _ if c == quote => {
                        out.push('\\');
                        out.push(c as char);
                    }
                    _ => push_escape(b'x', c as u32, 2, out),
                }
                at + 1
            } else {
                let ch = s[at..].chars().next().unwrap_or('\u{fffd}');
                let cp = ch as u32;
                if is_printable(ch) {
                    out.push(ch);
                } else if cp <= 0xff {
                    push_escape(b'x', cp, 2, out);
                } else if cp <= 0xffff {
                    push_escape(b'u', cp, 4, out);
                } else {
                    push_escape(b'U', cp, 8, out);
                }
                at + ch.len_utf8()
            }
        },
    );
    out.push_str(&s[rest..]);
    out.push(quote as char);
}

/// Where escaped text is appended: a `String`, or a byte buffer of UTF-8 text.
pub(crate) trait TextOut {
    /// Appends the ASCII byte `c`.
    fn push_ascii(&mut self, c: u8);
    /// Appends `t`.
    fn push_text(&mut self, t: &str);
}

impl TextOut for String {
    #[inline(always)]
    fn push_ascii(&mut self, c: u8) {
        debug_assert!(c.is_ascii());
        self.push(c as char);
    }
    #[inline(always)]
    fn push_text(&mut self, t: &str) {
        self.push_str(t);
    }
}

impl TextOut for Vec<u8> {
    #[inline(always)]
    fn push_ascii(&mut self, c: u8) {
        self.push(c);
    }
    #[inline(always)]
    fn push_text(&mut self, t: &str) {
        self.extend_from_slice(t.as_bytes());
    }
}

/// Appends `\` + `kind` (ASCII) + `cp` as `width` lowercase hex digits.
pub(crate) fn push_escape(kind: u8, cp: u32, width: usize, out: &mut impl TextOut) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_ascii(b'\\');
    out.push_ascii(kind);
    for k in (0..width).rev() {
        out.push_ascii(HEX[((cp >> (4 * k)) & 0xf) as usize]);
    }
}

/// Code point ranges (inclusive) that CPython 3.11 (Unicode 14.0.0) does not consider printable:
/// categories Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs other than the ASCII space. Generated with
/// `str.isprintable` over all code points.
const NON_PRINTABLE: [(u32, u32); 701] = [
    (0x0, 0x1F), (0x7F, 0xA0), (0xAD, 0xAD), (0x378, 0x379), (0x380, 0x383), (0x38B, 0x38B), (0x38D, 0x38D),
    (0x3A2, 0x3A2), (0x530, 0x530), (0x557, 0x558), (0x58B, 0x58C), (0x590, 0x590), (0x5C8, 0x5CF), (0x5EB, 0x5EE),
    (0x5F5, 0x605), (0x61C, 0x61C), (0x6DD, 0x6DD), (0x70E, 0x70F), (0x74B, 0x74C), (0x7B2, 0x7BF), (0x7FB, 0x7FC),
    (0x82E, 0x82F), (0x83F, 0x83F), (0x85C, 0x85D), (0x85F, 0x85F), (0x86B, 0x86F), (0x88F, 0x897), (0x8E2, 0x8E2),
    (0x984, 0x984), (0x98D, 0x98E), (0x991, 0x992), (0x9A9, 0x9A9), (0x9B1, 0x9B1), (0x9B3, 0x9B5), (0x9BA, 0x9BB),
    (0x9C5, 0x9C6), (0x9C9, 0x9CA), (0x9CF, 0x9D6), (0x9D8, 0x9DB), (0x9DE, 0x9DE), (0x9E4, 0x9E5), (0x9FF, 0xA00),
    (0xA04, 0xA04), (0xA0B, 0xA0E), (0xA11, 0xA12), (0xA29, 0xA29), (0xA31, 0xA31), (0xA34, 0xA34), (0xA37, 0xA37),
    (0xA3A, 0xA3B), (0xA3D, 0xA3D), (0xA43, 0xA46), (0xA49, 0xA4A), (0xA4E, 0xA50), (0xA52, 0xA58), (0xA5D, 0xA5D),
    (0xA5F, 0xA65), (0xA77, 0xA80), (0xA84, 0xA84), (0xA8E, 0xA8E), (0xA92, 0xA92), (0xAA9, 0xAA9), (0xAB1, 0xAB1),
    (0xAB4, 0xAB4), (0xABA, 0xABB), (0xAC6, 0xAC6), (0xACA, 0xACA), (0xACE, 0xACF), (0xAD1, 0xADF), (0xAE4, 0xAE5),
    (0xAF2, 0xAF8), (0xB00, 0xB00), (0xB04, 0xB04), (0xB0D, 0xB0E), (0xB11, 0xB12), (0xB29, 0xB29), (0xB31, 0xB31),
    (0xB34, 0xB34), (0xB3A, 0xB3B), (0xB45, 0xB46), (0xB49, 0xB4A), (0xB4E, 0xB54), (0xB58, 0xB5B), (0xB5E, 0xB5E),
    (0xB64, 0xB65), (0xB78, 0xB81), (0xB84, 0xB84), (0xB8B, 0xB8D), (0xB91, 0xB91), (0xB96, 0xB98), (0xB9B, 0xB9B),
    (0xB9D, 0xB9D), (0xBA0, 0xBA2), (0xBA5, 0xBA7), (0xBAB, 0xBAD), (0xBBA, 0xBBD), (0xBC3, 0xBC5), (0xBC9, 0xBC9),
    (0xBCE, 0xBCF), (0xBD1, 0xBD6), (0xBD8, 0xBE5), (0xBFB, 0xBFF), (0xC0D, 0xC0D), (0xC11, 0xC11), (0xC29, 0xC29),
    (0xC3A, 0xC3B), (0xC45, 0xC45), (0xC49, 0xC49), (0xC4E, 0xC54), (0xC57, 0xC57), (0xC5B, 0xC5C), (0xC5E, 0xC5F),
    (0xC64, 0xC65), (0xC70, 0xC76), (0xC8D, 0xC8D), (0xC91, 0xC91), (0xCA9, 0xCA9), (0xCB4, 0xCB4), (0xCBA, 0xCBB),
    (0xCC5, 0xCC5), (0xCC9, 0xCC9), (0xCCE, 0xCD4), (0xCD7, 0xCDC), (0xCDF, 0xCDF), (0xCE4, 0xCE5), (0xCF0, 0xCF0),
    (0xCF3, 0xCFF), (0xD0D, 0xD0D), (0xD11, 0xD11), (0xD45, 0xD45), (0xD49, 0xD49), (0xD50, 0xD53), (0xD64, 0xD65),
    (0xD80, 0xD80), (0xD84, 0xD84), (0xD97, 0xD99), (0xDB2, 0xDB2), (0xDBC, 0xDBC), (0xDBE, 0xDBF), (0xDC7, 0xDC9),
    (0xDCB, 0xDCE), (0xDD5, 0xDD5), (0xDD7, 0xDD7), (0xDE0, 0xDE5), (0xDF0, 0xDF1), (0xDF5, 0xE00), (0xE3B, 0xE3E),
    (0xE5C, 0xE80), (0xE83, 0xE83), (0xE85, 0xE85), (0xE8B, 0xE8B), (0xEA4, 0xEA4), (0xEA6, 0xEA6), (0xEBE, 0xEBF),
    (0xEC5, 0xEC5), (0xEC7, 0xEC7), (0xECE, 0xECF), (0xEDA, 0xEDB), (0xEE0, 0xEFF), (0xF48, 0xF48), (0xF6D, 0xF70),
    (0xF98, 0xF98), (0xFBD, 0xFBD), (0xFCD, 0xFCD), (0xFDB, 0xFFF), (0x10C6, 0x10C6), (0x10C8, 0x10CC),
    (0x10CE, 0x10CF), (0x1249, 0x1249), (0x124E, 0x124F), (0x1257, 0x1257), (0x1259, 0x1259), (0x125E, 0x125F),
    (0x1289, 0x1289), (0x128E, 0x128F), (0x12B1, 0x12B1), (0x12B6, 0x12B7), (0x12BF, 0x12BF), (0x12C1, 0x12C1),
    (0x12C6, 0x12C7), (0x12D7, 0x12D7), (0x1311, 0x1311), (0x1316, 0x1317), (0x135B, 0x135C), (0x137D, 0x137F),
    (0x139A, 0x139F), (0x13F6, 0x13F7), (0x13FE, 0x13FF), (0x1680, 0x1680), (0x169D, 0x169F), (0x16F9, 0x16FF),
    (0x1716, 0x171E), (0x1737, 0x173F), (0x1754, 0x175F), (0x176D, 0x176D), (0x1771, 0x1771), (0x1774, 0x177F),
    (0x17DE, 0x17DF), (0x17EA, 0x17EF), (0x17FA, 0x17FF), (0x180E, 0x180E), (0x181A, 0x181F), (0x1879, 0x187F),
    (0x18AB, 0x18AF), (0x18F6, 0x18FF), (0x191F, 0x191F), (0x192C, 0x192F), (0x193C, 0x193F), (0x1941, 0x1943),
    (0x196E, 0x196F), (0x1975, 0x197F), (0x19AC, 0x19AF), (0x19CA, 0x19CF), (0x19DB, 0x19DD), (0x1A1C, 0x1A1D),
    (0x1A5F, 0x1A5F), (0x1A7D, 0x1A7E), (0x1A8A, 0x1A8F), (0x1A9A, 0x1A9F), (0x1AAE, 0x1AAF), (0x1ACF, 0x1AFF),
    (0x1B4D, 0x1B4F), (0x1B7F, 0x1B7F), (0x1BF4, 0x1BFB), (0x1C38, 0x1C3A), (0x1C4A, 0x1C4C), (0x1C89, 0x1C8F),
    (0x1CBB, 0x1CBC), (0x1CC8, 0x1CCF), (0x1CFB, 0x1CFF), (0x1F16, 0x1F17), (0x1F1E, 0x1F1F), (0x1F46, 0x1F47),
    (0x1F4E, 0x1F4F), (0x1F58, 0x1F58), (0x1F5A, 0x1F5A), (0x1F5C, 0x1F5C), (0x1F5E, 0x1F5E), (0x1F7E, 0x1F7F),
    (0x1FB5, 0x1FB5), (0x1FC5, 0x1FC5), (0x1FD4, 0x1FD5), (0x1FDC, 0x1FDC), (0x1FF0, 0x1FF1), (0x1FF5, 0x1FF5),
    (0x1FFF, 0x200F), (0x2028, 0x202F), (0x205F, 0x206F), (0x2072, 0x2073), (0x208F, 0x208F), (0x209D, 0x209F),
    (0x20C1, 0x20CF), (0x20F1, 0x20FF), (0x218C, 0x218F), (0x2427, 0x243F), (0x244B, 0x245F), (0x2B74, 0x2B75),
    (0x2B96, 0x2B96), (0x2CF4, 0x2CF8), (0x2D26, 0x2D26), (0x2D28, 0x2D2C), (0x2D2E, 0x2D2F), (0x2D68, 0x2D6E),
    (0x2D71, 0x2D7E), (0x2D97, 0x2D9F), (0x2DA7, 0x2DA7), (0x2DAF, 0x2DAF), (0x2DB7, 0x2DB7), (0x2DBF, 0x2DBF),
    (0x2DC7, 0x2DC7), (0x2DCF, 0x2DCF), (0x2DD7, 0x2DD7), (0x2DDF, 0x2DDF), (0x2E5E, 0x2E7F), (0x2E9A, 0x2E9A),
    (0x2EF4, 0x2EFF), (0x2FD6, 0x2FEF), (0x2FFC, 0x3000), (0x3040, 0x3040), (0x3097, 0x3098), (0x3100, 0x3104),
    (0x3130, 0x3130), (0x318F, 0x318F), (0x31E4, 0x31EF), (0x321F, 0x321F), (0xA48D, 0xA48F), (0xA4C7, 0xA4CF),
    (0xA62C, 0xA63F), (0xA6F8, 0xA6FF), (0xA7CB, 0xA7CF), (0xA7D2, 0xA7D2), (0xA7D4, 0xA7D4), (0xA7DA, 0xA7F1),
    (0xA82D, 0xA82F), (0xA83A, 0xA83F), (0xA878, 0xA87F), (0xA8C6, 0xA8CD), (0xA8DA, 0xA8DF), (0xA954, 0xA95E),
    (0xA97D, 0xA97F), (0xA9CE, 0xA9CE), (0xA9DA, 0xA9DD), (0xA9FF, 0xA9FF), (0xAA37, 0xAA3F), (0xAA4E, 0xAA4F),
    (0xAA5A, 0xAA5B), (0xAAC3, 0xAADA), (0xAAF7, 0xAB00), (0xAB07, 0xAB08), (0xAB0F, 0xAB10), (0xAB17, 0xAB1F),
    (0xAB27, 0xAB27), (0xAB2F, 0xAB2F), (0xAB6C, 0xAB6F), (0xABEE, 0xABEF), (0xABFA, 0xABFF), (0xD7A4, 0xD7AF),
    (0xD7C7, 0xD7CA), (0xD7FC, 0xF8FF), (0xFA6E, 0xFA6F), (0xFADA, 0xFAFF), (0xFB07, 0xFB12), (0xFB18, 0xFB1C),
    (0xFB37, 0xFB37), (0xFB3D, 0xFB3D), (0xFB3F, 0xFB3F), (0xFB42, 0xFB42), (0xFB45, 0xFB45), (0xFBC3, 0xFBD2),
    (0xFD90, 0xFD91), (0xFDC8, 0xFDCE), (0xFDD0, 0xFDEF), (0xFE1A, 0xFE1F), (0xFE53, 0xFE53), (0xFE67, 0xFE67),
    (0xFE6C, 0xFE6F), (0xFE75, 0xFE75), (0xFEFD, 0xFF00), (0xFFBF, 0xFFC1), (0xFFC8, 0xFFC9), (0xFFD0, 0xFFD1),
    (0xFFD8, 0xFFD9), (0xFFDD, 0xFFDF), (0xFFE7, 0xFFE7), (0xFFEF, 0xFFFB), (0xFFFE, 0xFFFF), (0x1000C, 0x1000C),
    (0x10027, 0x10027), (0x1003B, 0x1003B), (0x1003E, 0x1003E), (0x1004E, 0x1004F), (0x1005E, 0x1007F),
    (0x100FB, 0x100FF), (0x10103, 0x10106), (0x10134, 0x10136), (0x1018F, 0x1018F), (0x1019D, 0x1019F),
    (0x101A1, 0x101CF), (0x101FE, 0x1027F), (0x1029D, 0x1029F), (0x102D1, 0x102DF), (0x102FC, 0x102FF),
    (0x10324, 0x1032C), (0x1034B, 0x1034F), (0x1037B, 0x1037F), (0x1039E, 0x1039E), (0x103C4, 0x103C7),
    (0x103D6, 0x103FF), (0x1049E, 0x1049F), (0x104AA, 0x104AF), (0x104D4, 0x104D7), (0x104FC, 0x104FF),
    (0x10528, 0x1052F), (0x10564, 0x1056E), (0x1057B, 0x1057B), (0x1058B, 0x1058B), (0x10593, 0x10593),
    (0x10596, 0x10596), (0x105A2, 0x105A2), (0x105B2, 0x105B2), (0x105BA, 0x105BA), (0x105BD, 0x105FF),
    (0x10737, 0x1073F), (0x10756, 0x1075F), (0x10768, 0x1077F), (0x10786, 0x10786), (0x107B1, 0x107B1),
    (0x107BB, 0x107FF), (0x10806, 0x10807), (0x10809, 0x10809), (0x10836, 0x10836), (0x10839, 0x1083B),
    (0x1083D, 0x1083E), (0x10856, 0x10856), (0x1089F, 0x108A6), (0x108B0, 0x108DF), (0x108F3, 0x108F3),
    (0x108F6, 0x108FA), (0x1091C, 0x1091E), (0x1093A, 0x1093E), (0x10940, 0x1097F), (0x109B8, 0x109BB),
    (0x109D0, 0x109D1), (0x10A04, 0x10A04), (0x10A07, 0x10A0B), (0x10A14, 0x10A14), (0x10A18, 0x10A18),
    (0x10A36, 0x10A37), (0x10A3B, 0x10A3E), (0x10A49, 0x10A4F), (0x10A59, 0x10A5F), (0x10AA0, 0x10ABF),
    (0x10AE7, 0x10AEA), (0x10AF7, 0x10AFF), (0x10B36, 0x10B38), (0x10B56, 0x10B57), (0x10B73, 0x10B77),
    (0x10B92, 0x10B98), (0x10B9D, 0x10BA8), (0x10BB0, 0x10BFF), (0x10C49, 0x10C7F), (0x10CB3, 0x10CBF),
    (0x10CF3, 0x10CF9), (0x10D28, 0x10D2F), (0x10D3A, 0x10E5F), (0x10E7F, 0x10E7F), (0x10EAA, 0x10EAA),
    (0x10EAE, 0x10EAF), (0x10EB2, 0x10EFF), (0x10F28, 0x10F2F), (0x10F5A, 0x10F6F), (0x10F8A, 0x10FAF),
    (0x10FCC, 0x10FDF), (0x10FF7, 0x10FFF), (0x1104E, 0x11051), (0x11076, 0x1107E), (0x110BD, 0x110BD),
    (0x110C3, 0x110CF), (0x110E9, 0x110EF), (0x110FA, 0x110FF), (0x11135, 0x11135), (0x11148, 0x1114F),
    (0x11177, 0x1117F), (0x111E0, 0x111E0), (0x111F5, 0x111FF), (0x11212, 0x11212), (0x1123F, 0x1127F),
    (0x11287, 0x11287), (0x11289, 0x11289), (0x1128E, 0x1128E), (0x1129E, 0x1129E), (0x112AA, 0x112AF),
    (0x112EB, 0x112EF), (0x112FA, 0x112FF), (0x11304, 0x11304), (0x1130D, 0x1130E), (0x11311, 0x11312),
    (0x11329, 0x11329), (0x11331, 0x11331), (0x11334, 0x11334), (0x1133A, 0x1133A), (0x11345, 0x11346),
    (0x11349, 0x1134A), (0x1134E, 0x1134F), (0x11351, 0x11356), (0x11358, 0x1135C), (0x11364, 0x11365),
    (0x1136D, 0x1136F), (0x11375, 0x113FF), (0x1145C, 0x1145C), (0x11462, 0x1147F), (0x114C8, 0x114CF),
    (0x114DA, 0x1157F), (0x115B6, 0x115B7), (0x115DE, 0x115FF), (0x11645, 0x1164F), (0x1165A, 0x1165F),
    (0x1166D, 0x1167F), (0x116BA, 0x116BF), (0x116CA, 0x116FF), (0x1171B, 0x1171C), (0x1172C, 0x1172F),
    (0x11747, 0x117FF), (0x1183C, 0x1189F), (0x118F3, 0x118FE), (0x11907, 0x11908), (0x1190A, 0x1190B),
    (0x11914, 0x11914), (0x11917, 0x11917), (0x11936, 0x11936), (0x11939, 0x1193A), (0x11947, 0x1194F),
    (0x1195A, 0x1199F), (0x119A8, 0x119A9), (0x119D8, 0x119D9), (0x119E5, 0x119FF), (0x11A48, 0x11A4F),
    (0x11AA3, 0x11AAF), (0x11AF9, 0x11BFF), (0x11C09, 0x11C09), (0x11C37, 0x11C37), (0x11C46, 0x11C4F),
    (0x11C6D, 0x11C6F), (0x11C90, 0x11C91), (0x11CA8, 0x11CA8), (0x11CB7, 0x11CFF), (0x11D07, 0x11D07),
    (0x11D0A, 0x11D0A), (0x11D37, 0x11D39), (0x11D3B, 0x11D3B), (0x11D3E, 0x11D3E), (0x11D48, 0x11D4F),
    (0x11D5A, 0x11D5F), (0x11D66, 0x11D66), (0x11D69, 0x11D69), (0x11D8F, 0x11D8F), (0x11D92, 0x11D92),
    (0x11D99, 0x11D9F), (0x11DAA, 0x11EDF), (0x11EF9, 0x11FAF), (0x11FB1, 0x11FBF), (0x11FF2, 0x11FFE),
    (0x1239A, 0x123FF), (0x1246F, 0x1246F), (0x12475, 0x1247F), (0x12544, 0x12F8F), (0x12FF3, 0x12FFF),
    (0x1342F, 0x143FF), (0x14647, 0x167FF), (0x16A39, 0x16A3F), (0x16A5F, 0x16A5F), (0x16A6A, 0x16A6D),
    (0x16ABF, 0x16ABF), (0x16ACA, 0x16ACF), (0x16AEE, 0x16AEF), (0x16AF6, 0x16AFF), (0x16B46, 0x16B4F),
    (0x16B5A, 0x16B5A), (0x16B62, 0x16B62), (0x16B78, 0x16B7C), (0x16B90, 0x16E3F), (0x16E9B, 0x16EFF),
    (0x16F4B, 0x16F4E), (0x16F88, 0x16F8E), (0x16FA0, 0x16FDF), (0x16FE5, 0x16FEF), (0x16FF2, 0x16FFF),
    (0x187F8, 0x187FF), (0x18CD6, 0x18CFF), (0x18D09, 0x1AFEF), (0x1AFF4, 0x1AFF4), (0x1AFFC, 0x1AFFC),
    (0x1AFFF, 0x1AFFF), (0x1B123, 0x1B14F), (0x1B153, 0x1B163), (0x1B168, 0x1B16F), (0x1B2FC, 0x1BBFF),
    (0x1BC6B, 0x1BC6F), (0x1BC7D, 0x1BC7F), (0x1BC89, 0x1BC8F), (0x1BC9A, 0x1BC9B), (0x1BCA0, 0x1CEFF),
    (0x1CF2E, 0x1CF2F), (0x1CF47, 0x1CF4F), (0x1CFC4, 0x1CFFF), (0x1D0F6, 0x1D0FF), (0x1D127, 0x1D128),
    (0x1D173, 0x1D17A), (0x1D1EB, 0x1D1FF), (0x1D246, 0x1D2DF), (0x1D2F4, 0x1D2FF), (0x1D357, 0x1D35F),
    (0x1D379, 0x1D3FF), (0x1D455, 0x1D455), (0x1D49D, 0x1D49D), (0x1D4A0, 0x1D4A1), (0x1D4A3, 0x1D4A4),
    (0x1D4A7, 0x1D4A8), (0x1D4AD, 0x1D4AD), (0x1D4BA, 0x1D4BA), (0x1D4BC, 0x1D4BC), (0x1D4C4, 0x1D4C4),
    (0x1D506, 0x1D506), (0x1D50B, 0x1D50C), (0x1D515, 0x1D515), (0x1D51D, 0x1D51D), (0x1D53A, 0x1D53A),
    (0x1D53F, 0x1D53F), (0x1D545, 0x1D545), (0x1D547, 0x1D549), (0x1D551, 0x1D551), (0x1D6A6, 0x1D6A7),
    (0x1D7CC, 0x1D7CD), (0x1DA8C, 0x1DA9A), (0x1DAA0, 0x1DAA0), (0x1DAB0, 0x1DEFF), (0x1DF1F, 0x1DFFF),
    (0x1E007, 0x1E007), (0x1E019, 0x1E01A), (0x1E022, 0x1E022), (0x1E025, 0x1E025), (0x1E02B, 0x1E0FF),
    (0x1E12D, 0x1E12F), (0x1E13E, 0x1E13F), (0x1E14A, 0x1E14D), (0x1E150, 0x1E28F), (0x1E2AF, 0x1E2BF),
    (0x1E2FA, 0x1E2FE), (0x1E300, 0x1E7DF), (0x1E7E7, 0x1E7E7), (0x1E7EC, 0x1E7EC), (0x1E7EF, 0x1E7EF),
    (0x1E7FF, 0x1E7FF), (0x1E8C5, 0x1E8C6), (0x1E8D7, 0x1E8FF), (0x1E94C, 0x1E94F), (0x1E95A, 0x1E95D),
    (0x1E960, 0x1EC70), (0x1ECB5, 0x1ED00), (0x1ED3E, 0x1EDFF), (0x1EE04, 0x1EE04), (0x1EE20, 0x1EE20),
    (0x1EE23, 0x1EE23), (0x1EE25, 0x1EE26), (0x1EE28, 0x1EE28), (0x1EE33, 0x1EE33), (0x1EE38, 0x1EE38),
    (0x1EE3A, 0x1EE3A), (0x1EE3C, 0x1EE41), (0x1EE43, 0x1EE46), (0x1EE48, 0x1EE48), (0x1EE4A, 0x1EE4A),
    (0x1EE4C, 0x1EE4C), (0x1EE50, 0x1EE50), (0x1EE53, 0x1EE53), (0x1EE55, 0x1EE56), (0x1EE58, 0x1EE58),
    (0x1EE5A, 0x1EE5A), (0x1EE5C, 0x1EE5C), (0x1EE5E, 0x1EE5E), (0x1EE60, 0x1EE60), (0x1EE63, 0x1EE63),
    (0x1EE65, 0x1EE66), (0x1EE6B, 0x1EE6B), (0x1EE73, 0x1EE73), (0x1EE78, 0x1EE78), (0x1EE7D, 0x1EE7D),
    (0x1EE7F, 0x1EE7F), (0x1EE8A, 0x1EE8A), (0x1EE9C, 0x1EEA0), (0x1EEA4, 0x1EEA4), (0x1EEAA, 0x1EEAA),
    (0x1EEBC, 0x1EEEF), (0x1EEF2, 0x1EFFF), (0x1F02C, 0x1F02F), (0x1F094, 0x1F09F), (0x1F0AF, 0x1F0B0),
    (0x1F0C0, 0x1F0C0), (0x1F0D0, 0x1F0D0), (0x1F0F6, 0x1F0FF), (0x1F1AE, 0x1F1E5), (0x1F203, 0x1F20F),
    (0x1F23C, 0x1F23F), (0x1F249, 0x1F24F), (0x1F252, 0x1F25F), (0x1F266, 0x1F2FF), (0x1F6D8, 0x1F6DC),
    (0x1F6ED, 0x1F6EF), (0x1F6FD, 0x1F6FF), (0x1F774, 0x1F77F), (0x1F7D9, 0x1F7DF), (0x1F7EC, 0x1F7EF),
    (0x1F7F1, 0x1F7FF), (0x1F80C, 0x1F80F), (0x1F848, 0x1F84F), (0x1F85A, 0x1F85F), (0x1F888, 0x1F88F),
    (0x1F8AE, 0x1F8AF), (0x1F8B2, 0x1F8FF), (0x1FA54, 0x1FA5F), (0x1FA6E, 0x1FA6F), (0x1FA75, 0x1FA77),
    (0x1FA7D, 0x1FA7F), (0x1FA87, 0x1FA8F), (0x1FAAD, 0x1FAAF), (0x1FABB, 0x1FABF), (0x1FAC6, 0x1FACF),
    (0x1FADA, 0x1FADF), (0x1FAE8, 0x1FAEF), (0x1FAF7, 0x1FAFF), (0x1FB93, 0x1FB93), (0x1FBCB, 0x1FBEF),
    (0x1FBFA, 0x1FFFF), (0x2A6E0, 0x2A6FF), (0x2B739, 0x2B73F), (0x2B81E, 0x2B81F), (0x2CEA2, 0x2CEAF),
    (0x2EBE1, 0x2F7FF), (0x2FA1E, 0x2FFFF), (0x3134B, 0xE00FF), (0xE01F0, 0x10FFFF),
];

#[cfg(test)]
mod tests {
    // Expected values printed by CPython 3.11.7 (/work/venv/bin/python) for the same inputs.
    use super::*;
    use crate::json;

    /// Unitxt 1.26.10's `repr(CreateCriteriaFromString(field="a").process_value("Is it ok?"))`
    /// and of `CriteriaOption(name="Yes", description="")`; a dict with a key that is not a field
    /// stays a dict.
    #[test]
    fn criteria_objects_print_as_dataclasses() {
        let base = "__type__='criteria', __title__=None, __description__=None, __tags__={}, __deprecated_msg__=None, data_classification_policy=None";
        assert_eq!(
            repr(&json!({"__type__": "criteria", "name": "", "description": "Is it ok?"})),
            format!("Criteria({base}, name='', description='Is it ok?', prediction_field=None, context_fields=None)")
        );
        assert_eq!(
            repr(&json!({"__type__": "criteria_option", "name": "Yes", "description": ""})),
            "CriteriaOption(__type__='criteria_option', __title__=None, __description__=None, __tags__={}, __deprecated_msg__=None, data_classification_policy=None, name='Yes', description='')"
        );
        assert_eq!(repr(&json!({"__type__": "criteria", "name": "", "description": "d", "x": 1})), "{'__type__': 'criteria', 'name': '', 'description': 'd', 'x': 1}");
        assert_eq!(repr(&json!({"__type__": "criteria", "name": ""})), "{'__type__': 'criteria', 'name': ''}");
    }

    #[test]
    fn escapes_at_every_offset_of_long_strings() {
        // Each character's repr does not depend on its neighbours (the quote is chosen for the
        // whole string, the same here as for the character alone).
        for special in ["'", "\"", "\\", "\n", "\u{7f}", "é", "\u{2028}", "😀", "\u{0}"] {
            let alone = str_repr(special);
            let inner = &alone[1..alone.len() - 1];
            let q = &alone[..1];
            for len in [16, 17, 31, 32, 40] {
                for pos in 0..len {
                    let text = format!("{}{special}{}", "a".repeat(pos), "b".repeat(len - pos));
                    let expect = format!("{q}{}{inner}{}{q}", "a".repeat(pos), "b".repeat(len - pos));
                    assert_eq!(str_repr(&text), expect, "{special:?} at {pos} of {len}");
                }
            }
        }
    }

    #[test]
    fn string_quoting_and_escapes() {
        assert_eq!(str_repr("it's"), r#""it's""#);
        assert_eq!(str_repr("say \"hi\""), r#"'say "hi"'"#);
        assert_eq!(str_repr("both ' and \""), r#"'both \' and "'"#);
        assert_eq!(str_repr("tab\there\nnl\r\\ back"), r"'tab\there\nnl\r\\ back'");
        assert_eq!(str_repr("\u{0}\u{7}\u{1b}\u{7f}\u{80}\u{a0}\u{ad}"), r"'\x00\x07\x1b\x7f\x80\xa0\xad'");
        assert_eq!(str_repr("é中文😀"), "'é中文😀'");
        assert_eq!(str_repr("\u{2028}\u{200b}\u{feff}"), r"'\u2028\u200b\ufeff'");
        assert_eq!(str_repr("\u{e0001}\u{10ffff}"), r"'\U000e0001\U0010ffff'");
        assert_eq!(str_repr("\u{d7ff}"), r"'\ud7ff'");
    }

    #[test]
    fn floats() {
        let cases: [(f64, &str); 21] = [
            (1e-05, "1e-05"),
            (1.5e16, "1.5e+16"),
            (1e16, "1e+16"),
            (0.0001, "0.0001"),
            (123.0, "123.0"),
            (f64::INFINITY, "inf"),
            (f64::NAN, "nan"),
            (-0.0, "-0.0"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e-07, "1e-07"),
            (123456789.0, "123456789.0"),
            (9999999999999998.0, "9999999999999998.0"),
            (1e22, "1e+22"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (-2.5e-5, "-2.5e-05"),
            (0.5, "0.5"),
            (100.0, "100.0"),
            (1234567890123456.7, "1234567890123456.8"),
            // exact ties between two shortest candidates round half to even in CPython
            (22396477884559.5625, "22396477884559.562"),
            (1245793986745740.25, "1245793986745740.2"),
        ];
        for (f, want) in cases {
            assert_eq!(float_repr(f), want, "repr of {f:?}");
        }
    }

    /// The former digits: Rust's shortest `{:e}`, re-rounded half to even at the same length
    /// when that still round-trips (exact formatting and a parse back; slow).
    fn shortest_digits_reference(f: f64) -> (String, i32) {
        fn split_sci(s: &str) -> (String, i32) {
            let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
            let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
            let digits = digits.trim_end_matches('0');
            let digits = if digits.is_empty() { "0" } else { digits };
            (digits.to_string(), exp.parse().unwrap_or(0))
        }
        let a = f.abs();
        let (digits, exp) = split_sci(&format!("{a:e}"));
        let exact = format!("{a:.*e}", digits.len() - 1);
        if exact.parse::<f64>().ok() == Some(a) {
            return split_sci(&exact);
        }
        (digits, exp)
    }

    #[test]
    fn ryu_digits_match_the_reference() {
        // Random bit patterns (all magnitudes), short decimals (where ties and re-rounding
        // matter), and dyadic values with few digits.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut values: Vec<f64> = (0..200_000).map(|_| f64::from_bits(next())).filter(|f| f.is_finite() && *f != 0.0).collect();
        for k in 1..20_000u64 {
            values.push(k as f64 / 100.0);
            values.push(k as f64 / 8.0 + 0.125);
            values.push((k * 7919) as f64 * 1e-7);
            values.push(2f64.powi((k % 2000) as i32 - 1000) * (k % 97) as f64);
        }
        values.extend([5e-324, f64::MIN_POSITIVE, f64::MAX, 22396477884559.5625, 1245793986745740.25, 9007199254740993.0]);
        for f in values.into_iter().filter(|f| *f != 0.0) {
            let (buf, n, exp) = shortest_digits(f);
            let got = (std::str::from_utf8(&buf[..n]).unwrap().to_string(), exp);
            assert_eq!(got, shortest_digits_reference(f), "digits of {f:e}");
        }
    }

    #[test]
    fn float_repr_shortcuts_give_the_full_texts() {
        // Integral values (the shortcut's edges) against Python 3.11's repr.
        let cases = [
            (1.0, "1.0"), (-5.0, "-5.0"), (-0.0, "-0.0"), (0.0, "0.0"), (9999999999999998.0, "9999999999999998.0"),
            (1e16, "1e+16"), (-1e16, "-1e+16"), (0.5, "0.5"), (f64::INFINITY, "inf"), (f64::NEG_INFINITY, "-inf"),
        ];
        for (f, want) in cases {
            assert_eq!(float_repr(f), want);
        }
        // Through the memo: each value twice (a miss, then a hit unless another value took its
        // slot), interleaved so that slots are shared, against the text computed without it.
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut values: Vec<f64> = (0..20_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                f64::from_bits(x)
            })
            .collect();
        values.extend((0..2_000).map(|k| k as f64 * 0.2 - 7.0));
        values.extend([f64::NAN, -0.0, 1e-5, 123456789.125]);
        for pass in 0..2 {
            for (i, &f) in values.iter().enumerate() {
                let mut want = String::new();
                write_float_repr_uncached(f, &mut want);
                assert_eq!(float_repr(f), want, "pass {pass}, value {i}: {f:e}");
            }
        }
    }

    #[test]
    fn containers_and_str() {
        let v = json!({"a": [1, 2.5, null, true, false, "x"], "b": {}, "c'": []});
        assert_eq!(repr(&v), r#"{'a': [1, 2.5, None, True, False, 'x'], 'b': {}, "c'": []}"#);
        assert_eq!(str(&json!("plain")), "plain");
        assert_eq!(str(&json!(["plain"])), "['plain']");
        assert!(is_printable(' ') && !is_printable('\u{3000}') && is_printable('中'));
    }
}

/// Python's `type(v).__name__` of a value (`NoneType`, `bool`, `int`, `float`, `str`, `list`,
/// `dict`), for messages that quote Python's own.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}
