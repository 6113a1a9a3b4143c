//! Coverage: the walker's promise that nothing in an approved statement went unchecked.
//!
//! sqlparser's derived visitor reaches every query, table factor and expression of a statement,
//! whatever syntax holds them. The walker records what it handled: each query, table factor and
//! function call it checked, and the address of every node that names columns which it resolved
//! (a column reference, a star, a full-text `MATCH` list, a star argument of a function, a field
//! name after a dot). [`verify`] then walks the tree once with the derived visitor and refuses
//! the statement when it reaches a node of those kinds that the walker did not record: a part
//! of the syntax the walker does not model (a star modifier's expressions, a new clause of a
//! newer sqlparser) is refused until it is modelled, never passed unchecked.
//!
//! Which expressions name columns is decided by one exhaustive `match` over sqlparser's `Expr`
//! ([`names_columns`]), so that a variant a new sqlparser adds fails to compile until someone
//! decides whether it carries names.

use std::ops::ControlFlow;

use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Query, Spanned, TableFactor, Value,
    Visit, Visitor,
};

use super::diagnostics as refuse;
use super::span_location;
use crate::error::GuardError;

/// What the walker handled: nodes counted, and the addresses of the name-bearing nodes it
/// resolved.
#[derive(Debug, Default)]
pub(super) struct Coverage {
    queries: usize,
    table_factors: usize,
    function_calls: usize,
    /// Addresses of resolved name-bearing nodes (`Expr`s and `FunctionArgExpr` stars); sorted
    /// by [`verify`] before it looks them up.
    names: Vec<usize>,
}

impl Coverage {
    /// The walker checked a query.
    pub(super) fn query(&mut self) {
        self.queries += 1;
    }

    /// The walker checked a FROM item (or a mutation's target).
    pub(super) fn table_factor(&mut self) {
        self.table_factors += 1;
    }

    /// The walker checked a function call.
    pub(super) fn function_call(&mut self) {
        self.function_calls += 1;
    }

    /// The walker resolved the names `node` holds (or decided they are not columns, such as a
    /// field name after a dot).
    pub(super) fn resolved<T>(&mut self, node: &T) {
        self.names.push(std::ptr::from_ref(node) as usize);
    }
}

/// Refuses `node` unless the walker that produced `covered` handled every query, table factor
/// and function call in it and resolved every name-bearing node the derived visitor reaches.
/// Returns the placeholders it holds (`?`, `$1`, `:name`), in the order the visitor reaches
/// them: values the engine takes from outside the SQL text, which a caller must bind.
pub(super) fn verify<T: Visit + Spanned>(
    node: &T,
    covered: Coverage,
) -> Result<Vec<String>, GuardError> {
    let Coverage {
        queries,
        table_factors,
        function_calls,
        mut names,
    } = covered;
    names.sort_unstable();
    let mut reached = Reached {
        names: &names,
        queries: 0,
        table_factors: 0,
        function_calls: 0,
        unresolved: None,
        parameters: Vec::new(),
    };
    let _ = node.visit(&mut reached);
    if let Some(error) = reached.unresolved {
        return Err(error);
    }
    if (
        reached.queries,
        reached.table_factors,
        reached.function_calls,
    ) != (queries, table_factors, function_calls)
    {
        return Err(refuse::not_understood(span_location(node.span())));
    }
    Ok(reached.parameters)
}

/// The derived visitor's side of the comparison.
struct Reached<'n> {
    names: &'n [usize],
    queries: usize,
    table_factors: usize,
    function_calls: usize,
    unresolved: Option<GuardError>,
    /// Placeholders met, in order.
    parameters: Vec<String>,
}

impl Reached<'_> {
    fn is_resolved<T>(&self, node: &T) -> bool {
        self.names
            .binary_search(&(std::ptr::from_ref(node) as usize))
            .is_ok()
    }

    fn refuse(&mut self, what: &dyn std::fmt::Display, expr: &Expr) -> ControlFlow<()> {
        self.unresolved = Some(refuse::unresolved_name(
            &what.to_string(),
            span_location(expr.span()),
        ));
        ControlFlow::Break(())
    }
}

impl Visitor for Reached<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
        self.queries += 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, _: &TableFactor) -> ControlFlow<()> {
        self.table_factors += 1;
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        if names_columns(expr) && !self.is_resolved(expr) {
            return self.refuse(expr, expr);
        }
        if let Expr::Value(value) = expr {
            if let Value::Placeholder(name) = &value.value {
                self.parameters.push(name.clone());
            }
        }
        if let Expr::Function(function) = expr {
            self.function_calls += 1;
            for arguments in [&function.parameters, &function.args] {
                let FunctionArguments::List(list) = arguments else {
                    continue;
                };
                for arg in &list.args {
                    let (FunctionArg::Named { arg, .. }
                    | FunctionArg::ExprNamed { arg, .. }
                    | FunctionArg::Unnamed(arg)) = arg;
                    if is_star(arg) && !self.is_resolved(arg) {
                        return self.refuse(&function.name, expr);
                    }
                }
            }
        }
        ControlFlow::Continue(())
    }
}

/// A star argument (`f(*)`, `f(t.*)`, Snowflake's `f(* EXCLUDE (c))`): it reads columns
/// without naming them in an expression.
pub(super) fn is_star(arg: &FunctionArgExpr) -> bool {
    match arg {
        FunctionArgExpr::Expr(_) => false,
        FunctionArgExpr::QualifiedWildcard(_)
        | FunctionArgExpr::Wildcard
        | FunctionArgExpr::WildcardWithOptions(_) => true,
    }
}

/// True when `expr` itself names columns of the query's FROM items, in fields that the visitor
/// does not reach as expressions of their own. Every other variant either holds only
/// expressions (visited, and checked, on their own) or names things that are not columns: a
/// collation, a character set, a type, a struct field's label, a lambda's parameters, a JSON
/// path.
fn names_columns(expr: &Expr) -> bool {
    match expr {
        Expr::Identifier(_)
        | Expr::CompoundIdentifier(_)
        | Expr::Wildcard(_)
        | Expr::QualifiedWildcard(..)
        | Expr::MatchAgainst { .. } => true,
        Expr::CompoundFieldAccess { .. }
        | Expr::JsonAccess { .. }
        | Expr::IsFalse(_)
        | Expr::IsNotFalse(_)
        | Expr::IsTrue(_)
        | Expr::IsNotTrue(_)
        | Expr::IsNull(_)
        | Expr::IsNotNull(_)
        | Expr::IsUnknown(_)
        | Expr::IsNotUnknown(_)
        | Expr::IsDistinctFrom(..)
        | Expr::IsNotDistinctFrom(..)
        | Expr::IsJson { .. }
        | Expr::IsNormalized { .. }
        | Expr::In { .. }
        | Expr::Between { .. }
        | Expr::BinaryOp { .. }
        | Expr::Like { .. }
        | Expr::ILike { .. }
        | Expr::SimilarTo { .. }
        | Expr::RLike { .. }
        | Expr::AnyOp { .. }
        | Expr::AllOp { .. }
        | Expr::UnaryOp { .. }
        | Expr::Convert { .. }
        | Expr::Cast { .. }
        | Expr::AtTimeZone { .. }
        | Expr::Extract { .. }
        | Expr::Ceil { .. }
        | Expr::Floor { .. }
        | Expr::Position { .. }
        | Expr::Substring { .. }
        | Expr::Trim { .. }
        | Expr::Overlay { .. }
        | Expr::Collate { .. }
        | Expr::Nested(_)
        | Expr::Value(_)
        | Expr::Prefixed { .. }
        | Expr::TypedString(_)
        | Expr::Function(_)
        | Expr::Case { .. }
        | Expr::Exists { .. }
        | Expr::Subquery(_)
        | Expr::GroupingSets(_)
        | Expr::Cube(_)
        | Expr::Rollup(_)
        | Expr::Tuple(_)
        | Expr::Struct { .. }
        | Expr::Named { .. }
        | Expr::Dictionary(_)
        | Expr::Map(_)
        | Expr::Array(_)
        | Expr::Interval(_)
        | Expr::OuterJoin(_)
        | Expr::Prior(_)
        | Expr::Lambda(_)
        | Expr::MemberOf(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use sqlparser::ast::helpers::attached_token::AttachedToken;
    use sqlparser::ast::{Expr, Ident, ObjectName, Query, SetExpr, Statement};
    use sqlparser::dialect::{GenericDialect, MySqlDialect, SnowflakeDialect};
    use sqlparser::parser::Parser;

    use super::super::test_support::{code, guard, PII};
    use super::{verify, Coverage};

    fn query(dialect: &dyn sqlparser::dialect::Dialect, sql: &str) -> Query {
        match Parser::parse_sql(dialect, sql).expect("parses").pop() {
            Some(Statement::Query(q)) => *q,
            other => panic!("not a query: {other:?}"),
        }
    }

    /// Each kind of node that names columns, in a tree the walker never saw (an empty
    /// coverage): the verifier refuses it, naming the construct.
    #[test]
    fn every_name_bearing_node_unresolved_is_refused() {
        let generic = GenericDialect {};
        let cases: [(&dyn sqlparser::dialect::Dialect, &str, &str); 7] = [
            (&generic, "SELECT 1 WHERE email = 'x'", "email"),
            (&generic, "SELECT 1 WHERE c.email = 'x'", "c.email"),
            (
                &MySqlDialect {},
                "SELECT MATCH (email) AGAINST ('a*' IN BOOLEAN MODE)",
                "MATCH",
            ),
            (&generic, "SELECT to_json(c.*)", "to_json"),
            (&generic, "SELECT hash(*)", "hash"),
            (&SnowflakeDialect {}, "SELECT hash(* EXCLUDE (a))", "hash"),
            (
                &generic,
                "SELECT coalesce(1, 2) FILTER (WHERE email > '')",
                "email",
            ),
        ];
        for (dialect, sql, named) in cases {
            let tree = query(dialect, sql);
            let error = verify(&tree, Coverage::default()).expect_err(sql);
            assert_eq!(error.code.as_str(), "unsupported_syntax", "{sql}");
            assert!(error.message.contains(named), "{sql}: {}", error.message);
        }
        // Stars as expressions, which the parser only builds in a select list: by hand.
        for star in [
            Expr::Wildcard(AttachedToken::empty()),
            Expr::QualifiedWildcard(
                ObjectName::from(vec![Ident::new("c")]),
                AttachedToken::empty(),
            ),
        ] {
            let mut tree = query(&generic, "SELECT 1 WHERE x");
            let SetExpr::Select(select) = tree.body.as_mut() else {
                panic!("a select")
            };
            select.selection = Some(star);
            let error = verify(&tree, Coverage::default()).expect_err("a star");
            assert!(error.message.contains('*'), "{}", error.message);
        }
        // Nothing that names a column: only the counts are compared.
        let tree = query(&generic, "SELECT 1 + 2");
        let mut walked = Coverage::default();
        walked.query();
        assert!(verify(&tree, walked).is_ok_and(|parameters| parameters.is_empty()));
    }

    /// The walker's own record passes the verifier on what it resolves, everywhere it looks.
    #[test]
    fn what_the_walker_resolves_passes() {
        let g = guard(PII, "duckdb");
        for sql in [
            "SELECT * EXCLUDE (email, phone) REPLACE (upper(first_name) AS first_name) FROM customer",
            "SELECT (v.addr).zip, v.* FROM vendor v",
            "SELECT count(*), list_transform([1, 2], x -> x + 1) FROM vendor",
            "SELECT struct_pack(a := 1), {'k': vendor_id} FROM vendor",
        ] {
            assert_eq!(code(&g, sql), None, "{sql}");
        }
    }
}
