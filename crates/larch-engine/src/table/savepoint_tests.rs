//! Savepoints and partial rollbacks over rows with off-page columns, in the
//! shape of MariaDB's test `innodb.temp_table_savepoint`: transactions that
//! insert, delete and change primary keys of rows whose long columns live
//! off-page (so their undo logs span several pages), set savepoints, roll
//! back to them and commit. Afterwards purge must drain the whole history and
//! give every undo page back, and every check must come out clean.

use std::sync::Arc;

use super::*;
use crate::config::EngineConfig;
use crate::io::{SimVfs, Vfs};
use crate::page::PageSize;
use crate::record::collation::Collation;
use crate::record::value::{ColumnType, LobKind, Value};
use crate::space::alloc;
use crate::txn::{IsolationLevel, Session, TrxOptions};

const INT: ColumnType = ColumnType::Int {
    bytes: 4,
    unsigned: false,
};

fn varchar(max_len: u32) -> ColumnType {
    ColumnType::Varchar {
        max_len,
        collation: Collation::Latin1SwedishCi,
    }
}

/// t5 of the MariaDB test: c1 INT PK, c2 INT, c3 CHAR(255), c4 TEXT,
/// c5 BLOB, c6 VARCHAR(2000), c7 VARCHAR(2000); KEY (c3, c4(50), c5(50)),
/// KEY (c2).
fn def() -> TableDef {
    let prefix = |column, len| IndexColumn {
        column,
        descending: false,
        prefix_len: Some(len),
    };
    TableDef {
        name: "t5".into(),
        columns: vec![
            ColumnDef::new("c1", INT),
            ColumnDef::new("c2", INT),
            ColumnDef::new(
                "c3",
                ColumnType::Char {
                    len: 255,
                    collation: Collation::Latin1SwedishCi,
                },
            ),
            ColumnDef::new(
                "c4",
                ColumnType::Text {
                    kind: LobKind::Text,
                    collation: Collation::Latin1SwedishCi,
                },
            ),
            ColumnDef::new(
                "c5",
                ColumnType::Blob {
                    kind: LobKind::Text,
                },
            ),
            ColumnDef::new("c6", varchar(2000)),
            ColumnDef::new("c7", varchar(2000)),
        ],
        primary_key: Some(IndexDef::on("PRIMARY", &[0], true)),
        secondary: vec![
            IndexDef {
                name: "c3".into(),
                columns: vec![IndexColumn::new(2), prefix(3, 50), prefix(4, 50)],
                unique: false,
            },
            IndexDef::on("c2", &[1], false),
        ],
        auto_increment: None,
        fulltext: Vec::new(),
    }
}

/// `REPEAT(CONCAT(' <tag>', n), times)`, cut to `max` characters as INSERT
/// IGNORE would.
fn rep(tag: &str, n: i64, times: usize, max: usize) -> String {
    let mut s = format!(" {tag}{n}").repeat(times);
    s.truncate(max);
    s
}

/// A row as the test's INSERTs build it (`wide`: 800 repetitions in c6 and
/// c7, else 245).
fn row(c1: i64, n: i64, wide: bool) -> Vec<Value> {
    let times = if wide { 800 } else { 245 };
    vec![
        Value::Int(c1),
        Value::Int(n),
        Value::Str(rep("tc3_", n, 30, 255)),
        Value::Str(rep("tc4_", n, 800, 6000)),
        Value::Bytes(rep("tc_", n, 800, 6000).into_bytes()),
        Value::Str(rep("tc6_", n, times, 2000)),
        Value::Str(rep("tc7_", n, times, 2000)),
    ]
}

struct Env {
    storage: Arc<Storage>,
    services: Arc<TransactionServices>,
    table: Arc<Table>,
    session: Session,
}

impl Env {
    fn new(vfs: Arc<dyn Vfs>) -> Result<Env> {
        let mut c = EngineConfig::new("/d");
        c.page_size = Some(PageSize::K16);
        c.buffer_pool_size = 32 << 20;
        c.log_file_size = 64 << 20;
        c.undo_tablespaces = 3;
        let storage = Arc::new(Storage::open_or_create(c, vfs)?);
        let (services, recovered) = TransactionServices::open(&storage)?;
        assert!(recovered.is_empty());
        let t = Table::create_file_per_table(&storage, def(), "test/t5.ibd")?;
        let table = Arc::new(t.with_services(&services));
        services.register_table(&table);
        let session = services.system.register_session()?;
        Ok(Env {
            storage,
            services,
            table,
            session,
        })
    }

    fn begin(&mut self) -> Result<TxnContext> {
        let trx = self
            .session
            .begin(TrxOptions::read_write(IsolationLevel::RepeatableRead))?;
        Ok(TxnContext::new(&self.services, trx))
    }

    /// The rows whose c1 `keep` accepts, as the transaction sees them.
    fn rows_where(&self, keep: impl Fn(i64) -> bool) -> Result<Vec<(RowRef, Vec<Value>)>> {
        let mut c = self.table.scan(
            &ReadContext::NEWEST,
            CLUSTERED,
            &KeyRange::all(),
            false,
            None,
        )?;
        let mut out = Vec::new();
        while let Some((at, r)) = c.next_row()? {
            if matches!(r[0], Value::Int(c1) if keep(c1)) {
                out.push((at, r));
            }
        }
        Ok(out)
    }

    /// INSERT IGNORE: a duplicate key is skipped.
    fn insert_ignore(&self, t: &mut TxnContext, row: &[Value]) -> Result<()> {
        match self.table.insert(t, row) {
            Err(EngineError::DuplicateEntry { .. }) => Ok(()),
            r => r.map(|_| ()),
        }
    }

    /// DELETE ... WHERE keep(c1).
    fn delete_where(&self, t: &mut TxnContext, keep: impl Fn(i64) -> bool) -> Result<()> {
        for (at, _) in self.rows_where(keep)? {
            self.table.delete(t, &at)?;
        }
        Ok(())
    }

    /// UPDATE ... SET c1 = c1 + by WHERE keep(c1), highest key first so no
    /// moved row lands on one not yet moved.
    fn shift_where(&self, t: &mut TxnContext, by: i64, keep: impl Fn(i64) -> bool) -> Result<()> {
        for (at, mut r) in self.rows_where(keep)?.into_iter().rev() {
            if let Value::Int(c1) = r[0] {
                r[0] = Value::Int(c1 + by);
            }
            self.table.update(t, &at, &r)?;
        }
        Ok(())
    }

    /// One pass of the test's loop body for `n`.
    fn iteration(&mut self, n: i64) -> Result<()> {
        const INNER: i64 = 100;
        let mut t = self.begin()?;
        self.insert_ignore(&mut t, &row(n, n, true))?;
        if n > 10 {
            t.commit()?;
        } else {
            self.delete_where(&mut t, |c1| c1 > 10)?;
            t.rollback()?;
            let mut t = self.begin()?;
            self.shift_where(&mut t, 1000, |c1| c1 > 10)?;
            t.rollback()?;
        }
        let mut t = self.begin()?;
        self.insert_ignore(&mut t, &row(n + INNER, n + INNER, false))?;
        self.delete_where(&mut t, |c1| (100..=110).contains(&c1))?;
        self.shift_where(&mut t, 1, |c1| c1 > 110)?;
        let a = t.mark();
        self.insert_ignore(&mut t, &row(300 + n + INNER, n + INNER, false))?;
        let b = t.mark();
        self.insert_ignore(&mut t, &row(400 + n + INNER, n + INNER, false))?;
        t.rollback_to(b)?;
        t.rollback_to(a)?;
        t.commit()?;
        Ok(())
    }

    /// Pages the allocator counts as used in each undo tablespace.
    fn undo_space_usage(&self) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        for space in self.services.undo.undo_spaces() {
            let mut mtr = self.storage.mtr()?;
            out.push(alloc::space_usage(&mut mtr, space)?.used_pages);
            mtr.commit()?;
        }
        Ok(out)
    }
}

/// The loop of `innodb.temp_table_savepoint` (n = 14 down to 1) with purge
/// lagging behind, as a busy server's purge does: afterwards purge drains the
/// history, every undo page goes back to its tablespace, and the table, the
/// tablespaces and the undo logs check clean.
#[test]
fn savepoint_rollbacks_of_off_page_rows_leave_purgeable_undo() -> Result<()> {
    let mut env = Env::new(Arc::new(SimVfs::new()))?;
    let base = env.undo_space_usage()?;
    for n in (1..=14).rev() {
        env.iteration(n)?;
    }
    assert!(env.services.undo.history_len() > 0);
    assert!(env.services.undo.undo_pages() > 0);
    let undo = crate::undo::check_undo(&env.storage)?;
    assert!(undo.is_clean(), "{:#?}", undo.problems);
    assert_eq!(undo.history_logs, env.services.undo.history_len());
    purge_all(&env.services)?;
    assert_eq!(
        env.services.undo.history_len(),
        0,
        "history left after purge"
    );
    assert_eq!(
        env.services.undo.undo_pages(),
        0,
        "undo pages left after purge"
    );
    assert_eq!(env.undo_space_usage()?, base, "undo pages not given back");
    let c = env.table.check()?;
    assert!(c.problems.is_empty(), "{:?}", c.problems);
    let report = env.storage.check()?;
    assert!(report.is_clean(), "{:?}", report.problems());
    let undo = crate::undo::check_undo(&env.storage)?;
    assert!(undo.is_clean() && undo.pages == 0, "{undo:#?}");
    // Rows n = 11..=14 were committed alone and never moved.
    let left: Vec<i64> = env
        .rows_where(|_| true)?
        .iter()
        .filter_map(|(_, r)| match r[0] {
            Value::Int(c1) => Some(c1),
            _ => None,
        })
        .collect();
    assert!(left.contains(&14) && left.contains(&11), "{left:?}");
    Ok(())
}

/// The same loop with purge keeping up between transactions.
#[test]
fn savepoint_rollbacks_with_purge_between_transactions() -> Result<()> {
    let mut env = Env::new(Arc::new(SimVfs::new()))?;
    let base = env.undo_space_usage()?;
    for n in (1..=14).rev() {
        env.iteration(n)?;
        purge_all(&env.services)?;
        assert_eq!(env.services.undo.history_len(), 0, "after n = {n}");
    }
    assert_eq!(env.services.undo.undo_pages(), 0);
    assert_eq!(env.undo_space_usage()?, base);
    let c = env.table.check()?;
    assert!(c.problems.is_empty(), "{:?}", c.problems);
    Ok(())
}
