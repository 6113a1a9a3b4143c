//! The benign part of the grammar: expressions, FROM items, SELECTs with set operations, and the
//! whole payload with its trivia and dangerous insertions.

use arbitrary::Arbitrary;

use super::danger::Danger;
use super::trivia::Sep;

/// A scalar expression (benign).
#[derive(Arbitrary, Debug, Clone)]
pub enum Expr {
    /// A column, optionally qualified with the n-th alias.
    Column(u8, Option<u8>),
    /// An integer.
    Int(u16),
    /// A string literal (some hold `;`, `--`, `/*`).
    Str(u8),
    /// `NULL`
    Null,
    /// A binary operation.
    Binary(Box<Expr>, BinOp, Box<Expr>),
    /// An allowlisted function.
    Call(u8, Vec<Expr>),
    /// `count(*)`
    CountStar,
    /// `sum(e)`, `max(e)` ...
    Aggregate(u8, Box<Expr>),
    /// `(SELECT ...)`
    Subquery(Box<Select>),
    /// `EXISTS (SELECT ...)`
    Exists(Box<Select>),
    /// `e IN (1, 2)`
    InList(Box<Expr>, Vec<u8>),
    /// `CASE WHEN e THEN e ELSE e END`
    Case(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `e::text`
    Cast(Box<Expr>),
    /// `e IS NULL`
    IsNull(Box<Expr>),
    /// `NOT e`
    Not(Box<Expr>),
}

/// A binary operator.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum BinOp {
    /// `=`
    Eq,
    /// `<>`
    Ne,
    /// `<`
    Lt,
    /// `+`
    Plus,
    /// `*`
    Mul,
    /// `AND`
    And,
    /// `OR`
    Or,
    /// `||`
    Concat,
    /// `LIKE`
    Like,
}

impl BinOp {
    pub(super) fn text(self) -> &'static str {
        match self {
            BinOp::Eq => "=",
            BinOp::Ne => "<>",
            BinOp::Lt => "<",
            BinOp::Plus => "+",
            BinOp::Mul => "*",
            BinOp::And => "AND",
            BinOp::Or => "OR",
            BinOp::Concat => "||",
            BinOp::Like => "LIKE",
        }
    }
}

/// A FROM item (benign).
#[derive(Arbitrary, Debug, Clone)]
pub enum From {
    /// A user table, with an optional alias.
    Table(u8, bool),
    /// A reference to the n-th CTE.
    Cte(u8),
    /// `(SELECT ...) AS s`
    Derived(Box<Select>),
    /// `LATERAL (SELECT ...) AS s`
    Lateral(Box<Select>),
    /// `l JOIN r ON e`
    Join(Box<From>, JoinKind, Box<From>, Expr),
    /// `generate_series(1, n) AS g`
    Series(u8),
}

/// A join kind.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum JoinKind {
    /// `JOIN`
    Inner,
    /// `LEFT JOIN`
    Left,
    /// `FULL OUTER JOIN`
    Full,
    /// `CROSS JOIN` (no ON)
    Cross,
}

/// A SELECT (benign).
#[derive(Arbitrary, Debug, Clone)]
pub struct Select {
    pub(super) distinct: bool,
    pub(super) items: Vec<(Expr, Option<u8>)>,
    pub(super) from: Vec<From>,
    pub(super) filter: Option<Expr>,
    pub(super) group_by: Vec<Expr>,
    pub(super) having: Option<Expr>,
    pub(super) set_op: Option<(SetOp, Box<Select>)>,
}

/// A set operation.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum SetOp {
    /// `UNION`
    Union,
    /// `UNION ALL`
    UnionAll,
    /// `INTERSECT`
    Intersect,
    /// `EXCEPT`
    Except,
}

/// A whole generated payload.
#[derive(Arbitrary, Debug, Clone)]
pub struct Query {
    pub(super) ctes: Vec<Select>,
    pub(super) body: Select,
    pub(super) order_by: Vec<(Expr, bool)>,
    pub(super) limit: Option<u16>,
    pub(super) seps: Vec<Sep>,
    pub(super) trailing_semicolon: bool,
    pub(super) dangers: Vec<Danger>,
}
