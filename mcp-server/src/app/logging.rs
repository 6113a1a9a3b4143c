//! Logs: the process's one `tracing` subscriber, set up here at start; every other module only
//! emits events. They always go to stderr (over the stdio transport stdout carries MCP frames
//! only), as text or as one JSON object per line (`--log-format`).
//!
//! Which events pass, first rule that applies:
//! 1. `--log-level LEVEL`: sqlgate's own events (targets `sqlgate_mcp::*` and `sqlgate::decision`)
//!    at LEVEL and above, other crates' (rmcp, hyper, ...) at `warn` and above (`error` with
//!    `--log-level error`). `RUST_LOG` is then ignored.
//! 2. `RUST_LOG`, when set and not empty: a full filter directive (`info,sqlgate::decision=off`,
//!    `debug,h2=warn`, ...). One that does not parse is ignored with a warning, and rule 3 applies.
//! 3. As `--log-level info`.
//!
//! The audit log is not a log: it keeps its own file (or stderr) and its hash chain.

use clap::ValueEnum;
use tracing_subscriber::EnvFilter;

/// `--log-level`: the least severe of sqlgate's events written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, strum::IntoStaticStr)]
#[value(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum LogLevel {
    /// Failures only.
    Error,
    /// And what the operator should know (a plain-HTTP bind, a role that may write, ...).
    Warn,
    /// And the server's lifecycle and one event per tool call (the default).
    Info,
    /// And the SQL of each call in its event.
    Debug,
    /// Everything.
    Trace,
}

/// `--log-format`: how each event is written on stderr.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum LogFormat {
    /// One human-readable line per event: time, level, target, message, fields.
    #[default]
    Text,
    /// One JSON object per line: `timestamp`, `level`, `target`, `message` and the fields.
    Json,
}

/// The level when neither `--log-level` nor `RUST_LOG` says one.
pub const DEFAULT_LOG_LEVEL: LogLevel = LogLevel::Info;

impl LogLevel {
    /// The stable lowercase name.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The filter directive of this level: sqlgate's targets at it, other crates' at `warn`
    /// at most (`sqlgate` is a prefix of `sqlgate_mcp` and `sqlgate::decision`).
    pub fn directive(self) -> String {
        let others = if self == LogLevel::Error {
            "error"
        } else {
            "warn"
        };
        format!("{others},sqlgate={}", self.as_str())
    }
}

/// The filter directive chosen (see the module's rules) and, when `RUST_LOG` was ignored
/// because it does not parse, why.
pub fn choose_directive(
    level: Option<LogLevel>,
    rust_log: Option<&str>,
) -> (String, Option<String>) {
    if let Some(level) = level {
        return (level.directive(), None);
    }
    match rust_log.map(str::trim).filter(|s| !s.is_empty()) {
        Some(env) => match EnvFilter::try_new(env) {
            Ok(_) => (env.to_string(), None),
            Err(e) => (DEFAULT_LOG_LEVEL.directive(), Some(e.to_string())),
        },
        None => (DEFAULT_LOG_LEVEL.directive(), None),
    }
}

/// Sets up the process's subscriber: `level` (`--log-level`, else `RUST_LOG`, else info) in
/// `format`, on stderr. Called once, by `main`; a second call changes nothing.
pub fn init(level: Option<LogLevel>, format: LogFormat) {
    let rust_log = std::env::var("RUST_LOG").ok();
    let (directive, ignored) = choose_directive(level, rust_log.as_deref());
    let filter = EnvFilter::try_new(&directive)
        .unwrap_or_else(|_| EnvFilter::new(DEFAULT_LOG_LEVEL.directive()));
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .with_ansi(false);
    // Err: a subscriber is set already (a test calling this twice); the first one stays.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .with_span_list(false)
            .try_init(),
    };
    if let Some(why) = ignored {
        tracing::warn!(
            rust_log = rust_log.as_deref().unwrap_or_default(),
            "RUST_LOG ignored ({why}); logging at {}",
            DEFAULT_LOG_LEVEL.as_str()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_wins_over_rust_log_and_keeps_other_crates_at_warn() {
        let (d, ignored) = choose_directive(Some(LogLevel::Debug), Some("trace"));
        assert_eq!(d, "warn,sqlgate=debug");
        assert!(ignored.is_none());
        assert_eq!(
            choose_directive(Some(LogLevel::Error), None).0,
            "error,sqlgate=error"
        );
    }

    #[test]
    fn rust_log_is_a_full_directive_when_no_flag_is_given() {
        let (d, ignored) = choose_directive(None, Some(" debug,h2=warn "));
        assert_eq!(d, "debug,h2=warn");
        assert!(ignored.is_none());
        assert_eq!(choose_directive(None, Some("")).0, "warn,sqlgate=info");
        assert_eq!(choose_directive(None, None).0, "warn,sqlgate=info");
    }

    #[test]
    fn a_rust_log_that_does_not_parse_falls_back_to_info_and_says_why() {
        let (d, ignored) = choose_directive(None, Some("sqlgate=loud"));
        assert_eq!(d, "warn,sqlgate=info");
        assert!(ignored.is_some());
    }
}
