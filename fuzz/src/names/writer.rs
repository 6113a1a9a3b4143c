//! The writer: renders a name-resolution case in its dialect (MySQL quotes with backticks, DuckDB
//! gets `EXCLUDE` and `QUALIFY`), one token at a time.

use sqlgate::Dialect;

use super::shapes::{Cond, Expr, From, Item, Name, Select, Spell, SAFE};

/// Maximum nesting of subqueries and expressions.
const MAX_DEPTH: usize = 3;

/// The SQL being written, the dialect and its identifier quote, and how many CTEs are in scope.
pub(super) struct W {
    pub(super) out: String,
    pub(super) dialect: Dialect,
    pub(super) q: char,
    pub(super) ctes: usize,
}

impl W {
    pub(super) fn tok(&mut self, t: &str) {
        if !self.out.is_empty()
            && !self.out.ends_with('(')
            && !t.starts_with(')')
            && !t.starts_with(',')
        {
            self.out.push(' ');
        }
        self.out.push_str(t);
    }

    fn spell(&self, base: &str, s: Spell) -> String {
        let q = self.q;
        let mixed = {
            let mut c = base.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        };
        match s {
            Spell::Lower => base.to_string(),
            Spell::Upper => base.to_ascii_uppercase(),
            Spell::Mixed => mixed,
            Spell::Quoted => format!("{q}{base}{q}"),
            Spell::QuotedUpper => format!("{q}{}{q}", base.to_ascii_uppercase()),
            Spell::QuotedMixed => format!("{q}{mixed}{q}"),
        }
    }

    fn name(&self, n: Name) -> String {
        match n {
            Name::Protected(phone, s) => self.spell(if phone { "phone" } else { "email" }, s),
            Name::Safe(i) => SAFE[i as usize % SAFE.len()].to_string(),
        }
    }

    fn expr(&mut self, e: &Expr, depth: usize) {
        let deep = depth >= MAX_DEPTH;
        match e {
            Expr::Col(n) => {
                let t = self.name(*n);
                self.tok(&t);
            }
            Expr::Qualified(q, n) => {
                let t = format!("{}.{}", q.qualifier(self.q), self.name(*n));
                self.tok(&t);
            }
            Expr::Int(i) => self.tok(&i.to_string()),
            Expr::Str => self.tok("'v'"),
            Expr::CountStar => self.tok("count(*)"),
            Expr::WholeRow(q) => {
                let t = q.alias(self.q);
                self.tok(&t);
            }
            _ if deep => self.tok("1"),
            Expr::Lower(a) => self.call("lower", &[a], depth),
            Expr::Count(a) => self.call("count", &[a], depth),
            Expr::Max(a) => self.call("max", &[a], depth),
            Expr::Coalesce(a, b) => self.call("coalesce", &[a, b], depth),
            Expr::Eq(a, b) | Expr::And(a, b) => {
                self.tok("(");
                self.expr(a, depth + 1);
                self.tok(if matches!(e, Expr::Eq(..)) {
                    "="
                } else {
                    "AND"
                });
                self.expr(b, depth + 1);
                self.tok(")");
            }
            Expr::Scalar(s) => {
                self.tok("(");
                self.select(s, depth + 1);
                self.tok(")");
            }
            Expr::Exists(s) => {
                self.tok("EXISTS (");
                self.select(s, depth + 1);
                self.tok(")");
            }
            Expr::In(a, s) => {
                self.tok("(");
                self.expr(a, depth + 1);
                self.tok("IN (");
                self.select(s, depth + 1);
                self.tok("))");
            }
            Expr::Window(p, o) => {
                self.tok("row_number() OVER (PARTITION BY");
                self.expr(p, depth + 1);
                self.tok("ORDER BY");
                self.expr(o, depth + 1);
                self.tok(")");
            }
        }
    }

    fn call(&mut self, f: &str, args: &[&Expr], depth: usize) {
        self.tok(&format!("{f}("));
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                self.tok(",");
            }
            self.expr(a, depth + 1);
        }
        self.tok(")");
    }

    pub(super) fn names(&self, list: &[Name]) -> String {
        let v: Vec<String> = list.iter().map(|n| self.name(*n)).collect();
        v.join(", ")
    }

    fn from(&mut self, f: &From, depth: usize) {
        let q = self.q;
        match f {
            From::Customer(alias) => {
                self.tok("customer");
                if let Some(a) = alias {
                    self.tok(&format!("AS {}", a.alias(q)));
                }
            }
            From::CustomerRenamed(n) => {
                let n = 1 + *n as usize % 6;
                let cols: Vec<String> = (1..=n)
                    .map(|i| {
                        if i == n {
                            "mail".to_string()
                        } else {
                            format!("c{i}")
                        }
                    })
                    .collect();
                self.tok(&format!("customer AS c({})", cols.join(", ")));
            }
            From::Table(n, alias) => {
                self.tok(
                    [
                        "invoice", "t", "invoice", "t", "invoice", "t", "invoice", "employee",
                    ][*n as usize % 8],
                );
                if let Some(a) = alias {
                    self.tok(&format!("AS {}", a.alias(q)));
                }
            }
            From::Cte(n, alias) if self.ctes > 0 => {
                self.tok(&format!("k{}", *n as usize % self.ctes));
                if let Some(a) = alias {
                    self.tok(&format!("AS {}", a.alias(q)));
                }
            }
            From::Cte(..) => self.tok("t"),
            From::Const(n, a) => {
                let t = format!("(SELECT 'v' AS {}) AS {}", self.name(*n), a.alias(q));
                self.tok(&t);
            }
            From::Values(n, a) => {
                let t = format!("(VALUES (1)) AS {}({})", a.alias(q), self.name(*n));
                self.tok(&t);
            }
            _ if depth >= MAX_DEPTH => self.tok("t"),
            From::Derived(s, a, cols, lateral) => {
                if *lateral {
                    self.tok("LATERAL");
                }
                self.tok("(");
                self.select(s, depth + 1);
                self.tok(")");
                let mut t = format!("AS {}", a.alias(q));
                if let Some(cols) = cols.as_ref().filter(|c| !c.is_empty()) {
                    t.push_str(&format!("({})", self.names(&cols[..cols.len().min(3)])));
                }
                self.tok(&t);
            }
            From::Join(l, left, r, cond) => self.join(l, *left, r, cond, depth),
        }
    }

    /// `l [NATURAL] [LEFT] JOIN r [ON e | USING (name)]`, or `l CROSS JOIN r`.
    fn join(&mut self, l: &From, left: bool, r: &From, cond: &Cond, depth: usize) {
        self.from(l, depth + 1);
        let kw = match (cond, left) {
            (Cond::Cross, _) => "CROSS JOIN",
            (Cond::Natural, false) => "NATURAL JOIN",
            (Cond::Natural, true) => "NATURAL LEFT JOIN",
            (_, true) => "LEFT JOIN",
            (_, false) => "JOIN",
        };
        self.tok(kw);
        let nested = matches!(r, From::Join(..));
        if nested {
            self.tok("(");
        }
        self.from(r, depth + 1);
        if nested {
            self.tok(")");
        }
        match cond {
            Cond::On(e) => {
                self.tok("ON");
                self.expr(e, depth + 1);
            }
            Cond::Using(n) => {
                let t = format!("USING ({})", self.name(*n));
                self.tok(&t);
            }
            Cond::Natural | Cond::Cross => {}
        }
    }

    pub(super) fn select(&mut self, s: &Select, depth: usize) {
        self.tok("SELECT");
        if s.distinct {
            self.tok("DISTINCT");
        }
        let items = &s.items[..s.items.len().min(3)];
        if items.is_empty() {
            self.tok("1");
        }
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.tok(",");
            }
            match item {
                Item::Expr(e, alias) => {
                    self.expr(e, depth);
                    if let Some(a) = alias {
                        let t = format!("AS {}", self.name(*a));
                        self.tok(&t);
                    }
                }
                Item::Star => self.tok("*"),
                Item::QualStar(q) => {
                    let t = format!("{}.*", q.qualifier(self.q));
                    self.tok(&t);
                }
                Item::StarExclude => {
                    if self.dialect == Dialect::Duckdb {
                        self.tok("* EXCLUDE (email, phone)");
                    } else {
                        self.tok("*");
                    }
                }
            }
        }
        for (i, f) in std::iter::once(&s.first)
            .chain(s.from.iter().take(2))
            .enumerate()
        {
            self.tok(if i == 0 { "FROM" } else { "," });
            self.from(f, depth);
        }
        if let Some(w) = &s.filter {
            self.tok("WHERE");
            self.expr(w, depth);
        }
        for (i, g) in s.group_by.iter().take(2).enumerate() {
            self.tok(if i == 0 { "GROUP BY" } else { "," });
            self.expr(g, depth);
        }
        if let Some(h) = &s.having {
            self.tok("HAVING");
            self.expr(h, depth);
        }
        if let Some(qf) = &s.qualify {
            if self.dialect == Dialect::Duckdb {
                self.tok("QUALIFY");
                self.expr(qf, depth);
            }
        }
        match &s.union {
            Some(u) if depth < MAX_DEPTH => {
                self.tok("UNION ALL");
                self.select(u, depth + 1);
            }
            _ => {
                for (i, o) in s.order_by.iter().take(2).enumerate() {
                    self.tok(if i == 0 { "ORDER BY" } else { "," });
                    self.expr(o, depth);
                }
            }
        }
    }
}
