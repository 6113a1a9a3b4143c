//! Check SQL against the name-resolution guard and the resolver: `try_sql <dialect> <catalog 0|1> <sql>...`

// A fuzz oracle panics on purpose: the panic is the finding.
#![allow(clippy::unwrap_used, clippy::expect_used)]
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dialect: sqlgate::Dialect = args[1].parse().unwrap();
    let catalog = args[2] == "1";
    for sql in &args[3..] {
        let v = sqlgate_fuzz::oracles::names_guard(dialect, catalog).check(sql);
        let oracle = v
            .as_ref()
            .ok()
            .map(|a| sqlgate_fuzz::oracles::protected_reads(dialect, &a.sql));
        println!(
            "{sql}\n  -> {:?}\n  oracle: {oracle:?}",
            v.map(|a| a.sql)
                .map_err(|r| (r.error.code, r.error.message))
        );
    }
}
