//! ALTER TABLE, CREATE INDEX and DROP INDEX that change only a table's
//! secondary indexes run in place: the engine builds the new indexes from
//! one scan of the rows inside the `innodb_ddl_buffer_size` budget, with
//! `innodb_ddl_threads` threads, and frees the dropped ones
//! ([`larch_engine::catalog::Catalog::change_indexes`]). The rows and the
//! other indexes are not copied. As in InnoDB, the result reports 0 rows
//! (`Records: 0`).
//!
//! Which changes qualify: the columns (types, defaults, order) and the
//! primary key stay, and the AUTO_INCREMENT column stays or loses the
//! attribute; secondary indexes are added, dropped or renamed (a renamed
//! index keeps its tree: instant), and the table options and CHECK
//! constraints may change alongside (SQL metadata written in the same
//! dictionary change). Everything else takes the copying rebuild of
//! `rebuild`. A change that builds no index is done in milliseconds
//! (as MariaDB, only one that drops no index either counts as
//! ALGORITHM=INSTANT).
//!
//! Online builds (InnoDB's `LOCK=NONE`, the default): the statement holds
//! the table exclusively only at the start (the build's trees and its
//! online log are set up) and at the end (the rest of the log is replayed
//! and the new definition written). In between it holds the table
//! SharedUpgradable, so other sessions read and write it and their changes
//! reach the new indexes through the online log
//! (`larch_engine::table::OnlineIndexLog`, at most
//! `innodb_online_alter_log_max_size` bytes, else 1799). `LOCK=SHARED`
//! lets others read only; `LOCK=EXCLUSIVE` keeps them out throughout.
//! Taking the table back waits for the transactions that used it to end,
//! as InnoDB's final metadata lock upgrade does (1205 after
//! `lock_wait_timeout`; the build is then undone).

use std::sync::atomic::Ordering;

use larch_engine::ddl::BuildOptions;
use larch_engine::table::TableDef;
use sqlparser::ast::AlterTableLock;

use crate::error::SqlError;
use crate::metadata_locks::Mode;
use crate::session::Session;

/// What an index change does: builds an index, drops one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct IndexWork {
    pub builds: bool,
    pub drops: bool,
}

/// When `new` differs from `old` in its secondary indexes only (or loses
/// its AUTO_INCREMENT attribute): what changes. `None` when more changes.
pub(super) fn index_work(old: &TableDef, new: &TableDef) -> Option<IndexWork> {
    let same_rows = old.columns == new.columns
        && old.primary_key == new.primary_key
        && old.fulltext == new.fulltext
        && (old.auto_increment == new.auto_increment || new.auto_increment.is_none());
    if !same_rows {
        return None;
    }
    let sources = larch_engine::catalog::match_indexes(&old.secondary, &new.secondary);
    let kept = sources.iter().flatten().count();
    Some(IndexWork {
        builds: sources.iter().any(Option::is_none),
        drops: kept < old.secondary.len(),
    })
}

/// The session's build settings.
fn build_options(s: &Session) -> BuildOptions {
    let int = |name| usize::try_from(s.int_var(name)).unwrap_or(usize::MAX);
    let tmpdir = s.tmpdir();
    BuildOptions {
        budget: int("innodb_ddl_buffer_size"),
        threads: int("innodb_ddl_threads").max(1),
        fill_factor: u32::try_from(s.int_var("innodb_fill_factor")).unwrap_or(100),
        tmpdir,
    }
}

/// How an index change shares the table and the server while it builds.
pub(super) struct Sharing<'a, 'g> {
    /// The statement's LOCK= clause.
    pub lock: Option<AlterTableLock>,
    /// The server's DDL lock, which the statement holds. A build that lets
    /// other sessions use the table and drops no index lets it go while it
    /// runs, so DDL on other tables (CREATE TEMPORARY TABLE included) does
    /// not wait for the build; its own table stays protected by its
    /// metadata lock.
    pub ddl: &'a mut parking_lot::MutexGuard<'g, ()>,
}

/// Gives table `db.name` the secondary indexes of `def` (which has its
/// current name) and the SQL metadata `meta`, letting other sessions use
/// the table during a build as `sharing` allows (see the module
/// documentation).
pub(super) fn apply(
    s: &Session,
    (db, name): (&str, &str),
    def: &TableDef,
    meta: &[u8],
    sharing: Sharing<'_, '_>,
) -> Result<(), SqlError> {
    let lock = sharing.lock;
    let options = build_options(s);
    let kill = s.process.kill_query.clone();
    let interrupted = move || kill.load(Ordering::SeqCst);
    let catalog = s.db.catalog();
    let others = match lock {
        Some(AlterTableLock::Exclusive) => None,
        Some(AlterTableLock::Shared) => Some(Mode::ReadOnly),
        Some(AlterTableLock::None | AlterTableLock::Default) | None => Some(Mode::SharedUpgradable),
    };
    let log_max =
        usize::try_from(s.int_var("innodb_online_alter_log_max_size")).unwrap_or(usize::MAX);
    let drops = catalog
        .table_entry(db, name)
        .and_then(|e| index_work(&e.def, def))
        .is_none_or(|w| w.drops);
    let build = catalog.begin_index_change(db, name, def.clone(), others.map(|_| log_max))?;
    let downgraded = others.and_then(|m| s.downgrade_exclusive(db, name, m));
    let let_go = downgraded.is_some() && !drops;
    let mut held = HeldBuild { build, downgraded };
    // The build, then taking the table back (waiting for the transactions
    // that used it), without the server's DDL lock when it is let go: a
    // session that waits for that lock may hold the table.
    let mut run = || {
        held.build
            .build(&options, &interrupted)
            .map_err(SqlError::from)
            .inspect(|()| {
                #[cfg(feature = "fault-injection")]
                crate::fault_injection::reached(
                    crate::fault_injection::FaultPoint::IndexChangeBuilt,
                );
            })
            .and_then(|()| held.downgraded.as_mut().map_or(Ok(()), |d| d.upgrade()))
    };
    let built = if let_go {
        parking_lot::MutexGuard::unlocked(sharing.ddl, run)
    } else {
        run()
    };
    // On an error (as on a panic, by `held`'s drop order) the build is
    // undone while the table is still held, so no other DDL can have it.
    built?;
    let HeldBuild { build, downgraded } = held;
    build.finish(meta, &interrupted)?;
    drop(downgraded);
    Ok(())
}

/// An index change under way and the table's weaker hold while it builds.
/// Fields drop in declaration order, on an error return and when a panic
/// unwinds alike: an unfinished build is undone (its trees freed) before
/// the hold is let go.
struct HeldBuild<'c, 's> {
    build: larch_engine::catalog::IndexChangeBuild<'c>,
    downgraded: Option<crate::metadata_locks::Downgraded<'s>>,
}
