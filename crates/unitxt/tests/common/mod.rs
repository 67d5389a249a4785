//! What the oracle tests share: the repository root, the golden files' key, and the comparison
//! of one prepared recipe with the rows Unitxt 1.26.10 wrote for it (`scripts/oracle.py`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use libtest_mimic::Failed;
use sha1::{Digest, Sha1};
use unitxt::api::{prepare, PrepareOptions};
use unitxt::Value;

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The golden files' name for a recipe: the first 16 hex digits of sha1("SPLIT\tRECIPE"), as
/// `scripts/oracle.py` names them.
pub fn key(split: &str, recipe: &str) -> String {
    let h = Sha1::digest(format!("{split}\t{recipe}").as_bytes());
    h.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// A value cut to 600 characters for a message.
fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 600 {
        format!("{}…", s.chars().take(600).collect::<String>())
    } else {
        s
    }
}

/// Where two strings first differ, with some context of each.
fn first_string_diff(a: &str, b: &str) -> String {
    let i = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let ctx = |s: &str| s.chars().skip(i.saturating_sub(80)).take(200).collect::<String>();
    format!("first difference at char {i}:\n  ours:   {:?}\n  unitxt: {:?}", ctx(a), ctx(b))
}

/// Our `media` (`{"images": [{"image": <data URL>, "format": ...}], ...}`) in the form of
/// Unitxt's `load_dataset` rows as `scripts/oracle.py` writes them: `datasets`' Image feature
/// turns each image into `{"path": null, "bytes": <the file>}`, and the oracle writes the
/// bytes as `{"$bytes": <png | jpeg | other>}`. The pixels are not compared: an image Unitxt
/// draws (`serialize_table_as_image`, with matplotlib) cannot be reproduced byte for byte; the
/// images' own tests check them.
fn media_as_unitxt_gives_it(media: &Value) -> Value {
    let mut media = media.clone();
    if let Some(images) = media.get_mut("images").and_then(|i| i.as_array_mut()) {
        for img in images.iter_mut() {
            let kind = match img.get("image").and_then(|u| u.as_str()) {
                Some(u) if u.starts_with("data:image/png;") => "png",
                Some(u) if u.starts_with("data:image/jpeg;") => "jpeg",
                _ => "other",
            };
            *img = serde_json::from_str(&format!(r#"{{"path": null, "bytes": {{"$bytes": "{kind}"}}}}"#)).expect("valid JSON");
        }
    }
    media
}

/// Prepares `recipe` and compares split `split` with Unitxt's rows in `golden_dir`
/// (`<key>.jsonl`, or `<key>.error` when Unitxt refused it, which we must refuse too): the same
/// number of instances, the same fields, every value equal (`task_data` byte for byte; images in
/// `media` by their place and file kind only, see [`media_as_unitxt_gives_it`]). A
/// missing golden file is a failure; so is an empty split when `nonempty`.
pub fn run_prepare_case(split: &str, recipe: &str, golden_dir: &Path, nonempty: bool) -> Result<(), Failed> {
    let k = key(split, recipe);
    let golden = golden_dir.join(format!("{k}.jsonl"));
    let error = golden_dir.join(format!("{k}.error"));
    let ours = prepare(recipe, &PrepareOptions::default()).and_then(|mut ms| ms.take(split)).and_then(unitxt::stream::collect);
    if error.exists() {
        return match ours {
            Err(_) => Ok(()),
            Ok(rows) => Err(format!(
                "Unitxt refuses this recipe ({}), but we produced {} instances",
                std::fs::read_to_string(&error).unwrap_or_default().lines().last().unwrap_or(""),
                rows.len()
            )
            .into()),
        };
    }
    let text = std::fs::read_to_string(&golden).map_err(|e| {
        format!("golden file {} is missing ({e}); run the test command from the README, which runs scripts/oracle.py first", golden.display())
    })?;
    let expected: Vec<Value> = text.lines().map(|l| unitxt::py::json::loads(l, true)).collect::<Result<_, _>>()?;
    let ours = ours.map_err(|e| format!("we failed where Unitxt succeeded: {e}"))?;
    if ours.len() != expected.len() || (nonempty && ours.is_empty()) {
        return Err(format!("{} instances, Unitxt has {}", ours.len(), expected.len()).into());
    }
    for (i, (o, e)) in ours.iter().zip(&expected).enumerate() {
        let e = e.as_object().ok_or("golden row is not an object")?;
        let ok: Vec<&str> = o.keys().map(|k| k.as_str()).collect();
        let mut ek: Vec<&str> = e.keys().map(|k| k.as_str()).collect();
        let mut ok_sorted = ok.clone();
        ok_sorted.sort();
        ek.sort();
        if ok_sorted != ek {
            return Err(format!("instance {i}: fields {ok:?}, Unitxt has {ek:?}").into());
        }
        for (f, ev) in e {
            let media;
            let ov = if f == "media" {
                media = media_as_unitxt_gives_it(&o[f]);
                &media
            } else {
                &o[f]
            };
            if ov != ev {
                let detail = match (ov, ev) {
                    (Value::String(a), Value::String(b)) => first_string_diff(a, b),
                    _ => format!("\n  ours:   {}\n  unitxt: {}", show(ov), show(ev)),
                };
                return Err(format!("instance {i}, field {f:?} differs: {detail}").into());
            }
        }
    }
    Ok(())
}
