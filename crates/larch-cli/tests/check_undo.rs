//! `larch check` verifies the undo logs: clean after transactions with
//! savepoints, partial rollbacks and off-page columns left their logs in
//! the history (no purge ran), and a damaged undo log header or rollback
//! segment (valid checksums: the damage is written through the engine) is
//! named with its file and page, with exit code 1.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;

use larch_engine::buffer::Latch;
use larch_engine::catalog::Catalog;
use larch_engine::config::EngineConfig;
use larch_engine::io::{OsVfs, Vfs};
use larch_engine::page::{bytes, PageId};
use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, LobKind, Value};
use larch_engine::storage::Storage;
use larch_engine::table::{ColumnDef, IndexDef, TableDef, TransactionServices, TxnContext};
use larch_engine::txn::{IsolationLevel, TrxOptions};
use larch_engine::{EngineError, Result};

fn larch(args: &[&str]) -> Output {
    match Command::new(env!("CARGO_BIN_EXE_larch"))
        .args(args)
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("cannot run larch: {e}"),
    }
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn storage(dir: &Path) -> Result<Arc<Storage>> {
    let mut c = EngineConfig::new(dir);
    c.log_file_size = 4 << 20;
    c.buffer_pool_size = 8 << 20;
    let vfs: Arc<dyn Vfs> = Arc::new(OsVfs::new());
    Ok(Arc::new(Storage::open_or_create(c, vfs)?))
}

fn close(s: Arc<Storage>) -> Result<()> {
    match Arc::into_inner(s) {
        Some(s) => s.close(),
        None => Err(EngineError::Internal("storage still shared".into())),
    }
}

const INT: ColumnType = ColumnType::Int {
    bytes: 4,
    unsigned: false,
};

/// Transactions with savepoints and rollbacks over rows with an off-page
/// column; committed, with no purge, so their logs stay in the history.
fn fill(dir: &Path) -> Result<()> {
    let st = storage(dir)?;
    let (services, recovered) = TransactionServices::open(&st)?;
    assert!(recovered.is_empty());
    let c = Catalog::open(st.clone())?;
    c.set_services(services.clone());
    c.create_database("test", b"")?;
    let def = TableDef {
        name: "t".into(),
        columns: vec![
            ColumnDef::new("id", INT),
            ColumnDef::new("k", INT),
            ColumnDef::new(
                "body",
                ColumnType::Text {
                    kind: LobKind::Medium,
                    collation: Collation::Utf8mb4Bin,
                },
            ),
        ],
        primary_key: Some(IndexDef::on("PRIMARY", &[0], true)),
        secondary: vec![IndexDef::on("k", &[1], false)],
        auto_increment: None,
        fulltext: Vec::new(),
    };
    let table = c.create_table("test", def, b"")?;
    let mut session = services.system.register_session()?;
    let row = |id: i64, n: usize| {
        vec![
            Value::Int(id),
            Value::Int(id % 7),
            Value::Str("b".repeat(n)),
        ]
    };
    for round in 0..6i64 {
        let trx = session.begin(TrxOptions::read_write(IsolationLevel::RepeatableRead))?;
        let mut t = TxnContext::new(&services, trx);
        for i in 0..8 {
            table.insert(&mut t, &row(round * 100 + i, 9000))?;
        }
        let a = t.mark();
        for i in 0..8 {
            let at = table.row_ref(&[Value::Int(round * 100 + i)])?;
            table.update(&mut t, &at, &row(round * 100 + i + 50, 20_000))?;
        }
        let b = t.mark();
        let at = table.row_ref(&[Value::Int(round * 100 + 50)])?;
        table.delete(&mut t, &at)?;
        t.rollback_to(b)?;
        if round % 2 == 0 {
            t.rollback_to(a)?;
        }
        t.commit()?;
    }
    drop(table);
    drop(c);
    drop(services);
    close(st)
}

/// The first log in undo001's history list: (page, header offset).
fn first_history_log(st: &Storage) -> Result<(u32, usize)> {
    let g = st.pool().fix(PageId::new(1, 2), Latch::Shared)?;
    let d = g.data();
    Ok((bytes::get_u32(d, 64), usize::from(bytes::get_u16(d, 84))))
}

fn write(st: &Storage, page: u32, off: usize, v: &[u8]) -> Result<()> {
    let mut mtr = st.mtr()?;
    let p = mtr.page(PageId::new(1, page), Latch::Exclusive)?;
    mtr.write_bytes(p, off, v);
    mtr.commit()?;
    Ok(())
}

#[test]
fn check_verifies_undo_logs_and_names_damage() -> Result<()> {
    let t = tempfile::tempdir().map_err(|e| EngineError::Internal(e.to_string()))?;
    let d = t.path().join("data");
    fill(&d)?;
    let dir = d.to_string_lossy().to_string();
    let o = larch(&["check", "--datadir", &dir]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("undo: 3 rollback segments") && out.contains("OK"),
        "{out}"
    );
    assert!(!out.contains(" 0 history logs"), "{out}");

    // A history log's header claims one page more than its chain has.
    let page = {
        let st = storage(&d)?;
        let (page, h) = first_history_log(&st)?;
        assert_ne!(page, u32::MAX, "undo001 has no history");
        let n = {
            let g = st.pool().fix(PageId::new(1, page), Latch::Shared)?;
            bytes::get_u32(g.data(), h + 36)
        };
        write(&st, page, h + 36, &(n + 1).to_le_bytes())?;
        close(st)?;
        page
    };
    let o = larch(&["check", "--datadir", &dir]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains(&format!("PROBLEM undo001: page {page}: ")),
        "{out}"
    );
    assert!(out.contains("FAILED: 1 problem(s)"), "{out}");

    // The rollback segment header's history length disagrees with its list.
    {
        let st = storage(&d)?;
        let (page, h) = first_history_log(&st)?;
        let n = {
            let g = st.pool().fix(PageId::new(1, page), Latch::Shared)?;
            bytes::get_u32(g.data(), h + 36)
        };
        write(&st, page, h + 36, &(n - 1).to_le_bytes())?;
        let len = {
            let g = st.pool().fix(PageId::new(1, 2), Latch::Shared)?;
            bytes::get_u64(g.data(), 56)
        };
        write(&st, 2, 56, &(len + 1).to_le_bytes())?;
        close(st)?;
    }
    let o = larch(&["check", "--datadir", &dir]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("PROBLEM undo001: page 2: the history list holds"),
        "{out}"
    );
    assert!(out.contains("FAILED: 1 problem(s)"), "{out}");
    Ok(())
}
