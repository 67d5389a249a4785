//! Values that every instance of a recipe carries unchanged (a task's metric names, a
//! template's postprocessor names): made once when the recipe is built, and lent to each
//! output instance instead of copied into it.

use super::Value;

/// A value made once for a whole recipe run, with its compact JSON text (as
/// [`crate::value::json_lines::write_value`] writes it), so that writing it per instance is a copy of
/// bytes.
#[derive(Debug, Clone)]
pub struct Constant {
    value: Value,
    json: Box<[u8]>,
}

impl Constant {
    /// `value` and its JSON text.
    pub fn new(value: Value) -> Constant {
        let mut json = Vec::new();
        crate::value::json_lines::write_value(&value, &mut json);
        Constant { value, json: json.into_boxed_slice() }
    }

    /// The value.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// Its compact JSON text.
    pub fn json(&self) -> &[u8] {
        &self.json
    }
}

/// A field value of one instance: its own, or a [`Constant`] lent by what built the recipe
/// (which outlives the instance's output). Reads as the [`Value`] (`Deref`).
#[derive(Debug, Clone)]
pub enum Shared<'a> {
    /// The instance's own value.
    Own(Value),
    /// A constant of the recipe.
    Lent(&'a Constant),
}

impl Shared<'_> {
    /// The value, owned (a lent one is copied).
    pub fn into_value(self) -> Value {
        match self {
            Shared::Own(v) => v,
            Shared::Lent(c) => c.value.clone(),
        }
    }

    /// Appends the compact JSON of the value (a lent constant's text is copied).
    pub fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            Shared::Own(v) => crate::value::json_lines::write_value(v, out),
            Shared::Lent(c) => out.extend_from_slice(&c.json),
        }
    }
}

impl std::ops::Deref for Shared<'_> {
    type Target = Value;
    fn deref(&self) -> &Value {
        match self {
            Shared::Own(v) => v,
            Shared::Lent(c) => &c.value,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lent_and_own_write_the_same_json() {
        for v in [crate::json!(["metrics.accuracy", "m\"q\u{1}é"]), crate::json!([1, 1.0, null, {"b": 1, "a": [true]}])] {
            let c = Constant::new(v.clone());
            let (mut lent, mut own) = (Vec::new(), Vec::new());
            Shared::Lent(&c).write_json(&mut lent);
            Shared::Own(v.clone()).write_json(&mut own);
            assert_eq!(String::from_utf8(lent).unwrap(), String::from_utf8(own).unwrap());
            assert_eq!(Shared::Lent(&c).into_value(), v);
            assert_eq!(*Shared::Lent(&c), v);
        }
    }
}
