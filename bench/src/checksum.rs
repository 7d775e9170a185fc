//! CRC32C page checksum throughput per page size.
//!
//! One operation is [`page_checksum`] over one page image (CRC32C of bytes
//! `[4, page_size - 8)`, computed with the CPU's CRC instructions by `crc-fast`),
//! the work done for every page read from disk and every page written. Pages are
//! filled with pseudo-random bytes and cycled through a 4 MiB buffer (fits in the
//! last-level cache of most machines, as a page just read or about to be written
//! usually does). GB/s counts whole pages (10^9 B/s).

use std::hint::black_box;
use std::time::Instant;

use larch_engine::page::{page_checksum, PageSize};

use crate::harness::{median, repeat, spread, Mode, Report, Result};

const BUFFER: usize = 4 << 20;

pub fn run(report: &mut Report, mode: Mode) -> Result<()> {
    let mut buf = vec![0u8; BUFFER];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for b in &mut buf {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    let bytes_per_run: usize = mode.pick(256 << 20, 1 << 30);
    for ps in PageSize::ALL {
        let size = ps.bytes();
        let pages_in_buf = BUFFER / size;
        let iters = bytes_per_run / size;
        let samples = repeat(mode, || {
            let t0 = Instant::now();
            let mut acc = 0u32;
            for i in 0..iters {
                let off = (i % pages_in_buf) * size;
                acc ^= page_checksum(black_box(&buf[off..off + size]));
            }
            black_box(acc);
            Ok(t0.elapsed().as_secs_f64())
        })?;
        let ns: Vec<f64> = samples.iter().map(|s| s * 1e9 / iters as f64).collect();
        let gbs: Vec<f64> = samples
            .iter()
            .map(|s| (iters * size) as f64 / s / 1e9)
            .collect();
        let k = size / 1024;
        report.add(
            format!("crc32c.page.{k}k"),
            median(&ns),
            "ns/page",
            spread(&ns),
        );
        report.add(
            format!("crc32c.page.{k}k.throughput"),
            median(&gbs),
            "GB/s",
            spread(&gbs),
        );
    }
    Ok(())
}
