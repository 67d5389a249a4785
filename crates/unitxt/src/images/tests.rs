//! The image operators on images made with Pillow, against Unitxt 1.26.10's results
//! (`image_cases.json`, written by `oracle_gen.py` next to it).
//!
//! PNG pixels (and so `hash_image` and `to_rgb`) must be identical to Pillow's. JPEG decoders
//! round differently, so for JPEGs the pixels are compared within a tolerance, and `hash_image`
//! (an MD5 of the pixels) is compared only where the pixels are identical. `to_rgb`'s re-encoded
//! PNG is not compared byte for byte (Pillow's and the `image` crate's PNG encoders compress
//! differently); its decoded pixels are.

use super::*;

fn cases() -> Vec<serde_json::Value> {
    serde_json::from_str(include_str!("image_cases.json")).unwrap()
}

fn run(op: &dyn FieldOperator, v: Value) -> Result<Value> {
    op.process_value(v, &Instance::new())
}

/// The largest difference between two byte strings of the same length.
fn max_diff(a: &[u8], b: &[u8]) -> u8 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| x.abs_diff(*y)).max().unwrap_or(0)
}

#[test]
fn image_operators_match_unitxt() {
    let cases = cases();
    assert_eq!(cases.len(), 6);
    for c in &cases {
        let name = c["name"].as_str().unwrap();
        let is_jpeg = name.starts_with("jpeg");
        // decode_image: the same bytes, their format, the size.
        let decoded = run(&DecodeImage {}, Value::String(c["base64"].as_str().unwrap().into())).unwrap();
        let url = decoded.as_str().unwrap();
        let img = EncodedImage::from_data_url(url).unwrap();
        assert_eq!(img.pil_format(), c["pil_format"].as_str().unwrap(), "{name}");
        let px = img.decode().unwrap();
        assert_eq!([px.width() as u64, px.height() as u64], [c["size"][0].as_u64().unwrap(), c["size"][1].as_u64().unwrap()], "{name}");
        // to_image: {image, format}.
        let as_image = run(&ToImage {}, decoded.clone()).unwrap();
        assert_eq!(as_image, crate::json!({"image": url, "format": c["to_image_format"].as_str().unwrap()}), "{name}");
        // to_rgb: RGB pixels as Pillow's convert("RGB").
        let rgb = run(&ToRgb {}, as_image.clone()).unwrap();
        assert_eq!(rgb["format"], as_image["format"], "{name}");
        let rgb_px = EncodedImage::from_data_url(rgb["image"].as_str().unwrap()).unwrap().decode().unwrap();
        let want: Vec<u8> = c["rgb_bytes"].as_array().unwrap().iter().map(|b| b.as_u64().unwrap() as u8).collect();
        let got = pil_bytes(&rgb_px).unwrap();
        let diff = max_diff(&got, &want);
        eprintln!("{name}: to_rgb pixels differ from Pillow's by at most {diff}");
        if is_jpeg {
            assert!(diff <= 2, "{name}: JPEG pixels differ from Pillow's by {diff}");
        } else {
            assert_eq!(diff, 0, "{name}: PNG pixels differ from Pillow's");
        }
        // hash_image: the MD5 of the pixels in PIL's mode.
        let hashed = run(&HashImage {}, decoded).unwrap();
        if !is_jpeg || diff == 0 {
            assert_eq!(hashed.as_str().unwrap(), c["hash_image"].as_str().unwrap(), "{name}");
        }
    }
}

#[test]
fn bad_images_are_errors() {
    assert!(run(&DecodeImage {}, Value::String("not base64!".into())).unwrap_err().to_string().contains("base64"));
    let text = base64::engine::general_purpose::STANDARD.encode(b"plain text, no image");
    assert!(run(&DecodeImage {}, Value::String(text.into())).unwrap_err().to_string().contains("cannot identify image"));
    assert!(run(&DecodeImage {}, Value::from(3)).is_err());
    assert!(run(&ToImage {}, Value::String("https://example.com/a.png".into())).unwrap_err().to_string().contains("data URL"));
    assert!(run(&ToRgb {}, Value::String("data:image/png;base64,AAAA".into())).is_err());
    assert!(run(&HashImage {}, crate::json!({"image": "x"})).is_err());
    // A palette PNG: PIL hashes its palette indices, which are not reproduced.
    let mut pal = Vec::new();
    {
        let mut enc = png_palette_encoder(&mut pal);
        enc.write_image_data(&[0, 1, 1, 0]).unwrap();
    }
    let url = EncodedImage::from_bytes(pal).unwrap().to_data_url();
    let e = run(&HashImage {}, Value::String(url.into())).unwrap_err();
    assert_eq!(e.kind, crate::error::ErrorKind::Unsupported);
}

/// A 2x2 palette-indexed PNG writer into `out`.
fn png_palette_encoder(out: &mut Vec<u8>) -> png::Writer<&mut Vec<u8>> {
    let mut enc = png::Encoder::new(out, 2, 2);
    enc.set_color(png::ColorType::Indexed);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_palette(vec![0, 0, 0, 255, 255, 255]);
    enc.write_header().unwrap()
}
