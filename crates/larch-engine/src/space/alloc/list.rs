//! Doubly linked on-page lists (InnoDB's `flst`), generic over what they link.
//!
//! A list has a *base node* (length u32, first u32, last u32) at some
//! [`Addr`] and threads through *nodes* (prev u32, next u32) embedded in the
//! items. Links are item numbers, not byte addresses: for [`Kind::Extent`] an
//! extent number (the node lives in that extent's descriptor entry), for
//! [`Kind::InodePage`] a page number (the node lives in the inode page body).
//! [`Ctx::node_addr`] maps a link to its node's address, so the same code
//! serves the space's extent lists, the segments' extent lists and the inode
//! page lists. `FIL_NULL` means "none".
//!
//! Every change goes through the mini-transaction. The mutating helpers latch
//! and validate every page they touch before the first write, so a corrupt
//! list is reported as [`EngineError::Corruption`](crate::EngineError) instead
//! of being made worse.

use super::header::{Addr, Ctx};
use super::inode::INODE_PAGE_NODE;
use crate::error::Result;
use crate::page::FIL_NULL;

pub const BASE_LEN: usize = 0;
pub const BASE_FIRST: usize = 4;
pub const BASE_LAST: usize = 8;
/// Bytes of a list base node.
pub const BASE_SIZE: usize = 12;
pub const NODE_PREV: usize = 0;
pub const NODE_NEXT: usize = 4;
/// Bytes of a list node.
pub const NODE_SIZE: usize = 8;

/// What a list links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Extents; links are extent numbers.
    Extent,
    /// Inode pages; links are page numbers.
    InodePage,
}

/// A list: where its base node is and what it links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct List {
    pub base: Addr,
    pub kind: Kind,
}

impl List {
    pub const fn new(base: Addr, kind: Kind) -> Self {
        Self { base, kind }
    }
}

/// Contents of a base node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Base {
    pub len: u32,
    pub first: u32,
    pub last: u32,
}

impl Ctx {
    /// Address of the node of item `link` in a list of `kind`, or `None` when
    /// `link` cannot be an item of such a list in this space.
    pub fn node_addr(&self, kind: Kind, link: u32) -> Option<Addr> {
        match kind {
            Kind::Extent if link < self.n_extents() => {
                Some(self.xdes_addr(link).plus(super::extent::XDES_NODE))
            }
            Kind::InodePage
                if link < self.free_limit && link != FIL_NULL && !self.is_descriptor_page(link) =>
            {
                Some(Addr::new(link, INODE_PAGE_NODE))
            }
            _ => None,
        }
    }

    fn node_or_err(&self, kind: Kind, link: u32, found_at: Addr) -> Result<Addr> {
        self.node_addr(kind, link).ok_or_else(|| {
            self.corrupt(
                found_at.page,
                format!(
                    "list link {link} at offset {} is out of range",
                    found_at.off
                ),
            )
        })
    }
}

/// Reads a base node.
pub fn base(mtr: &mut crate::mtr::Mtr<'_>, ctx: &Ctx, list: List) -> Result<Base> {
    Ok(Base {
        len: ctx.read_u32(mtr, list.base.plus(BASE_LEN))?,
        first: ctx.read_u32(mtr, list.base.plus(BASE_FIRST))?,
        last: ctx.read_u32(mtr, list.base.plus(BASE_LAST))?,
    })
}

/// Writes an empty base node.
pub fn init_base(mtr: &mut crate::mtr::Mtr<'_>, ctx: &Ctx, base: Addr) -> Result<()> {
    ctx.write_u32(mtr, base.plus(BASE_LEN), 0)?;
    ctx.write_u32(mtr, base.plus(BASE_FIRST), FIL_NULL)?;
    ctx.write_u32(mtr, base.plus(BASE_LAST), FIL_NULL)
}

/// First item of the list, if any.
pub fn first(mtr: &mut crate::mtr::Mtr<'_>, ctx: &Ctx, list: List) -> Result<Option<u32>> {
    let b = base(mtr, ctx, list)?;
    if b.len == 0 || b.first == FIL_NULL {
        if b.len != 0 || b.first != FIL_NULL || b.last != FIL_NULL {
            return Err(bad_base(ctx, list, &b));
        }
        return Ok(None);
    }
    ctx.node_or_err(list.kind, b.first, list.base)?;
    Ok(Some(b.first))
}

fn bad_base(ctx: &Ctx, list: List, b: &Base) -> crate::EngineError {
    ctx.corrupt(
        list.base.page,
        format!(
            "list base at offset {}: length {} first {} last {} disagree",
            list.base.off, b.len, b.first, b.last
        ),
    )
}

/// Appends `item` at the end of the list.
pub fn add_last(mtr: &mut crate::mtr::Mtr<'_>, ctx: &Ctx, list: List, item: u32) -> Result<()> {
    let b = base(mtr, ctx, list)?;
    let node = ctx.node_or_err(list.kind, item, list.base)?;
    ctx.latch(mtr, node.page)?;
    let last_node = if b.len == 0 {
        if b.first != FIL_NULL || b.last != FIL_NULL {
            return Err(bad_base(ctx, list, &b));
        }
        None
    } else {
        if b.last == FIL_NULL || b.first == FIL_NULL || b.last == item {
            return Err(bad_base(ctx, list, &b));
        }
        let ln = ctx.node_or_err(list.kind, b.last, list.base)?;
        if ctx.read_u32(mtr, ln.plus(NODE_NEXT))? != FIL_NULL {
            return Err(ctx.corrupt(
                ln.page,
                format!("last list node at offset {} has a successor", ln.off),
            ));
        }
        Some(ln)
    };
    let len = b
        .len
        .checked_add(1)
        .ok_or_else(|| bad_base(ctx, list, &b))?;
    // Every page is latched and checked; now change.
    ctx.write_u32(mtr, node.plus(NODE_PREV), b.last)?;
    ctx.write_u32(mtr, node.plus(NODE_NEXT), FIL_NULL)?;
    match last_node {
        Some(ln) => ctx.write_u32(mtr, ln.plus(NODE_NEXT), item)?,
        None => ctx.write_u32(mtr, list.base.plus(BASE_FIRST), item)?,
    }
    ctx.write_u32(mtr, list.base.plus(BASE_LAST), item)?;
    ctx.write_u32(mtr, list.base.plus(BASE_LEN), len)
}

/// Removes `item` from the list; an item that is not linked there is corruption.
pub fn remove(mtr: &mut crate::mtr::Mtr<'_>, ctx: &Ctx, list: List, item: u32) -> Result<()> {
    let b = base(mtr, ctx, list)?;
    let node = ctx.node_or_err(list.kind, item, list.base)?;
    let prev = ctx.read_u32(mtr, node.plus(NODE_PREV))?;
    let next = ctx.read_u32(mtr, node.plus(NODE_NEXT))?;
    let not_linked = || {
        ctx.corrupt(node.page,
            format!(
                "item {item} (node at offset {}) is not linked in the list based at page {} offset {}",
                node.off, list.base.page, list.base.off
            ),
        )
    };
    if b.len == 0 {
        return Err(not_linked());
    }
    let prev_node = if prev == FIL_NULL {
        if b.first != item {
            return Err(not_linked());
        }
        None
    } else {
        let pn = ctx.node_or_err(list.kind, prev, node)?;
        if ctx.read_u32(mtr, pn.plus(NODE_NEXT))? != item {
            return Err(not_linked());
        }
        Some(pn)
    };
    let next_node = if next == FIL_NULL {
        if b.last != item {
            return Err(not_linked());
        }
        None
    } else {
        let nn = ctx.node_or_err(list.kind, next, node)?;
        if ctx.read_u32(mtr, nn.plus(NODE_PREV))? != item {
            return Err(not_linked());
        }
        Some(nn)
    };
    match prev_node {
        Some(pn) => ctx.write_u32(mtr, pn.plus(NODE_NEXT), next)?,
        None => ctx.write_u32(mtr, list.base.plus(BASE_FIRST), next)?,
    }
    match next_node {
        Some(nn) => ctx.write_u32(mtr, nn.plus(NODE_PREV), prev)?,
        None => ctx.write_u32(mtr, list.base.plus(BASE_LAST), prev)?,
    }
    ctx.write_u32(mtr, node.plus(NODE_PREV), FIL_NULL)?;
    ctx.write_u32(mtr, node.plus(NODE_NEXT), FIL_NULL)?;
    ctx.write_u32(mtr, list.base.plus(BASE_LEN), b.len - 1)
}

/// Result of walking a list without trusting it.
#[derive(Debug, Default)]
pub struct Walk {
    /// Items in list order, as far as the walk got.
    pub items: Vec<u32>,
    /// Problems found, each naming a page.
    pub problems: Vec<String>,
}

/// Walks a list from first to last, checking every back link, the length and
/// the last pointer. Stops at the first broken link or after `max` items.
/// Only I/O errors are returned as `Err`; inconsistencies go to `problems`.
pub fn walk(
    mtr: &mut crate::mtr::Mtr<'_>,
    ctx: &Ctx,
    list: List,
    name: &str,
    max: u32,
) -> Result<Walk> {
    let mut w = Walk::default();
    let b = base(mtr, ctx, list)?;
    let here = format!(
        "page {} offset {} ({name} list base)",
        list.base.page, list.base.off
    );
    let mut prev = FIL_NULL;
    let mut cur = b.first;
    let mut at = list.base;
    while cur != FIL_NULL {
        if w.items.len() as u64 >= u64::from(max) {
            w.problems
                .push(format!("{here}: more than {max} items (cycle?)"));
            return Ok(w);
        }
        let Some(node) = ctx.node_addr(list.kind, cur) else {
            w.problems.push(format!(
                "page {} offset {}: {name} list link {cur} out of range",
                at.page, at.off
            ));
            return Ok(w);
        };
        let p = ctx.read_u32(mtr, node.plus(NODE_PREV))?;
        if p != prev {
            w.problems.push(format!(
                "page {} offset {}: {name} list item {cur} has prev {p}, expected {prev}",
                node.page, node.off
            ));
        }
        w.items.push(cur);
        prev = cur;
        at = node;
        cur = ctx.read_u32(mtr, node.plus(NODE_NEXT))?;
    }
    if b.last != prev {
        w.problems
            .push(format!("{here}: last is {}, walk ended at {prev}", b.last));
    }
    if w.items.len() as u64 != u64::from(b.len) {
        w.problems.push(format!(
            "{here}: length {} but walk found {} items",
            b.len,
            w.items.len()
        ));
    }
    Ok(w)
}

/// All items of a list; any inconsistency is returned as corruption.
pub fn collect(
    mtr: &mut crate::mtr::Mtr<'_>,
    ctx: &Ctx,
    list: List,
    name: &str,
) -> Result<Vec<u32>> {
    let max = match list.kind {
        Kind::Extent => ctx.n_extents(),
        Kind::InodePage => ctx.free_limit,
    };
    let mut w = walk(mtr, ctx, list, name, max)?;
    if let Some(p) = w.problems.pop() {
        return Err(ctx.corrupt(list.base.page, p));
    }
    Ok(w.items)
}
