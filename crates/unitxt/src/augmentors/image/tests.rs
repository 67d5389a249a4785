//! `gray_scale` and `grid_lines` against Unitxt 1.26.10 on images made with Pillow
//! (`augment_cases.json`, written by `oracle_gen.py` next to it): the same pixels, or an error
//! where Unitxt raises one. `pixel_noise`, which Unitxt draws from numpy's unseeded generator,
//! is checked for its properties.

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
