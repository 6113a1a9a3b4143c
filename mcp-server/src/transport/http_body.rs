//! A POST body judged before rmcp reads it (as [`super::frame`] judges a stdio line): over the
//! cap (413), nested too deep, malformed or not a JSON-RPC message (400), each answered with a
//! JSON-RPC error body under the request's `id` when it could be read, else `null`. rmcp's own
//! answers to these are plain text (413, and 415 for anything it cannot parse), which a client
//! waiting for its id cannot match.

use axum::body::Body;
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use http::{header, Method, StatusCode};
use tokio_util::bytes::BytesMut;

use rmcp::model::{ClientJsonRpcMessage, RequestId};

use super::frame::{judge, Frame, FrameLimits, Reject};
use super::json_scan::Scan;

/// Whether a POST carries a JSON-RPC response (or error response), and to which request: the
/// server takes one only for a request it sent on that session and still waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answering {
    /// A request or a notification, or no body (GET, DELETE).
    Nothing,
    /// A response or error response naming this id.
    Request(RequestId),
    /// An error response without an id.
    Unnamed,
}

fn answering(message: &ClientJsonRpcMessage) -> Answering {
    match message {
        ClientJsonRpcMessage::Response(r) => Answering::Request(r.id.clone()),
        ClientJsonRpcMessage::Error(e) => {
            e.id.clone().map_or(Answering::Unnamed, Answering::Request)
        }
        _ => Answering::Nothing,
    }
}

/// The JSON-RPC error `reject` as an HTTP answer: 413 when too large, else 400.
pub fn answer(reject: &Reject) -> Response {
    let status = if reject.too_large {
        StatusCode::PAYLOAD_TOO_LARGE
    } else {
        StatusCode::BAD_REQUEST
    };
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        reject.to_json(),
    )
        .into_response()
}

/// `req` with its body read and judged, ready for rmcp, and what it answers; or the answer to a
/// refused body. Only a POST carries a message; anything else passes unread.
pub async fn screen(req: Request, limits: FrameLimits) -> Result<(Request, Answering), Response> {
    if req.method() != Method::POST {
        return Ok((req, Answering::Nothing));
    }
    let (parts, body) = req.into_parts();
    let mut scan = Scan::new(limits.max_depth);
    let mut kept = BytesMut::new();
    let mut chunks = body.into_data_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|e| {
            (
                StatusCode::BAD_REQUEST,
                format!("cannot read the body: {e}\n"),
            )
                .into_response()
        })?;
        scan.feed(&chunk);
        if kept.len() + chunk.len() > limits.max_bytes {
            // The rest is not read: the id, when it came first, is enough to answer.
            scan.finish();
            return Err(answer(&Reject::too_large(limits, scan.id())));
        }
        if scan.too_deep() {
            scan.finish();
            return Err(answer(&Reject::too_deep(limits, scan.id())));
        }
        kept.extend_from_slice(&chunk);
    }
    match judge(&kept, scan, limits) {
        Frame::Message(m) => Ok((
            Request::from_parts(parts, Body::from(kept.freeze())),
            answering(&m),
        )),
        Frame::Reply(reject) => Err(answer(&reject)),
        // A notification rmcp would not take: accepted, as no answer is due.
        Frame::Skip if !kept.iter().all(u8::is_ascii_whitespace) => {
            Err(StatusCode::ACCEPTED.into_response())
        }
        Frame::Skip => Err(answer(&Reject {
            code: super::frame::PARSE_ERROR,
            message: "Parse error: the body is empty".into(),
            id: serde_json::Value::Null,
            too_large: false,
        })),
    }
}
