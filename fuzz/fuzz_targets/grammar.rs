//! Structure-aware SQL from two small grammars. The first byte picks one:
//! - even: `src/grammar/` (postgres, default policy): dangerous ⇒ refused, benign ⇒ allowed;
//! - odd: `src/names/` (postgres, mysql, sqlite, duckdb; the "PII" policy with and without a
//!   catalog): name-resolution shapes; whatever is approved must pass the conservative resolver
//!   `oracles::protected_reads` and be a fixed point.
//!
//! The text cases in fuzz/seeds/grammar (`-- expect: ...` then SQL) are replayed by
//! core/tests/fuzz_regressions.rs, not here: a mutated text case would no longer match its
//! expectation, so such inputs are skipped.
#![no_main]
// A fuzz oracle panics on purpose: the panic is the finding.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use libfuzzer_sys::arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use sqlgate_fuzz::grammar::Query;
use sqlgate_fuzz::names::NameQuery;
use sqlgate_fuzz::oracles::{grammar_oracle, names_oracle, Expect, GRAMMAR_HEADER};

fuzz_target!(|data: &[u8]| {
    if data.starts_with(GRAMMAR_HEADER.as_bytes()) {
        return;
    }
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    if selector % 2 == 1 {
        let Ok(case) = NameQuery::arbitrary_take_rest(Unstructured::new(rest)) else {
            return;
        };
        names_oracle(case.dialect(), case.catalog(), &case.render());
        return;
    }
    let Ok(query) = Query::arbitrary_take_rest(Unstructured::new(rest)) else {
        return;
    };
    let (sql, dangerous) = query.render();
    let expect = if dangerous {
        Expect::Dangerous
    } else {
        Expect::Benign
    };
    grammar_oracle(&sql, expect);
});
