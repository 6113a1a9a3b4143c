//! The shapes of a name-resolution case: how a name is spelled, qualifiers and aliases,
//! expressions, select-list items, join conditions, FROM items, SELECTs and the whole case.

use arbitrary::Arbitrary;

/// Column names that are not protected: the fixture's, plus names that only aliases define.
pub(super) const SAFE: &[&str] = &[
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
    pub(super) fn qualifier(self, q: char) -> String {
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

    pub(super) fn alias(self, q: char) -> String {
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
    pub(super) distinct: bool,
    pub(super) items: Vec<Item>,
    pub(super) first: From,
    pub(super) from: Vec<From>,
    pub(super) filter: Option<Expr>,
    pub(super) group_by: Vec<Expr>,
    pub(super) having: Option<Expr>,
    pub(super) qualify: Option<Expr>,
    pub(super) order_by: Vec<Expr>,
    pub(super) union: Option<Box<Select>>,
}

/// A whole name-resolution case: dialect, catalog or not, CTEs and the query.
#[derive(Arbitrary, Debug, Clone)]
pub struct NameQuery {
    pub(super) dialect: u8,
    pub(super) catalog: bool,
    pub(super) ctes: Vec<(Select, Option<Vec<Name>>)>,
    pub(super) body: Select,
    pub(super) limit: Option<u8>,
}
