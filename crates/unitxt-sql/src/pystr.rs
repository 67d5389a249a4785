//! The few Python `str` behaviours the reproduced libraries depend on.

/// Python's `str.isspace()` for one character: Unicode whitespace plus the four separators
/// U+001C..U+001F, which Python counts and Rust's `char::is_whitespace` does not.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()` with no argument.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// Python's `str.upper()` (full Unicode case mapping, `ß` to `SS`).
pub fn upper(s: &str) -> String {
    s.to_uppercase()
}

/// Python's `str.lower()`.
pub fn lower(s: &str) -> String {
    s.to_lowercase()
}

/// Python's `str.isdigit()` for one character: ASCII digits, and other characters Rust counts as
/// numeric (an approximation of Python's Digit and Decimal numeric types beyond ASCII).
pub fn is_digit(c: char) -> bool {
    c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric())
}

/// Python's `str.isidentifier()` for a single character: a letter or `_` (Rust's
/// `is_alphabetic` stands in for the XID_Start property).
pub fn is_identifier_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

/// Whether Python's `int(s, base)` accepts `s` (base 2 or 16): surrounding whitespace, a sign,
/// the base's `0x`/`0b` prefix, and single underscores between digits are allowed.
pub fn int_parses(s: &str, base: u32) -> bool {
    let s = strip(s);
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let prefix = if base == 16 { ["0x", "0X"] } else { ["0b", "0B"] };
    let (s, after_prefix) = match prefix.iter().find_map(|p| s.strip_prefix(p)) {
        Some(rest) => (rest, true),
        None => (s, false),
    };
    let mut prev_digit = after_prefix;
    let mut any = false;
    for c in s.chars() {
        if c == '_' {
            if !prev_digit {
                return false;
            }
            prev_digit = false;
        } else if c.is_digit(base) {
            prev_digit = true;
            any = true;
        } else {
            return false;
        }
    }
    any && prev_digit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_parses_follows_python() {
        for (s, ok) in [("0x1F", true), ("1f", true), ("0x_1f", true), ("1__f", false), ("_1", false), ("1_", false), ("", false), ("0x", false), (" ab ", true), ("-ab", true), ("g", false)] {
            assert_eq!(int_parses(s, 16), ok, "{s:?}");
        }
    }
}
