//! Loaders: the sources of a card's data (Unitxt's `loaders.py`).
//!
//! A loader returns one lazy stream per split. Every instance gets the loader's
//! `data_classification_policy` field, as Unitxt's loaders add it (with `dict_set`: a field
//! already in the data keeps its place, otherwise the field is appended last).
//!
//! Families: [`hf`] (`load_hf`, reading a local Hugging Face dataset snapshot), [`files`]
//! (`load_csv`, `load_json_file`, read like pandas does), [`memory`] (`load_from_dictionary`,
//! `multiple_source_loader`). [`arrow_value`] converts Arrow data to values as the Python
//! `datasets` library does, and [`formats`] reads data files (parquet, JSON, CSV, text) lazily.

pub mod arrow_cache;
pub mod arrow_value;
pub mod files;
pub mod formats;
pub mod hf;
pub mod iob;
pub mod memory;

use crate::error::{Error, Result};
use crate::stream::{MultiStream, Stream};
use crate::value::{Instance, Value};

/// A data source.
pub trait Loader: Send + Sync {
    /// Loads the splits, each limited to `loader_limit` instances when given (the recipe's
    /// `loader_limit` overrides the loader's own).
    fn load(&self, loader_limit: Option<usize>) -> Result<MultiStream>;

    /// [`Loader::load`], reading only the top-level `columns` of the records where the data
    /// format allows it (a column named there but not in the data is ignored). Other columns
    /// may still come back: the default reads every column, and only parquet files of
    /// [`hf::LoadHF`] are read by column.
    fn load_columns(&self, loader_limit: Option<usize>, columns: &[String]) -> Result<MultiStream> {
        let _ = columns;
        self.load(loader_limit)
    }
}


/// The limit a loader applies: the recipe's limit when given, else the loader's own, and in both
/// cases at most `UNITXT_GLOBAL_LOADER_LIMIT` when that variable is set (Unitxt's
/// `Loader.get_limit`). Errors when the variable is not an integer.
pub fn effective_limit(recipe: Option<usize>, own: Option<usize>) -> Result<Option<usize>> {
    let local = recipe.or(own);
    let global = match std::env::var("UNITXT_GLOBAL_LOADER_LIMIT") {
        Ok(s) if !s.trim().is_empty() => Some(
            s.trim()
                .parse::<usize>()
                .map_err(|_| Error::invalid(format!("UNITXT_GLOBAL_LOADER_LIMIT must be an integer, got {s:?}")))?,
        ),
        _ => None,
    };
    Ok(match (global, local) {
        (Some(g), Some(l)) => Some(g.min(l)),
        (g, l) => g.or(l),
    })
}

/// Reads a boolean Unitxt setting from its `UNITXT_*` environment variable: only `True` and
/// `False` are accepted, as in Unitxt's settings. Unset means `default`.
pub fn bool_setting(var: &str, default: bool) -> Result<bool> {
    match std::env::var(var) {
        Ok(s) if s == "True" => Ok(true),
        Ok(s) if s == "False" => Ok(false),
        Ok(s) => Err(Error::invalid(format!("{var} must be True or False, got {s:?}"))),
        Err(_) => Ok(default),
    }
}

/// Keeps the first `limit` instances of a stream (all when `None`).
pub fn limit_stream(stream: Stream, limit: Option<usize>) -> Stream {
    match limit {
        Some(n) => Box::new(stream.take(n)),
        None => stream,
    }
}

/// Sets `data_classification_policy` on every instance of every split (Unitxt's
/// `Loader.add_data_classification`, a `Set` operator): an existing field is replaced in place,
/// a new one goes last.
pub fn add_policy(ms: MultiStream, policy: &[String]) -> MultiStream {
    let value = Value::Array(policy.iter().cloned().map(Value::from).collect());
    ms.map_streams(|_, s| {
        let value = value.clone();
        Box::new(s.map(move |r| {
            r.map(|mut inst: Instance| {
                // A 26-byte key: `const_new` keeps it from being allocated per instance.
                inst.insert(crate::value::Key::const_new("data_classification_policy"), value.clone());
                inst
            })
        }))
    })
}

/// A float as a value, NaN and infinities included (as a float column of an HF dataset reads
/// in Python).
pub fn float_value(f: f64) -> Value {
    Value::Number(crate::value::Number::float(f))
}

/// The shared hub cache with real datasets, for tests: `UNITXT_RS_HF_HUB`, else `shared/hf-hub`
/// next to the project.
#[cfg(test)]
pub(crate) fn test_hub() -> std::path::PathBuf {
    match std::env::var("UNITXT_RS_HF_HUB") {
        Ok(p) if !p.is_empty() => std::path::PathBuf::from(p),
        _ => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/hf-hub"),
    }
}

impl crate::artifact::ArtifactKind for dyn Loader {
    const KIND: &'static str = "loader";
}

#[cfg(test)]
mod tests {
    use super::*;
    use indexmap::IndexMap;
    use crate::json;

    #[test]
    fn policy_replaces_in_place_or_appends() {
        // Unitxt 1.26.10 LoadFromDictionary(data={'test':[{'a':1,'data_classification_policy':['x'],'b':2}]})
        // gives {'a': 1, 'data_classification_policy': ['proprietary'], 'b': 2}.
        let mut lists = IndexMap::new();
        let a = json!({"a": 1, "data_classification_policy": ["x"], "b": 2});
        let b = json!({"a": 1});
        lists.insert("test".to_string(), vec![a.as_object().unwrap().clone(), b.as_object().unwrap().clone()]);
        let mut ms = add_policy(MultiStream::from_lists(lists), &["proprietary".to_string()]);
        let got = crate::stream::collect(ms.take("test").unwrap()).unwrap();
        assert_eq!(
            Value::Object(got[0].clone()).to_string(),
            r#"{"a":1,"data_classification_policy":["proprietary"],"b":2}"#
        );
        assert_eq!(
            Value::Object(got[1].clone()).to_string(),
            r#"{"a":1,"data_classification_policy":["proprietary"]}"#
        );
    }

    #[test]
    fn registry_builds_loaders() {
        let v = json!({"__type__": "multiple_source_loader", "sources": [
            {"__type__": "load_from_dictionary", "data": {"test": [{"a": 1}]}},
            {"__type__": "load_hf", "path": "cais/mmlu", "name": "anatomy", "splits": ["test"]},
            {"__type__": "load_csv", "files": {"test": "x.csv"}, "sep": "\t"},
            {"__type__": "load_json_file", "files": {"test": "x.jsonl"}, "lines": true}
        ]});
        match crate::testutil::build(&v).unwrap() {
            crate::registry::Artifact::Loader(l) => assert_eq!(l.display_name(), "multiple_source_loader"),
            other => panic!("built a {}", other.kind()),
        }
    }
}
