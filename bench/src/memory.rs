//! Buffer pool metadata: bytes per page, computed and measured.
//!
//! *Computed* (`mem.*.bytes_per_page`, `mem.metadata_per_gib.est`), for a 1 GiB
//! pool of 16 KiB pages (65,536 frames):
//! - descriptor array: `pool.descriptor_bytes()` (`size_of::<Descriptor>()`,
//!   latch and LRU/flush-list links included) per frame;
//! - page table: 64 shards (the engine's `page_table::SHARDS`, not exposed by its
//!   API, so assumed here), each a std `HashMap<PageId, u32>` created with
//!   capacity `frames / 64 + 1`. std's map is hashbrown's SwissTable: it allocates
//!   `buckets` slots of `(key, value)` = 12 bytes plus one control byte per
//!   bucket and 16 trailing control bytes, where `buckets` is the power of two
//!   giving `capacity() = buckets * 7 / 8`. The bench builds an identical empty
//!   map and reads its `capacity()` to get `buckets`, so only the layout rule is
//!   an assumption;
//! - free list: a `Vec<u32>` of every frame index, 4 bytes per frame.
//!
//! *Measured* (`mem.rss.*`): `VmRSS` of `/proc/self/status` before and after
//! `BufferPool::new` with `buffer_pool_size = 1 GiB` (no page in any frame yet),
//! then after `fix_new` of one page in every frame (each frame zero-filled, every
//! page-table entry inserted). The overhead is that last increase minus the 1 GiB
//! of frames. The frames are not resident right after `new`: the frame area
//! is an `AlignedBuf::zeroed`, which maps buffers of 2 MiB and more with an
//! anonymous `mmap` (zero pages that cost nothing until touched), so
//! `mem.rss.pool_created` is the metadata alone. This section runs
//! first, before any other allocation churn, so the allocator hands out fresh
//! memory and RSS deltas are the pool's own.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use larch_engine::buffer::BufferPool;
use larch_engine::config::EngineConfig;
use larch_engine::io::{OsVfs, Vfs};
use larch_engine::page::{PageId, PageSize};
use larch_engine::space::SpaceRegistry;
use larch_engine::wal::file::FIRST_LSN;
use larch_engine::wal::{LogFile, RedoLog};

use crate::harness::{rss_bytes, Mode, Report, Result};

const GIB: u64 = 1 << 30;
const MIB: f64 = (1u64 << 20) as f64;
/// The engine's page-table shard count (private there; see the module docs).
const PAGE_TABLE_SHARDS: usize = 64;
/// hashbrown's control-byte group width on x86-64 (SSE2) and the padding rule.
const CTRL_GROUP: usize = 16;
/// A space id no real tablespace uses, for the pages made to touch frames.
const BENCH_SPACE: u32 = 0xbe_0c;

/// Estimated bytes of the page table for `frames` frames.
fn page_table_bytes(frames: usize) -> usize {
    let per_shard = frames / PAGE_TABLE_SHARDS + 1;
    let cap = HashMap::<PageId, u32>::with_capacity(per_shard).capacity();
    let buckets = if cap < 8 {
        cap + 1
    } else {
        (cap * 8 / 7).next_power_of_two()
    };
    let slot = std::mem::size_of::<(PageId, u32)>();
    let data = (buckets * slot).div_ceil(CTRL_GROUP) * CTRL_GROUP;
    PAGE_TABLE_SHARDS * (data + buckets + CTRL_GROUP)
}

pub fn run(report: &mut Report, _mode: Mode, scratch: &Path) -> Result<()> {
    let dir = scratch.join("mem");
    std::fs::create_dir_all(&dir)?;
    let vfs: Arc<dyn Vfs> = Arc::new(OsVfs::new());
    let mut config = EngineConfig::new(&dir);
    config.buffer_pool_size = GIB;
    let ps = PageSize::K16;
    let spaces = Arc::new(SpaceRegistry::new(
        vfs.clone(),
        dir.clone(),
        ps,
        config.flush_method,
        false,
    ));
    let file = LogFile::create(&*vfs, &dir.join("ib_logfile0"), 8 << 20, false)?;
    let cp = file.read_checkpoint()?;
    let log = Arc::new(RedoLog::new(
        file,
        FIRST_LSN,
        cp,
        cp.epoch + 1,
        config.log_buffer_size,
        1,
    ));

    let rss0 = rss_bytes()?;
    // Keep the log alive so that dropping the pool frees only the pool's memory.
    let pool = BufferPool::new(&config, ps, spaces, log.clone(), None);
    let rss1 = rss_bytes()?;
    let frames = pool.capacity();
    for i in 0..frames {
        drop(pool.fix_new(PageId::new(BENCH_SPACE, i as u32))?);
    }
    let rss2 = rss_bytes()?;
    let frame_bytes = frames as u64 * ps.bytes() as u64;
    let desc = pool.descriptor_bytes();
    drop(pool);
    let rss3 = rss_bytes()?;
    drop(log);

    let table = page_table_bytes(frames);
    let free = frames * std::mem::size_of::<u32>();
    let per_gib = |bytes: usize| bytes as f64 * (GIB as f64 / frame_bytes as f64) / MIB;
    report.add(
        "mem.descriptor.bytes_per_page",
        desc as f64,
        "B",
        "pool.descriptor_bytes(): size_of::<Descriptor>()",
    );
    report.add(
        "mem.page_table.bytes_per_page.est",
        table as f64 / frames as f64,
        "B",
        format!(
            "64 hashbrown shards, {:.2} MiB for {frames} frames",
            table as f64 / MIB
        ),
    );
    report.add(
        "mem.free_list.bytes_per_page",
        free as f64 / frames as f64,
        "B",
        "Vec<u32> of frame indexes",
    );
    let total = desc * frames + table + free;
    report.add(
        "mem.metadata_per_gib.est",
        per_gib(total),
        "MiB",
        format!(
            "16k pages: descriptors {:.2} + page table {:.2} + free list {:.2} MiB = {:.3}% of the pool",
            per_gib(desc * frames),
            per_gib(table),
            per_gib(free),
            total as f64 / frame_bytes as f64 * 100.0
        ),
    );
    let d1 = rss1.saturating_sub(rss0) as f64;
    let d2 = rss2.saturating_sub(rss0) as f64 - frame_bytes as f64;
    report.add(
        "mem.rss.pool_created",
        d1 / MIB,
        "MiB",
        format!(
            "RSS growth from BufferPool::new(1 GiB), no frame used (frames are mapped lazily, {} MiB not yet resident)",
            frame_bytes >> 20
        ),
    );
    report.add(
        "mem.rss.pool_all_frames_used",
        d2 / MIB,
        "MiB",
        format!(
            "RSS growth after fix_new in all {frames} frames, minus the {} MiB of frames",
            frame_bytes >> 20
        ),
    );
    report.add(
        "mem.rss.overhead_per_page",
        d2 / frames as f64,
        "B",
        format!(
            "measured; RSS after dropping the pool: {:+.1} MiB vs before",
            (rss3 as f64 - rss0 as f64) / MIB
        ),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn page_table_estimate_for_one_gib_of_16k_pages() {
        // 65536 / 64 + 1 = 1025 entries per shard -> 2048 buckets of 12 + 1 bytes.
        assert_eq!(super::page_table_bytes(65536), 64 * (2048 * 12 + 2048 + 16));
    }
}
