//! Formats that render through a Hugging Face tokenizer's chat template (Unitxt's
//! `HFSystemFormat` and `GraniteDocumentsFormat`). The engine has no tokenizers, so building
//! them fails with an [`ErrorKind::Unsupported`](crate::error::ErrorKind::Unsupported) error
//! that names the model and suggests a format that needs none.

use crate::error::{Error, Result};
use crate::value::Value;

/// Refuses `__type__` `type_name` (from artifact JSON `v`), which needs a tokenizer.
pub fn unsupported_tokenizer_format(type_name: &str, v: &Value) -> Result<std::convert::Infallible> {
    let model = v
        .get("model_name")
        .or_else(|| v.get("model"))
        .and_then(|m| m.as_str())
        .unwrap_or("<no model given>");
    Err(Error::unsupported(format!(
        "format `{type_name}` applies the chat template of the Hugging Face tokenizer of {model:?}, \
         and unitxt-rs does not run tokenizers; use `formats.chat_api` (chat messages) or a \
         `system_format` such as `formats.empty` instead"
    )))
}
