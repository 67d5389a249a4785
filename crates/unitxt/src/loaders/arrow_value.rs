//! Arrow data to engine values, giving what the Python `datasets` library yields for a row.
//!
//! Integers of any width become ints, `float32` becomes the float64 of the float32 value
//! (Python's `float(np.float32(x))`, e.g. `3.799999952316284`), `float64` stays as is, strings
//! (also large and view strings) become strings, lists (plain, large, fixed-size) become lists,
//! structs become dicts in field order, dictionary-encoded columns are decoded, nulls become
//! `None`. A NaN or infinite float becomes `None` (JSON values have no NaN). Binary, temporal and
//! decimal columns give an [`crate::error::ErrorKind::Unsupported`] error naming the column.

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;

use crate::error::{Error, Result};
use crate::value::{Instance, Value};

use super::float_value as float;

/// Converts the value at `row` of `array` (field `name`, for messages).
pub fn cell(array: &dyn Array, row: usize, name: &str) -> Result<Value> {
    if array.is_null(row) {
        return Ok(Value::Null);
    }
    Ok(match array.data_type() {
        DataType::Null => Value::Null,
        DataType::Boolean => Value::Bool(array.as_boolean().value(row)),
        DataType::Int8 => Value::from(array.as_primitive::<Int8Type>().value(row)),
        DataType::Int16 => Value::from(array.as_primitive::<Int16Type>().value(row)),
        DataType::Int32 => Value::from(array.as_primitive::<Int32Type>().value(row)),
        DataType::Int64 => Value::from(array.as_primitive::<Int64Type>().value(row)),
        DataType::UInt8 => Value::from(array.as_primitive::<UInt8Type>().value(row)),
        DataType::UInt16 => Value::from(array.as_primitive::<UInt16Type>().value(row)),
        DataType::UInt32 => Value::from(array.as_primitive::<UInt32Type>().value(row)),
        DataType::UInt64 => Value::from(array.as_primitive::<UInt64Type>().value(row)),
        DataType::Float16 => float(array.as_primitive::<Float16Type>().value(row).to_f64()),
        DataType::Float32 => float(array.as_primitive::<Float32Type>().value(row) as f64),
        DataType::Float64 => float(array.as_primitive::<Float64Type>().value(row)),
        DataType::Utf8 => Value::String(array.as_string::<i32>().value(row).to_string()),
        DataType::LargeUtf8 => Value::String(array.as_string::<i64>().value(row).to_string()),
        DataType::Utf8View => Value::String(array.as_string_view().value(row).to_string()),
        DataType::List(_) => list(array.as_list::<i32>().value(row), name)?,
        DataType::LargeList(_) => list(array.as_list::<i64>().value(row), name)?,
        DataType::FixedSizeList(_, _) => list(array.as_fixed_size_list().value(row), name)?,
        DataType::Struct(fields) => {
            let s = array.as_struct();
            let mut m = Instance::with_capacity(fields.len());
            for (i, f) in fields.iter().enumerate() {
                m.insert(f.name().as_str().into(), cell(s.column(i).as_ref(), row, f.name())?);
            }
            Value::Object(m)
        }
        DataType::Dictionary(_, _) => {
            let d = array.as_any_dictionary();
            let key = d.normalized_keys()[row];
            cell(d.values().as_ref(), key, name)?
        }
        other => {
            return Err(Error::unsupported(format!(
                "column `{name}` has Arrow type {other}, which the loaders cannot convert to a value"
            )))
        }
    })
}

fn list(values: ArrayRef, name: &str) -> Result<Value> {
    (0..values.len()).map(|i| cell(values.as_ref(), i, name)).collect::<Result<Vec<_>>>().map(Value::Array)
}

/// Converts every row of a record batch to an instance whose fields follow the schema's column
/// order.
pub fn batch_rows(batch: &RecordBatch) -> Result<Vec<Instance>> {
    let schema = batch.schema();
    let mut rows = Vec::with_capacity(batch.num_rows());
    for r in 0..batch.num_rows() {
        // Room for the fields a recipe adds (policy, metadata, task fields).
        let mut inst = Instance::with_capacity(schema.fields().len() + 8);
        for (c, f) in schema.fields().iter().enumerate() {
            inst.insert(f.name().as_str().into(), cell(batch.column(c).as_ref(), r, f.name())?);
        }
        rows.push(inst);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Float32Array, Int32Array, ListArray, StringArray, StructArray};
    use arrow_schema::{Field, Fields};
    use std::sync::Arc;

    #[test]
    fn float32_widens_like_python() {
        // datasets gives 3.799999952316284 for the float32 label 3.8 (glue/stsb train row 1).
        let a = Float32Array::from(vec![3.8f32, 5.0]);
        assert_eq!(cell(&a, 0, "label").unwrap().to_string(), "3.799999952316284");
        assert_eq!(cell(&a, 1, "label").unwrap().to_string(), "5.0");
    }

    #[test]
    fn struct_of_lists_and_nulls() {
        let text = ListArray::from_iter_primitive::<Int32Type, _, _>(vec![Some(vec![Some(1), None])]);
        let names = StringArray::from(vec![Some("x")]);
        let fields = Fields::from(vec![
            Field::new("b", names.data_type().clone(), true),
            Field::new("a", text.data_type().clone(), true),
        ]);
        let s = StructArray::new(fields, vec![Arc::new(names), Arc::new(text)], None);
        assert_eq!(cell(&s, 0, "s").unwrap().to_string(), r#"{"b":"x","a":[1,null]}"#);
        let ints = Int32Array::from(vec![None, Some(-3)]);
        assert_eq!(cell(&ints, 0, "i").unwrap(), Value::Null);
        assert_eq!(cell(&ints, 1, "i").unwrap().to_string(), "-3");
    }
}
