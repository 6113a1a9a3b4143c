//! Asking the user to approve one previewed mutation: an MCP `elicitation/create` in form mode
//! whose schema is a single boolean `approve`, under the approval timeout ([`Elicitation`], the
//! gate's [`Approver`] in a session).

use std::time::Duration;

use rmcp::service::{ElicitationError, Peer, ServiceError};
use rmcp::RoleServer;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::gate::approval::{ApprovalAnswer, ApprovalRequest, Approver};

/// The form: one boolean.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ApprovalForm {
    /// True to run the mutation.
    pub approve: bool,
}

rmcp::elicit_safe!(ApprovalForm);

/// Asks the client's user through `peer`, waiting at most `timeout`.
pub async fn ask(
    peer: &Peer<RoleServer>,
    request: &ApprovalRequest,
    timeout: Duration,
) -> ApprovalAnswer {
    let asked = peer
        .elicit_with_timeout::<ApprovalForm>(request.message(), Some(timeout))
        .await;
    match asked {
        Ok(Some(ApprovalForm { approve: true })) => ApprovalAnswer::Accepted,
        Ok(Some(ApprovalForm { approve: false })) => ApprovalAnswer::Declined,
        Err(ElicitationError::UserDeclined) => ApprovalAnswer::Declined,
        Err(ElicitationError::CapabilityNotSupported) => ApprovalAnswer::Unavailable,
        // The client refused the request itself (e.g. an older protocol without elicitation).
        Err(ElicitationError::Service(ServiceError::McpError(_))) => ApprovalAnswer::Unavailable,
        // Cancelled, timed out, no content, an answer that is not the form: not an approval.
        Ok(None) | Err(_) => ApprovalAnswer::Cancelled,
    }
}

/// The approval asked by elicitation on the client's session.
pub struct Elicitation<'a> {
    /// The client's session.
    pub peer: &'a Peer<RoleServer>,
    /// How long the user has to answer.
    pub timeout: Duration,
}

impl Approver for Elicitation<'_> {
    async fn approve(self, request: ApprovalRequest) -> ApprovalAnswer {
        ask(self.peer, &request, self.timeout).await
    }
}
