//! Whether a text is a table's name and nothing else, read by the dialect's own tokenizer: what a
//! front end checks before it puts a caller's table name into SQL.

use sqlparser::tokenizer::Token;

use super::tokenize;
use crate::dialect::Dialect;

/// Longer than any name an engine stores (PostgreSQL's schema.table is at most 127 bytes).
const MAX_TABLE_PATH_BYTES: usize = 512;

/// True when `text` (trimmed) is a dotted path of identifiers as `dialect` tokenizes them: bare or
/// quoted the dialect's way (`orders`, `public."Order Lines"`, `` `a`.`b` `` in MySQL), with
/// nothing between the parts (no whitespace, comment, operator or literal), no empty quoted part
/// and no control character. Syntax only: whether the table exists and may be read is
/// [`crate::Guard::read_access`]'s to say.
pub fn is_table_path(text: &str, dialect: Dialect) -> bool {
    let text = text.trim();
    if text.is_empty() || text.len() > MAX_TABLE_PATH_BYTES {
        return false;
    }
    let Ok(tokens) = tokenize(text, dialect) else {
        return false;
    };
    let mut tokens = tokens
        .iter()
        .map(|t| &t.token)
        .filter(|t| **t != Token::EOF);
    loop {
        match tokens.next() {
            Some(Token::Word(w))
                if !w.value.is_empty() && !w.value.chars().any(char::is_control) => {}
            _ => return false,
        }
        match tokens.next() {
            None => return true,
            Some(Token::Period) => {}
            Some(_) => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cases the MCP server's own lexer accepted and refused.
    #[test]
    fn paths_and_non_paths() {
        for dialect in [Dialect::Postgres, Dialect::Sqlite, Dialect::Duckdb] {
            let path = |text| is_table_path(text, dialect);
            assert!(path("orders"), "{dialect}");
            assert!(path("public.orders"), "{dialect}");
            assert!(path(" public.orders "), "{dialect}");
            assert!(path("\"Order Lines\""), "{dialect}");
            assert!(path("\"a\"\"b\".c"), "{dialect}");
            assert!(!path("orders; drop table x"), "{dialect}");
            assert!(!path("a..b"), "{dialect}");
            assert!(!path(""), "{dialect}");
            assert!(!path("   "), "{dialect}");
            assert!(!path("1abc"), "{dialect}");
            assert!(!path("\"\""), "{dialect}");
            assert!(!path("a.\"\""), "{dialect}");
            assert!(!path("a. b"), "{dialect}");
            assert!(!path("a.b."), "{dialect}");
            assert!(!path(".a"), "{dialect}");
            assert!(!path("orders -- x"), "{dialect}");
            assert!(!path("orders/**/"), "{dialect}");
            assert!(!path("orders o"), "{dialect}");
            assert!(!path("'orders'"), "{dialect}");
            assert!(!path("\"unterminated"), "{dialect}");
            assert!(!path("\"a\u{7}b\""), "{dialect}");
            assert!(!path("(SELECT 1)"), "{dialect}");
            assert!(!path("generate_series(1, 3)"), "{dialect}");
        }
        assert!(!is_table_path(&"a".repeat(513), Dialect::Postgres));
    }

    #[test]
    fn each_dialect_quotes_its_own_way() {
        assert!(is_table_path("`Order Lines`.`x`", Dialect::Mysql));
        assert!(is_table_path("[Order Lines].dbo", Dialect::Mssql));
        assert!(!is_table_path("`a`", Dialect::Postgres));
    }

    #[test]
    fn a_quoted_identifier_is_a_path_in_its_dialect() {
        for &dialect in Dialect::ALL {
            let quoted = dialect.quote_identifier("Order \"Lines\" `x` [y]");
            assert!(is_table_path(&quoted, dialect), "{dialect}: {quoted}");
        }
    }
}
