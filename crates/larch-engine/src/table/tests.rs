//! Table API tests: random inserts, updates and deletes against a model, read
//! back through every index; uniqueness errors; off-page values; tables without
//! a primary key; reopening; concurrent writers.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;
use crate::btree::check::check;
use crate::config::EngineConfig;
use crate::io::{SimVfs, Vfs};
use crate::page::PageSize;
use crate::record::collation::Collation;
use crate::record::value::{ColumnType, LobKind, Value};

fn storage(ps: PageSize, vfs: Arc<dyn Vfs>) -> Result<Arc<Storage>> {
    let mut c = EngineConfig::new("/d");
    c.page_size = Some(ps);
    c.buffer_pool_size = 256 * ps.bytes() as u64;
    c.log_file_size = 16 << 20;
    c.undo_tablespaces = 0;
    Ok(Arc::new(Storage::open_or_create(c, vfs)?))
}

const INT: ColumnType = ColumnType::Int {
    bytes: 4,
    unsigned: false,
};

/// id INT PK, k INT NULL, name VARCHAR(40) utf8mb4_general_ci NULL UNIQUE (the
/// model runs widen it to the longest key the page size allows),
/// body TEXT NULL, tag CHAR(10) latin1_swedish_ci NOT NULL;
/// KEY k(k), UNIQUE u_name(name), KEY tag_k(tag, k DESC).
fn model_def() -> TableDef {
    TableDef {
        name: "t".into(),
        columns: vec![
            ColumnDef::new("id", INT),
            ColumnDef::new("k", INT).nullable(),
            ColumnDef::new(
                "name",
                ColumnType::Varchar {
                    max_len: 40,
                    collation: Collation::Utf8mb4GeneralCi,
                },
            )
            .nullable(),
            ColumnDef::new(
                "body",
                ColumnType::Text {
                    kind: LobKind::Medium,
                    collation: Collation::Utf8mb4Bin,
                },
            )
            .nullable(),
            ColumnDef::new(
                "tag",
                ColumnType::Char {
                    len: 10,
                    collation: Collation::Latin1SwedishCi,
                },
            ),
        ],
        primary_key: Some(IndexDef::on("PRIMARY", &[0], true)),
        secondary: vec![
            IndexDef::on("k", &[1], false),
            IndexDef::on("u_name", &[2], true),
            IndexDef {
                name: "tag_k".into(),
                columns: vec![
                    IndexColumn::new(4),
                    IndexColumn {
                        column: 1,
                        descending: true,
                        prefix_len: None,
                    },
                ],
                unique: false,
            },
        ],
        auto_increment: None,
        fulltext: Vec::new(),
    }
}

const NAMES: [&str; 7] = [
    "alpha", "Alpha", "ALPHA", "beta", "gamma", "gamma  ", "Delta",
];
const TAGS: [&str; 4] = ["red", "Red", "blue", "green"];

fn random_row(rng: &mut StdRng, id: i64, long: usize) -> Vec<Value> {
    random_row_with_names(rng, id, long, 40)
}

/// A random row whose `name` has at most `name_max` characters; some names
/// are long, with two- and three-byte characters, up to that length.
fn random_row_with_names(rng: &mut StdRng, id: i64, long: usize, name_max: usize) -> Vec<Value> {
    let k = if rng.random_bool(0.1) {
        Value::Null
    } else {
        Value::Int(rng.random_range(0..20))
    };
    let name = if rng.random_bool(0.5) {
        Value::Null
    } else {
        let mut n = format!(
            "{}{}",
            NAMES[rng.random_range(0..NAMES.len())],
            rng.random_range(0..30)
        );
        if name_max > 40 && rng.random_bool(0.3) {
            let target = rng.random_range(n.chars().count()..=name_max);
            let pad = ['x', 'é', '€', 'y'];
            while n.chars().count() < target {
                n.push(pad[rng.random_range(0..pad.len())]);
            }
        }
        Value::Str(n)
    };
    let body = match rng.random_range(0..4) {
        0 => Value::Null,
        1 => Value::Str("short body".into()),
        _ => {
            let len = rng.random_range(0..long);
            Value::Str((0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect())
        }
    };
    let tag = Value::Str(TAGS[rng.random_range(0..TAGS.len())].into());
    vec![Value::Int(id), k, name, body, tag]
}

fn name_ci(v: &Value) -> Option<&str> {
    match v {
        Value::Str(s) => Some(s.as_str()),
        _ => None,
    }
}

/// Does `row` clash with a row of the model (other than `except`) on u_name?
fn clashes(model: &BTreeMap<i64, Vec<Value>>, row: &[Value], except: Option<i64>) -> bool {
    let Some(n) = name_ci(&row[2]) else {
        return false;
    };
    model.iter().any(|(id, r)| {
        Some(*id) != except
            && name_ci(&r[2])
                .is_some_and(|m| Collation::Utf8mb4GeneralCi.compare(m, n) == Ordering::Equal)
    })
}

fn id_of(row: &[Value]) -> i64 {
    match row[0] {
        Value::Int(i) => i,
        _ => -1,
    }
}

fn verify(t: &Table, model: &BTreeMap<i64, Vec<Value>>) -> Result<()> {
    // Clustered, both directions.
    let mut c = t.scan(
        &ReadContext::NEWEST,
        CLUSTERED,
        &KeyRange::all(),
        false,
        None,
    )?;
    let mut rows = Vec::new();
    while let Some((_, r)) = c.next_row()? {
        rows.push(r);
    }
    let want: Vec<Vec<Value>> = model.values().cloned().collect();
    assert_eq!(rows, want, "clustered scan");
    let mut c = t.scan(
        &ReadContext::NEWEST,
        CLUSTERED,
        &KeyRange::all(),
        true,
        None,
    )?;
    let mut back = Vec::new();
    while let Some((_, r)) = c.next_row()? {
        back.push(r);
    }
    back.reverse();
    assert_eq!(back, want, "reverse clustered scan");
    // k: covering, ordered by (k NULLs first, id).
    let mut c = t.scan(
        &ReadContext::NEWEST,
        1,
        &KeyRange::all(),
        false,
        Some(&[1, 0]),
    )?;
    assert!(c.is_covering());
    let mut got = Vec::new();
    while let Some((_, r)) = c.next_row()? {
        got.push(r);
    }
    let key = |v: &Value| match v {
        Value::Int(i) => Some(*i),
        _ => None,
    };
    let mut want_k: Vec<Vec<Value>> = model
        .values()
        .map(|r| vec![r[1].clone(), r[0].clone()])
        .collect();
    want_k.sort_by_key(|r| (key(&r[0]), key(&r[1])));
    assert_eq!(got, want_k, "k index scan");
    // u_name: covering through carried originals, ordered by the collation.
    let mut c = t.scan(
        &ReadContext::NEWEST,
        2,
        &KeyRange::all(),
        false,
        Some(&[2, 0]),
    )?;
    assert!(c.is_covering());
    let mut got = Vec::new();
    while let Some((_, r)) = c.next_row()? {
        got.push(r);
    }
    for w in got.windows(2) {
        let (a, b) = (name_ci(&w[0][0]), name_ci(&w[1][0]));
        if let (Some(a), Some(b)) = (a, b) {
            assert_ne!(Collation::Utf8mb4GeneralCi.compare(a, b), Ordering::Greater);
        } else {
            assert!(a.is_none() || b.is_some(), "NULL names sort first");
        }
    }
    let mut got_sorted = got.clone();
    got_sorted.sort_by_key(|r| id_of(&r[1..]));
    let mut want_n: Vec<Vec<Value>> = model
        .values()
        .map(|r| vec![r[2].clone(), r[0].clone()])
        .collect();
    want_n.sort_by_key(|r| id_of(&r[1..]));
    assert_eq!(got_sorted, want_n, "u_name index content");
    // tag_k: not covering for all columns; every row once, ordered by tag then k desc.
    let mut c = t.scan(&ReadContext::NEWEST, 3, &KeyRange::all(), false, None)?;
    assert!(!c.is_covering());
    let mut got = Vec::new();
    while let Some((at, r)) = c.next_row()? {
        assert_eq!(t.get(&ReadContext::NEWEST, &at)?.as_ref(), Some(&r));
        got.push(r);
    }
    for w in got.windows(2) {
        let o = Collation::Latin1SwedishCi.compare(
            name_ci(&w[0][4]).unwrap_or(""),
            name_ci(&w[1][4]).unwrap_or(""),
        );
        assert_ne!(o, Ordering::Greater, "tag order");
        if o == Ordering::Equal {
            assert!(
                key(&w[0][1]).is_none_or(|a| key(&w[1][1]).is_some_and(|b| a >= b))
                    || key(&w[1][1]).is_none()
            );
        }
    }
    got.sort_by_key(|r| id_of(r));
    assert_eq!(got, want, "tag_k index content");
    // Point reads and a key-range read on k.
    for (id, r) in model.iter().take(20) {
        assert_eq!(
            t.get(&ReadContext::NEWEST, &t.row_ref(&[Value::Int(*id)])?)?
                .as_ref(),
            Some(r)
        );
    }
    let mut c = t.scan(
        &ReadContext::NEWEST,
        1,
        &KeyRange::eq(vec![Value::Int(7)]),
        false,
        Some(&[0]),
    )?;
    let mut ids = Vec::new();
    while let Some((_, r)) = c.next_row()? {
        ids.push(id_of(&r));
    }
    let want_ids: Vec<i64> = model
        .iter()
        .filter(|(_, r)| r[1] == Value::Int(7))
        .map(|(i, _)| *i)
        .collect();
    assert_eq!(ids, want_ids, "k = 7");
    // CHECK TABLE agrees.
    let report = t.check()?;
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.rows, model.len() as u64);
    // Every tree is structurally sound.
    let pool = t.storage.pool();
    assert!(check(t.clustered_tree(), pool)?.is_empty());
    for i in 0..3 {
        if let Some(tree) = t.secondary_tree(i) {
            assert!(check(tree, pool)?.is_empty());
        }
    }
    Ok(())
}

fn run_model(ps: PageSize, seed: u64, ops: usize) -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let s = storage(ps, vfs)?;
    // The unique `name` key as long as the page size allows (error 1071
    // beyond: 4 bytes per utf8mb4 character).
    let name_max = ps.max_key_bytes() / 4;
    let mut def = model_def();
    def.columns[2].ty = ColumnType::Varchar {
        max_len: name_max as u32,
        collation: Collation::Utf8mb4GeneralCi,
    };
    let t = Table::create_file_per_table(&s, def, "db/t.ibd")?;
    let mut rng = StdRng::seed_from_u64(seed);
    let mut model: BTreeMap<i64, Vec<Value>> = BTreeMap::new();
    let long = ps.bytes() * 3;
    let mut long_names = 0;
    for op in 0..ops {
        let mut ctx = TxnContext::internal();
        let id = rng.random_range(0..200i64);
        match rng.random_range(0..10) {
            0..=4 => {
                let row = random_row_with_names(&mut rng, id, long, name_max);
                let expect_dup = model.contains_key(&id) || clashes(&model, &row, None);
                match t.insert(&mut ctx, &row) {
                    Ok(_) => {
                        assert!(!expect_dup, "insert of {row:?} should have failed");
                        if name_ci(&row[2]).is_some_and(|n| n.chars().count() > name_max / 2) {
                            long_names += 1;
                        }
                        model.insert(id, row);
                    }
                    Err(EngineError::DuplicateEntry { key, .. }) => {
                        assert!(expect_dup, "unexpected duplicate on {key}");
                    }
                    Err(e) => return Err(e),
                }
            }
            5..=7 => {
                let new_id = if rng.random_bool(0.2) {
                    rng.random_range(0..200)
                } else {
                    id
                };
                let row = random_row_with_names(&mut rng, new_id, long, name_max);
                let at = t.row_ref(&[Value::Int(id)])?;
                let exists = model.contains_key(&id);
                let expect_dup = exists
                    && ((new_id != id && model.contains_key(&new_id))
                        || clashes(&model, &row, Some(id)));
                match t.update(&mut ctx, &at, &row) {
                    Ok(Some(r)) => {
                        assert!(exists && !expect_dup);
                        assert_eq!(r, t.row_ref(&[Value::Int(new_id)])?);
                        model.remove(&id);
                        model.insert(new_id, row);
                    }
                    Ok(None) => assert!(!exists),
                    Err(EngineError::DuplicateEntry { entry, key }) => {
                        assert!(expect_dup, "{entry} {key} id {id} new {new_id} row {row:?}")
                    }
                    Err(e) => return Err(e),
                }
            }
            _ => {
                let at = t.row_ref(&[Value::Int(id)])?;
                assert_eq!(t.delete(&mut ctx, &at)?, model.remove(&id).is_some());
            }
        }
        if op % 150 == 149 {
            verify(&t, &model)?;
        }
    }
    verify(&t, &model)?;
    assert!(
        long_names > 0,
        "no name key longer than half the limit was inserted"
    );
    // Deleting everything returns every off-page page: the trees are empty.
    for id in model.keys().copied().collect::<Vec<_>>() {
        assert!(t.delete(&mut TxnContext::internal(), &t.row_ref(&[Value::Int(id)])?)?);
    }
    verify(&t, &BTreeMap::new())?;
    Ok(())
}

#[test]
fn random_changes_match_the_model_at_4k() -> Result<()> {
    run_model(PageSize::K4, 1, 2000)
}

#[test]
fn random_changes_match_the_model_at_8k() -> Result<()> {
    run_model(PageSize::K8, 4, 1500)
}

#[test]
fn random_changes_match_the_model_at_16k() -> Result<()> {
    run_model(PageSize::K16, 2, 2000)
}

#[test]
fn random_changes_match_the_model_at_32k() -> Result<()> {
    run_model(PageSize::K32, 5, 800)
}

#[test]
fn random_changes_match_the_model_at_64k() -> Result<()> {
    run_model(PageSize::K64, 3, 600)
}

#[test]
fn duplicate_errors_name_the_key_and_change_nothing() -> Result<()> {
    let s = storage(PageSize::K16, Arc::new(SimVfs::new()))?;
    let t = Table::create_file_per_table(&s, model_def(), "db/d.ibd")?;
    let mut ctx = TxnContext::internal();
    let row = |id: i64, name: &str| {
        vec![
            Value::Int(id),
            Value::Int(1),
            Value::Str(name.into()),
            Value::Str("x".repeat(40_000)),
            Value::Str("red".into()),
        ]
    };
    t.insert(&mut ctx, &row(1, "Alpha"))?;
    let e = t.insert(&mut ctx, &row(1, "beta")).err();
    assert!(
        matches!(&e, Some(EngineError::DuplicateEntry { entry, key }) if entry == "1" && key == "PRIMARY"),
        "{e:?}"
    );
    let e = t.insert(&mut ctx, &row(2, "ALPHA ")).err();
    assert!(
        matches!(&e, Some(EngineError::DuplicateEntry { entry, key }) if entry == "ALPHA " && key == "u_name"),
        "{e:?}"
    );
    // Nothing of the failed inserts remains, and their off-page values were freed.
    let mut model = BTreeMap::new();
    model.insert(1, row(1, "Alpha"));
    verify(&t, &model)?;
    let pages_before = s.pool().spaces().size_pages(t.roots().space)?;
    for _ in 0..20 {
        assert!(t.insert(&mut ctx, &row(1, "zeta")).is_err());
    }
    assert_eq!(s.pool().spaces().size_pages(t.roots().space)?, pages_before);
    // Updating into a clash fails too and keeps the old row.
    t.insert(&mut ctx, &row(2, "beta"))?;
    let e = t
        .update(&mut ctx, &t.row_ref(&[Value::Int(2)])?, &row(2, "alpha"))
        .err();
    assert!(matches!(e, Some(EngineError::DuplicateEntry { .. })));
    let e = t
        .update(&mut ctx, &t.row_ref(&[Value::Int(2)])?, &row(1, "beta"))
        .err();
    assert!(matches!(e, Some(EngineError::DuplicateEntry { ref key, .. }) if key == "PRIMARY"));
    model.insert(2, row(2, "beta"));
    verify(&t, &model)?;
    // A change of case keeps the unique key but must reach the covering value.
    t.update(&mut ctx, &t.row_ref(&[Value::Int(1)])?, &row(1, "ALPHA"))?;
    model.insert(1, row(1, "ALPHA"));
    verify(&t, &model)?;
    // NULLs never clash in a unique index.
    let mut n1 = row(3, "");
    n1[2] = Value::Null;
    let mut n2 = row(4, "");
    n2[2] = Value::Null;
    t.insert(&mut ctx, &n1)?;
    t.insert(&mut ctx, &n2)?;
    Ok(())
}

#[test]
fn definitions_are_checked_like_create_table() -> Result<()> {
    let s = storage(PageSize::K4, Arc::new(SimVfs::new()))?;
    let spaces_before = s.pool().spaces().ids();
    let errno = |def: TableDef| match Table::create_file_per_table(&s, def, "db/bad.ibd") {
        Err(EngineError::Schema { errno, .. }) => errno,
        Err(EngineError::KeyTooLong { .. }) => 1071,
        Err(EngineError::Row(e)) => e.mysql_code().0,
        other => panic!("expected an error, got {other:?}"),
    };
    let mut d = model_def();
    d.secondary.push(IndexDef::on("b", &[3], false));
    assert_eq!(errno(d), 1170);
    let mut d = model_def();
    d.columns.push(ColumnDef::new("ID", INT));
    assert_eq!(errno(d), 1060);
    let mut d = model_def();
    d.secondary.push(IndexDef::on("K", &[0], false));
    assert_eq!(errno(d), 1061);
    let mut d = model_def();
    d.columns[0].nullable = true;
    assert_eq!(errno(d), 1171);
    let mut d = model_def();
    d.columns.push(ColumnDef::new(
        "wide",
        ColumnType::Varchar {
            max_len: 300,
            collation: Collation::Utf8mb4Bin,
        },
    ));
    d.secondary.push(IndexDef::on("w", &[5], false));
    assert_eq!(errno(d), 1071, "1200-byte key at 4k pages (max 768)");
    let d = TableDef {
        name: "wide".into(),
        columns: (0..260)
            .map(|i| {
                ColumnDef::new(
                    &format!("c{i}"),
                    ColumnType::Int {
                        bytes: 8,
                        unsigned: false,
                    },
                )
            })
            .collect(),
        primary_key: None,
        secondary: vec![],
        fulltext: Vec::new(),
        auto_increment: None,
    };
    assert_eq!(errno(d), 1118);
    // Nothing was created for the rejected tables.
    assert_eq!(s.pool().spaces().ids(), spaces_before);
    Ok(())
}

#[test]
fn tables_without_primary_key_use_hidden_row_ids_across_reopen() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let def = TableDef {
        name: "h".into(),
        columns: vec![
            ColumnDef::new("a", INT),
            ColumnDef::new(
                "b",
                ColumnType::Varchar {
                    max_len: 20,
                    collation: Collation::Latin1SwedishCi,
                },
            ),
        ],
        primary_key: None,
        fulltext: Vec::new(),
        secondary: vec![IndexDef::on("b", &[1], false)],
        auto_increment: None,
    };
    let mut ctx = TxnContext::internal();
    let roots = {
        let s = storage(PageSize::K8, vfs.clone())?;
        let t = Table::create_file_per_table(&s, def.clone(), "db/h.ibd")?;
        let r1 = t.insert(&mut ctx, &[Value::Int(1), Value::Str("x".into())])?;
        let r2 = t.insert(&mut ctx, &[Value::Int(1), Value::Str("x".into())])?;
        let r3 = t.insert(&mut ctx, &[Value::Int(2), Value::Str("Y".into())])?;
        assert!(r1 < r2 && r2 < r3, "row ids grow");
        assert!(t.delete(&mut ctx, &r3)?);
        t.update(&mut ctx, &r1, &[Value::Int(5), Value::Str("z".into())])?;
        let roots = t.roots();
        drop(t);
        Arc::into_inner(s).map(Storage::close).transpose()?;
        roots
    };
    let s = storage(PageSize::K8, vfs)?;
    let t = Table::open(&s, def, &roots)?;
    let r4 = t.insert(&mut ctx, &[Value::Int(3), Value::Str("y".into())])?;
    let mut c = t.scan(&ReadContext::NEWEST, 1, &KeyRange::all(), false, None)?;
    let mut rows = Vec::new();
    while let Some((at, r)) = c.next_row()? {
        rows.push((at, r));
    }
    let vals: Vec<&Vec<Value>> = rows.iter().map(|(_, r)| r).collect();
    assert_eq!(
        vals,
        vec![
            &vec![Value::Int(1), Value::Str("x".into())],
            &vec![Value::Int(3), Value::Str("y".into())],
            &vec![Value::Int(5), Value::Str("z".into())],
        ]
    );
    // After a restart, row ids continue above every id present in the tree.
    assert!(rows
        .iter()
        .filter(|(at, _)| at != &r4)
        .all(|(at, _)| at < &r4));
    assert_eq!(rows.iter().filter(|(at, _)| at == &r4).count(), 1);
    Ok(())
}

#[test]
fn concurrent_writers_keep_indexes_consistent() -> Result<()> {
    let s = storage(PageSize::K4, Arc::new(SimVfs::new()))?;
    let t = Arc::new(Table::create_file_per_table(&s, model_def(), "db/c.ibd")?);
    let handles: Vec<_> = (0..3i64)
        .map(|w| {
            let t = t.clone();
            std::thread::spawn(move || -> Result<BTreeMap<i64, Vec<Value>>> {
                let mut rng = StdRng::seed_from_u64(w as u64 + 100);
                let mut model = BTreeMap::new();
                for _ in 0..400 {
                    let mut ctx = TxnContext::internal();
                    let id = w * 1000 + rng.random_range(0..60);
                    let mut row = random_row(&mut rng, id, 9000);
                    row[2] = Value::Null; // names would clash across threads
                    let at = t.row_ref(&[Value::Int(id)])?;
                    match rng.random_range(0..3) {
                        0 => {
                            if t.insert(&mut ctx, &row).is_ok() {
                                model.insert(id, row);
                            }
                        }
                        1 => {
                            if t.update(&mut ctx, &at, &row)?.is_some() {
                                model.insert(id, row);
                            }
                        }
                        _ => {
                            t.delete(&mut ctx, &at)?;
                            model.remove(&id);
                        }
                    }
                }
                Ok(model)
            })
        })
        .collect();
    let mut model = BTreeMap::new();
    for h in handles {
        model.extend(
            h.join()
                .map_err(|_| EngineError::Internal("writer panicked".into()))??,
        );
    }
    verify(&t, &model)
}

#[test]
fn check_finds_missing_and_extra_secondary_entries() -> Result<()> {
    let s = storage(PageSize::K4, Arc::new(SimVfs::new()))?;
    let t = Table::create_file_per_table(&s, model_def(), "db/k.ibd")?;
    let mut ctx = TxnContext::internal();
    let mut rng = StdRng::seed_from_u64(5);
    for id in 0..40 {
        let mut row = random_row(&mut rng, id, 10_000);
        row[2] = Value::Null;
        t.insert(&mut ctx, &row)?;
    }
    let clean = t.check()?;
    assert!(clean.problems.is_empty(), "{:?}", clean.problems);
    assert_eq!(clean.rows, 40);
    assert!(clean.off_page_values > 0, "some bodies are off-page at 4k");
    // Remove one entry of index k behind the table's back.
    let pool = s.pool();
    let k_tree = t
        .secondary_tree(0)
        .ok_or_else(|| EngineError::Internal("k".into()))?;
    let victim = k_tree.entries(pool)?.remove(7);
    assert!(k_tree.delete(pool, &victim.key)?);
    let report = t.check()?;
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.contains("index 'k': no entry")),
        "{:?}",
        report.problems
    );
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.contains("39 entries for 40 rows")),
        "{:?}",
        report.problems
    );
    // Put it back, plus a stray entry for a row that does not exist.
    k_tree.insert(
        pool,
        &victim.key,
        &victim.value,
        crate::btree::OnDuplicate::Error,
    )?;
    let mut stray = victim.key.clone();
    stray.push(0);
    k_tree.insert(
        pool,
        &stray,
        &victim.value,
        crate::btree::OnDuplicate::Error,
    )?;
    let report = t.check()?;
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    assert!(report.problems[0].contains("41 entries for 40 rows"));
    Ok(())
}

fn autoinc_def() -> TableDef {
    TableDef {
        name: "a".into(),
        columns: vec![
            ColumnDef::new(
                "id",
                ColumnType::Int {
                    bytes: 8,
                    unsigned: true,
                },
            ),
            ColumnDef::new("v", INT),
        ],
        fulltext: Vec::new(),
        primary_key: Some(IndexDef::on("PRIMARY", &[0], true)),
        secondary: vec![],
        auto_increment: Some(0),
    }
}

#[test]
fn auto_increment_allocates_observes_and_survives_a_clean_restart() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let mut ctx = TxnContext::internal();
    let roots = {
        let s = storage(PageSize::K16, vfs.clone())?;
        let t = Table::create_file_per_table(&s, autoinc_def(), "db/a.ibd")?;
        assert_eq!(t.allocate_auto_increment(1)?, 1);
        assert_eq!(t.allocate_auto_increment(1)?, 2);
        assert_eq!(t.allocate_auto_increment(5)?, 3);
        assert_eq!(t.auto_increment_next(), Some(8));
        t.insert(&mut ctx, &[Value::UInt(100), Value::Int(0)])?;
        assert_eq!(t.allocate_auto_increment(1)?, 101);
        t.raise_auto_increment(500)?;
        assert_eq!(t.allocate_auto_increment(1)?, 500);
        t.raise_auto_increment(10)?; // never goes back
        assert_eq!(t.allocate_auto_increment(1)?, 501);
        let roots = t.roots();
        drop(t);
        Arc::into_inner(s).map(Storage::close).transpose()?;
        roots
    };
    let s = storage(PageSize::K16, vfs)?;
    let t = Table::open(&s, autoinc_def(), &roots)?;
    assert_eq!(
        t.allocate_auto_increment(1)?,
        502,
        "a clean restart continues exactly"
    );
    // Concurrent allocations never collide.
    let t = Arc::new(t);
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let t = t.clone();
            std::thread::spawn(move || -> Result<Vec<u64>> {
                (0..500).map(|_| t.allocate_auto_increment(1)).collect()
            })
        })
        .collect();
    let mut all = Vec::new();
    for h in handles {
        all.extend(
            h.join()
                .map_err(|_| EngineError::Internal("panicked".into()))??,
        );
    }
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 2000);
    assert_eq!(all.first(), Some(&503));
    // Definition checks: the column must be an integer leading an index.
    let mut bad = autoinc_def();
    bad.auto_increment = Some(1);
    assert!(matches!(
        Table::create_file_per_table(&s, bad, "db/b.ibd"),
        Err(EngineError::Schema { errno: 1075, .. })
    ));
    Ok(())
}

#[test]
fn auto_increment_values_are_never_reused_after_power_loss() -> Result<()> {
    let sim = SimVfs::with_seed(3);
    let vfs: Arc<dyn Vfs> = Arc::new(sim.clone());
    let roots = {
        let s = storage(PageSize::K4, vfs.clone())?;
        let t = Table::create_file_per_table(&s, autoinc_def(), "db/a.ibd")?;
        let roots = t.roots();
        drop(t);
        Arc::into_inner(s).map(Storage::close).transpose()?;
        roots
    };
    let mut rng = StdRng::seed_from_u64(9);
    let mut durable_max = 0u64;
    for cycle in 0..30 {
        let s = storage(PageSize::K4, vfs.clone())?;
        let t = Table::open(&s, autoinc_def(), &roots)?;
        let mut c = t.scan(
            &ReadContext::NEWEST,
            CLUSTERED,
            &KeyRange::all(),
            true,
            Some(&[0]),
        )?;
        let present_max = match c.next_row()? {
            Some((_, r)) => match r[0] {
                Value::UInt(u) => u,
                _ => 0,
            },
            None => 0,
        };
        drop(c);
        assert!(
            present_max >= durable_max,
            "cycle {cycle}: durable rows were lost"
        );
        let first = t.allocate_auto_increment(1)?;
        assert!(
            first > present_max,
            "cycle {cycle}: {first} reuses a value at or below {present_max}"
        );
        let mut ctx = TxnContext::internal();
        t.insert(&mut ctx, &[Value::UInt(first), Value::Int(0)])?;
        for _ in 0..rng.random_range(1..200) {
            let id = t.allocate_auto_increment(1)?;
            t.insert(&mut ctx, &[Value::UInt(id), Value::Int(1)])?;
            if rng.random_bool(0.1) {
                s.make_durable()?;
                durable_max = id;
            }
        }
        // A crash: the table never settles its counter.
        let mut t = t;
        t.autoinc = None;
        drop(t);
        Arc::into_inner(s)
            .ok_or_else(|| EngineError::Internal("storage still shared".into()))?
            .abandon();
        sim.crash();
    }
    Ok(())
}
