//! `--audit-format otel`: each line is one OTLP/JSON `LogsData` object (the shape the
//! OpenTelemetry Collector's OTLP JSON file receiver reads) holding one log record with the GenAI
//! and MCP semantic-convention attributes. The chain fields ride along as attributes
//! (`sqlgate.audit.seq`, `sqlgate.audit.prev`), so `audit verify` checks otel files too.

use serde_json::{json, Value};

use super::chain::{sha256_hex, Header};

/// Instrumentation scope name.
pub const SCOPE: &str = "sqlgate-mcp.audit";
/// Attribute carrying `seq`.
pub const SEQ: &str = "sqlgate.audit.seq";
/// Attribute carrying `prev`.
pub const PREV: &str = "sqlgate.audit.prev";
/// Attribute carrying a header's JSON.
pub const HEADER: &str = "sqlgate.audit.header";

/// Without a session (stdio), one trace per server process.
static PROCESS_TRACE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "stdio:{}:{}",
        std::process::id(),
        chrono::Utc::now().to_rfc3339()
    )
});

fn string(key: &str, v: &str) -> Value {
    json!({"key": key, "value": {"stringValue": v}})
}

fn int(key: &str, v: u64) -> Value {
    // OTLP/JSON encodes 64-bit integers as strings.
    json!({"key": key, "value": {"intValue": v.to_string()}})
}

/// OpenTelemetry's `db.system.name` for a sqlgate dialect.
fn db_system(dialect: &str) -> &str {
    match dialect {
        "postgres" => "postgresql",
        "mssql" => "microsoft.sql_server",
        other => other,
    }
}

fn nanos(rfc3339: Option<&str>) -> String {
    rfc3339
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .and_then(|t| t.timestamp_nanos_opt())
        .map_or_else(|| "0".into(), |n| n.to_string())
}

/// Trace and span ids: from a W3C `traceparent` when the call carried one, else one trace per
/// MCP session (derived from its id) and a span per call.
fn trace_ids(body: &Value, seq: u64) -> (String, String) {
    let s = |k: &str| body.get(k).and_then(Value::as_str);
    let span =
        sha256_hex(format!("{}:{seq}", s("call_id").unwrap_or("")).as_bytes())[..16].to_string();
    if let Some((trace, _parent)) = s("traceparent").and_then(parse_traceparent) {
        return (trace, span);
    }
    let session = s("session_id").unwrap_or(&PROCESS_TRACE);
    (sha256_hex(session.as_bytes())[..32].to_string(), span)
}

/// `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`.
pub fn parse_traceparent(tp: &str) -> Option<(String, String)> {
    let parts: Vec<&str> = tp.trim().split('-').collect();
    let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    match parts.as_slice() {
        [v, t, p, f] if hex(v, 2) && hex(t, 32) && hex(p, 16) && hex(f, 2) => {
            let t = t.to_ascii_lowercase();
            (t != "0".repeat(32)).then(|| (t, p.to_ascii_lowercase()))
        }
        _ => None,
    }
}

fn attributes(body: &Value, dialect: &str) -> Vec<Value> {
    let s = |k: &str| body.get(k).and_then(Value::as_str);
    let tool = s("tool").unwrap_or("");
    let mut a = vec![
        string("gen_ai.operation.name", "execute_tool"),
        string("gen_ai.tool.name", tool),
        string("mcp.method.name", "tools/call"),
        string("db.system.name", db_system(dialect)),
    ];
    let optional = [
        ("gen_ai.tool.call.id", "call_id"),
        ("mcp.session.id", "session_id"),
        ("sqlgate.decision", "decision"),
        ("sqlgate.query_class", "query_class"),
        ("db.query.text", "executed_sql"),
        ("error.type", "code"),
        ("sqlgate.sql", "sql"),
        ("sqlgate.sql_sha256", "sql_sha256"),
        ("sqlgate.table", "table"),
        ("sqlgate.client.name", "client"),
        ("sqlgate.client.version", "client_version"),
        ("sqlgate.principal", "principal"),
        ("sqlgate.auth", "auth"),
        ("sqlgate.auth.issuer", "auth_issuer"),
        ("sqlgate.auth.subject", "auth_subject"),
        ("sqlgate.auth.client_id", "auth_client_id"),
        ("http.request.method", "http_method"),
    ];
    for (key, field) in optional {
        if let Some(v) = s(field) {
            a.push(string(key, v));
        }
    }
    for (key, field) in [
        ("sqlgate.row_count", "row_count"),
        ("sqlgate.preview_rows", "preview_rows"),
        ("sqlgate.committed_rows", "committed_rows"),
        ("sqlgate.sql_bytes", "sql_bytes"),
    ] {
        if let Some(v) = body.get(field).and_then(Value::as_u64) {
            a.push(int(key, v));
        }
    }
    if let Some(ms) = body.get("duration_ms").and_then(Value::as_f64) {
        a.push(json!({"key": "sqlgate.duration_ms", "value": {"doubleValue": ms}}));
    }
    a
}

fn logs_data(record: Value) -> Value {
    json!({"resourceLogs": [{
        "resource": {"attributes": [string("service.name", "sqlgate-mcp")]},
        "scopeLogs": [{
            "scope": {"name": SCOPE, "version": env!("CARGO_PKG_VERSION")},
            "logRecords": [record]
        }]
    }]})
}

fn chain_attrs(a: &mut Vec<Value>, seq: u64, prev: Option<&str>) {
    a.push(int(SEQ, seq));
    if let Some(p) = prev {
        a.push(string(PREV, p));
    }
}

/// One call record as a `LogsData` line.
pub fn record(body: &Value, seq: u64, prev: Option<&str>, dialect: &str) -> Value {
    let mut attrs = attributes(body, dialect);
    chain_attrs(&mut attrs, seq, prev);
    let failed = matches!(
        body.get("decision").and_then(Value::as_str),
        Some("refuse" | "error")
    );
    let (trace, span) = trace_ids(body, seq);
    let t = nanos(body.get("time").and_then(Value::as_str));
    let tool = body.get("tool").and_then(Value::as_str).unwrap_or("");
    logs_data(json!({
        "timeUnixNano": t,
        "observedTimeUnixNano": t,
        "severityNumber": if failed { 17 } else { 9 },
        "severityText": if failed { "ERROR" } else { "INFO" },
        "body": {"stringValue": format!("execute_tool {tool}")},
        "attributes": attrs,
        "traceId": trace,
        "spanId": span,
    }))
}

/// A header as a `LogsData` line.
pub fn header(h: &Header, seq: u64, prev: Option<&str>) -> Value {
    let mut attrs = vec![string(
        HEADER,
        &serde_json::to_string(h).unwrap_or_default(),
    )];
    chain_attrs(&mut attrs, seq, prev);
    let t = nanos(Some(&h.start));
    logs_data(json!({
        "timeUnixNano": t,
        "observedTimeUnixNano": t,
        "severityNumber": 9,
        "severityText": "INFO",
        "body": {"stringValue": "sqlgate audit header"},
        "attributes": attrs,
    }))
}

/// The log record's attributes as a flat JSON object (`key` to plain value), for the verifier.
pub fn flat_attributes(line: &Value) -> Option<serde_json::Map<String, Value>> {
    let rec = line
        .pointer("/resourceLogs/0/scopeLogs/0/logRecords/0")?
        .as_object()?;
    let mut out = serde_json::Map::new();
    for a in rec.get("attributes")?.as_array()? {
        let key = a.get("key")?.as_str()?;
        let v = a.get("value")?.as_object()?.values().next()?.clone();
        out.insert(key.to_string(), v);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn traceparent() {
        let tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        assert_eq!(
            parse_traceparent(tp).unwrap().0,
            "4bf92f3577b34da6a3ce929d0e0e4736"
        );
        assert!(
            parse_traceparent("00-00000000000000000000000000000000-00f067aa0ba902b7-01").is_none()
        );
        assert!(parse_traceparent("garbage").is_none());
    }
}
