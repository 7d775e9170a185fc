//! CRC32C (Castagnoli) checksums, computed with the CPU's CRC instructions.

use super::offset;

/// CRC32C of a byte slice.
pub fn crc32c(data: &[u8]) -> u32 {
    crc_fast::crc32_iscsi(data)
}

/// The checksum of a page image: CRC32C of everything after the checksum field
/// and before the trailer (`[4, len - 8)`).
pub fn page_checksum(page: &[u8]) -> u32 {
    crc32c(&page[offset::CHECKSUM + 4..page.len() - 8])
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_vector() {
        // RFC 3720 test vector: 32 bytes of zeros.
        assert_eq!(super::crc32c(&[0u8; 32]), 0x8a91_36aa);
        assert_eq!(super::crc32c(b"123456789"), 0xe306_9283);
    }
}

/// CRC32C of the concatenation of several slices.
pub fn crc32c_parts(parts: &[&[u8]]) -> u32 {
    let mut d = crc_fast::Digest::new(crc_fast::CrcAlgorithm::Crc32Iscsi);
    for p in parts {
        d.update(p);
    }
    d.finalize() as u32
}

#[cfg(test)]
mod parts_tests {
    #[test]
    fn parts_equal_whole() {
        let whole = b"hello, redo log";
        assert_eq!(
            super::crc32c_parts(&[&whole[..5], &whole[5..]]),
            super::crc32c(whole)
        );
    }
}
