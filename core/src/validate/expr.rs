//! Expressions, walked with sqlparser's derived visitor so that no expression kind is skipped:
//! column references, function calls and stars go to the walker; nested queries go back to the
//! scope walker; casts to catalog types, server variables, sequences and variable assignments
//! are refused here.

use std::collections::HashSet;
use std::ops::ControlFlow;

use sqlparser::ast::{
    AccessExpr, BinaryOperator, DataType, Expr, Ident, ObjectName, Query, Spanned, Statement,
    TableFactor, Visit, Visitor,
};

use super::diagnostics as refuse;
use super::scope::Scope;
use super::{span_location, statement_keyword, Walker};
use crate::error::{GuardError, Location};
use crate::names::fold_ident;

impl Walker<'_, '_> {
    /// Walks every expression under `node` in `scope`.
    pub(super) fn exprs<T: Visit>(
        &mut self,
        node: &T,
        scope: &Scope<'_>,
    ) -> Result<(), GuardError> {
        let mut visitor = ExprVisitor {
            walker: self,
            scope,
            skip_depth: 0,
            skip_exprs: HashSet::new(),
            depth: 0,
            grows: false,
            error: None,
        };
        let _ = node.visit(&mut visitor);
        match visitor.error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Refuses `seq.nextval` / `seq.currval` (Snowflake, Oracle-style sequences): it reads like
    /// a column of `seq` but advances or reads a sequence. A FROM item named `seq` makes it a
    /// column.
    fn sequence_call(
        &self,
        qualifier: &[Ident],
        column: &Ident,
        scope: &Scope<'_>,
    ) -> Result<(), GuardError> {
        if column.quote_style.is_some()
            || !["nextval", "currval"]
                .iter()
                .any(|s| column.value.eq_ignore_ascii_case(s))
        {
            return Ok(());
        }
        let q: Vec<String> = qualifier
            .iter()
            .map(|i| fold_ident(i, self.dialect()))
            .collect();
        if scope.all_sources().any(|s| s.is_named(&q)) {
            return Ok(());
        }
        let sequence = qualifier
            .iter()
            .map(|i| i.value.as_str())
            .collect::<Vec<_>>()
            .join(".");
        Err(refuse::sequence_call(
            &sequence,
            &column.value,
            span_location(column.span),
        ))
    }
}

/// The derived visitor over expressions, handing nested queries back to the scope walker.
struct ExprVisitor<'w, 'c, 'a, 's, 'p> {
    walker: &'w mut Walker<'c, 'a>,
    scope: &'s Scope<'p>,
    /// Depth inside a nested query already checked by the walker.
    skip_depth: usize,
    /// Expressions already handled as part of their parent (field names, composite roots).
    skip_exprs: HashSet<*const Expr>,
    /// Depth in the expression being walked (0 between expressions).
    depth: usize,
    /// True when the expression being walked calls a function that can build a value larger
    /// than its arguments: its size is then composed (`bounds::compose`) when it ends.
    grows: bool,
    error: Option<GuardError>,
}

impl ExprVisitor<'_, '_, '_, '_, '_> {
    /// Continues on success; on a refusal keeps it and stops the walk.
    fn fail(&mut self, result: Result<(), GuardError>) -> ControlFlow<()> {
        match result {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                self.error = Some(e);
                ControlFlow::Break(())
            }
        }
    }

    /// `q.a` (after the sequence check), with server variables refused first.
    fn compound_identifier(&mut self, idents: &[Ident]) -> Result<(), GuardError> {
        server_variable(idents)?;
        match idents.split_last() {
            Some((column, qualifier)) => {
                self.walker.sequence_call(qualifier, column, self.scope)?;
                self.walker.column(qualifier, column, self.scope)
            }
            None => Ok(()),
        }
    }

    /// MySQL / MariaDB `MATCH (c1, c2) AGAINST (...)`: a full-text search reads its columns
    /// (a boolean-mode prefix search or a relevance ORDER BY reveals them a character at a
    /// time), so each is a column reference like any other, never a masked column's slot.
    fn match_against(&mut self, columns: &[ObjectName]) -> Result<(), GuardError> {
        for column in columns {
            let idents: Option<Vec<Ident>> = column
                .0
                .iter()
                .map(|part| part.as_ident().cloned())
                .collect();
            let Some(idents) = idents else {
                return Err(refuse::computed_qualifier(span_location(column.span())));
            };
            self.compound_identifier(&idents)?;
        }
        Ok(())
    }

    /// `root.field...` / `(root).field`: a column `root` (or `q.root`) and its first field,
    /// read as the column `root.field` when `root` names a FROM item. Field names after a dot
    /// are not columns of the scope.
    fn field_access(&mut self, root: &Expr, access_chain: &[AccessExpr]) -> Result<(), GuardError> {
        // A field label after a dot names no column; anything else there (sqlparser reads
        // `USER().DATABASE()` and `(c).f(x)` as a call in the chain) is an expression of its own,
        // walked and checked like any other.
        for access in access_chain {
            if let AccessExpr::Dot(field @ Expr::Identifier(_)) = access {
                self.skip_exprs.insert(field as *const Expr);
            }
        }
        let root_idents: Option<Vec<Ident>> = match root {
            Expr::Identifier(i) => Some(vec![i.clone()]),
            Expr::CompoundIdentifier(v) => Some(v.clone()),
            Expr::Nested(inner) => match inner.as_ref() {
                Expr::Identifier(i) => {
                    self.skip_exprs.insert(inner.as_ref() as *const Expr);
                    Some(vec![i.clone()])
                }
                _ => None,
            },
            _ => None,
        };
        match (root_idents, access_chain.first()) {
            (Some(idents), Some(AccessExpr::Dot(Expr::Identifier(field)))) => {
                self.skip_exprs.insert(root as *const Expr);
                self.walker.column(&idents, field, self.scope)
            }
            _ => Ok(()),
        }
    }
}

impl Visitor for ExprVisitor<'_, '_, '_, '_, '_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        if self.skip_depth == 0 {
            let result = self.walker.query(query, Some(self.scope)).map(|_| ());
            self.fail(result)?;
        }
        self.skip_depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
        self.skip_depth = self.skip_depth.saturating_sub(1);
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        if self.skip_depth == 0 {
            let location = span_location(factor.span());
            return self.fail(Err(refuse::table_outside_from(location)));
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_statement(&mut self, statement: &Statement) -> ControlFlow<()> {
        if self.skip_depth == 0 {
            let keyword = statement_keyword(statement);
            let location = span_location(statement.span());
            return self.fail(Err(refuse::nested_statement(&keyword, location)));
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        if self.skip_depth > 0 {
            return ControlFlow::Continue(());
        }
        self.depth += 1;
        if self.skip_exprs.contains(&(expr as *const Expr)) {
            // Handled with its parent: a field name, or a composite's root read as a column.
            self.walker.covered.resolved(expr);
            return ControlFlow::Continue(());
        }
        let scope = self.scope;
        let result = match expr {
            Expr::Identifier(ident) => server_variable(std::slice::from_ref(ident))
                .and_then(|()| self.walker.column(&[], ident, scope)),
            Expr::CompoundIdentifier(idents) => self.compound_identifier(idents),
            Expr::CompoundFieldAccess { root, access_chain } => {
                self.field_access(root, access_chain)
            }
            Expr::Function(function) => {
                self.grows = self.grows || self.walker.grows(function);
                self.walker.function(function, scope)
            }
            Expr::BinaryOp {
                op: BinaryOperator::Assignment,
                ..
            } => Err(refuse::variable_assignment(span_location(expr.span()))),
            Expr::Cast { data_type, .. } => catalog_type(data_type, span_location(expr.span())),
            Expr::TypedString(typed) => catalog_type(&typed.data_type, span_location(expr.span())),
            Expr::QualifiedWildcard(name, _) => {
                let location = span_location(name.span());
                self.walker
                    .star(Some(name), scope, &super::stars::LeftOut::NONE, location)
            }
            Expr::Wildcard(_) => self.walker.star(
                None,
                scope,
                &super::stars::LeftOut::NONE,
                span_location(expr.span()),
            ),
            Expr::MatchAgainst { columns, .. } => self.match_against(columns),
            _ => Ok(()),
        };
        self.walker.covered.resolved(expr);
        self.fail(result)
    }

    fn post_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        if self.skip_depth > 0 {
            return ControlFlow::Continue(());
        }
        self.depth = self.depth.saturating_sub(1);
        if self.depth == 0 && (std::mem::take(&mut self.grows) || self.walker.holds_generated()) {
            let result = self.walker.composed_size(expr);
            return self.fail(result);
        }
        ControlFlow::Continue(())
    }
}

/// PostgreSQL's OID alias types: a cast to one turns a number or a name into a catalog lookup
/// (`'pg_authid'::regclass`, `oid::regrole`), reading the system catalogs without naming them.
const CATALOG_TYPES: [&str; 11] = [
    "regclass",
    "regcollation",
    "regconfig",
    "regdictionary",
    "regnamespace",
    "regoper",
    "regoperator",
    "regproc",
    "regprocedure",
    "regrole",
    "regtype",
];

/// Refuses a cast or typed literal whose type (at any nesting, `regclass[]` too) is one of
/// [`CATALOG_TYPES`].
fn catalog_type(data_type: &DataType, location: Option<Location>) -> Result<(), GuardError> {
    let text = data_type.to_string().to_ascii_lowercase();
    let found = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .find(|word| CATALOG_TYPES.contains(word));
    match found {
        Some(name) => Err(refuse::catalog_type_cast(name, location)),
        None => Ok(()),
    }
}

/// Refuses a server or system variable (`@@datadir`, `@@session.sql_mode`, SQL Server's
/// `@@SERVERNAME`): they expose the server's configuration and paths.
fn server_variable(idents: &[Ident]) -> Result<(), GuardError> {
    match idents
        .iter()
        .find(|i| i.quote_style.is_none() && i.value.starts_with("@@"))
    {
        Some(ident) => Err(refuse::server_variable(
            &ident.value,
            span_location(ident.span),
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{code, guard, refusal, PII};

    #[test]
    fn casts_to_catalog_types_are_refused_at_any_nesting() {
        let g = guard(PII, "postgres");
        for sql in [
            "SELECT 'pg_authid'::regclass",
            "SELECT CAST(1 AS regrole)",
            "SELECT '{1}'::regclass[]",
        ] {
            let error = refusal(&g, sql).expect("refused");
            assert_eq!(error.code.as_str(), "system_catalog", "{sql}");
            assert_eq!(error.stage.as_str(), "validate", "{sql}");
        }
        assert_eq!(code(&g, "SELECT CAST(1 AS text)"), None);
    }

    #[test]
    fn sequences_read_like_columns_are_refused_unless_a_table_has_that_name() {
        let g = guard(PII, "snowflake");
        assert_eq!(
            code(&g, "SELECT seq.nextval").as_deref(),
            Some("function_not_allowed")
        );
        assert_eq!(code(&g, "SELECT seq.nextval FROM vendor seq"), None);
    }

    #[test]
    fn full_text_match_reads_its_columns() {
        for dialect in ["mysql", "generic"] {
            let g = guard(PII, dialect);
            for sql in [
                "SELECT first_name FROM customer WHERE MATCH (email) AGAINST ('a*' IN BOOLEAN MODE)",
                "SELECT first_name FROM customer ORDER BY MATCH (first_name, phone) AGAINST ('5')",
                "SELECT MATCH (customer.email) AGAINST ('x') FROM customer",
            ] {
                assert_eq!(
                    code(&g, sql).as_deref(),
                    Some("column_not_allowed"),
                    "{dialect}: {sql}"
                );
            }
            let sql = "SELECT first_name FROM customer WHERE MATCH (first_name) AGAINST ('ann')";
            assert_eq!(code(&g, sql), None, "{dialect}: {sql}");
        }
    }

    #[test]
    fn field_names_after_a_dot_are_not_columns() {
        let g = guard(PII, "postgres");
        // `(addr).email` reads the field `email` of the column `addr`, not customer's `email`.
        assert_eq!(code(&g, "SELECT (v.addr).email FROM vendor v"), None);
        assert_eq!(
            code(&g, "SELECT (c).email FROM customer c").as_deref(),
            Some("column_not_allowed")
        );
    }
}
