//! Pillow's pixel arithmetic for the operations Unitxt's image augmentors call:
//! `ImageFilter.GaussianBlur`, `ImageEnhance.Contrast`, `ImageEnhance.Brightness` and the
//! `Image.blend` they rest on. Each gives the same bytes as Pillow 13 (its C library,
//! `libImaging/BoxBlur.c` and `Blend.c`, reproduced operation for operation: 32-bit unsigned
//! fixed point in the blur, single-precision floats in the blend).
//!
//! Images are 8-bit `L`, `LA`, `RGB` or `RGBA` ([`image::DynamicImage`]'s `Luma8`, `LumaA8`,
//! `Rgb8`, `Rgba8`); other pixel types are an error (kind `Unsupported`).

use image::DynamicImage;

use crate::error::{Error, Result};

/// An image's size, its channel count, whether its last channel is alpha, and its bytes (row
/// by row, channels interleaved).
struct Planes {
    width: usize,
    height: usize,
    channels: usize,
    has_alpha: bool,
    data: Vec<u8>,
}

fn planes(img: &DynamicImage) -> Result<Planes> {
    use DynamicImage as D;
    let (channels, has_alpha) = match img {
        D::ImageLuma8(_) => (1, false),
        D::ImageLumaA8(_) => (2, true),
        D::ImageRgb8(_) => (3, false),
        D::ImageRgba8(_) => (4, true),
        other => return Err(Error::unsupported(format!("image pixels of type {:?} are not supported (8-bit L, LA, RGB, RGBA are)", other.color()))),
    };
    Ok(Planes { width: img.width() as usize, height: img.height() as usize, channels, has_alpha, data: crate::images::pil_bytes(img)? })
}

/// `p`'s bytes as an image of the same pixel type as `like`.
fn rebuild(like: &DynamicImage, p: Planes) -> Result<DynamicImage> {
    use DynamicImage as D;
    let (w, h) = (p.width as u32, p.height as u32);
    let bad = || Error::invalid("image buffer has the wrong size");
    Ok(match like {
        D::ImageLuma8(_) => D::ImageLuma8(image::ImageBuffer::from_raw(w, h, p.data).ok_or_else(bad)?),
        D::ImageLumaA8(_) => D::ImageLumaA8(image::ImageBuffer::from_raw(w, h, p.data).ok_or_else(bad)?),
        D::ImageRgb8(_) => D::ImageRgb8(image::ImageBuffer::from_raw(w, h, p.data).ok_or_else(bad)?),
        _ => D::ImageRgba8(image::ImageBuffer::from_raw(w, h, p.data).ok_or_else(bad)?),
    })
}

/// The radius of the box filter that `passes` passes of make up a Gaussian of standard
/// deviation `radius` (Pillow's `_gaussian_blur_radius`, after Gwosdek et al., "Theoretical
/// foundations of Gaussian convolution by extended box filtering"): `float` arithmetic, with the
/// square root and the floor taken in `double` as C does.
fn gaussian_box_radius(radius: f32, passes: i32) -> f32 {
    let sigma2 = radius * radius / passes as f32;
    let big_l = (12.0 * f64::from(sigma2) + 1.0).sqrt() as f32;
    let l = ((f64::from(big_l) - 1.0) / 2.0).floor() as f32;
    let mut a = (2.0 * l + 1.0) * (l * (l + 1.0) - 3.0 * sigma2);
    a /= 6.0 * (sigma2 - (l + 1.0) * (l + 1.0));
    l + a
}

/// A box of (fractional) radius in 8.24 fixed point: the integer radius, the weight `ww` of
/// each whole pixel inside and `fw` of each of the two pixels at the box's edges.
#[derive(Clone, Copy)]
struct BoxWeights {
    radius: i64,
    ww: u32,
    fw: u32,
}

/// The [`BoxWeights`] of a box of radius `float_radius` (Pillow's `ImagingHorizontalBoxBlur`).
fn box_weights(float_radius: f32) -> BoxWeights {
    let radius = float_radius as i32;
    // C: (UINT32)(1 << 24) / (floatRadius * 2 + 1), a float division truncated to UINT32.
    let ww = ((1u32 << 24) as f32 / (float_radius * 2.0 + 1.0)) as u32;
    let fw = (1u32 << 24).wrapping_sub(((radius * 2 + 1) as u32).wrapping_mul(ww)) / 2;
    BoxWeights { radius: i64::from(radius), ww, fw }
}

/// One line of one channel through Pillow's extended box filter (`ImagingLineBoxBlur8`):
/// `input` has `n` values `stride` apart from `start`; the result goes to the same places of
/// `out`. Pixels beyond the ends repeat the end pixels. Arithmetic wraps at 32 bits as C's
/// `UINT32` does.
fn blur_line(out: &mut [u8], input: &[u8], start: usize, stride: usize, n: usize, b: BoxWeights) {
    let BoxWeights { radius, ww, fw } = b;
    let n = n as i64;
    let last = n - 1;
    let px = |i: i64| u32::from(input[start + i as usize * stride]);
    let edge_a = (radius + 1).min(n);
    let edge_b = (n - radius - 1).max(0);
    let mut acc = px(0).wrapping_mul((radius + 1) as u32);
    for x in 0..edge_a - 1 {
        acc = acc.wrapping_add(px(x));
    }
    acc = acc.wrapping_add(px(last).wrapping_mul((radius - edge_a + 1) as u32));
    let mut step = |x: i64, sub: i64, add: i64, left: i64, right: i64| {
        acc = acc.wrapping_add(px(add).wrapping_sub(px(sub)));
        let bulk = acc.wrapping_mul(ww).wrapping_add((px(left) + px(right)).wrapping_mul(fw));
        out[start + x as usize * stride] = (bulk.wrapping_add(1 << 23) >> 24) as u8;
    };
    if edge_a <= edge_b {
        for x in 0..edge_a {
            step(x, 0, x + radius, 0, x + radius + 1);
        }
        for x in edge_a..edge_b {
            step(x, x - radius - 1, x + radius, x - radius - 1, x + radius + 1);
        }
        for x in edge_b..=last {
            step(x, x - radius - 1, last, x - radius - 1, last);
        }
    } else {
        for x in 0..edge_b {
            step(x, 0, x + radius, 0, x + radius + 1);
        }
        for x in edge_b..edge_a {
            step(x, 0, last, 0, last);
        }
        for x in edge_a..=last {
            step(x, x - radius - 1, last, x - radius - 1, last);
        }
    }
}

/// Pillow's `ImagingBoxBlur` of `p` in place: `passes` passes along the rows with box radius
/// `xr`, then `passes` along the columns with `yr` (a radius of 0 skips its direction).
fn box_blur(p: &mut Planes, xr: f32, yr: f32, passes: usize) {
    let (w, h, c) = (p.width, p.height, p.channels);
    if w == 0 || h == 0 {
        return;
    }
    let mut scratch = p.data.clone();
    if xr != 0.0 {
        let b = box_weights(xr);
        for _ in 0..passes {
            for y in 0..h {
                for ch in 0..c {
                    blur_line(&mut scratch, &p.data, y * w * c + ch, c, w, b);
                }
            }
            std::mem::swap(&mut scratch, &mut p.data);
        }
    }
    if yr != 0.0 {
        let b = box_weights(yr);
        for _ in 0..passes {
            for x in 0..w {
                for ch in 0..c {
                    blur_line(&mut scratch, &p.data, x * c + ch, w * c, h, b);
                }
            }
            std::mem::swap(&mut scratch, &mut p.data);
        }
    }
}

/// `image.filter(ImageFilter.GaussianBlur(radius))`: three passes of an extended box filter
/// per direction (Pillow's approximation of a Gaussian of standard deviation `radius`; every
/// channel, alpha too, blurred on its own). A radius of 0 returns the image unchanged. Errors
/// on a radius that is not a finite number, and on pixel types other than 8-bit L, LA, RGB and
/// RGBA.
pub fn gaussian_blur(img: &DynamicImage, radius: f64) -> Result<DynamicImage> {
    if !radius.is_finite() {
        return Err(Error::invalid(format!("GaussianBlur: the radius must be a finite number, got {radius}")));
    }
    let mut p = planes(img)?;
    if radius == 0.0 {
        return Ok(img.clone());
    }
    let passes = 3;
    let r = gaussian_box_radius(radius as f32, passes);
    box_blur(&mut p, r, r, passes as usize);
    rebuild(img, p)
}

/// One byte of Pillow's `ImagingBlend(im1, im2, alpha)`: `a + alpha·(b − a)` in single
/// precision, truncated; outside `0 ≤ alpha ≤ 1` first clipped to 0..=255.
fn blend_byte(a: u8, b: u8, alpha: f32) -> u8 {
    let t = f32::from(a) + alpha * (i32::from(b) - i32::from(a)) as f32;
    if (0.0..=1.0).contains(&alpha) {
        t as u8
    } else if t <= 0.0 {
        0
    } else if t >= 255.0 {
        255
    } else {
        t as u8
    }
}

/// `Image.blend(degenerate, image, factor)` where `degenerate` has the color value `gray` in
/// every color channel and the image's own alpha (the degenerate images of
/// `ImageEnhance.Contrast` and `Brightness`): color channels blended, alpha kept.
fn blend_with_flat(img: &DynamicImage, gray: u8, factor: f64) -> Result<DynamicImage> {
    let mut p = planes(img)?;
    // Python's float goes to ImagingBlend as a C float.
    let alpha = factor as f32;
    let color = if p.has_alpha { p.channels - 1 } else { p.channels };
    for px in p.data.chunks_exact_mut(p.channels) {
        for v in &mut px[..color] {
            *v = blend_byte(gray, *v, alpha);
        }
    }
    rebuild(img, p)
}

/// `ImageEnhance.Contrast(image).enhance(factor)`: the image blended (factor `factor`) with a
/// flat image of its mean gray level — the mean of its `convert("L")` histogram, rounded half
/// up (`int(mean + 0.5)`) — keeping its alpha. Errors on pixel types other than 8-bit L, LA,
/// RGB and RGBA.
pub fn contrast(img: &DynamicImage, factor: f64) -> Result<DynamicImage> {
    let luma = convert_l(img)?;
    let luma = luma.as_raw();
    let count = luma.len() as u64;
    let sum: u64 = luma.iter().map(|&v| u64::from(v)).sum();
    let mean = if count == 0 { 0.0 } else { sum as f64 / count as f64 };
    let gray = (mean + 0.5) as u8;
    blend_with_flat(img, gray, factor)
}

/// `ImageEnhance.Brightness(image).enhance(factor)`: the image blended (factor `factor`) with
/// black, keeping its alpha. Errors on pixel types other than 8-bit L, LA, RGB and RGBA.
pub fn brightness(img: &DynamicImage, factor: f64) -> Result<DynamicImage> {
    blend_with_flat(img, 0, factor)
}

/// PIL's `convert("L")` of an 8-bit image: a gray image's own values; of a color one, the
/// ITU-R 601-2 luma in PIL's fixed point, `(R·19595 + G·38470 + B·7471 + 2¹⁵) >> 16`; alpha
/// dropped. Errors on pixel types other than 8-bit L, LA, RGB and RGBA.
pub fn convert_l(img: &DynamicImage) -> Result<image::GrayImage> {
    let p = planes(img)?;
    let luma = |r: u8, g: u8, b: u8| ((u32::from(r) * 19595 + u32::from(g) * 38470 + u32::from(b) * 7471 + 0x8000) >> 16) as u8;
    let data: Vec<u8> = match p.channels {
        1 | 2 => p.data.chunks_exact(p.channels).map(|px| px[0]).collect(),
        _ => p.data.chunks_exact(p.channels).map(|px| luma(px[0], px[1], px[2])).collect(),
    };
    image::GrayImage::from_raw(p.width as u32, p.height as u32, data).ok_or_else(|| Error::invalid("image buffer has the wrong size"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaussian_radius_one_is_a_quarter_pixel_box() {
        // sigma² = 1/3 per pass: box length sqrt(5) → l = 0, a = 1/4.
        let r = gaussian_box_radius(1.0, 3);
        assert!((r - 0.25).abs() < 1e-6, "{r}");
        let b = box_weights(r);
        assert_eq!(b.radius, 0);
        // 2²⁴ / 1.5 and the rest shared by the two edge pixels.
        assert_eq!((b.ww, b.fw), (11184811, 2796202));
    }

    #[test]
    fn blend_truncates_and_clips() {
        assert_eq!(blend_byte(100, 201, 0.6), 160); // 100 + 60.6
        assert_eq!(blend_byte(0, 250, 1.2), 255);
        assert_eq!(blend_byte(0, 100, 1.2), 120);
        assert_eq!(blend_byte(0, 7, 1.2), 8); // 8.4
    }
}
