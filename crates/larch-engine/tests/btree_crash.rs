//! B+tree crash safety under simulated power loss.
//!
//! Operation `n` of a deterministic sequence inserts, replaces or deletes a key
//! chosen from `n`, with values of varied length so pages split and merge. Some
//! operations are made durable. After a crash (unsynced writes dropped, kept or
//! torn at random), the recovered tree must pass the structural check and equal
//! the model after some prefix `1..=m` of the sequence with `m` at least the last
//! durable operation.

use std::collections::BTreeMap;
use std::sync::Arc;

use larch_engine::btree::check::check;
use larch_engine::btree::{BTree, OnDuplicate};
use larch_engine::config::EngineConfig;
use larch_engine::io::{SimVfs, Vfs};
use larch_engine::page::PageSize;
use larch_engine::storage::Storage;
use larch_engine::{EngineError, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[derive(Debug)]
enum Op {
    Put(Vec<u8>, Vec<u8>),
    Del(Vec<u8>),
}

fn op(n: u64) -> Op {
    let mut rng = StdRng::seed_from_u64(n ^ 0x5eed);
    let key = format!("k{:05}", rng.random_range(0..1500u32)).into_bytes();
    if rng.random_bool(0.3) {
        Op::Del(key)
    } else {
        let len = if rng.random_bool(0.1) {
            rng.random_range(200..900)
        } else {
            rng.random_range(0..60)
        };
        Op::Put(key, vec![(n % 251) as u8; len])
    }
}

fn apply(model: &mut BTreeMap<Vec<u8>, Vec<u8>>, n: u64) {
    match op(n) {
        Op::Put(k, v) => {
            model.insert(k, v);
        }
        Op::Del(k) => {
            model.remove(&k);
        }
    }
}

fn config(ps: PageSize) -> EngineConfig {
    let mut c = EngineConfig::new("/d");
    c.page_size = Some(ps);
    c.buffer_pool_size = 48 * ps.bytes() as u64;
    c.log_file_size = 1 << 20;
    c.undo_tablespaces = 0;
    c
}

fn contents(tree: &BTree, s: &Storage) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    Ok(tree
        .entries(s.pool())?
        .into_iter()
        .map(|e| (e.key, e.value))
        .collect())
}

fn run(ps: PageSize, seed: u64, cycles: u32) -> Result<()> {
    let sim = SimVfs::with_seed(seed);
    let vfs: Arc<dyn Vfs> = Arc::new(sim.clone());
    let (space, root) = {
        let s = Storage::create(config(ps), vfs.clone())?;
        let space = s.create_tablespace("db/tree.ibd")?;
        let tree = BTree::create(s.pool(), space, 77)?;
        s.close()?;
        (space, tree.root)
    };
    let mut rng = StdRng::seed_from_u64(seed);
    let mut done = 0u64; // operations known to be applied (a prefix)
    let mut model = BTreeMap::new();
    for cycle in 0..cycles {
        let s = Storage::open(config(ps), vfs.clone())?;
        let tree = BTree::open(s.pool(), space, root)?;
        let problems = check(&tree, s.pool())?;
        if !problems.is_empty() {
            return Err(EngineError::Internal(format!(
                "cycle {cycle}: {problems:?}"
            )));
        }
        // Find the recovered prefix: the model after `done` durable ops, then
        // possibly some of the non-durable ones that made it.
        let got = contents(&tree, &s)?;
        let mut probe = model.clone();
        let mut m = done;
        let mut matched = got == probe.clone().into_iter().collect::<Vec<_>>();
        let mut n = done;
        while !matched && n < done + 400 {
            n += 1;
            apply(&mut probe, n);
            if got == probe.clone().into_iter().collect::<Vec<_>>() {
                matched = true;
                m = n;
            }
        }
        if !matched {
            return Err(EngineError::Internal(format!(
                "page size {ps}, cycle {cycle}: the tree matches no prefix at or after durable op {done}"
            )));
        }
        for k in done + 1..=m {
            apply(&mut model, k);
        }
        done = m;
        // Run more operations; make some durable.
        let count = rng.random_range(1..300u64);
        let mut durable = done;
        for k in done + 1..=done + count {
            match op(k) {
                Op::Put(key, v) => tree.insert(s.pool(), &key, &v, OnDuplicate::Replace)?,
                Op::Del(key) => {
                    tree.delete(s.pool(), &key)?;
                }
            }
            if rng.random_bool(0.2) {
                s.log().flush_up_to(s.log().current_lsn())?;
                durable = k;
            }
        }
        for k in done + 1..=durable {
            apply(&mut model, k);
        }
        done = durable;
        s.abandon();
        match cycle % 3 {
            0 => sim.crash(),
            1 => sim.crash_drop_unsynced(),
            _ => sim.crash_keep_all(),
        }
    }
    let s = Storage::open(config(ps), vfs)?;
    assert!(s.check()?.is_clean());
    Ok(())
}

#[test]
fn btree_survives_power_loss_at_every_page_size() -> Result<()> {
    for (i, ps) in PageSize::ALL.into_iter().enumerate() {
        run(ps, 500 + i as u64, 25)?;
    }
    Ok(())
}

#[test]
#[ignore = "long: run with --ignored"]
fn btree_survives_power_loss_long() -> Result<()> {
    for seed in 0..10u64 {
        for ps in PageSize::ALL {
            run(ps, seed * 7 + u64::from(ps.get()), 60)?;
        }
    }
    Ok(())
}
