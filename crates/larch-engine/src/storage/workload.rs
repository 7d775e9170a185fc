//! A deterministic multi-page workload for crash tests, benchmarks and `larch`.
//!
//! Mini-transaction `n` (n = 1, 2, ...) changes 1-4 pages chosen by a generator
//! seeded with `n`: on each it records `n` as the page's last change, stores `n`
//! in slot `n % SLOTS`, fills a small range with a byte derived from `n` and
//! copies the slot area elsewhere in the page. Because the changes are a pure
//! function of `n`, the expected content of every page after mtrs `1..=m` can be
//! recomputed, and recovery can be checked exactly: after a crash the pages must
//! equal the state after some prefix `1..=m`, with `m` at least the last mtr that
//! was reported durable (atomic and durable mini-transactions).
//!
//! Pages are self-describing (type `Test`, their index at body offset 40), so a
//! verifier needs nothing but the tablespace.

use rand::{Rng, SeedableRng};

use super::Storage;
use crate::buffer::Latch;
use crate::error::{EngineError, Result};
use crate::page::{bytes, PageId, PageType, HEADER_SIZE};
use crate::space::alloc;

const OFF_INDEX: usize = HEADER_SIZE; // u32 index of the page in the workload
const OFF_LAST: usize = HEADER_SIZE + 8; // u64 last mtr that changed the page
const OFF_SLOTS: usize = HEADER_SIZE + 16;
const SLOTS: usize = 32;
const OFF_FILL: usize = OFF_SLOTS + SLOTS * 8 + 64;
const FILL_MAX: usize = 200;
const OFF_COPY: usize = OFF_FILL + FILL_MAX + 16;
/// Bytes of each page the workload owns (from the body start).
const MODEL_BYTES: usize = OFF_COPY + SLOTS * 8 + 8;

/// The workload's pages inside one tablespace.
#[derive(Debug, Clone)]
pub struct Workload {
    pub space: u32,
    /// Page numbers, by workload index.
    pub pages: Vec<u32>,
}

/// What one mtr does to one page.
fn plan(n: u64, page_count: usize) -> Vec<(usize, u8, usize)> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(n.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let k = 1 + rng.random_range(0..4usize).min(page_count - 1);
    let mut chosen: Vec<usize> = Vec::with_capacity(k);
    while chosen.len() < k {
        let p = rng.random_range(0..page_count);
        if !chosen.contains(&p) {
            chosen.push(p);
        }
    }
    chosen
        .into_iter()
        .map(|p| (p, rng.random::<u8>(), rng.random_range(1..FILL_MAX)))
        .collect()
}

/// Applies mtr `n`'s change to an in-memory page image (the model).
fn apply_model(page: &mut [u8], n: u64, fill_byte: u8, fill_len: usize) {
    bytes::put_u64(page, OFF_LAST, n);
    bytes::put_u64(page, OFF_SLOTS + (n as usize % SLOTS) * 8, n);
    page[OFF_FILL..OFF_FILL + fill_len].fill(fill_byte);
    page.copy_within(OFF_SLOTS..OFF_SLOTS + SLOTS * 8, OFF_COPY);
}

impl Workload {
    /// Creates the tablespace `name` with `page_count` workload pages.
    pub fn create(storage: &Storage, name: &str, page_count: usize) -> Result<Self> {
        let space = storage.create_tablespace(name)?;
        let mut pages = Vec::with_capacity(page_count);
        for chunk in 0..page_count.div_ceil(16) {
            let mut mtr = storage.mtr()?;
            for i in chunk * 16..((chunk + 1) * 16).min(page_count) {
                let p = alloc::alloc_page(&mut mtr, space)?;
                let r = mtr.new_page(PageId::new(space, p), PageType::Test)?;
                mtr.write_u32(r, OFF_INDEX, i as u32);
                pages.push(p);
            }
            let end = mtr.commit()?;
            storage.log().flush_up_to(end)?;
        }
        Ok(Self { space, pages })
    }

    /// Finds the workload pages of `space` (pages of type `Test`).
    pub fn find(storage: &Storage, space: u32) -> Result<Self> {
        let size = storage.spaces().size_pages(space)?;
        let mut found: Vec<(u32, u32)> = Vec::new();
        for p in 0..size {
            let mtr_used = {
                let mut mtr = storage.mtr()?;
                let used = alloc::page_is_used(&mut mtr, space, p)?;
                mtr.commit()?;
                used
            };
            if !mtr_used {
                continue;
            }
            let g = storage.pool().fix(PageId::new(space, p), Latch::Shared)?;
            let h = crate::page::PageHeader(g.data());
            if h.page_type() == Some(PageType::Test) {
                found.push((bytes::get_u32(g.data(), OFF_INDEX), p));
            }
        }
        found.sort_unstable();
        if found
            .iter()
            .enumerate()
            .any(|(i, &(idx, _))| idx as usize != i)
        {
            return Err(EngineError::Internal(format!(
                "workload pages of space {space} are not a contiguous index set: {found:?}"
            )));
        }
        Ok(Self {
            space,
            pages: found.into_iter().map(|(_, p)| p).collect(),
        })
    }

    /// Runs mtr `n` (one atomic change to 1-4 pages). Returns its end LSN.
    pub fn run_mtr(&self, storage: &Storage, n: u64) -> Result<u64> {
        let mut steps = plan(n, self.pages.len());
        // Latch in page order, like every multi-page operation must.
        steps.sort_by_key(|s| self.pages[s.0]);
        let mut mtr = storage.mtr()?;
        let refs: Vec<_> = steps
            .iter()
            .map(|s| mtr.page(PageId::new(self.space, self.pages[s.0]), Latch::Exclusive))
            .collect::<Result<_>>()?;
        for (r, &(_, byte, len)) in refs.into_iter().zip(&steps) {
            mtr.write_u64(r, OFF_LAST, n);
            mtr.write_u64(r, OFF_SLOTS + (n as usize % SLOTS) * 8, n);
            mtr.memset(r, OFF_FILL, len, byte);
            mtr.memmove(r, OFF_COPY, OFF_SLOTS, SLOTS * 8);
        }
        mtr.commit()
    }

    /// The highest mtr number found on any page (the prefix recovered).
    pub fn last_applied(&self, storage: &Storage) -> Result<u64> {
        let mut m = 0;
        for &p in &self.pages {
            let g = storage
                .pool()
                .fix(PageId::new(self.space, p), Latch::Shared)?;
            m = m.max(bytes::get_u64(g.data(), OFF_LAST));
        }
        Ok(m)
    }

    /// Checks that the pages hold exactly the state after mtrs `1..=m`, where `m`
    /// is [`Self::last_applied`]. Returns `m`.
    pub fn verify(&self, storage: &Storage) -> Result<u64> {
        let m = self.last_applied(storage)?;
        let mut model: Vec<Vec<u8>> = (0..self.pages.len())
            .map(|i| {
                let mut v = vec![0u8; MODEL_BYTES];
                bytes::put_u32(&mut v, OFF_INDEX, i as u32);
                v
            })
            .collect();
        for n in 1..=m {
            for (p, byte, len) in plan(n, self.pages.len()) {
                apply_model(&mut model[p], n, byte, len);
            }
        }
        for (i, &p) in self.pages.iter().enumerate() {
            let g = storage
                .pool()
                .fix(PageId::new(self.space, p), Latch::Shared)?;
            let got = &g.data()[..MODEL_BYTES];
            if got[HEADER_SIZE..] != model[i][HEADER_SIZE..] {
                let at = (HEADER_SIZE..MODEL_BYTES)
                    .find(|&o| got[o] != model[i][o])
                    .unwrap_or(0);
                return Err(EngineError::Internal(format!(
                    "page {} (workload page {i}) differs from the state after mtr {m} at byte {at}: \
                     last change on page is {}",
                    PageId::new(self.space, p),
                    bytes::get_u64(got, OFF_LAST)
                )));
            }
        }
        Ok(m)
    }
}
