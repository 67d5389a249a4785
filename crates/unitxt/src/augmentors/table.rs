//! Table augmentors (Unitxt's `TypeDependentAugmentor`s over `Table` in
//! `struct_data_operators.py`): `transpose_table`, `shuffle_table_rows`,
//! `shuffle_table_columns`, `duplicate_table_rows`, `duplicate_table_columns` and
//! `mask_columns_names`.
//!
//! A value is a table when it is a dict whose `header` is a list of strings and whose `rows`
//! is a list of lists (Unitxt's `isoftype(value, Table)`; other keys may be present); any other
//! value is left unchanged. Tables are `{"header": [...], "rows": [[...], ...]}` in and out.
//!
//! `insert_empty_table_rows` and `shuffle_columns_names`, and the field operator
//! `truncate_table_rows` (which the catalog keeps among the table augmentors), draw from
//! Python's global `random` in Unitxt, whose state depends on everything the process drew
//! before (it is seeded once at import), so their output cannot be reproduced: here they draw
//! from the generator `shuffle_table_rows` uses, seeded by the table itself, so a table is
//! always changed the same way.

use std::sync::Arc;

use serde::Deserialize;

use super::{task_inputs_op, Augmentor};
use crate::error::{Error, Result};
use crate::operators::{FieldOperator, InstanceOperator};
use crate::py::random::new_random_generator_for_dict;
use crate::value::{Instance, Value};

/// The header and rows of `v` when it is a table (see the module doc), else `None`.
fn as_table(v: &Value) -> Option<(&[Value], &[Value])> {
    let m = v.as_object()?;
    let header = m.get("header")?.as_array()?;
    let rows = m.get("rows")?.as_array()?;
    (header.iter().all(Value::is_string) && rows.iter().all(Value::is_array)).then_some((header, rows))
}

/// `{"header": header, "rows": rows}`.
fn table(header: Vec<Value>, rows: Vec<Value>) -> Value {
    Value::Object(crate::operators::tables::table(Value::Array(header), Value::Array(rows)))
}

/// Cell `i` of `row`, or Python's `IndexError` as an error naming the augmentor.
fn cell<'a>(row: &'a Value, i: usize, who: &str) -> Result<&'a Value> {
    row.as_array()
        .and_then(|r| r.get(i))
        .ok_or_else(|| Error::invalid(format!("{who}: a row has no column {i} (the table's rows are shorter than its header)")))
}

/// The generator Unitxt's `shuffle_rows`/`shuffle_columns` draw from:
/// `new_random_generator({"table": table, "seed": 0})` (`seed` is a class constant there).
fn table_rng(t: &Value) -> crate::py::random::PyRandom {
    let seed = Value::from(0);
    new_random_generator_for_dict([("table", t), ("seed", &seed)])
}

/// Implements [`Augmentor`] for a table augmentor that is also a [`FieldOperator`].
macro_rules! table_augmentor {
    ($t:ty) => {
        impl Augmentor for $t {
            fn for_fields(&self, fields: &[String]) -> Result<Arc<dyn InstanceOperator>> {
                task_inputs_op(self.clone(), fields)
            }
        }
    };
}

/// `transpose_table` (Unitxt's `TransposeTable`): columns become rows. The header is `" "`
/// followed by the row numbers (`"0"`, `"1"`, ...); row `i` is header cell `i` followed by cell
/// `i` of every row. Errors when a row is shorter than the header.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct TransposeTable {}

impl FieldOperator for TransposeTable {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let Some((header, rows)) = as_table(&value) else { return Ok(value) };
        let new_header = std::iter::once(Value::from(" ")).chain((0..rows.len()).map(|i| Value::String(compact_str::format_compact!("{i}")))).collect();
        let mut new_rows = Vec::with_capacity(header.len());
        for (i, h) in header.iter().enumerate() {
            let mut r = Vec::with_capacity(rows.len() + 1);
            r.push(h.clone());
            for row in rows {
                r.push(cell(row, i, "transpose_table")?.clone());
            }
            new_rows.push(Value::Array(r));
        }
        Ok(table(new_header, new_rows))
    }
}
table_augmentor!(TransposeTable);

/// `shuffle_table_rows` (Unitxt's `ShuffleTableRows`): the rows in an order drawn by Python's
/// `random.shuffle`, seeded by the table itself; the table's other keys are kept.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ShuffleTableRows {}

impl FieldOperator for ShuffleTableRows {
    fn process_value(&self, mut value: Value, _instance: &Instance) -> Result<Value> {
        if as_table(&value).is_none() {
            return Ok(value);
        }
        let mut rng = table_rng(&value);
        if let Some(Value::Array(rows)) = value.as_object_mut().and_then(|m| m.get_mut("rows")) {
            rng.shuffle(rows);
        }
        Ok(value)
    }
}
table_augmentor!(ShuffleTableRows);

/// `shuffle_table_columns` (Unitxt's `ShuffleTableColumns`): the columns (header and every
/// row) in an order drawn by Python's `random.shuffle` of the column indices, seeded by the
/// table itself; the table's other keys are kept. Errors when a row is shorter than the header.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ShuffleTableColumns {}

impl FieldOperator for ShuffleTableColumns {
    fn process_value(&self, mut value: Value, _instance: &Instance) -> Result<Value> {
        let Some((header, rows)) = as_table(&value) else { return Ok(value) };
        let mut order: Vec<usize> = (0..header.len()).collect();
        table_rng(&value).shuffle(&mut order);
        let new_header: Vec<Value> = order.iter().map(|&i| header[i].clone()).collect();
        let new_rows = rows
            .iter()
            .map(|row| order.iter().map(|&i| cell(row, i, "shuffle_table_columns").cloned()).collect::<Result<Vec<_>>>().map(Value::Array))
            .collect::<Result<Vec<_>>>()?;
        if let Some(m) = value.as_object_mut() {
            m.insert("header".into(), Value::Array(new_header));
            m.insert("rows".into(), Value::Array(new_rows));
        }
        Ok(value)
    }
}
table_augmentor!(ShuffleTableColumns);

fn one() -> i64 {
    1
}

/// `times` copies of `v` when `dup`, else one (Python's `[v] * times`: none when `times` < 1).
fn repeat(v: &Value, dup: bool, times: i64, out: &mut Vec<Value>) {
    let n = if dup { times.max(0) as usize } else { 1 };
    out.extend(std::iter::repeat_n(v, n).cloned());
}

/// `duplicate_table_rows` (Unitxt's `DuplicateTableRows`): each row whose index is in
/// `row_indices` appears `times` times in its place.
#[derive(Debug, Clone, Deserialize)]
pub struct DuplicateTableRows {
    /// `row_indices`: the rows to repeat (0-based; default none).
    #[serde(default)]
    pub row_indices: Vec<i64>,
    /// `times`: how many times each of them appears (default 1).
    #[serde(default = "one")]
    pub times: i64,
}

impl FieldOperator for DuplicateTableRows {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let Some((header, rows)) = as_table(&value) else { return Ok(value) };
        let mut out = Vec::with_capacity(rows.len());
        for (i, row) in rows.iter().enumerate() {
            repeat(row, self.row_indices.contains(&(i as i64)), self.times, &mut out);
        }
        Ok(table(header.to_vec(), out))
    }
}
table_augmentor!(DuplicateTableRows);

/// `duplicate_table_columns` (Unitxt's `DuplicateTableColumns`): each column whose index is in
/// `column_indices` appears `times` times in its place, in the header and in every row.
#[derive(Debug, Clone, Deserialize)]
pub struct DuplicateTableColumns {
    /// `column_indices`: the columns to repeat (0-based; default none).
    #[serde(default)]
    pub column_indices: Vec<i64>,
    /// `times`: how many times each of them appears (default 1).
    #[serde(default = "one")]
    pub times: i64,
}

impl DuplicateTableColumns {
    fn spread(&self, cells: &[Value]) -> Vec<Value> {
        let mut out = Vec::with_capacity(cells.len());
        for (i, c) in cells.iter().enumerate() {
            repeat(c, self.column_indices.contains(&(i as i64)), self.times, &mut out);
        }
        out
    }
}

impl FieldOperator for DuplicateTableColumns {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let Some((header, rows)) = as_table(&value) else { return Ok(value) };
        let rows = rows.iter().map(|r| Value::Array(self.spread(r.as_array().map_or(&[][..], |a| a)))).collect();
        Ok(table(self.spread(header), rows))
    }
}
table_augmentor!(DuplicateTableColumns);

/// `mask_columns_names` (Unitxt's `MaskColumnsNames`): the header becomes `Col1`, `Col2`, ...
#[derive(Debug, Clone, Default, Deserialize)]
pub struct MaskColumnsNames {}

impl FieldOperator for MaskColumnsNames {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let Some((header, rows)) = as_table(&value) else { return Ok(value) };
        let masked = (1..=header.len()).map(|i| Value::String(compact_str::format_compact!("Col{i}"))).collect();
        Ok(table(masked, rows.to_vec()))
    }
}
table_augmentor!(MaskColumnsNames);

/// `insert_empty_table_rows` (Unitxt's `InsertEmptyTableRows`): `times` times, a row of
/// empty strings as wide as the header is inserted at a position drawn by `randint(0,
/// len(rows))`. The result has only `header` and `rows`. Unitxt draws the positions from the
/// unseeded global `random`; here they come from the generator seeded by the table (see the
/// module doc), so only the number and the shape of the inserted rows match Unitxt's.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct InsertEmptyTableRows {
    /// `times`: how many empty rows are inserted (default 0).
    #[serde(default)]
    pub times: i64,
}

impl FieldOperator for InsertEmptyTableRows {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let Some((header, rows)) = as_table(&value) else { return Ok(value) };
        let mut rng = table_rng(&value);
        let mut rows = rows.to_vec();
        let empty = Value::Array(vec![Value::from(""); header.len()]);
        for _ in 0..self.times.max(0) {
            let at = rng.randint(0, rows.len() as i64)?;
            rows.insert(at as usize, empty.clone());
        }
        Ok(table(header.to_vec(), rows))
    }
}
table_augmentor!(InsertEmptyTableRows);

/// `shuffle_columns_names` (Unitxt's `ShuffleColumnsNames`): the header cells in a shuffled
/// order, the rows unchanged (so names no longer match their columns). The result has only
/// `header` and `rows`. Unitxt shuffles with the unseeded global `random`; here the order
/// comes from the generator seeded by the table (see the module doc).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ShuffleColumnsNames {}

impl FieldOperator for ShuffleColumnsNames {
    fn process_value(&self, value: Value, _instance: &Instance) -> Result<Value> {
        let Some((header, rows)) = as_table(&value) else { return Ok(value) };
        let mut header = header.to_vec();
        table_rng(&value).shuffle(&mut header);
        Ok(table(header, rows.to_vec()))
    }
}
table_augmentor!(ShuffleColumnsNames);

fn ten() -> i64 {
    10
}

/// `truncate_table_rows` (Unitxt's `TruncateTableRows`, a field operator, not an augmentor):
/// a dict whose `rows` has more than `rows_to_keep` items keeps `rows_to_keep` of them, in
/// their order, the others deleted at random; the dict is changed in place (in its field too,
/// when the result goes to another field), its other keys kept. Unitxt picks the deleted rows
/// with `random.sample` of the unseeded global `random`; here with the generator seeded by
/// the table (see the module doc). Errors on a value that is not a dict, `rows` without a
/// length, or a negative `rows_to_keep` with rows to delete.
#[derive(Debug, Clone, Deserialize)]
pub struct TruncateTableRows {
    /// `rows_to_keep`: the most rows kept (default 10).
    #[serde(default = "ten")]
    pub rows_to_keep: i64,
}

impl crate::operators::collections::InPlaceFieldOperator for TruncateTableRows {
    fn process_in_place(&self, value: &mut Value) -> Result<Value> {
        let Value::Object(m) = &*value else {
            return Err(Error::invalid(format!("truncate_table_rows: '{}' object has no attribute 'get'", crate::py::repr::type_name(value))));
        };
        let n = match m.get("rows") {
            None => 0,
            Some(Value::Array(a)) => a.len(),
            Some(Value::String(s)) => s.chars().count(),
            Some(Value::Object(o)) => o.len(),
            Some(other) => return Err(Error::invalid(format!("truncate_table_rows: object of type '{}' has no len()", crate::py::repr::type_name(other)))),
        };
        if n as i64 <= self.rows_to_keep {
            return Ok(value.clone());
        }
        let Some(Value::Array(rows)) = m.get("rows") else {
            return Err(Error::invalid("truncate_table_rows: `rows` must be a list to be truncated"));
        };
        let deleted = table_rng(value).try_sample_indices(n, (n as i64 - self.rows_to_keep) as usize)?;
        let kept: Vec<Value> = rows.iter().enumerate().filter(|(i, _)| !deleted.contains(i)).map(|(_, r)| r.clone()).collect();
        if let Some(m) = value.as_object_mut() {
            m.insert("rows".into(), Value::Array(kept));
        }
        Ok(value.clone())
    }
}

#[cfg(test)]
mod tests {
    use crate::registry::Artifact;
    use crate::value::Value;

    /// Every case of `testdata/table_oracle_cases.json` (Unitxt 1.26.10's table augmentors on
    /// tables and non-tables, written by `table_oracle_gen.py` beside it): the same
    /// `input_fields` after the augmentor.
    #[test]
    fn table_augmentors_match_unitxt() {
        let cases: Vec<Value> = serde_json::from_str(include_str!("testdata/table_oracle_cases.json")).unwrap();
        assert_eq!(cases.len(), 72);
        let catalog = std::sync::Arc::new(crate::catalog::Catalog::new(vec![]));
        for case in &cases {
            let name = case["augmentor"].as_str().unwrap();
            let json = augmentor_json(name);
            let aug = crate::registry::build(&json, &catalog).unwrap();
            let Artifact::Augmentor(aug) = aug else { panic!("{name} is not an augmentor") };
            let op = aug.inner.for_fields(&["table".to_string()]).unwrap();
            let mut inst = crate::value::Instance::new();
            inst.insert("input_fields".into(), case["input"].clone());
            let out = op.process_instance(inst, "test").unwrap();
            assert_eq!(out["input_fields"], case["output"], "{name} on {}", case["input"]);
        }
    }

    /// The catalog JSON of the augmentors the cases name (`augmentors.table.X[args]`).
    fn augmentor_json(name: &str) -> Value {
        let (base, args) = name.split_once('[').map_or((name, ""), |(b, a)| (b, a.trim_end_matches(']')));
        let ty = match base {
            "augmentors.table.transpose" => "transpose_table",
            "augmentors.table.shuffle_rows" => "shuffle_table_rows",
            "augmentors.table.shuffle_cols" => "shuffle_table_columns",
            "augmentors.table.mask_cols_names" => "mask_columns_names",
            "augmentors.table.duplicate_rows" => "duplicate_table_rows",
            "augmentors.table.duplicate_columns" => "duplicate_table_columns",
            "augmentors.table.insert_empty_rows" => "insert_empty_table_rows",
            other => panic!("no type for {other}"),
        };
        let mut m = crate::value::Instance::new();
        m.insert("__type__".into(), Value::from(ty));
        // `key=[list],times=n` of the case names.
        if let Some((list_part, times)) = args.split_once("],times=") {
            let (key, list) = list_part.split_once("=[").unwrap();
            let items: Vec<Value> = list.split(',').map(|x| Value::from(x.parse::<i64>().unwrap())).collect();
            m.insert(key.into(), Value::Array(items));
            m.insert("times".into(), Value::from(times.parse::<i64>().unwrap()));
        }
        Value::Object(m)
    }

    /// The augmentors that draw from Unitxt's unseeded `random` cannot match its output; they
    /// keep its shape: the same rows plus `times` empty ones, the same header names, the
    /// same rows in their order less the deleted ones. And a table is changed the same way
    /// on every run (the generator is seeded by the table), different tables differently.
    #[test]
    fn unseeded_table_augmentors_keep_unitxts_shape() {
        use crate::operators::collections::InPlaceFieldOperator;
        use crate::operators::FieldOperator;
        let rows: Vec<Value> = (0..30).map(|i| crate::json!([format!("r{i}"), i])).collect();
        let t = crate::json!({"header": ["name", "n"], "rows": rows, "caption": "c"});
        let none = Default::default();
        // insert_empty_table_rows
        let ins = super::InsertEmptyTableRows { times: 5 };
        let out = ins.process_value(t.clone(), &none).unwrap();
        assert_eq!(out, ins.process_value(t.clone(), &none).unwrap());
        assert_eq!(out.as_object().unwrap().keys().map(|k| k.as_str()).collect::<Vec<_>>(), ["header", "rows"]);
        let got = out["rows"].as_array().unwrap();
        assert_eq!(got.len(), 35);
        assert_eq!(got.iter().filter(|r| **r == crate::json!(["", ""])).count(), 5);
        assert_eq!(got.iter().filter(|r| **r != crate::json!(["", ""])).cloned().collect::<Vec<_>>(), rows);
        let positions = |v: &Value| v["rows"].as_array().unwrap().iter().map(|r| r[0] == "").collect::<Vec<_>>();
        let mut other = t.clone();
        other["caption"] = Value::from("d");
        assert_ne!(positions(&out), positions(&ins.process_value(other, &none).unwrap()));
        let zero = super::InsertEmptyTableRows { times: 0 }.process_value(t.clone(), &none).unwrap();
        assert_eq!(zero, crate::json!({"header": ["name", "n"], "rows": rows}));
        // shuffle_columns_names
        let wide = crate::json!({"header": ["a", "b", "c", "d", "e", "f", "g", "h"], "rows": [[1, 2, 3, 4, 5, 6, 7, 8]]});
        let out = super::ShuffleColumnsNames {}.process_value(wide.clone(), &none).unwrap();
        assert_eq!(out, super::ShuffleColumnsNames {}.process_value(wide.clone(), &none).unwrap());
        assert_eq!(out["rows"], wide["rows"]);
        let mut names: Vec<String> = out["header"].as_array().unwrap().iter().map(|h| h.as_str().unwrap().to_string()).collect();
        assert_ne!(names, ["a", "b", "c", "d", "e", "f", "g", "h"]);
        names.sort();
        assert_eq!(names, ["a", "b", "c", "d", "e", "f", "g", "h"]);
        // truncate_table_rows: the table itself changes too, and keeps its other keys.
        let mut v = t.clone();
        let out = super::TruncateTableRows { rows_to_keep: 7 }.process_in_place(&mut v).unwrap();
        assert_eq!(out, v);
        assert_eq!(out["caption"], "c");
        let kept = out["rows"].as_array().unwrap();
        assert_eq!(kept.len(), 7);
        let idx: Vec<usize> = kept.iter().map(|r| rows.iter().position(|x| x == r).unwrap()).collect();
        assert!(idx.windows(2).all(|w| w[0] < w[1]), "{idx:?}");
        assert_ne!(idx, (0..7).collect::<Vec<_>>());
        assert_eq!(super::TruncateTableRows { rows_to_keep: 7 }.process_in_place(&mut t.clone()).unwrap(), out);
        let mut short = t.clone();
        assert_eq!(super::TruncateTableRows { rows_to_keep: 30 }.process_in_place(&mut short).unwrap(), t);
        assert!(super::TruncateTableRows { rows_to_keep: -1 }.process_in_place(&mut t.clone()).is_err());
        assert!(super::TruncateTableRows { rows_to_keep: 1 }.process_in_place(&mut crate::json!([1])).is_err());
        // Non-tables pass the augmentors unchanged.
        assert_eq!(ins.process_value(crate::json!("text"), &none).unwrap(), "text");
    }

    #[test]
    fn short_rows_are_errors() {
        use crate::operators::FieldOperator;
        let t = crate::json!({"header": ["a", "b"], "rows": [["x"]]});
        let e = super::TransposeTable {}.process_value(t.clone(), &Default::default()).unwrap_err().to_string();
        assert!(e.contains("transpose_table: a row has no column 1"), "{e}");
        assert!(super::ShuffleTableColumns {}.process_value(t, &Default::default()).is_err());
    }
}
