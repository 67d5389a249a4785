//! `load_hf`: a Hugging Face dataset read from a local copy (Unitxt's `LoadHF`).
//!
//! Where the copy is:
//! 1. `UNITXT_HF_OFFLINE_DATASETS_PATH/<path>` when that variable is set (as Unitxt joins it);
//! 2. `<path>` itself when it is an existing directory;
//! 3. the hub cache (`HF_HUB_CACHE`, else `HF_HOME/hub`, else `XDG_CACHE_HOME/huggingface/hub`,
//!    else `~/.cache/huggingface/hub`): `datasets--<org>--<name>/snapshots/<commit>`, the commit
//!    read from `refs/<revision or main>` (or `revision` naming a snapshot directly).
//!
//! Nothing is downloaded: a dataset missing locally is a `NotFound` error that says so.
//!
//! Which files make a split follows the `datasets` library: the `configs:` list in the YAML front
//! matter of the snapshot's `README.md` (`config_name`, `data_files` as `{split, path}` entries or
//! a pattern or a list, `data_dir`, `default: true`), or without it the default layouts
//! (`data/<split>-00000-of-00001*.*`, directories or file names that contain a split keyword such
//! as `train`, `dev`, `test`; otherwise every data file is `train`). Split names and their order
//! are the dataset's. Rows are read lazily in file order; see [`super::arrow_value`] for types.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use indexmap::IndexMap;
use serde::Deserialize;

use super::formats::{files_stream_columns, lazy, Typing};
use super::{add_policy, bool_setting, effective_limit, limit_stream, Loader};
use crate::value::truthy;
use crate::error::{Error, Result};
use crate::stream::{MultiStream, Stream};
use crate::value::{Instance, Value};

/// Unitxt's `LoadHF`. Fields are its arguments; `streaming` and `num_proc` are accepted and
/// ignored (reading is always lazy).
#[derive(Debug, Clone, Deserialize)]
pub struct LoadHF {
    /// Dataset repository id (`nyu-mll/glue`) or a local directory.
    pub path: String,
    /// Config name (`wnli`); `None` takes the default or only config.
    #[serde(default)]
    pub name: Option<String>,
    /// A sub-directory of the dataset that holds the data files.
    #[serde(default)]
    pub data_dir: Option<String>,
    /// Load only this split.
    #[serde(default)]
    pub split: Option<String>,
    /// The splits to load (skips listing them).
    #[serde(default)]
    pub splits: Option<Vec<String>>,
    /// Data files to read instead of the config's: a pattern, a list of patterns (split `train`),
    /// or a map split -> pattern(s).
    #[serde(default)]
    pub data_files: Option<Value>,
    /// A branch, tag or commit of the hub cache copy (default `main`).
    #[serde(default)]
    pub revision: Option<String>,
    /// `streaming`: accepted and unused (local files are always streamed).
    #[serde(default)]
    pub streaming: Option<bool>,
    /// A Python `lambda x: ...` keeping the instances it is true for, evaluated by
    /// [`crate::expr`]; needs `UNITXT_ALLOW_UNVERIFIED_CODE=True` as in Unitxt.
    #[serde(default)]
    pub filtering_lambda: Option<String>,
    /// `num_proc`: `datasets`' worker processes; accepted and unused.
    #[serde(default)]
    pub num_proc: Option<i64>,
    /// First instances of each split to keep.
    #[serde(default)]
    pub loader_limit: Option<usize>,
    /// Set on every instance; default `["public"]`, or `["proprietary"]` when `path` exists
    /// locally (relative to the working directory), as Unitxt decides.
    #[serde(default)]
    pub data_classification_policy: Option<Vec<String>>,
    /// Not from the catalog: when set, overrides `UNITXT_ALLOW_UNVERIFIED_CODE` for
    /// `filtering_lambda` (for callers that decide it themselves).
    #[serde(skip)]
    pub allow_unverified_code: Option<bool>,
}

/// One config of a dataset: split name -> file patterns, in the dataset's split order.
#[derive(Debug, Clone)]
pub struct ConfigSpec {
    /// The config's name (`default` when its entry has no `config_name`).
    pub name: String,
    /// Split name to its file patterns, relative to the snapshot.
    pub data_files: IndexMap<String, Vec<String>>,
    /// The config's `data_dir`, if the dataset card gives one.
    pub data_dir: Option<String>,
    /// Whether the dataset card marks this config as the default.
    pub default: bool,
}

fn env_nonempty(var: &str) -> Option<String> {
    std::env::var(var).ok().filter(|s| !s.is_empty())
}

/// The hub cache directory, as `huggingface_hub` picks it from the environment.
pub fn hub_cache_dir() -> PathBuf {
    if let Some(c) = env_nonempty("HF_HUB_CACHE") {
        return PathBuf::from(c);
    }
    if let Some(h) = env_nonempty("HF_HOME") {
        return Path::new(&h).join("hub");
    }
    let base = crate::catalog::user_cache_home().unwrap_or_else(|| PathBuf::from(".cache"));
    base.join("huggingface").join("hub")
}

/// The snapshot directory of dataset `repo` at `revision` (default `main`) in hub cache `cache`.
pub fn snapshot_in_cache(cache: &Path, repo: &str, revision: Option<&str>) -> Result<PathBuf> {
    let rev = revision.unwrap_or("main");
    let repo_dir = cache.join(format!("datasets--{}", repo.replace('/', "--")));
    let direct = repo_dir.join("snapshots").join(rev);
    if !rev.contains('/') && direct.is_dir() {
        return Ok(direct);
    }
    let commit = std::fs::read_to_string(repo_dir.join("refs").join(rev)).ok().map(|s| s.trim().to_string());
    if let Some(c) = commit.filter(|c| !c.is_empty()) {
        let snap = repo_dir.join("snapshots").join(&c);
        if snap.is_dir() {
            return Ok(snap);
        }
    }
    Err(Error::file_not_found(format!(
        "dataset `{repo}` (revision `{rev}`) is not in the local Hugging Face hub cache {}; with HF_HUB_OFFLINE \
         set, a download (which needs network) is not attempted. Set HF_HUB_CACHE or \
         UNITXT_HF_OFFLINE_DATASETS_PATH to a directory that holds it, or unset HF_HUB_OFFLINE",
        cache.display()
    )))
}

/// Whether `HF_HUB_OFFLINE` forbids network access (`1`, `true`, `yes`, `on`, as `huggingface_hub`).
pub fn offline() -> bool {
    env_nonempty("HF_HUB_OFFLINE").is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "yes" | "on"))
}

/// Downloads dataset `repo` at `rev` into the hub cache `cache` with the `hf-hub` crate (the same
/// `datasets--org--name/{blobs,snapshots,refs}` layout `huggingface_hub` writes) and returns its
/// snapshot directory. Only the dataset card and data files (parquet, json, jsonl, csv, tsv,
/// txt) are fetched. Errors (kind Io) name the repository and the failing file.
pub fn download_snapshot(cache: &Path, repo: &str, rev: &str) -> Result<PathBuf> {
    use hf_hub::{api::sync::ApiBuilder, Repo, RepoType};
    let api = ApiBuilder::from_env()
        .with_cache_dir(cache.to_path_buf())
        .with_progress(false)
        .build()
        .map_err(|e| Error::io(format!("cannot set up the Hugging Face hub client: {e}")))?;
    let r = api.repo(Repo::with_revision(repo.to_string(), RepoType::Dataset, rev.to_string()));
    let info = r.info().map_err(|e| Error::io(format!("cannot list dataset `{repo}` on the Hugging Face hub: {e}")))?;
    let wanted = |f: &str| {
        f == "README.md" || [".parquet", ".json", ".jsonl", ".csv", ".tsv", ".txt"].iter().any(|x| f.ends_with(x))
    };
    let mut snapshot = None;
    for s in info.siblings.iter().filter(|s| wanted(&s.rfilename)) {
        let local = r.get(&s.rfilename).map_err(|e| Error::io(format!("downloading {} of dataset `{repo}`: {e}", s.rfilename)))?;
        if snapshot.is_none() {
            // <snapshot>/<rfilename>: strip the file's own path components.
            let depth = s.rfilename.split('/').count();
            snapshot = local.ancestors().nth(depth).map(Path::to_path_buf);
        }
    }
    snapshot.ok_or_else(|| Error::not_found(format!("dataset `{repo}` has no data files on the Hugging Face hub")))
}

/// The local directory of dataset `path` (see the module documentation for the order).
pub fn dataset_root(path: &str, revision: Option<&str>) -> Result<PathBuf> {
    if let Some(off) = env_nonempty("UNITXT_HF_OFFLINE_DATASETS_PATH") {
        let p = Path::new(&off).join(path);
        if p.is_dir() {
            return Ok(p);
        }
        return Err(Error::file_not_found(format!(
            "dataset `{path}` not found at {} (UNITXT_HF_OFFLINE_DATASETS_PATH); a download needs network, \
             which unitxt-rs does not use",
            p.display()
        )));
    }
    if Path::new(path).is_dir() {
        return Ok(PathBuf::from(path));
    }
    let cache = hub_cache_dir();
    match snapshot_in_cache(&cache, path, revision) {
        Err(e) if e.kind == crate::error::ErrorKind::FileNotFound && !offline() => {
            download_snapshot(&cache, path, revision.unwrap_or("main"))
        }
        other => other,
    }
}

/// The YAML front matter of a dataset card, as JSON (`Null` when absent). Errors on invalid
/// YAML.
pub fn readme_metadata(root: &Path) -> Result<Value> {
    match front_matter(root) {
        Some(yaml) => parse_front_matter(root, &yaml),
        None => Ok(Value::Null),
    }
}

/// The front matter's text (between the leading `---` line and the next), if the card has one.
/// A `---` line is one that is `---` once trailing whitespace is trimmed.
fn front_matter(root: &Path) -> Option<String> {
    let mut text = std::fs::read_to_string(root.join("README.md")).ok()?;
    let first = text.split_inclusive('\n').next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let start = first.len();
    let end = start + find_line(&text[start..], "---")?;
    text.truncate(end);
    Some(text.split_off(start))
}

/// The byte offset in `text` of the first line that is `line` once trailing whitespace is
/// trimmed (found with memchr's substring search rather than line by line: a card's front
/// matter runs to thousands of lines).
fn find_line(text: &str, line: &str) -> Option<usize> {
    let b = text.as_bytes();
    memchr::memmem::find_iter(b, line.as_bytes()).find(|&p| {
        let rest = &text[p + line.len()..];
        (p == 0 || b[p - 1] == b'\n') && rest[..rest.find('\n').map_or(rest.len(), |n| n + 1)].trim_end().is_empty()
    })
}

fn parse_front_matter(root: &Path, yaml: &str) -> Result<Value> {
    let y: serde_yaml::Value = serde_yaml::from_str(yaml)
        .map_err(|e| Error::invalid(format!("invalid YAML front matter in {}: {e}", root.join("README.md").display())))?;
    crate::value::to_value(y)
        .map_err(|e| Error::invalid(format!("unsupported YAML front matter in {}: {e}", root.join("README.md").display())))
}

/// The part of the front matter that [`declared_configs`] reads: a map with its `configs`
/// entry. When `configs:` opens a top-level block of its own line, only that block is parsed
/// (up to the next line that starts another top-level key); a card's `dataset_info` is often
/// far larger (MMLU's: 1,600 lines for 57 configs) and is not needed to find data files.
/// Otherwise the whole front matter is parsed, as [`readme_metadata`] does.
///
/// With `want` (the config a loader names), the block is narrowed further to the one list item
/// that declares that config plainly (its first line `- config_name: <want>`, and `want`
/// written nowhere else in the block), and only that item is parsed: MMLU's block alone took
/// 5.4M instructions to parse, 30% of a one-subject recipe. The narrowed result is used only
/// when it parses to exactly that one config; otherwise (no such item, the name quoted or
/// repeated, an item of another shape) the whole block is parsed, so that the configs found,
/// and the errors, are those of the whole block.
pub fn readme_configs(root: &Path, want: Option<&str>) -> Result<Value> {
    let Some(yaml) = front_matter(root) else { return Ok(Value::Null) };
    let Some(start) = find_line(&yaml, "configs:") else { return parse_front_matter(root, &yaml) };
    // The block: the `configs:` line and the lines after it that do not start another
    // top-level key.
    let mut lines = yaml[start..].split_inclusive('\n');
    let mut len = lines.next().map_or(0, str::len);
    for l in lines {
        if l.starts_with(|c: char| !matches!(c, ' ' | '\t' | '-' | '#' | '\n' | '\r')) {
            break;
        }
        len += l.len();
    }
    let block = &yaml[start..start + len];
    if let Some((name, item)) = want.and_then(|n| config_item(block, n).map(|item| (n, item))) {
        let narrowed = format!("configs:\n{item}");
        if let Ok(v) = parse_front_matter(root, &narrowed) {
            if declared_configs(&v).is_ok_and(|c| c.len() == 1 && c[0].name == name) {
                return Ok(v);
            }
        }
    }
    parse_front_matter(root, block)
}

/// The item of the `configs:` list in `block` (which starts with the `configs:` line) whose
/// first line is `- config_name: <name>`, as its lines; `None` unless exactly one item is
/// and `name` occurs nowhere in the block outside it. Items start at the lines `- ` of the
/// indentation of the first one; deeper lists (`data_files` entries) belong to their item.
fn config_item<'a>(block: &'a str, name: &str) -> Option<&'a str> {
    let mut indent = None;
    let mut starts = Vec::new();
    let mut at = 0;
    for l in block.split_inclusive('\n') {
        let rest = l.trim_start_matches(' ');
        if rest.starts_with("- ") {
            let depth = l.len() - rest.len();
            if *indent.get_or_insert(depth) == depth {
                starts.push(at);
            }
        }
        at += l.len();
    }
    starts.push(block.len());
    let header = format!("config_name: {name}");
    let mut found = None;
    for w in starts.windows(2) {
        let item = &block[w[0]..w[1]];
        let first = item.lines().next().unwrap_or("").trim_start_matches(' ');
        if first.strip_prefix("- ").is_some_and(|h| h.trim_end() == header) {
            if found.is_some() {
                return None;
            }
            found = Some(item);
        }
    }
    let item = found?;
    (block.matches(name).count() == item.matches(name).count()).then_some(item)
}

fn patterns(v: &Value, what: &str) -> Result<Vec<String>> {
    match v {
        Value::String(s) => Ok(vec![s.as_str().to_owned()]),
        Value::Array(a) => a
            .iter()
            .map(|x| {
                x.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| Error::invalid(format!("{what}: expected a path, got {x}")))
            })
            .collect(),
        other => Err(Error::invalid(format!("{what}: expected a path or a list of paths, got {other}"))),
    }
}

/// Normalizes a `data_files` value (pattern, list of patterns, list of `{split, path}`, or map
/// split -> patterns) to split -> patterns; bare patterns make the split `train`.
pub fn normalize_data_files(v: &Value) -> Result<IndexMap<String, Vec<String>>> {
    let mut out: IndexMap<String, Vec<String>> = IndexMap::new();
    match v {
        Value::String(_) => {
            out.insert("train".into(), patterns(v, "data_files")?);
        }
        Value::Array(items) if items.iter().all(|x| x.is_string()) => {
            out.insert("train".into(), patterns(v, "data_files")?);
        }
        Value::Array(items) => {
            for it in items {
                let split = it.get("split").and_then(|s| s.as_str()).unwrap_or("train");
                let p =
                    it.get("path").ok_or_else(|| Error::invalid(format!("data_files entry without `path`: {it}")))?;
                out.entry(split.to_string()).or_default().extend(patterns(p, "data_files")?);
            }
        }
        Value::Object(m) => {
            for (split, p) in m {
                out.entry(split.to_string()).or_default().extend(patterns(p, "data_files")?);
            }
        }
        other => return Err(Error::invalid(format!("invalid data_files: {other}"))),
    }
    Ok(out)
}

/// The configs declared in the card's front matter (`configs:`), in order.
pub fn declared_configs(meta: &Value) -> Result<Vec<ConfigSpec>> {
    let Some(list) = meta.get("configs").and_then(|c| c.as_array()) else { return Ok(Vec::new()) };
    list.iter()
        .map(|c| {
            let name = match c.get("config_name") {
                Some(Value::String(s)) => s.to_string(),
                Some(other) => other.to_string(),
                None => "default".to_string(),
            };
            let data_files = match c.get("data_files") {
                Some(v) => normalize_data_files(v)?,
                None => IndexMap::new(),
            };
            Ok(ConfigSpec {
                name,
                data_files,
                data_dir: c.get("data_dir").and_then(|d| d.as_str()).map(str::to_string),
                default: c.get("default").and_then(|d| d.as_bool()).unwrap_or(false),
            })
        })
        .collect()
}

/// Every file under `base`, as paths relative to it with `/`, sorted; hidden files and
/// directories (`.x`, `__x`) and `README.md` are left out.
pub fn list_files(base: &Path) -> Result<Vec<String>> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>, depth: usize) -> Result<()> {
        if depth > 32 {
            return Ok(());
        }
        let entries =
            std::fs::read_dir(dir).map_err(|e| Error::from(e).context(format!("listing {}", dir.display())))?;
        for e in entries {
            let e = e?;
            let name = e.file_name().to_string_lossy().to_string();
            if name.starts_with('.') || name.starts_with("__") {
                continue;
            }
            let rel = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
            let p = e.path();
            if p.is_dir() {
                walk(&p, &rel, out, depth + 1)?;
            } else if rel != "README.md" {
                out.push(rel);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(base, "", &mut out, 0)?;
    out.sort();
    Ok(out)
}

/// Files of `all` (relative to `base`) matching `pattern`, sorted; `*` stops at `/`, `**` spans
/// directories. A pattern without wildcards names one file. Errors when nothing matches.
pub fn resolve_pattern(base: &Path, all: &[String], pattern: &str) -> Result<Vec<PathBuf>> {
    if pattern.starts_with("http://") || pattern.starts_with("https://") || pattern.starts_with("hf://") {
        return Err(Error::unsupported(format!(
            "data file {pattern:?} is remote: a download needs network, which unitxt-rs does not use"
        )));
    }
    let p = pattern.strip_prefix("./").unwrap_or(pattern);
    if !p.contains(['*', '?', '[']) {
        let f = base.join(p);
        return if f.is_file() {
            Ok(vec![f])
        } else {
            Err(Error::file_not_found(format!("unable to find data file {pattern:?} in {}", base.display())))
        };
    }
    let pat =
        glob::Pattern::new(p).map_err(|e| Error::invalid(format!("invalid data file pattern {pattern:?}: {e}")))?;
    let opts = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: true,
        require_literal_leading_dot: true,
    };
    let found: Vec<PathBuf> = all.iter().filter(|f| pat.matches_with(f, opts)).map(|f| base.join(f)).collect();
    if found.is_empty() {
        return Err(Error::file_not_found(format!("unable to find data files matching {pattern:?} in {}", base.display())));
    }
    Ok(found)
}

const SPLIT_KEYWORDS: &[(&str, &[&str])] = &[
    ("train", &["train", "training"]),
    ("validation", &["validation", "valid", "dev", "val"]),
    ("test", &["test", "testing", "eval", "evaluation"]),
];

fn is_sep(c: char) -> bool {
    matches!(c, '-' | '.' | '_' | ' ') || c.is_ascii_digit()
}

/// Whether `part` is `kw`, or holds `kw` bounded by separator characters (or the part's ends).
fn has_keyword(part: &str, kw: &str, whole_ok: bool, need_after: bool) -> bool {
    if whole_ok && part == kw {
        return true;
    }
    let mut start = 0;
    while let Some(i) = part[start..].find(kw) {
        let i = start + i;
        let before_ok = i == 0 || part[..i].chars().last().is_some_and(is_sep);
        let rest = &part[i + kw.len()..];
        let after_ok = if need_after {
            rest.chars().next().is_some_and(is_sep)
        } else {
            rest.is_empty() || rest.chars().next().is_some_and(is_sep)
        };
        if before_ok && after_ok {
            return true;
        }
        start = i + 1;
    }
    false
}

/// Splits of a dataset without declared configs, as the `datasets` default layouts give them.
pub fn default_data_files(all: &[String]) -> IndexMap<String, Vec<String>> {
    let data: Vec<&String> =
        all.iter().filter(|f| super::formats::FileFormat::from_path(Path::new(f.as_str())).is_some()).collect();
    let mut out: IndexMap<String, Vec<String>> = IndexMap::new();
    // data/<split>-00000-of-00001*.*
    let mut sharded: IndexMap<String, Vec<String>> = IndexMap::new();
    for f in &data {
        if let Some(name) = f.strip_prefix("data/").filter(|n| !n.contains('/')) {
            if let Some(pos) = name.find("-of-") {
                let (head, tail) = (&name[..pos], &name[pos + 4..]);
                let digits_ok = |s: &str| s.len() >= 5 && s[..5].bytes().all(|b| b.is_ascii_digit());
                if head.len() > 6
                    && head.as_bytes()[head.len() - 6] == b'-'
                    && digits_ok(&head[head.len() - 5..])
                    && digits_ok(tail)
                {
                    sharded.entry(head[..head.len() - 6].to_string()).or_default().push(f.to_string());
                }
            }
        }
    }
    if !sharded.is_empty() {
        for (s, _) in SPLIT_KEYWORDS {
            if let Some(v) = sharded.shift_remove(*s) {
                out.insert(s.to_string(), v);
            }
        }
        let mut rest: Vec<_> = sharded.into_iter().collect();
        rest.sort_by(|a, b| a.0.cmp(&b.0));
        out.extend(rest);
        return out;
    }
    for by_dir in [true, false] {
        for (split, kws) in SPLIT_KEYWORDS {
            let files: Vec<String> = data
                .iter()
                .filter(|f| {
                    let parts: Vec<&str> = f.split('/').collect();
                    let (dirs, file) = parts.split_at(parts.len() - 1);
                    kws.iter().any(|kw| {
                        if by_dir {
                            dirs.iter().any(|d| has_keyword(d, kw, true, false))
                        } else {
                            has_keyword(file[0], kw, false, true)
                        }
                    })
                })
                .map(|f| f.to_string())
                .collect();
            if !files.is_empty() {
                out.insert(split.to_string(), files);
            }
        }
        if !out.is_empty() {
            return out;
        }
    }
    if !data.is_empty() {
        out.insert("train".into(), data.into_iter().cloned().collect());
    }
    out
}

/// Picks the config named `name` (or the default / only one) from `configs`.
pub fn select_config<'a>(configs: &'a [ConfigSpec], name: Option<&str>, repo: &str) -> Result<&'a ConfigSpec> {
    let names: Vec<&str> = configs.iter().map(|c| c.name.as_str()).collect();
    match name {
        Some(n) => configs.iter().find(|c| c.name == n).ok_or_else(|| {
            Error::not_found(format!("config `{n}` not found in dataset `{repo}`; available configs: {names:?}"))
        }),
        None => {
            configs.iter().find(|c| c.default).or(if configs.len() == 1 { configs.first() } else { None }).ok_or_else(
                || Error::not_found(format!("dataset `{repo}` has several configs; pick one with `name`: {names:?}")),
            )
        }
    }
}

impl LoadHF {
    /// The policy set on instances.
    pub fn policy(&self) -> Vec<String> {
        match &self.data_classification_policy {
            Some(p) => p.clone(),
            None if Path::new(&self.path).exists() => vec!["proprietary".into()],
            None => vec!["public".into()],
        }
    }

    /// Split name -> data files, in the dataset's split order, for this loader's config of the
    /// dataset copy at `root`.
    pub fn resolve_files(&self, root: &Path) -> Result<IndexMap<String, Vec<PathBuf>>> {
        let root = root.to_path_buf();
        let shown_name = self.name.as_deref().unwrap_or("<default>");
        let (mut base, split_patterns) = match &self.data_files {
            Some(df) => (root.clone(), normalize_data_files(df)?),
            None => {
                let configs = declared_configs(&readme_configs(&root, self.name.as_deref())?)?;
                if configs.is_empty() {
                    if let Some(n) = self.name.as_deref().filter(|n| *n != "default") {
                        return Err(Error::not_found(format!(
                            "config `{n}` not found in dataset `{}`; available configs: [\"default\"]",
                            self.path
                        )));
                    }
                    let base = match &self.data_dir {
                        Some(d) => root.join(d),
                        None => root.clone(),
                    };
                    let all = list_files(&base)?;
                    let files = default_data_files(&all);
                    return Ok(files
                        .into_iter()
                        .map(|(s, fs)| (s, fs.into_iter().map(|f| base.join(f)).collect()))
                        .collect());
                }
                let c = select_config(&configs, self.name.as_deref(), &self.path)?;
                let base = match &c.data_dir {
                    Some(d) => root.join(d),
                    None => root.clone(),
                };
                (base, c.data_files.clone())
            }
        };
        if let Some(d) = &self.data_dir {
            base = base.join(d);
        }
        let all = if base.is_dir() { list_files(&base)? } else { Vec::new() };
        let mut out = IndexMap::new();
        for (split, pats) in split_patterns {
            let mut files: Vec<PathBuf> = Vec::new();
            for p in &pats {
                for f in resolve_pattern(&base, &all, p).map_err(|e| {
                    e.context(format!("split `{split}` of dataset `{}` config `{shown_name}`", self.path))
                })? {
                    if !files.contains(&f) {
                        files.push(f);
                    }
                }
            }
            out.insert(split, files);
        }
        Ok(out)
    }

    fn filter(&self) -> Result<Option<std::sync::Arc<(String, crate::expr::Expression)>>> {
        let Some(src) = &self.filtering_lambda else { return Ok(None) };
        let allowed = match self.allow_unverified_code {
            Some(a) => a,
            None => bool_setting("UNITXT_ALLOW_UNVERIFIED_CODE", false)?,
        };
        if !allowed {
            return Err(Error::unsupported(
                "LoadHF cannot use filtering_lambda without UNITXT_ALLOW_UNVERIFIED_CODE=True (as in Unitxt)",
            ));
        }
        let (var, body) = parse_lambda(src)?;
        Ok(Some(std::sync::Arc::new((var, crate::expr::Expression::parse(body)?))))
    }
}

/// Splits `lambda x: body` into the parameter name and the body.
pub fn parse_lambda(src: &str) -> Result<(String, &str)> {
    let bad = || Error::invalid(format!("filtering_lambda must be `lambda <name>: <expression>`, got {src:?}"));
    let rest = src.trim().strip_prefix("lambda").ok_or_else(bad)?;
    let colon = rest.find(':').ok_or_else(bad)?;
    let var = rest[..colon].trim();
    if var.is_empty()
        || !var.chars().all(|c| c.is_alphanumeric() || c == '_')
        || var.chars().next().is_some_and(|c| c.is_ascii_digit())
    {
        return Err(bad());
    }
    Ok((var.to_string(), rest[colon + 1..].trim()))
}

impl Loader for LoadHF {
    fn load(&self, loader_limit: Option<usize>) -> Result<MultiStream> {
        self.load_selected(loader_limit, None)
    }

    /// Parquet files are read column by column; with a `filtering_lambda` (which may read any
    /// field) every column is read.
    fn load_columns(&self, loader_limit: Option<usize>, columns: &[String]) -> Result<MultiStream> {
        self.load_selected(loader_limit, Some(columns))
    }
}

impl LoadHF {
    fn load_selected(&self, loader_limit: Option<usize>, columns: Option<&[String]>) -> Result<MultiStream> {
        let root = dataset_root(&self.path, self.revision.as_deref())
            .map_err(|e| e.context(format!("in load_hf(path={:?}, name={:?})", self.path, self.name)))?;
        self.load_at_columns(&root, loader_limit, columns)
    }

    /// [`Loader::load`] from the dataset copy at `root` (a snapshot directory).
    pub fn load_at(&self, root: &Path, loader_limit: Option<usize>) -> Result<MultiStream> {
        self.load_at_columns(root, loader_limit, None)
    }

    /// [`Loader::load_columns`] from the dataset copy at `root`: parquet files are read only
    /// for `columns` when given (and no `filtering_lambda` is set).
    pub fn load_at_columns(&self, root: &Path, loader_limit: Option<usize>, columns: Option<&[String]>) -> Result<MultiStream> {
        let ctx = || format!("in load_hf(path={:?}, name={:?})", self.path, self.name);
        let limit = effective_limit(loader_limit, self.loader_limit)?;
        let filter = self.filter().map_err(|e| e.context(ctx()))?;
        // The filter reads the fields it subscripts its argument with, when that is all it
        // does with it; otherwise every column is read.
        let columns: Option<Arc<[String]>> = match (&filter, columns) {
            (None, Some(c)) => Some(c.into()),
            (Some(f), Some(c)) => f.1.string_keys_of(&f.0).map(|keys| c.iter().cloned().chain(keys).collect()),
            (_, None) => None,
        };
        let available = self.resolve_files(root).map_err(|e| e.context(ctx()))?;
        let wanted: Vec<String> = if let Some(s) = &self.split {
            vec![s.clone()]
        } else if let Some(s) = &self.splits {
            s.clone()
        } else {
            available.keys().cloned().collect()
        };
        let mut ms = MultiStream::new();
        for split in wanted {
            let files = available.get(&split).cloned().ok_or_else(|| {
                Error::not_found(format!(
                    "split `{split}` not found in dataset `{}` config `{}`; available splits: {:?}",
                    self.path,
                    self.name.as_deref().unwrap_or("<default>"),
                    available.keys().collect::<Vec<_>>()
                ))
            })?;
            let split_ctx = format!("dataset `{}` split `{split}`", self.path);
            let filter = filter.clone();
            let columns = columns.clone();
            let stream: Stream = lazy(move || {
                let rows = files_stream_columns(files, None, Typing::Arrow, columns);
                let rows = rows.map(move |r| r.map_err(|e| e.context(split_ctx.clone())));
                Ok(match filter {
                    None => Box::new(rows) as Stream,
                    Some(f) => Box::new(rows.filter_map(move |r| match r {
                        Err(e) => Some(Err(e)),
                        Ok(inst) => {
                            let mut vars = Instance::new();
                            vars.insert(f.0.as_str().into(), Value::Object(inst));
                            match f.1.eval(&vars) {
                                Err(e) => Some(Err(e.context("in filtering_lambda"))),
                                Ok(v) if truthy(&v) => match vars.shift_remove(&f.0) {
                                    Some(Value::Object(inst)) => Some(Ok(inst)),
                                    _ => None,
                                },
                                Ok(_) => None,
                            }
                        }
                    })),
                })
            });
            ms.streams.insert(split, limit_stream(stream, limit));
        }
        Ok(add_policy(ms, &self.policy()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::collect;

    use crate::loaders::test_hub as hub;

    fn loader(path: &str, name: Option<&str>) -> LoadHF {
        crate::value::from_value(crate::json!({"path": path, "name": name})).unwrap()
    }

    fn load(l: &LoadHF, limit: Option<usize>) -> MultiStream {
        let root = snapshot_in_cache(&hub(), &l.path, l.revision.as_deref()).unwrap();
        l.load_at(&root, limit).unwrap()
    }

    fn first(ms: &mut MultiStream, split: &str) -> String {
        let mut s = ms.take(split).unwrap();
        Value::Object(s.next().unwrap().unwrap()).to_string()
    }

    // Expected values below were printed by Unitxt 1.26.10 `LoadHF(path=..., name=...)()` with
    // UNITXT_HF_OFFLINE_DATASETS_PATH pointing at these snapshots, and by
    // `datasets.load_dataset(<snapshot>, <config>)` (datasets 5.2.0).

    /// Every dataset with a snapshot in the hub cache: its repo, its snapshot's root, and the
    /// configs that its whole front matter declares.
    fn hub_datasets() -> Vec<(String, PathBuf, Vec<ConfigSpec>)> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(hub()).unwrap() {
            let dir = e.unwrap().file_name().to_string_lossy().to_string();
            let Some(repo) = dir.strip_prefix("datasets--") else { continue };
            let repo = repo.replacen("--", "/", 1);
            let Ok(root) = snapshot_in_cache(&hub(), &repo, None) else { continue };
            let whole = declared_configs(&readme_metadata(&root).unwrap()).unwrap();
            out.push((repo, root, whole));
        }
        out
    }

    /// Parsing only the `configs` block finds the same configs as parsing the whole front
    /// matter, for every dataset in the hub cache; and cards with configs were checked.
    #[test]
    fn configs_block_matches_the_whole_front_matter() {
        let mut with_configs = 0;
        for (repo, root, whole) in hub_datasets() {
            let block = declared_configs(&readme_configs(&root, None).unwrap()).unwrap();
            assert_eq!(format!("{block:?}"), format!("{whole:?}"), "{repo}");
            with_configs += usize::from(!whole.is_empty());
        }
        assert!(with_configs >= 5, "only {with_configs} cards with configs");
    }

    /// Narrowed to one config, the front matter gives the config that the whole front matter
    /// selects by that name, for every config of every dataset in the hub cache; and MMLU's
    /// subjects were narrowed (not parsed whole).
    #[test]
    fn narrowed_configs_select_what_the_whole_front_matter_selects() {
        let mut narrowed = 0;
        for (repo, root, whole) in hub_datasets() {
            for c in &whole {
                let got = declared_configs(&readme_configs(&root, Some(&c.name)).unwrap()).unwrap();
                let picked = select_config(&got, Some(&c.name), &repo).unwrap();
                let expected = select_config(&whole, Some(&c.name), &repo).unwrap();
                assert_eq!(format!("{picked:?}"), format!("{expected:?}"), "{repo} {}", c.name);
                narrowed += usize::from(got.len() == 1 && whole.len() > 1);
            }
            // A name no config has gets the whole block's error, which lists every config.
            let got = declared_configs(&readme_configs(&root, Some("no-such-config")).unwrap()).unwrap();
            assert_eq!(format!("{got:?}"), format!("{whole:?}"), "{repo}");
        }
        assert!(narrowed >= 57, "only {narrowed} configs narrowed");
    }

    #[test]
    fn config_item_needs_one_plain_item_and_the_name_nowhere_else() {
        let block = "configs:\n- config_name: a\n  data_files:\n  - split: test\n    path: a/test-*\n# note\n- config_name: ab\n  data_files: ab/*.parquet\n- config_name: \"c\"\n  data_files: c/*\n- config_name: d\n  data_files: d/*\n- config_name: d\n  data_files: d2/*\n";
        assert_eq!(config_item(block, "ab"), Some("- config_name: ab\n  data_files: ab/*.parquet\n"));
        // `a` also occurs in `ab`'s item; `c` is quoted; `d` is declared twice; `e` is absent.
        for name in ["a", "c", "d", "e"] {
            assert_eq!(config_item(block, name), None, "{name}");
        }
        // An indented list: items at its indentation, nested lists inside them.
        let indented = "configs:\n  - config_name: x\n    data_files:\n      - split: train\n        path: x/*\n  - config_name: y\n    data_files: y/*\n";
        assert_eq!(config_item(indented, "x"), Some("  - config_name: x\n    data_files:\n      - split: train\n        path: x/*\n"));
    }

    #[test]
    fn configs_block_ends_at_the_next_top_level_key() {
        let dir = std::env::temp_dir().join(format!("unitxt-rs-readme-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let card = "---\nlicense: mit\nconfigs:\n- config_name: a\n  data_files:\n  - split: test\n    path: a/test-*\n\n# note\n- config_name: b\n  data_files: b/*.parquet\ndataset_info:\n  bad: [unclosed\n---\nText\n";
        std::fs::write(dir.join("README.md"), card).unwrap();
        let configs = declared_configs(&readme_configs(&dir, None).unwrap()).unwrap();
        let names: Vec<&str> = configs.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(configs[1].data_files["train"], ["b/*.parquet"]);
        // The whole front matter is invalid YAML; only the configs block was read.
        assert!(readme_metadata(&dir).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn wnli_first_train_instance() {
        let mut ms = load(&loader("nyu-mll/glue", Some("wnli")), None);
        assert_eq!(ms.names(), vec!["train", "validation", "test"]);
        assert_eq!(
            first(&mut ms, "train"),
            concat!(
                r#"{"sentence1":"I stuck a pin through a carrot. When I pulled the pin out, it had a hole.","#,
                r#""sentence2":"The carrot had a hole.","label":1,"idx":0,"data_classification_policy":["public"]}"#,
            )
        );
    }

    #[test]
    fn stsb_float32_label() {
        let mut ms = load(&loader("nyu-mll/glue", Some("stsb")), None);
        let rows = collect(ms.take("train").unwrap()).unwrap();
        assert_eq!(rows.len(), 5749);
        assert_eq!(rows[0]["label"].to_string(), "5.0");
        assert_eq!(rows[1]["label"].to_string(), "3.799999952316284");
    }

    #[test]
    fn squad_validation_answers() {
        let mut ms = load(&loader("rajpurkar/squad", Some("plain_text")), None);
        assert_eq!(ms.names(), vec!["train", "validation"]);
        let rows = collect(ms.take("validation").unwrap()).unwrap();
        assert_eq!(rows.len(), 10570);
        assert_eq!(
            rows[0]["answers"].to_string(),
            r#"{"text":["Denver Broncos","Denver Broncos","Denver Broncos"],"answer_start":[177,177,177]}"#
        );
        assert_eq!(
            rows[10569]["answers"].to_string(),
            r#"{"text":["sthène","sthène","sthène","sthène","sthène"],"answer_start":[665,665,665,665,665]}"#
        );
        let keys: Vec<&str> = rows[0].keys().map(|k| k.as_str()).collect();
        assert_eq!(keys, vec!["id", "title", "context", "question", "answers", "data_classification_policy"]);
    }

    #[test]
    fn squad_read_by_column() {
        let l = loader("rajpurkar/squad", Some("plain_text"));
        let root = snapshot_in_cache(&hub(), &l.path, None).unwrap();
        let cols = ["answers".to_string(), "context".to_string(), "no_such_column".to_string()];
        let mut ms = l.load_at_columns(&root, None, Some(&cols)).unwrap();
        let rows = collect(ms.take("validation").unwrap()).unwrap();
        assert_eq!(rows.len(), 10570);
        // File order, whatever the order asked; the loader's policy is added after reading.
        let keys: Vec<&str> = rows[0].keys().map(|k| k.as_str()).collect();
        assert_eq!(keys, vec!["context", "answers", "data_classification_policy"]);
        assert_eq!(
            rows[10569]["answers"].to_string(),
            r#"{"text":["sthène","sthène","sthène","sthène","sthène"],"answer_start":[665,665,665,665,665]}"#
        );
        // A filtering lambda that reads its argument's fields by name adds them.
        let mut f = loader("rajpurkar/squad", Some("plain_text"));
        f.filtering_lambda = Some("lambda x: x['title'] == 'Super_Bowl_50'".into());
        f.allow_unverified_code = Some(true);
        let mut ms = f.load_at_columns(&root, Some(3), Some(&cols)).unwrap();
        let rows = collect(ms.take("validation").unwrap()).unwrap();
        let keys: Vec<&str> = rows[2].keys().map(|k| k.as_str()).collect();
        assert_eq!(keys, vec!["title", "context", "answers", "data_classification_policy"]);
        assert_eq!(rows[2]["title"], Value::String("Super_Bowl_50".into()));
        // One that may read any field (the argument is passed on whole): every column.
        f.filtering_lambda = Some("lambda x: len(x) > 0 and x['title'] == 'Super_Bowl_50'".into());
        let mut ms = f.load_at_columns(&root, Some(3), Some(&cols)).unwrap();
        let rows = collect(ms.take("validation").unwrap()).unwrap();
        assert_eq!(rows[0].len(), 6);
    }

    #[test]
    fn mmlu_anatomy_choices_and_limit() {
        let mut ms = load(&loader("cais/mmlu", Some("anatomy")), Some(3));
        assert_eq!(ms.names(), vec!["test", "validation", "dev"]);
        let rows = collect(ms.take("test").unwrap()).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(
            Value::Object(rows[0].clone()).to_string(),
            concat!(
                r#"{"question":"A lesion causing compression of the facial nerve at the stylomastoid foramen"#,
                r#" will cause ipsilateral","#,
                r#""subject":"anatomy","choices":["paralysis of the facial muscles.","#,
                r#""paralysis of the facial muscles and loss of taste.","paralysis of the facial muscles,"#,
                r#" loss of taste and lacrimation.","paralysis of the facial muscles, loss of taste,"#,
                r#" lacrimation and decreased salivation."],"answer":0,"data_classification_policy":["public"]}"#,
            )
        );
        assert_eq!(collect(ms.take("dev").unwrap()).unwrap().len(), 3);
    }

    #[test]
    fn sst2_counts_and_order() {
        let mut ms = load(&loader("nyu-mll/glue", Some("sst2")), None);
        let train = collect(ms.take("train").unwrap()).unwrap();
        assert_eq!(train.len(), 67349);
        assert_eq!(
            Value::Object(train[67348].clone()).to_string(),
            concat!(
                r#"{"sentence":"this new jangle of noise ,"#,
                r#" mayhem and stupidity must be a serious contender for the title . ","label":0,"idx":67348,"#,
                r#""data_classification_policy":["public"]}"#,
            )
        );
        assert_eq!(collect(ms.take("validation").unwrap()).unwrap().len(), 872);
        let test = collect(ms.take("test").unwrap()).unwrap();
        assert_eq!(test.len(), 1821);
        assert_eq!(test[0]["label"].to_string(), "-1");
    }

    #[test]
    fn conll_lists_of_ints_and_policy_override() {
        let mut l = loader("eriktks/conll2003", None);
        l.data_classification_policy = Some(vec!["pii".into()]);
        l.split = Some("train".into());
        let mut ms = load(&l, None);
        assert_eq!(ms.names(), vec!["train"]);
        assert_eq!(
            first(&mut ms, "train"),
            concat!(
                r#"{"id":"0","tokens":["EU","rejects","German","call","to","boycott","British","lamb","."],"#,
                r#""pos_tags":[22,42,16,21,35,37,16,21,7],"chunk_tags":[11,21,11,12,21,22,11,12,0],"ner_tags":[3,"#,
                r#"0,7,0,0,0,7,0,0],"data_classification_policy":["pii"]}"#,
            )
        );
    }

    #[test]
    fn missing_config_and_split_are_not_found() {
        let root = snapshot_in_cache(&hub(), "nyu-mll/glue", None).unwrap();
        let e = loader("nyu-mll/glue", Some("nope")).load_at(&root, None).err().unwrap();
        assert_eq!(e.kind, crate::error::ErrorKind::NotFound);
        assert!(e.message.contains("nope") && e.message.contains("wnli") && e.message.contains("nyu-mll/glue"), "{e}");
        let e = loader("nyu-mll/glue", None).load_at(&root, None).err().unwrap();
        assert!(e.message.contains("several configs"), "{e}");
        let mut l = loader("nyu-mll/glue", Some("wnli"));
        l.splits = Some(vec!["dev".into()]);
        let e = l.load_at(&root, None).err().unwrap();
        assert_eq!(e.kind, crate::error::ErrorKind::NotFound);
        assert!(e.message.contains("dev") && e.message.contains("validation"), "{e}");
        let e = snapshot_in_cache(&hub(), "nobody/nothing", None).err().unwrap();
        assert!(e.message.contains("network"), "{e}");
    }

    #[test]
    fn corrupt_parquet_is_an_error() {
        let dir = std::env::temp_dir().join(format!("unitxt_rs_corrupt_{}", std::process::id()));
        std::fs::create_dir_all(dir.join("data")).unwrap();
        std::fs::write(dir.join("data/train-00000-of-00001.parquet"), b"PAR1 this is not parquet at all PAR1")
            .unwrap();
        // A real file cut in half: valid magic at the start, footer gone.
        let real = snapshot_in_cache(&hub(), "nyu-mll/glue", None).unwrap().join("wnli/test-00000-of-00001.parquet");
        let bytes = std::fs::read(real).unwrap();
        std::fs::write(dir.join("data/test-00000-of-00001.parquet"), &bytes[..bytes.len() / 2]).unwrap();
        let l: LoadHF = crate::value::from_value(crate::json!({"path": dir.to_string_lossy()})).unwrap();
        let mut ms = l.load_at(&dir, None).unwrap();
        assert_eq!(ms.names(), vec!["train", "test"]);
        for split in ["train", "test"] {
            let e = collect(ms.take(split).unwrap()).err().unwrap();
            assert_eq!(e.kind, crate::error::ErrorKind::Invalid);
            assert!(e.message.contains(&format!("{split}-00000-of-00001.parquet")), "{e}");
        }
        // A local path gets the proprietary policy, as in Unitxt.
        assert_eq!(l.policy(), vec!["proprietary"]);
    }

    #[test]
    fn default_layouts() {
        let all: Vec<String> =
            ["a/dev.jsonl", "a/train.jsonl", "b/test_x.csv", "notes.md"].iter().map(|s| s.to_string()).collect();
        let got = default_data_files(&all);
        assert_eq!(got.keys().collect::<Vec<_>>(), vec!["train", "validation", "test"]);
        let all: Vec<String> = [
            "data/train-00000-of-00002.parquet",
            "data/train-00001-of-00002.parquet",
            "data/foo-00000-of-00001.parquet",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let got = default_data_files(&all);
        assert_eq!(got.keys().collect::<Vec<_>>(), vec!["train", "foo"]);
        assert_eq!(got["train"].len(), 2);
        assert_eq!(parse_lambda("lambda x: x['subject'] == 'a'").unwrap(), ("x".to_string(), "x['subject'] == 'a'"));
    }

    #[test]
    fn filtering_lambda_before_limit() {
        // Unitxt's LoadHF(path='cais/mmlu', name='all', filtering_lambda="lambda x: x['subject'] == 'anatomy'")
        // keeps the 135 anatomy test rows; the first equals anatomy's first test row.
        let mut l = loader("cais/mmlu", Some("all"));
        l.filtering_lambda = Some("lambda x: x['subject'] == 'anatomy'".into());
        l.split = Some("test".into());
        let root = snapshot_in_cache(&hub(), &l.path, None).unwrap();
        l.allow_unverified_code = Some(false);
        assert_eq!(l.load_at(&root, None).err().unwrap().kind, crate::error::ErrorKind::Unsupported);
        l.allow_unverified_code = Some(true);
        let rows = collect(l.load_at(&root, None).unwrap().take("test").unwrap()).unwrap();
        assert_eq!(rows.len(), 135);
        let anatomy = collect(load(&loader("cais/mmlu", Some("anatomy")), None).take("test").unwrap()).unwrap();
        assert_eq!(rows, anatomy);
        let rows = collect(l.load_at(&root, Some(2)).unwrap().take("test").unwrap()).unwrap();
        assert_eq!(rows, anatomy[..2].to_vec());
    }
}
