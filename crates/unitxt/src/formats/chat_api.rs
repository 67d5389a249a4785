//! `chat_api_format`: the model input as OpenAI-style chat messages (Unitxt's `ChatAPIFormat`).

use serde::Deserialize;

use super::{need_str, py_str, truthy, FormatFields, Format};
use crate::error::{Error, Result, ResultExt};
use crate::stream::StreamScope;
use crate::value::{Instance, Value};

/// Unitxt's `ChatAPIFormat`. `source` becomes a list of `{"role", "content"}` messages:
/// 1. a `system` message with the system prompt, a `"\n"` when the system prompt is not empty,
///    and the instruction (unless `place_instruction_in_user_turns`); it is left out when both
///    are empty;
/// 2. per demo, a `user` message with the demo's source and an `assistant` message with the
///    instance's `target_prefix` followed by the demo's target;
/// 3. a final `user` message with the source, or the instance's `__turns__` when it has them.
///
/// With `place_instruction_in_user_turns`, every user message (demos included) starts with the
/// instruction and a new line. A content that contains `<unitxt-img src="...">` tags becomes a
/// list of `text` / `image_url` parts. If the instance has a non-empty `media` dict, its
/// `images` are set to `[]`.
///
/// An image tag with a `media/...` source embeds that image of the instance's `media` as a data
/// URL, as Unitxt does (see [`to_content`]).
///
/// Errors when a piece that is concatenated is not a string, when an image of the instance's
/// media cannot be found or encoded, or `__turns__` is not a list.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatApiFormat {
    /// Field holding the demos; `null` means no demos.
    #[serde(default = "super::default_demos_field")]
    pub demos_field: Option<String>,
    /// `place_instruction_in_user_turns`: start every user message with the instruction instead of
    /// putting it in the system message (default false).
    #[serde(default)]
    pub place_instruction_in_user_turns: bool,
    /// Which splits it applies to (`apply_to_streams`, `dont_apply_to_streams`), flattened into the
    /// artifact.
    #[serde(flatten)]
    pub scope: StreamScope,
}

fn message(role: &str, content: Value) -> Value {
    let mut m = Instance::new();
    m.insert("role".into(), Value::String(role.into()));
    m.insert("content".into(), content);
    Value::Object(m)
}

impl ChatApiFormat {
    /// Builds the chat messages from the fields taken from an instance; `media` is the
    /// instance's `media` dict, where image tags with a `media/` source find their images.
    pub fn to_chat(&self, f: &FormatFields, media: Option<&Value>) -> Result<Vec<Value>> {
        let place = self.place_instruction_in_user_turns;
        let instruction_set = truthy(&f.instruction);
        let mut messages = Vec::new();
        if truthy(&f.system_prompt) || (instruction_set && !place) {
            let sp = need_str(&f.system_prompt, "system_prompt")?;
            let mut text = sp.to_string();
            if !sp.is_empty() {
                text.push('\n');
            }
            if !place {
                text.push_str(need_str(&f.instruction, "instruction")?);
            }
            messages.push(message("system", to_content(&text, media)?));
        }
        let with_instruction = |text: &Value, what: &str| -> Result<String> {
            if instruction_set && place {
                Ok(format!("{}\n{}", py_str(&f.instruction), py_str(text)))
            } else {
                Ok(need_str(text, what)?.to_string())
            }
        };
        let target_prefix = need_str(&f.target_prefix, "target_prefix")?;
        for (i, d) in f.demos.iter().enumerate() {
            let text = with_instruction(&d.source, "source of a demo").with_ctx(|| format!("demo {i}"))?;
            messages.push(message("user", to_content(&text, media)?));
            let target = need_str(&d.target, "target of a demo").with_ctx(|| format!("demo {i}"))?;
            messages.push(message("assistant", to_content(&format!("{target_prefix}{target}"), media)?));
        }
        match &f.turns {
            None => {
                let text = with_instruction(&f.source, "source")?;
                messages.push(message("user", to_content(&text, media)?));
            }
            Some(Value::Array(turns)) => messages.extend(turns.iter().cloned()),
            Some(other) => {
                return Err(Error::invalid(format!(
                    "field \"__turns__\" must be a list of messages, got {}",
                    crate::artifact::short(other)
                )))
            }
        }
        Ok(messages)
    }
}

impl Format for ChatApiFormat {
    fn scope(&self) -> &StreamScope {
        &self.scope
    }

    fn demos_field(&self) -> Option<&str> {
        self.demos_field.as_deref()
    }

    fn model_input(&self, instance: &mut Instance, f: FormatFields) -> Result<Value> {
        let chat = self.to_chat(&f, instance.get("media"))?;
        if let Some(Value::Object(media)) = instance.get_mut("media") {
            if !media.is_empty() {
                media.insert("images".into(), Value::Array(Vec::new()));
            }
        }
        Ok(Value::Array(chat))
    }
}

/// Python `re.IGNORECASE` comparison of a text char with a lower-case ASCII pattern char.
fn ci_eq(c: char, p: char) -> bool {
    c.to_ascii_lowercase() == p
        || (p == 'i' && matches!(c, '\u{130}' | '\u{131}'))
        || (p == 's' && c == '\u{17f}')
}

fn ci_starts_with(t: &[char], at: usize, word: &str) -> bool {
    let w: Vec<char> = word.chars().collect();
    at + w.len() <= t.len() && w.iter().enumerate().all(|(k, &p)| ci_eq(t[at + k], p))
}

/// Whether `text` may hold an image tag: some `<` followed by `u` or `U`. The tag's second
/// character is `u`, which only those two match case-insensitively (see [`ci_eq`]), so a text
/// without such a pair has no tag and needs no scan (the scan works on a copy of the text as
/// characters: 17% of a chat-API recipe's instructions went there, for texts without tags).
fn may_hold_img(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memchr_iter(b'<', b).any(|i| matches!(b.get(i + 1), Some(b'u' | b'U')))
}

/// Finds the next image tag at or after `from`: `<unitxt-img`, whitespace, anything but `>`,
/// `src=` with a quoted URL, anything but `>`, then `>` (case-insensitive, as Unitxt's regex).
/// Returns (start, end, url).
fn find_img(t: &[char], from: usize) -> Option<(usize, usize, String)> {
    const TAG: &str = "<unitxt-img";
    let quote = |c: char| c == '"' || c == '\'';
    let mut start = from;
    while start < t.len() {
        if t[start] == '<' && ci_starts_with(t, start, TAG) {
            let p = start + TAG.chars().count();
            if p < t.len() && crate::py::ops::is_py_space(t[p]) {
                // The attributes before `src=` cannot contain `>`; the regex is greedy, so the
                // last `src=` that leads to a full match wins.
                let mut limit = p + 1;
                while limit < t.len() && t[limit] != '>' {
                    limit += 1;
                }
                for s in (p + 1..=limit.min(t.len())).rev() {
                    if !ci_starts_with(t, s, "src=") || s + 4 >= t.len() || !quote(t[s + 4]) {
                        continue;
                    }
                    let u0 = s + 5;
                    let mut u1 = u0;
                    while u1 < t.len() && !quote(t[u1]) {
                        u1 += 1;
                    }
                    if u1 == u0 || u1 >= t.len() {
                        continue;
                    }
                    if let Some(gt) = (u1 + 1..t.len()).find(|&k| t[k] == '>') {
                        return Some((start, gt + 1, t[u0..u1].iter().collect()));
                    }
                }
            }
        }
        start += 1;
    }
    None
}

fn text_part(s: String) -> Value {
    let mut m = Instance::new();
    m.insert("type".into(), Value::String("text".into()));
    m.insert("text".into(), Value::String(s.into()));
    Value::Object(m)
}

/// Unitxt's `ChatAPIFormat.to_content`: the text itself when it has no image tags, else the
/// list of its text and `image_url` parts. An image tag whose source is `media/<path>` embeds
/// the image at `<path>` in `media` (the instance's media dict) as Unitxt's
/// `image_to_data_url` does (see [`crate::py::pillow`]); any other source is kept as the URL.
/// Errors: a `media/` path that names no image (Unitxt's `dict_get` rules), or an image that
/// cannot be encoded (in a program without Pillow's encoder, any `media/` image: kind
/// `Unsupported`).
pub fn to_content(text: &str, media: Option<&Value>) -> Result<Value> {
    if !may_hold_img(text) {
        return Ok(Value::String(text.into()));
    }
    let t: Vec<char> = text.chars().collect();
    let mut parts = Vec::new();
    let mut last = 0;
    let mut pos = 0;
    while let Some((start, end, url)) = find_img(&t, pos) {
        if last < start {
            parts.push(text_part(t[last..start].iter().collect()));
        }
        let url = match url.strip_prefix("media/") {
            Some(path) => {
                let empty = Instance::new();
                let media = match media {
                    Some(Value::Object(m)) => m,
                    _ => &empty,
                };
                let image = crate::py::dict_path::dict_get(media, path)
                    .with_ctx(|| format!("chat_api_format: the image tag's source {url:?} in the instance's media"))?;
                crate::py::pillow::image_to_data_url(&image).with_ctx(|| format!("chat_api_format: the image {url:?}"))?
            }
            None => url,
        };
        let mut iu = Instance::new();
        iu.insert("url".into(), Value::String(url.into()));
        iu.insert("detail".into(), Value::String("low".into()));
        let mut m = Instance::new();
        m.insert("type".into(), Value::String("image_url".into()));
        m.insert("image_url".into(), Value::Object(iu));
        parts.push(Value::Object(m));
        last = end;
        pos = end;
    }
    if parts.is_empty() {
        return Ok(Value::String(text.into()));
    }
    if last < t.len() {
        parts.push(text_part(t[last..].iter().collect()));
    }
    Ok(Value::Array(parts))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quick test lets through every text whose scan could find a tag (any case, the
    /// dotless `ı` Python's IGNORECASE matches to `i`), and nothing else reaches the scan.
    #[test]
    fn may_hold_img_passes_every_possible_tag() {
        for text in ["<unitxt-img src='a'>", "x <UNITXT-IMG SRC=\"a\">", "<unıtxt-ımg ſrc=\"k\">", "<u>", "<<U"] {
            assert!(may_hold_img(text), "{text:?}");
        }
        for text in ["plain text", "a < b", "<b>bold</b>", "ends with <", "<\u{fc}nitxt-img src='a'>"] {
            assert!(!may_hold_img(text), "{text:?}");
            assert_eq!(to_content(text, None).unwrap(), Value::String(text.into()));
        }
    }
}
