//! Python's number formatting in the sandbox: `repr(float)`, `round()`, and `format()` (the
//! format-spec mini-language of f-strings and `str.format`, shared with the templates in
//! [`crate::py::format_spec`]).

use super::value::{to_str_limited, PyVal, ReprStop};
use super::{err, EResult};

/// Python's `repr(float)` (delegates to [`crate::py::repr::float_repr`]).
pub fn float_repr(f: f64) -> String {
    crate::py::repr::float_repr(f)
}

/// Python's `format(value, spec)` for the sandbox's values: strings, integers, floats and bools
/// through [`crate::py::format_spec`]; any other value only with an empty spec (its `str`).
/// `limit` bounds the `str` of a container (an error past it, see
/// [`super::value::to_str_limited`]); the spec's own width and precision are bounded by
/// [`crate::py::format_spec`].
pub fn format_value(v: &PyVal, spec: &str, limit: usize) -> EResult<String> {
    use crate::py::format_spec::{format_spec, Formattable};
    let f = match v {
        PyVal::Str(t) => Formattable::Str(t),
        PyVal::Bool(b) => Formattable::Bool(*b),
        PyVal::Int(i) => Formattable::Int(*i as i128),
        PyVal::Float(x) => Formattable::Float(*x),
        other if spec.is_empty() => {
            return to_str_limited(other, limit).map_err(|e| match e {
                ReprStop::TooLong => err(format!("the text of this value is longer than the {limit} bytes left in the memory budget")),
                ReprStop::TooDeep => err(format!("the value is nested more than {} levels deep", super::eval::MAX_NESTING)),
            })
        }
        other => return Err(err(format!("unsupported format string passed to {}.__format__", other.type_name()))),
    };
    format_spec(f, spec).map_err(err)
}

/// Python's `round(x, ndigits)` for floats: correctly rounded, ties to even.
pub fn round_float(f: f64, nd: i64) -> f64 {
    if !f.is_finite() {
        return f;
    }
    if nd >= 0 {
        if nd > 330 {
            return f;
        }
        format!("{:.*}", nd as usize, f).parse().unwrap_or(f)
    } else {
        let p = 10f64.powi((-nd).min(330) as i32);
        let r = (f / p).round_ties_even() * p;
        if r == 0.0 {
            0.0f64.copysign(f)
        } else {
            r
        }
    }
}
