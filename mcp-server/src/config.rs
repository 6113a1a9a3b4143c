//! Configuration: policy files (JSON or TOML), the `sqlgate.toml` settings file, and the merge of
//! file settings with command-line flags (flags win).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use sqlgate::{Dialect, Policy, PolicyLayer, Vars};

use crate::cli::{PolicyArgs, ServeArgs};
use crate::mode::Mode;

/// Default result size cap: 1 MiB.
pub const DEFAULT_MAX_RESULT_BYTES: usize = 1024 * 1024;
/// Default HTTP body cap: 1 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 1024 * 1024;
/// Default statement timeout.
pub const DEFAULT_STATEMENT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default wait for the user's approval of a mutation.
pub const DEFAULT_APPROVAL_TIMEOUT: Duration = Duration::from_secs(5 * 60);
/// Default PostgreSQL pool size.
pub const DEFAULT_POOL_SIZE: usize = 8;
pub use crate::backend::options::DEFAULT_DUCKDB_THREADS;

/// A configuration problem, reported on stderr with exit code [`crate::exit::USAGE`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// Parses a policy from text, as TOML when `toml` is true, JSON otherwise.
pub fn parse_policy(text: &str, toml: bool) -> Result<Policy, ConfigError> {
    if toml {
        toml::from_str::<Policy>(text).map_err(|e| ConfigError(format!("invalid policy: {e}")))
    } else {
        Policy::from_json(text).map_err(|e| ConfigError(e.to_string()))
    }
}

/// Reads a policy file; `.toml` files are TOML, anything else JSON.
pub fn load_policy_file(path: &Path) -> Result<Policy, ConfigError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ConfigError(format!("cannot read policy {}: {e}", path.display())))?;
    let is_toml = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    parse_policy(&text, is_toml).map_err(|e| ConfigError(format!("{}: {e}", path.display())))
}

/// Parses a dialect name.
pub fn parse_dialect(name: &str) -> Result<Dialect, ConfigError> {
    name.parse::<Dialect>().map_err(ConfigError)
}

/// Applies `--dialect`, `--max-rows` and `--allow-explain` on top of `policy`.
pub fn apply_overrides(mut policy: Policy, args: &PolicyArgs) -> Result<Policy, ConfigError> {
    if let Some(d) = &args.dialect {
        policy.dialect = parse_dialect(d)?;
    }
    if let Some(m) = args.max_rows {
        policy.max_rows = m.as_option();
    }
    if args.allow_explain {
        policy.allow_explain = true;
    }
    Ok(policy)
}

/// The policy for `check`: the file (or the default for the dialect) with flags applied.
pub fn policy_for_check(args: &PolicyArgs) -> Result<Policy, ConfigError> {
    let base = match &args.policy {
        Some(p) => load_policy_file(p)?,
        None => Policy::default(),
    };
    apply_overrides(base, args)
}

/// The longest duration any setting takes: one day.
pub const MAX_DURATION: Duration = Duration::from_secs(24 * 60 * 60);

/// What every duration error ends with.
const DURATION_HINT: &str = "durations need a unit: 500ms, 10s, 2m";

/// Parses a duration with its unit (`500ms`, `10s`, `2m`, `1m 30s`: humantime's syntax), more than
/// zero and at most [`MAX_DURATION`]. A bare number is refused: it used to mean seconds.
pub fn parse_duration(text: &str) -> Result<Duration, ConfigError> {
    let t = text.trim();
    if t.parse::<f64>().is_ok() {
        return Err(ConfigError(format!(
            "`{text}` has no unit; {DURATION_HINT}"
        )));
    }
    let d = humantime::parse_duration(t)
        .map_err(|e| ConfigError(format!("`{text}` is not a duration ({e}); {DURATION_HINT}")))?;
    if d.is_zero() || d > MAX_DURATION {
        return Err(ConfigError(format!(
            "`{text}` is out of range: more than zero and at most 24h"
        )));
    }
    Ok(d)
}

/// A duration setting in `sqlgate.toml`: a string for [`parse_duration`]. A number is read too,
/// only to refuse it with the same hint as a bare number on the command line.
fn deserialize_duration<'de, D>(deserializer: D) -> Result<Option<Duration>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Written {
        Text(String),
        Number(f64),
    }
    let text = match Written::deserialize(deserializer)? {
        Written::Text(t) => t,
        Written::Number(n) => n.to_string(),
    };
    parse_duration(&text)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

/// The settings file (`--config sqlgate.toml`): every `serve` setting, plus an inline `[policy]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// `postgres://...`, `sqlite:path` or `duckdb:path`.
    pub database_url: Option<String>,
    /// Serve the embedded demo database.
    pub demo: Option<bool>,
    /// Path of a policy file (relative to the config file).
    pub policy_file: Option<PathBuf>,
    /// Inline policy.
    pub policy: Option<Policy>,
    /// Per-query timeout with a unit, e.g. `"10s"`.
    #[serde(default, deserialize_with = "deserialize_duration")]
    pub statement_timeout: Option<Duration>,
    /// Row cap (`max_rows` of the policy); use the policy's `max_rows` for `null`.
    pub max_rows: Option<u64>,
    /// Write mode (`read_only` when absent).
    pub mode: Option<Mode>,
    /// Wait for a mutation's approval, with a unit, e.g. `"5m"`.
    #[serde(default, deserialize_with = "deserialize_duration")]
    pub approval_timeout: Option<Duration>,
    /// Result size cap in bytes.
    pub max_result_bytes: Option<usize>,
    /// Pool size.
    pub pool_size: Option<usize>,
    /// Cost cap: plan cost.
    pub max_cost: Option<f64>,
    /// Cost cap: rows of the largest plan step.
    pub max_estimated_rows: Option<u64>,
    /// Refuse to start with a writable role.
    pub require_read_only_role: Option<bool>,
    /// HTTP bind address.
    pub http: Option<String>,
    /// HTTP without sessions.
    pub stateless: Option<bool>,
    /// Environment variable holding the bearer token.
    pub auth_token_env: Option<String>,
    /// Serve HTTP without a token.
    pub allow_unauthenticated: Option<bool>,
    /// Allowed browser origins.
    pub allowed_origins: Option<Vec<String>>,
    /// HTTP body cap.
    pub max_body_bytes: Option<usize>,
    /// Audit file.
    pub audit_file: Option<PathBuf>,
    /// What a failed audit write does.
    pub audit_failure: Option<crate::audit::AuditFailure>,
    /// Audit line format.
    pub audit_format: Option<crate::audit::AuditFormat>,
    /// OTLP/HTTP collector receiving the audit records.
    pub otlp_endpoint: Option<String>,
    /// Tools to publish.
    pub enabled_tools: Option<Vec<String>>,
    /// DuckDB's `max_memory`, e.g. `"1GB"`.
    pub duckdb_max_memory: Option<String>,
    /// DuckDB's worker threads.
    pub duckdb_threads: Option<u64>,
    /// Row filter variables of the server's own policy (served without principals, or to the
    /// `--auth-token-env` token).
    #[serde(default)]
    pub vars: Option<Vars>,
    /// Principals: API keys, each with its own policy layer, variables and mode.
    #[serde(default)]
    pub principals: Vec<PrincipalFile>,
}

/// One `[[principals]]` entry of the settings file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrincipalFile {
    /// Its name, in the audit log and for `--principal`.
    pub name: String,
    /// The environment variable holding its bearer token (HTTP).
    pub token_env: String,
    /// Values of its row filters' variables.
    #[serde(default)]
    pub vars: Vars,
    /// Its policy, laid on top of the server's (it can only narrow it), inline.
    pub policy: Option<PolicyLayer>,
    /// Its policy from a file (JSON or TOML, relative to the config file).
    pub policy_file: Option<PathBuf>,
    /// Its mode; the server's when absent, never above it.
    pub mode: Option<Mode>,
}

/// The principal name the `--auth-token-env` token gets when principals are configured.
pub const DEFAULT_PRINCIPAL: &str = "default";

/// A principal, resolved: what serves a request that carries its token.
#[derive(Debug, Clone)]
pub struct Principal {
    /// Its name.
    pub name: String,
    /// Its bearer token (HTTP); `None` over stdio, where no token is read.
    pub token: Option<String>,
    /// Row filter variables.
    pub vars: Vars,
    /// What it adds to the server's policy (`None`: the server's policy as is).
    pub layer: Option<PolicyLayer>,
    /// Its mode (already checked to be at most the server's).
    pub mode: Mode,
}

pub use crate::backend::connect::Source;

/// Fully resolved `serve` settings.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// The database.
    pub source: Source,
    /// The policy from file/flags; `None` means the backend's default (dialect of the backend).
    pub policy: Option<Policy>,
    /// Flags that override the policy (applied after the backend picks its default policy).
    pub policy_args: PolicyArgs,
    /// Row cap from the settings file.
    pub file_max_rows: Option<u64>,
    /// Per-query timeout.
    pub statement_timeout: Duration,
    /// Write mode.
    pub mode: Mode,
    /// Wait for a mutation's approval.
    pub approval_timeout: Duration,
    /// Result size cap.
    pub max_result_bytes: usize,
    /// Pool size.
    pub pool_size: usize,
    /// The cost cap (off unless set).
    pub cost_cap: crate::backend::cost::CostCap,
    /// Refuse a writable role.
    pub require_read_only_role: bool,
    /// HTTP bind address, if HTTP.
    pub http: Option<String>,
    /// HTTP without sessions.
    pub stateless: bool,
    /// Environment variable holding the token.
    pub auth_token_env: Option<String>,
    /// Serve HTTP without a token.
    pub allow_unauthenticated: bool,
    /// Allowed browser origins.
    pub allowed_origins: Vec<String>,
    /// HTTP body cap.
    pub max_body_bytes: usize,
    /// Audit file (stderr when `None`).
    pub audit_file: Option<PathBuf>,
    /// What a failed audit write does.
    pub audit_failure: crate::audit::AuditFailure,
    /// Audit line format.
    pub audit_format: crate::audit::AuditFormat,
    /// OTLP/HTTP collector receiving the audit records, as a logs URL (checked).
    pub otlp_endpoint: Option<String>,
    /// Tools to publish (`None`: all).
    pub enabled_tools: Option<Vec<String>>,
    /// DuckDB's `max_memory` (`None`: DuckDB's default).
    pub duckdb_max_memory: Option<String>,
    /// DuckDB's worker threads.
    pub duckdb_threads: u64,
    /// Row filter variables of the server's own policy.
    pub vars: Vars,
    /// The principals to serve: over HTTP each token selects one; over stdio only the one named
    /// by `--principal`. Empty: the server's own policy, as before principals existed.
    pub principals: Vec<Principal>,
}

/// Parses a database URL into a [`Source`], never echoing the URL in errors.
pub fn parse_source(url: &str) -> Result<Source, ConfigError> {
    Source::parse(url).map_err(|e| ConfigError(e.to_string()))
}

/// Merges the settings file (if any) with the flags; flags win.
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit came in; to be split (issue 26)"
)]
pub fn resolve_serve(args: &ServeArgs) -> Result<ServeConfig, ConfigError> {
    let (file, base_dir) = match &args.config {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| ConfigError(format!("cannot read config {}: {e}", p.display())))?;
            let fc: FileConfig =
                toml::from_str(&text).map_err(|e| ConfigError(format!("{}: {e}", p.display())))?;
            (fc, p.parent().map(Path::to_path_buf).unwrap_or_default())
        }
        None => (FileConfig::default(), PathBuf::new()),
    };
    let source = if args.demo {
        Source::Demo
    } else if let Some(url) = &args.database_url {
        parse_source(url)?
    } else if let Some(url) = &file.database_url {
        parse_source(url)?
    } else if file.demo == Some(true) {
        Source::Demo
    } else {
        return Err(ConfigError(
            "no database: pass --demo, --database-url, or set SQLGATE_DATABASE_URL".into(),
        ));
    };
    let policy = if let Some(p) = &args.policy.policy {
        Some(load_policy_file(p)?)
    } else if let Some(p) = &file.policy_file {
        Some(load_policy_file(&base_dir.join(p))?)
    } else {
        file.policy.clone()
    };
    let statement_timeout = args
        .statement_timeout
        .or(file.statement_timeout)
        .unwrap_or(DEFAULT_STATEMENT_TIMEOUT);
    let mode = args.mode.or(file.mode).unwrap_or_default();
    let http = args.http.clone().or(file.http.clone());
    let auth_token_env = args.auth_token_env.clone().or(file.auth_token_env.clone());
    let allow_unauthenticated =
        args.allow_unauthenticated || file.allow_unauthenticated.unwrap_or(false);
    let principals = resolve_principals(
        &file.principals,
        &base_dir,
        mode,
        http.is_some(),
        args.principal.as_deref(),
        auth_token_env.as_deref(),
        allow_unauthenticated,
        file.vars.clone().unwrap_or_default(),
    )?;
    Ok(ServeConfig {
        vars: file.vars.clone().unwrap_or_default(),
        principals,
        source,
        policy,
        policy_args: args.policy.clone(),
        file_max_rows: file.max_rows,
        statement_timeout,
        mode,
        approval_timeout: args
            .approval_timeout
            .or(file.approval_timeout)
            .unwrap_or(DEFAULT_APPROVAL_TIMEOUT),
        max_result_bytes: args
            .max_result_bytes
            .or(file.max_result_bytes)
            .unwrap_or(DEFAULT_MAX_RESULT_BYTES),
        cost_cap: crate::backend::cost::CostCap {
            max_cost: match args.max_cost.or(file.max_cost) {
                Some(c) if !(c.is_finite() && c > 0.0) => {
                    return Err(ConfigError(format!(
                        "max_cost must be a positive number, not {c}"
                    )))
                }
                other => other,
            },
            max_estimated_rows: args.max_estimated_rows.or(file.max_estimated_rows),
        },
        pool_size: args
            .pool_size
            .or(file.pool_size)
            .unwrap_or(DEFAULT_POOL_SIZE)
            .max(1),
        require_read_only_role: args.require_read_only_role
            || file.require_read_only_role.unwrap_or(false),
        http,
        stateless: args.stateless || file.stateless.unwrap_or(false),
        auth_token_env,
        allow_unauthenticated,
        allowed_origins: if args.allowed_origins.is_empty() {
            file.allowed_origins.unwrap_or_default()
        } else {
            args.allowed_origins.clone()
        },
        max_body_bytes: args
            .max_body_bytes
            .or(file.max_body_bytes)
            .unwrap_or(DEFAULT_MAX_BODY_BYTES),
        audit_file: args.audit_file.clone().or(file.audit_file),
        audit_failure: args
            .audit_failure
            .or(file.audit_failure)
            .unwrap_or_default(),
        audit_format: args.audit_format.or(file.audit_format).unwrap_or_default(),
        otlp_endpoint: match args.otlp_endpoint.clone().or(file.otlp_endpoint) {
            Some(e) => Some(crate::audit::export::logs_url(&e).map_err(ConfigError)?),
            None => None,
        },
        enabled_tools: args.tools.clone().or(file.enabled_tools),
        duckdb_max_memory: args.duckdb_max_memory.clone().or(file.duckdb_max_memory),
        duckdb_threads: args
            .duckdb_threads
            .or(file.duckdb_threads)
            .unwrap_or(DEFAULT_DUCKDB_THREADS)
            .max(1),
    })
}

/// Reads a bearer token from the environment variable `var`; `what` names the setting.
pub fn read_token(var: &str, what: &str) -> Result<String, ConfigError> {
    match std::env::var(var) {
        Ok(t) if !t.trim().is_empty() => Ok(t.trim().to_string()),
        _ => Err(ConfigError(format!(
            "{what} {var}: the variable is not set or empty"
        ))),
    }
}

/// Resolves `[[principals]]`: names, tokens (HTTP only), policy layers and modes; and which of
/// them stdio serves (`--principal`). Errors name the principal and the field.
#[allow(clippy::too_many_arguments)]
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit came in; to be split (issue 26)"
)]
fn resolve_principals(
    entries: &[PrincipalFile],
    base_dir: &Path,
    server_mode: Mode,
    http: bool,
    chosen: Option<&str>,
    auth_token_env: Option<&str>,
    allow_unauthenticated: bool,
    server_vars: Vars,
) -> Result<Vec<Principal>, ConfigError> {
    if entries.is_empty() {
        return match chosen {
            Some(name) => Err(ConfigError(format!(
                "--principal {name}: the config file has no [[principals]]"
            ))),
            None => Ok(Vec::new()),
        };
    }
    if http && chosen.is_some() {
        return Err(ConfigError(
            "--principal is for stdio; over HTTP each request's bearer token selects its principal"
                .into(),
        ));
    }
    if http && allow_unauthenticated {
        return Err(ConfigError(
            "--allow-unauthenticated cannot serve [[principals]]: each principal is chosen by its \
             bearer token"
                .into(),
        ));
    }
    let mut out: Vec<Principal> = Vec::new();
    for (i, p) in entries.iter().enumerate() {
        let at = |field: &str| format!("principal `{}` (principals[{i}]): {field}", p.name);
        let name = p.name.trim();
        if name.is_empty() || name.chars().any(|c| c.is_control()) {
            return Err(ConfigError(format!(
                "principals[{i}]: name must be a non-empty name"
            )));
        }
        if name == DEFAULT_PRINCIPAL {
            return Err(ConfigError(format!(
                "{}: `{DEFAULT_PRINCIPAL}` is reserved for the --auth-token-env token",
                at("name")
            )));
        }
        if out.iter().any(|o| o.name == name) {
            return Err(ConfigError(format!(
                "{}: two principals are named `{name}`",
                at("name")
            )));
        }
        let layer = match (&p.policy, &p.policy_file) {
            (Some(_), Some(_)) => {
                return Err(ConfigError(format!(
                    "{}: give `policy` or `policy_file`, not both",
                    at("policy")
                )))
            }
            (Some(l), None) => Some(l.clone()),
            (None, Some(f)) => Some(
                load_policy_layer(&base_dir.join(f))
                    .map_err(|e| ConfigError(format!("{}: {e}", at("policy_file"))))?,
            ),
            (None, None) => None,
        };
        let mode = p.mode.unwrap_or(server_mode);
        if mode.rank() > server_mode.rank() {
            return Err(ConfigError(format!(
                "{}: `{}` is above the server's mode `{}`; a principal may only narrow",
                at("mode"),
                mode.as_str(),
                server_mode.as_str()
            )));
        }
        let token = if http {
            Some(read_token(&p.token_env, &at("token_env"))?)
        } else {
            None
        };
        out.push(Principal {
            name: name.to_string(),
            token,
            vars: p.vars.clone(),
            layer,
            mode,
        });
    }
    if http {
        if let Some(var) = auth_token_env {
            out.push(Principal {
                name: DEFAULT_PRINCIPAL.to_string(),
                token: Some(read_token(var, "--auth-token-env")?),
                vars: server_vars,
                layer: None,
                mode: server_mode,
            });
        }
        for (i, a) in out.iter().enumerate() {
            if let Some(b) = out[..i].iter().find(|b| b.token == a.token) {
                return Err(ConfigError(format!(
                    "principals `{}` and `{}` have the same token: each needs its own",
                    b.name, a.name
                )));
            }
        }
        return Ok(out);
    }
    let Some(name) = chosen else {
        let names: Vec<&str> = out.iter().map(|p| p.name.as_str()).collect();
        return Err(ConfigError(format!(
            "the config file has [[principals]]; over stdio pass --principal NAME ({})",
            names.join(", ")
        )));
    };
    match out.into_iter().find(|p| p.name == name) {
        Some(p) => Ok(vec![p]),
        None => Err(ConfigError(format!(
            "--principal {name}: no such principal in the config file"
        ))),
    }
}

/// Reads a principal's policy layer: `.toml` files are TOML, anything else JSON.
pub fn load_policy_layer(path: &Path) -> Result<PolicyLayer, ConfigError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ConfigError(format!("cannot read {}: {e}", path.display())))?;
    let is_toml = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    let parsed = if is_toml {
        toml::from_str::<PolicyLayer>(&text).map_err(|e| e.to_string())
    } else {
        serde_json::from_str::<PolicyLayer>(&text).map_err(|e| e.to_string())
    };
    parsed.map_err(|e| ConfigError(format!("{}: {e}", path.display())))
}

impl ServeConfig {
    /// The final policy: the configured one (or `default` for the backend) with flags applied.
    pub fn final_policy(&self, default: Policy) -> Result<Policy, ConfigError> {
        let mut policy = self.policy.clone().unwrap_or(default);
        if let Some(m) = self.file_max_rows {
            policy.max_rows = Some(m);
        }
        let args = PolicyArgs {
            policy: None,
            ..self.policy_args.clone()
        };
        apply_overrides(policy, &args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_need_a_unit() {
        assert_eq!(parse_duration("10s").ok(), Some(Duration::from_secs(10)));
        assert_eq!(
            parse_duration("500ms").ok(),
            Some(Duration::from_millis(500))
        );
        assert_eq!(parse_duration("2m").ok(), Some(Duration::from_secs(120)));
        assert_eq!(
            parse_duration(" 1m 30s ").ok(),
            Some(Duration::from_secs(90))
        );
        assert_eq!(parse_duration("24h").ok(), Some(MAX_DURATION));
        for bare in ["3", "1500", "0", "2.5"] {
            let e = parse_duration(bare).err().map(|e| e.0).unwrap_or_default();
            assert!(
                e.contains("no unit") && e.contains(DURATION_HINT),
                "{bare}: {e}"
            );
        }
        for bad in ["abc", "10 parsecs", ""] {
            let e = parse_duration(bad).err().map(|e| e.0).unwrap_or_default();
            assert!(e.contains(DURATION_HINT), "{bad}: {e}");
        }
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("25h").is_err());
    }

    #[test]
    fn config_file_durations() {
        let read = |text: &str| toml::from_str::<FileConfig>(text).map_err(|e| e.to_string());
        let ok = read("statement_timeout = \"1500ms\"").ok();
        assert_eq!(
            ok.and_then(|c| c.statement_timeout),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(read("").ok().map(|c| c.statement_timeout), Some(None));
        let ok = read("mode = \"delete_safe\"\napproval_timeout = \"90s\"").ok();
        assert_eq!(ok.as_ref().and_then(|c| c.mode), Some(Mode::DeleteSafe));
        assert_eq!(
            ok.and_then(|c| c.approval_timeout),
            Some(Duration::from_secs(90))
        );
        assert!(read("approval_timeout = 90").is_err());
        assert!(read("mode = \"yolo\"").is_err());
        for bare in ["statement_timeout = 1500", "statement_timeout = \"1500\""] {
            let e = read(bare).err().unwrap_or_default();
            assert!(e.contains(DURATION_HINT), "{bare}: {e}");
        }
    }

    #[test]
    fn sources() {
        assert_eq!(
            parse_source("sqlite:/tmp/x.db").ok(),
            Some(Source::Sqlite("/tmp/x.db".into()))
        );
        assert!(matches!(
            parse_source("postgres://u:p@h/db"),
            Ok(Source::Postgres(_))
        ));
        for url in [
            "mysql://u:p@h/db",
            "mariadb://u:p@h:3307/db?ssl-mode=REQUIRED",
        ] {
            assert!(matches!(parse_source(url), Ok(Source::Mysql(_))), "{url}");
        }
        assert_eq!(
            parse_source("duckdb:data/x.duckdb").ok(),
            Some(Source::Duckdb("data/x.duckdb".into()))
        );
        assert_eq!(
            parse_source("duckdb:///abs/x.duckdb").ok(),
            Some(Source::Duckdb("/abs/x.duckdb".into()))
        );
        assert!(parse_source("duckdb:").is_err());
        let err = parse_source("oracle://u:secret@h/db").err().map(|e| e.0);
        assert!(err.is_some_and(|m| !m.contains("secret")));
    }

    #[test]
    fn duckdb_settings_in_the_config_file() {
        let c =
            toml::from_str::<FileConfig>("duckdb_max_memory = \"1GB\"\nduckdb_threads = 3").ok();
        assert_eq!(
            c.as_ref().and_then(|c| c.duckdb_max_memory.as_deref()),
            Some("1GB")
        );
        assert_eq!(c.and_then(|c| c.duckdb_threads), Some(3));
        assert!(toml::from_str::<FileConfig>("duckdb_threads = \"x\"").is_err());
    }

    #[test]
    fn toml_policy() {
        let p = parse_policy(
            "dialect = \"sqlite\"\nmax_rows = 5\n[columns]\ndeny = [\"*.email\"]\n",
            true,
        );
        let p = p.ok();
        assert_eq!(p.as_ref().map(|p| p.max_rows), Some(Some(5)));
        assert!(parse_policy("nope = 1", true).is_err());
    }
}
