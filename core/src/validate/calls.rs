//! Function calls, in expressions and as FROM items: the function policy's decision, the
//! calls that are really stars (`COLUMNS(...)`, `f(*)`) or run-time names (`IDENTIFIER(...)`),
//! and which calls generate bytes or rows (bounded in `generated`).

use sqlparser::ast::{
    Function, FunctionArg, FunctionArgExpr, FunctionArguments, ObjectName, Spanned,
};

use super::diagnostics as refuse;
use super::scope::Scope;
use super::{span_location, Walker};
use crate::bounds::{self, Kind};
use crate::dialect::Dialect;
use crate::error::{GuardError, Location};
use crate::functions::{FunctionRefusal, FunctionUse};
use crate::names::fold_object_name;

impl Walker<'_, '_> {
    /// Checks a function name used as `used`: in an expression, or as a table in FROM (each
    /// dialect has a separate, shorter list of table functions), and records it. Returns what
    /// it generates (its kind and display name) when it is a generating function.
    pub(super) fn function_name_as(
        &mut self,
        name: &ObjectName,
        used: FunctionUse,
        location: Option<Location>,
    ) -> Result<Option<(Kind, String)>, GuardError> {
        // A stage, a path or a URL is data, whatever position it is called in
        // (`FROM @stage (FILE_FORMAT => 'csv')`): refused as it is in table position.
        if let Some(reason) = super::relation::data_in_name(name) {
            return Err(refuse::not_a_table(name, reason, location));
        }
        let Some(parts) = fold_object_name(name, self.dialect()) else {
            return Err(refuse::computed_function_name(location));
        };
        let display = parts
            .iter()
            .map(|p| p.to_lowercase())
            .collect::<Vec<_>>()
            .join(".");
        let functions = self.ctx.functions;
        let checked = match used {
            FunctionUse::Expression => functions.check(&parts),
            FunctionUse::Table => functions.check_table_function(&parts),
        };
        match checked {
            Ok(()) => {
                let last = display.rsplit('.').next().unwrap_or_default();
                let generating =
                    bounds::kind(last, used, self.dialect()).map(|k| (k, last.to_string()));
                self.analysis.functions.insert(display);
                Ok(generating)
            }
            Err(FunctionRefusal::Denied) => Err(refuse::function_denied(
                &display,
                used,
                functions.instead_of(&display),
                location,
            )),
            Err(FunctionRefusal::NotAllowlisted) => {
                let suggestion = match used {
                    FunctionUse::Expression => functions.suggest(&display),
                    FunctionUse::Table => functions.suggest_table_function(&display),
                };
                Err(refuse::function_not_allowlisted(
                    &display,
                    used,
                    functions.instead_of(&display),
                    suggestion.as_deref(),
                    location,
                ))
            }
        }
    }

    /// A function call in an expression.
    pub(super) fn function(
        &mut self,
        function: &Function,
        scope: &Scope<'_>,
    ) -> Result<(), GuardError> {
        self.covered.function_call();
        let location = span_location(function.name.span());
        if let [part] = function.name.0.as_slice() {
            let word = part
                .as_ident()
                .filter(|i| i.quote_style.is_none())
                .map(|i| i.value.to_ascii_lowercase());
            match word.as_deref() {
                // DuckDB's and ClickHouse's `COLUMNS('regex')` / `COLUMNS(*)` /
                // `COLUMNS(lambda)`: a star that picks columns by name at run time. Elsewhere
                // (PostgreSQL's `columns(*)`) it is a call of whatever function has that name:
                // the function policy decides first, and the call is still read as a star,
                // which only refuses more.
                Some("columns") => {
                    if !matches!(self.dialect(), Dialect::Duckdb | Dialect::Clickhouse) {
                        self.function_name_as(&function.name, FunctionUse::Expression, location)?;
                    }
                    self.star_arguments_resolved(function);
                    // `COLUMNS(* EXCLUDE (c))` covers what that star covers; any other argument
                    // (a regex, a lambda, a list) may pick any column.
                    return match single_argument(function) {
                        Some(FunctionArgExpr::WildcardWithOptions(options)) => {
                            self.star_with_options(None, options, scope, location)
                        }
                        _ => self.star(None, scope, &super::stars::LeftOut::NONE, location),
                    };
                }
                // Snowflake / Databricks `IDENTIFIER('name')`: a name chosen at run time.
                Some("identifier") => return Err(refuse::identifier_at_run_time(location)),
                _ => {}
            }
        }
        let generating =
            self.function_name_as(&function.name, FunctionUse::Expression, location)?;
        if let FunctionArguments::List(list) = &function.args {
            if let Some((kind, name)) = generating {
                self.generating_call(kind, &name, &list.args, location)?;
            }
            let last = function.name.0.last().and_then(|p| p.as_ident());
            if let Some(name) = last.map(|i| i.value.to_ascii_lowercase()) {
                if bounds::collects(&name) {
                    self.collecting_call(&name, &list.args, location)?;
                }
            }
        }
        // Stars in the argument lists (ClickHouse's parametric functions have two).
        for arguments in [&function.parameters, &function.args] {
            if let FunctionArguments::List(list) = arguments {
                for arg in &list.args {
                    self.star_argument(&function.name, arg, scope, location)?;
                }
            }
        }
        Ok(())
    }

    /// Records the star arguments of `function` as resolved: the call itself was read as a
    /// star over every FROM item.
    fn star_arguments_resolved(&mut self, function: &Function) {
        for arguments in [&function.parameters, &function.args] {
            if let FunctionArguments::List(list) = arguments {
                for arg in &list.args {
                    let (FunctionArg::Named { arg, .. }
                    | FunctionArg::ExprNamed { arg, .. }
                    | FunctionArg::Unnamed(arg)) = arg;
                    if super::coverage::is_star(arg) {
                        self.covered.resolved(arg);
                    }
                }
            }
        }
    }

    /// `f(t.*)` reads every column of `t`; `f(*)` every column of the FROM items, except in
    /// `count(*)`, which counts rows (Snowflake's `OBJECT_CONSTRUCT(*)`, `HASH(*)`, DuckDB's
    /// `struct_pack(*)`).
    fn star_argument(
        &mut self,
        function: &ObjectName,
        arg: &FunctionArg,
        scope: &Scope<'_>,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        let arg_expr = match arg {
            FunctionArg::Named { arg, .. }
            | FunctionArg::ExprNamed { arg, .. }
            | FunctionArg::Unnamed(arg) => arg,
        };
        if super::coverage::is_star(arg_expr) {
            self.covered.resolved(arg_expr);
        }
        match arg_expr {
            FunctionArgExpr::QualifiedWildcard(name) => {
                self.star(Some(name), scope, &super::stars::LeftOut::NONE, location)
            }
            FunctionArgExpr::Wildcard if !is_count(function) => {
                self.star(None, scope, &super::stars::LeftOut::NONE, location)
            }
            FunctionArgExpr::Wildcard | FunctionArgExpr::Expr(_) => Ok(()),
            // Snowflake's `HASH(* EXCLUDE (c))`: a star with its modifiers, as in a select list.
            FunctionArgExpr::WildcardWithOptions(options) => {
                self.star_with_options(None, options, scope, location)
            }
        }
    }
}

/// The one argument of `function`, when it has exactly one.
fn single_argument(function: &Function) -> Option<&FunctionArgExpr> {
    match &function.args {
        FunctionArguments::List(list) => match list.args.as_slice() {
            [FunctionArg::Unnamed(arg)] => Some(arg),
            _ => None,
        },
        _ => None,
    }
}

/// True for `count` (any case, unqualified).
fn is_count(name: &ObjectName) -> bool {
    matches!(name.0.as_slice(), [part] if part.as_ident().is_some_and(|i| i.value.eq_ignore_ascii_case("count")))
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{code, guard, PII};

    #[test]
    fn columns_is_a_star_only_where_the_engine_reads_one() {
        // PostgreSQL and SQLite: `columns(*)` calls a function of that name, which their
        // allowlists do not hold (fuzz: differential_pg). In a denylist dialect the call passes
        // the function policy and is still read as a star over the FROM items.
        for dialect in ["mysql", "snowflake", "generic"] {
            let g = guard(PII, dialect);
            assert_eq!(
                code(&g, "SELECT COLUMNS(*) FROM customer").as_deref(),
                Some("star_on_restricted_table"),
                "{dialect}"
            );
        }
        for dialect in ["postgres", "sqlite"] {
            let g = guard(PII, dialect);
            assert_eq!(
                code(&g, "SELECT COLUMNS(*) FROM customer").as_deref(),
                Some("function_not_allowed"),
                "{dialect}"
            );
        }
        for dialect in ["duckdb", "clickhouse"] {
            let g = guard(PII, dialect);
            assert_eq!(
                code(&g, "SELECT COLUMNS(*) FROM product"),
                None,
                "{dialect}"
            );
            assert_eq!(
                code(&g, "SELECT COLUMNS(*) FROM customer").as_deref(),
                Some("star_on_restricted_table"),
                "{dialect}"
            );
        }
    }

    #[test]
    fn a_series_over_literal_bounds_is_capped() {
        let g = guard(PII, "postgres");
        for sql in [
            "SELECT count(*) FROM generate_series(1, 100000000)",
            "SELECT count(*) FROM generate_series(-100000000, 1)",
            "SELECT count(*) FROM generate_series(1, 10, 0)",
            "SELECT generate_series(1, 100000000)",
        ] {
            assert_eq!(
                code(&g, sql).as_deref(),
                Some("generated_too_large"),
                "{sql}"
            );
        }
        for sql in [
            "SELECT count(*) FROM generate_series(1, 10)",
            // Counting down is empty, not unbounded.
            "SELECT count(*) FROM generate_series(10, 1)",
            "SELECT count(*) FROM generate_series(1, 100000000, 1000)",
        ] {
            assert_eq!(code(&g, sql), None, "{sql}");
        }
        let g = guard(PII, "duckdb");
        assert_eq!(
            code(&g, "SELECT count(*) FROM range(100000000)").as_deref(),
            Some("generated_too_large")
        );
    }

    #[test]
    fn a_collecting_aggregate_over_generated_rows_is_bounded() {
        let g = guard(PII, "postgres");
        for sql in [
            "SELECT string_agg(repeat('x', 1000000), '') FROM generate_series(1, 1000)",
            "SELECT length(array_agg(lpad('', 10000))::text) FROM generate_series(1, 1000)",
            "SELECT json_agg(lpad('', 100)) FROM generate_series(1, 10) a, generate_series(1, 100000) b",
            "SELECT (SELECT string_agg(repeat('ab', 1000), ',') FROM generate_series(1, 1000))",
        ] {
            assert_eq!(
                code(&g, sql).as_deref(),
                Some("generated_too_large"),
                "{sql}"
            );
        }
        for sql in [
            "SELECT string_agg(x::text, ',') FROM generate_series(1, 365) x",
            // Rows of a table are data: the aggregate reads what is stored.
            "SELECT string_agg(name, ',') FROM customer",
            "SELECT array_agg(lpad('', 100)) FROM generate_series(1, 100)",
        ] {
            assert_eq!(code(&g, sql), None, "{sql}");
        }
    }

    #[test]
    fn run_time_names_are_refused() {
        let g = guard(PII, "snowflake");
        assert_eq!(
            code(&g, "SELECT IDENTIFIER('email') FROM customer").as_deref(),
            Some("unsupported_syntax")
        );
        assert_eq!(
            code(&g, "SELECT * FROM TABLE('customer')").as_deref(),
            Some("unsupported_syntax")
        );
    }
}
