//! What the server around the SQL layer plugs in: status variables only it
//! can count (`Threads_cached`, `Threads_created`, `Threads_connected`,
//! `Connections`: its threads and its accepted connections), and a call
//! after `SET GLOBAL` changes a variable the server acts on
//! (`thread_cache_size` resizes its running thread cache), and FLUSH HOSTS
//! and FLUSH USER_RESOURCES, which clear what the server keeps of client
//! hosts and accounts.
//!
//! Invariants: the status provider's names replace the SQL layer's own
//! counters of the same name (`exec::show::server::status_list`); without a
//! server (the SQL layer embedded, tests) nothing is installed and the SQL
//! layer's own figures stand. Hooks run on the session's thread while it
//! holds no lock of the SQL layer.

use larch_engine::record::value::Value;
use parking_lot::RwLock;

/// Status variables computed by the server: `(name, value)` pairs.
pub type StatusProvider = Box<dyn Fn() -> Vec<(&'static str, String)> + Send + Sync>;

/// Called after `SET GLOBAL name = value` stored the (checked) value.
pub type GlobalSetHook = Box<dyn Fn(&'static str, &Value) + Send + Sync>;

/// Called by `FLUSH HOSTS` (`"HOSTS"`) and `FLUSH USER_RESOURCES`
/// (`"USER_RESOURCES"`): what the server keeps about hosts and accounts.
pub type FlushHook = Box<dyn Fn(&str) + Send + Sync>;

/// The server's hooks of one [`crate::database::Database`].
#[derive(Default)]
pub struct ServerHooks {
    status: RwLock<Option<StatusProvider>>,
    global_set: RwLock<Option<GlobalSetHook>>,
    flush: RwLock<Option<FlushHook>>,
}

impl std::fmt::Debug for ServerHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerHooks")
            .field("status", &self.status.read().is_some())
            .field("global_set", &self.global_set.read().is_some())
            .finish()
    }
}

impl ServerHooks {
    /// Installs the flush hook (replacing an earlier one).
    pub fn set_flush_hook(&self, hook: FlushHook) {
        *self.flush.write() = Some(hook);
    }

    /// `FLUSH what` reached the server's state (nothing without a hook).
    pub fn flush(&self, what: &str) {
        if let Some(hook) = self.flush.read().as_ref() {
            hook(what);
        }
    }

    /// Installs the status provider (replacing an earlier one).
    pub fn set_status_provider(&self, provider: StatusProvider) {
        *self.status.write() = Some(provider);
    }

    /// Installs the `SET GLOBAL` hook (replacing an earlier one).
    pub fn set_global_set_hook(&self, hook: GlobalSetHook) {
        *self.global_set.write() = Some(hook);
    }

    /// The server's status variables (none without a provider).
    pub fn status(&self) -> Vec<(&'static str, String)> {
        self.status.read().as_ref().map(|f| f()).unwrap_or_default()
    }

    /// Tells the server that `name` now has the global value `value`.
    pub fn global_set(&self, name: &'static str, value: &Value) {
        if let Some(hook) = self.global_set.read().as_ref() {
            hook(name, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    #[test]
    fn hooks_report_and_observe_only_once_installed() {
        let hooks = ServerHooks::default();
        assert!(hooks.status().is_empty());
        hooks.global_set("thread_cache_size", &Value::UInt(3));
        let seen = Arc::new(AtomicU64::new(0));
        let seen2 = seen.clone();
        hooks.set_global_set_hook(Box::new(move |name, v| {
            if let (Value::UInt(n), "thread_cache_size") = (v, name) {
                seen2.store(*n, Ordering::Relaxed);
            }
        }));
        hooks.global_set("thread_cache_size", &Value::UInt(7));
        assert_eq!(seen.load(Ordering::Relaxed), 7);
        hooks.set_status_provider(Box::new(|| vec![("Threads_cached", "2".into())]));
        assert_eq!(hooks.status(), vec![("Threads_cached", "2".to_owned())]);
    }
}
