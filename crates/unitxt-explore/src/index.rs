//! The catalog index of the explorer: every artifact's name, `__type__`, the artifacts it
//! names (`refs`) and those that name it (`used_by`), plus the task → cards map. Built once,
//! in a background thread started with the server, so that start-up does not wait for the
//! ~5,000 files of Unitxt's catalog to be read.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value as Json;

/// One artifact of the index.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Dotted catalog name (`cards.sst2`).
    pub name: String,
    /// Its `__type__` (`task_card`), or `""` when the file has none or is not valid JSON.
    pub kind: String,
    /// Catalog names this artifact's JSON mentions (string values naming an artifact, with
    /// `[overrides]` cut off), sorted, without duplicates.
    pub refs: Vec<String>,
    /// For a card: the task it names (a catalog name), when it names one.
    pub task: Option<String>,
}

/// Every artifact of the configured catalogs (the first directory that has a name wins, as in
/// [`unitxt::catalog::Catalog::find`]).
#[derive(Debug, Default)]
pub struct Index {
    /// Entries sorted by name.
    pub entries: Vec<Entry>,
    /// Position of each name in `entries`.
    pub by_name: HashMap<String, usize>,
    /// Name → the names of the artifacts whose JSON refers to it, sorted.
    pub used_by: HashMap<String, Vec<String>>,
    /// Task name → its cards, sorted.
    pub cards_of_task: BTreeMap<String, Vec<String>>,
    /// Names whose file is a symbolic link that leads out of its catalog directory: never
    /// served, and a recipe that reaches one is refused ([`Index::reaches_escaping`]).
    pub escaping: HashSet<String>,
}

/// Whether `path` lies inside `root` once symbolic links are resolved (both canonicalized).
/// Files that resolve elsewhere are left out of the index and are never served.
pub fn inside(root: &Path, path: &Path) -> bool {
    match (std::fs::canonicalize(root), std::fs::canonicalize(path)) {
        (Ok(r), Ok(p)) => p.starts_with(r),
        _ => false,
    }
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf, bool)>, depth: usize) {
    if depth > 32 {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            walk(root, &p, out, depth + 1);
        } else if p.extension().is_some_and(|x| x == "json") {
            let escapes = !ft.is_file() && !inside(root, &p);
            if let Ok(rel) = p.strip_prefix(root) {
                let name = rel.with_extension("").to_string_lossy().replace(std::path::MAIN_SEPARATOR, ".");
                if unitxt::query::is_legal_catalog_name(&name) {
                    out.push((name, p, escapes));
                }
            }
        }
    }
}

/// The name an artifact reference string points at: `templates.x[k=v]` → `templates.x`.
pub fn base_name(s: &str) -> &str {
    s.split('[').next().unwrap_or(s).trim()
}

fn collect_strings<'a>(v: &'a Json, out: &mut Vec<&'a str>) {
    match v {
        Json::String(s) => out.push(s),
        Json::Array(a) => a.iter().for_each(|x| collect_strings(x, out)),
        Json::Object(o) => o.iter().filter(|(k, _)| !k.starts_with("__")).for_each(|(_, x)| collect_strings(x, out)),
        _ => {}
    }
}

impl Index {
    /// Reads every artifact file of `dirs` (highest precedence first).
    pub fn build(dirs: &[PathBuf]) -> Index {
        let mut files: Vec<(String, PathBuf)> = Vec::new();
        let mut seen = HashSet::new();
        let mut escaping = HashSet::new();
        for d in dirs {
            let mut here = Vec::new();
            walk(d, d, &mut here, 0);
            for (n, p, escapes) in here {
                if seen.insert(n.clone()) {
                    if escapes {
                        escaping.insert(n);
                    } else {
                        files.push((n, p));
                    }
                }
            }
        }
        files.sort();
        let parsed: Vec<(String, Option<Json>)> = files
            .into_iter()
            .map(|(n, p)| {
                let v = std::fs::read_to_string(&p).ok().and_then(|t| serde_json::from_str::<Json>(&t).ok());
                (n, v)
            })
            .collect();
        let names: HashSet<&str> = parsed.iter().map(|(n, _)| n.as_str()).chain(escaping.iter().map(String::as_str)).collect();
        let mut entries = Vec::with_capacity(parsed.len());
        for (name, v) in &parsed {
            let kind = v.as_ref().and_then(|v| v.get("__type__")).and_then(Json::as_str).unwrap_or("").to_string();
            let mut strs = Vec::new();
            if let Some(v) = v {
                collect_strings(v, &mut strs);
            }
            let mut refs: Vec<String> =
                strs.into_iter().map(base_name).filter(|s| *s != name.as_str() && names.contains(*s)).map(str::to_string).collect();
            refs.sort();
            refs.dedup();
            let task = if kind == "task_card" {
                v.as_ref().and_then(|v| v.get("task")).and_then(Json::as_str).map(|t| base_name(t).to_string())
            } else {
                None
            };
            entries.push(Entry { name: name.clone(), kind, refs, task });
        }
        let mut used_by: HashMap<String, Vec<String>> = HashMap::new();
        let mut cards_of_task: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for e in &entries {
            for r in &e.refs {
                used_by.entry(r.clone()).or_default().push(e.name.clone());
            }
            if let Some(t) = &e.task {
                cards_of_task.entry(t.clone()).or_default().push(e.name.clone());
            }
        }
        let by_name = entries.iter().enumerate().map(|(i, e)| (e.name.clone(), i)).collect();
        Index { entries, by_name, used_by, cards_of_task, escaping }
    }

    /// The first name of [`Index::escaping`] that `text` (a recipe) names, directly or through
    /// the artifacts it names (their `refs`, transitively), if any.
    pub fn reaches_escaping(&self, text: &str) -> Option<String> {
        if self.escaping.is_empty() {
            return None;
        }
        let mut todo: Vec<String> = text
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect();
        let mut seen = HashSet::new();
        while let Some(n) = todo.pop() {
            if !seen.insert(n.clone()) {
                continue;
            }
            if self.escaping.contains(&n) {
                return Some(n);
            }
            if let Some(e) = self.get(&n) {
                todo.extend(e.refs.iter().cloned());
            }
        }
        None
    }

    /// The entry called `name`.
    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.by_name.get(name).map(|&i| &self.entries[i])
    }

    /// Names starting with `prefix`, in order.
    pub fn with_prefix<'a>(&'a self, prefix: &str) -> impl Iterator<Item = &'a Entry> + 'a {
        let start = self.entries.partition_point(|e| e.name.as_str() < prefix);
        let prefix = prefix.to_string();
        self.entries[start..].iter().take_while(move |e| e.name.starts_with(&prefix))
    }

    /// Entries whose name starts with `prefix` ranked against the query `q`: names containing
    /// `q` first (shorter and earlier matches first), then names one of whose dotted parts is
    /// close to `q` by Jaro-Winkler similarity (typos: `sst3` finds `cards.sst2`). An empty
    /// `q` lists the names in order.
    pub fn search(&self, prefix: &str, q: &str, kind: Option<&str>, limit: usize) -> Vec<&Entry> {
        let q = q.trim().to_lowercase();
        let candidates = self.with_prefix(prefix).filter(|e| kind.is_none_or(|k| e.name.split('.').next() == Some(k)));
        if q.is_empty() {
            return candidates.take(limit).collect();
        }
        let words: Vec<&str> = q.split(|c: char| c.is_whitespace() || c == '.').filter(|w| !w.is_empty()).collect();
        let mut scored: Vec<(f64, &Entry)> = candidates
            .filter_map(|e| {
                let lower = e.name.to_lowercase();
                let s = if let Some(pos) = lower.find(&q) {
                    3.0 - (pos as f64) / 1000.0 - (lower.len() as f64) / 10000.0
                } else if words.len() > 1 && words.iter().all(|w| lower.contains(w)) {
                    2.0 - (lower.len() as f64) / 10000.0
                } else {
                    let parts: Vec<&str> = lower.split('.').collect();
                    let mut total = 0.0;
                    for w in &words {
                        let best = parts.iter().map(|p| strsim::jaro_winkler(w, p)).fold(0.0, f64::max);
                        if best < 0.8 {
                            return None;
                        }
                        total += best;
                    }
                    total / words.len() as f64
                };
                Some((s, e))
            })
            .collect();
        scored.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal).then_with(|| a.1.name.cmp(&b.1.name)));
        scored.into_iter().take(limit).map(|(_, e)| e).collect()
    }
}
