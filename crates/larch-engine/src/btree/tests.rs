//! B+tree tests: model-based random operations against a `BTreeMap` at every
//! page size, scans in both directions, bulk builds, concurrency, crashes.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::bulk::BulkBuilder;
use super::{check::check, BTree, OnDuplicate};
use crate::config::EngineConfig;
use crate::error::{EngineError, Result};
use crate::io::{SimVfs, Vfs};
use crate::page::PageSize;
use crate::storage::Storage;

fn storage(ps: PageSize, frames: u64, vfs: Arc<dyn Vfs>) -> Result<Storage> {
    let mut c = EngineConfig::new("/d");
    c.page_size = Some(ps);
    c.buffer_pool_size = frames * ps.bytes() as u64;
    c.log_file_size = 8 << 20;
    c.undo_tablespaces = 0;
    Storage::open_or_create(c, vfs)
}

fn random_key(rng: &mut StdRng, max: usize) -> Vec<u8> {
    // Mostly short keys from a small alphabet (so updates hit existing keys),
    // sometimes long ones up to the limit.
    let len = if rng.random_bool(0.05) {
        rng.random_range(1..=max)
    } else {
        rng.random_range(1..12)
    };
    (0..len).map(|_| rng.random_range(b'a'..=b'h')).collect()
}

/// A key with its value and delete mark.
type ModelEntry = (Vec<u8>, (Vec<u8>, bool));

fn model_check(
    tree: &BTree,
    s: &Storage,
    model: &BTreeMap<Vec<u8>, (Vec<u8>, bool)>,
) -> Result<()> {
    let problems = check(tree, s.pool())?;
    assert!(problems.is_empty(), "{problems:?}");
    let got: Vec<ModelEntry> = tree
        .entries(s.pool())?
        .into_iter()
        .map(|e| {
            (
                e.key.clone(),
                (e.value.clone(), e.flags & super::node::FLAG_DELETED != 0),
            )
        })
        .collect();
    let want: Vec<_> = model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    assert_eq!(got.len(), want.len());
    assert!(got == want, "tree contents differ from the model");
    Ok(())
}

fn random_ops(ps: PageSize, seed: u64, ops: usize) -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let s = storage(ps, 48, vfs)?;
    let space = s.create_tablespace("db/t.ibd")?;
    let tree = BTree::create(s.pool(), space, 42)?;
    let max = BTree::max_entry_bytes(s.pool());
    let mut rng = StdRng::seed_from_u64(seed);
    let mut model: BTreeMap<Vec<u8>, (Vec<u8>, bool)> = BTreeMap::new();
    for op in 0..ops {
        let key = random_key(&mut rng, max / 2);
        match rng.random_range(0..10) {
            0..=4 => {
                let room = max - key.len();
                let vlen = if rng.random_bool(0.05) {
                    rng.random_range(0..=room)
                } else {
                    rng.random_range(0..40.min(room))
                };
                let value: Vec<u8> = (0..vlen).map(|_| rng.random()).collect();
                let replace = rng.random_bool(0.5);
                let r = tree.insert(
                    s.pool(),
                    &key,
                    &value,
                    if replace {
                        OnDuplicate::Replace
                    } else {
                        OnDuplicate::Error
                    },
                );
                match model.get(&key) {
                    Some((_, false)) if !replace => {
                        assert!(
                            matches!(r, Err(EngineError::DuplicateKey { index_id: 42 })),
                            "{r:?}"
                        );
                    }
                    _ => {
                        r?;
                        model.insert(key, (value, false));
                    }
                }
            }
            5..=7 => {
                let found = tree.delete(s.pool(), &key)?;
                assert_eq!(found, model.remove(&key).is_some());
            }
            8 => {
                let mark = rng.random_bool(0.7);
                let found = tree.set_delete_mark(s.pool(), &key, mark)?;
                assert_eq!(found, model.contains_key(&key));
                if let Some(v) = model.get_mut(&key) {
                    v.1 = mark;
                }
            }
            _ => {
                let got = tree.get(s.pool(), &key)?;
                assert_eq!(got.map(|f| (f.value, f.deleted)), model.get(&key).cloned());
            }
        }
        if op % 500 == 499 {
            model_check(&tree, &s, &model)?;
            // A range scan in both directions against the model.
            let a = random_key(&mut rng, 8);
            let b = random_key(&mut rng, 8);
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            let want: Vec<Vec<u8>> = model
                .range(lo.clone()..hi.clone())
                .map(|(k, _)| k.clone())
                .collect();
            for reverse in [false, true] {
                let mut c = tree.range(
                    s.pool(),
                    Bound::Included(lo.clone()),
                    Bound::Excluded(hi.clone()),
                    reverse,
                );
                let mut got = Vec::new();
                while let Some(e) = c.next_entry()? {
                    got.push(e.key);
                }
                if reverse {
                    got.reverse();
                }
                assert!(
                    got == want,
                    "range scan reverse={reverse}: {} entries, want {}",
                    got.len(),
                    want.len()
                );
            }
        }
    }
    model_check(&tree, &s, &model)?;
    // Delete everything: the tree shrinks back to a single empty root leaf.
    let keys: Vec<Vec<u8>> = model.keys().cloned().collect();
    for k in keys {
        assert!(tree.delete(s.pool(), &k)?);
    }
    model.clear();
    model_check(&tree, &s, &model)?;
    let g = s
        .pool()
        .fix(tree.page(tree.root), crate::buffer::Latch::Shared)?;
    assert!(
        super::node::Node(g.data()).is_leaf(),
        "root lowered back to a leaf"
    );
    Ok(())
}

#[test]
fn random_operations_match_the_model_at_every_page_size() -> Result<()> {
    for (i, ps) in PageSize::ALL.into_iter().enumerate() {
        random_ops(ps, 10 + i as u64, 6000)?;
    }
    Ok(())
}

#[test]
fn sequential_inserts_fill_pages_and_grow_levels() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let s = storage(PageSize::K4, 256, vfs)?;
    let space = s.create_tablespace("db/seq.ibd")?;
    let tree = BTree::create(s.pool(), space, 1)?;
    for i in 0..20_000u32 {
        tree.insert(s.pool(), &i.to_be_bytes(), &[7u8; 50], OnDuplicate::Error)?;
    }
    assert!(check(&tree, s.pool())?.is_empty());
    let g = s
        .pool()
        .fix(tree.page(tree.root), crate::buffer::Latch::Shared)?;
    assert!(
        super::node::Node(g.data()).level() >= 2,
        "three levels at 4k pages"
    );
    drop(g);
    let (leaf_seg, _) = tree.segments(s.pool())?;
    let mut mtr = s.mtr()?;
    let leaves = crate::space::alloc::segment_page_count(&mut mtr, space, leaf_seg)?;
    mtr.commit()?;
    // 20,000 entries of 59 bytes + slot: ~63 per 4k page when full.
    assert!(
        leaves <= 20_000 / 60,
        "sequential inserts fill leaves: {leaves} pages"
    );
    Ok(())
}

#[test]
fn bulk_build_matches_inserts_and_reopens() -> Result<()> {
    for ps in [PageSize::K4, PageSize::K16, PageSize::K64] {
        let sim = SimVfs::new();
        let vfs: Arc<dyn Vfs> = Arc::new(sim.clone());
        let s = storage(ps, 128, vfs.clone())?;
        let space = s.create_tablespace("db/bulk.ibd")?;
        let tree = BTree::create(s.pool(), space, 9)?;
        let mut b = BulkBuilder::new(tree, s.pool(), 90)?;
        for i in 0..30_000u64 {
            b.push(&(i * 2).to_be_bytes(), format!("row {i}").as_bytes())?;
        }
        assert!(matches!(
            b.push(&[0u8; 8], b"x"),
            Err(EngineError::Internal(_))
        ));
        assert_eq!(b.finish()?, 30_000);
        assert!(check(&tree, s.pool())?.is_empty());
        // Point reads, then normal inserts between the bulk-loaded keys.
        assert_eq!(
            tree.get(s.pool(), &200u64.to_be_bytes())?.map(|f| f.value),
            Some(b"row 100".to_vec())
        );
        for i in 0..2000u64 {
            tree.insert(
                s.pool(),
                &(i * 2 + 1).to_be_bytes(),
                b"odd",
                OnDuplicate::Error,
            )?;
        }
        assert!(check(&tree, s.pool())?.is_empty());
        let end = s.log().current_lsn();
        s.log().flush_up_to(end)?;
        s.abandon();
        sim.crash();
        let s = storage(ps, 128, vfs)?;
        let tree = BTree::open(s.pool(), space, tree.root)?;
        assert_eq!(tree.index_id, 9);
        assert_eq!(tree.entries(s.pool())?.len(), 32_000);
        assert!(check(&tree, s.pool())?.is_empty());
        assert!(s.check()?.is_clean());
    }
    Ok(())
}

#[test]
fn concurrent_writers_and_scanners() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let s = Arc::new(storage(PageSize::K4, 96, vfs)?);
    let space = s.create_tablespace("db/c.ibd")?;
    let tree = BTree::create(s.pool(), space, 5)?;
    let writers: Vec<_> = (0..3u32)
        .map(|t| {
            let s = s.clone();
            std::thread::spawn(move || -> Result<()> {
                let mut rng = StdRng::seed_from_u64(u64::from(t));
                // Each thread owns keys k with k % 3 == t: insert all, delete half.
                for i in 0..4000u32 {
                    let k = (i * 3 + t).to_be_bytes();
                    tree.insert(
                        s.pool(),
                        &k,
                        &vec![t as u8; rng.random_range(0..60)],
                        OnDuplicate::Error,
                    )?;
                }
                for i in (0..4000u32).filter(|i| i % 2 == 0) {
                    assert!(tree.delete(s.pool(), &(i * 3 + t).to_be_bytes())?);
                }
                Ok(())
            })
        })
        .collect();
    let scanner = {
        let s = s.clone();
        std::thread::spawn(move || -> Result<()> {
            for _ in 0..30 {
                let mut c = tree.range(s.pool(), Bound::Unbounded, Bound::Unbounded, false);
                let mut last: Option<Vec<u8>> = None;
                while let Some(e) = c.next_entry()? {
                    assert!(last.as_ref().is_none_or(|l| *l < e.key), "scan order");
                    last = Some(e.key);
                }
            }
            Ok(())
        })
    };
    for w in writers {
        w.join()
            .map_err(|_| EngineError::Internal("writer panicked".into()))??;
    }
    scanner
        .join()
        .map_err(|_| EngineError::Internal("scanner panicked".into()))??;
    assert!(check(&tree, s.pool())?.is_empty());
    let keys: Vec<u32> = tree
        .entries(s.pool())?
        .iter()
        .map(|e| u32::from_be_bytes([e.key[0], e.key[1], e.key[2], e.key[3]]))
        .collect();
    let want: Vec<u32> = (0..12_000u32).filter(|k| (k / 3) % 2 == 1).collect();
    assert_eq!(keys, want);
    Ok(())
}

#[test]
fn oversized_entries_are_refused() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let s = storage(PageSize::K4, 64, vfs)?;
    let space = s.create_tablespace("db/big.ibd")?;
    let tree = BTree::create(s.pool(), space, 3)?;
    let max = BTree::max_entry_bytes(s.pool());
    tree.insert(s.pool(), &vec![1u8; max], &[], OnDuplicate::Error)?;
    let r = tree.insert(s.pool(), &vec![2u8; max + 1], &[], OnDuplicate::Error);
    assert!(matches!(r, Err(EngineError::KeyTooLong { .. })));
    Ok(())
}

#[test]
fn drop_tree_returns_every_page() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let s = storage(PageSize::K4, 64, vfs)?;
    let space = s.create_tablespace("db/d.ibd")?;
    let mut mtr = s.mtr()?;
    let before = crate::space::alloc::space_usage(&mut mtr, space)?.used_pages;
    mtr.commit()?;
    let tree = BTree::create(s.pool(), space, 3)?;
    for i in 0..5000u32 {
        tree.insert(s.pool(), &i.to_be_bytes(), &[0u8; 30], OnDuplicate::Error)?;
    }
    tree.drop_tree(s.pool())?;
    let mut mtr = s.mtr()?;
    let after = crate::space::alloc::space_usage(&mut mtr, space)?.used_pages;
    let problems = crate::space::alloc::check_space(&mut mtr, space)?;
    mtr.commit()?;
    assert_eq!(after, before);
    assert!(problems.is_empty(), "{problems:?}");
    Ok(())
}

#[test]
fn check_reports_a_damaged_tree_and_storage_check_finds_it() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let s = storage(PageSize::K4, 64, vfs)?;
    let space = s.create_tablespace("db/dmg.ibd")?;
    let tree = BTree::create(s.pool(), space, 11)?;
    for i in 0..3000u32 {
        tree.insert(s.pool(), &i.to_be_bytes(), &[1u8; 20], OnDuplicate::Error)?;
    }
    let report = s.check()?;
    assert!(report.is_clean(), "{:?}", report.problems());
    assert_eq!(report.spaces.iter().map(|x| x.btrees).sum::<u32>(), 1);
    // Damage a leaf through a logged change: its first key becomes the largest.
    let leaf = {
        let g = tree.leaf_shared(s.pool(), &1500u32.to_be_bytes())?;
        g.id()
    };
    let mut mtr = s.mtr()?;
    let p = mtr.page(leaf, crate::buffer::Latch::Exclusive)?;
    let n = super::node::Node(mtr.data(p));
    let off = crate::page::bytes::get_u16(n.0, n.slot_pos(0)) as usize + super::node::ENTRY_HEADER;
    mtr.write_bytes(p, off, &[0xff; 4]);
    mtr.commit()?;
    let problems = check(&tree, s.pool())?;
    assert!(
        problems
            .iter()
            .any(|p| p.contains("out of order") || p.contains("bound")),
        "{problems:?}"
    );
    let report = s.check()?;
    assert!(!report.is_clean());
    assert!(report
        .problems()
        .iter()
        .any(|p| p.contains("db/dmg.ibd") && p.contains("B+tree")));
    Ok(())
}

#[test]
fn check_reports_a_node_whose_layout_leaves_the_page() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let s = storage(PageSize::K4, 64, vfs)?;
    let space = s.create_tablespace("db/lay.ibd")?;
    let tree = BTree::create(s.pool(), space, 12)?;
    for i in 0..3000u32 {
        tree.insert(s.pool(), &i.to_be_bytes(), &[1u8; 20], OnDuplicate::Error)?;
    }
    let leaf = {
        let g = tree.leaf_shared(s.pool(), &1500u32.to_be_bytes())?;
        g.id()
    };
    // Each damage alone, through a logged change, so the page's checksum
    // stays valid: an entry count, an entry's key length, a slot.
    let damages: [(&str, Box<dyn Fn(&[u8]) -> (usize, Vec<u8>)>); 3] = [
        (
            "entries cannot fit",
            Box::new(|_| (super::node::N_ENTRIES, vec![0x7f, 0xff])),
        ),
        (
            "runs past the heap top",
            Box::new(|d| {
                let n = super::node::Node(d);
                let off = crate::page::bytes::get_u16(d, n.slot_pos(0)) as usize;
                (off + 1, vec![0xff, 0xf0])
            }),
        ),
        (
            "outside the heap",
            Box::new(|d| (super::node::Node(d).slot_pos(1), vec![0xff, 0xf0])),
        ),
    ];
    for (expect, damage) in damages {
        let mut mtr = s.mtr()?;
        let p = mtr.page(leaf, crate::buffer::Latch::Exclusive)?;
        let before = mtr.data(p).to_vec();
        let (at, bytes) = damage(&before);
        mtr.write_bytes(p, at, &bytes);
        mtr.commit()?;
        let problems = check(&tree, s.pool())?;
        assert!(
            problems
                .iter()
                .any(|p| p.contains("node layout") && p.contains(expect)),
            "{expect}: {problems:?}"
        );
        let report = s.check()?;
        assert!(report
            .problems()
            .iter()
            .any(|p| p.contains("db/lay.ibd") && p.contains("node layout")));
        // Undo the damage for the next one.
        let mut mtr = s.mtr()?;
        let p = mtr.page(leaf, crate::buffer::Latch::Exclusive)?;
        mtr.write_bytes(p, at, &before[at..at + bytes.len()]);
        mtr.commit()?;
        assert!(check(&tree, s.pool())?.is_empty());
    }
    Ok(())
}

/// Leaf pages from the leftmost one along the next links.
fn leaf_chain(tree: &BTree, pool: &crate::buffer::BufferPool) -> Result<Vec<u32>> {
    let mut pages = vec![tree.leaf_shared(pool, &[])?.id().page];
    loop {
        let g = pool.fix(
            tree.page(pages[pages.len() - 1]),
            crate::buffer::Latch::Shared,
        )?;
        let next = crate::page::PageHeader(g.data()).next();
        if next == crate::page::FIL_NULL {
            return Ok(pages);
        }
        pages.push(next);
    }
}

#[test]
fn bulk_build_fills_leaves_to_the_fill_factor() -> Result<()> {
    use super::node::{Node, ENTRY_HEADER};
    const ENTRIES: u32 = 20_000;
    const VALUE: usize = 40;
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let s = storage(PageSize::K4, 256, vfs)?;
    let cap = Node::capacity(4096);
    // Bytes one entry takes: header, key, value and its slot.
    let entry = ENTRY_HEADER + 4 + VALUE + 2;
    let mut leaf_counts = Vec::new();
    for (i, fill) in [50u32, 100].into_iter().enumerate() {
        let space = s.create_tablespace(&format!("db/fill{fill}.ibd"))?;
        let tree = BTree::create(s.pool(), space, 20 + i as u64)?;
        let mut b = BulkBuilder::new(tree, s.pool(), fill)?;
        for k in 0..ENTRIES {
            b.push(&k.to_be_bytes(), &[3u8; VALUE])?;
        }
        assert_eq!(b.finish()?, u64::from(ENTRIES));
        assert!(check(&tree, s.pool())?.is_empty());
        // Every leaf but the last holds as many entries as fit under the
        // target (100% still leaves 1/16 of the page free).
        let target = (cap * fill as usize / 100).min(cap - cap / 16);
        let leaves = leaf_chain(&tree, s.pool())?;
        for &p in &leaves[..leaves.len() - 1] {
            let g = s.pool().fix(tree.page(p), crate::buffer::Latch::Shared)?;
            let used = Node(g.data()).len() * entry;
            assert!(
                used <= target && used + entry > target,
                "fill {fill}%: leaf {p} uses {used} bytes, target {target}"
            );
        }
        let (leaf_seg, _) = tree.segments(s.pool())?;
        let mut mtr = s.mtr()?;
        let in_segment = crate::space::alloc::segment_page_count(&mut mtr, space, leaf_seg)?;
        mtr.commit()?;
        assert_eq!(in_segment as usize, leaves.len(), "fill {fill}%");
        leaf_counts.push(leaves.len());
    }
    let (half, full) = (leaf_counts[0], leaf_counts[1]);
    // 50% against 15/16 of a page: 1.875 times as many leaves.
    assert!(
        half * 100 >= full * 180 && half * 100 <= full * 195,
        "leaves at 50%: {half}, at 100%: {full}"
    );
    Ok(())
}

/// A tree of several leaves under one root, and a leaf in its middle.
fn damage_target(s: &Storage, name: &str, index_id: u64) -> Result<(BTree, crate::page::PageId)> {
    let space = s.create_tablespace(name)?;
    let tree = BTree::create(s.pool(), space, index_id)?;
    for i in 0..3000u32 {
        tree.insert(s.pool(), &i.to_be_bytes(), &[1u8; 20], OnDuplicate::Error)?;
    }
    assert!(check(&tree, s.pool())?.is_empty());
    let leaf = tree.leaf_shared(s.pool(), &1500u32.to_be_bytes())?.id();
    Ok((tree, leaf))
}

/// Applies `damage` to page `id` through a logged change.
fn damage(
    s: &Storage,
    id: crate::page::PageId,
    damage: impl FnOnce(&mut crate::mtr::Mtr<'_>, crate::mtr::PageRef),
) -> Result<()> {
    let mut mtr = s.mtr()?;
    let p = mtr.page(id, crate::buffer::Latch::Exclusive)?;
    damage(&mut mtr, p);
    mtr.commit()?;
    Ok(())
}

fn assert_reported(s: &Storage, tree: &BTree, file: &str, want: &[&str]) -> Result<()> {
    let problems = check(tree, s.pool())?;
    assert!(
        problems.iter().any(|p| want.iter().all(|w| p.contains(w))),
        "expected a problem with {want:?}: {problems:?}"
    );
    let report = s.check()?;
    assert!(
        report.problems().iter().any(|p| p.contains(file)
            && p.contains("B+tree")
            && want.iter().all(|w| p.contains(w))),
        "{:?}",
        report.problems()
    );
    Ok(())
}

#[test]
fn check_reports_a_damaged_sibling_link() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let s = storage(PageSize::K4, 64, vfs)?;
    let (tree, leaf) = damage_target(&s, "db/link.ibd", 12)?;
    // The leaf's next link skips its right neighbour.
    let (prev, next) = {
        let g = s.pool().fix(leaf, crate::buffer::Latch::Shared)?;
        let h = crate::page::PageHeader(g.data());
        (h.prev(), h.next())
    };
    let after = {
        let g = s
            .pool()
            .fix(tree.page(next), crate::buffer::Latch::Shared)?;
        crate::page::PageHeader(g.data()).next()
    };
    assert_ne!(after, crate::page::FIL_NULL, "the leaf is not next to last");
    damage(&s, leaf, |m, p| {
        m.write_u32(p, crate::page::offset::NEXT, after)
    })?;
    let want = format!(
        "page {} (level 0): sibling links prev={prev} next={after}, expected prev={prev} next={next}",
        leaf.page
    );
    assert_reported(&s, &tree, "db/link.ibd", &[&want])?;
    Ok(())
}

#[test]
fn check_reports_a_wrong_level() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let s = storage(PageSize::K4, 64, vfs)?;
    let (tree, leaf) = damage_target(&s, "db/level.ibd", 13)?;
    damage(&s, leaf, |m, p| m.write_u16(p, super::node::LEVEL, 1))?;
    let page = format!("page {}: level 1 where 0 was expected", leaf.page);
    assert_reported(&s, &tree, "db/level.ibd", &[&page])?;
    Ok(())
}

#[test]
fn check_reports_wrong_free_space_accounting() -> Result<()> {
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    let s = storage(PageSize::K4, 64, vfs)?;
    let (tree, leaf) = damage_target(&s, "db/space.ibd", 14)?;
    let garbage = {
        let g = s.pool().fix(leaf, crate::buffer::Latch::Shared)?;
        super::node::Node(g.data()).garbage()
    };
    // Garbage claimed that the heap does not hold.
    damage(&s, leaf, |m, p| {
        m.write_u16(p, super::node::GARBAGE, garbage as u16 + 8)
    })?;
    let page = format!("page {}: heap accounting", leaf.page);
    assert_reported(&s, &tree, "db/space.ibd", &[&page])?;
    Ok(())
}
