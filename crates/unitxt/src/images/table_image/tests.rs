//! The drawn table's texts against Unitxt 1.26.10's (`table_image_cases.json`, written by
//! `table_image_gen.py`: the cells of the matplotlib table `SerializeTableAsImage` draws), and
//! the image's properties (its pixels are not matplotlib's, so they are not compared).

use super::*;
use crate::templates::serializers::{SerializeTable, TableLayout};
use crate::templates::Serializer;
use crate::value::Instance;

fn image_serializer() -> SerializeTable {
    let mut s: SerializeTable = crate::value::from_value(crate::json!({})).unwrap();
    s.layout = TableLayout::Image;
    s
}

fn table(header: &[&str], rows: Vec<Vec<Value>>) -> Value {
    crate::json!({"header": header, "rows": rows})
}

/// Serializes `t` into a fresh instance: the text and the instance's `media`.
fn serialize(s: &SerializeTable, t: &Value) -> Result<(String, Value)> {
    let mut inst = Instance::new();
    let mut v = t.clone();
    let text = s.serialize_mut(&mut v, &mut inst)?.expect("a table");
    assert_eq!(&v, t, "the table value is left as it was");
    Ok((text, inst.get("media").cloned().unwrap_or(Value::Null)))
}

/// The pixels of the PNG of `media/images/0`.
fn decoded(media: &Value) -> image::DynamicImage {
    let url = media["images"][0]["image"].as_str().unwrap();
    assert!(url.starts_with("data:image/png;base64,"), "{url:.40}");
    let img = crate::images::EncodedImage::from_data_url(url).unwrap();
    assert_eq!(img.format, image::ImageFormat::Png);
    img.decode().unwrap()
}

#[test]
fn cell_texts_match_unitxt() {
    let cases: Vec<serde_json::Value> = serde_json::from_str(include_str!("../table_image_cases.json")).unwrap();
    assert_eq!(cases.len(), 18);
    let mut errors = 0;
    for c in &cases {
        let t = Value::from(c["table"].clone());
        if c.get("error").is_some() {
            assert!(serialize(&image_serializer(), &t).is_err(), "{t}: Unitxt raised {}", c["error"]);
            errors += 1;
            continue;
        }
        let header = t["header"].as_array().unwrap().clone();
        let rows: Vec<Vec<Value>> = t["rows"].as_array().unwrap().iter().map(|r| r.as_array().unwrap().clone()).collect();
        let (names, body) = cell_texts(&header, &rows).unwrap();
        assert_eq!(serde_json::json!(names), c["names"], "{t}");
        let labels: Vec<&String> = body.iter().map(|(l, _)| l).collect();
        let cells: Vec<&Vec<String>> = body.iter().map(|(_, r)| r).collect();
        assert_eq!(serde_json::json!(labels), c["labels"], "{t}");
        assert_eq!(serde_json::json!(cells), c["cells"], "{t}");
        // And it draws.
        let (text, media) = serialize(&image_serializer(), &t).unwrap();
        assert_eq!(text, "<unitxt-img src=\"media/images/0\">");
        assert_eq!(media["images"][0]["format"], Value::from("png"));
    }
    assert_eq!(errors, 3);
}

#[test]
fn the_image_grows_with_columns_and_rows_and_repeats() {
    let s = image_serializer();
    let v = |n: i64| Value::from(n);
    let size = |t: &Value| {
        let (_, media) = serialize(&s, t).unwrap();
        let img = decoded(&media);
        assert!(matches!(img, image::DynamicImage::ImageRgba8(_)), "RGBA, as matplotlib saves it");
        (img.width(), img.height())
    };
    let base = table(&["a", "b"], vec![vec![v(1), v(2)], vec![v(3), v(4)]]);
    let more_columns = table(&["a", "b", "c"], vec![vec![v(1), v(2), v(5)], vec![v(3), v(4), v(6)]]);
    let more_rows = table(&["a", "b"], vec![vec![v(1), v(2)], vec![v(3), v(4)], vec![v(7), v(8)]]);
    let (w, h) = size(&base);
    let (w2, h2) = size(&more_columns);
    let (w3, h3) = size(&more_rows);
    assert!(w2 > w && h2 == h, "{w}x{h} -> {w2}x{h2}");
    assert!(h3 > h && w3 == w, "{w}x{h} -> {w3}x{h3}");
    // Wider texts make wider columns.
    let (w4, _) = size(&table(&["a", "b"], vec![vec![v(1), Value::from("a long cell")], vec![v(3), v(4)]]));
    assert!(w4 > w);
    // The same table gives the same bytes.
    assert_eq!(serialize(&s, &base).unwrap(), serialize(&s, &base).unwrap());
    // Black ink on white: both colors are there.
    let (_, media) = serialize(&s, &base).unwrap();
    let px = decoded(&media).to_rgba8();
    assert_eq!(*px.get_pixel(0, 0), image::Rgba([255, 255, 255, 255]));
    assert!(px.pixels().any(|p| *p == image::Rgba([0, 0, 0, 255])));
}

#[test]
fn images_go_to_media_in_order_and_shuffles_follow_the_seed() {
    let s = image_serializer();
    let t = table(&["x", "y"], vec![vec![Value::from("a"), Value::from(1)], vec![Value::from("b"), Value::from(2)]]);
    let mut inst = Instance::new();
    let first = s.serialize_mut(&mut t.clone(), &mut inst).unwrap().unwrap();
    let second = s.serialize_mut(&mut t.clone(), &mut inst).unwrap().unwrap();
    assert_eq!((first.as_str(), second.as_str()), ("<unitxt-img src=\"media/images/0\">", "<unitxt-img src=\"media/images/1\">"));
    assert_eq!(inst["media"]["images"].as_array().unwrap().len(), 2);
    // Not a table: not this serializer's (a multi-type serializer tries the next).
    assert_eq!(s.serialize_mut(&mut Value::from("text"), &mut Instance::new()).unwrap(), None);
    // Shuffled columns draw the columns in the shuffled order (the seeded order of the other
    // table serializers): the image differs from the unshuffled one, and repeats.
    let mut shuffled: SerializeTable = crate::value::from_value(crate::json!({"shuffle_columns": true, "seed": 3})).unwrap();
    shuffled.layout = TableLayout::Image;
    let wide = table(&["a", "b", "c", "d"], vec![vec![Value::from(1), Value::from(22), Value::from(333), Value::from(4444)]]);
    let (_, plain) = serialize(&s, &wide).unwrap();
    let (_, a) = serialize(&shuffled, &wide).unwrap();
    let (_, b) = serialize(&shuffled, &wide).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, plain);
    let mut md: SerializeTable = crate::value::from_value(crate::json!({"shuffle_columns": true, "seed": 3})).unwrap();
    md.layout = TableLayout::Markdown;
    let order = md.serialize(&wide, &Instance::new()).unwrap().unwrap();
    let mut lines = order.lines();
    let cell = |l: &str| l.trim_matches('|').split('|').map(str::to_string).collect::<Vec<String>>();
    let (names, values) = (cell(lines.next().unwrap()), cell(lines.nth(1).unwrap()));
    assert_ne!(names, ["a", "b", "c", "d"], "seed 3 moves the columns");
    let header: Vec<Value> = names.iter().map(|n| Value::from(n.as_str())).collect();
    let row: Vec<Value> = values.iter().map(|v| Value::from(v.parse::<i64>().unwrap())).collect();
    let (_, reordered) = serialize(&s, &crate::json!({"header": header, "rows": [row]})).unwrap();
    assert_eq!(reordered, a, "the shuffled image is the image of the table in the markdown serializer's shuffled order");
}

#[test]
fn oversized_tables_are_refused() {
    let long = "x".repeat(400_000);
    let t = table(&["a"], vec![vec![Value::from(long.as_str())]]);
    let e = serialize(&image_serializer(), &t).unwrap_err();
    assert!(e.to_string().contains("too large"), "{e}");
}

