//! Cards (Unitxt's `TaskCard`): a loader, preprocessing steps, a task, templates and a demos
//! sampler.

use indexmap::IndexMap;
use serde::Deserialize;

use crate::artifact::Art;
use crate::registry::Artifact;
use crate::registry::resolve_value;
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
    /// A single template (a catalog name or an inline template artifact).
    One(Art<dyn Template>),
    /// A list of templates (a JSON list, or Unitxt's `templates_list`): in a card,
    /// `template_card_index` picks one by position (default 0); as a recipe's `template`, one
    /// is drawn per instance.
    List(Vec<TemplateEntry>),
    /// Named templates (a JSON dict, or Unitxt's `templates_dict`): `template_card_index`
    /// picks one by name (default: the first).
    Dict(IndexMap<String, TemplateEntry>),
}

/// An entry of a templates list or dict: a template, or a `templates_list` artifact (as in
/// the MILU cards, whose `templates` is `["templates.qa.multiple_choice.with_topic.all"]`).
/// Picked by `template_card_index`, a templates list becomes a per-instance draw from its
/// items, as Unitxt's `DatasetRecipe.prepare` turns a `TemplatesList` into its `items`.
#[derive(Clone)]
pub enum TemplateEntry {
    /// A template.
    One(Art<dyn Template>),
    /// The items of a templates list.
    List(Vec<Art<dyn Template>>),
}

impl TemplateEntry {
    fn from_value(v: &Value) -> Result<TemplateEntry> {
        match resolve_value(v)? {
            Artifact::Template(t) => Ok(TemplateEntry::One(t)),
            Artifact::TemplatesList(l) => Ok(TemplateEntry::List(l)),
            other => Err(Error::invalid(format!(
                "expected a template or a templates list, but {} is a {}",
                crate::artifact::short(v),
                other.kind()
            ))),
        }
    }

    /// The template, or an error naming `what` when this entry is a templates list.
    pub fn single(self, what: &str) -> Result<Art<dyn Template>> {
        match self {
            TemplateEntry::One(t) => Ok(t),
            TemplateEntry::List(_) => Err(Error::invalid(format!("{what} must be a template, not a templates list"))),
        }
    }
}

impl Templates {
    /// Reads a templates value: a catalog name or inline artifact (a template,
    /// `templates_list` or `templates_dict`), a list of templates, or a dict of name to template
    /// (list and dict entries may also be templates lists, see [`TemplateEntry`]).
    pub fn from_value(v: &Value) -> Result<Templates> {
        match v {
            Value::Array(a) => Ok(Templates::List(a.iter().map(TemplateEntry::from_value).collect::<Result<_>>()?)),
            Value::Object(m) if !m.contains_key("__type__") => {
                let mut out = IndexMap::new();
                for (k, t) in m {
                    out.insert(k.to_string(), TemplateEntry::from_value(t).with_ctx(|| format!("template {k:?}"))?);
                }
                Ok(Templates::Dict(out))
            }
            _ => match resolve_value(v)? {
                Artifact::Template(t) => Ok(Templates::One(t)),
                Artifact::TemplatesList(l) => Ok(Templates::List(l.into_iter().map(TemplateEntry::One).collect())),
                Artifact::TemplatesDict(d) => Ok(Templates::Dict(d.into_iter().map(|(k, t)| (k, TemplateEntry::One(t))).collect())),
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
    /// `loader`: where the raw records come from (required, but may be `null`, as in Unitxt's
    /// cards that only describe a task over data given elsewhere: such a card builds, and
    /// preparing a recipe over it is an error); its splits are the card's initial streams.
    #[serde(deserialize_with = "nullable")]
    pub loader: Option<Art<dyn Loader>>,
    /// `preprocess_steps`: operators run in order on the loaded streams, before the task
    /// (absent: none), as Unitxt's `TaskCard.preprocess_steps`.
    #[serde(default)]
    pub preprocess_steps: Option<Vec<Art<dyn Operator>>>,
    /// `task`: the task artifact (required): field roles, types and metrics.
    pub task: Art<Task>,
    /// `templates`: the card's own templates, which `template_card_index` picks from (absent:
    /// the recipe must name a template or the task a default one).
    #[serde(default)]
    pub templates: Option<Templates>,
    /// Demos sampler; Unitxt's default is `random_sampler`.
    #[serde(default)]
    pub sampler: Option<Art<dyn Sampler>>,
}

/// A required field that may be `null` (`None`): serde makes a plain `Option` field optional.
fn nullable<'de, D: serde::Deserializer<'de>, T: serde::Deserialize<'de>>(
    d: D,
) -> std::result::Result<Option<T>, D::Error> {
    Option::<T>::deserialize(d)
}
