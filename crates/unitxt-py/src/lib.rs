//! `unitxt_rs._native`: the extension module behind the `unitxt_rs` Python package. It is thin:
//! recipes run in the Rust engine with the GIL released, and prepared instances cross into
//! Python as Arrow IPC streams (one record batch per chunk of instances, with the columns of
//! Unitxt's datasets, see `unitxt::sinks::arrow`), so no Python object is made per instance.
//! The Python package (`python/unitxt_rs/__init__.py`) turns them into `datasets` objects.
//!
//! Engine errors become the exception classes of `unitxt_rs.errors`, chosen by their kind, with
//! the engine's message (context lines included) and its location as the attributes
//! `artifact`, `field`, `split` and `instance`.

mod callbacks;
mod ray;

use std::path::PathBuf;
use std::sync::Mutex;

use indexmap::IndexMap;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use unitxt::error::{Error, ErrorKind};
use unitxt::sinks::arrow::ArrowRow;
use unitxt::stream::StreamOf;
use unitxt::value::{Instance, Value};

/// The allocator of the engine's many small strings and maps (as in the CLI).
#[global_allocator]
static GLOBAL: unitxt_alloc::MiMalloc = unitxt_alloc::MiMalloc;

/// Instances per Arrow record batch handed to Python.
const BATCH: usize = 2048;

/// Up to `size` (at least one) items from the stream in `slot`, fewer at its end; the stream
/// is dropped (`slot` emptied) at its end or at an error, which comes with the count of items
/// taken before it. An empty slot gives no items.
pub(crate) fn next_chunk<T>(
    slot: &mut Option<impl Iterator<Item = unitxt::error::Result<T>>>,
    size: usize,
) -> std::result::Result<Vec<T>, (Error, usize)> {
    let mut items = Vec::new();
    let Some(stream) = slot.as_mut() else { return Ok(items) };
    items.reserve(size.min(BATCH * 4));
    while items.len() < size.max(1) {
        match stream.next() {
            Some(Ok(item)) => items.push(item),
            Some(Err(e)) => {
                *slot = None;
                return Err((e, items.len()));
            }
            None => {
                *slot = None;
                break;
            }
        }
    }
    Ok(items)
}

/// A batch of engine work as Python `bytes`, `None` at the end, or the engine's error raised.
pub(crate) fn py_bytes<'py>(py: Python<'py>, res: unitxt::error::Result<Option<Vec<u8>>>) -> PyResult<Option<Bound<'py, PyBytes>>> {
    match res {
        Ok(Some(b)) => Ok(Some(PyBytes::new(py, &b))),
        Ok(None) => Ok(None),
        Err(e) => Err(py_err(py, e)),
    }
}

/// Runs engine work `f` with the GIL released; a panic in it (a bug) becomes an engine error,
/// raised in Python as a `UnitxtRsError` with the interpreter alive, rather than PyO3's
/// `PanicException`.
pub(crate) fn detach_guarded<T: Send>(py: Python<'_>, f: impl FnOnce() -> unitxt::error::Result<T> + Send) -> unitxt::error::Result<T> {
    py.detach(|| unitxt::stream::catch_panic(f))
}

/// Converts an engine error into the `unitxt_rs.errors` class for its kind.
fn py_err(py: Python<'_>, e: Error) -> PyErr {
    use unitxt::error::{Need, Reason};
    let class = match e.reason() {
        Reason::UnknownType { .. } => "UnknownTypeError",
        Reason::UnknownField { .. } => "UnknownFieldError",
        Reason::MissingSplit { .. } => "MissingSplitError",
        Reason::MissingDemosSplit { .. } => "MissingDemosSplitError",
        Reason::NotFound { .. } => "NotInCatalogError",
        Reason::ReferenceCycle { .. } => "ReferenceCycleError",
        Reason::Needs(_) if e.kind == ErrorKind::Unsupported => "NeedsError",
        _ => match e.kind {
            ErrorKind::NotFound => "ArtifactNotFoundError",
            ErrorKind::FileNotFound => "DataFileNotFoundError",
            ErrorKind::Io => "UnitxtIOError",
            ErrorKind::Unsupported => "UnsupportedError",
            ErrorKind::Invalid | ErrorKind::Expression => "InvalidInputError",
        },
    };
    let msg = e.to_string();
    let made = py.import("unitxt_rs.errors").and_then(|m| m.getattr(class)).and_then(|c| c.call1((msg.clone(),))).and_then(|exc| {
        // The location as attributes (None when unknown), as `Error::location` has it.
        let l = &e.location;
        exc.setattr("artifact", l.artifact.clone())?;
        exc.setattr("field", l.field.clone())?;
        exc.setattr("split", l.split.clone())?;
        exc.setattr("instance", l.instance)?;
        // What failed, as `Error::reason` has it.
        match e.reason() {
            Reason::UnknownType { ty, suggestion } => {
                exc.setattr("type", ty)?;
                exc.setattr("suggestion", suggestion.clone())?;
            }
            Reason::UnknownField { ty, field, suggestion } => {
                exc.setattr("type", ty)?;
                exc.setattr("field", field)?;
                exc.setattr("suggestion", suggestion.clone())?;
            }
            Reason::MissingSplit { split, available } | Reason::MissingDemosSplit { split, available } => {
                exc.setattr("split", split)?;
                exc.setattr("available", available.clone())?;
            }
            Reason::NotFound { artifact } => exc.setattr("name", artifact)?,
            Reason::ReferenceCycle { path } => exc.setattr("path", path.clone())?,
            Reason::Needs(u) => {
                exc.setattr("need", match u.need {
                    Need::Model => "model",
                    Need::Network => "network",
                    Need::Endpoint => "endpoint",
                })?;
                exc.setattr("reason", &u.reason)?;
            }
            Reason::Other => {}
        }
        Ok(exc)
    });
    match made {
        Ok(exc) => PyErr::from_value(exc),
        Err(_) => PyRuntimeError::new_err(msg),
    }
}

fn catalogs(dirs: Vec<String>) -> Vec<PathBuf> {
    dirs.into_iter().map(PathBuf::from).collect()
}

fn parse_args(args_json: Option<&str>) -> unitxt::error::Result<IndexMap<String, Value>> {
    match args_json {
        None => Ok(IndexMap::new()),
        Some(s) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(m)) => Ok(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()),
            Ok(_) => Err(Error::invalid("recipe arguments must be a dict")),
            Err(e) => Err(Error::invalid(format!("recipe arguments are not JSON-like: {e}"))),
        },
    }
}

/// One batch of instances as an Arrow IPC stream (schema + one record batch).
fn ipc_bytes(rows: Vec<ArrowRow>) -> unitxt::error::Result<Vec<u8>> {
    let batch = unitxt::sinks::arrow::rows_to_batch(&rows);
    unitxt::sinks::arrow::recycle_rows(rows);
    let batch = batch?;
    let mut out = Vec::new();
    {
        let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut out, &batch.schema())
            .map_err(|e| Error::io(format!("Arrow IPC: {e}")))?;
        w.write(&batch).map_err(|e| Error::io(format!("Arrow IPC: {e}")))?;
        w.finish().map_err(|e| Error::io(format!("Arrow IPC: {e}")))?;
    }
    Ok(out)
}

/// A split being prepared, pulled in chunks from Python (`next_batch`). Used for streaming and,
/// drained, for whole datasets.
#[pyclass(module = "unitxt_rs._native")]
struct SplitStream {
    name: String,
    /// The split's rows, built on the engine's worker threads.
    stream: Mutex<Option<StreamOf<ArrowRow>>>,
    count: Mutex<usize>,
}

#[pymethods]
impl SplitStream {
    /// The split's name.
    #[getter]
    fn name(&self) -> String {
        self.name.clone()
    }

    /// The next chunk of up to `size` instances as Arrow IPC bytes, or `None` at the end.
    /// Errors name the split and the instance's index in it.
    #[pyo3(signature = (size = BATCH))]
    fn next_batch<'py>(&self, py: Python<'py>, size: usize) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let res = detach_guarded(py, || -> unitxt::error::Result<Option<Vec<u8>>> {
            let mut guard = self.stream.lock().map_err(|_| Error::invalid("the stream was poisoned"))?;
            let mut count = self.count.lock().map_err(|_| Error::invalid("the stream was poisoned"))?;
            let rows = next_chunk(&mut *guard, size).map_err(|(e, taken)| e.at_instance(&self.name, *count + taken))?;
            if rows.is_empty() {
                return Ok(None);
            }
            *count += rows.len();
            ipc_bytes(rows).map(Some)
        });
        py_bytes(py, res)
    }
}

/// Runs a recipe (`recipe`: a recipe string or `dataset_recipe` name, or `None`; `args_json`:
/// recipe arguments as a JSON object that override or complete it) and returns its splits as
/// streams, in the recipe's order; only `split` when given (an error naming the available
/// splits when it does not exist). `catalogs`: extra catalog directories, highest precedence
/// last (as `--catalog`).
#[pyfunction]
#[pyo3(signature = (recipe, args_json, split, catalog_dirs))]
fn prepare(
    py: Python<'_>,
    recipe: Option<String>,
    args_json: Option<String>,
    split: Option<String>,
    catalog_dirs: Vec<String>,
) -> PyResult<Vec<SplitStream>> {
    let res = detach_guarded(py, || -> unitxt::error::Result<Vec<(String, StreamOf<ArrowRow>)>> {
        let opts = unitxt::api::PrepareOptions { catalogs: catalogs(catalog_dirs) };
        // Each instance becomes an Arrow row on the worker thread that prepared it.
        let row: unitxt::recipe::Finisher<ArrowRow> = std::sync::Arc::new(|o: unitxt::recipe::OutputInstance<'_>| ArrowRow::from_output(&o));
        let mut ms = unitxt::api::prepare_with_map(recipe.as_deref(), parse_args(args_json.as_deref())?, &opts, row)?;
        match split {
            Some(s) => Ok(vec![(s.clone(), ms.take(&s)?)]),
            None => Ok(ms.streams.into_iter().collect()),
        }
    });
    match res {
        Ok(v) => Ok(v
            .into_iter()
            .map(|(name, s)| SplitStream { name, stream: Mutex::new(Some(s)), count: Mutex::new(0) })
            .collect()),
        Err(e) => Err(py_err(py, e)),
    }
}

/// Verbalizes task instances given in code (`instances_json`: a JSON array of dicts of the
/// task's input fields) with the recipe of `recipe` and `args_json` (as [`prepare`] takes
/// them; a `task` without a `card` is a recipe of that task alone), as Unitxt's `produce`:
/// returns the produced instances as a JSON array (no `target` or `references`; `task_data`
/// as Unitxt's JSON text; a chat `source` as its list of messages).
#[pyfunction]
#[pyo3(signature = (recipe, args_json, instances_json, catalog_dirs))]
fn produce(py: Python<'_>, recipe: Option<String>, args_json: Option<String>, instances_json: String, catalog_dirs: Vec<String>) -> PyResult<String> {
    let res = detach_guarded(py, || -> unitxt::error::Result<String> {
        let opts = unitxt::api::PrepareOptions { catalogs: catalogs(catalog_dirs) };
        let instances = match serde_json::from_str::<Value>(&instances_json) {
            Ok(Value::Array(a)) => a
                .into_iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::Object(o) => Ok(o),
                    _ => Err(Error::invalid(format!("instance {i} is not a dict"))),
                })
                .collect::<unitxt::error::Result<Vec<_>>>()?,
            Ok(_) => return Err(Error::invalid("the instances must be a list of dicts")),
            Err(e) => return Err(Error::invalid(format!("the instances are not JSON-like data: {e}"))),
        };
        let out = unitxt::api::produce(recipe.as_deref(), parse_args(args_json.as_deref())?, instances, &opts)?;
        Ok(Value::Array(out.into_iter().map(Value::Object).collect()).to_string())
    });
    res.map_err(|e| py_err(py, e))
}

/// Reads instances from Arrow IPC bytes (a stream with Unitxt's dataset columns) or from a
/// JSON array of instance objects.
fn read_data(data_ipc: Option<&[u8]>, data_json: Option<&str>) -> unitxt::error::Result<Vec<Instance>> {
    if let Some(bytes) = data_ipc {
        let reader = arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(bytes), None)
            .map_err(|e| Error::invalid(format!("reading the data as Arrow: {e}")))?;
        let mut out = Vec::new();
        for b in reader {
            let b = b.map_err(|e| Error::invalid(format!("reading the data as Arrow: {e}")))?;
            out.extend(unitxt::sinks::arrow::batch_to_instances(&b)?);
        }
        return Ok(out);
    }
    match data_json.map(serde_json::from_str::<Value>) {
        Some(Ok(Value::Array(a))) => a
            .into_iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::Object(o) => Ok(o),
                _ => Err(Error::invalid(format!("data instance {i} is not a dict"))),
            })
            .collect(),
        Some(Ok(_)) => Err(Error::invalid("data must be a list of instances")),
        Some(Err(e)) => Err(Error::invalid(format!("data is not JSON-like: {e}"))),
        None => Err(Error::invalid("no data given")),
    }
}

/// The predictions of `evaluate` and `post_process`: a JSON array, else an error.
fn predictions_list(json: &str) -> unitxt::error::Result<Vec<Value>> {
    match serde_json::from_str::<Value>(json) {
        Ok(Value::Array(a)) => Ok(a),
        _ => Err(Error::invalid("predictions must be a list")),
    }
}

/// Evaluates `predictions_json` (a JSON array, one prediction per instance) against data given
/// as Arrow IPC bytes or a JSON array of instances. Returns the results as JSON text:
/// `{"global", "instances", "subsets", "groups", "summary", "processed"}` where `processed`
/// holds each instance's `[processed_prediction, processed_references]`. LLM judges among the
/// metrics call their engines' endpoints (with the GIL released) through a
/// `unitxt_inference::RunClient`, keeping answers in `judge_cache` (an SQLite file) when given.
#[pyfunction]
#[pyo3(signature = (predictions_json, data_ipc, data_json, catalog_dirs, confidence_intervals = true, judge_cache = None))]
fn evaluate(
    py: Python<'_>,
    predictions_json: String,
    data_ipc: Option<Vec<u8>>,
    data_json: Option<String>,
    catalog_dirs: Vec<String>,
    confidence_intervals: bool,
    judge_cache: Option<String>,
) -> PyResult<String> {
    let res = detach_guarded(py, || -> unitxt::error::Result<String> {
        let data = read_data(data_ipc.as_deref(), data_json.as_deref())?;
        let predictions = predictions_list(&predictions_json)?;
        let client = unitxt_inference::RunClient { cache: judge_cache.map(std::path::PathBuf::from), progress: false, respect_use_cache: true };
        let opts = unitxt::evaluate::EvaluateOptions {
            confidence_intervals,
            catalogs: catalogs(catalog_dirs),
            model_client: Some(std::sync::Arc::new(client)),
            ..Default::default()
        };
        let res = unitxt::evaluate::evaluate(&data, &predictions, &opts)?;
        let mut out = match res.to_json() {
            Value::Object(o) => o,
            _ => Instance::new(),
        };
        out.insert("summary".into(), Value::String(unitxt::evaluate::summary(&res.global).into()));
        let processed = res.processed.iter().map(|(p, r)| Value::Array(vec![p.clone(), Value::Array(r.clone())]));
        out.insert("processed".into(), Value::Array(processed.collect()));
        // Python's JSON, so that NaN scores arrive as `float('nan')` and `None` as `None`.
        let opts = unitxt::py::json::DumpOptions { ensure_ascii: false, sort_keys: false, indent: None };
        Ok(unitxt::py::json::dumps(&Value::Object(out), opts))
    });
    res.map_err(|e| py_err(py, e))
}

/// Runs operator and metric steps on named streams of plain instances (Unitxt's
/// `SequentialOperator(steps)(multi_stream)`, see `unitxt::evaluate::streams::run_steps`), with
/// the GIL released. `steps_json`: a JSON array of artifact references (catalog names with
/// optional `[overwrites]`, objects with `__type__`); `streams_json`: a JSON object, split name
/// to a list of instance dicts (Python's JSON: `NaN` allowed). LLM judges call their engines'
/// endpoints through a `unitxt_inference::RunClient`. Returns the streams after the steps as
/// JSON text of the same shape, every scored instance with its `score`.
#[pyfunction]
#[pyo3(signature = (steps_json, streams_json, catalog_dirs, confidence_intervals = true))]
fn run_steps(
    py: Python<'_>,
    steps_json: String,
    streams_json: String,
    catalog_dirs: Vec<String>,
    confidence_intervals: bool,
) -> PyResult<String> {
    let res = detach_guarded(py, || -> unitxt::error::Result<String> {
        let steps = match unitxt::py::json::loads(&steps_json, false) {
            Ok(Value::Array(a)) => a,
            _ => return Err(Error::invalid("the steps must be a list of artifacts")),
        };
        let streams: unitxt::evaluate::streams::Streams = match unitxt::py::json::loads(&streams_json, false) {
            Ok(Value::Object(o)) => o
                .into_iter()
                .map(|(name, v)| match v {
                    Value::Array(a) => a
                        .into_iter()
                        .enumerate()
                        .map(|(i, x)| match x {
                            Value::Object(inst) => Ok(inst),
                            _ => Err(Error::invalid(format!("stream {name:?}: instance {i} is not a dict"))),
                        })
                        .collect::<unitxt::error::Result<Vec<Instance>>>()
                        .map(|a| (name.to_string(), a)),
                    _ => Err(Error::invalid(format!("stream {name:?} is not a list of instances"))),
                })
                .collect::<unitxt::error::Result<_>>()?,
            Ok(_) => return Err(Error::invalid("the streams must be a dict of split name to instances")),
            Err(e) => return Err(Error::invalid(format!("the streams are not JSON-like: {e}"))),
        };
        let client = unitxt_inference::RunClient::default();
        let opts = unitxt::evaluate::EvaluateOptions {
            confidence_intervals,
            catalogs: catalogs(catalog_dirs),
            model_client: Some(std::sync::Arc::new(client)),
            ..Default::default()
        };
        let out = unitxt::evaluate::streams::run_steps(&steps, streams, &opts)?;
        let out = Value::Object(out.into_iter().map(|(k, v)| (k, Value::Array(v.into_iter().map(Value::Object).collect()))).collect());
        // Python's JSON, so that NaN scores arrive as `float('nan')`.
        let opts = unitxt::py::json::DumpOptions { ensure_ascii: false, sort_keys: false, indent: None };
        Ok(unitxt::py::json::dumps(&out, opts))
    });
    res.map_err(|e| py_err(py, e))
}

/// Each prediction after its instance's postprocessors ran (Unitxt's `post_process`), as a
/// JSON array; data as in [`evaluate`].
#[pyfunction]
#[pyo3(signature = (predictions_json, data_ipc, data_json, catalog_dirs))]
fn post_process(
    py: Python<'_>,
    predictions_json: String,
    data_ipc: Option<Vec<u8>>,
    data_json: Option<String>,
    catalog_dirs: Vec<String>,
) -> PyResult<String> {
    let res = detach_guarded(py, || -> unitxt::error::Result<String> {
        let data = read_data(data_ipc.as_deref(), data_json.as_deref())?;
        let predictions = predictions_list(&predictions_json)?;
        let out = unitxt::evaluate::post_process(&data, &predictions, &catalogs(catalog_dirs))?;
        Ok(Value::Array(out).to_string())
    });
    res.map_err(|e| py_err(py, e))
}

/// Runs the inference engine artifact `engine_json` (its catalog JSON, a dict with
/// `__type__`, or a catalog name as a JSON string, with optional `[overwrites]`) on data given
/// as in [`evaluate`] (Unitxt's `InferenceEngine.infer`, or `infer_log_probs` with
/// `log_probs`), with the GIL released. Requests go through `unitxt_inference::RunClient`
/// (retries, rate limit; the answer cache at `cache_path` when given). Returns a JSON object:
/// `predictions` (one per instance) and `meta_data` (with `meta_data`: one
/// `TextGenerationInferenceOutput` object per instance; else empty).
/// Errors: the engine does not build or is not an inference engine, the data cannot be read,
/// or some instances got no prediction (named, with what failed; API keys are never shown).
#[pyfunction]
#[pyo3(signature = (engine_json, data_ipc, data_json, catalog_dirs, cache_path = None, progress = false, log_probs = false, meta_data = false))]
#[allow(clippy::too_many_arguments)]
fn infer(
    py: Python<'_>,
    engine_json: String,
    data_ipc: Option<Vec<u8>>,
    data_json: Option<String>,
    catalog_dirs: Vec<String>,
    cache_path: Option<String>,
    progress: bool,
    log_probs: bool,
    meta_data: bool,
) -> PyResult<String> {
    let res = detach_guarded(py, || -> unitxt::error::Result<String> {
        use unitxt::error::ResultExt;
        let data = read_data(data_ipc.as_deref(), data_json.as_deref())?;
        let reference = serde_json::from_str::<Value>(&engine_json).map_err(|e| Error::invalid(format!("the engine is not JSON-like: {e}")))?;
        let catalog = std::sync::Arc::new(unitxt::catalog::Catalog::standard(&catalogs(catalog_dirs)));
        let engine = match unitxt::registry::build(&reference, &catalog).with_ctx(|| "the inference engine".to_string())? {
            unitxt::registry::Artifact::Engine(e) => e,
            other => return Err(Error::invalid(format!("the engine is a {}, not an inference engine", other.kind()))),
        };
        let client = unitxt_inference::RunClient { cache: cache_path.map(PathBuf::from), progress, respect_use_cache: false };
        let opts = unitxt::inference::InferOptions { log_probs, meta_data };
        let inferred = unitxt::inference::infer_with(&*engine.inner, &client, &data, opts)?;
        if !inferred.failed.is_empty() {
            let shown: Vec<String> = inferred.failed.iter().take(10).map(|f| format!("instance {}: {}", f.index, f.detail)).collect();
            let more = inferred.failed.len().saturating_sub(10);
            return Err(Error::io(format!(
                "{} of {} instances got no prediction: {}{}",
                inferred.failed.len(),
                data.len(),
                shown.join("; "),
                if more > 0 { format!("; and {more} more") } else { String::new() }
            )));
        }
        let mut out = unitxt::value::Map::new();
        out.insert("predictions".into(), Value::Array(inferred.predictions.into_iter().map(|p| p.unwrap_or(Value::Null)).collect()));
        out.insert("meta_data".into(), Value::Array(inferred.meta_data.into_iter().map(|m| m.unwrap_or(Value::Null)).collect()));
        Ok(Value::Object(out).to_string())
    });
    res.map_err(|e| py_err(py, e))
}

/// Every artifact `__type__` the engine builds, each with the keyword arguments it reads
/// (`None` when they are not known from its structs, see `unitxt::registry::type_fields`): the
/// one source the Python artifact classes are generated from.
#[pyfunction]
fn known_types(py: Python<'_>) -> Vec<(&'static str, Option<Vec<&'static str>>)> {
    py.detach(|| unitxt::registry::KNOWN_TYPES.iter().map(|t| (*t, unitxt::registry::type_fields(t))).collect())
}

/// Arrow IPC bytes of an empty batch: the schema of prepared splits.
#[pyfunction]
fn dataset_schema_ipc<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
    ipc_bytes(Vec::new()).map(|b| PyBytes::new(py, &b)).map_err(|e| py_err(py, e))
}

/// The JSON of catalog artifact `name` (a plain name, no overwrites), as stored.
#[pyfunction]
fn get_from_catalog(py: Python<'_>, name: String, catalog_dirs: Vec<String>) -> PyResult<String> {
    let cat = unitxt::catalog::Catalog::standard(&catalogs(catalog_dirs));
    cat.get_json(&name).map(|v| v.to_string()).map_err(|e| py_err(py, e))
}

/// Where `unitxt-rs catalog install` puts Unitxt's catalog (`$UNITXT_RS_CATALOG` or the cache).
#[pyfunction]
fn default_catalog_dir() -> String {
    unitxt::catalog::default_catalog_dir().display().to_string()
}

/// Sets the global seed (Unitxt's `settings.seed`, default 42) for the whole process.
#[pyfunction]
fn set_seed(seed: u64) {
    unitxt::py::random::set_global_seed(seed)
}

/// The global seed in use.
#[pyfunction]
fn get_seed() -> u64 {
    unitxt::py::random::global_seed()
}

/// Registers named task field type `name` as standing for the type string `definition`
/// (`unitxt_rs.type_utils.register_type`; see `unitxt::task::register_type`). Errors: a
/// malformed definition (`InvalidInputError`).
#[pyfunction]
fn register_type(py: Python<'_>, name: String, definition: String) -> PyResult<()> {
    unitxt::task::register_type(&name, &definition).map_err(|e| py_err(py, e))
}

/// Every task field type registered in this process, as `(name, definition)` pairs in the order
/// registered (see `unitxt::task::registered_types`); `unitxt_rs.ray` hands them to its workers.
#[pyfunction]
fn registered_types() -> Vec<(String, String)> {
    unitxt::task::registered_types()
}

/// The Unitxt version whose behaviour and catalog this build follows.
#[pyfunction]
fn unitxt_version() -> &'static str {
    unitxt::catalog::UNITXT_VERSION
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SplitStream>()?;
    m.add_function(wrap_pyfunction!(prepare, m)?)?;
    m.add_function(wrap_pyfunction!(produce, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(run_steps, m)?)?;
    m.add_function(wrap_pyfunction!(infer, m)?)?;
    m.add_function(wrap_pyfunction!(get_from_catalog, m)?)?;
    m.add_function(wrap_pyfunction!(default_catalog_dir, m)?)?;
    m.add_function(wrap_pyfunction!(unitxt_version, m)?)?;
    m.add_function(wrap_pyfunction!(set_seed, m)?)?;
    m.add_function(wrap_pyfunction!(dataset_schema_ipc, m)?)?;
    m.add_function(wrap_pyfunction!(get_seed, m)?)?;
    m.add_function(wrap_pyfunction!(post_process, m)?)?;
    m.add_function(wrap_pyfunction!(known_types, m)?)?;
    m.add_function(wrap_pyfunction!(register_type, m)?)?;
    m.add_function(wrap_pyfunction!(registered_types, m)?)?;
    ray::register(m)?;
    callbacks::install();
    Ok(())
}
