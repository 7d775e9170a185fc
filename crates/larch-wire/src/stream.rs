//! The byte stream under one client connection: [`ClientStream`] is plain
//! TCP, TCP with TLS (after the client's SSL request, see [`crate::tls`]),
//! a Unix-domain socket, or any other async stream (tests, embedding).
//!
//! It is an enum rather than a `Box<dyn ...>` so the common case, plain TCP,
//! costs one branch per read or write and no allocation; only the TLS state
//! (large, and needed by few connections) is boxed. The packet layer
//! ([`crate::packet::PacketStream`]) buffers reads on top of it and writes
//! each response with one `write_all`.

use std::io::IoSlice;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpStream, UnixStream};
use tokio_rustls::server::TlsStream;

/// Any async byte stream usable as a connection ([`ClientStream::Other`]).
pub trait AsyncStream: AsyncRead + AsyncWrite + Unpin + Send {}

impl<T: AsyncRead + AsyncWrite + Unpin + Send> AsyncStream for T {}

/// A client connection's transport.
pub enum ClientStream {
    /// Plain TCP.
    Tcp(TcpStream),
    /// TCP after the TLS handshake.
    Tls(Box<TlsStream<TcpStream>>),
    /// A Unix-domain socket.
    Unix(UnixStream),
    /// Another stream (an in-memory pipe in tests, say); it cannot be
    /// upgraded to TLS.
    Other(Box<dyn AsyncStream>),
}

impl std::fmt::Debug for ClientStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ClientStream::Tcp(_) => "ClientStream::Tcp",
            ClientStream::Tls(_) => "ClientStream::Tls",
            ClientStream::Unix(_) => "ClientStream::Unix",
            ClientStream::Other(_) => "ClientStream::Other",
        })
    }
}

impl ClientStream {
    /// Wraps any other stream.
    pub fn other(stream: impl AsyncStream + 'static) -> Self {
        ClientStream::Other(Box::new(stream))
    }
}

/// Evaluates `$call` with `$s` bound to whichever stream `$self` holds.
macro_rules! dispatch {
    ($self:expr, $s:ident => $call:expr) => {
        match $self.get_mut() {
            ClientStream::Tcp($s) => $call,
            ClientStream::Tls($s) => $call,
            ClientStream::Unix($s) => $call,
            ClientStream::Other($s) => $call,
        }
    };
}

impl AsyncRead for ClientStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        dispatch!(self, s => Pin::new(s).poll_read(cx, buf))
    }
}

impl AsyncWrite for ClientStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        dispatch!(self, s => Pin::new(s).poll_write(cx, buf))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        dispatch!(self, s => Pin::new(s).poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            ClientStream::Tcp(s) => s.is_write_vectored(),
            ClientStream::Tls(s) => s.is_write_vectored(),
            ClientStream::Unix(s) => s.is_write_vectored(),
            ClientStream::Other(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        dispatch!(self, s => Pin::new(s).poll_flush(cx))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        dispatch!(self, s => Pin::new(s).poll_shutdown(cx))
    }
}
