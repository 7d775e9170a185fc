//! Query bytes that are not UTF-8: COM_QUERY may carry them (mysqldump
//! writes BLOB data inside string literals), so each such byte travels
//! through the parser as a private-use character, U+10FF00 + byte
//! ([`bytes_to_text`]); a literal holding them turns back into the original
//! bytes ([`raw_bytes`]); an identifier holding them is refused with 1300
//! as MariaDB refuses it ([`invalid_identifier`]).

use crate::error::SqlError;

/// First code point of the range that carries bytes which are not UTF-8
/// (U+10FF00 + byte, in a private-use plane), see `parse::parse_bytes`.
const RAW_BYTE_BASE: u32 = 0x10_FF00;

/// True for a character that carries a byte that was not UTF-8 (see
/// [`bytes_to_text`]).
pub fn is_raw_byte(c: char) -> bool {
    (RAW_BYTE_BASE..=RAW_BYTE_BASE + 0xFF).contains(&(c as u32))
}

/// 1300 for an identifier holding bytes that are not UTF-8, as MariaDB
/// writes it: `Invalid utf8mb4 character string: 'a\xFFb'`.
pub(super) fn invalid_identifier(name: &str) -> SqlError {
    let mut shown = String::new();
    for c in name.chars() {
        if is_raw_byte(c) {
            shown.push_str(&format!("\\x{:02X}", c as u32 - RAW_BYTE_BASE));
        } else {
            shown.push(c);
        }
    }
    SqlError::new(1300, format!("Invalid utf8mb4 character string: '{shown}'"))
}

/// Maps bytes to a string, invalid UTF-8 bytes to U+10FF00 + byte.
pub fn bytes_to_text(mut b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len() + 16);
    while !b.is_empty() {
        match std::str::from_utf8(b) {
            Ok(s) => {
                out.push_str(s);
                break;
            }
            Err(e) => {
                let (good, rest) = b.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                let bad = e.error_len().unwrap_or(rest.len()).max(1);
                for &x in &rest[..bad] {
                    out.extend(char::from_u32(RAW_BYTE_BASE + u32::from(x)));
                }
                b = &rest[bad..];
            }
        }
    }
    out
}

/// The original bytes of a string that holds carried raw bytes (see
/// `parse::parse_bytes`); `None` when it holds none.
pub fn raw_bytes(s: &str) -> Option<Vec<u8>> {
    let is_raw = |c: char| (RAW_BYTE_BASE..=RAW_BYTE_BASE + 0xFF).contains(&(c as u32));
    if !s.chars().any(is_raw) {
        return None;
    }
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        if is_raw(c) {
            out.push((c as u32 - RAW_BYTE_BASE) as u8);
        } else {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    Some(out)
}
