//! Name-resolution shapes for the `grammar` target: queries over the fixture schema (customer with
//! the protected columns email and phone, employee denied) where a protected name appears as a
//! select-list alias, a derived-table / CTE / VALUES column, an outer or inner name read from
//! scalar, correlated, `EXISTS`, `IN` and `LATERAL` subqueries at every depth, in `USING (...)`,
//! `NATURAL JOIN`, WHERE / GROUP BY / HAVING / ORDER BY / window PARTITION BY and ORDER BY /
//! QUALIFY, bare, qualified (`c.email`, `customer.email`, `public.customer.email`), quoted and in
//! other cases. Whatever the guard approves must pass [`crate::oracles::protected_reads`], an
//! independent conservative resolver, and be a fixed point.

use arbitrary::Arbitrary;
use sqlgate::Dialect;

use crate::oracles::NAME_DIALECTS;

/// Maximum nesting of subqueries and expressions.
const MAX_DEPTH: usize = 3;

/// Column names that are not protected: the fixture's, plus names that only aliases define.
const SAFE: &[&str] = &[
    "first_name",
    "customer_id",
    "last_name",
    "country",
    "a",
    "b",
    "total",
    "invoice_id",
    "x",
    "mail",
];

/// How a name is spelled.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Spell {
    /// `email`
    Lower,
    /// `EMAIL`
    Upper,
    /// `Email`
    Mixed,
    /// `"email"`
    Quoted,
    /// `"EMAIL"`
    QuotedUpper,
    /// `"Email"`
    QuotedMixed,
}

/// A column name.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Name {
    /// `email` (false) or `phone` (true), spelled somehow.
    Protected(bool, Spell),
    /// A name from [`SAFE`].
    Safe(u8),
}

/// A qualifier or an alias.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Qual {
    /// `c`
    C,
    /// `customer`
    Customer,
    /// `public.customer` (as an alias: `d`)
    PublicCustomer,
    /// `d`
    D,
    /// `x`
    X,
    /// `email` (a table alias named like the protected column)
    Email,
    /// `i`
    I,
    /// `t`
    T,
    /// `"C"` (quoted, other case)
    QuotedC,
}

impl Qual {
    fn qualifier(self, q: char) -> String {
        match self {
            Qual::C => "c".into(),
            Qual::Customer => "customer".into(),
            Qual::PublicCustomer => "public.customer".into(),
            Qual::D => "d".into(),
            Qual::X => "x".into(),
            Qual::Email => "email".into(),
            Qual::I => "i".into(),
            Qual::T => "t".into(),
            Qual::QuotedC => format!("{q}C{q}"),
        }
    }

    fn alias(self, q: char) -> String {
        match self {
            Qual::PublicCustomer => "d".into(),
            other => other.qualifier(q),
        }
    }
}

/// A scalar expression.
#[derive(Arbitrary, Debug, Clone)]
pub enum Expr {
    /// A bare column name.
    Col(Name),
    /// `q.name`
    Qualified(Qual, Name),
    /// An integer.
    Int(u8),
    /// `'x'`
    Str,
    /// `lower(e)`
    Lower(Box<Expr>),
    /// `count(e)`
    Count(Box<Expr>),
    /// `count(*)`
    CountStar,
    /// `max(e)`
    Max(Box<Expr>),
    /// `e = e`
    Eq(Box<Expr>, Box<Expr>),
    /// `e AND e`
    And(Box<Expr>, Box<Expr>),
    /// `coalesce(e, e)`
    Coalesce(Box<Expr>, Box<Expr>),
    /// `(SELECT ...)`
    Scalar(Box<Select>),
    /// `EXISTS (SELECT ...)`
    Exists(Box<Select>),
    /// `e IN (SELECT ...)`
    In(Box<Expr>, Box<Select>),
    /// A whole-row reference: `q`
    WholeRow(Qual),
    /// `row_number() OVER (PARTITION BY e ORDER BY e)`
    Window(Box<Expr>, Box<Expr>),
}

/// A select-list item.
#[derive(Arbitrary, Debug, Clone)]
pub enum Item {
    /// `e [AS alias]`
    Expr(Expr, Option<Name>),
    /// `*`
    Star,
    /// `q.*`
    QualStar(Qual),
    /// `* EXCLUDE (email, phone)` in DuckDB, `*` elsewhere
    StarExclude,
}

/// A join condition.
#[derive(Arbitrary, Debug, Clone)]
pub enum Cond {
    /// `ON e`
    On(Expr),
    /// `USING (name)`
    Using(Name),
    /// `NATURAL` (written before JOIN)
    Natural,
    /// `CROSS JOIN` (no condition)
    Cross,
}

/// A FROM item.
#[derive(Arbitrary, Debug, Clone)]
pub enum From {
    /// `customer [AS q]`
    Customer(Option<Qual>),
    /// `customer AS c(c1, ..., cn)`: a column alias list of n names
    CustomerRenamed(u8),
    /// invoice, t, (rarely) employee, with an optional alias
    Table(u8, Option<Qual>),
    /// `[LATERAL] (SELECT ...) AS q[(names)]`
    Derived(Box<Select>, Qual, Option<Vec<Name>>, bool),
    /// `(SELECT 'v' AS name) AS q`: a derived column named like anything
    Const(Name, Qual),
    /// `(VALUES (1)) AS q(name)`
    Values(Name, Qual),
    /// A CTE reference, with an optional alias
    Cte(u8, Option<Qual>),
    /// `l [LEFT] JOIN r cond`
    Join(Box<From>, bool, Box<From>, Cond),
}

/// A SELECT.
#[derive(Arbitrary, Debug, Clone)]
pub struct Select {
    distinct: bool,
    items: Vec<Item>,
    first: From,
    from: Vec<From>,
    filter: Option<Expr>,
    group_by: Vec<Expr>,
    having: Option<Expr>,
    qualify: Option<Expr>,
    order_by: Vec<Expr>,
    union: Option<Box<Select>>,
}

/// A whole name-resolution case: dialect, catalog or not, CTEs and the query.
#[derive(Arbitrary, Debug, Clone)]
pub struct NameQuery {
    dialect: u8,
    catalog: bool,
    ctes: Vec<(Select, Option<Vec<Name>>)>,
    body: Select,
    limit: Option<u8>,
}

struct W {
    out: String,
    dialect: Dialect,
    q: char,
    ctes: usize,
}

impl W {
    fn tok(&mut self, t: &str) {
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

    fn names(&self, list: &[Name]) -> String {
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
            From::Join(l, left, r, cond) => {
                self.from(l, depth + 1);
                let kw = match (cond, left) {
                    (Cond::Cross, _) => "CROSS JOIN",
                    (Cond::Natural, false) => "NATURAL JOIN",
                    (Cond::Natural, true) => "NATURAL LEFT JOIN",
                    (_, true) => "LEFT JOIN",
                    (_, false) => "JOIN",
                };
                self.tok(kw);
                let nested = matches!(**r, From::Join(..));
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
        }
    }

    fn select(&mut self, s: &Select, depth: usize) {
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
