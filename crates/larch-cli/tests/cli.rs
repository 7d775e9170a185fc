//! End-to-end tests of the `larch` binary on real files.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::process::{Command, Output};

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

fn tmp() -> tempfile::TempDir {
    match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    }
}

#[test]
fn init_then_check_is_clean() {
    let t = tmp();
    let d = t.path().join("data");
    let d = d.to_string_lossy();
    let o = larch(&[
        "init",
        "--datadir",
        &d,
        "--innodb-page-size=8k",
        "--innodb-log-file-size=4M",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("innodb_page_size=8192"));
    let o = larch(&["check", "--datadir", &d]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = text(&o);
    assert!(
        out.contains("ibdata1") && out.contains("undo003") && out.contains("OK"),
        "{out}"
    );
    // init refuses to overwrite.
    let o = larch(&["init", "--datadir", &d]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("already contains a data directory"),
        "{}",
        text(&o)
    );
}

#[test]
fn mismatched_page_size_is_refused_with_both_sizes() {
    let t = tmp();
    let d = t.path().join("data");
    let d = d.to_string_lossy();
    assert!(larch(&[
        "init",
        "--datadir",
        &d,
        "--innodb_page_size=4096",
        "--innodb-log-file-size=4M"
    ])
    .status
    .success());
    let o = larch(&["check", "--datadir", &d, "--innodb-page-size=16k"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o)
            .contains("uses page size 4096, but the start-up parameter is innodb-page-size=16384"),
        "{}",
        text(&o)
    );
}

fn flip_byte(path: &Path, offset: u64) {
    let mut f = match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
    {
        Ok(f) => f,
        Err(e) => panic!("open {}: {e}", path.display()),
    };
    let mut b = [0u8; 1];
    let r = f
        .seek(SeekFrom::Start(offset))
        .and_then(|_| f.read_exact(&mut b))
        .and_then(|_| f.seek(SeekFrom::Start(offset)))
        .and_then(|_| f.write_all(&[b[0] ^ 0x5a]));
    if let Err(e) = r {
        panic!("flip: {e}");
    }
}

#[test]
fn corrupt_page_is_named_and_check_fails() {
    let t = tmp();
    let d = t.path().join("data");
    let ds = d.to_string_lossy();
    assert!(larch(&[
        "init",
        "--datadir",
        &ds,
        "--innodb-page-size=4k",
        "--innodb-log-file-size=4M"
    ])
    .status
    .success());
    // Page 1 of undo002 (the inode page) gets a flipped bit in its body.
    flip_byte(&d.join("undo002"), 4096 + 1000);
    let o = larch(&["check", "--datadir", &ds]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("undo002") && out.contains("page 1"), "{out}");
    assert!(out.contains("checksum"), "{out}");
}

fn truncate(path: &Path, len: u64) {
    let r = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|f| f.set_len(len));
    if let Err(e) = r {
        panic!("truncate {}: {e}", path.display());
    }
}

/// A fresh 4k data directory, returned with its path as text.
fn init_4k(t: &tempfile::TempDir) -> (std::path::PathBuf, String) {
    let d = t.path().join("data");
    let ds = d.to_string_lossy().to_string();
    let o = larch(&[
        "init",
        "--datadir",
        &ds,
        "--innodb-page-size=4k",
        "--innodb-log-file-size=4M",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    (d, ds)
}

/// Corruption that stops the directory from opening fails the check and is
/// named, even when the offline page scan of what is left finds nothing wrong.
fn assert_open_failure_fails_check(ds: &str, file: &str) {
    let o = larch(&["check", "--datadir", ds]);
    let out = text(&o);
    assert_ne!(o.status.code(), Some(0), "{out}");
    assert!(!out.contains("OK: no problems found"), "{out}");
    assert!(
        out.contains("cannot be opened") && out.contains(file),
        "{out}"
    );
}

#[test]
fn truncated_system_tablespace_fails_check() {
    let t = tmp();
    let (d, ds) = init_4k(&t);
    truncate(&d.join("ibdata1"), 8192);
    assert_open_failure_fails_check(&ds, "ibdata1");
}

#[test]
fn truncated_redo_log_fails_check() {
    let t = tmp();
    let (d, ds) = init_4k(&t);
    truncate(&d.join("ib_logfile0"), 5000);
    assert_open_failure_fails_check(&ds, "ib_logfile0");
}

#[test]
fn defaults_file_groups_are_read() {
    let t = tmp();
    let d = t.path().join("data");
    let cnf = t.path().join("my.cnf");
    let body = format!(
        "[client]\ninnodb_page_size=64k\n[mysqld]\ndatadir = {}\ninnodb-page-size = 32K\ninnodb_log_file_size=8M\n",
        d.display()
    );
    if let Err(e) = std::fs::write(&cnf, body) {
        panic!("write cnf: {e}");
    }
    let arg = format!("--defaults-file={}", cnf.display());
    let o = larch(&["init", &arg]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("innodb_page_size=32768"), "{}", text(&o));
    let o = larch(&["check", &arg]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn bad_options_are_clear_errors() {
    let o = larch(&["init", "--innodb-page-size=12k"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("innodb_page_size"), "{}", text(&o));
    let o = larch(&["frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("unknown command"));
}

#[test]
fn start_creates_then_reopens() {
    let t = tmp();
    let d = t.path().join("data");
    let d = d.to_string_lossy();
    let o = larch(&[
        "start",
        "--datadir",
        &d,
        "--innodb-log-file-size=4M",
        "--innodb-buffer-pool-size=16M",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("created data directory"), "{}", text(&o));
    let o = larch(&["start", "--datadir", &d]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("nothing to recover") && text(&o).contains("innodb_page_size=16384"),
        "{}",
        text(&o)
    );
}

mod tables {
    //! `larch check` runs CHECK TABLE on every table of the dictionary.

    use std::sync::Arc;

    use larch_engine::btree::OnDuplicate;
    use larch_engine::catalog::Catalog;
    use larch_engine::config::EngineConfig;
    use larch_engine::io::{OsVfs, Vfs};
    use larch_engine::record::collation::Collation;
    use larch_engine::record::value::{ColumnType, LobKind, Value};
    use larch_engine::storage::Storage;
    use larch_engine::table::{ColumnDef, IndexDef, TableDef, TxnContext};

    use super::{larch, text, tmp};

    fn open(dir: &std::path::Path) -> larch_engine::Result<Catalog> {
        let mut c = EngineConfig::new(dir);
        c.log_file_size = 4 << 20;
        c.buffer_pool_size = 8 << 20;
        let vfs: Arc<dyn Vfs> = Arc::new(OsVfs::new());
        Catalog::open(Arc::new(Storage::open_or_create(c, vfs)?))
    }

    fn close(c: Catalog) -> larch_engine::Result<()> {
        let s = c.storage().clone();
        drop(c);
        match Arc::into_inner(s) {
            Some(s) => s.close(),
            None => Err(larch_engine::EngineError::Internal(
                "storage still shared".into(),
            )),
        }
    }

    #[test]
    fn check_verifies_rows_indexes_and_off_page_values() -> larch_engine::Result<()> {
        let t = tmp();
        let d = t.path().join("data");
        {
            let c = open(&d)?;
            c.create_database("test", b"")?;
            let def = TableDef {
                name: "t".into(),
                columns: vec![
                    ColumnDef::new(
                        "id",
                        ColumnType::Int {
                            bytes: 4,
                            unsigned: false,
                        },
                    ),
                    ColumnDef::new(
                        "k",
                        ColumnType::Int {
                            bytes: 4,
                            unsigned: false,
                        },
                    ),
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
            let mut ctx = TxnContext::internal();
            for i in 0..30 {
                let body = "x".repeat(if i % 3 == 0 { 40_000 } else { 10 });
                table.insert(
                    &mut ctx,
                    &[Value::Int(i), Value::Int(i % 7), Value::Str(body)],
                )?;
            }
            drop(table);
            close(c)?;
        }
        let dir = d.to_string_lossy().to_string();
        let o = larch(&["check", "--datadir", &dir]);
        let out = text(&o);
        assert_eq!(o.status.code(), Some(0), "{out}");
        assert!(
            out.contains("table test.t") && out.contains("30 rows"),
            "{out}"
        );
        assert!(out.contains("10 off-page values"), "{out}");
        // Damage index k behind the table's back: check names it and fails.
        {
            let c = open(&d)?;
            let table = c.table("test", "t")?;
            let tree = *table
                .secondary_tree(0)
                .ok_or_else(|| larch_engine::EngineError::Internal("k".into()))?;
            let pool = c.storage().pool();
            let e = tree.entries(pool)?.remove(3);
            tree.delete(pool, &e.key)?;
            let mut stray = e.key.clone();
            stray.extend_from_slice(&[1, 2, 3]);
            tree.insert(pool, &stray, &e.value, OnDuplicate::Error)?;
            drop(table);
            close(c)?;
        }
        let o = larch(&["check", "--datadir", &dir]);
        let out = text(&o);
        assert_eq!(o.status.code(), Some(1), "{out}");
        assert!(
            out.contains("PROBLEM table 't' index 'k': no entry for the row"),
            "{out}"
        );
        Ok(())
    }

    #[test]
    fn check_reports_a_damaged_off_page_chain() -> larch_engine::Result<()> {
        use larch_engine::buffer::Latch;
        use larch_engine::page::{offset, PageHeader, PageId, PageType, FIL_NULL};

        let t = tmp();
        let d = t.path().join("data");
        {
            let c = open(&d)?;
            c.create_database("test", b"")?;
            let def = TableDef {
                name: "blobs".into(),
                columns: vec![
                    ColumnDef::new(
                        "id",
                        ColumnType::Int {
                            bytes: 4,
                            unsigned: false,
                        },
                    ),
                    ColumnDef::new(
                        "body",
                        ColumnType::Text {
                            kind: LobKind::Medium,
                            collation: Collation::Utf8mb4Bin,
                        },
                    ),
                ],
                primary_key: Some(IndexDef::on("PRIMARY", &[0], true)),
                secondary: vec![],
                fulltext: Vec::new(),
                auto_increment: None,
            };
            let table = c.create_table("test", def, b"")?;
            let mut ctx = TxnContext::internal();
            table.insert(&mut ctx, &[Value::Int(1), Value::Str("y".repeat(40_000))])?;
            drop(table);
            close(c)?;
        }
        let dir = d.to_string_lossy().to_string();
        let o = larch(&["check", "--datadir", &dir]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        // Cut the chain after its first page, through a logged change (every
        // page stays valid; only the chain is wrong).
        let cut = {
            let c = open(&d)?;
            let storage = c.storage().clone();
            let mut cut = None;
            'spaces: for space in storage.spaces().ids() {
                for p in 0..storage.spaces().size_pages(space)? {
                    let id = PageId::new(space, p);
                    let Ok(g) = storage.pool().fix(id, Latch::Shared) else {
                        continue; // never written
                    };
                    let h = PageHeader(g.data());
                    if h.page_type() == Some(PageType::Overflow)
                        && h.prev() == FIL_NULL
                        && h.next() != FIL_NULL
                    {
                        cut = Some(id);
                        break 'spaces;
                    }
                }
            }
            let Some(id) = cut else {
                panic!("no off-page chain of several pages found");
            };
            let mut mtr = storage.mtr()?;
            let r = mtr.page(id, Latch::Exclusive)?;
            mtr.write_u32(r, offset::NEXT, FIL_NULL);
            mtr.commit()?;
            drop(storage);
            close(c)?;
            id
        };
        let o = larch(&["check", "--datadir", &dir]);
        let out = text(&o);
        assert_eq!(o.status.code(), Some(1), "{out}");
        assert!(
            out.contains("PROBLEM table 'blobs'")
                && out.contains(&format!("off-page chain from page {} ends after", cut.page))
                && out.contains("of 40000 bytes"),
            "{out}"
        );
        Ok(())
    }
}

#[test]
fn sql_runs_statements_in_process_and_keeps_data() {
    let t = tmp();
    let d = t.path().join("data");
    let d = d.to_string_lossy();
    let o = larch(&[
        "sql",
        "--datadir",
        &d,
        "-e",
        "CREATE TABLE test.t (id INT PRIMARY KEY, name VARCHAR(10)); \
         INSERT INTO test.t VALUES (1, 'Ada'), (2, 'Bob'); \
         SELECT id, name FROM test.t ORDER BY id DESC",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "id\tname\n2\tBob\n1\tAda\n"
    );
    // The data is there for the next run; an error is reported with MySQL's
    // code and SQLSTATE and ends with exit status 1.
    let o = larch(&[
        "sql",
        "--datadir",
        &d,
        "-e",
        "SELECT COUNT(*) FROM test.t; SELECT * FROM test.nope",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("COUNT(*)\n2\n"),
        "{}",
        text(&o)
    );
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("ERROR 1146 (42S02): Table 'test.nope' doesn't exist"),
        "{}",
        text(&o)
    );
    // Statements on standard input.
    let mut child = match Command::new(env!("CARGO_BIN_EXE_larch"))
        .args(["sql", "--datadir", &d])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => panic!("cannot run larch: {e}"),
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(b"USE test;\nSELECT name\n  FROM t WHERE id = 2;\n");
    }
    let o = match child.wait_with_output() {
        Ok(o) => o,
        Err(e) => panic!("larch sql: {e}"),
    };
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "name\nBob\n");
}
