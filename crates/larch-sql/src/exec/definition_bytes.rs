//! The byte form stored programs (routines, triggers) keep in their
//! dictionary rows: little-endian integers and length-prefixed UTF-8
//! strings (a u32 length, then the bytes). Writers append with
//! [`put_str`] and `to_le_bytes`; [`Reader`] reads them back, failing with
//! the caller's "corrupt definition" error on a short or non-UTF-8 input.

use crate::error::SqlError;

/// Appends `s` as a u32 length and its bytes.
pub(crate) fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// Reads a definition's fields in order.
pub(crate) struct Reader<'a> {
    b: &'a [u8],
    corrupt: fn() -> SqlError,
}

impl<'a> Reader<'a> {
    /// A reader of `b` whose errors are `corrupt()`.
    pub(crate) fn new(b: &'a [u8], corrupt: fn() -> SqlError) -> Reader<'a> {
        Reader { b, corrupt }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], SqlError> {
        if self.b.len() < n {
            return Err((self.corrupt)());
        }
        let (a, rest) = self.b.split_at(n);
        self.b = rest;
        Ok(a)
    }

    pub(crate) fn u8(&mut self) -> Result<u8, SqlError> {
        Ok(self.take(1)?[0])
    }

    pub(crate) fn u32(&mut self) -> Result<u32, SqlError> {
        let mut a = [0u8; 4];
        a.copy_from_slice(self.take(4)?);
        Ok(u32::from_le_bytes(a))
    }

    pub(crate) fn i64(&mut self) -> Result<i64, SqlError> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.take(8)?);
        Ok(i64::from_le_bytes(a))
    }

    pub(crate) fn str(&mut self) -> Result<String, SqlError> {
        let n = self.u32()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| (self.corrupt)())
    }
}
