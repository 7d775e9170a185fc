//! Buffer pool fix/unfix of resident pages: the cost every page access pays
//! before it can look at a byte of the page.
//!
//! Setup: a real data directory ([`Storage::create`] on [`OsVfs`]) with a 64 MiB
//! pool and a tablespace of test pages made by [`Workload::create`] (allocated with
//! `space::alloc::alloc_page` and created with `mtr.new_page`). Every page is
//! touched once before timing, so all fixes are hits. One operation is
//! `pool.fix(id, latch)` followed by dropping the guard (unlatch and unfix); the
//! body reads one byte of the page so that nothing is optimised away.
//!
//! Figures: `ns/op` is wall time divided by the operations of one thread (the
//! latency a thread sees); for 2 threads, `Mops/s` adds up both threads.

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;

use larch_engine::buffer::Latch;
use larch_engine::config::EngineConfig;
use larch_engine::io::OsVfs;
use larch_engine::page::PageId;
use larch_engine::storage::workload::Workload;
use larch_engine::storage::Storage;

use crate::harness::{median, repeat, run_parallel, spread, Mode, Report, Result};

/// Which pages the threads fix.
#[derive(Clone, Copy)]
enum Pages {
    /// Every thread fixes the same page.
    Same,
    /// Thread `i` fixes its own page `i`.
    Own,
    /// Each thread cycles through all pages of the working set.
    All,
}

struct Case {
    name: &'static str,
    threads: usize,
    latch: Latch,
    pages: Pages,
    notes: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "pool.fix.shared.1t",
        threads: 1,
        latch: Latch::Shared,
        pages: Pages::Same,
        notes: "one page",
    },
    Case {
        name: "pool.fix.exclusive.1t",
        threads: 1,
        latch: Latch::Exclusive,
        pages: Pages::Same,
        notes: "one page",
    },
    Case {
        name: "pool.fix.shared.1t.1024_pages",
        threads: 1,
        latch: Latch::Shared,
        pages: Pages::All,
        notes: "cycling through 1024 pages",
    },
    Case {
        name: "pool.fix.shared.2t.same_page",
        threads: 2,
        latch: Latch::Shared,
        pages: Pages::Same,
        notes: "both threads S-latch one page",
    },
    Case {
        name: "pool.fix.shared.2t.own_page",
        threads: 2,
        latch: Latch::Shared,
        pages: Pages::Own,
        notes: "each thread its own page",
    },
    Case {
        name: "pool.fix.exclusive.2t.own_page",
        threads: 2,
        latch: Latch::Exclusive,
        pages: Pages::Own,
        notes: "each thread its own page",
    },
];

/// Working-set size of the `1024_pages` case.
const PAGES: usize = 1024;

pub fn run(report: &mut Report, mode: Mode, scratch: &Path) -> Result<()> {
    let mut config = EngineConfig::new(scratch.join("fix"));
    config.buffer_pool_size = 64 << 20;
    let storage = Storage::create(config, Arc::new(OsVfs::new()))?;
    let wl = Workload::create(&storage, "bench/fix.ibd", PAGES)?;
    let pool = storage.pool();
    // Spread the per-thread pages apart so they share no cache lines.
    let ids: Vec<PageId> = wl.pages.iter().map(|&p| PageId::new(wl.space, p)).collect();
    let own = [ids[0], ids[PAGES / 2]];
    for &id in &ids {
        drop(pool.fix(id, Latch::Shared)?);
    }
    let ops: u64 = mode.pick(1_000_000, 5_000_000);
    for case in CASES {
        let samples = repeat(mode, || {
            let (secs, _) = run_parallel(case.threads, |t| {
                for i in 0..ops {
                    let id = match case.pages {
                        Pages::Same => own[0],
                        Pages::Own => own[t],
                        // A stride co-prime with 1024 visits every page in turn.
                        Pages::All => ids[(i as usize * 7 + t * 511) % PAGES],
                    };
                    let g = pool.fix(black_box(id), case.latch)?;
                    black_box(g.data()[100]);
                }
                Ok(())
            })?;
            Ok(secs)
        })?;
        let ns: Vec<f64> = samples.iter().map(|s| s * 1e9 / ops as f64).collect();
        report.add(
            case.name,
            median(&ns),
            "ns/op",
            format!("{}; {}", case.notes, spread(&ns)),
        );
        if case.threads > 1 {
            let mops: Vec<f64> = samples
                .iter()
                .map(|s| (case.threads as u64 * ops) as f64 / s / 1e6)
                .collect();
            report.add(
                format!("{}.total", case.name),
                median(&mops),
                "Mops/s",
                format!("both threads together; {}", spread(&mops)),
            );
        }
    }
    storage.close()?;
    Ok(())
}
