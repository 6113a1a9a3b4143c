//! Name resolution: the `grammar` target's names oracle and the independent, deliberately simple
//! and conservative resolver (not core's) it holds approved SQL to, over the fixture and policy of
//! [`fixture`].

mod collect;
mod fixture;
mod from;
mod query;
mod refs;
mod scope;

pub use fixture::{
    fixture_catalog, names_guard, names_policy, DENIED_TABLE, FIXTURE, NAME_DIALECTS,
    PROTECTED_COLUMNS, PROTECTED_TABLE,
};

use sqlgate::{Approved, Dialect};
use sqlparser::tokenizer::{Token, Tokenizer};

use super::statements::parser_dialect;
use super::verdicts::fixed_point_with;
use scope::Resolver;

/// The `grammar` target's name-resolution oracle: whatever the guard approves is a fixed point and
/// passes [`protected_reads`]; a failure panics with the SQL.
pub fn names_oracle(dialect: Dialect, catalog: bool, sql: &str) -> Option<Approved> {
    let g = names_guard(dialect, catalog);
    let approved = fixed_point_with(g, dialect, sql)?;
    if let Err(problem) = protected_reads(dialect, &approved.sql) {
        panic!(
            "LEAK: approved SQL can read a protected column or table under some engine's name resolution\n  \
             {problem}\n  dialect: {dialect}, catalog: {catalog}\n  input:    {sql:?}\n  approved: {:?}",
            approved.sql
        );
    }
    Some(approved)
}

/// The conservative resolver. `Err` names the first way `sql` could read `customer.email` /
/// `customer.phone` (or the denied table) under PostgreSQL, MySQL, SQLite or DuckDB rules:
///
/// - a protected column name, bare, in a scope where `customer` is a FROM item at that level or an
///   enclosing one, unless a nearer level has a FROM item that certainly has a column of that name
///   (a derived table or CTE whose output, or whose alias column list, names it; a fixture table
///   that has it): the innermost FROM item that owns a name wins in every engine, and a level with
///   both is ambiguous. Select-list aliases never stop the search (which clause sees them differs
///   per engine), except an ORDER BY item that is exactly an output name (every engine sorts by
///   the output column then);
/// - a protected column qualified with a name that, at the nearest level naming it, is `customer`
///   or its alias (also `customer.email` when the table has another alias);
/// - `*` over a FROM level holding customer (unless it excludes both protected columns),
///   `c.*`, a whole-row reference `c`, DuckDB `COLUMNS(...)`;
/// - `USING (email)` or `NATURAL JOIN` in a FROM level holding customer (the merged column is
///   customer's);
/// - a column alias list on customer that reaches the protected columns (renames them);
/// - the denied table anywhere.
///
/// Derived tables see every FROM item to their left (DuckDB resolves them laterally without the
/// keyword). Names compare as the dialect folds them (PostgreSQL: quoted exact, unquoted lower
/// case; the others: case-insensitive).
pub fn protected_reads(dialect: Dialect, sql: &str) -> Result<(), String> {
    use sqlparser::parser::Parser;
    let pd = parser_dialect(dialect);
    let statements = match Parser::parse_sql(pd.as_ref(), sql) {
        Ok(s) => s,
        Err(_) => return token_fallback(dialect, sql),
    };
    let mut r = Resolver {
        dialect,
        ctes: Vec::new(),
        problems: Vec::new(),
    };
    for s in &statements {
        match s {
            sqlparser::ast::Statement::Query(q) => {
                let mut env = Vec::new();
                r.query(q, &mut env);
            }
            other => r.problems.push(format!("not a query: {other}")),
        }
    }
    match r.problems.into_iter().next() {
        Some(p) => Err(p),
        None => Ok(()),
    }
}

/// When the stock sqlparser dialect cannot parse the approved text (core may parse with its own
/// dialect hooks): refuse if a protected column name and the protected table both appear.
fn token_fallback(dialect: Dialect, sql: &str) -> Result<(), String> {
    let d = parser_dialect(dialect);
    let tokens = Tokenizer::new(d.as_ref(), sql)
        .tokenize()
        .map_err(|e| format!("the oracle cannot tokenize it: {e}"))?;
    let words: Vec<String> = tokens
        .iter()
        .filter_map(|t| match t {
            Token::Word(w) => Some(w.value.to_ascii_lowercase()),
            _ => None,
        })
        .collect();
    let has = |n: &str| words.iter().any(|w| w == n);
    if has(PROTECTED_TABLE) && PROTECTED_COLUMNS.iter().any(|c| has(c)) || has(DENIED_TABLE) {
        return Err("the oracle's parser cannot parse it and it names customer and a protected column (or the denied table)".into());
    }
    Ok(())
}
