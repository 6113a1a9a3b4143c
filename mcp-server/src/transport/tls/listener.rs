//! An axum listener that accepts TCP connections and completes each TLS handshake in its own
//! task (a slow or silent client never holds up the next one), bounded in number and time.
//! Each connection carries the client certificate the handshake verified, which the router
//! reads as [`PeerCert`] connect info.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::connect_info::Connected;
use axum::serve::{IncomingStream, Listener};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, Semaphore};
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;

use super::peer::ClientCert;
use super::TlsConfig;

/// A handshake not finished in this time is dropped.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Handshakes in progress at once; more connections wait in the kernel's backlog.
const MAX_HANDSHAKES: usize = 256;

/// A TLS connection and the client certificate its handshake verified.
pub struct TlsConn {
    stream: TlsStream<TcpStream>,
    peer: Option<Arc<ClientCert>>,
}

/// The verified client certificate of the connection a request came on (`None`: none was
/// presented, or the connection is not TLS).
#[derive(Debug, Clone, Default)]
pub struct PeerCert(pub Option<Arc<ClientCert>>);

impl Connected<IncomingStream<'_, TlsListener>> for PeerCert {
    fn connect_info(stream: IncomingStream<'_, TlsListener>) -> Self {
        PeerCert(stream.io().peer.clone())
    }
}

/// Accepts TLS connections on a bound TCP listener until `shutdown`.
pub struct TlsListener {
    ready: mpsc::Receiver<(TlsConn, SocketAddr)>,
    local: SocketAddr,
}

impl TlsListener {
    /// Starts accepting on `tcp` with the configuration in force at each handshake.
    pub fn start(
        tcp: TcpListener,
        tls: TlsConfig,
        shutdown: CancellationToken,
    ) -> io::Result<Self> {
        let local = tcp.local_addr()?;
        let (tx, ready) = mpsc::channel(64);
        tokio::spawn(accept_loop(tcp, tls, tx, shutdown));
        Ok(TlsListener { ready, local })
    }
}

async fn accept_loop(
    tcp: TcpListener,
    tls: TlsConfig,
    tx: mpsc::Sender<(TlsConn, SocketAddr)>,
    shutdown: CancellationToken,
) {
    let permits = Arc::new(Semaphore::new(MAX_HANDSHAKES));
    loop {
        let Ok(permit) = permits.clone().acquire_owned().await else {
            return;
        };
        let (socket, addr) = tokio::select! {
            accepted = tcp.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: wait, as axum's own listener does.
                    eprintln!("sqlgate-mcp: accept failed: {e}");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    continue;
                }
            },
            _ = shutdown.cancelled() => return,
        };
        // See `no_delay` in http.rs: responses leave in several writes.
        let _ = socket.set_nodelay(true);
        let acceptor = TlsAcceptor::from(tls.current());
        let tx = tx.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let handshake = tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(socket));
            let stream = match handshake.await {
                Ok(Ok(s)) => s,
                // An untrusted certificate, a plain-HTTP request, a scanner: the client got
                // the TLS alert; nothing reached HTTP.
                Ok(Err(e)) => {
                    return eprintln!("sqlgate-mcp: TLS handshake with {addr} failed: {e}")
                }
                Err(_) => return eprintln!("sqlgate-mcp: TLS handshake with {addr} timed out"),
            };
            let peer = match stream
                .get_ref()
                .1
                .peer_certificates()
                .and_then(|c| c.first())
            {
                None => None,
                Some(der) => match ClientCert::from_der(der) {
                    Ok(cert) => Some(Arc::new(cert)),
                    Err(e) => return eprintln!("sqlgate-mcp: TLS client {addr}: {e}"),
                },
            };
            let _ = tx.send((TlsConn { stream, peer }, addr)).await;
        });
    }
}

impl Listener for TlsListener {
    type Io = TlsConn;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(conn) => conn,
            // The accept loop ended (shutdown): nothing more will come.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        Ok(self.local)
    }
}

impl AsyncRead for TlsConn {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for TlsConn {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
