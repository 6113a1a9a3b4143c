//! The row filters' variables in their text: `:name` placeholders, and binding each to the
//! literal of its value in one check's [`Vars`].

use std::ops::ControlFlow;

use sqlparser::ast::{Expr, Value, VisitMut, VisitorMut};

use super::vars::Vars;
use crate::error::{ErrorCode, GuardError, Stage};

/// `:name` to `name`, when `name` is a plain identifier.
pub(super) fn variable_name(placeholder: &str) -> Option<&str> {
    let name = placeholder.strip_prefix(':')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic() || first == '_')
        .then_some(())
        .filter(|_| chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .map(|_| name)
}

/// Replaces every `:name` in `tree` with the literal of its value.
pub(super) fn bind<T: VisitMut>(tree: &mut T, vars: &Vars, table: &str) -> Result<(), GuardError> {
    let mut binder = Binder { vars, table };
    match tree.visit(&mut binder) {
        ControlFlow::Break(e) => Err(e),
        ControlFlow::Continue(()) => Ok(()),
    }
}

struct Binder<'a> {
    vars: &'a Vars,
    table: &'a str,
}

impl VisitorMut for Binder<'_> {
    type Break = GuardError;

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<GuardError> {
        let Expr::Value(v) = expr else {
            return ControlFlow::Continue(());
        };
        let Value::Placeholder(p) = &v.value else {
            return ControlFlow::Continue(());
        };
        let Some(name) = variable_name(p) else {
            return ControlFlow::Continue(());
        };
        match literal_of(self.vars, name, self.table) {
            Ok(literal) => {
                *expr = literal;
                ControlFlow::Continue(())
            }
            Err(e) => ControlFlow::Break(e),
        }
    }
}

/// The literal `vars` binds `name` to; `table` names the filter in the refusal.
pub(super) fn literal_of(vars: &Vars, name: &str, table: &str) -> Result<Expr, GuardError> {
    let refused = |message: String| {
        GuardError::new(ErrorCode::RowFilter, Stage::Rewrite, message).with_hint(
            "this is the caller's configuration, not the query: report it to the operator",
        )
    };
    match vars.get(name).map(|v| v.literal()) {
        Some(Some(literal)) => Ok(literal),
        Some(None) => Err(refused(format!(
            "the row filter of `{table}` got a value for `:{name}` it cannot bind: a number \
             that is not finite, or text with a backslash or NUL"
        ))),
        None => Err(refused(format!(
            "the row filter of `{table}` needs the variable `:{name}`, and this check has none"
        ))),
    }
}
