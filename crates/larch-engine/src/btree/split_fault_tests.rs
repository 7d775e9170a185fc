//! A split that cannot get its pages (a full disk at any of the allocations
//! it needs, up to a root raise over a cascade of splits) changes nothing:
//! the entries, the tree's structure and the allocator stay as they were,
//! including for a replaced entry that grows (the old entry is still there).

use std::collections::BTreeMap;
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::check::check;
use super::{BTree, OnDuplicate};
use crate::config::EngineConfig;
use crate::error::{EngineError, Result};
use crate::io::SimVfs;
use crate::page::PageSize;
use crate::space::alloc;
use crate::storage::Storage;

fn entries(tree: &BTree, s: &Storage) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    Ok(tree
        .entries(s.pool())?
        .into_iter()
        .map(|e| (e.key, e.value))
        .collect())
}

/// (used pages, allocation problems) of `space`.
fn allocator(s: &Storage, space: u32) -> Result<(u32, Vec<String>)> {
    let mut mtr = s.mtr()?;
    let used = alloc::space_usage(&mut mtr, space)?.used_pages;
    let problems = alloc::check_space(&mut mtr, space)?;
    mtr.commit()?;
    Ok((used, problems))
}

#[test]
fn a_split_that_cannot_allocate_its_pages_changes_nothing() -> Result<()> {
    let mut c = EngineConfig::new("/d");
    c.page_size = Some(PageSize::K4);
    c.buffer_pool_size = 512 * 4096;
    c.log_file_size = 16 << 20;
    c.undo_tablespaces = 0;
    let s = Storage::open_or_create(c, Arc::new(SimVfs::new()))?;
    let space = s.create_tablespace("db/t.ibd")?;
    let tree = BTree::create(s.pool(), space, 7)?;
    let mut rng = StdRng::seed_from_u64(11);
    let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    // Inserts by how many allocations failed before one went through.
    let mut attempts: BTreeMap<u64, u32> = BTreeMap::new();
    for i in 0..400u32 {
        let (key, value) = if i % 5 == 4 {
            // Replace an existing entry by a longer one.
            let k = model.keys().nth(rng.random_range(0..model.len())).cloned();
            let k = k.ok_or_else(|| EngineError::Internal("empty model".into()))?;
            (k, vec![b'R'; rng.random_range(500..900)])
        } else {
            // Long keys, so internal nodes split too.
            let mut k = rng.random::<u64>().to_be_bytes().to_vec();
            k.resize(rng.random_range(300..700), b'k');
            (k, vec![b'v'; rng.random_range(50..400)])
        };
        let before = entries(&tree, &s)?;
        let (used, _) = allocator(&s, space)?;
        let mut n = 0u64;
        loop {
            alloc::fail_allocations_after(Some(n));
            let r = tree.insert(s.pool(), &key, &value, OnDuplicate::Replace);
            alloc::fail_allocations_after(None);
            match r {
                Ok(()) => break,
                Err(EngineError::DiskFull { .. }) => {}
                Err(e) => return Err(e),
            }
            assert!(
                entries(&tree, &s)? == before,
                "insert {i}, allocation {n}: entries changed"
            );
            let problems = check(&tree, s.pool())?;
            assert!(
                problems.is_empty(),
                "insert {i}, allocation {n}: {problems:?}"
            );
            let (now, problems) = allocator(&s, space)?;
            assert!(
                problems.is_empty(),
                "insert {i}, allocation {n}: {problems:?}"
            );
            assert_eq!(now, used, "insert {i}, allocation {n}: pages leaked");
            n += 1;
        }
        *attempts.entry(n).or_default() += 1;
        model.insert(key, value);
    }
    let got: BTreeMap<Vec<u8>, Vec<u8>> = entries(&tree, &s)?.into_iter().collect();
    assert!(got == model, "tree differs from the model");
    assert!(check(&tree, s.pool())?.is_empty());
    // Splits of one page, of two (a root raise, or a leaf and its parent),
    // and cascades of three or more all happened.
    assert!(
        attempts.keys().any(|&n| n >= 3) && attempts.contains_key(&1) && attempts.contains_key(&2),
        "{attempts:?}"
    );
    Ok(())
}
