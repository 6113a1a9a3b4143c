//! A small SQL grammar for the `grammar` target, generated with `arbitrary`.
//!
//! The benign part renders valid PostgreSQL that the default postgres policy allows: user tables,
//! allowlisted functions, joins, derived tables, CTEs, set operations, subqueries in every clause,
//! and trivia (comments, odd whitespace, literals that contain `;`, `--` and `/*`) between tokens.
//! Dangerous parts are inserted on top, and [`Query::render`] reports whether it inserted one.

use arbitrary::Arbitrary;

/// Maximum nesting of generated expressions and subqueries (well under the guard's `max_depth`).
const MAX_DEPTH: usize = 3;

const TABLES: &[&str] = &[
    "t",
    "artist",
    "\"Track\"",
    "public.album",
    "\"public\".\"invoice\"",
    "sales.orders",
    "\"we;ird\"",
    "\"--x\"",
];
const COLUMNS: &[&str] = &[
    "a",
    "b",
    "name",
    "\"Weird col\"",
    "\"select\"",
    "\"a\"\"b\"",
    "total",
];
const BENIGN_FUNCTIONS: &[&str] = &[
    "lower", "upper", "length", "abs", "round", "coalesce", "nullif", "greatest", "concat",
];
const STRINGS: &[&str] = &[
    "'x'",
    "'it''s'",
    "'; DROP TABLE t; --'",
    "'/* not a comment */'",
    "'-- not a comment'",
    "$$; DELETE FROM t$$",
    "$q$ '; COMMIT $q$",
    "E'\\'; DROP TABLE t; --'",
    "''",
    "'pg_sleep(1)'",
];

/// Trivia between tokens.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Sep {
    /// One space.
    Space,
    /// A newline.
    Newline,
    /// A tab and spaces.
    Tab,
    /// `/* c */`
    Block,
    /// `-- c` and a newline.
    Line,
    /// A nested block comment.
    Nested,
    /// A block comment that holds a stacked statement.
    BlockSemicolon,
    /// A line comment that holds a stacked statement.
    LineSemicolon,
    /// `/**/`
    EmptyBlock,
}

impl Sep {
    fn text(self) -> &'static str {
        match self {
            Sep::Space => " ",
            Sep::Newline => "\n",
            Sep::Tab => "\t  ",
            Sep::Block => " /* c */ ",
            Sep::Line => " -- c\n",
            Sep::Nested => " /* a /* b */ c */ ",
            Sep::BlockSemicolon => " /*; DROP TABLE t;*/ ",
            Sep::LineSemicolon => " --; DELETE FROM t\n",
            Sep::EmptyBlock => "/**/",
        }
    }
}

/// A function that the default postgres policy must refuse.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum DeniedFn {
    /// `pg_sleep(1)`
    PgSleep,
    /// `pg_read_file('/etc/passwd')`
    PgReadFile,
    /// `pg_read_binary_file('x')`
    PgReadBinaryFile,
    /// `pg_ls_dir('.')`
    PgLsDir,
    /// `pg_stat_file('x')`
    PgStatFile,
    /// `lo_import('/etc/passwd')`
    LoImport,
    /// `lo_export(1, '/tmp/x')`
    LoExport,
    /// `dblink('host=x', 'select 1')`
    Dblink,
    /// `dblink_exec('host=x', 'drop table t')`
    DblinkExec,
    /// `current_setting('is_superuser')`
    CurrentSetting,
    /// `set_config('role', 'postgres', false)`
    SetConfig,
    /// `pg_terminate_backend(1)`
    PgTerminateBackend,
    /// `query_to_xml('select 1', true, true, '')`
    QueryToXml,
    /// `txid_current()`
    TxidCurrent,
    /// `nextval('s')`
    Nextval,
    /// `pg_advisory_lock(1)`
    PgAdvisoryLock,
    /// `pg_reload_conf()`
    PgReloadConf,
    /// `version()`-like but user-defined: `public.f(1)` is not allowlisted
    UserDefined,
}

impl DeniedFn {
    fn name(self) -> &'static str {
        match self {
            DeniedFn::PgSleep => "pg_sleep",
            DeniedFn::PgReadFile => "pg_read_file",
            DeniedFn::PgReadBinaryFile => "pg_read_binary_file",
            DeniedFn::PgLsDir => "pg_ls_dir",
            DeniedFn::PgStatFile => "pg_stat_file",
            DeniedFn::LoImport => "lo_import",
            DeniedFn::LoExport => "lo_export",
            DeniedFn::Dblink => "dblink",
            DeniedFn::DblinkExec => "dblink_exec",
            DeniedFn::CurrentSetting => "current_setting",
            DeniedFn::SetConfig => "set_config",
            DeniedFn::PgTerminateBackend => "pg_terminate_backend",
            DeniedFn::QueryToXml => "query_to_xml",
            DeniedFn::TxidCurrent => "txid_current",
            DeniedFn::Nextval => "nextval",
            DeniedFn::PgAdvisoryLock => "pg_advisory_lock",
            DeniedFn::PgReloadConf => "pg_reload_conf",
            DeniedFn::UserDefined => "evil_udf",
        }
    }

    fn args(self) -> &'static str {
        match self {
            DeniedFn::PgSleep => "(1)",
            DeniedFn::PgReadFile => "('/etc/passwd')",
            DeniedFn::PgReadBinaryFile | DeniedFn::PgStatFile => "('x')",
            DeniedFn::PgLsDir => "('.')",
            DeniedFn::LoImport => "('/etc/passwd')",
            DeniedFn::LoExport => "(1, '/tmp/x')",
            DeniedFn::Dblink => "('host=x', 'select 1')",
            DeniedFn::DblinkExec => "('host=x', 'drop table t')",
            DeniedFn::CurrentSetting => "('is_superuser')",
            DeniedFn::SetConfig => "('role', 'postgres', false)",
            DeniedFn::PgTerminateBackend | DeniedFn::PgAdvisoryLock => "(1)",
            DeniedFn::QueryToXml => "('select 1', true, true, '')",
            DeniedFn::TxidCurrent | DeniedFn::PgReloadConf => "()",
            DeniedFn::Nextval => "('s')",
            DeniedFn::UserDefined => "(1)",
        }
    }
}

/// How a denied function's name is spelled.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Spelling {
    /// `pg_sleep`
    Plain,
    /// `PG_SLEEP`
    Upper,
    /// `Pg_Sleep`
    Mixed,
    /// `"pg_sleep"`
    Quoted,
    /// `pg_catalog.pg_sleep`
    Catalog,
    /// `"pg_catalog"."pg_sleep"`
    QuotedCatalog,
    /// `PG_CATALOG . pg_sleep`
    SpacedCatalog,
    /// `public.pg_sleep`
    Public,
    /// `pg_sleep /**/ (`: a comment before the argument list
    CommentBeforeParen,
}

impl Spelling {
    fn call(self, f: DeniedFn) -> String {
        let n = f.name();
        let args = f.args();
        match self {
            Spelling::Plain => format!("{n}{args}"),
            Spelling::Upper => format!("{}{args}", n.to_ascii_uppercase()),
            Spelling::Mixed => {
                let mixed: String = n
                    .chars()
                    .enumerate()
                    .map(|(i, c)| {
                        if i % 2 == 0 {
                            c.to_ascii_uppercase()
                        } else {
                            c
                        }
                    })
                    .collect();
                format!("{mixed}{args}")
            }
            Spelling::Quoted => format!("\"{n}\"{args}"),
            Spelling::Catalog => format!("pg_catalog.{n}{args}"),
            Spelling::QuotedCatalog => format!("\"pg_catalog\".\"{n}\"{args}"),
            Spelling::SpacedCatalog => format!("PG_CATALOG . {n}{args}"),
            Spelling::Public => format!("public.{n}{args}"),
            Spelling::CommentBeforeParen => format!("{n} /**/ {args}"),
        }
    }
}

/// Where a denied call sits inside an expression.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Wrap {
    /// As is.
    Bare,
    /// `lower(CALL::text)`
    Argument,
    /// `(SELECT CALL)`
    ScalarSubquery,
    /// `CASE WHEN CALL IS NULL THEN 1 ELSE 0 END`
    Case,
    /// `count(*) FILTER (WHERE CALL IS NULL)`
    Filter,
    /// `row_number() OVER (ORDER BY CALL)`
    Window,
    /// `1 IN (SELECT CALL)`
    InSubquery,
    /// `EXISTS (SELECT 1 FROM t WHERE CALL IS NULL)`
    Exists,
    /// `max(CALL ORDER BY 1)` style aggregate argument ordering
    AggregateOrderBy,
    /// `coalesce(NULL, CALL)`
    Coalesce,
}

impl Wrap {
    fn apply(self, call: &str) -> String {
        match self {
            Wrap::Bare => call.to_string(),
            Wrap::Argument => format!("lower({call}::text)"),
            Wrap::ScalarSubquery => format!("(SELECT {call})"),
            Wrap::Case => format!("CASE WHEN {call} IS NULL THEN 1 ELSE 0 END"),
            Wrap::Filter => format!("count(*) FILTER (WHERE {call} IS NULL)"),
            Wrap::Window => format!("row_number() OVER (ORDER BY {call})"),
            Wrap::InSubquery => format!("1 IN (SELECT {call})"),
            Wrap::Exists => format!("EXISTS (SELECT 1 FROM t WHERE {call} IS NULL)"),
            Wrap::AggregateOrderBy => format!("string_agg('x', ',' ORDER BY {call})"),
            Wrap::Coalesce => format!("coalesce(NULL, {call})"),
        }
    }
}

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
    fn text(self) -> &'static str {
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
    fn text(self) -> &'static str {
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
    fn text(self) -> &'static str {
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
    fn text(self) -> &'static str {
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
    fn text(self) -> &'static str {
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
    distinct: bool,
    items: Vec<(Expr, Option<u8>)>,
    from: Vec<From>,
    filter: Option<Expr>,
    group_by: Vec<Expr>,
    having: Option<Expr>,
    set_op: Option<(SetOp, Box<Select>)>,
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
    ctes: Vec<Select>,
    body: Select,
    order_by: Vec<(Expr, bool)>,
    limit: Option<u16>,
    seps: Vec<Sep>,
    trailing_semicolon: bool,
    dangers: Vec<Danger>,
}

struct Writer<'a> {
    out: String,
    seps: &'a [Sep],
    next_sep: usize,
    expr_holes: usize,
    from_holes: usize,
    expr_target: Option<(usize, String)>,
    from_target: Option<(usize, String)>,
    ctes: usize,
}

impl Writer<'_> {
    fn tok(&mut self, t: &str) {
        if !self.out.is_empty() {
            let sep = if self.seps.is_empty() {
                Sep::Space
            } else {
                self.seps[self.next_sep % self.seps.len()]
            };
            self.next_sep += 1;
            self.out.push_str(sep.text());
        }
        self.out.push_str(t);
    }

    /// An expression hole: returns true when the dangerous expression was written here.
    fn expr_hole(&mut self) -> bool {
        let n = self.expr_holes;
        self.expr_holes += 1;
        match &self.expr_target {
            Some((at, text)) if *at == n => {
                let text = text.clone();
                self.tok(&format!("({text})"));
                true
            }
            _ => false,
        }
    }

    fn relation_hole(&mut self) -> bool {
        let n = self.from_holes;
        self.from_holes += 1;
        match &self.from_target {
            Some((at, text)) if *at == n => {
                let text = text.clone();
                self.tok(&text);
                true
            }
            _ => false,
        }
    }

    fn expr(&mut self, e: &Expr, depth: usize) {
        if self.expr_hole() {
            return;
        }
        let deep = depth >= MAX_DEPTH;
        match e {
            Expr::Column(c, q) => {
                let col = COLUMNS[*c as usize % COLUMNS.len()];
                match q {
                    Some(q) => self.tok(&format!("s{}.{col}", q % 3)),
                    None => self.tok(col),
                }
            }
            Expr::Int(n) => self.tok(&n.to_string()),
            Expr::Str(s) => self.tok(STRINGS[*s as usize % STRINGS.len()]),
            Expr::Null => self.tok("NULL"),
            Expr::CountStar => self.tok("count(*)"),
            _ if deep => self.tok("1"),
            Expr::Binary(l, op, r) => {
                self.tok("(");
                self.expr(l, depth + 1);
                self.tok(op.text());
                self.expr(r, depth + 1);
                self.tok(")");
            }
            Expr::Call(f, args) => {
                let name = BENIGN_FUNCTIONS[*f as usize % BENIGN_FUNCTIONS.len()];
                self.tok(name);
                self.tok("(");
                // lower/upper/length/abs/round take one argument; the rest take one or more.
                let n = match name {
                    "lower" | "upper" | "length" | "abs" | "round" => 1,
                    "nullif" => 2,
                    _ => args.len().clamp(1, 3),
                };
                for i in 0..n {
                    if i > 0 {
                        self.tok(",");
                    }
                    match args.get(i) {
                        Some(a) => self.expr(a, depth + 1),
                        None => self.tok("1"),
                    }
                }
                self.tok(")");
            }
            Expr::Aggregate(f, e) => {
                self.tok(["sum", "max", "min", "avg"][*f as usize % 4]);
                self.tok("(");
                self.expr(e, depth + 1);
                self.tok(")");
            }
            Expr::Subquery(s) => {
                self.tok("(");
                self.select(s, depth + 1);
                self.tok(")");
            }
            Expr::Exists(s) => {
                self.tok("EXISTS");
                self.tok("(");
                self.select(s, depth + 1);
                self.tok(")");
            }
            Expr::InList(e, items) => {
                self.expr(e, depth + 1);
                self.tok("IN");
                self.tok("(");
                if items.is_empty() {
                    self.tok("1");
                }
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        self.tok(",");
                    }
                    self.tok(&v.to_string());
                }
                self.tok(")");
            }
            Expr::Case(c, t, f) => {
                self.tok("CASE");
                self.tok("WHEN");
                self.expr(c, depth + 1);
                self.tok("THEN");
                self.expr(t, depth + 1);
                self.tok("ELSE");
                self.expr(f, depth + 1);
                self.tok("END");
            }
            Expr::Cast(e) => {
                self.tok("(");
                self.expr(e, depth + 1);
                self.tok(")::text");
            }
            Expr::IsNull(e) => {
                self.tok("(");
                self.expr(e, depth + 1);
                self.tok("IS NULL");
                self.tok(")");
            }
            Expr::Not(e) => {
                self.tok("NOT");
                self.tok("(");
                self.expr(e, depth + 1);
                self.tok(")");
            }
        }
    }

    fn from(&mut self, f: &From, depth: usize, alias: &mut usize) {
        if self.relation_hole() {
            return;
        }
        let deep = depth >= MAX_DEPTH;
        let next_alias = |alias: &mut usize| {
            let a = format!("s{}", *alias % 3);
            *alias += 1;
            a
        };
        match f {
            From::Cte(n) if self.ctes > 0 => {
                self.tok(&format!("c{}", *n as usize % self.ctes));
                self.tok(&next_alias(alias));
            }
            From::Table(..) | From::Cte(_) => {
                let (n, aliased) = match f {
                    From::Table(n, a) => (*n, *a),
                    _ => (0, true),
                };
                self.tok(TABLES[n as usize % TABLES.len()]);
                if aliased {
                    self.tok("AS");
                    self.tok(&next_alias(alias));
                }
            }
            _ if deep => self.tok("t"),
            From::Derived(s) | From::Lateral(s) => {
                if matches!(f, From::Lateral(_)) {
                    self.tok("LATERAL");
                }
                self.tok("(");
                self.select(s, depth + 1);
                self.tok(")");
                self.tok("AS");
                self.tok(&next_alias(alias));
            }
            From::Join(l, kind, r, on) => {
                self.from(l, depth + 1, alias);
                self.tok(match kind {
                    JoinKind::Inner => "JOIN",
                    JoinKind::Left => "LEFT JOIN",
                    JoinKind::Full => "FULL OUTER JOIN",
                    JoinKind::Cross => "CROSS JOIN",
                });
                let nested = matches!(**r, From::Join(..)) && depth + 1 < MAX_DEPTH;
                if nested {
                    self.tok("(");
                }
                self.from(r, depth + 1, alias);
                if nested {
                    self.tok(")");
                }
                if !matches!(kind, JoinKind::Cross) {
                    self.tok("ON");
                    self.expr(on, depth + 1);
                }
            }
            From::Series(n) => {
                self.tok(&format!("generate_series(1, {n})"));
                self.tok("AS");
                self.tok(&next_alias(alias));
            }
        }
    }

    fn select(&mut self, s: &Select, depth: usize) {
        self.select_into(s, depth, None);
    }

    fn select_into(&mut self, s: &Select, depth: usize, into: Option<&str>) {
        self.tok("SELECT");
        if s.distinct {
            self.tok("DISTINCT");
        }
        if s.items.is_empty() {
            self.expr(&Expr::Int(1), depth);
        }
        for (i, (e, alias)) in s.items.iter().take(4).enumerate() {
            if i > 0 {
                self.tok(",");
            }
            self.expr(e, depth);
            if let Some(a) = alias {
                self.tok("AS");
                self.tok(&format!("\"x{a}\""));
            }
        }
        if let Some(into) = into {
            self.tok(into);
        }
        let mut alias = 0;
        for (i, f) in s.from.iter().take(3).enumerate() {
            self.tok(if i == 0 { "FROM" } else { "," });
            self.from(f, depth, &mut alias);
        }
        if let Some(w) = &s.filter {
            self.tok("WHERE");
            self.expr(w, depth);
        }
        if !s.group_by.is_empty() {
            self.tok("GROUP BY");
            for (i, g) in s.group_by.iter().take(3).enumerate() {
                if i > 0 {
                    self.tok(",");
                }
                self.expr(g, depth);
            }
        }
        if let Some(h) = &s.having {
            self.tok("HAVING");
            self.expr(h, depth);
        }
        if let Some((op, rhs)) = &s.set_op {
            if depth < MAX_DEPTH {
                self.tok(match op {
                    SetOp::Union => "UNION",
                    SetOp::UnionAll => "UNION ALL",
                    SetOp::Intersect => "INTERSECT",
                    SetOp::Except => "EXCEPT",
                });
                self.select(rhs, depth + 1);
            }
        }
    }
}

fn expr_danger(d: &DangerExpr) -> String {
    match *d {
        DangerExpr::Call(f, s, w) => w.apply(&s.call(f)),
        DangerExpr::LockedSubquery(l) => format!("SELECT a FROM t {}", l.text()),
        DangerExpr::CatalogSubquery(c) => format!("SELECT count(*) FROM {}", c.text()),
        DangerExpr::DmlSubquery(d) => format!("SELECT a FROM ({}) AS s", d.text()),
    }
}

fn from_danger(d: &DangerFrom) -> String {
    match *d {
        DangerFrom::TableFunction(f, s) => format!("{} AS f", s.call(f)),
        DangerFrom::RowsFrom(f, s) => format!("ROWS FROM ({}) AS f", s.call(f)),
        DangerFrom::Lateral(f, s) => format!("LATERAL (SELECT {}) AS f", s.call(f)),
        DangerFrom::Catalog(c) => c.text().to_string(),
        DangerFrom::LockedDerived(l) => format!("(SELECT * FROM t {}) AS s", l.text()),
        DangerFrom::DmlDerived(d) => format!("({}) AS s", d.text()),
    }
}

impl Query {
    /// Renders the payload; the flag is true when something dangerous was inserted.
    pub fn render(&self) -> (String, bool) {
        // Only the first danger is used, so that the input shrinks well.
        let danger = self.dangers.first();
        // A first pass counts the holes.
        let (_, holes_expr, holes_from) = self.render_with(None, None, None);
        let (mut expr_target, mut from_target) = (None, None);
        match danger {
            Some(Danger::Expr(d, at)) => {
                let at = *at as usize % holes_expr.max(1);
                expr_target = Some((at, expr_danger(d)));
            }
            Some(Danger::From(d, at)) if holes_from > 0 => {
                from_target = Some((*at as usize % holes_from, from_danger(d)));
            }
            _ => {}
        }
        let (mut sql, e, f) = self.render_with(expr_target.clone(), from_target.clone(), danger);
        let mut dangerous = danger.is_some();
        if let Some(Danger::Expr(..)) = danger {
            // With no hole at all (impossible: the select list always has one) nothing is inserted.
            dangerous = e > 0;
        }
        if let Some(Danger::From(d, _)) = danger {
            if f == 0 {
                // No FROM anywhere: add one.
                sql = format!("SELECT * FROM {}", from_danger(d));
            }
        }
        (sql, dangerous)
    }

    fn render_with(
        &self,
        expr_target: Option<(usize, String)>,
        from_target: Option<(usize, String)>,
        danger: Option<&Danger>,
    ) -> (String, usize, usize) {
        let mut w = Writer {
            out: String::new(),
            seps: &self.seps[..self.seps.len().min(8)],
            next_sep: 0,
            expr_holes: 0,
            from_holes: 0,
            expr_target,
            from_target,
            ctes: self.ctes.len().min(3),
        };
        let mut wrap_end: Option<&str> = None;
        if let Some(Danger::Prefix(p)) = danger {
            match p {
                Prefix::ExplainAnalyze => w.tok("EXPLAIN ANALYZE"),
                Prefix::ExplainAnalyzeOption => w.tok("EXPLAIN (ANALYZE)"),
                Prefix::Explain => w.tok("EXPLAIN"),
                Prefix::CreateTableAs => w.tok("CREATE TABLE x AS"),
                Prefix::CreateView => w.tok("CREATE VIEW v AS"),
                Prefix::DeclareCursor => w.tok("DECLARE c CURSOR FOR"),
                Prefix::Prepare => w.tok("PREPARE p AS"),
                Prefix::CopyTo => {
                    w.tok("COPY (");
                    wrap_end = Some(") TO '/tmp/x'");
                }
                Prefix::InsertSelect => w.tok("INSERT INTO x"),
            }
        }
        let mut ctes: Vec<String> = Vec::new();
        let lock_in_cte = match danger {
            Some(Danger::LockInCte(l, at)) => Some((*l, *at as usize % (w.ctes + 1))),
            _ => None,
        };
        let dml_cte = match danger {
            Some(Danger::DmlCte(d, at)) => Some((*d, *at as usize % (w.ctes + 1))),
            _ => None,
        };
        let cte_count = w.ctes;
        for i in 0..=cte_count {
            if let Some((d, at)) = dml_cte {
                if at == i {
                    ctes.push(format!("d AS ({})", d.text()));
                }
            }
            if i == cte_count {
                if let Some((l, at)) = lock_in_cte {
                    if at == i {
                        ctes.push(format!("lk AS (SELECT a FROM t {})", l.text()));
                    }
                }
                break;
            }
            // Render each CTE body through the writer so its holes count.
            let start = w.out.len();
            let body_start = {
                w.tok(&format!("c{i}"));
                w.tok("AS");
                w.tok("(");
                w.out.len()
            };
            let _ = body_start;
            w.select(&self.ctes[i], 1);
            if let Some((l, at)) = lock_in_cte {
                if at == i {
                    w.tok(l.text());
                }
            }
            w.tok(")");
            let text = w.out[start..].to_string();
            w.out.truncate(start);
            ctes.push(text.trim_start().to_string());
        }
        if !ctes.is_empty() {
            w.tok("WITH");
            w.tok(&ctes.join(", "));
        }
        let into = match danger {
            Some(Danger::Into(k)) => Some(
                [
                    "INTO newtab",
                    "INTO TEMP newtab",
                    "INTO TEMPORARY TABLE newtab",
                    "into unlogged newtab",
                ][*k as usize % 4],
            ),
            _ => None,
        };
        w.select_into(&self.body, 0, into);
        if !self.order_by.is_empty() {
            w.tok("ORDER BY");
            for (i, (e, desc)) in self.order_by.iter().take(3).enumerate() {
                if i > 0 {
                    w.tok(",");
                }
                w.expr(e, 1);
                if *desc {
                    w.tok("DESC");
                }
            }
        }
        if let Some(n) = self.limit {
            w.tok(&format!("LIMIT {}", u32::from(n) + 1));
        }
        if let Some(Danger::Lock(l)) = danger {
            w.tok(l.text());
        }
        if let Some(end) = wrap_end {
            w.tok(end);
        }
        if let Some(Danger::Stacked(s, sep)) = danger {
            w.out.push(';');
            w.out.push_str(sep.text());
            w.out.push_str(s.text());
        } else if self.trailing_semicolon {
            w.out.push(';');
        }
        (w.out, w.expr_holes, w.from_holes)
    }
}
