//! FROM items and joins: what each item adds to the scope, and which FROM items its
//! expressions (a subquery, an ON clause, table function arguments) may see.

use sqlparser::ast::{
    Expr, FunctionArg, Join, JoinConstraint, JoinOperator, ObjectName, Query, Spanned, TableAlias,
    TableFactor, TableFunctionArgs, TableWithJoins,
};

use super::diagnostics as refuse;
use super::scope::{alias_columns, Scope, Source, SourceKind};
use super::{span_location, Walker};
use crate::error::{GuardError, Location};
use crate::functions::FunctionUse;
use crate::names::fold_ident;

impl Walker<'_, '_> {
    /// Checks one FROM entry (a relation and its joins) and returns the sources it adds.
    /// `outer` holds the FROM items before this entry; `depth` counts the levels from `outer`
    /// up to the SELECT's own (1 when `outer` is the SELECT's level, more inside parenthesised
    /// joins). A LATERAL item sees them all; an ON clause sees only its join's members.
    pub(super) fn table_with_joins(
        &mut self,
        item: &TableWithJoins,
        outer: &Scope<'_>,
        depth: usize,
    ) -> Result<Vec<Source>, GuardError> {
        let mut local = Scope::child(Some(outer));
        let source = self.table_factor(&item.relation, &local, depth)?;
        local.sources.extend(source);
        for join in &item.joins {
            let source = self.table_factor(&join.relation, &local, depth)?;
            local.sources.extend(source);
            // The ON / USING / MATCH_CONDITION of this join: the FROM items outside it are
            // only possibilities.
            local.weak_levels = depth;
            self.join_condition(join, &local)?;
            local.weak_levels = 0;
        }
        Ok(local.sources)
    }

    /// One FROM item alone (a MERGE source), as [`Walker::table_with_joins`] reads it: the item
    /// itself, not a copy, so that the coverage check finds the names it resolved.
    pub(super) fn lone_factor(
        &mut self,
        factor: &TableFactor,
        outer: &Scope<'_>,
        depth: usize,
    ) -> Result<Vec<Source>, GuardError> {
        let local = Scope::child(Some(outer));
        self.table_factor(factor, &local, depth)
    }

    /// The condition of `join`, in `members` (the join's members so far, over weak levels).
    fn join_condition(&mut self, join: &Join, members: &Scope<'_>) -> Result<(), GuardError> {
        let constraint = match &join.join_operator {
            JoinOperator::Join(c)
            | JoinOperator::Inner(c)
            | JoinOperator::Left(c)
            | JoinOperator::LeftOuter(c)
            | JoinOperator::Right(c)
            | JoinOperator::RightOuter(c)
            | JoinOperator::FullOuter(c)
            | JoinOperator::CrossJoin(c)
            | JoinOperator::Semi(c)
            | JoinOperator::LeftSemi(c)
            | JoinOperator::RightSemi(c)
            | JoinOperator::Anti(c)
            | JoinOperator::LeftAnti(c)
            | JoinOperator::RightAnti(c)
            | JoinOperator::StraightJoin(c) => c,
            JoinOperator::AsOf {
                match_condition,
                constraint,
            } => {
                self.exprs(match_condition, members)?;
                constraint
            }
            JoinOperator::CrossApply
            | JoinOperator::OuterApply
            | JoinOperator::ArrayJoin
            | JoinOperator::LeftArrayJoin
            | JoinOperator::InnerArrayJoin => return Ok(()),
        };
        match constraint {
            JoinConstraint::On(expr) => self.exprs(expr, members),
            JoinConstraint::Using(names) | JoinConstraint::UsingAlias(names, _) => {
                self.using_columns(names, members)
            }
            JoinConstraint::Natural => self.natural_join(members, &join.relation),
            JoinConstraint::None => Ok(()),
        }
    }

    /// `USING (c)` merges the `c` of both sides into one column, later read by its bare name:
    /// every member that has or could have `c` is a candidate.
    fn using_columns(
        &mut self,
        names: &[ObjectName],
        members: &Scope<'_>,
    ) -> Result<(), GuardError> {
        for name in names {
            let location = span_location(name.span());
            let [part] = name.0.as_slice() else {
                return Err(refuse::using_qualified_name(location));
            };
            let Some(ident) = part.as_ident() else {
                return Err(refuse::using_computed_name(location));
            };
            self.column(&[], ident, members)?;
        }
        Ok(())
    }

    /// NATURAL joins on every shared column: refused when a protected column may be among them.
    fn natural_join(&self, members: &Scope<'_>, relation: &TableFactor) -> Result<(), GuardError> {
        if !self.ctx.access.has_column_rules() {
            return Ok(());
        }
        let protected: Vec<_> = members
            .sources
            .iter()
            .filter_map(|s| s.protected_table())
            .collect();
        let at = || span_location(relation.span());
        match protected.first() {
            Some(first) if protected.iter().all(|t| t.only_masked()) => {
                Err(refuse::masked_in_row("NATURAL JOIN", first, at()))
            }
            Some(_) => Err(refuse::natural_join_over_protected(at())),
            None => Ok(()),
        }
    }

    /// Checks one FROM item and returns the sources it adds to the scope.
    fn table_factor(
        &mut self,
        factor: &TableFactor,
        scope: &Scope<'_>,
        depth: usize,
    ) -> Result<Vec<Source>, GuardError> {
        self.covered.table_factor();
        let location = factor_location(factor);
        let dialect = self.dialect();
        match factor {
            TableFactor::Table { .. } => self.named_table(factor, scope, location).map(|s| vec![s]),
            TableFactor::Derived {
                lateral,
                subquery,
                alias,
                sample,
            } => {
                self.exprs(sample, scope)?;
                let source =
                    self.derived_table(*lateral, subquery, alias.as_ref(), scope, depth)?;
                Ok(vec![source])
            }
            TableFactor::TableFunction { expr, alias } => {
                // Snowflake's `TABLE(f(...))` wraps a table function; `TABLE('name')` or
                // `TABLE($var)` reads a table named at run time.
                let Expr::Function(f) = expr else {
                    return Err(refuse::table_chosen_at_run_time(span_location(expr.span())));
                };
                // What it generates is counted once, as the call the expression walk visits.
                self.function_name_as(&f.name, FunctionUse::Table, location)?;
                self.exprs(expr, scope)?;
                Ok(vec![Source::derived(alias.as_ref(), dialect)])
            }
            TableFactor::Function {
                name, args, alias, ..
            } => {
                self.table_function(name, args, scope, location)?;
                Ok(vec![Source::derived(alias.as_ref(), dialect)])
            }
            TableFactor::UNNEST {
                alias, array_exprs, ..
            } => {
                self.exprs(array_exprs, scope)?;
                Ok(vec![Source::derived(alias.as_ref(), dialect)])
            }
            TableFactor::JsonTable {
                json_expr,
                alias,
                columns,
                ..
            } => {
                self.exprs(json_expr, scope)?;
                self.exprs(columns, scope)?;
                Ok(vec![Source::derived(alias.as_ref(), dialect)])
            }
            TableFactor::NestedJoin {
                table_with_joins,
                alias,
            } => self.nested_join(table_with_joins, alias.as_ref(), scope, depth, location),
            TableFactor::OpenJsonTable { .. }
            | TableFactor::Pivot { .. }
            | TableFactor::Unpivot { .. }
            | TableFactor::UnpivotExpr { .. }
            | TableFactor::MatchRecognize { .. }
            | TableFactor::XmlTable { .. }
            | TableFactor::SemanticView { .. } => Err(refuse::unsupported_table_factor(
                span_location(factor.span()),
            )),
        }
    }

    /// A FROM item written as a name: a table or CTE, or a table function `name(args)`.
    fn named_table(
        &mut self,
        factor: &TableFactor,
        scope: &Scope<'_>,
        location: Option<Location>,
    ) -> Result<Source, GuardError> {
        let TableFactor::Table {
            name,
            alias,
            args,
            with_hints,
            version,
            with_ordinality: _,
            partitions: _,
            json_path,
            sample,
            index_directives: _,
            inheritance: _,
        } = factor
        else {
            // Only called with a `TableFactor::Table`; anything else is not understood.
            return Err(refuse::unsupported_table_factor(location));
        };
        if !with_hints.is_empty() {
            return Err(refuse::table_hints(with_hints, location));
        }
        self.exprs(version, scope)?;
        self.exprs(json_path, scope)?;
        self.exprs(sample, scope)?;
        if let Some(args) = args {
            return self.table_function_with_settings(name, args, alias.as_ref(), scope, location);
        }
        let alias_name = alias.as_ref().map(|a| fold_ident(&a.name, self.dialect()));
        let source = self.relation(name, alias_name, scope)?;
        match alias.as_ref().filter(|a| !a.columns.is_empty()) {
            Some(a) => self.renamed_columns(source, a, location),
            None => Ok(source),
        }
    }

    /// `name(args) [SETTINGS ...]` in FROM (the form sqlparser parses as a table with arguments).
    fn table_function_with_settings(
        &mut self,
        name: &ObjectName,
        args: &TableFunctionArgs,
        alias: Option<&TableAlias>,
        scope: &Scope<'_>,
        location: Option<Location>,
    ) -> Result<Source, GuardError> {
        self.table_function(name, &args.args, scope, location)?;
        self.exprs(&args.settings, scope)?;
        Ok(Source::derived(alias, self.dialect()))
    }

    /// A table function's name (against the table-function list), bounds and arguments.
    fn table_function(
        &mut self,
        name: &ObjectName,
        args: &[FunctionArg],
        scope: &Scope<'_>,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        if let Some((kind, generator)) =
            self.function_name_as(name, FunctionUse::Table, location)?
        {
            self.generating_call(kind, &generator, args, location)?;
        }
        args.iter().try_for_each(|arg| self.exprs(arg, scope))
    }

    /// `source AS a(x, y)`: the list renames the first columns; the rest keep their names. A
    /// table known to the catalog must not keep answering to its old names: the engine looks
    /// further out for them. Renaming a table with protected columns is refused: a protected
    /// column could be read under another name.
    fn renamed_columns(
        &self,
        source: Source,
        alias: &TableAlias,
        location: Option<Location>,
    ) -> Result<Source, GuardError> {
        if let Some(table) = source.protected_table() {
            return Err(refuse::renamed_protected_columns(table, location));
        }
        let renamed = alias_columns(Some(alias), self.dialect()).unwrap_or_default();
        let columns = match &source.kind {
            SourceKind::Table(t) => t.columns.as_ref().map(|c| {
                let rest = c.iter().skip(renamed.len()).cloned();
                renamed.iter().cloned().chain(rest).collect()
            }),
            SourceKind::Derived(_) => Some(renamed),
        };
        Ok(Source {
            alias: source.alias,
            kind: SourceKind::Derived(columns),
        })
    }

    /// A subquery in FROM. Not LATERAL: this join's members and the SELECT's other FROM items
    /// are only possibilities (`scope` and the `depth` levels above it).
    fn derived_table(
        &mut self,
        lateral: bool,
        subquery: &Query,
        alias: Option<&TableAlias>,
        scope: &Scope<'_>,
        depth: usize,
    ) -> Result<Source, GuardError> {
        let view = Scope::weak_view(scope, depth + 1);
        let parent = if lateral { scope } else { &view };
        let columns = self.query(subquery, Some(parent))?;
        let columns = alias_columns(alias, self.dialect()).or(columns);
        Ok(Source {
            alias: alias.map(|a| fold_ident(&a.name, self.dialect())),
            kind: SourceKind::Derived(columns),
        })
    }

    /// `(a JOIN b) [AS j]`: without an alias the members stay visible by their own names; an
    /// alias hides them behind it.
    fn nested_join(
        &mut self,
        joined: &TableWithJoins,
        alias: Option<&TableAlias>,
        scope: &Scope<'_>,
        depth: usize,
        location: Option<Location>,
    ) -> Result<Vec<Source>, GuardError> {
        let members = self.table_with_joins(joined, scope, depth + 1)?;
        let Some(alias) = alias else {
            return Ok(members);
        };
        // The alias would hide the members' protected columns from `*` and `alias.column`
        // checks: refuse that combination.
        if members.iter().any(|m| m.protected_table().is_some()) {
            return Err(refuse::aliased_join_over_protected(location));
        }
        Ok(vec![Source {
            alias: Some(fold_ident(&alias.name, self.dialect())),
            kind: SourceKind::Derived(alias_columns(Some(alias), self.dialect())),
        }])
    }
}

/// Where a FROM item starts, from its name when it has one (spans of whole subtrees are costly).
fn factor_location(factor: &TableFactor) -> Option<Location> {
    match factor {
        TableFactor::Table { name, .. } | TableFactor::Function { name, .. } => {
            span_location(name.span())
        }
        TableFactor::Derived {
            alias: Some(alias), ..
        } => span_location(alias.name.span),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{code, guard, CATALOG, PII};

    #[test]
    fn renamed_columns_no_longer_answer_to_their_old_names() {
        let g = guard(CATALOG, "postgres");
        // `vendor AS v(id, x)` has no `email` any more: PostgreSQL binds the outer customer's.
        assert_eq!(
            code(
                &g,
                "SELECT (SELECT max(email) FROM vendor AS v(id, x)) FROM customer"
            )
            .as_deref(),
            Some("column_not_allowed")
        );
        assert_eq!(
            code(
                &g,
                "SELECT (SELECT max(x) FROM vendor AS v(id, x)) FROM customer"
            ),
            None
        );
    }

    #[test]
    fn a_partial_rename_keeps_the_remaining_names() {
        let g = guard(CATALOG, "postgres");
        // `vendor AS v(id)` renames `vendor_id` only; `email` keeps its name.
        assert_eq!(code(&g, "SELECT id, email FROM vendor AS v(id)"), None);
        assert_eq!(
            code(&g, "SELECT vendor_id FROM vendor AS v(id)").as_deref(),
            Some("unknown_column")
        );
    }

    #[test]
    fn renaming_the_columns_of_a_protected_table_is_refused() {
        for policy in [PII, CATALOG] {
            let g = guard(policy, "postgres");
            assert_eq!(
                code(&g, "SELECT a FROM customer AS c(a, b, x, y)").as_deref(),
                Some("column_not_allowed")
            );
            assert_eq!(code(&g, "SELECT a FROM vendor AS v(a, b)"), None);
        }
    }

    #[test]
    fn a_sibling_of_a_non_lateral_item_does_not_stop_the_search() {
        let g = guard(CATALOG, "postgres");
        // PostgreSQL does not let `(SELECT email) e` see `vendor v`: it binds the outer customer.
        let sql = "SELECT (SELECT 1 FROM vendor v, (SELECT email) e LIMIT 1) FROM customer";
        assert_eq!(code(&g, sql).as_deref(), Some("column_not_allowed"));
        // Through LATERAL it does see vendor, which has `email`: bound there.
        let sql = "SELECT (SELECT 1 FROM vendor v, LATERAL (SELECT email) e LIMIT 1) FROM customer";
        assert_eq!(code(&g, sql), None);
        // An ON clause sees only its join's members.
        let sql = "SELECT 1 FROM vendor v, customer c JOIN customer d ON email > ''";
        assert_eq!(code(&g, sql).as_deref(), Some("column_not_allowed"));
    }

    #[test]
    fn using_merges_the_columns_of_every_member() {
        for policy in [PII, CATALOG] {
            let g = guard(policy, "postgres");
            for sql in [
                "SELECT email FROM customer JOIN (SELECT 'x' AS email) d USING (email)",
                "SELECT count(*) FROM (SELECT 'x' AS email) d LEFT JOIN customer USING (email)",
            ] {
                assert_eq!(
                    code(&g, sql).as_deref(),
                    Some("column_not_allowed"),
                    "{sql}"
                );
            }
            assert_eq!(
                code(
                    &g,
                    "SELECT c.first_name FROM customer c JOIN customer d USING (customer_id)"
                ),
                None
            );
        }
    }

    #[test]
    fn natural_and_aliased_joins_over_a_protected_table_are_refused() {
        let g = guard(PII, "postgres");
        assert_eq!(
            code(&g, "SELECT first_name FROM customer NATURAL JOIN vendor").as_deref(),
            Some("column_not_allowed")
        );
        assert_eq!(
            code(&g, "SELECT vendor_id FROM vendor NATURAL JOIN invoice"),
            None
        );
        assert_eq!(
            code(&g, "SELECT 1 FROM (customer c JOIN vendor v ON true) AS j").as_deref(),
            Some("unsupported_syntax")
        );
        assert_eq!(
            code(&g, "SELECT 1 FROM (invoice i JOIN vendor v ON true) AS j"),
            None
        );
    }
}
