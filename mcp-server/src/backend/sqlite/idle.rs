//! The read connections SQLite keeps between queries, so that the schema is not read again for
//! each one.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::Connection;

/// At most this many read connections wait between queries (more run at once when needed).
const IDLE_MAX: usize = 8;

/// Read-only connections that served a query and ended cleanly, with the identity of the file
/// they opened: a connection keeps the file it opened, so when the path names another file
/// (replaced by a rename, as tools that rebuild a database do) they are all closed and the next
/// query opens the new one, as a connection per query did.
#[derive(Default)]
pub(super) struct IdleConnections(pub(super) Mutex<Vec<(Connection, Option<FileId>)>>);

/// A file's device and inode (`None` where the platform does not say).
type FileId = (u64, u64);

fn file_id(path: &Path) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

impl IdleConnections {
    /// The identity of the file now at `path`, and a waiting connection to it if there is one.
    pub(super) fn take(&self, path: &Path) -> (Option<Connection>, Option<FileId>) {
        let id = file_id(path);
        let mut idle = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // Without an identity there is no telling whether the file was replaced: reuse nothing.
        if id.is_none() || idle.iter().any(|(_, opened)| *opened != id) {
            idle.clear();
        }
        (idle.pop().map(|(conn, _)| conn), id)
    }

    /// Keeps `conn` for the next query, unless enough wait already.
    pub(super) fn put(&self, conn: Connection, id: Option<FileId>) {
        let mut idle = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if id.is_some() && idle.len() < IDLE_MAX {
            idle.push((conn, id));
        }
    }
}
