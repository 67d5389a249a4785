//! Formats that render through a Hugging Face tokenizer's chat template (Unitxt's
//! `HFSystemFormat` and `GraniteDocumentsFormat`).
//!
//! Unitxt loads the tokenizer with `transformers.AutoTokenizer.from_pretrained` and calls its
//! `apply_chat_template(..., tokenize=False)`. No tokenizer is run here: only the chat template
//! and the named special tokens are read from the model's files in the local Hugging Face hub
//! cache ([`ChatTemplate::from_hub_cache`]), and the Jinja template is rendered with `minijinja`
//! set up as `transformers` 5 sets up Jinja2 ([`ChatTemplate::render`]).
//!
//! Known differences from Jinja2: values turned into text by `~` or the `string` filter read as
//! minijinja writes them (`true`, `none`), where printing them with `{{ }}` reads as Python's
//! `str()`; the `{% generation %}` tag of assistant-mask templates is not supported (a template
//! that uses it does not compile). Python methods are those of `minijinja-contrib`'s pycompat.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use minijinja::value::{Kwargs, ValueKind};
use minijinja::{Environment, ErrorKind as JErrorKind, Value as JValue};
use serde::Deserialize;

use super::chat_api::ChatApiFormat;
use super::{need_str, Format, FormatFields, Pieces};
use crate::error::{Error, ErrorKind, Need, Reason, Result, Unavailable};
use crate::stream::StreamScope;
use crate::value::{Instance, Map, Str, Value};

/// The special-token attributes `transformers` always passes to a chat template (its
/// `SPECIAL_TOKENS_ATTRIBUTES`), when the tokenizer sets them.
const SPECIAL_TOKENS: [&str; 7] = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"];

/// The chat template(s) of a model and its named special tokens, as `transformers` 5 reads them
/// from the model's files:
/// - the template: `chat_template.jinja` and `additional_chat_templates/*.jinja` when present
///   (they take priority), else `chat_template` of `tokenizer_config.json` (a string, or a list
///   of `{name, template}`); several templates are chosen by name (`default`, or `tool_use` when
///   tools are given);
/// - the special tokens: `bos_token`, `eos_token`, `unk_token`, `sep_token`, `pad_token`,
///   `cls_token`, `mask_token` (a string, or an `AddedToken` dict's `content`), and every other
///   `*_token` key with a string value (`transformers`' model-specific tokens), from
///   `tokenizer_config.json`; without `added_tokens_decoder` there, `special_tokens_map.json`
///   overrides them (the legacy layout). Defaults that a tokenizer class adds in Python (such
///   as `<unk>` for a Llama tokenizer whose config names none) are not known here.
pub struct ChatTemplate {
    /// The model's id (for messages).
    model: String,
    /// The templates by name; a single template is named `default`.
    templates: Vec<(String, String)>,
    /// Whether the templates are named ones (`transformers` keeps a dict of them): a list in
    /// `tokenizer_config.json`, or `additional_chat_templates/`; a single template is not.
    named: bool,
    /// The compiled templates, in an environment configured as `transformers`'.
    env: Environment<'static>,
    /// The named special tokens, passed to every rendering (chat kwargs override them).
    special_tokens: Vec<(String, String)>,
}

impl std::fmt::Debug for ChatTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatTemplate").field("model", &self.model).field("templates", &self.templates.len()).finish()
    }
}

/// The snapshot directory of model `model` in hub cache `cache`: `models--org--name/snapshots/<commit>`,
/// the commit read from `refs/main`. Errors (kind FileNotFound, for the
/// [`Need::Network`]: the files would have to be downloaded) name the model and the cache.
pub fn model_snapshot(cache: &Path, model: &str) -> Result<PathBuf> {
    let repo_dir = cache.join(format!("models--{}", model.replace('/', "--")));
    let commit = std::fs::read_to_string(repo_dir.join("refs").join("main")).ok().map(|s| s.trim().to_string());
    if let Some(c) = commit.filter(|c| !c.is_empty()) {
        let snap = repo_dir.join("snapshots").join(&c);
        if snap.is_dir() {
            return Ok(snap);
        }
    }
    let missing = format!("the tokenizer of model `{model}` is not in the local Hugging Face hub cache {}", cache.display());
    let message = format!(
        "{missing} (looked for {}/refs/main and its snapshot); unitxt-rs reads the model's chat template from there \
         and does not download it. Fetch the tokenizer files into that cache (for example `hf download {model} \
         tokenizer_config.json`), or set HF_HUB_CACHE to a cache that holds them",
        repo_dir.display()
    );
    // Downloading the files would make it work: the network is what this format needs here.
    let needs = Reason::Needs(Unavailable { need: Need::Network, reason: missing });
    Err(Error::with_reason(ErrorKind::FileNotFound, needs, message))
}

fn read_json(path: &Path) -> Result<Option<serde_json::Value>> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| Error::invalid(format!("{} is not valid JSON: {e}", path.display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(format!("cannot read {}: {e}", path.display()))),
    }
}

/// A special token's text: a string, or an `AddedToken` dict's `content`.
fn token_text(v: &serde_json::Value, named: bool) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Object(m) if named => m.get("content").and_then(|c| c.as_str()).map(str::to_string),
        _ => None,
    }
}

impl ChatTemplate {
    /// Reads the chat template of `model` from the hub cache (`HF_HUB_CACHE`, else `HF_HOME/hub`,
    /// else `~/.cache/huggingface/hub`), as [`ChatTemplate::from_dir`]. Errors when the model is
    /// not there (naming the model and the cache directory).
    pub fn from_hub_cache(model: &str) -> Result<ChatTemplate> {
        let cache = crate::loaders::hf::hub_cache_dir();
        let snap = model_snapshot(&cache, model)?;
        ChatTemplate::from_dir(model, &snap)
    }

    /// Reads the chat template(s) and special tokens of `model` from its snapshot directory `dir`
    /// (see [`ChatTemplate`]). Errors when the model has no chat template, a file is not valid
    /// JSON, or a template does not compile.
    pub fn from_dir(model: &str, dir: &Path) -> Result<ChatTemplate> {
        let config = read_json(&dir.join("tokenizer_config.json"))?.unwrap_or(serde_json::Value::Null);
        let mut templates: Vec<(String, String)> = Vec::new();
        let mut named = false;
        let read_text = |p: &Path| std::fs::read_to_string(p).map_err(|e| Error::io(format!("cannot read {}: {e}", p.display())));
        let main = dir.join("chat_template.jinja");
        if main.is_file() {
            templates.push(("default".into(), read_text(&main)?));
        }
        if let Ok(rd) = std::fs::read_dir(dir.join("additional_chat_templates")) {
            let mut extra: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "jinja")).collect();
            extra.sort();
            for p in extra {
                let name = p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                templates.push((name, read_text(&p)?));
                named = true;
            }
        }
        if templates.is_empty() {
            match config.get("chat_template") {
                Some(serde_json::Value::String(s)) => templates.push(("default".into(), s.clone())),
                Some(serde_json::Value::Array(list)) => {
                    named = true;
                    for t in list {
                        let name = t.get("name").and_then(|n| n.as_str());
                        let text = t.get("template").and_then(|n| n.as_str());
                        match (name, text) {
                            (Some(n), Some(s)) => templates.push((n.to_string(), s.to_string())),
                            _ => {
                                return Err(Error::invalid(format!(
                                    "the `chat_template` list of model `{model}` must hold {{\"name\", \"template\"}} dicts"
                                )))
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        if templates.is_empty() {
            return Err(Error::invalid(format!(
                "model `{model}` has no chat template (no chat_template.jinja and no `chat_template` in its \
                 tokenizer_config.json, in {})",
                dir.display()
            )));
        }
        // Named special tokens, then the model-specific `*_token` strings, in the config's order.
        let mut special: indexmap::IndexMap<String, String> = indexmap::IndexMap::new();
        if let Some(m) = config.as_object() {
            for (k, v) in m {
                let named = SPECIAL_TOKENS.contains(&k.as_str());
                if named || k.ends_with("_token") {
                    if let Some(t) = token_text(v, named) {
                        special.insert(k.clone(), t);
                    }
                }
            }
            if !m.contains_key("added_tokens_decoder") {
                if let Some(serde_json::Value::Object(legacy)) = read_json(&dir.join("special_tokens_map.json"))? {
                    for (k, v) in &legacy {
                        let named = SPECIAL_TOKENS.contains(&k.as_str());
                        if named || k.ends_with("_token") {
                            if let Some(t) = token_text(v, true) {
                                special.insert(k.clone(), t);
                            }
                        }
                    }
                }
            }
        }
        let mut env = jinja_environment();
        for (name, text) in &templates {
            env.add_template_owned(name.clone(), text.clone())
                .map_err(|e| Error::invalid(format!("the chat template `{name}` of model `{model}` does not compile: {e:#}")))?;
        }
        Ok(ChatTemplate { model: model.to_string(), templates, named, env, special_tokens: special.into_iter().collect() })
    }

    /// The model's id.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// `tokenizer.apply_chat_template(messages, tools=tools, documents=documents,
    /// add_generation_prompt=add_generation_prompt, tokenize=False, **kwargs)` of
    /// `transformers` 5: keys of a message whose value is `None` are dropped, a message's
    /// reasoning (`reasoning_content`, `thinking` or `reasoning`) is copied under
    /// `thinking` and `reasoning_content`, and the template sees `messages`, `tools`,
    /// `documents`, `add_generation_prompt`, the special tokens and `kwargs` (which override
    /// them). `kwargs` may name a template (`chat_template`, one of the model's names or a
    /// template's text); `tokenize`, `add_generation_prompt` and `conversation` cannot be in
    /// it; `continue_final_message`, `sanitize_control_tokens` and
    /// `return_assistant_tokens_mask` must be false; the tokenization options (`padding`,
    /// `truncation`, `max_length`, `return_tensors`, `return_dict`, `tokenizer_kwargs`) have no
    /// effect. Errors: an empty conversation, a message or document that is not a dict, and the
    /// template's own errors (`raise_exception` among them), with the model named.
    pub fn render(&self, messages: &[Value], kwargs: &Map, add_generation_prompt: bool) -> Result<String> {
        let ctx = |m: String| Error::invalid(format!("chat template of model `{}`: {m}", self.model));
        if messages.is_empty() {
            return Err(ctx("Cannot apply chat template to an empty conversation. Provide at least one message.".into()));
        }
        let mut tools: Option<&Value> = None;
        let mut documents: Option<&Value> = None;
        let mut chosen: Option<&str> = None;
        let mut rest: Vec<(&str, &Value)> = Vec::new();
        for (k, v) in kwargs.iter() {
            match k.as_str() {
                "tools" => tools = Some(v).filter(|v| !v.is_null()),
                "documents" => documents = Some(v).filter(|v| !v.is_null()),
                "chat_template" => match v {
                    Value::Null => chosen = None,
                    Value::String(s) => chosen = Some(s.as_str()),
                    other => return Err(ctx(format!("chat_template must be a string, got {}", crate::artifact::short(other)))),
                },
                "tokenize" | "add_generation_prompt" | "conversation" => {
                    return Err(ctx(format!("apply_chat_template() got multiple values for keyword argument '{k}'")))
                }
                "continue_final_message" if crate::value::truthy(v) => {
                    return Err(ctx("continue_final_message and add_generation_prompt are not compatible".into()))
                }
                "sanitize_control_tokens" | "return_assistant_tokens_mask" if crate::value::truthy(v) => {
                    return Err(ctx(format!("`{k}=True` requires `tokenize=True`")))
                }
                "continue_final_message" | "sanitize_control_tokens" | "return_assistant_tokens_mask" | "padding" | "truncation"
                | "max_length" | "return_tensors" | "return_dict" | "tokenizer_kwargs" => {}
                _ => rest.push((k.as_str(), v)),
            }
        }
        let name = self.template_name(chosen, tools.is_some()).map_err(ctx)?;
        let owned;
        let tmpl = match name {
            Some(n) => self.env.get_template(n).map_err(|e| ctx(e.to_string()))?,
            None => {
                // A template's text given in the chat kwargs.
                owned = chosen.unwrap_or_default();
                self.env.template_from_str(owned).map_err(|e| ctx(format!("{e:#}")))?
            }
        };
        if let Some(docs) = documents {
            if !docs.as_array().is_some_and(|d| d.iter().all(|d| d.is_object())) {
                return Err(ctx("Documents should be a list of dicts with 'title' and 'text' keys!".into()));
            }
        }
        if let Some(tools) = tools {
            if !tools.as_array().is_some_and(|t| t.iter().all(|t| t.is_object())) {
                return Err(ctx("Tools should either be a JSON schema, or a callable function with type hints and a docstring suitable for auto-conversion to a schema.".into()));
            }
        }
        let mut chat = Vec::with_capacity(messages.len());
        for m in messages {
            let Value::Object(m) = m else {
                return Err(ctx(format!("Chat messages should be dicts, but got {}.", crate::py::repr::repr(m))));
            };
            chat.push(to_jinja_message(m));
        }
        let mut ctx_pairs: Vec<(String, JValue)> = Vec::new();
        let mut put = |k: &str, v: JValue| match ctx_pairs.iter_mut().find(|(n, _)| n == k) {
            Some(slot) => slot.1 = v,
            None => ctx_pairs.push((k.to_string(), v)),
        };
        put("messages", JValue::from(chat));
        put("tools", tools.map(to_jinja).unwrap_or(JValue::from(())));
        put("documents", documents.map(to_jinja).unwrap_or(JValue::from(())));
        put("add_generation_prompt", JValue::from(add_generation_prompt));
        for (k, t) in &self.special_tokens {
            put(k, JValue::from(t.as_str()));
        }
        for (k, v) in rest {
            put(k, to_jinja(v));
        }
        tmpl.render(JValue::from_pairs(ctx_pairs)).map_err(|e| ctx(jinja_error_text(&e)))
    }

    /// The name of the template to render (`None`: `chosen` is a template's text).
    fn template_name(&self, chosen: Option<&str>, with_tools: bool) -> std::result::Result<Option<&str>, String> {
        let has = |n: &str| self.templates.iter().any(|(t, _)| t == n);
        if !self.named {
            // One template: a `chat_template` argument is a template's text.
            return Ok(if chosen.is_some() { None } else { Some("default") });
        }
        if let Some(c) = chosen {
            return Ok(self.templates.iter().find(|(t, _)| t == c).map(|(t, _)| t.as_str()));
        }
        if with_tools && has("tool_use") {
            return Ok(Some("tool_use"));
        }
        if has("default") {
            return Ok(Some("default"));
        }
        let mut names: Vec<&str> = self.templates.iter().map(|(t, _)| t.as_str()).collect();
        names.sort();
        Err(format!(
            "This model has multiple chat templates with no default specified! Please either pass a chat template or \
             the name of the template you wish to use to the `chat_template` argument. Available template names are {names:?}."
        ))
    }
}

/// The message as the template sees it: `None` values dropped, the reasoning aliased.
fn to_jinja_message(m: &Map) -> JValue {
    const REASONING: [&str; 3] = ["reasoning_content", "thinking", "reasoning"];
    let reasoning = REASONING.iter().find_map(|k| m.get(k).filter(|v| !v.is_null()));
    let mut pairs: Vec<(String, JValue)> = Vec::with_capacity(m.len() + 2);
    if let Some(r) = reasoning {
        pairs.push(("thinking".into(), to_jinja(r)));
    }
    for (k, v) in m.iter() {
        if v.is_null() {
            continue;
        }
        let v = match (k.as_str(), reasoning) {
            ("thinking" | "reasoning_content", Some(r)) => to_jinja(r),
            _ => to_jinja(v),
        };
        match pairs.iter_mut().find(|(n, _)| n == k.as_str()) {
            Some(slot) => slot.1 = v,
            None => pairs.push((k.as_str().to_string(), v)),
        }
    }
    if let Some(r) = reasoning {
        if !pairs.iter().any(|(n, _)| n == "reasoning_content") {
            pairs.push(("reasoning_content".into(), to_jinja(r)));
        }
    }
    JValue::from_pairs(pairs)
}

/// One of our values as a template value.
pub fn to_jinja(v: &Value) -> JValue {
    match v {
        Value::Null => JValue::from(()),
        Value::Bool(b) => JValue::from(*b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                JValue::from(i)
            } else if let Some(u) = n.as_u64() {
                JValue::from(u)
            } else {
                JValue::from(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => JValue::from(s.as_str()),
        Value::Array(items) => items.iter().map(to_jinja).collect(),
        Value::Object(m) => JValue::from_pairs(m.iter().map(|(k, v)| (k.as_str().to_string(), to_jinja(v)))),
    }
}

/// A template value as one of ours (strings, numbers, booleans, none, lists, maps; any other
/// value as its text).
pub fn from_jinja(v: &JValue) -> Value {
    match v.kind() {
        ValueKind::Undefined | ValueKind::None => Value::Null,
        ValueKind::Bool => Value::Bool(v.is_true()),
        ValueKind::Number => {
            if let (true, Some(i)) = (v.is_integer(), v.as_i64()) {
                Value::from(i)
            } else if let (true, Ok(u)) = (v.is_integer(), u64::try_from(v.clone())) {
                Value::from(u)
            } else {
                let f = f64::try_from(v.clone()).unwrap_or(f64::NAN);
                crate::value::Number::from_f64(f).map_or(Value::Null, Value::Number)
            }
        }
        ValueKind::String => Value::String(Str::from(v.as_str().unwrap_or_default())),
        ValueKind::Seq | ValueKind::Iterable => match v.try_iter() {
            Ok(it) => Value::Array(it.map(|x| from_jinja(&x)).collect()),
            Err(_) => Value::String(v.to_string().into()),
        },
        ValueKind::Map => {
            let mut m = Map::new();
            if let Ok(keys) = v.try_iter() {
                for k in keys {
                    let item = v.get_item(&k).unwrap_or_default();
                    let key = match k.as_str() {
                        Some(s) => s.to_string(),
                        None => crate::py::repr::str(&from_jinja(&k)),
                    };
                    m.insert(key.as_str().into(), from_jinja(&item));
                }
            }
            Value::Object(m)
        }
        _ => Value::String(v.to_string().into()),
    }
}

/// The text of a template error: the message (`raise_exception`'s text as is) and, for other
/// errors, where it happened.
fn jinja_error_text(e: &minijinja::Error) -> String {
    let mut s = match e.detail() {
        Some(d) if e.kind() == JErrorKind::InvalidOperation => d.to_string(),
        _ => e.to_string(),
    };
    let mut src = std::error::Error::source(e);
    while let Some(inner) = src {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        src = inner.source();
    }
    s
}

/// Python's `json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
/// sort_keys=sort_keys)`, `transformers`' `tojson` filter (no HTML escaping, `ensure_ascii`
/// false by default).
fn tojson(value: &JValue, kwargs: Kwargs) -> std::result::Result<JValue, minijinja::Error> {
    let ensure_ascii = kwargs.get::<Option<bool>>("ensure_ascii")?.unwrap_or(false);
    let indent_v = kwargs.get::<Option<JValue>>("indent")?;
    let separators = kwargs.get::<Option<JValue>>("separators")?;
    let sort_keys = kwargs.get::<Option<bool>>("sort_keys")?.unwrap_or(false);
    kwargs.assert_all_used()?;
    // Python: an int indent is that many spaces, a string is used as is.
    let indent: Option<String> = match indent_v {
        None => None,
        Some(v) if v.is_none() => None,
        Some(v) => match v.as_str() {
            Some(s) => Some(s.to_string()),
            None => Some(" ".repeat(usize::try_from(v.as_i64().unwrap_or(0).max(0)).unwrap_or(0))),
        },
    };
    let (item_sep, key_sep) = match separators {
        Some(s) if !s.is_none() => {
            let parts: Vec<JValue> = s.try_iter()?.collect();
            match parts.as_slice() {
                [a, b] => (a.to_string(), b.to_string()),
                _ => return Err(minijinja::Error::new(JErrorKind::InvalidOperation, "separators must be a pair of strings")),
            }
        }
        _ => (if indent.is_some() { "," } else { ", " }.to_string(), ": ".to_string()),
    };
    let opts = JsonOpts { ensure_ascii, indent, item_sep, key_sep, sort_keys };
    let mut out = String::new();
    write_json(&from_jinja(value), &opts, 0, &mut out);
    Ok(JValue::from(out))
}

struct JsonOpts {
    ensure_ascii: bool,
    indent: Option<String>,
    item_sep: String,
    key_sep: String,
    sort_keys: bool,
}

fn write_json(v: &Value, o: &JsonOpts, level: usize, out: &mut String) {
    let newline = |level: usize, out: &mut String| {
        if let Some(ind) = &o.indent {
            out.push('\n');
            for _ in 0..level {
                out.push_str(ind);
            }
        }
    };
    match v {
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(&o.item_sep);
                }
                newline(level + 1, out);
                write_json(item, o, level + 1, out);
            }
            newline(level, out);
            out.push(']');
        }
        Value::Object(m) if !m.is_empty() => {
            out.push('{');
            let mut entries: Vec<(&str, &Value)> = m.iter().map(|(k, v)| (k.as_str(), v)).collect();
            if o.sort_keys {
                entries.sort_by(|a, b| a.0.cmp(b.0));
            }
            for (i, (k, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(&o.item_sep);
                }
                newline(level + 1, out);
                out.push_str(&crate::py::json::dumps_str(k, o.ensure_ascii));
                out.push_str(&o.key_sep);
                write_json(item, o, level + 1, out);
            }
            newline(level, out);
            out.push('}');
        }
        other => out.push_str(&crate::py::json::dumps(other, crate::py::json::DumpOptions { ensure_ascii: o.ensure_ascii, sort_keys: false, indent: None })),
    }
}

/// The Jinja environment of `transformers`' chat templates: `trim_blocks` and `lstrip_blocks`,
/// loop controls, Python's string and dict methods (`minijinja-contrib`'s pycompat), the
/// `tojson` filter above, `raise_exception(message)` (fails the rendering with that message),
/// `strftime_now(format)` (the local time, `chrono`'s `strftime`, which agrees with Python's
/// for the usual `%d %b %B %Y %m %H %M %S` fields), and values printed as Python's `str()`
/// prints them (`None`, `True`, lists and dicts in Python's notation).
fn jinja_environment() -> Environment<'static> {
    let mut env = Environment::new();
    let syntax = minijinja::syntax::SyntaxConfig::builder().trim_blocks(true).lstrip_blocks(true).build();
    if let Ok(s) = syntax {
        env.set_syntax(s);
    }
    env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
    env.add_filter("tojson", tojson);
    env.add_function("raise_exception", |message: String| -> std::result::Result<JValue, minijinja::Error> {
        Err(minijinja::Error::new(JErrorKind::InvalidOperation, message))
    });
    env.add_function("strftime_now", |format: String| -> String {
        use std::fmt::Write;
        let mut s = String::new();
        match write!(s, "{}", chrono::Local::now().format(&format)) {
            Ok(()) => s,
            Err(_) => format,
        }
    });
    env.set_formatter(|out, _state, value| {
        match value.kind() {
            ValueKind::String => out.write_str(value.as_str().unwrap_or_default()),
            ValueKind::Undefined => Ok(()),
            ValueKind::None | ValueKind::Bool | ValueKind::Number | ValueKind::Seq | ValueKind::Map => {
                out.write_str(&crate::py::repr::str(&from_jinja(value)))
            }
            _ => write!(out, "{value}"),
        }
        .map_err(|_| minijinja::Error::new(JErrorKind::WriteFailure, "cannot write the output"))
    });
    env
}

fn default_model() -> String {
    "ibm-granite/granite-3.1-8b-instruct".to_string()
}

fn default_true() -> bool {
    true
}

fn default_length() -> String {
    "long".to_string()
}

/// The arguments of Unitxt's `HFSystemFormat` (artifact JSON).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HfSystemFormatArgs {
    /// `model_name`: the model whose tokenizer's chat template is applied.
    pub model_name: String,
    /// `chat_kwargs_dict`: more keyword arguments of `apply_chat_template` (template variables).
    #[serde(default)]
    pub chat_kwargs_dict: Map,
    /// Field holding the demos; `null` means no demos.
    #[serde(default = "super::default_demos_field")]
    pub demos_field: Option<String>,
    /// `place_instruction_in_user_turns`, as in `chat_api_format`.
    #[serde(default)]
    pub place_instruction_in_user_turns: bool,
    /// Which splits it applies to, flattened into the artifact.
    #[serde(flatten)]
    pub scope: StreamScope,
}

/// Unitxt's `HFSystemFormat`: the chat messages of `chat_api_format` (system message, demos as
/// user/assistant turns, the source or `__turns__`) rendered with the model's chat template,
/// `add_generation_prompt=True` and the `chat_kwargs_dict`, then the instance's
/// `target_prefix` appended. Unlike `chat_api_format` it leaves `media` as it is. The
/// template is read when the format is built ([`ChatTemplate::from_hub_cache`]; an error
/// when the model is not in the cache).
#[derive(Debug)]
pub struct HfSystemFormat {
    args: HfSystemFormatArgs,
    chat: ChatApiFormat,
    template: Arc<ChatTemplate>,
}

impl HfSystemFormat {
    /// Builds the format, reading the model's chat template from the hub cache.
    pub fn new(args: HfSystemFormatArgs) -> Result<HfSystemFormat> {
        let template = Arc::new(ChatTemplate::from_hub_cache(&args.model_name)?);
        Ok(HfSystemFormat::with_template(args, template))
    }

    /// The format with an already read template.
    pub fn with_template(args: HfSystemFormatArgs, template: Arc<ChatTemplate>) -> HfSystemFormat {
        let chat = ChatApiFormat {
            demos_field: args.demos_field.clone(),
            place_instruction_in_user_turns: args.place_instruction_in_user_turns,
            scope: args.scope.clone(),
        };
        HfSystemFormat { args, chat, template }
    }
}

impl Format for HfSystemFormat {
    fn scope(&self) -> &StreamScope {
        &self.args.scope
    }

    fn demos_field(&self) -> Option<&str> {
        self.args.demos_field.as_deref()
    }

    fn model_input(&self, instance: &mut Instance, f: FormatFields) -> Result<Value> {
        let messages = self.chat.to_chat(&f, instance.get("media"))?;
        let mut text = self.template.render(&messages, &self.args.chat_kwargs_dict, true)?;
        text.push_str(need_str(&f.target_prefix, "target_prefix")?);
        Ok(Value::String(text.into()))
    }
}

/// The arguments of Unitxt's `GraniteDocumentsFormat` (artifact JSON).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraniteDocumentsFormatArgs {
    /// `model`: the model whose chat template is applied (default
    /// `ibm-granite/granite-3.1-8b-instruct`).
    #[serde(default = "default_model")]
    pub model: String,
    /// `citations`: the `citations` control (default true).
    #[serde(default = "default_true")]
    pub citations: bool,
    /// `length`: the `length` control (default `"long"`).
    #[serde(default = "default_length")]
    pub length: String,
    /// Which splits it applies to, flattened into the artifact.
    #[serde(flatten)]
    pub scope: StreamScope,
}

/// Unitxt's `GraniteDocumentsFormat`: the model input is the chat template of `model` applied
/// to one user message holding the task's `question` input field, with `documents` made of the
/// `context` input field (or each item of `contexts`) as `{"title": "", "text": ...}`, the
/// `controls` `{"citations", "length"}` and `add_generation_prompt=True`. The template's
/// instruction, system prompt, target prefix and demos are not used. Errors when the input
/// fields have no `question`, or neither `context` nor `contexts`.
#[derive(Debug)]
pub struct GraniteDocumentsFormat {
    args: GraniteDocumentsFormatArgs,
    template: Arc<ChatTemplate>,
}

impl GraniteDocumentsFormat {
    /// Builds the format, reading the model's chat template from the hub cache.
    pub fn new(args: GraniteDocumentsFormatArgs) -> Result<GraniteDocumentsFormat> {
        let template = Arc::new(ChatTemplate::from_hub_cache(&args.model)?);
        Ok(GraniteDocumentsFormat { args, template })
    }

    /// The model input for the task's input fields `inputs`.
    pub fn render_inputs(&self, inputs: Option<&Map>) -> Result<Value> {
        let empty = Map::new();
        let inputs = inputs.unwrap_or(&empty);
        let Some(question) = inputs.get("question") else {
            return Err(Error::invalid("GraniteRAGFormat works only for tasks with field: 'question'"));
        };
        let texts: Vec<Value> = match (inputs.get("contexts"), inputs.get("context")) {
            (Some(cs), _) => python_items(cs)?,
            (None, Some(c)) => vec![c.clone()],
            (None, None) => return Err(Error::invalid("GraniteRAGFormat works only for tasks with field: 'context' or 'contexts")),
        };
        let documents: Vec<Value> = texts
            .into_iter()
            .map(|t| {
                let mut d = Map::new();
                d.insert("title".into(), Value::String(Str::default()));
                d.insert("text".into(), t);
                Value::Object(d)
            })
            .collect();
        let mut message = Map::new();
        message.insert("role".into(), Value::String("user".into()));
        message.insert("content".into(), question.clone());
        let mut controls = Map::new();
        controls.insert("citations".into(), Value::Bool(self.args.citations));
        controls.insert("length".into(), Value::String(self.args.length.as_str().into()));
        let mut kwargs = Map::new();
        kwargs.insert("documents".into(), Value::Array(documents));
        kwargs.insert("controls".into(), Value::Object(controls));
        let text = self.template.render(&[Value::Object(message)], &kwargs, true)?;
        Ok(Value::String(text.into()))
    }
}

/// What Python's `for x in value` gives: a list's items, a string's characters, a dict's keys.
fn python_items(v: &Value) -> Result<Vec<Value>> {
    match v {
        Value::Array(items) => Ok(items.clone()),
        Value::String(s) => Ok(s.chars().map(|c| Value::String(c.to_string().into())).collect()),
        Value::Object(m) => Ok(m.keys().map(|k| Value::String(k.as_str().into())).collect()),
        other => Err(Error::invalid(format!("'contexts' must be a list of texts, got {}", crate::artifact::short(other)))),
    }
}

impl Format for GraniteDocumentsFormat {
    fn scope(&self) -> &StreamScope {
        &self.args.scope
    }

    fn demos_field(&self) -> Option<&str> {
        None
    }

    fn model_input(&self, instance: &mut Instance, _f: FormatFields) -> Result<Value> {
        let inputs = instance.get("input_fields").and_then(|v| v.as_object()).cloned();
        self.render_inputs(inputs.as_ref())
    }

    fn format_with_inputs(&self, _instance: &mut Instance, _pieces: Pieces, input_fields: Option<&Map>) -> Result<Value> {
        self.render_inputs(input_fields)
    }
}

#[cfg(test)]
mod tests;
