//! `load_iob` (Unitxt's `LoadIOB`): named-entity data in IOB / CoNLL-U style files, one token
//! a line, sentences separated by blank lines, read as the `conllu` package reads them.
//!
//! Each sentence becomes `{"idx", "text", "tokens", "ner_tags", "annotator"}`:
//! - `idx`: the `# sent_id = ...` comment, else the sentence's position (as a string);
//! - `text`: the `# text = ...` comment, else the tokens joined by spaces;
//! - `tokens`, `ner_tags`: the `token` and `tag` columns of every line; with `fix_tags` (the
//!   default) a tag containing `OTH`, or `B-O`, becomes `O`;
//! - `annotator`: the `annotator` column, `""` where a line has none.
//!
//! Columns are `column_names` (default `id token tag misc annotator`), split at a tab or at two
//! or more spaces. Errors, as `conllu` raises them: a line with one column, a line without a
//! `token` or `tag` column, an `id` that is not an integer, a range `a-b` with `b >= a`, or a
//! decimal `a.b`. Remote files (URLs) are not read: that needs network.

use std::path::Path;

use indexmap::IndexMap;
use serde::Deserialize;

use super::formats::lazy;
use super::{add_policy, effective_limit, limit_stream, Loader};
use crate::py::ops::py_strip;
use crate::error::{Error, Result};
use crate::stream::{MultiStream, Stream};
use crate::value::{Instance, Value};

fn default_columns() -> Vec<String> {
    ["id", "token", "tag", "misc", "annotator"].map(String::from).to_vec()
}

fn yes() -> bool {
    true
}

/// Unitxt's `LoadIOB` (see the module doc).
#[derive(Debug, Clone, Deserialize)]
pub struct LoadIOB {
    /// `files`: split name to file path.
    pub files: IndexMap<String, String>,
    /// `column_names`: the name of each column, in order.
    #[serde(default = "default_columns")]
    pub column_names: Vec<String>,
    /// `fix_tags`: map tags containing `OTH`, and `B-O`, to `O` (default true).
    #[serde(default = "yes")]
    pub fix_tags: bool,
    /// `encoding`: only UTF-8 (the default) is read.
    #[serde(default)]
    pub encoding: Option<String>,
    /// `loader_limit`: the most sentences per split.
    #[serde(default)]
    pub loader_limit: Option<usize>,
    /// `data_classification_policy` (default `["proprietary"]`, as for local files).
    #[serde(default)]
    pub data_classification_policy: Option<Vec<String>>,
}

impl Loader for LoadIOB {
    fn load(&self, loader_limit: Option<usize>) -> Result<MultiStream> {
        if let Some(e) = self.encoding.as_deref().filter(|e| !matches!(e.to_ascii_lowercase().replace('_', "-").as_str(), "utf-8" | "utf8")) {
            return Err(Error::unsupported(format!("load_iob: encoding {e:?} is not supported (UTF-8 only)")));
        }
        let limit = effective_limit(loader_limit, self.loader_limit)?;
        let mut ms = MultiStream::new();
        for (split, file) in &self.files {
            let (path, me) = (super::files::local_path(file)?, self.clone());
            let stream: Stream = lazy(move || Ok(Box::new(me.read(&path, limit)?.into_iter().map(Ok)) as Stream));
            ms.streams.insert(split.clone(), limit_stream(stream, limit));
        }
        let policy = self.data_classification_policy.clone().unwrap_or_else(|| vec!["proprietary".into()]);
        Ok(add_policy(ms, &policy))
    }
}

/// The columns of a token line: split at a tab or at a run of two or more spaces
/// (`re.split(r"\t| {2,}", line)`).
fn columns(line: &str) -> Vec<&str> {
    let b = line.as_bytes();
    let (mut out, mut start, mut i) = (Vec::new(), 0, 0);
    while i < b.len() {
        let sep_end = match b[i] {
            b'\t' => Some(i + 1),
            b' ' if b.get(i + 1) == Some(&b' ') => Some(i + b[i..].iter().take_while(|&&c| c == b' ').count()),
            _ => None,
        };
        match sep_end {
            Some(end) => {
                out.push(&line[start..i]);
                start = end;
                i = end;
            }
            None => i += 1,
        }
    }
    out.push(&line[start..]);
    out
}

/// Whether `v` is an id `conllu` accepts: empty or `_`, an integer without leading zeros, a
/// range `a-b` with `b >= a`, or `a.b`.
fn valid_id(v: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    let int = |s: &str| digits(s) && (s == "0" || !s.starts_with('0'));
    let pos = |s: &str| int(s) && s != "0";
    if v.is_empty() || v == "_" || int(v) {
        return true;
    }
    if let Some((a, b)) = v.split_once('-') {
        return pos(a) && pos(b) && b.parse::<u128>().ok() >= a.parse::<u128>().ok();
    }
    if let Some((a, b)) = v.split_once('.') {
        return digits(a) && pos(b);
    }
    false
}

impl LoadIOB {
    /// The sentences of one file, at most `limit`.
    fn read(&self, path: &Path, limit: Option<usize>) -> Result<Vec<Instance>> {
        let fail = |m: String| Error::invalid(format!("load_iob: failed to load IOB file {}: {m}", path.display()));
        let text = std::fs::read_to_string(path).map_err(|e| fail(e.to_string()))?;
        // Universal newlines, as Python's text files read them.
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        let col = |name: &str| self.column_names.iter().position(|c| c == name);
        let (id_col, token_col, tag_col, ann_col) = (col("id"), col("token"), col("tag"), col("annotator"));
        let mut out = Vec::new();
        let mut sentence: Vec<&str> = Vec::new();
        let mut lines = text.split_inclusive('\n').peekable();
        while let Some(line) = lines.next() {
            let blank = py_strip(line).is_empty();
            if !blank {
                sentence.push(line);
            }
            if (blank || lines.peek().is_none()) && !sentence.is_empty() {
                // `conllu` parses every sentence before the limit applies: sentences past it
                // are checked, not built.
                let build = !limit.is_some_and(|n| out.len() >= n);
                let position = out.len();
                if let Some(inst) = self.sentence(&sentence, position, (id_col, token_col, tag_col, ann_col), build).map_err(fail)? {
                    out.push(inst);
                }
                sentence.clear();
            }
        }
        Ok(out)
    }

    /// One sentence's instance from its lines (comments and tokens); with `build` false, only
    /// the checks `conllu` makes while parsing (`None` when they pass).
    fn sentence(
        &self,
        lines: &[&str],
        position: usize,
        cols: (Option<usize>, Option<usize>, Option<usize>, Option<usize>),
        build: bool,
    ) -> std::result::Result<Option<Instance>, String> {
        let (id_col, token_col, tag_col, ann_col) = cols;
        let mut meta: IndexMap<String, String> = IndexMap::new();
        let (mut tokens, mut tags, mut annotators) = (Vec::new(), Vec::new(), Vec::new());
        for raw in lines {
            let line = py_strip(raw);
            if line.is_empty() {
                continue;
            }
            if let Some(comment) = line.strip_prefix('#') {
                let (k, v) = comment.split_once('=').map_or((comment, None), |(k, v)| (k, Some(v)));
                let (k, v) = (py_strip(k), v.map(py_strip));
                if let Some(v) = v.filter(|v| !k.is_empty() && !v.is_empty()) {
                    meta.insert(k.to_string(), v.to_string());
                }
                continue;
            }
            let parts = columns(line);
            if parts.len() == 1 {
                return Err("Invalid line format, line must contain either tabs or two spaces.".into());
            }
            let field = |c: Option<usize>| c.and_then(|i| parts.get(i).copied());
            if let Some(id) = field(id_col) {
                if !valid_id(id) {
                    return Err(format!("Failed parsing field 'id': '{id}' is not a valid ID."));
                }
            }
            if !build {
                continue;
            }
            let token = field(token_col).ok_or("'token'")?;
            let tag = field(tag_col).ok_or("'tag'")?;
            tokens.push(Value::from(token));
            let fixed = if self.fix_tags && (tag.contains("OTH") || tag == "B-O") { "O" } else { tag };
            tags.push(Value::from(fixed));
            annotators.push(Value::from(field(ann_col).unwrap_or("")));
        }
        let idx = meta.get("sent_id").cloned().unwrap_or_else(|| position.to_string());
        let text = match meta.get("text") {
            Some(t) => t.clone(),
            None => tokens.iter().filter_map(|t| t.as_str()).collect::<Vec<_>>().join(" "),
        };
        let mut inst = Instance::with_capacity(6);
        inst.push_new("idx".into(), Value::String(idx.into()));
        inst.push_new("text".into(), Value::String(text.into()));
        inst.push_new("tokens".into(), Value::Array(tokens));
        inst.push_new("ner_tags".into(), Value::Array(tags));
        inst.push_new("annotator".into(), Value::Array(annotators));
        Ok(build.then_some(inst))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn testdata(name: &str) -> String {
        format!("{}/src/loaders/testdata/{name}", env!("CARGO_MANIFEST_DIR"))
    }

    fn load(file: &str, extra: Value) -> Result<Vec<Instance>> {
        let mut spec = crate::json!({"files": {"test": testdata(file)}, "data_classification_policy": ["public"]});
        if let (Some(m), Some(e)) = (spec.as_object_mut(), extra.as_object()) {
            m.extend(e.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        let loader: LoadIOB = serde_json::from_value(spec.into()).unwrap();
        let mut ms = loader.load(None)?;
        crate::stream::collect(ms.take("test")?)
    }

    /// `testdata/iob_oracle.json` holds what Unitxt 1.26.10's `LoadIOB` (with `conllu`) gives
    /// for `testdata/sample.iob2` (comments with and without values, tab and double-space
    /// columns, `OTH`/`B-O` tags, annotators, range and decimal ids, CRLF), with and without
    /// `fix_tags` and with a limit; `iob_oracle_gen.py` beside it wrote it.
    #[test]
    fn sentences_match_unitxt() {
        let oracle: Value = serde_json::from_str(include_str!("testdata/iob_oracle.json")).unwrap();
        for (case, extra) in [("default", crate::json!({})), ("no_fix", crate::json!({"fix_tags": false})), ("limit", crate::json!({"loader_limit": 2}))] {
            let got = Value::Array(load("sample.iob2", extra).unwrap().into_iter().map(Value::Object).collect());
            assert_eq!(got, oracle[case], "{case}");
        }
        assert_eq!(oracle["bad_id"], "UnitxtError");
        let e = load("bad_id.iob2", crate::json!({})).unwrap_err().to_string();
        assert!(e.contains("'x' is not a valid ID") && e.contains("bad_id.iob2"), "{e}");
    }

    #[test]
    fn ids_as_conllu_accepts_them() {
        for ok in ["", "_", "0", "12", "1-2", "3-3", "0.1", "01.2"] {
            assert!(valid_id(ok), "{ok}");
        }
        for bad in ["01", "2-1", "0-1", "1.0", "x", "-1", "1-"] {
            assert!(!valid_id(bad), "{bad}");
        }
        assert_eq!(columns("a\tb  c d   e"), vec!["a", "b", "c d", "e"]);
    }
}
