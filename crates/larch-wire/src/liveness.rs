//! Statements whose client went away are stopped: a watcher thread looks,
//! every [`INTERVAL`], at the connections that have been running one command
//! since its previous look, and asks each one's socket whether the peer
//! closed it (`poll` with `POLLRDHUP`: the client closed its side or the
//! connection broke; bytes the client already sent, such as a pipelined
//! command, do not count). For such a connection it calls
//! [`ConnectionControl::client_gone`]: the SQL layer's hook kills the
//! statement (it stops at its next kill check with ER 1317) and the
//! connection closes, as MariaDB does when its `thd_is_connection_alive`
//! check fails.
//!
//! Cost on the command path: two relaxed atomic stores per command
//! ([`ConnectionControl::command_started`] / `command_ended`); the watcher
//! polls only connections busy for a whole interval. Connections served
//! with blocking calls ([`crate::blocking`]) are polled through their
//! registered socket; pool connections (tokio sockets, whose task reads
//! nothing while a command runs) through a second descriptor of their
//! socket that the server keeps while the connection lives.

use crate::session::ConnectionControl;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

/// How often the watcher looks.
pub const INTERVAL: Duration = Duration::from_millis(250);

/// The connections to watch (the server's registry hands them over).
pub type Registry = Mutex<HashMap<u32, Arc<ConnectionControl>>>;

/// Starts the watcher thread over `registry`; it ends when the registry
/// (the server) is gone.
pub fn start(registry: Weak<Registry>) {
    let spawned = std::thread::Builder::new()
        .name("larch-liveness".into())
        .stack_size(256 << 10)
        .spawn(move || watch(registry));
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "cannot start the client liveness watcher");
    }
}

fn watch(registry: Weak<Registry>) {
    // Command stamp of each busy connection at the previous look.
    let mut seen: HashMap<u32, u64> = HashMap::new();
    loop {
        std::thread::sleep(INTERVAL);
        let Some(registry) = registry.upgrade() else {
            return;
        };
        let busy: Vec<(u32, u64, Arc<ConnectionControl>)> = registry
            .lock()
            .iter()
            .filter_map(|(id, c)| c.busy_stamp().map(|s| (*id, s, c.clone())))
            .collect();
        drop(registry);
        let mut next = HashMap::with_capacity(busy.len());
        for (id, stamp, control) in busy {
            if seen.get(&id) == Some(&stamp) && control.peer_closed() {
                tracing::debug!(connection = id, "client went away during a command");
                control.client_gone();
                continue;
            }
            next.insert(id, stamp);
        }
        seen = next;
    }
}
