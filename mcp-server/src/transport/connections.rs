//! The HTTP transport's connections: the accept loop, the TLS handshake when configured, and
//! hyper serving the router, with two bounds on clients that have not shown who they are:
//!
//! - **Time**: a connection has `header_read_timeout` from its accept to finish its TLS
//!   handshake and send a request whose credential is accepted; else it is closed. HTTP/1's
//!   own header-read timeout (the same value) then bounds each later request's headers, and so
//!   how long a connection may sit idle between requests.
//! - **Number**: at most `max_pending` connections may be in that phase at once; one more
//!   closes the one that has waited longest (a client trickling its headers ages out first; a
//!   client that sends its request at once passes in milliseconds).
//!
//! A connection leaves the phase when [`super::http`] accepts a request's credential
//! ([`Admission::authenticated`], in every request's extensions). Requests answered before
//! that (401, 403) close their connection.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::time::Sleep;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use super::tls::listener::{handshake, PeerCert};
use super::tls::TlsConfig;

/// How long a new connection has to be authenticated, and each request's headers to arrive.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections at once that have not yet sent an accepted credential.
pub const DEFAULT_MAX_PENDING_CONNECTIONS: usize = 256;

/// The bounds on connections not yet authenticated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// From accept to an accepted credential; and for each request's headers.
    pub header_read_timeout: Duration,
    /// Connections in that phase at once.
    pub max_pending: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            max_pending: DEFAULT_MAX_PENDING_CONNECTIONS,
        }
    }
}

/// The connections not yet authenticated, oldest first, each with the token that closes it.
#[derive(Debug)]
struct Pending {
    waiting: Mutex<VecDeque<(u64, CancellationToken)>>,
    max: usize,
    next: AtomicU64,
}

impl Pending {
    fn new(max: usize) -> Self {
        Pending {
            waiting: Mutex::new(VecDeque::new()),
            max: max.max(1),
            next: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(u64, CancellationToken)>> {
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new connection: its id and the token that closes it; the oldest waiting one is closed
    /// when there is no room.
    fn admit(&self) -> (u64, CancellationToken) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let evict = CancellationToken::new();
        let mut waiting = self.lock();
        while waiting.len() >= self.max {
            match waiting.pop_front() {
                Some((_, oldest)) => oldest.cancel(),
                None => break,
            }
        }
        waiting.push_back((id, evict.clone()));
        (id, evict)
    }

    fn leave(&self, id: u64) {
        self.lock().retain(|(i, _)| *i != id);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

/// One connection's place among those not yet authenticated; every request on it carries a
/// clone in its extensions.
#[derive(Debug, Clone)]
pub struct Admission {
    id: u64,
    pending: Arc<Pending>,
    authenticated: Arc<AtomicBool>,
}

impl Admission {
    /// A request on this connection carried an accepted credential: the connection leaves the
    /// pending set, and its first deadline no longer applies.
    pub fn authenticated(&self) {
        if !self.authenticated.swap(true, Ordering::AcqRel) {
            self.pending.leave(self.id);
        }
    }

    fn is_authenticated(&self) -> bool {
        self.authenticated.load(Ordering::Acquire)
    }
}

/// What every connection's task shares.
struct Shared {
    router: axum::Router,
    tls: Option<TlsConfig>,
    limits: ConnectionLimits,
    pending: Arc<Pending>,
}

/// Serves `router` on `listener` (over TLS when `tls` is set) until `shutdown`; then lets the
/// open connections finish (rmcp ends its streams on the same token).
pub async fn serve(
    listener: TcpListener,
    router: axum::Router,
    tls: Option<TlsConfig>,
    limits: ConnectionLimits,
    shutdown: CancellationToken,
) {
    let shared = Arc::new(Shared {
        router,
        tls,
        limits,
        pending: Arc::new(Pending::new(limits.max_pending)),
    });
    // Every connection's task holds a receiver: the loop ends once all are gone.
    let (stop_tx, stop_rx) = watch::channel(false);
    loop {
        let (socket, addr) = tokio::select! {
            accepted = accept(&listener) => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: wait, as axum's own listener does.
                    tracing::error!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            },
            _ = shutdown.cancelled() => break,
        };
        let (id, evict) = shared.pending.admit();
        let admission = Admission {
            id,
            pending: shared.pending.clone(),
            authenticated: Arc::new(AtomicBool::new(false)),
        };
        let (shared, stop) = (shared.clone(), stop_rx.clone());
        tokio::spawn(async move {
            connection(&shared, socket, addr, (admission.clone(), evict), stop).await;
            shared.pending.leave(admission.id);
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    drop(stop_rx);
    stop_tx.closed().await;
}

/// The next connection, with TCP_NODELAY set. A response leaves in several writes (SSE events,
/// then the end of the chunked body); with Nagle's algorithm a later one waits for the client's
/// delayed ACK (up to 40 ms on Linux: measured, a minimal client's `run_query` took 44 ms
/// instead of 1).
async fn accept(listener: &TcpListener) -> std::io::Result<(TcpStream, SocketAddr)> {
    let (socket, addr) = listener.accept().await?;
    if let Err(e) = socket.set_nodelay(true) {
        tracing::warn!("cannot set TCP_NODELAY on a connection: {e}");
    }
    Ok((socket, addr))
}

/// One connection: the handshake, then HTTP, each under the first deadline until a request is
/// authenticated.
async fn connection(
    shared: &Shared,
    socket: TcpStream,
    addr: SocketAddr,
    (admission, evict): (Admission, CancellationToken),
    stop: watch::Receiver<bool>,
) {
    let deadline = tokio::time::sleep(shared.limits.header_read_timeout);
    tokio::pin!(deadline);
    let Some(tls) = &shared.tls else {
        let waiting = (deadline.as_mut(), evict);
        return http(
            shared,
            socket,
            PeerCert::default(),
            admission,
            waiting,
            stop,
        )
        .await;
    };
    let mut stopping = stop.clone();
    let conn = tokio::select! {
        conn = handshake(tls, socket, addr) => conn,
        _ = &mut deadline => {
            tracing::warn!(peer = %addr, "TLS handshake with {addr} timed out");
            return;
        }
        _ = evict.cancelled() => return,
        _ = stopping.changed() => return,
    };
    if let Some(conn) = conn {
        let peer = conn.peer();
        http(
            shared,
            conn,
            peer,
            admission,
            (deadline.as_mut(), evict),
            stop,
        )
        .await;
    }
}

/// HTTP on an established connection: the router, each request carrying the connection's
/// [`Admission`] and client certificate; closed at the first deadline, when evicted, or on
/// `stop` while no request was authenticated; else shut down gracefully on `stop`.
async fn http<I>(
    shared: &Shared,
    io: I,
    peer: PeerCert,
    admission: Admission,
    (mut deadline, evict): (Pin<&mut Sleep>, CancellationToken),
    mut stop: watch::Receiver<bool>,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let router = shared.router.clone();
    let carried = admission.clone();
    let service = hyper::service::service_fn(move |req: http::Request<Incoming>| {
        let mut req = req.map(Body::new);
        req.extensions_mut().insert(carried.clone());
        req.extensions_mut().insert(ConnectInfo(peer.clone()));
        router.clone().oneshot(req)
    });
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(shared.limits.header_read_timeout);
    let conn = builder.serve_connection_with_upgrades(TokioIo::new(io), service);
    tokio::pin!(conn);
    let evicted = evict.cancelled();
    tokio::pin!(evicted);
    let (mut first_deadline, mut stopping) = (true, false);
    loop {
        tokio::select! {
            _ = conn.as_mut() => return,
            _ = deadline.as_mut(), if first_deadline => {
                first_deadline = false;
                if !admission.is_authenticated() {
                    return;
                }
            }
            _ = evicted.as_mut(), if !admission.is_authenticated() => return,
            _ = stop.changed(), if !stopping => {
                // A connection that never showed a credential has nothing to finish.
                if !admission.is_authenticated() {
                    return;
                }
                stopping = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn accepted_connections_send_without_delay() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let client = tokio::spawn(TcpStream::connect(addr));
        let (accepted, _) = accept(&listener).await.unwrap();
        assert!(accepted.nodelay().unwrap());
        client.await.unwrap().unwrap();
    }

    #[test]
    fn a_full_set_closes_its_oldest() {
        let pending = Pending::new(2);
        let (a, close_a) = pending.admit();
        let (_, close_b) = pending.admit();
        assert_eq!(pending.len(), 2);
        let (_, close_c) = pending.admit();
        assert!(close_a.is_cancelled(), "the oldest makes room");
        assert!(!close_b.is_cancelled() && !close_c.is_cancelled());
        assert_eq!(pending.len(), 2);
        pending.leave(a);
        assert_eq!(pending.len(), 2, "a had left already");
    }

    #[test]
    fn an_authenticated_connection_leaves_the_set_once() {
        let pending = Arc::new(Pending::new(4));
        let (id, close) = pending.admit();
        let admission = Admission {
            id,
            pending: pending.clone(),
            authenticated: Arc::new(AtomicBool::new(false)),
        };
        admission.authenticated();
        admission.authenticated();
        assert_eq!(pending.len(), 0);
        for _ in 0..4 {
            pending.admit();
        }
        pending.admit();
        assert!(!close.is_cancelled(), "it is no longer among those waiting");
    }
}
