//! The two halves of a recipe run that `unitxt_rs.ray` distributes (see
//! [`unitxt::recipe::Recipe::stage`]):
//!
//! - [`stage`] runs the stream-level half once, on the Ray driver: loading, the card's
//!   preprocess steps up to its last stream-level one, the demos pool, `max_*_instances`. It
//!   hands out the split's staged instances in Arrow IPC chunks of two columns, `index` (the
//!   instance's position in the split, uint64) and `instance` (its JSON text), and the demos
//!   pool as JSON text, to broadcast.
//! - [`InstanceWorker`] is the per-instance half, built once per Ray actor from the same recipe
//!   arguments and the broadcast pool: it turns a chunk of staged instances into prepared rows
//!   (an Arrow IPC stream with the columns of `load_dataset`), with the GIL released.
//!
//! Instance `i` of the staged split becomes row `i` of the split `load_dataset` gives, so the
//! rows of the distributed run, kept in order, are `load_dataset`'s.

use std::sync::{Arc, Mutex};

use arrow_array::{Array, RecordBatch, StringArray, UInt64Array};
use arrow_schema::{DataType, Field, Schema};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use unitxt::error::{Error, Result};
use unitxt::recipe::{DemosPool, Finisher, OutputInstance, Recipe, Source, SplitWork};
use unitxt::sinks::arrow::ArrowRow;
use unitxt::stream::StreamOf;
use unitxt::value::{Instance, Value};

use crate::{catalogs, parse_args, py_err, BATCH};

/// The recipe of `recipe` and `args_json` (as `prepare` takes them), built, not run.
/// Benchmarks are refused (kind `Unsupported`): their subsets are separate recipes.
fn build_recipe(recipe: Option<&str>, args_json: Option<&str>, catalog_dirs: Vec<String>) -> Result<Arc<Recipe>> {
    let opts = unitxt::api::PrepareOptions { catalogs: catalogs(catalog_dirs) };
    match unitxt::api::build_with(recipe, parse_args(args_json)?, &opts)? {
        Source::Recipe(r) => Ok(r),
        Source::Benchmark(_) => Err(Error::unsupported(
            "a benchmark cannot be staged for a distributed run; stage each of its recipes",
        )),
    }
}

/// The schema of staged chunks: `index` (uint64), `instance` (JSON text).
fn staged_schema() -> Arc<Schema> {
    Arc::new(Schema::new(vec![
        Field::new("index", DataType::UInt64, false),
        Field::new("instance", DataType::Utf8, false),
    ]))
}

fn arrow_err(e: impl std::fmt::Display) -> Error {
    Error::io(format!("Arrow IPC: {e}"))
}

/// One batch as Arrow IPC stream bytes.
fn batch_ipc(batch: &RecordBatch) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut out, &batch.schema()).map_err(arrow_err)?;
    w.write(batch).map_err(arrow_err)?;
    w.finish().map_err(arrow_err)?;
    drop(w);
    Ok(out)
}

/// A split run up to its per-instance stages, pulled in chunks from Python.
#[pyclass(module = "unitxt_rs._native")]
struct StagedSplit {
    name: String,
    /// The staged instances with their positions, serialized as JSON on the engine's threads.
    stream: Mutex<Option<StreamOf<(usize, Vec<u8>)>>>,
    /// The demos pool as a JSON array of instances (`None`: the recipe uses no demos).
    pool_json: Option<String>,
}

#[pymethods]
impl StagedSplit {
    /// The split's name.
    #[getter]
    fn name(&self) -> String {
        self.name.clone()
    }

    /// The demos pool as JSON text (a list of processed instances), or `None` when the recipe
    /// uses no demos. Every worker needs it: [`InstanceWorker`] takes it.
    fn demos_pool_json(&self) -> Option<String> {
        self.pool_json.clone()
    }

    /// The next chunk of up to `size` staged instances as Arrow IPC stream bytes (columns
    /// `index`, `instance`), or `None` at the end. Errors name the split and the position.
    #[pyo3(signature = (size = BATCH))]
    fn next_batch<'py>(&self, py: Python<'py>, size: usize) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let res = crate::detach_guarded(py, || -> Result<Option<Vec<u8>>> {
            let mut guard = self.stream.lock().map_err(|_| Error::invalid("the stream was poisoned"))?;
            let staged = crate::next_chunk(&mut *guard, size).map_err(|(e, _)| e)?;
            if staged.is_empty() {
                return Ok(None);
            }
            let mut index = Vec::with_capacity(staged.len());
            let mut text = Vec::with_capacity(staged.len());
            for (i, line) in staged {
                index.push(i as u64);
                text.push(String::from_utf8(line).map_err(|e| Error::invalid(format!("instance JSON: {e}")))?);
            }
            let batch = RecordBatch::try_new(
                staged_schema(),
                vec![Arc::new(UInt64Array::from(index)), Arc::new(StringArray::from(text))],
            )
            .map_err(arrow_err)?;
            batch_ipc(&batch).map(Some)
        });
        crate::py_bytes(py, res)
    }
}

/// Runs the stream-level half of a recipe ([`unitxt::recipe::Recipe::stage`]) for `split` and
/// returns it as a [`StagedSplit`]. Arguments as `prepare`'s. Errors: those of `prepare`
/// (an unknown split names the available ones), and `UnsupportedError` for a benchmark.
#[pyfunction]
#[pyo3(signature = (recipe, args_json, split, catalog_dirs))]
fn stage(
    py: Python<'_>,
    recipe: Option<String>,
    args_json: Option<String>,
    split: String,
    catalog_dirs: Vec<String>,
) -> PyResult<StagedSplit> {
    let res = crate::detach_guarded(py, || -> Result<StagedSplit> {
        let recipe = build_recipe(recipe.as_deref(), args_json.as_deref(), catalog_dirs)?;
        let mut staged = recipe.stage()?;
        let stream = staged.streams.take(&split)?;
        // Serialized on the engine's threads, in order (the index is the split position).
        let lines = unitxt::stream::par_map_with(stream, |i, inst| {
            let mut out = Vec::with_capacity(1024);
            unitxt::value::json_lines::write_object(&inst, &mut out);
            Ok((i, out))
        });
        let lines = unitxt::stream::locate_errors(&split, lines);
        let pool_json = staged.pool.as_ref().map(|p| {
            let mut out = Vec::with_capacity(1024 * p.items.len());
            unitxt::value::json_lines::write_array(
                &p.items.iter().map(|i| Value::Object(i.clone())).collect::<Vec<_>>(),
                &mut out,
            );
            String::from_utf8_lossy(&out).into_owned()
        });
        Ok(StagedSplit { name: split, stream: Mutex::new(Some(lines)), pool_json })
    });
    res.map_err(|e| py_err(py, e))
}

/// The per-instance half of a recipe for one split, built once (per Ray actor) from the
/// recipe's arguments and the demos pool the driver broadcast.
#[pyclass(module = "unitxt_rs._native")]
struct InstanceWorker {
    work: SplitWork,
    finish: Finisher<ArrowRow>,
}

/// Parses a demos pool's JSON (a list of instances).
fn parse_pool(json: &str) -> Result<Vec<Instance>> {
    match serde_json::from_str::<Value>(json) {
        Ok(Value::Array(a)) => a
            .into_iter()
            .map(|v| match v {
                Value::Object(o) => Ok(o),
                _ => Err(Error::invalid("a demos pool item is not a dict")),
            })
            .collect(),
        Ok(_) => Err(Error::invalid("the demos pool must be a list of instances")),
        Err(e) => Err(Error::invalid(format!("the demos pool is not JSON: {e}"))),
    }
}

#[pymethods]
impl InstanceWorker {
    /// Builds the recipe (`recipe`, `args_json`, `catalog_dirs` as `stage` took them) and its
    /// per-instance stages for `split`, with `demos_pool_json` from
    /// [`StagedSplit::demos_pool_json`]. Reads no data.
    #[new]
    #[pyo3(signature = (recipe, args_json, split, catalog_dirs, demos_pool_json = None))]
    fn new(
        py: Python<'_>,
        recipe: Option<String>,
        args_json: Option<String>,
        split: String,
        catalog_dirs: Vec<String>,
        demos_pool_json: Option<String>,
    ) -> PyResult<InstanceWorker> {
        let res = crate::detach_guarded(py, || -> Result<InstanceWorker> {
            let recipe = build_recipe(recipe.as_deref(), args_json.as_deref(), catalog_dirs)?;
            let pool = match demos_pool_json {
                Some(j) => Some(Arc::new(DemosPool::new(parse_pool(&j)?))),
                None => None,
            };
            let finish: Finisher<ArrowRow> = Arc::new(|o: OutputInstance<'_>| ArrowRow::from_output(&o));
            Ok(InstanceWorker { work: recipe.split_work(&split, pool), finish })
        });
        res.map_err(|e| py_err(py, e))
    }

    /// Prepares a chunk of staged instances (Arrow IPC bytes with the columns `index` and
    /// `instance`, as [`StagedSplit::next_batch`] gives them) and returns the prepared rows as
    /// Arrow IPC bytes with the columns of `load_dataset`, in the chunk's order. Runs with the
    /// GIL released. Errors name the step, the split and the instance's position.
    fn process<'py>(&self, py: Python<'py>, staged_ipc: Bound<'py, PyBytes>) -> PyResult<Bound<'py, PyBytes>> {
        // Read in place: bytes objects are immutable, and this one outlives the call.
        let staged_ipc: &[u8] = staged_ipc.as_bytes();
        let res = crate::detach_guarded(py, || -> Result<Vec<u8>> {
            let reader = arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(staged_ipc), None).map_err(arrow_err)?;
            let mut rows = Vec::new();
            for batch in reader {
                let batch = batch.map_err(arrow_err)?;
                let column = |name: &str| {
                    batch.column_by_name(name).ok_or_else(|| Error::invalid(format!("staged instances have no `{name}` column")))
                };
                let index = column("index")?
                    .as_any()
                    .downcast_ref::<UInt64Array>()
                    .ok_or_else(|| Error::invalid("the staged `index` column is not uint64"))?
                    .clone();
                let text = column("instance")?
                    .as_any()
                    .downcast_ref::<StringArray>()
                    .ok_or_else(|| Error::invalid("the staged `instance` column is not a string"))?
                    .clone();
                for r in 0..batch.num_rows() {
                    let i = index.value(r) as usize;
                    if text.is_null(r) {
                        return Err(Error::invalid("a staged instance is null").at_instance(self.work.split(), i));
                    }
                    let inst = match serde_json::from_str::<Value>(text.value(r)) {
                        Ok(Value::Object(o)) => o,
                        _ => return Err(Error::invalid("a staged instance is not a JSON object").at_instance(self.work.split(), i)),
                    };
                    rows.push(self.work.run(i, inst, &self.finish)?);
                }
            }
            crate::ipc_bytes(rows)
        });
        match res {
            Ok(b) => Ok(PyBytes::new(py, &b)),
            Err(e) => Err(py_err(py, e)),
        }
    }
}

/// Adds the module's classes and functions to `_native`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<StagedSplit>()?;
    m.add_class::<InstanceWorker>()?;
    m.add_function(wrap_pyfunction!(stage, m)?)?;
    Ok(())
}
