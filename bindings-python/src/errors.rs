//! Core's failures as Python exceptions: `sqlgate.Rejected` for a refused query (the one
//! exhaustive `match` over core's [`ErrorCode`]) and `sqlgate.PolicyError` for a policy that
//! cannot be used, its message in Python's words. The exception classes are plain Python classes
//! in `sqlgate._errors`, imported once and raised from here.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};
use sqlgate::{ErrorCode, GuardError, PolicyError, Rejection};

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
        | ErrorCode::BadRequest
        | ErrorCode::GeneratedTooLarge
        | ErrorCode::UnboundedGeneration
        | ErrorCode::MaskedColumn
        | ErrorCode::UnboundParameter => &REJECTED,
    }
}

/// Builds a `sqlgate.PolicyError` naming the field at fault.
pub(crate) fn policy_error(py: Python<'_>, field: &str, message: &str) -> PyErr {
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
pub(crate) fn from_policy_error(py: Python<'_>, error: &PolicyError) -> PyErr {
    policy_error(py, &error.field, &pythonic(&error.message))
}

/// Maps a core [`PolicyError`] about a policy given as JSON text to `sqlgate.PolicyError`: the
/// text says `null`, so the message keeps JSON's words.
pub(crate) fn from_json_policy_error(py: Python<'_>, error: &PolicyError) -> PyErr {
    policy_error(py, &error.field, &error.message)
}

/// A message of core's or serde's about a policy, in Python's words: JSON's `null` (core's "or
/// null for no cap", serde's "invalid type: null") is `None` to a caller who wrote Python
/// values. Only the whole word outside backticks is replaced: a quoted name stays as written.
pub(crate) fn pythonic(message: &str) -> String {
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
pub(crate) fn rejected(py: Python<'_>, rejection: Rejection) -> PyErr {
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
