//! The answers to a request that is not authorized (RFC 6750 §3, RFC 9728 §5.1): `401` with
//! `WWW-Authenticate: Bearer` (naming the resource metadata when OAuth is configured, and
//! `error="invalid_token"` when a token was sent), `403 insufficient_scope` naming the scope, and
//! `403` for a verified token that no principal serves. The body repeats the reason as JSON.

use axum::response::{IntoResponse, Response};
use http::{header, HeaderValue, StatusCode};
use serde_json::json;

/// How this server's challenges are written.
#[derive(Debug, Clone, Default)]
pub struct Challenge {
    /// The protected resource metadata URL (OAuth configured), for `resource_metadata`.
    pub resource_metadata: Option<String>,
}

/// A quoted-string parameter value: no quote, backslash or control character inside.
fn quoted(value: &str) -> String {
    value
        .chars()
        .map(|c| {
            if c == '"' || c == '\\' || c.is_control() {
                '\''
            } else {
                c
            }
        })
        .collect()
}

impl Challenge {
    fn answer(
        &self,
        status: StatusCode,
        params: &[(&str, &str)],
        body: serde_json::Value,
    ) -> Response {
        let mut all: Vec<String> = params
            .iter()
            .map(|(k, v)| format!("{k}=\"{}\"", quoted(v)))
            .collect();
        if let Some(url) = &self.resource_metadata {
            all.push(format!("resource_metadata=\"{}\"", quoted(url)));
        }
        let value = if all.is_empty() {
            "Bearer".to_string()
        } else {
            format!("Bearer {}", all.join(", "))
        };
        let mut response = (status, axum::Json(body)).into_response();
        if let Ok(v) = HeaderValue::from_str(&value) {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, v);
        }
        response
    }

    /// `401`: no token.
    pub fn missing_token(&self) -> Response {
        self.answer(
            StatusCode::UNAUTHORIZED,
            &[],
            json!({"error": "unauthorized", "error_description": "this server needs a bearer token"}),
        )
    }

    /// `401 invalid_token`: a token this server does not accept, and why.
    pub fn invalid_token(&self, why: &str) -> Response {
        self.answer(
            StatusCode::UNAUTHORIZED,
            &[("error", "invalid_token"), ("error_description", why)],
            json!({"error": "invalid_token", "error_description": why}),
        )
    }

    /// `403 insufficient_scope`: a valid token without `scope`.
    pub fn insufficient_scope(&self, scope: &str) -> Response {
        let why = format!("the token lacks the scope `{scope}`");
        self.answer(
            StatusCode::FORBIDDEN,
            &[
                ("error", "insufficient_scope"),
                ("scope", scope),
                ("error_description", &why),
            ],
            json!({"error": "insufficient_scope", "scope": scope, "error_description": why}),
        )
    }

    /// `403`: a valid token that no principal serves, or whose claims cannot bind its variables.
    pub fn forbidden(&self, why: &str) -> Response {
        (
            StatusCode::FORBIDDEN,
            axum::Json(json!({"error": "access_denied", "error_description": why})),
        )
            .into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn www(r: &Response) -> String {
        r.headers()
            .get(header::WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    }

    #[test]
    fn challenges_name_the_metadata_and_the_reason() {
        let plain = Challenge::default();
        assert_eq!(www(&plain.missing_token()), "Bearer");
        let oauth = Challenge {
            resource_metadata: Some("https://h/.well-known/oauth-protected-resource/mcp".into()),
        };
        let r = oauth.missing_token();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            www(&r),
            "Bearer resource_metadata=\"https://h/.well-known/oauth-protected-resource/mcp\""
        );
        let r = oauth.invalid_token("the \"token\" has expired");
        assert!(www(&r).starts_with("Bearer error=\"invalid_token\", error_description=\"the 'token' has expired\", resource_metadata="));
        let r = oauth.insufficient_scope("sql:read");
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
        assert!(www(&r).contains("error=\"insufficient_scope\", scope=\"sql:read\""));
    }
}
