//! Character and binary string values: MySQL's length rules (CHAR drops trailing
//! spaces, BINARY pads with 0x00, excess trailing spaces are cut, anything longer
//! is data too long) and their row encoding (the raw bytes in the column's
//! character set).

use super::{mismatch, ColumnType, Value, ValueError};
use crate::record::collation::{Charset, Collation};

/// BINARY, VARBINARY, BLOB and binary-collation text: the bytes, BINARY padded
/// with 0x00 to its width.
pub(super) fn encode_binary_string(
    ty: &ColumnType,
    v: &Value,
    out: &mut Vec<u8>,
) -> Result<(), ValueError> {
    let b = match v {
        Value::Bytes(b) => b.as_slice(),
        Value::Str(s) => s.as_bytes(),
        _ => return Err(mismatch(ty, v)),
    };
    let max = ty.max_chars().unwrap_or(0);
    if b.len() as u64 > max {
        return Err(too_long(ty, b.len() as u64, max));
    }
    out.extend_from_slice(b);
    if let Some(width) = ty.fixed_len() {
        out.resize(out.len() + width - b.len(), 0);
    }
    Ok(())
}

/// CHAR, VARCHAR and TEXT: the value after [`fit_text`], in the column's charset.
pub(super) fn encode_text(
    ty: &ColumnType,
    collation: &Collation,
    v: &Value,
    out: &mut Vec<u8>,
) -> Result<(), ValueError> {
    let Value::Str(s) = v else {
        return Err(mismatch(ty, v));
    };
    let s = fit_text(ty, s)?;
    collation.charset().encode(s, out)?;
    Ok(())
}

fn too_long(ty: &ColumnType, len: u64, max: u64) -> ValueError {
    ValueError::TooLong {
        ty: ty.to_string(),
        len,
        max,
    }
}

/// Applies MySQL's length rules to a text value: CHAR drops trailing spaces; a
/// value too long only by trailing spaces is cut (MySQL note 1265); otherwise
/// [`ValueError::TooLong`].
fn fit_text<'a>(ty: &ColumnType, s: &'a str) -> Result<&'a str, ValueError> {
    let s = if matches!(ty, ColumnType::Char { .. }) {
        s.trim_end_matches(' ')
    } else {
        s
    };
    let (limit, chars) = match ty {
        ColumnType::Char { len, .. } => (u64::from(*len), true),
        ColumnType::Varchar { max_len, .. } => (u64::from(*max_len), true),
        ColumnType::Text { kind, collation } => {
            // TEXT limits are in bytes of the column's character set.
            let bytes = match collation.charset() {
                Charset::Latin1 => s.chars().count(),
                _ => s.len(),
            };
            if bytes as u64 <= kind.max_bytes() {
                return Ok(s);
            }
            (kind.max_bytes(), false)
        }
        _ => return Ok(s),
    };
    let (count, cut) = if chars {
        let count = s.chars().count() as u64;
        if count <= limit {
            return Ok(s);
        }
        let cut = s
            .char_indices()
            .nth(limit as usize)
            .map_or(s.len(), |(i, _)| i);
        (count, cut)
    } else {
        // Cut at the last character boundary within `limit` bytes.
        let mut cut = 0;
        let mut used = 0u64;
        let latin1 = ty.collation().map(|c| c.charset()) == Some(Charset::Latin1);
        for (i, c) in s.char_indices() {
            used += if latin1 { 1 } else { c.len_utf8() as u64 };
            if used > limit {
                break;
            }
            cut = i + c.len_utf8();
        }
        (used, cut)
    };
    if s[cut..].bytes().all(|b| b == b' ') {
        Ok(&s[..cut])
    } else {
        Err(too_long(ty, count, limit))
    }
}
