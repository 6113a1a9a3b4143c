//! Read-only and policy validation of one query, walking every nested query and expression with
//! scopes: CTEs (which shadow tables), FROM items and their aliases, LATERAL, set operations and
//! correlated subqueries.
//!
//! Expressions are walked with sqlparser's derived [`Visitor`], so no expression kind can be
//! skipped; query structure (WITH, FROM, joins) is walked by hand so that names resolve by scope.
//! A final count compares the queries, table factors and function calls the derived visitor sees
//! in the whole statement with those this walker handled: any difference means a part of the tree
//! went unchecked, and the query is refused (fail closed).

use std::collections::{BTreeSet, HashSet};
use std::ops::ControlFlow;

use sqlparser::ast::{
    AccessExpr, BinaryOperator, ExcludeSelectItem, Expr, Function, FunctionArg, FunctionArgExpr,
    FunctionArguments, GroupByExpr, Ident, JoinConstraint, JoinOperator, ObjectName, Query, Select,
    SelectItem, SelectItemQualifiedWildcardKind, SetExpr, Spanned, Statement, TableFactor,
    TableWithJoins, Value, Visit, Visitor, WildcardAdditionalOptions,
};
use sqlparser::tokenizer::Span;

use crate::access::{AccessPolicy, ResolvedTable, TableRefusal};
use crate::dialect::Dialect;
use crate::error::{ErrorCode, GuardError, Location, Stage};
use crate::functions::{FunctionPolicy, FunctionRefusal};
use crate::names::{closest, fold_ident, fold_object_name};

/// What a checked query reads.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// Tables read (display names).
    pub tables: BTreeSet<String>,
    /// Functions called (lower-case display names).
    pub functions: BTreeSet<String>,
    /// Columns read (`table.column`), when a catalog resolved them.
    pub columns: BTreeSet<String>,
}

/// Everything the walker needs from the guard.
pub struct Context<'a> {
    /// Dialect for name folding.
    pub dialect: Dialect,
    /// Function allow/deny decisions.
    pub functions: &'a FunctionPolicy,
    /// Table and column decisions.
    pub access: &'a AccessPolicy,
}

/// Validates `statement` (a query, or the query under an EXPLAIN) and returns what it reads.
pub fn analyze(query: &Query, ctx: &Context<'_>) -> Result<Analysis, GuardError> {
    let mut walker = Walker {
        ctx,
        analysis: Analysis::default(),
        counts: Counts::default(),
    };
    walker.query(query, None)?;
    let mut expected = Counts::default();
    let _ = query.visit(&mut expected);
    if expected != walker.counts {
        return Err(unsupported(
            "a part of this query is not understood by the validator",
            span_location(query.span()),
        ));
    }
    Ok(walker.analysis)
}

/// Where a function is called: the lists differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FunctionUse {
    /// In an expression (`SELECT upper(x)`).
    Expression,
    /// As a FROM item (`FROM generate_series(1, 3)`).
    Table,
}

/// Nodes seen, for the fail-closed cross-check.
#[derive(Debug, Default, PartialEq, Eq)]
struct Counts {
    queries: usize,
    table_factors: usize,
    function_calls: usize,
}

impl Visitor for Counts {
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
        if matches!(expr, Expr::Function(_)) {
            self.function_calls += 1;
        }
        ControlFlow::Continue(())
    }
}

/// One FROM item in scope.
#[derive(Debug, Clone)]
struct Source {
    /// The alias, when there is one (then only the alias names the source).
    alias: Option<String>,
    kind: SourceKind,
}

#[derive(Debug, Clone)]
enum SourceKind {
    /// A base table.
    Table(ResolvedTable),
    /// A derived table, CTE, table function or UNNEST: its output columns when known.
    Derived(Option<Vec<String>>),
}

impl Source {
    /// True when `qualifier` (folded parts) names this source.
    fn is_named(&self, qualifier: &[String]) -> bool {
        match (&self.alias, &self.kind) {
            (Some(alias), _) => qualifier.len() == 1 && &qualifier[0] == alias,
            // Aligned on the right, either way: `orders` names `sales.orders`, and
            // `public.customer.*` names the FROM item `customer` (found through the search path).
            (None, SourceKind::Table(t)) => {
                let n = qualifier.len().min(t.parts.len());
                n > 0 && t.parts[t.parts.len() - n..] == qualifier[qualifier.len() - n..]
            }
            (None, SourceKind::Derived(_)) => false,
        }
    }

    fn known_columns(&self) -> Option<&[String]> {
        match &self.kind {
            SourceKind::Table(t) => t.columns.as_deref(),
            SourceKind::Derived(c) => c.as_deref(),
        }
    }
}

/// Names visible at one level: CTEs of a WITH, FROM items and select-list aliases of a SELECT.
///
/// How a bare column name resolves (the engines' rule, kept conservative where they differ):
/// levels are searched innermost first; at each level every FROM item that has the name, or
/// whose columns are unknown and so *could* have it, is a candidate, and a candidate that is a
/// protected column refuses the query. The search stops at the first level where a FROM item
/// is known to have the name (the engine binds there). Select-list aliases never stop it: which
/// clauses see them, and whether they win over a FROM column, differs by engine and clause
/// (PostgreSQL's GROUP BY uses an output name only as a last resort and may bind an outer
/// column first; ORDER BY expressions never see aliases), so an alias only proves the name
/// exists.
#[derive(Debug, Default)]
struct Scope<'p> {
    parent: Option<&'p Scope<'p>>,
    ctes: Vec<(String, Option<Vec<String>>)>,
    sources: Vec<Source>,
    aliases: Vec<String>,
    /// How many levels above this one are visible from here only as possibilities: a FROM
    /// item that is not LATERAL, and a JOIN's ON clause, cannot see the SELECT's other FROM
    /// items in PostgreSQL and MySQL, so a name found there does not stop the search (the
    /// engine looks further out) but a protected candidate there still refuses (DuckDB makes
    /// them visible).
    weak_levels: usize,
}

impl<'p> Scope<'p> {
    fn child(parent: Option<&'p Scope<'p>>) -> Self {
        Scope {
            parent,
            ..Scope::default()
        }
    }

    /// An empty level over `parent` through which the `levels` levels from `parent` up are
    /// only possibilities.
    fn weak_view(parent: &'p Scope<'p>, levels: usize) -> Self {
        Scope {
            parent: Some(parent),
            weak_levels: levels,
            ..Scope::default()
        }
    }

    fn levels(&self) -> impl Iterator<Item = &Scope<'p>> {
        std::iter::successors(Some(self), |s| s.parent)
    }

    fn find_cte(&self, name: &str) -> Option<&Option<Vec<String>>> {
        self.levels()
            .find_map(|s| s.ctes.iter().rev().find(|(n, _)| n == name).map(|(_, c)| c))
    }
}

struct Walker<'c, 'a> {
    ctx: &'c Context<'a>,
    analysis: Analysis,
    counts: Counts,
}

fn span_location(span: Span) -> Option<Location> {
    (span.start.line > 0).then_some(Location {
        line: span.start.line,
        column: span.start.column,
    })
}

fn unsupported(what: &str, location: Option<Location>) -> GuardError {
    GuardError::new(
        ErrorCode::UnsupportedSyntax,
        Stage::Validate,
        what.to_string(),
    )
    .with_hint("rewrite the query with plain SELECT ... FROM ... JOIN ... WHERE constructs")
    .at(location)
}

fn refuse(code: ErrorCode, message: String, hint: &str, location: Option<Location>) -> GuardError {
    GuardError::new(code, Stage::Validate, message)
        .with_hint(hint)
        .at(location)
}

impl<'c, 'a> Walker<'c, 'a> {
    fn dialect(&self) -> Dialect {
        self.ctx.dialect
    }

    /// Checks a query; returns its output column names when they are known.
    fn query(
        &mut self,
        query: &Query,
        parent: Option<&Scope<'_>>,
    ) -> Result<Option<Vec<String>>, GuardError> {
        self.counts.queries += 1;
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
            return Err(refuse(
                ErrorCode::LockingClause,
                format!("locking clause `{lock}` takes row locks"),
                "remove the FOR UPDATE / FOR SHARE clause",
                span_location(query.span()),
            ));
        }
        if settings.is_some() || format_clause.is_some() || !pipe_operators.is_empty() {
            return Err(unsupported(
                "SETTINGS, FORMAT and pipe operators are not supported",
                span_location(query.span()),
            ));
        }
        let mut scope = Scope::child(parent);
        if let Some(with) = with {
            for cte in &with.cte_tables {
                let name = fold_ident(&cte.alias.name, self.dialect());
                if with.recursive {
                    // A recursive CTE sees itself.
                    scope.ctes.push((name.clone(), None));
                }
                let columns = self.query(&cte.query, Some(&scope))?;
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
                if with.recursive {
                    scope.ctes.pop();
                }
                scope.ctes.push((name, columns));
            }
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
        Ok(columns)
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
                let (columns, _) = self.set_expr(left, scope)?;
                self.set_expr(right, scope)?;
                Ok((columns, None))
            }
            SetExpr::Values(values) => {
                self.exprs(values, scope)?;
                Ok((None, None))
            }
            SetExpr::Insert(s) | SetExpr::Update(s) | SetExpr::Delete(s) | SetExpr::Merge(s) => {
                Err(refuse(
                    ErrorCode::DataModifyingCte,
                    format!(
                        "a data-modifying statement ({}) is nested inside the query",
                        statement_keyword(s)
                    ),
                    "remove the INSERT / UPDATE / DELETE / MERGE; only reads may run",
                    span_location(s.span()),
                ))
            }
            SetExpr::Table(table) => {
                let Some(name) = &table.table_name else {
                    return Err(unsupported("TABLE without a name", None));
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
                self.star(None, &s, &[], None)?;
                Ok((None, None))
            }
        }
    }

    /// Checks a SELECT and returns its scope (FROM items and select-list aliases).
    fn select<'s>(
        &mut self,
        select: &Select,
        parent: &'s Scope<'s>,
    ) -> Result<Scope<'s>, GuardError> {
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
        if let Some(into) = into {
            return Err(refuse(
                ErrorCode::SelectInto,
                format!("`{into}` writes the result somewhere instead of returning it"),
                "remove the INTO clause",
                location,
            ));
        }
        if top.is_some() && !self.dialect().supports_top() {
            return Err(unsupported(
                &format!(
                    "`TOP` is not {} syntax: the engine would read it differently",
                    self.dialect()
                ),
                location,
            )
            .with_hint("use LIMIT instead of TOP"));
        }
        if !optimizer_hints.is_empty() {
            return Err(unsupported("optimizer hints are not supported", location));
        }
        let mut scope = Scope::child(Some(parent));
        for item in from {
            let sources = self.table_with_joins(item, &scope, 1)?;
            scope.sources.extend(sources);
        }
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
            self.star(None, &scope, &[], location)?;
        }
        for item in projection {
            match item {
                SelectItem::Wildcard(options) => {
                    let excluded = excluded_columns(options, self.dialect());
                    self.star(None, &scope, &excluded, location)?
                }
                SelectItem::QualifiedWildcard(
                    SelectItemQualifiedWildcardKind::ObjectName(name),
                    options,
                ) => {
                    let excluded = excluded_columns(options, self.dialect());
                    self.star(Some(name), &scope, &excluded, location)?
                }
                SelectItem::QualifiedWildcard(SelectItemQualifiedWildcardKind::Expr(expr), _) => {
                    self.exprs(expr, &scope)?
                }
                SelectItem::UnnamedExpr(expr)
                | SelectItem::ExprWithAlias { expr, .. }
                | SelectItem::ExprWithAliases { expr, .. } => self.exprs(expr, &scope)?,
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

    /// Checks one FROM entry (a relation and its joins) and returns the sources it adds.
    /// `outer` holds the FROM items before this entry; `depth` counts the levels from `outer`
    /// up to the SELECT's own (1 when `outer` is the SELECT's level, more inside parenthesised
    /// joins). A LATERAL item sees them all; an ON clause sees only its join's members.
    fn table_with_joins(
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
                | JoinOperator::StraightJoin(c) => Some(c),
                JoinOperator::AsOf {
                    match_condition,
                    constraint,
                } => {
                    self.exprs(match_condition, &local)?;
                    Some(constraint)
                }
                JoinOperator::CrossApply
                | JoinOperator::OuterApply
                | JoinOperator::ArrayJoin
                | JoinOperator::LeftArrayJoin
                | JoinOperator::InnerArrayJoin => None,
            };
            match constraint {
                Some(JoinConstraint::On(expr)) => self.exprs(expr, &local)?,
                Some(JoinConstraint::Using(names)) | Some(JoinConstraint::UsingAlias(names, _)) => {
                    // `USING (c)` merges the `c` of both sides into one column, later read by
                    // its bare name: every member that has or could have `c` is a candidate.
                    for name in names {
                        match name.0.as_slice() {
                            [part] => match part.as_ident() {
                                Some(ident) => self.column(&[], ident, &local)?,
                                None => {
                                    return Err(unsupported(
                                        "a computed name in USING",
                                        span_location(name.span()),
                                    ))
                                }
                            },
                            _ => {
                                return Err(unsupported(
                                    "a qualified name in USING",
                                    span_location(name.span()),
                                ))
                            }
                        }
                    }
                }
                Some(JoinConstraint::Natural) => {
                    // NATURAL joins on every shared column: refuse when a protected column may
                    // be among them.
                    if self.ctx.access.has_column_rules()
                        && local.sources.iter().any(|s| match &s.kind {
                            SourceKind::Table(t) => !t.protected.is_empty(),
                            SourceKind::Derived(_) => false,
                        })
                    {
                        return Err(refuse(
                            ErrorCode::ColumnNotAllowed,
                            "NATURAL JOIN over a table with protected columns".into(),
                            "use JOIN ... ON with the columns you need",
                            span_location(join.relation.span()),
                        ));
                    }
                }
                Some(JoinConstraint::None) | None => {}
            }
            local.weak_levels = 0;
        }
        Ok(local.sources)
    }

    /// Checks one FROM item and returns the source it adds to the scope.
    fn table_factor(
        &mut self,
        factor: &TableFactor,
        scope: &Scope<'_>,
        depth: usize,
    ) -> Result<Vec<Source>, GuardError> {
        self.counts.table_factors += 1;
        let location = factor_location(factor);
        match factor {
            TableFactor::Table {
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
            } => {
                if !with_hints.is_empty() {
                    return Err(refuse(
                        ErrorCode::LockingClause,
                        format!("table hints `WITH ({})` may take locks", join_display(with_hints)),
                        "remove the WITH (...) table hint",
                        location,
                    ));
                }
                self.exprs(version, scope)?;
                self.exprs(json_path, scope)?;
                self.exprs(sample, scope)?;
                let alias_name = alias.as_ref().map(|a| fold_ident(&a.name, self.dialect()));
                if let Some(args) = args {
                    // A table function written as `name(args)`.
                    self.function_name_as(name, FunctionUse::Table, location)?;
                    series_bound(name, &args.args, location)?;
                    self.exprs(&args.args, scope)?;
                    self.exprs(&args.settings, scope)?;
                    return Ok(vec![Source {
                        alias: alias_name,
                        kind: SourceKind::Derived(alias_columns(alias.as_ref(), self.dialect())),
                    }]);
                }
                let mut source = self.relation(name, alias_name, scope)?;
                if let (Some(a), SourceKind::Table(t)) = (alias, &source.kind) {
                    // `customer AS c(a, b, c, d, e)` renames columns by position: a protected
                    // column could be read under another name.
                    if !a.columns.is_empty() && !t.protected.is_empty() {
                        return Err(refuse(
                            ErrorCode::ColumnNotAllowed,
                            format!(
                                "renaming the columns of `{}`, which has protected columns",
                                t.display
                            ),
                            "drop the column list after the alias and name the columns you need",
                            location,
                        ));
                    }
                }
                if let Some(a) = alias.as_ref().filter(|a| !a.columns.is_empty()) {
                    // The list renames the first columns; the rest keep their names. A table
                    // known to the catalog must not keep answering to its old names: the
                    // engine looks further out for them.
                    let renamed = alias_columns(Some(a), self.dialect()).unwrap_or_default();
                    let columns = match &source.kind {
                        SourceKind::Table(t) => t.columns.as_ref().map(|c| {
                            let rest = c.iter().skip(renamed.len()).cloned();
                            renamed.iter().cloned().chain(rest).collect()
                        }),
                        SourceKind::Derived(_) => Some(renamed),
                    };
                    source.kind = SourceKind::Derived(columns);
                }
                Ok(vec![source])
            }
            TableFactor::Derived {
                lateral,
                subquery,
                alias,
                sample,
            } => {
                self.exprs(sample, scope)?;
                // Not LATERAL: this join's members and the SELECT's other FROM items are
                // only possibilities (`scope` and the `depth` levels above it).
                let view = Scope::weak_view(scope, depth + 1);
                let parent = if *lateral { scope } else { &view };
                let columns = self.query(subquery, Some(parent))?;
                let columns = alias_columns(alias.as_ref(), self.dialect()).or(columns);
                Ok(vec![Source {
                    alias: alias.as_ref().map(|a| fold_ident(&a.name, self.dialect())),
                    kind: SourceKind::Derived(columns),
                }])
            }
            TableFactor::TableFunction { expr, alias } => {
                // Snowflake's `TABLE(f(...))` wraps a table function; `TABLE('name')` or
                // `TABLE($var)` reads a table named at run time.
                if !matches!(expr, Expr::Function(_)) {
                    return Err(unsupported(
                        "TABLE(...) over a name or string reads a table chosen at run time",
                        span_location(expr.span()),
                    )
                    .with_hint("name the table itself in FROM"));
                }
                if let Expr::Function(f) = expr {
                    self.function_name_as(&f.name, FunctionUse::Table, location)?;
                }
                self.exprs(expr, scope)?;
                Ok(vec![derived(alias.as_ref(), self.dialect())])
            }
            TableFactor::Function {
                lateral: _,
                name,
                args,
                with_ordinality: _,
                alias,
            } => {
                self.function_name_as(name, FunctionUse::Table, location)?;
                series_bound(name, args, location)?;
                self.exprs(args, scope)?;
                Ok(vec![derived(alias.as_ref(), self.dialect())])
            }
            TableFactor::UNNEST {
                alias, array_exprs, ..
            } => {
                self.exprs(array_exprs, scope)?;
                Ok(vec![derived(alias.as_ref(), self.dialect())])
            }
            TableFactor::JsonTable {
                json_expr,
                alias,
                columns,
                ..
            } => {
                self.exprs(json_expr, scope)?;
                self.exprs(columns, scope)?;
                Ok(vec![derived(alias.as_ref(), self.dialect())])
            }
            TableFactor::NestedJoin {
                table_with_joins,
                alias,
            } => {
                let added = self.table_with_joins(table_with_joins, scope, depth + 1)?;
                match alias {
                    // An aliased join hides its members' names behind the alias.
                    Some(a) => {
                        // The alias would hide the members' protected columns from `*` and
                        // `alias.column` checks: refuse that combination.
                        if added.iter().any(|m| matches!(&m.kind, SourceKind::Table(t) if !t.protected.is_empty())) {
                            return Err(unsupported(
                                "an aliased parenthesised join over a table with protected columns",
                                location,
                            ));
                        }
                        Ok(vec![Source {
                            alias: Some(fold_ident(&a.name, self.dialect())),
                            kind: SourceKind::Derived(alias_columns(Some(a), self.dialect())),
                        }])
                    }
                    None => {
                        // Members stay visible by their own names.
                        Ok(added)
                    }
                }
            }
            TableFactor::OpenJsonTable { .. }
            | TableFactor::Pivot { .. }
            | TableFactor::Unpivot { .. }
            | TableFactor::UnpivotExpr { .. }
            | TableFactor::MatchRecognize { .. }
            | TableFactor::XmlTable { .. }
            | TableFactor::SemanticView { .. } => Err(unsupported(
                "PIVOT, UNPIVOT, MATCH_RECOGNIZE, XMLTABLE, OPENJSON and semantic views are not supported",
                span_location(factor.span()),
            )),
        }
    }
}

impl<'c, 'a> Walker<'c, 'a> {
    /// Walks every expression under `node` in `scope`.
    fn exprs<T: Visit>(&mut self, node: &T, scope: &Scope<'_>) -> Result<(), GuardError> {
        let mut visitor = ExprVisitor {
            walker: self,
            scope,
            skip_depth: 0,
            skip_exprs: HashSet::new(),
            error: None,
        };
        let _ = node.visit(&mut visitor);
        match visitor.error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Resolves a relation in FROM: a CTE in scope, or a table checked against the policy.
    fn relation(
        &mut self,
        name: &ObjectName,
        alias: Option<String>,
        scope: &Scope<'_>,
    ) -> Result<Source, GuardError> {
        let location = span_location(name.span());
        let string_literal = name
            .0
            .iter()
            .any(|p| p.as_ident().is_some_and(|i| i.quote_style == Some('\'')));
        if string_literal {
            return Err(refuse(
                ErrorCode::TableNotAllowed,
                format!("{name} is a file path or URL, not a table"),
                "read from a table by name",
                location,
            ));
        }
        let Some(parts) = fold_object_name(name, self.dialect()) else {
            return Err(unsupported("a computed table name", location)
                .with_hint("name the table itself in FROM"));
        };
        if let [single] = parts.as_slice() {
            if let Some(columns) = scope.find_cte(single) {
                return Ok(Source {
                    alias: Some(alias.unwrap_or_else(|| single.clone())),
                    kind: SourceKind::Derived(columns.clone()),
                });
            }
        }
        if let Some(reason) = not_a_table(name, self.dialect()) {
            return Err(refuse(
                ErrorCode::TableNotAllowed,
                format!("`{name}` {reason}, not a table"),
                "read from a table by its name",
                location,
            ));
        }
        match self.ctx.access.resolve(&parts) {
            Ok(table) => {
                self.analysis.tables.insert(table.display.clone());
                Ok(Source {
                    alias,
                    kind: SourceKind::Table(table),
                })
            }
            Err(TableRefusal::SystemCatalog) => Err(refuse(
                ErrorCode::SystemCatalog,
                format!("`{name}` is a system catalog"),
                "query the application's tables; system catalogs are not open to queries",
                location,
            )),
            Err(TableRefusal::NotAllowed(suggestion)) => Err(refuse(
                ErrorCode::TableNotAllowed,
                format!("table `{name}` is not allowed by the policy"),
                &match suggestion {
                    Some(s) => format!("use an allowed table such as `{s}`"),
                    None => "use a table the policy allows".to_string(),
                },
                location,
            )),
            Err(TableRefusal::Unknown(suggestion)) => Err(refuse(
                ErrorCode::UnknownTable,
                format!("table `{name}` does not exist"),
                &match suggestion {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "check the table name; list_tables shows what exists".to_string(),
                },
                location,
            )),
        }
    }

    /// `*` (over the current SELECT's sources) or `qualifier.*`, less the `excluded` (folded)
    /// columns of `* EXCLUDE (...)` / `* EXCEPT (...)`.
    fn star(
        &mut self,
        qualifier: Option<&ObjectName>,
        scope: &Scope<'_>,
        excluded: &[String],
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        let sources: Vec<&Source> = match qualifier {
            None => scope.sources.iter().collect(),
            Some(name) => {
                let Some(q) = fold_object_name(name, self.dialect()) else {
                    return Err(unsupported("a computed qualifier", location));
                };
                let named: Vec<&Source> = scope
                    .levels()
                    .flat_map(|l| l.sources.iter())
                    .filter(|s| s.is_named(&q))
                    .collect();
                if named.is_empty() {
                    // The engine would reject it, or read something this walker cannot see.
                    return Err(refuse(
                        ErrorCode::UnknownTable,
                        format!("`{name}.*` names no table of this query"),
                        "qualify `*` with a table name or alias from FROM",
                        location,
                    ));
                }
                named
            }
        };
        for source in sources {
            let SourceKind::Table(table) = &source.kind else {
                continue;
            };
            if table.protected.iter().any(|p| !excluded.contains(p)) {
                return Err(match &table.columns {
                    Some(columns) => {
                        let open: Vec<&str> = columns
                            .iter()
                            .filter(|c| !table.protected.contains(c))
                            .map(|c| table.spelling(c))
                            .collect();
                        refuse(
                            ErrorCode::ColumnNotAllowed,
                            format!("`*` over `{}` includes a protected column", table.display),
                            &format!("list the columns you need: {}", open.join(", ")),
                            location,
                        )
                    }
                    None => refuse(
                        ErrorCode::StarOnRestrictedTable,
                        format!("`*` over `{}`, which has protected columns", table.display),
                        "list the columns you need",
                        location,
                    ),
                });
            }
            if let Some(columns) = &table.columns {
                for c in columns.iter().filter(|c| !excluded.contains(c)) {
                    self.analysis
                        .columns
                        .insert(format!("{}.{c}", table.display));
                }
            }
        }
        Ok(())
    }

    /// A column reference, `qualifier.column` or a bare `column`.
    fn column(
        &mut self,
        qualifier: &[Ident],
        column: &Ident,
        scope: &Scope<'_>,
    ) -> Result<(), GuardError> {
        let access = self.ctx.access;
        if !access.has_column_rules() && !access.has_catalog() {
            return Ok(());
        }
        let location = span_location(column.span);
        let name = fold_ident(column, self.dialect());
        if !qualifier.is_empty() {
            let q: Vec<String> = qualifier
                .iter()
                .map(|i| fold_ident(i, self.dialect()))
                .collect();
            // SQLite (unlike PostgreSQL, which stops at the innermost item of that name) keeps
            // looking outward when the innermost `q` lacks the column: every item named `q` up
            // to the first known to have it is a candidate.
            let mut first_named = None;
            for level in scope.levels() {
                let mut binds_here = false;
                for source in level.sources.iter().filter(|s| s.is_named(&q)) {
                    first_named.get_or_insert(source);
                    match source.known_columns() {
                        Some(columns) if columns.contains(&name) => {
                            self.bound(source, &name, location)?;
                            binds_here = true;
                        }
                        Some(_) => {}
                        None => self.bound(source, &name, location)?,
                    }
                }
                if binds_here {
                    return Ok(());
                }
            }
            if let Some(source) = first_named {
                // Named, but no item of that name has the column: the engine's error, with a hint.
                return self.bound(source, &name, location);
            }
            // Not a source: a composite value's field (`c.f`) or a name the database will reject.
            if let Some(first) = qualifier.first() {
                self.column(&[], first, scope)?;
            }
            return self.conservative(&name, scope, location);
        }
        self.bare_column(&name, scope, location)
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
        if scope
            .levels()
            .flat_map(|l| l.sources.iter())
            .any(|s| s.is_named(&q))
        {
            return Ok(());
        }
        Err(refuse(
            ErrorCode::FunctionNotAllowed,
            format!(
                "`{}.{}` reads or advances a sequence",
                join_idents(qualifier),
                column.value
            ),
            "remove the sequence reference; sequences change state when read",
            span_location(column.span),
        ))
    }

    /// A bare column name, resolved as [`Scope`] describes: every candidate at each level up to
    /// the level that binds it must be open, and a whole-row reference to a table with
    /// protected columns is refused.
    fn bare_column(
        &mut self,
        name: &str,
        scope: &Scope<'_>,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        let mut exists = false;
        // Some FROM item on the way could own any name (its columns are unknown).
        let mut open_ended = false;
        let mut weak_remaining = 0usize;
        let mut bound = false;
        for level in scope.levels() {
            let weak = weak_remaining > 0;
            // Bound: the levels still scanned are the SELECT's other FROM items that this part
            // of it cannot see (an ON clause); a protected one there is refused all the same,
            // since engines differ on what an ON clause sees.
            if bound && !weak {
                break;
            }
            let mut binds_here = false;
            for source in &level.sources {
                match source.known_columns() {
                    Some(columns) if columns.iter().any(|c| c == name) => {
                        self.bound(source, name, location)?;
                        binds_here = true;
                    }
                    Some(_) => {}
                    None => {
                        open_ended = true;
                        if let SourceKind::Table(t) = &source.kind {
                            if t.protected.iter().any(|p| p == name) {
                                return Err(refuse(
                                    ErrorCode::ColumnNotAllowed,
                                    format!(
                                        "`{name}` may refer to the protected column `{}.{name}`",
                                        t.display
                                    ),
                                    "remove the protected column from the query, and do not \
                                     reuse its name for an alias or another table's column",
                                    location,
                                ));
                            }
                        }
                    }
                }
            }
            exists |= binds_here || level.aliases.iter().any(|a| a == name);
            bound |= binds_here && !weak;
            weak_remaining = weak_remaining.saturating_sub(1).max(level.weak_levels);
        }
        // A bare table name or alias is also a whole-row reference (`SELECT c FROM customer c`).
        let as_qualifier = [name.to_string()];
        for source in scope.levels().flat_map(|l| l.sources.iter()) {
            if !source.is_named(&as_qualifier) {
                continue;
            }
            if let SourceKind::Table(t) = &source.kind {
                if !t.protected.is_empty() {
                    return Err(refuse(
                        ErrorCode::ColumnNotAllowed,
                        format!(
                            "`{name}` is a whole-row reference to `{}`, which has protected columns",
                            t.display
                        ),
                        "list the columns you need",
                        location,
                    ));
                }
            }
            exists = true;
        }
        if exists || open_ended {
            return Ok(());
        }
        // With a catalog and every source known, an unbound name does not exist.
        let all: Vec<&Source> = scope.levels().flat_map(|l| l.sources.iter()).collect();
        if self.ctx.access.has_catalog() && !all.is_empty() {
            let visible: Vec<&str> = all
                .iter()
                .flat_map(|s| {
                    let columns = s.known_columns().unwrap_or_default();
                    match &s.kind {
                        SourceKind::Table(t) => columns
                            .iter()
                            .filter(|c| !t.protected.contains(c))
                            .map(|c| t.spelling(c))
                            .collect::<Vec<_>>(),
                        SourceKind::Derived(_) => columns.iter().map(String::as_str).collect(),
                    }
                })
                .collect();
            return Err(unknown_column(name, None, closest(name, visible), location));
        }
        Ok(())
    }

    /// A column bound to a source: protected or unknown columns are refused.
    fn bound(
        &mut self,
        source: &Source,
        name: &str,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        let SourceKind::Table(table) = &source.kind else {
            return Ok(());
        };
        if table.protected.iter().any(|p| p == name) {
            return Err(refuse(
                ErrorCode::ColumnNotAllowed,
                format!(
                    "column `{}.{name}` is protected by the policy",
                    table.display
                ),
                "remove the protected column from the query",
                location,
            ));
        }
        if let Some(columns) = &table.columns {
            if !columns.iter().any(|c| c == name) {
                let open = columns
                    .iter()
                    .filter(|c| !table.protected.contains(c))
                    .map(|c| table.spelling(c));
                return Err(unknown_column(
                    name,
                    Some(&table.display),
                    closest(name, open),
                    location,
                ));
            }
            self.analysis
                .columns
                .insert(format!("{}.{name}", table.display));
        }
        Ok(())
    }

    /// Refuses a name that any table in scope protects, when it cannot be bound for sure.
    fn conservative(
        &self,
        name: &str,
        scope: &Scope<'_>,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        if !self.ctx.access.is_protected_anywhere(name) {
            return Ok(());
        }
        for source in scope.levels().flat_map(|l| l.sources.iter()) {
            if let SourceKind::Table(t) = &source.kind {
                if t.protected.iter().any(|p| p == name) {
                    return Err(refuse(
                        ErrorCode::ColumnNotAllowed,
                        format!(
                            "`{name}` may refer to the protected column `{}.{name}`",
                            t.display
                        ),
                        "remove the protected column from the query",
                        location,
                    ));
                }
            }
        }
        Ok(())
    }

    /// Checks a function name against the function policy and records it.
    fn function_name(
        &mut self,
        name: &ObjectName,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        self.function_name_as(name, FunctionUse::Expression, location)
    }

    /// Checks a function name used as `used`: in an expression, or as a table in FROM (each
    /// dialect has a separate, shorter list of table functions).
    fn function_name_as(
        &mut self,
        name: &ObjectName,
        used: FunctionUse,
        location: Option<Location>,
    ) -> Result<(), GuardError> {
        let Some(parts) = fold_object_name(name, self.dialect()) else {
            return Err(unsupported("a computed function name", location));
        };
        let display = parts
            .iter()
            .map(|p| p.to_lowercase())
            .collect::<Vec<_>>()
            .join(".");
        let checked = match used {
            FunctionUse::Expression => self.ctx.functions.check(&parts),
            FunctionUse::Table => self.ctx.functions.check_table_function(&parts),
        };
        match checked {
            Ok(()) => {
                self.analysis.functions.insert(display);
                Ok(())
            }
            Err(refusal) => {
                let hint = match refusal {
                    FunctionRefusal::Denied => format!(
                        "remove `{display}`: it is denied (it can reach files, the network, locks or the server); an operator may allow it with functions.allow"
                    ),
                    FunctionRefusal::NotAllowlisted => match match used {
                        FunctionUse::Expression => self.ctx.functions.suggest(&display),
                        FunctionUse::Table => self.ctx.functions.suggest_table_function(&display),
                    } {
                        Some(s) if s != display => format!(
                            "did you mean `{s}`? Otherwise remove `{display}`, or add it to the policy's functions.allow"
                        ),
                        _ => format!(
                            "remove `{display}`, or add it to the policy's functions.allow if it has no side effects"
                        ),
                    },
                };
                let what = match used {
                    FunctionUse::Expression => "function",
                    FunctionUse::Table => "table function",
                };
                Err(refuse(
                    ErrorCode::FunctionNotAllowed,
                    format!("{what} `{display}` is not allowed"),
                    &hint,
                    location,
                ))
            }
        }
    }

    fn function(&mut self, function: &Function, scope: &Scope<'_>) -> Result<(), GuardError> {
        self.counts.function_calls += 1;
        let location = span_location(function.name.span());
        if let [part] = function.name.0.as_slice() {
            let word = part
                .as_ident()
                .filter(|i| i.quote_style.is_none())
                .map(|i| i.value.to_ascii_lowercase());
            match word.as_deref() {
                // DuckDB's `COLUMNS('regex')` / `COLUMNS(*)` / `COLUMNS(lambda)`: a star that
                // picks columns by name at run time.
                Some("columns") if self.dialect() == Dialect::Duckdb => {
                    return self.star(None, scope, &[], location);
                }
                // Snowflake / Databricks `IDENTIFIER('name')`: a name chosen at run time.
                Some("identifier") => {
                    return Err(unsupported(
                        "IDENTIFIER(...) names a table or column from a string at run time",
                        location,
                    )
                    .with_hint("write the column or table name itself"));
                }
                _ => {}
            }
        }
        self.function_name(&function.name, location)?;
        if let FunctionArguments::List(list) = &function.args {
            series_bound(&function.name, &list.args, location)?;
            for arg in &list.args {
                let arg_expr = match arg {
                    FunctionArg::Named { arg, .. }
                    | FunctionArg::ExprNamed { arg, .. }
                    | FunctionArg::Unnamed(arg) => arg,
                };
                match arg_expr {
                    FunctionArgExpr::QualifiedWildcard(name) => {
                        self.star(Some(name), scope, &[], location)?
                    }
                    // `count(*)` counts rows; elsewhere `*` is every column of the FROM items
                    // (Snowflake's `OBJECT_CONSTRUCT(*)`, `HASH(*)`, DuckDB's `struct_pack(*)`).
                    FunctionArgExpr::Wildcard if !is_count(&function.name) => {
                        self.star(None, scope, &[], location)?
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

fn unknown_column(
    name: &str,
    table: Option<&str>,
    suggestion: Option<&str>,
    location: Option<Location>,
) -> GuardError {
    let message = match table {
        Some(t) => format!("column `{name}` does not exist in `{t}`"),
        None => format!("column `{name}` does not exist in the tables of this query"),
    };
    let hint = match suggestion {
        Some(s) => format!("did you mean `{s}`?"),
        None => "check the column name; describe_table lists the columns".to_string(),
    };
    refuse(ErrorCode::UnknownColumn, message, &hint, location)
}

/// The derived visitor over expressions, handing nested queries back to the scope walker.
struct ExprVisitor<'w, 'c, 'a, 's, 'p> {
    walker: &'w mut Walker<'c, 'a>,
    scope: &'s Scope<'p>,
    /// Depth inside a nested query already checked by the walker.
    skip_depth: usize,
    /// Expressions already handled as part of their parent (field names, composite roots).
    skip_exprs: HashSet<*const Expr>,
    error: Option<GuardError>,
}

impl ExprVisitor<'_, '_, '_, '_, '_> {
    fn fail(&mut self, result: Result<(), GuardError>) -> ControlFlow<()> {
        match result {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                self.error = Some(e);
                ControlFlow::Break(())
            }
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
            return self.fail(Err(unsupported(
                "a table reference outside FROM",
                span_location(factor.span()),
            )));
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_statement(&mut self, statement: &Statement) -> ControlFlow<()> {
        if self.skip_depth == 0 {
            return self.fail(Err(refuse(
                ErrorCode::DataModifyingCte,
                format!(
                    "a statement ({}) is nested inside the query",
                    statement_keyword(statement)
                ),
                "remove the nested statement; only reads may run",
                span_location(statement.span()),
            )));
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        if self.skip_depth > 0 || self.skip_exprs.contains(&(expr as *const Expr)) {
            return ControlFlow::Continue(());
        }
        let scope = self.scope;
        let result = match expr {
            Expr::Identifier(ident) => server_variable(std::slice::from_ref(ident))
                .and_then(|()| self.walker.column(&[], ident, scope)),
            Expr::CompoundIdentifier(idents) => {
                server_variable(idents).and_then(|()| match idents.split_last() {
                    Some((column, qualifier)) => {
                        self.walker.sequence_call(qualifier, column, scope)?;
                        self.walker.column(qualifier, column, scope)
                    }
                    None => Ok(()),
                })
            }
            Expr::CompoundFieldAccess { root, access_chain } => {
                // Field names after a dot are not columns of the scope.
                for access in access_chain {
                    if let AccessExpr::Dot(field) = access {
                        self.skip_exprs.insert(field as *const Expr);
                    }
                }
                let root_idents: Option<Vec<Ident>> = match root.as_ref() {
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
                        self.skip_exprs.insert(root.as_ref() as *const Expr);
                        self.walker.column(&idents, field, scope)
                    }
                    _ => Ok(()),
                }
            }
            Expr::Function(function) => self.walker.function(function, scope),
            Expr::BinaryOp {
                op: BinaryOperator::Assignment,
                ..
            } => Err(refuse(
                ErrorCode::UnsupportedSyntax,
                "`@var := value` assigns a user variable: it changes session state".into(),
                "compare with `=` instead, or compute the value in the query",
                span_location(expr.span()),
            )),
            Expr::Cast { data_type, .. } => catalog_type(data_type, span_location(expr.span())),
            Expr::TypedString(typed) => catalog_type(&typed.data_type, span_location(expr.span())),
            Expr::QualifiedWildcard(name, _) => {
                let location = span_location(name.span());
                self.walker.star(Some(name), scope, &[], location)
            }
            Expr::Wildcard(_) => self
                .walker
                .star(None, scope, &[], span_location(expr.span())),
            Expr::Value(v) if matches!(v.value, Value::Placeholder(_)) => Ok(()),
            _ => Ok(()),
        };
        self.fail(result)
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

/// Output names of a projection, or `None` when a wildcard makes them unknown.
fn output_columns(projection: &[SelectItem], dialect: Dialect) -> Option<Vec<String>> {
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

fn alias_columns(
    alias: Option<&sqlparser::ast::TableAlias>,
    dialect: Dialect,
) -> Option<Vec<String>> {
    let alias = alias?;
    (!alias.columns.is_empty()).then(|| {
        alias
            .columns
            .iter()
            .map(|c| fold_ident(&c.name, dialect))
            .collect()
    })
}

fn derived(alias: Option<&sqlparser::ast::TableAlias>, dialect: Dialect) -> Source {
    Source {
        alias: alias.map(|a| fold_ident(&a.name, dialect)),
        kind: SourceKind::Derived(alias_columns(alias, dialect)),
    }
}

fn join_display(exprs: &[Expr]) -> String {
    exprs
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The leading keyword of a statement, for messages.
pub fn statement_keyword(statement: &Statement) -> String {
    let text = statement.to_string();
    text.split_whitespace()
        .next()
        .unwrap_or("statement")
        .to_uppercase()
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
fn catalog_type(
    data_type: &sqlparser::ast::DataType,
    location: Option<Location>,
) -> Result<(), GuardError> {
    let text = data_type.to_string().to_ascii_lowercase();
    let found = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .find(|word| CATALOG_TYPES.contains(word));
    match found {
        Some(name) => Err(refuse(
            ErrorCode::SystemCatalog,
            format!("a cast to `{name}` looks names up in the system catalogs"),
            "remove the cast; system catalogs are not open to queries",
            location,
        )),
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
        Some(ident) => Err(refuse(
            ErrorCode::SystemCatalog,
            format!("`{}` reads a server variable", ident.value),
            "remove the server variable; server settings are not open to queries",
            span_location(ident.span),
        )),
        None => Ok(()),
    }
}

fn join_idents(idents: &[Ident]) -> String {
    idents
        .iter()
        .map(|i| i.value.as_str())
        .collect::<Vec<_>>()
        .join(".")
}

/// The columns a star leaves out: `* EXCLUDE (a, b)` (DuckDB, Snowflake) and `* EXCEPT (a)`
/// (BigQuery, Databricks), folded. `* ILIKE 'pattern'` and `* RENAME` / `* REPLACE` leave out
/// nothing: a pattern is not evaluated here, and a renamed or replaced column is still read.
fn excluded_columns(options: &WildcardAdditionalOptions, dialect: Dialect) -> Vec<String> {
    let mut out = Vec::new();
    if options.opt_ilike.is_some() {
        return out;
    }
    match &options.opt_exclude {
        Some(ExcludeSelectItem::Single(name)) => out.extend(last_part(name, dialect)),
        Some(ExcludeSelectItem::Multiple(names)) => {
            out.extend(names.iter().filter_map(|n| last_part(n, dialect)))
        }
        None => {}
    }
    if let Some(except) = &options.opt_except {
        out.push(fold_ident(&except.first_element, dialect));
        out.extend(
            except
                .additional_elements
                .iter()
                .map(|i| fold_ident(i, dialect)),
        );
    }
    out
}

fn last_part(name: &ObjectName, dialect: Dialect) -> Option<String> {
    name.0
        .last()
        .and_then(|p| p.as_ident())
        .map(|i| fold_ident(i, dialect))
}

/// Databricks / Spark and Hive read a file when a table name is qualified by a data source
/// format: `` csv.`/path` ``, `` text.`s3://...` ``.
const FILE_FORMATS: [&str; 12] = [
    "avro",
    "binaryfile",
    "cloudfiles",
    "csv",
    "delta",
    "image",
    "jdbc",
    "json",
    "libsvm",
    "orc",
    "parquet",
    "text",
];

/// Why a FROM name is something other than a table, if it is: engines read a path, a URL, a
/// stage or a pattern in table position as data (DuckDB's replacement scans of
/// `"/path/file.csv"` or `"data.parquet"`, Spark's `` csv.`/path` ``, Snowflake's `@stage/...`,
/// BigQuery's wildcard tables `` `ds.employee*` `` that also match denied tables).
fn not_a_table(name: &ObjectName, dialect: Dialect) -> Option<&'static str> {
    let idents: Vec<&Ident> = name.0.iter().filter_map(|p| p.as_ident()).collect();
    for ident in &idents {
        let v = ident.value.as_str();
        if v.starts_with('@') {
            return Some("is a stage (files)");
        }
        if v.contains(['/', '\\']) || v.contains("://") {
            return Some("is a file path or URL");
        }
        if v.contains(['*', '?', '[']) {
            return Some("is a pattern over several tables (it can match denied tables)");
        }
        if ident.quote_style.is_some()
            && matches!(
                dialect,
                Dialect::Duckdb | Dialect::Databricks | Dialect::Hive
            )
            && (v.contains('.') || v.contains(':') || v.starts_with('~'))
        {
            return Some("is read as a file name");
        }
    }
    if dialect == Dialect::Sqlite {
        // Eponymous virtual tables that need no CREATE: `fsdir` lists directories and reads
        // files, `zipfile` / `sqlar` read archives, `generate_series` without arguments takes
        // its bounds from the WHERE clause (unbounded work), `carray` reads memory by pointer.
        let last = idents.last().map(|i| i.value.to_ascii_lowercase());
        if let Some("fsdir" | "zipfile" | "sqlar" | "generate_series" | "carray" | "completion") =
            last.as_deref()
        {
            return Some("is a SQLite virtual table that reads files, memory or unbounded rows");
        }
    }
    if matches!(dialect, Dialect::Databricks | Dialect::Hive) && idents.len() >= 2 {
        let qualifier = idents[idents.len() - 2].value.to_ascii_lowercase();
        if FILE_FORMATS.contains(&qualifier.as_str()) {
            return Some("reads a file in place (a data source format qualifier)");
        }
    }
    None
}

fn is_count(name: &ObjectName) -> bool {
    matches!(name.0.as_slice(), [part] if part.as_ident().is_some_and(|i| i.value.eq_ignore_ascii_case("count")))
}

/// The most rows a series function may be asked for with literal bounds: past it,
/// `generate_series(1, 1e12)` or DuckDB's `range(1e12)` (a list in memory) is a denial of
/// service, whatever the row cap (an aggregate over it returns one row). Bounds that are not
/// literals are left to the engine's statement timeout.
pub const MAX_SERIES_ROWS: f64 = 10_000_000.0;

/// Refuses `generate_series` / `range` whose literal bounds span more than
/// [`MAX_SERIES_ROWS`] values.
fn series_bound(
    name: &ObjectName,
    args: &[FunctionArg],
    location: Option<Location>,
) -> Result<(), GuardError> {
    let Some(last) = name.0.last().and_then(|p| p.as_ident()) else {
        return Ok(());
    };
    let function = last.value.to_ascii_lowercase();
    if !matches!(function.as_str(), "generate_series" | "range") {
        return Ok(());
    }
    let numbers: Option<Vec<f64>> = args
        .iter()
        .map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => numeric_literal(e),
            _ => None,
        })
        .collect();
    let Some(numbers) = numbers else {
        return Ok(());
    };
    let (start, stop, step) = match numbers.as_slice() {
        // DuckDB's range(stop) / generate_series(stop) start at 0.
        [stop] => (0.0, *stop, 1.0),
        [start, stop] => (*start, *stop, 1.0),
        [start, stop, step] => (*start, *stop, *step),
        _ => return Ok(()),
    };
    let rows = if step == 0.0 {
        f64::INFINITY
    } else {
        ((stop - start) / step).max(0.0)
    };
    if rows.is_finite() && rows <= MAX_SERIES_ROWS {
        return Ok(());
    }
    Err(refuse(
        ErrorCode::FunctionNotAllowed,
        format!("`{function}` over these bounds produces more than {MAX_SERIES_ROWS} values"),
        "narrow the bounds of the series (at most 10000000 values)",
        location,
    ))
}

/// A numeric literal, possibly negated or parenthesised.
fn numeric_literal(expr: &Expr) -> Option<f64> {
    match expr {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.parse().ok(),
            _ => None,
        },
        Expr::UnaryOp {
            op: sqlparser::ast::UnaryOperator::Minus,
            expr,
        } => numeric_literal(expr).map(|n| -n),
        Expr::Nested(inner) => numeric_literal(inner),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    //! The name-resolution rules, one test each; tests/vectors/resolution.jsonl has the attacks
    //! in every dialect and tests/engines runs the approved ones on the real engines.
    use crate::{Guard, Policy};

    const PII: &str = r#"{"tables": {"deny": ["employee"]},
        "columns": {"deny": ["customer.email", "customer.phone"]}}"#;
    /// The same policy with a catalog: `vendor` has an open `email` column.
    const CATALOG: &str = r#"{"tables": {"deny": ["employee"]},
        "columns": {"deny": ["customer.email", "customer.phone"]},
        "catalog": {"tables": [
            {"name": "customer", "columns": [{"name": "customer_id"}, {"name": "first_name"},
                {"name": "email"}, {"name": "phone"}]},
            {"name": "vendor", "columns": [{"name": "vendor_id"}, {"name": "email"}]}]}}"#;

    fn guard(policy: &str, dialect: &str) -> Guard {
        let mut policy = Policy::from_json(policy).expect("test policy");
        policy.dialect = dialect.parse().expect("dialect");
        Guard::new(policy).expect("test policy compiles")
    }

    fn code(guard: &Guard, sql: &str) -> Option<String> {
        guard
            .check(sql)
            .err()
            .map(|r| r.error.code.as_str().to_string())
    }

    #[test]
    fn an_alias_never_hides_a_protected_column_in_any_clause() {
        let clauses = [
            "SELECT email AS email FROM customer",
            "SELECT first_name AS email, upper(email) AS u FROM customer",
            "SELECT first_name AS email FROM customer WHERE email > ''",
            "SELECT first_name AS email FROM customer GROUP BY email",
            "SELECT first_name AS email FROM customer GROUP BY first_name HAVING max(email) > ''",
            "SELECT first_name AS email FROM customer ORDER BY email",
            "SELECT first_name AS email FROM customer ORDER BY email || ''",
            "SELECT first_name AS email, rank() OVER (ORDER BY email) AS r FROM customer",
            "SELECT first_name AS email, rank() OVER w AS r FROM customer WINDOW w AS (ORDER BY email)",
        ];
        for dialect in ["postgres", "mysql", "sqlite", "duckdb"] {
            for policy in [PII, CATALOG] {
                let g = guard(policy, dialect);
                for sql in clauses {
                    if dialect != "postgres" && sql.contains("WINDOW w") {
                        continue;
                    }
                    assert_eq!(
                        code(&g, sql).as_deref(),
                        Some("column_not_allowed"),
                        "{dialect}: {sql}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_innermost_table_that_could_own_a_name_is_a_candidate() {
        let g = guard(PII, "postgres");
        // Without a catalog, `customer` could have `email`: the outer `d.email` does not bind it.
        for sql in [
            "SELECT (SELECT max(email) FROM customer) AS e FROM (SELECT 1 AS email) d",
            "WITH d AS (SELECT 1 AS email) SELECT (SELECT max(email) FROM customer) FROM d",
            "SELECT 1 FROM (SELECT 1 AS email) d WHERE EXISTS (SELECT 1 FROM customer WHERE email > '')",
        ] {
            assert_eq!(code(&g, sql).as_deref(), Some("column_not_allowed"), "{sql}");
        }
        // A table that could own the name inner, an open table outer: still refused when the
        // outer one is the protected one (the inner may not have the column).
        assert_eq!(
            code(&g, "SELECT (SELECT max(email) FROM vendor) FROM customer").as_deref(),
            Some("column_not_allowed")
        );
    }

    #[test]
    fn a_known_column_binds_at_its_level_and_stops_the_search() {
        let g = guard(CATALOG, "postgres");
        // The catalog says vendor has `email`: the engine binds it there, never to customer.
        assert_eq!(
            code(
                &g,
                "SELECT (SELECT max(email) FROM vendor) AS m FROM customer"
            ),
            None
        );
        // ... unless a protected table is at the same level.
        assert_eq!(
            code(&g, "SELECT max(email) FROM vendor, customer").as_deref(),
            Some("column_not_allowed")
        );
    }

    #[test]
    fn a_qualified_name_looks_outward_past_an_item_without_the_column() {
        // SQLite binds `c.email` to the outer `c` when the inner `c` has no `email`.
        let g = guard(PII, "sqlite");
        let sql = "SELECT (SELECT c.email FROM invoice c) AS e FROM customer c";
        assert_eq!(code(&g, sql).as_deref(), Some("column_not_allowed"));
        let g = guard(CATALOG, "sqlite");
        let sql = "SELECT (SELECT c.email FROM vendor c) AS e FROM customer c";
        assert_eq!(code(&g, sql), None, "vendor has email: bound there");
    }

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
    fn a_star_that_leaves_out_every_protected_column_passes() {
        let g = guard(PII, "duckdb");
        assert_eq!(
            code(&g, "SELECT * EXCLUDE (email, phone) FROM customer"),
            None
        );
        assert_eq!(
            code(&g, "SELECT * EXCLUDE (email) FROM customer").as_deref(),
            Some("star_on_restricted_table")
        );
        assert_eq!(
            code(&g, "SELECT COLUMNS('.*') FROM customer").as_deref(),
            Some("star_on_restricted_table")
        );
        let g = guard(PII, "snowflake");
        assert_eq!(
            code(&g, "SELECT OBJECT_CONSTRUCT(*) FROM customer").as_deref(),
            Some("star_on_restricted_table")
        );
        assert_eq!(code(&g, "SELECT count(*) FROM customer"), None);
    }

    #[test]
    fn whole_row_references_to_a_protected_table_are_refused() {
        let g = guard(PII, "postgres");
        for sql in [
            "SELECT c FROM customer c",
            "SELECT row_to_json(customer) FROM customer",
            "SELECT to_json(c.*) FROM customer c",
            "SELECT (c).email FROM customer c",
        ] {
            assert!(code(&g, sql).is_some(), "{sql}");
        }
    }
}
