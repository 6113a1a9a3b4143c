//! The suite's MariaDB: its URL, engines on it, and a direct connection beside the server.

use std::time::Duration;

use sqlgate::{Dialect, Policy};
use sqlgate_mcp::backend::mysql::MysqlBackend;
use sqlgate_mcp::backend::Backend;
use sqlgate_mcp::gate::{Engine, EngineConfig};

/// `SQLGATE_MARIADB_CHINOOK_URL` (`None`: skip).
pub fn chinook_url() -> Option<String> {
    crate::common::server_url("SQLGATE_MARIADB_CHINOOK_URL", "MariaDB", "the MySQL tests")
}

pub fn with_database(url: &str, db: &str) -> String {
    let (base, _) = url.rsplit_once('/').expect("a URL with a database");
    format!("{base}/{db}")
}

/// A read-only engine on `url`: 4 connections, `max_rows` per result, `timeout` per statement.
pub async fn engine(url: &str, max_rows: u64, timeout: Duration) -> Engine {
    let backend = MysqlBackend::connect(url, 4, false).await.expect("connect");
    let policy = Policy {
        max_rows: Some(max_rows),
        ..Policy::for_dialect(Dialect::Mysql)
    };
    Engine::new(
        Backend::Mysql(backend),
        EngineConfig::read_only(policy, timeout),
    )
    .await
    .expect("engine")
}

/// A direct connection to `url`, beside the server.
pub async fn admin(url: &str) -> mysql_async::Conn {
    mysql_async::Conn::new(mysql_async::Opts::from_url(url).expect("url"))
        .await
        .expect("connect directly")
}
