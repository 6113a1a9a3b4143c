//! How a mutation's approval is asked, each way an implementation of the gate's
//! [`Approver`](crate::gate::approval::Approver) port: by `elicitation/create` in the client's
//! session ([`elicitation`]), by `input_required` and a sealed `requestState` on MCP 2026-07-28
//! ([`input_required`]), or of an external webhook approver ([`external`]), followed by the
//! `approval_status` tool ([`status`], its own router). The request and answer are the gate's
//! ([`crate::gate::approval`]).

pub mod elicitation;
pub mod external;
pub mod input_required;
pub mod status;
