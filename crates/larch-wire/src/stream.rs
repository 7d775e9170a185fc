//! The byte stream under one client connection: [`ClientStream`] is plain
//! TCP, TCP with TLS (after the client's SSL request, see [`crate::tls`]),
//! a Unix-domain socket, or any other async stream (tests, embedding).
//!
//! On a connection's own thread the sockets are in blocking mode
//! ([`crate::blocking::SyncSocket`]: `SyncTcp`, `SyncTls`, `SyncUnix`);
//! with a pool of threads they are tokio's (`Tcp`, `Tls`, `Unix`).
//!
//! It is an enum rather than a `Box<dyn ...>` so the common case, plain TCP,
//! costs one branch per read or write and no allocation; only the TLS state
//! (large, and needed by few connections) is boxed. The packet layer
//! ([`crate::packet::PacketStream`]) buffers reads on top of it and writes
//! each response with one `write_all`.

use crate::blocking::{SyncSocket, SyncTls};
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
    /// Plain TCP in blocking mode (a connection on its own thread).
    SyncTcp(SyncSocket<std::net::TcpStream>),
    /// TCP in blocking mode after the TLS handshake.
    SyncTls(Box<SyncTls>),
    /// A Unix-domain socket in blocking mode.
    SyncUnix(SyncSocket<std::os::unix::net::UnixStream>),
}

impl std::fmt::Debug for ClientStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ClientStream::Tcp(_) => "ClientStream::Tcp",
            ClientStream::Tls(_) => "ClientStream::Tls",
            ClientStream::Unix(_) => "ClientStream::Unix",
            ClientStream::Other(_) => "ClientStream::Other",
            ClientStream::SyncTcp(_) => "ClientStream::SyncTcp",
            ClientStream::SyncTls(_) => "ClientStream::SyncTls",
            ClientStream::SyncUnix(_) => "ClientStream::SyncUnix",
        })
    }
}

impl ClientStream {
    /// Wraps any other stream.
    pub fn other(stream: impl AsyncStream + 'static) -> Self {
        ClientStream::Other(Box::new(stream))
    }

    /// A second descriptor of a tokio socket, for [`crate::liveness`] to
    /// poll while a command runs and the connection's task reads nothing;
    /// `None` for blocking sockets (watched through their own registration)
    /// and other streams.
    pub(crate) fn liveness_probe(&self) -> Option<std::os::fd::OwnedFd> {
        use std::os::fd::AsFd;
        let fd = match self {
            ClientStream::Tcp(s) => s.as_fd(),
            ClientStream::Tls(s) => s.get_ref().0.as_fd(),
            ClientStream::Unix(s) => s.as_fd(),
            _ => return None,
        };
        fd.try_clone_to_owned().ok()
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
            ClientStream::SyncTcp($s) => $call,
            ClientStream::SyncTls($s) => $call,
            ClientStream::SyncUnix($s) => $call,
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
            ClientStream::SyncTcp(s) => s.is_write_vectored(),
            ClientStream::SyncTls(s) => s.is_write_vectored(),
            ClientStream::SyncUnix(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        dispatch!(self, s => Pin::new(s).poll_flush(cx))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        dispatch!(self, s => Pin::new(s).poll_shutdown(cx))
    }
}

/// Synchronous reads and writes on a connection's stream, for code that must
/// do I/O from inside a statement: the LOCAL INFILE exchange. A stream in
/// blocking mode (`Sync*`) is simply read and written; a tokio socket is
/// put in blocking mode for each call and back in non-blocking mode after
/// it. TLS records are read and written through the connection's `rustls`
/// state, which the async stream keeps no other buffer beside.
pub trait BlockingAccess {
    /// Reads at least one byte (0 at the end of the stream), waiting for it.
    fn blocking_read(&mut self, buf: &mut [u8]) -> std::io::Result<usize>;
    /// Writes all of `buf`, waiting for room.
    fn blocking_write_all(&mut self, buf: &[u8]) -> std::io::Result<()>;
    /// True for a stream in blocking mode, whose reads and writes never
    /// return `Pending` (see [`crate::blocking`]).
    fn is_blocking(&self) -> bool {
        false
    }
    /// How long a read of a stream in blocking mode waits (nothing for
    /// other streams).
    fn set_read_timeout(&mut self, limit: Option<std::time::Duration>) -> std::io::Result<()> {
        let _ = limit;
        Ok(())
    }
    /// How long a write of a stream in blocking mode waits (nothing for
    /// other streams).
    fn set_write_timeout(&mut self, limit: Option<std::time::Duration>) -> std::io::Result<()> {
        let _ = limit;
        Ok(())
    }
}

/// Runs `f` on the socket `fd` (owned by the async stream the caller
/// borrows) switched to blocking mode, then switches it back.
fn with_blocking<R>(
    fd: std::os::fd::RawFd,
    f: impl FnOnce(&mut std::net::TcpStream) -> std::io::Result<R>,
) -> std::io::Result<R> {
    use std::os::fd::FromRawFd;
    // SAFETY: `fd` is an open socket owned by the tokio stream the caller
    // holds a mutable borrow of for the whole call, so it stays open and
    // nothing else uses it meanwhile; `ManuallyDrop` keeps this second
    // handle from closing it. Blocking mode and reads/writes through a
    // `TcpStream` handle are plain socket calls, valid for Unix-domain
    // stream sockets as well.
    let mut socket = std::mem::ManuallyDrop::new(unsafe { std::net::TcpStream::from_raw_fd(fd) });
    socket.set_nonblocking(false)?;
    let result = f(&mut socket);
    let restored = socket.set_nonblocking(true);
    let value = result?;
    restored?;
    Ok(value)
}

/// `f` retried while interrupted by a signal.
fn retry<R>(mut f: impl FnMut() -> std::io::Result<R>) -> std::io::Result<R> {
    loop {
        match f() {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            r => return r,
        }
    }
}

impl BlockingAccess for ClientStream {
    fn blocking_read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::io::Read;
        use std::os::fd::AsRawFd;
        match self {
            ClientStream::Tcp(s) => with_blocking(s.as_raw_fd(), |s| retry(|| s.read(buf))),
            ClientStream::Unix(s) => with_blocking(s.as_raw_fd(), |s| retry(|| s.read(buf))),
            ClientStream::Tls(s) => {
                let (tcp, tls) = s.get_mut();
                with_blocking(tcp.as_raw_fd(), |socket| {
                    retry(|| rustls::Stream::new(&mut *tls, &mut *socket).read(buf))
                })
            }
            ClientStream::SyncTcp(s) => s.read(buf),
            ClientStream::SyncUnix(s) => s.read(buf),
            ClientStream::SyncTls(s) => s.read(buf),
            ClientStream::Other(_) => Err(no_blocking_access()),
        }
    }

    fn blocking_write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        use std::io::Write;
        use std::os::fd::AsRawFd;
        match self {
            ClientStream::Tcp(s) => with_blocking(s.as_raw_fd(), |s| s.write_all(buf)),
            ClientStream::Unix(s) => with_blocking(s.as_raw_fd(), |s| s.write_all(buf)),
            ClientStream::Tls(s) => {
                let (tcp, tls) = s.get_mut();
                with_blocking(tcp.as_raw_fd(), |socket| {
                    let mut stream = rustls::Stream::new(&mut *tls, &mut *socket);
                    stream.write_all(buf)?;
                    stream.flush()
                })
            }
            ClientStream::SyncTcp(s) => s.write_all(buf),
            ClientStream::SyncUnix(s) => s.write_all(buf),
            ClientStream::SyncTls(s) => {
                s.write_all(buf)?;
                s.flush()
            }
            ClientStream::Other(_) => Err(no_blocking_access()),
        }
    }

    fn is_blocking(&self) -> bool {
        matches!(
            self,
            ClientStream::SyncTcp(_) | ClientStream::SyncTls(_) | ClientStream::SyncUnix(_)
        )
    }

    fn set_read_timeout(&mut self, limit: Option<std::time::Duration>) -> std::io::Result<()> {
        match self {
            ClientStream::SyncTcp(s) => s.set_read_timeout(limit),
            ClientStream::SyncUnix(s) => s.set_read_timeout(limit),
            ClientStream::SyncTls(s) => s.socket_mut().set_read_timeout(limit),
            _ => Ok(()),
        }
    }

    fn set_write_timeout(&mut self, limit: Option<std::time::Duration>) -> std::io::Result<()> {
        match self {
            ClientStream::SyncTcp(s) => s.set_write_timeout(limit),
            ClientStream::SyncUnix(s) => s.set_write_timeout(limit),
            ClientStream::SyncTls(s) => s.socket_mut().set_write_timeout(limit),
            _ => Ok(()),
        }
    }
}

fn no_blocking_access() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "this stream has no synchronous access",
    )
}
