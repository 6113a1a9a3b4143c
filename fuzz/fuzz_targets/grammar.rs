//! Structure-aware SQL from a small grammar (postgres, default policy): dangerous ⇒ refused,
//! benign ⇒ allowed. The text cases in fuzz/seeds/grammar (`-- expect: ...` then SQL) are replayed
//! by core/tests/fuzz_regressions.rs, not here: a mutated text case would no longer match its
//! expectation, so such inputs are skipped.
#![no_main]

use libfuzzer_sys::arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use sqlgate_fuzz::grammar::Query;
use sqlgate_fuzz::oracles::{grammar_oracle, Expect, GRAMMAR_HEADER};

fuzz_target!(|data: &[u8]| {
    if data.starts_with(GRAMMAR_HEADER.as_bytes()) {
        return;
    }
    let Ok(query) = Query::arbitrary_take_rest(Unstructured::new(data)) else {
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
