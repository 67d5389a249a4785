//! Cards (Unitxt's `TaskCard`): a loader, preprocessing steps, a task, templates and a demos
//! sampler.

use indexmap::IndexMap;
use serde::Deserialize;

use crate::artifact::{resolve, Art, Artifact};
use crate::catalog::resolve_value;
use crate::error::{Error, Result, ResultExt};
use crate::loaders::Loader;
use crate::operators::Operator;
use crate::splitters::Sampler;
use crate::task::Task;
use crate::templates::Template;
use crate::value::Value;

/// One template, a list to draw from, or named templates.
#[derive(Clone)]
pub enum Templates {
    One(Art<dyn Template>),
    List(Vec<Art<dyn Template>>),
    Dict(IndexMap<String, Art<dyn Template>>),
}

impl Templates {
    /// Reads a templates value: a catalog name or inline artifact (a template,
    /// `templates_list` or `templates_dict`), a list of templates, or a dict of name to template.
    pub fn from_value(v: &Value) -> Result<Templates> {
        match v {
            Value::Array(a) => Ok(Templates::List(a.iter().map(resolve::<dyn Template>).collect::<Result<_>>()?)),
            Value::Object(m) if !m.contains_key("__type__") => {
                let mut out = IndexMap::new();
                for (k, t) in m {
                    out.insert(k.to_string(), resolve::<dyn Template>(t).with_ctx(|| format!("template {k:?}"))?);
                }
                Ok(Templates::Dict(out))
            }
            _ => match resolve_value(v)? {
                Artifact::Template(t) => Ok(Templates::One(t)),
                Artifact::TemplatesList(l) => Ok(Templates::List(l)),
                Artifact::TemplatesDict(d) => Ok(Templates::Dict(d)),
                other => Err(Error::invalid(format!("expected templates, got a {}", other.kind()))),
            },
        }
    }
}

impl<'de> Deserialize<'de> for Templates {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        Templates::from_value(&v).map_err(serde::de::Error::custom)
    }
}

/// A card.
#[derive(Deserialize)]
pub struct Card {
    pub loader: Art<dyn Loader>,
    #[serde(default)]
    pub preprocess_steps: Option<Vec<Art<dyn Operator>>>,
    pub task: Art<Task>,
    #[serde(default)]
    pub templates: Option<Templates>,
    /// Demos sampler; Unitxt's default is `random_sampler`.
    #[serde(default)]
    pub sampler: Option<Art<dyn Sampler>>,
}
