//! MCP over stdio: one engine (the server's, or the `--principal` one) until the client leaves
//! or a signal arrives. Lines are read by [`FrameCodec`] (bounded size and depth; a refused line
//! answered with a JSON-RPC error and the connection kept), and every line out, rmcp's messages
//! and those answers alike, goes through one writer task, so lines never interleave.

use std::future::Future;
use std::sync::Arc;

use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::{RoleServer, ServiceExt};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::bytes::BytesMut;
use tokio_util::codec::Decoder;
use tokio_util::sync::CancellationToken;

use super::frame::{Frame, FrameCodec, FrameLimits};
use crate::audit::Audit;
use crate::gate::Engine;
use crate::tools::SqlGateServer;

/// Lines queued for the writer before a sender waits.
const WRITE_QUEUE: usize = 64;

/// Bytes read from stdin at a time: what a line over the bound costs beyond the bound.
const READ_CHUNK: usize = 64 * 1024;

/// Frames read from `R`, [`READ_CHUNK`] bytes at a time (a larger read buffer would let one
/// read hold more of an over-long line than the bound).
struct Frames<R> {
    read: BufReader<R>,
    codec: FrameCodec,
    buf: BytesMut,
}

impl<R: AsyncRead + Unpin> Frames<R> {
    /// The next frame; `None` at the end of the input. Cancel-safe: a read is taken into `buf`
    /// in the same step as it is consumed, and `buf` keeps a partial line between calls.
    async fn next(&mut self) -> Option<std::io::Result<Frame>> {
        loop {
            match self.codec.decode(&mut self.buf) {
                Ok(Some(frame)) => return Some(Ok(frame)),
                Ok(None) => {}
                Err(e) => return Some(Err(e)),
            }
            let chunk = match self.read.fill_buf().await {
                Ok(chunk) => chunk,
                Err(e) => return Some(Err(e)),
            };
            if chunk.is_empty() {
                return self.codec.decode_eof(&mut self.buf).transpose();
            }
            let n = chunk.len();
            self.buf.extend_from_slice(chunk);
            self.read.consume(n);
        }
    }
}

/// rmcp's transport over a reader and a writer of JSON lines, bounded by [`FrameLimits`].
pub struct FramedLines<R> {
    frames: Frames<R>,
    out: Option<mpsc::Sender<Vec<u8>>>,
    /// An answer to a refused line not yet queued (`receive` may be cancelled while queueing).
    pending: Option<Vec<u8>>,
    writer: Option<JoinHandle<()>>,
}

impl<R: AsyncRead + Unpin> FramedLines<R> {
    /// Reads messages from `read` and writes to `write` (on a task of its own).
    pub fn new<W>(read: R, write: W, limits: FrameLimits) -> Self
    where
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, rx) = mpsc::channel(WRITE_QUEUE);
        FramedLines {
            frames: Frames {
                read: BufReader::with_capacity(READ_CHUNK, read),
                codec: FrameCodec::new(limits),
                // The whole bound up front (pages are touched only as lines fill them): a
                // growing buffer would copy itself at each doubling, and the copies stay resident.
                buf: BytesMut::with_capacity(limits.max_bytes.saturating_add(READ_CHUNK)),
            },
            out: Some(tx),
            pending: None,
            writer: Some(tokio::spawn(write_lines(write, rx))),
        }
    }
}

/// Writes each queued line, flushing whenever the queue is empty; stops at the first failure.
async fn write_lines<W: AsyncWrite + Unpin>(mut write: W, mut rx: mpsc::Receiver<Vec<u8>>) {
    while let Some(line) = rx.recv().await {
        if let Err(e) = write.write_all(&line).await {
            tracing::error!("cannot write to stdout: {e}");
            return;
        }
        if rx.is_empty() && write.flush().await.is_err() {
            return;
        }
    }
    let _ = write.flush().await;
}

fn closed() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::BrokenPipe,
        "the stdout writer has stopped",
    )
}

impl<R: AsyncRead + Unpin + Send> Transport<RoleServer> for FramedLines<R> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), std::io::Error>> + Send + 'static {
        let out = self.out.clone();
        async move {
            let mut line = serde_json::to_vec(&item)?;
            line.push(b'\n');
            out.ok_or_else(closed)?
                .send(line)
                .await
                .map_err(|_| closed())
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if self.pending.is_some() {
                let permit = self.out.as_ref()?.reserve().await.ok()?;
                if let Some(line) = self.pending.take() {
                    permit.send(line);
                }
            }
            match self.frames.next().await? {
                Ok(Frame::Message(m)) => return Some(*m),
                Ok(Frame::Reply(reject)) => {
                    let mut line = reject.to_json();
                    line.push(b'\n');
                    self.pending = Some(line);
                }
                Ok(Frame::Skip) => {}
                Err(e) => {
                    tracing::error!("cannot read stdin: {e}");
                    return None;
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), std::io::Error> {
        // The writer ends once every sender is gone, after writing what was queued.
        self.out = None;
        if let Some(writer) = self.writer.take() {
            let _ = writer.await;
        }
        Ok(())
    }
}

/// Serves `engine` on stdin/stdout, each message (line) at most `max_line_bytes`, until the
/// client closes it or `shutdown` is cancelled.
pub async fn serve_stdio(
    engine: Arc<Engine>,
    audit: Audit,
    max_line_bytes: usize,
    shutdown: CancellationToken,
) -> Result<(), String> {
    // stdout carries MCP frames only: every log goes to stderr.
    tracing::info!("serving MCP over stdio");
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        tracing::info!("waiting for an MCP client on stdin; this is meant to be started by a client, see README (Ctrl-C to stop)");
    }
    let server = SqlGateServer::new(engine, audit);
    let (stdin, stdout) = rmcp::transport::stdio();
    let limits = FrameLimits {
        max_bytes: max_line_bytes,
        ..FrameLimits::default()
    };
    let transport = FramedLines::new(stdin, stdout, limits);
    // Until a client's `initialize` arrives, a signal must stop the wait too.
    let running = tokio::select! {
        r = server.serve(transport) => {
            r.map_err(|e| format!("MCP stdio failed to start: {e}"))?
        }
        _ = shutdown.cancelled() => return Ok(()),
    };
    tokio::select! {
        r = running.waiting() => r.map(|_| ()).map_err(|e| format!("MCP stdio: {e}")),
        _ = shutdown.cancelled() => Ok(()),
    }
}
