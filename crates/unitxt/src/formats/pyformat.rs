//! Python's `str.format(**kwargs)` for the format strings of formats (`demo_format`,
//! `model_input_format`), parsed when the format is built
//! ([`crate::py::str_format::FormatString`]); this adapts its arguments and errors.

use crate::error::{Error, Result};
use crate::py::str_format::{FormatError, FormatString};
use crate::value::Value;

/// Formats `template` with the keyword arguments `args` (name, value), as Python's
/// `template.format(**args)`: values are inserted with `str()`. Errors (naming the template)
/// on malformed braces, names that are not in `args` and positional fields.
pub fn format_kwargs(template: &FormatString, args: &[(&str, &Value)]) -> Result<String> {
    template.format(args).map_err(|e| {
        let msg = match e {
            FormatError::Key(k) => format!("no field {k} for"),
            FormatError::Other(m) => m,
        };
        Error::invalid(format!("{msg} in format string {template:?}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    // Expected values from Python 3.11 str.format.
    #[test]
    fn formats_like_python() {
        let a = json!("x");
        let b = json!({"k": [1, "two"]});
        let args = [("a", &a), ("b", &b)];
        assert_eq!(format_kwargs(&"{{{a}}}-{a}}}{{".into(), &args).unwrap(), "{x}-x}{");
        assert_eq!(format_kwargs(&"{b[k][1]}/{a!s}".into(), &args).unwrap(), "two/x");
        assert_eq!(format_kwargs(&"\\N{a}\\N".into(), &args).unwrap(), "\\Nx\\N");
        assert!(format_kwargs(&"{c}".into(), &args).is_err());
        assert!(format_kwargs(&"{}".into(), &args).is_err());
        assert!(format_kwargs(&"{0}".into(), &args).is_err());
        assert!(format_kwargs(&"a}b".into(), &args).is_err());
        assert!(format_kwargs(&"ab{".into(), &args).is_err());
        assert!(format_kwargs(&"{a".into(), &args).is_err());
        assert_eq!(format_kwargs(&"{a:>3}".into(), &args).unwrap(), "  x");
    }
}
