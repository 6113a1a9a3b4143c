//! Query structure: WITH (CTEs, which shadow tables), the body and its set operations, and the
//! ORDER BY / LIMIT tail.

use sqlparser::ast::{Expr, ObjectName, Query, SelectItem, SetExpr, Spanned, Table, With};

use super::diagnostics as refuse;
use super::scope::Scope;
use super::{span_location, statement_keyword, Walker};
use crate::dialect::Dialect;
use crate::error::GuardError;
use crate::names::fold_ident;

impl Walker<'_, '_> {
    /// Checks a query; returns its output column names when they are known.
    pub(super) fn query(
        &mut self,
        query: &Query,
        parent: Option<&Scope<'_>>,
    ) -> Result<Option<Vec<String>>, GuardError> {
        self.covered.query();
        let Query {
            with,
            body,
            order_by,
            limit_clause,
            fetch,
            locks,
            for_clause: _,
            settings,
            format_clause,
            pipe_operators,
        } = query;
        if let Some(lock) = locks.first() {
            return Err(refuse::locking_clause(lock, span_location(query.span())));
        }
        if settings.is_some() || format_clause.is_some() || !pipe_operators.is_empty() {
            return Err(refuse::query_settings_format_or_pipe(span_location(
                query.span(),
            )));
        }
        let outer_rows = self.enter_query();
        let mut scope = Scope::child(parent);
        if let Some(with) = with {
            self.with_clause(with, &mut scope, Some(query))?;
        }
        let (columns, body_scope) = self.set_expr(body, &scope)?;
        // ORDER BY and LIMIT see the body's FROM items and output names.
        let mut tail_scope = Scope::child(Some(&scope));
        if let Some(s) = body_scope {
            tail_scope.sources = s.sources;
            tail_scope.aliases = s.aliases;
        }
        if let Some(cols) = &columns {
            tail_scope.aliases.extend(cols.iter().cloned());
        }
        self.exprs(order_by, &tail_scope)?;
        self.exprs(limit_clause, &tail_scope)?;
        self.exprs(fetch, &tail_scope)?;
        self.leave_query(outer_rows, None)?;
        Ok(columns)
    }

    /// Checks each CTE and adds it to `scope`, where the later CTEs and the body see it;
    /// `outer` is the query the WITH belongs to (its LIMIT may stop a recursive CTE it reads).
    pub(super) fn with_clause(
        &mut self,
        with: &With,
        scope: &mut Scope<'_>,
        outer: Option<&Query>,
    ) -> Result<(), GuardError> {
        for (k, cte) in with.cte_tables.iter().enumerate() {
            let name = fold_ident(&cte.alias.name, self.dialect());
            // PostgreSQL's WITH RECURSIVE lets a CTE read the ones after it in the list (their
            // columns are not known yet); elsewhere (MySQL) those names are still tables.
            let later: Vec<String> = if with.recursive && self.dialect() == Dialect::Postgres {
                with.cte_tables
                    .iter()
                    .skip(k + 1)
                    .map(|c| fold_ident(&c.alias.name, self.dialect()))
                    .collect()
            } else {
                Vec::new()
            };
            for later in &later {
                scope.ctes.push((later.clone(), None));
            }
            if with.recursive {
                // A recursive CTE sees itself.
                scope.ctes.push((name.clone(), None));
            }
            let columns =
                self.cte_query(cte, &name, with.recursive, outer, &with.cte_tables, scope);
            if with.recursive {
                scope.ctes.pop();
            }
            for _ in &later {
                scope.ctes.pop();
            }
            let columns = columns?;
            let columns = if cte.alias.columns.is_empty() {
                columns
            } else {
                Some(
                    cte.alias
                        .columns
                        .iter()
                        .map(|c| fold_ident(&c.name, self.dialect()))
                        .collect(),
                )
            };
            scope.ctes.push((name, columns));
        }
        Ok(())
    }

    /// Checks a query body; returns its output columns and, for a plain SELECT, its scope.
    fn set_expr<'s>(
        &mut self,
        body: &SetExpr,
        scope: &'s Scope<'s>,
    ) -> Result<(Option<Vec<String>>, Option<Scope<'s>>), GuardError> {
        match body {
            SetExpr::Select(select) => {
                let s = self.select(select, scope)?;
                let columns = output_columns(&select.projection, self.dialect());
                Ok((columns, Some(s)))
            }
            SetExpr::Query(q) => Ok((self.query(q, Some(scope))?, None)),
            SetExpr::SetOperation { left, right, .. } => {
                let before = self.between_set_sides();
                let (columns, _) = self.set_expr(left, scope)?;
                let left_rows = self.between_set_sides();
                self.set_expr(right, scope)?;
                self.after_set_sides(body, before, left_rows, None)?;
                Ok((columns, None))
            }
            SetExpr::Values(values) => {
                self.exprs(values, scope)?;
                // Rows written out in the query are rows it makes: a cross join of VALUES
                // lists, or one in a recursive step, multiplies them.
                self.generate_rows(values.rows.len() as f64, "a VALUES list", None)?;
                Ok((None, None))
            }
            SetExpr::Insert(s) | SetExpr::Update(s) | SetExpr::Delete(s) | SetExpr::Merge(s) => {
                Err(refuse::data_modifying_body(
                    &statement_keyword(s),
                    span_location(s.span()),
                ))
            }
            SetExpr::Table(table) => {
                self.table_statement(table, scope)?;
                Ok((None, None))
            }
        }
    }

    /// `TABLE name`: the same as `SELECT * FROM name`.
    fn table_statement(&mut self, table: &Table, scope: &Scope<'_>) -> Result<(), GuardError> {
        let Some(name) = &table.table_name else {
            return Err(refuse::table_without_name());
        };
        let mut parts = Vec::new();
        if let Some(schema) = &table.schema_name {
            parts.push(schema.clone());
        }
        parts.push(name.clone());
        let object = ObjectName::from(parts);
        let source = self.relation(&object, None, scope)?;
        let mut s = Scope::child(Some(scope));
        s.sources.push(source);
        self.star(None, &s, &super::stars::LeftOut::NONE, None)
    }
}

/// Output names of a projection, or `None` when a wildcard makes them unknown.
pub(super) fn output_columns(projection: &[SelectItem], dialect: Dialect) -> Option<Vec<String>> {
    projection
        .iter()
        .map(|item| match item {
            SelectItem::ExprWithAlias { alias, .. } => Some(fold_ident(alias, dialect)),
            SelectItem::UnnamedExpr(Expr::Identifier(i)) => Some(fold_ident(i, dialect)),
            SelectItem::UnnamedExpr(Expr::CompoundIdentifier(v)) => {
                v.last().map(|i| fold_ident(i, dialect))
            }
            SelectItem::UnnamedExpr(_) | SelectItem::ExprWithAliases { .. } => Some(String::new()),
            SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{code, guard, PII};

    #[test]
    fn a_cte_shadows_the_table_of_its_name() {
        let g = guard(PII, "postgres");
        let sql = "WITH customer AS (SELECT 1 AS email) SELECT email FROM customer";
        assert_eq!(code(&g, sql), None);
        // ... but only inside its WITH.
        let sql = "SELECT (WITH customer AS (SELECT 1 AS email) SELECT 1) FROM customer \
                   WHERE email > ''";
        assert_eq!(code(&g, sql).as_deref(), Some("column_not_allowed"));
        // A CTE's column list renames its query's columns.
        let sql = "WITH d(email) AS (SELECT first_name FROM customer) SELECT email FROM d";
        assert_eq!(code(&g, sql), None);
    }

    #[test]
    fn order_by_sees_the_select_s_from_items() {
        let g = guard(PII, "postgres");
        let sql = "SELECT first_name FROM customer ORDER BY email";
        assert_eq!(code(&g, sql).as_deref(), Some("column_not_allowed"));
        let sql = "SELECT first_name FROM customer UNION SELECT name FROM vendor ORDER BY 1";
        assert_eq!(code(&g, sql), None);
    }

    #[test]
    fn table_reads_every_column() {
        let g = guard(PII, "postgres");
        assert_eq!(
            code(&g, "TABLE customer").as_deref(),
            Some("star_on_restricted_table")
        );
        assert_eq!(code(&g, "TABLE vendor"), None);
    }
}
