//! The per-check rewrite: each reference to a filtered table that the walker found becomes a
//! derived table of the rows the filter admits, under the reference's own alias (or the table's
//! name), so that the rest of the statement reads it unchanged; variables become literals.

use std::ops::ControlFlow;

use sqlparser::ast::{
    BinaryOperator, Expr, GroupByExpr, Ident, ObjectName, ObjectNamePart, Query, Select, SetExpr,
    TableAlias, TableFactor, Value, VisitMut, VisitorMut,
};

use super::bind::bind;
use super::compile::{own_factor, parse_query};
use super::in_place::{
    filter_first, names_a_whole_row, nullable_side, on_condition, plain_items, preserved,
};
use super::printed::verbatim;
use super::vars::Vars;
use super::{visit_levels, FilteredRef, RowFilters, INNER_ALIAS};
use crate::error::{ErrorCode, GuardError, Stage};
use crate::policy::Policy;

/// What the rewrite inserts into the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    /// Syntax trees: for a tree that is used again (a template expanded into another at
    /// compile time, a mutation's tree).
    Tree,
    /// Where it can, SQL text assembled from the filters' printed pieces (`printed.rs`), held
    /// by nodes that print it verbatim: for a read's tree, which is only printed afterwards.
    Text,
}

/// Replaces every reference in `refs` (addresses into `tree`, found by the walker on this very
/// tree) with its filtered form. `vars` binds the variables; `None` leaves them in place (when
/// filters are expanded into each other at compile time). Fails closed: a reference the rewrite
/// does not find again is an error, never an unfiltered read.
pub(crate) fn rewrite_reads<T: VisitMut>(
    tree: &mut T,
    refs: &[FilteredRef],
    rows: &RowFilters,
    vars: Option<&Vars>,
    policy: &Policy,
    form: Form,
) -> Result<(), GuardError> {
    if refs.is_empty() {
        return Ok(());
    }
    let mut rewriter = Rewriter {
        pending: refs
            .iter()
            .map(|r| (r.address, r.filters.as_slice()))
            .collect(),
        rows,
        vars,
        policy,
        form,
    };
    if let ControlFlow::Break(Stop::Failed(error)) = tree.visit(&mut rewriter) {
        return Err(error);
    }
    match rewriter.pending.first() {
        None => Ok(()),
        Some((_, filters)) => {
            let table = filters.first().map_or("", |&i| rows.key(i));
            Err(GuardError::new(
                ErrorCode::RowFilter,
                Stage::Rewrite,
                format!("this reference to `{table}` cannot be given its row filter"),
            )
            .with_hint(format!("read the table as `SELECT ... FROM {table}`")))
        }
    }
}

/// The predicates of `filters`, joined with AND, their columns qualified with `qualifier` and
/// their variables bound: the condition added to a filtered mutation target's WHERE.
pub(crate) fn bind_target_predicate(
    rows: &RowFilters,
    filters: &[usize],
    qualifier: &Ident,
    vars: &Vars,
) -> Result<Option<Expr>, GuardError> {
    let mut combined: Option<Expr> = None;
    for &i in filters {
        let Some(filter) = rows.filters.get(i) else {
            continue;
        };
        let mut predicate = filter.predicate.clone();
        // The inner alias becomes the target's name on the predicate's own columns.
        visit_levels(&mut predicate, 0, |expr, own| {
            if let (true, Expr::CompoundIdentifier(parts)) = (own, expr) {
                if let [qualifier_part, _] = parts.as_mut_slice() {
                    if qualifier_part.value == INNER_ALIAS {
                        *qualifier_part = qualifier.clone();
                    }
                }
            }
        });
        bind(&mut predicate, vars, &filter.key)?;
        let predicate = Expr::Nested(Box::new(predicate));
        combined = Some(match combined {
            None => predicate,
            Some(left) => Expr::BinaryOp {
                left: Box::new(left),
                op: BinaryOperator::And,
                right: Box::new(predicate),
            },
        });
    }
    Ok(combined)
}

struct Rewriter<'a> {
    pending: Vec<(usize, &'a [usize])>,
    rows: &'a RowFilters,
    vars: Option<&'a Vars>,
    policy: &'a Policy,
    form: Form,
}

/// Why the rewrite stops walking the tree.
enum Stop {
    /// Every reference is rewritten: the rest of the tree has nothing to do.
    Done,
    Failed(GuardError),
}

impl Rewriter<'_> {
    /// Walks on while references are pending.
    fn next(&self) -> ControlFlow<Stop> {
        if self.pending.is_empty() {
            ControlFlow::Break(Stop::Done)
        } else {
            ControlFlow::Continue(())
        }
    }
}

impl VisitorMut for Rewriter<'_> {
    type Break = Stop;

    /// A grouped SELECT (or one naming a whole row) keeps its filtered tables where it can (see [`Rewriter::filter_in_place`]):
    /// done before the table factors below it are visited, so that they are no longer pending.
    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<Stop> {
        match self.grouped_in_place(query.body.as_mut()) {
            Ok(()) => self.next(),
            Err(e) => ControlFlow::Break(Stop::Failed(e)),
        }
    }

    fn post_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<Stop> {
        let TableFactor::Table { name, .. } = factor else {
            return ControlFlow::Continue(());
        };
        let address = std::ptr::from_ref::<ObjectName>(name) as usize;
        let Some(position) = self.pending.iter().position(|(a, _)| *a == address) else {
            return ControlFlow::Continue(());
        };
        let (_, filters) = self.pending.swap_remove(position);
        match self.wrap(factor, filters) {
            Ok(wrapped) => {
                *factor = wrapped;
                self.next()
            }
            Err(e) => ControlFlow::Break(Stop::Failed(e)),
        }
    }
}

impl Rewriter<'_> {
    fn grouped_in_place(&mut self, body: &mut SetExpr) -> Result<(), GuardError> {
        match body {
            SetExpr::Select(select) => self.filter_in_place(select),
            SetExpr::SetOperation { left, right, .. } => {
                self.grouped_in_place(left)?;
                self.grouped_in_place(right)
            }
            _ => Ok(()),
        }
    }

    /// In a SELECT with GROUP BY, a filtered table whose rows every output row needs (an item
    /// of FROM, the inner side of inner joins, the left side of left joins) keeps its place and
    /// gets its predicate added to the WHERE, which removes exactly the rows the derived table
    /// would not hold. It stays a table, so that the engine still knows its key: PostgreSQL lets
    /// `GROUP BY c.customer_id` select `c.first_name` from the table `customer`, not from a
    /// derived table of its rows. The nullable side of an outer join keeps its place too, its
    /// predicate put first in that join's ON: `x LEFT JOIN t ON p(t) AND (c)` joins exactly the
    /// rows `x LEFT JOIN (rows of t where p) ON c` does. Not when an item of the FROM could read
    /// the unfiltered rows before the WHERE removes them (LATERAL, a table function), nor for an
    /// alias that renames the table's columns or a sampled table: those are wrapped as
    /// everywhere else. A SELECT whose select list names a table's whole row does the same, so
    /// that the row keeps its table's type and field names ([`names_a_whole_row`]).
    fn filter_in_place(&mut self, select: &mut Select) -> Result<(), GuardError> {
        let grouped = matches!(&select.group_by, GroupByExpr::Expressions(g, _) if !g.is_empty());
        if !(grouped || names_a_whole_row(select))
            || self.vars.is_none()
            || !select.from.iter().all(plain_items)
        {
            return Ok(());
        }
        let mut added: Vec<Expr> = Vec::new();
        for twj in &mut select.from {
            for factor in preserved(twj) {
                if let Some(predicate) = self.take_in_place(factor)? {
                    added.push(predicate);
                }
            }
            for k in 0..twj.joins.len() {
                let predicate = match nullable_side(twj, k) {
                    Some(factor) => self.take_in_place(factor)?,
                    None => None,
                };
                if let (Some(predicate), Some(condition)) = (
                    predicate,
                    twj.joins.get_mut(k).and_then(|j| on_condition(j)),
                ) {
                    let own = std::mem::replace(condition, Expr::Value(Value::Null.into()));
                    *condition = filter_first(predicate, Some(own));
                }
            }
        }
        for predicate in added.into_iter().rev() {
            select.selection = Some(filter_first(predicate, select.selection.take()));
        }
        Ok(())
    }

    /// When `factor` is a pending filtered table that can keep its place (a plain table, not
    /// sampled, its columns not renamed): no longer pending, and its predicate qualified with
    /// its alias or name.
    fn take_in_place(&mut self, factor: &TableFactor) -> Result<Option<Expr>, GuardError> {
        let TableFactor::Table {
            name,
            alias,
            sample: None,
            ..
        } = factor
        else {
            return Ok(None);
        };
        if alias.as_ref().is_some_and(|a| !a.columns.is_empty()) {
            return Ok(None);
        }
        let address = std::ptr::from_ref::<ObjectName>(name) as usize;
        let Some(position) = self.pending.iter().position(|(a, _)| *a == address) else {
            return Ok(None);
        };
        let Some(vars) = self.vars else {
            return Ok(None);
        };
        let qualifier = alias
            .as_ref()
            .map_or_else(|| last_ident(name), |a| a.name.clone());
        let (_, filters) = self.pending.swap_remove(position);
        match self.in_place_text(filters, &qualifier, vars)? {
            Some(text) => Ok(Some(text)),
            None => bind_target_predicate(self.rows, filters, &qualifier, vars),
        }
    }

    /// `t AS a` → `(SELECT * FROM (...(SELECT * FROM t AS sqlgate_filtered WHERE p1)...)
    /// AS sqlgate_filtered WHERE pn) AS a`, one level per filter. Without an alias, the derived
    /// table takes the table's name, so that `t.column` still reads.
    fn wrap(&self, factor: &TableFactor, filters: &[usize]) -> Result<TableFactor, GuardError> {
        if let Some(wrapped) = self.wrap_text(factor, filters)? {
            if cfg!(debug_assertions) {
                let tree = self.wrap_tree(factor, filters)?;
                assert_eq!(
                    wrapped.to_string(),
                    tree.to_string(),
                    "printed pieces differ"
                );
            }
            return Ok(wrapped);
        }
        self.wrap_tree(factor, filters)
    }

    /// [`Rewriter::wrap`] as text (see [`Form::Text`]): for a reference that is its name and
    /// nothing else, when every filter has its printed pieces. The derived table prints as
    /// `(query)` followed by the alias, so the text node is a table named `(query)`.
    fn wrap_text(
        &self,
        factor: &TableFactor,
        filters: &[usize],
    ) -> Result<Option<TableFactor>, GuardError> {
        let (Form::Text, Some(vars), TableFactor::Table { name, alias, .. }) =
            (self.form, self.vars, factor)
        else {
            return Ok(None);
        };
        if !bare_name(factor) {
            return Ok(None);
        }
        let mut current = name.to_string();
        for &i in filters {
            let Some((key, printed)) = self.rows.printed(i) else {
                return Ok(None);
            };
            let mut level = String::with_capacity(current.len() + 64);
            level.push('(');
            printed.render_derived(&mut level, &current, vars, key)?;
            level.push(')');
            current = level;
        }
        let outer = alias.clone().unwrap_or_else(|| {
            let mut alias = self.rows.alias_prototype.clone();
            alias.name = last_ident(name);
            alias
        });
        let mut wrapped = factor.clone();
        if let TableFactor::Table { name, alias, .. } = &mut wrapped {
            *name = ObjectName(vec![ObjectNamePart::Identifier(verbatim(current))]);
            *alias = Some(outer);
        }
        Ok(Some(wrapped))
    }

    /// The condition a grouped SELECT adds for a table that keeps its place, as text (see
    /// [`Form::Text`]): what [`bind_target_predicate`] builds, printed.
    fn in_place_text(
        &self,
        filters: &[usize],
        qualifier: &Ident,
        vars: &Vars,
    ) -> Result<Option<Expr>, GuardError> {
        if self.form != Form::Text {
            return Ok(None);
        }
        let qualifier_text = qualifier.to_string();
        let mut text = String::new();
        for &i in filters {
            let Some((key, printed)) = self.rows.printed(i) else {
                return Ok(None);
            };
            if !text.is_empty() {
                text.push_str(" AND ");
            }
            text.push('(');
            printed.render_in_place(&mut text, &qualifier_text, vars, key)?;
            text.push(')');
        }
        if text.is_empty() {
            return Ok(None);
        }
        let condition = Expr::Identifier(verbatim(text));
        if cfg!(debug_assertions) {
            let tree = bind_target_predicate(self.rows, filters, qualifier, vars)?;
            assert_eq!(
                Some(condition.to_string()),
                tree.map(|t| t.to_string()),
                "printed pieces differ"
            );
        }
        Ok(Some(condition))
    }

    /// [`Rewriter::wrap`] as syntax trees (see [`Form::Tree`]).
    fn wrap_tree(
        &self,
        factor: &TableFactor,
        filters: &[usize],
    ) -> Result<TableFactor, GuardError> {
        let mut current = factor.clone();
        let outer = match &mut current {
            TableFactor::Table { name, alias, .. } => match alias.take() {
                Some(alias) => alias,
                None => {
                    let mut alias = self.rows.alias_prototype.clone();
                    alias.name = last_ident(name);
                    alias
                }
            },
            _ => return Ok(current),
        };
        for &i in filters {
            let Some(filter) = self.rows.filters.get(i) else {
                continue;
            };
            let mut query = filter.template.clone();
            if let Some(vars) = self.vars {
                bind(&mut query, vars, &filter.key)?;
            }
            let first = matches!(current, TableFactor::Table { .. }) && !bare_name(&current);
            fill_slot(&mut query, current);
            if first && self.vars.is_some() {
                self.verify_slot(&query)?;
            }
            current = TableFactor::Derived {
                lateral: false,
                subquery: Box::new(query),
                alias: None,
                sample: None,
            };
        }
        set_alias(&mut current, Some(outer));
        Ok(current)
    }
}

impl Rewriter<'_> {
    /// The statement's own table reference, now under the inner alias, must print back as
    /// itself: with the template (checked to print back when the guard was built, its variables
    /// atoms, see `VarValue::literal`) and the statement around it (self-checked before the
    /// rewrite), this is what makes the whole print back, piece by piece, without parsing the
    /// whole longer text again.
    fn verify_slot(&self, query: &Query) -> Result<(), GuardError> {
        let Some(slot) = own_factor(query) else {
            return Ok(());
        };
        let printed = format!("SELECT * FROM {slot}");
        let again = parse_query(&printed, self.policy).ok();
        if again.as_ref().and_then(own_factor) == Some(slot) {
            return Ok(());
        }
        Err(GuardError::new(
            ErrorCode::InternalRoundtrip,
            Stage::Rewrite,
            format!(
                "the table reference `{slot}` does not print back faithfully under a row filter"
            ),
        )
        .with_hint("simplify the table reference (no sampling, version or hints)"))
    }
}

/// True for a table reference that is its name and nothing else (no arguments, version,
/// sample, hints or partitions): under the inner alias it prints as `name AS sqlgate_filtered`,
/// its name as the self-checked statement printed it, so it needs no parse to verify.
fn bare_name(factor: &TableFactor) -> bool {
    matches!(
        factor,
        TableFactor::Table {
            args: None,
            with_hints,
            version: None,
            with_ordinality: false,
            partitions,
            json_path: None,
            sample: None,
            index_directives,
            inheritance: None,
            ..
        } if with_hints.is_empty() && partitions.is_empty() && index_directives.is_empty()
    )
}

/// Puts `factor` in the template's FROM, under the template's inner alias.
fn fill_slot(query: &mut Query, mut factor: TableFactor) {
    if let SetExpr::Select(select) = query.body.as_mut() {
        if let Some(slot) = select.from.first_mut() {
            let inner = take_alias(&mut slot.relation);
            set_alias(&mut factor, inner);
            slot.relation = factor;
        }
    }
}

fn take_alias(factor: &mut TableFactor) -> Option<TableAlias> {
    match factor {
        TableFactor::Table { alias, .. } | TableFactor::Derived { alias, .. } => alias.take(),
        _ => None,
    }
}

fn set_alias(factor: &mut TableFactor, new: Option<TableAlias>) {
    if let TableFactor::Table { alias, .. } | TableFactor::Derived { alias, .. } = factor {
        *alias = new;
    }
}

/// The last part of a table name, quoted as written.
fn last_ident(name: &ObjectName) -> Ident {
    match name.0.last() {
        Some(ObjectNamePart::Identifier(ident)) => ident.clone(),
        _ => Ident::new(INNER_ALIAS),
    }
}
