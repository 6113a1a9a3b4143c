//! The resolver on expressions: every name a node reads, bare (resolved at the nearest level that
//! owns it, or customer), qualified, qualified `*`, whole-row references and `COLUMNS(...)`.

use super::collect::Collect;
use super::fixture::FIXTURE;
use super::scope::{Frame, Item, Resolver};

impl Resolver {
    pub(super) fn node<T: sqlparser::ast::Visit>(&mut self, node: &T, env: &mut Vec<Frame>) {
        let mut c = Collect::default();
        let _ = node.visit(&mut c);
        for id in &c.bare {
            self.bare(id, env);
        }
        for parts in &c.qualified {
            if parts.len() < 2 {
                continue;
            }
            let Some(col) = parts.last().and_then(|i| self.protected(i)) else {
                continue;
            };
            if let Some(item) = self.lookup_qualifier(&parts[..parts.len() - 1], env) {
                if item.customer {
                    let text: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
                    self.flag(format!("{} reads customer.{col}", text.join(".")));
                }
            }
        }
        for parts in &c.stars {
            if let Some(item) = self.lookup_qualifier(parts, env) {
                if item.customer {
                    self.flag("a qualified `*` over customer inside an expression".into());
                }
            }
        }
        if c.columns_fn && env.iter().any(|f| f.items.iter().any(|i| i.customer)) {
            self.flag("COLUMNS(...) in a scope that holds customer".into());
        }
        for q in &c.queries {
            self.query(q, env);
        }
    }

    fn bare(&mut self, id: &sqlparser::ast::Ident, env: &[Frame]) {
        let n = self.norm(id);
        if let Some(col) = self.protected(id) {
            for frame in env.iter().rev() {
                if frame.items.iter().any(|i| i.customer) {
                    self.flag(format!(
                        "bare {id} can resolve to customer.{col} (customer is a FROM item at this level or an enclosing one)"
                    ));
                    return;
                }
                if frame.items.iter().any(|i| i.columns.contains(&n)) {
                    return;
                }
            }
            return;
        }
        // A whole-row reference to customer: `c`, `to_json(c)`, by the name it has in FROM (the
        // alias when there is one: the first of its names), at the nearest level with that name.
        if FIXTURE[0].1.contains(&n.as_str()) {
            return;
        }
        for frame in env.iter().rev() {
            let matching: Vec<&Item> = frame
                .items
                .iter()
                .filter(|i| i.names.first() == Some(&n))
                .collect();
            if matching.iter().any(|i| i.customer) {
                self.flag(format!("{id} is a whole-row reference to customer"));
            }
            if !matching.is_empty() {
                return;
            }
        }
    }
}
