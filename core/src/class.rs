//! Query classes: what kind of statement a payload really is, looking inside nested statements.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::dialect::Dialect;

/// Statement class, in privilege order: `select < session < mutation_create < mutation_delete <
/// ddl < admin < unknown`. A payload's class is the most privileged class among its statements.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum QueryClass {
    /// SELECT, VALUES, TABLE, read-only WITH, EXPLAIN (no ANALYZE) of those.
    Select,
    /// SET, SHOW, USE, transaction control, PREPARE, cursors, LISTEN ...
    Session,
    /// INSERT, UPDATE, MERGE, REPLACE, COPY FROM, LOAD DATA.
    MutationCreate,
    /// DELETE, TRUNCATE, MERGE with a DELETE action.
    MutationDelete,
    /// CREATE, ALTER, DROP, RENAME, COMMENT ON, SELECT INTO, CREATE TABLE AS.
    Ddl,
    /// GRANT, REVOKE, roles, COPY TO / PROGRAM, VACUUM, CALL, DO, EXECUTE, LOCK, PRAGMA, ATTACH ...
    Admin,
    /// Anything not recognised (including text that does not parse).
    Unknown,
}

impl QueryClass {
    /// Every class, in privilege order.
    pub const ALL: &'static [QueryClass] = <QueryClass as strum::VariantArray>::VARIANTS;

    /// The stable snake_case string (the serde name).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl fmt::Display for QueryClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The class of `sql` in `dialect`, without applying any policy. Several statements give the most
/// privileged class among them; a statement that does not parse is classed by its leading
/// keywords ([`class_of_unparsed`]), and text that does not even tokenize is `unknown`.
pub fn classify(sql: &str, dialect: Dialect) -> QueryClass {
    crate::guard::Guard::classify_only(sql, dialect)
}

use std::ops::ControlFlow;

use sqlparser::ast::{
    CopySource, CopyTarget, MergeAction, ObjectType, Select, Statement, Visit, Visitor,
};

/// The class of one statement, looking inside it: a data-modifying CTE, `EXPLAIN ANALYZE DELETE`,
/// `PREPARE p AS DELETE`, `SELECT ... INTO` and `CREATE TABLE AS` all count.
pub fn statement_class(statement: &Statement) -> QueryClass {
    let mut visitor = ClassVisitor {
        class: QueryClass::Select,
    };
    let _ = statement.visit(&mut visitor);
    visitor.class
}

struct ClassVisitor {
    class: QueryClass,
}

impl Visitor for ClassVisitor {
    type Break = ();

    fn pre_visit_statement(&mut self, statement: &Statement) -> ControlFlow<()> {
        self.class = self.class.max(base_class(statement));
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, select: &Select) -> ControlFlow<()> {
        if select.into.is_some() {
            self.class = self.class.max(QueryClass::Ddl);
        }
        ControlFlow::Continue(())
    }
}

/// The class of a statement's own kind, not counting what it contains.
fn base_class(statement: &Statement) -> QueryClass {
    use QueryClass::*;
    use Statement as S;
    match statement {
        S::Query(_) => Select,
        // EXPLAIN has the class of what it explains (visited as a nested statement).
        S::Explain { .. } => Select,

        S::Set(_)
        | S::Reset(_)
        | S::ShowFunctions { .. }
        | S::ShowVariable { .. }
        | S::ShowStatus { .. }
        | S::ShowVariables { .. }
        | S::ShowCreate { .. }
        | S::ShowColumns { .. }
        | S::ShowCatalogs { .. }
        | S::ShowDatabases { .. }
        | S::ShowSchemas { .. }
        | S::ShowCharset(_)
        | S::ShowObjects(_)
        | S::ShowTables { .. }
        | S::ShowViews { .. }
        | S::ShowCollation { .. }
        | S::ExplainTable { .. }
        | S::Use(_)
        | S::StartTransaction { .. }
        | S::Commit { .. }
        | S::Rollback { .. }
        | S::Savepoint { .. }
        | S::ReleaseSavepoint { .. }
        | S::Discard { .. }
        | S::Prepare { .. }
        | S::Deallocate { .. }
        | S::LISTEN { .. }
        | S::UNLISTEN { .. }
        | S::Declare { .. }
        | S::Fetch { .. }
        | S::Open(_)
        | S::Close { .. }
        | S::AlterSession { .. }
        | S::Print(_)
        | S::Assert { .. }
        | S::Return(_)
        | S::Raise(_)
        | S::RaisError { .. }
        | S::Throw(_) => Session,

        S::Insert(_) | S::Update(_) | S::LoadData { .. } => MutationCreate,
        S::Merge(merge) => {
            if merge
                .clauses
                .iter()
                .any(|c| matches!(c.action, MergeAction::Delete { .. }))
            {
                MutationDelete
            } else {
                MutationCreate
            }
        }
        S::Copy {
            to, target, source, ..
        } => {
            let program = matches!(target, CopyTarget::Program { .. });
            if *to || program || matches!(source, CopySource::Query(_)) {
                Admin
            } else {
                MutationCreate
            }
        }
        S::CopyIntoSnowflake { kind, .. } => match kind {
            sqlparser::ast::CopyIntoSnowflakeKind::Table => MutationCreate,
            sqlparser::ast::CopyIntoSnowflakeKind::Location => Admin,
        },

        S::Delete(_) | S::Truncate(_) => MutationDelete,

        S::Drop {
            object_type: ObjectType::Role | ObjectType::User,
            ..
        } => Admin,

        S::CreateView(_)
        | S::CreateTable(_)
        | S::CreateVirtualTable { .. }
        | S::CreateIndex(_)
        | S::CreateForeignTable(_)
        | S::CreatePolicy(_)
        | S::CreateRule(_)
        | S::CreateConnector(_)
        | S::CreateOperator(_)
        | S::CreateOperatorFamily(_)
        | S::CreateOperatorClass(_)
        | S::CreateTextSearch(_)
        | S::CreateAggregate(_)
        | S::CreateCollation(_)
        | S::CreateSchema { .. }
        | S::CreateDatabase { .. }
        | S::CreateFunction(_)
        | S::CreateTrigger(_)
        | S::CreateProcedure { .. }
        | S::CreateMacro { .. }
        | S::CreateStage { .. }
        | S::CreateFileFormat { .. }
        | S::CreateWarehouse(_)
        | S::CreateSequence { .. }
        | S::CreateDomain(_)
        | S::CreateType { .. }
        | S::AlterTable(_)
        | S::AlterSchema(_)
        | S::AlterIndex { .. }
        | S::AlterView(_)
        | S::AlterFunction(_)
        | S::AlterType(_)
        | S::AlterCollation(_)
        | S::AlterOperator(_)
        | S::AlterOperatorFamily(_)
        | S::AlterOperatorClass(_)
        | S::AlterTextSearch(_)
        | S::AlterPolicy(_)
        | S::AlterTrigger(_)
        | S::AlterConnector { .. }
        | S::Drop { .. }
        | S::DropFunction(_)
        | S::DropDomain(_)
        | S::DropProcedure { .. }
        | S::DropPolicy(_)
        | S::DropRule(_)
        | S::DropConnector { .. }
        | S::DropOperator(_)
        | S::DropOperatorFamily(_)
        | S::DropOperatorClass(_)
        | S::DropTrigger(_)
        | S::Comment { .. }
        | S::RenameTable(_)
        | S::Msck(_)
        | S::RefreshMaterializedView(_) => Ddl,

        S::Analyze(_)
        | S::Vacuum(_)
        | S::OptimizeTable { .. }
        | S::Grant(_)
        | S::GrantRole(_)
        | S::Deny(_)
        | S::Revoke(_)
        | S::RevokeRole(_)
        | S::AlterDefaultPrivileges(_)
        | S::CreateRole(_)
        | S::AlterRole { .. }
        | S::CreateUser(_)
        | S::AlterUser(_)
        | S::CreateSecret { .. }
        | S::DropSecret { .. }
        | S::CreateServer(_)
        | S::CreateForeignDataWrapper(_)
        | S::CreateUserMapping(_)
        | S::CreateExtension(_)
        | S::DropExtension(_)
        | S::Call(_)
        | S::Execute { .. }
        | S::Kill { .. }
        | S::Lock(_)
        | S::LockTables { .. }
        | S::UnlockTables
        | S::Pragma { .. }
        | S::AttachDatabase { .. }
        | S::AttachDuckDBDatabase { .. }
        | S::DetachDuckDBDatabase { .. }
        | S::Install { .. }
        | S::Load { .. }
        | S::NOTIFY { .. }
        | S::Directory { .. }
        | S::Unload { .. }
        | S::ExportData(_)
        | S::List(_)
        | S::Put { .. }
        | S::Remove(_)
        | S::ShowProcessList { .. }
        | S::Flush { .. }
        | S::Cache { .. }
        | S::UNCache { .. }
        | S::WaitFor(_)
        | S::Case(_)
        | S::If(_)
        | S::While(_) => Admin,
    }
}

use sqlparser::tokenizer::{Token, TokenWithSpan};

/// The class of a payload that does not parse as a whole, so that `query_class` stays truthful
/// for the audit: the token stream is split at every `;` (as the statement count splits it);
/// each statement that parses alone gets its parsed class, each one that does not gets the class
/// of its leading keywords ([`keyword_class`]). The payload's class is the most privileged one.
pub fn class_of_unparsed(
    tokens: &[TokenWithSpan],
    dialect: Dialect,
    max_depth: usize,
) -> QueryClass {
    let statements: Vec<&[TokenWithSpan]> = tokens
        .split(|t| t.token == Token::SemiColon)
        .filter(|s| {
            s.iter()
                .any(|t| !crate::parse::is_trivia(&t.token) && t.token != Token::EOF)
        })
        .collect();
    let single = statements.len() == 1;
    statements
        .into_iter()
        .map(|statement| {
            // A lone statement is the payload itself, which is known not to parse.
            let parsed = if single {
                None
            } else {
                crate::parse::parse_tokens(statement.to_vec(), dialect, max_depth).ok()
            };
            match parsed {
                Some(parsed) if !parsed.is_empty() => parsed
                    .iter()
                    .map(statement_class)
                    .max()
                    .unwrap_or(QueryClass::Unknown),
                _ => keyword_class(statement),
            }
        })
        .max()
        .unwrap_or(QueryClass::Unknown)
}

/// One unparsed statement's significant tokens (no comments, whitespace or EOF).
struct Words<'a> {
    tokens: Vec<&'a Token>,
}

impl<'a> Words<'a> {
    /// The unquoted word at `i`, upper-cased.
    fn word(&self, i: usize) -> Option<String> {
        match self.tokens.get(i)? {
            Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
            _ => None,
        }
    }

    fn is(&self, i: usize, word: &str) -> bool {
        self.word(i).is_some_and(|w| w == word)
    }

    /// Positions of the words at parenthesis depth 0 from `from` on.
    fn top_level(&self, from: usize) -> impl Iterator<Item = usize> + '_ {
        let mut depth = 0usize;
        (from..self.tokens.len()).filter(move |&i| {
            match self.tokens[i] {
                Token::LParen => depth += 1,
                Token::RParen => depth = depth.saturating_sub(1),
                _ => return depth == 0,
            }
            false
        })
    }

    /// True when the word at `i` starts a data-modifying statement: the keyword followed by
    /// what only that statement has after it (so that `insert(...)` the MySQL function, or a
    /// column named `update`, do not count).
    fn starts_dml(&self, i: usize) -> Option<QueryClass> {
        let next_is_word = matches!(self.tokens.get(i + 1), Some(Token::Word(_)));
        match self.word(i)?.as_str() {
            "DELETE" if next_is_word => Some(QueryClass::MutationDelete),
            "INSERT" | "UPSERT" if self.is(i + 1, "INTO") || self.is(i + 1, "OR") => {
                Some(QueryClass::MutationCreate)
            }
            "UPDATE" if next_is_word => Some(QueryClass::MutationCreate),
            "MERGE" if self.is(i + 1, "INTO") => Some(self.merge_class(i)),
            _ => None,
        }
    }

    /// A MERGE with a DELETE action deletes.
    fn merge_class(&self, i: usize) -> QueryClass {
        if (i..self.tokens.len()).any(|k| self.is(k, "DELETE")) {
            QueryClass::MutationDelete
        } else {
            QueryClass::MutationCreate
        }
    }
}

/// The class of one statement that sqlparser cannot parse, from its leading keywords (after any
/// opening parentheses; for `WITH`, the statement after the CTEs; for EXPLAIN and PREPARE, the
/// statement they carry), raised by any data-modifying statement nested in parentheses (a
/// `WITH d AS (DELETE ...)` CTE, a rule body). Anything not recognised is `unknown`.
pub fn keyword_class(statement: &[TokenWithSpan]) -> QueryClass {
    let words = Words {
        tokens: statement
            .iter()
            .map(|t| &t.token)
            .filter(|t| !crate::parse::is_trivia(t) && **t != Token::EOF)
            .collect(),
    };
    let nested = (1..words.tokens.len())
        .filter(|&i| *words.tokens[i - 1] == Token::LParen)
        .filter_map(|i| words.starts_dml(i))
        .max()
        .unwrap_or(QueryClass::Select);
    let start = words
        .tokens
        .iter()
        .position(|t| **t != Token::LParen)
        .unwrap_or(0);
    leading_class(&words, start).max(nested)
}

/// The class named by the keywords at `i`.
fn leading_class(words: &Words<'_>, i: usize) -> QueryClass {
    use QueryClass::*;
    let Some(first) = words.word(i) else {
        return Unknown;
    };
    // The object-type word of CREATE / ALTER / DROP, after modifiers.
    let object = || {
        (i + 1..words.tokens.len())
            .filter_map(|k| words.word(k))
            .find(|w| {
                !matches!(
                    w.as_str(),
                    "OR" | "REPLACE"
                        | "TEMP"
                        | "TEMPORARY"
                        | "UNLOGGED"
                        | "GLOBAL"
                        | "LOCAL"
                        | "PERSISTENT"
                        | "IF"
                        | "NOT"
                        | "EXISTS"
                )
            })
            .unwrap_or_default()
    };
    match first.as_str() {
        "SELECT" => {
            if words.top_level(i + 1).any(|k| words.is(k, "INTO")) {
                Ddl
            } else {
                Select
            }
        }
        "VALUES" | "TABLE" | "FROM" | "PIVOT" | "UNPIVOT" => Select,
        "WITH" => {
            let main = words.top_level(i + 1).find(|&k| {
                matches!(
                    words.word(k).as_deref(),
                    Some("SELECT" | "VALUES" | "TABLE" | "INSERT" | "UPDATE" | "DELETE" | "MERGE")
                )
            });
            main.map_or(Unknown, |k| leading_class(words, k))
        }
        "EXPLAIN" => {
            let inner = words.top_level(i + 1).find(|&k| {
                matches!(
                    words.word(k).as_deref(),
                    Some(
                        "SELECT"
                            | "VALUES"
                            | "TABLE"
                            | "WITH"
                            | "INSERT"
                            | "UPDATE"
                            | "DELETE"
                            | "MERGE"
                            | "EXECUTE"
                            | "DECLARE"
                            | "CREATE"
                    )
                )
            });
            inner.map_or(Select, |k| leading_class(words, k))
        }
        "PREPARE" => {
            // PostgreSQL `PREPARE p [(types)] AS statement`; MySQL's `PREPARE s FROM '...'`
            // carries a string.
            let inner = words
                .top_level(i + 1)
                .find(|&k| words.is(k, "AS"))
                .map_or(Select, |k| leading_class(words, k + 1));
            Session.max(inner)
        }
        "INSERT" | "UPDATE" | "REPLACE" | "UPSERT" => MutationCreate,
        "MERGE" => words.merge_class(i),
        "DELETE" | "TRUNCATE" => MutationDelete,
        "COPY" => {
            let into_location = words.top_level(i + 1).any(|k| {
                words.is(k, "INTO")
                    && !matches!(words.tokens.get(k + 1), Some(Token::Word(w)) if !w.value.starts_with('@'))
            });
            if words.tokens.get(i + 1) == Some(&&Token::LParen)
                || into_location
                || words
                    .top_level(i + 1)
                    .any(|k| words.is(k, "TO") || words.is(k, "PROGRAM"))
            {
                Admin
            } else {
                MutationCreate
            }
        }
        "LOAD" => {
            if words.is(i + 1, "DATA") {
                MutationCreate
            } else {
                Admin
            }
        }
        "CREATE" => match object().as_str() {
            "ROLE" | "USER" | "GROUP" | "LOGIN" | "EXTENSION" | "SERVER" | "SECRET" => Admin,
            "FOREIGN" if (i + 1..words.tokens.len()).any(|k| words.is(k, "WRAPPER")) => Admin,
            _ => Ddl,
        },
        "ALTER" => match object().as_str() {
            "SYSTEM" | "ROLE" | "USER" | "GROUP" | "LOGIN" | "DEFAULT" | "SERVER" => Admin,
            "SESSION" => Session,
            _ => Ddl,
        },
        "DROP" => match object().as_str() {
            "ROLE" | "USER" | "GROUP" | "LOGIN" | "OWNED" | "EXTENSION" | "SERVER" | "SECRET" => {
                Admin
            }
            _ => Ddl,
        },
        "IMPORT" => {
            if words.is(i + 1, "FOREIGN") {
                Ddl
            } else {
                Admin
            }
        }
        // MySQL `RENAME USER`; `RENAME TABLE` is DDL.
        "RENAME" if words.is(i + 1, "USER") => Admin,
        "RENAME" | "COMMENT" | "REFRESH" | "MSCK" | "SECURITY" | "UNDROP" => Ddl,
        // SQL Server `BULK INSERT t FROM 'file'`.
        "BULK" => MutationCreate,
        "GRANT" | "REVOKE" | "DENY" | "VACUUM" | "ANALYZE" | "ANALYSE" | "REINDEX" | "CLUSTER"
        | "CHECKPOINT" | "FORCE" | "CALL" | "DO" | "EXEC" | "EXECUTE" | "LOCK" | "UNLOCK"
        | "KILL" | "ATTACH" | "DETACH" | "PRAGMA" | "INSTALL" | "NOTIFY" | "UNLOAD" | "EXPORT"
        | "PUT" | "GET" | "LIST" | "LS" | "REMOVE" | "RM" | "FLUSH" | "SHUTDOWN" | "OPTIMIZE"
        | "REASSIGN" | "BACKUP" | "RESTORE" | "DBCC" | "RECONFIGURE" | "WAITFOR" | "HANDLER"
        | "PURGE" | "CACHE" | "UNCACHE" | "SYSTEM" | "REPAIR" | "CHECK" | "CHECKSUM" | "BINLOG"
        | "UNINSTALL" | "SIGNAL" | "RESIGNAL" => Admin,
        "SET" | "RESET" | "SHOW" | "BEGIN" | "START" | "COMMIT" | "END" | "ROLLBACK" | "ABORT"
        | "SAVEPOINT" | "RELEASE" | "DISCARD" | "DEALLOCATE" | "LISTEN" | "UNLISTEN"
        | "DECLARE" | "FETCH" | "MOVE" | "CLOSE" | "OPEN" | "USE" | "DESCRIBE" | "DESC"
        | "SUMMARIZE" | "PRINT" | "RAISERROR" | "THROW" | "HELP" => Session,
        _ => Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class_of(sql: &str, dialect: Dialect) -> QueryClass {
        let tokens = crate::parse::tokenize(sql, dialect).expect("test SQL tokenizes");
        class_of_unparsed(&tokens, dialect, 64)
    }

    #[test]
    fn unparseable_statements_take_the_class_of_their_leading_keywords() {
        use Dialect::*;
        use QueryClass::*;
        let cases: &[(&str, Dialect, QueryClass)] = &[
            ("DELETE TOP (10) FROM t", Postgres, MutationDelete),
            ("SELECT * FROM ROWS FROM (pg_sleep(1))", Postgres, Select),
            ("DO $$ BEGIN DELETE FROM t; END $$", Postgres, Admin),
            ("PRAGMA table_info(customer)", Postgres, Admin),
            ("  /* c */ -- x\n ( ( DELETE TOP (1) FROM t ) )", Postgres, MutationDelete),
            ("WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM ROWS FROM (f())", Postgres, MutationDelete),
            ("WITH RECURSIVE x AS (SELECT 1) INSERT INTO t SELECT * FROM ROWS FROM (f())", Postgres, MutationCreate),
            ("WITH x AS (SELECT 1) SELECT * FROM ROWS FROM (f())", Postgres, Select),
            ("EXPLAIN (ANALYZE, BUFFERS) DELETE TOP (1) FROM t", Postgres, MutationDelete),
            ("EXPLAIN SELECT * FROM ROWS FROM (f())", Postgres, Select),
            ("PREPARE p (int) AS UPDATE t SET a = 1 WHERE CURRENT OF c", Postgres, MutationCreate),
            ("SELECT * INTO x FROM ROWS FROM (f())", Postgres, Ddl),
            ("SELECT (SELECT 1 INTO y) FROM ROWS FROM (f())", Postgres, Select),
            ("ALTER SYSTEM SET log_statement = 'none'", Postgres, Admin),
            ("ALTER TABLE t ALTER COLUMN a SET STATISTICS 100", Postgres, Ddl),
            ("DROP OWNED BY alice CASCADE", Postgres, Admin),
            ("CREATE PUBLICATION p FOR ALL TABLES", Postgres, Ddl),
            ("CREATE OR REPLACE PERSISTENT SECRET s (TYPE s3)", Postgres, Admin),
            ("CREATE FOREIGN DATA WRAPPER w HANDLER h", Postgres, Admin),
            ("COPY (SELECT 1) TO PROGRAM 'x' WITH (FORMAT csv, x)", Postgres, Admin),
            ("COPY t FROM STDIN WITH (FORMAT csv, x)", Postgres, MutationCreate),
            ("MERGE INTO t USING s ON 1 WHEN MATCHED THEN DELETE WHEN NOT MATCHED BY SOURCE THEN DELETE", Postgres, MutationDelete),
            ("SET LOCAL x TO DEFAULT, y", Postgres, Session),
            ("RENAME USER a TO b", Mysql, Admin),
            ("HANDLER t OPEN", Mysql, Admin),
            ("LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE t", Mysql, MutationCreate),
            ("BULK INSERT t FROM 'c:\\x.csv'", Mssql, MutationCreate),
            ("DBCC CHECKDB", Mssql, Admin),
            ("FORCE CHECKPOINT", Duckdb, Admin),
            ("PUT file:///etc/passwd @~/stage", Snowflake, Admin),
            ("SYSTEM SHUTDOWN", Clickhouse, Admin),
            // Nested data-modifying statements raise the class; look-alikes do not.
            ("CREATE RULE r AS ON INSERT TO t DO INSTEAD (DELETE FROM u; NOTIFY x)", Postgres, Admin),
            ("SELECT (insert('abc', 1, 1, 'x')) FROM ROWS FROM (f())", Postgres, Select),
            ("SELECT (update) FROM ROWS FROM (f())", Postgres, Select),
            // Several statements: the most privileged class; those that parse keep theirs.
            ("SELECT 1; DELETE TOP (10) FROM t", Postgres, MutationDelete),
            ("SELECT * FROM ROWS FROM (f()); GRANT ALL ON t TO PUBLIC", Postgres, Admin),
            ("SELEC 1", Postgres, Unknown),
            ("\"DELETE\" FROM t", Postgres, Unknown),
        ];
        for (sql, dialect, want) in cases {
            assert_eq!(class_of(sql, *dialect), *want, "[{dialect}] {sql}");
        }
    }

    #[test]
    fn classify_uses_the_same_fallback() {
        assert_eq!(
            classify("DELETE TOP (10) FROM t", Dialect::Postgres),
            QueryClass::MutationDelete
        );
        assert_eq!(
            classify("SELECT 'unterminated", Dialect::Postgres),
            QueryClass::Unknown
        );
    }
}
