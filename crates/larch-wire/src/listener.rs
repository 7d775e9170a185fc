//! Accepting clients: [`Listener`] binds a TCP address or a Unix socket path
//! and serves every accepted connection on its own tokio task, with a new
//! [`SqlSession`] from the session factory.
//!
//! A failing connection only ends its own task (errors are logged at debug
//! level); accept errors such as running out of file descriptors are logged
//! and retried after a short pause, so the listener keeps going.

use crate::server::Server;
use crate::session::{ConnectionInfo, SqlSession};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

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
