//! Random compositions of SQLite's size functions (`printf` widths, `zeroblob`, `hex`, `quote`,
//! `||`, `replace`, `json_array`, CASE, nested queries and a CTE), checked by the guard and, when
//! it approves, run on SQLite in process: no part of an approved expression may build more than
//! `max_generated_bytes` (issue 41). SQLite's own length limit is set to 64 MiB, above the bound,
//! so that a part over the bound is measured rather than stopped, and a part that hits it is a
//! finding too.

use std::cell::Cell;
use std::time::{Duration, Instant};

use arbitrary::Arbitrary;
use rusqlite::limits::Limit;
use rusqlite::Connection;
use sqlgate::{Dialect, Guard, Policy};

/// SQLite's length limit in the oracle's connection (above the policy's 1 MiB bound).
const SQLITE_MAX_LENGTH: i32 = 64 << 20;
/// The time one case's measures may take together. The oracle is about bytes: a part that
/// builds more than the bound does so in microseconds. Nested compositions can make SQLite
/// recompute a data-sized value exponentially often (`CASE WHEN length(x) > 3 THEN x ...`
/// nested ten deep over 800 KB: 4 s), which is CPU the server's statement timeout bounds, not
/// the size model; past this budget SQLite is interrupted and the measure is dropped, so that
/// libFuzzer's per-input timeout (2 s in CI) reports only a hang of the guard.
const MEASURE_BUDGET: Duration = Duration::from_millis(500);

thread_local! {
    /// When the measures of the case being run on this thread must stop (SQLite calls its
    /// progress handler on the thread that runs the statement).
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// SQLite's progress handler: interrupt past this thread's deadline.
fn past_deadline() -> bool {
    DEADLINE.with(|d| d.get().is_some_and(|at| Instant::now() > at))
}

/// A literal size: small, medium or large (up to 4 000 000, past the bound).
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Width {
    /// 0 to 255.
    Small(u8),
    /// 0 to 65 535.
    Medium(u16),
    /// 0 to 3 999 999.
    Large(u32),
}

impl Width {
    fn value(self) -> u32 {
        match self {
            Width::Small(n) => u32::from(n),
            Width::Medium(n) => u32::from(n),
            Width::Large(n) => n % 4_000_000,
        }
    }
}

/// A text expression.
#[derive(Arbitrary, Debug, Clone)]
pub enum Text {
    /// `'xxx'` (0 to 7 characters).
    Literal(u8),
    /// The column `s` (data: up to 64 characters in the oracle's table).
    Column,
    /// `printf('%<w>d', 1)`.
    PrintfWidth(Width),
    /// `printf('%.<w>c', 'x')`: the character repeated.
    PrintfChar(Width),
    /// `zeroblob(w)`.
    Zeroblob(Width),
    /// `hex(t)`.
    Hex(Box<Text>),
    /// `quote(t)`.
    Quote(Box<Text>),
    /// `upper(t)`.
    Upper(Box<Text>),
    /// `json_quote(t)`.
    JsonQuote(Box<Text>),
    /// `json_array(a, b)`.
    JsonArray(Box<Text>, Box<Text>),
    /// `a || b`.
    Concat(Box<Text>, Box<Text>),
    /// `concat(a, b)`.
    ConcatCall(Box<Text>, Box<Text>),
    /// `replace(a, 'x', b)`.
    Replace(Box<Text>, Box<Text>),
    /// `substr(t, 1, w)`.
    Substr(Box<Text>, Width),
    /// `CASE WHEN length(a) > 3 THEN a ELSE b END`.
    Case(Box<Text>, Box<Text>),
    /// `coalesce(a, b)`.
    Coalesce(Box<Text>, Box<Text>),
    /// `(SELECT t)`.
    Subquery(Box<Text>),
}

/// One case: an expression over a table, or over a CTE that builds a value first.
#[derive(Arbitrary, Debug, Clone)]
pub enum SizeQuery {
    /// `SELECT <text> FROM t`.
    Plain(Text),
    /// `WITH c AS (SELECT <inner> AS s FROM t) SELECT <outer> FROM c`.
    Cte(Text, Text),
}

/// Deeper parts are written as the column: the guard's stack, not the fuzzer's, is not the point.
const MAX_DEPTH: usize = 8;

impl Text {
    /// The SQL, and every part of it (itself included), innermost first.
    fn render(&self, depth: usize, parts: &mut Vec<String>) -> String {
        let sql = if depth >= MAX_DEPTH {
            "s".to_string()
        } else {
            self.render_node(depth + 1, parts)
        };
        parts.push(sql.clone());
        sql
    }

    fn render_node(&self, depth: usize, parts: &mut Vec<String>) -> String {
        let mut sub = |t: &Text| t.render(depth, parts);
        match self {
            Text::Literal(n) => format!("'{}'", "x".repeat(usize::from(n % 8))),
            Text::Column => "s".to_string(),
            Text::PrintfWidth(w) => format!("printf('%{}d', 1)", w.value()),
            Text::PrintfChar(w) => format!("printf('%.{}c', 'x')", w.value()),
            Text::Zeroblob(w) => format!("zeroblob({})", w.value()),
            Text::Hex(t) => format!("hex({})", sub(t)),
            Text::Quote(t) => format!("quote({})", sub(t)),
            Text::Upper(t) => format!("upper({})", sub(t)),
            Text::JsonQuote(t) => format!("json_quote({})", sub(t)),
            Text::JsonArray(a, b) => format!("json_array({}, {})", sub(a), sub(b)),
            Text::Concat(a, b) => format!("({} || {})", sub(a), sub(b)),
            Text::ConcatCall(a, b) => format!("concat({}, {})", sub(a), sub(b)),
            Text::Replace(a, b) => format!("replace({}, 'x', {})", sub(a), sub(b)),
            Text::Substr(t, w) => format!("substr({}, 1, {})", sub(t), w.value()),
            Text::Case(a, b) => {
                let (a, b) = (sub(a), sub(b));
                format!("CASE WHEN length({a}) > 3 THEN {a} ELSE {b} END")
            }
            Text::Coalesce(a, b) => format!("coalesce({}, {})", sub(a), sub(b)),
            Text::Subquery(t) => format!("(SELECT {})", sub(t)),
        }
    }
}

impl SizeQuery {
    /// The query, and a query measuring each part of its final expression (the largest value
    /// that part takes over the rows, in bytes).
    pub fn render(&self) -> (String, Vec<String>) {
        let (mut parts, mut inner_parts) = (Vec::new(), Vec::new());
        let (prefix, from, text) = match self {
            SizeQuery::Plain(t) => (String::new(), "t", t.render(0, &mut parts)),
            SizeQuery::Cte(inner, outer) => {
                inner_parts = Vec::new();
                let inner = inner.render(0, &mut inner_parts);
                let with = format!("WITH c AS (SELECT {inner} AS s FROM t) ");
                (with, "c", outer.render(0, &mut parts))
            }
        };
        let sql = format!("{prefix}SELECT {text} AS v FROM {from}");
        let measure = |p: &String, prefix: &str, from: &str| {
            format!("{prefix}SELECT max(length(CAST(({p}) AS BLOB))) FROM {from}")
        };
        let measures = inner_parts
            .iter()
            .map(|p| measure(p, "", "t"))
            .chain(parts.iter().map(|p| measure(p, &prefix, from)))
            .collect();
        (sql, measures)
    }
}

/// The guard the oracle checks with: SQLite, the default policy (1 MiB of generated bytes).
pub fn guard() -> &'static Guard {
    static GUARD: std::sync::OnceLock<Guard> = std::sync::OnceLock::new();
    GUARD.get_or_init(|| Guard::new(Policy::for_dialect(Dialect::Sqlite)).expect("default policy"))
}

/// A connection with the table `t(s)` (data up to 64 characters) and the length limit set.
pub fn connection() -> Connection {
    let mut conn = Connection::open_in_memory().expect("in-memory SQLite");
    conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, SQLITE_MAX_LENGTH)
        .expect("length limit");
    conn.progress_handler(100, Some(past_deadline))
        .expect("progress handler");
    conn.execute_batch(
        "CREATE TABLE t(s TEXT);
         INSERT INTO t VALUES ('a'), ('Ada Lovelace'), (NULL), (printf('%.64c', 'y'));",
    )
    .expect("fixture");
    conn
}

/// What running one case found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The guard approved it.
    pub approved: bool,
    /// The largest part it built, in bytes (approved cases only).
    pub largest: i64,
    /// A part over the bound, or one SQLite stopped: the finding's text.
    pub finding: Option<String>,
}

/// Checks `case` with the guard and, when approved, measures every part of it on `conn`.
pub fn run(conn: &Connection, case: &SizeQuery) -> Outcome {
    let (sql, measures) = case.render();
    let Ok(verdict) = guard().check(&sql) else {
        return Outcome::default();
    };
    let bound = Policy::for_dialect(Dialect::Sqlite).max_generated_bytes;
    let outcome = Outcome {
        approved: true,
        ..Outcome::default()
    };
    DEADLINE.with(|d| d.set(Some(Instant::now() + MEASURE_BUDGET)));
    let outcome = measure_parts(conn, &sql, &measures, &verdict.sql, bound, outcome);
    DEADLINE.with(|d| d.set(None));
    outcome
}

/// Measures each part of an approved case (an interrupted one is dropped: see
/// [`MEASURE_BUDGET`]).
fn measure_parts(
    conn: &Connection,
    sql: &str,
    measures: &[String],
    approved: &str,
    bound: u64,
    mut outcome: Outcome,
) -> Outcome {
    for measure in measures {
        match conn.query_row(measure, [], |row| row.get::<_, Option<i64>>(0)) {
            Ok(Some(bytes)) => {
                outcome.largest = outcome.largest.max(bytes);
                if u64::try_from(bytes).unwrap_or(0) > bound {
                    outcome.finding = Some(format!(
                        "approved, but a part builds {bytes} bytes (bound {bound}):\n  sql: {sql}\n  part: {measure}\n  approved: {approved}"
                    ));
                    return outcome;
                }
            }
            Err(e) if e.to_string().contains("too big") => {
                outcome.finding = Some(format!(
                    "approved, but a part passes SQLite's 64 MiB limit:\n  sql: {sql}\n  part: {measure}"
                ));
                return outcome;
            }
            _ => {}
        }
    }
    outcome
}
