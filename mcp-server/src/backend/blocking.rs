//! Embedded engines (SQLite, DuckDB) run a statement on a blocking thread and stop it at the
//! timeout with their interrupt handle.

use std::sync::Arc;
use std::time::Duration;

use super::error::{DbError, DbErrorCode};

/// Runs blocking `work` (an embedded engine's statement) on a blocking thread; if it is still
/// running when `timeout` passes, calls `interrupt` (the engine's interrupt handle), which makes
/// `work` end with an error. SQLite and DuckDB share this.
pub(crate) async fn interruptible<T: Send + 'static>(
    timeout: Duration,
    interrupt: impl FnOnce() + Send + 'static,
    work: impl FnOnce() -> Result<T, DbError> + Send + 'static,
) -> Result<T, DbError> {
    interruptible_once(timeout, interrupt, work).await?.0
}

/// [`interruptible`], also saying whether the interrupt was sent. It is sent only while `work`
/// runs (the timer and the end of `work` race for one flag), so it never reaches a statement
/// that starts later on the same connection; a connection whose work was interrupted must not
/// be used again.
pub(crate) async fn interruptible_once<T: Send + 'static>(
    timeout: Duration,
    interrupt: impl FnOnce() + Send + 'static,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<(T, bool), DbError> {
    use std::sync::atomic::{AtomicU8, Ordering::SeqCst};
    const RUNNING: u8 = 0;
    const DONE: u8 = 1;
    const INTERRUPTED: u8 = 2;
    let state = Arc::new(AtomicU8::new(RUNNING));
    let timer_state = state.clone();
    let timer = tokio::spawn(async move {
        tokio::time::sleep(timeout).await;
        if timer_state
            .compare_exchange(RUNNING, INTERRUPTED, SeqCst, SeqCst)
            .is_ok()
        {
            interrupt();
        }
    });
    let work_state = state.clone();
    let out = tokio::task::spawn_blocking(move || {
        let out = work();
        let _ = work_state.compare_exchange(RUNNING, DONE, SeqCst, SeqCst);
        out
    })
    .await
    .map_err(|e| DbError::new(DbErrorCode::DatabaseError, format!("worker failed: {e}")))?;
    timer.abort();
    Ok((out, state.load(SeqCst) == INTERRUPTED))
}
