//! The stable codes of the server, each name derived (strum, serde: `snake_case`), never listed
//! by hand: the write [`Mode`], a tool error's [`ToolCode`] (core's, a database's, or
//! `run_mutation`'s [`MutationCode`]) and its [`Stage`], and each built-in tool's name and kind
//! ([`BuiltinTool`], [`ToolKind`]).

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sqlgate::{ErrorCode, QueryClass};

use crate::backend::DbErrorCode;

/// `--mode` (config `mode`).
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    clap::ValueEnum,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[value(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Mode {
    /// Reads only: no `run_mutation` tool (the default).
    #[default]
    ReadOnly,
    /// Every mutation needs the user's approval through MCP elicitation.
    Safe,
    /// Only deletes (`mutation_delete`) need approval.
    DeleteSafe,
    /// No approval: for automation, under the policy's `writes` rules and the preview's bound.
    FullAccess,
}

impl Mode {
    /// The stable snake_case name.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// How much the mode lets happen without a person: `read_only` < `safe` < `delete_safe` <
    /// `full_access`. A principal's mode may not rank above the server's.
    pub fn rank(self) -> u8 {
        // The variants are declared in rank order.
        self as u8
    }

    /// True when the mode offers `run_mutation`.
    pub fn writes(self) -> bool {
        self != Mode::ReadOnly
    }

    /// True when a mutation of `class` must be approved by a person before it commits.
    pub fn needs_approval(self, class: QueryClass) -> bool {
        match self {
            Mode::ReadOnly | Mode::FullAccess => false,
            Mode::Safe => true,
            Mode::DeleteSafe => class == QueryClass::MutationDelete,
        }
    }

    /// True when the mode asks a person (so it needs a session to elicit on).
    pub fn elicits(self) -> bool {
        matches!(self, Mode::Safe | Mode::DeleteSafe)
    }
}

/// Codes of `run_mutation`'s own refusals: the preview's bound, the approval, the commit.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum MutationCode {
    /// The preview touched more rows than the policy's `writes.max_affected_rows`.
    TooManyRows,
    /// The commit touched another number of rows than the preview (the data changed in
    /// between); rolled back.
    PreviewMismatch,
    /// The user declined the mutation.
    ApprovalDeclined,
    /// The user cancelled the approval, or did not answer before the approval timeout.
    ApprovalCancelled,
    /// The client cannot ask the user (it did not announce elicitation).
    ApprovalUnavailable,
    /// The retry's `requestState` is not one this server sealed, or was altered.
    ApprovalStateInvalid,
    /// The retry's `requestState` is older than the approval timeout.
    ApprovalStateExpired,
    /// The retry's `requestState` approves other SQL, or was issued to another caller or mode.
    ApprovalStateMismatch,
    /// The retry's `requestState` was used already.
    ApprovalStateReplayed,
    /// The external approver (`approval = { webhook = ... }`) could not be asked, or answered
    /// something else than a decision.
    ApproverUnavailable,
}

impl MutationCode {
    /// Every code.
    pub const ALL: &'static [MutationCode] = <MutationCode as strum::VariantArray>::VARIANTS;

    /// The stable snake_case string (the serde name).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A tool error's code: one of core's error codes, a database code, or a mutation code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ToolCode {
    /// The guard refused the request (or it was malformed).
    Guard(ErrorCode),
    /// The database failed the approved SQL.
    Database(DbErrorCode),
    /// `run_mutation` stopped at its preview, approval or commit.
    Mutation(MutationCode),
    /// Who is calling may not do this (a token's scopes).
    Access(AccessCode),
}

impl ToolCode {
    /// The stable snake_case string (the serde name).
    pub fn as_str(self) -> &'static str {
        match self {
            ToolCode::Guard(c) => c.as_str(),
            ToolCode::Database(c) => c.as_str(),
            ToolCode::Mutation(c) => c.as_str(),
            ToolCode::Access(c) => c.as_str(),
        }
    }
}

impl fmt::Display for ToolCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<ErrorCode> for ToolCode {
    fn from(code: ErrorCode) -> Self {
        ToolCode::Guard(code)
    }
}

impl From<MutationCode> for ToolCode {
    fn from(code: MutationCode) -> Self {
        ToolCode::Mutation(code)
    }
}

impl From<DbErrorCode> for ToolCode {
    fn from(code: DbErrorCode) -> Self {
        ToolCode::Database(code)
    }
}

/// How a caller proved who it is (`auth` in the audit record).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum AuthMethod {
    /// A static bearer token (`token_env`, `--auth-token-env`).
    Static,
    /// A JWT access token verified against its issuer's keys.
    Jwt,
    /// A client certificate verified in the TLS handshake (mutual TLS).
    Mtls,
}

impl AuthMethod {
    /// The stable snake_case name.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A refusal of who is calling, rather than of what it asked.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum AccessCode {
    /// The caller's access token lacks the scope this tool needs.
    InsufficientScope,
    /// The caller used its quota (calls, rows or mutations) for now.
    QuotaExceeded,
    /// `tools/call` named a tool this server does not have (audited; the caller gets
    /// JSON-RPC's "tool not found").
    ToolNotFound,
    /// `tools/call` named a tool this server has but does not publish to this caller (the mode,
    /// `--tools`, or no audit file): answered as [`AccessCode::ToolNotFound`], audited apart.
    ToolNotAvailable,
    /// A request named a streamable HTTP session that does not exist (never opened, closed or
    /// expired): 404, audited.
    SessionNotFound,
    /// A request named another caller's session: answered exactly as
    /// [`AccessCode::SessionNotFound`] (404), audited apart.
    SessionNotOwned,
    /// A JSON-RPC response (an approval's answer) named no request of its session that waits
    /// for one: refused (400), audited.
    ResponseNotAwaited,
}

impl AccessCode {
    /// Every code.
    pub const ALL: &'static [AccessCode] = <AccessCode as strum::VariantArray>::VARIANTS;

    /// The stable snake_case name.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

impl From<AccessCode> for ToolCode {
    fn from(code: AccessCode) -> Self {
        ToolCode::Access(code)
    }
}

/// Where a tool error arose: one of core's stages, or `execute` for database errors.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Stage {
    /// The database ran (or tried to run) the approved SQL.
    Execute,
    /// `run_mutation`'s rolled-back preview.
    Preview,
    /// `run_mutation` asking the user.
    Approval,
    /// `run_mutation`'s commit.
    Commit,
    /// Checking what the caller's credentials allow.
    Authorize,
    /// A stage of the guard (serialised as core's name).
    #[serde(untagged)]
    Guard(sqlgate::Stage),
}

impl Stage {
    /// The stable snake_case string (the serde name; a unit test keeps the two equal).
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Guard(s) => s.as_str(),
            own => own.into(),
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a built-in tool does, the one place each tool's kind is declared: what the mode, the
/// token's scopes and the quota ask of a call follow from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// Reads the catalog or the data (`list_tables`, `run_query`, ...): served in every mode.
    Read,
    /// Runs a mutation (`run_mutation`, `run_mutations`): listed in a write mode only, and only
    /// to a caller whose token grants the write scope.
    Write,
    /// Follows an external approval (`approval_status`): as a write, and only with an external
    /// approver configured.
    Approval,
    /// About the server itself (`server_info`, `audit_verify`).
    Server,
}

/// The server's built-in tools, by name (published queries are not built in).
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum BuiltinTool {
    /// `list_schemas`.
    ListSchemas,
    /// `list_tables`.
    ListTables,
    /// `describe_table`.
    DescribeTable,
    /// `validate_query`.
    ValidateQuery,
    /// `run_query`.
    RunQuery,
    /// `run_mutation`.
    RunMutation,
    /// `run_mutations`.
    RunMutations,
    /// `approval_status`.
    ApprovalStatus,
    /// `audit_verify`.
    AuditVerify,
    /// `server_info`.
    ServerInfo,
}

impl BuiltinTool {
    /// Every built-in tool.
    pub const ALL: &'static [BuiltinTool] = <BuiltinTool as strum::VariantArray>::VARIANTS;

    /// The tool's name.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The built-in tool named `name`, if one is.
    pub fn named(name: &str) -> Option<BuiltinTool> {
        Self::ALL.iter().copied().find(|t| t.as_str() == name)
    }

    /// What the tool does.
    pub const fn kind(self) -> ToolKind {
        match self {
            BuiltinTool::ListSchemas
            | BuiltinTool::ListTables
            | BuiltinTool::DescribeTable
            | BuiltinTool::ValidateQuery
            | BuiltinTool::RunQuery => ToolKind::Read,
            BuiltinTool::RunMutation | BuiltinTool::RunMutations => ToolKind::Write,
            BuiltinTool::ApprovalStatus => ToolKind::Approval,
            BuiltinTool::AuditVerify | BuiltinTool::ServerInfo => ToolKind::Server,
        }
    }

    /// True for a tool that changes data or commits an approved change: it needs a write mode
    /// and the token's write scope.
    pub const fn writes(self) -> bool {
        matches!(self.kind(), ToolKind::Write | ToolKind::Approval)
    }
}
