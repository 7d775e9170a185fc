//! `larch check`: verify every page of every tablespace.
//!
//! After flushing the buffer pool, every page of every file is read straight from
//! disk and verified (checksum, torn-write trailer, identity, page type), and each
//! tablespace's allocation structures are checked (free lists, extent states,
//! segments), and every B+tree, found by the root flag of its root page, is
//! verified (key order, bounds, levels, sibling links, space accounting).
//! Nothing is repaired; every problem names its file and page.

use std::collections::BTreeMap;

use super::Storage;
use crate::error::Result;
use crate::io::AlignedBuf;
use crate::page::{self, PageHeader, PageId, PageState};
use crate::space::alloc;

/// Result of checking one tablespace.
#[derive(Debug, Clone, Default)]
pub struct SpaceCheck {
    pub space: u32,
    pub name: String,
    pub pages: u32,
    pub valid: u32,
    /// Never-written pages (free space at the end of extents).
    pub zero: u32,
    /// Valid pages by page type name.
    pub by_type: BTreeMap<String, u32>,
    /// Every problem found, each naming the page.
    pub problems: Vec<String>,
    /// B+trees found (by their root pages) and verified.
    pub btrees: u32,
}

/// Result of checking a data directory.
#[derive(Debug, Clone, Default)]
pub struct CheckReport {
    pub spaces: Vec<SpaceCheck>,
}

impl CheckReport {
    /// True when no problem was found.
    pub fn is_clean(&self) -> bool {
        self.spaces.iter().all(|s| s.problems.is_empty())
    }
    /// Every problem, prefixed with its file.
    pub fn problems(&self) -> Vec<String> {
        self.spaces
            .iter()
            .flat_map(|s| s.problems.iter().map(move |p| format!("{}: {p}", s.name)))
            .collect()
    }
}

pub(super) fn run(storage: &Storage) -> Result<CheckReport> {
    storage.flush_all()?;
    let spaces = storage.spaces();
    let ps = storage.page_size().bytes();
    let mut buf = AlignedBuf::zeroed(ps);
    let mut report = CheckReport::default();
    for id in spaces.ids() {
        let sf = spaces.get(id)?;
        let mut sc = SpaceCheck {
            space: id,
            name: sf.name.clone(),
            pages: sf.size_pages(),
            ..SpaceCheck::default()
        };
        let mut zero_pages = Vec::new();
        let mut roots = Vec::new();
        for p in 0..sf.size_pages() {
            let pid = PageId::new(id, p);
            if let Err(e) = spaces.read_page(pid, &mut buf) {
                sc.problems.push(format!("page {p}: read failed: {e}"));
                continue;
            }
            match page::verify(&buf, pid) {
                PageState::Valid => {
                    sc.valid += 1;
                    let ty = PageHeader(&buf)
                        .page_type()
                        .map_or_else(|| "unknown".to_string(), |t| format!("{t:?}"));
                    *sc.by_type.entry(ty).or_default() += 1;
                    if PageHeader(&buf).page_type() == Some(crate::page::PageType::Index)
                        && crate::btree::node::Node(&buf).is_root()
                    {
                        roots.push(p);
                    }
                }
                PageState::Zero => {
                    sc.zero += 1;
                    zero_pages.push(p);
                }
                PageState::Corrupt(reason) => sc.problems.push(format!("page {p}: {reason}")),
            }
        }
        let mut mtr = storage.mtr()?;
        match alloc::check_space(&mut mtr, id) {
            Ok(problems) => sc.problems.extend(problems),
            Err(e) => sc
                .problems
                .push(format!("allocation structures unreadable: {e}")),
        }
        for p in zero_pages {
            if alloc::page_is_used(&mut mtr, id, p).unwrap_or(false) {
                sc.problems
                    .push(format!("page {p}: allocated but never written"));
            }
        }
        // A freed tree's root keeps its image until the page is reused.
        let mut live_roots = Vec::with_capacity(roots.len());
        for root in roots {
            if alloc::page_is_used(&mut mtr, id, root).unwrap_or(true) {
                live_roots.push(root);
            }
        }
        mtr.commit()?;
        for root in live_roots {
            match crate::btree::BTree::open(storage.pool(), id, root)
                .and_then(|t| crate::btree::check::check(&t, storage.pool()))
            {
                Ok(problems) => sc.problems.extend(
                    problems
                        .into_iter()
                        .map(|p| format!("B+tree rooted at page {root}: {p}")),
                ),
                Err(e) => sc
                    .problems
                    .push(format!("B+tree rooted at page {root}: {e}")),
            }
            sc.btrees += 1;
        }
        report.spaces.push(sc);
    }
    Ok(report)
}

/// Verifies every page of every tablespace file straight from disk without
/// opening the directory (no recovery, no lock): for `larch check` when opening
/// fails, or for a directory another process holds. Allocation structures are not
/// checked here.
pub fn scan_offline(
    vfs: &dyn crate::io::Vfs,
    datadir: &std::path::Path,
    page_size: crate::page::PageSize,
) -> Result<CheckReport> {
    use crate::io::OpenOptions;
    let mut names: Vec<String> = Vec::new();
    for name in vfs.list_dir(datadir)? {
        let s = name.to_string_lossy().to_string();
        if s == crate::space::SYSTEM_FILE || (s.starts_with("undo") && s.len() == 7) {
            names.push(s);
        } else if let Ok(inner) = vfs.list_dir(&datadir.join(&name)) {
            names.extend(
                inner
                    .iter()
                    .map(|i| i.to_string_lossy().to_string())
                    .filter(|i| i.ends_with(".ibd"))
                    .map(|i| format!("{s}/{i}")),
            );
        }
    }
    let ps = page_size.bytes();
    let mut buf = AlignedBuf::zeroed(ps);
    let mut report = CheckReport::default();
    for name in names {
        let f = vfs.open(&datadir.join(&name), OpenOptions::read_only())?;
        let pages = (f.len()? / ps as u64) as u32;
        let mut sc = SpaceCheck {
            name: name.clone(),
            pages,
            ..SpaceCheck::default()
        };
        if pages > 0 {
            f.read_at(&mut buf, 0)?;
            sc.space = PageHeader(&buf).space_id();
        }
        for p in 0..pages {
            f.read_at(&mut buf, u64::from(p) * ps as u64)?;
            match page::verify(&buf, PageId::new(sc.space, p)) {
                PageState::Valid => {
                    sc.valid += 1;
                    let ty = PageHeader(&buf)
                        .page_type()
                        .map_or_else(|| "unknown".to_string(), |t| format!("{t:?}"));
                    *sc.by_type.entry(ty).or_default() += 1;
                }
                PageState::Zero => sc.zero += 1,
                PageState::Corrupt(reason) => sc.problems.push(format!("page {p}: {reason}")),
            }
        }
        report.spaces.push(sc);
    }
    Ok(report)
}

/// Reads the page size a data directory was created with (from `ibdata1`).
pub fn detect_page_size(
    vfs: &dyn crate::io::Vfs,
    datadir: &std::path::Path,
) -> Result<crate::page::PageSize> {
    Storage::detect_page_size(vfs, &datadir.join(crate::space::SYSTEM_FILE))
}
