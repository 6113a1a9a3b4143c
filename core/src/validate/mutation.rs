//! One data-modifying statement (INSERT, UPDATE, DELETE, MERGE): its target, checked against
//! `writes.tables`; the columns it writes, none of them protected; and everything it reads (WHERE,
//! SET values, FROM / USING, the SELECT of an INSERT, a MERGE source, RETURNING), checked by the
//! very walker that checks reads, with the target in scope under its alias.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use sqlparser::ast::{
    Assignment, AssignmentTarget, ConflictTarget, Delete, Expr, FromTable, Ident, Insert, Merge,
    MergeAction, MergeInsertKind, MergeUpdateKind, ObjectName, OnConflictAction, OnInsert,
    OptimizerHint, OrderByExpr, Query, SelectItem, SetExpr, Spanned, SqliteOnConflict, Statement,
    TableFactor, TableObject, TableWithJoins, Update, UpdateTableFromKind, Visit, Visitor,
};

use super::diagnostics as refuse;
use super::scope::{Scope, Source, SourceKind};
use super::{span_location, Analysis, Context, Counts, Walker};
use crate::access::{ResolvedTable, TargetRefusal};
use crate::class::QueryClass;
use crate::error::{GuardError, Location};
use crate::names::{fold_ident, fold_object_name};
use crate::writes::WritePolicy;

/// What a checked mutation modifies and reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MutationAnalysis {
    /// What it reads besides the target, as for a query.
    pub reads: Analysis,
    /// The target's display name.
    pub target: String,
    /// Columns of the target written (folded); `*` for all of them, names unknown.
    pub columns_written: BTreeSet<String>,
    /// A condition restricts the rows touched (WHERE naming a column, or a MERGE's ON).
    pub has_where: bool,
    /// `mutation_delete` when the statement can delete rows, else `mutation_create`.
    pub class: QueryClass,
}

/// Validates one mutation (or `WITH ... <mutation>`): target, written columns, reads.
pub fn analyze_mutation(
    statement: &Statement,
    ctx: &Context<'_>,
    writes: &WritePolicy,
) -> Result<MutationAnalysis, GuardError> {
    let mut walker = Walker {
        ctx,
        analysis: Analysis::default(),
        counts: Counts::default(),
    };
    let mut found = MutationAnalysis {
        reads: Analysis::default(),
        target: String::new(),
        columns_written: BTreeSet::new(),
        has_where: false,
        class: QueryClass::MutationCreate,
    };
    walker.mutation_statement(statement, None, writes, &mut found)?;
    let mut expected = Counts::default();
    let _ = statement.visit(&mut expected);
    if expected != walker.counts {
        return Err(refuse::not_understood(span_location(statement.span())));
    }
    if found.columns_written.contains("*") {
        // Every column, names unknown: listing some of them would suggest the others are safe.
        found.columns_written = BTreeSet::from(["*".to_string()]);
    }
    found.reads = walker.analysis;
    Ok(found)
}

impl Walker<'_, '_> {
    fn mutation_statement(
        &mut self,
        statement: &Statement,
        parent: Option<&Scope<'_>>,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
    ) -> Result<(), GuardError> {
        match statement {
            Statement::Insert(insert) => self.insert(insert, parent, writes, found),
            Statement::Update(update) => self.update(update, parent, writes, found),
            Statement::Delete(delete) => self.delete(delete, parent, writes, found),
            Statement::Merge(merge) => self.merge(merge, parent, writes, found),
            Statement::Query(query) => self.with_mutation(query, writes, found),
            other => Err(refuse::not_a_mutation(other, span_location(other.span()))),
        }
    }

    /// `WITH ... INSERT / UPDATE / DELETE / MERGE`: the CTEs are reads the mutation sees.
    fn with_mutation(
        &mut self,
        query: &Query,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
    ) -> Result<(), GuardError> {
        self.counts.queries += 1;
        let location = span_location(query.span());
        let inner = match query.body.as_ref() {
            SetExpr::Insert(s) | SetExpr::Update(s) | SetExpr::Delete(s) | SetExpr::Merge(s) => s,
            _ => return Err(refuse::not_understood(location)),
        };
        let Query {
            with,
            body: _,
            order_by,
            limit_clause,
            fetch,
            locks,
            for_clause,
            settings,
            format_clause,
            pipe_operators,
        } = query;
        if order_by.is_some()
            || limit_clause.is_some()
            || fetch.is_some()
            || !locks.is_empty()
            || for_clause.is_some()
            || settings.is_some()
            || format_clause.is_some()
            || !pipe_operators.is_empty()
        {
            return Err(refuse::mutation_clause(
                "a clause after the statement",
                location,
            ));
        }
        let mut scope = Scope::child(None);
        if let Some(with) = with {
            self.with_clause(with, &mut scope)?;
        }
        self.mutation_statement(inner, Some(&scope), writes, found)
    }

    fn insert(
        &mut self,
        insert: &Insert,
        parent: Option<&Scope<'_>>,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
    ) -> Result<(), GuardError> {
        let location = span_location(insert.insert_token.0.span);
        let Insert {
            insert_token: _,
            optimizer_hints,
            or,
            ignore: _,
            into: _,
            table,
            table_alias,
            columns,
            by_name,
            overwrite,
            source,
            assignments,
            partitioned,
            after_columns,
            overriding: _,
            has_table_keyword: _,
            on,
            returning,
            output,
            replace_into,
            priority: _,
            insert_alias,
            settings,
            format_clause,
            multi_table_insert_type,
            multi_table_into_clauses,
            multi_table_when_clauses,
            multi_table_else_clause,
        } = insert;
        if !optimizer_hints.is_empty() {
            return Err(refuse::optimizer_hints(location));
        }
        if *overwrite {
            return Err(refuse::mutation_clause(
                "INSERT OVERWRITE (it replaces the table's contents)",
                location,
            ));
        }
        if *by_name
            || partitioned.is_some()
            || !after_columns.is_empty()
            || output.is_some()
            || settings.is_some()
            || format_clause.is_some()
            || multi_table_insert_type.is_some()
            || !multi_table_into_clauses.is_empty()
            || !multi_table_when_clauses.is_empty()
            || multi_table_else_clause.is_some()
        {
            return Err(refuse::mutation_clause(
                "this INSERT form (BY NAME, PARTITION, OUTPUT, SETTINGS, FORMAT or a multi-table INSERT)",
                location,
            ));
        }
        if *replace_into || matches!(or, Some(SqliteOnConflict::Replace)) {
            // REPLACE deletes the conflicting row and inserts a new one, resetting every column
            // the statement does not list: a deletion, and a write of every column.
            found.class = QueryClass::MutationDelete;
        }
        let TableObject::TableName(name) = table else {
            return Err(refuse::mutation_clause(
                "INSERT into a table function or a sub-query",
                location,
            ));
        };
        let alias = table_alias
            .as_ref()
            .map(|a| fold_ident(&a.alias, self.dialect()));
        let target = self.target(name, alias, writes, found)?;
        let table = target_table(&target);
        // The rows to insert see the CTEs, never the target.
        if let Some(source) = source {
            self.query(source, parent)?;
        }
        if (columns.is_empty() && assignments.is_empty())
            || found.class == QueryClass::MutationDelete
        {
            self.write_every_column(table, location, found)?;
        }
        for column in columns {
            self.write_column(column, &target, found)?;
        }
        let mut scope = Scope::child(parent);
        scope.sources.push(target.clone());
        self.assignments(assignments, &scope, &target, found)?;
        if let Some(on) = on {
            let mut conflict_scope = Scope::child(parent);
            conflict_scope.sources.push(target.clone());
            // The row proposed for insertion: PostgreSQL / SQLite `excluded`, MySQL's row alias.
            let proposed = match insert_alias {
                Some(a) => a.row_alias.to_string(),
                None => "excluded".to_string(),
            };
            conflict_scope.sources.push(Source {
                alias: Some(fold_ident(&Ident::new(proposed), self.dialect())),
                kind: target.kind.clone(),
            });
            match on {
                OnInsert::DuplicateKeyUpdate(set) => {
                    self.assignments(set, &conflict_scope, &target, found)?
                }
                OnInsert::OnConflict(conflict) => {
                    // Which rows conflict tells whether a value exists: the arbiter columns are
                    // read like any column.
                    if let Some(ConflictTarget::Columns { columns, .. }) = &conflict.conflict_target
                    {
                        for column in columns {
                            self.column(&[], column, &scope)?;
                        }
                    }
                    self.exprs(&conflict.conflict_target, &conflict_scope)?;
                    if let OnConflictAction::DoUpdate(update) = &conflict.action {
                        self.assignments(&update.assignments, &conflict_scope, &target, found)?;
                        self.exprs(&update.selection, &conflict_scope)?;
                    }
                }
                _ => return Err(refuse::not_understood(location)),
            }
        }
        self.returning(returning.as_deref(), &scope, location)
    }

    fn update(
        &mut self,
        update: &Update,
        parent: Option<&Scope<'_>>,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
    ) -> Result<(), GuardError> {
        let location = span_location(update.update_token.0.span);
        let Update {
            update_token: _,
            optimizer_hints,
            table,
            on_cluster,
            assignments,
            from,
            selection,
            returning,
            output,
            or,
            order_by,
            limit,
            settings,
        } = update;
        let engine_clauses = on_cluster.is_some() || output.is_some() || settings.is_some();
        refused_extras(optimizer_hints, engine_clauses, location)?;
        if matches!(or, Some(SqliteOnConflict::Replace)) {
            // SQLite's UPDATE OR REPLACE deletes the rows its new values conflict with.
            found.class = QueryClass::MutationDelete;
        }
        let target = self.single_target(table, writes, found, location)?;
        let mut scope = Scope::child(parent);
        scope.sources.push(target.clone());
        if let Some(UpdateTableFromKind::BeforeSet(items) | UpdateTableFromKind::AfterSet(items)) =
            from
        {
            self.read_sources(items, &mut scope)?;
        }
        self.assignments(assignments, &scope, &target, found)?;
        let tail = Tail {
            selection: selection.as_ref(),
            order_by,
            limit: limit.as_ref(),
            returning: returning.as_deref(),
        };
        self.tail(tail, &scope, writes, found, location)
    }

    fn delete(
        &mut self,
        delete: &Delete,
        parent: Option<&Scope<'_>>,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
    ) -> Result<(), GuardError> {
        let location = span_location(delete.delete_token.0.span);
        let Delete {
            delete_token: _,
            optimizer_hints,
            tables,
            from,
            on_cluster,
            using,
            selection,
            returning,
            output,
            order_by,
            limit,
            settings,
        } = delete;
        found.class = QueryClass::MutationDelete;
        let engine_clauses = on_cluster.is_some() || output.is_some() || settings.is_some();
        refused_extras(optimizer_hints, engine_clauses, location)?;
        let (FromTable::WithFromKeyword(items) | FromTable::WithoutKeyword(items)) = from;
        let [item] = items.as_slice() else {
            return Err(refuse::several_targets(location));
        };
        if !tables.is_empty() {
            return Err(refuse::several_targets(location));
        }
        let target = self.single_target(item, writes, found, location)?;
        let mut scope = Scope::child(parent);
        scope.sources.push(target);
        if let Some(items) = using {
            self.read_sources(items, &mut scope)?;
        }
        let tail = Tail {
            selection: selection.as_ref(),
            order_by,
            limit: limit.as_ref(),
            returning: returning.as_deref(),
        };
        self.tail(tail, &scope, writes, found, location)
    }

    /// WHERE (required unless unbounded mutations are allowed), ORDER BY, LIMIT and RETURNING
    /// of an UPDATE or DELETE, read in `scope`.
    fn tail(
        &mut self,
        tail: Tail<'_>,
        scope: &Scope<'_>,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        self.condition(tail.selection, scope, writes, found, location)?;
        self.exprs(tail.order_by, scope)?;
        if let Some(limit) = tail.limit {
            self.exprs(limit, scope)?;
        }
        self.returning(tail.returning, scope, location)
    }

    fn merge(
        &mut self,
        merge: &Merge,
        parent: Option<&Scope<'_>>,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
    ) -> Result<(), GuardError> {
        let location = span_location(merge.merge_token.0.span);
        let Merge {
            merge_token: _,
            optimizer_hints,
            into: _,
            table,
            source,
            on,
            clauses,
            output,
        } = merge;
        refused_extras(optimizer_hints, output.is_some(), location)?;
        let target = self.target_factor(table, writes, found, location)?;
        let mut scope = Scope::child(parent);
        scope.sources.push(target.clone());
        let sources = self.table_with_joins(
            &TableWithJoins {
                relation: source.clone(),
                joins: Vec::new(),
            },
            &scope,
            1,
        )?;
        no_alias_of_target(&target, &sources, location)?;
        scope.sources.extend(sources);
        self.exprs(on.as_ref(), &scope)?;
        found.has_where = true;
        let table = target_table(&target);
        for clause in clauses {
            self.exprs(&clause.predicate, &scope)?;
            match &clause.action {
                MergeAction::Insert(insert) => {
                    match &insert.kind {
                        MergeInsertKind::Values(values) => self.exprs(values, &scope)?,
                        MergeInsertKind::Row | MergeInsertKind::Wildcard => {
                            self.write_every_column(table, location, found)?
                        }
                    }
                    if insert.columns.is_empty() {
                        self.write_every_column(table, location, found)?;
                    }
                    for column in &insert.columns {
                        self.write_column(column, &target, found)?;
                    }
                    self.exprs(&insert.insert_predicate, &scope)?;
                }
                MergeAction::Update(update) => {
                    match &update.kind {
                        MergeUpdateKind::Set(set) => {
                            self.assignments(set, &scope, &target, found)?
                        }
                        MergeUpdateKind::Wildcard => {
                            self.write_every_column(table, location, found)?
                        }
                    }
                    self.exprs(&update.update_predicate, &scope)?;
                    if update.delete_predicate.is_some() {
                        found.class = QueryClass::MutationDelete;
                    }
                    self.exprs(&update.delete_predicate, &scope)?;
                }
                MergeAction::Delete { .. } => found.class = QueryClass::MutationDelete,
                MergeAction::DoNothing { .. } => {}
            }
        }
        Ok(())
    }

    /// The target of UPDATE / DELETE: one table, no joins.
    fn single_target(
        &mut self,
        item: &TableWithJoins,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
        location: Option<Location>,
    ) -> Result<Source, GuardError> {
        if !item.joins.is_empty() {
            return Err(refuse::several_targets(location));
        }
        self.target_factor(&item.relation, writes, found, location)
    }

    /// A target written as a FROM item: a plain table name with an optional alias.
    fn target_factor(
        &mut self,
        factor: &TableFactor,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
        location: Option<Location>,
    ) -> Result<Source, GuardError> {
        self.counts.table_factors += 1;
        let TableFactor::Table {
            name,
            alias,
            args: None,
            with_hints,
            version: None,
            with_ordinality: false,
            partitions,
            json_path: None,
            sample: None,
            index_directives,
            inheritance: _,
        } = factor
        else {
            return Err(refuse::mutation_clause(
                "a target that is not a plain table name",
                location,
            ));
        };
        if !with_hints.is_empty() || !partitions.is_empty() || !index_directives.is_empty() {
            return Err(refuse::mutation_clause(
                "table hints or partitions on the target",
                location,
            ));
        }
        if alias.as_ref().is_some_and(|a| !a.columns.is_empty()) {
            return Err(refuse::mutation_clause(
                "column aliases on the target",
                location,
            ));
        }
        let alias = alias.as_ref().map(|a| fold_ident(&a.name, self.dialect()));
        self.target(name, alias, writes, found)
    }

    /// Resolves the target against `writes.tables`, `tables.deny`, the system catalogs and the
    /// catalog (which must not call it a view).
    fn target(
        &mut self,
        name: &ObjectName,
        alias: Option<String>,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
    ) -> Result<Source, GuardError> {
        let location = span_location(name.span());
        if name
            .0
            .iter()
            .any(|p| p.as_ident().is_some_and(|i| i.quote_style == Some('\'')))
        {
            return Err(refuse::file_path_as_table(name, location));
        }
        let Some(parts) = fold_object_name(name, self.dialect()) else {
            return Err(refuse::computed_table_name(location));
        };
        let access = self.ctx.access;
        match access.resolve_target(&parts, |p, default| writes.writable(p, default)) {
            Ok((_, true)) => Err(refuse::view_as_target(name, location)),
            Ok((table, false)) => {
                found.target = table.display.clone();
                Ok(Source {
                    alias,
                    kind: SourceKind::Table(table),
                })
            }
            Err(TargetRefusal::NotWritable) => Err(refuse::table_not_writable(
                name,
                writes.patterns(),
                location,
            )),
            Err(TargetRefusal::Table(refusal)) => Err(self.table_refusal(name, refusal, location)),
        }
    }

    /// FROM / USING items of UPDATE / DELETE, read as a SELECT's FROM items. `scope` holds the
    /// target first.
    fn read_sources(
        &mut self,
        items: &[TableWithJoins],
        scope: &mut Scope<'_>,
    ) -> Result<(), GuardError> {
        for item in items {
            let sources = self.table_with_joins(item, scope, 1)?;
            if let Some(target) = scope.sources.first() {
                no_alias_of_target(target, &sources, span_location(item.relation.span()))?;
            }
            scope.sources.extend(sources);
        }
        Ok(())
    }

    /// `SET column = value, ...`: each column written, each value read in `scope`.
    fn assignments(
        &mut self,
        assignments: &[Assignment],
        scope: &Scope<'_>,
        target: &Source,
        found: &mut MutationAnalysis,
    ) -> Result<(), GuardError> {
        for assignment in assignments {
            match &assignment.target {
                AssignmentTarget::ColumnName(column) => self.write_column(column, target, found)?,
                AssignmentTarget::Tuple(columns) => {
                    for column in columns {
                        self.write_column(column, target, found)?;
                    }
                }
            }
            self.exprs(&assignment.value, scope)?;
        }
        Ok(())
    }

    /// One written column, `c`, `t.c` (MySQL, the target's name) or `c.field` (PostgreSQL, a
    /// composite's field). No part may be a protected column; with a catalog, the column must
    /// exist.
    fn write_column(
        &mut self,
        column: &ObjectName,
        target: &Source,
        found: &mut MutationAnalysis,
    ) -> Result<(), GuardError> {
        let location = span_location(column.span());
        let Some(parts) = fold_object_name(column, self.dialect()) else {
            return Err(refuse::computed_table_name(location));
        };
        let table = target_table(target);
        if let Some(protected) = parts
            .iter()
            .find(|p| table.is_some_and(|t| t.protected.contains(p)))
        {
            return Err(refuse::protected_column_written(
                table.map_or("", |t| t.display.as_str()),
                protected,
                location,
            ));
        }
        let name = match parts.as_slice() {
            [qualifier, column] if target.is_named(std::slice::from_ref(qualifier)) => column,
            [first, ..] => first,
            [] => return Err(refuse::computed_table_name(location)),
        };
        if let Some(t) = table {
            if t.columns.as_ref().is_some_and(|c| !c.contains(name)) {
                return Err(refuse::unknown_written_column(t, name, location));
            }
        }
        found.columns_written.insert(name.clone());
        Ok(())
    }

    /// An INSERT without a column list (or MERGE's `INSERT ROW` / `*`): every column, so none
    /// may be protected.
    fn write_every_column(
        &mut self,
        table: Option<&ResolvedTable>,
        location: Option<Location>,
        found: &mut MutationAnalysis,
    ) -> Result<(), GuardError> {
        let Some(table) = table else {
            return Ok(());
        };
        if let Some(protected) = table.protected.first() {
            return Err(refuse::every_column_written(
                &table.display,
                protected,
                location,
            ));
        }
        match &table.columns {
            Some(columns) => found.columns_written.extend(columns.iter().cloned()),
            None => {
                found.columns_written.insert("*".to_string());
            }
        }
        Ok(())
    }

    /// WHERE of UPDATE / DELETE: read in `scope`, and required (naming a column) unless the
    /// policy allows unbounded mutations.
    fn condition(
        &mut self,
        selection: Option<&Expr>,
        scope: &Scope<'_>,
        writes: &WritePolicy,
        found: &mut MutationAnalysis,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        if let Some(selection) = selection {
            self.exprs(selection, scope)?;
        }
        found.has_where = selection.is_some_and(names_a_column);
        if !found.has_where && !writes.allow_unbounded {
            return Err(refuse::unbounded_mutation(selection.is_some(), location));
        }
        Ok(())
    }

    /// RETURNING: read in `scope`, stars included (a star over protected columns is refused as
    /// in a SELECT).
    fn returning(
        &mut self,
        items: Option<&[SelectItem]>,
        scope: &Scope<'_>,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        for item in items.unwrap_or_default() {
            self.select_item(item, scope, location)?;
        }
        Ok(())
    }
}

/// Refuses a FROM / USING / MERGE source whose alias is the target's name (or alias). SQL Server
/// reads `UPDATE orders ... FROM customer AS orders` as an update of `customer`, the table behind
/// the alias; PostgreSQL rejects it. Either way the statement would not modify what was checked.
fn no_alias_of_target(
    target: &Source,
    sources: &[Source],
    location: Option<Location>,
) -> Result<(), GuardError> {
    let target_name = match (&target.alias, &target.kind) {
        (Some(alias), _) => alias.clone(),
        (None, SourceKind::Table(t)) => t.parts.last().cloned().unwrap_or_default(),
        (None, SourceKind::Derived(_)) => return Ok(()),
    };
    match sources
        .iter()
        .filter_map(|s| s.alias.as_deref())
        .find(|alias| *alias == target_name)
    {
        Some(alias) => Err(refuse::alias_of_target(alias, location)),
        None => Ok(()),
    }
}

/// The clauses of UPDATE / DELETE after their FROM / USING.
struct Tail<'a> {
    selection: Option<&'a Expr>,
    order_by: &'a Vec<OrderByExpr>,
    limit: Option<&'a Expr>,
    returning: Option<&'a [SelectItem]>,
}

/// Optimizer hints, and the engine-specific clauses the walker does not model (ON CLUSTER,
/// OUTPUT, SETTINGS), when `engine_clauses` says one is present.
fn refused_extras(
    optimizer_hints: &[OptimizerHint],
    engine_clauses: bool,
    location: Option<Location>,
) -> Result<(), GuardError> {
    if !optimizer_hints.is_empty() {
        return Err(refuse::optimizer_hints(location));
    }
    if engine_clauses {
        return Err(refuse::mutation_clause(
            "ON CLUSTER, OUTPUT or SETTINGS",
            location,
        ));
    }
    Ok(())
}

/// The base table behind the target source.
fn target_table(target: &Source) -> Option<&ResolvedTable> {
    match &target.kind {
        SourceKind::Table(t) => Some(t),
        SourceKind::Derived(_) => None,
    }
}

/// True when `condition` names at least one column: `WHERE true`, `WHERE 1 = 1` or
/// `WHERE EXISTS (SELECT 1)` select every row or none, so they bound nothing.
fn names_a_column(condition: &Expr) -> bool {
    struct Finder;
    impl Visitor for Finder {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            match expr {
                Expr::Identifier(_) | Expr::CompoundIdentifier(_) => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            }
        }
    }
    condition.visit(&mut Finder).is_break()
}

#[cfg(test)]
mod tests {
    use super::super::test_support::guard;
    use crate::Guard;

    /// `customer.email` / `customer.phone` protected, `employee` denied; `orders` and
    /// `customer` writable, both classes.
    const WRITES: &str = r#"{"tables": {"deny": ["employee"]},
        "columns": {"deny": ["customer.email", "customer.phone"]},
        "writes": {"tables": ["orders", "customer"],
                   "classes": ["mutation_create", "mutation_delete"]}}"#;

    fn code(guard: &Guard, sql: &str) -> Option<String> {
        guard
            .check_mutation(sql)
            .err()
            .map(|r| r.error.code.as_str().to_string())
    }

    #[test]
    fn the_target_is_in_scope_under_its_alias_only() {
        let g = guard(WRITES, "postgres");
        // `c` names the target: `c.email` is the protected column, in every clause.
        for sql in [
            "UPDATE customer AS c SET first_name = 'x' WHERE c.email = ''",
            "DELETE FROM customer c WHERE c.phone IS NULL",
            "UPDATE customer c SET first_name = 'x' WHERE c.customer_id = 1 RETURNING c.email",
        ] {
            assert_eq!(
                code(&g, sql).as_deref(),
                Some("column_not_allowed"),
                "{sql}"
            );
        }
        // An alias that reuses another table's name still names the target: `orders.email` here
        // is the target's column, not `orders`'s, and `orders` has no protected columns.
        assert_eq!(
            code(
                &g,
                "UPDATE orders AS customer SET status = 'x' WHERE customer.email = ''"
            ),
            None
        );
    }

    #[test]
    fn excluded_is_the_target_row_and_keeps_its_protected_columns() {
        let g = guard(WRITES, "postgres");
        let upsert = "INSERT INTO customer (customer_id, first_name) VALUES (1, 'a') \
                      ON CONFLICT (customer_id) DO UPDATE SET first_name = ";
        assert_eq!(code(&g, &format!("{upsert}excluded.first_name")), None);
        assert_eq!(
            code(&g, &format!("{upsert}excluded.email")).as_deref(),
            Some("column_not_allowed")
        );
        let g = guard(WRITES, "sqlite");
        assert_eq!(
            code(&g, &format!("{upsert}excluded.phone")).as_deref(),
            Some("column_not_allowed")
        );
    }

    #[test]
    fn a_where_bounds_only_when_it_names_a_column() {
        let g = guard(WRITES, "postgres");
        for bounded in [
            "DELETE FROM orders WHERE id = 1",
            "DELETE FROM orders WHERE status IN ('a', 'b')",
            "DELETE FROM orders o WHERE EXISTS (SELECT 1 FROM customer c WHERE c.customer_id = o.id)",
        ] {
            assert_eq!(code(&g, bounded), None, "{bounded}");
        }
        for unbounded in [
            "DELETE FROM orders WHERE 2 > 1",
            "DELETE FROM orders WHERE NULL IS NULL",
            "DELETE FROM orders WHERE (SELECT 1) = 1",
        ] {
            assert_eq!(
                code(&g, unbounded).as_deref(),
                Some("unbounded_mutation"),
                "{unbounded}"
            );
        }
    }

    #[test]
    fn a_source_may_not_take_the_targets_name() {
        let g = guard(WRITES, "mssql");
        for sql in [
            "UPDATE orders SET status = 'x' FROM product AS orders WHERE orders.id = 1",
            "UPDATE customer SET first_name = 'x' FROM orders o JOIN product customer ON o.id = customer.id WHERE o.id = 1",
        ] {
            assert_eq!(code(&g, sql).as_deref(), Some("unsupported_syntax"), "{sql}");
        }
        let g = guard(WRITES, "postgres");
        assert_eq!(
            code(
                &g,
                "DELETE FROM orders o USING customer AS o WHERE o.id = 1"
            )
            .as_deref(),
            Some("unsupported_syntax")
        );
        assert_eq!(
            code(&g, "MERGE INTO orders USING customer AS orders ON orders.id = 1 WHEN MATCHED THEN DELETE")
                .as_deref(),
            Some("unsupported_syntax")
        );
        // A self-join under another alias is fine.
        assert_eq!(
            code(
                &g,
                "UPDATE orders SET status = o2.status FROM orders o2 WHERE o2.id = orders.id + 1"
            ),
            None
        );
    }

    #[test]
    fn what_is_written_is_reported() {
        let g = guard(WRITES, "postgres");
        let approved = g
            .check_mutation(
                "INSERT INTO orders (id, status) SELECT customer_id, first_name FROM customer \
                 ON CONFLICT (id) DO UPDATE SET status = excluded.status, note = 'x'",
            )
            .expect("allowed");
        assert_eq!(approved.target, "orders");
        assert_eq!(approved.columns_written, ["id", "note", "status"]);
        assert_eq!(approved.tables_read, ["customer"]);
        assert!(!approved.has_where);
        // A table the statement both reads and writes is read through the read checks.
        let approved = g
            .check_mutation(
                "DELETE FROM orders WHERE id IN (SELECT id FROM orders WHERE status = 'x')",
            )
            .expect("allowed");
        assert_eq!(approved.tables_read, ["orders"]);
    }
}
