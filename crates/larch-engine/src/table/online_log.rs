//! The online log of an index build: what concurrent row changes do to the
//! indexes being built while writers keep running (`LOCK=NONE`).
//!
//! An index build ([`crate::ddl`]) scans the clustered index while other
//! transactions insert, update, delete and roll back. Before the scan starts
//! (while the builder still holds the table exclusively, so no change is in
//! flight), it attaches an [`OnlineIndexLog`] to the open [`Table`]; from
//! then on every change of a row's newest version, made or rolled back,
//! appends to the log what it does to each new index: *remove the entry of
//! the version before* and *put the entry of the version after*, computed
//! from the full rows, exactly as an insert into that index would write them
//! (writer stamp: the version's writer; creation stamp 0, as the build's own
//! entries). A version that is delete-marked has no entry.
//!
//! Why replaying the log after the build gives each row exactly the entry
//! of its final version: a row's changes are serialized by its row lock and
//! logged under it, in order. Say the row went through versions v0 (when
//! the log started) .. vn, and the scan read vj. The build put e(vj) in the
//! tree; the log holds, in order, "remove e(v(i-1)), put e(vi)" for i = 1..n.
//! Replaying it, each e(vi) put for i < j is removed by the next step,
//! e(vj) is put again (it may have been removed by a step whose entry had
//! the same key), and the steps after j carry the row to e(vn). Removing an
//! absent entry does nothing; putting an existing one overwrites it. Two
//! steps whose before and after entries have the same key are one "put".
//!
//! Changes of different rows touch different entries (an entry's key ends
//! with the clustered key), so their order does not matter. Purge changes no
//! newest version and logs nothing.
//!
//! The log is kept in memory up to `innodb_online_alter_log_max_size`
//! bytes; past that it stops recording and the build fails with 1799, as in
//! InnoDB. The builder drains it while writers append ([`OnlineIndexLog::take`])
//! and drains the rest once it holds the table exclusively again.

use std::sync::atomic::Ordering;

use parking_lot::Mutex;

use super::layout::TableLayout;
use super::Table;
use crate::error::{EngineError, Result};
use crate::record::value::Value;

/// One step of the log, for one new index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogOp {
    /// The index, as a position in the builder's list of new indexes.
    pub index: usize,
    /// True: put `key` -> `value`; false: remove `key`.
    pub put: bool,
    /// A key part of the entry is NULL (never a duplicate).
    pub has_null: bool,
    /// The whole entry key: secondary key parts, then the clustered key.
    pub key: Vec<u8>,
    /// Bytes of the secondary key parts at the front of `key`.
    pub prefix_len: usize,
    pub value: Vec<u8>,
}

impl LogOp {
    fn size(&self) -> usize {
        self.key.len() + self.value.len() + std::mem::size_of::<LogOp>()
    }
}

/// The changes concurrent writers made to the indexes of a build; see the
/// module documentation.
#[derive(Debug)]
pub struct OnlineIndexLog {
    /// The table's layout with the new indexes.
    layout: TableLayout,
    /// Positions in `layout.secondary` of the indexes being built.
    positions: Vec<usize>,
    /// Largest size of the log in bytes before the build fails.
    max_bytes: usize,
    state: Mutex<LogState>,
}

#[derive(Debug, Default)]
struct LogState {
    ops: Vec<LogOp>,
    bytes: usize,
    /// The log outgrew `max_bytes`: nothing more is recorded.
    overflowed: bool,
    /// A change could not be turned into entries: the build fails with it.
    failed: Option<EngineError>,
    /// Steps recorded since the log started.
    recorded: u64,
}

impl OnlineIndexLog {
    pub fn new(layout: TableLayout, positions: Vec<usize>, max_bytes: usize) -> Self {
        Self {
            layout,
            positions,
            max_bytes,
            state: Mutex::new(LogState::default()),
        }
    }

    /// Records that the row at `clustered_key` went from `before` to
    /// `after` (`None`: no live version), the new version written by
    /// transaction `writer`. Never fails the writer: a change that cannot
    /// be recorded fails the build instead.
    pub(super) fn record(
        &self,
        clustered_key: &[u8],
        before: Option<&[Value]>,
        after: Option<&[Value]>,
        writer: u64,
    ) {
        if let Err(e) = self.try_record(clustered_key, before, after, writer) {
            let mut st = self.state.lock();
            st.failed.get_or_insert(e);
        }
    }

    fn try_record(
        &self,
        clustered_key: &[u8],
        before: Option<&[Value]>,
        after: Option<&[Value]>,
        writer: u64,
    ) -> Result<()> {
        {
            let st = self.state.lock();
            if st.overflowed || st.failed.is_some() {
                return Ok(());
            }
        }
        let mut ops = Vec::new();
        for (k, &s) in self.positions.iter().enumerate() {
            let entry = |row: &[Value], put: bool| -> Result<LogOp> {
                let (mut key, has_null) = self.layout.secondary_prefix(s, row)?;
                let prefix_len = key.len();
                key.extend_from_slice(clustered_key);
                let value = if put {
                    self.layout.secondary_value_stamped(s, row, writer, 0)?
                } else {
                    Vec::new()
                };
                Ok(LogOp {
                    index: k,
                    put,
                    has_null,
                    key,
                    prefix_len,
                    value,
                })
            };
            let removed = before.map(|r| entry(r, false)).transpose()?;
            let put = after.map(|r| entry(r, true)).transpose()?;
            match (removed, put) {
                (Some(r), Some(p)) if r.key == p.key => ops.push(p),
                (r, p) => ops.extend(r.into_iter().chain(p)),
            }
        }
        let mut st = self.state.lock();
        if st.overflowed || st.failed.is_some() {
            return Ok(());
        }
        for op in ops {
            st.bytes += op.size();
            st.ops.push(op);
            st.recorded += 1;
        }
        if st.bytes > self.max_bytes {
            st.overflowed = true;
            st.ops = Vec::new();
            st.bytes = 0;
        }
        Ok(())
    }

    /// Takes the steps recorded so far, oldest first. Fails with 1799 when
    /// the log outgrew its limit (`index`: the name the error shows).
    pub fn take(&self, index: &str) -> Result<Vec<LogOp>> {
        let mut st = self.state.lock();
        if let Some(e) = st.failed.take() {
            st.failed = Some(EngineError::Internal(format!("online index build: {e}")));
            return Err(e);
        }
        if st.overflowed {
            return Err(EngineError::Schema {
                errno: 1799,
                message: format!(
                    "Creating index '{index}' required more than \
                     'innodb_online_alter_log_max_size' bytes of modification log. Please try again"
                ),
            });
        }
        st.bytes = 0;
        Ok(std::mem::take(&mut st.ops))
    }

    /// Steps recorded since the log started.
    pub fn recorded(&self) -> u64 {
        self.state.lock().recorded
    }
}

impl Table {
    /// Starts sending this table's row changes to `log` (an index build).
    /// The caller makes sure no row change is in flight (it holds the
    /// table exclusively).
    pub fn attach_online_log(&self, log: std::sync::Arc<OnlineIndexLog>) {
        *self.online_log.write() = Some(log);
        self.online_log_set.store(true, Ordering::Release);
    }

    /// Stops sending row changes to the online log.
    pub fn detach_online_log(&self) {
        *self.online_log.write() = None;
        self.online_log_set.store(false, Ordering::Release);
    }

    /// Records a change of the row at `key` in the online log of a build
    /// running on this table, if any (see the module documentation).
    pub(super) fn log_online(
        &self,
        key: &[u8],
        before: Option<&[Value]>,
        after: Option<&[Value]>,
        writer: u64,
    ) {
        // Attaching and detaching happen while no row change is in flight
        // (the builder holds the table exclusively), so a change started
        // later sees the flag as it was set.
        if !self.online_log_set.load(Ordering::Acquire) {
            return;
        }
        if let Some(l) = self.online_log.read().as_ref() {
            l.record(key, before, after, writer);
        }
    }
}
