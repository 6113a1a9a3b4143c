//! One principal, many callers: when a verified token binds the principal's row-filter
//! variables from its claims (one tenant per token), or its scopes narrow the mode, the call is
//! served by an engine for exactly those variables and that mode. It shares the principal's
//! backend and configuration, and its catalog is built from the tables the principal's engine
//! last read (no round trip to the database); engines are kept per binding, a bounded number.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use sqlgate::Vars;

use super::catalog::build_snapshot;
use super::error::GateError;
use super::{Engine, Mode};

/// Engines kept for other bindings; past this many, the oldest set is dropped whole (an engine
/// is rebuilt from the cached tables in well under a millisecond).
const MAX_ENGINES: usize = 256;

/// The engines built for callers, by their binding.
#[derive(Default)]
pub struct PerCaller {
    engines: HashMap<String, Arc<Engine>>,
}

impl Engine {
    /// The engine serving a caller whose token binds `vars` (`None`: this engine's own) and
    /// may write only when `writes` (a token without the write scope is served read-only).
    pub fn for_caller(
        self: &Arc<Self>,
        vars: Option<&Vars>,
        writes: bool,
    ) -> Result<Arc<Engine>, GateError> {
        let mode = if writes {
            self.config.mode
        } else {
            Mode::ReadOnly
        };
        let vars = vars.unwrap_or(&self.vars);
        if *vars == self.vars && mode == self.config.mode {
            return Ok(self.clone());
        }
        let key = format!(
            "{}\u{0}{}",
            mode.as_str(),
            serde_json::to_string(vars).unwrap_or_default()
        );
        if let Some(e) = lock(&self.per_caller).engines.get(&key) {
            return Ok(e.clone());
        }
        let mut config = self.config.clone();
        config.mode = mode;
        let tables = (*self.snapshot().introspected).clone();
        let snapshot = build_snapshot(&config.policy, tables, vars)
            .map_err(|m| GateError::bad_request(m, None))?;
        let engine = Arc::new(Engine {
            backend: self.backend.clone(),
            principal: self.principal.clone(),
            vars: vars.clone(),
            config,
            snapshot: RwLock::new(Arc::new(snapshot)),
            enabled_tools: self.enabled_tools.clone(),
            cost_cap: self.cost_cap,
            per_caller: Mutex::default(),
            quota: self.quota.clone(),
            approvals: self.approvals.clone(),
            published: self.published.clone(),
        });
        let mut cache = lock(&self.per_caller);
        if cache.engines.len() >= MAX_ENGINES {
            cache.engines.clear();
        }
        cache.engines.insert(key, engine.clone());
        Ok(engine)
    }
}

fn lock(m: &Mutex<PerCaller>) -> std::sync::MutexGuard<'_, PerCaller> {
    match m.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    }
}
