//! Python's `str.format(**kwargs)` for the format strings of formats (`demo_format`,
//! `model_input_format`): literal text with `{{`/`}}` escapes and `{name}` fields, optionally
//! `{name[key]}` item access and the `!s` / `!r` conversions. Format specs (`{name:>10}`),
//! attribute access and positional fields are not supported and give an error.

use crate::error::{Error, Result};
use crate::value::Value;

/// Formats `template` with the keyword arguments `args` (name, value), as Python's
/// `template.format(**args)`: values are inserted with `str()`. Errors (naming the template)
/// on malformed braces, names that are not in `args`, positional fields and format specs.
pub fn format_kwargs(template: &str, args: &[(&str, &Value)]) -> Result<String> {
    let err = |msg: String| Error::invalid(format!("{msg} in format string {template:?}"));
    let t: Vec<char> = template.chars().collect();
    let mut out = String::with_capacity(template.len());
    let mut i = 0;
    while i < t.len() {
        let c = t[i];
        if c == '}' {
            if t.get(i + 1) == Some(&'}') {
                out.push('}');
                i += 2;
                continue;
            }
            return Err(err("single '}' encountered".into()));
        }
        if c != '{' {
            out.push(c);
            i += 1;
            continue;
        }
        if t.get(i + 1) == Some(&'{') {
            out.push('{');
            i += 2;
            continue;
        }
        if i + 1 >= t.len() {
            return Err(err("single '{' encountered".into()));
        }
        // A replacement field: up to the matching '}' (nested braces belong to a spec).
        let start = i + 1;
        let mut depth = 1;
        let mut j = start;
        while j < t.len() {
            match t[j] {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        if j >= t.len() {
            return Err(err("expected '}' before end of string".into()));
        }
        let field: String = t[start..j].iter().collect();
        out.push_str(&render_field(&field, args).map_err(|e| err(e.message))?);
        i = j + 1;
    }
    Ok(out)
}

/// Renders one replacement field `name[key]!conv:spec` (without braces).
fn render_field(field: &str, args: &[(&str, &Value)]) -> Result<String> {
    // Field name ends at the first '!' or ':' outside brackets.
    let chars: Vec<char> = field.chars().collect();
    let mut k = 0;
    let mut in_bracket = false;
    while k < chars.len() {
        match chars[k] {
            '[' => in_bracket = true,
            ']' => in_bracket = false,
            '!' | ':' if !in_bracket => break,
            _ => {}
        }
        k += 1;
    }
    let name: String = chars[..k].iter().collect();
    let rest: String = chars[k..].iter().collect();
    let (conversion, spec) = if let Some(r) = rest.strip_prefix('!') {
        let mut it = r.chars();
        let conv = it
            .next()
            .ok_or_else(|| Error::invalid("end of string while looking for conversion specifier"))?;
        let after: String = it.collect();
        if !after.is_empty() && !after.starts_with(':') {
            return Err(Error::invalid("expected ':' after conversion specifier"));
        }
        (Some(conv), after.strip_prefix(':').unwrap_or("").to_string())
    } else {
        (None, rest.strip_prefix(':').unwrap_or("").to_string())
    };

    // First part of the name, then `[key]` accessors.
    let first_end = name.find(['.', '[']).unwrap_or(name.len());
    let first = &name[..first_end];
    if first.is_empty() || first.chars().all(|c| c.is_ascii_digit()) {
        return Err(Error::invalid(format!(
            "positional field {{{field}}} (formats only receive named values)"
        )));
    }
    let mut value: Value = args
        .iter()
        .find(|(n, _)| *n == first)
        .map(|(_, v)| (*v).clone())
        .ok_or_else(|| {
            Error::not_found(format!(
                "field {{{first}}} is not available (available: {})",
                args.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            ))
        })?;
    let mut rest = &name[first_end..];
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('[') {
            let close = r.find(']').ok_or_else(|| Error::invalid("missing ']' in format field"))?;
            let key = &r[..close];
            value = index(&value, key)?;
            rest = &r[close + 1..];
        } else {
            return Err(Error::unsupported(format!("attribute access in format field {{{field}}}")));
        }
    }
    let text = match conversion {
        None | Some('s') => super::py_str(&value),
        Some('r') => crate::py::repr::repr(&value),
        Some(c) => return Err(Error::unsupported(format!("conversion !{c} in format field {{{field}}}"))),
    };
    if !spec.is_empty() {
        return Err(Error::unsupported(format!("format spec {spec:?} in format field {{{field}}}")));
    }
    Ok(text)
}

/// Python's `value[key]` in a format field: digits index lists (and are int keys, never found
/// in JSON dicts); other keys look up dicts.
fn index(value: &Value, key: &str) -> Result<Value> {
    let is_int = !key.is_empty() && key.chars().all(|c| c.is_ascii_digit());
    let found = match value {
        Value::Array(a) if is_int => key.parse::<usize>().ok().and_then(|i| a.get(i)).cloned(),
        Value::Object(m) if !is_int => m.get(key).cloned(),
        _ => None,
    };
    found.ok_or_else(|| Error::not_found(format!("no item [{key}] in {}", crate::artifact::short(value))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // Expected values from Python 3.11 str.format.
    #[test]
    fn formats_like_python() {
        let a = json!("x");
        let b = json!({"k": [1, "two"]});
        let args = [("a", &a), ("b", &b)];
        assert_eq!(format_kwargs("{{{a}}}-{a}}}{{", &args).unwrap(), "{x}-x}{");
        assert_eq!(format_kwargs("{b[k][1]}/{a!s}", &args).unwrap(), "two/x");
        assert_eq!(format_kwargs("\\N{a}\\N", &args).unwrap(), "\\Nx\\N");
        assert!(format_kwargs("{c}", &args).is_err());
        assert!(format_kwargs("{}", &args).is_err());
        assert!(format_kwargs("{0}", &args).is_err());
        assert!(format_kwargs("a}b", &args).is_err());
        assert!(format_kwargs("ab{", &args).is_err());
        assert!(format_kwargs("{a", &args).is_err());
        assert!(format_kwargs("{a:>3}", &args).is_err());
    }
}
