//! Serving: listeners, the ready line, the pid file, and shutdown.
//!
//! [`serve`] runs inside the tokio runtime once the database is open:
//!
//! 1. binds TCP (every `--bind-address`, unless `--skip-networking`;
//!    `larch-wire` sets `TCP_NODELAY` on each accepted connection) and the
//!    Unix socket (refusing a socket another live server answers on);
//! 2. publishes `port`, `socket`, `bind_address`, `max_connections`,
//!    `pid_file`, `basedir` and the TLS facts (`have_ssl`, `ssl_cert`,
//!    `ssl_key`, `ssl_ca`, `version_ssl_library`) as read-only variables,
//!    writes the pid file,
//!    installs the `SHUTDOWN` hook and the SIGTERM/SIGINT handlers, and logs
//!    MariaDB's "ready for connections" lines (with the real port, also for
//!    `--port=0`);
//!    installs the status variables of threads and connections
//!    (`Threads_cached`, `Threads_created`, `Threads_connected`,
//!    `Connections`), the resizing of the thread cache by `SET GLOBAL
//!    thread_cache_size` and the connection timeouts' `SET GLOBAL`;
//! 3. waits for SIGTERM, SIGINT or `SHUTDOWN`, then stops accepting (the
//!    Unix socket file goes with its listener), kills every session (a
//!    running statement stops with ER 1317 at its next row and its
//!    connection closes once the answer is sent, so the client of SHUTDOWN
//!    gets its OK; idle connections close at once; after a second every
//!    connection is closed outright) and waits up to [`DRAIN_TIMEOUT`] for
//!    the connections to end.
//!
//! The caller then closes the database (`Database::close` flushes it) and
//! removes the pid file.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use larch_engine::record::value::Value as EValue;
use larch_sql::database::{Database, SERVER_VERSION};
use larch_wire::{
    ConnectionInfo, ConnectionThreads, ExecutionMode, Listener, Server, ServerConfig, Threading,
    TlsSettings, TLS_LIBRARY_VERSION,
};
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::Notify;

mod hooks;

use crate::limits::{Slots, Usage};
use crate::log::ErrorLog;
use crate::options::{ServerOptions, SslFiles, ThreadHandling};
use crate::session::{Connection, Shared};

/// How long shutdown waits for connections to end.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// What ended the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// SIGTERM.
    Terminate,
    /// SIGINT.
    Interrupt,
    /// The `SHUTDOWN` statement.
    Shutdown,
}

/// A start-up failure, logged before exiting with status 1.
#[derive(Debug)]
pub struct StartError(pub Vec<String>);

fn start_error(lines: impl IntoIterator<Item = String>) -> StartError {
    StartError(lines.into_iter().collect())
}

/// The socket address(es) for one `--bind-address` value.
fn resolve(addr: &str, port: u16) -> Vec<String> {
    match addr {
        "*" => vec![format!("[::]:{port}"), format!("0.0.0.0:{port}")],
        a if a.contains(':') && !a.starts_with('[') => vec![format!("[{a}]:{port}")],
        a => vec![format!("{a}:{port}")],
    }
}

/// Binds every TCP address on `port`; the first bound port is used for
/// the others when it is 0.
async fn bind_tcp(
    opts: &ServerOptions,
    port: u16,
    log: &ErrorLog,
) -> Result<(Vec<Listener>, u16), StartError> {
    let mut listeners = Vec::new();
    let mut port = port;
    for addr in &opts.bind_addresses {
        let candidates = resolve(addr, port);
        let mut last_err = None;
        for candidate in &candidates {
            match Listener::bind_tcp(candidate.as_str()).await {
                Ok(l) => {
                    if let Some(local) = l.local_addr() {
                        port = local.port();
                        log.note(&format!(
                            "Server socket created on IP: '{}', port: '{}'.",
                            local.ip(),
                            local.port()
                        ));
                    }
                    listeners.push(l);
                    last_err = None;
                    break;
                }
                Err(e) => last_err = Some(e),
            }
        }
        if let Some(e) = last_err {
            let errno = e.raw_os_error().unwrap_or(0);
            return Err(start_error([
                format!("Can't start server: Bind on TCP/IP port {port} ({addr}). Got error: {errno}: {e}"),
                format!("Do you already have another server running on port: {port} ?"),
            ]));
        }
    }
    Ok((listeners, port))
}

/// The seconds given for `name` at start-up (an option that also sets the
/// global variable), or `default` (MariaDB's) when absent or not a positive
/// whole number.
fn seconds_option(opts: &ServerOptions, name: &str, default: u64) -> Duration {
    let given = opts
        .ignored
        .iter()
        .rev()
        .find(|(n, _)| n == name)
        .and_then(|(_, v)| v.trim().parse::<u64>().ok())
        .filter(|&n| n > 0);
    Duration::from_secs(given.unwrap_or(default))
}

/// Binds the Unix socket unless another server answers on it.
async fn bind_socket(path: &Path) -> Result<Listener, StartError> {
    if std::os::unix::net::UnixStream::connect(path).is_ok() {
        return Err(start_error([
            format!("Can't start server: socket '{}' is in use", path.display()),
            format!(
                "Do you already have another server running on socket: {} ?",
                path.display()
            ),
        ]));
    }
    let len = path.as_os_str().len();
    if len >= 108 {
        return Err(start_error([format!(
            "The socket file path is too long ({len} bytes, the limit is 107): {}",
            path.display()
        )]));
    }
    Listener::bind_unix(path).await.map_err(|e| {
        start_error([format!(
            "Can't start server: Bind on unix socket '{}': {e}",
            path.display()
        )])
    })
}

/// Writes the pid file (creating its directory).
fn write_pid_file(path: &Path) -> Result<(), StartError> {
    let write = || -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, format!("{}\n", std::process::id()))
    };
    write().map_err(|e| {
        start_error([format!(
            "Can't create/write to file '{}' (Errcode: {})",
            path.display(),
            e
        )])
    })
}

/// Serves clients until a shutdown request; see the module documentation.
pub async fn serve(
    db: Arc<Database>,
    opts: &ServerOptions,
    tls: Option<(TlsSettings, SslFiles)>,
    log: &Arc<ErrorLog>,
) -> Result<StopReason, StartError> {
    let (tls, tls_files) = match tls {
        Some((settings, files)) => (Some(settings), Some(files)),
        None => (None, None),
    };
    let config = ServerConfig {
        tls: tls.clone(),
        max_handshakes: opts.connections.max_unauthenticated,
        max_handshakes_per_host: opts.connections.max_unauthenticated_per_host,
        server_version: SERVER_VERSION.to_owned(),
        max_allowed_packet: opts.max_allowed_packet,
        execution: ExecutionMode::Inline,
        idle_timeout: Some(Duration::from_secs(opts.wait_timeout)),
        // At least 2 s, as the variable (and MariaDB's) minimum.
        connect_timeout: Some(
            seconds_option(opts, "connect_timeout", 10).max(Duration::from_secs(2)),
        ),
        net_read_timeout: Some(seconds_option(opts, "net_read_timeout", 30)),
        net_write_timeout: Some(seconds_option(opts, "net_write_timeout", 60)),
        ..ServerConfig::default()
    };
    let server = Server::new(config)
        .map_err(|e| start_error([format!("cannot generate the RSA key: {e}")]))?;

    let (mut listeners, port) = if opts.skip_networking {
        (Vec::new(), 0)
    } else {
        bind_tcp(opts, opts.port, log).await?
    };
    listeners.push(bind_socket(&opts.socket).await?);
    // MariaDB's extra port: its own connection limit.
    let extra = opts.connections.extra_port;
    let extra_listeners = if extra != 0 && !opts.skip_networking {
        bind_tcp(opts, extra, log).await?.0
    } else {
        Vec::new()
    };

    let fact = |s: &Path| EValue::Str(s.display().to_string());
    db.set_server_fact("port", EValue::UInt(u64::from(port)));
    db.set_server_fact("socket", fact(&opts.socket));
    db.set_server_fact("bind_address", EValue::Str(opts.bind_addresses.join(",")));
    db.set_server_fact(
        "max_connections",
        EValue::UInt(u64::from(opts.max_connections)),
    );
    db.set_server_fact("pid_file", fact(&opts.pid_file));
    // What sessions copy at connect, so the option reaches them as it
    // reaches the server's idle limit.
    db.set_server_fact("wait_timeout", EValue::UInt(opts.wait_timeout));
    // The error log's file; empty when it goes to stderr, as in MariaDB.
    db.set_server_fact(
        "log_error",
        EValue::Str(
            opts.log_error
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
        ),
    );
    // Where SELECT ... INTO OUTFILE and LOAD DATA INFILE may touch files:
    // by default only the data directory's `files` directory.
    let secure_file_priv = opts.connections.secure_file_priv(&opts.engine.datadir);
    if opts.connections.secure_file_priv.is_none() {
        let dir = opts
            .engine
            .datadir
            .join(crate::options::connections::SECURE_FILE_DIR);
        std::fs::create_dir_all(&dir).map_err(|e| {
            start_error([format!(
                "cannot create the directory '{}': {e}",
                dir.display()
            )])
        })?;
    }
    db.set_server_fact("secure_file_priv", EValue::Str(secure_file_priv));
    db.set_server_fact("extra_port", EValue::UInt(u64::from(extra)));
    db.set_server_fact("basedir", fact(&opts.basedir));
    db.set_server_fact(
        "thread_handling",
        EValue::Str(opts.thread_handling.name().into()),
    );
    db.set_server_fact(
        "skip_networking",
        EValue::UInt(u64::from(opts.skip_networking)),
    );
    db.set_server_fact(
        "version_ssl_library",
        EValue::Str(TLS_LIBRARY_VERSION.into()),
    );
    if let Some(files) = &tls_files {
        db.set_server_fact("have_ssl", EValue::Str("YES".into()));
        db.set_server_fact("ssl_cert", fact(&files.cert));
        db.set_server_fact("ssl_key", fact(&files.key));
        if let Some(ca) = &files.ca {
            db.set_server_fact("ssl_ca", fact(ca));
        }
    }

    let stop = Arc::new(Notify::new());
    {
        let stop = stop.clone();
        db.set_shutdown_hook(Box::new(move || stop.notify_one()));
    }
    // CREATE USER ... IDENTIFIED WITH caching_sha2_password BY 'pw'.
    db.set_sha2_crypt(Box::new(|password| {
        larch_wire::Credential::caching_sha2(password)
            .ok()
            .map(|c| c.auth_string())
    }));
    let signal_err =
        |e: std::io::Error| start_error([format!("cannot install signal handlers: {e}")]);
    let mut sigterm = signal(SignalKind::terminate()).map_err(signal_err)?;
    let mut sigint = signal(SignalKind::interrupt()).map_err(signal_err)?;
    let mut sighup = signal(SignalKind::hangup()).map_err(signal_err)?;

    write_pid_file(&opts.pid_file)?;

    let shared = Shared::new(db.clone());
    let usage = Arc::new(Usage::default());
    let main_slots = Slots::new(opts.max_connections as usize, usage.clone());
    // Its limit is set from `extra_max_connections` (`hooks`).
    let extra_slots = Slots::new(1, usage.clone());
    let factory_for = |slots: &Arc<Slots>| {
        let (shared, slots) = (shared.clone(), slots.clone());
        Arc::new(move |info: &ConnectionInfo| Connection::new(shared.clone(), slots.clone(), info))
    };
    let threading = match opts.thread_handling {
        ThreadHandling::OneThreadPerConnection => Threading::PerConnection(ConnectionThreads::new(
            "larchd-conn",
            opts.thread_cache_size,
        )),
        ThreadHandling::PoolOfThreads => Threading::Pool,
    };
    hooks::install(
        &db,
        &server,
        &threading,
        &shared,
        (usage, extra_slots.clone()),
        tls.as_ref(),
    );
    let mut tasks = Vec::new();
    let groups = listeners
        .into_iter()
        .map(|l| (l, factory_for(&main_slots)))
        .chain(
            extra_listeners
                .into_iter()
                .map(|l| (l, factory_for(&extra_slots))),
        );
    for (listener, factory) in groups {
        let server = server.clone();
        let threading = threading.clone();
        tasks.push(tokio::spawn(async move {
            listener
                .run_with(server, move |info| factory(info), threading)
                .await;
        }));
    }

    log.note("larchd: ready for connections.");
    log.raw(&format!(
        "Version: '{SERVER_VERSION}'  socket: '{}'  port: {port}  Larch {}\n",
        opts.socket.display(),
        env!("CARGO_PKG_VERSION")
    ));

    let reason = loop {
        tokio::select! {
            _ = sigterm.recv() => break StopReason::Terminate,
            _ = sigint.recv() => break StopReason::Interrupt,
            () = stop.notified() => break StopReason::Shutdown,
            _ = sighup.recv() => log.note("larchd: SIGHUP received; nothing to reload"),
        }
    };
    let by = match reason {
        StopReason::Shutdown => "SHUTDOWN statement",
        StopReason::Terminate => "SIGTERM",
        StopReason::Interrupt => "SIGINT",
    };
    log.note(&format!("larchd (initiated by: {by}): Normal shutdown"));

    // Stop accepting; dropping a Unix listener removes its socket file.
    for task in &tasks {
        task.abort();
    }
    for task in tasks {
        let _ = task.await;
    }
    drain(&db, &server, log).await;
    Ok(reason)
}

/// Kills every session and waits for the connections to end.
async fn drain(db: &Database, server: &Server, log: &ErrorLog) {
    let started = Instant::now();
    let deadline = started + DRAIN_TIMEOUT;
    loop {
        let processes = db.processes();
        let connections = server.connection_ids();
        if processes.is_empty() && connections.is_empty() {
            return;
        }
        if Instant::now() >= deadline {
            log.warning(&format!(
                "larchd: {} connection(s) did not end within {} s; closing anyway",
                connections.len().max(processes.len()),
                DRAIN_TIMEOUT.as_secs()
            ));
            return;
        }
        // First each running command is stopped and answered, and its
        // connection closed once idle (the client that sent SHUTDOWN gets
        // its OK); after a second every connection is closed outright (one
        // blocked writing to a client that does not read wakes up).
        let outright = started.elapsed() >= Duration::from_secs(1);
        for p in &processes {
            db.kill(p.id, !outright);
        }
        for id in connections {
            if outright {
                server.kill(id, false);
            } else {
                server.close_when_idle(id);
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Removes the pid file (if it is still ours).
pub fn remove_pid_file(path: &Path) {
    let ours = std::fs::read_to_string(path)
        .map(|s| s.trim() == std::process::id().to_string())
        .unwrap_or(false);
    if ours {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bind_address_forms() {
        assert_eq!(resolve("127.0.0.1", 3306), vec!["127.0.0.1:3306"]);
        assert_eq!(resolve("::1", 0), vec!["[::1]:0"]);
        assert_eq!(resolve("*", 1), vec!["[::]:1", "0.0.0.0:1"]);
    }
}
