//! The engine's entry points: prepare a recipe (a recipe string, or the name of a
//! `dataset_recipe`, `benchmark` or fusion artifact) in the standard catalog. They sit on top
//! of the registry and the recipe: they make the build's [`crate::artifact::BuildContext`]
//! ([`crate::registry::context`]) and hand it to [`Recipe::build`] or [`Benchmark::build`].

use std::path::PathBuf;
use std::sync::Arc;

use indexmap::IndexMap;

use crate::catalog::Catalog;
use crate::error::{Error, Result, ResultExt};
use crate::recipe::benchmark::Benchmark;
use crate::recipe::{merge_args, named_artifact, Finisher, Recipe, RecipeArgs, Source};
use crate::stream::MultiStream;
use crate::value::Value;

/// Options of [`prepare`].
#[derive(Debug, Clone, Default)]
pub struct PrepareOptions {
    /// Extra catalog directories, as `--catalog` gives them.
    pub catalogs: Vec<PathBuf>,
}

/// Resolves a recipe query (or the name of a `dataset_recipe`, `benchmark` or fusion artifact, with
/// optional `[key=value,...]` overrides) in the standard catalog (plus `opts.catalogs`) and
/// runs it.
pub fn prepare(query: &str, opts: &PrepareOptions) -> Result<MultiStream> {
    build_with(Some(query), IndexMap::new(), opts)?.run()
}

/// Like [`prepare`], with `finish` applied to every output instance on the worker threads
/// (see [`crate::recipe::Recipe::run_map`]); the CLI serializes instances there.
pub fn prepare_map<T: Send + 'static>(query: &str, opts: &PrepareOptions, finish: Finisher<T>) -> Result<MultiStream<T>> {
    build_with(Some(query), IndexMap::new(), opts)?.run_map(finish)
}

/// Like [`prepare`], with recipe arguments given as values (as Unitxt's `load_dataset` takes
/// keyword arguments): `query` (a recipe string or a `dataset_recipe` name, optional) is parsed
/// first, then each of `overrides` replaces or adds an argument. A value is a catalog name, an
/// inline artifact (a JSON object with `__type__`), or a plain value (`num_demos: 2`). Errors:
/// neither a query nor arguments, an unknown argument name, and every error of [`prepare`].
pub fn prepare_with(query: Option<&str>, overrides: IndexMap<String, Value>, opts: &PrepareOptions) -> Result<MultiStream> {
    build_with(query, overrides, opts)?.run()
}

/// [`prepare_with`] with `finish` applied to every output instance on the worker threads (as
/// [`prepare_map`]); the Python bindings build Arrow rows there.
pub fn prepare_with_map<T: Send + 'static>(
    query: Option<&str>,
    overrides: IndexMap<String, Value>,
    opts: &PrepareOptions,
    finish: Finisher<T>,
) -> Result<MultiStream<T>> {
    build_with(query, overrides, opts)?.run_map(finish)
}

/// The recipe, benchmark or fusion of [`prepare_with`]'s arguments, built but not run. A
/// benchmark or fusion takes `overrides` as its own arguments (`max_samples_per_subset=5`, `format=...`).
/// Errors: those of [`prepare_with`] that come before reading data.
pub fn build_with(query: Option<&str>, overrides: IndexMap<String, Value>, opts: &PrepareOptions) -> Result<Source> {
    let catalog = Arc::new(Catalog::standard(&opts.catalogs));
    let cx = crate::registry::context(&catalog);
    let query = query.map(str::trim).filter(|q| !q.is_empty());
    // The artifact the query names, looked up once.
    let named = match query {
        Some(q) => named_artifact(q, &catalog)?,
        None => None,
    };
    let mut args = match (named, query) {
        (Some(mut json), Some(q)) if json.get("__type__").and_then(|t| t.as_str()) == Some("benchmark") => {
            merge_args(&mut json, overrides);
            let b = Benchmark::build(&json, &cx, &IndexMap::new()).ctx(format!("in benchmark `{q}`"))?;
            return Ok(Source::Benchmark(Arc::new(b)));
        }
        (Some(mut json), Some(q)) if json.get("__type__").and_then(|t| t.as_str()).is_some_and(|t| crate::recipe::benchmark::FUSION_TYPES.contains(&t)) => {
            merge_args(&mut json, overrides);
            let b = Benchmark::build_fusion(&json, &cx).ctx(format!("in fusion `{q}`"))?;
            return Ok(Source::Benchmark(Arc::new(b)));
        }
        (Some(json), _) => RecipeArgs::from_json(&json)?,
        (None, Some(q)) => RecipeArgs::from_key_values(q)?,
        (None, None) if overrides.is_empty() => return Err(Error::invalid("give a recipe string or recipe arguments (card=..., template=...)")),
        (None, None) => RecipeArgs::default(),
    };
    let extra = RecipeArgs::from_map(overrides)?;
    args.args.extend(extra.args);
    Ok(Source::Recipe(Arc::new(Recipe::build(&args, &cx)?)))
}


/// Verbalizes task instances given in code (Unitxt's `produce`): the recipe of `query` and
/// `overrides` (as [`prepare_with`] takes them; a `task` without a `card` is a recipe of that
/// task alone) runs each of `instances` (a dict of the task's input fields) through its task,
/// template, system prompt, format and finalization, as Unitxt's inference stream: no target or
/// references. The card's loader and preprocess steps are not run. Errors: a benchmark or
/// fusion, a recipe with demos, and those of the recipe's parts (naming the instance).
pub fn produce(query: Option<&str>, overrides: IndexMap<String, Value>, instances: Vec<crate::value::Instance>, opts: &PrepareOptions) -> Result<Vec<crate::value::Instance>> {
    match build_with(query, overrides, opts)? {
        Source::Recipe(r) => r.produce_instances(instances),
        Source::Benchmark(_) => Err(Error::unsupported("produce takes a recipe, not a benchmark or fusion")),
    }
}

/// Builds the inference engine `engine` names, as `--engine` takes it: a catalog name (with
/// optional `[key=value]` overwrites, `engines.ibm_gen_ai.llama_3_70b_instruct[max_new_tokens=10]`)
/// or an inline artifact (JSON text starting with `{`), in the standard catalog plus
/// `catalogs`. Errors: invalid JSON, an artifact that does not build, or one that is not an
/// inference engine.
pub fn build_engine(engine: &str, catalogs: &[PathBuf]) -> Result<crate::artifact::Art<dyn crate::inference::InferenceEngine>> {
    let catalog = Arc::new(Catalog::standard(catalogs));
    let reference = if engine.trim_start().starts_with('{') {
        crate::py::json::loads(engine, false).map_err(|e| Error::invalid(format!("the engine is not valid JSON: {e}")))?
    } else {
        Value::from(engine)
    };
    match crate::registry::build(&reference, &catalog).with_ctx(|| format!("engine {}", crate::value::short(&reference)))? {
        crate::registry::Artifact::Engine(e) => Ok(e),
        other => Err(Error::invalid(format!("the engine {} is a {}, not an inference engine", crate::value::short(&reference), other.kind()))),
    }
}
