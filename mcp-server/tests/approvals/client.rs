//! A 2026-07-28 client in raw JSON-RPC: every request self-contained (protocol version, client
//! capabilities and info in `_meta`; the `Mcp-Method` / `Mcp-Name` headers), no session.

use serde_json::{json, Value};

/// The client: an HTTP client, the endpoint, a bearer token, whether it announces elicitation.
pub struct Client2026 {
    http: reqwest::Client,
    url: String,
    token: String,
    elicitation: bool,
}

impl Client2026 {
    /// A client of `url` with `token`, announcing elicitation.
    pub fn new(url: &str, token: &str) -> Self {
        Client2026 {
            http: reqwest::Client::new(),
            url: url.to_string(),
            token: token.to_string(),
            elicitation: true,
        }
    }

    /// The same client, announcing no elicitation.
    pub fn without_elicitation(&self) -> Self {
        Client2026 {
            elicitation: false,
            http: self.http.clone(),
            url: self.url.clone(),
            token: self.token.clone(),
        }
    }

    /// `tools/call run_mutation {sql}`, with the retry's state and answers when given.
    pub async fn run_mutation(
        &self,
        sql: &str,
        state: Option<&str>,
        responses: Option<Value>,
    ) -> Value {
        self.call("run_mutation", json!({"sql": sql}), state, responses)
            .await
    }

    /// `tools/call run_mutations {statements}`, with the retry's state and answers when given.
    pub async fn run_mutations(
        &self,
        statements: &[&str],
        state: Option<&str>,
        responses: Option<Value>,
    ) -> Value {
        let arguments = json!({ "statements": statements });
        self.call("run_mutations", arguments, state, responses)
            .await
    }

    /// `tools/call` of `tool` with `arguments`, the retry's state and answers when given.
    pub async fn call(
        &self,
        tool: &str,
        arguments: Value,
        state: Option<&str>,
        responses: Option<Value>,
    ) -> Value {
        let capabilities = if self.elicitation {
            json!({"elicitation": {"form": {}}})
        } else {
            json!({})
        };
        let mut params = json!({
            "name": tool,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": capabilities,
                "io.modelcontextprotocol/clientInfo": {"name": "approvals-test", "version": "1"}
            }
        });
        if let Some(s) = state {
            params["requestState"] = json!(s);
        }
        if let Some(r) = responses {
            params["inputResponses"] = r;
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
        let response = self
            .http
            .post(&self.url)
            .bearer_auth(&self.token)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", tool)
            .json(&body)
            .send()
            .await
            .expect("an HTTP answer");
        response.json().await.expect("a JSON-RPC response")
    }
}

/// The tool error code of a response (`""` when it is not a tool error).
pub fn code(response: &Value) -> String {
    let r = &response["result"];
    if r["isError"] != true {
        return String::new();
    }
    r["structuredContent"]["code"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}
