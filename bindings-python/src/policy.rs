//! Python values read into a core policy: the keyword arguments of `Guard(...)` (the dialect and
//! one section each), a whole policy mapping, and the `vars` of a check. A bad value raises
//! `sqlgate.PolicyError` naming the field at fault, in Python's words.

use std::str::FromStr;

use pyo3::prelude::*;
use serde::de::DeserializeOwned;
use sqlgate::{Dialect, Policy, Vars};

use crate::errors::{policy_error, pythonic};
use crate::from_python::from_python;

/// Parses a dialect name (aliases such as `postgresql` and `sqlserver` are accepted by core).
pub(crate) fn parse_dialect(py: Python<'_>, name: &str) -> PyResult<Dialect> {
    Dialect::from_str(name).map_err(|message| policy_error(py, "dialect", &message))
}

/// Converts an optional Python mapping into one section of the policy (the section's default
/// when it is `None` or absent).
pub(crate) fn section<T: DeserializeOwned + Default>(
    py: Python<'_>,
    field: &str,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<T> {
    Ok(optional_section(py, field, value)?.unwrap_or_default())
}

/// Converts an optional Python mapping into a section the policy may lack (`catalog`,
/// `writes`): `None` when absent. The error names the section as its field and says where
/// inside it the fault is.
pub(crate) fn optional_section<T: DeserializeOwned>(
    py: Python<'_>,
    field: &str,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<T>> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(None);
    };
    from_python(value, |path, message| {
        let message = match path {
            "." => message.to_string(),
            index if index.starts_with('[') => format!("{message} at {field}{index}"),
            inner => format!("{message} at {field}.{inner}"),
        };
        policy_error(py, field, &pythonic(&message))
    })
    .map(Some)
}

/// Converts the `vars` argument of a check (a mapping of names to int, float, str, bool or
/// None) into core's `Vars`; a bad value raises `PolicyError` naming `vars.<name>`.
pub(crate) fn vars_from_python(py: Python<'_>, value: Option<&Bound<'_, PyAny>>) -> PyResult<Vars> {
    Ok(optional_section::<Vars>(py, "vars", value)?.unwrap_or_default())
}

/// Converts a whole policy given as a Python mapping; the error's field is the path at fault,
/// as core's [`Policy::from_json`] names it.
pub(crate) fn policy_from_python(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Policy> {
    from_python(value, |path, message| {
        let field = match path {
            "." => "policy",
            inner => inner,
        };
        policy_error(py, field, &pythonic(message))
    })
}
