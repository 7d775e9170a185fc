//! Off-page column values: chains of `PageType::Overflow` pages.
//!
//! A long value (DYNAMIC style: the whole value) is stored in a singly linked
//! chain of pages allocated from a segment of the table's tablespace (normally
//! the clustered index's leaf segment); the record keeps only a 20-byte
//! [`ExternRef`] (space, first page, offset of the data header, length).
//!
//! Overflow page layout (page integers little-endian, see `docs/row-format.md`):
//! ```text
//! header.prev      previous page of the chain (FIL_NULL on the first)
//! header.next      next page of the chain (FIL_NULL on the last)
//! header.reserved  u64: position in the value of this page's first data byte
//! 40  u32 data_len bytes of value data on this page
//! 44  ...          data; every page but the last is full (page_capacity bytes)
//! ```
//!
//! Invariants and handles:
//! - every function takes the `&BufferPool` (from `Storage::pool()`) and runs
//!   its own mini-transactions with `Mtr::start(pool)`; none is called inside a
//!   caller's mini-transaction;
//! - [`store`] writes at most [`MTR_DATA_BUDGET`] bytes of value data per
//!   mini-transaction (so one mtr's redo stays ~16 KiB, a 64k page is written
//!   in several), commits each, and returns only when the whole chain is
//!   written: write the record that points to the chain afterwards, and its
//!   durability implies the chain's (LSN order). A store cut short by a crash
//!   leaves its committed pages allocated and unreferenced in the segment
//!   (leaked until the segment is dropped), never a reference to a partial
//!   chain; a store that fails frees the pages it allocated;
//! - [`read`] S-latches one page at a time and checks page type, position,
//!   lengths and chain length; any mismatch is `EngineError::Corruption` naming
//!   the page;
//! - [`free`] frees the chain from its tail towards its head, cutting the chain
//!   (`next = FIL_NULL` on the new last page) in the same mini-transaction, so
//!   after a crash the reference still names a valid (shorter) chain and
//!   calling `free` again completes the job; freed pages are retyped
//!   `Allocated` so a dangling reference is detected as corruption;
//! - [`check_chain`] verifies a chain without changing anything (`larch check`).

#[cfg(test)]
mod tests;

pub use crate::record::row::ExternRef;

use crate::buffer::{BufferPool, Latch};
use crate::error::{EngineError, Result};
use crate::mtr::Mtr;
use crate::page::{
    bytes, offset, PageHeader, PageId, PageSize, PageType, FIL_NULL, HEADER_SIZE, TRAILER_SIZE,
};
use crate::space::alloc::{self, SegmentRef};

/// Offset of the page's data length (u32 LE).
pub const DATA_LEN_OFFSET: usize = HEADER_SIZE;
/// Offset of the page's first data byte.
pub const DATA_OFFSET: usize = HEADER_SIZE + 4;
/// Header field holding the position of the page's data within the value (u64 LE).
pub const VALUE_POS_OFFSET: usize = offset::RESERVED;
/// Most bytes of value data one mini-transaction of [`store`] writes.
pub const MTR_DATA_BUDGET: usize = 16 << 10;
/// Pages one mini-transaction of [`free`] frees.
pub const FREE_BATCH: usize = 32;
/// Longest value that can be stored (LONGBLOB's maximum).
pub const MAX_VALUE_LEN: u64 = u32::MAX as u64;

/// Bytes of value data one overflow page holds.
pub const fn page_capacity(page_size: PageSize) -> usize {
    page_size.bytes() - DATA_OFFSET - TRAILER_SIZE
}

/// Pages a value of `len` bytes occupies (an empty value still has one page).
pub fn pages_for(len: u64, page_size: PageSize) -> u64 {
    len.div_ceil(page_capacity(page_size) as u64).max(1)
}

fn corruption(pool: &BufferPool, id: PageId, reason: impl Into<String>) -> EngineError {
    let path = pool
        .spaces()
        .get(id.space)
        .map(|f| pool.spaces().path_of(&f.name))
        .unwrap_or_default();
    EngineError::Corruption {
        path,
        page: id,
        reason: reason.into(),
    }
}

/// Stores `data` off-page in a new chain of pages of segment `seg` in `space`.
/// See the module documentation for the mini-transaction policy.
pub fn store(pool: &BufferPool, space: u32, seg: SegmentRef, data: &[u8]) -> Result<ExternRef> {
    if data.len() as u64 > MAX_VALUE_LEN {
        return Err(EngineError::Internal(format!(
            "off-page value of {} bytes exceeds the maximum of {MAX_VALUE_LEN}",
            data.len()
        )));
    }
    let mut allocated: Vec<u32> = Vec::new();
    match store_inner(pool, space, seg, data, &mut allocated) {
        Ok(first_page) => Ok(ExternRef {
            space,
            first_page,
            offset: DATA_LEN_OFFSET as u32,
            len: data.len() as u64,
        }),
        Err(e) => {
            if let Err(e2) = free_pages(pool, space, seg, &allocated) {
                tracing::warn!(space, error = %e2, pages = allocated.len(),
                    "could not free the pages of a failed off-page store; they stay allocated");
            }
            Err(e)
        }
    }
}

fn store_inner(
    pool: &BufferPool,
    space: u32,
    seg: SegmentRef,
    data: &[u8],
    allocated: &mut Vec<u32>,
) -> Result<u32> {
    let cap = page_capacity(pool.page_size());
    let len = data.len();
    let mut pos = 0usize;
    // The page being filled and how many bytes it has.
    let mut cur: Option<(u32, usize)> = None;
    // A page allocated for the next chunk, linked from the previous page.
    let mut lookahead: Option<u32> = None;
    let mut prev = FIL_NULL;
    loop {
        let mut mtr = Mtr::start(pool)?;
        let mut budget = MTR_DATA_BUDGET;
        let mut done = false;
        while budget > 0 {
            let (page_no, filled, pr) = match cur {
                Some((p, filled)) => (
                    p,
                    filled,
                    mtr.page(PageId::new(space, p), Latch::Exclusive)?,
                ),
                None => {
                    let p = match lookahead.take() {
                        Some(p) => p,
                        None => {
                            let p = alloc::alloc_segment_page(&mut mtr, space, seg)?;
                            allocated.push(p);
                            p
                        }
                    };
                    let pr = mtr.new_page(PageId::new(space, p), PageType::Overflow)?;
                    mtr.write_u32(pr, offset::PREV, prev);
                    mtr.write_u64(pr, VALUE_POS_OFFSET, pos as u64);
                    (p, 0, pr)
                }
            };
            let chunk = (cap - filled).min(len - pos).min(budget);
            mtr.write_bytes(pr, DATA_OFFSET + filled, &data[pos..pos + chunk]);
            let filled = filled + chunk;
            mtr.write_u32(pr, DATA_LEN_OFFSET, filled as u32);
            pos += chunk;
            budget -= chunk;
            if pos == len {
                done = true;
                break;
            }
            if filled == cap {
                let next = alloc::alloc_segment_page(&mut mtr, space, seg)?;
                allocated.push(next);
                mtr.write_u32(pr, offset::NEXT, next);
                lookahead = Some(next);
                prev = page_no;
                cur = None;
            } else {
                cur = Some((page_no, filled));
            }
        }
        mtr.commit()?;
        if done {
            break;
        }
    }
    allocated
        .first()
        .copied()
        .ok_or_else(|| EngineError::Internal("off-page store allocated no page".into()))
}

/// Frees `pages` (no chain walk), in batches; used to undo a failed store.
fn free_pages(pool: &BufferPool, space: u32, seg: SegmentRef, pages: &[u32]) -> Result<()> {
    for batch in pages.chunks(FREE_BATCH) {
        let mut mtr = Mtr::start(pool)?;
        for &p in batch {
            alloc::free_segment_page(&mut mtr, space, seg, p)?;
        }
        mtr.commit()?;
    }
    Ok(())
}

/// How strictly a chain walk treats a chain that ends before the value does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Every byte of the value must be there.
    Strict,
    /// A chain cut short by an interrupted [`free`] is accepted.
    AllowShort,
}

/// Walks the chain of `r`, appending up to `want` bytes of data to `out` (if
/// given) and the page numbers to `pages`. Stops early once `want` bytes are
/// read (`want < r.len`).
fn walk(
    pool: &BufferPool,
    r: &ExternRef,
    mode: Mode,
    want: u64,
    mut out: Option<&mut Vec<u8>>,
    pages: &mut Vec<u32>,
) -> Result<()> {
    let first = PageId::new(r.space, r.first_page);
    if r.offset as usize != DATA_LEN_OFFSET {
        return Err(corruption(
            pool,
            first,
            format!(
                "off-page reference has data offset {}, expected {DATA_LEN_OFFSET}",
                r.offset
            ),
        ));
    }
    if r.len > MAX_VALUE_LEN || r.first_page == FIL_NULL {
        return Err(corruption(
            pool,
            first,
            format!(
                "off-page reference is invalid (length {}, first page {})",
                r.len, r.first_page
            ),
        ));
    }
    let ps = pool.page_size();
    let cap = page_capacity(ps) as u64;
    let expected_pages = pages_for(r.len, ps);
    let mut pos = 0u64;
    let mut page_no = r.first_page;
    loop {
        let id = PageId::new(r.space, page_no);
        if pages.len() as u64 >= expected_pages {
            return Err(corruption(
                pool,
                id,
                format!("off-page chain from page {} is longer than the {expected_pages} pages of its {}-byte value (a cycle?)", r.first_page, r.len),
            ));
        }
        let guard = pool.fix(id, Latch::Shared)?;
        let d = guard.data();
        let h = PageHeader(d);
        if h.page_type() != Some(PageType::Overflow) {
            return Err(corruption(
                pool,
                id,
                format!(
                    "page of the off-page chain from page {} has type {}, not Overflow",
                    r.first_page,
                    h.page_type_raw()
                ),
            ));
        }
        let at = bytes::get_u64(d, VALUE_POS_OFFSET);
        if at != pos {
            return Err(corruption(
                pool,
                id,
                format!("overflow page holds value bytes from {at}, expected {pos} (chain from page {})", r.first_page),
            ));
        }
        let n = u64::from(bytes::get_u32(d, DATA_LEN_OFFSET));
        let next = h.next();
        if n > cap || pos + n > r.len || (n == 0 && r.len > 0) {
            return Err(corruption(
                pool,
                id,
                format!("overflow page has {n} data bytes at value position {pos} (capacity {cap}, value length {})", r.len),
            ));
        }
        if next != FIL_NULL && n != cap {
            return Err(corruption(
                pool,
                id,
                format!("overflow page with a successor holds {n} bytes, not the full {cap}"),
            ));
        }
        if let Some(buf) = out.as_deref_mut() {
            let take = n.min(want.saturating_sub(pos)) as usize;
            buf.extend_from_slice(&d[DATA_OFFSET..DATA_OFFSET + take]);
        }
        pos += n;
        pages.push(page_no);
        drop(guard);
        if pos >= want && want < r.len {
            return Ok(());
        }
        if next == FIL_NULL {
            if pos != r.len && mode == Mode::Strict {
                return Err(corruption(
                    pool,
                    id,
                    format!(
                        "off-page chain from page {} ends after {pos} of {} bytes",
                        r.first_page, r.len
                    ),
                ));
            }
            return Ok(());
        }
        if pos == r.len {
            return Err(corruption(
                pool,
                id,
                format!(
                    "off-page chain continues past the end of its {}-byte value",
                    r.len
                ),
            ));
        }
        page_no = next;
    }
}

/// Reads a whole off-page value.
pub fn read(pool: &BufferPool, r: &ExternRef) -> Result<Vec<u8>> {
    read_prefix(pool, r, r.len)
}

/// Reads the first `max_bytes` bytes of an off-page value (all of it if shorter),
/// visiting only the pages needed.
pub fn read_prefix(pool: &BufferPool, r: &ExternRef, max_bytes: u64) -> Result<Vec<u8>> {
    let want = max_bytes.min(r.len);
    // Never trust a (possibly corrupt) length for a big up-front allocation.
    let mut out = Vec::with_capacity(want.min(64 << 20) as usize);
    let mut pages = Vec::new();
    walk(pool, r, Mode::Strict, want, Some(&mut out), &mut pages)?;
    Ok(out)
}

/// The pages of the chain of `r`, in chain order (validated as by [`read`]).
pub fn chain_pages(pool: &BufferPool, r: &ExternRef) -> Result<Vec<u32>> {
    let mut pages = Vec::new();
    walk(pool, r, Mode::Strict, r.len, None, &mut pages)?;
    Ok(pages)
}

/// Returns the pages of the chain of `r` to segment `seg` (in `r.space`), in
/// mini-transactions of at most [`FREE_BATCH`] pages. Restartable after a
/// crash (see the module documentation).
pub fn free(pool: &BufferPool, seg: SegmentRef, r: &ExternRef) -> Result<()> {
    let mut pages = Vec::new();
    walk(pool, r, Mode::AllowShort, r.len, None, &mut pages)?;
    let mut end = pages.len();
    while end > 0 {
        let start = end.saturating_sub(FREE_BATCH);
        free_tail(pool, r.space, seg, &pages, start, end)?;
        end = start;
    }
    Ok(())
}

/// Frees the last (at most [`FREE_BATCH`]) pages of the chain of `r` in one
/// mini-transaction, for bounded work per call (purge). Returns `Ok(true)`
/// once the whole chain is freed; calling it again after that is an error.
pub fn free_step(pool: &BufferPool, seg: SegmentRef, r: &ExternRef) -> Result<bool> {
    let mut pages = Vec::new();
    walk(pool, r, Mode::AllowShort, r.len, None, &mut pages)?;
    let end = pages.len();
    let start = end.saturating_sub(FREE_BATCH);
    free_tail(pool, r.space, seg, &pages, start, end)?;
    Ok(start == 0)
}

/// One mini-transaction: cuts the chain before `pages[start]` and frees
/// `pages[start..end]` (the chain's current tail).
fn free_tail(
    pool: &BufferPool,
    space: u32,
    seg: SegmentRef,
    pages: &[u32],
    start: usize,
    end: usize,
) -> Result<()> {
    let mut mtr = Mtr::start(pool)?;
    // Latch chain pages in chain order, before the allocator's pages, and do
    // every fallible fix before the first change.
    let tail = match start {
        0 => None,
        _ => Some(mtr.page(PageId::new(space, pages[start - 1]), Latch::Exclusive)?),
    };
    let mut batch = Vec::with_capacity(end - start);
    for &p in &pages[start..end] {
        batch.push(mtr.page(PageId::new(space, p), Latch::Exclusive)?);
    }
    if let Some(t) = tail {
        mtr.write_u32(t, offset::NEXT, FIL_NULL);
    }
    for pr in batch {
        mtr.write_u16(pr, offset::PAGE_TYPE, PageType::Allocated as u16);
    }
    for &p in pages[start..end].iter().rev() {
        alloc::free_segment_page(&mut mtr, space, seg, p)?;
    }
    mtr.commit()?;
    Ok(())
}

/// Verifies the chain of `r` for `larch check`: page types, positions, data
/// lengths adding up to the value's length, no cycle, every page marked used
/// in its tablespace. Returns the problems found (empty = healthy); only I/O
/// and internal errors are `Err`. Changes nothing.
pub fn check_chain(pool: &BufferPool, r: &ExternRef) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    let mut pages = Vec::new();
    match walk(pool, r, Mode::Strict, r.len, None, &mut pages) {
        Ok(()) => {}
        Err(e) if e.is_corruption() => problems.push(e.to_string()),
        Err(e) => return Err(e),
    }
    for batch in pages.chunks(256) {
        let mut mtr = Mtr::start(pool)?;
        for &p in batch {
            if !alloc::page_is_used(&mut mtr, r.space, p)? {
                problems.push(format!(
                    "overflow page {} of the chain from page {} is marked free in its tablespace",
                    PageId::new(r.space, p),
                    r.first_page
                ));
            }
        }
        mtr.commit()?;
    }
    Ok(problems)
}
