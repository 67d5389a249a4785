//! Recipes (Unitxt's `DatasetRecipe` in `standard.py`): a card mixed with a template, format,
//! system prompt, demos and augmentors, run as a pipeline of lazy streams.
//!
//! Stages, in Unitxt's order: loading (loader, `loader_limit`), metadata, standardization
//! (the card's preprocess steps), processing (task, augmentors, demos pool, split size
//! refiners), verbalization (demos sampling, template, system prompt, format) and
//! finalization (Unitxt's `FinalizeDataset`: `task_data`, `groups`, `subset`, `media`).

mod demos;
pub mod benchmark;
mod finalize;

use std::sync::Arc;

use indexmap::IndexMap;

use crate::artifact::Art;
use crate::artifact::BuildContext;
use crate::card::{Card, Templates};
use crate::catalog::Catalog;
use crate::error::{Error, Result, ResultExt};
use crate::formats::{Format, Pieces};
use crate::operators::{apply_all, FieldsRead, InstanceOperator, Operator};
use crate::splitters::Sampler;
use crate::stream::{MultiStream, Stream};
use crate::system_prompts::{SystemPrompt, SYSTEM_PROMPT_FIELD};
use crate::task::{Fixed, Task};
use crate::templates::base::INFERENCE_STREAM;
use crate::templates::{RenderPlan, Rendered, Template};
use crate::value::{Constant, Instance, Shared, Value};

pub use demos::DemosPool;
pub use finalize::{finalize, FixedItems, MetadataText, OutputInstance, RecipeMeta, Verbalized, OUTPUT_FIELDS};

/// The number of demos: one size, or a list of sizes drawn from per instance.
#[derive(Debug, Clone, PartialEq)]
pub enum NumDemos {
    /// Every instance gets this many demos.
    Fixed(usize),
    /// Each instance gets a count drawn from these (by a generator seeded with the instance).
    OneOf(Vec<usize>),
}

impl NumDemos {
    fn max(&self) -> usize {
        match self {
            NumDemos::Fixed(n) => *n,
            NumDemos::OneOf(v) => v.iter().copied().max().unwrap_or(0),
        }
    }
}

/// The recipe's arguments, as Unitxt's `DatasetRecipe` fields (raw JSON values, resolved
/// when the recipe is built).
#[derive(Debug, Clone, Default)]
pub struct RecipeArgs {
    /// Argument name to its raw value, in the order given.
    pub args: IndexMap<String, Value>,
}

/// The recipe's arguments by name, typed: one field per argument of Unitxt 1.26.10's
/// `DatasetRecipe` (plus the artifact keys a `dataset_recipe` JSON carries), each `None` when
/// absent or `null`. An argument that is not one of them is an error. Artifacts stay JSON
/// values (a catalog name or an inline object) until [`Recipe::build`] builds them.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RecipeFields {
    card: Option<Value>,
    task: Option<Value>,
    template: Option<Value>,
    system_prompt: Option<Value>,
    format: Option<Value>,
    serializer: Option<Value>,
    template_card_index: Option<Value>,
    metrics: Option<Value>,
    postprocessors: Option<Value>,
    group_by: Option<Value>,
    loader_limit: Option<Value>,
    max_train_instances: Option<Value>,
    max_validation_instances: Option<Value>,
    max_test_instances: Option<Value>,
    train_refiner: Option<Value>,
    validation_refiner: Option<Value>,
    test_refiner: Option<Value>,
    demos_pool_size: Option<Value>,
    demos_pool: Option<Value>,
    num_demos: Option<Value>,
    demos_removed_from_data: Option<Value>,
    demos_pool_field_name: Option<Value>,
    demos_taken_from: Option<Value>,
    demos_field: Option<Value>,
    sampler: Option<Value>,
    demos_sampling_seed: Option<Value>,
    skip_demoed_instances: Option<Value>,
    augmentor: Option<Value>,
    #[serde(rename = "__type__")]
    _type: Option<Value>,
    #[serde(rename = "__description__")]
    _description: Option<Value>,
    #[serde(rename = "__tags__")]
    _tags: Option<Value>,
    #[serde(rename = "__title__")]
    _title: Option<Value>,
}

impl RecipeFields {
    /// The typed fields of `args` (`null` values count as absent).
    fn of(args: &RecipeArgs) -> Result<RecipeFields> {
        let m: crate::value::Map = args.args.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), v.clone())).collect();
        crate::value::from_value(Value::Object(m)).map_err(|e| Error::invalid(format!("invalid recipe arguments: {e}")))
    }
}

/// `v`, a recipe argument `name`, as a count.
fn usize_arg(name: &str, v: &Option<Value>) -> Result<Option<usize>> {
    match v {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .map(|n| Some(n as usize))
            .ok_or_else(|| Error::invalid(format!("recipe argument {name} must be a non-negative integer, got {v}"))),
    }
}

/// `v`, a recipe argument `name`, as a list.
fn list_arg(name: &str, v: &Option<Value>) -> Result<Option<Vec<Value>>> {
    match v {
        None => Ok(None),
        Some(Value::Array(a)) => Ok(Some(a.clone())),
        Some(v) => Err(Error::invalid(format!("{name} must be a list, got {v}"))),
    }
}

/// The names of the recipe's arguments: [`RecipeFields`]' fields, as serde names them.
fn known_args() -> &'static [&'static str] {
    crate::artifact::struct_fields::<RecipeFields>().unwrap_or_default()
}

impl RecipeArgs {
    /// Parses a recipe query (`card=cards.wnli,template=...,num_demos=3`), or the name of a
    /// `dataset_recipe` artifact in the catalog.
    pub fn parse(query: &str, catalog: &Arc<Catalog>) -> Result<RecipeArgs> {
        let q = query.trim();
        match named_artifact(q, catalog)? {
            Some(json) => RecipeArgs::from_json(&json),
            None => RecipeArgs::from_key_values(q),
        }
    }

    /// The arguments of a recipe string (`card=cards.wnli,template=...,num_demos=3`).
    pub(crate) fn from_key_values(query: &str) -> Result<RecipeArgs> {
        RecipeArgs::from_map(crate::query::parse_key_values(query).ctx("in the recipe string")?)
    }

    /// The arguments of a `dataset_recipe` artifact's JSON (an object of recipe arguments).
    pub fn from_json(v: &Value) -> Result<RecipeArgs> {
        let m = v.as_object().ok_or_else(|| Error::invalid(format!("a recipe must be an object, got {}", crate::artifact::short(v))))?;
        RecipeArgs::from_map(m.iter().map(|(k, x)| (k.to_string(), x.clone())).collect())
    }

    /// Takes arguments as a map; errors on names that are not recipe arguments.
    pub fn from_map(args: IndexMap<String, Value>) -> Result<RecipeArgs> {
        for k in args.keys() {
            if !known_args().contains(&k.as_str()) {
                let near: Vec<&&str> = known_args().iter().filter(|a| strsim::jaro_winkler(a, k) > 0.85).collect();
                let hint = if near.is_empty() { String::new() } else { format!("; did you mean {}?", near[0]) };
                return Err(Error::invalid(format!("{k:?} is not a recipe argument{hint}")));
            }
        }
        Ok(RecipeArgs { args })
    }
}

/// A built recipe, ready to produce streams.
pub struct Recipe {
    /// `card`: the dataset's card (loader, preprocessing steps, task, templates).
    pub card: Art<Card>,
    /// `template` / `template_card_index`: the template of each instance.
    pub templates: TemplateChoice,
    /// `system_prompt`: the system prompt (default: an empty system prompt).
    pub system_prompt: Art<dyn SystemPrompt>,
    /// `format`: the format operator that assembles `source` (default: a `system_format` with
    /// its defaults).
    pub format: Art<dyn Format>,
    /// `augmentor`: augmentors run on the task's fields, in order (default none).
    pub augmentors: Vec<Arc<dyn InstanceOperator>>,
    /// `num_demos`: how many demos each instance gets (default 0).
    pub num_demos: NumDemos,
    /// `None`: no custom demos pool; `Some(usize::MAX)`: the whole `demos_taken_from` split.
    pub demos_pool_size: Option<usize>,
    /// `demos_taken_from`: the split the demos pool is taken from (default `train`).
    pub demos_taken_from: String,
    /// `demos_removed_from_data`: the pool's instances leave that split (default true).
    pub demos_removed_from_data: bool,
    /// `demos_sampling_seed`: the seed handed to the demo sampler (absent: the sampler's own).
    pub demos_sampling_seed: Option<i64>,
    /// `skip_demoed_instances`: an instance that already has a `demos` field keeps it and gets no
    /// sampled demos (default false).
    pub skip_demoed_instances: bool,
    /// `sampler`: the demo sampler (absent: the card's, else a random sampler).
    pub sampler: Option<Art<dyn Sampler>>,
    /// `loader_limit`: the most records the loader reads per split (absent: all).
    pub loader_limit: Option<usize>,
    /// `max_train_instances`, `max_validation_instances`, `max_test_instances`: split name to the
    /// most instances kept.
    pub max_instances: IndexMap<String, usize>,
    /// `train_refiner`, `validation_refiner`, `test_refiner`: split name to the stream
    /// operator that refines it in place of the `max_instances` cut (Unitxt's `StreamRefiner`
    /// and its balancers), its `max_instances` set from the recipe's. Absent for most recipes.
    pub refiners: IndexMap<String, Art<dyn Operator>>,
    /// `metrics`: overrides the task's metrics in every instance (absent: the task's).
    pub metrics: Option<Constant>,
    /// The task's metrics, lent to every instance when the recipe gives none.
    pub task_metrics: Constant,
    /// `postprocessors`: overrides the template's postprocessors (absent: the template's).
    pub postprocessors: Option<Constant>,
    /// `group_by`: fields (or lists of fields) whose values group the instances for group scores
    /// (default none).
    pub group_by: Vec<Value>,
    /// The catalogs artifact names are resolved in.
    pub catalog: Arc<Catalog>,
    /// Per template of [`Recipe::templates`] (in order), the recipe's items of every
    /// instance's `task_data.metadata`, written once; empty when they vary per instance (a
    /// `num_demos` drawn from a list).
    metadata_texts: Vec<MetadataText>,
}

/// The template of each instance: always the same, or drawn per instance from a list.
#[derive(Clone)]
pub enum TemplateChoice {
    /// The same template for every instance.
    Single(Art<dyn Template>),
    /// A template drawn per instance from the list (seeded by the instance's fields).
    Random(Vec<Art<dyn Template>>),
}

impl TemplateChoice {
    /// Every template, in order: the one, or the list drawn from (an instance's template is
    /// the one at the index it draws).
    fn all(&self) -> &[Art<dyn Template>] {
        match self {
            TemplateChoice::Single(t) => std::slice::from_ref(t),
            TemplateChoice::Random(list) => list,
        }
    }
}

impl From<crate::card::TemplateEntry> for TemplateChoice {
    /// A card's template entry as the recipe uses it: a templates list is drawn from per
    /// instance (Unitxt's `DatasetRecipe.prepare` replaces a `TemplatesList` by its items).
    fn from(e: crate::card::TemplateEntry) -> Self {
        match e {
            crate::card::TemplateEntry::One(t) => TemplateChoice::Single(t),
            crate::card::TemplateEntry::List(l) => TemplateChoice::Random(l),
        }
    }
}

/// The sampler of a recipe that names none (Unitxt's default, `RandomSampler()`).
static DEFAULT_SAMPLER: crate::splitters::samplers::RandomSampler = crate::splitters::samplers::RandomSampler {};

fn as_list(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(a) => a.clone(),
        other => vec![other.clone()],
    }
}

impl Recipe {
    /// Builds the recipe from its arguments: resolves every artifact in `catalog` and checks
    /// the arguments as Unitxt's `DatasetRecipe.prepare` and `verify` do.
    pub fn build(args: &RecipeArgs, cx: &BuildContext<'_>) -> Result<Recipe> {
        let catalog = cx.catalog().clone();
        let f = RecipeFields::of(args)?;
        // A recipe of a task alone (Unitxt's `DatasetRecipe(task=...)`, for producing instances
        // given in code): a card with that task and no loader.
        let task_card;
        let card_v = match (f.card.as_ref(), f.task.as_ref()) {
            (Some(c), _) => c,
            (None, Some(t)) => {
                task_card = crate::json!({"__type__": "task_card", "loader": null, "task": t.clone()});
                &task_card
            }
            (None, None) => return Err(Error::invalid("the recipe needs a `card` (or a `task`, to produce instances given in code)")),
        };
        let card: Art<Card> = cx.build::<Card>(card_v).ctx(if f.card.is_some() { "recipe argument `card`" } else { "recipe argument `task`" })?;
        let task: &Art<Task> = &card.task;

        let num_demos = match f.num_demos.as_ref() {
            None => NumDemos::Fixed(0),
            Some(Value::Array(a)) => NumDemos::OneOf(
                a.iter()
                    .map(|x| x.as_u64().map(|n| n as usize).ok_or_else(|| Error::invalid(format!("num_demos entries must be ints, got {x}"))))
                    .collect::<Result<_>>()?,
            ),
            Some(v) => NumDemos::Fixed(
                v.as_u64().ok_or_else(|| Error::invalid(format!("num_demos must be an int or a list of ints, got {v}")))? as usize,
            ),
        };
        let use_demos = num_demos.max() > 0;

        // Templates (DatasetRecipe.prepare).
        if f.template.is_some() && f.template_card_index.is_some() {
            return Err(Error::invalid("specify either `template` or `template_card_index`, not both"));
        }
        let templates = if let Some(t) = f.template.as_ref() {
            match Templates::from_value(t, cx).ctx("recipe argument `template`")? {
                Templates::One(t) => TemplateChoice::Single(t),
                Templates::List(l) => TemplateChoice::Random(
                    l.into_iter().map(|e| e.single("an item of recipe argument `template`")).collect::<Result<_>>()?,
                ),
                Templates::Dict(_) => return Err(Error::invalid("recipe argument `template` cannot be a dict of templates")),
            }
        } else {
            let idx = f.template_card_index.clone();
            match (&card.templates, idx) {
                (Some(Templates::List(l)), idx) => {
                    let i = match &idx {
                        None => 0,
                        Some(v) => v.as_u64().ok_or_else(|| Error::invalid(format!("template_card_index {v} must be an int for this card")))? as usize,
                    };
                    l.get(i).cloned().map(TemplateChoice::from).ok_or_else(|| {
                        Error::invalid(format!("template_card_index {i} is not defined in the card; options: 0..{}", l.len()))
                    })?
                }
                (Some(Templates::Dict(d)), idx) => {
                    let key = match &idx {
                        None => d.keys().next().cloned().unwrap_or_default(),
                        Some(Value::String(s)) => s.as_str().to_owned(),
                        Some(v) => v.to_string(),
                    };
                    d.get(&key).cloned().map(TemplateChoice::from).ok_or_else(|| {
                        Error::invalid(format!("template_card_index {key:?} is not defined in the card; options: {:?}", d.keys().collect::<Vec<_>>()))
                    })?
                }
                (Some(Templates::One(t)), None) => TemplateChoice::Single(t.clone()),
                (_, Some(i)) => return Err(Error::invalid(format!("template_card_index {i} given but the card has no templates"))),
                (None, None) => match &task.default_template {
                    Some(t) => TemplateChoice::Single(t.clone()),
                    None => return Err(Error::invalid("no template given in `template` or `template_card_index`, and the card and task define none")),
                },
            }
        };

        // The recipe's serializers go in front of the template's (Unitxt's `DatasetRecipe`
        // calls `template.serializer.add_serializers`), on a copy of the template built for
        // this recipe; it keeps its catalog name.
        let templates = match (f.serializer.as_ref(), templates) {
            (None, t) => t,
            (Some(v), TemplateChoice::Single(t)) => {
                let extra = as_list(v)
                    .iter()
                    .map(|s| cx.build::<dyn crate::templates::Serializer>(s))
                    .collect::<Result<Vec<_>>>()
                    .ctx("recipe argument `serializer`")?;
                let mut own: Art<dyn Template> = cx.build::<dyn Template>(&t.raw)?;
                own.id = t.id.clone();
                own.inner.add_serializers(extra).ctx("recipe argument `serializer`")?;
                TemplateChoice::Single(own)
            }
            (Some(_), TemplateChoice::Random(_)) => {
                return Err(Error::invalid("recipe argument `serializer` needs one template, not a list of templates"))
            }
        };
        // Arguments of Unitxt's `DatasetRecipe` this engine does not implement are refused
        // rather than ignored.
        if f.task.is_some() && f.card.is_some() {
            return Err(Error::unsupported("recipe argument `task` beside a `card` (a task replacing the card's) is not supported; give the task in the card"));
        }
        for (arg, default, given) in [("demos_field", "demos", &f.demos_field), ("demos_pool_field_name", "_demos_pool_", &f.demos_pool_field_name)] {
            match given {
                None => {}
                Some(Value::String(s)) if s.as_str() == default => {}
                Some(v) => {
                    return Err(Error::unsupported(format!("recipe argument `{arg}` other than {default:?} is not supported, got {v}")))
                }
            }
        }
        let system_prompt = match f.system_prompt.as_ref() {
            Some(v) => cx.build::<dyn SystemPrompt>(v).ctx("recipe argument `system_prompt`")?,
            None => cx.build::<dyn SystemPrompt>(&crate::json!({"__type__": "empty_system_prompt"}))?,
        };
        let format = match f.format.as_ref() {
            Some(v) => cx.build::<dyn Format>(v).ctx("recipe argument `format`")?,
            None => cx.build::<dyn Format>(&crate::json!({"__type__": "system_format"}))?,
        };

        let mut augmentors = Vec::new();
        if let Some(a) = f.augmentor.as_ref() {
            for v in as_list(a) {
                let aug = cx.build::<dyn crate::augmentors::Augmentor>(&v).ctx("recipe argument `augmentor`")?;
                if aug.is_identity() {
                    continue;
                }
                if task.augmentable_inputs.is_empty() {
                    return Err(Error::invalid("an augmentor is given but the task has no augmentable_inputs"));
                }
                let fields: Vec<String> = task.augmentable_inputs.iter().map(|f| format!("input_fields/{f}")).collect();
                augmentors.push(aug.for_fields(&fields)?);
            }
        }

        let mut demos_pool_size = match f.demos_pool_size.as_ref() {
            None => None,
            Some(v) => Some(v.as_i64().ok_or_else(|| Error::invalid(format!("demos_pool_size must be an int, got {v}")))?),
        };
        if f.demos_pool.is_some() {
            return Err(Error::unsupported("recipe argument `demos_pool` (an explicit list of demos) is not supported yet"));
        }
        if demos_pool_size == Some(-1) {
            demos_pool_size = Some(i64::MAX);
        }
        let loader_limit = usize_arg("loader_limit", &f.loader_limit)?;
        if use_demos {
            let size = demos_pool_size.filter(|s| *s >= 1).ok_or_else(|| {
                Error::invalid("when using demonstrations both num_demos and demos_pool_size should be positive integers")
            })?;
            if size < num_demos.max() as i64 + 1 {
                return Err(Error::invalid(format!(
                    "num_demos (got: {}) should not exceed demos_pool_size - 1 (got: {size}), (-1: to always allow filtering of a demo identical to the processed instance)",
                    num_demos.max()
                )));
            }
            if let Some(l) = loader_limit {
                if size != i64::MAX && size > l as i64 {
                    return Err(Error::invalid(format!("demos_pool_size should not exceed loader_limit ({l}), got demos_pool_size={size}")));
                }
            }
        }
        let mut max_instances = IndexMap::new();
        for (arg, split, given) in [
            ("max_train_instances", "train", &f.max_train_instances),
            ("max_validation_instances", "validation", &f.max_validation_instances),
            ("max_test_instances", "test", &f.max_test_instances),
        ] {
            if let Some(n) = usize_arg(arg, given)? {
                if let Some(l) = loader_limit {
                    if n > l {
                        return Err(Error::invalid(format!("{arg} should not exceed loader_limit ({l}), got {arg}={n}")));
                    }
                }
                max_instances.insert(split.to_string(), n);
            }
        }
        // `train_refiner`, `validation_refiner`, `test_refiner`: a stream operator for its split
        // (a balancer, say) that replaces the plain `max_*_instances` cut: as Unitxt's
        // `prepare_refiners`, the recipe sets its `max_instances` to the split's
        // `max_*_instances` (none when that is absent, whatever the refiner said) and applies
        // it to that split only.
        let mut refiners = IndexMap::new();
        for (arg, split, given) in [
            ("train_refiner", "train", &f.train_refiner),
            ("validation_refiner", "validation", &f.validation_refiner),
            ("test_refiner", "test", &f.test_refiner),
        ] {
            let Some(given) = given else { continue };
            let mut json = match given {
                Value::String(s) => {
                    artifact_json(s, &catalog).ctx(format!("recipe argument `{arg}`"))?
                }
                other => other.clone(),
            };
            let Value::Object(m) = &mut json else {
                return Err(Error::invalid(format!("recipe argument `{arg}` must be a stream refiner (a catalog name or an object with __type__), got {given}")));
            };
            match max_instances.shift_remove(split) {
                Some(n) => m.insert("max_instances".into(), Value::from(n as i64)),
                None => m.shift_remove("max_instances"),
            };
            m.insert(
                "apply_to_streams".into(),
                Value::Array(vec![Value::String(split.into())]),
            );
            let op = cx.build::<dyn Operator>(&json)
                .ctx(format!("recipe argument `{arg}`"))?;
            refiners.insert(split.to_string(), op);
        }
        let sampler = match f.sampler.as_ref() {
            Some(v) => Some(cx.build::<dyn Sampler>(v).ctx("recipe argument `sampler`")?),
            None => card.sampler.clone(),
        };
        let mut recipe = Recipe {
            templates,
            system_prompt,
            format,
            augmentors,
            num_demos,
            demos_pool_size: demos_pool_size.map(|s| if s == i64::MAX { usize::MAX } else { s.max(0) as usize }).filter(|s| *s > 0),
            demos_taken_from: f.demos_taken_from.as_ref().and_then(|v| v.as_str()).unwrap_or("train").to_string(),
            demos_removed_from_data: f.demos_removed_from_data.as_ref().map(crate::value::truthy).unwrap_or(true),
            demos_sampling_seed: f.demos_sampling_seed.as_ref().and_then(|v| v.as_i64()),
            skip_demoed_instances: f.skip_demoed_instances.as_ref().map(crate::value::truthy).unwrap_or(false),
            sampler,
            loader_limit,
            max_instances,
            refiners,
            metrics: list_arg("metrics", &f.metrics)?.map(|m| Constant::new(Value::Array(m))),
            task_metrics: Constant::new(Value::Array(task.inner.metrics.clone())),
            postprocessors: list_arg("postprocessors", &f.postprocessors)?.map(|p| Constant::new(Value::Array(p))),
            group_by: list_arg("group_by", &f.group_by)?.unwrap_or_default(),
            card,
            catalog,
            metadata_texts: Vec::new(),
        };
        if let NumDemos::Fixed(n) = recipe.num_demos {
            recipe.metadata_texts = recipe.templates.all().iter().map(|t| MetadataText::new(&recipe.recipe_meta(t, n))).collect();
        }
        Ok(recipe)
    }

    /// What `task_data.metadata` says of this recipe for an instance rendered with `template`
    /// and given `n_demos` demos (Unitxt's `recipe_metadata`): the count, the pool size and
    /// the template, all zero and null without demos.
    fn recipe_meta(&self, template: &Art<dyn Template>, n_demos: usize) -> RecipeMeta<'_> {
        let mut meta = RecipeMeta { num_demos: Value::from(0), demos_pool_size: Value::from(0), template: template.to_jsonable(), written: None };
        if self.num_demos.max() > 0 {
            meta.num_demos = Value::from(n_demos);
            meta.demos_pool_size = self.demos_pool_size.map(|s| if s == usize::MAX { Value::from(i64::MAX) } else { Value::from(s) }).unwrap_or(Value::Null);
        }
        meta
    }

    /// Runs the pipeline and returns the finished splits (lazy streams of output instances,
    /// each with exactly [`OUTPUT_FIELDS`]).
    pub fn run(self: &Arc<Self>) -> Result<MultiStream> {
        self.run_map(Arc::new(|o: OutputInstance| Ok(o.into_instance())))
    }

    /// Runs the pipeline and applies `finish` to every output instance on the worker thread
    /// that produced it (for example serializing it as a JSON Lines line), so that only the
    /// results travel back to the consuming thread. Streams keep the instances' order; an
    /// error of `finish` is located (split and position) as the pipeline's own errors are.
    pub fn run_map<T: Send + 'static>(self: &Arc<Self>, finish: Finisher<T>) -> Result<MultiStream<T>> {
        let Staged { streams, pool } = self.stage()?;
        // Deferred steps, verbalization and finalization, per instance, on the thread pool.
        let ms = streams.map_streams(|split, s| {
            let work = self.split_work(split, pool.clone());
            let finish = finish.clone();
            // Every artifact was built with the recipe: nothing looks up the catalog here.
            crate::stream::par_map_with(s, move |i, inst| work.run(i, inst, &finish))
        });
        // Errors raised before verbalization get located too (by output position); a split
        // that comes out empty is an error, as in Unitxt.
        Ok(ms.map_streams(|split, s| {
            crate::stream::non_empty(split, crate::stream::locate_errors(split, s))
        }))
    }

    /// The per-instance steps that follow the card's last stream-level preprocess step, in
    /// order: the card's trailing per-instance steps, the task, the augmentors (see
    /// [`Recipe::stage`]). With them, the index of the first card step they include.
    fn deferred_steps(&self) -> (usize, Vec<Step>) {
        let mut deferred: Vec<Step> = Vec::new();
        let mut keep = 0;
        if let Some(steps) = &self.card.preprocess_steps {
            keep = steps
                .iter()
                .rposition(|op| op.inner.as_instance_op().is_none_or(|i| i.op.needs_stream_order()))
                .map_or(0, |p| p + 1);
            deferred.extend(steps[keep..].iter().map(|op| Step::Card(op.clone())));
        }
        deferred.push(Step::Task(self.card.task.inner.clone(), Arc::new(Fixed::default())));
        for (i, aug) in self.augmentors.iter().enumerate() {
            deferred.push(Step::Named(format!("augmentor {i}"), aug.clone()));
        }
        (keep, deferred)
    }

    /// The stream-level half of the pipeline, the part that sees whole splits: loading
    /// (`loader_limit`), `recipe_metadata`, the card's preprocess steps up to and including
    /// its last stream-level one (split mixing, filters, shuffles, ... any step that is not
    /// a per-instance operator or that needs the stream's order), the demos pool (taken from
    /// `demos_taken_from` after that split ran its per-instance steps) and the
    /// `max_*_instances` refiners. Each split of [`Staged::streams`] then needs only the
    /// per-instance half, [`Recipe::split_work`], which is what [`Recipe::run_map`] runs on
    /// its thread pool and what a distributed run (the Python package's Ray Data support)
    /// runs on its workers, one batch of instances at a time. Streams are lazy: loading
    /// happens as they are read (the demos pool's split excepted, read up to the pool here).
    pub fn stage(self: &Arc<Self>) -> Result<Staged> {
        // Loading: only the columns the card's steps and the task read, when they all say
        // which (every other field is dropped by the task unread).
        let loader = self.card.loader.as_ref().ok_or_else(|| {
            Error::invalid("the card has no loader (`\"loader\": null`): it describes a task over data given elsewhere; give the data with `create_dataset` or a card with a loader")
        })?;
        let mut ms = match self.columns_read() {
            Some(columns) => loader.load_columns(self.loader_limit, &columns),
            None => loader.load(self.loader_limit),
        }
        .ctx("in the card's loader")?;
        if let Some(l) = self.loader_limit {
            ms = ms.map_streams(|_, s| Box::new(s.take(l)) as Stream);
        }
        // Metadata: `recipe_metadata` starts as {system_prompt, format}, built once and copied.
        // Unitxt stores the two objects themselves there. They never reach the output. The
        // system prompt's name stands in for it (catalog name, or `__type__` for an inline
        // one); the format is its definition (JSON), which `serialize_dialog` reads its
        // `demo_format` from.
        // When every preprocess step says what it reads and none names `recipe_metadata`,
        // nothing before the task can see it and the task keeps it unread: it is not added
        // (the task then carries an empty one, as for any record without it).
        if self.card_steps_may_read("recipe_metadata") {
            let mut base = Instance::with_capacity(2);
            base.insert("system_prompt".into(), Value::String(self.system_prompt.display_name().into()));
            base.insert("format".into(), (*self.format.raw).clone());
            ms = ms.map_streams(|_, s| {
                let base = base.clone();
                Box::new(s.map(move |r| {
                    let mut inst = r?;
                    match inst.get_mut("recipe_metadata") {
                        Some(Value::Object(m)) => m.extend(base.iter().map(|(k, v)| (k.clone(), v.clone()))),
                        _ => {
                            inst.insert("recipe_metadata".into(), Value::Object(base.clone()));
                        }
                    }
                    Ok(inst)
                })) as Stream
            });
        }
        // Standardization. The per-instance steps at the end of the card's preprocess steps
        // (after its last stream-level step) are deferred: they run on the worker threads,
        // fused with the task, augmentors and verbalization that follow them.
        let (keep, deferred) = self.deferred_steps();
        if let Some(steps) = &self.card.preprocess_steps {
            ms = apply_all(&steps[..keep], ms).ctx("in the card's preprocess_steps")?;
        }
        // Demos pool: built from processed instances, so the deferred steps run first on the
        // split it is taken from (the other splits keep them deferred).
        let pool = match self.demos_pool_size {
            Some(size) => {
                ms = run_steps(ms, &self.demos_taken_from, &deferred);
                let (ms2, pool) = demos::create_demos_pool(ms, &self.demos_taken_from, size, self.demos_removed_from_data)?;
                ms = ms2;
                Some(Arc::new(demos::DemosPool::new(pool)))
            }
            None => None,
        };
        // Refiners. Taking the first n instances commutes with the per-instance steps, so the
        // deferred ones can run after it.
        let maxes = self.max_instances.clone();
        ms = ms.map_streams(|name, s| match maxes.get(name) {
            Some(&n) => Box::new(s.take(n)) as Stream,
            None => s,
        });
        // A refiner of the recipe (a balancer) reads the standardized instances: its split runs
        // the deferred steps first, as the demos pool's split did.
        for (split, refiner) in &self.refiners {
            if !ms.streams.contains_key(split) {
                continue;
            }
            if !(pool.is_some() && *split == self.demos_taken_from) {
                ms = run_steps(ms, split, &deferred);
            }
            // A refiner that reads what Unitxt's instances hold beyond ours gets it as text
            // (made only when it asks).
            let seed_context = || Ok(Arc::new(self.refiner_seed_context(pool.as_deref()).ctx(format!("recipe argument `{split}_refiner`"))?));
            let op = refiner.inner.as_recipe_refiner(&seed_context)?.unwrap_or_else(|| refiner.inner.clone());
            ms = op.process(ms).ctx(format!("in the recipe's {split}_refiner"))?;
        }
        Ok(Staged { streams: ms, pool })
    }

    /// What Unitxt's instances hold when its refiners run and the engine's do not (see
    /// [`crate::operators::streams::RefinerSeedContext`]): the task's metrics, the system prompt
    /// and format as Python prints them (a catalog artifact as its name without overwrites, as
    /// Unitxt's `__id__`; the defaults as their dataclass `repr`), and the demos pool. Errors
    /// (kind `Unsupported`) for an inline system prompt or format other than the defaults,
    /// whose `repr` is not reproduced.
    fn refiner_seed_context(&self, pool: Option<&DemosPool>) -> Result<crate::operators::streams::RefinerSeedContext> {
        let object = |id: &Option<crate::value::Str>, raw: &Value, bare_repr: Option<&str>, what: &str| -> Result<String> {
            match (id, bare_repr) {
                (Some(id), _) => Ok(id.split('[').next().unwrap_or(id).to_string()),
                // An inline object given without arguments: its kind's own `repr` then.
                (None, Some(repr)) if raw.as_object().is_some_and(|m| m.len() == 1) => Ok(repr.to_string()),
                (None, _) => Err(Error::unsupported(format!(
                    "minimum_one_example_per_label_refiner seeds its shuffle from Python's repr of the recipe's {what}, which is not reproduced for an inline {what}; give one from the catalog"
                ))),
            }
        };
        let system_prompt = object(&self.system_prompt.id, &self.system_prompt.raw, self.system_prompt.bare_repr(), "system prompt")?;
        let format = object(&self.format.id, &self.format.raw, self.format.bare_repr(), "format")?;
        let mut ctx = crate::operators::streams::RefinerSeedContext {
            metrics: self.task_metrics.value().clone(),
            recipe_metadata: format!("{{'system_prompt': {system_prompt}, 'format': {format}}}"),
            demos_pool: None,
        };
        ctx.demos_pool = pool.map(|p| ctx.list_repr(&p.items, false));
        Ok(ctx)
    }

    /// The per-instance half of the pipeline for split `split` (see [`Recipe::stage`]): the
    /// deferred steps, then demos, template, system prompt, format and finalization.
    /// `pool` is the run's demos pool ([`Staged::pool`]; `None` when the recipe uses none):
    /// the split it was taken from already ran the deferred steps, so its instances get only
    /// the verbalization. Building it reads no data; it is cheap (a few allocations per
    /// template), so each worker of a distributed run builds its own.
    pub fn split_work(self: &Arc<Self>, split: &str, pool: Option<Arc<DemosPool>>) -> SplitWork {
        let (_, deferred) = self.deferred_steps();
        // The split's plan: its steps (none left for the split the demos pool was taken
        // from, or one the recipe refines, which ran them first), and the task_data items of its fixed fields.
        let plan = Steps::for_split(&deferred, split);
        let (task, fixed) = (&self.card.task.inner, &plan.fixed().fields);
        let fixed_items = FixedItems::new(
            task.input_fields.keys().map(|k| (k.as_str(), fixed.get(k))),
            task.reference_fields.keys().map(|k| (k.as_str(), fixed.get(k))),
        );
        // The templates' texts that the fixed fields determine, per template.
        let render_plans: Vec<RenderPlan> = self.templates.all().iter().map(|t| t.plan(fixed)).collect();
        let steps = match pool {
            Some(_) if split == self.demos_taken_from => Steps::default(),
            _ if self.refiners.contains_key(split) => Steps::default(),
            _ => plan,
        };
        SplitWork { recipe: self.clone(), split: split.to_string(), steps, pool, fixed_items, render_plans }
    }

    /// The top-level fields of the loaded records that the card's preprocess steps and the
    /// task may read; `None` when a step does not say (see [`FieldsRead`]). Nothing after the
    /// task sees a field the task does not keep.
    fn columns_read(&self) -> Option<Vec<String>> {
        let steps = self.card.preprocess_steps.iter().flatten().map(|op| op.inner.fields_read());
        let mut out = Vec::new();
        for read in steps.chain([InstanceOperator::fields_read(self.card.task.inner.as_ref())]) {
            match read {
                FieldsRead::Any => return None,
                FieldsRead::Only(fields) => out.extend(fields),
            }
        }
        Some(out)
    }

    /// Whether a card preprocess step may read the top-level field `field` (or a path inside
    /// it): true when a step does not say what it reads ([`FieldsRead::Any`]) or names it (a
    /// step reading a path lists the path's top-level field, see [`FieldsRead::of_paths`]).
    fn card_steps_may_read(&self, field: &str) -> bool {
        self.card.preprocess_steps.iter().flatten().any(|op| match op.inner.fields_read() {
            FieldsRead::Any => true,
            FieldsRead::Only(fields) => fields.iter().any(|f| f == field),
        })
    }

    /// Demos, template, system prompt, format and finalization of one instance of `split`,
    /// `inst` as the task (and the augmentors) left it. Each stage runs once, in Unitxt's
    /// order: the demos are sampled from `pool` and rendered, the template renders the
    /// instance ([`Template::render`]; an instance that came rendered keeps its texts), the
    /// system prompt gives its text ([`SystemPrompt::system_prompt`]), the format builds the
    /// model input ([`Format::format`], on the splits of its scope), and [`finalize`] builds
    /// the output instance, with the recipe's (or the task's) metrics and the recipe's (or the
    /// template's) postprocessors lent to it. Errors name the stage.
    fn verbalize_and_finalize<'p>(
        &'p self,
        mut inst: Instance,
        split: &str,
        pool: Option<&demos::DemosPool>,
        fixed_items: &'p FixedItems,
        render_plans: &[RenderPlan],
    ) -> Result<OutputInstance<'p>> {
        let use_demos = self.num_demos.max() > 0;
        let mut sampled: Option<Vec<&Instance>> = None;
        // The number of demos `task_data.metadata` reports.
        let mut n_demos = 0;
        if use_demos {
            let pool = pool.ok_or_else(|| Error::invalid("demos requested but no demos pool"))?;
            let sampler: &dyn Sampler = match &self.sampler {
                Some(s) => s.inner.as_ref(),
                None => &DEFAULT_SAMPLER,
            };
            sampled = demos::sample_demos(&inst, pool, sampler, &self.num_demos, self.demos_sampling_seed, self.skip_demoed_instances)?;
            n_demos = match (&self.num_demos, &sampled) {
                (NumDemos::Fixed(n), _) => *n,
                (NumDemos::OneOf(_), Some(d)) => d.len(),
                (NumDemos::OneOf(_), None) => inst.get("demos").and_then(|d| d.as_array()).map(|a| a.len()).unwrap_or(0),
            };
        }
        // Borrowed, not cloned: a clone per instance would update the template's shared
        // reference count from every worker thread.
        let (template_index, template) = match &self.templates {
            TemplateChoice::Single(t) => (0, t),
            TemplateChoice::Random(list) => {
                let mut seed = inst.get("input_fields").and_then(|v| v.as_object()).cloned().unwrap_or_default();
                if let Some(r) = inst.get("reference_fields").and_then(|v| v.as_object()) {
                    for (k, v) in r {
                        seed.insert(k.clone(), v.clone());
                    }
                }
                let mut rng = crate::py::random::new_random_generator(&Value::Object(seed));
                let i = rng.choice_index(list.len());
                (i, &list[i])
            }
        };
        // The template's name, for error messages only (made when one happens).
        let tname = || template.display_name();
        // Demos rendered by the pool, handed to finalization (their `task_data` dicts are
        // written once per pool demo).
        let mut pool_demos = None;
        if use_demos {
            let in_demo = || format!("in template `{}` (a demo)", tname());
            let out = match (sampled, pool) {
                (Some(picked), Some(pool)) => {
                    let mut out = Vec::with_capacity(picked.len());
                    let mut rendered = Vec::with_capacity(picked.len());
                    for d in picked {
                        let r = pool.render(d, template).with_ctx(in_demo)?;
                        out.push(Value::Object(r.format_view.clone()));
                        rendered.push(r);
                    }
                    pool_demos = Some(rendered);
                    out
                }
                _ => match inst.shift_remove("demos") {
                    Some(Value::Array(demos)) => {
                        let mut out = Vec::with_capacity(demos.len());
                        for d in demos {
                            let d = match d {
                                Value::Object(m) => m,
                                other => return Err(Error::invalid(format!("a demo must be a dict, got {other}"))),
                            };
                            out.push(Value::Object(template.process_instance(d, "").with_ctx(in_demo)?));
                        }
                        out
                    }
                    _ => return Err(Error::invalid("demos field is missing")),
                },
            };
            inst.insert("demos".into(), Value::Array(out));
        }
        // What `task_data.metadata` reports of the recipe, handed straight to finalization
        // (its text made once when it is the same for every instance).
        let meta = match self.metadata_texts.get(template_index) {
            Some(text) => RecipeMeta { written: Some(text), ..self.recipe_meta(template, n_demos) },
            None => self.recipe_meta(template, n_demos),
        };
        let in_template = || format!("in template `{}`", tname());
        let plan = render_plans.get(template_index).ok_or_else(|| Error::invalid("no render plan for the template"))?;
        let rendered = match template.render(&mut inst, split, plan).with_ctx(in_template)? {
            Some(r) => r,
            None => Rendered::taken_from(&mut inst).with_ctx(in_template)?,
        };
        let Rendered { source, instruction, target_prefix, input_fields, mut reference_fields, mut target, mut references, postprocessors } = rendered;
        if split == INFERENCE_STREAM {
            // Produced for a model: no references; the task data holds the input fields only.
            reference_fields.get_or_insert_with(Default::default);
            target.get_or_insert_with(|| Value::from(""));
            references.get_or_insert_with(|| Value::Array(Vec::new()));
        }
        let system_prompt = self.system_prompt.system_prompt(inst.swap_remove(SYSTEM_PROMPT_FIELD), split);
        let source = if self.format.scope().applies(split) {
            let pieces = Pieces { source: Some(source), instruction, system_prompt, target_prefix };
            self.format.format_with_inputs(&mut inst, pieces, input_fields.as_ref()).with_ctx(|| format!("in format `{}`", self.format.display_name()))?
        } else {
            source
        };
        let v = Verbalized {
            source,
            input_fields,
            reference_fields,
            target,
            references,
            postprocessors: self.postprocessors.as_ref().map(Shared::Lent).or(postprocessors),
            metrics: Shared::Lent(self.metrics.as_ref().unwrap_or(&self.task_metrics)),
            fixed_items: Some(fixed_items),
        };
        finalize(inst, v, &self.group_by, meta, pool_demos)
    }
}

impl Recipe {
    /// Verbalizes task instances for a model (Unitxt's `DatasetRecipe.produce` without demos):
    /// each instance (a dict of the task's input fields, plus optionally its
    /// `data_classification_policy`) goes through the task, the template, the system prompt,
    /// the format and finalization as an instance of Unitxt's inference stream: no target, no
    /// references, `task_data` with the input fields and the metadata only. The card's loader
    /// and preprocess steps are not run. Returns the output instances without `target` and
    /// `references`, in order. Errors: a recipe with demos (`num_demos`), and every error of
    /// the task, template and format, naming the instance.
    pub fn produce_instances(&self, instances: Vec<Instance>) -> Result<Vec<Instance>> {
        if self.num_demos.max() > 0 {
            return Err(Error::unsupported("producing instances with demos is not supported here (num_demos > 0)"));
        }
        let task = &self.card.task.inner;
        let fixed_items = FixedItems::default();
        let render_plans: Vec<RenderPlan> = self.templates.all().iter().map(|t| t.plan(&Instance::new())).collect();
        let mut out = Vec::with_capacity(instances.len());
        for (i, inst) in instances.into_iter().enumerate() {
            let inst = task.process_inference(inst).map_err(|e| Steps::locate(e, TASK_STEP, INFERENCE_STREAM, i))?;
            let done = self.verbalize_and_finalize(inst, INFERENCE_STREAM, None, &fixed_items, &render_plans).map_err(|e| e.at_instance(INFERENCE_STREAM, i))?;
            let mut m = done.into_instance();
            m.shift_remove("target");
            m.shift_remove("references");
            out.push(m);
        }
        Ok(out)
    }
}

impl crate::metrics::llm_judge::template::Produce for Recipe {
    fn produce(&self, instances: Vec<Instance>) -> Result<Vec<Instance>> {
        self.produce_instances(instances)
    }
}

/// What [`Recipe::run_map`] applies to each finished instance, on the worker threads.
pub type Finisher<T> = Arc<dyn for<'p> Fn(OutputInstance<'p>) -> Result<T> + Send + Sync>;

/// A recipe run cut after its stream-level stages ([`Recipe::stage`]).
pub struct Staged {
    /// Per split, the instances as the stream-level stages leave them (loaded,
    /// standardized up to the card's last stream-level step, refined to `max_*_instances`),
    /// in output order: instance `i` here becomes output instance `i`.
    pub streams: MultiStream,
    /// The demos pool, when the recipe uses demos: its instances went through every
    /// per-instance step (they are processed as the task leaves them).
    pub pool: Option<Arc<DemosPool>>,
}

/// The per-instance stages of one split of a recipe ([`Recipe::split_work`]): what turns an
/// instance of [`Staged::streams`] into its output instance. Shared by threads (`Sync`).
pub struct SplitWork {
    recipe: Arc<Recipe>,
    split: String,
    steps: Steps,
    pool: Option<Arc<DemosPool>>,
    fixed_items: FixedItems,
    render_plans: Vec<RenderPlan>,
}

impl SplitWork {
    /// Runs the per-instance stages on `inst`, the split's instance at position `i` (used in
    /// error locations only), and hands the output instance to `finish`. Errors name the step
    /// or stage, the split and `i`.
    pub fn run<T>(&self, i: usize, inst: Instance, finish: &Finisher<T>) -> Result<T> {
        let inst = self.steps.apply(inst, &self.split, i)?;
        let out = self
            .recipe
            .verbalize_and_finalize(inst, &self.split, self.pool.as_deref(), &self.fixed_items, &self.render_plans)
            .map_err(|e| e.at_instance(&self.split, i))?;
        finish(out)
    }

    /// The split this work is for.
    pub fn split(&self) -> &str {
        &self.split
    }
}

/// A per-instance step whose run the recipe defers to its worker threads.
#[derive(Clone)]
enum Step {
    /// One of the card's preprocess steps (an [`crate::operators::InstanceOp`]), limited to
    /// the splits of its scope.
    Card(Art<dyn Operator>),
    /// The task ([`Task::process`]) with the fields fixed for the split, on every split;
    /// errors say `in task`.
    Task(Arc<Task>, Arc<Fixed>),
    /// An augmentor, on every split; errors say `in {name}`.
    Named(String, Arc<dyn InstanceOperator>),
}

/// The plan of one split: the deferred steps that apply to it, in order. The card's `set`s
/// of constants just before the task (after every step that could see what they write) are
/// not among them when the task can take their fields as fixed ([`Task::fix`]): their
/// fields are given to the task once, here, instead of being written into every instance.
#[derive(Default)]
struct Steps(Vec<Step>);

impl Steps {
    fn for_split(steps: &[Step], split: &str) -> Steps {
        let mut plan: Vec<Step> = Vec::with_capacity(steps.len());
        for s in steps {
            match s {
                Step::Card(op) if !op.as_instance_op().is_some_and(|i| i.scope.applies(split)) => {}
                Step::Task(task, fixed) => {
                    let mut fixed = (**fixed).clone();
                    // Trailing `set`s, last first: a later one wins over an earlier one.
                    while let Some(Step::Card(op)) = plan.last() {
                        let Some(mut fields) = crate::operators::fields::Set::plain_fields(&op.raw) else { break };
                        for (k, v) in &fixed.fields {
                            fields.insert(k.clone(), v.clone());
                        }
                        let Some(more) = task.fix(fields) else { break };
                        fixed = more;
                        plan.pop();
                    }
                    plan.push(Step::Task(task.clone(), Arc::new(fixed)));
                }
                other => plan.push(other.clone()),
            }
        }
        Steps(plan)
    }

    /// The fields the plan's task step takes as fixed (none without a task step).
    fn fixed(&self) -> &Fixed {
        static NONE: std::sync::LazyLock<Fixed> = std::sync::LazyLock::new(Fixed::default);
        self.0.iter().find_map(|s| match s {
            Step::Task(_, f) => Some(&**f),
            _ => None,
        })
        .unwrap_or(&NONE)
    }

    /// Runs the steps on instance `i` of `split`; errors carry the same context as when each
    /// step runs as its own stage (the step, then the split and position).
    fn apply(&self, mut inst: Instance, split: &str, i: usize) -> Result<Instance> {
        for step in &self.0 {
            inst = Steps::apply_one(step, inst, split, i)?;
        }
        Ok(inst)
    }

    /// Runs one step on instance `i` of `split`, as [`Steps::apply`] does.
    fn apply_one(step: &Step, inst: Instance, split: &str, i: usize) -> Result<Instance> {
        match step {
            Step::Card(op) => match op.as_instance_op() {
                Some(op) => op.apply(inst, split, i),
                None => Ok(inst),
            },
            Step::Task(task, fixed) => task.process(inst, fixed).map_err(|e| Steps::locate(e, TASK_STEP, split, i)),
            Step::Named(name, op) => op.process_instance(inst, split).map_err(|e| Steps::locate(e, name, split, i)),
        }
    }

    /// Error `e` of step `name` on instance `i` of `split`, with the context [`Steps::apply`]
    /// gives it.
    fn locate(e: Error, name: &str, split: &str, i: usize) -> Error {
        e.context(format!("in {name}")).at_instance(split, i)
    }
}

/// The name of the task's step in errors (`in task`).
const TASK_STEP: &str = "task";

/// Runs `steps` on split `split` as one stage on the thread pool (see
/// [`crate::stream::par_map`]).
fn run_steps(mut ms: MultiStream, split: &str, steps: &[Step]) -> MultiStream {
    let steps = Steps::for_split(steps, split);
    if let Some(s) = ms.streams.get_mut(split) {
        let stream = std::mem::replace(s, Box::new(std::iter::empty()));
        let split = split.to_string();
        *s = crate::stream::par_map(stream, move |i, inst| steps.apply(inst, &split, i));
    }
    ms
}

/// The JSON of the catalog artifact that `query` names (`name` or `name[key=value,...]`, the
/// overrides merged in), or `None` when `query` is not the name of an artifact in `catalog`.
pub(crate) fn named_artifact(query: &str, catalog: &Arc<Catalog>) -> Result<Option<Value>> {
    let Ok((name, overwrites)) = crate::query::split_name_and_overwrites(query) else { return Ok(None) };
    if !crate::query::is_legal_catalog_name(&name) || !catalog.contains(&name) {
        return Ok(None);
    }
    let mut json = (*catalog.get_json(&name)?).clone();
    merge_args(&mut json, overwrites.into_iter().flatten());
    Ok(Some(json))
}

/// The JSON of the catalog artifact that `query` names, as [`named_artifact`] gives it;
/// errors (with the catalog's suggestions) when there is none.
fn artifact_json(query: &str, catalog: &Arc<Catalog>) -> Result<Value> {
    match named_artifact(query, catalog)? {
        Some(json) => Ok(json),
        None => {
            let (name, _) = crate::query::split_name_and_overwrites(query)?;
            catalog.get_json(&name)?;
            Err(Error::invalid(format!("{query:?} is not a catalog artifact name")))
        }
    }
}

/// Sets `args` in the artifact object `json` (an override replaces the value in place).
pub(crate) fn merge_args(json: &mut Value, args: impl IntoIterator<Item = (String, Value)>) {
    if let Some(m) = json.as_object_mut() {
        m.extend(args.into_iter().map(|(k, v)| (k.into(), v)));
    }
}

/// What a query names: a recipe, or a benchmark or fusion of recipes ([`benchmark::Benchmark`]).
pub enum Source {
    /// A recipe.
    Recipe(Arc<Recipe>),
    /// A benchmark or a fusion (`fixed_fusion`, `weighted_fusion`): its subsets' splits
    /// concatenated or drawn, each instance's `subset` naming its subset.
    Benchmark(Arc<benchmark::Benchmark>),
}

impl Source {
    /// Runs it; `finish` is applied to every output instance on the thread that prepared it
    /// (see [`Recipe::run_map`]).
    pub fn run_map<T: Send + 'static>(&self, finish: Finisher<T>) -> Result<MultiStream<T>> {
        match self {
            Source::Recipe(r) => r.run_map(finish),
            Source::Benchmark(b) => b.run_map(finish),
        }
    }

    /// Runs it, giving output instances as maps with exactly [`OUTPUT_FIELDS`].
    pub fn run(&self) -> Result<MultiStream> {
        self.run_map(Arc::new(|o: OutputInstance| Ok(o.into_instance())))
    }
}

/// Runs the operators of `ops` on a multi-stream (used by tests and tools).
pub fn run_operators(ops: &[Art<dyn Operator>], ms: MultiStream) -> Result<MultiStream> {
    apply_all(ops, ms)
}

impl crate::artifact::ArtifactKind for Recipe {
    const KIND: &'static str = "recipe";
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn recipe(steps: Value) -> Recipe {
        let card = json!({
            "__type__": "task_card",
            "loader": {"__type__": "load_hf", "path": "rajpurkar/squad"},
            "preprocess_steps": steps,
            "task": {
                "__type__": "task",
                "input_fields": {"context": "str", "question": "str"},
                "reference_fields": {"answers": "List[str]"},
                "metrics": ["metrics.squad"]
            }
        });
        let template = json!({"__type__": "input_output_template", "input_format": "{question}", "output_format": "{answers}"});
        let args = RecipeArgs::from_map([("card".to_string(), card), ("template".to_string(), template)].into_iter().collect()).unwrap();
        Recipe::build(&args, &crate::registry::context(&Arc::new(Catalog::new(vec![])))).unwrap()
    }

    /// The text `minimum_one_example_per_label_refiner` seeds from, for the default system
    /// prompt and format (their dataclass reprs), with the task's metrics after `input_fields`
    /// and the pool last; an inline format other than the default is refused.
    #[test]
    fn refiner_seed_context_prints_instances_as_unitxt_holds_them() {
        let r = recipe(json!([]));
        let ctx = r.refiner_seed_context(None).unwrap();
        assert!(ctx.recipe_metadata.starts_with("{'system_prompt': EmptySystemPrompt(__type__='empty_system_prompt', "), "{}", ctx.recipe_metadata);
        assert!(ctx.recipe_metadata.ends_with(r"demo_format='{source}\\N{target_prefix}{target}\n\n', model_input_format='{system_prompt}\\N{instruction}\\N{demos}{source}\\N{target_prefix}', format_args={})}"), "{}", ctx.recipe_metadata);
        let ctx = crate::operators::streams::RefinerSeedContext {
            metrics: json!(["metrics.squad"]),
            recipe_metadata: "{'system_prompt': system_prompts.empty, 'format': formats.empty}".into(),
            demos_pool: None,
        };
        let inst = json!({"input_fields": {"question": "q?"}, "data_classification_policy": ["public"], "media": {}, "recipe_metadata": {}, "reference_fields": {"answers": ["a"]}});
        let pool = ctx.list_repr(&[inst.as_object().unwrap().clone()], false);
        let ctx = crate::operators::streams::RefinerSeedContext { demos_pool: Some(pool), ..ctx };
        let mut out = String::new();
        ctx.write_instance(inst.as_object().unwrap(), true, &mut out);
        let one = "{'input_fields': {'question': 'q?'}, 'metrics': ['metrics.squad'], 'data_classification_policy': ['public'], 'media': {}, 'recipe_metadata': {'system_prompt': system_prompts.empty, 'format': formats.empty}, 'reference_fields': {'answers': ['a']}";
        assert_eq!(out, format!("{one}, '_demos_pool_': [{one}}}]}}"));
        let mut r = recipe(json!([]));
        r.format = crate::registry::build_as::<dyn Format>(&json!({"__type__": "system_format", "demo_format": "{source}"}), &Arc::new(Catalog::new(vec![]))).unwrap();
        let e = r.refiner_seed_context(None).unwrap_err();
        assert_eq!(e.kind, crate::error::ErrorKind::Unsupported, "{e}");
        assert!(e.to_string().contains("inline format"), "{e}");
    }

    #[test]
    fn columns_read_by_the_steps_and_the_task() {
        let r = recipe(json!([
            {"__type__": "split_random_mix", "mix": {"train": "train[95%]", "test": "validation"}},
            {"__type__": "copy", "field": "answers/text", "to_field": "answers"},
            {"__type__": "set", "fields": {"context_type": "passage", "meta/source": "squad"}},
            {"__type__": "rename", "field_to_field": {"title": "topic"}},
            {"__type__": "map_instance_values", "mappers": {"label": {"0": "no"}}}
        ]));
        let carried = ["data_classification_policy", "media", "recipe_metadata", "demos", "instruction", "system_prompt"];
        let mut want = vec![
            "answers", "answers/text", "answers", "meta", "meta/source", "title", "topic", "label", "context", "question",
            "answers",
        ];
        want.extend(carried);
        assert_eq!(r.columns_read().unwrap(), want);
    }

    #[test]
    fn an_expression_reads_the_names_it_mentions() {
        let r = recipe(json!([
            {"__type__": "execute_expression", "expression": "len(context) + len(title)", "to_field": "n/m"},
            {"__type__": "filter_by_expression", "expression": "n['m'] > 10 and lang == 'en'"},
            {"__type__": "apply", "function": "str.lower", "_argv": ["question"], "to_field": "q"},
            {"__type__": "move", "field": "a/b", "to_field": "c"}
        ]));
        let read = r.columns_read().unwrap();
        assert_eq!(read[..9], ["n", "n/m", "len", "context", "len", "title", "n", "lang", "question"]);
        assert_eq!(read[9..12], ["a", "a/b", "c"]);
    }

    #[test]
    fn recipe_metadata_is_added_only_for_steps_that_may_read_it() {
        let quiet = recipe(json!([
            {"__type__": "copy", "field": "answers/text", "to_field": "answers"},
            {"__type__": "set", "fields": {"context_type": "passage"}}
        ]));
        assert!(!quiet.card_steps_may_read("recipe_metadata"));
        assert!(quiet.card_steps_may_read("answers"));
        let named = recipe(json!([
            {"__type__": "copy", "field": "recipe_metadata/format", "to_field": "fmt"}
        ]));
        assert!(named.card_steps_may_read("recipe_metadata"));
        let expr = recipe(json!([
            {"__type__": "execute_expression", "expression": "str(recipe_metadata)", "to_field": "m"}
        ]));
        assert!(expr.card_steps_may_read("recipe_metadata"));
        let unknown = recipe(json!([
            {"__type__": "extract_with_regex", "field": "context", "regex": "a+"}
        ]));
        assert!(unknown.card_steps_may_read("recipe_metadata"));
    }

    #[test]
    fn a_step_that_may_read_anything_reads_every_column() {
        let r = recipe(json!([
            {"__type__": "copy", "field": "answers/text", "to_field": "answers"},
            {"__type__": "load_json", "field": "meta"},
            {"__type__": "extract_with_regex", "field": "context", "regex": "a+"}
        ]));
        assert_eq!(r.columns_read(), None);
    }

    /// The two halves of a run ([`Recipe::stage`], then [`Recipe::split_work`] on each staged
    /// instance, as a distributed run does with a pool it was handed) give the rows of
    /// [`Recipe::run`], in order: with demos from another split, with the pool taken from the
    /// split itself, and after a stream-level card step (a filter).
    #[test]
    fn stage_then_split_work_gives_the_run() {
        let rows: Vec<Value> = (0..30)
            .map(|i| json!({"text": format!("sentence number {i}"), "label": if i % 3 == 0 { "negative" } else { "positive" }}))
            .collect();
        let card = json!({
            "__type__": "task_card",
            "loader": {"__type__": "load_from_dictionary", "data": {"train": rows.clone(), "test": rows}},
            "preprocess_steps": [
                {"__type__": "filter_by_condition", "values": {"label": "positive"}, "condition": "ne"}
            ],
            "task": {
                "__type__": "task",
                "input_fields": {"text": "str"},
                "reference_fields": {"label": "str"},
                "metrics": ["metrics.accuracy"]
            }
        });
        let template = json!({"__type__": "input_output_template", "input_format": "Say: {text}", "output_format": "{label}"});
        let catalog = Arc::new(Catalog::new(vec![]));
        for (split, taken_from) in [("test", "train"), ("test", "test"), ("train", "test")] {
            let args: IndexMap<String, Value> = [
                ("card", card.clone()),
                ("template", template.clone()),
                ("num_demos", json!(2)),
                ("demos_pool_size", json!(4)),
                ("demos_taken_from", json!(taken_from)),
                ("max_test_instances", json!(7)),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
            let recipe = Arc::new(Recipe::build(&RecipeArgs::from_map(args).unwrap(), &crate::registry::context(&catalog)).unwrap());
            let want = crate::stream::collect(recipe.run().unwrap().take(split).unwrap()).unwrap();
            let mut staged = recipe.stage().unwrap();
            let pool = staged.pool.clone().map(|p| Arc::new(DemosPool::new(p.items.clone())));
            let work = recipe.split_work(split, pool);
            let finish: Finisher<Instance> = Arc::new(|o: OutputInstance| Ok(o.into_instance()));
            let got: Vec<Instance> = staged
                .streams
                .take(split)
                .unwrap()
                .enumerate()
                .map(|(i, r)| work.run(i, r.unwrap(), &finish).unwrap())
                .collect();
            assert!(!want.is_empty(), "{split} from {taken_from}");
            assert_eq!(got, want, "{split}, demos from {taken_from}");
        }
    }

    /// Recipe arguments of Unitxt's `DatasetRecipe` that this engine does not implement are
    /// refused, naming the argument; a serializer needs one template.
    #[test]
    fn unimplemented_recipe_arguments_are_refused() {
        let card = json!({
            "__type__": "task_card",
            "loader": {"__type__": "load_hf", "path": "rajpurkar/squad"},
            "task": {"__type__": "task", "input_fields": {"question": "str"}, "reference_fields": {"answers": "List[str]"}, "metrics": ["metrics.squad"]}
        });
        let template = json!({"__type__": "input_output_template", "input_format": "{question}", "output_format": "{answers}"});
        let build = |extra: &[(&str, Value)]| {
            let mut args: IndexMap<String, Value> = [("card".to_string(), card.clone()), ("template".to_string(), template.clone())].into_iter().collect();
            args.extend(extra.iter().map(|(k, v)| (k.to_string(), v.clone())));
            Recipe::build(&RecipeArgs::from_map(args).unwrap(), &crate::registry::context(&Arc::new(Catalog::new(vec![]))))
        };
        assert!(build(&[]).is_ok());
        assert!(build(&[("demos_field", json!("demos")), ("demos_pool_field_name", json!("_demos_pool_"))]).is_ok());
        for (arg, v) in [("task", card["task"].clone()), ("demos_field", json!("shots")), ("demos_pool_field_name", json!("pool"))] {
            let e = build(&[(arg, v)]).err().unwrap_or_else(|| panic!("{arg} accepted"));
            assert_eq!(e.kind, crate::error::ErrorKind::Unsupported, "{arg}: {e}");
            assert!(e.to_string().contains(&format!("`{arg}`")), "{arg}: {e}");
        }
        // A refiner is built for its split, with the recipe's max; it must be a stream operator.
        let r = build(&[
            (
                "train_refiner",
                json!({"__type__": "stream_refiner", "max_instances": 3}),
            ),
            ("max_train_instances", json!(5)),
        ])
        .unwrap();
        assert_eq!(r.refiners.keys().collect::<Vec<_>>(), ["train"]);
        assert!(r.max_instances.is_empty(), "the refiner takes the cut");
        let e = build(&[("test_refiner", json!(5))])
            .err()
            .expect("not a refiner");
        assert!(
            e.to_string()
                .contains("`test_refiner` must be a stream refiner"),
            "{e}"
        );
        let number = json!({"__type__": "number_quantizing_serializer", "quantum": 0.5});
        assert!(build(&[("serializer", number.clone())]).is_ok());
        let two = json!([template.clone(), template.clone()]);
        let e = build(&[("template", two), ("serializer", number)]).err().expect("a list of templates");
        assert!(e.to_string().contains("serializer"), "{e}");
    }

    /// The typed arguments: every argument of Unitxt's `DatasetRecipe` is a field, `null` is
    /// absent, and a name that is not one is an error even past [`RecipeArgs::from_map`].
    #[test]
    fn recipe_fields_are_typed() {
        let args = |pairs: &[(&str, Value)]| RecipeArgs { args: pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect() };
        assert_eq!(known_args().len(), 32);
        for k in known_args() {
            assert!(RecipeFields::of(&args(&[(k, json!(1))])).is_ok(), "{k}");
        }
        let f = RecipeFields::of(&args(&[("card", json!("cards.x")), ("num_demos", json!(null))])).unwrap();
        assert_eq!((f.card, f.num_demos), (Some(json!("cards.x")), None));
        let e = RecipeFields::of(&args(&[("num_demo", json!(1))])).err().expect("unknown");
        assert!(e.message.contains("num_demo"), "{e}");
    }
}
