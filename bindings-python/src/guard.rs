//! `Guard`: a compiled policy, built from keyword arguments or a whole policy, and its checks,
//! each run with the GIL released.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyString, PyTuple, PyType};
use sqlgate::{
    Policy, PolicyError, Rejection, RowFilterRules, Vars, WriteRules, DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_GENERATED_BYTES, DEFAULT_MAX_GENERATED_ROWS, DEFAULT_MAX_ROWS,
    DEFAULT_MAX_SQL_BYTES, DEFAULT_MAX_TOKENS,
};

use crate::approved::{PyApproved, PyApprovedMutation};
use crate::errors::{from_json_policy_error, from_policy_error, rejected};
use crate::policy::{
    optional_section, parse_dialect, policy_from_python, section, vars_from_python,
};
use crate::to_python::{to_python, value_error};

/// `sqlgate._policy.policy_source`, imported once.
static POLICY_SOURCE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// A compiled policy. Build it once and share it between threads: checks release the GIL.
#[pyclass(frozen, module = "sqlgate._sqlgate", name = "Guard")]
pub struct PyGuard {
    inner: sqlgate::Guard,
}

impl PyGuard {
    /// Compiles a policy given as Python values (keyword arguments, a mapping).
    fn build(py: Python<'_>, policy: Policy) -> PyResult<Self> {
        Self::build_with(py, policy, from_policy_error)
    }

    fn build_with(
        py: Python<'_>,
        policy: Policy,
        error: fn(Python<'_>, &PolicyError) -> PyErr,
    ) -> PyResult<Self> {
        sqlgate::Guard::new(policy)
            .map(|inner| PyGuard { inner })
            .map_err(|e| error(py, &e))
    }

    /// Reads `vars` (a `PolicyError` when it is bad), then runs `check` on the guard with the
    /// GIL released: the one way every check method reaches core.
    fn detached<T: Send>(
        &self,
        py: Python<'_>,
        vars: Option<&Bound<'_, PyAny>>,
        check: impl FnOnce(&sqlgate::Guard, &Vars) -> T + Send,
    ) -> PyResult<T> {
        let vars = vars_from_python(py, vars)?;
        Ok(py.detach(|| check(&self.inner, &vars)))
    }
}

#[pymethods]
impl PyGuard {
    #[new]
    #[pyo3(signature = (
        dialect = "postgres",
        max_rows = Some(DEFAULT_MAX_ROWS),
        allow_explain = false,
        functions = None,
        tables = None,
        columns = None,
        catalog = None,
        max_sql_bytes = DEFAULT_MAX_SQL_BYTES,
        max_depth = DEFAULT_MAX_DEPTH,
        allow_system_catalogs = false,
        max_tokens = DEFAULT_MAX_TOKENS,
        mysql_ansi_quotes = None,
        writes = None,
        rows = None,
        max_generated_bytes = DEFAULT_MAX_GENERATED_BYTES,
        max_generated_rows = DEFAULT_MAX_GENERATED_ROWS,
        allow_unbounded_recursion = false,
        annotations = None,
        pii = None,
    ))]
    #[pyo3(
        text_signature = "(dialect='postgres', max_rows=1000, allow_explain=False, \
        functions=None, tables=None, columns=None, catalog=None, max_sql_bytes=262144, \
        max_depth=64, allow_system_catalogs=False, max_tokens=16000, mysql_ansi_quotes=None, \
        writes=None, rows=None, max_generated_bytes=1048576, max_generated_rows=1000000, \
        allow_unbounded_recursion=False, annotations=None, pii=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        dialect: &str,
        max_rows: Option<u64>,
        allow_explain: bool,
        functions: Option<&Bound<'_, PyAny>>,
        tables: Option<&Bound<'_, PyAny>>,
        columns: Option<&Bound<'_, PyAny>>,
        catalog: Option<&Bound<'_, PyAny>>,
        max_sql_bytes: usize,
        max_depth: usize,
        allow_system_catalogs: bool,
        max_tokens: usize,
        mysql_ansi_quotes: Option<bool>,
        writes: Option<&Bound<'_, PyAny>>,
        rows: Option<&Bound<'_, PyAny>>,
        max_generated_bytes: u64,
        max_generated_rows: u64,
        allow_unbounded_recursion: bool,
        annotations: Option<&Bound<'_, PyAny>>,
        pii: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let policy = Policy {
            dialect: parse_dialect(py, dialect)?,
            max_rows,
            max_sql_bytes,
            max_depth,
            max_tokens,
            max_generated_bytes,
            max_generated_rows,
            allow_unbounded_recursion,
            allow_explain,
            allow_system_catalogs,
            functions: section(py, "functions", functions)?,
            tables: section(py, "tables", tables)?,
            columns: section(py, "columns", columns)?,
            catalog: optional_section(py, "catalog", catalog)?,
            mysql_ansi_quotes,
            writes: optional_section::<WriteRules>(py, "writes", writes)?,
            rows: optional_section::<RowFilterRules>(py, "rows", rows)?,
            annotations: section(py, "annotations", annotations)?,
            pii: section(py, "pii", pii)?,
        };
        Self::build(py, policy)
    }

    /// A guard from a whole policy: a mapping, JSON text, or a path to a `.json` / `.toml` file.
    #[classmethod]
    fn from_policy(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        policy: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let loader = POLICY_SOURCE.import(py, "sqlgate._policy", "policy_source")?;
        let source = loader.call1((policy,))?;
        match source.cast::<PyString>() {
            Ok(text) => {
                let policy = Policy::from_json(text.to_str()?)
                    .map_err(|e| from_json_policy_error(py, &e))?;
                Self::build_with(py, policy, from_json_policy_error)
            }
            Err(_) => Self::build(py, policy_from_python(py, &source)?),
        }
    }

    /// Checks `sql`: returns the `Approved` query or raises `Rejected`. `vars` binds the
    /// policy's row filter variables (`{"tenant": 42}`).
    #[pyo3(signature = (sql, vars = None))]
    fn check(
        &self,
        py: Python<'_>,
        sql: &str,
        vars: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyApproved> {
        let checked = self.detached(py, vars, |guard, vars| guard.check_with(sql, vars))?;
        approved(py, checked)
    }

    /// Like `check` with another row cap than the policy's (`None`: no cap; `0` raises
    /// `Rejected` with `bad_request`). A tool that must tell "exactly N rows" from "cut at N"
    /// asks for `N + 1` here and returns at most `N` rows.
    #[pyo3(signature = (sql, max_rows, vars = None))]
    fn check_with_row_cap(
        &self,
        py: Python<'_>,
        sql: &str,
        max_rows: Option<u64>,
        vars: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyApproved> {
        let checked = self.detached(py, vars, |guard, vars| {
            guard.check_with_vars_and_row_cap(sql, vars, max_rows)
        })?;
        approved(py, checked)
    }

    /// The verdict for `sql` as a dict in the shared JSON shape; never raises for a refusal.
    #[pyo3(signature = (sql, vars = None))]
    fn verdict<'py>(
        &self,
        py: Python<'py>,
        sql: &str,
        vars: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let verdict = self.detached(py, vars, |guard, vars| guard.verdict_with(sql, vars))?;
        to_python(py, &verdict)
    }

    /// The verdict as JSON text (the core's serialisation, byte for byte).
    #[pyo3(signature = (sql, vars = None))]
    fn verdict_json(
        &self,
        py: Python<'_>,
        sql: &str,
        vars: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        self.detached(py, vars, |guard, vars| {
            guard.verdict_with(sql, vars).to_json()
        })
    }

    /// Checks `sql` as one mutation under the policy's `writes`: returns the
    /// `ApprovedMutation` or raises `Rejected`. `check` still refuses every mutation.
    #[pyo3(signature = (sql, vars = None))]
    fn check_mutation(
        &self,
        py: Python<'_>,
        sql: &str,
        vars: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyApprovedMutation> {
        let checked =
            self.detached(py, vars, |guard, vars| guard.check_mutation_with(sql, vars))?;
        approved(py, checked)
    }

    /// The mutation verdict for `sql` as a dict in the shared JSON shape; never raises for a
    /// refusal.
    #[pyo3(signature = (sql, vars = None))]
    fn mutation_verdict<'py>(
        &self,
        py: Python<'py>,
        sql: &str,
        vars: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let verdict = self.detached(py, vars, |guard, vars| {
            guard.mutation_verdict_with(sql, vars)
        })?;
        to_python(py, &verdict)
    }

    /// The mutation verdict as JSON text (the core's serialisation, byte for byte).
    #[pyo3(signature = (sql, vars = None))]
    fn mutation_verdict_json(
        &self,
        py: Python<'_>,
        sql: &str,
        vars: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        self.detached(py, vars, |guard, vars| {
            guard.mutation_verdict_with(sql, vars).to_json()
        })
    }

    /// The variables the policy's row filters need, sorted.
    #[getter]
    fn row_filter_variables(&self) -> Vec<String> {
        self.inner.row_filter_variables()
    }

    /// The effective policy, every field filled in, as a dict.
    #[getter]
    fn policy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, self.inner.policy())
    }

    /// The dialect name.
    #[getter]
    fn dialect(&self) -> &'static str {
        self.inner.policy().dialect.as_str()
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let text = serde_json::to_string(slf.get().inner.policy()).map_err(value_error)?;
        let constructor = slf.get_type().getattr(intern!(py, "from_policy"))?;
        Ok((constructor, PyTuple::new(py, [text])?))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let policy = self.inner.policy();
        let current = serde_json::to_value(policy).map_err(value_error)?;
        let default =
            serde_json::to_value(Policy::for_dialect(policy.dialect)).map_err(value_error)?;
        let mut parts = Vec::new();
        if let serde_json::Value::Object(fields) = &current {
            for (key, value) in fields {
                let always = key == "dialect" || key == "max_rows";
                if always || default.get(key) != Some(value) {
                    let shown = to_python(py, value)?.repr()?;
                    parts.push(format!("{key}={shown}"));
                }
            }
        }
        Ok(format!("Guard({})", parts.join(", ")))
    }
}

/// What a check approved as its Python class, or its refusal raised as `sqlgate.Rejected`.
fn approved<T, P: From<T>>(py: Python<'_>, checked: Result<T, Rejection>) -> PyResult<P> {
    checked
        .map(P::from)
        .map_err(|rejection| rejected(py, rejection))
}
