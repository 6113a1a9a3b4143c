//! The embedded sample database (customers, products, orders, order_lines; deterministic) with
//! its policy, and `sqlgate-mcp demo`: what an agent would send, and what sqlgate did with it.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Arc;

use rusqlite::{params, Connection};
use sqlgate::{ColumnRules, Dialect, Policy, QueryClass, WriteRules};

use crate::app::exit;
use crate::backend::sqlite::SqliteBackend;
use crate::backend::Backend;
use crate::gate::{Engine, EngineConfig};
use crate::tools::approval::{ApprovalAnswer, ApprovalRequest};

const FIRST: [&str; 20] = [
    "Ada", "Ben", "Chloe", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kavya",
    "Liam", "Mei", "Nora", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq",
];
const LAST: [&str; 15] = [
    "Lovelace",
    "Okafor",
    "Martin",
    "Ivanov",
    "Rossi",
    "Haddad",
    "Hopper",
    "Tanaka",
    "Silva",
    "Berg",
    "Nair",
    "Walsh",
    "Chen",
    "Lindqvist",
    "Diallo",
];
const CITIES: [&str; 8] = [
    "Lisbon", "Oslo", "Nairobi", "Osaka", "Toronto", "Lyon", "Pune", "Denver",
];
const PRODUCTS: [(&str, &str, i64); 24] = [
    ("Espresso beans 1kg", "coffee", 2490),
    ("Filter coffee 500g", "coffee", 1190),
    ("Decaf beans 1kg", "coffee", 2290),
    ("Green tea 100g", "tea", 890),
    ("Earl grey 100g", "tea", 790),
    ("Chai blend 200g", "tea", 1090),
    ("Pour-over kettle", "equipment", 5900),
    ("Burr grinder", "equipment", 12900),
    ("French press", "equipment", 3490),
    ("Moka pot", "equipment", 2990),
    ("Milk frother", "equipment", 4490),
    ("Paper filters x100", "supplies", 490),
    ("Descaler", "supplies", 990),
    ("Cleaning tablets", "supplies", 1290),
    ("Ceramic mug", "tableware", 1490),
    ("Glass cup set", "tableware", 2490),
    ("Travel tumbler", "tableware", 2190),
    ("Dark chocolate", "snacks", 390),
    ("Almond biscotti", "snacks", 590),
    ("Oat cookies", "snacks", 490),
    ("Cold brew kit", "equipment", 3990),
    ("Matcha 30g", "tea", 1890),
    ("Syrup vanilla", "supplies", 690),
    ("Gift card", "gift", 2500),
];
const STATUSES: [&str; 4] = ["delivered", "delivered", "shipped", "cancelled"];

/// Number of customers in the sample database.
pub const CUSTOMERS: i64 = 60;
/// Number of orders in the sample database.
pub const ORDERS: i64 = 200;

/// A small deterministic generator (xorshift), so every build of the demo has the same rows.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Writes the sample database into `path` (which must not exist or be empty).
pub fn create_sample_db(path: &Path) -> rusqlite::Result<()> {
    let mut conn = Connection::open(path)?;
    conn.execute_batch(
        "CREATE TABLE customers (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            email TEXT NOT NULL UNIQUE,
            phone TEXT,
            city TEXT NOT NULL,
            created_at TEXT NOT NULL
         );
         CREATE TABLE products (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            category TEXT NOT NULL,
            price_cents INTEGER NOT NULL
         );
         CREATE TABLE orders (
            id INTEGER PRIMARY KEY,
            customer_id INTEGER NOT NULL REFERENCES customers(id),
            ordered_at TEXT NOT NULL,
            status TEXT NOT NULL
         );
         CREATE TABLE order_lines (
            order_id INTEGER NOT NULL REFERENCES orders(id),
            line_no INTEGER NOT NULL,
            product_id INTEGER NOT NULL REFERENCES products(id),
            quantity INTEGER NOT NULL,
            unit_price_cents INTEGER NOT NULL,
            PRIMARY KEY (order_id, line_no)
         );",
    )?;
    let tx = conn.transaction()?;
    let mut rng = Rng(0x5eed_5a1e_d00d_f00d);
    for id in 1..=CUSTOMERS {
        let first = FIRST[rng.below(FIRST.len() as u64) as usize];
        let last = LAST[rng.below(LAST.len() as u64) as usize];
        let city = CITIES[rng.below(CITIES.len() as u64) as usize];
        let email = format!(
            "{}.{}{}@example.com",
            first.to_lowercase(),
            last.to_lowercase(),
            id
        );
        let phone = format!("+1-555-{:04}", rng.below(10_000));
        let created = format!("2024-{:02}-{:02}", 1 + rng.below(12), 1 + rng.below(28));
        tx.execute(
            "INSERT INTO customers VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![id, format!("{first} {last}"), email, phone, city, created],
        )?;
    }
    for (i, (name, category, price)) in PRODUCTS.iter().enumerate() {
        tx.execute(
            "INSERT INTO products VALUES (?1, ?2, ?3, ?4)",
            params![i as i64 + 1, name, category, price],
        )?;
    }
    for id in 1..=ORDERS {
        let customer = 1 + rng.below(CUSTOMERS as u64) as i64;
        let date = format!("2025-{:02}-{:02}", 1 + rng.below(12), 1 + rng.below(28));
        let status = STATUSES[rng.below(STATUSES.len() as u64) as usize];
        tx.execute(
            "INSERT INTO orders VALUES (?1, ?2, ?3, ?4)",
            params![id, customer, date, status],
        )?;
        let lines = 1 + rng.below(4) as i64;
        for line in 1..=lines {
            let p = rng.below(PRODUCTS.len() as u64) as usize;
            let qty = 1 + rng.below(3) as i64;
            tx.execute(
                "INSERT INTO order_lines VALUES (?1, ?2, ?3, ?4, ?5)",
                params![id, line, p as i64 + 1, qty, PRODUCTS[p].2],
            )?;
        }
    }
    tx.commit()?;
    Ok(())
}

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
    let dir = tempfile::Builder::new()
        .prefix("sqlgate-demo-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let path = dir.path().join("shop.db");
    create_sample_db(&path).map_err(|e| format!("cannot create the sample database: {e}"))?;
    let mut backend = SqliteBackend::open_owned(&path, Arc::new(dir)).map_err(|e| e.to_string())?;
    if writes {
        eprintln!(
            "sqlgate-mcp: the demo's mutations change a temporary copy: {}",
            path.display()
        );
        backend = backend.allow_writes();
    }
    Ok(Backend::Sqlite(backend))
}

/// The Claude Desktop configuration that serves the demo.
pub fn claude_desktop_demo_config() -> String {
    r#"{
  "mcpServers": {
    "sqlgate-demo": {
      "command": "sqlgate-mcp",
      "args": ["serve", "--demo"]
    }
  }
}"#
    .to_string()
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

#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit came in; to be split (issue 26)"
)]
async fn demo() -> Result<(), String> {
    let st = Style {
        color: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    let backend = demo_backend(false)?;
    let engine = Engine::new(
        backend,
        EngineConfig {
            policy: demo_policy(),
            max_result_bytes: crate::gate::DEFAULT_MAX_RESULT_BYTES,
            statement_timeout: crate::gate::DEFAULT_STATEMENT_TIMEOUT,
            mode: crate::gate::mode::Mode::ReadOnly,
            approval_timeout: crate::gate::DEFAULT_APPROVAL_TIMEOUT,
        },
    )
    .await?;
    println!(
        "{}",
        st.head("sqlgate demo: what an agent sends, and what sqlgate does with it")
    );
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
    for (i, (what, sql)) in SCENARIOS.iter().enumerate() {
        println!();
        println!("{}", st.head(&format!("{}. {what}", i + 1)));
        println!("   agent sends: {sql}");
        let (outcome, _) = engine.run_query(sql).await;
        match outcome {
            Ok(out) => {
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
            Err(e) => print_refusal(&st, &e),
        }
    }
    write_scenes(&st, SCENARIOS.len() + 1).await?;
    println!();
    println!(
        "{}",
        st.head("Use it from Claude Desktop: add this to claude_desktop_config.json")
    );
    println!("{}", claude_desktop_demo_config());
    println!(
        "{}",
        st.dim("(Claude Code: claude mcp add sqlgate-demo -- sqlgate-mcp serve --demo)")
    );
    Ok(())
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
        match engine.run_mutation(sql, approve).await.0 {
            Ok(out) => println!(
                "   {} {} changed; executed: {}",
                st.ok("COMMITTED"),
                preview_line(out.affected_rows).replace(" would change", ""),
                out.executed_sql
            ),
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

fn print_refusal(st: &Style, e: &crate::gate::error::ToolError) {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_database_is_deterministic() {
        let dir = tempfile::tempdir().ok();
        let Some(dir) = dir else { return };
        let a = dir.path().join("a.db");
        let b = dir.path().join("b.db");
        assert!(create_sample_db(&a).is_ok());
        assert!(create_sample_db(&b).is_ok());
        let dump = |p: &Path| -> Vec<String> {
            let Ok(c) = Connection::open(p) else {
                return vec![];
            };
            let Ok(mut s) = c.prepare(
                "SELECT customer_id || ':' || ordered_at || ':' || status FROM orders ORDER BY id",
            ) else {
                return vec![];
            };
            s.query_map([], |r| r.get::<_, String>(0))
                .map(|rows| rows.filter_map(Result::ok).collect())
                .unwrap_or_default()
        };
        let da = dump(&a);
        assert_eq!(da.len(), ORDERS as usize);
        assert_eq!(da, dump(&b));
    }
}
