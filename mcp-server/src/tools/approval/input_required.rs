//! `run_mutation`'s approval without a session (MCP 2026-07-28, SEP-2322): the first call
//! previews and answers `input_required`, with the approval form and a sealed `requestState`;
//! the client asks its user and calls again with the answer and the state, which this module
//! opens and checks before the engine runs everything again from the start.
//!
//! The state is sealed with rmcp's `RequestStateCodec` (HMAC-SHA256 under the server's
//! approval key, an expiry equal to the approval timeout). It names the tool, the exact SQL
//! (its SHA-256), the caller it was issued to (principal, authentication, token subject, bound
//! variables), the mode, the preview's row count and digest, and a nonce: a state that was
//! tampered with, has expired, is brought back for another tool, other SQL or by another
//! caller, or was already used on this instance, is refused with its own code, and nothing
//! runs.

use std::future::Future;
use std::time::{Duration, Instant};

use rmcp::model::{
    ElicitRequest, ElicitRequestParams, ElicitationSchema, InputRequest, InputRequests,
    InputRequiredResult, InputResponses, RequestStateCodec, RequestStateError, SealOptions,
};
use serde::{Deserialize, Serialize};

use crate::audit::chain::sha256_hex;
use crate::codes::{MutationCode, Stage};
use crate::gate::approval::{ApprovalAnswer, ApprovalRequest, Approver};
use crate::gate::approvals::ApprovalLedger;
use crate::tools::approval::elicitation::ApprovalForm;
use crate::tools::error::ToolError;

/// The key of the approval in `inputRequests` / `inputResponses`.
pub const INPUT_KEY: &str = "approval";

/// What a sealed state says (readable by the client; integrity is the seal's). Nothing else
/// sealed with the same key (an external approval's id) reads as one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalState {
    /// The tool whose call the user was asked about (`run_mutation` or `run_mutations`).
    pub tool: String,
    /// SHA-256 (hex) of the exact SQL approved.
    pub sql: String,
    /// Who it was issued to (see [`caller_binding`]).
    pub caller: String,
    /// The mode it was issued under.
    pub mode: String,
    /// The preview's row count.
    pub preview_rows: u64,
    /// The preview's digest.
    pub preview_digest: String,
    /// Names this approval (single use).
    pub nonce: String,
}

/// The caller a state is bound to, as text: the principal and the caller's identity (how it
/// authenticated, the token's or certificate's issuer and subject, its OAuth client, and the
/// variables its row filters were bound with).
pub fn caller_binding(parts: &[Option<&str>]) -> String {
    parts
        .iter()
        .map(|p| p.unwrap_or("-"))
        .collect::<Vec<_>>()
        .join("\u{1f}")
}

/// The codec of the server's key; none when the key could not be made (refused, fail closed).
fn codec(ledger: &ApprovalLedger) -> Result<RequestStateCodec, ToolError> {
    match ledger.key() {
        Some(key) => Ok(RequestStateCodec::new_unchecked(key.to_vec())),
        None => Err(state_error(
            MutationCode::ApprovalUnavailable,
            "this server has no key to seal approvals with (its random source failed at start); \
             nothing was changed",
            "tell the operator: set approval_key_env, or restart the server",
        )),
    }
}

/// The `input_required` answer asking the user to approve `request`, with its sealed state.
pub fn ask(
    ledger: &ApprovalLedger,
    request: &ApprovalRequest,
    caller: &str,
    mode: &str,
    ttl: Duration,
) -> Result<InputRequiredResult, ToolError> {
    let state = ApprovalState {
        tool: request.tool.to_string(),
        sql: sha256_hex(request.sql.as_bytes()),
        caller: caller.to_string(),
        mode: mode.to_string(),
        preview_rows: request.preview_rows,
        preview_digest: request.preview_digest.clone(),
        nonce: ApprovalLedger::nonce().ok_or_else(|| {
            ToolError::bad_request("cannot make a nonce for the approval".to_string(), None)
        })?,
    };
    let sealed = codec(ledger)?
        .seal_json_with(&state, &SealOptions::new().ttl(ttl))
        .map_err(|e| ToolError::bad_request(format!("cannot seal the approval: {e}"), None))?;
    let mut schema = ElicitationSchema::from_type::<ApprovalForm>()
        .map_err(|e| ToolError::bad_request(format!("approval form: {e}"), None))?;
    schema.title = Some(format!("Approve the {} call", request.tool).into());
    let form = ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: request.message(),
        requested_schema: schema,
    });
    let mut requests = InputRequests::new();
    requests.insert(INPUT_KEY.to_string(), InputRequest::Elicitation(form));
    Ok(InputRequiredResult::new(Some(requests), Some(sealed)))
}

/// Opens a state the client brought back: integrity and expiry (the rest is checked against
/// the call by [`answer`]).
pub fn open(ledger: &ApprovalLedger, sealed: &str) -> Result<ApprovalState, ToolError> {
    codec(ledger)?
        .open_json::<ApprovalState>(sealed)
        .map_err(|e| match e {
            RequestStateError::Expired => state_error(
                MutationCode::ApprovalStateExpired,
                "the approval expired (older than the approval timeout); nothing was changed",
                "call run_mutation again without requestState to preview and ask again",
            ),
            _ => state_error(
                MutationCode::ApprovalStateInvalid,
                "the requestState is not one this server sealed, or was altered; nothing was changed",
                "send the requestState back exactly as received, or call run_mutation again without it",
            ),
        })
}

/// The user's answer to `request`, from the retry's input responses, once the state is checked
/// against this call: the same tool and SQL, the same caller and mode, the same preview; a
/// state is used once (its expiry `until`).
pub fn answer(
    ledger: &ApprovalLedger,
    state: &ApprovalState,
    request: &ApprovalRequest,
    binding: (&str, &str),
    responses: Option<&InputResponses>,
    until: Instant,
) -> ApprovalAnswer {
    let (caller, mode) = binding;
    if state.tool != request.tool {
        return ApprovalAnswer::StateForOtherTool;
    }
    if state.sql != sha256_hex(request.sql.as_bytes()) {
        return ApprovalAnswer::StateForOtherSql;
    }
    if state.caller != caller || state.mode != mode {
        return ApprovalAnswer::StateForOtherCaller;
    }
    if !ledger.use_once(&state.nonce, until) {
        return ApprovalAnswer::StateReplayed;
    }
    if state.preview_rows != request.preview_rows || state.preview_digest != request.preview_digest
    {
        return ApprovalAnswer::Changed;
    }
    let Some(reply) = responses.and_then(|r| r.get(INPUT_KEY)) else {
        return ApprovalAnswer::Cancelled;
    };
    match reply.get("action").and_then(|a| a.as_str()) {
        Some("accept") => match reply.pointer("/content/approve").and_then(|v| v.as_bool()) {
            Some(true) => ApprovalAnswer::Accepted,
            Some(false) => ApprovalAnswer::Declined,
            None => ApprovalAnswer::Cancelled,
        },
        Some("decline") => ApprovalAnswer::Declined,
        _ => ApprovalAnswer::Cancelled,
    }
}

/// The approval of an `input_required` call: on a retry, the answer its state and input
/// responses give ([`answer`]); on a first call, [`ApprovalAnswer::Ask`] when the client can
/// ask its user, else [`ApprovalAnswer::Unavailable`].
pub struct Retry<'a> {
    /// The server's approvals (the key, the states used).
    pub ledger: &'a ApprovalLedger,
    /// The retry's state, opened.
    pub state: Option<&'a ApprovalState>,
    /// The caller and mode the call is made under.
    pub binding: (&'a str, &'a str),
    /// The retry's input responses.
    pub responses: Option<&'a InputResponses>,
    /// The state's expiry.
    pub until: Instant,
    /// Whether the client announced elicitation.
    pub can_elicit: bool,
}

impl Approver for Retry<'_> {
    fn approve(self, request: ApprovalRequest) -> impl Future<Output = ApprovalAnswer> {
        std::future::ready(match (self.state, self.can_elicit) {
            (Some(st), _) => answer(
                self.ledger,
                st,
                &request,
                self.binding,
                self.responses,
                self.until,
            ),
            (None, true) => ApprovalAnswer::Ask,
            (None, false) => ApprovalAnswer::Unavailable,
        })
    }
}

fn state_error(code: MutationCode, message: &str, hint: &str) -> ToolError {
    ToolError::mutation(code, Stage::Approval, message, hint)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use sqlgate::QueryClass;

    fn request() -> ApprovalRequest {
        ApprovalRequest {
            tool: "run_mutation",
            query_class: QueryClass::MutationCreate,
            sql: "UPDATE orders SET status = 'x' WHERE id = 1".into(),
            target: "orders".into(),
            preview_rows: 1,
            preview_digest: "d1".into(),
            statements: Vec::new(),
        }
    }

    fn accept(approve: bool) -> InputResponses {
        let mut r = InputResponses::new();
        r.insert(
            INPUT_KEY.into(),
            json!({"action": "accept", "content": {"approve": approve}}),
        );
        r
    }

    fn issued(ledger: &ApprovalLedger, ttl: Duration) -> String {
        ask(ledger, &request(), "alice", "safe", ttl)
            .ok()
            .and_then(|r| r.request_state)
            .unwrap_or_default()
    }

    #[test]
    fn a_sealed_state_round_trips_and_answers_once() {
        let ledger = ApprovalLedger::random();
        let sealed = issued(&ledger, Duration::from_secs(60));
        let state = open(&ledger, &sealed).expect("opens");
        let later = Instant::now() + Duration::from_secs(60);
        let yes = accept(true);
        let answer_with =
            |r: &ApprovalRequest, who: (&str, &str), resp: Option<&InputResponses>| {
                answer(&ledger, &state, r, who, resp, later)
            };
        let other_sql = ApprovalRequest {
            sql: "UPDATE orders SET status = 'y' WHERE id = 1".into(),
            ..request()
        };
        // The same statement through the batch tool: the state approved run_mutation's call.
        let other_tool = ApprovalRequest {
            tool: "run_mutations",
            ..request()
        };
        assert_eq!(
            answer_with(&other_tool, ("alice", "safe"), Some(&yes)),
            ApprovalAnswer::StateForOtherTool
        );
        assert_eq!(
            answer_with(&other_sql, ("alice", "safe"), Some(&yes)),
            ApprovalAnswer::StateForOtherSql
        );
        assert_eq!(
            answer_with(&request(), ("bob", "safe"), Some(&yes)),
            ApprovalAnswer::StateForOtherCaller
        );
        assert_eq!(
            answer_with(&request(), ("alice", "full_access"), Some(&yes)),
            ApprovalAnswer::StateForOtherCaller
        );
        assert_eq!(
            answer_with(&request(), ("alice", "safe"), Some(&yes)),
            ApprovalAnswer::Accepted
        );
        assert_eq!(
            answer_with(&request(), ("alice", "safe"), Some(&yes)),
            ApprovalAnswer::StateReplayed
        );
    }

    #[test]
    fn answers_from_the_form() {
        let ledger = ApprovalLedger::random();
        let later = Instant::now() + Duration::from_secs(60);
        let mut decline = InputResponses::new();
        decline.insert(INPUT_KEY.into(), json!({"action": "decline"}));
        let mut cancel = InputResponses::new();
        cancel.insert(INPUT_KEY.into(), json!({"action": "cancel"}));
        let changed = ApprovalRequest {
            preview_rows: 2,
            ..request()
        };
        let cases: [(Option<InputResponses>, &ApprovalRequest, ApprovalAnswer); 5] = [
            (Some(accept(false)), &request(), ApprovalAnswer::Declined),
            (Some(decline), &request(), ApprovalAnswer::Declined),
            (Some(cancel), &request(), ApprovalAnswer::Cancelled),
            (None, &request(), ApprovalAnswer::Cancelled),
            (Some(accept(true)), &changed, ApprovalAnswer::Changed),
        ];
        for (responses, r, expected) in cases {
            let state = open(&ledger, &issued(&ledger, Duration::from_secs(60))).expect("opens");
            let got = answer(
                &ledger,
                &state,
                r,
                ("alice", "safe"),
                responses.as_ref(),
                later,
            );
            assert_eq!(got, expected);
        }
    }

    #[test]
    fn tampered_foreign_and_expired_states_are_refused() {
        let ledger = ApprovalLedger::random();
        let sealed = issued(&ledger, Duration::from_secs(60));
        let code = |s: &str, l: &ApprovalLedger| open(l, s).err().map(|e| e.code);
        let invalid = Some(crate::codes::ToolCode::Mutation(
            MutationCode::ApprovalStateInvalid,
        ));
        // Another server's key.
        assert_eq!(code(&sealed, &ApprovalLedger::random()), invalid);
        // One character changed anywhere.
        let mut bytes = sealed.clone().into_bytes();
        let i = bytes.len() / 2;
        bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
        assert_eq!(
            code(&String::from_utf8(bytes).unwrap_or_default(), &ledger),
            invalid
        );
        assert_eq!(code("garbage", &ledger), invalid);
        let expired = issued(&ledger, Duration::from_millis(1));
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(
            code(&expired, &ledger),
            Some(crate::codes::ToolCode::Mutation(
                MutationCode::ApprovalStateExpired
            ))
        );
    }
}
