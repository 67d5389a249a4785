//! Catalogs: directories of artifact JSON files, looked up by dotted name.
//!
//! `cards.mmlu.anatomy` is `<dir>/cards/mmlu/anatomy.json`. Several directories are searched in
//! Unitxt's precedence (the last registered first): the `--catalog` directories (last given
//! first), then `UNITXT_CATALOGS` (colon-separated, last first), then the installed Unitxt
//! catalog (see [`default_catalog_dir`]). Lookups are lazy: only the files a recipe names are
//! read, and each file is parsed once per catalog.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::artifact::Artifact;
use crate::error::{Error, Result, ResultExt};
use crate::query::{is_legal_catalog_name, split_name_and_overwrites};
use crate::value::Value;

/// Unitxt version whose catalog and behaviour this engine follows.
pub const UNITXT_VERSION: &str = "1.26.10";

/// An ordered set of catalog directories, highest precedence first.
pub struct Catalog {
    dirs: Vec<PathBuf>,
    cache: Mutex<HashMap<PathBuf, Arc<Value>>>,
    /// Artifacts built by [`Catalog::fetch`], by query, so that names used per instance
    /// (an instance's postprocessors and metrics) are built once.
    built: Mutex<HashMap<String, Artifact>>,
}

thread_local! {
    /// The catalogs of the enclosing [`Catalog::scope`] calls on this thread, innermost last.
    /// Only building artifacts reads it (a nested catalog name inside an artifact's JSON is
    /// resolved where serde deserializes it, with no other way to reach the catalog); running
    /// built artifacts never does, so worker threads never enter a scope.
    static SCOPE: RefCell<Vec<Arc<Catalog>>> = const { RefCell::new(Vec::new()) };
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
        Catalog { dirs, cache: Mutex::new(HashMap::new()), built: Mutex::new(HashMap::new()) }
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

    /// Runs `f` with this catalog as the one that nested artifact names resolve in (see
    /// [`Catalog::current`]): for building artifacts. The scope ends when `f` returns or
    /// unwinds; scopes nest, the innermost wins.
    pub fn scope<R>(self: &Arc<Self>, f: impl FnOnce() -> R) -> R {
        SCOPE.with(|c| c.borrow_mut().push(self.clone()));
        struct Pop;
        impl Drop for Pop {
            fn drop(&mut self) {
                SCOPE.with(|c| {
                    c.borrow_mut().pop();
                });
            }
        }
        let _pop = Pop;
        f()
    }

    /// The catalog of the innermost [`Catalog::scope`] on this thread, or, outside every
    /// scope, a new standard catalog ([`Catalog::standard`] without extra directories).
    pub fn current() -> Arc<Catalog> {
        SCOPE.with(|c| c.borrow().last().cloned()).unwrap_or_else(|| Arc::new(Catalog::standard(&[])))
    }

    /// Builds `v` (see [`resolve_value`]) with this catalog as the scope that catalog names in
    /// it, nested ones included, resolve in. Unlike [`Catalog::fetch`], the result is not kept.
    pub fn build(self: &Arc<Self>, v: &Value) -> Result<Artifact> {
        self.scope(|| resolve_value(v))
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
        let v: Value = serde_json::from_str(&text)
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

    /// Builds catalog artifact `name` (with optional `[overwrites]`), with this catalog as the
    /// scope for nested names.
    /// Built artifacts are kept (they are immutable), so fetching the same query again is cheap.
    pub fn fetch(self: &Arc<Self>, query: &str) -> Result<Artifact> {
        if let Some(a) = self.built.lock().map_err(|_| Error::invalid("catalog cache poisoned"))?.get(query) {
            return Ok(a.clone());
        }
        let a = self.scope(|| resolve_value(&Value::String(query.into())))?;
        self.built.lock().map_err(|_| Error::invalid("catalog cache poisoned"))?.insert(query.to_string(), a.clone());
        Ok(a)
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
        Error::not_found(msg)
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

    /// Builds every artifact whose name starts with `prefix` (`""`: all of them), each as
    /// [`Catalog::fetch`] builds it (nested names resolved, no data loaded), and returns the
    /// names in order, each with the first line of its error, `None` when it builds. A panic
    /// while building (a bug) is reported as that artifact's error. For `unitxt-rs catalog
    /// check`: how much of a catalog this engine reads.
    pub fn check(self: &Arc<Self>, prefix: &str) -> Vec<(String, Option<String>)> {
        self.all_names()
            .into_iter()
            .filter(|n| n.starts_with(prefix))
            .map(|name| {
                let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.fetch(&name)));
                let error = match built {
                    Ok(Ok(_)) => None,
                    Ok(Err(e)) => Some(e.to_string().lines().next().unwrap_or_default().to_string()),
                    Err(_) => Some("building it panicked (a bug in unitxt-rs)".to_string()),
                };
                (name, error)
            })
            .collect()
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

/// Builds an artifact from its JSON representation in the current catalog scope (Unitxt's
/// `fetch_artifact`): a catalog name with optional `[overwrites]`, a path to a `.json` file, a
/// JSON string, or an object with `__type__`.
pub fn resolve_value(v: &Value) -> Result<Artifact> {
    match v {
        Value::String(s) => {
            let s = s.trim();
            if s.ends_with(".json") && Path::new(s).is_file() {
                let cat = Catalog::current();
                let json = cat.read_json(Path::new(s))?;
                return crate::registry::build(&json).with_ctx(|| format!("in artifact file {s}"));
            }
            let (name, overwrites) = split_name_and_overwrites(s)?;
            if is_legal_catalog_name(&name) {
                let cat = Catalog::current();
                let json = cat.get_json(&name)?;
                let mut json = (*json).clone();
                if let (Some(ov), Value::Object(m)) = (overwrites, &mut json) {
                    for (k, val) in ov {
                        m.insert(k.into(), val);
                    }
                }
                let mut a = crate::registry::build(&json).with_ctx(|| format!("in artifact `{name}`"))?;
                a.set_id(&name);
                return Ok(a);
            }
            let parsed: Value = serde_json::from_str(s).map_err(|_| {
                Error::invalid(format!("{s:?} is neither a legal catalog name nor a JSON artifact"))
            })?;
            crate::registry::build(&parsed)
        }
        Value::Object(_) => crate::registry::build(v),
        other => Err(Error::invalid(format!(
            "expected an artifact (a catalog name or an object with __type__), got {}",
            crate::artifact::short(other)
        ))),
    }
}
