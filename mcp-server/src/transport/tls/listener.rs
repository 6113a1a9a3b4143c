//! The TLS side of a connection: its handshake (under the time and number bounds of
//! [`crate::transport::connections`], which accepts it), and the stream it gives, carrying the
//! client certificate the handshake verified, which the router reads as [`PeerCert`] connect
//! info.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

use super::peer::ClientCert;
use super::TlsConfig;

/// A TLS connection and the client certificate its handshake verified.
pub struct TlsConn {
    stream: TlsStream<TcpStream>,
    peer: Option<Arc<ClientCert>>,
}

impl TlsConn {
    /// The client certificate the handshake verified (`None`: the client presented none).
    pub fn peer(&self) -> PeerCert {
        PeerCert(self.peer.clone())
    }
}

/// The verified client certificate of the connection a request came on (`None`: none was
/// presented, or the connection is not TLS).
#[derive(Debug, Clone, Default)]
pub struct PeerCert(pub Option<Arc<ClientCert>>);

/// The TLS handshake on an accepted `socket` with the configuration in force now; `None` when
/// it fails (an untrusted certificate, a plain-HTTP request, a scanner: the client got the TLS
/// alert, nothing reached HTTP; noted on stderr). The caller bounds its time.
pub async fn handshake(tls: &TlsConfig, socket: TcpStream, addr: SocketAddr) -> Option<TlsConn> {
    let acceptor = TlsAcceptor::from(tls.current());
    let stream = match acceptor.accept(socket).await {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(peer = %addr, "TLS handshake with {addr} failed: {e}");
            return None;
        }
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
            Err(e) => {
                tracing::warn!(peer = %addr, "TLS client {addr}: {e}");
                return None;
            }
        },
    };
    Some(TlsConn { stream, peer })
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
