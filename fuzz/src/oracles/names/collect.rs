//! What a node names, outside its subqueries: bare and qualified column references, qualified
//! `*`, `COLUMNS(...)` and the subqueries themselves (each walked as its own scope); and the
//! relations a node reads.

pub(super) fn object_idents(name: &sqlparser::ast::ObjectName) -> Vec<sqlparser::ast::Ident> {
    name.0
        .iter()
        .filter_map(|p| match p {
            sqlparser::ast::ObjectNamePart::Identifier(i) => Some(i.clone()),
            _ => None,
        })
        .collect()
}

#[derive(Default)]
pub(super) struct Collect {
    pub(super) depth: usize,
    pub(super) bare: Vec<sqlparser::ast::Ident>,
    pub(super) qualified: Vec<Vec<sqlparser::ast::Ident>>,
    pub(super) stars: Vec<Vec<sqlparser::ast::Ident>>,
    pub(super) columns_fn: bool,
    pub(super) queries: Vec<sqlparser::ast::Query>,
}

/// Last parts of every relation name in a node, lower case.
#[derive(Default)]
pub(super) struct Relations {
    pub(super) names: Vec<String>,
}

impl sqlparser::ast::Visitor for Relations {
    type Break = ();

    fn pre_visit_relation(
        &mut self,
        name: &sqlparser::ast::ObjectName,
    ) -> std::ops::ControlFlow<()> {
        if let Some(last) = object_idents(name).last() {
            self.names.push(last.value.to_ascii_lowercase());
        }
        std::ops::ControlFlow::Continue(())
    }
}

impl sqlparser::ast::Visitor for Collect {
    type Break = ();

    fn pre_visit_query(&mut self, q: &sqlparser::ast::Query) -> std::ops::ControlFlow<()> {
        if self.depth == 0 {
            self.queries.push(q.clone());
        }
        self.depth += 1;
        std::ops::ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _: &sqlparser::ast::Query) -> std::ops::ControlFlow<()> {
        self.depth -= 1;
        std::ops::ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, e: &sqlparser::ast::Expr) -> std::ops::ControlFlow<()> {
        use sqlparser::ast::{AccessExpr, Expr, FunctionArg, FunctionArgExpr, FunctionArguments};
        if self.depth > 0 {
            return std::ops::ControlFlow::Continue(());
        }
        match e {
            Expr::Identifier(i) => self.bare.push(i.clone()),
            Expr::CompoundIdentifier(parts) => self.qualified.push(parts.clone()),
            Expr::QualifiedWildcard(name, _) => self.stars.push(object_idents(name)),
            Expr::CompoundFieldAccess { root, access_chain } => {
                if let (Expr::Identifier(q), Some(AccessExpr::Dot(Expr::Identifier(c)))) =
                    (root.as_ref(), access_chain.first())
                {
                    self.qualified.push(vec![q.clone(), c.clone()]);
                }
            }
            Expr::Function(f) => {
                let name = object_idents(&f.name);
                if name
                    .last()
                    .is_some_and(|n| n.value.eq_ignore_ascii_case("columns"))
                {
                    self.columns_fn = true;
                }
                if let FunctionArguments::List(list) = &f.args {
                    for a in &list.args {
                        let arg = match a {
                            FunctionArg::Named { arg, .. }
                            | FunctionArg::ExprNamed { arg, .. }
                            | FunctionArg::Unnamed(arg) => arg,
                        };
                        if let FunctionArgExpr::QualifiedWildcard(n) = arg {
                            self.stars.push(object_idents(n));
                        }
                    }
                }
            }
            _ => {}
        }
        std::ops::ControlFlow::Continue(())
    }
}
