//! Redo records: the physical page edits a mini-transaction logs.
//!
//! Records are physical (byte-level, as MariaDB 10.5+), so replay needs no
//! knowledge of page formats and is idempotent by page LSN. Encoding (integers are
//! LEB128 varints unless noted):
//!
//! ```text
//! record     := kind:u8 [space page] body      (space/page omitted when kind has SAME_PAGE)
//! WRITE      := offset len bytes[len]
//! MEMSET     := offset len byte:u8
//! MEMMOVE    := dst src len
//! INIT_PAGE  := page_type:u16le               (page zeroed, header initialised)
//! FILE_CREATE:= space size_pages name_len name  (file-level: no page field)
//! FILE_EXTEND:= space size_pages
//! FILE_DELETE:= space
//! ```

use crate::page::{self, PageId, PageType};

const SAME_PAGE: u8 = 0x80;
const KIND_MASK: u8 = 0x7f;

const WRITE: u8 = 1;
const MEMSET: u8 = 2;
const MEMMOVE: u8 = 3;
const INIT_PAGE: u8 = 4;
const FILE_CREATE: u8 = 16;
const FILE_EXTEND: u8 = 17;
const FILE_DELETE: u8 = 18;

/// A decoded redo record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedoRecord<'a> {
    Write {
        page: PageId,
        offset: u32,
        data: &'a [u8],
    },
    Memset {
        page: PageId,
        offset: u32,
        len: u32,
        byte: u8,
    },
    Memmove {
        page: PageId,
        dst: u32,
        src: u32,
        len: u32,
    },
    InitPage {
        page: PageId,
        page_type: u16,
    },
    FileCreate {
        space: u32,
        size_pages: u32,
        name: &'a str,
    },
    FileExtend {
        space: u32,
        size_pages: u32,
    },
    FileDelete {
        space: u32,
    },
}

impl RedoRecord<'_> {
    /// The page the record changes, if it is a page record.
    pub fn page(&self) -> Option<PageId> {
        match *self {
            Self::Write { page, .. }
            | Self::Memset { page, .. }
            | Self::Memmove { page, .. }
            | Self::InitPage { page, .. } => Some(page),
            _ => None,
        }
    }

    /// Applies a page record to a page image. Returns false when the record does
    /// not fit the page (a corrupt log), leaving the page untouched.
    pub fn apply(&self, frame: &mut [u8]) -> bool {
        let n = frame.len();
        match *self {
            Self::Write { offset, data, .. } => {
                let o = offset as usize;
                if o + data.len() > n {
                    return false;
                }
                frame[o..o + data.len()].copy_from_slice(data);
            }
            Self::Memset {
                offset, len, byte, ..
            } => {
                let (o, l) = (offset as usize, len as usize);
                if o + l > n {
                    return false;
                }
                frame[o..o + l].fill(byte);
            }
            Self::Memmove { dst, src, len, .. } => {
                let (d, s, l) = (dst as usize, src as usize, len as usize);
                if d + l > n || s + l > n {
                    return false;
                }
                frame.copy_within(s..s + l, d);
            }
            Self::InitPage { page, page_type } => {
                frame.fill(0);
                let ty = PageType::from_u16(page_type).unwrap_or(PageType::Allocated);
                page::init_header(frame, page, ty);
                page::bytes::put_u16(frame, page::offset::PAGE_TYPE, page_type);
            }
            _ => return false,
        }
        true
    }
}

/// Appends records to a mini-transaction's log buffer.
#[derive(Debug, Default)]
pub struct RecordWriter {
    buf: Vec<u8>,
    last_page: Option<PageId>,
}

impl RecordWriter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Encoded bytes so far.
    pub fn bytes(&self) -> &[u8] {
        &self.buf
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    pub fn clear(&mut self) {
        self.buf.clear();
        self.last_page = None;
    }

    fn page_prefix(&mut self, kind: u8, page: PageId) {
        if self.last_page == Some(page) {
            self.buf.push(kind | SAME_PAGE);
        } else {
            self.buf.push(kind);
            put_varint(&mut self.buf, u64::from(page.space));
            put_varint(&mut self.buf, u64::from(page.page));
            self.last_page = Some(page);
        }
    }

    pub fn write(&mut self, page: PageId, offset: usize, data: &[u8]) {
        self.page_prefix(WRITE, page);
        put_varint(&mut self.buf, offset as u64);
        put_varint(&mut self.buf, data.len() as u64);
        self.buf.extend_from_slice(data);
    }

    pub fn memset(&mut self, page: PageId, offset: usize, len: usize, byte: u8) {
        self.page_prefix(MEMSET, page);
        put_varint(&mut self.buf, offset as u64);
        put_varint(&mut self.buf, len as u64);
        self.buf.push(byte);
    }

    pub fn memmove(&mut self, page: PageId, dst: usize, src: usize, len: usize) {
        self.page_prefix(MEMMOVE, page);
        put_varint(&mut self.buf, dst as u64);
        put_varint(&mut self.buf, src as u64);
        put_varint(&mut self.buf, len as u64);
    }

    pub fn init_page(&mut self, page: PageId, page_type: PageType) {
        self.page_prefix(INIT_PAGE, page);
        self.buf
            .extend_from_slice(&(page_type as u16).to_le_bytes());
    }

    pub fn file_create(&mut self, space: u32, size_pages: u32, name: &str) {
        self.buf.push(FILE_CREATE);
        put_varint(&mut self.buf, u64::from(space));
        put_varint(&mut self.buf, u64::from(size_pages));
        put_varint(&mut self.buf, name.len() as u64);
        self.buf.extend_from_slice(name.as_bytes());
        self.last_page = None;
    }

    pub fn file_extend(&mut self, space: u32, size_pages: u32) {
        self.buf.push(FILE_EXTEND);
        put_varint(&mut self.buf, u64::from(space));
        put_varint(&mut self.buf, u64::from(size_pages));
        self.last_page = None;
    }

    pub fn file_delete(&mut self, space: u32) {
        self.buf.push(FILE_DELETE);
        put_varint(&mut self.buf, u64::from(space));
        self.last_page = None;
    }
}

/// Decodes the records of one mini-transaction body.
pub struct RecordReader<'a> {
    buf: &'a [u8],
    pos: usize,
    last_page: Option<PageId>,
}

impl<'a> RecordReader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Self {
            buf,
            pos: 0,
            last_page: None,
        }
    }

    fn varint(&mut self) -> Option<u64> {
        let (v, used) = get_varint(&self.buf[self.pos..])?;
        self.pos += used;
        Some(v)
    }

    fn varint32(&mut self) -> Option<u32> {
        u32::try_from(self.varint()?).ok()
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.buf.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }

    fn page(&mut self, kind: u8) -> Option<PageId> {
        if kind & SAME_PAGE != 0 {
            return self.last_page;
        }
        let p = PageId::new(self.varint32()?, self.varint32()?);
        self.last_page = Some(p);
        Some(p)
    }

    /// The next record; `Some(Err(()))` when the body is malformed.
    fn decode(&mut self) -> Option<RedoRecord<'a>> {
        let kind = *self.take(1)?.first()?;
        Some(match kind & KIND_MASK {
            WRITE => {
                let page = self.page(kind)?;
                let offset = self.varint32()?;
                let len = self.varint()? as usize;
                RedoRecord::Write {
                    page,
                    offset,
                    data: self.take(len)?,
                }
            }
            MEMSET => {
                let page = self.page(kind)?;
                RedoRecord::Memset {
                    page,
                    offset: self.varint32()?,
                    len: self.varint32()?,
                    byte: *self.take(1)?.first()?,
                }
            }
            MEMMOVE => {
                let page = self.page(kind)?;
                RedoRecord::Memmove {
                    page,
                    dst: self.varint32()?,
                    src: self.varint32()?,
                    len: self.varint32()?,
                }
            }
            INIT_PAGE => {
                let page = self.page(kind)?;
                let b = self.take(2)?;
                RedoRecord::InitPage {
                    page,
                    page_type: u16::from_le_bytes([b[0], b[1]]),
                }
            }
            FILE_CREATE => {
                let space = self.varint32()?;
                let size_pages = self.varint32()?;
                let len = self.varint()? as usize;
                let name = std::str::from_utf8(self.take(len)?).ok()?;
                self.last_page = None;
                RedoRecord::FileCreate {
                    space,
                    size_pages,
                    name,
                }
            }
            FILE_EXTEND => {
                self.last_page = None;
                RedoRecord::FileExtend {
                    space: self.varint32()?,
                    size_pages: self.varint32()?,
                }
            }
            FILE_DELETE => {
                self.last_page = None;
                RedoRecord::FileDelete {
                    space: self.varint32()?,
                }
            }
            _ => return None,
        })
    }
}

impl<'a> Iterator for RecordReader<'a> {
    /// `Err(offset)` names the byte where the body stopped making sense.
    type Item = Result<RedoRecord<'a>, usize>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.buf.len() {
            return None;
        }
        let start = self.pos;
        match self.decode() {
            Some(r) => Some(Ok(r)),
            None => {
                self.pos = self.buf.len();
                Some(Err(start))
            }
        }
    }
}

/// Appends `v` as an unsigned LEB128 varint.
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Decodes an unsigned LEB128 varint; returns the value and bytes used.
pub fn get_varint(buf: &[u8]) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    for (i, &b) in buf.iter().enumerate().take(10) {
        v |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_every_kind() {
        let p = PageId::new(3, 99);
        let q = PageId::new(300, 70000);
        let mut w = RecordWriter::new();
        w.init_page(p, PageType::Index);
        w.write(p, 100, b"abc");
        w.memset(p, 200, 50, 0xee);
        w.memmove(q, 10, 2000, 7);
        w.file_create(300, 64, "test/t1.ibd");
        w.write(q, 5, &[]);
        w.file_extend(300, 128);
        w.file_delete(301);
        let recs: Vec<_> = RecordReader::new(w.bytes()).collect();
        assert_eq!(recs.len(), 8);
        assert_eq!(
            recs[1],
            Ok(RedoRecord::Write {
                page: p,
                offset: 100,
                data: b"abc"
            })
        );
        assert_eq!(
            recs[3],
            Ok(RedoRecord::Memmove {
                page: q,
                dst: 10,
                src: 2000,
                len: 7
            })
        );
        assert_eq!(
            recs[4],
            Ok(RedoRecord::FileCreate {
                space: 300,
                size_pages: 64,
                name: "test/t1.ibd"
            })
        );
        // After a file record the page must be named again.
        assert_eq!(recs[5].as_ref().ok().and_then(|r| r.page()), Some(q));
        // Same-page compression: the second record on p has no page id.
        assert!(w.bytes().len() < 60);
    }

    #[test]
    fn truncated_body_is_an_error() {
        let mut w = RecordWriter::new();
        w.write(PageId::new(1, 2), 10, b"hello world");
        let b = w.bytes();
        let recs: Vec<_> = RecordReader::new(&b[..b.len() - 3]).collect();
        assert_eq!(recs, vec![Err(0)]);
        assert_eq!(RecordReader::new(&[0x55]).next(), Some(Err(0)));
    }

    #[test]
    fn apply_is_bounds_checked() {
        let mut frame = vec![0u8; 4096];
        let p = PageId::new(1, 1);
        assert!(!RedoRecord::Write {
            page: p,
            offset: 4094,
            data: b"abc"
        }
        .apply(&mut frame));
        assert!(RedoRecord::Memset {
            page: p,
            offset: 10,
            len: 4,
            byte: 9
        }
        .apply(&mut frame));
        assert!(RedoRecord::Memmove {
            page: p,
            dst: 12,
            src: 10,
            len: 4
        }
        .apply(&mut frame));
        assert_eq!(&frame[10..16], &[9, 9, 9, 9, 9, 9]);
    }
}
