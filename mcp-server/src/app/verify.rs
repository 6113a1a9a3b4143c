//! `sqlgate-mcp audit verify`: the chain check of [`crate::audit::verify`] as a command, with its
//! exit code.

use std::path::PathBuf;

use crate::app::exit;
use crate::audit::verify::{describe, verify_files};

/// Runs `audit verify`: prints the summary JSON (exit 0) or the break (exit 1); 2 when a file
/// cannot be read.
pub fn run_verify(files: &[PathBuf]) -> i32 {
    match verify_files(files) {
        Err(e) => {
            eprintln!("sqlgate-mcp: {e}");
            exit::USAGE
        }
        Ok(Ok(sum)) => {
            println!("{}", serde_json::to_string_pretty(&sum).unwrap_or_default());
            exit::SUCCESS
        }
        Ok(Err(b)) => {
            eprintln!("{}", describe(&b));
            println!("{}", serde_json::to_string_pretty(&b).unwrap_or_default());
            exit::FAILURE
        }
    }
}
