//! The `Host` header, parsed as RFC 9112 §3.2 and RFC 3986 §3.2.2 define it, before anything
//! else reads the request: `uri-host [ ":" port ]`, where the host is an IP literal in
//! brackets, an IPv4 address or a registered name (unreserved characters, percent-escapes and
//! sub-delimiters only). Anything else (userinfo such as `evil.example@127.0.0.1:8765`, a
//! path, a space, a second `Host` line, none at all in HTTP/1.1) is answered 400, as RFC 9112
//! requires; rmcp's own check then compares the parsed host with the allowed ones (DNS
//! rebinding). An absolute request target's authority is held to the same grammar.

use std::net::Ipv6Addr;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{header, StatusCode, Version};

/// True when `value` is a valid `Host` field value.
pub fn valid_host(value: &str) -> bool {
    let (host, port) = split_port(value);
    port.is_none_or(valid_port) && valid_uri_host(host)
}

/// `host` and its port, split at the last `:` outside brackets.
fn split_port(value: &str) -> (&str, Option<&str>) {
    let after_literal = if value.starts_with('[') {
        value.find(']').map_or(value.len(), |i| i + 1)
    } else {
        0
    };
    match value[after_literal..].rfind(':') {
        Some(i) => (
            &value[..after_literal + i],
            Some(&value[after_literal + i + 1..]),
        ),
        None => (value, None),
    }
}

/// `port = *DIGIT`, within the 16 bits a TCP port has.
fn valid_port(port: &str) -> bool {
    port.bytes().all(|b| b.is_ascii_digit()) && (port.is_empty() || port.parse::<u16>().is_ok())
}

fn valid_uri_host(host: &str) -> bool {
    match host.strip_prefix('[') {
        Some(rest) => rest.strip_suffix(']').is_some_and(valid_ip_literal),
        // IPv4address is a reg-name too, as far as its characters go.
        None => valid_reg_name(host),
    }
}

/// `IPv6address / IPvFuture` inside the brackets.
fn valid_ip_literal(inner: &str) -> bool {
    if let Some(future) = inner.strip_prefix(['v', 'V']) {
        let Some((version, rest)) = future.split_once('.') else {
            return false;
        };
        return !version.is_empty()
            && version.bytes().all(|b| b.is_ascii_hexdigit())
            && !rest.is_empty()
            && rest
                .bytes()
                .all(|b| unreserved(b) || sub_delim(b) || b == b':');
    }
    inner.parse::<Ipv6Addr>().is_ok()
}

/// `reg-name = *( unreserved / pct-encoded / sub-delims )`, not empty (RFC 9112: a Host
/// with an empty host is invalid for an `http` target).
fn valid_reg_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = |j: usize| bytes.get(j).is_some_and(u8::is_ascii_hexdigit);
                if !(hex(i + 1) && hex(i + 2)) {
                    return false;
                }
                i += 3;
            }
            b if unreserved(b) || sub_delim(b) => i += 1,
            _ => return false,
        }
    }
    !name.is_empty()
}

fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn sub_delim(b: u8) -> bool {
    matches!(
        b,
        b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
    )
}

fn bad_request(what: &str) -> Response {
    (StatusCode::BAD_REQUEST, format!("Bad Request: {what}\n")).into_response()
}

/// The middleware: a request whose `Host` (or absolute target's authority) is not valid gets
/// 400 and goes no further.
pub async fn check(req: Request, next: Next) -> Response {
    let mut hosts = req.headers().get_all(header::HOST).iter();
    let (first, second) = (hosts.next(), hosts.next());
    if second.is_some() {
        return bad_request("more than one Host header");
    }
    match first.map(|h| h.to_str()) {
        Some(Ok(h)) if valid_host(h) => {}
        Some(_) => return bad_request("invalid Host header"),
        None if req.version() == Version::HTTP_11 => return bad_request("missing Host header"),
        None => {}
    }
    // An absolute target (`GET http://host/mcp`), or HTTP/2's `:authority`: the same grammar.
    if let Some(authority) = req.uri().authority() {
        if !valid_host(authority.as_str()) {
            return bad_request("invalid request target authority");
        }
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_as_rfc_9112_reads_them() {
        for ok in [
            "127.0.0.1:8765",
            "127.0.0.1",
            "localhost:8765",
            "localhost:",
            "[::1]:8765",
            "[::1]",
            "[v7.fe80::a+en1]",
            "sqlgate.example.com",
            "my%2Dhost:80",
            "a!$&'()*+,;=b",
        ] {
            assert!(valid_host(ok), "{ok} should be valid");
        }
        for bad in [
            "evil.example@127.0.0.1:8765",
            "user:pass@127.0.0.1",
            "127.0.0.1:8765/mcp",
            "127.0.0.1:87a5",
            "127.0.0.1:99999",
            "127.0.0.1 :8765",
            "",
            ":8765",
            "[::1",
            "[::1]x:80",
            "[127.0.0.1]",
            "[v.x]",
            "ho%2st",
            "ho%",
            "host#frag",
            "host?q",
            "ex\u{e4}mple.com",
            "[::1]:80:81",
        ] {
            assert!(!valid_host(bad), "{bad:?} should be invalid");
        }
    }
}
