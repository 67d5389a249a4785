//! Loaders over data given in the artifact or over other loaders: `load_from_dictionary`
//! (Unitxt's `LoadFromDictionary`) and `multiple_source_loader` (`MultipleSourceLoader`).

use indexmap::IndexMap;
use serde::Deserialize;

use super::{add_policy, effective_limit, limit_stream, Loader};
use crate::artifact::Art;
use crate::error::{Error, Result};
use crate::stream::{MultiStream, Stream};
use crate::value::Instance;

/// Unitxt's `LoadFromDictionary`: `data` maps split names to lists of instances. Every split
/// must be non-empty and its instances must have the same fields (checked when loading).
/// The policy defaults to `["proprietary"]`. As in Unitxt, the loader's own `loader_limit` is
/// not applied; the recipe's limit is.
#[derive(Debug, Clone, Deserialize)]
pub struct LoadFromDictionary {
    /// Split name -> instances.
    pub data: IndexMap<String, Vec<Instance>>,
    /// `loader_limit`: accepted and not applied, as in Unitxt (the recipe's limit is).
    #[serde(default)]
    pub loader_limit: Option<usize>,
    /// Set on every instance; default `["proprietary"]`.
    #[serde(default)]
    pub data_classification_policy: Option<Vec<String>>,
}

impl LoadFromDictionary {
    fn verify(&self) -> Result<()> {
        for (split, items) in &self.data {
            let first = items.first().ok_or_else(|| Error::invalid(format!("split {split} has no instances")))?;
            for inst in items {
                let same = inst.len() == first.len() && inst.keys().all(|k| first.contains_key(k));
                if !same {
                    return Err(Error::invalid(format!(
                        "not all instances in split '{split}' have the same fields: {:?} differs from {:?}",
                        inst.keys().collect::<Vec<_>>(),
                        first.keys().collect::<Vec<_>>()
                    )));
                }
            }
        }
        Ok(())
    }
}

impl Loader for LoadFromDictionary {
    fn load(&self, loader_limit: Option<usize>) -> Result<MultiStream> {
        self.verify().map_err(|e| e.context("in load_from_dictionary"))?;
        let mut ms = MultiStream::new();
        for (split, items) in &self.data {
            let s: Stream = Box::new(items.clone().into_iter().map(Ok));
            ms.streams.insert(split.clone(), limit_stream(s, loader_limit));
        }
        let policy = self.data_classification_policy.clone().unwrap_or_else(|| vec!["proprietary".into()]);
        Ok(add_policy(ms, &policy))
    }
}

/// Unitxt's `MultipleSourceLoader`: the splits of all `sources` (first-seen order), each the
/// concatenation of that split of every source that has it, in source order, at most the
/// limit from each source. Instances keep the policies their sources set, unless this loader
/// has its own `data_classification_policy`, which then replaces them.
#[derive(Debug, Clone)]
pub struct MultipleSourceLoader {
    /// The loaders whose splits are concatenated, in order.
    pub sources: Vec<Art<dyn Loader>>,
    /// The most instances taken from each source per split (the recipe's limit wins when
    /// given).
    pub loader_limit: Option<usize>,
    /// Replaces the sources' policies on every instance (`None`: they keep theirs).
    pub data_classification_policy: Option<Vec<String>>,
}

/// The catalog JSON of `multiple_source_loader`, which builds into a [`MultipleSourceLoader`].
#[derive(Debug, Clone, Deserialize)]
pub struct MultipleSourceLoaderConfig {
    /// `sources`: the loaders whose splits are concatenated, in order (catalog names or
    /// inline loaders).
    pub sources: Vec<crate::value::Value>,
    /// `loader_limit`: the most instances taken from each source per split (the recipe's limit wins
    /// when given).
    #[serde(default)]
    pub loader_limit: Option<usize>,
    /// `data_classification_policy`: replaces the sources' policies on every instance (absent: they
    /// keep theirs).
    #[serde(default)]
    pub data_classification_policy: Option<Vec<String>>,
}

impl MultipleSourceLoaderConfig {
    /// Builds the sources in `cx`.
    pub fn build(self, cx: &crate::artifact::BuildContext<'_>) -> Result<MultipleSourceLoader> {
        Ok(MultipleSourceLoader {
            sources: cx.build_all(&self.sources)?,
            loader_limit: self.loader_limit,
            data_classification_policy: self.data_classification_policy,
        })
    }
}

impl Loader for MultipleSourceLoader {
    fn load(&self, loader_limit: Option<usize>) -> Result<MultiStream> {
        let limit = effective_limit(loader_limit, self.loader_limit)?;
        let mut per_split: IndexMap<String, Vec<Stream>> = IndexMap::new();
        for (i, src) in self.sources.iter().enumerate() {
            let ms = src.load(None).map_err(|e| e.context(format!("in source {i} of multiple_source_loader")))?;
            for (split, s) in ms.streams {
                per_split.entry(split).or_default().push(limit_stream(s, limit));
            }
        }
        let mut out = MultiStream::new();
        for (split, streams) in per_split {
            out.streams.insert(split, Box::new(streams.into_iter().flatten()) as Stream);
        }
        Ok(match &self.data_classification_policy {
            Some(p) => add_policy(out, p),
            None => out,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::collect;
    use crate::value::Value;
    use std::sync::Arc;

    fn dict_loader(v: crate::value::Value) -> Art<dyn Loader> {
        let l: LoadFromDictionary = crate::value::from_value(v.clone()).unwrap();
        Art::new(Arc::new(l) as Arc<dyn Loader>, v)
    }

    #[test]
    fn multiple_sources_concatenate() {
        // Unitxt 1.26.10: MultipleSourceLoader(sources=[LoadFromDictionary(data={'test':[{'a':1}],
        // 'train':[{'a':5}]}), LoadFromDictionary(data={'test':[{'a':2}]}, data_classification_policy=['pii'])])
        // gives test: {'a': 1, 'data_classification_policy': ['proprietary']}, {'a': 2, '...': ['pii']}.
        let a = dict_loader(crate::json!({"data": {"test": [{"a": 1}], "train": [{"a": 5}]}}));
        let b = dict_loader(crate::json!({"data": {"test": [{"a": 2}]}, "data_classification_policy": ["pii"]}));
        let m = MultipleSourceLoader { sources: vec![a, b], loader_limit: None, data_classification_policy: None };
        let mut ms = m.load(None).unwrap();
        assert_eq!(ms.names(), vec!["test", "train"]);
        let got: Vec<String> =
            collect(ms.take("test").unwrap()).unwrap().into_iter().map(|i| Value::Object(i).to_string()).collect();
        assert_eq!(
            got,
            vec![
                r#"{"a":1,"data_classification_policy":["proprietary"]}"#,
                r#"{"a":2,"data_classification_policy":["pii"]}"#
            ]
        );
    }

    #[test]
    fn dictionary_checks_fields() {
        let l: LoadFromDictionary =
            crate::value::from_value(crate::json!({"data": {"test": [{"a": 1}, {"b": 1}]}})).unwrap();
        assert!(l.load(None).is_err());
        let l: LoadFromDictionary = crate::value::from_value(crate::json!({"data": {"test": []}})).unwrap();
        assert!(l.load(None).is_err());
    }
}
