//! [`classify`]: a statement's class without any policy, by the same parse and fallback as the
//! guard's own.

use crate::class::{class_of_unparsed, statement_class, QueryClass};
use crate::dialect::Dialect;
use crate::parse::{parse_tokens, tokenize};
use crate::precheck::check_nul;

use super::stack_for;

/// The class of `sql` in `dialect`, without applying any policy. Several statements give the most
/// privileged class among them; a statement that does not parse is classed by its leading
/// keywords, and text that does not even tokenize is `unknown`.
pub fn classify(sql: &str, dialect: Dialect) -> QueryClass {
    // No policy applies, so no guard is built (that would compile the function lists).
    if check_nul(sql).is_err() {
        return QueryClass::Unknown;
    }
    let Ok(tokens) = tokenize(sql, dialect) else {
        return QueryClass::Unknown;
    };
    let stack = stack_for(&tokens);
    let max_depth = crate::policy::DEFAULT_MAX_DEPTH;
    stacker::maybe_grow(stack, stack, || {
        match parse_tokens(tokens, dialect, max_depth) {
            Ok(statements) => statements
                .iter()
                .map(statement_class)
                .max()
                .unwrap_or(QueryClass::Unknown),
            // The same fallback as a refused payload's (error path: tokenize again).
            Err(_) => tokenize(sql, dialect)
                .map(|tokens| class_of_unparsed(&tokens, dialect, max_depth))
                .unwrap_or(QueryClass::Unknown),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classify_uses_the_same_fallback_as_the_guard() {
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
