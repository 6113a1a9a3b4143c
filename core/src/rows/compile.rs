//! Row filters compiled once, when the guard is built: each predicate parsed in the policy's
//! dialect as the WHERE of `SELECT * FROM <table>`, validated as any read is (functions, denied
//! tables, protected columns, the catalog), its columns qualified, and the filtered tables it
//! reads replaced by their own filters (a cycle is a policy error).

use std::collections::BTreeSet;

use sqlparser::ast::{
    Expr, Ident, Query, SelectItem, SetExpr, Statement, TableAlias, TableFactor, Value,
};

use super::bind::variable_name;
use super::printed::PrintedFilter;
use super::{
    rewrite_reads, visit_levels, FilteredRef, Form, RowFilter, RowFilterRules, RowFilters,
    INNER_ALIAS,
};
use crate::access::AccessPolicy;
use crate::functions::FunctionPolicy;
use crate::names::{fold_ident, fold_object_name, Pattern, PatternPart};
use crate::parse::{count_statements, parse_tokens, tokenize};
use crate::policy::{Policy, PolicyError};
use crate::precheck::check_tokens;
use crate::validate::{analyze, Context};

impl RowFilters {
    /// Compiles the `rows` section of `policy`; `functions` and `access` are the guard's own.
    pub(crate) fn compile(
        rules: &RowFilterRules,
        policy: &Policy,
        functions: &FunctionPolicy,
        access: &AccessPolicy,
    ) -> Result<RowFilters, PolicyError> {
        let dialect = policy.dialect;
        let mut filters = Vec::new();
        for (key, predicate) in &rules.filters {
            filters.push(parse_filter(key, predicate, policy)?);
        }
        let trusted_views = rules
            .trusted_views
            .iter()
            .enumerate()
            .map(|(i, v)| {
                Pattern::parse(v, dialect)
                    .map_err(|m| PolicyError::new(format!("rows.trusted_views[{i}]"), m))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let alias_prototype = alias_prototype(policy)?;
        let mut rows = RowFilters {
            filters,
            trusted_views,
            alias_prototype,
        };
        let nested = rows.validate_predicates(policy, functions, access)?;
        // Every row, every column: the projection of the derived table that replaces a reference.
        let star = star_projection(policy)?;
        for filter in &mut rows.filters {
            if let SetExpr::Select(select) = filter.template.body.as_mut() {
                select.projection = star.clone();
            }
        }
        let order = expansion_order(&rows, &nested)?;
        rows.close_reads(&order, &nested);
        rows.expand(order, &nested, policy)?;
        rows.check_printing(policy)?;
        for filter in &mut rows.filters {
            filter.printed = PrintedFilter::new(&filter.template, &filter.predicate);
        }
        Ok(rows)
    }

    /// Validates every predicate as a read, under the filters (which finds the filtered tables
    /// each one reads): for each filter, the references to filtered tables other than its own.
    /// The templates stay in place until they are expanded: the references found are addresses
    /// into them.
    fn validate_predicates(
        &self,
        policy: &Policy,
        functions: &FunctionPolicy,
        access: &AccessPolicy,
    ) -> Result<Vec<Vec<FilteredRef>>, PolicyError> {
        let mut nested: Vec<Vec<FilteredRef>> = Vec::new();
        // A predicate is the policy's own: it may read a masked column (it never returns it).
        let access = &access.for_row_filters();
        for filter in &self.filters {
            let ctx = Context {
                dialect: policy.dialect,
                functions,
                access,
                rows: Some(self),
                bounds: crate::bounds::Bounds::of(policy),
            };
            let field = format!("rows.{}", filter.key);
            let analysis = analyze(&filter.template, &ctx)
                .map_err(|e| PolicyError::new(&field, predicate_refused(&e)))?;
            let own = own_reference(&filter.template);
            nested.push(
                analysis
                    .filtered
                    .into_iter()
                    .filter(|r| Some(r.address) != own)
                    .collect(),
            );
        }
        Ok(nested)
    }

    /// Records the filters each filter reads, transitively: in `order`, dependencies first, each
    /// filter's closure is its direct reads and their closures.
    fn close_reads(&mut self, order: &[usize], nested: &[Vec<FilteredRef>]) {
        for &index in order {
            let mut reads = BTreeSet::new();
            for r in nested.get(index).map(Vec::as_slice).unwrap_or_default() {
                for &j in &r.filters {
                    reads.insert(j);
                    if let Some(dep) = self.filters.get(j) {
                        reads.extend(dep.reads.iter().copied());
                    }
                }
            }
            if let Some(filter) = self.filters.get_mut(index) {
                filter.reads = reads;
            }
        }
    }

    /// Expands each filter's reads of filtered tables into their filters, in `order`
    /// (dependencies first, so that each inserts an already expanded filter).
    fn expand(
        &mut self,
        order: Vec<usize>,
        nested: &[Vec<FilteredRef>],
        policy: &Policy,
    ) -> Result<(), PolicyError> {
        for index in order {
            let Some(filter) = self.filters.get_mut(index) else {
                continue;
            };
            // Moving the query keeps its nodes where they are (they live behind boxes).
            let placeholder = Query::clone(&filter.template);
            let mut template = std::mem::replace(&mut filter.template, placeholder);
            let refs = nested.get(index).map(Vec::as_slice).unwrap_or_default();
            rewrite_reads(&mut template, refs, self, None, policy, Form::Tree)
                .map_err(|e| PolicyError::new(format!("rows.{}", self.key(index)), e.message))?;
            if let Some(filter) = self.filters.get_mut(index) {
                filter.predicate = where_of(&template)
                    .cloned()
                    .unwrap_or(filter.predicate.clone());
                filter.template = template;
            }
        }
        Ok(())
    }

    /// Each template prints back as itself (its variables still `:name`): a check then
    /// verifies only the statement's own reference put in it (`rewrite.rs`, `verify_slot`).
    fn check_printing(&self, policy: &Policy) -> Result<(), PolicyError> {
        for filter in &self.filters {
            let printed = filter.template.to_string();
            if parse_query(&printed, policy).ok().as_ref() != Some(&filter.template) {
                return Err(PolicyError::new(
                    format!("rows.{}", filter.key),
                    format!("the filter does not print back as itself: `{printed}`"),
                ));
            }
        }
        Ok(())
    }
}

/// Parses one filter into its template, collecting its variables and the columns it reads.
fn parse_filter(key: &str, predicate: &str, policy: &Policy) -> Result<RowFilter, PolicyError> {
    let dialect = policy.dialect;
    let field = format!("rows.{key}");
    let error = |m: String| PolicyError::new(&field, m);
    let pattern = Pattern::parse(key, dialect).map_err(&error)?;
    if pattern.parts.contains(&PatternPart::Any) {
        return Err(error(format!(
            "`{key}` must name one table (`table` or `schema.table`), not a pattern"
        )));
    }
    // `SELECT 1` while the predicate is validated (a `*` would be refused over a table with
    // protected columns and no catalog); `SELECT *` once it is (see `star_projection`).
    let base = parse_query(&format!("SELECT 1 FROM {key} AS {INNER_ALIAS}"), policy)
        .map_err(|m| error(format!("`{key}` is not a table name: {m}")))?;
    let mut template = parse_query(
        &format!("SELECT 1 FROM {key} AS {INNER_ALIAS} WHERE {predicate}"),
        policy,
    )
    .map_err(|m| error(format!("the predicate does not parse: {m}")))?;
    let mut without_where = template.clone();
    if let SetExpr::Select(select) = without_where.body.as_mut() {
        select.selection = None;
    }
    if without_where != base {
        return Err(error(
            "the predicate must be one boolean expression (no GROUP BY, ORDER BY, LIMIT, UNION \
             or other clause after it)"
                .to_string(),
        ));
    }
    let table_name = match own_factor(&base) {
        Some(TableFactor::Table { name, .. }) => fold_object_name(name, dialect),
        _ => None,
    };
    let Some(table_name) = table_name else {
        return Err(error(format!("`{key}` is not a table name")));
    };
    let last = table_name.last().cloned().unwrap_or_default();
    let names = qualify(&mut template, dialect, &last).map_err(&error)?;
    let predicate = where_of(&template)
        .cloned()
        .ok_or_else(|| error("the predicate is empty".to_string()))?;
    Ok(RowFilter {
        key: key.to_string(),
        pattern,
        template,
        predicate,
        variables: names.variables,
        columns: names.columns,
        reads: BTreeSet::new(),
        printed: None,
    })
}

/// One query, through the guard's own pre-checks and parser.
pub(super) fn parse_query(sql: &str, policy: &Policy) -> Result<Query, String> {
    let dialect = policy.dialect;
    let tokens = tokenize(sql, dialect).map_err(|e| e.message)?;
    check_tokens(&tokens, policy).map_err(|e| e.message)?;
    if count_statements(&tokens).0 != 1 {
        return Err("it reads as several statements".to_string());
    }
    let statements = parse_tokens(tokens, dialect, policy.max_depth).map_err(|e| e.message)?;
    match statements.into_iter().next() {
        Some(Statement::Query(query)) => Ok(*query),
        _ => Err("it is not a query".to_string()),
    }
}

/// `*` exactly as the parser builds it in this dialect.
fn star_projection(policy: &Policy) -> Result<Vec<SelectItem>, PolicyError> {
    let query = parse_query("SELECT * FROM x", policy).map_err(|m| PolicyError::new("rows", m))?;
    match *query.body {
        SetExpr::Select(select) => Ok(select.projection),
        _ => Err(PolicyError::new(
            "rows",
            "`SELECT *` does not parse as a SELECT",
        )),
    }
}

/// The alias `AS x` exactly as the parser builds it in this dialect.
fn alias_prototype(policy: &Policy) -> Result<TableAlias, PolicyError> {
    let query = parse_query("SELECT * FROM (SELECT 1) AS x", policy)
        .map_err(|m| PolicyError::new("rows", m))?;
    match own_factor(&query) {
        Some(TableFactor::Derived {
            alias: Some(alias), ..
        }) => Ok(alias.clone()),
        _ => Err(PolicyError::new(
            "rows",
            "this dialect's parser gives derived tables no alias",
        )),
    }
}

/// The template's FROM item.
pub(super) fn own_factor(query: &Query) -> Option<&TableFactor> {
    match query.body.as_ref() {
        SetExpr::Select(select) => select.from.first().map(|t| &t.relation),
        _ => None,
    }
}

/// The address of the template's own table name (the walker finds it like any other).
fn own_reference(query: &Query) -> Option<usize> {
    match own_factor(query) {
        Some(TableFactor::Table { name, .. }) => Some(std::ptr::from_ref(name) as usize),
        _ => None,
    }
}

fn where_of(query: &Query) -> Option<&Expr> {
    match query.body.as_ref() {
        SetExpr::Select(select) => select.selection.as_ref(),
        _ => None,
    }
}

/// An order in which every filter comes after the filters its predicate reads; a cycle is an
/// error naming its tables.
fn expansion_order(
    rows: &RowFilters,
    nested: &[Vec<FilteredRef>],
) -> Result<Vec<usize>, PolicyError> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit(
        i: usize,
        nested: &[Vec<FilteredRef>],
        marks: &mut [Mark],
        path: &mut Vec<usize>,
        order: &mut Vec<usize>,
    ) -> Result<(), Vec<usize>> {
        match marks.get(i).copied() {
            Some(Mark::Done) | None => return Ok(()),
            Some(Mark::Open) => {
                let start = path.iter().position(|&p| p == i).unwrap_or(0);
                let mut cycle = path.get(start..).unwrap_or_default().to_vec();
                cycle.push(i);
                return Err(cycle);
            }
            Some(Mark::New) => {}
        }
        if let Some(m) = marks.get_mut(i) {
            *m = Mark::Open;
        }
        path.push(i);
        for r in nested.get(i).map(Vec::as_slice).unwrap_or_default() {
            for &j in &r.filters {
                visit(j, nested, marks, path, order)?;
            }
        }
        path.pop();
        if let Some(m) = marks.get_mut(i) {
            *m = Mark::Done;
        }
        order.push(i);
        Ok(())
    }
    let mut marks = vec![Mark::New; rows.filters.len()];
    let mut order = Vec::new();
    for i in 0..rows.filters.len() {
        visit(i, nested, &mut marks, &mut Vec::new(), &mut order).map_err(|cycle| {
            let names: Vec<&str> = cycle.iter().map(|&i| rows.key(i)).collect();
            PolicyError::new(
                format!("rows.{}", rows.key(cycle.first().copied().unwrap_or(i))),
                format!(
                    "the row filters read each other in a cycle ({}): a filter may read other \
                     filtered tables, but not itself through them",
                    names.join(" -> ")
                ),
            )
        })?;
    }
    Ok(order)
}

/// The message of a predicate the read checks refused.
fn predicate_refused(error: &crate::error::GuardError) -> String {
    match &error.hint {
        Some(hint) => format!(
            "the predicate is refused as a read: {} ({hint})",
            error.message
        ),
        None => format!("the predicate is refused as a read: {}", error.message),
    }
}

/// What the predicate reads: its variables, and its table's columns it names (folded).
#[derive(Default)]
struct Names {
    columns: BTreeSet<String>,
    variables: BTreeSet<String>,
}

/// Qualifies the predicate's own column references (outside its sub-queries: the template is
/// query depth 1) with the inner alias, and collects its variables and columns. `table` is the
/// filtered table's folded name: a column qualified with it is one of its columns.
fn qualify(
    template: &mut Query,
    dialect: crate::dialect::Dialect,
    table: &str,
) -> Result<Names, String> {
    let mut names = Names::default();
    let mut problem = None;
    visit_levels(template, 1, |expr, own| {
        if let Expr::Value(v) = expr {
            if let Value::Placeholder(p) = &v.value {
                match variable_name(p) {
                    Some(name) => {
                        names.variables.insert(name.to_string());
                    }
                    None => {
                        problem = Some(format!(
                            "`{p}` is not a variable: write variables as `:name`"
                        ))
                    }
                }
            }
            return;
        }
        if !own {
            return;
        }
        match expr {
            Expr::Identifier(ident) => {
                names.columns.insert(fold_ident(ident, dialect));
                *expr = Expr::CompoundIdentifier(vec![Ident::new(INNER_ALIAS), ident.clone()]);
            }
            Expr::CompoundIdentifier(parts) => match parts.as_mut_slice() {
                [qualifier, column] if fold_ident(qualifier, dialect) == table => {
                    names.columns.insert(fold_ident(column, dialect));
                    *qualifier = Ident::new(INNER_ALIAS);
                }
                [qualifier, _] if qualifier.value == INNER_ALIAS => {}
                _ => {
                    problem = Some(format!(
                        "`{expr}`: a predicate's columns are its table's, written bare or \
                         qualified with the table's name"
                    ))
                }
            },
            _ => {}
        }
    });
    match problem {
        Some(problem) => Err(problem),
        None => Ok(names),
    }
}
