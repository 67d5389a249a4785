//! Python's format mini-language: the input, split at its first NUL byte, is a `str.format`
//! template (rendered over a small instance) and a format spec (applied to a string, an int, a
//! float and a bool, as `format(value, spec)`). Every input must end as text or an error:
//! never a panic, an abort (a huge width or precision) or a stack overflow (nested fields).
#![no_main]
use libfuzzer_sys::fuzz_target;
use unitxt::py::format_spec::{format_spec, Formattable};
use unitxt::py::str_format::py_format;
use unitxt::value::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (template, spec) = text.split_once('\0').unwrap_or((text, text));
    let fields: Vec<(&str, Value)> = vec![
        ("a", Value::from(7)),
        ("b", Value::from("text")),
        ("c", Value::from(2.5)),
        ("d", serde_json::from_str::<Value>(r#"{"k": [1, 2]}"#).unwrap_or(Value::Null)),
    ];
    let args: Vec<(&str, &Value)> = fields.iter().map(|(k, v)| (*k, v)).collect();
    let _ = py_format(template, &args[..]);
    for value in [Formattable::Str("abc"), Formattable::Int(-42), Formattable::Float(3.25), Formattable::Bool(true)] {
        let _ = format_spec(value, spec);
    }
});
