//! A case's dialect, catalog flag and SQL text.

use sqlgate::Dialect;

use super::shapes::NameQuery;
use super::writer::W;
use crate::oracles::NAME_DIALECTS;

impl NameQuery {
    /// The dialect the case runs in.
    pub fn dialect(&self) -> Dialect {
        NAME_DIALECTS[self.dialect as usize % NAME_DIALECTS.len()]
    }

    /// Whether the guard gets the fixture as its catalog.
    pub fn catalog(&self) -> bool {
        self.catalog
    }

    /// The SQL text.
    pub fn render(&self) -> String {
        let dialect = self.dialect();
        let mut w = W {
            out: String::new(),
            dialect,
            q: if dialect == Dialect::Mysql { '`' } else { '"' },
            ctes: 0,
        };
        let ctes = &self.ctes[..self.ctes.len().min(2)];
        for (i, (body, cols)) in ctes.iter().enumerate() {
            w.tok(if i == 0 { "WITH" } else { "," });
            let mut head = format!("k{i}");
            if let Some(cols) = cols.as_ref().filter(|c| !c.is_empty()) {
                head.push_str(&format!("({})", w.names(&cols[..cols.len().min(3)])));
            }
            w.tok(&head);
            w.tok("AS (");
            w.select(body, 1);
            w.tok(")");
            w.ctes = i + 1;
        }
        w.select(&self.body, 0);
        if let Some(n) = self.limit {
            w.tok(&format!("LIMIT {}", u16::from(n) + 1));
        }
        w.out
    }
}
