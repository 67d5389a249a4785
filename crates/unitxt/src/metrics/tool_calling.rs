//! Tool-calling metrics: `tool_calling_metric` and `multi_turn_tool_calling_metric` (Unitxt's
//! `ToolCallingMetric` and `MultiTurnToolCallingMetric`, reduction instance metrics), with the
//! JSON Schema check of the arguments that Unitxt does with jsonschema-rs.

use serde::Deserialize;

use super::{py_str, CiSettings, InstanceScorer, MetricKind, Scores};
use crate::error::{Error, Result};
use crate::py::json::{dumps, DumpOptions};
use crate::value::{Instance, Map, Value};

fn sorted_dump(v: &Value) -> String {
    dumps(v, DumpOptions { sort_keys: true, ..Default::default() })
}

/// A tool call (`{"name": str, "arguments": dict}`, Unitxt's `ToolCall`); `what` names it in errors.
fn tool_call<'a>(v: &'a Value, what: &str) -> Result<(&'a Value, &'a Map)> {
    let o = v.as_object();
    match (o.and_then(|o| o.get("name")), o.and_then(|o| o.get("arguments"))) {
        (Some(n @ Value::String(_)), Some(Value::Object(args))) => Ok((n, args)),
        _ => Err(Error::invalid(format!(
            "each {what} must be a tool call ({{\"name\": str, \"arguments\": dict}}), got {}",
            crate::artifact::short(v)
        ))),
    }
}

/// The `parameters` schema of the last tool in `task_data["__tools__"]` named `name`.
fn parameters<'a>(task_data: &'a Instance, name: &Value) -> Result<Option<&'a Value>> {
    let tools = task_data
        .get("__tools__")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::invalid("tool-calling metrics need the list of tools `__tools__` in the task data"))?;
    let mut found = None;
    for t in tools {
        let f = t.get("function").ok_or_else(|| Error::invalid("a tool has no `function`"))?;
        let n = f.get("name").ok_or_else(|| Error::invalid("a tool function has no `name`"))?;
        if crate::py::ops::py_eq(n, name) {
            found = Some(f.get("parameters").ok_or_else(|| Error::invalid("a tool function has no `parameters`"))?);
        }
    }
    Ok(found)
}

/// 1.0 when `args` validate against `schema` (an invalid schema does not validate), else 0.0.
fn schema_score(schema: Option<&Value>, args: &Map) -> Result<f64> {
    match schema {
        None => Ok(0.0),
        Some(s) => Ok(if schema::valid(s, s, &Value::Object(args.clone()))? { 1.0 } else { 0.0 }),
    }
}

/// `tool_calling_metric` (Unitxt's `ToolCallingMetric`): per instance, a predicted tool call
/// against the reference tool calls: `exact_match` (the main score; equal as JSON with sorted
/// keys), `tool_name_accuracy`, `argument_name_recall`, `argument_name_precision`,
/// `argument_value_precision` (each the best over the references) and
/// `argument_schema_validation` (the arguments validate against the `parameters` JSON Schema of
/// the tool of that name in `task_data["__tools__"]`; 0 without such a tool). Global scores are
/// the means, each with an interval.
///
/// Errors: a prediction or reference that is not a tool call, no `__tools__`, a schema using
/// a keyword this validator does not implement (see [`schema`]).
#[derive(Deserialize)]
pub struct ToolCallingMetric {
    #[serde(flatten)]
    ci: CiSettings,
}

const TOOL_SCORES: [&str; 6] = [
    "exact_match",
    "tool_name_accuracy",
    "argument_name_recall",
    "argument_name_precision",
    "argument_value_precision",
    "argument_schema_validation",
];

impl InstanceScorer for ToolCallingMetric {
    fn main(&self) -> &str {
        "exact_match"
    }
    fn settings(&self) -> Option<&CiSettings> {
        Some(&self.ci)
    }
    fn scorer_kind(&self) -> MetricKind {
        MetricKind::MapReduce
    }
    fn ci(&self) -> Vec<String> {
        self.ci.names(TOOL_SCORES.iter().map(|s| s.to_string()).collect())
    }
    fn score(&self, prediction: &Value, references: &[Value], task_data: &Instance) -> Result<Scores> {
        let (pname, pargs) = tool_call(prediction, "prediction")?;
        let refs = references.iter().map(|r| tool_call(r, "reference")).collect::<Result<Vec<_>>>()?;
        let pdump = sorted_dump(prediction);
        let exact = references.iter().any(|r| sorted_dump(r) == pdump);
        let pn = py_str(pname);
        let name_acc = refs.iter().any(|(n, _)| py_str(n) == pn);
        let common = |a: &Map, b: &Map| a.keys().filter(|k| b.contains_key(k.as_str())).count() as f64;
        let mut recall: f64 = 0.0;
        let mut precision: f64 = 0.0;
        let mut value_precision: f64 = 0.0;
        for (_, rargs) in &refs {
            let r = if !rargs.is_empty() { common(pargs, rargs) / rargs.len() as f64 } else { 1.0 };
            if r > recall {
                recall = r;
            }
            let p = if !pargs.is_empty() {
                common(pargs, rargs) / pargs.len() as f64
            } else if rargs.is_empty() {
                1.0
            } else {
                0.0
            };
            if p > precision {
                precision = p;
            }
            let matches = pargs
                .iter()
                .filter(|(k, v)| rargs.get(k.as_str()).is_some_and(|rv| sorted_dump(v) == sorted_dump(rv)))
                .count() as f64;
            let vp = if !pargs.is_empty() {
                matches / pargs.len() as f64
            } else if rargs.is_empty() {
                1.0
            } else {
                0.0
            };
            if vp > value_precision {
                value_precision = vp;
            }
        }
        let valid = schema_score(parameters(task_data, pname)?, pargs)?;
        let vals = [
            if exact { 1.0 } else { 0.0 },
            if name_acc { 1.0 } else { 0.0 },
            recall,
            precision,
            value_precision,
            valid,
        ];
        Ok(TOOL_SCORES.iter().zip(vals).map(|(k, v)| (k.to_string(), v)).collect())
    }
}

/// `multi_turn_tool_calling_metric` (Unitxt's `MultiTurnToolCallingMetric`): the prediction is
/// a list of tool calls; `argument_schema_validation` is the share of them whose arguments
/// validate against their tool's `parameters` schema (see [`ToolCallingMetric`]). Errors: an
/// empty list (Unitxt divides by zero), a call that is not a tool call, a reference that is not
/// a list of tool calls, no `__tools__`.
#[derive(Deserialize)]
pub struct MultiTurnToolCallingMetric {
    #[serde(flatten)]
    ci: CiSettings,
}

impl InstanceScorer for MultiTurnToolCallingMetric {
    fn main(&self) -> &str {
        "argument_schema_validation"
    }
    fn settings(&self) -> Option<&CiSettings> {
        Some(&self.ci)
    }
    fn scorer_kind(&self) -> MetricKind {
        MetricKind::MapReduce
    }
    fn ci(&self) -> Vec<String> {
        self.ci.names(vec!["argument_schema_validation".into()])
    }
    fn score(&self, prediction: &Value, references: &[Value], task_data: &Instance) -> Result<Scores> {
        // Unitxt checks that each reference is a list of tool calls.
        for r in references {
            let calls = r.as_array().ok_or_else(|| {
                Error::invalid(format!(
                    "each reference of `multi_turn_tool_calling_metric` must be a list of tool calls, got {}",
                    crate::artifact::short(r)
                ))
            })?;
            for c in calls {
                tool_call(c, "referenced call")?;
            }
        }
        let calls = prediction.as_array().ok_or_else(|| {
            Error::invalid(format!(
                "`multi_turn_tool_calling_metric` expects a list of tool calls, got {}",
                crate::artifact::short(prediction)
            ))
        })?;
        if calls.is_empty() {
            return Err(Error::invalid("`multi_turn_tool_calling_metric`: the prediction has no tool call (division by zero)"));
        }
        let mut sum = 0.0;
        for c in calls {
            let (name, args) = tool_call(c, "predicted call")?;
            sum += schema_score(parameters(task_data, name)?, args)?;
        }
        let mut s = Scores::new();
        s.insert("argument_schema_validation".into(), sum / calls.len() as f64);
        Ok(s)
    }
}

/// A JSON Schema (draft 2020-12) validator for the keywords tool schemas use: `type`, `enum`,
/// `const`, `properties`, `required`, `additionalProperties`, `patternProperties`,
/// `minProperties`/`maxProperties`, `items`, `prefixItems`, `minItems`/`maxItems`,
/// `uniqueItems`, `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`, `multipleOf`,
/// `minLength`/`maxLength`, `pattern`, `allOf`/`anyOf`/`oneOf`/`not`, and local `$ref`s
/// (`#/...`). `format` is an annotation (not checked, as in jsonschema-rs's default); other
/// annotations and unknown keywords are ignored. A malformed schema does not validate (as
/// jsonschema-rs raises its validation error). Standard validation keywords outside this list
/// (`contains`, `if`, `dependentRequired`, ...) are an error rather than a guess.
pub mod schema {
    use super::*;

    const UNSUPPORTED: &[&str] = &[
        "contains",
        "minContains",
        "maxContains",
        "dependentRequired",
        "dependentSchemas",
        "dependencies",
        "if",
        "then",
        "else",
        "propertyNames",
        "unevaluatedItems",
        "unevaluatedProperties",
        "additionalItems",
        "$dynamicRef",
        "$recursiveRef",
    ];

    fn num(v: &Value) -> Option<f64> {
        match v {
            Value::Number(n) => n.as_f64(),
            _ => None,
        }
    }

    /// JSON equality with numbers compared by value (`1 == 1.0`).
    fn json_eq(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
            (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q)),
            (Value::Object(x), Value::Object(y)) => {
                x.len() == y.len() && x.iter().all(|(k, v)| y.get(k.as_str()).is_some_and(|w| json_eq(v, w)))
            }
            _ => a == b,
        }
    }

    fn has_type(t: &str, v: &Value) -> Option<bool> {
        Some(match t {
            "null" => v.is_null(),
            "boolean" => v.is_boolean(),
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "number" => matches!(v, Value::Number(_)),
            "integer" => match v {
                Value::Number(n) => n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0),
                _ => false,
            },
            _ => return None,
        })
    }

    fn resolve<'a>(root: &'a Value, r: &str) -> Option<&'a Value> {
        let path = r.strip_prefix('#')?;
        let mut cur = root;
        for part in path.split('/').skip(1) {
            let part = part.replace("~1", "/").replace("~0", "~");
            cur = match cur {
                Value::Object(o) => o.get(part.as_str())?,
                Value::Array(a) => a.get(part.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(cur)
    }

    fn regex(p: &str) -> Option<fancy_regex::Regex> {
        fancy_regex::Regex::new(p).ok()
    }

    /// Whether `v` validates against `s` (a subschema of `root`). Errors: an unsupported
    /// keyword.
    pub fn valid(root: &Value, s: &Value, v: &Value) -> Result<bool> {
        let o = match s {
            Value::Bool(b) => return Ok(*b),
            Value::Object(o) => o,
            _ => return Ok(false),
        };
        if let Some(k) = UNSUPPORTED.iter().find(|k| o.contains_key(**k)) {
            return Err(Error::unsupported(format!(
                "the JSON Schema keyword `{k}` of a tool's parameters is not supported by unitxt-rs's validator"
            )));
        }
        if let Some(r) = o.get("$ref") {
            let Some(target) = r.as_str().and_then(|r| resolve(root, r)) else { return Ok(false) };
            if !valid(root, target, v)? {
                return Ok(false);
            }
        }
        if let Some(t) = o.get("type") {
            let ok = match t {
                Value::String(t) => has_type(t, v),
                Value::Array(ts) => {
                    let mut any = Some(false);
                    for t in ts {
                        match t.as_str().and_then(|t| has_type(t, v)) {
                            Some(true) => any = any.map(|_| true),
                            Some(false) => {}
                            None => any = None,
                        }
                    }
                    any
                }
                _ => None,
            };
            if ok != Some(true) {
                return Ok(false);
            }
        }
        if let Some(e) = o.get("enum") {
            match e {
                Value::Array(items) if items.iter().any(|x| json_eq(x, v)) => {}
                _ => return Ok(false),
            }
        }
        if let Some(c) = o.get("const") {
            if !json_eq(c, v) {
                return Ok(false);
            }
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            if let Some(list) = o.get(key) {
                let Some(list) = list.as_array().filter(|l| !l.is_empty()) else { return Ok(false) };
                let mut n = 0;
                for sub in list {
                    if valid(root, sub, v)? {
                        n += 1;
                    }
                }
                let ok = match key {
                    "allOf" => n == list.len(),
                    "anyOf" => n > 0,
                    _ => n == 1,
                };
                if !ok {
                    return Ok(false);
                }
            }
        }
        if let Some(n) = o.get("not") {
            if valid(root, n, v)? {
                return Ok(false);
            }
        }
        match v {
            Value::Object(obj) => {
                if let Some(req) = o.get("required") {
                    let Some(req) = req.as_array() else { return Ok(false) };
                    for k in req {
                        match k.as_str() {
                            Some(k) if obj.contains_key(k) => {}
                            _ => return Ok(false),
                        }
                    }
                }
                let props = o.get("properties").and_then(Value::as_object);
                let pattern_props = o.get("patternProperties").and_then(Value::as_object);
                for (k, x) in obj {
                    let mut matched = false;
                    if let Some(ps) = props.and_then(|p| p.get(k.as_str())) {
                        matched = true;
                        if !valid(root, ps, x)? {
                            return Ok(false);
                        }
                    }
                    for (pat, ps) in pattern_props.into_iter().flatten() {
                        let Some(re) = regex(pat) else { return Ok(false) };
                        if re.is_match(k).unwrap_or(false) {
                            matched = true;
                            if !valid(root, ps, x)? {
                                return Ok(false);
                            }
                        }
                    }
                    if !matched {
                        if let Some(ap) = o.get("additionalProperties") {
                            if !valid(root, ap, x)? {
                                return Ok(false);
                            }
                        }
                    }
                }
                if let Some(m) = o.get("minProperties").and_then(num) {
                    if (obj.len() as f64) < m {
                        return Ok(false);
                    }
                }
                if let Some(m) = o.get("maxProperties").and_then(num) {
                    if (obj.len() as f64) > m {
                        return Ok(false);
                    }
                }
            }
            Value::Array(items) => {
                let prefix = o.get("prefixItems").and_then(Value::as_array);
                let skip = prefix.map(|p| p.len()).unwrap_or(0);
                if let Some(p) = prefix {
                    for (sub, x) in p.iter().zip(items) {
                        if !valid(root, sub, x)? {
                            return Ok(false);
                        }
                    }
                }
                if let Some(it) = o.get("items") {
                    if it.is_array() {
                        return Ok(false);
                    }
                    for x in items.iter().skip(skip) {
                        if !valid(root, it, x)? {
                            return Ok(false);
                        }
                    }
                }
                if let Some(m) = o.get("minItems").and_then(num) {
                    if (items.len() as f64) < m {
                        return Ok(false);
                    }
                }
                if let Some(m) = o.get("maxItems").and_then(num) {
                    if (items.len() as f64) > m {
                        return Ok(false);
                    }
                }
                if o.get("uniqueItems").and_then(Value::as_bool) == Some(true) {
                    for (i, a) in items.iter().enumerate() {
                        if items[i + 1..].iter().any(|b| json_eq(a, b)) {
                            return Ok(false);
                        }
                    }
                }
            }
            Value::Number(n) => {
                let x = n.as_f64().unwrap_or(f64::NAN);
                let bound = |k: &str| o.get(k).and_then(num);
                if bound("minimum").is_some_and(|m| x < m)
                    || bound("maximum").is_some_and(|m| x > m)
                    || bound("exclusiveMinimum").is_some_and(|m| x <= m)
                    || bound("exclusiveMaximum").is_some_and(|m| x >= m)
                {
                    return Ok(false);
                }
                if let Some(m) = bound("multipleOf") {
                    let q = x / m;
                    if m <= 0.0 || q.fract() != 0.0 {
                        return Ok(false);
                    }
                }
            }
            Value::String(st) => {
                let len = st.chars().count() as f64;
                if o.get("minLength").and_then(num).is_some_and(|m| len < m)
                    || o.get("maxLength").and_then(num).is_some_and(|m| len > m)
                {
                    return Ok(false);
                }
                if let Some(p) = o.get("pattern") {
                    let Some(re) = p.as_str().and_then(regex) else { return Ok(false) };
                    if !re.is_match(st).unwrap_or(false) {
                        return Ok(false);
                    }
                }
            }
            _ => {}
        }
        Ok(true)
    }
}
