//! MariaDB's UUID type: its text form, and the byte order it is stored in.
//!
//! A UUID value has two 16-byte forms, as in MariaDB 10.11:
//!
//! - the **memory form**: the bytes in the order the text shows them
//!   (`llllllll-mmmm-Vhhh-vsss-nnnnnnnnnnnn`: time low, time mid, version
//!   and time high, variant and clock sequence, node);
//! - the **record form**, what rows and keys hold ([`ColumnType::Uuid`]).
//!   For a UUID of version 1 to 5 with the RFC 4122 variant, the five
//!   segments are stored in reverse order (`nnnnnnnnnnnn vsss Vhhh mmmm
//!   llllllll`), so that time-based UUIDs sort by time; any other UUID is
//!   stored as it is. Byte order of the record form is MariaDB's UUID order
//!   (ORDER BY, MIN/MAX, comparisons, indexes).
//!
//! The swap is decided on the memory form by its version byte (1..=0x5F)
//! and variant bit, and undone on the record form by the byte positions those
//! two land on; text whose bytes would be ambiguous in the record form
//! (version 8 or more with variant 0) is not a UUID, as in MariaDB.
//!
//! Text accepted by [`parse`]: 32 hexadecimal digits, either case, with any
//! number of `-` between digits (not first, not last). [`format`] writes the
//! canonical 36-character lowercase form.
//!
//! [`ColumnType::Uuid`]: super::value::ColumnType::Uuid

/// Bytes of a UUID value.
pub const UUID_BYTES: usize = 16;
/// Characters of a UUID's canonical text.
pub const UUID_TEXT_LEN: usize = 36;

/// `(memory position, record position, length)` of the five segments.
const SEGMENTS: [(usize, usize, usize); 5] =
    [(0, 12, 4), (4, 10, 2), (6, 8, 2), (8, 6, 2), (10, 0, 6)];

/// True when a UUID (memory form) is stored with its segments reversed:
/// version 1..5 (its byte 1..=0x5F) and the RFC 4122 variant (top bit set).
fn memory_needs_swap(m: &[u8; UUID_BYTES]) -> bool {
    (1..0x60).contains(&m[6]) && m[8] & 0x80 != 0
}

/// True when a record-form value holds reversed segments: the variant byte
/// (record position 6) has its top bit set and the version byte (record
/// position 8) is one a swapped UUID can have (MariaDB's sign test).
fn record_is_swapped(r: &[u8; UUID_BYTES]) -> bool {
    let variant = i32::from(r[6] as i8);
    let version = i32::from(r[8] as i8);
    variant & -version & 0x80 != 0
}

/// Reads a UUID's text into its memory form; `None` when it is not a UUID.
pub fn parse(text: &[u8]) -> Option<[u8; UUID_BYTES]> {
    if text.len() < 32 {
        return None;
    }
    let mut out = [0u8; UUID_BYTES];
    let mut pos = 0;
    let digit = |pos: &mut usize| -> Option<u8> {
        let c = *text.get(*pos)?;
        *pos += 1;
        (c as char).to_digit(16).map(|d| d as u8)
    };
    let skip_hyphens = |pos: &mut usize| {
        while text.get(*pos) == Some(&b'-') {
            *pos += 1;
        }
    };
    for (i, byte) in out.iter_mut().enumerate() {
        let hi = digit(&mut pos)?;
        skip_hyphens(&mut pos);
        let lo = digit(&mut pos)?;
        *byte = (hi << 4) | lo;
        if i + 1 < UUID_BYTES {
            skip_hyphens(&mut pos);
        }
    }
    if pos != text.len() {
        return None;
    }
    // A version 8+ byte with variant 0 would read back as a swapped value.
    if i32::from(out[6] as i8) & -i32::from(out[8] as i8) & 0x80 != 0 {
        return None;
    }
    Some(out)
}

/// The canonical text of a UUID in memory form.
pub fn format(m: &[u8; UUID_BYTES]) -> String {
    let mut s = String::with_capacity(UUID_TEXT_LEN);
    for (i, b) in m.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// The record form of a UUID in memory form.
pub fn to_record(m: &[u8; UUID_BYTES]) -> [u8; UUID_BYTES] {
    if !memory_needs_swap(m) {
        return *m;
    }
    let mut r = [0u8; UUID_BYTES];
    for (mem, rec, len) in SEGMENTS {
        r[rec..rec + len].copy_from_slice(&m[mem..mem + len]);
    }
    r
}

/// The memory form of a UUID in record form.
pub fn from_record(r: &[u8; UUID_BYTES]) -> [u8; UUID_BYTES] {
    if !record_is_swapped(r) {
        return *r;
    }
    let mut m = [0u8; UUID_BYTES];
    for (mem, rec, len) in SEGMENTS {
        m[mem..mem + len].copy_from_slice(&r[rec..rec + len]);
    }
    m
}

/// The record form of a UUID's text; `None` when it is not a UUID.
pub fn record_from_text(text: &[u8]) -> Option<[u8; UUID_BYTES]> {
    parse(text).map(|m| to_record(&m))
}

/// The canonical text of a record-form value; `None` unless it has 16 bytes.
pub fn text_of_record(bytes: &[u8]) -> Option<String> {
    let r: &[u8; UUID_BYTES] = bytes.try_into().ok()?;
    Some(format(&from_record(r)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(text: &str) -> [u8; UUID_BYTES] {
        record_from_text(text.as_bytes()).unwrap()
    }

    #[test]
    fn text_forms_mariadb_accepts() {
        let canonical = "550e8400-e29b-41d4-a716-446655440000";
        for t in [
            canonical,
            "550E8400E29B41D4A716446655440000",
            "550e-8400-e29b41d4a716---446655440000",
            "5-5-0-e-8-4-0-0-e-2-9-b-4-1-d-4-a-7-1-6-4-4-6-6-5-5-4-4-0-0-0-0",
        ] {
            let m = parse(t.as_bytes()).unwrap_or_else(|| panic!("{t}"));
            assert_eq!(format(&m), canonical, "{t}");
        }
        for t in [
            "",
            "zz",
            "-550e8400e29b41d4a716446655440000",
            "550e8400e29b41d4a716446655440000-",
            "{550e8400-e29b-41d4-a716-446655440000}",
            "550e8400e29b41d4a71644665544000",
            "550e8400e29b41d4a7164466554400000",
            // version 8 with variant 0: ambiguous in the record form
            "00000000-0000-8000-0100-000000000000",
        ] {
            assert!(parse(t.as_bytes()).is_none(), "{t}");
        }
    }

    #[test]
    fn record_form_round_trips_and_sorts_as_mariadb() {
        // MariaDB 10.11's ORDER BY of these values.
        let sorted = [
            "ffffffff-0000-1000-8000-000000000000",
            "00000000-0001-1000-8000-000000000000",
            "00000001-0000-4000-8000-000000000000",
            "00000000-0001-1000-0000-000000000000",
            "00000000-0000-1000-8000-000000000001",
            "11111111-2222-3333-4444-555555555555",
            "12345678-9012-3456-7890-123456789012",
            "550e8400-e29b-41d4-a716-446655440000",
            "550e8400-e29b-41d4-a716-446655440001",
        ];
        for w in sorted.windows(2) {
            assert!(rec(w[0]) < rec(w[1]), "{} < {}", w[0], w[1]);
        }
        for t in sorted {
            assert_eq!(text_of_record(&rec(t)).unwrap(), t);
        }
        assert_eq!(text_of_record(&[0; 15]), None);
    }
}
