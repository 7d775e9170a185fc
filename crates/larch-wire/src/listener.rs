//! Accepting clients: [`Listener`] binds a TCP address or a Unix socket path
//! and serves every accepted connection with a new [`SqlSession`] from the
//! session factory, as [`Threading`] says: on its own tokio task of the
//! listener's runtime (a pool of worker threads), or on a thread of its own
//! ([`ConnectionThreads`]).
//!
//! A failing connection only ends its own task (errors are logged at debug
//! level); accept errors such as running out of file descriptors are logged
//! and retried after a short pause, so the listener keeps going.

use crate::server::Server;
use crate::session::{ConnectionInfo, SqlSession};
use crate::threads::ConnectionThreads;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// How a listener serves the connections it accepts.
#[derive(Debug, Clone)]
pub enum Threading {
    /// Each connection is a task of the runtime the listener runs in.
    Pool,
    /// Each connection runs on a thread of its own, with blocking socket
    /// calls (see [`crate::threads`] and [`crate::blocking`]).
    PerConnection(Arc<ConnectionThreads>),
}

/// A bound listening socket.
#[derive(Debug)]
pub enum Listener {
    /// TCP/IP.
    Tcp(tokio::net::TcpListener),
    /// A Unix-domain socket at a path.
    Unix(tokio::net::UnixListener, PathBuf),
}

impl Listener {
    /// Binds a TCP address (port 0 picks a free port).
    pub async fn bind_tcp(addr: impl tokio::net::ToSocketAddrs) -> std::io::Result<Self> {
        Ok(Listener::Tcp(tokio::net::TcpListener::bind(addr).await?))
    }

    /// Binds a Unix socket at `path`, replacing a stale socket file.
    pub async fn bind_unix(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let path = path.as_ref();
        if std::fs::symlink_metadata(path).is_ok_and(|m| {
            use std::os::unix::fs::FileTypeExt;
            m.file_type().is_socket()
        }) {
            std::fs::remove_file(path)?;
        }
        let listener = tokio::net::UnixListener::bind(path)?;
        Ok(Listener::Unix(listener, path.to_owned()))
    }

    /// The bound TCP address (None for Unix sockets).
    pub fn local_addr(&self) -> Option<SocketAddr> {
        match self {
            Listener::Tcp(l) => l.local_addr().ok(),
            Listener::Unix(..) => None,
        }
    }

    /// Accepts connections forever, serving each on a spawned task with a
    /// session made by `make_session`. Must run inside a tokio runtime.
    pub async fn run<H, F>(self, server: Arc<Server>, make_session: F)
    where
        H: SqlSession + 'static,
        F: Fn(&ConnectionInfo) -> H + Send + Sync + 'static,
    {
        self.run_with(server, make_session, Threading::Pool).await;
    }

    /// Accepts connections forever, serving each as `threading` says with a
    /// session made by `make_session`. Must run inside a tokio runtime.
    pub async fn run_with<H, F>(self, server: Arc<Server>, make_session: F, threading: Threading)
    where
        H: SqlSession + 'static,
        F: Fn(&ConnectionInfo) -> H + Send + Sync + 'static,
    {
        let make_session = Arc::new(make_session);
        loop {
            let accepted = match &self {
                Listener::Tcp(l) => l.accept().await.map(|(s, _)| Accepted::Tcp(s)),
                Listener::Unix(l, _) => l.accept().await.map(|(s, _)| Accepted::Unix(s)),
            };
            let stream = match accepted {
                Ok(s) => s,
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let stream = match &threading {
                Threading::Pool => stream,
                Threading::PerConnection(threads) => {
                    match on_own_thread(threads, stream, &server, &make_session) {
                        None => continue,
                        // No thread could be started: serve it here.
                        Some(stream) => stream,
                    }
                }
            };
            let server = server.clone();
            let make_session = make_session.clone();
            tokio::spawn(async move {
                let result = match stream {
                    Accepted::Tcp(s) => server.serve_tcp(s, |info| make_session(info)).await,
                    Accepted::Unix(s) => server.serve_unix(s, |info| make_session(info)).await,
                };
                if let Err(e) = result {
                    tracing::debug!(error = %e, "connection ended with an error");
                }
            });
        }
    }
}

/// Hands a connection to a thread of its own; gives it back (re-registered
/// with the current runtime) when no thread could be started, and `None`
/// once it is taken care of (also when it failed and was dropped).
fn on_own_thread<H, F>(
    threads: &Arc<ConnectionThreads>,
    stream: Accepted,
    server: &Arc<Server>,
    make_session: &Arc<F>,
) -> Option<Accepted>
where
    H: SqlSession + 'static,
    F: Fn(&ConnectionInfo) -> H + Send + Sync + 'static,
{
    // Detached from this runtime's I/O driver; the connection's thread
    // switches it to blocking mode.
    let detached = match stream {
        Accepted::Tcp(s) => s.into_std().map(Detached::Tcp),
        Accepted::Unix(s) => s.into_std().map(Detached::Unix),
    };
    let detached = match detached {
        Ok(d) => d,
        Err(e) => {
            tracing::debug!(error = %e, "cannot detach an accepted connection");
            return None;
        }
    };
    let (server, make_session) = (server.clone(), make_session.clone());
    let slot = Arc::new(std::sync::Mutex::new(Some(detached)));
    let for_job = slot.clone();
    let job = Box::new(move || {
        let taken = for_job.lock().unwrap_or_else(|e| e.into_inner()).take();
        let Some(detached) = taken else {
            return;
        };
        // Blocking socket calls on this thread, no event loop
        // (`crate::blocking`).
        let result = match detached {
            Detached::Tcp(s) => server.serve_tcp_blocking(s, |info| make_session(info)),
            Detached::Unix(s) => server.serve_unix_blocking(s, |info| make_session(info)),
        };
        if let Err(e) = result {
            tracing::debug!(error = %e, "connection ended with an error");
        }
    });
    match threads.run(job) {
        Ok(()) => None,
        Err(job) => {
            drop(job);
            let detached = slot.lock().unwrap_or_else(|e| e.into_inner()).take()?;
            let back = match detached {
                Detached::Tcp(s) => tokio::net::TcpStream::from_std(s).map(Accepted::Tcp),
                Detached::Unix(s) => tokio::net::UnixStream::from_std(s).map(Accepted::Unix),
            };
            back.map_err(|e| tracing::debug!(error = %e, "cannot serve a connection"))
                .ok()
        }
    }
}

/// An accepted connection on its way to a thread (non-blocking, as tokio
/// left it).
enum Detached {
    Tcp(std::net::TcpStream),
    Unix(std::os::unix::net::UnixStream),
}

enum Accepted {
    Tcp(tokio::net::TcpStream),
    Unix(tokio::net::UnixStream),
}

impl Drop for Listener {
    fn drop(&mut self) {
        if let Listener::Unix(_, path) = self {
            let _ = std::fs::remove_file(path);
        }
    }
}
