//! What Unitxt asks of Pillow that this engine does not reproduce byte for byte: encoding an
//! image as Unitxt's chat formats embed it (`image_operators.image_to_data_url`). Pillow's PNG
//! and JPEG encoders (its zlib and libjpeg builds) decide the bytes, so the embedding program
//! supplies the encoder ([`set_encoder`]): the Python bindings install one that calls Pillow;
//! the `unitxt-rs` command has none.

use std::sync::OnceLock;

use crate::error::{Error, Result};
use crate::value::Value;

/// Encodes an image as Unitxt's `image_to_data_url`: the image converted to RGB and saved by
/// Pillow in the image's `format` (JPEG when it has none), as a
/// `data:image/<format in lower case>;base64,...` URL.
pub trait ImageEncoder: Send + Sync {
    /// The data URL of `image`, Unitxt's image value from an instance's media
    /// (`{"image": <data URL of the image's file bytes>, "format": "PNG" | "JPEG" | ... | null}`).
    /// Errors: `image` is not such a value, or the encoder failed.
    fn image_to_data_url(&self, image: &Value) -> Result<String>;
}

static ENCODER: OnceLock<Box<dyn ImageEncoder>> = OnceLock::new();

/// Installs the process's [`ImageEncoder`]; false when one is installed already (it stays).
pub fn set_encoder(encoder: Box<dyn ImageEncoder>) -> bool {
    ENCODER.set(encoder).is_ok()
}

/// `image` (see [`ImageEncoder::image_to_data_url`]) as Unitxt's chat formats embed it.
/// Errors: no encoder is installed (kind `Unsupported`), or the encoder's error.
pub fn image_to_data_url(image: &Value) -> Result<String> {
    let enc = ENCODER.get().ok_or_else(|| {
        Error::unsupported(
            "embedding an instance's image in a chat message needs Pillow's encoders, as Unitxt's \
             image_to_data_url uses them: prepare this recipe from Python (unitxt_rs)",
        )
    })?;
    enc.image_to_data_url(image)
}
