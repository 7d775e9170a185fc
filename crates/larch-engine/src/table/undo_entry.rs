//! The row-level content of an undo record (the payload the undo store keeps
//! opaque): which row of which table changed, and what it was before.
//!
//! Layout (integers big-endian; byte tables in `docs/undo-log-format.md`):
//! ```text
//! [kind 1]            1 = insert, 2 = update, 3 = delete-mark
//! [space 4][root 4]   the table: tablespace and clustered root page
//! [key length 2][clustered key]
//! update and delete-mark only:
//!   [old deleted 1]   the delete mark of the previous version
//!   [old length 4][old clustered record value]   (starts with the previous
//!                     version's transaction id and roll pointer)
//!   [secondary count 2][per secondary index 1: bit 0 = the entry for the new
//!                     key already existed (delete-marked) before this change]
//!   [dropped count 2][dropped off-page chains, 20 bytes each: chains of the
//!                     previous version the new one no longer references,
//!                     freed by purge]
//! ```
//! Invariant: a primary-key change is written as a delete-mark of the old key
//! and an insert (or update of a delete-marked record) of the new key, so the
//! key of an update record is the key of both versions.

use crate::error::{EngineError, Result};
use crate::record::row::ExternRef;

const EXTERN_REF_LEN: usize = ExternRef::ENCODED_LEN;

/// What kind of change an undo record reverts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UndoKind {
    Insert = 1,
    Update = 2,
    DeleteMark = 3,
}

/// A decoded row undo record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowUndo {
    pub kind: UndoKind,
    pub space: u32,
    pub root: u32,
    pub key: Vec<u8>,
    /// The previous version (update and delete-mark).
    pub old_deleted: bool,
    pub old_value: Vec<u8>,
    /// Per secondary index: the new entry existed before the change.
    pub preexisting: Vec<bool>,
    /// Off-page chains the change stopped referencing.
    pub dropped: Vec<ExternRef>,
}

impl RowUndo {
    pub fn insert(space: u32, root: u32, key: &[u8]) -> Self {
        Self {
            kind: UndoKind::Insert,
            space,
            root,
            key: key.to_vec(),
            old_deleted: false,
            old_value: Vec::new(),
            preexisting: Vec::new(),
            dropped: Vec::new(),
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(16 + self.key.len() + self.old_value.len());
        b.push(self.kind as u8);
        b.extend_from_slice(&self.space.to_be_bytes());
        b.extend_from_slice(&self.root.to_be_bytes());
        b.extend_from_slice(&(self.key.len() as u16).to_be_bytes());
        b.extend_from_slice(&self.key);
        if self.kind == UndoKind::Insert {
            return b;
        }
        b.push(u8::from(self.old_deleted));
        b.extend_from_slice(&(self.old_value.len() as u32).to_be_bytes());
        b.extend_from_slice(&self.old_value);
        b.extend_from_slice(&(self.preexisting.len() as u16).to_be_bytes());
        b.extend(self.preexisting.iter().map(|&p| u8::from(p)));
        b.extend_from_slice(&(self.dropped.len() as u16).to_be_bytes());
        for r in &self.dropped {
            b.extend_from_slice(&r.to_bytes());
        }
        b
    }

    pub fn decode(b: &[u8]) -> Result<Self> {
        let mut r = Reader { b, at: 0 };
        let kind = match r.u8()? {
            1 => UndoKind::Insert,
            2 => UndoKind::Update,
            3 => UndoKind::DeleteMark,
            k => return Err(bad(format!("unknown undo record kind {k}"))),
        };
        let space = r.u32()?;
        let root = r.u32()?;
        let klen = r.u16()? as usize;
        let key = r.take(klen)?.to_vec();
        let mut u = RowUndo {
            kind,
            space,
            root,
            key,
            ..RowUndo::insert(space, root, &[])
        };
        if kind == UndoKind::Insert {
            return r.end(u);
        }
        u.old_deleted = r.u8()? != 0;
        let vlen = r.u32()? as usize;
        u.old_value = r.take(vlen)?.to_vec();
        let n = r.u16()? as usize;
        u.preexisting = r.take(n)?.iter().map(|&x| x & 1 != 0).collect();
        let d = r.u16()? as usize;
        for _ in 0..d {
            let mut bytes = [0u8; EXTERN_REF_LEN];
            bytes.copy_from_slice(r.take(EXTERN_REF_LEN)?);
            u.dropped.push(ExternRef::from_bytes(&bytes));
        }
        r.end(u)
    }
}

fn bad(reason: String) -> EngineError {
    EngineError::Internal(format!("malformed row undo record: {reason}"))
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.b.len());
        let Some(end) = end else {
            return Err(bad(format!(
                "{n} bytes at {} past its end {}",
                self.at,
                self.b.len()
            )));
        };
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16> {
        let s = self.take(2)?;
        Ok(u16::from_be_bytes([s[0], s[1]]))
    }
    fn u32(&mut self) -> Result<u32> {
        let s = self.take(4)?;
        Ok(u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn end(self, u: RowUndo) -> Result<RowUndo> {
        if self.at != self.b.len() {
            return Err(bad(format!("{} trailing bytes", self.b.len() - self.at)));
        }
        Ok(u)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_kind_and_rejects_damage() -> Result<()> {
        let ins = RowUndo::insert(7, 3, b"key");
        assert_eq!(RowUndo::decode(&ins.encode())?, ins);
        let upd = RowUndo {
            kind: UndoKind::Update,
            old_deleted: true,
            old_value: vec![9; 300],
            preexisting: vec![true, false, true],
            dropped: vec![],
            ..RowUndo::insert(1, 2, b"k2")
        };
        let enc = upd.encode();
        assert_eq!(RowUndo::decode(&enc)?, upd);
        assert!(RowUndo::decode(&enc[..enc.len() - 1]).is_err());
        let mut extra = enc.clone();
        extra.push(0);
        assert!(RowUndo::decode(&extra).is_err());
        let mut kind = enc;
        kind[0] = 9;
        assert!(RowUndo::decode(&kind).is_err());
        Ok(())
    }
}
