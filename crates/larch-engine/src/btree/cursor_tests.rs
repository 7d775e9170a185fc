//! Tests of the lending cursor (`Cursor::next_ref`): entries lent from the
//! cursor's leaf copy across many leaves, in both directions, with bounds,
//! small batches and delete marks, and while concurrent inserts split the
//! leaves being scanned.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::{BTree, OnDuplicate};
use crate::config::EngineConfig;
use crate::error::{EngineError, Result};
use crate::io::{SimVfs, Vfs};
use crate::page::PageSize;
use crate::storage::Storage;

fn storage() -> Result<Arc<Storage>> {
    let mut c = EngineConfig::new("/d");
    c.page_size = Some(PageSize::K4);
    c.buffer_pool_size = 256 * 4096;
    c.log_file_size = 8 << 20;
    c.undo_tablespaces = 0;
    let vfs: Arc<dyn Vfs> = Arc::new(SimVfs::new());
    Ok(Arc::new(Storage::open_or_create(c, vfs)?))
}

/// The value stored for key `k`: derived from it, so a lent entry whose
/// value belongs to another key (a stale or overwritten buffer) shows.
fn value_of(k: u32, len: usize) -> Vec<u8> {
    (0..len).map(|i| (k as usize * 7 + i) as u8).collect()
}

fn key(k: u32) -> Vec<u8> {
    k.to_be_bytes().to_vec()
}

/// A lent entry, copied: key, value, delete mark.
type Copied = (Vec<u8>, Vec<u8>, bool);

/// Reads the whole range through `next_ref`, copying what was lent.
fn lent(
    tree: &BTree,
    s: &Storage,
    from: Bound<Vec<u8>>,
    to: Bound<Vec<u8>>,
    reverse: bool,
    batch: usize,
) -> Result<Vec<Copied>> {
    let mut c = tree.range(s.pool(), from, to, reverse).limit_batch(batch);
    let mut out = Vec::new();
    while let Some(e) = c.next_ref()? {
        out.push((e.key.to_vec(), e.value.to_vec(), e.is_deleted()));
    }
    // The end stays the end.
    assert!(c.next_ref()?.is_none());
    Ok(out)
}

#[test]
fn lent_entries_match_the_tree_over_many_leaves_both_ways() -> Result<()> {
    let s = storage()?;
    let space = s.create_tablespace("db/l.ibd")?;
    let tree = BTree::create(s.pool(), space, 7)?;
    let mut model = BTreeMap::new();
    for k in (0..3000u32).map(|i| i * 2) {
        let v = value_of(k, 20 + (k as usize % 50));
        tree.insert(s.pool(), &key(k), &v, OnDuplicate::Error)?;
        model.insert(key(k), (v, false));
    }
    for k in (0..3000u32).filter(|i| i % 5 == 0).map(|i| i * 2) {
        assert!(tree.set_delete_mark(s.pool(), &key(k), true)?);
        if let Some(e) = model.get_mut(&key(k)) {
            e.1 = true;
        }
    }
    let ranges = [
        (Bound::Unbounded, Bound::Unbounded),
        (Bound::Included(key(101)), Bound::Excluded(key(4001))),
        (Bound::Excluded(key(100)), Bound::Included(key(4000))),
        (Bound::Included(key(5990)), Bound::Unbounded),
        (Bound::Included(key(7000)), Bound::Unbounded),
    ];
    for (from, to) in ranges {
        let want: Vec<Copied> = model
            .range((from.clone(), to.clone()))
            .map(|(k, (v, d))| (k.clone(), v.clone(), *d))
            .collect();
        for batch in [1, 3, usize::MAX] {
            let forward = lent(&tree, &s, from.clone(), to.clone(), false, batch)?;
            assert_eq!(forward, want, "forward {from:?}..{to:?}, batch {batch}");
            let mut backward = lent(&tree, &s, from.clone(), to.clone(), true, batch)?;
            backward.reverse();
            assert_eq!(backward, want, "backward {from:?}..{to:?}, batch {batch}");
        }
    }
    // next_entry (owned) and next_ref (lent) interleave on one cursor.
    let mut c = tree.range(s.pool(), Bound::Unbounded, Bound::Unbounded, false);
    let mut got = Vec::new();
    loop {
        let e = if got.len() % 2 == 0 {
            c.next_entry()?.map(|e| e.key)
        } else {
            c.next_ref()?.map(|e| e.key.to_vec())
        };
        let Some(k) = e else { break };
        got.push(k);
    }
    assert_eq!(got, model.keys().cloned().collect::<Vec<_>>());
    Ok(())
}

#[test]
fn lending_scans_stay_ordered_and_complete_while_inserts_split_leaves() -> Result<()> {
    let s = storage()?;
    let space = s.create_tablespace("db/c.ibd")?;
    let tree = BTree::create(s.pool(), space, 9)?;
    // Stable keys (multiples of 4) exist throughout; writers add and remove
    // the others, splitting and merging the leaves under the scans.
    for k in (0..2000u32).map(|i| i * 4) {
        tree.insert(s.pool(), &key(k), &value_of(k, 40), OnDuplicate::Error)?;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (1..=2u32)
        .map(|t| {
            let (s, stop) = (s.clone(), stop.clone());
            std::thread::spawn(move || -> Result<()> {
                let mut round = 0u32;
                while !stop.load(Ordering::Relaxed) && round < 50 {
                    for k in (0..2000u32).map(|i| i * 4 + t) {
                        let len = 10 + ((k + round) % 90) as usize;
                        tree.insert(s.pool(), &key(k), &value_of(k, len), OnDuplicate::Replace)?;
                    }
                    for k in (0..2000u32).map(|i| i * 4 + t).filter(|k| k % 3 == 0) {
                        tree.delete(s.pool(), &key(k))?;
                    }
                    round += 1;
                }
                Ok(())
            })
        })
        .collect();
    let scan_result = (|| -> Result<()> {
        for scan in 0..40 {
            let reverse = scan % 2 == 1;
            let mut c = tree
                .range(s.pool(), Bound::Unbounded, Bound::Unbounded, reverse)
                .limit_batch(if scan % 4 < 2 { 5 } else { usize::MAX });
            let mut last: Option<u32> = None;
            let mut stable = 0;
            while let Some(e) = c.next_ref()? {
                let k = u32::from_be_bytes([e.key[0], e.key[1], e.key[2], e.key[3]]);
                assert!(
                    last.is_none_or(|l| if reverse { k < l } else { k > l }),
                    "scan order: {k} after {last:?}"
                );
                assert_eq!(
                    e.value,
                    value_of(k, e.value.len()).as_slice(),
                    "value of {k}"
                );
                last = Some(k);
                if k % 4 == 0 {
                    stable += 1;
                }
            }
            assert_eq!(stable, 2000, "every stable key, scan {scan}");
        }
        Ok(())
    })();
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.join()
            .map_err(|_| EngineError::Internal("writer panicked".into()))??;
    }
    scan_result?;
    assert!(super::check::check(&tree, s.pool())?.is_empty());
    Ok(())
}
