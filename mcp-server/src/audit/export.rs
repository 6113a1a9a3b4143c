//! `--otlp-endpoint`: the audit records, as the OTLP log records `--audit-format otel` writes,
//! exported to an OpenTelemetry collector over OTLP/HTTP (protobuf) with the OpenTelemetry SDK.
//! The SDK's batch processor queues each record and sends batches from its own thread, so a tool
//! call never waits on the collector; a full queue or an unreachable collector drops exported
//! records (the SDK logs it), never the call, and never the audit file, which stays the record
//! of truth.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use opentelemetry::logs::{AnyValue, LogRecord as _, Logger as _, LoggerProvider as _, Severity};
use opentelemetry::{InstrumentationScope, SpanId, TraceFlags, TraceId};
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::logs::{SdkLogger, SdkLoggerProvider};
use opentelemetry_sdk::Resource;
use serde_json::Value;

use super::otel::SCOPE;

/// The OTLP/HTTP path of logs, appended to a collector's base URL.
const LOGS_PATH: &str = "/v1/logs";

/// The logs URL for `endpoint`: a collector's base URL (`http://collector:4318`, as in
/// `OTEL_EXPORTER_OTLP_ENDPOINT`) gets `/v1/logs`; a URL that ends with it is kept.
pub fn logs_url(endpoint: &str) -> Result<String, String> {
    let trimmed = endpoint.trim().trim_end_matches('/');
    let uri: http::Uri = trimmed
        .parse()
        .map_err(|e| format!("--otlp-endpoint {endpoint}: not a URL ({e})"))?;
    match uri.scheme_str() {
        Some("http") => {}
        Some("https") => {
            return Err(format!(
                "--otlp-endpoint {endpoint}: https is not supported; send to a collector over \
                 http on the host or a sidecar (it may forward over TLS)"
            ))
        }
        _ => {
            return Err(format!(
                "--otlp-endpoint {endpoint}: needs an http:// URL, e.g. http://127.0.0.1:4318"
            ))
        }
    }
    if uri.host().is_none() {
        return Err(format!("--otlp-endpoint {endpoint}: the URL has no host"));
    }
    Ok(if trimmed.ends_with(LOGS_PATH) {
        trimmed.to_string()
    } else {
        format!("{trimmed}{LOGS_PATH}")
    })
}

/// An OTLP/HTTP log exporter behind the SDK's batch processor.
pub struct Exporter {
    provider: SdkLoggerProvider,
    logger: SdkLogger,
}

impl Exporter {
    /// Builds the exporter for `endpoint` (see [`logs_url`]). Nothing is sent until a record is.
    pub fn new(endpoint: &str) -> Result<Self, String> {
        let url = logs_url(endpoint)?;
        let exporter = opentelemetry_otlp::LogExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(url)
            .with_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| format!("--otlp-endpoint {endpoint}: {e}"))?;
        let provider = SdkLoggerProvider::builder()
            .with_resource(Resource::builder().with_service_name("sqlgate-mcp").build())
            .with_batch_exporter(exporter)
            .build();
        let scope = InstrumentationScope::builder(SCOPE)
            .with_version(env!("CARGO_PKG_VERSION"))
            .build();
        let logger = provider.logger_with_scope(scope);
        Ok(Exporter { provider, logger })
    }

    /// Queues one `LogsData` line (as `otel::record` or `otel::header` builds it).
    pub fn emit(&self, logs_data: &Value) {
        let Some(source) = logs_data.pointer("/resourceLogs/0/scopeLogs/0/logRecords/0") else {
            return;
        };
        let mut record = self.logger.create_log_record();
        let time = |key: &str| {
            source
                .get(key)
                .and_then(Value::as_str)
                .and_then(|n| n.parse::<u64>().ok())
                .map(|n| UNIX_EPOCH + Duration::from_nanos(n))
        };
        if let Some(t) = time("timeUnixNano") {
            record.set_timestamp(t);
        }
        record.set_observed_timestamp(time("observedTimeUnixNano").unwrap_or_else(SystemTime::now));
        let failed = source.get("severityNumber").and_then(Value::as_u64) == Some(17);
        let (severity, text) = if failed {
            (Severity::Error, "ERROR")
        } else {
            (Severity::Info, "INFO")
        };
        record.set_severity_number(severity);
        record.set_severity_text(text);
        if let Some(body) = source.pointer("/body/stringValue").and_then(Value::as_str) {
            record.set_body(AnyValue::from(body.to_string()));
        }
        for attribute in source
            .get("attributes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let (Some(key), Some(value)) = (
                attribute.get("key").and_then(Value::as_str),
                attribute.get("value").and_then(any_value),
            ) {
                record.add_attribute(key.to_string(), value);
            }
        }
        let hex = |key: &str| source.get(key).and_then(Value::as_str);
        if let (Some(trace), Some(span)) = (hex("traceId"), hex("spanId")) {
            if let (Ok(trace), Ok(span)) = (TraceId::from_hex(trace), SpanId::from_hex(span)) {
                record.set_trace_context(trace, span, Some(TraceFlags::SAMPLED));
            }
        }
        self.logger.emit(record);
    }

    /// Sends what is queued and waits for the collector's answer (shutdown, tests).
    pub fn flush(&self) {
        if let Err(e) = self.provider.force_flush() {
            tracing::warn!("OTLP export: {e}");
        }
    }
}

impl Drop for Exporter {
    fn drop(&mut self) {
        let _ = self.provider.shutdown();
    }
}

/// An OTLP/JSON `AnyValue` (`{"stringValue": ...}`, `{"intValue": "..."}`, `{"doubleValue": ...}`).
fn any_value(value: &Value) -> Option<AnyValue> {
    if let Some(s) = value.get("stringValue").and_then(Value::as_str) {
        return Some(AnyValue::from(s.to_string()));
    }
    if let Some(i) = value.get("intValue") {
        let n = match i {
            Value::String(s) => s.parse::<i64>().ok()?,
            other => other.as_i64()?,
        };
        return Some(AnyValue::Int(n));
    }
    value
        .get("doubleValue")
        .and_then(Value::as_f64)
        .map(AnyValue::Double)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_url_appends_the_logs_path_once_and_refuses_other_schemes() {
        assert_eq!(
            logs_url("http://127.0.0.1:4318").as_deref(),
            Ok("http://127.0.0.1:4318/v1/logs")
        );
        assert_eq!(
            logs_url("http://collector:4318/v1/logs/").as_deref(),
            Ok("http://collector:4318/v1/logs")
        );
        for bad in [
            "https://c:4318",
            "collector:4318",
            "grpc://c",
            "not a url",
            "http://",
        ] {
            assert!(logs_url(bad).is_err(), "{bad}");
        }
    }
}
