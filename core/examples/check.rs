//! Prints the verdict for each argument: `cargo run -p sqlgate --example check -- [--dialect D] SQL...`

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]
use sqlgate::{Dialect, Guard, Policy};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut dialect = Dialect::Postgres;
    if args.first().map(String::as_str) == Some("--dialect") && args.len() > 1 {
        dialect = args[1].parse().unwrap_or_else(|e: String| {
            eprintln!("{e}");
            std::process::exit(2)
        });
        args.drain(..2);
    }
    let guard = match Guard::new(Policy::for_dialect(dialect)) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2)
        }
    };
    for sql in args {
        println!("{}", guard.verdict(&sql).to_json());
    }
}
