//! Random compositions of SQLite's size functions (`src/sizes/`): whatever the guard approves is
//! run on SQLite in process, and no part of it may build more than `max_generated_bytes`.
#![no_main]
// A fuzz oracle panics on purpose: the panic is the finding.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::cell::RefCell;

use libfuzzer_sys::arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use sqlgate_fuzz::sizes::{connection, run, SizeQuery};

thread_local! {
    static CONN: RefCell<rusqlite::Connection> = RefCell::new(connection());
}

fuzz_target!(|data: &[u8]| {
    let Ok(case) = SizeQuery::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    if let Some(finding) = CONN.with(|c| run(&c.borrow(), &case).finding) {
        panic!("SIZE: {finding}");
    }
});
