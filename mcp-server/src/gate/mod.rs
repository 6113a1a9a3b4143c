//! The gate: one principal's [`Engine`], a backend, the core guard built from its policy and the
//! live catalog ([`catalog`]), and the operations a front door calls: the reads here (list,
//! describe, validate, run, the cost cap), the writes in [`write`] (check, preview, bound,
//! approval through the front door's [`approval::Approver`], commit; the write mode in
//! [`mode`]). It answers domain results and a [`error::GateError`], never a front door's shape:
//! the MCP server (`tools/`) and the `demo` command both drive it, each wording them its way.

// A GateError carries what refused (core's rejection, the database's error) by value on purpose.
#![allow(clippy::result_large_err)]

pub mod approval;
pub mod approvals;
pub mod callers;
pub mod catalog;
pub mod error;
pub mod mode;
pub mod output;
pub mod published;
pub mod quota;
pub mod writable;
pub mod write;

use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use sqlgate::{Approved, Guard, Policy, ReadAccess, Vars, Verdict};

use crate::backend::cost::CostCap;
use crate::backend::{Backend, DbError, Params, QueryLimits, TableDetail, NO_PARAMS};
use crate::gate::catalog::{build_snapshot, Snapshot};
use crate::gate::error::{GateError, Refused};
use crate::gate::mode::Mode;
pub use output::{
    EstimateOutput, ListTablesOutput, RunQueryOutput, RunTrace, TableSummary, ValidateOutput,
};

/// Default result size cap: 1 MiB.
pub const DEFAULT_MAX_RESULT_BYTES: usize = 1024 * 1024;
/// Default statement timeout.
pub const DEFAULT_STATEMENT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default wait for the user's approval of a mutation.
pub const DEFAULT_APPROVAL_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// Engine settings.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Policy without catalog; its `max_rows` is the row cap returned to callers.
    pub policy: Policy,
    /// Cap on the JSON size of returned rows.
    pub max_result_bytes: usize,
    /// Statement timeout.
    pub statement_timeout: Duration,
    /// Write mode (`run_mutation` and who approves).
    pub mode: Mode,
    /// How long `run_mutation` waits for the user's approval.
    pub approval_timeout: Duration,
}

impl EngineConfig {
    /// Read-only settings: `policy`, `timeout` per statement, 1 MiB results.
    pub fn read_only(policy: Policy, timeout: Duration) -> Self {
        EngineConfig {
            policy,
            max_result_bytes: DEFAULT_MAX_RESULT_BYTES,
            statement_timeout: timeout,
            mode: Mode::ReadOnly,
            approval_timeout: DEFAULT_APPROVAL_TIMEOUT,
        }
    }
}

/// Backend + guard + catalog, for one principal (or the server's own policy): several engines
/// may share one backend (its pool), each with its own policy, variables and mode.
pub struct Engine {
    backend: Arc<Backend>,
    principal: Option<String>,
    vars: Vars,
    config: EngineConfig,
    snapshot: RwLock<Arc<Snapshot>>,
    enabled_tools: Option<Vec<String>>,
    cost_cap: CostCap,
    /// Engines for callers whose token binds other variables or narrows the mode
    /// ([`callers`]), by what they bind.
    per_caller: Mutex<callers::PerCaller>,
    /// The principal's quota, shared with those engines.
    quota: Arc<quota::Quota>,
    /// The approvals asked for by `input_required`: shared by every engine of the server.
    approvals: Arc<approvals::ApprovalLedger>,
    /// The queries and prompts the operator publishes to this principal.
    published: Arc<published::Published>,
}

impl Engine {
    /// Connects the engine: introspects the database and builds the guard.
    pub async fn new(backend: Backend, config: EngineConfig) -> Result<Engine, String> {
        Self::with_vars(Arc::new(backend), config, None, Vars::new()).await
    }

    /// An engine over a shared `backend` serving `principal` (named in every audit record)
    /// with `vars` bound to its row filters in every check.
    pub async fn with_vars(
        backend: Arc<Backend>,
        config: EngineConfig,
        principal: Option<String>,
        vars: Vars,
    ) -> Result<Engine, String> {
        Guard::new(config.policy.clone()).map_err(|e| e.to_string())?;
        let tables = backend
            .introspect()
            .await
            .map_err(|e| format!("cannot read the schema: {e}"))?;
        let snapshot = build_snapshot(&config.policy, tables, &vars)?;
        Ok(Engine {
            backend,
            principal,
            vars,
            config,
            snapshot: RwLock::new(Arc::new(snapshot)),
            enabled_tools: None,
            cost_cap: CostCap::default(),
            per_caller: Mutex::default(),
            quota: Arc::default(),
            approvals: Arc::new(approvals::ApprovalLedger::random()),
            published: Arc::default(),
        })
    }

    /// Publishes only these tools (`--tools`); `None` publishes all.
    pub fn set_enabled_tools(&mut self, names: Option<Vec<String>>) {
        self.enabled_tools = names;
    }

    /// Refuses approved reads whose planner estimate is over `cap` (`--max-cost`,
    /// `--max-estimated-rows`), where the engine gives an estimate.
    pub fn set_cost_cap(&mut self, cap: CostCap) {
        self.cost_cap = cap;
    }

    /// The cost cap in force.
    pub fn cost_cap(&self) -> CostCap {
        self.cost_cap
    }

    /// Limits the principal's calls, rows and mutations (`quota`); nothing used yet.
    pub fn set_quota(&mut self, limits: quota::QuotaLimits) {
        self.quota = Arc::new(quota::Quota::new(limits));
    }

    /// Seals and remembers approvals with `ledger` (one for the whole server).
    pub fn set_approvals(&mut self, ledger: Arc<approvals::ApprovalLedger>) {
        self.approvals = ledger;
    }

    /// The approvals' ledger.
    pub fn approvals(&self) -> &approvals::ApprovalLedger {
        &self.approvals
    }

    /// The principal's quota and what it used.
    pub fn quota(&self) -> &quota::Quota {
        &self.quota
    }

    /// The tools the operator enabled (`None`: all).
    pub fn enabled_tools(&self) -> Option<&[String]> {
        self.enabled_tools.as_deref()
    }

    fn snapshot(&self) -> Arc<Snapshot> {
        match self.snapshot.read() {
            Ok(s) => s.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// The guard in force (policy + live catalog).
    pub fn guard(&self) -> Arc<Guard> {
        self.snapshot().guard.clone()
    }

    /// The backend.
    pub fn backend(&self) -> &Backend {
        &self.backend
    }

    /// The backend, to share with another engine.
    pub fn shared_backend(&self) -> Arc<Backend> {
        self.backend.clone()
    }

    /// The principal this engine serves (`None`: the server's own policy, no principals).
    pub fn principal(&self) -> Option<&str> {
        self.principal.as_deref()
    }

    /// The row filter variables bound in every check.
    pub fn vars(&self) -> &Vars {
        &self.vars
    }

    /// The write mode.
    pub fn mode(&self) -> Mode {
        self.config.mode
    }

    /// How long `run_mutation` waits for an approval.
    pub fn approval_timeout(&self) -> Duration {
        self.config.approval_timeout
    }

    /// The policy (without catalog).
    pub fn policy(&self) -> &Policy {
        &self.config.policy
    }

    /// The statement timeout.
    pub fn statement_timeout(&self) -> Duration {
        self.config.statement_timeout
    }

    /// The cap on the JSON size of returned rows.
    pub fn max_result_bytes(&self) -> usize {
        self.config.max_result_bytes
    }

    /// Tables a mutation may modify (qualified names), empty in `read_only` mode.
    pub fn writable_tables(&self) -> Arc<Vec<String>> {
        if !self.config.mode.writes() {
            return Arc::new(Vec::new());
        }
        self.snapshot().writable.clone()
    }

    /// The row cap returned to callers.
    pub fn row_cap(&self) -> Option<u64> {
        self.config.policy.max_rows
    }

    /// Reloads the catalog from the database.
    pub async fn refresh(&self) -> Result<(), GateError> {
        let tables = self
            .backend
            .introspect()
            .await
            .map_err(GateError::Database)?;
        let snapshot = build_snapshot(&self.config.policy, tables, &self.vars)
            .map_err(|m| GateError::bad_request(m, None))?;
        match self.snapshot.write() {
            Ok(mut s) => *s = Arc::new(snapshot),
            Err(poisoned) => *poisoned.into_inner() = Arc::new(snapshot),
        }
        Ok(())
    }

    /// The tables: reloads the catalog, then lists what the policy allows.
    pub async fn tables(&self) -> Result<ListTablesOutput, GateError> {
        // A reload failure falls back to the last catalog only when there is one to show.
        if let Err(e) = self.refresh().await {
            if self.snapshot().tables.is_empty() {
                return Err(e);
            }
        }
        let snap = self.snapshot();
        Ok(ListTablesOutput {
            tables: snap
                .tables
                .iter()
                .map(|t| TableSummary {
                    schema: t.schema.clone(),
                    name: t.name.clone(),
                    kind: t.kind.clone(),
                    estimated_rows: t.estimated_rows,
                    comment: t.comment.clone(),
                    row_filtered: t.row_filtered,
                })
                .collect(),
        })
    }

    /// One table's detail: the guard decides whether the name exists and may be read.
    pub fn describe(&self, name: &str) -> Result<TableDetail, GateError> {
        let snap = self.snapshot();
        if !sqlgate::is_table_path(name, snap.guard.policy().dialect) {
            return Err(GateError::NotATable);
        }
        let resolved = match snap.guard.read_access(name, &self.vars) {
            ReadAccess::Readable { table, .. } => table,
            ReadAccess::Refused(e) => return Err(GateError::Access(e)),
        };
        let lower = resolved.to_lowercase();
        let found = snap
            .tables
            .iter()
            .find(|t| t.qualified_name() == resolved || t.name == resolved)
            .or_else(|| {
                snap.tables.iter().find(|t| {
                    t.qualified_name().to_lowercase() == lower || t.name.to_lowercase() == lower
                })
            });
        found.cloned().ok_or_else(|| GateError::NotInCatalog {
            name: name.trim().to_string(),
        })
    }

    /// `validate_query`: the verdict, with the planner's estimate of an allowed query (a failed
    /// EXPLAIN leaves it out: the verdict stands on its own).
    pub async fn validate_with_estimate(&self, sql: &str) -> ValidateOutput {
        let verdict = self.validate(sql);
        let estimate = match (&verdict.sql, verdict.allowed) {
            (Some(approved), true) => self
                .backend
                .estimate(approved, self.config.statement_timeout)
                .await
                .ok()
                .flatten()
                .map(|e| EstimateOutput {
                    over_cap: self.cost_cap.exceeded_by(&e),
                    cost: e.cost,
                    rows: e.rows,
                    largest_step: e.advice,
                }),
            _ => None,
        };
        ValidateOutput { verdict, estimate }
    }

    /// The cost cap: the planner's estimate of approved `sql`, refused with `too_expensive`
    /// when over a cap. No cap, or an engine without estimates (SQLite): nothing to check.
    async fn over_cost_cap(&self, sql: &str) -> Result<(), DbError> {
        if !self.cost_cap.is_set() {
            return Ok(());
        }
        let Some(estimate) = self
            .backend
            .estimate(sql, self.config.statement_timeout)
            .await?
        else {
            return Ok(());
        };
        match self.cost_cap.exceeded_by(&estimate) {
            None => Ok(()),
            Some(why) => Err(DbError::too_expensive(why, estimate.advice)),
        }
    }

    /// `validate_query`: the guard's verdict, no execution (a refusal's hint is core's; a front
    /// door adds its own words).
    pub fn validate(&self, sql: &str) -> Verdict {
        // Nothing binds a value here: a placeholder is refused, as run_query refuses it.
        let checked = self
            .guard()
            .check_with(sql, &self.vars)
            .and_then(Approved::without_parameters);
        Verdict::from(checked)
    }

    /// A read: check with core, then execute the approved SQL only.
    pub async fn query(&self, sql: &str) -> (Result<RunQueryOutput, GateError>, RunTrace) {
        self.query_with(sql, None, self.config.policy.max_rows)
            .await
    }

    /// Checks `sql` with core, then executes the approved SQL only, with `params` bound to its
    /// `:name` placeholders by the driver (a published query: [`published`]; the approved SQL
    /// must name exactly those parameters) and at most `max_rows` rows.
    pub async fn query_with(
        &self,
        sql: &str,
        params: Option<&Params>,
        max_rows: Option<u64>,
    ) -> (Result<RunQueryOutput, GateError>, RunTrace) {
        let mut trace = RunTrace::default();
        let guard = self.guard();
        // One row more than the cap, so that the extra row tells whether the cap cut the result.
        let fetch_cap = max_rows.map(|n| n.saturating_add(1));
        // Only a published query binds values (`params`); anywhere else a placeholder would run
        // as NULL, or fail, and answer another question than the agent's.
        let checked = guard
            .check_with_vars_and_row_cap(sql, &self.vars, fetch_cap)
            .and_then(|a| match params {
                Some(_) => Ok(a),
                None => a.without_parameters(),
            });
        let approved = match checked {
            Ok(a) => a,
            Err(r) => {
                trace.query_class = Some(r.query_class);
                let during = Refused::Read {
                    writes: self.config.mode.writes(),
                };
                return (
                    Err(GateError::Refused {
                        rejection: r,
                        during,
                    }),
                    trace,
                );
            }
        };
        trace.query_class = Some(approved.query_class);
        trace.executed_sql = Some(approved.sql.clone());
        if let Some(params) = params {
            if let Err(m) = published::same_parameters(&approved.parameters, params) {
                return (Err(GateError::bad_request(m, None)), trace);
            }
        }
        let limits = QueryLimits {
            max_rows,
            max_bytes: self.config.max_result_bytes,
            timeout: self.config.statement_timeout,
        };
        let params = params.unwrap_or(&NO_PARAMS);
        let start = Instant::now();
        // A planner estimates SQL without parameters only; a published query is the
        // operator's own, so the cost cap (a bound on what agents write) is not asked of it.
        let capped = if params.is_empty() {
            self.over_cost_cap(&approved.sql).await
        } else {
            Ok(())
        };
        let result = match capped {
            Ok(()) => {
                self.backend
                    .execute_with(&approved.sql, params, limits)
                    .await
            }
            Err(e) => Err(e),
        };
        let duration_ms = (start.elapsed().as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0;
        match result {
            Err(e) => (Err(GateError::Database(e)), trace),
            Ok(r) => (
                Ok(RunQueryOutput {
                    row_count: r.rows.len(),
                    columns: r.columns,
                    rows: r.rows,
                    truncated: r.truncated,
                    executed_sql: approved.sql,
                    query_class: approved.query_class.as_str().to_string(),
                    duration_ms,
                }),
                trace,
            ),
        }
    }
}
