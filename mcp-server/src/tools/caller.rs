//! Who is calling, as the HTTP transport verified it: how (static token or JWT), the token's
//! issuer, subject and client (for the audit record, never the token), the row-filter
//! variables its claims bound, and whether its scopes allow writes. The transport puts it in
//! the request's extensions; rmcp hands the request's parts to the tools. Over stdio, and
//! without authentication, there is none: the engine's own variables and mode apply.

use rmcp::service::RequestContext;
use rmcp::RoleServer;
use sqlgate::Vars;

use crate::codes::AuthMethod;

/// A verified caller.
#[derive(Debug, Clone, PartialEq)]
pub struct Caller {
    /// How it authenticated.
    pub auth: AuthMethod,
    /// The token's `iss` (JWT).
    pub issuer: Option<String>,
    /// The token's `sub` (JWT).
    pub subject: Option<String>,
    /// The token's `client_id` or `azp` (JWT).
    pub client_id: Option<String>,
    /// The variables bound from its claims (with the principal's literal ones); `None`: the
    /// engine's own.
    pub vars: Option<Vars>,
    /// The scope `run_mutation` needs, when its token lacks it (`None`: it may write as far
    /// as the principal's mode allows).
    pub missing_write_scope: Option<String>,
}

impl Caller {
    /// A caller that presented one of the static tokens.
    pub fn static_token() -> Self {
        Caller {
            auth: AuthMethod::Static,
            issuer: None,
            subject: None,
            client_id: None,
            vars: None,
            missing_write_scope: None,
        }
    }

    /// Who this caller is, as one text: how it authenticated, the token's or certificate's
    /// issuer and subject, the OAuth client, and the variables its claims bound. Two requests
    /// of one principal are the same caller exactly when these agree; the scopes are not part
    /// of it (each request is held to its own). What a session, an outstanding request and a
    /// quota window belong to.
    pub fn identity(&self) -> String {
        // JSON of the tuple: unambiguous (no field can pass for another, none for a missing one).
        let parts = (
            self.auth,
            &self.issuer,
            &self.subject,
            &self.client_id,
            &self.vars,
        );
        serde_json::to_string(&parts).unwrap_or_default()
    }
}

/// The identity of the caller of `ctx` ([`Caller::identity`]); `None` over stdio or without
/// authentication, where every request is the one caller the server serves.
pub fn identity_of(ctx: &RequestContext<RoleServer>) -> Option<String> {
    caller_of(ctx).map(|c| c.identity())
}

/// The caller of the request `ctx` belongs to, if the transport verified one.
pub fn caller_of(ctx: &RequestContext<RoleServer>) -> Option<Caller> {
    let parts = ctx.extensions.get::<http::request::Parts>()?;
    parts.extensions.get::<Caller>().cloned()
}
