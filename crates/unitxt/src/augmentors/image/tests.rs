//! `gray_scale` and `grid_lines` against Unitxt 1.26.10 on images made with Pillow
//! (`augment_cases.json`, written by `oracle_gen.py` next to it): the same pixels, or an error
//! where Unitxt raises one. `oldify` without grain, and the Pillow blur and enhancers it is made
//! of, likewise (`oldify_cases.json`, written by `oldify_gen.py`, also on a photograph).
//! `pixel_noise` and `oldify`'s grain, which Unitxt draws from numpy's unseeded generator, are
//! checked for their properties.

use super::*;
use base64::Engine as _;

fn image_value(b64: &str) -> Value {
    let bytes = base64::engine::general_purpose::STANDARD.decode(b64).unwrap();
    let url = EncodedImage::from_bytes(bytes).unwrap().to_data_url();
    crate::json!({"image": url, "format": "PNG"})
}

fn pixels(v: &Value) -> image::DynamicImage {
    EncodedImage::from_data_url(v["image"].as_str().unwrap()).unwrap().decode().unwrap()
}

#[test]
fn gray_scale_and_grid_lines_match_unitxt() {
    let cases: Vec<serde_json::Value> = serde_json::from_str(include_str!("augment_cases.json")).unwrap();
    assert_eq!(cases.len(), 16);
    for c in &cases {
        let label = format!("{} {} {}", c["type"], c["args"], c["image"]);
        let args = Value::from(c["args"].clone());
        let op: Box<dyn FieldOperator> = match c["type"].as_str().unwrap() {
            "gray_scale" => Box::new(crate::value::from_value::<GrayScale>(args).unwrap()),
            _ => Box::new(crate::value::from_value::<GridLines>(args).unwrap()),
        };
        let got = op.process_value(image_value(c["base64"].as_str().unwrap()), &Instance::new());
        if c.get("error").is_some() {
            assert!(got.is_err(), "{label}: Unitxt raised {}, we did not", c["error"]);
            continue;
        }
        let got = got.unwrap();
        assert_eq!(got["format"], Value::from("PNG"), "{label}");
        let px = pixels(&got);
        assert_eq!(c["mode"], "RGB", "{label}");
        assert_eq!([px.width() as u64, px.height() as u64], [c["size"][0].as_u64().unwrap(), c["size"][1].as_u64().unwrap()], "{label}");
        let want: Vec<u8> = c["bytes"].as_array().unwrap().iter().map(|b| b.as_u64().unwrap() as u8).collect();
        assert_eq!(crate::images::pil_bytes(&px).unwrap(), want, "{label}");
    }
}

#[test]
fn non_images_pass_unchanged() {
    for v in [crate::json!("text"), crate::json!({"image": "x", "format": "PNG"}), crate::json!(3)] {
        assert_eq!(GrayScale {}.process_value(v.clone(), &Instance::new()).unwrap(), v);
        assert_eq!(PixelNoise { square_size: 1, noise_rate: 0.3 }.process_value(v.clone(), &Instance::new()).unwrap(), v);
    }
}

/// An RGB image of `w`x`h` pixels, all of value 7, as an image value.
fn flat_rgb(w: u32, h: u32) -> Value {
    let img = image::DynamicImage::ImageRgb8(image::RgbImage::from_pixel(w, h, image::Rgb([7, 7, 7])));
    let mut bytes = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut bytes), image::ImageFormat::Png).unwrap();
    crate::json!({"image": EncodedImage { bytes, format: image::ImageFormat::Png }.to_data_url(), "format": "JPEG"})
}

#[test]
fn pixel_noise_paints_whole_squares_at_the_rate_and_repeats() {
    let op = PixelNoise { square_size: 2, noise_rate: 0.3 };
    let input = flat_rgb(40, 30);
    let a = op.process_value(input.clone(), &Instance::new()).unwrap();
    let b = op.process_value(input.clone(), &Instance::new()).unwrap();
    assert_eq!(a, b, "seeded by the value: the same image gives the same noise");
    assert_eq!(a["format"], Value::from("JPEG"));
    let px = pixels(&a).to_rgb8();
    let mut painted = 0;
    for sy in 0..15 {
        for sx in 0..20 {
            let first = *px.get_pixel(sx * 2, sy * 2);
            // Each 2x2 square is one color.
            for (dx, dy) in [(1, 0), (0, 1), (1, 1)] {
                assert_eq!(*px.get_pixel(sx * 2 + dx, sy * 2 + dy), first);
            }
            if first.0 != [7, 7, 7] {
                painted += 1;
            }
        }
    }
    // 300 squares at rate 0.3: about 90 painted (a 1-in-a-million band is 60..=120).
    assert!((60..=120).contains(&painted), "{painted} of 300 squares painted");
    // Rate 0 paints nothing; rate 1 paints (almost surely) every square.
    let none = PixelNoise { square_size: 2, noise_rate: 0.0 }.process_value(input.clone(), &Instance::new()).unwrap();
    assert_eq!(pixels(&none).to_rgb8().as_raw(), pixels(&input).to_rgb8().as_raw());
    // Sides that are not multiples of the square are an error, as in Unitxt.
    assert!(PixelNoise { square_size: 4, noise_rate: 0.3 }.process_value(flat_rgb(6, 4), &Instance::new()).is_err());
}

/// The raw pixels of an image value, with its PIL mode name.
fn mode_and_bytes(img: &image::DynamicImage) -> (&'static str, Vec<u8>) {
    use image::DynamicImage as D;
    let mode = match img {
        D::ImageLuma8(_) => "L",
        D::ImageLumaA8(_) => "LA",
        D::ImageRgb8(_) => "RGB",
        D::ImageRgba8(_) => "RGBA",
        _ => "?",
    };
    (mode, crate::images::pil_bytes(img).unwrap())
}

#[test]
fn oldify_and_its_pillow_steps_match_unitxt() {
    use crate::images::pil;
    use md5::Digest;
    let file: serde_json::Value = serde_json::from_str(include_str!("oldify_cases.json")).unwrap();
    let cases = file["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 160);
    let (mut compared, mut refused) = (0, 0);
    for c in cases {
        let label = format!("{} {} {}", c["op"], c["args"], c["image"]);
        let input = image_value(file["images"][c["image"].as_str().unwrap()].as_str().unwrap());
        let arg = |k: &str| c["args"][k].as_f64().unwrap();
        let got: Result<image::DynamicImage> = match c["op"].as_str().unwrap() {
            "oldify" => {
                let op: Oldify = crate::value::from_value(Value::from(c["args"].clone())).unwrap();
                op.process_value(input, &Instance::new()).map(|v| {
                    assert_eq!(v["format"], Value::from("PNG"), "{label}");
                    pixels(&v)
                })
            }
            "blur" => pil::gaussian_blur(&pixels(&input), arg("radius")),
            "contrast" => pil::contrast(&pixels(&input), arg("factor")),
            "brightness" => pil::brightness(&pixels(&input), arg("factor")),
            other => panic!("unknown op {other}"),
        };
        if c.get("error").is_some() {
            assert!(got.is_err(), "{label}: Unitxt raised {}, we did not", c["error"]);
            refused += 1;
            continue;
        }
        let got = got.unwrap_or_else(|e| panic!("{label}: {e}"));
        let (mode, bytes) = mode_and_bytes(&got);
        assert_eq!(mode, c["mode"], "{label}");
        assert_eq!([got.width() as u64, got.height() as u64], [c["size"][0].as_u64().unwrap(), c["size"][1].as_u64().unwrap()], "{label}");
        if let Some(want) = c["pixels"].as_str() {
            let want = base64::engine::general_purpose::STANDARD.decode(want).unwrap();
            assert_eq!(bytes, want, "{label}");
        }
        let md5: String = md5::Md5::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(md5, c["md5"].as_str().unwrap(), "{label}");
        compared += 1;
    }
    assert_eq!((compared, refused), (145, 15));
}

#[test]
fn oldify_grain_is_seeded_by_the_image_and_changes_pixels() {
    let photo = {
        let file: serde_json::Value = serde_json::from_str(include_str!("oldify_cases.json")).unwrap();
        image_value(file["images"]["photo_64x48"].as_str().unwrap())
    };
    let grained = Oldify { noise_strength: 30.0, tint_strength: 0.4 };
    let clean = Oldify { noise_strength: 0.0, tint_strength: 0.4 };
    let a = grained.process_value(photo.clone(), &Instance::new()).unwrap();
    let b = grained.process_value(photo.clone(), &Instance::new()).unwrap();
    assert_eq!(a, b, "seeded by the value: the same image gives the same grain");
    let (pa, pc) = (pixels(&a), pixels(&clean.process_value(photo.clone(), &Instance::new()).unwrap()));
    assert_eq!((pa.width(), pa.height()), (64, 48));
    let (mode, grain) = mode_and_bytes(&pa);
    let (_, plain) = mode_and_bytes(&pc);
    assert_eq!(mode, "RGB");
    // Grain of standard deviation 30, blurred (a 3-pass box of radius 1/4 per direction keeps
    // about 0.64² ≈ 0.4 of a pixel's own noise), then scaled by 0.6·1.2: a typical change of
    // 30·0.4·0.72 ≈ 9 levels; a mean absolute change under 2 would mean no grain.
    let mean_change = grain.iter().zip(&plain).map(|(x, y)| f64::from(x.abs_diff(*y))).sum::<f64>() / grain.len() as f64;
    assert!((2.0..20.0).contains(&mean_change), "mean change {mean_change}");
    // Another image draws other grain: the same flat image, one pixel changed.
    let flat = flat_rgb(20, 10);
    let mut other = pixels(&flat).to_rgb8();
    other.put_pixel(0, 0, image::Rgb([8, 7, 7]));
    let mut bytes = Vec::new();
    image::DynamicImage::ImageRgb8(other).write_to(&mut std::io::Cursor::new(&mut bytes), image::ImageFormat::Png).unwrap();
    let other = crate::json!({"image": EncodedImage { bytes, format: image::ImageFormat::Png }.to_data_url(), "format": "JPEG"});
    let ga = mode_and_bytes(&pixels(&grained.process_value(flat, &Instance::new()).unwrap())).1;
    let gb = mode_and_bytes(&pixels(&grained.process_value(other, &Instance::new()).unwrap())).1;
    assert_ne!(ga[30..], gb[30..], "different images, different grain");
    // A negative strength is numpy's `scale < 0` error; non-images pass unchanged.
    assert!(Oldify { noise_strength: -1.0, tint_strength: 0.4 }.process_value(photo, &Instance::new()).is_err());
    assert_eq!(grained.process_value(crate::json!("text"), &Instance::new()).unwrap(), crate::json!("text"));
}
