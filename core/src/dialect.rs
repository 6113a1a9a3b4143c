//! Supported SQL dialects, and every fact about what each one's engine reads (the parser it uses,
//! how it folds and quotes names, its escapes, its row-limit forms, its system catalogs), decided
//! here once for the modules that act on them.

use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sqlparser::dialect as sp;

use crate::stable_names::stable_names;

mod equivalents;
#[cfg(test)]
mod parser_tests;

#[cfg(test)]
pub(crate) use equivalents::all as all_equivalents;

/// A SQL dialect sqlgate parses.
#[derive(Serialize, Deserialize, JsonSchema, strum::IntoStaticStr, strum::VariantArray)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dialect {
    /// PostgreSQL (the default).
    #[default]
    Postgres,
    /// MySQL / MariaDB.
    Mysql,
    /// SQLite.
    Sqlite,
    /// Microsoft SQL Server (T-SQL).
    Mssql,
    /// DuckDB.
    Duckdb,
    /// Snowflake.
    Snowflake,
    /// Google BigQuery.
    Bigquery,
    /// Amazon Redshift.
    Redshift,
    /// ClickHouse.
    Clickhouse,
    /// Databricks / Spark SQL.
    Databricks,
    /// Apache Hive.
    Hive,
    /// ANSI SQL.
    Ansi,
    /// sqlparser's permissive generic dialect.
    Generic,
}

/// How a dialect folds unquoted identifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Folding {
    /// Unquoted names fold to lower case.
    Lower,
    /// Unquoted names fold to upper case (Snowflake).
    Upper,
}

impl Dialect {
    /// The sqlparser dialect used to tokenize and parse: the built-in one, wrapped to read the
    /// constructs this dialect's engine accepts and sqlparser does not (see
    /// [`crate::sql_dialect`]).
    ///
    /// One static per dialect: the tokenizer and the parser borrow it, so a check allocates no
    /// dialect.
    pub(crate) fn parser_dialect(self) -> &'static dyn sp::Dialect {
        use crate::sql_dialect::SqlgateDialect as W;
        static POSTGRES: W<sp::PostgreSqlDialect> =
            W::new(sp::PostgreSqlDialect {}, Dialect::Postgres.extensions());
        static MYSQL: W<sp::MySqlDialect> =
            W::new(sp::MySqlDialect {}, Dialect::Mysql.extensions());
        static SQLITE: W<sp::SQLiteDialect> =
            W::new(sp::SQLiteDialect {}, Dialect::Sqlite.extensions());
        static MSSQL: W<sp::MsSqlDialect> =
            W::new(sp::MsSqlDialect {}, Dialect::Mssql.extensions());
        static DUCKDB: W<sp::DuckDbDialect> =
            W::new(sp::DuckDbDialect {}, Dialect::Duckdb.extensions());
        static SNOWFLAKE: W<sp::SnowflakeDialect> =
            W::new(sp::SnowflakeDialect {}, Dialect::Snowflake.extensions());
        static BIGQUERY: W<sp::BigQueryDialect> =
            W::new(sp::BigQueryDialect {}, Dialect::Bigquery.extensions());
        static REDSHIFT: W<sp::RedshiftSqlDialect> =
            W::new(sp::RedshiftSqlDialect {}, Dialect::Redshift.extensions());
        static CLICKHOUSE: W<sp::ClickHouseDialect> =
            W::new(sp::ClickHouseDialect {}, Dialect::Clickhouse.extensions());
        static DATABRICKS: W<sp::DatabricksDialect> =
            W::new(sp::DatabricksDialect {}, Dialect::Databricks.extensions());
        static HIVE: W<sp::HiveDialect> = W::new(sp::HiveDialect {}, Dialect::Hive.extensions());
        static ANSI: W<sp::AnsiDialect> = W::new(sp::AnsiDialect {}, Dialect::Ansi.extensions());
        static GENERIC: W<sp::GenericDialect> =
            W::new(sp::GenericDialect {}, Dialect::Generic.extensions());
        match self {
            Dialect::Postgres => &POSTGRES,
            Dialect::Mysql => &MYSQL,
            Dialect::Sqlite => &SQLITE,
            Dialect::Mssql => &MSSQL,
            Dialect::Duckdb => &DUCKDB,
            Dialect::Snowflake => &SNOWFLAKE,
            Dialect::Bigquery => &BIGQUERY,
            Dialect::Redshift => &REDSHIFT,
            Dialect::Clickhouse => &CLICKHOUSE,
            Dialect::Databricks => &DATABRICKS,
            Dialect::Hive => &HIVE,
            Dialect::Ansi => &ANSI,
            Dialect::Generic => &GENERIC,
        }
    }

    /// The constructs sqlgate's parser dialect reads beyond the built-in one's. Checked on the
    /// engines: PostgreSQL 15 reads all three; DuckDB reads `TABLE t` and BETWEEN ASYMMETRIC but
    /// not SYMMETRIC; MySQL 8.0.19+ reads `TABLE t`. ANSI and generic follow the standard.
    const fn extensions(self) -> crate::sql_dialect::Extensions {
        let pg_like = matches!(self, Dialect::Postgres | Dialect::Ansi | Dialect::Generic);
        crate::sql_dialect::Extensions {
            table_statement: pg_like || matches!(self, Dialect::Mysql | Dialect::Duckdb),
            between_symmetric: pg_like,
            between_asymmetric: pg_like || matches!(self, Dialect::Duckdb),
        }
    }

    /// How unquoted identifiers fold.
    pub(crate) fn folding(self) -> Folding {
        match self {
            Dialect::Snowflake => Folding::Upper,
            _ => Folding::Lower,
        }
    }

    /// True when the engine matches names case-sensitively once quoted (PostgreSQL, Redshift,
    /// Snowflake). Elsewhere (SQLite, MySQL, DuckDB, SQL Server, ...) names compare
    /// case-insensitively even when quoted, so the guard does too: a deny rule on `customer`
    /// also covers `"Customer"`.
    pub(crate) fn quoted_names_are_exact(self) -> bool {
        matches!(
            self,
            Dialect::Postgres | Dialect::Redshift | Dialect::Snowflake
        )
    }

    /// `name` as one quoted identifier the way this dialect's engine reads it exactly: in
    /// backticks for MySQL / MariaDB, BigQuery, Hive and Databricks (where `"x"` may be a
    /// string), in brackets for SQL Server (whose `"x"` is a string under `QUOTED_IDENTIFIER
    /// OFF`), in double quotes elsewhere; the closing quote doubled inside, as the engines and
    /// sqlparser read it. Quote each part of a qualified name on its own and join them with `.`.
    pub fn quote_identifier(self, name: &str) -> String {
        let (open, close) = match self {
            Dialect::Mysql | Dialect::Bigquery | Dialect::Hive | Dialect::Databricks => ('`', '`'),
            Dialect::Mssql => ('[', ']'),
            _ => ('"', '"'),
        };
        let mut quoted = String::with_capacity(name.len() + 2);
        quoted.push(open);
        for c in name.chars() {
            if c == close {
                quoted.push(close);
            }
            quoted.push(c);
        }
        quoted.push(close);
        quoted
    }

    /// True when the engine itself reads `SELECT TOP n`. sqlparser accepts TOP in other dialects
    /// too, where the engine would read `TOP (5) a` as a call to a function `top`.
    pub(crate) fn supports_top(self) -> bool {
        matches!(
            self,
            Dialect::Mssql | Dialect::Snowflake | Dialect::Redshift
        )
    }
}

/// What each dialect's engine reads, decided here once; the modules that act on a fact
/// (pre-checks, token preparation, the row cap, names, functions) ask for it by name.
impl Dialect {
    /// What to use in this dialect instead of `function` (lower-case, unqualified), a function
    /// it does not have: the advice `function_not_allowed` gives, for front ends that meet the
    /// same mistake in an engine's error (`no such function: date_trunc`). `None` when there is
    /// no entry.
    pub fn equivalent_of(self, function: &str) -> Option<&'static str> {
        equivalents::instead_of(self, function)
    }

    /// The schema an unqualified name lives in when the dialect has a fixed default.
    pub(crate) fn default_schema(self) -> Option<&'static str> {
        match self {
            Dialect::Postgres | Dialect::Redshift => Some("public"),
            Dialect::Sqlite | Dialect::Duckdb => Some("main"),
            Dialect::Mssql => Some("dbo"),
            Dialect::Snowflake => Some("PUBLIC"),
            _ => None,
        }
    }

    /// The schema of the built-in functions, when a call may name it (`pg_catalog.lower(x)`).
    pub(crate) fn builtin_function_schema(self) -> Option<&'static str> {
        match self {
            Dialect::Postgres => Some("pg_catalog"),
            _ => None,
        }
    }

    /// True for ANSI and generic: they name no engine, so how a server reads an escape is
    /// unknown.
    pub(crate) fn names_no_engine(self) -> bool {
        matches!(self, Dialect::Generic | Dialect::Ansi)
    }

    /// True when every engine of the dialect reads a backslash in a plain quoted string the way
    /// sqlparser's dialect does, whatever the server's settings: never an escape (sqlite, duckdb,
    /// mssql) or always one (snowflake, bigquery, clickhouse, databricks).
    pub(crate) fn plain_backslash_is_settled(self) -> bool {
        matches!(
            self,
            Dialect::Sqlite
                | Dialect::Duckdb
                | Dialect::Mssql
                | Dialect::Snowflake
                | Dialect::Bigquery
                | Dialect::Clickhouse
                | Dialect::Databricks
        )
    }

    /// True when the engine reads a double-quoted name as a string with backslash escapes
    /// (Hive).
    pub(crate) fn escapes_in_quoted_names(self) -> bool {
        self == Dialect::Hive
    }

    /// True when the engine pairs a backslash with the quote after it even in a raw string
    /// (BigQuery).
    pub(crate) fn raw_strings_pair_backslash_quotes(self) -> bool {
        self == Dialect::Bigquery
    }

    /// True when the engine reads `$$...$$` as a string.
    pub(crate) fn reads_dollar_quoted_strings(self) -> bool {
        matches!(
            self,
            Dialect::Postgres | Dialect::Duckdb | Dialect::Snowflake
        )
    }

    /// True when the engine reads `U&"..."` as one identifier (PostgreSQL since 8.4; the SQL
    /// standard), or may (Redshift; refused there too, failing closed). DuckDB reads `U&"x"` as
    /// `U & "x"`, as sqlparser does.
    pub(crate) fn reads_unicode_identifiers(self) -> bool {
        matches!(
            self,
            Dialect::Postgres | Dialect::Redshift | Dialect::Ansi | Dialect::Generic
        )
    }

    /// True when the engine reads a `FOR READ ONLY` locking clause (a no-op), which sqlparser
    /// does not parse.
    pub(crate) fn reads_for_read_only(self) -> bool {
        matches!(self, Dialect::Postgres | Dialect::Generic)
    }

    /// True when the engine reads a window frame offset that starts with a string literal
    /// (`'1 year'::interval PRECEDING`), which sqlparser reads as an INTERVAL.
    pub(crate) fn reads_string_frame_offsets(self) -> bool {
        matches!(
            self,
            Dialect::Postgres | Dialect::Duckdb | Dialect::Generic | Dialect::Ansi
        )
    }

    /// True when the engine's only row limits are `TOP` and `OFFSET ... ROWS FETCH` (T-SQL has
    /// no LIMIT, and its OFFSET needs ROWS).
    pub(crate) fn limits_rows_with_top_or_fetch(self) -> bool {
        self == Dialect::Mssql
    }

    /// True when a (folded) relation name is a system catalog of this dialect's engine.
    pub(crate) fn is_system_catalog(self, name: &[String]) -> bool {
        let lower: Vec<String> = name.iter().map(|p| p.to_lowercase()).collect();
        let last = lower.last().map(String::as_str).unwrap_or("");
        let qualifiers = &lower[..lower.len().saturating_sub(1)];
        let any_qualifier = |names: &[&str]| qualifiers.iter().any(|q| names.contains(&q.as_str()));
        // Every engine that has it: the standard catalog schema.
        if any_qualifier(&["information_schema"]) || last == "information_schema" {
            return true;
        }
        match self {
            Dialect::Postgres | Dialect::Redshift | Dialect::Generic | Dialect::Ansi => {
                any_qualifier(&["pg_catalog", "pg_toast", "pg_internal"])
                    || last.starts_with("pg_")
                    || (self == Dialect::Redshift
                        && (last.starts_with("stl_")
                            || last.starts_with("stv_")
                            || last.starts_with("svcs_")
                            || last.starts_with("stcs_")
                            || last.starts_with("svv_")
                            || last.starts_with("svl_")
                            || last.starts_with("sys_")))
            }
            Dialect::Mysql => any_qualifier(&["mysql", "performance_schema", "sys"]),
            // `dbstat` (page statistics), `bytecode` and `tables_used` (prepared statements) are
            // eponymous virtual tables over the database's internals.
            Dialect::Sqlite => {
                last.starts_with("sqlite_")
                    || last.starts_with("pragma_")
                    || matches!(last, "dbstat" | "bytecode" | "tables_used")
            }
            Dialect::Mssql => {
                any_qualifier(&["sys", "master", "msdb", "model", "tempdb"])
                    || last.starts_with("sys")
                    || last.starts_with("#")
            }
            Dialect::Duckdb => {
                any_qualifier(&["pg_catalog", "system", "temp"])
                    || last.starts_with("duckdb_")
                    || last.starts_with("pragma_")
                    || last.starts_with("pg_")
                    || last.starts_with("sqlite_")
            }
            Dialect::Snowflake => {
                lower.first().map(String::as_str) == Some("snowflake") && lower.len() > 1
                    || any_qualifier(&["account_usage", "organization_usage", "snowflake"])
            }
            Dialect::Bigquery => {
                last.starts_with("information_schema")
                    || last.contains("information_schema.")
                    || last.starts_with("__tables")
            }
            Dialect::Clickhouse => any_qualifier(&["system"]),
            Dialect::Databricks | Dialect::Hive => any_qualifier(&["system", "sys"]),
        }
    }
}

stable_names!(Dialect, "Every dialect, in documentation order.");

impl FromStr for Dialect {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        let alias = match lower.as_str() {
            "postgresql" | "pg" => "postgres",
            "sqlserver" | "tsql" => "mssql",
            "spark" => "databricks",
            other => other,
        };
        Dialect::ALL
            .iter()
            .copied()
            .find(|d| d.as_str() == alias)
            .ok_or_else(|| {
                let names: Vec<&str> = Dialect::ALL.iter().map(|d| d.as_str()).collect();
                format!(
                    "unknown dialect `{s}`; expected one of {}",
                    names.join(", ")
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_sys(parts: &[&str], dialect: Dialect) -> bool {
        let name: Vec<String> = parts.iter().map(|s| s.to_string()).collect();
        dialect.is_system_catalog(&name)
    }

    #[test]
    fn system_catalogs() {
        assert!(is_sys(&["pg_class"], Dialect::Postgres));
        assert!(is_sys(&["pg_catalog", "pg_class"], Dialect::Postgres));
        assert!(is_sys(&["information_schema", "tables"], Dialect::Mysql));
        assert!(is_sys(&["sqlite_master"], Dialect::Sqlite));
        assert!(is_sys(&["mysql", "user"], Dialect::Mysql));
        assert!(!is_sys(&["orders"], Dialect::Postgres));
    }

    #[test]
    fn quoted_identifiers() {
        assert_eq!(
            Dialect::Postgres.quote_identifier("Order \"x\""),
            "\"Order \"\"x\"\"\""
        );
        assert_eq!(Dialect::Sqlite.quote_identifier("a`b"), "\"a`b\"");
        assert_eq!(Dialect::Mysql.quote_identifier("a`b\"c"), "`a``b\"c`");
        assert_eq!(Dialect::Mssql.quote_identifier("a]b[c"), "[a]]b[c]");
    }

    /// Every dialect's tokenizer reads the quoted name back as one identifier, the name itself.
    #[test]
    fn quoted_identifiers_tokenize_back_to_the_name() {
        use sqlparser::tokenizer::{Token, Tokenizer};
        for &dialect in Dialect::ALL {
            for name in [
                "orders",
                "Order Lines",
                "a\"b",
                "a`b",
                "a]b",
                "a[b",
                "select",
            ] {
                let quoted = dialect.quote_identifier(name);
                let parser_dialect = dialect.parser_dialect();
                let tokens = Tokenizer::new(parser_dialect, &quoted)
                    .tokenize()
                    .unwrap_or_default();
                assert!(
                    matches!(tokens.as_slice(), [Token::Word(w)] if w.value == name && w.quote_style.is_some()),
                    "{dialect}: {quoted} -> {tokens:?}"
                );
            }
        }
    }
}
