//! Image augmentors (Unitxt's `ImageAugmentor`s in `image_operators.py`): `gray_scale`,
//! `grid_lines`, `pixel_noise`. Each changes the `image` of task inputs that are Unitxt image
//! values (`{"image": <data URL>, "format": <str>}`, see [`crate::images`]) and leaves every other
//! value as it is; the changed image is PNG-encoded (lossless), its `format` kept.

use std::sync::Arc;

use serde::Deserialize;

use super::{task_inputs_op, Augmentor};
use crate::error::{Error, Result};
use crate::images::EncodedImage;
use crate::operators::{FieldOperator, InstanceOperator};
use crate::value::{Instance, Value};

/// Whether `v` is a Unitxt image value: a dict with a data-URL `image` and a string `format`.
fn is_image_value(v: &Value) -> bool {
    v.as_object().is_some_and(|m| {
        m.get("image").and_then(|i| i.as_str()).is_some_and(|s| s.starts_with("data:image/")) && m.get("format").is_some_and(|f| f.is_string())
    })
}

/// Applies `f` to the decoded pixels of an image value's `image` (other values pass
/// unchanged), PNG-encoding the result.
fn augment_image(value: Value, what: &str, f: impl FnOnce(image::DynamicImage) -> Result<image::DynamicImage>) -> Result<Value> {
    if !is_image_value(&value) {
        return Ok(value);
    }
    let Value::Object(mut m) = value else { return Ok(value) };
    let img = EncodedImage::from_data_url(m.get("image").and_then(|v| v.as_str()).unwrap_or_default())?;
    let out = f(img.decode()?)?;
    let mut bytes = Vec::new();
    out.write_to(&mut std::io::Cursor::new(&mut bytes), image::ImageFormat::Png)
        .map_err(|e| Error::invalid(format!("{what}: cannot encode the image: {e}")))?;
    let enc = EncodedImage { bytes, format: image::ImageFormat::Png };
    m.insert("image".into(), Value::String(enc.to_data_url().into()));
    Ok(Value::Object(m))
}

/// PIL's `convert("L")` of 8-bit pixels: `(R·19595 + G·38470 + B·7471 + 2¹⁵) >> 16` (ITU-R 601-2
/// luma in PIL's fixed point); a gray image's own values; alpha ignored.
fn pil_luma(img: &image::DynamicImage) -> Result<image::GrayImage> {
    use image::DynamicImage as D;
    let luma = |r: u8, g: u8, b: u8| ((u32::from(r) * 19595 + u32::from(g) * 38470 + u32::from(b) * 7471 + 0x8000) >> 16) as u8;
    Ok(match img {
        D::ImageLuma8(b) => b.clone(),
        D::ImageLumaA8(b) => image::GrayImage::from_fn(b.width(), b.height(), |x, y| image::Luma([b.get_pixel(x, y)[0]])),
        D::ImageRgb8(b) => image::GrayImage::from_fn(b.width(), b.height(), |x, y| {
            let p = b.get_pixel(x, y);
            image::Luma([luma(p[0], p[1], p[2])])
        }),
        D::ImageRgba8(b) => image::GrayImage::from_fn(b.width(), b.height(), |x, y| {
            let p = b.get_pixel(x, y);
            image::Luma([luma(p[0], p[1], p[2])])
        }),
        other => return Err(Error::unsupported(format!("image pixels of type {:?} are not supported", other.color()))),
    })
}

/// `gray_scale` (Unitxt's `GrayScale`): the image in gray (PIL's `convert("L")`) as an RGB image
/// with the gray value in each channel.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct GrayScale {}

impl FieldOperator for GrayScale {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        augment_image(value, "gray_scale", |img| {
            let g = pil_luma(&img)?;
            Ok(image::DynamicImage::ImageRgb8(image::RgbImage::from_fn(g.width(), g.height(), |x, y| {
                let v = g.get_pixel(x, y)[0];
                image::Rgb([v, v, v])
            })))
        })
    }
}

impl Augmentor for GrayScale {
    fn for_fields(&self, fields: &[String]) -> Result<Arc<dyn InstanceOperator>> {
        task_inputs_op(self.clone(), fields)
    }
}

fn default_num_lines() -> i64 {
    128
}

fn default_thickness() -> i64 {
    1
}

fn default_line_color() -> Vec<i64> {
    vec![255, 255, 255]
}

/// `grid_lines` (Unitxt's `GridLines`): `num_lines` horizontal and vertical lines of
/// `line_thickness` pixels in `line_color`, the i-th (from 1) at `i * (height // (num_lines + 1))`
/// rows and `i * (width // (num_lines + 1))` columns (lines past the edge are cut or dropped, as
/// numpy slices are). Errors, as numpy's assignment does, on images that are not RGB.
#[derive(Debug, Clone, Deserialize)]
pub struct GridLines {
    /// `num_lines` (default 128).
    #[serde(default = "default_num_lines")]
    pub num_lines: i64,
    /// `line_thickness` in pixels (default 1).
    #[serde(default = "default_thickness")]
    pub line_thickness: i64,
    /// `line_color`, RGB (default white).
    #[serde(default = "default_line_color")]
    pub line_color: Vec<i64>,
}

impl GridLines {
    fn color(&self) -> Result<[u8; 3]> {
        match self.line_color.as_slice() {
            [r, g, b] => {
                let c = |v: i64| u8::try_from(v).map_err(|_| Error::invalid(format!("grid_lines: line_color value {v} is not in 0..=255")));
                Ok([c(*r)?, c(*g)?, c(*b)?])
            }
            other => Err(Error::invalid(format!("grid_lines: line_color must have 3 values, got {}", other.len()))),
        }
    }
}

impl FieldOperator for GridLines {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        augment_image(value, "grid_lines", |img| {
            let image::DynamicImage::ImageRgb8(mut b) = img else {
                return Err(Error::invalid(format!(
                    "grid_lines needs an RGB image (numpy cannot assign a 3-value color to {:?} pixels)",
                    img.color()
                )));
            };
            let color = self.color()?;
            let (w, h) = (i64::from(b.width()), i64::from(b.height()));
            let lines = self.num_lines.max(0);
            let hs = h.div_euclid(lines + 1);
            let vs = w.div_euclid(lines + 1);
            // A numpy slice [a : a + t] with a negative thickness is empty.
            let t = self.line_thickness.max(0);
            for i in 1..=lines {
                let y0 = i * hs;
                for y in y0..(y0 + t).min(h) {
                    for x in 0..w {
                        b.put_pixel(x as u32, y as u32, image::Rgb(color));
                    }
                }
            }
            for i in 1..=lines {
                let x0 = i * vs;
                for x in x0..(x0 + t).min(w) {
                    for y in 0..h {
                        b.put_pixel(x as u32, y as u32, image::Rgb(color));
                    }
                }
            }
            Ok(image::DynamicImage::ImageRgb8(b))
        })
    }
}

impl Augmentor for GridLines {
    fn for_fields(&self, fields: &[String]) -> Result<Arc<dyn InstanceOperator>> {
        task_inputs_op(self.clone(), fields)
    }
}

fn default_square_size() -> i64 {
    1
}

fn default_noise_rate() -> f64 {
    0.3
}

/// `pixel_noise` (Unitxt's `PixelNoise`): the image cut into `square_size` squares
/// (`height // square_size` by `width // square_size`, from the top left); each square, with
/// probability `noise_rate`, is painted one random color (a random value per channel). Unitxt
/// draws from numpy's global, unseeded generator, so its output cannot be reproduced; here the
/// draws come from Python's `random` seeded by the image value (Unitxt's
/// `new_random_generator(sub_seed=value)` that the text augmentors use), so a run is repeatable.
/// Errors on images without a channel axis (gray, as numpy's unpacking of the shape does) and
/// on images whose sides are not multiples of `square_size` (numpy's broadcasting fails).
#[derive(Debug, Clone, Deserialize)]
pub struct PixelNoise {
    /// `square_size` in pixels (default 1).
    #[serde(default = "default_square_size")]
    pub square_size: i64,
    /// `noise_rate`: the share of squares painted (default 0.3).
    #[serde(default = "default_noise_rate")]
    pub noise_rate: f64,
}

impl FieldOperator for PixelNoise {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        if self.square_size <= 0 {
            return Err(Error::invalid("pixel_noise: square_size must be positive"));
        }
        let mut rng = crate::py::random::new_random_generator(&value);
        let size = self.square_size as u32;
        let rate = self.noise_rate;
        augment_image(value, "pixel_noise", |img| {
            use image::DynamicImage as D;
            let channels = match &img {
                D::ImageLumaA8(_) => 2,
                D::ImageRgb8(_) => 3,
                D::ImageRgba8(_) => 4,
                other => return Err(Error::invalid(format!("pixel_noise needs an image with channels, got {:?}", other.color()))),
            };
            let (w, h) = (img.width(), img.height());
            if w % size != 0 || h % size != 0 {
                // numpy cannot broadcast the squares' mask onto the image then.
                return Err(Error::invalid(format!("pixel_noise: the image ({w}x{h}) is not a whole number of {size}-pixel squares")));
            }
            let (xs, ys) = (w / size, h / size);
            let mut painted: Vec<Option<Vec<u8>>> = Vec::with_capacity((xs * ys) as usize);
            for _ in 0..xs * ys {
                let hit = rng.random() < rate;
                let color: Vec<u8> = (0..channels).map(|_| rng.randbelow(256) as u8).collect();
                painted.push(hit.then_some(color));
            }
            let mut out = img;
            let paint = |x: u32, y: u32| -> Option<&Vec<u8>> {
                let (sx, sy) = (x / size, y / size);
                if sx >= xs || sy >= ys {
                    return None;
                }
                painted[(sy * xs + sx) as usize].as_ref()
            };
            match &mut out {
                D::ImageLumaA8(b) => b.enumerate_pixels_mut().for_each(|(x, y, p)| {
                    if let Some(c) = paint(x, y) {
                        p.0.copy_from_slice(c);
                    }
                }),
                D::ImageRgb8(b) => b.enumerate_pixels_mut().for_each(|(x, y, p)| {
                    if let Some(c) = paint(x, y) {
                        p.0.copy_from_slice(c);
                    }
                }),
                D::ImageRgba8(b) => b.enumerate_pixels_mut().for_each(|(x, y, p)| {
                    if let Some(c) = paint(x, y) {
                        p.0.copy_from_slice(c);
                    }
                }),
                _ => {}
            }
            Ok(out)
        })
    }
}

impl Augmentor for PixelNoise {
    fn for_fields(&self, fields: &[String]) -> Result<Arc<dyn InstanceOperator>> {
        task_inputs_op(self.clone(), fields)
    }
}

#[cfg(test)]
mod tests;
