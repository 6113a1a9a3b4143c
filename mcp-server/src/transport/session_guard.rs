//! The HTTP side of [`super::sessions`]: a request naming a session (`Mcp-Session-Id`, any
//! method) is handed to rmcp only when the session is its caller's; any other is answered
//! exactly as rmcp answers an unknown session (404, same body, same headers), whether the
//! session exists or not, and audited (`tool: "mcp_session"`, code `session_not_owned` or
//! `session_not_found`). A JSON-RPC response on a session is taken only when it answers a
//! request of that session still waiting (else 400 with a JSON-RPC error, code
//! `response_not_awaited`).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use http::{Method, StatusCode};

use super::frame::{Reject, INVALID_REQUEST};
use super::http_body::{answer, Answering};
use super::sessions::{Lookup, Owner, Owners};
use crate::audit::{Audit, AuditRecord, Decision};
use crate::codes::AccessCode;
use crate::tools::caller::Caller;

/// The audit records' tool name for a request refused for the session it named.
pub const SESSION_TOOL: &str = "mcp_session";

/// The session header (`Mcp-Session-Id`).
const HEADER: &str = "mcp-session-id";

/// rmcp's answer to a request naming an unknown session, byte for byte (its status, body and
/// headers: no `Content-Type`).
pub fn not_found() -> Response {
    let mut r = Response::new(Body::from("Not Found: Session not found"));
    *r.status_mut() = StatusCode::NOT_FOUND;
    r
}

/// The session a request names, when its header is text.
pub fn session_of(req: &Request) -> Option<&str> {
    req.headers().get(HEADER).and_then(|v| v.to_str().ok())
}

/// Who owns which session, and where refusals are recorded.
pub struct SessionGuard {
    owners: Arc<Owners>,
    audit: Audit,
    /// Each route's principal (for the audit record).
    principals: Vec<Option<String>>,
}

/// The one request being judged: its method, the session it names, and who sent it.
pub struct Asking<'a> {
    /// The HTTP method.
    pub method: &'a Method,
    /// The session named.
    pub session: &'a str,
    /// Its owner, were it the caller's.
    pub owner: &'a Owner,
    /// The verified caller, if the route has one.
    pub caller: Option<&'a Caller>,
}

impl SessionGuard {
    /// A guard over `owners`, auditing to `audit`; `principals` in route order.
    pub fn new(owners: Arc<Owners>, audit: Audit, principals: Vec<Option<String>>) -> Self {
        SessionGuard {
            owners,
            audit,
            principals,
        }
    }

    /// `Ok` when the session named is the caller's; else the unknown session's 404, once the
    /// attempt is recorded.
    pub async fn admit(&self, asking: &Asking<'_>) -> Result<(), Response> {
        let code = match self.owners.lookup(asking.session, asking.owner) {
            Lookup::Owned => return Ok(()),
            Lookup::Foreign => AccessCode::SessionNotOwned,
            Lookup::Unknown => AccessCode::SessionNotFound,
        };
        // Foreign and unknown take the same path, audit write included: the answer and its
        // timing say nothing about whether the session exists.
        self.refused(asking, code, None).await;
        Err(not_found())
    }

    /// `Ok` unless the message is a response that no request of the session waits for; that
    /// one is refused with a JSON-RPC error (400) and recorded.
    pub async fn admit_answer(
        &self,
        asking: &Asking<'_>,
        answering: &Answering,
    ) -> Result<(), Response> {
        let id = match answering {
            Answering::Nothing => return Ok(()),
            Answering::Request(id) if self.owners.awaits(asking.session, id) => return Ok(()),
            Answering::Request(id) => serde_json::to_value(id).unwrap_or_default(),
            Answering::Unnamed => serde_json::Value::Null,
        };
        let call_id = (!id.is_null()).then(|| id.to_string());
        self.refused(asking, AccessCode::ResponseNotAwaited, call_id)
            .await;
        Err(answer(&Reject {
            code: INVALID_REQUEST,
            message: "Invalid request: no request of this session waits for a response with \
                      this id"
                .into(),
            id,
            too_large: false,
        }))
    }

    async fn refused(&self, asking: &Asking<'_>, code: AccessCode, call_id: Option<String>) {
        let mut rec = AuditRecord::new(SESSION_TOOL, Decision::Refuse);
        rec.code = Some(code.into());
        rec.principal = self.principals.get(asking.owner.route).cloned().flatten();
        if let Some(c) = asking.caller {
            rec.auth = Some(c.auth);
            rec.auth_issuer.clone_from(&c.issuer);
            rec.auth_subject.clone_from(&c.subject);
            rec.auth_client_id.clone_from(&c.client_id);
        }
        rec.session_id = Some(asking.session.to_string());
        rec.http_method = Some(asking.method.to_string());
        rec.call_id = call_id;
        if let Err(e) = self.audit.record(rec).await {
            tracing::error!("audit log write failed ({e}) for a refused session request");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_404_is_rmcps() {
        let r = not_found();
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
        assert!(r.headers().is_empty(), "{:?}", r.headers());
    }
}
