//! `[oauth]`: this server as an OAuth 2.1 resource server. Tokens come from `issuer`, name this
//! server's `resource` as their audience, and are verified with the issuer's keys: a
//! `jwks_file`, a `jwks_uri`, or (neither given) the `jwks_uri` of the issuer's discovery
//! document.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::error::ConfigError;
use super::values::deserialize_duration;
use crate::transport::auth::jwks::{check_fetch_url, KeySource, DEFAULT_RELOAD_INTERVAL};
use crate::transport::auth::jwt::{
    OAuthSettings, DEFAULT_ALGORITHMS, DEFAULT_LEEWAY, DEFAULT_READ_SCOPE, DEFAULT_WRITE_SCOPE,
};

/// `[oauth]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OAuthFile {
    /// The issuer (`iss`): `https://idp.example.com/realms/acme`.
    pub issuer: String,
    /// This server's resource URL, the audience its tokens name: `https://db.example.com/mcp`.
    pub resource: String,
    /// The issuer's keys from a file (relative to the config file).
    pub jwks_file: Option<PathBuf>,
    /// The issuer's keys from a URL.
    pub jwks_uri: Option<String>,
    /// Accepted algorithms (default RS256, PS256, ES256, EdDSA).
    pub algorithms: Option<Vec<String>>,
    /// Scopes every call needs (default `["sql:read"]`).
    pub required_scopes: Option<Vec<String>>,
    /// The scope `run_mutation` needs besides (default `sql:write`).
    pub write_scope: Option<String>,
    /// Clock skew allowed on `exp` / `nbf`, e.g. `"30s"` (the default).
    #[serde(default, deserialize_with = "deserialize_duration")]
    pub leeway: Option<Duration>,
    /// The least time between two reloads of the keys, e.g. `"60s"` (the default).
    #[serde(default, deserialize_with = "deserialize_duration")]
    pub jwks_reload_interval: Option<Duration>,
}

/// The longest clock skew accepted.
const MAX_LEEWAY: Duration = Duration::from_secs(300);

/// `[oauth]` resolved (`None` when absent); `base_dir` is the config file's folder.
pub fn resolve_oauth(
    file: Option<&OAuthFile>,
    base_dir: &Path,
) -> Result<Option<OAuthSettings>, ConfigError> {
    let Some(f) = file else { return Ok(None) };
    let err = |field: &str, why: String| ConfigError(format!("[oauth] {field}: {why}"));
    // Kept as written: `iss` must equal it exactly (Auth0's ends with `/`, Keycloak's does not).
    let issuer = f.issuer.trim().to_string();
    check_fetch_url(&issuer).map_err(|e| err("issuer", e))?;
    let resource = f.resource.trim().to_string();
    check_fetch_url(&resource).map_err(|e| err("resource", e))?;
    let keys = match (&f.jwks_file, &f.jwks_uri) {
        (Some(_), Some(_)) => {
            return Err(err(
                "jwks_file",
                "give jwks_file or jwks_uri, not both".into(),
            ))
        }
        (Some(path), None) => KeySource::File(base_dir.join(path)),
        (None, Some(uri)) => {
            check_fetch_url(uri).map_err(|e| err("jwks_uri", e))?;
            KeySource::Uri(uri.clone())
        }
        (None, None) => KeySource::Discover,
    };
    let leeway = f.leeway.unwrap_or(DEFAULT_LEEWAY);
    if leeway > MAX_LEEWAY {
        return Err(err("leeway", "at most 5m".into()));
    }
    let required_scopes = f
        .required_scopes
        .clone()
        .unwrap_or_else(|| vec![DEFAULT_READ_SCOPE.to_string()]);
    let write_scope = f
        .write_scope
        .clone()
        .unwrap_or_else(|| DEFAULT_WRITE_SCOPE.to_string());
    for scope in required_scopes.iter().chain([&write_scope]) {
        if scope.is_empty()
            || scope
                .chars()
                .any(|c| c.is_whitespace() || c == '"' || c == '\\')
        {
            return Err(err("scopes", format!("`{scope}` is not a scope token")));
        }
    }
    Ok(Some(OAuthSettings {
        issuer,
        resource,
        keys,
        algorithms: f
            .algorithms
            .clone()
            .unwrap_or_else(|| DEFAULT_ALGORITHMS.iter().map(|a| a.to_string()).collect()),
        required_scopes,
        write_scope,
        leeway,
        reload_interval: f.jwks_reload_interval.unwrap_or(DEFAULT_RELOAD_INTERVAL),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Option<OAuthSettings>, String> {
        let f: OAuthFile = toml::from_str(text).map_err(|e| e.to_string())?;
        resolve_oauth(Some(&f), Path::new("/etc/sqlgate")).map_err(|e| e.0)
    }

    #[test]
    fn defaults_and_key_sources() {
        let s = read(
            "issuer = \"https://idp.example/realms/a/\"\nresource = \"https://db.example/mcp\"",
        )
        .unwrap()
        .unwrap();
        assert_eq!(s.issuer, "https://idp.example/realms/a/");
        assert_eq!(s.keys, KeySource::Discover);
        assert_eq!(s.required_scopes, vec!["sql:read"]);
        assert_eq!(s.write_scope, "sql:write");
        assert_eq!(s.leeway, DEFAULT_LEEWAY);
        let s =
            read("issuer = \"https://i\"\nresource = \"https://r/mcp\"\njwks_file = \"k.json\"")
                .unwrap()
                .unwrap();
        assert_eq!(s.keys, KeySource::File("/etc/sqlgate/k.json".into()));
    }

    #[test]
    fn refusals_name_the_field() {
        for (text, field) in [
            ("issuer = \"http://idp.example\"\nresource = \"https://r\"", "issuer"),
            ("issuer = \"https://i\"\nresource = \"r\"", "resource"),
            (
                "issuer = \"https://i\"\nresource = \"https://r\"\njwks_file = \"a\"\njwks_uri = \"https://k\"",
                "jwks_file",
            ),
            ("issuer = \"https://i\"\nresource = \"https://r\"\nleeway = \"1h\"", "leeway"),
            (
                "issuer = \"https://i\"\nresource = \"https://r\"\nrequired_scopes = [\"a b\"]",
                "scopes",
            ),
        ] {
            let e = read(text).unwrap_err();
            assert!(e.contains(&format!("[oauth] {field}")), "{text}: {e}");
        }
        assert!(read("issuer = \"https://i\"\nresource = \"https://r\"\nsecret = \"x\"").is_err());
    }
}
