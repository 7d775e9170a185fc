//! What the server plugs into the SQL layer once it serves
//! (`larch_sql::server_hooks`):
//!
//! - status variables only the server can count: threads and connections
//!   (`Threads_cached`, `Threads_created`, `Threads_connected`,
//!   `Connections`, `Max_used_connections`, `Aborted_connects`), TLS
//!   (`Ssl_accepts`, `Ssl_finished_accepts`, the certificate's dates and the
//!   verification settings; `Ssl_cipher` and `Ssl_version` stay the
//!   session's) and the login delay (`Connection_control_delay_generated`);
//! - `SET GLOBAL` of what it acts on: `thread_cache_size` resizes the thread
//!   cache; `connect_timeout`, `wait_timeout`, `net_read_timeout` and
//!   `net_write_timeout` reach the sockets (`larch_wire::timeouts`);
//!   `max_connect_errors` and `connection_control_*` the host guard
//!   (`larch_wire::hosts`); `max_user_connections` and
//!   `require_secure_transport` the logins (`crate::limits`,
//!   `crate::session`); `extra_max_connections` the extra port's limit. Their values at start (options set them as global
//!   variables) are read here too.
//! - FLUSH HOSTS (unblocks hosts, ends login delays) and FLUSH
//!   USER_RESOURCES (the per-hour account counts start again).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use larch_engine::record::value::Value as EValue;
use larch_sql::database::Database;
use larch_wire::{Server, Threading, TimeoutKind, TlsSettings};

use crate::limits::{Slots, Usage};
use crate::session::Shared;

/// The whole number a variable's value holds (0 for anything else).
fn number(value: &EValue) -> u64 {
    match value {
        EValue::UInt(n) => *n,
        EValue::Int(n) => u64::try_from(*n).unwrap_or(0),
        _ => 0,
    }
}

/// The signed whole number a variable's value holds (0 for anything else).
fn signed(value: &EValue) -> i64 {
    match value {
        EValue::UInt(n) => i64::try_from(*n).unwrap_or(i64::MAX),
        EValue::Int(n) => *n,
        _ => 0,
    }
}

/// Applies a (start or `SET GLOBAL`) value of a variable the server acts
/// on; false for other variables. `extra` is the extra port's group.
fn apply(server: &Server, shared: &Shared, extra: &Slots, name: &str, value: &EValue) -> bool {
    let n = number(value);
    let hosts = server.hosts();
    match name {
        "max_connect_errors" => hosts.set_max_connect_errors(n),
        "connection_control_failed_connections_threshold" => hosts.set_threshold(n),
        "connection_control_min_connection_delay" => hosts.set_delays(Some(n), None),
        "connection_control_max_connection_delay" => hosts.set_delays(None, Some(n)),
        "max_user_connections" => shared
            .users
            .global_max
            .store(signed(value), Ordering::Relaxed),
        "extra_max_connections" => extra.set_max(usize::try_from(n).unwrap_or(usize::MAX)),
        "require_secure_transport" => shared
            .require_secure_transport
            .store(n != 0, Ordering::Relaxed),
        _ => return false,
    }
    true
}

/// The variables [`apply`] knows, read at start.
const APPLIED: &[&str] = &[
    "max_connect_errors",
    "connection_control_failed_connections_threshold",
    "connection_control_min_connection_delay",
    "connection_control_max_connection_delay",
    "max_user_connections",
    "require_secure_transport",
    "extra_max_connections",
];

/// Installs the hooks; see the module documentation. `usage` counts the
/// logged-in connections of every listener, `extra` is the extra port's
/// group.
pub(super) fn install(
    db: &Database,
    server: &Arc<Server>,
    threading: &Threading,
    shared: &Arc<Shared>,
    (usage, extra): (Arc<Usage>, Arc<Slots>),
    tls: Option<&TlsSettings>,
) {
    for name in APPLIED {
        if let Some(value) = db.global_variable(name) {
            apply(server, shared, &extra, name, &value);
        }
    }
    // Pool: the runtime's worker threads, none cached.
    let workers = tokio::runtime::Handle::try_current()
        .map(|h| h.metrics().num_workers())
        .unwrap_or(0);
    let tls_facts: Vec<(&'static str, String)> = match tls {
        None => Vec::new(),
        Some(t) => {
            let (before, after) = t.validity().cloned().unwrap_or_default();
            let mode = if t.verifies_clients() { "5" } else { "0" };
            vec![
                ("Ssl_accept_renegotiates", "0".into()),
                ("Ssl_client_connects", "0".into()),
                ("Ssl_connect_renegotiates", "0".into()),
                ("Ssl_ctx_verify_depth", "100".into()),
                ("Ssl_ctx_verify_mode", mode.into()),
                ("Ssl_default_timeout", "0".into()),
                ("Ssl_finished_connects", "0".into()),
                ("Ssl_server_not_after", after),
                ("Ssl_server_not_before", before),
                ("Ssl_session_cache_mode", "NONE".into()),
                ("Ssl_sessions_reused", "0".into()),
                ("Ssl_verify_depth", "100".into()),
                ("Ssl_verify_mode", mode.into()),
            ]
        }
    };
    let (status_server, threads) = (server.clone(), threading.clone());
    db.server_hooks().set_status_provider(Box::new(move || {
        let server = &status_server;
        let (cached, created) = match &threads {
            Threading::PerConnection(t) => (t.idle(), t.created()),
            Threading::Pool => (0, workers as u64),
        };
        let (ssl_accepts, ssl_finished, aborted) = server.handshake_counts();
        let mut out = vec![
            ("Aborted_connects", aborted.to_string()),
            (
                "Connection_control_delay_generated",
                server.hosts().delays_generated().to_string(),
            ),
            ("Connections", server.accepted().to_string()),
            ("Max_used_connections", usage.peak().to_string()),
            ("Ssl_accepts", ssl_accepts.to_string()),
            ("Ssl_finished_accepts", ssl_finished.to_string()),
            ("Threads_cached", cached.to_string()),
            ("Threads_connected", server.connected().to_string()),
            ("Threads_created", created.to_string()),
        ];
        out.extend(tls_facts.iter().cloned());
        out
    }));
    let cache = match threading {
        Threading::PerConnection(threads) => Some(threads.clone()),
        Threading::Pool => None,
    };
    let (hook_server, hook_shared) = (server.clone(), shared.clone());
    db.server_hooks()
        .set_global_set_hook(Box::new(move |name, value| {
            if apply(&hook_server, &hook_shared, &extra, name, value) {
                return;
            }
            let n = number(value);
            let timeout = match name {
                "connect_timeout" => TimeoutKind::Connect,
                "wait_timeout" => TimeoutKind::Wait,
                "net_read_timeout" => TimeoutKind::NetRead,
                "net_write_timeout" => TimeoutKind::NetWrite,
                "thread_cache_size" => {
                    if let Some(threads) = &cache {
                        threads.set_cache_size(usize::try_from(n).unwrap_or(usize::MAX));
                    }
                    return;
                }
                _ => return,
            };
            hook_server.set_timeout(timeout, (n > 0).then(|| Duration::from_secs(n)));
        }));
    let (flush_server, flush_shared) = (server.clone(), shared.clone());
    db.server_hooks()
        .set_flush_hook(Box::new(move |what| match what {
            "HOSTS" => flush_server.hosts().flush(),
            "USER_RESOURCES" => flush_shared.users.flush(),
            _ => {}
        }));
}
