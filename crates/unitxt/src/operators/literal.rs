//! A parser for Python literals, as accepted by `ast.literal_eval`: strings (with prefixes,
//! escapes, triple quotes and implicit concatenation), ints (decimal, hex, octal, binary,
//! with `_`), floats, `True`/`False`/`None`, lists, tuples, dicts and sets, and unary signs.
//! Tuples and sets become lists; dict keys that are not strings become their `str()`.

use crate::error::{Error, Result};
use crate::value::{Instance, Value};

/// Parses the Python literal `src` into a value. Errors (kind `Invalid`) on anything that
/// `ast.literal_eval` would reject, and on bytes and complex numbers, which have no JSON form.
pub fn literal_eval(src: &str) -> Result<Value> {
    let mut p = Parser { s: src.chars().collect(), i: 0, depth: 0 };
    let v = p.top()?;
    p.ws(true);
    if p.i < p.s.len() {
        return Err(p.err("unexpected text after the literal"));
    }
    Ok(v)
}

struct Parser {
    s: Vec<char>,
    i: usize,
    depth: usize,
}

impl Parser {
    fn err(&self, what: &str) -> Error {
        Error::invalid(format!("malformed Python literal at character {}: {what}", self.i))
    }

    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }

    /// Skips spaces (and newlines when inside brackets) and comments.
    fn ws(&mut self, newlines: bool) {
        while let Some(c) = self.peek() {
            if c == ' ' || c == '\t' || c == '\x0c' || (newlines && (c == '\n' || c == '\r')) {
                self.i += 1;
            } else if c == '\\' && matches!(self.s.get(self.i + 1), Some('\n')) {
                self.i += 2;
            } else if c == '#' {
                while self.peek().is_some_and(|c| c != '\n') {
                    self.i += 1;
                }
            } else {
                break;
            }
        }
    }

    fn top(&mut self) -> Result<Value> {
        self.ws(false);
        let first = self.value()?;
        self.ws(false);
        if self.peek() != Some(',') {
            return Ok(first);
        }
        // A bare tuple: `1, 2`.
        let mut items = vec![first];
        while self.peek() == Some(',') {
            self.i += 1;
            self.ws(false);
            if self.i >= self.s.len() {
                break;
            }
            items.push(self.value()?);
            self.ws(false);
        }
        Ok(Value::Array(items))
    }

    fn value(&mut self) -> Result<Value> {
        self.depth += 1;
        if self.depth > 200 {
            return Err(self.err("nesting too deep"));
        }
        let v = self.value_inner();
        self.depth -= 1;
        v
    }

    fn value_inner(&mut self) -> Result<Value> {
        self.ws(true);
        let c = self.peek().ok_or_else(|| self.err("unexpected end"))?;
        match c {
            '[' => {
                self.i += 1;
                Ok(Value::Array(self.seq(']')?.0))
            }
            '(' => {
                self.i += 1;
                let (items, trailing_comma) = self.seq(')')?;
                if items.len() == 1 && !trailing_comma {
                    Ok(items.into_iter().next().unwrap_or(Value::Null))
                } else {
                    Ok(Value::Array(items))
                }
            }
            '{' => {
                self.i += 1;
                self.dict_or_set()
            }
            '+' | '-' => {
                self.i += 1;
                let v = self.value()?;
                match (c, v) {
                    ('+', v @ Value::Number(_)) => Ok(v),
                    ('-', Value::Number(n)) => {
                        if let Some(i) = n.as_i64() {
                            Ok(Value::from(-i))
                        } else if let Some(u) = n.as_u64() {
                            if u == 1u64 << 63 {
                                Ok(Value::from(i64::MIN))
                            } else {
                                Err(self.err("integer too large"))
                            }
                        } else {
                            crate::py::ops::float_value(-n.as_f64().unwrap_or(f64::NAN))
                        }
                    }
                    _ => Err(self.err("a sign must precede a number")),
                }
            }
            '0'..='9' | '.' => self.number(),
            c if c.is_alphabetic() || c == '_' => {
                let start = self.i;
                while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    self.i += 1;
                }
                let word: String = self.s[start..self.i].iter().collect();
                if matches!(self.peek(), Some('\'' | '"')) {
                    self.i = start;
                    return self.strings();
                }
                match word.as_str() {
                    "True" => Ok(Value::Bool(true)),
                    "False" => Ok(Value::Bool(false)),
                    "None" => Ok(Value::Null),
                    _ => Err(self.err(&format!("the name {word:?} is not a literal"))),
                }
            }
            '\'' | '"' => self.strings(),
            _ => Err(self.err(&format!("unexpected character {c:?}"))),
        }
    }

    /// Items up to `close`; also tells whether the last item was followed by a comma.
    fn seq(&mut self, close: char) -> Result<(Vec<Value>, bool)> {
        let mut items = Vec::new();
        let mut trailing = false;
        loop {
            self.ws(true);
            if self.peek() == Some(close) {
                self.i += 1;
                return Ok((items, trailing));
            }
            items.push(self.value()?);
            self.ws(true);
            match self.peek() {
                Some(',') => {
                    self.i += 1;
                    trailing = true;
                }
                Some(c) if c == close => {
                    trailing = false;
                }
                _ => return Err(self.err(&format!("expected ',' or '{close}'"))),
            }
        }
    }

    fn dict_or_set(&mut self) -> Result<Value> {
        self.ws(true);
        if self.peek() == Some('}') {
            self.i += 1;
            return Ok(Value::Object(Instance::new()));
        }
        let first = self.value()?;
        self.ws(true);
        if self.peek() != Some(':') {
            // A set: kept as a list, in written order, without duplicates.
            let mut items = vec![first];
            if self.peek() == Some(',') {
                self.i += 1;
                let (rest, _) = self.seq('}')?;
                items.extend(rest);
            } else if self.peek() == Some('}') {
                self.i += 1;
            } else {
                return Err(self.err("expected ',' or '}'"));
            }
            let mut uniq: Vec<Value> = Vec::new();
            for v in items {
                if !uniq.iter().any(|u| crate::py::ops::py_eq(u, &v)) {
                    uniq.push(v);
                }
            }
            return Ok(Value::Array(uniq));
        }
        let mut m = Instance::new();
        let mut key = first;
        loop {
            self.i += 1; // ':'
            let v = self.value()?;
            m.insert(key_string(&key)?.into(), v);
            self.ws(true);
            match self.peek() {
                Some(',') => {
                    self.i += 1;
                    self.ws(true);
                    if self.peek() == Some('}') {
                        self.i += 1;
                        return Ok(Value::Object(m));
                    }
                }
                Some('}') => {
                    self.i += 1;
                    return Ok(Value::Object(m));
                }
                _ => return Err(self.err("expected ',' or '}'")),
            }
            key = self.value()?;
            self.ws(true);
            if self.peek() != Some(':') {
                return Err(self.err("expected ':'"));
            }
        }
    }

    fn number(&mut self) -> Result<Value> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') {
            let c = self.s[self.i];
            self.i += 1;
            if (c == 'e' || c == 'E') && matches!(self.peek(), Some('+' | '-')) && !self.is_radix(start) {
                self.i += 1;
            }
        }
        let text: String = self.s[start..self.i].iter().collect();
        let bad = || self.err(&format!("invalid number {text:?}"));
        if text.contains("__") || text.ends_with('_') {
            return Err(bad());
        }
        let lower = text.to_ascii_lowercase();
        if lower.ends_with('j') {
            return Err(Error::unsupported("complex numbers have no JSON form"));
        }
        let t = lower.replace('_', "");
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
            if let Some(d) = t.strip_prefix(prefix) {
                return i64::from_str_radix(d, radix).map(Value::from).map_err(|_| bad());
            }
        }
        if t.chars().all(|c| c.is_ascii_digit()) {
            if t.len() > 1 && t.starts_with('0') && t.chars().any(|c| c != '0') {
                return Err(bad());
            }
            return match t.parse::<i64>() {
                Ok(i) => Ok(Value::from(i)),
                Err(_) => t.parse::<u64>().map(Value::from).map_err(|_| Error::unsupported("integer too large")),
            };
        }
        let ok = t.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '+' | '-'));
        let f: f64 = if ok { t.parse().map_err(|_| bad())? } else { return Err(bad()) };
        crate::py::ops::float_value(f)
    }

    fn is_radix(&self, start: usize) -> bool {
        self.s.get(start) == Some(&'0') && matches!(self.s.get(start + 1), Some('x' | 'X'))
    }

    /// One or more adjacent string literals, concatenated.
    fn strings(&mut self) -> Result<Value> {
        let mut out = String::new();
        loop {
            out.push_str(&self.string()?);
            self.ws(self.depth > 1);
            let save = self.i;
            let mut j = self.i;
            while self.s.get(j).is_some_and(|c| c.is_ascii_alphabetic()) && j - save < 2 {
                j += 1;
            }
            if matches!(self.s.get(j), Some('\'' | '"')) {
                continue;
            }
            self.i = save;
            return Ok(Value::String(out.into()));
        }
    }

    fn string(&mut self) -> Result<String> {
        let mut raw = false;
        while let Some(c) = self.peek() {
            match c.to_ascii_lowercase() {
                'r' => raw = true,
                'u' => {}
                'b' => return Err(Error::unsupported("bytes literals have no JSON form")),
                'f' => return Err(self.err("f-strings are not literals")),
                '\'' | '"' => break,
                _ => return Err(self.err("invalid string prefix")),
            }
            self.i += 1;
        }
        let q = self.peek().ok_or_else(|| self.err("unexpected end"))?;
        let triple = self.s.get(self.i + 1) == Some(&q) && self.s.get(self.i + 2) == Some(&q);
        self.i += if triple { 3 } else { 1 };
        let mut out = String::new();
        loop {
            let c = self.peek().ok_or_else(|| self.err("unterminated string"))?;
            if c == q {
                if !triple {
                    self.i += 1;
                    return Ok(out);
                }
                if self.s.get(self.i + 1) == Some(&q) && self.s.get(self.i + 2) == Some(&q) {
                    self.i += 3;
                    return Ok(out);
                }
            }
            if (c == '\n' || c == '\r') && !triple {
                return Err(self.err("unterminated string"));
            }
            self.i += 1;
            if c != '\\' {
                out.push(c);
                continue;
            }
            let e = self.peek().ok_or_else(|| self.err("unterminated string"))?;
            if raw {
                out.push('\\');
                out.push(e);
                self.i += 1;
                continue;
            }
            self.i += 1;
            match e {
                '\n' => {}
                '\\' => out.push('\\'),
                '\'' => out.push('\''),
                '"' => out.push('"'),
                'a' => out.push('\x07'),
                'b' => out.push('\x08'),
                'f' => out.push('\x0c'),
                'n' => out.push('\n'),
                'r' => out.push('\r'),
                't' => out.push('\t'),
                'v' => out.push('\x0b'),
                '0'..='7' => {
                    let mut n = e.to_digit(8).unwrap_or(0);
                    for _ in 0..2 {
                        match self.peek().and_then(|c| c.to_digit(8)) {
                            Some(d) => {
                                n = n * 8 + d;
                                self.i += 1;
                            }
                            None => break,
                        }
                    }
                    out.push(char::from_u32(n).ok_or_else(|| self.err("invalid octal escape"))?);
                }
                'x' | 'u' | 'U' => {
                    let len = match e {
                        'x' => 2,
                        'u' => 4,
                        _ => 8,
                    };
                    let hex: String = self.s.get(self.i..self.i + len).map(|h| h.iter().collect()).unwrap_or_default();
                    let n = u32::from_str_radix(&hex, 16)
                        .ok()
                        .filter(|_| hex.len() == len)
                        .ok_or_else(|| self.err("truncated escape"))?;
                    self.i += len;
                    out.push(char::from_u32(n).ok_or_else(|| self.err("escape is not a valid character"))?);
                }
                'N' => return Err(Error::unsupported("\\N{...} escapes are not supported")),
                other => {
                    out.push('\\');
                    out.push(other);
                }
            }
        }
    }
}

fn key_string(k: &Value) -> Result<String> {
    match k {
        Value::String(s) => Ok(s.as_str().to_owned()),
        Value::Array(_) | Value::Object(_) => Err(Error::invalid("unhashable dict key in literal")),
        other => Ok(crate::py::repr::str(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    // Expected values are what Python 3.11's ast.literal_eval returns (tuples shown as lists).
    #[test]
    fn parses_python_literals() {
        assert_eq!(literal_eval("['a', \"b\", 'it\\'s']").unwrap(), json!(["a", "b", "it's"]));
        assert_eq!(literal_eval("{'x': [1, -2.5, None], 'y': (True,)}").unwrap(), json!({"x": [1, -2.5, null], "y": [true]}));
        assert_eq!(literal_eval("(1)").unwrap(), json!(1));
        assert_eq!(literal_eval("()").unwrap(), json!([]));
        assert_eq!(literal_eval("1, 2").unwrap(), json!([1, 2]));
        assert_eq!(literal_eval("'a' 'b'").unwrap(), json!("ab"));
        assert_eq!(literal_eval("r'\\n' + ''").is_err(), true);
        assert_eq!(literal_eval("r'\\n'").unwrap(), json!("\\n"));
        assert_eq!(literal_eval("'\\x41\\u00e9\\n\\q'").unwrap(), json!("Aé\n\\q"));
        assert_eq!(literal_eval("[\n 1_000, 0x1f, 1e3, .5,\n]").unwrap(), json!([1000, 31, 1000.0, 0.5]));
        assert_eq!(literal_eval("'''tri\nple'''").unwrap(), json!("tri\nple"));
        assert_eq!(literal_eval("{1, 2, 1}").unwrap(), json!([1, 2]));
        assert!(literal_eval("foo").is_err());
        assert!(literal_eval("[1, 2").is_err());
        assert!(literal_eval("len('a')").is_err());
        assert!(literal_eval("012").is_err());
    }
}
