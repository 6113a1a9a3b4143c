//! What a check returns when the guard approves: `Approved` (a query) and `ApprovedMutation`,
//! read-only views of core's [`Approved`] and [`ApprovedMutation`].

use pyo3::prelude::*;
use pyo3::types::PyString;
use pyo3::IntoPyObjectExt;
use sqlgate::{Approved, ApprovedMutation, MutationVerdict, Verdict};

use crate::to_python::to_python;

/// An approved query: execute `sql`, never the text that was submitted.
#[pyclass(frozen, module = "sqlgate._sqlgate", name = "Approved")]
pub struct PyApproved {
    inner: Approved,
}

#[pymethods]
impl PyApproved {
    /// SQL regenerated from the checked tree, row cap applied. Execute this.
    #[getter]
    fn sql(&self) -> &str {
        &self.inner.sql
    }

    /// Class of the statement (always `"select"` for an approved query).
    #[getter]
    fn query_class(&self) -> &'static str {
        self.inner.query_class.as_str()
    }

    /// Number of statements (always 1 when approved).
    #[getter]
    fn statement_count(&self) -> usize {
        self.inner.statement_count
    }

    /// Tables the query reads, sorted.
    #[getter]
    fn tables(&self) -> Vec<String> {
        self.inner.tables.clone()
    }

    /// Columns the query reads (`table.column`), when a catalog resolved them; sorted.
    #[getter]
    fn columns(&self) -> Vec<String> {
        self.inner.columns.clone()
    }

    /// Functions the query calls, sorted.
    #[getter]
    fn functions(&self) -> Vec<String> {
        self.inner.functions.clone()
    }

    /// What the row cap did: `{"action": ..., "value": ..., "original": ...}`.
    #[getter]
    fn limit<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &self.inner.limit)
    }

    /// Row filters applied (the policy's table names), sorted; empty when none.
    #[getter]
    fn row_filters(&self) -> Vec<String> {
        self.inner.row_filters.clone()
    }

    /// Placeholders in `sql` (`?`, `$1`, `:name`) in the order they appear, which the caller
    /// binds when it executes `sql`; empty when none.
    #[getter]
    fn parameters(&self) -> Vec<String> {
        self.inner.parameters.clone()
    }

    /// The verdict dict (`allowed: True`), identical to `Guard.verdict` for the same SQL.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &Verdict::from(Ok(self.inner.clone())))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let sql = PyString::new(py, &self.inner.sql).repr()?;
        let tables = self.tables().into_bound_py_any(py)?.repr()?;
        let limit = match self.inner.limit.value {
            Some(value) => value.to_string(),
            None => String::from("None"),
        };
        Ok(format!(
            "Approved(sql={sql}, query_class='{}', tables={tables}, limit={limit})",
            self.inner.query_class.as_str()
        ))
    }
}

/// An approved mutation: execute `sql`, never the text that was submitted.
#[pyclass(frozen, module = "sqlgate._sqlgate", name = "ApprovedMutation")]
pub struct PyApprovedMutation {
    inner: ApprovedMutation,
}

#[pymethods]
impl PyApprovedMutation {
    /// SQL regenerated from the checked tree. Execute this.
    #[getter]
    fn sql(&self) -> &str {
        &self.inner.sql
    }

    /// `"mutation_create"` (INSERT, UPDATE, MERGE without DELETE) or `"mutation_delete"`.
    #[getter]
    fn query_class(&self) -> &'static str {
        self.inner.query_class.as_str()
    }

    /// The table the statement modifies.
    #[getter]
    fn target(&self) -> &str {
        &self.inner.target
    }

    /// Tables the statement reads besides modifying the target, sorted.
    #[getter]
    fn tables_read(&self) -> Vec<String> {
        self.inner.tables_read.clone()
    }

    /// Columns of the target the statement writes, sorted (`["*"]`: every column).
    #[getter]
    fn columns_written(&self) -> Vec<String> {
        self.inner.columns_written.clone()
    }

    /// Functions the statement calls, sorted.
    #[getter]
    fn functions(&self) -> Vec<String> {
        self.inner.functions.clone()
    }

    /// True when a condition restricts the rows touched (UPDATE / DELETE with WHERE, MERGE).
    #[getter]
    fn has_where(&self) -> bool {
        self.inner.has_where
    }

    /// Row filters applied to the target and the tables read, sorted; empty when none.
    #[getter]
    fn row_filters(&self) -> Vec<String> {
        self.inner.row_filters.clone()
    }

    /// Placeholders in `sql` (`?`, `$1`, `:name`) in the order they appear, which the caller
    /// binds when it executes `sql`; empty when none.
    #[getter]
    fn parameters(&self) -> Vec<String> {
        self.inner.parameters.clone()
    }

    /// The mutation verdict dict (`allowed: True`), identical to `Guard.mutation_verdict`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &MutationVerdict::from(Ok(self.inner.clone())))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let sql = PyString::new(py, &self.inner.sql).repr()?;
        let target = PyString::new(py, &self.inner.target).repr()?;
        let columns = self.columns_written().into_bound_py_any(py)?.repr()?;
        Ok(format!(
            "ApprovedMutation(sql={sql}, query_class='{}', target={target}, \
             columns_written={columns}, has_where={})",
            self.inner.query_class.as_str(),
            if self.inner.has_where {
                "True"
            } else {
                "False"
            },
        ))
    }
}

impl From<Approved> for PyApproved {
    fn from(inner: Approved) -> Self {
        PyApproved { inner }
    }
}

impl From<ApprovedMutation> for PyApprovedMutation {
    fn from(inner: ApprovedMutation) -> Self {
        PyApprovedMutation { inner }
    }
}
