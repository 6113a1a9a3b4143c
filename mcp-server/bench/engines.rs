//! The engines of the latency table, each set up the way `serve` would serve it, with its own
//! driver as the baseline ([`Direct`]): PostgreSQL (tokio-postgres), SQLite (rusqlite), MySQL /
//! MariaDB (mysql_async) and, built with `--features duckdb`, DuckDB (the duckdb crate). An engine
//! that is not configured is skipped with a printed line saying why.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use sqlgate::Policy;
use sqlgate_mcp::backend::Backend;
use sqlgate_mcp::gate::{Engine, EngineConfig};

use crate::{Error, POLICY_MAX_ROWS, POOL_SIZE, QUERIES};

/// An engine's own driver running the guard's approved SQL the way the backend runs it, minus
/// sqlgate: the baseline the other paths are compared with.
pub trait Direct {
    /// Runs `sql` and returns the number of rows it read.
    async fn run(&mut self, sql: &str) -> Result<usize, Error>;
}

/// One engine under test.
pub struct Target<D> {
    /// `PostgreSQL 15.8`, `SQLite 3.49.1`, ...
    pub name: String,
    /// The engine `serve` would build for it (read-only, row cap [`POLICY_MAX_ROWS`]).
    pub engine: Arc<Engine>,
    /// [`QUERIES`] with this database's names of Chinook's tables and columns.
    pub queries: Vec<String>,
    /// The baseline.
    pub direct: D,
}

/// Prints why an engine is left out of this run.
fn skip<T>(engine: &str, why: &str) -> Result<Option<T>, Error> {
    println!("{engine}: skipped: {why}");
    Ok(None)
}

/// The engine over `backend`, configured as in `serve --mode read_only`.
async fn engine(backend: Backend) -> Result<Arc<Engine>, Error> {
    let policy = Policy {
        max_rows: Some(POLICY_MAX_ROWS),
        ..Policy::for_dialect(backend.dialect())
    };
    // 1 MiB results, as `serve`'s default.
    let config = EngineConfig::read_only(policy, Duration::from_secs(10));
    Ok(Arc::new(Engine::new(backend, config).await?))
}

/// Chinook's names in the SQLite and MySQL files (`track_id` -> `TrackId`, `track` -> `Track`)
/// for the snake_case names of the PostgreSQL (and the benchmark's DuckDB) Chinook in `sql`.
fn original_names(sql: &str) -> String {
    const SNAKE: &[&str] = &[
        "album",
        "artist",
        "artist_id",
        "composer",
        "genre",
        "genre_id",
        "milliseconds",
        "name",
        "title",
        "track",
        "track_id",
        "unit_price",
    ];
    let pascal = |word: &str| -> String {
        word.split('_')
            .map(|part| {
                let mut c = part.chars();
                c.next()
                    .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                    .unwrap_or_default()
            })
            .collect()
    };
    let mut out = String::with_capacity(sql.len());
    let mut word = String::new();
    for c in sql.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if SNAKE.contains(&word.as_str()) {
            out.push_str(&pascal(&word));
        } else {
            out.push_str(&word);
        }
        word.clear();
        out.push(c);
    }
    out.pop();
    out
}

fn snake_queries() -> Vec<String> {
    QUERIES.iter().map(|q| q.1.to_string()).collect()
}

fn original_queries() -> Vec<String> {
    QUERIES.iter().map(|q| original_names(q.1)).collect()
}

/// PostgreSQL: a read-only transaction around the query on one connection, always rolled back,
/// each request awaited as a tokio-postgres user writes it (the backend adds
/// `SET LOCAL statement_timeout`, a pooled connection, and pipelines its requests).
pub struct Postgres(pub tokio_postgres::Client);

/// A connection to the PostgreSQL at `url`.
pub async fn pg_connect(url: &str) -> Result<tokio_postgres::Client, Error> {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
    tokio::spawn(conn);
    Ok(client)
}

/// The PostgreSQL baseline on `client` (also the throughput table's direct path): `BEGIN READ
/// ONLY`, the query (prepared, then bound and executed), `ROLLBACK`, each awaited: four round
/// trips, as `Client::build_transaction().read_only(true)` and `query` make.
pub async fn pg_direct(client: &tokio_postgres::Client, sql: &str) -> Result<usize, Error> {
    client.batch_execute("BEGIN READ ONLY").await?;
    let rows = client.query(sql, &[]).await;
    client.batch_execute("ROLLBACK").await?;
    Ok(rows?.len())
}

/// The same work sent the way the backend sends it: the BEGIN (with a statement timeout), the
/// query parsed, bound and executed as one request, and the ROLLBACK, pipelined in one round
/// trip. What sqlgate adds over this is its own work, with no round trip to win back.
pub async fn pg_pipelined(client: &tokio_postgres::Client, sql: &str) -> Result<usize, Error> {
    let (begun, rows, ended) = futures::future::join3(
        client.batch_execute("BEGIN READ ONLY; SET LOCAL statement_timeout = 10000"),
        client.query_typed(sql, &[]),
        client.batch_execute("ROLLBACK"),
    )
    .await;
    begun?;
    ended?;
    Ok(rows?.len())
}

impl Direct for Postgres {
    async fn run(&mut self, sql: &str) -> Result<usize, Error> {
        pg_direct(&self.0, sql).await
    }
}

/// PostgreSQL Chinook at `url` (`SQLGATE_CHINOOK_URL`), or skipped without one.
pub async fn postgres(url: Option<&str>) -> Result<Option<Target<Postgres>>, Error> {
    let Some(url) = url else {
        return skip(
            "PostgreSQL",
            "set SQLGATE_CHINOOK_URL (or SQLGATE_BENCH_URL) to a database loaded with Chinook",
        );
    };
    let pg = sqlgate_mcp::backend::postgres::PgBackend::connect(
        url,
        POOL_SIZE,
        Duration::from_secs(10),
        false,
    )
    .await?;
    let client = pg_connect(url).await?;
    let version: String = client
        .query_one("SELECT current_setting('server_version')", &[])
        .await?
        .try_get(0)?;
    Ok(Some(Target {
        name: format!("PostgreSQL {version}"),
        engine: engine(Backend::Postgres(pg)).await?,
        queries: snake_queries(),
        direct: Postgres(client),
    }))
}

/// SQLite: one connection opened as the backend opens its connections (read-only,
/// `query_only`), the statement prepared and stepped to the end on the calling thread (the
/// backend reuses its read connections and runs each query on a blocking thread under a timer).
pub struct Sqlite(rusqlite::Connection);

impl Direct for Sqlite {
    async fn run(&mut self, sql: &str) -> Result<usize, Error> {
        let mut stmt = self.0.prepare(sql)?;
        let rows = stmt.query_map([], |_| Ok(()))?;
        Ok(rows.collect::<Result<Vec<()>, _>>()?.len())
    }
}

/// The repository's Chinook SQLite file (`tests/fixtures/chinook`).
pub fn chinook_sqlite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/chinook/Chinook_Sqlite.sqlite")
}

/// SQLite Chinook from the repository's fixture file `file`.
pub async fn sqlite(file: &Path) -> Result<Target<Sqlite>, Error> {
    let backend = sqlgate_mcp::backend::sqlite::SqliteBackend::open(file)?;
    let conn = sqlgate_mcp::backend::sqlite::connect_read_only(file)?;
    Ok(Target {
        name: format!("SQLite {}", rusqlite::version()),
        engine: engine(Backend::Sqlite(backend)).await?,
        queries: original_queries(),
        direct: Sqlite(conn),
    })
}

/// MySQL / MariaDB: `START TRANSACTION READ ONLY`, the query prepared (binary protocol),
/// executed and its statement closed, `ROLLBACK`, on one connection, as the backend runs a read
/// (which also sets the session's statement timeout, on a pooled connection).
pub struct Mysql(mysql_async::Conn);

impl Direct for Mysql {
    async fn run(&mut self, sql: &str) -> Result<usize, Error> {
        use mysql_async::prelude::Queryable;
        let conn = &mut self.0;
        conn.query_drop("START TRANSACTION READ ONLY").await?;
        let rows = async {
            let stmt = conn.prep(sql).await?;
            let rows: Vec<mysql_async::Row> = conn.exec(&stmt, ()).await?;
            conn.close(stmt).await?;
            Ok::<_, mysql_async::Error>(rows.len())
        }
        .await;
        conn.query_drop("ROLLBACK").await?;
        Ok(rows?)
    }
}

/// MySQL / MariaDB Chinook at `url` (`--mariadb-url` or `SQLGATE_MARIADB_CHINOOK_URL`), or
/// skipped without one.
pub async fn mysql(url: Option<&str>) -> Result<Option<Target<Mysql>>, Error> {
    use mysql_async::prelude::Queryable;
    use sqlgate_mcp::backend::mysql::{Flavor, MysqlBackend};
    let Some(url) = url else {
        return skip(
            "MariaDB",
            "no URL (--mariadb-url or SQLGATE_MARIADB_CHINOOK_URL; scripts/mariadb-cluster.sh \
             start and load-chinook make one)",
        );
    };
    let backend = MysqlBackend::connect(url, POOL_SIZE, false).await?;
    let driver_url = match url.strip_prefix("mariadb://") {
        Some(rest) => format!("mysql://{rest}"),
        None => url.to_string(),
    };
    let mut conn = mysql_async::Conn::new(mysql_async::Opts::from_url(&driver_url)?).await?;
    let version: Option<String> = conn.query_first("SELECT VERSION()").await?;
    let kind = match backend.flavor() {
        Flavor::Mysql => "MySQL",
        Flavor::Mariadb => "MariaDB",
    };
    Ok(Some(Target {
        name: format!("{kind} {}", version.unwrap_or_default()),
        engine: engine(Backend::Mysql(backend)).await?,
        queries: original_queries(),
        direct: Mysql(conn),
    }))
}

/// DuckDB: a second connection of this process opened read-only on the same file, the
/// statement prepared and its rows read to the end on the calling thread (the backend also
/// binds the query once more with `DESCRIBE` for DuckDB's type names, reads Arrow batches, and
/// runs on a blocking thread under a timer).
#[cfg(feature = "duckdb")]
pub struct Duckdb(duckdb::Connection);

#[cfg(feature = "duckdb")]
impl Direct for Duckdb {
    async fn run(&mut self, sql: &str) -> Result<usize, Error> {
        let mut stmt = self.0.prepare(sql)?;
        let rows = stmt.query_map([], |_| Ok(()))?;
        Ok(rows.collect::<Result<Vec<()>, _>>()?.len())
    }
}

/// The DuckDB Chinook built into `dir` from the SQLite Chinook (as the DuckDB tests build it).
#[cfg(feature = "duckdb")]
pub async fn duckdb(sqlite: &Path, dir: &Path) -> Result<Target<Duckdb>, Error> {
    use sqlgate_mcp::backend::duckdb::{DuckdbBackend, DuckdbOptions};
    let (path, conn) = crate::chinook_duckdb::build(dir, sqlite)?;
    conn.execute_batch("CHECKPOINT")?;
    drop(conn);
    let backend = DuckdbBackend::open(&path, &DuckdbOptions::default())?;
    let config = duckdb::Config::default().access_mode(duckdb::AccessMode::ReadOnly)?;
    let conn = duckdb::Connection::open_with_flags(&path, config)?;
    let version: String = conn.query_row("SELECT version()", [], |r| r.get(0))?;
    Ok(Target {
        name: format!("DuckDB {version}"),
        engine: engine(Backend::Duckdb(backend)).await?,
        queries: snake_queries(),
        direct: Duckdb(conn),
    })
}

/// Without the feature: skipped, saying how to build it in.
#[cfg(not(feature = "duckdb"))]
pub fn duckdb_skipped() {
    println!(
        "DuckDB: skipped: built without the duckdb feature (cargo run --release -p sqlgate-mcp \
         --features duckdb --example bench)"
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn original_names() {
        assert_eq!(
            super::original_names("SELECT al.title, ar.name FROM album al WHERE ar.artist_id = 9"),
            "SELECT al.Title, ar.Name FROM Album al WHERE ar.ArtistId = 9"
        );
    }
}
