//! Connections served with blocking socket calls, on a thread of their own
//! (`--thread-handling=one-thread-per-connection`, see [`crate::threads`]),
//! as MariaDB serves them: the thread sleeps in `read`/`write` on its
//! socket, and no event loop stands between the kernel and the statement.
//!
//! The protocol code is written once, as `async` functions over
//! [`tokio::io::AsyncRead`]/[`AsyncWrite`](tokio::io::AsyncWrite) streams.
//! Here it runs over [`SyncSocket`], a socket in blocking mode whose
//! `poll_*` methods make the system call and are always ready, driven by
//! [`block_on`], an executor that polls one future on the calling thread
//! and parks the thread while the future waits for something other than
//! the socket (the group commit's log sync, `DurableWait`). Nothing here
//! needs a tokio runtime: no epoll instance, no timer wheel and no waker
//! file descriptor per thread, and no epoll round trip per packet.
//!
//! What the event loop did, the socket does:
//! - timeouts are the socket's `SO_RCVTIMEO`/`SO_SNDTIMEO`
//!   ([`SyncSocket::set_read_timeout`], [`SyncSocket::set_write_timeout`]):
//!   `connect_timeout` during the handshake, `wait_timeout` while waiting
//!   for a command, `net_read_timeout` inside one, `net_write_timeout` for
//!   the writes after the handshake, each the session's value or the
//!   server's current one ([`crate::timeouts`]), set again only when it
//!   changed; an expired timeout is reported as [`ErrorKind::TimedOut`]
//!   (never `WouldBlock`, which async code such as `tokio-rustls` would
//!   take for "not ready yet" and wait for a wake-up that never comes);
//! - `KILL CONNECTION` (and shutdown, which kills every connection) wakes
//!   a thread blocked in a read by shutting the socket's read side down
//!   ([`crate::session::ConnectionControl`] holds a [`SocketShutdown`]): the
//!   read returns end-of-file. A kill from another connection shuts the
//!   write side down too, which also frees a thread blocked writing to a
//!   client that does not read; a statement that killed its own connection
//!   still sends its answer.
//!
//! Invariants: a [`SyncSocket`] is in blocking mode for its whole life; its
//! `poll_*` methods never return `Pending`, so a future over it is only
//! pending when something else (a commit's log sync) registered the waker.

use crate::error::WireError;
use crate::server::Server;
use crate::session::{ConnectionInfo, SqlSession, Transport};
use crate::stream::ClientStream;
use crate::timeouts::TimeoutKind;
use std::future::Future;
use std::io::{ErrorKind, IoSlice, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::unix::net::UnixStream;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Runs `future` to its end on the calling thread, parking the thread
/// while it is pending (its waker unparks it).
pub fn block_on<F: Future>(future: F) -> F::Output {
    let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut cx) {
            return value;
        }
        // A wake-up that came before the park makes it return at once;
        // a spurious one only costs another poll.
        std::thread::park();
    }
}

/// Wakes the thread that runs [`block_on`].
struct ThreadWaker(std::thread::Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// What a connection's killer needs of its socket: wake a thread blocked
/// on it.
pub trait SocketShutdown: Send + Sync {
    /// Shuts the read side down: a blocked or later read returns 0.
    fn shutdown_read(&self);
    /// Shuts both sides down: a blocked or later read returns 0, a blocked
    /// or later write fails.
    fn shutdown_both(&self);
    /// True when the peer closed its side or the connection broke
    /// ([`crate::liveness`]); bytes waiting to be read do not count.
    fn peer_closed(&self) -> bool {
        false
    }
}

/// `poll(2)` of `fd` for the peer's close, without waiting.
pub(crate) fn fd_peer_closed(fd: std::os::fd::RawFd) -> bool {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLRDHUP,
        revents: 0,
    };
    // SAFETY: one valid pollfd, a zero timeout; `fd` stays open while the
    // caller holds the socket.
    let n = unsafe { libc::poll(&mut pfd, 1, 0) };
    n > 0 && pfd.revents & (libc::POLLRDHUP | libc::POLLHUP | libc::POLLERR) != 0
}

/// A socket [`SyncSocket`] can serve a connection on.
pub trait BlockingSocket: SocketShutdown + 'static {
    /// `read(2)`.
    fn read_some(&self, buf: &mut [u8]) -> std::io::Result<usize>;
    /// `write(2)`.
    fn write_some(&self, buf: &[u8]) -> std::io::Result<usize>;
    /// `writev(2)`.
    fn write_some_vectored(&self, bufs: &[IoSlice<'_>]) -> std::io::Result<usize>;
    /// `SO_RCVTIMEO`.
    fn set_read_timeout(&self, limit: Option<Duration>) -> std::io::Result<()>;
    /// `SO_SNDTIMEO`.
    fn set_write_timeout(&self, limit: Option<Duration>) -> std::io::Result<()>;
    /// Shuts the write side down (the end of a connection).
    fn shutdown_write(&self) -> std::io::Result<()>;
    /// Clears `O_NONBLOCK`.
    fn set_blocking(&self) -> std::io::Result<()>;
}

macro_rules! blocking_socket {
    ($t:ty) => {
        impl SocketShutdown for $t {
            fn shutdown_read(&self) {
                let _ = self.shutdown(Shutdown::Read);
            }
            fn shutdown_both(&self) {
                let _ = self.shutdown(Shutdown::Both);
            }
            fn peer_closed(&self) -> bool {
                use std::os::fd::AsRawFd;
                fd_peer_closed(self.as_raw_fd())
            }
        }

        impl BlockingSocket for $t {
            fn read_some(&self, buf: &mut [u8]) -> std::io::Result<usize> {
                (&mut &*self).read(buf)
            }
            fn write_some(&self, buf: &[u8]) -> std::io::Result<usize> {
                (&mut &*self).write(buf)
            }
            fn write_some_vectored(&self, bufs: &[IoSlice<'_>]) -> std::io::Result<usize> {
                (&mut &*self).write_vectored(bufs)
            }
            fn set_read_timeout(&self, limit: Option<Duration>) -> std::io::Result<()> {
                <$t>::set_read_timeout(self, limit)
            }
            fn set_write_timeout(&self, limit: Option<Duration>) -> std::io::Result<()> {
                <$t>::set_write_timeout(self, limit)
            }
            fn shutdown_write(&self) -> std::io::Result<()> {
                self.shutdown(Shutdown::Write)
            }
            fn set_blocking(&self) -> std::io::Result<()> {
                self.set_nonblocking(false)
            }
        }
    };
}

blocking_socket!(TcpStream);
blocking_socket!(UnixStream);

/// A socket in blocking mode, read and written with plain system calls;
/// see the module documentation. Shared (an `Arc`) with the connection's
/// [`crate::session::ConnectionControl`], which shuts it down on a kill.
pub struct SyncSocket<T> {
    socket: Arc<T>,
    /// The read timeout last set, so an unchanged one costs no system call.
    read_timeout: Option<Duration>,
    /// The write timeout last set, likewise.
    write_timeout: Option<Duration>,
}

impl<T: BlockingSocket> SyncSocket<T> {
    /// Wraps `socket`, switching it to blocking mode with the given write
    /// timeout and no read timeout.
    pub fn new(socket: T, write_timeout: Option<Duration>) -> std::io::Result<Self> {
        socket.set_blocking()?;
        socket.set_write_timeout(write_timeout)?;
        socket.set_read_timeout(None)?;
        Ok(SyncSocket {
            socket: Arc::new(socket),
            read_timeout: None,
            write_timeout,
        })
    }

    /// The handle a killer uses to wake a blocked read.
    pub fn shutdown_handle(&self) -> Arc<dyn SocketShutdown> {
        self.socket.clone()
    }

    /// The socket itself.
    pub fn get_ref(&self) -> &T {
        &self.socket
    }

    /// Sets how long a read waits (`None`: for ever); a read that waited
    /// that long fails with [`ErrorKind::TimedOut`].
    pub fn set_read_timeout(&mut self, limit: Option<Duration>) -> std::io::Result<()> {
        if self.read_timeout != limit {
            self.socket.set_read_timeout(limit)?;
            self.read_timeout = limit;
        }
        Ok(())
    }

    /// Sets how long a write waits for room (`None`: for ever); a write
    /// that waited that long fails with [`ErrorKind::TimedOut`].
    pub fn set_write_timeout(&mut self, limit: Option<Duration>) -> std::io::Result<()> {
        if self.write_timeout != limit {
            self.socket.set_write_timeout(limit)?;
            self.write_timeout = limit;
        }
        Ok(())
    }
}

/// `f` retried while interrupted by a signal; an expired socket timeout
/// (`EAGAIN` on a blocking socket) becomes [`ErrorKind::TimedOut`].
fn syscall<R>(mut f: impl FnMut() -> std::io::Result<R>) -> std::io::Result<R> {
    loop {
        match f() {
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                return Err(std::io::Error::new(ErrorKind::TimedOut, e))
            }
            r => return r,
        }
    }
}

impl<T: BlockingSocket> Read for SyncSocket<T> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        syscall(|| self.socket.read_some(buf))
    }
}

impl<T: BlockingSocket> Write for SyncSocket<T> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        syscall(|| self.socket.write_some(buf))
    }

    fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> std::io::Result<usize> {
        syscall(|| self.socket.write_some_vectored(bufs))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<T: BlockingSocket> AsyncRead for SyncSocket<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let n = match syscall(|| this.socket.read_some(buf.initialize_unfilled())) {
            Ok(n) => n,
            Err(e) => return Poll::Ready(Err(e)),
        };
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl<T: BlockingSocket> AsyncWrite for SyncSocket<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Poll::Ready(self.get_mut().write(buf))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Poll::Ready(self.get_mut().write_vectored(bufs))
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(self.socket.shutdown_write())
    }
}

/// TLS over a [`SyncSocket`]: rustls' blocking [`rustls::Stream`] under
/// the async traits. (`tokio-rustls` would not do: it reads for as long as
/// rustls wants to read, counting on `Pending` to go back to writing.)
/// Each read first sends what rustls has to send (the end of a handshake,
/// session tickets), each write flushes its records.
pub struct SyncTls {
    socket: SyncSocket<TcpStream>,
    conn: rustls::ServerConnection,
}

impl SyncTls {
    /// A connection whose handshake is done (or under way) on `socket`.
    pub fn new(socket: SyncSocket<TcpStream>, conn: rustls::ServerConnection) -> Self {
        SyncTls { socket, conn }
    }

    /// The socket under the TLS records.
    pub fn socket_mut(&mut self) -> &mut SyncSocket<TcpStream> {
        &mut self.socket
    }

    /// The TLS state.
    pub fn connection(&self) -> &rustls::ServerConnection {
        &self.conn
    }

    fn stream(&mut self) -> rustls::Stream<'_, rustls::ServerConnection, SyncSocket<TcpStream>> {
        rustls::Stream::new(&mut self.conn, &mut self.socket)
    }
}

impl Read for SyncTls {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut stream = self.stream();
        syscall(|| stream.read(buf))
    }
}

impl Write for SyncTls {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut stream = self.stream();
        syscall(|| stream.write(buf))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let mut stream = self.stream();
        syscall(|| stream.flush())
    }
}

impl AsyncRead for SyncTls {
    fn poll_read(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let n = match this.read(buf.initialize_unfilled()) {
            Ok(n) => n,
            Err(e) => return Poll::Ready(Err(e)),
        };
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for SyncTls {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Poll::Ready(self.get_mut().write(buf))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(self.get_mut().flush())
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        this.conn.send_close_notify();
        let flushed = this.flush();
        let closed = this.socket.socket.shutdown_write();
        Poll::Ready(flushed.and(closed))
    }
}

impl Server {
    /// Serves a TCP client on the calling thread with blocking socket calls
    /// (see the module documentation): sets `TCP_NODELAY` and uses the peer
    /// address as host, as [`Server::serve_tcp`] does. Returns when the
    /// connection ended.
    pub fn serve_tcp_blocking<H, F>(
        self: &Arc<Self>,
        stream: TcpStream,
        make_session: F,
    ) -> Result<(), WireError>
    where
        H: SqlSession,
        F: FnOnce(&ConnectionInfo) -> H,
    {
        stream.set_nodelay(true)?;
        let host = stream
            .peer_addr()
            .map(|a| a.ip().to_string())
            .unwrap_or_else(|_| "unknown".to_owned());
        let socket = self.blocking_socket(stream)?;
        let shutdown = socket.shutdown_handle();
        let info = self.connection_info(host, Transport::Tcp);
        let session = make_session(&info);
        self.serve_blocking(ClientStream::SyncTcp(socket), shutdown, info, session)
    }

    /// Serves a Unix-socket client (host `localhost`) on the calling thread
    /// with blocking socket calls.
    pub fn serve_unix_blocking<H, F>(
        self: &Arc<Self>,
        stream: UnixStream,
        make_session: F,
    ) -> Result<(), WireError>
    where
        H: SqlSession,
        F: FnOnce(&ConnectionInfo) -> H,
    {
        let socket = self.blocking_socket(stream)?;
        let shutdown = socket.shutdown_handle();
        let info = self.connection_info("localhost".to_owned(), Transport::Unix);
        let session = make_session(&info);
        self.serve_blocking(ClientStream::SyncUnix(socket), shutdown, info, session)
    }

    /// `socket` in blocking mode, its reads and writes limited by
    /// `connect_timeout` for the handshake (the command loop then sets the
    /// command timeouts, as MariaDB does after the login).
    fn blocking_socket<T: BlockingSocket>(&self, socket: T) -> std::io::Result<SyncSocket<T>> {
        let limit = self.timeout(TimeoutKind::Connect);
        let mut socket = SyncSocket::new(socket, limit)?;
        socket.set_read_timeout(limit)?;
        Ok(socket)
    }

    fn serve_blocking<H: SqlSession>(
        &self,
        stream: ClientStream,
        shutdown: Arc<dyn SocketShutdown>,
        info: ConnectionInfo,
        session: H,
    ) -> Result<(), WireError> {
        let control = info.control.clone();
        control.set_socket(Some(shutdown));
        let result = block_on(self.serve_connection(stream, info, session));
        // The socket closes now, not when the last holder of the control
        // lets it go.
        control.set_socket(None);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn pair() -> (SyncSocket<UnixStream>, UnixStream) {
        let (a, b) = UnixStream::pair().expect("socket pair");
        (SyncSocket::new(a, None).expect("blocking socket"), b)
    }

    #[test]
    fn reads_and_writes_complete_without_a_runtime() {
        let (mut server, mut client) = pair();
        client.write_all(b"ping").expect("client write");
        let mut got = [0u8; 4];
        block_on(AsyncReadExt::read_exact(&mut server, &mut got)).expect("read");
        assert_eq!(&got, b"ping");
        block_on(AsyncWriteExt::write_all(&mut server, b"pong")).expect("write");
        client.read_exact(&mut got).expect("client read");
        assert_eq!(&got, b"pong");
    }

    #[test]
    fn an_expired_read_timeout_is_timed_out() {
        let (mut server, _client) = pair();
        server
            .set_read_timeout(Some(Duration::from_millis(20)))
            .expect("timeout");
        let mut got = [0u8; 1];
        let err = block_on(AsyncReadExt::read_exact(&mut server, &mut got)).expect_err("no data");
        assert_eq!(err.kind(), ErrorKind::TimedOut);
    }

    #[test]
    fn shutting_the_read_side_down_wakes_a_blocked_read() {
        let (mut server, mut client) = pair();
        let handle = server.shutdown_handle();
        let reader = std::thread::spawn(move || {
            let mut got = [0u8; 1];
            let n = block_on(AsyncReadExt::read(&mut server, &mut got));
            // The write side still works after the wake-up.
            let wrote = block_on(AsyncWriteExt::write_all(&mut server, b"x"));
            (n.ok(), wrote.is_ok())
        });
        std::thread::sleep(Duration::from_millis(30));
        handle.shutdown_read();
        let (n, wrote) = reader.join().expect("reader thread");
        assert_eq!(n, Some(0));
        assert!(wrote);
        let mut got = [0u8; 1];
        client.read_exact(&mut got).expect("client read");
        assert_eq!(&got, b"x");
    }

    #[test]
    fn block_on_waits_for_a_wake_up_from_another_thread() {
        let notify = Arc::new(tokio::sync::Notify::new());
        let waiter = notify.clone();
        let t = std::thread::spawn(move || block_on(async move { waiter.notified().await }));
        std::thread::sleep(Duration::from_millis(20));
        notify.notify_one();
        assert!(t.join().is_ok());
    }
}
