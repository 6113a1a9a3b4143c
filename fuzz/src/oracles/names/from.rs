//! The resolver on FROM: joins (`USING`, `NATURAL`), tables (the denied one, customer, CTEs,
//! alias column lists), derived tables, nested joins and the other table factors.

use sqlparser::ast::{Query, TableAlias, TableFactor, TableFunctionArgs, TableWithJoins};

use super::collect::{object_idents, Relations};
use super::fixture::{DENIED_TABLE, FIXTURE, PROTECTED_COLUMNS, PROTECTED_TABLE};
use super::scope::{Frame, Item, Resolver};

impl Resolver {
    pub(super) fn table_with_joins(
        &mut self,
        twj: &sqlparser::ast::TableWithJoins,
        env: &mut Vec<Frame>,
    ) {
        use sqlparser::ast::{JoinConstraint, JoinOperator};
        // NATURAL merges the columns of this join's members only, not of the level's other
        // comma-separated FROM items.
        let first_member = env.last().map_or(0, |f| f.items.len());
        self.factor(&twj.relation, env);
        for j in &twj.joins {
            self.factor(&j.relation, env);
            let constraint = match &j.join_operator {
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
                    self.node(match_condition, env);
                    Some(constraint)
                }
                _ => None,
            };
            match constraint {
                Some(JoinConstraint::On(e)) => self.node(e, env),
                Some(JoinConstraint::Using(names) | JoinConstraint::UsingAlias(names, _)) => {
                    for n in names {
                        let parts = object_idents(n);
                        if let Some(c) = parts.last().and_then(|i| self.protected(i)) {
                            if Self::frame_has_customer(env) {
                                self.flag(format!(
                                    "USING ({c}) in a FROM level that holds customer"
                                ));
                            }
                        }
                    }
                }
                Some(JoinConstraint::Natural) => {
                    let risky = env.last().is_some_and(|f| {
                        let members = f.items.get(first_member..).unwrap_or_default();
                        members.iter().any(|i| i.customer)
                            && members.iter().any(|i| {
                                !i.customer
                                    && (i.columns.is_empty()
                                        || i.columns
                                            .iter()
                                            .any(|c| PROTECTED_COLUMNS.contains(&c.as_str())))
                            })
                    });
                    if risky {
                        self.flag("NATURAL JOIN of customer with another item that may have a protected column".into());
                    }
                }
                _ => {}
            }
        }
    }

    fn factor(&mut self, tf: &TableFactor, env: &mut Vec<Frame>) {
        match tf {
            TableFactor::Table {
                name, alias, args, ..
            } => self.table(tf, name, alias.as_ref(), args.as_ref(), env),
            TableFactor::Derived {
                subquery, alias, ..
            } => self.derived(subquery, alias.as_ref(), env),
            TableFactor::NestedJoin {
                table_with_joins,
                alias,
            } => self.nested_join(table_with_joins, alias.as_ref(), env),
            other => self.other_factor(other, env),
        }
    }

    /// A table (or a CTE) by name: the denied one, customer, a fixture table, a CTE's columns.
    fn table(
        &mut self,
        tf: &TableFactor,
        name: &sqlparser::ast::ObjectName,
        alias: Option<&TableAlias>,
        args: Option<&TableFunctionArgs>,
        env: &mut Vec<Frame>,
    ) {
        if let Some(args) = args {
            self.node(args, env);
        }
        let parts = object_idents(name);
        let Some(last) = parts.last() else {
            return;
        };
        let n = self.norm(last);
        let cte = if parts.len() == 1 {
            self.ctes
                .iter()
                .rev()
                .find(|(c, _)| *c == n)
                .map(|(_, cols)| cols.clone())
        } else {
            None
        };
        if n == DENIED_TABLE {
            self.flag(format!("the denied table {name} is read"));
        }
        let customer = n == PROTECTED_TABLE;
        let mut columns = match (&cte, customer) {
            (Some(cols), false) => cols.clone(),
            _ => FIXTURE
                .iter()
                .find(|(t, _)| *t == n)
                .map(|(_, c)| c.iter().map(|s| s.to_string()).collect())
                .unwrap_or_default(),
        };
        let mut names = vec![n.clone()];
        if let Some(a) = alias {
            // An alias hides the table's own name in every engine here (PostgreSQL,
            // SQLite 3.40 and DuckDB refuse `customer.email FROM customer AS d`).
            names = vec![self.norm(&a.name)];
            if !a.columns.is_empty() {
                if customer && a.columns.len() >= 4 {
                    self.flag(format!(
                        "a column alias list on customer renames its protected columns: {tf}"
                    ));
                }
                columns = a.columns.iter().map(|c| self.norm(&c.name)).collect();
            }
        }
        Self::push_item(
            env,
            Item {
                customer,
                names,
                columns,
            },
        );
    }

    /// A derived table: an item with the subquery's output columns (or its alias column list).
    fn derived(&mut self, subquery: &Query, alias: Option<&TableAlias>, env: &mut Vec<Frame>) {
        let out = self.query(subquery, env);
        let mut item = Item {
            customer: false,
            names: Vec::new(),
            columns: out.columns,
        };
        if let Some(a) = alias {
            item.names.push(self.norm(&a.name));
            if !a.columns.is_empty() {
                item.columns = a.columns.iter().map(|c| self.norm(&c.name)).collect();
            }
        }
        Self::push_item(env, item);
    }

    /// A parenthesized join: its items join the level; an alias names every one of them.
    fn nested_join(
        &mut self,
        table_with_joins: &TableWithJoins,
        alias: Option<&TableAlias>,
        env: &mut Vec<Frame>,
    ) {
        let start = env.last().map_or(0, |f| f.items.len());
        self.table_with_joins(table_with_joins, env);
        if let Some(a) = alias {
            let n = self.norm(&a.name);
            if let Some(f) = env.last_mut() {
                for item in f.items.iter_mut().skip(start) {
                    item.names.push(n.clone());
                }
            }
        }
    }

    fn other_factor(&mut self, other: &TableFactor, env: &mut Vec<Frame>) {
        // PIVOT, UNPIVOT, table functions, UNNEST, ...: an item of unknown columns that is
        // customer (for bare names and `*`) when it reads customer anywhere inside.
        let mut relations = Relations::default();
        let _ = sqlparser::ast::Visit::visit(other, &mut relations);
        if relations.names.iter().any(|n| n == DENIED_TABLE) {
            self.flag(format!("the denied table is read in {other}"));
        }
        let customer = relations.names.iter().any(|n| n == PROTECTED_TABLE);
        Self::push_item(
            env,
            Item {
                customer,
                ..Item::default()
            },
        );
        self.node(other, env);
    }
}
