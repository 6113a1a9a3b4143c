//! Process signals: SIGINT and SIGTERM stop the server, SIGHUP reopens the audit file (rotation)
//! and reloads the TLS certificate (renewal).

use crate::audit::Audit;
use crate::transport::tls::TlsConfig;

/// Runs `action` on every SIGHUP; `lost` says what needs a restart when SIGHUP cannot be
/// listened for.
#[cfg(unix)]
fn on_hangup(lost: &str, action: impl Fn() + Send + 'static) {
    use tokio::signal::unix::{signal, SignalKind};
    let Ok(mut hup) = signal(SignalKind::hangup()) else {
        tracing::warn!("cannot listen for SIGHUP; {lost} needs a restart");
        return;
    };
    tokio::spawn(async move {
        while hup.recv().await.is_some() {
            action();
        }
    });
}

/// No signals here: nothing to listen for.
#[cfg(not(unix))]
fn on_hangup(_lost: &str, _action: impl Fn() + Send + 'static) {}

/// Reads the TLS certificate, key, client CA and CRL files again on every SIGHUP; a reload
/// that fails keeps the files in force and says why on stderr.
pub fn reload_tls_on_hangup(tls: TlsConfig) {
    on_hangup("a new certificate", move || match tls.reload() {
        Ok(()) => tracing::info!("SIGHUP: TLS certificate reloaded"),
        Err(e) => {
            tracing::error!("SIGHUP: TLS reload failed, the previous certificate stays: {e}")
        }
    });
}

/// Reopens the audit file on every SIGHUP (log rotation).
pub fn reopen_on_hangup(audit: Audit) {
    on_hangup("audit rotation", move || audit.reopen());
}

/// SIGINT (Ctrl-C) and SIGTERM, listened to from the moment this is built: a signal that
/// arrives while the server starts is not lost (nor does it kill the process half-way).
pub struct StopSignals {
    #[cfg(unix)]
    unix: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
}

impl StopSignals {
    /// Starts listening.
    pub fn install() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let unix = match (
                signal(SignalKind::interrupt()),
                signal(SignalKind::terminate()),
            ) {
                (Ok(int), Ok(term)) => Some((int, term)),
                _ => None,
            };
            StopSignals { unix }
        }
        #[cfg(not(unix))]
        StopSignals {}
    }

    /// Waits for the first signal; returns its name.
    pub async fn first(self) -> &'static str {
        #[cfg(unix)]
        if let Some((mut int, mut term)) = self.unix {
            return tokio::select! {
                _ = int.recv() => "SIGINT",
                _ = term.recv() => "SIGTERM",
            };
        }
        let _ = tokio::signal::ctrl_c().await;
        "SIGINT"
    }
}
