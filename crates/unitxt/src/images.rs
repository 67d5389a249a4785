//! Image operators (Unitxt's `image_operators.py`): `decode_image`, `to_image`, `to_rgb`,
//! `hash_image`.
//!
//! Unitxt keeps a PIL image object in the instance. Here an image is a `data:` URL string
//! (`data:image/<format>;base64,<the file's bytes>`), the form the image serializer and the chat
//! formats already carry images in: its format is the file format of the bytes (a PIL image's
//! `format`), its pixels are what the `image` crate decodes. Unitxt's image value
//! (`types.Image`) is then `{"image": <data URL>, "format": "PNG" | "JPEG" | ...}`.
//!
//! Decoding: PNG, JPEG, GIF, WebP and BMP. PNG decodes to the same pixels as Pillow; a JPEG's
//! pixels may differ from Pillow's (libjpeg-turbo) by a few levels, because the decoders round
//! differently.

pub mod pil;
pub mod table_image;

use base64::Engine as _;
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::operators::FieldOperator;
use crate::value::{Instance, Map, Str, Value};

/// The format names PIL gives (`Image.format`) for the file formats read here, with the MIME
/// subtype of their data URLs.
const FORMATS: [(image::ImageFormat, &str, &str); 5] = [
    (image::ImageFormat::Png, "PNG", "png"),
    (image::ImageFormat::Jpeg, "JPEG", "jpeg"),
    (image::ImageFormat::Gif, "GIF", "gif"),
    (image::ImageFormat::WebP, "WEBP", "webp"),
    (image::ImageFormat::Bmp, "BMP", "bmp"),
];

/// An image's file bytes and their format.
pub struct EncodedImage {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Its format.
    pub format: image::ImageFormat,
}

impl EncodedImage {
    /// The image in file bytes `bytes`, its format told by their first bytes. Errors (as PIL's
    /// `UnidentifiedImageError`) when the format is not one read here.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<EncodedImage> {
        let format = image::guess_format(&bytes).map_err(|_| Error::invalid("cannot identify image file (not PNG, JPEG, GIF, WebP or BMP)"))?;
        if !FORMATS.iter().any(|(f, _, _)| *f == format) {
            return Err(Error::invalid(format!("image format {format:?} is not supported")));
        }
        Ok(EncodedImage { bytes, format })
    }

    /// The image in data URL `url` (`data:image/<subtype>;base64,<data>`). Errors when `url` is
    /// not such a URL or its bytes are not an image.
    pub fn from_data_url(url: &str) -> Result<EncodedImage> {
        let rest = url.strip_prefix("data:").ok_or_else(|| Error::invalid("an image must be a data URL (data:image/...;base64,...)"))?;
        let (head, data) = rest.split_once(',').ok_or_else(|| Error::invalid("invalid image data URL: no ','"))?;
        if !head.starts_with("image/") || !head.ends_with(";base64") {
            return Err(Error::invalid(format!("invalid image data URL header {head:?}: expected image/<format>;base64")));
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .map_err(|e| Error::invalid(format!("invalid base64 in an image data URL: {e}")))?;
        EncodedImage::from_bytes(bytes)
    }

    /// PIL's name of the format (`PNG`, `JPEG`, ...).
    pub fn pil_format(&self) -> &'static str {
        FORMATS.iter().find(|(f, _, _)| *f == self.format).map_or("JPEG", |(_, n, _)| n)
    }

    /// The image as a data URL.
    pub fn to_data_url(&self) -> String {
        let sub = FORMATS.iter().find(|(f, _, _)| *f == self.format).map_or("png", |(_, _, s)| s);
        format!("data:image/{sub};base64,{}", base64::engine::general_purpose::STANDARD.encode(&self.bytes))
    }

    /// The decoded pixels. Errors when the bytes do not decode.
    pub fn decode(&self) -> Result<image::DynamicImage> {
        image::load_from_memory_with_format(&self.bytes, self.format).map_err(|e| Error::invalid(format!("cannot decode the image: {e}")))
    }
}

/// The image in `v` (a data URL string), or an error naming operator `op`.
fn image_in(v: &Value, op: &str) -> Result<EncodedImage> {
    match v {
        Value::String(s) => EncodedImage::from_data_url(s).map_err(|e| e.context(format!("in `{op}`"))),
        other => Err(Error::invalid(format!("`{op}` needs an image (a data URL string), got {}", crate::artifact::short(other)))),
    }
}

/// PIL's `tobytes()` of a decoded image in the mode PIL opens it in: `L`, `LA`, `RGB` and
/// `RGBA` images of 8 bits per channel, row by row. Errors for other layouts (16-bit, float),
/// whose PIL modes are not reproduced.
pub fn pil_bytes(img: &image::DynamicImage) -> Result<Vec<u8>> {
    use image::DynamicImage as D;
    match img {
        D::ImageLuma8(b) => Ok(b.as_raw().clone()),
        D::ImageLumaA8(b) => Ok(b.as_raw().clone()),
        D::ImageRgb8(b) => Ok(b.as_raw().clone()),
        D::ImageRgba8(b) => Ok(b.as_raw().clone()),
        other => Err(Error::unsupported(format!("image pixels of type {:?} are not supported (8-bit L, LA, RGB, RGBA are)", other.color()))),
    }
}

/// Errors unless the image's pixels come out in the layout PIL opens it in: a PNG of 8 bits
/// per channel that is not palette-indexed (PIL keeps palette indices, mode `P`), or a JPEG.
fn check_pil_mode_known(img: &EncodedImage) -> Result<()> {
    match img.format {
        // IHDR: bit depth at byte 24, colour type at byte 25.
        image::ImageFormat::Png => match (img.bytes.get(24), img.bytes.get(25)) {
            (Some(8), Some(0 | 2 | 4 | 6)) => Ok(()),
            _ => Err(Error::unsupported("hash_image: only PNGs of 8 bits per channel without a palette are supported")),
        },
        image::ImageFormat::Jpeg => Ok(()),
        other => Err(Error::unsupported(format!("hash_image: {other:?} images are not supported (PNG and JPEG are)"))),
    }
}

/// `decode_image` (Unitxt's `DecodeImage`): a base64 string of an image file becomes the image
/// (a data URL of the same bytes). Errors when the value is not a string, not base64, or not an
/// image file.
#[derive(Debug, Deserialize)]
pub struct DecodeImage {}

impl FieldOperator for DecodeImage {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        let Value::String(s) = &value else {
            return Err(Error::invalid(format!("decode_image needs a base64 string, got {}", crate::artifact::short(&value))));
        };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(s.trim())
            .map_err(|e| Error::invalid(format!("decode_image: invalid base64: {e}")))?;
        Ok(Value::String(EncodedImage::from_bytes(bytes)?.to_data_url().into()))
    }
}

/// `to_image` (Unitxt's `ToImage`): an image becomes Unitxt's image value
/// `{"image": <the image>, "format": <its format, "JPEG" when unknown>}`. Errors when the value
/// is not an image.
#[derive(Debug, Deserialize)]
pub struct ToImage {}

impl FieldOperator for ToImage {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        let format = image_in(&value, "to_image")?.pil_format();
        let mut out = Map::new();
        out.insert("image".into(), value);
        out.insert("format".into(), Value::String(Str::from(format)));
        Ok(Value::Object(out))
    }
}

/// `to_rgb` (Unitxt's `ToRGB`): the `image` of an image value converted to RGB (PIL's
/// `convert("RGB")`: gray replicated, alpha dropped), PNG-encoded; `format` is kept. Errors when
/// the value is not a dict whose `image` is an image.
#[derive(Debug, Deserialize)]
pub struct ToRgb {}

impl FieldOperator for ToRgb {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        let Value::Object(mut m) = value else {
            return Err(Error::invalid(format!("to_rgb needs an image value {{\"image\", \"format\"}}, got {}", crate::artifact::short(&value))));
        };
        let img = image_in(m.get("image").unwrap_or(&Value::Null), "to_rgb")?;
        let rgb = image::DynamicImage::ImageRgb8(img.decode()?.to_rgb8());
        let mut bytes = Vec::new();
        rgb.write_to(&mut std::io::Cursor::new(&mut bytes), image::ImageFormat::Png)
            .map_err(|e| Error::invalid(format!("to_rgb: cannot encode the image: {e}")))?;
        let out = EncodedImage { bytes, format: image::ImageFormat::Png };
        m.insert("image".into(), Value::String(out.to_data_url().into()));
        Ok(Value::Object(m))
    }
}

/// `hash_image` (Unitxt's `HashImage`): the MD5 hex digest of the image's pixel bytes (PIL's
/// `tobytes()`, see [`pil_bytes`]). Errors when the value is not an image or its pixel layout is
/// not supported.
#[derive(Debug, Deserialize)]
pub struct HashImage {}

impl FieldOperator for HashImage {
    fn process_value(&self, value: Value, _: &Instance) -> Result<Value> {
        use md5::Digest;
        let img = image_in(&value, "hash_image")?;
        check_pil_mode_known(&img)?;
        let raw = pil_bytes(&img.decode()?)?;
        let digest = md5::Md5::digest(&raw);
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        Ok(Value::String(hex.into()))
    }
}

#[cfg(test)]
mod tests;
