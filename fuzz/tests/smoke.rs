//! Quick checks of the fuzz crate's own helpers (run with `cargo test` in fuzz/).

use arbitrary::{Arbitrary, Unstructured};
use sqlgate::{Dialect, Guard, Policy};
use sqlgate_fuzz::{grammar::Query, oracles, pg};

#[test]
fn pg_view_of_a_plain_select() {
    let g = Guard::new(Policy::for_dialect(Dialect::Postgres)).unwrap();
    let a = g
        .check("SELECT lower(name) FROM artist WHERE a IN (SELECT a FROM t)")
        .unwrap();
    pg::check_approved(&a).unwrap();
}

#[test]
fn plain_statement_count() {
    assert_eq!(
        oracles::plain_statement_count("SELECT 1; -- x\n;", Dialect::Postgres),
        Some(1)
    );
    assert_eq!(
        oracles::plain_statement_count("SELECT 1;COMMIT", Dialect::Postgres),
        Some(2)
    );
}

#[test]
fn grammar_renders_and_oracle_holds_for_pseudo_random_inputs() {
    let mut seed: u64 = 0x9e3779b97f4a7c15;
    let mut dangerous = 0;
    for _ in 0..3000 {
        let bytes: Vec<u8> = (0..512)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed >> 24) as u8
            })
            .collect();
        let Ok(q) = Query::arbitrary_take_rest(Unstructured::new(&bytes)) else {
            continue;
        };
        let (sql, d) = q.render();
        dangerous += usize::from(d);
        let expect = if d {
            oracles::Expect::Dangerous
        } else {
            oracles::Expect::Benign
        };
        oracles::grammar_oracle(&sql, expect);
    }
    assert!(dangerous > 0);
}
