//! Python bindings for [`sqlgate`]: the native module `sqlgate._sqlgate`.
//!
//! This crate is a thin layer: it converts Python values to core types, forwards to
//! [`sqlgate::Guard`] with the GIL released, and maps core results back to Python objects and
//! exceptions. Every decision is made in core. The Python package `sqlgate`
//! (`python/sqlgate/__init__.py`) re-exports what is defined here; the exception classes
//! `Rejected` and `PolicyError` are plain Python classes in `sqlgate._errors`, raised from here.

#![forbid(unsafe_code)]

mod from_python;

use std::str::FromStr;

use from_python::from_python;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString, PyTuple, PyType};
use pyo3::{intern, IntoPyObjectExt};
use pythonize::pythonize;
use serde::de::DeserializeOwned;
use sqlgate::{
    Approved, ApprovedMutation, Dialect, ErrorCode, GuardError, LimitAction, MutationVerdict,
    Policy, PolicyError, QueryClass, Rejection, RowFilterRules, Stage, Vars, Verdict, WriteRules,
};
use sqlgate::{DEFAULT_MAX_DEPTH, DEFAULT_MAX_ROWS, DEFAULT_MAX_SQL_BYTES, DEFAULT_MAX_TOKENS};

/// mimalloc, as in pydantic-core and most napi-rs addons: a check allocates hundreds of small
/// nodes, and glibc's malloc and free were a quarter of its instructions.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

// The defaults spelled out in `Guard.__new__`'s text signature and in the `.pyi` stub.
const _: () = assert!(
    DEFAULT_MAX_ROWS == 1000
        && DEFAULT_MAX_SQL_BYTES == 262_144
        && DEFAULT_MAX_DEPTH == 64
        && DEFAULT_MAX_TOKENS == 16_000,
    "core defaults changed: update Guard's text_signature and _sqlgate.pyi"
);

/// An exception class of `sqlgate._errors` (plain Python classes), imported once.
struct ErrorClass {
    name: &'static str,
    class: PyOnceLock<Py<PyType>>,
}

impl ErrorClass {
    const fn new(name: &'static str) -> Self {
        ErrorClass {
            name,
            class: PyOnceLock::new(),
        }
    }

    fn get<'py>(&'static self, py: Python<'py>) -> PyResult<&'py Bound<'py, PyType>> {
        self.class.import(py, "sqlgate._errors", self.name)
    }
}

/// `sqlgate.Rejected`: the guard refused the SQL.
static REJECTED: ErrorClass = ErrorClass::new("Rejected");
/// `sqlgate.PolicyError`: the policy cannot be used.
static POLICY_ERROR: ErrorClass = ErrorClass::new("PolicyError");
/// `sqlgate._policy.policy_source`, imported once.
static POLICY_SOURCE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The Python exception a refusal with `code` raises.
///
/// The binding's one map of core's error codes, deliberately an exhaustive `match` without a
/// wildcard: a code added to core fails to compile here until someone decides how Python reports
/// it. The code's string itself is core's (`ErrorCode::as_str`), never written here.
fn exception_for(code: ErrorCode) -> &'static ErrorClass {
    match code {
        ErrorCode::Empty
        | ErrorCode::TooLarge
        | ErrorCode::TooDeep
        | ErrorCode::InvalidCharacter
        | ErrorCode::ParseError
        | ErrorCode::MultipleStatements
        | ErrorCode::StatementNotAllowed
        | ErrorCode::DataModifyingCte
        | ErrorCode::SelectInto
        | ErrorCode::LockingClause
        | ErrorCode::ExplainAnalyze
        | ErrorCode::FunctionNotAllowed
        | ErrorCode::TableNotAllowed
        | ErrorCode::SystemCatalog
        | ErrorCode::ColumnNotAllowed
        | ErrorCode::StarOnRestrictedTable
        | ErrorCode::UnknownTable
        | ErrorCode::UnknownColumn
        | ErrorCode::LimitNotLiteral
        | ErrorCode::UnsupportedSyntax
        | ErrorCode::InternalRoundtrip
        | ErrorCode::UnboundedMutation
        | ErrorCode::TableNotWritable
        | ErrorCode::RowFilter
        | ErrorCode::BadRequest => &REJECTED,
    }
}

/// Builds a `sqlgate.PolicyError` naming the field at fault.
fn policy_error(py: Python<'_>, field: &str, message: &str) -> PyErr {
    let built = POLICY_ERROR
        .get(py)
        .and_then(|cls| cls.call1((field, message)));
    match built {
        Ok(exc) => PyErr::from_value(exc),
        Err(err) => err,
    }
}

/// Maps a core [`PolicyError`] about a policy given as Python values to `sqlgate.PolicyError`,
/// in Python's words (see [`pythonic`]).
fn from_policy_error(py: Python<'_>, error: &PolicyError) -> PyErr {
    policy_error(py, &error.field, &pythonic(&error.message))
}

/// Maps a core [`PolicyError`] about a policy given as JSON text to `sqlgate.PolicyError`: the
/// text says `null`, so the message keeps JSON's words.
fn from_json_policy_error(py: Python<'_>, error: &PolicyError) -> PyErr {
    policy_error(py, &error.field, &error.message)
}

/// A message of core's or serde's about a policy, in Python's words: JSON's `null` (core's "or
/// null for no cap", serde's "invalid type: null") is `None` to a caller who wrote Python
/// values. Only the whole word outside backticks is replaced: a quoted name stays as written.
fn pythonic(message: &str) -> String {
    message
        .split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                part.to_string()
            } else {
                replace_word(part, "null", "None")
            }
        })
        .collect::<Vec<_>>()
        .join("`")
}

/// `text` with each whole-word `word` replaced by `with`.
fn replace_word(text: &str, word: &str, with: &str) -> String {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let (before, after) = (&rest[..at], &rest[at + word.len()..]);
        out.push_str(before);
        let starts = out.chars().next_back().is_none_or(|c| !is_word(c));
        let ends = after.chars().next().is_none_or(|c| !is_word(c));
        out.push_str(if starts && ends { with } else { word });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Builds the `sqlgate.Rejected` exception for a core [`Rejection`].
fn rejected(py: Python<'_>, rejection: Rejection) -> PyErr {
    match build_rejected(py, rejection) {
        Ok(exc) => PyErr::from_value(exc),
        Err(err) => err,
    }
}

fn build_rejected(py: Python<'_>, rejection: Rejection) -> PyResult<Bound<'_, PyAny>> {
    let Rejection {
        query_class,
        statement_count,
        error:
            GuardError {
                code,
                stage,
                message,
                retryable,
                hint,
                location,
            },
    } = rejection;
    let kwargs = PyDict::new(py);
    kwargs.set_item(intern!(py, "code"), code.as_str())?;
    kwargs.set_item(intern!(py, "stage"), stage.as_str())?;
    kwargs.set_item(intern!(py, "retryable"), retryable)?;
    kwargs.set_item(intern!(py, "hint"), hint)?;
    let location = match location {
        Some(loc) => {
            let dict = PyDict::new(py);
            dict.set_item(intern!(py, "line"), loc.line)?;
            dict.set_item(intern!(py, "column"), loc.column)?;
            dict.into_any()
        }
        None => py.None().into_bound(py),
    };
    kwargs.set_item(intern!(py, "location"), location)?;
    kwargs.set_item(intern!(py, "query_class"), query_class.as_str())?;
    kwargs.set_item(intern!(py, "statement_count"), statement_count)?;
    let cls = exception_for(code).get(py)?;
    cls.call((message,), Some(&kwargs))
}

/// Converts any serde value (core's verdict, policy, limit) to plain Python objects.
fn to_python<'py, T: serde::Serialize>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    pythonize(py, value).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Parses a dialect name (aliases such as `postgresql` and `sqlserver` are accepted by core).
fn parse_dialect(py: Python<'_>, name: &str) -> PyResult<Dialect> {
    Dialect::from_str(name).map_err(|message| policy_error(py, "dialect", &message))
}

/// Converts an optional Python mapping into one section of the policy (the section's default
/// when it is `None` or absent).
fn section<T: DeserializeOwned + Default>(
    py: Python<'_>,
    field: &str,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<T> {
    Ok(optional_section(py, field, value)?.unwrap_or_default())
}

/// Converts an optional Python mapping into a section the policy may lack (`catalog`,
/// `writes`): `None` when absent. The error names the section as its field and says where
/// inside it the fault is.
fn optional_section<T: DeserializeOwned>(
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
fn vars_from_python(py: Python<'_>, value: Option<&Bound<'_, PyAny>>) -> PyResult<Vars> {
    Ok(optional_section::<Vars>(py, "vars", value)?.unwrap_or_default())
}

/// Converts a whole policy given as a Python mapping; the error's field is the path at fault,
/// as core's [`Policy::from_json`] names it.
fn policy_from_python(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Policy> {
    from_python(value, |path, message| {
        let field = match path {
            "." => "policy",
            inner => inner,
        };
        policy_error(py, field, &pythonic(message))
    })
}

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
    ))]
    #[pyo3(
        text_signature = "(dialect='postgres', max_rows=1000, allow_explain=False, \
        functions=None, tables=None, columns=None, catalog=None, max_sql_bytes=262144, \
        max_depth=64, allow_system_catalogs=False, max_tokens=16000, mysql_ansi_quotes=None, \
        writes=None, rows=None)"
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
    ) -> PyResult<Self> {
        let policy = Policy {
            dialect: parse_dialect(py, dialect)?,
            max_rows,
            max_sql_bytes,
            max_depth,
            max_tokens,
            allow_explain,
            allow_system_catalogs,
            functions: section(py, "functions", functions)?,
            tables: section(py, "tables", tables)?,
            columns: section(py, "columns", columns)?,
            catalog: optional_section(py, "catalog", catalog)?,
            mysql_ansi_quotes,
            writes: optional_section::<WriteRules>(py, "writes", writes)?,
            rows: optional_section::<RowFilterRules>(py, "rows", rows)?,
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
        let vars = vars_from_python(py, vars)?;
        match py.detach(|| self.inner.check_with(sql, &vars)) {
            Ok(inner) => Ok(PyApproved { inner }),
            Err(rejection) => Err(rejected(py, rejection)),
        }
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
        let vars = vars_from_python(py, vars)?;
        match py.detach(|| self.inner.check_with_vars_and_row_cap(sql, &vars, max_rows)) {
            Ok(inner) => Ok(PyApproved { inner }),
            Err(rejection) => Err(rejected(py, rejection)),
        }
    }

    /// The verdict for `sql` as a dict in the shared JSON shape; never raises for a refusal.
    #[pyo3(signature = (sql, vars = None))]
    fn verdict<'py>(
        &self,
        py: Python<'py>,
        sql: &str,
        vars: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let vars = vars_from_python(py, vars)?;
        let verdict = py.detach(|| self.inner.verdict_with(sql, &vars));
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
        let vars = vars_from_python(py, vars)?;
        Ok(py.detach(|| self.inner.verdict_with(sql, &vars).to_json()))
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
        let vars = vars_from_python(py, vars)?;
        match py.detach(|| self.inner.check_mutation_with(sql, &vars)) {
            Ok(inner) => Ok(PyApprovedMutation { inner }),
            Err(rejection) => Err(rejected(py, rejection)),
        }
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
        let vars = vars_from_python(py, vars)?;
        let verdict = py.detach(|| self.inner.mutation_verdict_with(sql, &vars));
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
        let vars = vars_from_python(py, vars)?;
        Ok(py.detach(|| self.inner.mutation_verdict_with(sql, &vars).to_json()))
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
        let text = serde_json::to_string(slf.get().inner.policy())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let constructor = slf.get_type().getattr(intern!(py, "from_policy"))?;
        Ok((constructor, PyTuple::new(py, [text])?))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let policy = self.inner.policy();
        let current =
            serde_json::to_value(policy).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let default = serde_json::to_value(Policy::for_dialect(policy.dialect))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
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
