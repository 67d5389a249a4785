//! Local files read the way Unitxt's pandas loaders read them: `load_csv` (`LoadCSV`) and
//! `load_json_file` (`LoadJsonFile`).
//!
//! Each split is one file, read when its stream is first pulled (pandas reads whole files too;
//! with a limit only the first rows are kept). Column types follow pandas' inference (see
//! [`super::formats::Typing::Pandas`]); pandas' NaN is given as `None`. Remote files (URLs) are
//! not read: that needs network.

use std::path::PathBuf;

use indexmap::IndexMap;
use serde::Deserialize;

use super::formats::{lazy, read_csv, unify_columns, CsvOptions, Typing};
use super::{add_policy, effective_limit, limit_stream, Loader};
use crate::error::{Error, Result};
use crate::stream::{MultiStream, Stream};
use crate::value::Value;

pub(super) fn local_path(file: &str) -> Result<PathBuf> {
    if file.contains("://") {
        return Err(Error::unsupported(format!(
            "file {file:?} is remote: a download needs network, which unitxt-rs does not use"
        )));
    }
    Ok(PathBuf::from(file))
}

fn default_policy(p: &Option<Vec<String>>) -> Vec<String> {
    p.clone().unwrap_or_else(|| vec!["proprietary".to_string()])
}

/// Unitxt's `LoadCSV`: split name -> CSV file. `chunksize`, `streaming` and `indirect_read` are
/// accepted and have no effect; `compression` other than none is not supported.
#[derive(Debug, Clone, Deserialize)]
pub struct LoadCSV {
    /// Split name -> file path.
    pub files: IndexMap<String, String>,
    /// Field delimiter (one character).
    #[serde(default = "comma")]
    pub sep: String,
    /// Column names to use, the file then having no header row.
    #[serde(default)]
    pub column_names: Option<Vec<String>>,
    /// `compression`: only absent or `infer` (plain files) are accepted; a codec is an
    /// unsupported-feature error.
    #[serde(default)]
    pub compression: Option<String>,
    /// `chunksize`: pandas' reading chunk size; accepted and unused (files are streamed anyway).
    #[serde(default)]
    pub chunksize: Option<i64>,
    /// `streaming`: accepted and unused (files are always streamed).
    #[serde(default)]
    pub streaming: Option<bool>,
    /// `indirect_read`: Unitxt's download-first switch; accepted and unused (files are local).
    #[serde(default)]
    pub indirect_read: Option<bool>,
    /// First instances of each split to keep.
    #[serde(default)]
    pub loader_limit: Option<usize>,
    /// Set on every instance; default `["proprietary"]`.
    #[serde(default)]
    pub data_classification_policy: Option<Vec<String>>,
}

fn comma() -> String {
    ",".to_string()
}

fn check_compression(c: &Option<String>) -> Result<()> {
    match c.as_deref() {
        None | Some("infer") => Ok(()),
        Some(other) => Err(Error::unsupported(format!("compressed files ({other}) are not supported"))),
    }
}

impl Loader for LoadCSV {
    fn load(&self, loader_limit: Option<usize>) -> Result<MultiStream> {
        check_compression(&self.compression)?;
        let sep = match self.sep.as_bytes() {
            [b] => *b,
            _ => return Err(Error::unsupported(format!("load_csv: separator {:?} is not one character", self.sep))),
        };
        let limit = effective_limit(loader_limit, self.loader_limit)?;
        let mut ms = MultiStream::new();
        for (split, file) in &self.files {
            let path = local_path(file)?;
            let opts = CsvOptions { sep, column_names: self.column_names.clone(), nrows: limit };
            let stream: Stream = lazy(move || {
                let rows = read_csv(&path, &opts, Typing::Pandas)?;
                Ok(Box::new(rows.into_iter().map(Ok)) as Stream)
            });
            ms.streams.insert(split.clone(), limit_stream(stream, limit));
        }
        Ok(add_policy(ms, &default_policy(&self.data_classification_policy)))
    }
}

/// Unitxt's `LoadJsonFile`: split name -> JSON file, either one JSON document (an object, a list
/// of objects, or with `data_field` the list of objects at that path) or JSON lines (`lines`).
#[derive(Debug, Clone, Deserialize)]
pub struct LoadJsonFile {
    /// Split name -> file path.
    pub files: IndexMap<String, String>,
    /// The file has one JSON object per line.
    #[serde(default)]
    pub lines: bool,
    /// Path (`a/b`) of the list of instances inside the document.
    #[serde(default)]
    pub data_field: Option<String>,
    /// `compression`: only absent or `infer` (plain files) are accepted; a codec is an
    /// unsupported-feature error.
    #[serde(default)]
    pub compression: Option<String>,
    /// `chunksize`: pandas' reading chunk size; accepted and unused (files are streamed anyway).
    #[serde(default)]
    pub chunksize: Option<i64>,
    /// `streaming`: accepted and unused (files are always streamed).
    #[serde(default)]
    pub streaming: Option<bool>,
    /// `indirect_read`: Unitxt's download-first switch; accepted and unused (files are local).
    #[serde(default)]
    pub indirect_read: Option<bool>,
    /// First instances of each split to keep.
    #[serde(default)]
    pub loader_limit: Option<usize>,
    /// Set on every instance; default `["proprietary"]`.
    #[serde(default)]
    pub data_classification_policy: Option<Vec<String>>,
}

impl LoadJsonFile {
    fn read(&self, path: &std::path::Path, limit: Option<usize>) -> Result<Vec<crate::value::Instance>> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::from(e).context(format!("reading {}", path.display())))?;
        let bad = |m: String| Error::invalid(format!("{}: {m}", path.display()));
        let items: Vec<Value> = if self.lines {
            if self.data_field.is_some() {
                return Err(Error::invalid("load_json_file cannot use `data_field` with `lines=True`"));
            }
            text.lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
                .take(limit.unwrap_or(usize::MAX))
                .map(|(i, l)| serde_json::from_str(l).map_err(|e| bad(format!("line {}: {e}", i + 1))))
                .collect::<Result<_>>()?
        } else {
            let data: Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
            match &self.data_field {
                Some(f) => {
                    let obj = data.as_object().ok_or_else(|| bad("the document is not a JSON object".into()))?;
                    match &*crate::py::dict_path::dict_get(obj, f)? {
                        Value::Array(a) if a.iter().all(|x| x.is_object()) => a.clone(),
                        _ => return Err(bad(format!("{f} is not a list of dictionaries"))),
                    }
                }
                None => match data {
                    o @ Value::Object(_) => vec![o],
                    Value::Array(a) if a.iter().all(|x| x.is_object()) => a,
                    _ => return Err(bad("the document is not a dictionary or a list of dictionaries".into())),
                },
            }
        };
        let objs = items
            .into_iter()
            .take(limit.unwrap_or(usize::MAX))
            .enumerate()
            .map(|(i, v)| match v {
                Value::Object(o) => Ok(o),
                _ => Err(bad(format!("line {} is not a JSON object", i + 1))),
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(unify_columns(objs, Typing::Pandas))
    }
}

impl Loader for LoadJsonFile {
    fn load(&self, loader_limit: Option<usize>) -> Result<MultiStream> {
        check_compression(&self.compression)?;
        let limit = effective_limit(loader_limit, self.loader_limit)?;
        let mut ms = MultiStream::new();
        for (split, file) in &self.files {
            let path = local_path(file)?;
            let me = self.clone();
            let stream: Stream = lazy(move || Ok(Box::new(me.read(&path, limit)?.into_iter().map(Ok)) as Stream));
            ms.streams.insert(split.clone(), limit_stream(stream, limit));
        }
        Ok(add_policy(ms, &default_policy(&self.data_classification_policy)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::collect;

    fn rows(ms: &mut MultiStream, split: &str) -> Vec<String> {
        collect(ms.take(split).unwrap()).unwrap().into_iter().map(|i| Value::Object(i).to_string()).collect()
    }

    #[test]
    fn csv_types_like_pandas() {
        // Unitxt 1.26.10 LoadCSV on this file gave (pandas 3.1.1):
        // {'a': 1, 'b': 1.5, 'c': 'x', 'd': True, 'e': 1.0, 'f': nan, 'data_classification_policy': ['proprietary']}
        // {'a': 2, 'b': nan, 'c': nan, 'd': False, 'e': 2.0, 'f': nan, ...}   (nan is given as null here)
        let dir = std::env::temp_dir().join(format!("unitxt_rs_csv_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("t.csv");
        std::fs::write(&f, "a,b,c,d,e,f\n1,1.5,x,True,1,\n2,,,False,2.0,\n").unwrap();
        let l = LoadCSV {
            files: [("test".to_string(), f.to_string_lossy().to_string())].into_iter().collect(),
            sep: ",".into(),
            column_names: None,
            compression: None,
            chunksize: None,
            streaming: None,
            indirect_read: None,
            loader_limit: None,
            data_classification_policy: None,
        };
        let mut ms = l.load(None).unwrap();
        assert_eq!(
            rows(&mut ms, "test"),
            vec![
                r#"{"a":1,"b":1.5,"c":"x","d":true,"e":1.0,"f":null,"data_classification_policy":["proprietary"]}"#,
                r#"{"a":2,"b":null,"c":null,"d":false,"e":2.0,"f":null,"data_classification_policy":["proprietary"]}"#,
            ]
        );
        let mut ms = l.load(Some(1)).unwrap();
        assert_eq!(rows(&mut ms, "test").len(), 1);
    }

    #[test]
    fn json_lines_like_pandas() {
        // Unitxt 1.26.10 LoadJsonFile(lines=True) gave
        // {'a': 1.0, 'b': 'x', 'c': [1, 2], 'd': nan, ...}, {'a': 2.5, 'b': nan, 'c': None, 'd': {'x': 1}, ...}
        let dir = std::env::temp_dir().join(format!("unitxt_rs_jsonl_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("t.jsonl");
        std::fs::write(&f, "{\"a\": 1, \"b\": \"x\", \"c\": [1, 2]}\n{\"a\": 2.5, \"c\": null, \"d\": {\"x\": 1}}\n")
            .unwrap();
        let l: LoadJsonFile =
            crate::value::from_value(crate::json!({"files": {"test": f.to_string_lossy()}, "lines": true}))
                .unwrap();
        let mut ms = l.load(None).unwrap();
        assert_eq!(
            rows(&mut ms, "test"),
            vec![
                r#"{"a":1.0,"b":"x","c":[1,2],"d":null,"data_classification_policy":["proprietary"]}"#,
                r#"{"a":2.5,"b":null,"c":null,"d":{"x":1},"data_classification_policy":["proprietary"]}"#,
            ]
        );
    }
}
