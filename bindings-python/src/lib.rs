//! Python bindings for [`sqlgate`]: the native module `sqlgate._sqlgate`.
//!
//! This crate is a thin layer: it converts Python values to core types, forwards to
//! [`sqlgate::Guard`] with the GIL released, and maps core results back to Python objects and
//! exceptions. Every decision is made in core. The Python package `sqlgate`
//! (`python/sqlgate/__init__.py`) re-exports what is defined here; the exception classes
//! `Rejected` and `PolicyError` are plain Python classes in `sqlgate._errors`, raised from here.
//!
//! This file defines the module; its parts: `guard` (the `Guard` class and its checks),
//! `approved` (what a check approves), `errors` (core's failures as Python exceptions),
//! `policy` and `from_python` (Python values read into core's policy), `to_python` (core's
//! values as Python objects).

#![forbid(unsafe_code)]

mod approved;
mod errors;
mod from_python;
mod guard;
mod policy;
mod to_python;

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use sqlgate::{
    Dialect, ErrorCode, LimitAction, Policy, QueryClass, Stage, DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_GENERATED_BYTES, DEFAULT_MAX_GENERATED_ROWS, DEFAULT_MAX_ROWS,
    DEFAULT_MAX_SQL_BYTES, DEFAULT_MAX_TOKENS,
};

use approved::{PyApproved, PyApprovedMutation};
use guard::PyGuard;
use policy::parse_dialect;
use to_python::to_python;

/// mimalloc, as in pydantic-core and most napi-rs addons: a check allocates hundreds of small
/// nodes, and glibc's malloc and free were a quarter of its instructions.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

// The defaults spelled out in `Guard.__new__`'s text signature and in the `.pyi` stub.
const _: () = assert!(
    DEFAULT_MAX_ROWS == 1000
        && DEFAULT_MAX_SQL_BYTES == 262_144
        && DEFAULT_MAX_DEPTH == 64
        && DEFAULT_MAX_TOKENS == 16_000
        && DEFAULT_MAX_GENERATED_BYTES == 1_048_576
        && DEFAULT_MAX_GENERATED_ROWS == 1_000_000,
    "core defaults changed: update Guard's text_signature and _sqlgate.pyi"
);

/// The class of `sql` in `dialect` without any policy, e.g. `"select"` or `"mutation_delete"`.
#[pyfunction]
#[pyo3(signature = (sql, dialect = "postgres"))]
fn classify(py: Python<'_>, sql: &str, dialect: &str) -> PyResult<&'static str> {
    let dialect = parse_dialect(py, dialect)?;
    Ok(py.detach(|| sqlgate::classify(sql, dialect)).as_str())
}

/// The JSON Schema of the policy, as a dict.
#[pyfunction]
fn policy_schema(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    to_python(py, &Policy::json_schema())
}

/// Adds `name` to the module: core's names of an enum's variants, in core's order, as a tuple.
fn add_names(
    m: &Bound<'_, PyModule>,
    name: &str,
    names: impl ExactSizeIterator<Item = &'static str>,
) -> PyResult<()> {
    m.add(name, PyTuple::new(m.py(), names)?)
}

/// The native module `sqlgate._sqlgate`.
#[pymodule]
fn _sqlgate(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGuard>()?;
    m.add_class::<PyApproved>()?;
    m.add_class::<PyApprovedMutation>()?;
    m.add_function(wrap_pyfunction!(classify, m)?)?;
    m.add_function(wrap_pyfunction!(policy_schema, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    add_names(m, "ERROR_CODES", ErrorCode::ALL.iter().map(|c| c.as_str()))?;
    add_names(m, "STAGES", Stage::ALL.iter().map(|s| s.as_str()))?;
    add_names(
        m,
        "QUERY_CLASSES",
        QueryClass::ALL.iter().map(|c| c.as_str()),
    )?;
    add_names(m, "DIALECTS", Dialect::ALL.iter().map(|d| d.as_str()))?;
    add_names(
        m,
        "LIMIT_ACTIONS",
        LimitAction::ALL.iter().map(|a| a.as_str()),
    )?;
    Ok(())
}
