//! Reading a written line back: its chain fields ([`Link`]) in either format (jsonl, or
//! OTLP/JSON attributes).

use super::chain::Link;
use super::otel;

/// The chain fields of a line in either format; `None` when it is not a chain line.
pub fn link_of(line: &[u8]) -> Option<Link> {
    let v: serde_json::Value = serde_json::from_slice(line).ok()?;
    if v.get("resourceLogs").is_none() {
        return serde_json::from_value(v).ok();
    }
    let a = otel::flat_attributes(&v)?;
    let seq = a.get(otel::SEQ)?.as_str()?.parse().ok()?;
    let prev = a
        .get(otel::PREV)
        .and_then(|p| p.as_str())
        .map(str::to_string);
    let header = match a.get(otel::HEADER).and_then(|h| h.as_str()) {
        Some(h) => Some(serde_json::from_str(h).ok()?),
        None => None,
    };
    Some(Link { seq, prev, header })
}
