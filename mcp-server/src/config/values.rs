//! The values settings hold: durations with a unit, dialect names, and policy files (JSON or
//! TOML; a principal's policy layer too).

use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use sqlgate::{Dialect, Policy, PolicyLayer};

use super::error::ConfigError;

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

/// The longest duration any setting takes: one day.
pub const MAX_DURATION: Duration = Duration::from_secs(24 * 60 * 60);

/// What every duration error ends with.
pub(crate) const DURATION_HINT: &str = "durations need a unit: 500ms, 10s, 2m";

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

/// A duration setting in `sqlgate.toml`: a string for [`parse_duration`]. A number is read too,
/// only to refuse it with the same hint as a bare number on the command line.
pub(super) fn deserialize_duration<'de, D>(deserializer: D) -> Result<Option<Duration>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    #[derive(Deserialize)]
    #[serde(
        untagged,
        expecting = "must be a duration in a string, such as \"30s\" or \"5m\""
    )]
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
