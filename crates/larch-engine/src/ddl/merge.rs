//! Merging sorted runs of one index into one key-ordered stream.
//!
//! At most `fan_in` runs are read at once, each through a buffer of
//! `buffer` bytes, so a merge holds `fan_in * buffer` bytes of input
//! whatever the number of runs. With more runs than that, groups of
//! `fan_in` runs are first merged into longer runs in new temporary files
//! (passes repeat until `fan_in` or fewer remain), as an external merge
//! sort does. Equal keys come out in run order.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::Path;

use super::run_file::{Run, RunReader, RunWriter, TempFile};
use crate::error::Result;

/// How a merge uses memory.
#[derive(Debug, Clone, Copy)]
pub struct MergeShape {
    /// Runs read at once (at least 2).
    pub fan_in: usize,
    /// Read buffer per run, in bytes.
    pub buffer: usize,
}

impl MergeShape {
    /// The shape that keeps a merge's buffers within `budget` bytes: reads
    /// of at least 16 KiB, as many runs at once as that allows.
    pub fn within(budget: usize) -> MergeShape {
        const MIN_READ: usize = 16 << 10;
        let fan_in = (budget / MIN_READ).clamp(2, 256);
        MergeShape {
            fan_in,
            buffer: (budget / fan_in).max(MIN_READ),
        }
    }
}

/// The head entry of one run in the merge.
struct Head {
    reader: RunReader,
    flags: u8,
    value: Vec<u8>,
}

/// Merges `runs` into one stream given to `sink` as `(flags, key, value)`.
/// `dir` holds the files of intermediate passes.
pub fn merge_runs(
    mut runs: Vec<Run>,
    shape: MergeShape,
    dir: &Path,
    sink: &mut dyn FnMut(u8, &[u8], &[u8]) -> Result<()>,
) -> Result<()> {
    let fan_in = shape.fan_in.max(2);
    while runs.len() > fan_in {
        let mut longer = Vec::with_capacity(runs.len().div_ceil(fan_in));
        let mut rest = runs.into_iter().peekable();
        while rest.peek().is_some() {
            let group: Vec<Run> = rest.by_ref().take(fan_in).collect();
            if group.len() == 1 {
                longer.extend(group);
                continue;
            }
            let file = TempFile::create(dir)?;
            let mut w = RunWriter::new(file, 0, shape.buffer);
            merge_group(group, shape.buffer, &mut |flags, key, value| {
                w.push(flags, key, value)
            })?;
            let run = w.end_run();
            w.flush()?;
            longer.push(run);
        }
        runs = longer;
    }
    merge_group(runs, shape.buffer, sink)
}

/// One k-way merge of at most `fan_in` runs.
fn merge_group(
    runs: Vec<Run>,
    buffer: usize,
    sink: &mut dyn FnMut(u8, &[u8], &[u8]) -> Result<()>,
) -> Result<()> {
    let mut heads = Vec::with_capacity(runs.len());
    // (key, run number), smallest first.
    let mut heap: BinaryHeap<Reverse<(Vec<u8>, usize)>> = BinaryHeap::with_capacity(runs.len());
    for run in runs {
        let mut head = Head {
            reader: RunReader::new(run, buffer),
            flags: 0,
            value: Vec::new(),
        };
        let mut key = Vec::new();
        if advance(&mut head, &mut key)? {
            heap.push(Reverse((key, heads.len())));
        }
        heads.push(head);
    }
    while let Some(Reverse((mut key, i))) = heap.pop() {
        let head = &mut heads[i];
        sink(head.flags, &key, &head.value)?;
        if advance(head, &mut key)? {
            heap.push(Reverse((key, i)));
        }
    }
    Ok(())
}

/// Reads the next entry of `head`'s run into `key` and the head.
fn advance(head: &mut Head, key: &mut Vec<u8>) -> Result<bool> {
    let Some(e) = head.reader.next()? else {
        return Ok(false);
    };
    key.clear();
    key.extend_from_slice(e.key);
    head.flags = e.flags;
    head.value.clear();
    head.value.extend_from_slice(e.value);
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs of interleaved keys merge into one ordered stream, through
    /// intermediate passes when there are more runs than the fan-in.
    #[test]
    fn many_runs_merge_in_order_through_passes() -> Result<()> {
        let dir = std::env::temp_dir();
        let file = TempFile::create(&dir)?;
        let mut w = RunWriter::new(file, 0, 4096);
        let mut runs = Vec::new();
        for r in 0..23u32 {
            for i in 0..40u32 {
                let k = (i * 23 + r).to_be_bytes();
                w.push(0, &k, &r.to_le_bytes())?;
            }
            runs.push(w.end_run());
        }
        w.flush()?;
        for fan_in in [2, 5, 64] {
            let mut got = Vec::new();
            let shape = MergeShape { fan_in, buffer: 64 };
            merge_runs(runs.clone(), shape, &dir, &mut |_, k, v| {
                let key = u32::from_be_bytes([k[0], k[1], k[2], k[3]]);
                assert_eq!(key % 23, u32::from_le_bytes([v[0], v[1], v[2], v[3]]));
                got.push(key);
                Ok(())
            })?;
            assert_eq!(got, (0..23 * 40).collect::<Vec<_>>(), "fan-in {fan_in}");
        }
        Ok(())
    }
}
