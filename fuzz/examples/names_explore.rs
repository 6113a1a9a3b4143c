//! Explore the name-resolution grammar without libFuzzer: renders N pseudo-random cases, runs the
//! guard and the resolver oracle, prints counts and the first findings.

// A fuzz oracle panics on purpose: the panic is the finding.
#![allow(clippy::unwrap_used, clippy::expect_used)]
use arbitrary::{Arbitrary, Unstructured};
use sqlgate_fuzz::{names::NameQuery, oracles};

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--replay") {
        replay();
        return;
    }
    if let Some(dir) = std::env::args()
        .nth(1)
        .filter(|a| a.starts_with("--seeds="))
    {
        seeds(&dir);
        return;
    }
    explore();
}

/// `--replay FILE...`: grammar-target artifacts, the SQL and what the oracle says.
fn replay() {
    for path in std::env::args().skip(2) {
        let data = std::fs::read(&path).unwrap();
        let Some((&sel, rest)) = data.split_first() else {
            continue;
        };
        if sel % 2 == 1 {
            let Ok(q) = NameQuery::arbitrary_take_rest(Unstructured::new(rest)) else {
                continue;
            };
            let sql = q.render();
            let verdict = oracles::names_guard(q.dialect(), q.catalog()).check(&sql);
            let finding = verdict
                .as_ref()
                .ok()
                .map(|a| oracles::protected_reads(q.dialect(), &a.sql));
            println!(
                "== {path}\n[{} catalog={}] {sql}\n  -> {:?}\n  oracle: {finding:?}",
                q.dialect(),
                q.catalog(),
                verdict.map(|a| a.sql).map_err(|r| r.error.code)
            );
        } else {
            let Ok(q) = sqlgate_fuzz::grammar::Query::arbitrary_take_rest(Unstructured::new(rest))
            else {
                continue;
            };
            let (sql, dangerous) = q.render();
            let verdict = oracles::guard(sqlgate::Dialect::Postgres, 0).check(&sql);
            println!(
                "== {path}\n[grammar dangerous={dangerous}] {sql}\n  -> {:?}",
                verdict.map(|a| a.sql).map_err(|r| r.error.code)
            );
        }
    }
}

/// `--seeds=DIR`: every text-form grammar case of DIR through its oracle.
fn seeds(dir: &str) {
    let dir = dir.trim_start_matches("--seeds=");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for p in paths {
        let data = std::fs::read(&p).unwrap();
        let Some((expect, sql)) = oracles::parse_grammar_case(&data) else {
            continue;
        };
        let r = std::panic::catch_unwind(|| oracles::grammar_oracle(&sql, expect));
        println!(
            "{} {}",
            if r.is_ok() { "ok  " } else { "FAIL" },
            p.display()
        );
    }
}

/// `[N [SHOW]]`: N pseudo-random cases; counts, and the first SHOW leaks.
fn explore() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5000);
    let show: usize = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let mut seed: u64 = 0x9e3779b97f4a7c15;
    let (mut approved, mut refused, mut leaks) = (0, 0, 0);
    let mut codes = std::collections::BTreeMap::new();
    let mut shown = 0;
    for _ in 0..n {
        let bytes: Vec<u8> = (0..400)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed >> 24) as u8
            })
            .collect();
        let Ok(q) = NameQuery::arbitrary_take_rest(Unstructured::new(&bytes)) else {
            continue;
        };
        let sql = q.render();
        let g = oracles::names_guard(q.dialect(), q.catalog());
        match g.check(&sql) {
            Err(r) => {
                refused += 1;
                *codes.entry(r.error.code.to_string()).or_insert(0) += 1;
            }
            Ok(a) => {
                approved += 1;
                if let Err(p) = oracles::protected_reads(q.dialect(), &a.sql) {
                    leaks += 1;
                    if shown < show {
                        shown += 1;
                        println!(
                            "LEAK [{} catalog={}] {p}\n   {}\n",
                            q.dialect(),
                            q.catalog(),
                            a.sql
                        );
                    }
                }
            }
        }
    }
    println!("approved {approved} refused {refused} leaks {leaks}\n{codes:?}");
}
