//! OAuth 2.0 protected resource metadata (RFC 9728): the document that tells a client which
//! authorization server issues tokens for this server, and the URL it is served at. A `401`
//! names that URL in `WWW-Authenticate: Bearer resource_metadata="..."`, so a client that has
//! only the server's address finds the issuer from the refusal alone.

use serde::Serialize;

use super::jwt::OAuthSettings;

/// The well-known path prefix (RFC 9728 §3).
pub const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The metadata document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourceMetadata {
    /// This server's resource identifier (the audience of its tokens).
    pub resource: String,
    /// The issuers whose tokens it accepts.
    pub authorization_servers: Vec<String>,
    /// The scopes it understands.
    pub scopes_supported: Vec<String>,
    /// How a token is sent: the `Authorization` header only.
    pub bearer_methods_supported: Vec<String>,
    /// A name for people.
    pub resource_name: String,
}

impl ResourceMetadata {
    /// The document for these settings.
    pub fn new(settings: &OAuthSettings) -> Self {
        let mut scopes = settings.required_scopes.clone();
        if !scopes.contains(&settings.write_scope) {
            scopes.push(settings.write_scope.clone());
        }
        ResourceMetadata {
            resource: settings.resource.clone(),
            authorization_servers: vec![settings.issuer.clone()],
            scopes_supported: scopes,
            bearer_methods_supported: vec!["header".into()],
            resource_name: "sqlgate-mcp".into(),
        }
    }
}

/// The paths the document is served at: the well-known prefix followed by the resource's path
/// (`/.well-known/oauth-protected-resource/mcp` for `https://host/mcp`, the URL a `401` names),
/// and the bare prefix, which clients also try.
pub fn metadata_paths(resource: &str) -> Vec<String> {
    let path = resource_path(resource);
    let mut paths = vec![format!("{WELL_KNOWN}{path}")];
    if !path.is_empty() {
        paths.push(WELL_KNOWN.to_string());
    }
    paths
}

/// The metadata URL for `resource`: its scheme and host, the well-known prefix, its path.
pub fn metadata_url(resource: &str) -> String {
    match resource.parse::<http::Uri>() {
        Ok(uri) => match (uri.scheme_str(), uri.authority()) {
            (Some(scheme), Some(authority)) => {
                format!(
                    "{scheme}://{authority}{WELL_KNOWN}{}",
                    resource_path(resource)
                )
            }
            _ => WELL_KNOWN.to_string(),
        },
        Err(_) => WELL_KNOWN.to_string(),
    }
}

fn resource_path(resource: &str) -> String {
    resource
        .parse::<http::Uri>()
        .map(|u| u.path().trim_end_matches('/').to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_follows_the_well_known_prefix() {
        assert_eq!(
            metadata_url("https://db.example.com/mcp"),
            "https://db.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            metadata_url("https://db.example.com:8443/"),
            "https://db.example.com:8443/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            metadata_paths("https://db.example.com/mcp"),
            vec![
                "/.well-known/oauth-protected-resource/mcp".to_string(),
                "/.well-known/oauth-protected-resource".into()
            ]
        );
        assert_eq!(
            metadata_paths("https://db.example.com"),
            vec!["/.well-known/oauth-protected-resource".to_string()]
        );
    }
}
