//! Index changes in place ([`Catalog::change_indexes`]): builds that spill
//! and merge agree with the rows, dropped trees are freed, failures and
//! crashes leave the table as it was.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::tests::{close, crash, def, open, row};
use super::*;
use crate::btree::BTree;
use crate::ddl::{BuildOptions, MIN_BUDGET};
use crate::io::{SimVfs, Vfs};
use crate::space::alloc;
use crate::table::{IndexColumn, IndexDef, KeyRange, ReadContext, TxnContext};

fn options(budget: usize, threads: usize) -> BuildOptions {
    BuildOptions {
        budget,
        threads,
        fill_factor: 90,
        tmpdir: std::env::temp_dir(),
    }
}

fn never() -> bool {
    false
}

/// The ids a scan of index `index` returns, in its order.
fn ids_in_index_order(t: &Table, index: usize) -> Result<Vec<i64>> {
    let mut c = t.scan(
        &ReadContext::NEWEST,
        index,
        &KeyRange::all(),
        false,
        Some(&[0]),
    )?;
    let mut out = Vec::new();
    while let Some((_, r)) = c.next_row()? {
        match r[0] {
            Value::Int(id) => out.push(id),
            ref v => panic!("id {v:?}"),
        }
    }
    Ok(out)
}

fn used_pages(c: &Catalog, space: u32) -> Result<u32> {
    let mut mtr = c.storage().mtr()?;
    let u = alloc::space_usage(&mut mtr, space)?;
    mtr.commit()?;
    Ok(u.used_pages)
}

fn page_used(c: &Catalog, space: u32, page: u32) -> Result<bool> {
    let mut mtr = c.storage().mtr()?;
    let used = alloc::page_is_used(&mut mtr, space, page)?;
    mtr.commit()?;
    Ok(used)
}

fn assert_healthy(c: &Catalog, t: &Table) -> Result<()> {
    let check = t.check()?;
    assert!(check.problems.is_empty(), "{:?}", check.problems);
    let report = c.storage().check()?;
    assert!(report.is_clean(), "{report:?}");
    Ok(())
}

#[test]
fn indexes_build_from_one_scan_spill_merge_and_survive_a_crash() -> Result<()> {
    let sim = SimVfs::new();
    let vfs: Arc<dyn Vfs> = Arc::new(sim.clone());
    let c = open(&vfs)?;
    c.create_database("d", b"")?;
    let t = c.create_table("d", def("t", 4), b"m0")?;
    let rows = 4000i64;
    for id in 0..rows {
        // c2 runs backwards, c3 repeats (10 values).
        let mut r = row(id, 4);
        r[2] = Value::Str(format!("k{:05}", rows - id));
        r[3] = Value::Str(format!("g{}", id % 10));
        t.insert(&mut TxnContext::internal(), &r)?;
    }
    for id in (0..rows).step_by(7) {
        t.delete(&mut TxnContext::internal(), &t.row_ref(&[Value::Int(id)])?)?;
    }
    let live: Vec<i64> = (0..rows).filter(|id| id % 7 != 0).collect();
    drop(t);
    let mut new = def("t", 4);
    new.secondary.push(IndexDef {
        name: "u2".into(),
        columns: vec![IndexColumn::new(2)],
        unique: true,
    });
    new.secondary.push(IndexDef {
        name: "g".into(),
        columns: vec![
            IndexColumn {
                column: 3,
                descending: true,
                prefix_len: None,
            },
            IndexColumn::new(0),
        ],
        unique: false,
    });
    let space = c.table_entry("d", "t").map(|e| e.roots.space).unwrap_or(0);
    // The smallest budget and two threads: the entries spill into many
    // runs, merged in more than one pass.
    let change = c.change_indexes(
        "d",
        "t",
        new.clone(),
        b"m1",
        &options(MIN_BUDGET, 2),
        &never,
    )?;
    assert_eq!(change.built, vec!["u2".to_string(), "g".to_string()]);
    assert!(change.dropped.is_empty());
    assert_eq!(change.stats.rows, live.len() as u64);
    assert_eq!(change.stats.entries, vec![live.len() as u64; 2]);
    assert!(change.stats.runs > 4, "{:?}", change.stats);
    let e = c
        .table_entry("d", "t")
        .ok_or(EngineError::Internal("gone".into()))?;
    assert_eq!(e.def, new);
    assert_eq!(e.sql_meta, b"m1".to_vec());
    let t = c.table("d", "t")?;
    assert_healthy(&c, &t)?;
    // u2 orders the rows by descending id, g by c3 descending then id.
    let mut by_u2 = live.clone();
    by_u2.reverse();
    assert_eq!(ids_in_index_order(&t, 2)?, by_u2);
    let mut by_g = live.clone();
    by_g.sort_by_key(|id| (std::cmp::Reverse(id % 10), *id));
    assert_eq!(ids_in_index_order(&t, 3)?, by_g);
    // The new unique index is enforced for later inserts.
    let mut dup = row(rows + 1, 4);
    dup[2] = Value::Str("k00001".into());
    assert!(matches!(
        t.insert(&mut TxnContext::internal(), &dup),
        Err(EngineError::DuplicateEntry { ref key, .. }) if key == "u2"
    ));
    // Dropping the old index c1 frees its tree; the others stay.
    let c1_root = e.roots.secondary[0];
    drop(t);
    let mut fewer = new.clone();
    fewer.secondary.remove(0);
    let change = c.change_indexes("d", "t", fewer.clone(), b"m2", &options(1 << 20, 1), &never)?;
    assert_eq!(change.dropped, vec!["c1".to_string()]);
    assert!(change.built.is_empty());
    assert!(!page_used(&c, space, c1_root)?);
    let t = c.table("d", "t")?;
    assert_eq!(ids_in_index_order(&t, 1)?, by_u2);
    assert_healthy(&c, &t)?;
    drop(t);
    // A renamed index keeps its tree.
    let roots = c.table_entry("d", "t").map(|e| e.roots);
    let mut renamed = fewer.clone();
    renamed.secondary[1].name = "g2".into();
    let change = c.change_indexes(
        "d",
        "t",
        renamed.clone(),
        b"m3",
        &options(1 << 20, 1),
        &never,
    )?;
    assert!(change.built.is_empty() && change.dropped.is_empty());
    assert_eq!(c.table_entry("d", "t").map(|e| e.roots), roots);
    let fewer = renamed;
    c.storage().make_durable()?;
    crash(c, &sim)?;
    let c = open(&vfs)?;
    let t = c.table("d", "t")?;
    assert_eq!(t.def(), &fewer);
    assert_eq!(ids_in_index_order(&t, 2)?, by_g);
    assert_healthy(&c, &t)?;
    drop(t);
    close(c)
}

#[test]
fn a_duplicate_or_a_kill_frees_the_new_trees_and_changes_nothing() -> Result<()> {
    let sim = SimVfs::new();
    let vfs: Arc<dyn Vfs> = Arc::new(sim.clone());
    let c = open(&vfs)?;
    c.create_database("d", b"")?;
    let t = c.create_table("d", def("t", 3), b"m0")?;
    for id in 0..3000i64 {
        let mut r = row(id, 3);
        // Two rows share c2 = 'same'; many have NULL (never duplicates).
        r[2] = match id {
            1234 | 2345 => Value::Str("same".into()),
            id if id % 3 == 0 => Value::Null,
            id => Value::Str(format!("x{id}")),
        };
        t.insert(&mut TxnContext::internal(), &r)?;
    }
    drop(t);
    let before = c
        .table_entry("d", "t")
        .ok_or(EngineError::Internal("gone".into()))?;
    let space = before.roots.space;
    let pages = used_pages(&c, space)?;
    let mut new = def("t", 3);
    new.secondary.push(IndexDef {
        name: "u".into(),
        columns: vec![IndexColumn::new(2)],
        unique: true,
    });
    for (budget, threads) in [(MIN_BUDGET, 2), (8 << 20, 1)] {
        let r = c.change_indexes(
            "d",
            "t",
            new.clone(),
            b"m1",
            &options(budget, threads),
            &never,
        );
        match r {
            Err(EngineError::DuplicateEntry { entry, key }) => {
                assert_eq!((entry.as_str(), key.as_str()), ("same", "u"));
            }
            other => panic!("expected a duplicate, got {other:?}"),
        }
        let after = c
            .table_entry("d", "t")
            .ok_or(EngineError::Internal("gone".into()))?;
        assert_eq!(
            (after.def, after.roots, after.sql_meta),
            (
                before.def.clone(),
                before.roots.clone(),
                before.sql_meta.clone()
            )
        );
        assert_eq!(
            used_pages(&c, space)?,
            pages,
            "the new tree's pages are freed"
        );
    }
    // KILL QUERY during the scan.
    let polls = AtomicU64::new(0);
    let killed = || polls.fetch_add(1, Ordering::Relaxed) > 3;
    let mut plain = def("t", 3);
    plain.secondary.push(IndexDef {
        name: "k".into(),
        columns: vec![IndexColumn::new(2)],
        unique: false,
    });
    let r = c.change_indexes(
        "d",
        "t",
        plain.clone(),
        b"m1",
        &options(MIN_BUDGET, 2),
        &killed,
    );
    assert!(matches!(r, Err(EngineError::QueryInterrupted)), "{r:?}");
    assert_eq!(used_pages(&c, space)?, pages);
    // Without the duplicate, the unique index builds (NULLs repeat freely).
    let t = c.table("d", "t")?;
    t.delete(
        &mut TxnContext::internal(),
        &t.row_ref(&[Value::Int(2345)])?,
    )?;
    drop(t);
    c.change_indexes(
        "d",
        "t",
        new.clone(),
        b"m1",
        &options(MIN_BUDGET, 2),
        &never,
    )?;
    let t = c.table("d", "t")?;
    assert_healthy(&c, &t)?;
    drop(t);
    close(c)
}

/// A crash after the new trees were logged and (partly) built, before the
/// definition changed: the next start frees them, and the log is empty.
#[test]
fn a_crash_before_the_switch_frees_the_logged_trees() -> Result<()> {
    let sim = SimVfs::new();
    let vfs: Arc<dyn Vfs> = Arc::new(sim.clone());
    let c = open(&vfs)?;
    c.create_database("d", b"")?;
    let t = c.create_table("d", def("t", 3), b"")?;
    for id in 0..500i64 {
        t.insert(&mut TxnContext::internal(), &row(id, 3))?;
    }
    let e = c
        .table_entry("d", "t")
        .ok_or(EngineError::Internal("gone".into()))?;
    let space = e.roots.space;
    let pages = used_pages(&c, space)?;
    let tree = BTree::create(c.storage().pool(), space, (u64::from(space) << 16) | 9)?;
    let logged = c.logged_tree(&tree)?;
    c.write_log(
        &[ddl_log::Action::DropTrees {
            id: e.id,
            space,
            trees: vec![logged],
        }],
        None,
    )?;
    let mut b = crate::btree::bulk::BulkBuilder::new(tree, c.storage().pool(), 100)?;
    for i in 0..20_000u32 {
        b.push(&i.to_be_bytes(), &[7u8; 40])?;
    }
    b.finish()?;
    assert!(used_pages(&c, space)? > pages);
    drop(t);
    c.storage().make_durable()?;
    crash(c, &sim)?;
    let c = open(&vfs)?;
    assert_eq!(used_pages(&c, space)?, pages);
    assert!(!page_used(&c, space, tree.root)?);
    assert!(c.cache.read().ddl_log.is_empty());
    let t = c.table("d", "t")?;
    assert_healthy(&c, &t)?;
    drop(t);
    close(c)
}
