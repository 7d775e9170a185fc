//! [`PageSize`]: the page sizes Larch supports and everything derived from them.

use crate::error::{EngineError, Result};

/// A supported page size (4 KiB to 64 KiB), fixed when a data directory is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PageSize(u32);

impl PageSize {
    pub const K4: PageSize = PageSize(4096);
    pub const K8: PageSize = PageSize(8192);
    pub const K16: PageSize = PageSize(16384);
    pub const K32: PageSize = PageSize(32768);
    pub const K64: PageSize = PageSize(65536);
    /// Every supported size, smallest first.
    pub const ALL: [PageSize; 5] = [Self::K4, Self::K8, Self::K16, Self::K32, Self::K64];
    /// InnoDB's default.
    pub const DEFAULT: PageSize = Self::K16;

    /// Accepts exactly the supported byte counts.
    pub fn from_bytes(bytes: u64) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|s| u64::from(s.0) == bytes)
            .ok_or_else(|| {
                EngineError::Config(format!(
                    "innodb_page_size={bytes} is not supported; use 4k, 8k, 16k, 32k or 64k"
                ))
            })
    }

    /// Page size in bytes.
    pub const fn bytes(self) -> usize {
        self.0 as usize
    }

    /// Page size in bytes as u32.
    pub const fn get(self) -> u32 {
        self.0
    }

    /// log2 of the size (12..=16).
    pub const fn shift(self) -> u32 {
        self.0.trailing_zeros()
    }

    /// Extent size in bytes: 1 MiB for 4k-16k pages, 2 MiB for 32k, 4 MiB for 64k.
    pub const fn extent_bytes(self) -> usize {
        match self.0 {
            32768 => 2 << 20,
            65536 => 4 << 20,
            _ => 1 << 20,
        }
    }

    /// Pages in one extent (256, 128, 64, 64, 64).
    pub const fn pages_per_extent(self) -> u32 {
        (self.extent_bytes() / self.bytes()) as u32
    }

    /// Pages covered by one extent-descriptor page (a "descriptor group"): as in
    /// InnoDB, one descriptor page every `page_size` pages.
    pub const fn pages_per_group(self) -> u32 {
        self.0
    }

    /// Extents described by one descriptor page.
    pub const fn extents_per_group(self) -> u32 {
        self.pages_per_group() / self.pages_per_extent()
    }

    /// Largest index key in bytes: 3072 at 16k and above, 1536 at 8k, 768 at 4k.
    pub const fn max_key_bytes(self) -> usize {
        match self.0 {
            4096 => 768,
            8192 => 1536,
            _ => 3072,
        }
    }
}

impl std::fmt::Display for PageSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_matches_innodb() {
        let ppe: Vec<u32> = PageSize::ALL.iter().map(|s| s.pages_per_extent()).collect();
        assert_eq!(ppe, [256, 128, 64, 64, 64]);
        assert_eq!(PageSize::K16.extents_per_group(), 256);
        assert_eq!(PageSize::K4.extents_per_group(), 16);
        assert_eq!(PageSize::K64.extent_bytes(), 4 << 20);
        assert!(PageSize::from_bytes(12345).is_err());
        assert_eq!(PageSize::from_bytes(8192).ok(), Some(PageSize::K8));
        assert_eq!(PageSize::K4.max_key_bytes(), 768);
    }
}
