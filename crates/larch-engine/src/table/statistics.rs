//! Table statistics for SQL's metadata: the estimated row count and the
//! space a table's indexes take (`SHOW TABLE STATUS`,
//! `INFORMATION_SCHEMA.TABLES`), and each index's distinct-prefix counts
//! (`SHOW INDEX`'s `Cardinality`).
//!
//! Figures are computed when asked, from a few page reads per index
//! (`btree::statistics`), the way InnoDB computes transient statistics;
//! nothing is stored. Rows are estimated, never counted: an estimate
//! costs the tree's height in page reads whatever the table's size.

use std::ops::Bound;

use super::Table;
use crate::btree::PrefixCounts;
use crate::error::Result;
use crate::mtr::Mtr;
use crate::record::key::split_key_prefix;
use crate::space::alloc;

/// Leaves read per index for distinct-prefix counts (InnoDB's default
/// `innodb_stats_transient_sample_pages`).
pub const SAMPLE_PAGES: usize = 8;

/// Size figures of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableStatistics {
    /// Estimated number of rows (delete-marked entries not yet purged may
    /// count).
    pub rows: u64,
    /// Pages of the clustered index, off-page values included.
    pub clustered_pages: u64,
    /// Pages of all secondary indexes.
    pub secondary_pages: u64,
    /// Whole free extents of the table's tablespace, in pages.
    pub free_pages: u64,
}

impl Table {
    /// The table's row estimate and page counts.
    pub fn statistics(&self) -> Result<TableStatistics> {
        let pool = self.storage.pool();
        let rows = self
            .clustered
            .estimate_range(pool, Bound::Unbounded, Bound::Unbounded)?;
        let clustered_pages = self.clustered.allocated_pages(pool)?;
        let mut secondary_pages = 0;
        for tree in &self.secondary {
            secondary_pages += tree.allocated_pages(pool)?;
        }
        let mut mtr = Mtr::start(pool)?;
        let free_extents = alloc::free_extent_count(&mut mtr, self.space)?;
        mtr.commit()?;
        let extent = u64::from(self.storage.page_size().pages_per_extent());
        Ok(TableStatistics {
            rows,
            clustered_pages,
            secondary_pages,
            free_pages: u64::from(free_extents) * extent,
        })
    }

    /// Estimated distinct values of each leading part of index `index`
    /// ([`CLUSTERED`](super::CLUSTERED) or 1 + secondary number): entry `k` counts the first
    /// `k + 1` key parts. A table without a primary key has no parts in its
    /// clustered index, so the list is empty.
    pub fn index_cardinality(&self, index: usize) -> Result<Vec<u64>> {
        let (tree, parts) = self.index_with_parts(index)?;
        if parts.is_empty() {
            return Ok(Vec::new());
        }
        let boundaries = |key: &[u8], out: &mut Vec<usize>| {
            if let Ok(ranges) = split_key_prefix(parts, key) {
                out.extend(ranges.iter().map(|r| r.end));
            }
        };
        let PrefixCounts { distinct, .. } =
            tree.prefix_counts(self.storage.pool(), parts.len(), SAMPLE_PAGES, &boundaries)?;
        Ok(distinct)
    }
}
