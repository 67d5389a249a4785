//! Field operators that turn an instance's field into an LLM-judge criteria (Unitxt's
//! `llm_as_judge_operators.py`): from a dict, from JSON text, from a question string, or loaded
//! from the catalog.
//!
//! Unitxt puts a `Criteria` / `CriteriaWithOptions` object in the field. Here the field holds
//! what stands for that object everywhere the object shows: the dict of its `to_dict()` (only
//! the fields it was given, `__type__` first), or, for a criteria loaded by catalog name, the
//! name (the object's `__id__`, which is what its `repr` prints and what Unitxt's
//! `FinalizeDataset` writes for a `criteria` task field). Templates print such a dict as the
//! object's dataclass `repr` ([`crate::py::repr`]), and a judge's `criteria_field` builds the
//! criteria from it ([`crate::metrics::llm_judge`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::Deserialize;

use super::{FieldOperator, Operator};
use crate::artifact::{from_value, short, BuildContext};
use crate::error::{Error, Result};
use crate::criteria::Criteria;
use crate::py::ops::{py_iter, type_name};
use crate::value::{Instance, Map, Value};

/// The dict of a criteria object made by Unitxt's `Criteria.from_obj` (`with_options` false) or
/// `CriteriaWithOptions.from_obj` (true) from the dict `value`: `__type__`, `name`,
/// `description`, `prediction_field` and `context_fields` (`null` when absent), then for a
/// criteria with options `options` (each `{"__type__": "criteria_option", "name",
/// "description"}`, other keys dropped) and `option_map` (`null` when absent). Other keys of
/// `value` are dropped. Errors, where Unitxt raises `KeyError` / `TypeError`: `value` or an
/// option is not a dict, a required key is missing, `options` is not iterable.
fn criteria_from_obj(value: &Value, with_options: bool, what: &str) -> Result<Value> {
    let dict = |v: &Value, which: &str| -> Result<Map> {
        v.as_object()
            .cloned()
            .ok_or_else(|| Error::invalid(format!("{what}: {which} must be a dict, got {}", short(v))))
    };
    let take = |m: &mut Map, key: &str, which: &str| -> Result<Value> {
        m.shift_remove(key).ok_or_else(|| Error::invalid(format!("{what}: {which} has no `{key}`")))
    };
    let mut c = dict(value, "the criteria")?;
    let mut out = Map::new();
    let t = if with_options { "criteria_with_options" } else { "criteria" };
    out.insert("__type__".into(), Value::from(t));
    out.insert("name".into(), take(&mut c, "name", "the criteria")?);
    out.insert("description".into(), take(&mut c, "description", "the criteria")?);
    out.insert("prediction_field".into(), c.shift_remove("prediction_field").unwrap_or_default());
    out.insert("context_fields".into(), c.shift_remove("context_fields").unwrap_or_default());
    if !with_options {
        return Ok(Value::Object(out));
    }
    let options = take(&mut c, "options", "the criteria")?;
    let options = py_iter(&options)
        .map_err(|e| Error::invalid(format!("{what}: `options`: {e}")))?
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let mut o = dict(o, &format!("option {i}"))?;
            let mut opt = Map::new();
            opt.insert("__type__".into(), Value::from("criteria_option"));
            opt.insert("name".into(), take(&mut o, "name", &format!("option {i}"))?);
            opt.insert("description".into(), take(&mut o, "description", &format!("option {i}"))?);
            Ok(Value::Object(opt))
        })
        .collect::<Result<Vec<_>>>()?;
    out.insert("options".into(), Value::Array(options));
    out.insert("option_map".into(), c.shift_remove("option_map").unwrap_or_default());
    Ok(Value::Object(out))
}

/// `value` read as JSON text as Python's `json.loads` reads it. Errors: `value` is not a string
/// (Python's `TypeError`), or not valid JSON.
fn json_text(value: &Value, what: &str) -> Result<Value> {
    let text = value.as_str().ok_or_else(|| {
        Error::invalid(format!("{what}: the JSON object must be str, bytes or bytearray, not {}", type_name(value)))
    })?;
    crate::py::json::loads(text, true).map_err(|e| Error::invalid(format!("{what}: the value is not valid JSON: {e}")))
}

/// The dict of a `CriteriaWithOptions` made in code with an empty name, `description` and the
/// options named in `options` (empty descriptions), scored by `option_map` in the same order.
fn question_with_options(description: Value, options: &[(&str, f64)]) -> Value {
    let mut out = Map::new();
    out.insert("__type__".into(), Value::from("criteria_with_options"));
    out.insert("name".into(), Value::from(""));
    out.insert("description".into(), description);
    let opts = options
        .iter()
        .map(|(name, _)| {
            let mut o = Map::new();
            o.insert("__type__".into(), Value::from("criteria_option"));
            o.insert("name".into(), Value::from(*name));
            o.insert("description".into(), Value::from(""));
            Value::Object(o)
        })
        .collect();
    out.insert("options".into(), Value::Array(opts));
    let map: Map = options.iter().map(|(name, score)| ((*name).to_string(), Value::from(*score))).collect();
    out.insert("option_map".into(), Value::Object(map));
    Value::Object(out)
}

/// `create_criteria_with_options_from_dict` (Unitxt's `CreateCriteriaWithOptionsFromDict`, through
/// `CriteriaWithOptions.from_obj`): the field's dict becomes an LLM-judge criteria object. In a
/// value it is the dict Unitxt's `to_dict` writes for that object: `__type__`
/// (`criteria_with_options`), `name`, `description`, `prediction_field` and `context_fields`
/// (`None` when absent), `options` (each `{"__type__": "criteria_option", "name", "description"}`,
/// other keys dropped) and `option_map` (`None` when absent), in that order. Templates print it
/// with the object's dataclass `repr` ([`crate::py::repr`]). Errors, as Unitxt's `KeyError`,
/// when `name`, `description`, `options` or an option's `name`/`description` is missing, or the
/// value is not a dict.
#[derive(Debug, Deserialize)]
pub struct CreateCriteriaWithOptionsFromDict {}

impl FieldOperator for CreateCriteriaWithOptionsFromDict {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        criteria_from_obj(&value, true, "create_criteria_with_options_from_dict")
    }
}

/// `create_criteria_with_options_from_json` (Unitxt's `CreateCriteriaWithOptionsFromJson`,
/// through `CriteriaWithOptions.from_jsons`): the field's JSON text is read (as Python's
/// `json.loads`) and becomes a criteria with options as in
/// [`CreateCriteriaWithOptionsFromDict`]. Errors: the value is not a string or not valid JSON,
/// and those of [`CreateCriteriaWithOptionsFromDict`].
#[derive(Debug, Deserialize)]
pub struct CreateCriteriaWithOptionsFromJson {}

impl FieldOperator for CreateCriteriaWithOptionsFromJson {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        const WHAT: &str = "create_criteria_with_options_from_json";
        criteria_from_obj(&json_text(&value, WHAT)?, true, WHAT)
    }
}

/// `create_yes_no_criteria_from_string` (Unitxt's `CreateYesNoCriteriaFromString`): the field's
/// value (a question, taken as it is, whatever its type) becomes the description of a criteria
/// with an empty name and the options `Yes` (1.0) and `No` (0.0), each with an empty
/// description: `{"__type__": "criteria_with_options", "name": "", "description": value,
/// "options": [...], "option_map": {"Yes": 1.0, "No": 0.0}}` (no `prediction_field` or
/// `context_fields`, as Unitxt's `to_dict` of that object). Never errors.
#[derive(Debug, Deserialize)]
pub struct CreateYesNoCriteriaFromString {}

impl FieldOperator for CreateYesNoCriteriaFromString {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        Ok(question_with_options(value, &[("Yes", 1.0), ("No", 0.0)]))
    }
}

/// `create_yes_no_partially_criteria_from_string` (Unitxt's
/// `CreateYesNoPartiallyCriteriaFromString`): as [`CreateYesNoCriteriaFromString`] with the
/// options `Yes` (1.0), `Partially` (0.5) and `No` (0.0). Never errors.
#[derive(Debug, Deserialize)]
pub struct CreateYesNoPartiallyCriteriaFromString {}

impl FieldOperator for CreateYesNoPartiallyCriteriaFromString {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        Ok(question_with_options(value, &[("Yes", 1.0), ("Partially", 0.5), ("No", 0.0)]))
    }
}

/// `create_criteria_from_dict` (Unitxt's `CreateCriteriaFromDict`, through `Criteria.from_obj`):
/// the field's dict becomes a criteria without options (for pairwise judges): `{"__type__":
/// "criteria", "name", "description", "prediction_field", "context_fields"}` (the last two
/// `null` when absent; other keys, `options` included, dropped). Errors: the value is not a
/// dict, or it has no `name` or `description`.
#[derive(Debug, Deserialize)]
pub struct CreateCriteriaFromDict {}

impl FieldOperator for CreateCriteriaFromDict {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        criteria_from_obj(&value, false, "create_criteria_from_dict")
    }
}

/// `create_criteria_from_json` (Unitxt's `CreateCriteriaFromJson`, through
/// `Criteria.from_jsons`): the field's JSON text is read and becomes a criteria as in
/// [`CreateCriteriaFromDict`]. Errors: the value is not a string or not valid JSON, and those
/// of [`CreateCriteriaFromDict`].
#[derive(Debug, Deserialize)]
pub struct CreateCriteriaFromJson {}

impl FieldOperator for CreateCriteriaFromJson {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        const WHAT: &str = "create_criteria_from_json";
        criteria_from_obj(&json_text(&value, WHAT)?, false, WHAT)
    }
}

/// `create_criteria_from_string` (Unitxt's `CreateCriteriaFromString`): the field's value
/// (taken as it is) becomes the description of a criteria with an empty name: `{"__type__":
/// "criteria", "name": "", "description": value}`. Never errors.
#[derive(Debug, Deserialize)]
pub struct CreateCriteriaFromString {}

impl FieldOperator for CreateCriteriaFromString {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let mut out = Map::new();
        out.insert("__type__".into(), Value::from("criteria"));
        out.insert("name".into(), Value::from(""));
        out.insert("description".into(), value);
        Ok(Value::Object(out))
    }
}

/// The catalog JSON of `load_criteria_with_options` and `load_criteria` (Unitxt's
/// `LoadCriteriaWithOptions` and `LoadCriteria`): no fields besides a field operator's.
#[derive(Debug, Deserialize)]
pub struct LoadCriteria {}

impl LoadCriteria {
    /// The operator of type `t` described by `v` (its field settings and stream scope), which
    /// loads the criteria its instances name from the catalog of `cx`. Errors: bad field
    /// settings.
    pub fn build(t: &str, v: &Value, cx: &BuildContext<'_>) -> Result<Arc<dyn Operator>> {
        let name = t.to_string();
        super::field_operator(t, v, || {
            from_value::<LoadCriteria>(t, v)?;
            Ok(CriteriaLoader { name, catalog: cx.catalog().clone(), build_fn: cx.build_fn(), loaded: Mutex::default() })
        })
    }
}

/// `load_criteria_with_options` / `load_criteria` at work (Unitxt's `fetch_artifact` of the
/// field's value): the value (a catalog name with optional `[overwrites]`, a path to a `.json`
/// file, JSON text or a dict with `__type__`) is built as a criteria in the catalog of the
/// build that made the operator; the field then holds what Unitxt writes for the loaded object
/// (`FinalizeDataset.artifact_to_jsonable`): the catalog name without its overwrites when it was
/// named (the object's `__id__`, as Unitxt sets it), else its JSON. As in Unitxt, either kind
/// of criteria is accepted by both types. Errors: the value does not build, or builds into
/// something other than a criteria (where Unitxt would hand the other object on).
pub struct CriteriaLoader {
    name: String,
    catalog: Arc<crate::catalog::Catalog>,
    build_fn: crate::artifact::BuildFn,
    /// The values met so far (as JSON text), with what they became.
    loaded: Mutex<HashMap<String, Value>>,
}

impl FieldOperator for CriteriaLoader {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let key = value.to_string();
        if let Some(v) = self.loaded.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return Ok(v);
        }
        let cx = BuildContext::new(&self.catalog, self.build_fn);
        let built = cx
            .build::<Criteria>(&value)
            .map_err(|e| e.context(format!("{}: loading the criteria {}", self.name, short(&value))))?;
        let out = built.to_jsonable();
        if let Ok(mut m) = self.loaded.lock() {
            m.insert(key, out.clone());
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn run<F: FieldOperator>(op: F, v: Value) -> Result<Value> {
        op.process_value(v, &Instance::new())
    }

    /// Keys in order: the values below are Unitxt 1.26.10's `to_dict()` of each operator's
    /// `process_value`, whose key order matters (it shows in `task_data`).
    fn same(a: &Value, b: &Value) {
        assert_eq!(a.to_string(), b.to_string());
    }

    #[test]
    fn questions_become_criteria() {
        same(
            &run(CreateYesNoCriteriaFromString {}, json!("Is it ok?")).unwrap(),
            &json!({"__type__": "criteria_with_options", "name": "", "description": "Is it ok?", "options": [
                {"__type__": "criteria_option", "name": "Yes", "description": ""},
                {"__type__": "criteria_option", "name": "No", "description": ""}], "option_map": {"Yes": 1.0, "No": 0.0}}),
        );
        same(
            &run(CreateYesNoPartiallyCriteriaFromString {}, json!("Is it ok?")).unwrap(),
            &json!({"__type__": "criteria_with_options", "name": "", "description": "Is it ok?", "options": [
                {"__type__": "criteria_option", "name": "Yes", "description": ""},
                {"__type__": "criteria_option", "name": "Partially", "description": ""},
                {"__type__": "criteria_option", "name": "No", "description": ""}], "option_map": {"Yes": 1.0, "Partially": 0.5, "No": 0.0}}),
        );
        // Unitxt takes any value as the description: `CreateCriteriaFromString().process_value(5)`.
        same(&run(CreateCriteriaFromString {}, json!(5)).unwrap(), &json!({"__type__": "criteria", "name": "", "description": 5}));
        same(
            &run(CreateYesNoCriteriaFromString {}, Value::Null).unwrap()["description"],
            &Value::Null,
        );
    }

    #[test]
    fn dicts_and_json_become_criteria() {
        let d = json!({"option_map": {"A": 1}, "description": "d", "name": "n", "extra": 1,
                       "options": [{"name": "A", "description": "a", "x": 0}], "context_fields": ["q"]});
        let plain = json!({"__type__": "criteria", "name": "n", "description": "d", "prediction_field": null, "context_fields": ["q"]});
        let with = json!({"__type__": "criteria_with_options", "name": "n", "description": "d", "prediction_field": null, "context_fields": ["q"],
                          "options": [{"__type__": "criteria_option", "name": "A", "description": "a"}], "option_map": {"A": 1}});
        same(&run(CreateCriteriaFromDict {}, d.clone()).unwrap(), &plain);
        same(&run(CreateCriteriaFromJson {}, Value::from(d.to_string())).unwrap(), &plain);
        same(&run(CreateCriteriaWithOptionsFromDict {}, d.clone()).unwrap(), &with);
        same(&run(CreateCriteriaWithOptionsFromJson {}, Value::from(d.to_string())).unwrap(), &with);
        // Python's json.loads reads NaN.
        let nan = run(CreateCriteriaFromJson {}, json!(r#"{"name": NaN, "description": ""}"#)).unwrap();
        assert!(nan["name"].as_f64().unwrap().is_nan());
    }

    #[test]
    fn bad_criteria_are_errors() {
        // Unitxt: TypeError (json.loads of a dict), KeyError 'description', KeyError 'options',
        // JSONDecodeError, TypeError (an int option is not subscriptable).
        for (op, v) in [
            (&CreateCriteriaFromJson {} as &dyn FieldOperator, json!({"name": "x"})),
            (&CreateCriteriaFromDict {}, json!({"name": "x"})),
            (&CreateCriteriaWithOptionsFromDict {}, json!({"name": "x", "description": "d"})),
            (&CreateCriteriaWithOptionsFromJson {}, json!("{not json")),
            (&CreateCriteriaWithOptionsFromDict {}, json!({"name": "x", "description": "d", "options": [1]})),
        ] {
            let e = op.process_value(v.clone(), &Instance::new()).unwrap_err();
            assert_eq!(e.kind, crate::error::ErrorKind::Invalid, "{v}");
        }
    }

    /// A catalog directory of its own holding `judges.yes_no` (a criteria with options) and
    /// `judges.plain` (a criteria).
    fn catalog() -> (std::path::PathBuf, Arc<crate::catalog::Catalog>) {
        let dir = std::env::temp_dir().join(format!("unitxt-rs-load-criteria-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("judges")).unwrap();
        let yes_no = json!({"__type__": "criteria_with_options", "name": "yn", "description": "Ok?", "options": [
            {"__type__": "criteria_option", "name": "Yes", "description": ""}], "option_map": {"Yes": 1.0}});
        std::fs::write(dir.join("judges/yes_no.json"), yes_no.to_string()).unwrap();
        std::fs::write(dir.join("judges/plain.json"), r#"{"__type__": "criteria", "name": "p", "description": "d"}"#).unwrap();
        std::fs::write(dir.join("judges/template.json"), r#"{"__type__": "input_output_template", "input_format": "{x}", "output_format": "{y}"}"#).unwrap();
        let cat = Arc::new(crate::catalog::Catalog::new(vec![dir.clone()]));
        (dir, cat)
    }

    fn load(t: &str, cat: &Arc<crate::catalog::Catalog>, field: Value) -> Result<Value> {
        let v = json!({"__type__": t, "field": "c", "to_field": "out"});
        let op = match crate::registry::build(&v, cat)? {
            crate::registry::Artifact::Operator(o) => o,
            _ => panic!("not an operator"),
        };
        let mut inst = Instance::new();
        inst.insert("c".into(), field);
        let mut out = crate::operators::apply_to_instance(&op, inst, "test")?;
        Ok(out.shift_remove("out").unwrap())
    }

    #[test]
    fn criteria_are_loaded_as_unitxt_writes_them() {
        let (dir, cat) = catalog();
        for t in ["load_criteria_with_options", "load_criteria"] {
            // A name stays the name (Unitxt's `__id__`), overwrites dropped as Unitxt drops them.
            same(&load(t, &cat, json!("judges.yes_no")).unwrap(), &json!("judges.yes_no"));
            same(&load(t, &cat, json!("judges.plain[name=q]")).unwrap(), &json!("judges.plain"));
            // JSON text and dicts stay the JSON given.
            let d = json!({"__type__": "criteria", "name": "x", "description": "y", "context_fields": {"a": "b"}});
            same(&load(t, &cat, Value::from(d.to_string())).unwrap(), &d);
            same(&load(t, &cat, d.clone()).unwrap(), &d);
            // Not found, not a criteria, not an artifact, a criteria without its description.
            assert_eq!(load(t, &cat, json!("judges.missing")).unwrap_err().kind, crate::error::ErrorKind::NotFound);
            for bad in [json!("judges.template"), json!(3), json!({"__type__": "criteria", "name": "x"})] {
                assert_eq!(load(t, &cat, bad.clone()).unwrap_err().kind, crate::error::ErrorKind::Invalid, "{bad}");
            }
        }
        std::fs::remove_dir_all(dir).ok();
    }
}
