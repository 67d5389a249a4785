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
        DataType::Utf8 => Value::String(array.as_string::<i32>().value(row).into()),
        DataType::LargeUtf8 => Value::String(array.as_string::<i64>().value(row).into()),
        DataType::Utf8View => Value::String(array.as_string_view().value(row).into()),
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
            // The key of this row alone (`normalized_keys` would convert all of them).
            let key = cell(d.keys(), row, name)?.as_u64().ok_or_else(|| {
                Error::invalid(format!("column `{name}`: dictionary key of row {row} is not an index"))
            })?;
            cell(d.values().as_ref(), key as usize, name)?
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
/// order. Columns are converted whole (one type dispatch per column, not per cell), then
/// dealt out to the rows.
pub fn batch_rows(batch: &RecordBatch) -> Result<Vec<Instance>> {
    let schema = batch.schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    // Arrow allows repeated column names; a later one then replaces the earlier value, as
    // building a dict does.
    let distinct = names.iter().enumerate().all(|(i, n)| !names[..i].contains(n));
    let mut columns = Vec::with_capacity(names.len());
    for (c, name) in names.iter().enumerate() {
        columns.push(column(batch.column(c).as_ref(), name)?.into_iter());
    }
    let mut rows = Vec::with_capacity(batch.num_rows());
    for _ in 0..batch.num_rows() {
        // Room for the fields a recipe adds (policy, metadata, task fields).
        let mut inst = Instance::with_capacity(names.len() + 8);
        for (name, col) in names.iter().zip(columns.iter_mut()) {
            let v = col.next().expect("a column has a value for every row");
            if distinct {
                inst.push_new((*name).into(), v);
            } else {
                inst.insert((*name).into(), v);
            }
        }
        rows.push(inst);
    }
    Ok(rows)
}

/// The values of a whole column, as [`cell`] gives each: strings and integers (the common
/// columns) with one type dispatch for the column; other types cell by cell.
fn column(array: &dyn Array, name: &str) -> Result<Vec<Value>> {
    fn each<T>(array: &dyn Array, f: impl Fn(usize) -> T) -> Vec<Value>
    where
        Value: From<T>,
    {
        (0..array.len()).map(|r| if array.is_null(r) { Value::Null } else { Value::from(f(r)) }).collect()
    }
    Ok(match array.data_type() {
        DataType::Utf8 => {
            let a = array.as_string::<i32>();
            each(array, |r| crate::value::Str::from(a.value(r)))
        }
        DataType::LargeUtf8 => {
            let a = array.as_string::<i64>();
            each(array, |r| crate::value::Str::from(a.value(r)))
        }
        DataType::Utf8View => {
            let a = array.as_string_view();
            each(array, |r| crate::value::Str::from(a.value(r)))
        }
        DataType::Int64 => {
            let a = array.as_primitive::<Int64Type>();
            each(array, |r| a.value(r))
        }
        DataType::Int32 => {
            let a = array.as_primitive::<Int32Type>();
            each(array, |r| a.value(r))
        }
        _ => (0..array.len()).map(|r| cell(array, r, name)).collect::<Result<Vec<_>>>()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Float32Array, Int32Array, ListArray, StringArray, StructArray};
    use arrow_schema::{Field, Fields};
    use std::sync::Arc;

    #[test]
    fn batch_rows_follow_the_columns() {
        use arrow_array::{DictionaryArray, Int64Array};
        let text = StringArray::from(vec![Some("a"), None, Some("c")]);
        let ids = Int64Array::from(vec![Some(7), Some(-1), None]);
        let labels: DictionaryArray<Int32Type> = vec![Some("neg"), Some("pos"), Some("neg")].into_iter().collect();
        let again = Int32Array::from(vec![1, 2, 3]);
        let schema = Arc::new(arrow_schema::Schema::new(vec![
            Field::new("text", text.data_type().clone(), true),
            Field::new("id", ids.data_type().clone(), true),
            Field::new("label", labels.data_type().clone(), true),
            Field::new("id", again.data_type().clone(), false),
        ]));
        let batch = RecordBatch::try_new(schema, vec![Arc::new(text), Arc::new(ids), Arc::new(labels), Arc::new(again)]).unwrap();
        let rows: Vec<String> = batch_rows(&batch).unwrap().into_iter().map(|r| Value::Object(r).to_string()).collect();
        // The repeated `id` column replaces the first one's value in its place.
        assert_eq!(
            rows,
            [r#"{"text":"a","id":1,"label":"neg"}"#, r#"{"text":null,"id":2,"label":"pos"}"#, r#"{"text":"c","id":3,"label":"neg"}"#]
        );
        let distinct = RecordBatch::try_from_iter(vec![
            ("n", Arc::new(Int64Array::from(vec![Some(5), None])) as ArrayRef),
            ("s", Arc::new(StringArray::from(vec![None, Some("é")])) as ArrayRef),
        ])
        .unwrap();
        let rows: Vec<String> = batch_rows(&distinct).unwrap().into_iter().map(|r| Value::Object(r).to_string()).collect();
        assert_eq!(rows, [r#"{"n":5,"s":null}"#, r#"{"n":null,"s":"é"}"#]);
    }

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
