//! Parser of Unitxt's query strings: recipes (`card=cards.wnli,num_demos=3`) and artifact
//! names with overwrites (`templates.x[instruction=Answer,postprocessors=[a,b]]`).
//!
//! Grammar (Unitxt's `parsing_utils`):
//! `query -> name | name [overwrites]`, `overwrites -> assignment (, assignment)*`,
//! `assignment -> name = term`, `term -> [term (, term)*] | {overwrites} | name_value | query`.
//! A `name_value` runs to the next of `[],{}=` and is read as `true`/`false` (any case), `None`,
//! an int, a float (`3.5`), or else a string. A nested `name[...]` term is kept as the raw string,
//! to be resolved when the field is built.

use indexmap::IndexMap;

use crate::error::{Error, Result};
use crate::value::Value;

fn err(msg: String) -> Error {
    Error::invalid(msg)
}

/// How deep lists, dicts and nested `name[...]` terms may nest in one query. Unitxt's recursive
/// parser stops at Python's recursion limit (a `RecursionError`); this parser recurses too, so it
/// stops here with an error, well before any thread's stack runs out.
pub const MAX_QUERY_DEPTH: usize = 100;

/// The error for a query nested deeper than [`MAX_QUERY_DEPTH`].
fn too_deep(depth: usize) -> Result<()> {
    if depth > MAX_QUERY_DEPTH {
        return Err(err(format!("the query nests lists, dicts or overwrites more than {MAX_QUERY_DEPTH} levels deep")));
    }
    Ok(())
}

fn consume_name_val(s: &str) -> (Value, &str) {
    let end = s.find(|c| "[],{}=".contains(c)).unwrap_or(s.len());
    let raw = s[..end].trim();
    let rest = s[end..].trim();
    let lower = raw.to_lowercase();
    if lower == "true" {
        return (Value::Bool(true), rest);
    }
    if lower == "false" {
        return (Value::Bool(false), rest);
    }
    if raw == "None" {
        return (Value::Null, rest);
    }
    let (neg, body) = match raw.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, raw),
    };
    let is_digits = |t: &str| !t.is_empty() && t.chars().all(|c| c.is_ascii_digit());
    if is_digits(body) {
        if let Ok(i) = body.parse::<i64>() {
            return (Value::from(if neg { -i } else { i }), rest);
        }
    }
    if body.matches('.').count() == 1 && is_digits(&body.replacen('.', "", 1)) {
        if let Ok(f) = body.parse::<f64>() {
            return (Value::from(if neg { -f } else { f }), rest);
        }
    }
    (Value::String(raw.into()), rest)
}

fn is_name_like(v: &Value) -> bool {
    matches!(v, Value::String(s) if !s.is_empty())
}

fn consume_name(s: &str) -> Result<(String, &str)> {
    let (v, rest) = consume_name_val(s);
    match v {
        Value::String(n) if !n.is_empty() => Ok((n.into_string(), rest)),
        _ => Err(err(format!("malformed name at the beginning of: {s}"))),
    }
}

fn consume_term(s: &str, depth: usize) -> Result<(Value, &str)> {
    too_deep(depth)?;
    if let Some(inner) = s.strip_prefix('[') {
        let mut items = Vec::new();
        let (t, mut rest) = consume_term(inner.trim(), depth + 1)?;
        items.push(t);
        while let Some(r) = rest.strip_prefix(',') {
            let (t, r2) = consume_term(r.trim(), depth + 1)?;
            items.push(t);
            rest = r2;
        }
        let rest = rest.strip_prefix(']').ok_or_else(|| err(format!("malformed list in: {s}")))?;
        return Ok((Value::Array(items), rest.trim()));
    }
    if let Some(inner) = s.strip_prefix('{') {
        let (items, rest) = consume_overwrites(inner.trim(), '}', depth + 1)?;
        let rest = rest.strip_prefix('}').ok_or_else(|| err(format!("malformed dict in: {s}")))?;
        return Ok((Value::Object(items.into_iter().collect()), rest.trim()));
    }
    let (v, rest) = consume_name_val(s);
    if is_name_like(&v) && rest.starts_with('[') {
        let (_, r) = consume_overwrites(rest[1..].trim(), ']', depth + 1)?;
        let r = r.trim().strip_prefix(']').ok_or_else(|| err(format!("malformed query as a term in: {s}")))?;
        let r = r.trim();
        let consumed = &s[..s.len() - r.len()];
        return Ok((Value::String(consumed.trim().into()), r));
    }
    Ok((v, rest))
}

fn consume_assignment(s: &str, depth: usize) -> Result<((String, Value), &str)> {
    let (name, rest) = consume_name(s)?;
    let rest = rest.strip_prefix('=').ok_or_else(|| err(format!("malformed assignment in: {s}")))?;
    let (term, rest) = consume_term(rest.trim(), depth)?;
    let empty = match &term {
        Value::String(x) => x.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    };
    if empty {
        return Err(err(format!("malformed assigned value in: {s}")));
    }
    Ok(((name, term), rest))
}

fn consume_overwrites(s: &str, follower: char, depth: usize) -> Result<(IndexMap<String, Value>, &str)> {
    too_deep(depth)?;
    let mut out = IndexMap::new();
    if s.starts_with(follower) {
        return Ok((out, s));
    }
    let ((k, v), mut rest) = consume_assignment(s.trim(), depth)?;
    out.insert(k, v);
    while let Some(r) = rest.strip_prefix(',') {
        let ((k, v), r2) = consume_assignment(r.trim(), depth)?;
        out.insert(k, v);
        rest = r2;
    }
    Ok((out, rest))
}

/// Parses `key=value,key=value` (a recipe) into an ordered map. Errors on malformed input,
/// quoting the part that could not be read.
pub fn parse_key_values(args: &str) -> Result<IndexMap<String, Value>> {
    let s = args.trim();
    if s.is_empty() {
        return Ok(IndexMap::new());
    }
    let (map, rest) = consume_overwrites(s, ' ', 0)?;
    if !rest.trim().is_empty() {
        return Err(err(format!("illegal key-value structure in {args:?}: cannot read {rest:?}")));
    }
    Ok(map)
}

/// Splits `name[overwrites]` into the name and the parsed overwrites (Unitxt's
/// `separate_inside_and_outside_square_brackets`). A string with no brackets, or whose first
/// `=` or `,` comes before the first `[`, is returned whole with no overwrites.
pub fn split_name_and_overwrites(s: &str) -> Result<(String, Option<IndexMap<String, Value>>)> {
    let start = s.find('[');
    let end = s.rfind(']');
    match (start, end) {
        (None, None) => return Ok((s.to_string(), None)),
        (Some(a), Some(b)) if a < b => {}
        _ => return Err(err(format!("illegal structure: unmatched square brackets in {s:?}"))),
    }
    let t = s.trim();
    let lb = t.find('[').unwrap();
    if t.find('=').is_some_and(|i| i < lb) || t.find(',').is_some_and(|i| i < lb) {
        return Ok((t.to_string(), None));
    }
    let (name, rest) = consume_name(t)?;
    let rest = rest.strip_prefix('[').ok_or_else(|| err(format!("malformed query {s:?}")))?;
    let (ov, rest) = consume_overwrites(rest.trim(), ']', 0)?;
    let rest = rest.strip_prefix(']').ok_or_else(|| err(format!("malformed query {s:?}: missing ]")))?;
    if !rest.trim().is_empty() {
        return Err(err(format!("malformed end of query: excessive text after the closing ] in {s:?}")));
    }
    Ok((name, Some(ov)))
}

/// Whether `name` is a legal catalog name: word characters and dots only.
pub fn is_legal_catalog_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn parses_recipe() {
        let m = parse_key_values(
            "card=cards.wnli,template=templates.x[instruction=Hi there,postprocessors=[a,b]],num_demos=3,loader_limit=-2,f=0.5,b=True,n=None,l=[1,2]",
        )
        .unwrap();
        assert_eq!(m["card"], json!("cards.wnli"));
        assert_eq!(m["template"], json!("templates.x[instruction=Hi there,postprocessors=[a,b]]"));
        assert_eq!(m["num_demos"], json!(3));
        assert_eq!(m["loader_limit"], json!(-2));
        assert_eq!(m["f"], json!(0.5));
        assert_eq!(m["b"], json!(true));
        assert_eq!(m["n"], json!(null));
        assert_eq!(m["l"], json!([1, 2]));
    }

    #[test]
    fn splits_name_and_overwrites() {
        let (n, o) = split_name_and_overwrites("templates.x[a=1,b={c=d}]").unwrap();
        assert_eq!(n, "templates.x");
        assert_eq!(crate::value::to_value(o.unwrap()).unwrap(), json!({"a": 1, "b": {"c": "d"}}));
        assert_eq!(split_name_and_overwrites("cards.sst2").unwrap(), ("cards.sst2".into(), None));
        assert!(split_name_and_overwrites("a[b=1").is_err());
        assert!(parse_key_values("card=").is_err());
        assert!(parse_key_values("card").is_err());
    }

    /// Deep nesting is an error, not a stack overflow (a recipe of 20,000 `[` aborted the
    /// process before); nesting up to the limit parses.
    #[test]
    fn deep_nesting_is_an_error() {
        for q in [format!("card=x,l={}", "[".repeat(20_000)), format!("card=x,t=a{}", "[b=c".repeat(20_000)), format!("d={}", "{a=".repeat(20_000))] {
            let e = parse_key_values(&q).unwrap_err();
            assert!(e.to_string().contains("more than 100 levels deep"), "{e}");
        }
        let e = split_name_and_overwrites(&format!("templates.x[a={}1{}]", "[".repeat(5000), "]".repeat(5000))).unwrap_err();
        assert!(e.to_string().contains("levels deep"), "{e}");
        let ok = format!("l={}1{}", "[".repeat(100), "]".repeat(100));
        let mut v = &parse_key_values(&ok).unwrap()["l"];
        for _ in 0..100 {
            v = &v[0];
        }
        assert_eq!(v, &json!(1));
    }
}
