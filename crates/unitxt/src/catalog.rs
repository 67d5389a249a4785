//! Catalogs: directories of artifact JSON files, looked up by dotted name.
//!
//! `cards.mmlu.anatomy` is `<dir>/cards/mmlu/anatomy.json`. Several directories are searched in
//! Unitxt's precedence (the last registered first): the `--catalog` directories (last given
//! first), then `UNITXT_CATALOGS` (colon-separated, last first), then the installed Unitxt
//! catalog (see [`default_catalog_dir`]). Lookups are lazy: only the files a recipe names are
//! read, and each file is parsed once per catalog.

use std::any::Any;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result, ResultExt};
use crate::query::is_legal_catalog_name;
use crate::value::Value;

/// Unitxt version whose catalog and behaviour this engine follows.
pub const UNITXT_VERSION: &str = "1.26.10";

/// An ordered set of catalog directories, highest precedence first.
pub struct Catalog {
    dirs: Vec<PathBuf>,
    cache: Mutex<HashMap<PathBuf, Arc<Value>>>,
    /// What [`Catalog::memo`] keeps, by key: the artifacts `crate::registry::fetch` built.
    memo: Mutex<HashMap<String, Box<dyn Any + Send>>>,
}

/// Where `unitxt-rs catalog install` puts Unitxt's catalog: `$UNITXT_RS_CATALOG` if set, else
/// `$XDG_CACHE_HOME/unitxt-rs/catalog-<version>` (or `~/.cache/...`).
pub fn default_catalog_dir() -> PathBuf {
    if let Ok(p) = std::env::var("UNITXT_RS_CATALOG") {
        return PathBuf::from(p);
    }
    let base = user_cache_home().unwrap_or_else(|| PathBuf::from(".cache"));
    base.join("unitxt-rs").join(format!("catalog-{UNITXT_VERSION}"))
}

/// The user's cache directory, as the XDG base directory specification gives it:
/// `$XDG_CACHE_HOME` when set and not empty, else `$HOME/.cache`; `None` without either. The
/// installed catalog, the Arrow cache and the Hugging Face hub cache live under it.
pub fn user_cache_home() -> Option<PathBuf> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    var("XDG_CACHE_HOME").map(PathBuf::from).or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache")))
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog").field("dirs", &self.dirs).finish_non_exhaustive()
    }
}

impl Catalog {
    /// A catalog over `dirs`, highest precedence first.
    pub fn new(dirs: Vec<PathBuf>) -> Self {
        Catalog { dirs, cache: Mutex::new(HashMap::new()), memo: Mutex::new(HashMap::new()) }
    }

    /// The standard catalog: `extra` directories (as given on the command line, the last one
    /// wins), then `UNITXT_CATALOGS`, then [`default_catalog_dir`] when it exists.
    pub fn standard(extra: &[PathBuf]) -> Self {
        let mut dirs: Vec<PathBuf> = extra.iter().rev().cloned().collect();
        if let Ok(env) = std::env::var("UNITXT_CATALOGS") {
            let mut env_dirs: Vec<PathBuf> =
                env.split(':').filter(|s| !s.is_empty()).map(PathBuf::from).collect();
            env_dirs.reverse();
            dirs.extend(env_dirs);
        }
        let def = default_catalog_dir();
        if def.is_dir() {
            dirs.push(def);
        }
        Catalog::new(dirs)
    }

    /// The directories searched, highest precedence first.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    fn path_in(dir: &Path, name: &str) -> PathBuf {
        let mut p = dir.to_path_buf();
        let parts: Vec<&str> = name.split('.').collect();
        for part in &parts[..parts.len() - 1] {
            p.push(part);
        }
        p.push(format!("{}.json", parts[parts.len() - 1]));
        p
    }

    /// The file of artifact `name` in the first directory that has it.
    pub fn find(&self, name: &str) -> Option<PathBuf> {
        if !is_legal_catalog_name(name) {
            return None;
        }
        self.dirs.iter().map(|d| Self::path_in(d, name)).find(|p| p.is_file())
    }

    /// Whether the catalog has an artifact called `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.find(name).is_some()
    }

    /// Reads (once) and returns the JSON of the artifact file at `path`.
    pub fn read_json(&self, path: &Path) -> Result<Arc<Value>> {
        if let Some(v) = self.cache.lock().unwrap().get(path) {
            return Ok(v.clone());
        }
        let text = std::fs::read_to_string(path).with_ctx(|| format!("reading artifact file {}", path.display()))?;
        // As Unitxt reads artifact files: Python's `json.loads`, which takes `NaN` and `Infinity`.
        let v: Value = crate::py::json::loads(&text, true)
            .map_err(|e| Error::invalid(format!("artifact file {} is not valid JSON: {e}", path.display())))?;
        let v = Arc::new(v);
        self.cache.lock().unwrap().insert(path.to_path_buf(), v.clone());
        Ok(v)
    }

    /// The raw JSON of catalog artifact `name`, following `artifact_link`s. Errors with the
    /// nearest names when it does not exist.
    pub fn get_json(&self, name: &str) -> Result<Arc<Value>> {
        let mut name = name.to_string();
        for _ in 0..32 {
            let path = self.find(&name).ok_or_else(|| self.not_found(&name))?;
            let v = self.read_json(&path)?;
            if v.get("__type__").and_then(|t| t.as_str()) == Some("artifact_link") {
                name = v
                    .get("to")
                    .and_then(|t| t.as_str())
                    .ok_or_else(|| Error::invalid(format!("artifact_link {name} has no `to`")))?
                    .to_string();
                continue;
            }
            return Ok(v);
        }
        Err(Error::invalid(format!("artifact_link cycle at {name}")))
    }

    /// The value kept under `key` by an earlier call, or the one `make` gives (kept when it is
    /// `Ok`). `make` runs without the lock held, so it may call `memo` itself. The registry
    /// keeps built artifacts here, one per query: they are immutable, and a catalog that is
    /// read once is built once. Errors when a value of another type is kept under `key`.
    pub fn memo<T: Clone + Send + 'static>(&self, key: &str, make: impl FnOnce() -> Result<T>) -> Result<T> {
        let poisoned = || Error::invalid("the catalog's artifact cache was poisoned by an earlier panic");
        if let Some(kept) = self.memo.lock().map_err(|_| poisoned())?.get(key) {
            return kept.downcast_ref::<T>().cloned().ok_or_else(|| Error::invalid(format!("the catalog keeps another kind of value under {key:?}")));
        }
        let made = make()?;
        self.memo.lock().map_err(|_| poisoned())?.insert(key.to_string(), Box::new(made.clone()));
        Ok(made)
    }

    fn not_found(&self, name: &str) -> Error {
        let mut msg = format!("artifact {name:?} is not in the catalog");
        let near = self.nearest_names(name, 3);
        if !near.is_empty() {
            msg.push_str(&format!("; did you mean {}?", near.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")));
        }
        if self.dirs.is_empty() {
            msg.push_str("; no catalog directory is configured (run `unitxt-rs catalog install`, set UNITXT_CATALOGS or pass --catalog)");
        } else {
            msg.push_str(&format!(
                "; searched {}",
                self.dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
            ));
        }
        Error::artifact_not_found(name, msg)
    }

    /// Every artifact name in the catalog (scans the directories; used for suggestions and
    /// listings only, never on the normal path).
    pub fn all_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        for d in &self.dirs {
            walk(d, d, &mut out);
        }
        out.sort();
        out.dedup();
        out
    }

    /// Up to `k` catalog names closest to `name` (same top folder preferred), for suggestions.
    pub fn nearest_names(&self, name: &str, k: usize) -> Vec<String> {
        let names = self.all_names();
        let mut scored: Vec<(f64, String)> = names
            .into_iter()
            .map(|n| (strsim::jaro_winkler(&n, name), n))
            .collect();
        scored.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap());
        scored.into_iter().take(k).filter(|(s, _)| *s > 0.7).map(|(_, n)| n).collect()
    }
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(root, &p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            if let Ok(rel) = p.strip_prefix(root) {
                let s = rel.with_extension("").to_string_lossy().replace(std::path::MAIN_SEPARATOR, ".");
                out.push(s);
            }
        }
    }
}

