//! The expression sandbox: any text parsed as a Python expression and, when it parses,
//! evaluated over a small instance within small budgets (so that each run is quick; the
//! budgets are what bound it, whatever the expression). Every input must end as a value or a
//! located error: never a panic, an abort or a hang.
#![no_main]
use libfuzzer_sys::fuzz_target;
use unitxt::expr::{eval::Limits, Expression};
use unitxt::value::{Instance, Value};

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let Ok(expr) = Expression::parse(src) else { return };
    let vars: Instance = match serde_json::from_str::<Value>(
        r#"{"x": 3, "f": 2.5, "s": "Hello, World", "l": [1, 2, [3, "a"]], "d": {"k": "v", "n": null}, "b": true}"#,
    ) {
        Ok(Value::Object(m)) => m,
        _ => return,
    };
    let limits = Limits { steps: 20_000, bytes: 1 << 20, depth: 32 };
    let _ = expr.eval_with_limits(&vars, limits);
});
