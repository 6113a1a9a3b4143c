//! The class of text that does not parse: each statement that parses alone keeps its class, the
//! others are classed by their leading keywords.

use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::statement::statement_class;
use super::QueryClass;
use crate::dialect::Dialect;

/// The class of a payload that does not parse as a whole, so that `query_class` stays truthful
/// for the audit: the token stream is split at every `;` (as the statement count splits it);
/// each statement that parses alone gets its parsed class, each one that does not gets the class
/// of its leading keywords ([`keyword_class`]). The payload's class is the most privileged one.
pub(crate) fn class_of_unparsed(
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

    /// The object-type word of CREATE / ALTER / DROP at `i`, after modifiers (`OR REPLACE`,
    /// `TEMP`, `IF NOT EXISTS`, ...); empty when there is none.
    fn object_word(&self, i: usize) -> String {
        (i + 1..self.tokens.len())
            .filter_map(|k| self.word(k))
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
fn keyword_class(statement: &[TokenWithSpan]) -> QueryClass {
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
    match first.as_str() {
        "SELECT" => {
            if words.top_level(i + 1).any(|k| words.is(k, "INTO")) {
                Ddl
            } else {
                Select
            }
        }
        "VALUES" | "TABLE" | "FROM" | "PIVOT" | "UNPIVOT" => Select,
        "WITH" => with_class(words, i),
        "EXPLAIN" => explain_class(words, i),
        "PREPARE" => prepare_class(words, i),
        "INSERT" | "UPDATE" | "REPLACE" | "UPSERT" => MutationCreate,
        "MERGE" => words.merge_class(i),
        "DELETE" | "TRUNCATE" => MutationDelete,
        "COPY" => copy_class(words, i),
        "LOAD" => {
            if words.is(i + 1, "DATA") {
                MutationCreate
            } else {
                Admin
            }
        }
        "CREATE" | "ALTER" | "DROP" => object_class(words, i, &first),
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

/// `WITH ...`: the class of the statement after the CTEs.
fn with_class(words: &Words<'_>, i: usize) -> QueryClass {
    let main = words.top_level(i + 1).find(|&k| {
        matches!(
            words.word(k).as_deref(),
            Some("SELECT" | "VALUES" | "TABLE" | "INSERT" | "UPDATE" | "DELETE" | "MERGE")
        )
    });
    main.map_or(QueryClass::Unknown, |k| leading_class(words, k))
}

/// `EXPLAIN ...`: the class of the statement it carries (a bare EXPLAIN reads).
fn explain_class(words: &Words<'_>, i: usize) -> QueryClass {
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
    inner.map_or(QueryClass::Select, |k| leading_class(words, k))
}

/// `PREPARE ...`: session, or the class of the statement it prepares if that is higher.
fn prepare_class(words: &Words<'_>, i: usize) -> QueryClass {
    // PostgreSQL `PREPARE p [(types)] AS statement`; MySQL's `PREPARE s FROM '...'` carries a
    // string.
    let inner = words
        .top_level(i + 1)
        .find(|&k| words.is(k, "AS"))
        .map_or(QueryClass::Select, |k| leading_class(words, k + 1));
    QueryClass::Session.max(inner)
}

/// `COPY ...`: reading a file or stdin into a table creates rows; copying out (to a file, a
/// program or a stage) is admin.
fn copy_class(words: &Words<'_>, i: usize) -> QueryClass {
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
        QueryClass::Admin
    } else {
        QueryClass::MutationCreate
    }
}

/// `CREATE` / `ALTER` / `DROP` (`verb`): DDL, unless the object is a role, a server, an
/// extension, ... (admin) or, for ALTER, the session.
fn object_class(words: &Words<'_>, i: usize, verb: &str) -> QueryClass {
    use QueryClass::*;
    let object = words.object_word(i);
    match (verb, object.as_str()) {
        ("CREATE", "ROLE" | "USER" | "GROUP" | "LOGIN" | "EXTENSION" | "SERVER" | "SECRET") => {
            Admin
        }
        ("CREATE", "FOREIGN") if (i + 1..words.tokens.len()).any(|k| words.is(k, "WRAPPER")) => {
            Admin
        }
        ("ALTER", "SYSTEM" | "ROLE" | "USER" | "GROUP" | "LOGIN" | "DEFAULT" | "SERVER") => Admin,
        ("ALTER", "SESSION") => Session,
        (
            "DROP",
            "ROLE" | "USER" | "GROUP" | "LOGIN" | "OWNED" | "EXTENSION" | "SERVER" | "SECRET",
        ) => Admin,
        _ => Ddl,
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
}
