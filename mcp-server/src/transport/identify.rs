//! Which route serves an HTTP request, and as which caller: a static token selects its
//! principal (compared in constant time with every token); otherwise, with OAuth configured, a
//! JWT is verified and the first principal whose `match` its claims meet serves it, with the
//! variables its claims bind. Everything else is answered here, before rmcp sees the request.

use std::sync::Arc;

use axum::response::Response;
use http::{header, HeaderMap};

use super::auth::challenge::Challenge;
use super::auth::claims::ClaimRule;
use super::auth::jwt::JwtVerifier;
use super::auth::{bearer_of, route_for, token_digest};
use super::tls::peer::{CertRule, ClientCert};
use crate::codes::AuthMethod;
use crate::tools::caller::Caller;

/// How a principal's requests prove who they are.
#[derive(Debug, Clone, PartialEq)]
pub enum Credential {
    /// No credential: the one route of a server started with `--allow-unauthenticated`.
    None,
    /// A static bearer token.
    Token(String),
    /// A verified JWT whose claims meet the rule.
    Claims(ClaimRule),
    /// A client certificate (mutual TLS) whose names meet the rule.
    ClientCert(CertRule),
}

/// The credentials of every route, ready to compare.
pub struct Identify {
    /// `Some(i)`: the one route, served without a credential.
    open: Option<usize>,
    /// Static tokens' digests, compared with every request's token ...
    digests: Vec<[u8; 32]>,
    /// ... and the route of each.
    token_routes: Vec<usize>,
    /// JWT routes in order, with the literal variables of their engines.
    claims: Vec<(usize, ClaimRule, sqlgate::Vars)>,
    /// Client-certificate routes in order.
    certs: Vec<(usize, CertRule)>,
    verifier: Option<Arc<JwtVerifier>>,
    challenge: Challenge,
}

impl Identify {
    /// From each route's credential and its engine's variables, in route order.
    pub fn new(
        credentials: Vec<(Credential, sqlgate::Vars)>,
        verifier: Option<Arc<JwtVerifier>>,
        challenge: Challenge,
    ) -> Self {
        let mut open = None;
        let (mut digests, mut token_routes) = (Vec::new(), Vec::new());
        let (mut claims, mut certs) = (Vec::new(), Vec::new());
        for (i, (credential, vars)) in credentials.into_iter().enumerate() {
            match credential {
                Credential::None => open = Some(i),
                Credential::Token(t) => {
                    digests.push(token_digest(t.as_bytes()));
                    token_routes.push(i);
                }
                Credential::Claims(rule) => claims.push((i, rule, vars)),
                Credential::ClientCert(rule) => certs.push((i, rule)),
            }
        }
        Identify {
            open,
            digests,
            token_routes,
            claims,
            certs,
            verifier,
            challenge,
        }
    }

    /// The route serving a request with these headers, on a connection with this verified
    /// client certificate, and its caller; or the answer to a request no route serves.
    pub async fn route(
        &self,
        headers: &HeaderMap,
        peer: Option<&ClientCert>,
    ) -> Result<(usize, Option<Caller>), Response> {
        if let Some(i) = self.open {
            return Ok((i, None));
        }
        if let Some(cert) = peer {
            if let Some((route, _)) = self.certs.iter().find(|(_, rule)| rule.matches(cert)) {
                let caller = Caller {
                    auth: AuthMethod::Mtls,
                    issuer: Some(cert.issuer.clone()),
                    subject: Some(cert.subject.clone()),
                    client_id: None,
                    vars: None,
                    missing_write_scope: None,
                };
                return Ok((*route, Some(caller)));
            }
        }
        let value = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok());
        let Some(token) = bearer_of(value).filter(|t| !t.is_empty()) else {
            if let Some(cert) = peer.filter(|_| !self.certs.is_empty()) {
                return Err(self.challenge.forbidden(&format!(
                    "no principal of this server serves the client certificate `{}`",
                    cert.subject
                )));
            }
            return Err(self.challenge.missing_token());
        };
        if let Some(k) = route_for(Some(token), &self.digests) {
            return Ok((self.token_routes[k], Some(Caller::static_token())));
        }
        let Some(verifier) = &self.verifier else {
            return Err(self.challenge.invalid_token("unknown bearer token"));
        };
        let verified = match verifier.verify(token).await {
            Ok(Ok(t)) => t,
            Ok(Err(missing)) => return Err(self.challenge.insufficient_scope(&missing.0)),
            Err(e) => return Err(self.challenge.invalid_token(&e.to_string())),
        };
        let Some((route, rule, base)) = self
            .claims
            .iter()
            .find(|(_, rule, _)| rule.matches(&verified.claims))
        else {
            return Err(self
                .challenge
                .forbidden("no principal of this server serves this token's claims"));
        };
        let vars = rule
            .bind(base, &verified.claims)
            .map_err(|e| self.challenge.forbidden(&e.to_string()))?;
        let write_scope = &verifier.settings().write_scope;
        let caller = Caller {
            auth: AuthMethod::Jwt,
            issuer: verified.issuer(),
            subject: verified.subject(),
            client_id: verified.client_id(),
            vars: Some(vars),
            missing_write_scope: (!verified.has_scope(write_scope)).then(|| write_scope.clone()),
        };
        Ok((*route, Some(caller)))
    }
}
