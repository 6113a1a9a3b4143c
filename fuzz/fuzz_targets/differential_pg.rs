//! Every payload the postgres guard allows must be, for PostgreSQL's own parser (libpg_query),
//! exactly one SelectStmt with no locking clause, no INTO, no data-modifying statement anywhere,
//! no system catalog (the fuzzed policies do not allow them) and only functions that are on the
//! postgres allowlist or that sqlgate itself reported. And it must read the same on a server
//! with `standard_conforming_strings = off` (a backslash escapes the next character inside
//! `'...'`): same number of statements, same tree, same string values.
#![no_main]
// A fuzz oracle panics on purpose: the panic is the finding.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use libfuzzer_sys::fuzz_target;
use sqlgate::Dialect;
use sqlgate_fuzz::oracles;

fuzz_target!(|data: &[u8]| {
    let Some((_, which, sql)) = oracles::split_input(data) else {
        return;
    };
    // Policies 0 and 1 (default, no row cap): neither allows catalogs or extra functions.
    let guard = oracles::guard(Dialect::Postgres, which % 2);
    let Some(approved) = oracles::fixed_point_with(guard, Dialect::Postgres, &sql) else {
        return;
    };
    // While a finding is open, `SQLGATE_FUZZ_IGNORE=<substring>` skips approved SQL containing it.
    if let Ok(known) = std::env::var("SQLGATE_FUZZ_IGNORE") {
        if !known.is_empty() && approved.sql.contains(&known) {
            return;
        }
    }
    if let Err(problem) = sqlgate_fuzz::pg::check_approved(&approved) {
        panic!(
            "DIFFERENTIAL: {problem}\n  input:    {sql:?}\n  approved: {:?}",
            approved.sql
        );
    }
    if let Err(problem) = sqlgate_fuzz::pg::check_standard_strings_off(&approved.sql) {
        panic!(
            "DIFFERENTIAL (standard_conforming_strings = off): {problem}\n  input:    {sql:?}\n  approved: {:?}",
            approved.sql
        );
    }
});
