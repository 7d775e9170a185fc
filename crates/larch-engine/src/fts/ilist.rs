//! The inverted-list (ilist) codec: one word's documents and positions.
//!
//! Owns the byte format of the `ILIST` column of InnoDB's `FTS_*_INDEX_n`
//! tables (MariaDB `fts_cache_node_add_positions`, `fts_encode_int`,
//! `fts_decode_vlc`), written here independently:
//!
//! ```text
//! ilist   = entry*
//! entry   = vlc(doc_id - previous_doc_id) vlc(position delta)* 0x00
//! vlc(v)  = v in big-endian groups of 7 bits, fewest groups (at least one);
//!           every byte holds one group in its low 7 bits; the high bit is set
//!           on the LAST byte only.
//! ```
//!
//! The previous doc id of a node's first entry is 0, so the first entry holds
//! the doc id itself (InnoDB checks it equals the node's `FIRST_DOC_ID`).
//! Positions (byte offsets, [`super::tokenizer`]) are deltas from the
//! previous position of the same entry, the first from 0. Because a vlc's
//! first byte is never 0x00 (the value 0 encodes as 0x80), the 0x00 byte can
//! end a position list. A u64 needs at most 10 bytes.
//!
//! Invariants the encoder enforces and the decoder checks: doc ids strictly
//! increase within a list; each entry has at least one position and its
//! positions strictly increase. The decoder rejects truncated input, a vlc
//! longer than 10 bytes or overflowing 64 bits, and entries without
//! positions, with [`EngineError::Internal`] naming the offset; a caller that
//! read the list from a table page reports it as corruption of that page.

use crate::{EngineError, Result};

/// Bytes [`encode_vlc`] writes for `v`.
pub fn vlc_len(v: u64) -> usize {
    let bits = 64 - v.leading_zeros() as usize;
    bits.div_ceil(7).max(1)
}

/// Appends `v` in InnoDB's variable-length code.
pub fn encode_vlc(v: u64, out: &mut Vec<u8>) {
    let n = vlc_len(v);
    for i in (0..n).rev() {
        let group = ((v >> (7 * i)) & 0x7F) as u8;
        out.push(if i == 0 { group | 0x80 } else { group });
    }
}

/// Reads one vlc at `*pos`, advancing `*pos` past it.
pub fn decode_vlc(buf: &[u8], pos: &mut usize) -> Result<u64> {
    let start = *pos;
    let mut v: u64 = 0;
    for i in 0..10 {
        let Some(&b) = buf.get(start + i) else {
            return Err(corrupt(start, "vlc truncated"));
        };
        if v > (u64::MAX >> 7) {
            return Err(corrupt(start, "vlc overflows 64 bits"));
        }
        v = (v << 7) | u64::from(b & 0x7F);
        if b & 0x80 != 0 {
            *pos = start + i + 1;
            return Ok(v);
        }
    }
    Err(corrupt(start, "vlc longer than 10 bytes"))
}

fn corrupt(offset: usize, what: &str) -> EngineError {
    EngineError::Internal(format!(
        "corrupt full-text inverted list at byte {offset}: {what}"
    ))
}

/// One document's entry: its id and the word's positions in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocEntry {
    /// The document (`FTS_DOC_ID`).
    pub doc_id: u64,
    /// Byte positions of the word, increasing.
    pub positions: Vec<u64>,
}

/// Builds one ilist (one row of an index table: `FIRST_DOC_ID`,
/// `LAST_DOC_ID`, `DOC_COUNT`, `ILIST`).
#[derive(Clone, Debug, Default)]
pub struct IlistEncoder {
    buf: Vec<u8>,
    first_doc_id: Option<u64>,
    last_doc_id: u64,
    doc_count: u64,
}

impl IlistEncoder {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a document with the word's positions. Fails (leaving the list
    /// unchanged) if `doc_id` does not exceed the previous one, or the
    /// positions are empty or not strictly increasing.
    pub fn push(&mut self, doc_id: u64, positions: &[u64]) -> Result<()> {
        if self.first_doc_id.is_some() && doc_id <= self.last_doc_id {
            return Err(EngineError::Internal(format!(
                "full-text ilist: doc id {doc_id} after {}",
                self.last_doc_id
            )));
        }
        if positions.is_empty() || positions.windows(2).any(|w| w[1] <= w[0]) {
            return Err(EngineError::Internal(format!(
                "full-text ilist: positions of doc {doc_id} are empty or not increasing"
            )));
        }
        let base = if self.first_doc_id.is_some() {
            self.last_doc_id
        } else {
            0
        };
        encode_vlc(doc_id - base, &mut self.buf);
        let mut last = 0;
        for &p in positions {
            encode_vlc(p - last, &mut self.buf);
            last = p;
        }
        self.buf.push(0);
        self.first_doc_id.get_or_insert(doc_id);
        self.last_doc_id = doc_id;
        self.doc_count += 1;
        Ok(())
    }

    /// The first document, `None` while empty.
    pub fn first_doc_id(&self) -> Option<u64> {
        self.first_doc_id
    }

    /// The last document (0 while empty).
    pub fn last_doc_id(&self) -> u64 {
        self.last_doc_id
    }

    /// Number of documents.
    pub fn doc_count(&self) -> u64 {
        self.doc_count
    }

    /// Bytes so far.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True when no document was added.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// The encoded list so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// The encoded list.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
}

/// Encodes whole entries (doc ids strictly increasing).
pub fn encode(entries: &[DocEntry]) -> Result<Vec<u8>> {
    let mut enc = IlistEncoder::new();
    for e in entries {
        enc.push(e.doc_id, &e.positions)?;
    }
    Ok(enc.into_bytes())
}

/// Iterates the entries of an encoded list.
#[derive(Clone, Debug)]
pub struct IlistDecoder<'a> {
    buf: &'a [u8],
    pos: usize,
    doc_id: u64,
    failed: bool,
}

impl<'a> IlistDecoder<'a> {
    /// A decoder over `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        IlistDecoder {
            buf,
            pos: 0,
            doc_id: 0,
            failed: false,
        }
    }

    fn entry(&mut self) -> Result<DocEntry> {
        let at = self.pos;
        let delta = decode_vlc(self.buf, &mut self.pos)?;
        if at > 0 && delta == 0 {
            return Err(corrupt(at, "doc id does not increase"));
        }
        let doc_id = self
            .doc_id
            .checked_add(delta)
            .ok_or_else(|| corrupt(at, "doc id overflows"))?;
        let mut positions = Vec::new();
        let mut last: u64 = 0;
        loop {
            match self.buf.get(self.pos) {
                None => return Err(corrupt(self.pos, "position list not terminated")),
                Some(0) => {
                    self.pos += 1;
                    break;
                }
                Some(_) => {
                    let p_at = self.pos;
                    let d = decode_vlc(self.buf, &mut self.pos)?;
                    if !positions.is_empty() && d == 0 {
                        return Err(corrupt(p_at, "positions do not increase"));
                    }
                    last = last
                        .checked_add(d)
                        .ok_or_else(|| corrupt(p_at, "position overflows"))?;
                    positions.push(last);
                }
            }
        }
        if positions.is_empty() {
            return Err(corrupt(at, "document without positions"));
        }
        self.doc_id = doc_id;
        Ok(DocEntry { doc_id, positions })
    }
}

impl Iterator for IlistDecoder<'_> {
    type Item = Result<DocEntry>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.pos >= self.buf.len() {
            return None;
        }
        let r = self.entry();
        self.failed = r.is_err();
        Some(r)
    }
}

/// Decodes a whole list.
pub fn decode(buf: &[u8]) -> Result<Vec<DocEntry>> {
    IlistDecoder::new(buf).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fts::test_support::Rng;

    #[test]
    fn vlc_matches_innodbs_bytes() {
        let enc = |v: u64| {
            let mut out = Vec::new();
            encode_vlc(v, &mut out);
            out
        };
        assert_eq!(enc(0), [0x80]);
        assert_eq!(enc(1), [0x81]);
        assert_eq!(enc(127), [0xFF]);
        assert_eq!(enc(128), [0x01, 0x80]);
        assert_eq!(enc(300), [0x02, 0xAC]);
        assert_eq!(enc(1 << 14), [0x01, 0x00, 0x80]);
        assert_eq!(
            enc(u64::MAX),
            [0x01, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0xFF]
        );
        for (v, n) in [
            (0, 1),
            (127, 1),
            (128, 2),
            ((1 << 63) - 1, 9),
            (1 << 63, 10),
        ] {
            assert_eq!(vlc_len(v), n, "{v}");
        }
    }

    #[test]
    fn ilist_layout() {
        // doc 5 at positions 0 and 10, doc 130 at position 200.
        let bytes = encode(&[
            DocEntry {
                doc_id: 5,
                positions: vec![0, 10],
            },
            DocEntry {
                doc_id: 130,
                positions: vec![200],
            },
        ])
        .expect("valid");
        assert_eq!(bytes, [0x85, 0x80, 0x8A, 0x00, 0xFD, 0x01, 0xC8, 0x00]);
    }

    #[test]
    fn random_lists_round_trip() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..500 {
            let mut entries = Vec::new();
            let mut doc = 0u64;
            for i in 0..rng.below(20) {
                let step = if rng.below(4) == 0 {
                    rng.wide()
                } else {
                    rng.below(1000)
                };
                let Some(d) = doc.checked_add(step.max(u64::from(i > 0))) else {
                    break;
                };
                doc = d;
                let mut positions = Vec::new();
                let mut p = rng.below(3); // sometimes position 0
                for _ in 0..=rng.below(8) {
                    positions.push(p);
                    let gap = if rng.below(8) == 0 {
                        rng.wide() >> 1
                    } else {
                        1 + rng.below(300)
                    };
                    match p.checked_add(gap.max(1)) {
                        Some(n) => p = n,
                        None => break,
                    }
                }
                entries.push(DocEntry {
                    doc_id: doc,
                    positions,
                });
            }
            let bytes = encode(&entries).expect("valid input");
            let size: usize = entries
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let prev = if i == 0 { 0 } else { entries[i - 1].doc_id };
                    let mut last = 0;
                    vlc_len(e.doc_id - prev)
                        + e.positions
                            .iter()
                            .map(|&p| {
                                let n = vlc_len(p - last);
                                last = p;
                                n
                            })
                            .sum::<usize>()
                        + 1
                })
                .sum();
            assert_eq!(bytes.len(), size);
            assert_eq!(decode(&bytes).expect("decodes"), entries);
        }
    }

    #[test]
    fn encoder_tracks_node_columns_and_rejects_bad_input() {
        let mut enc = IlistEncoder::new();
        assert!(enc.is_empty());
        enc.push(7, &[3, 9]).expect("ok");
        enc.push(9, &[1]).expect("ok");
        assert_eq!(
            (enc.first_doc_id(), enc.last_doc_id(), enc.doc_count()),
            (Some(7), 9, 2)
        );
        let before = enc.as_bytes().to_vec();
        assert!(enc.push(9, &[2]).is_err(), "doc id must increase");
        assert!(enc.push(10, &[]).is_err(), "positions required");
        assert!(enc.push(10, &[5, 5]).is_err(), "positions must increase");
        assert_eq!(enc.as_bytes(), &before[..]);
        assert_eq!(enc.len(), before.len());
    }

    #[test]
    fn decoder_rejects_damaged_lists() {
        let good = encode(&[DocEntry {
            doc_id: 300,
            positions: vec![1, 2],
        }])
        .expect("ok");
        for cut in 1..good.len() {
            assert!(decode(&good[..cut]).is_err(), "cut at {cut}");
        }
        assert!(decode(&[0x81, 0x00]).is_err(), "no positions");
        assert!(
            decode(&[0x81, 0x81, 0x00, 0x80, 0x81, 0x00]).is_err(),
            "same doc twice"
        );
        assert!(
            decode(&[0x81, 0x81, 0x80, 0x00]).is_err(),
            "repeated position"
        );
        assert!(decode(&[0x7F; 11]).is_err(), "vlc too long");
        assert!(
            decode(&[0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0x7F, 0xFF, 0x81, 0]).is_err()
        );
        assert_eq!(decode(&[]).expect("empty"), vec![]);
        let mut rng = Rng(42);
        for _ in 0..2000 {
            let len = rng.below(24) as usize;
            let junk: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            let _ = decode(&junk);
        }
    }
}
