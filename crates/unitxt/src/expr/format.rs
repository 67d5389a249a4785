//! Python's number formatting: `repr(float)` and the format-spec mini-language used by
//! f-strings, `format()` and `str.format`.

use super::value::{to_str, PyVal};
use super::{err, EResult};

/// Python's `repr(float)` (delegates to [`crate::py::repr::float_repr`]).
pub fn float_repr(f: f64) -> String {
    crate::py::repr::float_repr(f)
}

/// A parsed format spec.
#[derive(Debug, Default)]
struct Spec {
    fill: Option<char>,
    align: Option<char>,
    sign: Option<char>,
    alt: bool,
    zero: bool,
    width: usize,
    grouping: Option<char>,
    precision: Option<usize>,
    ty: Option<char>,
}

fn parse_spec(spec: &str) -> EResult<Spec> {
    let chars: Vec<char> = spec.chars().collect();
    let mut s = Spec::default();
    let mut i = 0;
    let is_align = |c: char| matches!(c, '<' | '>' | '^' | '=');
    if chars.len() >= 2 && is_align(chars[1]) {
        s.fill = Some(chars[0]);
        s.align = Some(chars[1]);
        i = 2;
    } else if !chars.is_empty() && is_align(chars[0]) {
        s.align = Some(chars[0]);
        i = 1;
    }
    if i < chars.len() && matches!(chars[i], '+' | '-' | ' ') {
        s.sign = Some(chars[i]);
        i += 1;
    }
    if i < chars.len() && chars[i] == 'z' {
        i += 1;
    }
    if i < chars.len() && chars[i] == '#' {
        s.alt = true;
        i += 1;
    }
    if i < chars.len() && chars[i] == '0' {
        s.zero = true;
        i += 1;
    }
    let start = i;
    while i < chars.len() && chars[i].is_ascii_digit() {
        i += 1;
    }
    if i > start {
        s.width = chars[start..i].iter().collect::<String>().parse().map_err(|_| err("format width too large"))?;
    }
    if i < chars.len() && matches!(chars[i], ',' | '_') {
        s.grouping = Some(chars[i]);
        i += 1;
    }
    if i < chars.len() && chars[i] == '.' {
        i += 1;
        let start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return Err(err("Format specifier missing precision"));
        }
        s.precision = Some(chars[start..i].iter().collect::<String>().parse().map_err(|_| err("precision too big"))?);
    }
    if i < chars.len() {
        s.ty = Some(chars[i]);
        i += 1;
    }
    if i < chars.len() {
        return Err(err(format!("Invalid format specifier '{spec}'")));
    }
    if s.width > 10_000_000 {
        return Err(err("format width too large for the sandbox"));
    }
    Ok(s)
}

fn group_digits(int_part: &str, sep: char, every: usize) -> String {
    let n = int_part.chars().count();
    let mut out = String::new();
    for (i, c) in int_part.chars().enumerate() {
        if i > 0 && (n - i).is_multiple_of(every) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

/// Pads `body` (with an already computed `sign` prefix) to the spec's width.
fn pad(sign: &str, body: &str, s: &Spec, default_align: char) -> String {
    let fill = s.fill.unwrap_or(if s.zero && s.align.is_none() { '0' } else { ' ' });
    let align = s.align.unwrap_or(if s.zero && default_align == '>' { '=' } else { default_align });
    let len = sign.chars().count() + body.chars().count();
    if len >= s.width {
        return format!("{sign}{body}");
    }
    let n = s.width - len;
    let fills = |k: usize| std::iter::repeat_n(fill, k).collect::<String>();
    match align {
        '<' => format!("{sign}{body}{}", fills(n)),
        '^' => format!("{}{sign}{body}{}", fills(n / 2), fills(n - n / 2)),
        '=' => format!("{sign}{}{body}", fills(n)),
        _ => format!("{}{sign}{body}", fills(n)),
    }
}

fn sign_str(neg: bool, s: &Spec) -> &'static str {
    match (neg, s.sign) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        _ => "",
    }
}

/// Applies grouping to the integer part of a rendered (unsigned) number.
fn apply_grouping(body: &str, s: &Spec) -> String {
    match s.grouping {
        None => body.to_string(),
        Some(sep) => {
            let split = body.find(|c: char| !c.is_ascii_digit()).unwrap_or(body.len());
            format!("{}{}", group_digits(&body[..split], sep, 3), &body[split..])
        }
    }
}

fn sci(f: f64, prec: usize, upper: bool) -> String {
    let s = format!("{:.*e}", prec, f);
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let r = format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    if upper {
        r.to_uppercase()
    } else {
        r
    }
}

/// Python's 'g' presentation of a finite non-negative float.
fn general(f: f64, prec: usize, alt: bool, upper: bool, repr_like: bool) -> String {
    let p = prec.max(1);
    if f == 0.0 {
        let mut s = if alt { format!("{:.*}", p - 1, 0.0) } else { "0".to_string() };
        if repr_like && !s.contains('.') {
            s.push_str(".0");
        }
        return s;
    }
    let probe = format!("{:.*e}", p - 1, f);
    let exp: i32 = probe.split_once('e').map(|(_, e)| e.parse().unwrap_or(0)).unwrap_or(0);
    let mut s = if exp >= -4 && exp < p as i32 {
        format!("{:.*}", (p as i32 - 1 - exp).max(0) as usize, f)
    } else {
        sci(f, p - 1, upper)
    };
    if !alt {
        if let Some(epos) = s.find(['e', 'E']) {
            let (m, e) = s.split_at(epos);
            let m = if m.contains('.') { m.trim_end_matches('0').trim_end_matches('.') } else { m };
            s = format!("{m}{e}");
        } else if s.contains('.') {
            s = s.trim_end_matches('0').trim_end_matches('.').to_string();
        }
    }
    if repr_like && !s.contains(['.', 'e', 'E']) {
        s.push_str(".0");
    }
    s
}

fn format_float(f: f64, s: &Spec) -> EResult<String> {
    let neg = f.is_sign_negative() && !f.is_nan();
    let a = f.abs();
    let upper = matches!(s.ty, Some('F' | 'E' | 'G'));
    let body = if !a.is_finite() {
        let t = if a.is_nan() { "nan" } else { "inf" };
        let t = if upper { t.to_uppercase() } else { t.to_string() };
        if s.ty == Some('%') {
            format!("{t}%")
        } else {
            t
        }
    } else {
        match s.ty {
            Some('f' | 'F') => format!("{:.*}", s.precision.unwrap_or(6), a),
            Some('e' | 'E') => sci(a, s.precision.unwrap_or(6), upper),
            Some('g' | 'G') => general(a, s.precision.unwrap_or(6), s.alt, upper, false),
            Some('%') => format!("{:.*}%", s.precision.unwrap_or(6), a * 100.0),
            None => match s.precision {
                None => float_repr(a),
                Some(p) => general(a, p, s.alt, false, true),
            },
            Some(t) => return Err(err(format!("Unknown format code '{t}' for object of type 'float'"))),
        }
    };
    let body = if a.is_finite() { apply_grouping(&body, s) } else { body };
    Ok(pad(sign_str(neg, s), &body, s, '>'))
}

fn format_int(i: i64, s: &Spec) -> EResult<String> {
    let neg = i < 0;
    let a = i.unsigned_abs();
    let (body, every) = match s.ty {
        None | Some('d' | 'n') => (a.to_string(), 3),
        Some('b') => (format!("{}{a:b}", if s.alt { "0b" } else { "" }), 4),
        Some('o') => (format!("{}{a:o}", if s.alt { "0o" } else { "" }), 4),
        Some('x') => (format!("{}{a:x}", if s.alt { "0x" } else { "" }), 4),
        Some('X') => (format!("{}{a:X}", if s.alt { "0X" } else { "" }), 4),
        Some('c') => {
            let c = u32::try_from(i).ok().and_then(char::from_u32).ok_or_else(|| err("%c arg not in range"))?;
            return Ok(pad("", &c.to_string(), s, '<'));
        }
        Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%') => return format_float(i as f64, s),
        Some(t) => return Err(err(format!("Unknown format code '{t}' for object of type 'int'"))),
    };
    if s.precision.is_some() {
        return Err(err("Precision not allowed in integer format specifier"));
    }
    let body = match s.grouping {
        Some(sep) => {
            let prefix_len = if s.alt && s.ty.is_some_and(|t| t != 'd' && t != 'n') { 2 } else { 0 };
            format!("{}{}", &body[..prefix_len], group_digits(&body[prefix_len..], sep, every))
        }
        None => body,
    };
    Ok(pad(sign_str(neg, s), &body, s, '>'))
}

/// Python's `format(value, spec)`.
pub fn format_value(v: &PyVal, spec: &str) -> EResult<String> {
    if spec.is_empty() {
        return Ok(to_str(v));
    }
    let s = parse_spec(spec)?;
    match v {
        PyVal::Bool(b) if s.ty.is_none() => Ok(pad("", if *b { "True" } else { "False" }, &s, '<')),
        PyVal::Int(_) | PyVal::Bool(_) => format_int(v.as_int().unwrap_or(0), &s),
        PyVal::Float(f) => format_float(*f, &s),
        PyVal::Str(text) => {
            if !matches!(s.ty, None | Some('s')) {
                return Err(err(format!("Unknown format code '{}' for object of type 'str'", s.ty.unwrap_or('?'))));
            }
            if s.sign.is_some() {
                return Err(err("Sign not allowed in string format specifier"));
            }
            let body: String = match s.precision {
                Some(p) => text.chars().take(p).collect(),
                None => text.to_string(),
            };
            Ok(pad("", &body, &s, '<'))
        }
        other => Err(err(format!("unsupported format string passed to {}.__format__", other.type_name()))),
    }
}

/// Python's `round(x, ndigits)` for floats: correctly rounded, ties to even.
pub fn round_float(f: f64, nd: i64) -> f64 {
    if !f.is_finite() {
        return f;
    }
    if nd >= 0 {
        if nd > 330 {
            return f;
        }
        format!("{:.*}", nd as usize, f).parse().unwrap_or(f)
    } else {
        let p = 10f64.powi((-nd).min(330) as i32);
        let r = (f / p).round_ties_even() * p;
        if r == 0.0 {
            0.0f64.copysign(f)
        } else {
            r
        }
    }
}
