//! Image augmentors (Unitxt's `ImageAugmentor`s in `image_operators.py`): `gray_scale`,
//! `grid_lines`, `pixel_noise`, `oldify`. Each changes the `image` of task inputs that are Unitxt image
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

/// `gray_scale` (Unitxt's `GrayScale`): the image in gray (PIL's `convert("L")`) as an RGB image
/// with the gray value in each channel.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct GrayScale {}

impl FieldOperator for GrayScale {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        augment_image(value, "gray_scale", |img| {
            let g = crate::images::pil::convert_l(&img)?;
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

fn default_noise_strength() -> f64 {
    30.0
}

fn default_tint_strength() -> f64 {
    0.4
}

/// The aged-paper color `oldify` tints toward.
const YELLOW_TINT: [u8; 3] = [255, 228, 170];

/// numpy's cast of a float64 to a 32-bit integer on x86-64 (`cvttsd2si`): truncation toward
/// zero; NaN and values outside the `i32` range give `i32::MIN`. numpy's casts to `uint8` and
/// `int16` keep the low 8 or 16 bits of it (what `astype` gives for values out of range).
fn np_cast_i32(f: f64) -> i32 {
    if f.is_nan() || f <= -2_147_483_649.0 || f >= 2_147_483_648.0 {
        i32::MIN
    } else {
        f as i32
    }
}

/// Python's `random.normalvariate(0, 1)` (Kinderman and Monahan's ratio method) drawn from
/// `rng`.
fn normal_variate(rng: &mut crate::py::random::PyRandom) -> f64 {
    // 4·e^(−1/2) / √2
    let magic = 4.0 * (-0.5f64).exp() / 2.0f64.sqrt();
    loop {
        let u1 = rng.random();
        let u2 = 1.0 - rng.random();
        let z = magic * (u1 - 0.5) / u2;
        if z * z / 4.0 <= -u2.ln() {
            return z;
        }
    }
}

/// `oldify` (Unitxt's `Oldify`): an "old photo" look, in Unitxt's five steps.
///
/// 1. A yellow tint: each channel becomes `value·(1 − tint_strength) + tint·tint_strength` in
///    float64, the tint being `(255, 228, 170)`, cast to 8 bits as numpy's `astype(uint8)` does
///    (truncated; out of range, the low 8 bits of the value truncated to 32 bits, 0 past the
///    32-bit range, as numpy does on x86-64).
/// 2. Film grain: a normal draw of standard deviation `noise_strength` per channel of each
///    pixel, cast to `int16` (truncated), added, clipped to 0..=255. Unitxt draws it from numpy's
///    global, unseeded generator, so its output cannot be reproduced; here the draws are
///    Python's `random.normalvariate` from `random` seeded by the image value (Unitxt's
///    `new_random_generator(sub_seed=value)`, as `pixel_noise` seeds its draws), so a run is
///    repeatable. With `noise_strength` 0 nothing is drawn and the result is Unitxt's, pixel
///    for pixel.
/// 3. Pillow's `GaussianBlur(radius=1)`, 4. `ImageEnhance.Contrast(0.6)`, 5.
///    `ImageEnhance.Brightness(1.2)`, with Pillow's arithmetic (see [`crate::images::pil`]).
///
/// The numpy array of an RGB image has shape (height, width, 3), which the tint's 3 values
/// broadcast onto. So, as in Unitxt: a gray image is accepted only when its width is 3 (column
/// `x` tinted with the tint's `x`-th value) or 1 (broadcast to width 3); RGBA, gray+alpha and
/// other gray images are an error (numpy cannot broadcast them), as is a negative
/// `noise_strength` (numpy's `scale < 0`).
#[derive(Debug, Clone, Deserialize)]
pub struct Oldify {
    /// `noise_strength`: the grain's standard deviation, in levels (default 30).
    #[serde(default = "default_noise_strength")]
    pub noise_strength: f64,
    /// `tint_strength`: how far toward the tint (default 0.4).
    #[serde(default = "default_tint_strength")]
    pub tint_strength: f64,
}

impl Oldify {
    /// Steps 1 and 2 on `img`: the tinted, grained pixels, as an RGB image or (for the gray
    /// images numpy can broadcast) a gray one of width 3.
    fn tint_and_grain(&self, img: &image::DynamicImage, rng: &mut crate::py::random::PyRandom) -> Result<image::DynamicImage> {
        use image::DynamicImage as D;
        let (w, h) = (img.width() as usize, img.height() as usize);
        // The numpy shape of the image, its channel count (1 for a 2-d gray array), and the
        // width of the result once the tint is broadcast.
        let (channels, out_w) = match img {
            D::ImageRgb8(_) => (3, w),
            D::ImageLuma8(_) if w == 3 || w == 1 => (1, 3),
            D::ImageLuma8(_) => {
                return Err(Error::invalid(format!("oldify: operands could not be broadcast together with shapes ({h},{w}) (3,)")));
            }
            D::ImageLumaA8(_) | D::ImageRgba8(_) => {
                let c = if matches!(img, D::ImageLumaA8(_)) { 2 } else { 4 };
                return Err(Error::invalid(format!("oldify: operands could not be broadcast together with shapes ({h},{w},{c}) (3,)")));
            }
            other => return Err(Error::unsupported(format!("oldify: image pixels of type {:?} are not supported", other.color()))),
        };
        if self.noise_strength < 0.0 {
            return Err(Error::invalid("oldify: noise_strength must not be negative (numpy: scale < 0)"));
        }
        let src = crate::images::pil_bytes(img)?;
        let t = self.tint_strength;
        // The noise has the input's shape (row by row, channels innermost, as numpy draws it).
        let noise: Vec<i16> = if self.noise_strength == 0.0 {
            vec![0; src.len()]
        } else {
            (0..src.len()).map(|_| np_cast_i32(normal_variate(rng) * self.noise_strength) as i16).collect()
        };
        let mut out = Vec::with_capacity(out_w * h * channels);
        for y in 0..h {
            for x in 0..out_w {
                for c in 0..channels {
                    // A gray array (h, 1) broadcasts its one column; the tint's index is the
                    // last axis: the channel, or the column of a 2-d gray array.
                    let i = if channels == 1 { y * w + x.min(w - 1) } else { (y * w + x) * 3 + c };
                    let tint = YELLOW_TINT[if channels == 1 { x } else { c }];
                    let tinted = np_cast_i32(f64::from(src[i]) * (1.0 - t) + f64::from(tint) * t) as u8;
                    let v = i16::from(tinted).wrapping_add(noise[i]);
                    out.push(v.clamp(0, 255) as u8);
                }
            }
        }
        let bad = || Error::invalid("oldify: image buffer has the wrong size");
        Ok(if channels == 3 {
            D::ImageRgb8(image::RgbImage::from_raw(out_w as u32, h as u32, out).ok_or_else(bad)?)
        } else {
            D::ImageLuma8(image::GrayImage::from_raw(out_w as u32, h as u32, out).ok_or_else(bad)?)
        })
    }
}

impl FieldOperator for Oldify {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let mut rng = crate::py::random::new_random_generator(&value);
        augment_image(value, "oldify", |img| {
            use crate::images::pil;
            let grained = self.tint_and_grain(&img, &mut rng)?;
            let blurred = pil::gaussian_blur(&grained, 1.0)?;
            let faded = pil::contrast(&blurred, 0.6)?;
            pil::brightness(&faded, 1.2)
        })
    }
}

impl Augmentor for Oldify {
    fn for_fields(&self, fields: &[String]) -> Result<Arc<dyn InstanceOperator>> {
        task_inputs_op(self.clone(), fields)
    }
}

#[cfg(test)]
mod tests;
