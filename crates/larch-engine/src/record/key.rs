//! Memcomparable key encoding: the byte order of encoded keys is the SQL order of
//! the key tuples, so the B+tree compares keys with `memcmp` only.
//!
//! This module owns [`KeyPart`] (one column of an index: type, direction, optional
//! prefix length) and the encoding of key tuples ([`encode_key`]). Each part is a
//! marker byte (0x00 NULL, 0x01 value: NULL sorts first, as in MySQL) followed, for
//! non-NULL values, by an order-preserving body:
//! - integers, DECIMAL, DATE, TIME, DATETIME, TIMESTAMP, YEAR, ENUM, SET, BIT: their
//!   fixed-width row encoding (`record::value`), which is memcomparable;
//! - FLOAT/DOUBLE: big-endian IEEE bits with the sign bit flipped for positives and
//!   all bits flipped for negatives (-0.0 is encoded as 0.0; NaN and infinities
//!   are rejected);
//! - strings: the collation's self-delimiting sort key (`record::collation`);
//!   binary strings use the NO PAD chunked byte encoding.
//!
//! A descending part is the bitwise complement of the whole part (marker
//! included), so NULLs sort last in it. Every part encoding is prefix-free, which
//! is what makes complementing and concatenating parts order-preserving.
//!
//! Invariants: `encode_key(a).cmp(encode_key(b)) == compare_key_values(a, b)` for
//! valid values; keys with the same leading values share the encoded prefix of
//! those parts ([`encode_key_prefix`], [`prefix_end`] for range scans).
//!
//! Sort keys of `_ci` collations lose the original string (case, accents, trailing
//! spaces). Covering reads get the values from [`encode_key_with_values`], which
//! writes the original value of every non-reversible part into a separate byte
//! string that the B+tree entry keeps in its value part (secondary index entries:
//! key = encoded key parts + primary key, value = these originals). Layouts are in
//! `docs/key-encoding.md`.

use std::borrow::Cow;
use std::cmp::Ordering;

use crate::record::collation::{
    binary_sort_key, decode_binary_sort_key, sort_key_len_for_weights, Collation,
};
use crate::record::value::{
    compare_values, decode_value, encode_value, ColumnType, Value, ValueError,
};

/// Marker byte of a NULL key part (before complementing for descending parts).
pub const NULL_MARKER: u8 = 0x00;
/// Marker byte of a non-NULL key part.
pub const VALUE_MARKER: u8 = 0x01;

/// One column of an index.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct KeyPart {
    pub ty: ColumnType,
    /// `DESC` key part.
    pub descending: bool,
    /// Index prefix length: characters for text, bytes for binary strings.
    pub prefix_len: Option<u32>,
}

impl KeyPart {
    /// An ascending part over the whole column.
    pub fn new(ty: ColumnType) -> KeyPart {
        KeyPart {
            ty,
            descending: false,
            prefix_len: None,
        }
    }

    /// The same part, descending.
    pub fn desc(mut self) -> KeyPart {
        self.descending = true;
        self
    }

    /// The same part on the first `len` characters (bytes for binary strings).
    pub fn prefix(mut self, len: u32) -> KeyPart {
        self.prefix_len = Some(len);
        self
    }

    /// True when [`decode_key`] can decode this part at all: everything except
    /// strings with a `_ci` collation.
    pub fn is_decodable(&self) -> bool {
        match self.ty.collation() {
            Some(c) => c.is_sort_key_reversible(),
            None => true,
        }
    }

    /// True when [`decode_key`] gives back exactly the stored value, so a covering
    /// read needs nothing else: not for prefix parts, `_ci` strings, and VARCHAR and
    /// TEXT with `_bin` collations (PAD SPACE drops trailing spaces from the key).
    /// FLOAT/DOUBLE -0.0 decodes as 0.0 (equal in SQL).
    pub fn is_reversible(&self) -> bool {
        if self.prefix_len.is_some() || !self.is_decodable() {
            return false;
        }
        match &self.ty {
            ColumnType::Varchar { collation, .. } | ColumnType::Text { collation, .. } => {
                *collation == Collation::Binary
            }
            _ => true,
        }
    }

    /// Largest encoded size of this part, marker included.
    pub fn max_encoded_len(&self) -> usize {
        1 + match &self.ty {
            ColumnType::Float => 4,
            ColumnType::Double => 8,
            ty if ty.is_binary_string() => {
                let max = ty.max_chars().unwrap_or(0) as usize;
                let n = self.prefix_len.map_or(max, |p| max.min(p as usize));
                sort_key_len_for_weights(n)
            }
            ty => match ty.collation() {
                Some(c) => {
                    let max = ty.max_chars().unwrap_or(0) as usize;
                    c.max_sort_key_len(self.prefix_len.map_or(max, |p| max.min(p as usize)))
                }
                None => ty.fixed_len().unwrap_or(0),
            },
        }
    }

    /// MySQL's length of this key part for the maximum-key-length check (error
    /// 1071): the column's maximum byte length, or prefix × `mbmaxlen`.
    pub fn mysql_key_len(&self) -> usize {
        let full = self.ty.max_storage_bytes();
        match (self.prefix_len, self.ty.collation()) {
            (Some(p), Some(c)) => full.min(p as usize * c.charset().max_bytes_per_char()),
            (Some(p), None) => full.min(p as usize),
            (None, _) => full,
        }
    }
}

/// Encodes a full key tuple (`values.len() == parts.len()`), appending to `out`.
///
/// Values are checked for type and range (fixed-width types must fit the column).
/// String lengths are not limited, so search keys longer than the column still
/// encode (and match nothing); prefix parts cut the value first.
pub fn encode_key(
    parts: &[KeyPart],
    values: &[Value],
    out: &mut Vec<u8>,
) -> Result<(), ValueError> {
    if values.len() != parts.len() {
        return Err(arity(parts.len(), values.len()));
    }
    encode_key_prefix(parts, values, out)
}

/// Encodes the leading `values.len()` parts of a key: every key whose leading values
/// are these starts with the returned bytes (range scans on a key prefix).
pub fn encode_key_prefix(
    parts: &[KeyPart],
    values: &[Value],
    out: &mut Vec<u8>,
) -> Result<(), ValueError> {
    if values.len() > parts.len() {
        return Err(arity(parts.len(), values.len()));
    }
    for (part, v) in parts.iter().zip(values) {
        let start = out.len();
        encode_part(part, v, out)?;
        if part.descending {
            out[start..].iter_mut().for_each(|b| *b = !*b);
        }
    }
    Ok(())
}

fn arity(parts: usize, values: usize) -> ValueError {
    ValueError::Unsupported(format!("{values} values for a key of {parts} parts"))
}

fn encode_part(part: &KeyPart, v: &Value, out: &mut Vec<u8>) -> Result<(), ValueError> {
    if v.is_null() {
        out.push(NULL_MARKER);
        return Ok(());
    }
    out.push(VALUE_MARKER);
    let ty = &part.ty;
    match ty {
        ColumnType::Float => {
            let f = match *v {
                Value::Float(f) => f,
                Value::Double(d) => d as f32,
                _ => return Err(mismatch(ty, v)),
            };
            check_finite(ty, f64::from(f))?;
            // -0.0 + 0.0 == 0.0: one encoding for both zeros.
            let bits = (f + 0.0).to_bits();
            let flipped = if bits >> 31 == 1 {
                !bits
            } else {
                bits | 1 << 31
            };
            out.extend_from_slice(&flipped.to_be_bytes());
        }
        ColumnType::Double => {
            let d = match *v {
                Value::Double(d) => d,
                Value::Float(f) => f64::from(f),
                _ => return Err(mismatch(ty, v)),
            };
            check_finite(ty, d)?;
            let bits = (d + 0.0).to_bits();
            let flipped = if bits >> 63 == 1 {
                !bits
            } else {
                bits | 1 << 63
            };
            out.extend_from_slice(&flipped.to_be_bytes());
        }
        _ if ty.is_binary_string() => {
            let b = match v {
                Value::Bytes(b) => b.as_slice(),
                Value::Str(s) => s.as_bytes(),
                _ => return Err(mismatch(ty, v)),
            };
            // BINARY(n) values are stored padded with 0x00; prefix parts cut.
            let padded = ty.fixed_len().map_or(b.len(), |w| w.max(b.len()));
            let target = part.prefix_len.map_or(padded, |p| padded.min(p as usize));
            let bytes: Cow<'_, [u8]> = if target <= b.len() {
                Cow::Borrowed(&b[..target])
            } else {
                let mut v = b.to_vec();
                v.resize(target, 0);
                Cow::Owned(v)
            };
            binary_sort_key(&bytes, out);
        }
        _ => match ty.collation() {
            Some(c) => {
                let Value::Str(s) = v else {
                    return Err(mismatch(ty, v));
                };
                c.sort_key(prefix_chars(s, part.prefix_len), out);
            }
            // Every other type's row encoding is fixed-width and memcomparable.
            None => encode_value(ty, v, out)?,
        },
    }
    Ok(())
}

fn check_finite(ty: &ColumnType, d: f64) -> Result<(), ValueError> {
    if d.is_finite() {
        Ok(())
    } else {
        Err(ValueError::OutOfRange {
            ty: ty.to_string(),
            value: d.to_string(),
        })
    }
}

fn mismatch(ty: &ColumnType, v: &Value) -> ValueError {
    ValueError::TypeMismatch {
        ty: ty.to_string(),
        value: v.kind(),
    }
}

/// The first `n` characters of `s` (all of it without a prefix length).
fn prefix_chars(s: &str, n: Option<u32>) -> &str {
    match n {
        Some(n) => s.char_indices().nth(n as usize).map_or(s, |(i, _)| &s[..i]),
        None => s,
    }
}

/// Length of the encoded part at the start of `key`.
pub(crate) fn part_len(part: &KeyPart, key: &[u8]) -> Result<usize, ValueError> {
    let flip = if part.descending { 0xFF } else { 0 };
    let marker = key
        .first()
        .ok_or_else(|| ValueError::Corrupt("truncated key".into()))?
        ^ flip;
    let body = &key[1..];
    let n = match marker {
        NULL_MARKER => 0,
        VALUE_MARKER => match &part.ty {
            ColumnType::Float => 4,
            ColumnType::Double => 8,
            ty if ty.is_binary_string() => Collation::Binary.sort_key_len(body, flip)?,
            ty => match ty.collation() {
                Some(c) => c.sort_key_len(body, flip)?,
                None => ty.fixed_len().unwrap_or(0),
            },
        },
        m => return Err(ValueError::Corrupt(format!("bad key part marker {m:#04x}"))),
    };
    if body.len() < n {
        return Err(ValueError::Corrupt("truncated key".into()));
    }
    Ok(1 + n)
}

/// Decodes one part whose (un-complemented) bytes are `enc`.
pub(crate) fn decode_part(part: &KeyPart, enc: &[u8]) -> Result<Value, ValueError> {
    if enc.first() == Some(&NULL_MARKER) {
        return Ok(Value::Null);
    }
    let body = &enc[1..];
    let ty = &part.ty;
    let v = match ty {
        ColumnType::Float => {
            let a: [u8; 4] = body.try_into().map_err(|_| bad_len())?;
            let bits = u32::from_be_bytes(a);
            let bits = if bits >> 31 == 1 {
                bits & !(1 << 31)
            } else {
                !bits
            };
            Value::Float(f32::from_bits(bits))
        }
        ColumnType::Double => {
            let a: [u8; 8] = body.try_into().map_err(|_| bad_len())?;
            let bits = u64::from_be_bytes(a);
            let bits = if bits >> 63 == 1 {
                bits & !(1 << 63)
            } else {
                !bits
            };
            Value::Double(f64::from_bits(bits))
        }
        _ if ty.is_binary_string() => Value::Bytes(decode_binary_sort_key(body, 0)?.0),
        _ => match ty.collation() {
            Some(c) => Value::Str(c.decode_sort_key(body, 0)?.0),
            None => decode_value(ty, body)?,
        },
    };
    Ok(v)
}

fn bad_len() -> ValueError {
    ValueError::Corrupt("bad key part length".into())
}

/// Calls `f(part index, un-complemented part bytes)` for each part of `key`, which
/// must hold exactly `parts.len()` parts.
fn for_each_part(
    parts: &[KeyPart],
    key: &[u8],
    mut f: impl FnMut(usize, &[u8]) -> Result<(), ValueError>,
) -> Result<(), ValueError> {
    let mut pos = 0;
    let mut buf = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let n = part_len(part, &key[pos..])?;
        let enc = &key[pos..pos + n];
        if part.descending {
            buf.clear();
            buf.extend(enc.iter().map(|b| !b));
            f(i, &buf)?;
        } else {
            f(i, enc)?;
        }
        pos += n;
    }
    if pos != key.len() {
        return Err(ValueError::Corrupt(format!(
            "{} bytes after the last key part",
            key.len() - pos
        )));
    }
    Ok(())
}

/// Byte ranges of the leading `parts.len()` parts of `key`, which may continue
/// with other bytes (a secondary index key followed by the primary key).
pub fn split_key_prefix(
    parts: &[KeyPart],
    key: &[u8],
) -> Result<Vec<std::ops::Range<usize>>, ValueError> {
    let mut ranges = Vec::with_capacity(parts.len());
    let mut pos = 0;
    for part in parts {
        let n = part_len(part, &key[pos..])?;
        ranges.push(pos..pos + n);
        pos += n;
    }
    Ok(ranges)
}

/// Decodes a key of exactly `parts.len()` parts. Fails with
/// [`ValueError::Unsupported`] for a part that is not [`KeyPart::is_decodable`].
/// Values of `_bin` VARCHAR/TEXT parts come back without trailing spaces, and
/// prefix parts as their prefix; see [`KeyPart::is_reversible`].
pub fn decode_key(parts: &[KeyPart], key: &[u8]) -> Result<Vec<Value>, ValueError> {
    if let Some(i) = parts.iter().position(|p| !p.is_decodable()) {
        return Err(not_decodable(&parts[i], i));
    }
    let mut values = Vec::with_capacity(parts.len());
    for_each_part(parts, key, |i, enc| {
        values.push(decode_part(&parts[i], enc)?);
        Ok(())
    })?;
    Ok(values)
}

fn not_decodable(part: &KeyPart, i: usize) -> ValueError {
    ValueError::Unsupported(format!("key part {i} ({}) cannot be decoded", part.ty))
}

/// Splits `key` into its parts' byte ranges (as stored, complemented for
/// descending parts).
pub fn split_key(parts: &[KeyPart], key: &[u8]) -> Result<Vec<std::ops::Range<usize>>, ValueError> {
    let mut ranges = Vec::with_capacity(parts.len());
    let mut pos = 0;
    for_each_part(parts, key, |_, enc| {
        ranges.push(pos..pos + enc.len());
        pos += enc.len();
        Ok(())
    })?;
    Ok(ranges)
}

/// Encodes the key into `key_out` and, into `originals_out`, the row encoding of
/// every non-NULL value of a part that is not [`KeyPart::is_reversible`] and has
/// no prefix length, each preceded by its length as a LEB128 varint. The B+tree
/// entry keeps `originals_out` in its value part so that covering reads return
/// the stored values ([`decode_key_with_values`]).
pub fn encode_key_with_values(
    parts: &[KeyPart],
    values: &[Value],
    key_out: &mut Vec<u8>,
    originals_out: &mut Vec<u8>,
) -> Result<(), ValueError> {
    encode_key(parts, values, key_out)?;
    let mut tmp = Vec::new();
    for (part, v) in parts.iter().zip(values) {
        if v.is_null() || part.is_reversible() || part.prefix_len.is_some() {
            continue;
        }
        tmp.clear();
        encode_value(&part.ty, v, &mut tmp)?;
        put_varint(tmp.len() as u64, originals_out);
        originals_out.extend_from_slice(&tmp);
    }
    Ok(())
}

/// Rebuilds the stored values from a key and the originals written by
/// [`encode_key_with_values`]. Prefix parts give `None`: a prefix index cannot
/// answer a covering read (as in MySQL).
pub fn decode_key_with_values(
    parts: &[KeyPart],
    key: &[u8],
    originals: &[u8],
) -> Result<Vec<Option<Value>>, ValueError> {
    let mut values = Vec::with_capacity(parts.len());
    let mut rest = originals;
    for_each_part(parts, key, |i, enc| {
        let part = &parts[i];
        let v = if enc.first() == Some(&NULL_MARKER) {
            Some(Value::Null)
        } else if part.prefix_len.is_some() {
            None
        } else if part.is_reversible() {
            Some(decode_part(part, enc)?)
        } else {
            let (len, used) = get_varint(rest)?;
            let end = usize::try_from(len)
                .ok()
                .and_then(|l| used.checked_add(l))
                .filter(|&e| e <= rest.len())
                .ok_or_else(|| ValueError::Corrupt("truncated key originals".into()))?;
            let v = decode_value(&part.ty, &rest[used..end])?;
            rest = &rest[end..];
            Some(v)
        };
        values.push(v);
        Ok(())
    })?;
    if !rest.is_empty() {
        return Err(ValueError::Corrupt(
            "extra bytes after key originals".into(),
        ));
    }
    Ok(values)
}

fn put_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8 & 0x7F) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(bytes: &[u8]) -> Result<(u64, usize), ValueError> {
    let mut v = 0u64;
    for (i, &b) in bytes.iter().enumerate().take(10) {
        v |= u64::from(b & 0x7F) << (7 * i);
        if b & 0x80 == 0 {
            return Ok((v, i + 1));
        }
    }
    Err(ValueError::Corrupt("bad varint".into()))
}

/// SQL order of two key tuples (the reference the encoding must agree with):
/// part by part, NULL first, strings by collation after prefix cutting,
/// descending parts reversed. Tuples may be shorter than `parts` (prefixes).
pub fn compare_key_values(
    parts: &[KeyPart],
    a: &[Value],
    b: &[Value],
) -> Result<Ordering, ValueError> {
    for (part, (x, y)) in parts.iter().zip(a.iter().zip(b)) {
        let o = match (x, y) {
            (Value::Null, Value::Null) => Ordering::Equal,
            (Value::Null, _) => Ordering::Less,
            (_, Value::Null) => Ordering::Greater,
            (Value::Str(s), Value::Str(t)) if part.ty.is_text() => {
                let c = part.ty.collation().unwrap_or(Collation::Binary);
                c.compare(
                    prefix_chars(s, part.prefix_len),
                    prefix_chars(t, part.prefix_len),
                )
            }
            _ if part.ty.is_binary_string() => {
                let cut = |v: &Value| -> Result<Vec<u8>, ValueError> {
                    let mut b = match v {
                        Value::Bytes(b) => b.clone(),
                        Value::Str(s) => s.as_bytes().to_vec(),
                        _ => return Err(mismatch(&part.ty, v)),
                    };
                    if let Some(w) = part.ty.fixed_len() {
                        if b.len() < w {
                            b.resize(w, 0);
                        }
                    }
                    if let Some(p) = part.prefix_len {
                        b.truncate(p as usize);
                    }
                    Ok(b)
                };
                cut(x)?.cmp(&cut(y)?)
            }
            _ => compare_values(&part.ty, x, y)?,
        };
        let o = if part.descending { o.reverse() } else { o };
        if o != Ordering::Equal {
            return Ok(o);
        }
    }
    Ok(a.len().min(parts.len()).cmp(&b.len().min(parts.len())))
}

/// Upper bound of the encoded length of a key over `parts` (buffer sizing and
/// the B+tree's records-per-page check). The MySQL maximum-key-length check
/// (error 1071, `PageSize::max_key_bytes`) uses [`mysql_key_len`] instead, which
/// counts column bytes as MySQL does.
pub fn key_len_upper_bound(parts: &[KeyPart]) -> usize {
    parts
        .iter()
        .map(KeyPart::max_encoded_len)
        .fold(0usize, usize::saturating_add)
}

/// MySQL's key length: the sum of [`KeyPart::mysql_key_len`]; compare it with
/// `PageSize::max_key_bytes` (3072 at 16k+, 1536 at 8k, 768 at 4k) for error 1071.
pub fn mysql_key_len(parts: &[KeyPart]) -> usize {
    parts
        .iter()
        .map(KeyPart::mysql_key_len)
        .fold(0usize, usize::saturating_add)
}

/// The smallest byte string greater than `key`: `key` followed by 0x00. As an
/// exclusive lower bound it skips exactly `key`.
pub fn successor(key: &[u8]) -> Vec<u8> {
    let mut s = Vec::with_capacity(key.len() + 1);
    s.extend_from_slice(key);
    s.push(0);
    s
}

/// The smallest byte string greater than every string starting with `prefix`
/// (the exclusive upper bound of a prefix range scan), or `None` when there is
/// none (`prefix` empty or all 0xFF: scan to the end).
pub fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let keep = prefix.iter().rposition(|&b| b != 0xFF)?;
    let mut end = prefix[..=keep].to_vec();
    end[keep] += 1;
    Some(end)
}

#[cfg(test)]
pub(crate) mod testgen;
#[cfg(test)]
mod tests;
