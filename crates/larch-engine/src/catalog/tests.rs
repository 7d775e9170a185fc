//! Dictionary tests: DDL round trips, MySQL's errors, persistence across
//! restarts, and crash safety of every DDL step under simulated power loss.

use std::collections::BTreeMap;
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;
use crate::btree::check::check;
use crate::config::EngineConfig;
use crate::io::{SimFault, SimVfs, Vfs};
use crate::page::PageSize;
use crate::record::collation::Collation;
use crate::record::value::ColumnType;
use crate::table::{
    ColumnDef, IndexColumn, IndexDef, KeyRange, ReadContext, TxnContext, CLUSTERED,
};

fn config(ps: PageSize) -> EngineConfig {
    let mut c = EngineConfig::new("/d");
    c.page_size = Some(ps);
    c.buffer_pool_size = 128 * ps.bytes() as u64;
    c.log_file_size = 4 << 20;
    c.undo_tablespaces = 1;
    c
}

pub(super) fn open(vfs: &Arc<dyn Vfs>) -> Result<Catalog> {
    let s = Arc::new(Storage::open_or_create(config(PageSize::K8), vfs.clone())?);
    Catalog::open(s)
}

/// The catalog's storage, the catalog gone.
fn into_storage(c: Catalog) -> Result<Storage> {
    let Catalog {
        storage,
        dictionary,
        cache,
        ..
    } = c;
    drop(dictionary);
    drop(cache);
    Arc::into_inner(storage).ok_or_else(|| EngineError::Internal("storage still shared".into()))
}

pub(super) fn close(c: Catalog) -> Result<()> {
    into_storage(c)?.close()
}

pub(super) fn def(name: &str, columns: usize) -> TableDef {
    let mut cols = vec![ColumnDef::new(
        "id",
        ColumnType::Int {
            bytes: 8,
            unsigned: false,
        },
    )];
    for i in 1..columns {
        cols.push(
            ColumnDef::new(
                &format!("c{i}"),
                ColumnType::Varchar {
                    max_len: 30,
                    collation: Collation::Utf8mb4GeneralCi,
                },
            )
            .nullable(),
        );
    }
    TableDef {
        name: name.into(),
        primary_key: Some(IndexDef::on("PRIMARY", &[0], true)),
        secondary: vec![IndexDef {
            name: "c1".into(),
            columns: vec![IndexColumn::new(1)],
            unique: false,
        }],
        columns: cols,
        auto_increment: None,
        fulltext: Vec::new(),
    }
}

/// 800 TINYINT columns: a definition longer than a dictionary row can hold
/// inline at 8k pages.
fn wide_def() -> TableDef {
    TableDef {
        name: "wide table".into(),
        columns: (0..800)
            .map(|i| {
                ColumnDef::new(
                    &format!("c{i}"),
                    ColumnType::Int {
                        bytes: 1,
                        unsigned: false,
                    },
                )
            })
            .collect(),
        primary_key: None,
        secondary: vec![],
        fulltext: Vec::new(),
        auto_increment: None,
    }
}

pub(super) fn row(id: i64, columns: usize) -> Vec<Value> {
    let mut r = vec![Value::Int(id)];
    r.extend((1..columns).map(|i| Value::Str(format!("v{id}-{i}"))));
    r
}

pub(super) fn count_rows(t: &Table) -> Result<usize> {
    let mut c = t.scan(
        &ReadContext::NEWEST,
        CLUSTERED,
        &KeyRange::all(),
        false,
        Some(&[0]),
    )?;
    let mut n = 0;
    while c.next_row()?.is_some() {
        n += 1;
    }
    Ok(n)
}

fn errno(r: Result<impl std::fmt::Debug>) -> u16 {
    match r {
        Err(EngineError::Schema { errno, .. }) => errno,
        other => panic!("expected a schema error, got {other:?}"),
    }
}

#[test]
fn ddl_round_trips_and_persists() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let c = open(&vfs)?;
    c.create_database("test", b"charset=utf8mb4")?;
    c.create_database("shop", b"")?;
    let t = c.create_table("test", def("t1", 3), b"meta-1")?;
    for i in 0..50 {
        t.insert(&mut TxnContext::internal(), &row(i, 3))?;
    }
    drop(t);
    // A wide definition goes off-page in the dictionary.
    c.create_table("test", wide_def(), b"")?;
    c.rename_table("test", "t1", "shop", "orders")?;
    c.create_table("test", def("t1", 2), b"")?; // the old name (and file name) again
    c.set_table_meta("shop", "orders", b"meta-2")?;
    assert_eq!(c.databases(), vec!["shop".to_string(), "test".to_string()]);
    assert_eq!(
        c.tables("test")?,
        vec!["t1".to_string(), "wide table".to_string()]
    );
    close(c)?;

    let c = open(&vfs)?;
    assert_eq!(c.tables("shop")?, vec!["orders".to_string()]);
    assert_eq!(
        c.tables("test")?,
        vec!["t1".to_string(), "wide table".to_string()]
    );
    let e = c
        .table_entry("shop", "orders")
        .ok_or_else(|| EngineError::Internal("lost".into()))?;
    assert_eq!(e.sql_meta, b"meta-2");
    assert_eq!(e.def.name, "orders");
    assert_eq!(count_rows(&*c.table("shop", "orders")?)?, 50);
    assert_eq!(count_rows(&*c.table("test", "t1")?)?, 0);
    assert_eq!(
        c.table_entry("test", "wide table")
            .map(|e| e.def.columns.len()),
        Some(800)
    );
    assert_eq!(c.database_meta("test"), Some(b"charset=utf8mb4".to_vec()));
    let check = c.check_tables()?;
    assert!(check.orphans.is_empty());
    let tables = check.tables;
    assert_eq!(tables.len(), 3);
    assert!(tables.iter().all(|(_, r)| r.problems.is_empty()));
    assert_eq!(
        tables
            .iter()
            .find(|(n, _)| n == "shop.orders")
            .map(|(_, r)| r.rows),
        Some(50)
    );
    assert_eq!(
        c.drop_database("test")?,
        vec!["t1".to_string(), "wide table".to_string()]
    );
    c.drop_table("shop", "orders")?;
    let spaces = c.storage().spaces().ids();
    assert!(
        spaces.iter().all(|&s| s <= 1),
        "only system and undo spaces remain: {spaces:?}"
    );
    close(c)?;
    let c = open(&vfs)?;
    assert_eq!(c.databases(), vec!["shop".to_string()]);
    assert!(c.tables("shop")?.is_empty());
    Ok(())
}

#[test]
fn ddl_errors_are_mysqls() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let c = open(&vfs)?;
    c.create_database("d", b"")?;
    assert_eq!(errno(c.create_database("d", b"")), 1007);
    assert_eq!(errno(c.drop_database("nope")), 1049);
    assert_eq!(errno(c.create_table("nope", def("t", 2), b"")), 1049);
    c.create_table("d", def("t", 2), b"")?;
    assert_eq!(errno(c.create_table("d", def("t", 2), b"")), 1050);
    assert_eq!(errno(c.table("d", "x")), 1146);
    assert_eq!(errno(c.drop_table("d", "x")), 1051);
    assert_eq!(errno(c.rename_table("d", "x", "d", "y")), 1146);
    c.create_table("d", def("u", 2), b"")?;
    assert_eq!(errno(c.rename_table("d", "t", "d", "u")), 1050);
    assert_eq!(
        errno(c.create_table("d", def(&"n".repeat(65), 2), b"")),
        1103
    );
    // A rejected definition leaves no tablespace behind.
    let before = c.storage().spaces().ids();
    let mut bad = def("bad", 2);
    bad.columns[0].nullable = true;
    assert_eq!(errno(c.create_table("d", bad, b"")), 1171);
    assert_eq!(c.storage().spaces().ids(), before);
    assert_eq!(file_name_of("a b/é"), "a@0020b@002f@00e9");
    Ok(())
}

/// What the dictionary should hold: (schema, table) -> rows.
type Model = BTreeMap<(String, String), usize>;

fn observed(c: &Catalog) -> Result<Model> {
    let mut m = Model::new();
    for db in c.databases() {
        for t in c.tables(&db)? {
            let table = c.table(&db, &t)?;
            let pool = c.storage().pool();
            if !check(table.clustered_tree(), pool)?.is_empty()
                || !check(
                    table
                        .secondary_tree(0)
                        .ok_or_else(|| EngineError::Internal("index".into()))?,
                    pool,
                )?
                .is_empty()
            {
                return Err(EngineError::Internal(format!("{db}.{t} fails its check")));
            }
            m.insert((db.clone(), t), count_rows(&table)?);
        }
    }
    Ok(m)
}

/// One random DDL (or row batch) step against the catalog. `m` is updated to
/// the intended outcome before the step runs, so that after a crash inside it
/// the caller can accept either the old or the intended state.
fn step(
    c: &Catalog,
    m: &mut Model,
    rng: &mut StdRng,
    n: u64,
    kind: &mut &'static str,
) -> Result<()> {
    let db = ["a", "b"][rng.random_range(0..2)].to_string();
    let name = format!("t{}", rng.random_range(0..6));
    let key = (db.clone(), name.clone());
    match rng.random_range(0..6) {
        0 if !m.contains_key(&key) => {
            m.insert(key, 0);
            *kind = "create";
            c.create_table(&db, def(&name, 3), b"")?;
        }
        1 if m.contains_key(&key) => {
            m.remove(&key);
            *kind = "drop";
            c.drop_table(&db, &name)?;
        }
        2 if m.contains_key(&key) => {
            let to = (
                ["a", "b"][rng.random_range(0..2)].to_string(),
                format!("t{}", rng.random_range(0..6)),
            );
            if !m.contains_key(&to) {
                let rows = m.remove(&key).unwrap_or(0);
                m.insert(to.clone(), rows);
                *kind = "rename";
                c.rename_table(&db, &name, &to.0, &to.1)?;
            }
        }
        3 if m.contains_key(&key) => {
            // A copying rebuild: the rows plus one more into a scratch
            // table, which then replaces the table.
            let rows = m.get(&key).copied().unwrap_or(0) + 1;
            m.insert(key, rows);
            *kind = "rebuild";
            let tmp = format!("#sql-alter-{n}");
            let new = c.create_scratch_table(&db, def(&tmp, 3), b"")?;
            {
                let old = c.table(&db, &name)?;
                let mut scan = old.scan(
                    &ReadContext::NEWEST,
                    CLUSTERED,
                    &KeyRange::all(),
                    false,
                    None,
                )?;
                while let Some((_, r)) = scan.next_row()? {
                    new.insert(&mut TxnContext::internal(), &r)?;
                }
            }
            new.insert(&mut TxnContext::internal(), &row(n as i64, 3))?;
            drop(new);
            c.replace_table((&db, &name), (&db, &tmp), &name)?;
        }
        4 => {
            // RENAME TABLE a TO tmp, b TO a, tmp TO b: the two swap names.
            let other = (db.clone(), format!("t{}", rng.random_range(0..6)));
            if other != key && m.contains_key(&key) && m.contains_key(&other) {
                let (ra, rb) = (m[&key], m[&other]);
                m.insert(key.clone(), rb);
                m.insert(other.clone(), ra);
                *kind = "swap";
                let tmp = format!("tmp{n}");
                let steps = [
                    ((db.as_str(), name.as_str()), (db.as_str(), tmp.as_str())),
                    (
                        (db.as_str(), other.1.as_str()),
                        (db.as_str(), name.as_str()),
                    ),
                    ((db.as_str(), tmp.as_str()), (db.as_str(), other.1.as_str())),
                ];
                let logged = c.log_renames(&steps)?;
                for ((fs, fname), (ts, tname)) in steps {
                    c.rename_table(fs, fname, ts, tname)?;
                }
                c.end_logged_ddl(logged)?;
            }
        }
        _ => {
            if let Some(rows) = m.get_mut(&key) {
                // One row per step, made durable: a crash inside the step may
                // keep it or not, like a DDL step.
                *rows += 1;
                let t = c.table(&db, &name)?;
                t.insert(&mut TxnContext::internal(), &row(n as i64, 3))?;
                c.storage().make_durable()?;
            }
        }
    }
    Ok(())
}

#[test]
fn ddl_is_atomic_under_power_loss() -> Result<()> {
    let sim = SimVfs::with_seed(7);
    let vfs: Arc<dyn Vfs> = Arc::new(sim.clone());
    {
        let c = open(&vfs)?;
        c.create_database("a", b"")?;
        c.create_database("b", b"")?;
        close(c)?;
    }
    let mut rng = StdRng::seed_from_u64(11);
    let mut model = Model::new();
    let mut n = 0u64;
    let mut crashed_in: BTreeMap<&'static str, usize> = BTreeMap::new();
    // Crash points depend on how many pages each step writes, which the
    // background flushing varies: run at least 100 cycles, and more (up to
    // 600) until every kind of DDL step has been interrupted a few times.
    const KINDS: [&str; 5] = ["create", "drop", "rename", "rebuild", "swap"];
    let covered = |c: &BTreeMap<&'static str, usize>| {
        KINDS.iter().all(|k| c.get(k).copied().unwrap_or(0) >= 3)
    };
    let mut cycle = 0;
    while cycle < 100 || (!covered(&crashed_in) && cycle < 600) {
        cycle += 1;
        let c = open(&vfs)?;
        let got = observed(&c)?;
        // The step interrupted by the crash may or may not have happened.
        if got != model {
            return Err(EngineError::Internal(format!(
                "cycle {cycle}: dictionary {got:?} differs from the durable state {model:?}"
            )));
        }
        let user_spaces: Vec<u32> = c
            .storage()
            .spaces()
            .ids()
            .into_iter()
            .filter(|&s| s > 1)
            .collect();
        assert_eq!(
            user_spaces.len(),
            got.len(),
            "cycle {cycle}: orphan tablespaces remain"
        );
        sim.set_fault(Some(SimFault::CrashAfterWrites {
            writes: rng.random_range(0..120),
            torn: rng.random_bool(0.5),
        }));
        loop {
            n += 1;
            let mut tentative = model.clone();
            let mut op_rng = StdRng::seed_from_u64(n);
            let mut kind = "rows";
            let r = step(&c, &mut tentative, &mut op_rng, n, &mut kind);
            if std::env::var("DDL_DEBUG").is_ok() {
                eprintln!("step {n}: {r:?} model {tentative:?}");
            }
            match r {
                Ok(()) => model = tentative,
                Err(_) => {
                    // Crashed inside this step: after restart either state is fine.
                    *crashed_in.entry(kind).or_default() += 1;
                    crash(c, &sim)?;
                    sim.set_fault(None);
                    let c2 = open(&vfs)?;
                    let got = observed(&c2)?;
                    if got == tentative {
                        model = tentative;
                    } else if got != model {
                        return Err(EngineError::Internal(format!(
                            "cycle {cycle}, step {n}: dictionary {got:?} is neither {model:?} nor {tentative:?}"
                        )));
                    }
                    let user_spaces = c2
                        .storage()
                        .spaces()
                        .ids()
                        .into_iter()
                        .filter(|&s| s > 1)
                        .count();
                    assert_eq!(
                        user_spaces,
                        got.len(),
                        "cycle {cycle}: orphan tablespaces remain"
                    );
                    close(c2)?;
                    break;
                }
            }
        }
    }
    // Every kind of DDL step was interrupted by some of the crashes.
    assert!(
        covered(&crashed_in),
        "too few crashes inside some kind of step: {crashed_in:?}"
    );
    Ok(())
}

#[test]
fn views_share_the_table_namespace_and_persist() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let c = open(&vfs)?;
    c.create_database("d", b"")?;
    c.create_database("e", b"")?;
    drop(c.create_table("d", def("t", 2), b"")?);
    assert!(!c.has_views());
    c.create_view("d", "v", b"one", false)?;
    assert_eq!(errno(c.create_view("d", "v", b"two", false)), 1050);
    assert_eq!(errno(c.create_view("d", "t", b"two", true)), 1050);
    assert_eq!(errno(c.create_table("d", def("v", 2), b"")), 1050);
    assert_eq!(errno(c.create_view("nope", "v", b"x", false)), 1049);
    c.create_view("d", "v", b"two", true)?;
    assert_eq!(errno(c.rename_table("d", "v", "e", "v")), 1450);
    assert_eq!(errno(c.rename_table("d", "t", "d", "v")), 1050);
    c.rename_table("d", "v", "d", "w")?;
    assert!(c.view("d", "v").is_none());
    assert_eq!(c.tables("d")?, ["t"]);
    close(c)?;
    let c = open(&vfs)?;
    assert_eq!(
        c.view("d", "w").map(|v| v.definition),
        Some(b"two".to_vec())
    );
    assert_eq!(c.views("d"), ["w"]);
    c.drop_database("d")?;
    assert!(!c.has_views());
    assert_eq!(errno(c.drop_view("d", "w")), 1051);
    close(c)?;
    Ok(())
}

#[test]
fn system_objects_survive_reopen() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let c = open(&vfs)?;
    assert_eq!(c.system_object("acl"), None);
    c.set_system_object("acl", b"one")?;
    c.set_system_object("acl", b"two")?;
    c.create_database("d", b"")?;
    close(c)?;
    let c = open(&vfs)?;
    assert_eq!(c.system_object("acl").as_deref(), Some(&b"two"[..]));
    assert!(c.has_database("d"));
    close(c)
}

/// Closes the catalog as a crash would: nothing flushed, the simulated
/// disk keeps only what was durable.
pub(super) fn crash(c: Catalog, sim: &SimVfs) -> Result<()> {
    into_storage(c)?.abandon();
    sim.crash();
    Ok(())
}

#[test]
fn scratch_tables_replace_atomically_and_vanish_after_a_crash() -> Result<()> {
    let sim = SimVfs::new();
    let vfs: Arc<dyn Vfs> = Arc::new(sim.clone());
    let c = open(&vfs)?;
    c.create_database("d", b"")?;
    let t = c.create_table("d", def("t", 3), b"old")?;
    t.insert(&mut TxnContext::internal(), &row(1, 3))?;
    drop(t);
    // A scratch table that is never put in place is gone after a crash,
    // with its tablespace; the table it was built for is untouched.
    drop(c.create_scratch_table("d", def("#sql-alter-1", 3), b"")?);
    assert_eq!(
        c.tables("d")?,
        vec!["#sql-alter-1".to_string(), "t".to_string()]
    );
    c.storage().make_durable()?;
    crash(c, &sim)?;
    let c = open(&vfs)?;
    assert_eq!(c.tables("d")?, vec!["t".to_string()]);
    assert!(c.orphan_spaces()?.is_empty());
    assert_eq!(
        c.storage()
            .spaces()
            .ids()
            .into_iter()
            .filter(|&s| s > 1)
            .count(),
        1
    );
    assert_eq!(count_rows(&*c.table("d", "t")?)?, 1);
    // Replacing: errors first, nothing changes.
    let new = c.create_scratch_table("d", def("#sql-alter-2", 3), b"new")?;
    new.insert(&mut TxnContext::internal(), &row(1, 3))?;
    new.insert(&mut TxnContext::internal(), &row(2, 3))?;
    drop(new);
    assert_eq!(
        errno(c.replace_table(("d", "nope"), ("d", "#sql-alter-2"), "t")),
        1146
    );
    c.create_table("d", def("u", 3), b"")?;
    assert_eq!(
        errno(c.replace_table(("d", "t"), ("d", "#sql-alter-2"), "u")),
        1050
    );
    c.replace_table(("d", "t"), ("d", "#sql-alter-2"), "t")?;
    assert_eq!(c.tables("d")?, vec!["t".to_string(), "u".to_string()]);
    assert_eq!(count_rows(&*c.table("d", "t")?)?, 2);
    assert_eq!(
        c.table_entry("d", "t").map(|e| e.sql_meta),
        Some(b"new".to_vec())
    );
    // The scratch table's log entry went with the replacement: a crash now
    // drops nothing.
    crash(c, &sim)?;
    let c = open(&vfs)?;
    assert_eq!(c.tables("d")?, vec!["t".to_string(), "u".to_string()]);
    assert_eq!(count_rows(&*c.table("d", "t")?)?, 2);
    // A dropped scratch table takes its log entry along.
    drop(c.create_scratch_table("d", def("#sql-alter-3", 3), b"")?);
    c.drop_table("d", "#sql-alter-3")?;
    assert_eq!(c.cache.read().scratch.len(), 0);
    close(c)
}

#[test]
fn logged_renames_complete_after_a_crash() -> Result<()> {
    let sim = SimVfs::new();
    let vfs: Arc<dyn Vfs> = Arc::new(sim.clone());
    let c = open(&vfs)?;
    c.create_database("d", b"")?;
    c.create_database("e", b"")?;
    for (name, rows) in [("a", 1), ("b", 2), ("c", 3)] {
        let t = c.create_table("d", def(name, 3), b"")?;
        for i in 0..rows {
            t.insert(&mut TxnContext::internal(), &row(i, 3))?;
        }
    }
    // The steps are checked in order against the names they produce.
    assert_eq!(errno(c.log_renames(&[(("d", "x"), ("d", "y"))])), 1146);
    assert_eq!(errno(c.log_renames(&[(("d", "a"), ("d", "b"))])), 1050);
    assert_eq!(errno(c.log_renames(&[(("d", "a"), ("nodb", "a"))])), 1049);
    // a <-> b through tmp, and c to another database; a crash after the
    // first rename of four.
    let steps = [
        (("d", "a"), ("d", "tmp")),
        (("d", "b"), ("d", "a")),
        (("d", "tmp"), ("d", "b")),
        (("d", "c"), ("e", "c2")),
    ];
    let logged = c.log_renames(&steps)?;
    c.rename_table("d", "a", "d", "tmp")?;
    drop(logged);
    crash(c, &sim)?;
    let c = open(&vfs)?;
    assert_eq!(c.tables("d")?, vec!["a".to_string(), "b".to_string()]);
    assert_eq!(c.tables("e")?, vec!["c2".to_string()]);
    assert_eq!(count_rows(&*c.table("d", "a")?)?, 2);
    assert_eq!(count_rows(&*c.table("d", "b")?)?, 1);
    assert_eq!(count_rows(&*c.table("e", "c2")?)?, 3);
    assert_eq!(
        c.table_entry("d", "b").map(|e| e.def.name),
        Some("b".to_string())
    );
    // Ended normally, the entry is gone: the next start changes nothing.
    let logged = c.log_renames(&[(("d", "a"), ("d", "z"))])?;
    c.rename_table("d", "a", "d", "z")?;
    c.rename_table("d", "z", "d", "a")?;
    c.end_logged_ddl(logged)?;
    crash(c, &sim)?;
    let c = open(&vfs)?;
    assert_eq!(c.tables("d")?, vec!["a".to_string(), "b".to_string()]);
    close(c)
}

/// A table's tablespace whose page 0 is damaged where the space id is kept
/// is neither dropped as an orphan nor lost: the pages after it say which
/// space the file is, the table reads, and `check` names page 0.
#[test]
fn a_damaged_space_id_in_page_0_loses_no_table() -> Result<()> {
    let sim = SimVfs::new();
    let vfs: Arc<dyn Vfs> = Arc::new(sim.clone());
    let c = open(&vfs)?;
    c.create_database("d", b"")?;
    let t = c.create_table("d", def("t", 3), b"")?;
    for i in 0..200 {
        t.insert(&mut TxnContext::internal(), &row(i, 3))?;
    }
    let space = t.roots().space;
    drop(t);
    close(c)?;
    let path = std::path::Path::new("/d/d/t.ibd");
    let f = vfs.open(path, crate::io::OpenOptions::existing())?;
    f.write_at(
        &0xdead_beef_u32.to_be_bytes(),
        crate::page::offset::SPACE_ID as u64,
    )?;
    f.sync_data()?;
    drop(f);

    let c = open(&vfs)?;
    assert!(vfs.exists(path), "the file was deleted");
    assert_eq!(c.tables("d")?, vec!["t".to_string()]);
    assert_eq!(c.table("d", "t")?.roots().space, space);
    assert_eq!(count_rows(&*c.table("d", "t")?)?, 200);
    assert!(c.orphan_spaces()?.is_empty());
    let report = c.storage().check()?;
    let problems = report.problems();
    assert!(
        problems.iter().any(|p| p.starts_with("d/t.ibd: page 0:")),
        "{problems:?}"
    );
    assert!(
        problems.iter().all(|p| p.contains("page 0")),
        "only page 0 is damaged: {problems:?}"
    );
    close(c)
}
