//! Cards (Unitxt's `TaskCard`): a loader, preprocessing steps, a task, templates and a demos
//! sampler.

use indexmap::IndexMap;
use serde::Deserialize;

use crate::artifact::{AnyArt, Art, ArtifactKind, BuildContext};
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

/// What a templates value built into: a template, or a templates list or dict.
enum Built {
    One(Art<dyn Template>),
    List(Vec<Art<dyn Template>>),
    Dict(IndexMap<String, Art<dyn Template>>),
    Other(&'static str),
}

impl Built {
    fn of(a: AnyArt) -> Built {
        let a = match a.downcast::<Art<dyn Template>>() {
            Ok(t) => return Built::One(t),
            Err(a) => a,
        };
        let a = match a.downcast::<Vec<Art<dyn Template>>>() {
            Ok(l) => return Built::List(l),
            Err(a) => a,
        };
        match a.downcast::<IndexMap<String, Art<dyn Template>>>() {
            Ok(d) => Built::Dict(d),
            Err(a) => Built::Other(a.kind()),
        }
    }
}

impl TemplateEntry {
    fn from_value(v: &Value, cx: &BuildContext<'_>) -> Result<TemplateEntry> {
        match Built::of(cx.build_any(v)?) {
            Built::One(t) => Ok(TemplateEntry::One(t)),
            Built::List(l) => Ok(TemplateEntry::List(l)),
            Built::Dict(_) => Err(Error::invalid(format!("expected a template or a templates list, but {} is a templates dict", crate::artifact::short(v)))),
            Built::Other(kind) => Err(Error::invalid(format!(
                "expected a template or a templates list, but {} is a {kind}",
                crate::artifact::short(v),
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
    pub fn from_value(v: &Value, cx: &BuildContext<'_>) -> Result<Templates> {
        match v {
            Value::Array(a) => Ok(Templates::List(a.iter().map(|t| TemplateEntry::from_value(t, cx)).collect::<Result<_>>()?)),
            Value::Object(m) if !m.contains_key("__type__") => {
                let mut out = IndexMap::new();
                for (k, t) in m {
                    out.insert(k.to_string(), TemplateEntry::from_value(t, cx).with_ctx(|| format!("template {k:?}"))?);
                }
                Ok(Templates::Dict(out))
            }
            _ => match Built::of(cx.build_any(v)?) {
                Built::One(t) => Ok(Templates::One(t)),
                Built::List(l) => Ok(Templates::List(l.into_iter().map(TemplateEntry::One).collect())),
                Built::Dict(d) => Ok(Templates::Dict(d.into_iter().map(|(k, t)| (k, TemplateEntry::One(t))).collect())),
                Built::Other(kind) => Err(Error::invalid(format!("expected templates, got a {kind}"))),
            },
        }
    }
}

/// The catalog JSON of a card (`task_card`), which builds into a [`Card`].
#[derive(Deserialize)]
pub struct CardConfig {
    /// `loader`: where the raw records come from (required, but may be `null`).
    #[serde(deserialize_with = "nullable")]
    pub loader: Option<Value>,
    /// `preprocess_steps`: operators run in order on the loaded streams (absent: none).
    #[serde(default)]
    pub preprocess_steps: Option<Vec<Value>>,
    /// `task`: the task artifact (required).
    pub task: Value,
    /// `templates`: the card's own templates (absent: none).
    #[serde(default)]
    pub templates: Option<Value>,
    /// `sampler`: the demos sampler (absent: Unitxt's default, `random_sampler`).
    #[serde(default)]
    pub sampler: Option<Value>,
}

impl CardConfig {
    /// Builds the card's artifacts in `cx`.
    pub fn build(self, cx: &BuildContext<'_>) -> Result<Card> {
        Ok(Card {
            loader: cx.build_opt(self.loader.as_ref())?,
            preprocess_steps: match &self.preprocess_steps {
                Some(steps) => Some(cx.build_all(steps)?),
                None => None,
            },
            task: cx.build(&self.task)?,
            templates: match &self.templates {
                None | Some(Value::Null) => None,
                Some(t) => Some(Templates::from_value(t, cx)?),
            },
            sampler: cx.build_opt(self.sampler.as_ref())?,
        })
    }
}

/// A card (Unitxt's `TaskCard`), built.
pub struct Card {
    /// Where the raw records come from; `None` for Unitxt's cards that only describe a task
    /// over data given elsewhere (such a card builds, and preparing a recipe over it is an
    /// error); its splits are the card's initial streams.
    pub loader: Option<Art<dyn Loader>>,
    /// Operators run in order on the loaded streams, before the task (`None`: none), as
    /// Unitxt's `TaskCard.preprocess_steps`.
    pub preprocess_steps: Option<Vec<Art<dyn Operator>>>,
    /// The task: field roles, types and metrics.
    pub task: Art<Task>,
    /// The card's own templates, which `template_card_index` picks from (`None`: the recipe
    /// must name a template or the task a default one).
    pub templates: Option<Templates>,
    /// Demos sampler; Unitxt's default is `random_sampler`.
    pub sampler: Option<Art<dyn Sampler>>,
}

impl ArtifactKind for Card {
    const KIND: &'static str = "card";
}

/// A required field that may be `null` (`None`): serde makes a plain `Option` field optional.
fn nullable<'de, D: serde::Deserializer<'de>, T: serde::Deserialize<'de>>(
    d: D,
) -> std::result::Result<Option<T>, D::Error> {
    Option::<T>::deserialize(d)
}
