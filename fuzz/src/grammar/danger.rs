//! The dangerous insertions: lock clauses, data-modifying statements, stacked statements,
//! wrapping statements, system catalogs, and where each goes (an expression or FROM hole, a CTE,
//! `INTO`, the end of the query), with the text placed at a hole.

use arbitrary::Arbitrary;

use super::calls::{DeniedFn, Spelling, Wrap};
use super::trivia::Sep;

/// A lock clause.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Lock {
    /// `FOR UPDATE`
    Update,
    /// `FOR SHARE`
    Share,
    /// `FOR NO KEY UPDATE`
    NoKeyUpdate,
    /// `FOR KEY SHARE`
    KeyShare,
    /// `FOR UPDATE OF t NOWAIT`
    UpdateOfNowait,
    /// `for share skip locked`
    ShareSkipLocked,
}

impl Lock {
    pub(super) fn text(self) -> &'static str {
        match self {
            Lock::Update => "FOR UPDATE",
            Lock::Share => "FOR SHARE",
            Lock::NoKeyUpdate => "FOR NO KEY UPDATE",
            Lock::KeyShare => "FOR KEY SHARE",
            Lock::UpdateOfNowait => "FOR UPDATE OF t NOWAIT",
            Lock::ShareSkipLocked => "for share skip locked",
        }
    }
}

/// A data-modifying statement.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Dml {
    /// `DELETE ... RETURNING`
    Delete,
    /// `INSERT ... RETURNING`
    Insert,
    /// `UPDATE ... RETURNING`
    Update,
    /// `delete` in lower case, no RETURNING
    DeleteNoReturning,
    /// `MERGE`
    Merge,
}

impl Dml {
    pub(super) fn text(self) -> &'static str {
        match self {
            Dml::Delete => "DELETE FROM t WHERE a = 1 RETURNING *",
            Dml::Insert => "INSERT INTO t (a) VALUES (1) RETURNING a",
            Dml::Update => "UPDATE t SET a = 2 RETURNING a",
            Dml::DeleteNoReturning => "delete from artist",
            Dml::Merge => "MERGE INTO t USING u ON t.a = u.a WHEN MATCHED THEN DELETE",
        }
    }
}

/// What follows a `;` after the query.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Stacked {
    /// `DROP TABLE t`
    Drop,
    /// `COMMIT`
    Commit,
    /// `COMMIT; DROP TABLE t`
    CommitDrop,
    /// `DELETE FROM t`
    Delete,
    /// `SET ROLE postgres`
    SetRole,
    /// `SELECT 1` (two harmless queries are still two statements)
    Select,
    /// `COPY t TO PROGRAM 'id'`
    CopyProgram,
    /// `GRANT ALL ON t TO public`
    Grant,
}

impl Stacked {
    pub(super) fn text(self) -> &'static str {
        match self {
            Stacked::Drop => "DROP TABLE t",
            Stacked::Commit => "COMMIT",
            Stacked::CommitDrop => "COMMIT; DROP TABLE t",
            Stacked::Delete => "DELETE FROM t",
            Stacked::SetRole => "SET ROLE postgres",
            Stacked::Select => "SELECT 1",
            Stacked::CopyProgram => "COPY t TO PROGRAM 'id'",
            Stacked::Grant => "GRANT ALL ON t TO public",
        }
    }
}

/// A statement wrapped around the query.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Prefix {
    /// `EXPLAIN ANALYZE`
    ExplainAnalyze,
    /// `EXPLAIN (ANALYZE)`
    ExplainAnalyzeOption,
    /// `EXPLAIN` (refused by the default policy)
    Explain,
    /// `CREATE TABLE x AS`
    CreateTableAs,
    /// `CREATE VIEW v AS`
    CreateView,
    /// `DECLARE c CURSOR FOR`
    DeclareCursor,
    /// `PREPARE p AS`
    Prepare,
    /// `COPY (...) TO '/tmp/x'`
    CopyTo,
    /// `INSERT INTO x`
    InsertSelect,
}

/// A relation that the default policy refuses.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Catalog {
    /// `pg_catalog.pg_authid`
    PgAuthid,
    /// `pg_shadow` (unqualified `pg_*`)
    PgShadow,
    /// `information_schema.tables`
    InformationSchema,
    /// `"pg_catalog"."pg_class"`
    QuotedPgClass,
    /// `PG_CATALOG.PG_PROC`
    UpperPgProc,
    /// `pg_stat_activity`
    PgStatActivity,
}

impl Catalog {
    pub(super) fn text(self) -> &'static str {
        match self {
            Catalog::PgAuthid => "pg_catalog.pg_authid",
            Catalog::PgShadow => "pg_shadow",
            Catalog::InformationSchema => "information_schema.tables",
            Catalog::QuotedPgClass => "\"pg_catalog\".\"pg_class\"",
            Catalog::UpperPgProc => "PG_CATALOG.PG_PROC",
            Catalog::PgStatActivity => "pg_stat_activity",
        }
    }
}

/// A dangerous expression, placed at an expression hole.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum DangerExpr {
    /// A denied function call.
    Call(DeniedFn, Spelling, Wrap),
    /// `(SELECT a FROM t LOCK)`
    LockedSubquery(Lock),
    /// `(SELECT count(*) FROM CATALOG)`
    CatalogSubquery(Catalog),
    /// `(SELECT a FROM (DML) s)`: DML where only a query may be.
    DmlSubquery(Dml),
}

/// A dangerous relation, placed at a FROM hole.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum DangerFrom {
    /// `CALL AS f`
    TableFunction(DeniedFn, Spelling),
    /// `ROWS FROM (CALL) AS f`
    RowsFrom(DeniedFn, Spelling),
    /// `LATERAL (SELECT CALL) AS f`
    Lateral(DeniedFn, Spelling),
    /// A system catalog.
    Catalog(Catalog),
    /// `(SELECT * FROM t LOCK) AS s`
    LockedDerived(Lock),
    /// `(DML) AS s`
    DmlDerived(Dml),
}

/// A dangerous insertion.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Danger {
    /// At the n-th expression hole.
    Expr(DangerExpr, u8),
    /// At the n-th FROM hole.
    From(DangerFrom, u8),
    /// A data-modifying CTE, at position n among the CTEs.
    DmlCte(Dml, u8),
    /// `INTO [TEMP] x` after the outermost select list.
    Into(u8),
    /// A lock clause on the outermost query.
    Lock(Lock),
    /// A lock clause inside the n-th CTE (or a new one).
    LockInCte(Lock, u8),
    /// A stacked statement, with trivia after the `;`.
    Stacked(Stacked, Sep),
    /// A wrapping statement.
    Prefix(Prefix),
}

pub(super) fn expr_danger(d: &DangerExpr) -> String {
    match *d {
        DangerExpr::Call(f, s, w) => w.apply(&s.call(f)),
        DangerExpr::LockedSubquery(l) => format!("SELECT a FROM t {}", l.text()),
        DangerExpr::CatalogSubquery(c) => format!("SELECT count(*) FROM {}", c.text()),
        DangerExpr::DmlSubquery(d) => format!("SELECT a FROM ({}) AS s", d.text()),
    }
}

pub(super) fn from_danger(d: &DangerFrom) -> String {
    match *d {
        DangerFrom::TableFunction(f, s) => format!("{} AS f", s.call(f)),
        DangerFrom::RowsFrom(f, s) => format!("ROWS FROM ({}) AS f", s.call(f)),
        DangerFrom::Lateral(f, s) => format!("LATERAL (SELECT {}) AS f", s.call(f)),
        DangerFrom::Catalog(c) => c.text().to_string(),
        DangerFrom::LockedDerived(l) => format!("(SELECT * FROM t {}) AS s", l.text()),
        DangerFrom::DmlDerived(d) => format!("({}) AS s", d.text()),
    }
}
