//! The resolver on queries: WITH (CTEs and their columns), set operations, a SELECT's list with
//! `*` and its options, output names, and ORDER BY by output name.

use super::collect::object_idents;
use super::fixture::PROTECTED_COLUMNS;
use super::scope::{Frame, Output, Resolver};

impl Resolver {
    pub(super) fn query(&mut self, q: &sqlparser::ast::Query, env: &mut Vec<Frame>) -> Output {
        use sqlparser::ast::{Expr, OrderByKind};
        let ctes_before = self.ctes.len();
        if let Some(with) = &q.with {
            for cte in &with.cte_tables {
                let name = self.norm(&cte.alias.name);
                if with.recursive {
                    // The body may read itself: columns unknown while it is walked.
                    self.ctes.push((name.clone(), Vec::new()));
                }
                let out = self.query(&cte.query, env);
                let columns = if cte.alias.columns.is_empty() {
                    out.columns
                } else {
                    cte.alias
                        .columns
                        .iter()
                        .map(|c| self.norm(&c.name))
                        .collect()
                };
                self.ctes.push((name, columns));
            }
        }
        let (out, frame) = self.set_expr(&q.body, env);
        if let Some(ob) = &q.order_by {
            if let OrderByKind::Expressions(list) = &ob.kind {
                env.push(frame.unwrap_or_default());
                for item in list {
                    if let Expr::Identifier(id) = &item.expr {
                        if out.columns.contains(&self.norm(id)) {
                            continue;
                        }
                    }
                    self.node(&item.expr, env);
                }
                env.pop();
            }
        }
        self.node(&q.limit_clause, env);
        self.node(&q.fetch, env);
        self.ctes.truncate(ctes_before);
        out
    }

    fn set_expr(
        &mut self,
        body: &sqlparser::ast::SetExpr,
        env: &mut Vec<Frame>,
    ) -> (Output, Option<Frame>) {
        use sqlparser::ast::SetExpr;
        match body {
            SetExpr::Select(s) => {
                let (out, frame) = self.select(s, env);
                (out, Some(frame))
            }
            SetExpr::Query(q) => (self.query(q, env), None),
            SetExpr::SetOperation { left, right, .. } => {
                let (out, _) = self.set_expr(left, env);
                self.set_expr(right, env);
                (out, None)
            }
            other => {
                self.node(other, env);
                (Output::default(), None)
            }
        }
    }

    fn select(&mut self, s: &sqlparser::ast::Select, env: &mut Vec<Frame>) -> (Output, Frame) {
        use sqlparser::ast::{SelectItem, SelectItemQualifiedWildcardKind};
        env.push(Frame::default());
        for twj in &s.from {
            self.table_with_joins(twj, env);
        }
        let mut out = Output::default();
        for item in &s.projection {
            match item {
                SelectItem::UnnamedExpr(e) => {
                    self.node(e, env);
                    out.columns.push(self.output_name(e));
                }
                SelectItem::ExprWithAlias { expr, alias } => {
                    self.node(expr, env);
                    out.columns.push(self.norm(alias));
                }
                SelectItem::ExprWithAliases { expr, aliases } => {
                    self.node(expr, env);
                    out.columns.extend(aliases.iter().map(|a| self.norm(a)));
                }
                SelectItem::Wildcard(opts) => {
                    if Self::frame_has_customer(env) && !self.excludes_protected(opts) {
                        self.flag("`*` over a FROM level that holds customer".into());
                    }
                    if let Some(f) = env.last() {
                        out.columns
                            .extend(f.items.iter().flat_map(|i| i.columns.clone()));
                    }
                }
                SelectItem::QualifiedWildcard(kind, opts) => match kind {
                    SelectItemQualifiedWildcardKind::ObjectName(name) => {
                        let parts = object_idents(name);
                        if let Some(item) = self.lookup_qualifier(&parts, env) {
                            if item.customer && !self.excludes_protected(opts) {
                                self.flag(format!("`{name}.*` over customer"));
                            }
                            out.columns.extend(item.columns);
                        }
                    }
                    SelectItemQualifiedWildcardKind::Expr(e) => self.node(e, env),
                },
            }
        }
        let mut rest = s.clone();
        rest.from.clear();
        rest.projection.clear();
        self.node(&rest, env);
        let frame = env.pop().unwrap_or_default();
        (out, frame)
    }

    fn excludes_protected(&self, opts: &sqlparser::ast::WildcardAdditionalOptions) -> bool {
        use sqlparser::ast::{ExceptSelectItem, ExcludeSelectItem};
        let mut names: Vec<String> = Vec::new();
        match &opts.opt_exclude {
            Some(ExcludeSelectItem::Single(n)) => {
                names.extend(object_idents(n).last().map(|i| self.norm(i)))
            }
            Some(ExcludeSelectItem::Multiple(list)) => names.extend(
                list.iter()
                    .filter_map(|n| object_idents(n).last().map(|i| self.norm(i))),
            ),
            None => {}
        }
        if let Some(ExceptSelectItem {
            first_element,
            additional_elements,
        }) = &opts.opt_except
        {
            names.push(self.norm(first_element));
            names.extend(additional_elements.iter().map(|i| self.norm(i)));
        }
        opts.opt_replace.is_none()
            && opts.opt_rename.is_none()
            && PROTECTED_COLUMNS
                .iter()
                .all(|c| names.iter().any(|n| n == c))
    }

    fn output_name(&self, e: &sqlparser::ast::Expr) -> String {
        use sqlparser::ast::Expr;
        match e {
            Expr::Identifier(i) => self.norm(i),
            Expr::CompoundIdentifier(parts) => {
                parts.last().map(|i| self.norm(i)).unwrap_or_default()
            }
            _ => "?column?".into(),
        }
    }
}
