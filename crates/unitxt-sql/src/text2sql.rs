//! The string helpers of Unitxt 1.26.10's `unitxt/text2sql_utils.py` that need neither sqlglot
//! nor sqlparse.

use std::sync::LazyLock;

use regex::Regex;

use crate::pystr;

/// Unitxt's `extract_sql_from_text(text)`: the first SQL query in a model's answer, stripped.
///
/// In order, the first match of: the body of a fenced ```` ```sql ```` block; a statement that
/// starts with `SELECT`, `INSERT`, `UPDATE`, `DELETE` or `WITH` at the start of the text, after a
/// newline or after a colon, up to its first `;`; the same without the `;`, to the end of the
/// text. Case-insensitive; `""` when nothing matches.
pub fn extract_sql_from_text(text: &str) -> String {
    static FENCED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?is)```sql\s+(.*?)```").expect("valid regex"));
    static WITH_SEMICOLON: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?is)(?:\A|\n|:\s*)((?:SELECT|INSERT|UPDATE|DELETE|WITH)\s+.*?;)").expect("valid regex")
    });
    static TO_END: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?is)(?:\A|\n|:\s*)((?:SELECT|INSERT|UPDATE|DELETE|WITH)\s+.*)").expect("valid regex")
    });
    for re in [&*FENCED, &*WITH_SEMICOLON, &*TO_END] {
        if let Some(m) = re.captures(text).and_then(|c| c.get(1)) {
            return pystr::strip(m.as_str()).to_string();
        }
    }
    String::new()
}

/// Unitxt's `sql_exact_match(sql1, sql2)`: equal after stripping whitespace, then trailing `;`s,
/// collapsing each run of whitespace to one space, and upper-casing.
pub fn sql_exact_match(sql1: &str, sql2: &str) -> bool {
    fn normalize(s: &str) -> String {
        let s = pystr::strip(s).trim_end_matches(';');
        let mut out = String::with_capacity(s.len());
        let mut in_space = false;
        for c in s.chars() {
            if pystr::is_space(c) {
                if !in_space {
                    out.push(' ');
                }
                in_space = true;
            } else {
                out.push(c);
                in_space = false;
            }
        }
        pystr::upper(&out)
    }
    normalize(sql1) == normalize(sql2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every prediction of the metric's oracle, extracted by Unitxt (`testdata/text2sql_gen.py`).
    #[test]
    fn extraction_and_exact_match_are_unitxts() {
        let path = format!("{}/testdata/text2sql.json", env!("CARGO_MANIFEST_DIR"));
        let data: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut bad = Vec::new();
        for case in data["extract"].as_array().unwrap() {
            let (text, want) = (case[0].as_str().unwrap(), case[1].as_str().unwrap());
            if extract_sql_from_text(text) != want {
                bad.push(format!("extract {text:?}: want {want:?}, got {:?}", extract_sql_from_text(text)));
            }
        }
        for case in data["exact_match"].as_array().unwrap() {
            let (a, b, want) = (case[0].as_str().unwrap(), case[1].as_str().unwrap(), case[2].as_bool().unwrap());
            if sql_exact_match(a, b) != want {
                bad.push(format!("exact_match {a:?} {b:?}: want {want}"));
            }
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }
}
