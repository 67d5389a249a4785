//! The unitxt-rs explorer: a local web page and its JSON API to browse the catalog, build a
//! recipe, preview its instances, compare two recipes and score predictions. It plays the part
//! of Unitxt's Gradio `unitxt-explore` app (the paper's "Unitxt UI: Explore & Preview"), served
//! by [`axum`] from one binary with its HTML, CSS and JavaScript embedded.
//!
//! [`router`] gives the [`axum::Router`] (tests drive it with `tower::ServiceExt::oneshot`);
//! [`serve`] binds it (127.0.0.1 by default) and runs it.
//!
//! API (all JSON; errors are `{"error": message, "kind", "location": {artifact, field, split,
//! instance}}` with a 4xx status):
//! - `GET /api/catalog?prefix=cards.&q=sst&kind=cards&limit=50` → `[{"name", "type"}]`.
//! - `GET /api/artifact/<name>` → `{"name", "type", "artifact", "refs", "used_by"}`.
//! - `GET /api/tasks` → `[{"name", "group", "cards", "augmentable"}]`.
//! - `GET /api/cards?task=T` → `[{"name", "local"}]`; `GET /api/templates?card=C&task=T` →
//!   `{"card": [...], "task": [...]}`; `GET /api/options` → formats, system prompts,
//!   augmentors and whether an inference endpoint is configured.
//! - `POST /api/prepare {"recipe", "split", "offset", "limit"}` → `{"instances", "total",
//!   "offset"}`: the instances exactly as `unitxt-rs prepare` writes them.
//! - `POST /api/evaluate {"recipe", "split", "predictions", "limit"?}` → what `unitxt-rs
//!   evaluate --output` writes (`processed: true` adds the processed predictions and references).
//!   LLM judges among the metrics send their requests to their engines' endpoints, as the CLI's
//!   do (502 when one fails); their instance scores hold the judge's assessments, selected
//!   options and prompts, which the page shows per instance.
//! - `POST /api/diff {"a", "b"}` → `[{"op": "equal"|"delete"|"insert", "text"}]`, a word-level
//!   diff (the `similar` crate).
//! - `POST /api/parse {"recipe"}` → the recipe's `key: value` map, as the engine parses it.
//! - `POST /api/infer {"recipe", "split", "offset", "limit"}` → `{"predictions", "scores"}`:
//!   the instances run through the inference engine of [`Config::engine`] (or an OpenAI
//!   engine on [`Config::model_url`]), with `unitxt-rs infer`'s code (400 when none is
//!   configured, 502 when it fails).
//!
//! Artifact names resolve only inside the configured catalog directories (no path separators
//! or `..`; files whose symbolic links lead out of their directory are refused and left out of
//! the index). Recipes run in the engine, whose expressions run in its sandbox.

pub mod index;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use axum::extract::{DefaultBodyLimit, Path as UrlPath, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value as Json_};
use unitxt::catalog::Catalog;
use unitxt::error::{Error, ErrorKind};
use unitxt::api::{prepare_map, PrepareOptions};
use unitxt::recipe::{Finisher, OutputInstance};

use index::Index;

/// Largest request body accepted, in bytes (predictions of a large split fit; more is refused
/// with 413).
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// Most instances one `/api/prepare` call returns.
pub const MAX_LIMIT: usize = 1000;

/// Prepared splits up to this many bytes of JSON Lines are kept in memory for paging.
const CACHE_SPLIT_BYTES: usize = 64 * 1024 * 1024;

/// How many prepared splits are kept (least recently used dropped first).
const CACHE_ENTRIES: usize = 8;

/// How the explorer is configured: catalogs and an optional inference engine.
#[derive(Clone, Default)]
pub struct Config {
    /// Extra catalog directories, as `--catalog` gives them (the last one wins); the standard
    /// catalogs (`UNITXT_CATALOGS`, the installed one) come after them.
    pub catalogs: Vec<PathBuf>,
    /// The inference engine of `/api/infer`, as `unitxt-rs infer --engine` takes it: a catalog
    /// name (with optional `[overwrites]`) or inline JSON. When set, it wins over `model_url`.
    pub engine: Option<String>,
    /// Base URL of an OpenAI-compatible inference endpoint (`http://host:port/v1`): with no
    /// `engine`, `/api/infer` runs an `open_ai_inference_engine` on it (`temperature` 0, no
    /// log probabilities). `None` and no `engine`: no inference (the page says so).
    pub model_url: Option<String>,
    /// The `model` sent to `model_url`.
    pub model: Option<String>,
    /// The API key of `model_url`, sent as `Authorization: Bearer <key>` (read by the caller
    /// from an environment variable, never from the command line). Never shown.
    pub api_key: Option<String>,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("catalogs", &self.catalogs)
            .field("engine", &self.engine)
            .field("model_url", &self.model_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .finish()
    }
}

impl Config {
    /// The engine `/api/infer` runs, as `--engine` text; `None` when inference is off.
    fn engine_spec(&self) -> Option<String> {
        if let Some(e) = &self.engine {
            return Some(e.clone());
        }
        let url = self.model_url.as_ref()?;
        let engine = json!({
            "__type__": "open_ai_inference_engine",
            "model_name": self.model.clone().unwrap_or_else(|| "default".into()),
            "base_url": url,
            "temperature": 0,
            "logprobs": null,
            "top_logprobs": null,
            // A local server needs no key; the OpenAI engine wants one (vLLM's convention).
            "credentials": {"api_key": self.api_key.clone().unwrap_or_else(|| "EMPTY".into())},
        });
        Some(engine.to_string())
    }

    /// What `/api/options` shows of the engine (never a key).
    fn engine_label(&self) -> Option<String> {
        if let Some(e) = &self.engine {
            return Some(if e.trim_start().starts_with('{') { "an inline engine".to_string() } else { e.clone() });
        }
        self.model_url.as_ref().map(|u| format!("{} at {u}", self.model.as_deref().unwrap_or("(default model)")))
    }
}

/// One prepared split kept for paging: its JSON Lines (without newlines) and its length.
struct Prepared {
    lines: Vec<String>,
}

/// A kept split's key: the recipe and the split.
type PreparedKey = (String, String);

/// The server's shared state.
pub struct AppState {
    config: Config,
    catalog: Arc<Catalog>,
    index: OnceLock<Arc<Index>>,
    prepared: Mutex<VecDeque<(PreparedKey, Arc<Prepared>)>>,
    /// The addresses the server answers to, set by [`serve`] once bound; unset (a router
    /// driven in-process), no request is refused on its `Host` or `Origin`.
    bound: OnceLock<Bound>,
}

/// The address a served explorer is bound to, for the DNS-rebinding and cross-origin guard.
#[derive(Debug, Clone)]
pub struct Bound {
    /// `host:port` values a request's `Host` may carry (lowercase).
    hosts: Vec<String>,
    /// The port, and whether any IP literal with it is accepted (bound to `0.0.0.0` / `::`).
    port: u16,
    any_ip: bool,
}

impl Bound {
    /// The `Host` values that reach a server bound to `addr` as `host` was given: `host:port`,
    /// the address itself, and for a loopback address `localhost`, `127.0.0.1` and `[::1]`.
    /// Bound to an unspecified address, any IP literal with the port is accepted too (never a
    /// DNS name other than `localhost`, which a rebinding attack would use).
    pub fn new(host: &str, addr: SocketAddr) -> Bound {
        let port = addr.port();
        let mut hosts = vec![format!("{}:{port}", host.to_ascii_lowercase()), addr.to_string()];
        if addr.ip().is_loopback() || addr.ip().is_unspecified() {
            hosts.extend([format!("localhost:{port}"), format!("127.0.0.1:{port}"), format!("[::1]:{port}")]);
        }
        if port == 80 {
            // Browsers leave the default port out of `Host`.
            let bare: Vec<String> = hosts.iter().filter_map(|h| h.strip_suffix(":80").map(str::to_string)).collect();
            hosts.extend(bare);
        }
        Bound { hosts, port, any_ip: addr.ip().is_unspecified() }
    }

    /// Whether a request's `Host` header value `h` names this server.
    pub fn accepts_host(&self, h: &str) -> bool {
        let h = h.trim().to_ascii_lowercase();
        self.hosts.contains(&h) || (self.any_ip && h.parse::<SocketAddr>().is_ok_and(|a| a.port() == self.port))
    }

    /// Whether an `Origin` header value is this server's own (`http://` + an accepted host).
    pub fn accepts_origin(&self, origin: &str) -> bool {
        origin.strip_prefix("http://").is_some_and(|h| self.accepts_host(h))
    }
}

/// Refuses (403) a request whose `Host` is not the address the explorer is bound to (a page of
/// another site reaching it by DNS rebinding), and a state-changing request (not GET/HEAD)
/// whose `Origin` is another site's: the explorer may spend the user's API key.
async fn guard(State(st): State<Arc<AppState>>, req: axum::extract::Request, next: axum::middleware::Next) -> Response {
    if let Some(bound) = st.bound.get() {
        let host = req.headers().get(header::HOST).and_then(|h| h.to_str().ok());
        if !host.is_some_and(|h| bound.accepts_host(h)) {
            return ApiError::new(StatusCode::FORBIDDEN, Error::invalid("refused: the request's Host is not this explorer's address")).into_response();
        }
        let safe = matches!(*req.method(), axum::http::Method::GET | axum::http::Method::HEAD);
        if !safe {
            if let Some(origin) = req.headers().get(header::ORIGIN) {
                if !origin.to_str().is_ok_and(|o| bound.accepts_origin(o)) {
                    return ApiError::new(StatusCode::FORBIDDEN, Error::invalid("refused: a cross-origin request")).into_response();
                }
            }
        }
    }
    next.run(req).await
}

impl AppState {
    /// State over the standard catalog plus `config.catalogs`; the index is built on first use
    /// (see [`AppState::warm_up`]).
    pub fn new(config: Config) -> Arc<AppState> {
        let catalog = Arc::new(Catalog::standard(&config.catalogs));
        Arc::new(AppState { config, catalog, index: OnceLock::new(), prepared: Mutex::new(VecDeque::new()), bound: OnceLock::new() })
    }

    /// The catalog index, built by the first caller (others wait for it).
    pub fn index(&self) -> Arc<Index> {
        self.index.get_or_init(|| Arc::new(Index::build(self.catalog.dirs()))).clone()
    }

    /// Starts building the index in a background thread, so that the first page load finds it
    /// ready while the server answers at once.
    pub fn warm_up(self: &Arc<Self>) {
        let me = self.clone();
        std::thread::spawn(move || {
            me.index();
        });
    }
}

/// An API error: a status and the engine's error (message and location).
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    error: Box<Error>,
}

impl ApiError {
    /// An error answered with `status`.
    pub fn new(status: StatusCode, error: Error) -> ApiError {
        ApiError { status, error: Box::new(error) }
    }

    /// A request body that is not the JSON the route takes (axum's rejection: 400, 413, 415
    /// or 422).
    fn rejected(e: axum::extract::rejection::JsonRejection) -> ApiError {
        ApiError::new(e.status(), Error::invalid(e.body_text()))
    }

    fn bad(msg: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, Error::invalid(msg))
    }
}

impl From<Error> for ApiError {
    fn from(error: Error) -> ApiError {
        let status = match error.kind {
            ErrorKind::NotFound | ErrorKind::FileNotFound => StatusCode::NOT_FOUND,
            ErrorKind::Unsupported => StatusCode::UNPROCESSABLE_ENTITY,
            _ => StatusCode::BAD_REQUEST,
        };
        ApiError::new(status, error)
    }
}

/// The JSON body of an error: `{"error", "kind", "location"}`.
pub fn error_json(e: &Error) -> Json_ {
    let l = &e.location;
    json!({
        "error": e.to_string(),
        "kind": format!("{:?}", e.kind),
        "location": {"artifact": l.artifact, "field": l.field, "split": l.split, "instance": l.instance},
    })
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(error_json(&self.error))).into_response()
    }
}

type ApiResult<T> = Result<T, ApiError>;

/// Runs blocking engine work off the async threads; a panic becomes a 500 error, not a dead
/// server.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> ApiResult<T> + Send + 'static) -> ApiResult<T> {
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r,
        Err(e) => Err(ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, Error::invalid(format!("internal error: {e}")))),
    }
}

const INDEX_HTML: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const STYLE_CSS: &str = include_str!("../assets/style.css");

fn asset(kind: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "no-cache")], body).into_response()
}

/// The explorer's routes over `state`: the page (`/`, `/app.js`, `/style.css`) and the JSON API
/// (see the crate documentation). Request bodies over [`MAX_BODY_BYTES`] get 413; a panic in a
/// handler gets 500 and the server goes on.
pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/", get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }))
        .route("/app.js", get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }))
        .route("/style.css", get(|| async { asset("text/css; charset=utf-8", STYLE_CSS) }))
        .route("/api/catalog", get(api_catalog))
        .route("/api/artifact/{*name}", get(api_artifact))
        .route("/api/tasks", get(api_tasks))
        .route("/api/cards", get(api_cards))
        .route("/api/templates", get(api_templates))
        .route("/api/options", get(api_options))
        .route("/api/prepare", post(api_prepare))
        .route("/api/evaluate", post(api_evaluate))
        .route("/api/diff", post(api_diff))
        .route("/api/parse", post(api_parse))
        .route("/api/infer", post(api_infer))
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, Error::not_found("no such page or API route")) })
        .layer(axum::middleware::from_fn_with_state(state.clone(), guard))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(tower_http::limit::RequestBodyLimitLayer::new(MAX_BODY_BYTES))
        .layer(tower_http::catch_panic::CatchPanicLayer::new())
        .with_state(state)
}

/// Binds `host:port` and serves the explorer until the process ends. The catalog index is
/// built in the background; the server answers at once. `on_bound` gets the bound address
/// (port 0 picks a free port).
pub async fn serve(config: Config, host: &str, port: u16, on_bound: impl FnOnce(SocketAddr)) -> std::io::Result<()> {
    let state = AppState::new(config);
    state.warm_up();
    let listener = tokio::net::TcpListener::bind((host, port)).await?;
    let addr = listener.local_addr()?;
    let _ = state.bound.set(Bound::new(host, addr));
    on_bound(addr);
    axum::serve(listener, router(state)).await
}

/// [`serve`] on a new multi-threaded Tokio runtime, blocking until the server stops.
pub fn serve_blocking(config: Config, host: &str, port: u16, on_bound: impl FnOnce(SocketAddr)) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(serve(config, host, port, on_bound))
}

// ---------------------------------------------------------------------------------------------
// Catalog

#[derive(Deserialize)]
struct CatalogQuery {
    #[serde(default)]
    prefix: String,
    #[serde(default)]
    q: String,
    kind: Option<String>,
    limit: Option<usize>,
}

async fn api_catalog(State(st): State<Arc<AppState>>, Query(q): Query<CatalogQuery>) -> ApiResult<Json<Json_>> {
    blocking(move || {
        let idx = st.index();
        let kind = q.kind.as_deref().filter(|k| !k.is_empty());
        let limit = q.limit.unwrap_or(200).min(5000);
        let hits = idx.search(&q.prefix, &q.q, kind, limit);
        Ok(Json(Json_::Array(hits.iter().map(|e| json!({"name": e.name, "type": e.kind})).collect())))
    })
    .await
}

/// Reads artifact `name` from the configured catalogs, refusing names that are not plain
/// dotted catalog names and files that resolve outside their catalog directory.
fn read_artifact(st: &AppState, name: &str) -> ApiResult<Json_> {
    if !unitxt::query::is_legal_catalog_name(name) || name.split('.').any(str::is_empty) {
        return Err(ApiError::bad(format!("{name:?} is not a catalog name (letters, digits, `_` and `.` only)")));
    }
    for dir in st.catalog.dirs() {
        let mut p = dir.clone();
        let parts: Vec<&str> = name.split('.').collect();
        for part in &parts[..parts.len() - 1] {
            p.push(part);
        }
        p.push(format!("{}.json", parts[parts.len() - 1]));
        if !p.is_file() {
            continue;
        }
        if !index::inside(dir, &p) {
            return Err(ApiError::new(StatusCode::FORBIDDEN, Error::invalid(format!("{name} resolves outside its catalog directory"))));
        }
        let text = std::fs::read_to_string(&p).map_err(|e| Error::io(format!("reading {name}: {e}")))?;
        return serde_json::from_str(&text).map_err(|e| ApiError::from(Error::invalid(format!("{name} is not valid JSON: {e}")).in_artifact(name)));
    }
    let mut e = Error::not_found(format!("artifact {name:?} is not in the catalog"));
    e.location.artifact = Some(name.to_string());
    Err(e.into())
}

async fn api_artifact(State(st): State<Arc<AppState>>, UrlPath(name): UrlPath<String>) -> ApiResult<Json<Json_>> {
    blocking(move || {
        let artifact = read_artifact(&st, &name)?;
        let idx = st.index();
        let e = idx.get(&name);
        Ok(Json(json!({
            "name": name,
            "type": artifact.get("__type__").cloned().unwrap_or(Json_::Null),
            "artifact": artifact,
            "refs": e.map(|e| e.refs.clone()).unwrap_or_default(),
            "used_by": idx.used_by.get(&name).cloned().unwrap_or_default(),
        })))
    })
    .await
}

async fn api_tasks(State(st): State<Arc<AppState>>) -> ApiResult<Json<Json_>> {
    blocking(move || {
        let idx = st.index();
        let out: Vec<Json_> = idx
            .with_prefix("tasks.")
            .filter(|e| e.kind == "task")
            .map(|e| {
                let rest = &e.name["tasks.".len()..];
                let group = rest.rsplit_once('.').map(|(g, _)| g).unwrap_or("");
                let augmentable = read_artifact(&st, &e.name)
                    .ok()
                    .and_then(|a| a.get("augmentable_inputs").and_then(Json_::as_array).map(|v| !v.is_empty()))
                    .unwrap_or(false);
                json!({
                    "name": e.name,
                    "group": group,
                    "cards": idx.cards_of_task.get(&e.name).map_or(0, Vec::len),
                    "augmentable": augmentable,
                })
            })
            .collect();
        Ok(Json(Json_::Array(out)))
    })
    .await
}

/// Whether the data of a card's loader is on this machine: a `load_hf` dataset in the hub
/// cache, or the local files of `load_csv` / `load_json_file`. Other loaders: `false`.
fn data_is_local(card: &Json_) -> bool {
    let Some(loader) = card.get("loader") else { return false };
    match loader.get("__type__").and_then(Json_::as_str) {
        Some("load_hf") => {
            let Some(path) = loader.get("path").and_then(Json_::as_str) else { return false };
            let rev = loader.get("revision").and_then(Json_::as_str);
            unitxt::loaders::hf::snapshot_in_cache(&unitxt::loaders::hf::hub_cache_dir(), path, rev).is_ok()
        }
        Some("load_csv") | Some("load_json_file") => match loader.get("files") {
            Some(Json_::Object(f)) => !f.is_empty() && f.values().all(|v| v.as_str().is_some_and(|p| std::path::Path::new(p).is_file())),
            _ => false,
        },
        _ => false,
    }
}

#[derive(Deserialize)]
struct CardsQuery {
    task: String,
}

async fn api_cards(State(st): State<Arc<AppState>>, Query(q): Query<CardsQuery>) -> ApiResult<Json<Json_>> {
    blocking(move || {
        let idx = st.index();
        let cards = idx.cards_of_task.get(&q.task).cloned().unwrap_or_default();
        let out: Vec<Json_> = cards
            .iter()
            .map(|c| {
                let local = read_artifact(&st, c).map(|j| data_is_local(&j)).unwrap_or(false);
                json!({"name": c, "local": local})
            })
            .collect();
        Ok(Json(Json_::Array(out)))
    })
    .await
}

#[derive(Deserialize)]
struct TemplatesQuery {
    card: Option<String>,
    task: Option<String>,
}

/// The template names a card's `templates` field gives: a list of names, a dict of names, or
/// the name of a `templates_list` / `templates_dict` artifact (expanded).
fn card_templates(st: &AppState, v: &Json_, depth: usize) -> Vec<String> {
    let mut out = Vec::new();
    match v {
        Json_::String(s) => {
            let n = index::base_name(s);
            match read_artifact(st, n) {
                Ok(a) if depth < 4 && matches!(a.get("__type__").and_then(Json_::as_str), Some("templates_list") | Some("templates_dict")) => {
                    if let Some(items) = a.get("items") {
                        out.extend(card_templates(st, items, depth + 1));
                    }
                }
                _ => out.push(s.clone()),
            }
        }
        Json_::Array(a) => a.iter().for_each(|x| out.extend(card_templates(st, x, depth + 1))),
        Json_::Object(o) if o.get("__type__").is_none() => o.values().for_each(|x| out.extend(card_templates(st, x, depth + 1))),
        Json_::Object(o) => {
            if let Some(items) = o.get("items") {
                out.extend(card_templates(st, items, depth + 1));
            }
        }
        _ => {}
    }
    out
}

async fn api_templates(State(st): State<Arc<AppState>>, Query(q): Query<TemplatesQuery>) -> ApiResult<Json<Json_>> {
    blocking(move || {
        let idx = st.index();
        let mut of_card = Vec::new();
        let mut task = q.task.clone();
        if let Some(c) = q.card.as_deref().filter(|c| !c.is_empty()) {
            let card = read_artifact(&st, c)?;
            if let Some(t) = card.get("templates") {
                of_card = card_templates(&st, t, 0);
            }
            if task.is_none() {
                task = card.get("task").and_then(Json_::as_str).map(|t| index::base_name(t).to_string());
            }
        }
        let mut of_task = Vec::new();
        if let Some(t) = task.as_deref().and_then(|t| t.strip_prefix("tasks.")) {
            let prefix = format!("templates.{t}.");
            of_task = idx
                .with_prefix(&prefix)
                .filter(|e| e.kind != "templates_list" && e.kind != "templates_dict" && !e.kind.is_empty())
                .map(|e| e.name.clone())
                .filter(|n| !of_card.contains(n))
                .collect();
        }
        Ok(Json(json!({"card": of_card, "task": of_task})))
    })
    .await
}

async fn api_options(State(st): State<Arc<AppState>>) -> ApiResult<Json<Json_>> {
    blocking(move || {
        let idx = st.index();
        let names = |p: &str, skip: &[&str]| -> Vec<String> {
            idx.with_prefix(p).filter(|e| !skip.contains(&e.kind.as_str()) && !e.kind.is_empty()).map(|e| e.name.clone()).collect()
        };
        Ok(Json(json!({
            "formats": names("formats.", &[]),
            "system_prompts": names("system_prompts.", &[]),
            "augmentors": names("augmentors.", &[]),
            "catalogs": st.catalog.dirs().iter().map(|d| d.display().to_string()).collect::<Vec<_>>(),
            "artifacts": idx.entries.len(),
            "inference": st.config.engine_label(),
        })))
    })
    .await
}

// ---------------------------------------------------------------------------------------------
// Prepare, evaluate, diff

/// A page of a recipe's split: `/api/prepare`'s body, and `/api/infer`'s.
#[derive(Deserialize)]
struct PrepareReq {
    recipe: String,
    #[serde(default = "default_split")]
    split: String,
    #[serde(default)]
    offset: usize,
    #[serde(default = "default_limit")]
    limit: usize,
}

fn default_split() -> String {
    "test".into()
}

fn default_limit() -> usize {
    5
}

/// Serializes one instance exactly as `unitxt-rs prepare` writes its line (without the newline).
fn instance_line() -> Finisher<String> {
    Arc::new(|inst: OutputInstance<'_>| {
        let mut out = Vec::with_capacity(1024);
        inst.write_json(&mut out);
        String::from_utf8(out).map_err(|e| Error::invalid(format!("instance is not UTF-8: {e}")))
    })
}

/// Refuses (403) a recipe that reaches an artifact whose file is a symbolic link out of its
/// catalog directory (see [`index::Index::reaches_escaping`]).
fn check_escapes(st: &AppState, recipe: &str) -> ApiResult<()> {
    match st.index().reaches_escaping(recipe) {
        Some(n) => Err(ApiError::new(StatusCode::FORBIDDEN, Error::invalid(format!("artifact {n} resolves outside its catalog directory")))),
        None => Ok(()),
    }
}

/// The window `[offset, offset + limit)` of a split's JSON Lines and the split's length.
/// Whole splits up to [`CACHE_SPLIT_BYTES`] are kept for later pages.
fn prepare_window(st: &AppState, recipe: &str, split: &str, offset: usize, limit: usize) -> ApiResult<(Vec<String>, usize)> {
    let key = (recipe.to_string(), split.to_string());
    let hit = {
        let mut c = st.prepared.lock().unwrap_or_else(|p| p.into_inner());
        let pos = c.iter().position(|(k, _)| *k == key);
        pos.and_then(|i| c.remove(i)).map(|entry| {
            let p = entry.1.clone();
            c.push_back(entry);
            p
        })
    };
    check_escapes(st, recipe)?;
    if let Some(p) = hit {
        let window = p.lines.iter().skip(offset).take(limit).cloned().collect();
        return Ok((window, p.lines.len()));
    }
    let opts = PrepareOptions { catalogs: st.config.catalogs.clone() };
    let mut ms = prepare_map(recipe, &opts, instance_line())?;
    let stream = ms.take(split)?;
    let (mut all, mut window, mut bytes, mut total, mut keep) = (Vec::new(), Vec::new(), 0usize, 0usize, true);
    for line in stream {
        let line = line?;
        if total >= offset && total < offset + limit {
            window.push(line.clone());
        }
        if keep {
            bytes += line.len();
            if bytes > CACHE_SPLIT_BYTES {
                keep = false;
                all = Vec::new();
            } else {
                all.push(line);
            }
        }
        total += 1;
    }
    if keep {
        let mut c = st.prepared.lock().unwrap_or_else(|p| p.into_inner());
        c.push_back((key, Arc::new(Prepared { lines: all })));
        while c.len() > CACHE_ENTRIES {
            c.pop_front();
        }
    }
    Ok((window, total))
}

async fn api_prepare(State(st): State<Arc<AppState>>, body: Result<Json<PrepareReq>, axum::extract::rejection::JsonRejection>) -> ApiResult<Response> {
    let Json(req) = body.map_err(ApiError::rejected)?;
    if req.limit > MAX_LIMIT {
        return Err(ApiError::bad(format!("limit {} is over the maximum of {MAX_LIMIT}", req.limit)));
    }
    if req.recipe.trim().is_empty() {
        return Err(ApiError::bad("the recipe is empty"));
    }
    blocking(move || {
        let (window, total) = prepare_window(&st, &req.recipe, &req.split, req.offset, req.limit)?;
        // The lines are spliced in as they are: byte for byte what `prepare` writes.
        let mut body = format!("{{\"total\":{total},\"offset\":{},\"instances\":[", req.offset);
        for (i, l) in window.iter().enumerate() {
            if i > 0 {
                body.push(',');
            }
            body.push_str(l);
        }
        body.push_str("]}");
        Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
    })
    .await
}

#[derive(Deserialize)]
struct EvaluateReq {
    recipe: String,
    #[serde(default = "default_split")]
    split: String,
    /// A JSON array, or the text of a predictions file (JSON array or JSON Lines).
    predictions: Json_,
    /// Evaluate only the instances from `offset` on (default 0).
    #[serde(default)]
    offset: usize,
    /// Evaluate only `limit` instances (from `offset`).
    limit: Option<usize>,
    #[serde(default)]
    processed: bool,
}

async fn api_evaluate(State(st): State<Arc<AppState>>, body: Result<Json<EvaluateReq>, axum::extract::rejection::JsonRejection>) -> ApiResult<Json<Json_>> {
    let Json(req) = body.map_err(ApiError::rejected)?;
    blocking(move || {
        // The same parser as the CLI's predictions file.
        let text = match &req.predictions {
            Json_::String(s) => s.clone(),
            v @ Json_::Array(_) => v.to_string(),
            _ => return Err(ApiError::bad("`predictions` must be a JSON array or the text of a predictions file")),
        };
        let predictions = unitxt::evaluate::parse_predictions(&text)?;
        evaluate_json(&st, &req.recipe, &req.split, req.offset, req.limit, &predictions, req.processed).map(Json)
    })
    .await
}

/// Scores `predictions` on the instances `[offset, offset + limit)` of a recipe's split (the
/// whole split by default), as `unitxt-rs evaluate` does (LLM judges call their engines'
/// endpoints); `processed` adds each instance's processed prediction and references. A judge
/// whose endpoint fails is a 502.
fn evaluate_json(st: &AppState, recipe: &str, split: &str, offset: usize, limit: Option<usize>, predictions: &[unitxt::Value], processed: bool) -> ApiResult<Json_> {
    check_escapes(st, recipe)?;
    let opts = PrepareOptions { catalogs: st.config.catalogs.clone() };
    let mut ms = unitxt::api::prepare(recipe, &opts)?;
    let mut instances = unitxt::stream::collect(ms.take(split)?)?;
    instances.drain(..offset.min(instances.len()));
    if let Some(n) = limit {
        instances.truncate(n);
    }
    if instances.is_empty() {
        return Err(ApiError::bad("the data has no instances (empty split?)"));
    }
    // LLM judges among the metrics send their requests to their own engines' endpoints through
    // the run core, as `unitxt-rs evaluate` does (no answer cache, no progress bar).
    let client = unitxt_inference::RunClient::default();
    let eopts = unitxt::evaluate::EvaluateOptions { catalogs: st.config.catalogs.clone(), model_client: Some(Arc::new(client)), ..Default::default() };
    let res = unitxt::evaluate::evaluate(&instances, predictions, &eopts).map_err(bad_gateway_on_io)?;
    let mut out: Json_ = serde_json::to_value(res.to_json()).map_err(|e| Error::invalid(e.to_string()))?;
    if processed {
        let processed: Vec<Json_> = res
            .processed
            .iter()
            .map(|(p, r)| json!({"prediction": serde_json::to_value(p).unwrap_or(Json_::Null), "references": serde_json::to_value(r).unwrap_or(Json_::Null)}))
            .collect();
        if let Some(o) = out.as_object_mut() {
            o.insert("processed".into(), Json_::Array(processed));
        }
    }
    Ok(out)
}

/// An error of a run that calls a model: an I/O error (the endpoint failed) is a 502, others
/// as [`ApiError::from`] decides.
fn bad_gateway_on_io(e: Error) -> ApiError {
    match e.kind {
        ErrorKind::Io => ApiError::new(StatusCode::BAD_GATEWAY, e),
        _ => ApiError::from(e),
    }
}

/// `/api/infer` takes the page of instances `/api/prepare` would show.
type InferReq = PrepareReq;

/// Most instances one `/api/infer` call sends to the model.
pub const MAX_INFER: usize = 50;

/// `POST /api/infer {recipe, split, offset, limit}`: runs the configured inference engine on
/// the instances `[offset, offset + limit)` (the same engine code as `unitxt-rs infer`: the
/// requests Unitxt's engine sends, retries, rate limit) and returns `{"predictions", "scores"}`
/// (scores as `/api/evaluate` with `processed`). 400 without an engine, 502 when some instance
/// got no answer (naming it).
async fn api_infer(State(st): State<Arc<AppState>>, body: Result<Json<InferReq>, axum::extract::rejection::JsonRejection>) -> ApiResult<Json<Json_>> {
    let Json(req) = body.map_err(ApiError::rejected)?;
    let Some(spec) = st.config.engine_spec() else {
        return Err(ApiError::bad("no inference engine is configured (start the explorer with --engine, or --model-url and --model)"));
    };
    if req.limit == 0 || req.limit > MAX_INFER {
        return Err(ApiError::bad(format!("limit must be between 1 and {MAX_INFER}")));
    }
    blocking(move || {
        let engine = unitxt::api::build_engine(&spec, &st.config.catalogs)?;
        let (window, _) = prepare_window(&st, &req.recipe, &req.split, req.offset, req.limit)?;
        let instances = window
            .iter()
            .map(|line| match unitxt::py::json::loads(line, false) {
                Ok(unitxt::Value::Object(o)) => Ok(o),
                _ => Err(Error::invalid("a prepared instance is not a JSON object")),
            })
            .collect::<unitxt::Result<Vec<_>>>()?;
        let client = unitxt_inference::RunClient::default();
        let inferred = unitxt::inference::infer(&*engine.inner, &client, &instances).map_err(bad_gateway_on_io)?;
        if let Some(f) = inferred.failed.first() {
            return Err(ApiError::new(
                StatusCode::BAD_GATEWAY,
                Error::io(format!("{} of {} instances got no answer; instance {}: {}", inferred.failed.len(), instances.len(), req.offset + f.index, f.detail)),
            ));
        }
        let preds: Vec<unitxt::Value> = inferred.predictions.into_iter().map(|p| p.unwrap_or(unitxt::Value::Null)).collect();
        let scores = evaluate_json(&st, &req.recipe, &req.split, req.offset, Some(window.len()), &preds, true)?;
        let predictions: Vec<Json_> = preds.iter().map(|p| Json_::from(p.clone())).collect();
        Ok(Json(json!({"predictions": predictions, "scores": scores})))
    })
    .await
}

#[derive(Deserialize)]
struct DiffReq {
    a: String,
    b: String,
}

/// Word-level diff of two texts: runs of equal, deleted (only in `a`) and inserted (only in
/// `b`) text, whitespace kept, so that the runs of each side concatenate back to it.
pub fn word_diff(a: &str, b: &str) -> Vec<(&'static str, String)> {
    let diff = similar::TextDiff::configure().timeout(std::time::Duration::from_secs(2)).diff_words(a, b);
    let mut out: Vec<(&'static str, String)> = Vec::new();
    for ch in diff.iter_all_changes() {
        let op = match ch.tag() {
            similar::ChangeTag::Equal => "equal",
            similar::ChangeTag::Delete => "delete",
            similar::ChangeTag::Insert => "insert",
        };
        match out.last_mut() {
            Some((o, t)) if *o == op => t.push_str(ch.value()),
            _ => out.push((op, ch.value().to_string())),
        }
    }
    out
}

async fn api_diff(body: Result<Json<DiffReq>, axum::extract::rejection::JsonRejection>) -> ApiResult<Json<Json_>> {
    let Json(req) = body.map_err(ApiError::rejected)?;
    blocking(move || Ok(Json(Json_::Array(word_diff(&req.a, &req.b).into_iter().map(|(op, text)| json!({"op": op, "text": text})).collect())))).await
}

#[derive(Deserialize)]
struct ParseReq {
    recipe: String,
}

async fn api_parse(body: Result<Json<ParseReq>, axum::extract::rejection::JsonRejection>) -> ApiResult<Json<Json_>> {
    let Json(req) = body.map_err(ApiError::rejected)?;
    let m = unitxt::query::parse_key_values(&req.recipe)?;
    Ok(Json(serde_json::to_value(m).map_err(|e| Error::invalid(e.to_string()))?))
}
