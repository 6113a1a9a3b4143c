//! The demo: the policy of the embedded sample database (the database itself is
//! `backend::sqlite::sample`), and `sqlgate-mcp demo`: what an agent would send, and what sqlgate
//! did with it.

use std::io::IsTerminal;

use sqlgate::{ColumnRules, Dialect, Policy, QueryClass, WriteRules};

use crate::app::exit;
use crate::backend::sqlite::SqliteBackend;
use crate::backend::Backend;
use crate::gate::approval::{ApprovalAnswer, ApprovalRequest};
use crate::gate::{Engine, EngineConfig, RunQueryOutput};

/// The demo policy: SQLite, 100 rows, `customers.email` and `customers.phone` protected.
pub fn demo_policy() -> Policy {
    Policy {
        max_rows: Some(100),
        columns: ColumnRules {
            deny: vec!["customers.email".into(), "customers.phone".into()],
        },
        // Used only in a write mode (`serve --demo --mode safe`); reads are the same without it.
        writes: Some(WriteRules::new(
            &["orders", "order_lines"],
            &[QueryClass::MutationCreate, QueryClass::MutationDelete],
        )),
        ..Policy::for_dialect(Dialect::Sqlite)
    }
}

/// Creates the sample database in a temporary directory and opens it, read-only unless `writes`
/// (a write mode changes only this temporary copy, whose path goes to stderr).
pub fn demo_backend(writes: bool) -> Result<Backend, String> {
    SqliteBackend::sample(writes)
        .map(Backend::Sqlite)
        .map_err(|e| e.to_string())
}

/// The Claude Desktop configuration that serves the demo with the binary at `command`: an
/// absolute path, since Claude Desktop does not read the shell's PATH.
pub fn claude_desktop_demo_config(command: &str) -> String {
    // The path as a JSON string (quotes and backslashes escaped), in a layout a person reads.
    let command = serde_json::Value::from(command).to_string();
    format!(
        "{{\n  \"mcpServers\": {{\n    \"sqlgate-demo\": {{\n      \"command\": {command},\n      \"args\": [\"serve\", \"--demo\"]\n    }}\n  }}\n}}"
    )
}

/// This binary's absolute path (what `cargo run` built, or the installed one), or its bare name
/// when the system cannot say.
fn this_binary() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.to_str().map(str::to_string))
        .unwrap_or_else(|| String::from("sqlgate-mcp"))
}

struct Style {
    color: bool,
}

impl Style {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    fn head(&self, s: &str) -> String {
        self.paint("1;36", s)
    }
    fn ok(&self, s: &str) -> String {
        self.paint("1;32", s)
    }
    fn bad(&self, s: &str) -> String {
        self.paint("1;31", s)
    }
    fn dim(&self, s: &str) -> String {
        self.paint("2", s)
    }
}

/// The scenarios the demo plays: (what the agent wants, the SQL it sends).
pub const SCENARIOS: [(&str, &str); 7] = [
    (
        "A plain question: who ordered the most?",
        "SELECT c.name, c.city, count(o.id) AS orders FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.id, c.name, c.city ORDER BY orders DESC, c.name",
    ),
    ("A stacked statement smuggling a DROP", "SELECT 1; DROP TABLE orders"),
    (
        "A data-modifying CTE",
        "WITH gone AS (DELETE FROM orders RETURNING id) SELECT count(*) FROM gone",
    ),
    ("A file-reading function (PostgreSQL style)", "SELECT pg_read_file('/etc/passwd')"),
    ("Loading a native extension", "SELECT load_extension('/tmp/evil.so')"),
    ("A protected column", "SELECT name, email FROM customers"),
    ("A misspelt table", "SELECT name FROM custmers"),
];

/// Runs the demo; returns the exit code.
pub fn run_demo() -> i32 {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("sqlgate-mcp: cannot start the runtime: {e}");
            return exit::USAGE;
        }
    };
    match rt.block_on(demo()) {
        Ok(()) => exit::SUCCESS,
        Err(e) => {
            eprintln!("sqlgate-mcp: {e}");
            exit::FAILURE
        }
    }
}

/// Plays the read scenes, then the write scenes, then shows how to serve the demo.
async fn demo() -> Result<(), String> {
    let st = Style {
        color: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    let engine = read_only_engine().await?;
    println!(
        "{}",
        st.head("sqlgate demo: what an agent sends, and what sqlgate does with it")
    );
    print_sample_summary(&st, &engine).await?;
    for (i, (what, sql)) in SCENARIOS.iter().enumerate() {
        println!();
        println!("{}", st.head(&format!("{}. {what}", i + 1)));
        println!("   agent sends: {sql}");
        let (outcome, _) = engine.run_query(sql).await;
        match outcome {
            Ok(out) => print_allowed(&st, &out),
            Err(e) => print_refusal(&st, &e),
        }
    }
    write_scenes(&st, SCENARIOS.len() + 1).await?;
    print_client_setup(&st);
    Ok(())
}

/// The read-only engine of the read scenes, over the sample database with the demo policy.
async fn read_only_engine() -> Result<Engine, String> {
    let backend = demo_backend(false)?;
    Engine::new(
        backend,
        EngineConfig {
            policy: demo_policy(),
            max_result_bytes: crate::gate::DEFAULT_MAX_RESULT_BYTES,
            statement_timeout: crate::gate::DEFAULT_STATEMENT_TIMEOUT,
            mode: crate::gate::mode::Mode::ReadOnly,
            approval_timeout: crate::gate::DEFAULT_APPROVAL_TIMEOUT,
        },
    )
    .await
}

/// One line naming the sample's tables (with their estimated rows) and the policy.
async fn print_sample_summary(st: &Style, engine: &Engine) -> Result<(), String> {
    let tables = engine.list_tables().await.map_err(|e| e.message)?;
    let names: Vec<String> = tables
        .tables
        .iter()
        .map(|t| format!("{} (~{} rows)", t.name, t.estimated_rows.unwrap_or(0)))
        .collect();
    println!(
        "{}",
        st.dim(&format!(
            "Embedded SQLite sample database: {}. Policy: row cap 100; customers.email and customers.phone are protected.",
            names.join(", ")
        ))
    );
    Ok(())
}

/// An allowed query: the SQL executed, the injected row cap, and its first five rows.
fn print_allowed(st: &Style, out: &RunQueryOutput) {
    println!("   {} executed: {}", st.ok("ALLOWED"), out.executed_sql);
    println!(
        "   {}",
        st.dim(
            "the row cap was injected as LIMIT 101: sqlgate fetches one row more than the cap of 100 to know whether the result was cut"
        )
    );
    let cols: Vec<&str> = out.columns.iter().map(|c| c.name.as_str()).collect();
    println!("   {}", cols.join(" | "));
    for row in out.rows.iter().take(5) {
        let cells: Vec<String> = cols
            .iter()
            .map(|c| match row.get(*c) {
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
                None => String::new(),
            })
            .collect();
        println!("   {}", cells.join(" | "));
    }
    println!(
        "   {}",
        st.dim(&format!(
            "({} rows, truncated: {}; first 5 shown)",
            out.row_count, out.truncated
        ))
    );
}

/// How to serve the demo from Claude Desktop and Claude Code.
fn print_client_setup(st: &Style) {
    println!();
    println!(
        "{}",
        st.head("Use it from Claude Desktop: add this to claude_desktop_config.json")
    );
    let command = this_binary();
    println!("{}", claude_desktop_demo_config(&command));
    println!(
        "{}",
        st.dim(&format!(
            "(Claude Code: claude mcp add sqlgate-demo -- {command} serve --demo)"
        ))
    );
    println!(
        "{}",
        st.dim(
            "(that path is this binary's; to keep one that outlives a build folder: cargo install --locked --path mcp-server --profile dist, then name ~/.cargo/bin/sqlgate-mcp)"
        )
    );
}

/// The mutations the demo plays in `safe` mode: (what the agent wants, the SQL it sends).
pub const WRITE_SCENARIOS: [(&str, &str); 2] = [
    (
        "An UPDATE without WHERE (every order at once)",
        "UPDATE orders SET status = 'cancelled'",
    ),
    (
        "Cancel one order: previewed, approved by the user, committed",
        "UPDATE orders SET status = 'cancelled' WHERE id = 7",
    ),
];

/// The write scenes: a `safe`-mode engine on a fresh temporary copy; the user's approval is
/// played (accepted) and its message shown.
async fn write_scenes(st: &Style, first: usize) -> Result<(), String> {
    let mut config = EngineConfig::read_only(demo_policy(), crate::gate::DEFAULT_STATEMENT_TIMEOUT);
    config.mode = crate::gate::mode::Mode::Safe;
    let engine = Engine::new(demo_backend(true)?, config).await?;
    println!();
    println!(
        "{}",
        st.dim("Now in --mode safe: run_mutation may modify orders and order_lines; every mutation is previewed (run, counted, rolled back) and needs the user's approval.")
    );
    for (i, (what, sql)) in WRITE_SCENARIOS.iter().enumerate() {
        println!();
        println!("{}", st.head(&format!("{}. {what}", first + i)));
        println!("   agent sends to run_mutation: {sql}");
        let approve = |r: ApprovalRequest| {
            println!("   {} {}", st.ok("PREVIEW"), preview_line(r.preview_rows));
            println!("   {}", st.dim("the user is asked (MCP elicitation):"));
            for line in r.message().lines() {
                println!("   {}", st.dim(&format!("| {line}")));
            }
            println!("   {} (played by the demo)", st.ok("the user APPROVES"));
            std::future::ready(ApprovalAnswer::Accepted)
        };
        match engine
            .run_mutation(sql, approve)
            .await
            .0
            .map(|o| o.committed())
        {
            Ok(Some(out)) => println!(
                "   {} {} changed; executed: {}",
                st.ok("COMMITTED"),
                preview_line(out.affected_rows).replace(" would change", ""),
                out.executed_sql
            ),
            // The demo's approver answers at once: it never defers.
            Ok(None) => {}
            Err(e) => print_refusal(st, &e),
        }
    }
    let (check, _) = engine
        .run_query("SELECT id, status FROM orders WHERE id = 7")
        .await;
    if let Ok(out) = check {
        let status = out.rows.first().and_then(|r| r.get("status"));
        let status = status.and_then(|v| v.as_str()).unwrap_or_default();
        println!(
            "   {}",
            st.dim(&format!("order 7 now reads: status = {status}"))
        );
    }
    Ok(())
}

fn preview_line(rows: u64) -> String {
    if rows == 1 {
        "1 row would change".to_string()
    } else {
        format!("{rows} rows would change")
    }
}

fn print_refusal(st: &Style, e: &crate::tools::error::ToolError) {
    let class = e.query_class.unwrap_or(QueryClass::Unknown).as_str();
    println!(
        "   {} {} (query_class: {class}, stage: {})",
        st.bad("REFUSED"),
        e.code,
        e.stage
    );
    println!("   {}", e.message);
    if let Some(h) = &e.hint {
        println!("   hint: {h}");
    }
    // What the server would log for the operator, shown here in its scene rather than on
    // stderr among the scenes.
    if let Some(note) = crate::tools::hints::operator_note(e.code, &e.message) {
        println!("   {}", st.dim(&format!("(the server's log: {note})")));
    }
}
