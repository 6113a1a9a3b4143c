//! Denied function calls: the functions the default postgres policy must refuse, how their name
//! is spelled, and where the call sits inside an expression.

use arbitrary::Arbitrary;

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
    pub(super) fn call(self, f: DeniedFn) -> String {
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
    pub(super) fn apply(self, call: &str) -> String {
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
