//! `sqlgate-mcp check` and `sqlgate-mcp schema`: the core guard from a shell.

use std::collections::HashMap;
use std::io::{BufRead, Read, Write};

use serde_json::Value;
use sqlgate::{
    Dialect, ErrorCode, Guard, GuardError, MutationVerdict, Policy, QueryClass, Rejection, Stage,
    Verdict,
};

use crate::app::cli::{CheckArgs, SchemaKind};
use crate::app::exit;
use crate::config::{self, ConfigError};

/// A refused verdict for a malformed request (code `bad_request`, stage `precheck`).
pub fn bad_request(message: impl Into<String>) -> Verdict {
    Verdict::from(Err(Rejection {
        query_class: QueryClass::Unknown,
        statement_count: 0,
        error: GuardError::new(ErrorCode::BadRequest, Stage::Precheck, message),
    }))
}

/// Runs `check`; returns the exit code.
pub fn run_check(args: &CheckArgs) -> i32 {
    match try_check(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("sqlgate-mcp: {e}");
            exit::USAGE
        }
    }
}

fn try_check(args: &CheckArgs) -> Result<i32, ConfigError> {
    let policy = config::policy_for_check(&args.policy)?;
    let guard = Guard::new(policy.clone()).map_err(|e| match &args.policy.policy {
        Some(path) => ConfigError(format!("{}: {e}", path.display())),
        None => ConfigError(e.to_string()),
    })?;
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    if args.jsonl {
        let mut out = stdout.lock();
        return run_jsonl(&policy, guard, stdin.lock(), &mut out)
            .map_err(|e| ConfigError(format!("I/O error: {e}")));
    }
    let sql = match &args.sql {
        Some(s) => s.clone(),
        None => {
            let mut buf = Vec::new();
            stdin
                .lock()
                .read_to_end(&mut buf)
                .map_err(|e| ConfigError(format!("cannot read stdin: {e}")))?;
            // Invalid UTF-8 is not SQL: report it as a refused verdict rather than a crash.
            match String::from_utf8(buf) {
                Ok(s) => s,
                Err(_) => {
                    let v = bad_request("input is not valid UTF-8");
                    println!("{}", v.to_json());
                    return Ok(exit::REFUSED);
                }
            }
        }
    };
    let (json, allowed) = if args.mutation {
        let v = guard.mutation_verdict(&sql);
        (v.to_json(), v.allowed)
    } else {
        let v = guard.verdict(&sql);
        (v.to_json(), v.allowed)
    };
    let mut out = stdout.lock();
    writeln!(out, "{json}").map_err(|e| ConfigError(format!("I/O error: {e}")))?;
    Ok(if allowed {
        exit::SUCCESS
    } else {
        exit::REFUSED
    })
}

/// One `--jsonl` request line.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonlRequest {
    sql: String,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    dialect: Option<String>,
}

/// Checks one JSON request per input line, writing one verdict per line with the input's line
/// number (`line`, from 1) and `id` echoed. Returns [`exit::SUCCESS`] when every line was allowed,
/// [`exit::REFUSED`] otherwise. Blank lines get no verdict; stderr names them.
pub fn run_jsonl<R: BufRead, W: Write>(
    base: &Policy,
    guard: Guard,
    input: R,
    out: &mut W,
) -> std::io::Result<i32> {
    let mut guards: HashMap<Dialect, Guard> = HashMap::new();
    guards.insert(base.dialect, guard);
    let mut all_allowed = true;
    let mut blank: Vec<usize> = Vec::new();
    let mut lines = input.split(b'\n').enumerate().peekable();
    while let Some((index, line)) = lines.next() {
        let line = line?;
        let number = index + 1;
        let text = String::from_utf8_lossy(&line);
        if text.trim().is_empty() {
            // The empty piece after the input's final newline is not a line.
            if lines.peek().is_some() || !line.is_empty() {
                blank.push(number);
            }
            continue;
        }
        let (verdict, id) = match serde_json::from_str::<Value>(&text) {
            Err(e) => (bad_request(format!("line {number} is not JSON: {e}")), None),
            Ok(value) => {
                let id = value.get("id").cloned();
                match serde_json::from_value::<JsonlRequest>(value) {
                    Err(e) => (bad_request(format!("line {number}: bad request: {e}")), id),
                    Ok(req) => (check_one(base, &mut guards, &req), req.id),
                }
            }
        };
        all_allowed &= verdict.allowed;
        let json = verdict.to_json();
        let rest = json.strip_prefix('{').unwrap_or(&json);
        match id {
            Some(id) => writeln!(out, "{{\"id\":{id},\"line\":{number},{rest}")?,
            None => writeln!(out, "{{\"line\":{number},{rest}")?,
        }
    }
    out.flush()?;
    if !blank.is_empty() {
        let numbers: Vec<String> = blank.iter().map(usize::to_string).collect();
        eprintln!(
            "sqlgate-mcp check: {} blank line(s) skipped (line {})",
            blank.len(),
            numbers.join(", ")
        );
    }
    Ok(if all_allowed {
        exit::SUCCESS
    } else {
        exit::REFUSED
    })
}

fn check_one(base: &Policy, guards: &mut HashMap<Dialect, Guard>, req: &JsonlRequest) -> Verdict {
    let dialect = match &req.dialect {
        None => base.dialect,
        Some(d) => match d.parse::<Dialect>() {
            Ok(d) => d,
            Err(e) => return bad_request(e),
        },
    };
    if let std::collections::hash_map::Entry::Vacant(slot) = guards.entry(dialect) {
        let policy = Policy {
            dialect,
            ..base.clone()
        };
        match Guard::new(policy) {
            Ok(g) => {
                slot.insert(g);
            }
            Err(e) => return bad_request(e.to_string()),
        }
    }
    match guards.get(&dialect) {
        Some(g) => g.verdict(&req.sql),
        None => bad_request("no guard for dialect"),
    }
}

/// Runs `schema`; returns the exit code.
pub fn run_schema(which: SchemaKind) -> i32 {
    let schema = match which {
        SchemaKind::Policy => Policy::json_schema(),
        SchemaKind::Verdict => Verdict::json_schema(),
        SchemaKind::MutationVerdict => MutationVerdict::json_schema(),
    };
    match serde_json::to_string_pretty(&schema) {
        Ok(s) => {
            println!("{s}");
            exit::SUCCESS
        }
        Err(e) => {
            eprintln!("sqlgate-mcp: {e}");
            exit::USAGE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonl_echoes_ids_and_continues_after_bad_lines() {
        let policy = Policy::default();
        let guard = Guard::new(policy.clone()).ok();
        let Some(guard) = guard else {
            panic!("default policy")
        };
        let input = b"{\"sql\":\"SELECT 1\",\"id\":7}\nnot json\n\n{\"sql\":\"DELETE FROM t\",\"id\":\"x\",\"dialect\":\"mysql\"}\n";
        let mut out = Vec::new();
        let code = run_jsonl(&policy, guard, &input[..], &mut out).ok();
        assert_eq!(code, Some(exit::REFUSED));
        let text = String::from_utf8_lossy(&out);
        let lines: Vec<Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0]["id"], 7);
        assert_eq!(lines[0]["allowed"], true);
        assert_eq!(lines[1]["error"]["code"], "bad_request");
        assert_eq!(lines[1]["error"]["stage"], "precheck");
        assert_eq!(lines[2]["id"], "x");
        assert_eq!(lines[2]["query_class"], "mutation_delete");
    }
}
