//! Checks formats, system prompts and augmentors built from Unitxt's catalog JSON against the
//! outputs of the real Unitxt 1.26.10 on the same instances (`oracle_cases.json`, produced by
//! `oracle_gen.py` with /work/venv's Unitxt). Outputs are compared as serialized JSON, so key
//! order counts too.

use std::sync::Arc;

use crate::registry::Artifact;
use crate::catalog::Catalog;
use crate::error::ErrorKind;
use crate::value::{Instance, Value};

const CASES: &str = include_str!("oracle_cases.json");

fn catalog() -> Arc<Catalog> {
    crate::testutil::unitxt_catalog()
}

fn cases() -> Value {
    serde_json::from_str(CASES).expect("oracle_cases.json parses")
}

fn obj(v: &Value) -> Instance {
    v.as_object().expect("an instance").clone()
}

fn check(label: &str, got: crate::Result<Instance>, case: &Value) {
    match (got, case.get("ok")) {
        (Ok(inst), Some(exp)) => assert_eq!(
            serde_json::to_string(&Value::Object(inst)).unwrap(),
            serde_json::to_string(exp).unwrap(),
            "{label}"
        ),
        (Err(e), Some(_)) => panic!("{label}: unexpected error {e}"),
        (Ok(inst), None) => panic!("{label}: Unitxt raised {:?}, we gave {}", case.get("error"), Value::Object(inst)),
        (Err(_), None) => {}
    }
}

#[test]
fn formats_match_unitxt() {
    let cat = catalog();
    let all = cases();
    let instances = all["instances"].as_array().unwrap();
    let mut checked = 0;
    for f in all["formats"].as_array().unwrap() {
        let spec = &f["format"];
        let built = crate::registry::build(spec, &cat);
        if f.get("build_error").is_some() {
            match built {
                // Unitxt could not load the model's tokenizer (the chat-template formats): we
                // cannot find it in the hub cache either.
                Err(e) => assert!(matches!(e.kind, ErrorKind::Unsupported | ErrorKind::FileNotFound), "{spec}: {e}"),
                Ok(_) => panic!("{spec}: Unitxt could not build it, we did"),
            }
            continue;
        }
        let op = match built {
            Ok(Artifact::Format(a)) => a,
            Ok(other) => panic!("{spec}: built a {}", other.kind()),
            Err(e) => panic!("{spec}: {e}"),
        };
        for (i, case) in f["cases"].as_array().unwrap().iter().enumerate() {
            let got = crate::formats::format_instance(op.inner.as_ref(), obj(&instances[i]), "test");
            check(&format!("{spec} on instance {i}"), got, case);
            checked += 1;
        }
    }
    assert!(checked >= 25 * 9, "only {checked} cases");
}

#[test]
fn system_prompts_match_unitxt() {
    let cat = catalog();
    for case in cases()["system_prompts"].as_array().unwrap() {
        let spec = &case["prompt"];
        let op = match crate::registry::build(spec, &cat) {
            Ok(Artifact::SystemPrompt(a)) => a,
            _ => panic!("{spec}: not built as a system prompt"),
        };
        check(&format!("{spec}"), op.process_instance(obj(&case["in"]), "train"), case);
    }
}

#[test]
fn augmentors_match_unitxt() {
    let cat = catalog();
    for case in cases()["augmentors"].as_array().unwrap() {
        let spec = &case["augmentor"];
        let built = crate::registry::build(spec, &cat);
        if case.get("build_error").is_some() {
            assert!(built.is_err(), "{spec}: Unitxt could not build it, we did");
            continue;
        }
        let aug = match built {
            Ok(Artifact::Augmentor(a)) => a,
            _ => panic!("{spec}: not built as an augmentor"),
        };
        let fields: Vec<String> = match case.get("fields") {
            Some(Value::Array(a)) => a.iter().map(|s| s.as_str().unwrap().to_string()).collect(),
            _ => ["x", "y", "z", "w", "v"].iter().map(|s| s.to_string()).collect(),
        };
        let op = aug.for_fields(&fields).unwrap();
        check(&format!("{spec} on {fields:?}"), op.process_instance(obj(&case["in"]), "train"), case);
    }
}

#[test]
fn image_tags_split_like_unitxt() {
    for pair in cases()["contents"].as_array().unwrap() {
        let text = pair[0].as_str().unwrap();
        let got = super::chat_api::to_content(text, None).unwrap();
        assert_eq!(serde_json::to_string(&got).unwrap(), serde_json::to_string(&pair[1]).unwrap(), "{text:?}");
    }
    // An image of the instance's media: not in it, or (no encoder installed in this test
    // process) not encodable.
    assert!(super::chat_api::to_content("<unitxt-img src='media/images/0'>", None).is_err());
    let media = crate::json!({"images": [{"image": "data:image/png;base64,AA==", "format": "PNG"}]});
    let e = super::chat_api::to_content("<unitxt-img src='media/images/0'>", Some(&media)).unwrap_err();
    assert_eq!(e.kind, crate::error::ErrorKind::Unsupported, "{e}");
}

#[test]
fn default_format_equals_catalog_empty_format() {
    // Unitxt's SystemFormat() and formats.empty give the same output (checked in Unitxt).
    let cat = catalog();
    let Ok(Artifact::Format(empty)) = crate::registry::fetch(&cat, "formats.empty") else { panic!("formats.empty") };
    let def = super::system::SystemFormat::default_artifact();
    for inst in cases()["instances"].as_array().unwrap().iter().take(8) {
        let a = crate::formats::format_instance(empty.inner.as_ref(), obj(inst), "test").unwrap();
        let b = crate::formats::format_instance(def.inner.as_ref(), obj(inst), "test").unwrap();
        assert_eq!(Value::Object(a), Value::Object(b));
    }
    assert_eq!(*def.raw, crate::json!({"__type__": "system_format"}));
}
