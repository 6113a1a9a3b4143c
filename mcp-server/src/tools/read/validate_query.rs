//! `validate_query`: core's verdict on one query without running it, with the planner's estimate
//! when the backend gives one.

use rmcp::model::CallToolResult;
use sqlgate::Verdict;

use crate::audit::{AuditRecord, Decision};
use crate::codes::BuiltinTool;
use crate::gate::{Engine, EstimateOutput};
use crate::tools::args::SqlArgs;
use crate::tools::hints;
use crate::tools::result::success;

/// Checks `args.sql`; returns the audit record and the result.
pub async fn handle(engine: &Engine, args: &SqlArgs) -> (AuditRecord, CallToolResult) {
    let mut out = engine.validate_with_estimate(&args.sql).await;
    let class = out.verdict.query_class;
    if let Some(e) = out.verdict.error.as_mut() {
        // A refusal's hint names the tool that helps.
        let hint = hints::with_tool(e.code, e.hint.as_deref());
        e.hint = hints::for_run_query(class, engine.mode().writes(), hint.as_deref());
    }
    let v = &out.verdict;
    let decision = if v.allowed {
        Decision::Allow
    } else {
        Decision::Refuse
    };
    let rec = AuditRecord {
        code: v.error.as_ref().map(|e| e.code.into()),
        query_class: Some(v.query_class),
        sql: Some(args.sql.clone()),
        ..AuditRecord::new(BuiltinTool::ValidateQuery.as_str(), decision)
    };
    let mut rendering = render_verdict(v);
    if let Some(e) = &out.estimate {
        rendering.push_str(&render_estimate(e));
    }
    (rec, success(&out, rendering))
}

/// A verdict in one or two lines.
pub fn render_verdict(v: &Verdict) -> String {
    if v.allowed {
        let mut s = format!(
            "Allowed ({}). Would execute: {}",
            v.query_class.as_str(),
            v.sql.as_deref().unwrap_or("")
        );
        if let Some(l) = &v.limit {
            if let Some(value) = l.value {
                s.push_str(&format!(" [row cap {value}]"));
            }
        }
        s
    } else {
        match &v.error {
            Some(e) => {
                let mut s = format!(
                    "Refused ({}): {}: {}",
                    v.query_class.as_str(),
                    e.code.as_str(),
                    e.message
                );
                if let Some(h) = &e.hint {
                    s.push_str(&format!("\nHint: {h}"));
                }
                s
            }
            None => "Refused.".to_string(),
        }
    }
}

/// The planner's estimate under a verdict.
pub fn render_estimate(e: &EstimateOutput) -> String {
    let cost = e.cost.map(|c| format!("cost {c:.0}, ")).unwrap_or_default();
    let mut s = format!(
        "\nPlanner estimate: {cost}{:.0} rows at the largest step ({}).",
        e.rows, e.largest_step
    );
    if let Some(why) = &e.over_cap {
        s.push_str(&format!(" run_query would refuse it: {why}."));
    }
    s
}
