//! One SELECT: its refused clauses, its FROM items, its projection (stars included) and the
//! clauses that read the FROM items (WHERE, GROUP BY, HAVING, WINDOW, QUALIFY, ...).

use sqlparser::ast::{
    GroupByExpr, OptimizerHint, Select, SelectInto, SelectItem, SelectItemQualifiedWildcardKind,
    TableWithJoins,
};

use super::diagnostics as refuse;
use super::scope::Scope;
use super::{span_location, Walker};
use crate::error::{GuardError, Location};
use crate::names::fold_ident;

impl Walker<'_, '_> {
    /// Checks a SELECT and returns its scope (FROM items and select-list aliases).
    pub(super) fn select<'s>(
        &mut self,
        select: &Select,
        parent: &'s Scope<'s>,
    ) -> Result<Scope<'s>, GuardError> {
        // Destructured in full so that a field added by a new sqlparser is not skipped silently.
        let Select {
            select_token: _,
            optimizer_hints,
            distinct,
            select_modifiers: _,
            top,
            top_before_distinct: _,
            projection,
            exclude,
            into,
            from,
            lateral_views,
            prewhere,
            selection,
            connect_by,
            group_by,
            cluster_by,
            distribute_by,
            sort_by,
            having,
            named_window,
            qualify,
            window_before_qualify: _,
            value_table_mode: _,
            flavor: _,
        } = select;
        // The SELECT keyword's position: cheap, unlike the span of the whole SELECT.
        let location = span_location(select.select_token.0.span);
        self.refused_clauses(into.as_ref(), top.is_some(), optimizer_hints, location)?;
        let mut scope = self.select_level(from, parent)?;
        if !lateral_views.is_empty() {
            self.exprs(lateral_views, &scope)?;
        }
        scope.aliases = projection
            .iter()
            .filter_map(|item| match item {
                SelectItem::ExprWithAlias { alias, .. } => Some(fold_ident(alias, self.dialect())),
                _ => None,
            })
            .collect();
        if projection.is_empty() && !from.is_empty() {
            // DuckDB's `FROM t` without SELECT reads every column, as `SELECT *` does.
            self.star(None, &scope, &super::stars::LeftOut::NONE, location)?;
        }
        if self.mask_target == std::ptr::from_ref::<Select>(select) as usize {
            self.masked_projection(projection, distinct.is_some(), &scope, location)?;
        } else {
            for item in projection {
                self.select_item(item, &scope, location)?;
            }
        }
        self.exprs(distinct, &scope)?;
        self.exprs(top, &scope)?;
        self.exprs(exclude, &scope)?;
        self.exprs(prewhere, &scope)?;
        self.exprs(selection, &scope)?;
        self.exprs(connect_by, &scope)?;
        if let GroupByExpr::Expressions(exprs, modifiers) = group_by {
            self.exprs(exprs, &scope)?;
            self.exprs(modifiers, &scope)?;
        }
        self.exprs(cluster_by, &scope)?;
        self.exprs(distribute_by, &scope)?;
        self.exprs(sort_by, &scope)?;
        self.exprs(having, &scope)?;
        self.exprs(named_window, &scope)?;
        self.exprs(qualify, &scope)?;
        Ok(scope)
    }

    /// INTO, a TOP the dialect does not read as a row limit, optimizer hints.
    fn refused_clauses(
        &self,
        into: Option<&SelectInto>,
        has_top: bool,
        optimizer_hints: &[OptimizerHint],
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        if let Some(into) = into {
            return Err(refuse::select_into(into, location));
        }
        if has_top && !self.dialect().supports_top() {
            return Err(refuse::top_not_in_dialect(self.dialect(), location));
        }
        if !optimizer_hints.is_empty() {
            return Err(refuse::optimizer_hints(location));
        }
        Ok(())
    }

    /// The SELECT's level: every FROM entry, each seeing the ones before it (through LATERAL).
    fn select_level<'s>(
        &mut self,
        from: &[TableWithJoins],
        parent: &'s Scope<'s>,
    ) -> Result<Scope<'s>, GuardError> {
        let mut scope = Scope::child(Some(parent));
        for item in from {
            let sources = self.table_with_joins(item, &scope, 1)?;
            scope.sources.extend(sources);
        }
        Ok(scope)
    }

    /// One entry of the select list: a star, a qualified star or an expression.
    pub(super) fn select_item(
        &mut self,
        item: &SelectItem,
        scope: &Scope<'_>,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        match item {
            SelectItem::Wildcard(options) => self.star_with_options(None, options, scope, location),
            SelectItem::QualifiedWildcard(
                SelectItemQualifiedWildcardKind::ObjectName(name),
                options,
            ) => self.star_with_options(Some(name), options, scope, location),
            // BigQuery's `(expr).*`: the fields of a value, read as the expression.
            SelectItem::QualifiedWildcard(SelectItemQualifiedWildcardKind::Expr(expr), options) => {
                self.exprs(expr, scope)?;
                self.star_modifiers_on_value(options, scope)
            }
            SelectItem::UnnamedExpr(expr)
            | SelectItem::ExprWithAlias { expr, .. }
            | SelectItem::ExprWithAliases { expr, .. } => self.exprs(expr, scope),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{code, guard, refusal, PII};

    #[test]
    fn top_passes_only_where_the_engine_reads_it_as_a_row_limit() {
        let g = guard(PII, "mssql");
        assert_eq!(code(&g, "SELECT TOP 5 first_name FROM customer"), None);
        let g = guard(PII, "postgres");
        let error = refusal(&g, "SELECT TOP 5 first_name FROM customer").expect("refused");
        assert_eq!(error.code.as_str(), "unsupported_syntax");
        assert_eq!(error.hint.as_deref(), Some("use LIMIT instead of TOP"));
    }

    #[test]
    fn every_clause_of_a_select_is_checked() {
        let g = guard(PII, "postgres");
        for sql in [
            "SELECT DISTINCT ON (email) first_name FROM customer",
            "SELECT first_name FROM customer WHERE email IS NULL",
            "SELECT count(*) FROM customer GROUP BY phone",
            "SELECT count(*) FROM customer GROUP BY first_name HAVING min(phone) > ''",
        ] {
            assert_eq!(
                code(&g, sql).as_deref(),
                Some("column_not_allowed"),
                "{sql}"
            );
        }
        let g = guard(PII, "duckdb");
        // DuckDB's `FROM t` alone reads every column, as `SELECT *` does.
        assert_eq!(
            code(&g, "FROM customer").as_deref(),
            Some("star_on_restricted_table")
        );
        assert_eq!(
            code(&g, "SELECT first_name FROM customer QUALIFY email > ''").as_deref(),
            Some("column_not_allowed")
        );
    }
}
