//! The engine's [`CallbackHost`] for Python components (a user's subclass of
//! `unitxt_rs.operators.FieldOperator`, `InstanceOperator`, `serializers.SingleTypeSerializer`,
//! `metrics.InstanceMetric` or `GlobalMetric`): each call takes the GIL, hands the arguments
//! to `unitxt_rs._callbacks.dispatch` as JSON text and reads its JSON answer back; everything
//! else runs in the engine without the GIL. A Python exception becomes an engine error whose
//! message is the exception's type and text (the engine adds the component and the instance).
//! The chat formats' image encoder (Pillow) is called the same way.

use pyo3::prelude::*;
use unitxt::error::{Error, Result};
use unitxt::py::pillow::ImageEncoder;
use unitxt::registry::callback::CallbackHost;
use unitxt::value::Value;

/// Calls into `unitxt_rs._callbacks.dispatch(id, method, args_json) -> str`.
pub(crate) struct PyHost;

impl CallbackHost for PyHost {
    fn call(&self, id: u64, method: &str, args: Value) -> Result<Value> {
        let args_json = args.to_string();
        let out = Python::attach(|py| -> std::result::Result<String, String> {
            let run = || -> PyResult<String> {
                py.import("unitxt_rs._callbacks")?.getattr("dispatch")?.call1((id, method, args_json))?.extract()
            };
            run().map_err(|e| e.to_string())
        })
        .map_err(|msg| Error::invalid(format!("Python raised {msg}")))?;
        serde_json::from_str::<Value>(&out).map_err(|e| Error::invalid(format!("the Python component's answer is not JSON: {e}")))
    }

    /// Asks `unitxt_rs._callbacks.resolve(json) -> str | None` for the callback object of a
    /// user's component class named by `component`'s `__type__`.
    fn resolve(&self, component: &Value) -> Result<Option<Value>> {
        let json = component.to_string();
        let out = Python::attach(|py| -> std::result::Result<Option<String>, String> {
            let run = || -> PyResult<Option<String>> { py.import("unitxt_rs._callbacks")?.getattr("resolve")?.call1((json,))?.extract() };
            run().map_err(|e| e.to_string())
        })
        .map_err(|msg| Error::invalid(format!("Python raised {msg}")))?;
        out.map(|o| serde_json::from_str::<Value>(&o).map_err(|e| Error::invalid(format!("the Python component's object is not JSON: {e}"))))
            .transpose()
    }
}

/// The engine's chat image encoder: Pillow, through
/// `unitxt_rs.artifact._chat_image_data_url(json) -> str` (Unitxt's `image_to_data_url`), with
/// the GIL taken for the call.
pub(crate) struct PyImageEncoder;

impl ImageEncoder for PyImageEncoder {
    fn image_to_data_url(&self, image: &Value) -> Result<String> {
        let json = image.to_string();
        Python::attach(|py| -> std::result::Result<String, String> {
            let run = || -> PyResult<String> {
                py.import("unitxt_rs.artifact")?.getattr("_chat_image_data_url")?.call1((json,))?.extract()
            };
            run().map_err(|e| e.to_string())
        })
        .map_err(|msg| Error::invalid(format!("Python raised {msg}")))
    }
}

/// Installs [`PyHost`] as the engine's callback host and [`PyImageEncoder`] as its chat image
/// encoder (once per process).
pub(crate) fn install() {
    unitxt::registry::callback::set_host(Box::new(PyHost));
    unitxt::py::pillow::set_encoder(Box::new(PyImageEncoder));
}
