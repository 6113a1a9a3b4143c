//! Core's values as Python objects: any serde value (verdict, policy, limit) becomes plain
//! dicts, lists and scalars.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pythonize::pythonize;

/// Converts any serde value (core's verdict, policy, limit) to plain Python objects.
pub(crate) fn to_python<'py, T: serde::Serialize>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    pythonize(py, value).map_err(value_error)
}

/// A serialisation failure (never expected for core's types) as a Python `ValueError`.
pub(crate) fn value_error(error: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(error.to_string())
}
