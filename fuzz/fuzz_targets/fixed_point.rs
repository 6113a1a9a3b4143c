//! Allowed payloads re-check as allowed with identical SQL, class and limit; the verdict's
//! `statement_count` agrees with a plain split of sqlparser's token stream.
#![no_main]
// A fuzz oracle panics on purpose: the panic is the finding.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = sqlgate_fuzz::oracles::fixed_point(data);
});
