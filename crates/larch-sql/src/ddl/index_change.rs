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

use std::sync::atomic::Ordering;

use larch_engine::ddl::BuildOptions;
use larch_engine::table::TableDef;

use crate::error::SqlError;
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

/// Gives table `db.name` the secondary indexes of `def` (which has its
/// current name) and the SQL metadata `meta`.
pub(super) fn apply(
    s: &Session,
    (db, name): (&str, &str),
    def: &TableDef,
    meta: &[u8],
) -> Result<(), SqlError> {
    let options = build_options(s);
    let kill = s.process.kill_query.clone();
    let interrupted = move || kill.load(Ordering::SeqCst);
    s.db.catalog()
        .change_indexes(db, name, def.clone(), meta, &options, &interrupted)?;
    Ok(())
}
