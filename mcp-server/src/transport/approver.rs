//! The external approver's webhook (`approval = { webhook = "https://..." }`): each approval
//! request is POSTed as JSON, and the reply's JSON is the approver's decision (the protocol is
//! read by `tools::approval::external`). HTTPS with the webpki roots, or plain HTTP to a loopback
//! host; no redirects; 5 s per request.

use std::sync::Arc;

use crate::gate::approvals::{ApproverReply, ExternalApprover};
use crate::transport::auth::jwks::{http_client, is_loopback_host};

/// The webhook's URL must be https, or http on a loopback host (tests, a local relay).
pub fn check_webhook_url(url: &str) -> Result<(), String> {
    let uri: http::Uri = url.parse().map_err(|_| format!("`{url}` is not a URL"))?;
    match (uri.scheme_str(), uri.host()) {
        (Some("https"), Some(_)) => Ok(()),
        (Some("http"), Some(host)) if is_loopback_host(host) => Ok(()),
        _ => Err(format!(
            "`{url}`: the approver is called over https (http only on a loopback host)"
        )),
    }
}

/// The webhook approver.
pub struct Webhook {
    client: reqwest::Client,
    url: Arc<str>,
}

impl Webhook {
    /// The approver at `url` (checked by [`check_webhook_url`]).
    pub fn new(url: &str) -> Result<Self, String> {
        check_webhook_url(url)?;
        Ok(Webhook {
            client: http_client()?,
            url: url.into(),
        })
    }
}

impl ExternalApprover for Webhook {
    fn post(&self, request: serde_json::Value) -> ApproverReply {
        let (client, url) = (self.client.clone(), self.url.clone());
        Box::pin(async move {
            let body = serde_json::to_vec(&request).map_err(|e| e.to_string())?;
            let response = client
                .post(url.as_ref())
                .header("content-type", "application/json")
                .header("accept", "application/json")
                .body(body)
                .send()
                .await
                .map_err(|e| format!("the approver did not answer: {e}"))?;
            let status = response.status();
            if !status.is_success() {
                return Err(format!("the approver answered HTTP {}", status.as_u16()));
            }
            let bytes = response
                .bytes()
                .await
                .map_err(|e| format!("the approver's answer broke off: {e}"))?;
            serde_json::from_slice(&bytes)
                .map_err(|e| format!("the approver's answer is not JSON: {e}"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_webhook_is_https_or_loopback_http() {
        assert!(check_webhook_url("https://approver.example/hook").is_ok());
        assert!(check_webhook_url("http://127.0.0.1:8080/hook").is_ok());
        assert!(check_webhook_url("http://localhost/hook").is_ok());
        assert!(check_webhook_url("http://approver.example/hook").is_err());
        assert!(check_webhook_url("ftp://127.0.0.1/hook").is_err());
        assert!(check_webhook_url("not a url").is_err());
    }
}
