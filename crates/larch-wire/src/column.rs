//! Column definitions of result sets (`Protocol::ColumnDefinition41`).
//!
//! A [`ColumnDef`] carries what a client needs to read a column: names,
//! MySQL type, flags (`NOT_NULL`, `UNSIGNED`, `BINARY`, keys ...), character
//! set (collation id), display length and decimals. The binary protocol
//! encodes row values according to [`ColumnDef::column_type`] and
//! [`ColumnDef::flags`], so they must describe the values the SQL layer
//! puts in rows.

use mysql_common::io::BufMutExt;

pub use mysql_common::constants::{ColumnFlags, ColumnType};

/// Collation id of `utf8mb4_general_ci`, the default character set of
/// result columns.
pub const UTF8MB4_GENERAL_CI: u16 = 45;
/// Collation id of `binary` (numbers, temporal types, blobs).
pub const BINARY_COLLATION: u16 = 63;
/// `decimals` value meaning "not a fixed number of fractional digits".
pub const NOT_FIXED_DECIMALS: u8 = 31;

/// One column of a result set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnDef {
    /// Database of the underlying table (may be empty).
    pub schema: String,
    /// Table alias as written in the query (may be empty).
    pub table: String,
    /// Physical table name (may be empty).
    pub org_table: String,
    /// Column alias as the client sees it.
    pub name: String,
    /// Physical column name (may be empty).
    pub org_name: String,
    /// Collation id of the column's character set.
    pub charset: u16,
    /// Maximum display length in bytes.
    pub length: u32,
    /// MySQL column type.
    pub column_type: ColumnType,
    /// Column flags.
    pub flags: ColumnFlags,
    /// Fractional digits (0x00..0x51, 31 = not fixed).
    pub decimals: u8,
}

impl ColumnDef {
    /// A column named `name` of type `column_type`, with the charset, length
    /// and flags MySQL uses for an unqualified expression of that type.
    pub fn new(name: impl Into<String>, column_type: ColumnType) -> Self {
        use ColumnType::*;
        let (charset, length, flags, decimals) = match column_type {
            MYSQL_TYPE_TINY => (BINARY_COLLATION, 4, ColumnFlags::NUM_FLAG, 0),
            MYSQL_TYPE_SHORT => (BINARY_COLLATION, 6, ColumnFlags::NUM_FLAG, 0),
            MYSQL_TYPE_INT24 => (BINARY_COLLATION, 9, ColumnFlags::NUM_FLAG, 0),
            MYSQL_TYPE_LONG => (BINARY_COLLATION, 11, ColumnFlags::NUM_FLAG, 0),
            MYSQL_TYPE_LONGLONG => (BINARY_COLLATION, 20, ColumnFlags::NUM_FLAG, 0),
            MYSQL_TYPE_YEAR => (
                BINARY_COLLATION,
                4,
                ColumnFlags::NUM_FLAG | ColumnFlags::UNSIGNED_FLAG,
                0,
            ),
            MYSQL_TYPE_FLOAT => (
                BINARY_COLLATION,
                12,
                ColumnFlags::NUM_FLAG,
                NOT_FIXED_DECIMALS,
            ),
            MYSQL_TYPE_DOUBLE => (
                BINARY_COLLATION,
                22,
                ColumnFlags::NUM_FLAG,
                NOT_FIXED_DECIMALS,
            ),
            MYSQL_TYPE_DECIMAL | MYSQL_TYPE_NEWDECIMAL => (
                BINARY_COLLATION,
                67,
                ColumnFlags::NUM_FLAG,
                NOT_FIXED_DECIMALS,
            ),
            MYSQL_TYPE_DATE | MYSQL_TYPE_NEWDATE => {
                (BINARY_COLLATION, 10, ColumnFlags::BINARY_FLAG, 0)
            }
            MYSQL_TYPE_TIME | MYSQL_TYPE_TIME2 => {
                (BINARY_COLLATION, 17, ColumnFlags::BINARY_FLAG, 6)
            }
            MYSQL_TYPE_DATETIME | MYSQL_TYPE_DATETIME2 => {
                (BINARY_COLLATION, 26, ColumnFlags::BINARY_FLAG, 6)
            }
            MYSQL_TYPE_TIMESTAMP | MYSQL_TYPE_TIMESTAMP2 => (
                BINARY_COLLATION,
                26,
                ColumnFlags::BINARY_FLAG | ColumnFlags::TIMESTAMP_FLAG,
                6,
            ),
            MYSQL_TYPE_TINY_BLOB
            | MYSQL_TYPE_MEDIUM_BLOB
            | MYSQL_TYPE_LONG_BLOB
            | MYSQL_TYPE_BLOB
            | MYSQL_TYPE_GEOMETRY => (
                BINARY_COLLATION,
                u32::MAX,
                ColumnFlags::BLOB_FLAG | ColumnFlags::BINARY_FLAG,
                0,
            ),
            MYSQL_TYPE_NULL => (BINARY_COLLATION, 0, ColumnFlags::BINARY_FLAG, 0),
            MYSQL_TYPE_BIT => (BINARY_COLLATION, 1, ColumnFlags::UNSIGNED_FLAG, 0),
            // VARCHAR, VAR_STRING, STRING, JSON, ENUM, SET, ...
            _ => (UTF8MB4_GENERAL_CI, 1024, ColumnFlags::empty(), 0),
        };
        ColumnDef {
            schema: String::new(),
            table: String::new(),
            org_table: String::new(),
            name: name.into(),
            org_name: String::new(),
            charset,
            length,
            column_type,
            flags,
            decimals,
        }
    }

    /// Sets the table alias and physical table name.
    pub fn with_table(mut self, schema: &str, table: &str) -> Self {
        self.schema = schema.to_owned();
        self.table = table.to_owned();
        self.org_table = table.to_owned();
        self.org_name = self.name.clone();
        self
    }

    /// Adds flags (e.g. `NOT_NULL_FLAG | PRI_KEY_FLAG`).
    pub fn with_flags(mut self, flags: ColumnFlags) -> Self {
        self.flags |= flags;
        self
    }

    /// Marks the column unsigned (integers decode as [`crate::Value::UInt`]).
    pub fn unsigned(self) -> Self {
        self.with_flags(ColumnFlags::UNSIGNED_FLAG)
    }

    /// Sets the display length.
    pub fn with_length(mut self, length: u32) -> Self {
        self.length = length;
        self
    }

    /// Sets the fractional digits.
    pub fn with_decimals(mut self, decimals: u8) -> Self {
        self.decimals = decimals;
        self
    }

    /// Sets the collation id.
    pub fn with_charset(mut self, charset: u16) -> Self {
        self.charset = charset;
        self
    }

    /// Appends the `ColumnDefinition41` payload.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.put_lenenc_str(b"def");
        out.put_lenenc_str(self.schema.as_bytes());
        out.put_lenenc_str(self.table.as_bytes());
        out.put_lenenc_str(self.org_table.as_bytes());
        out.put_lenenc_str(self.name.as_bytes());
        out.put_lenenc_str(self.org_name.as_bytes());
        out.push(0x0c);
        out.extend_from_slice(&self.charset.to_le_bytes());
        out.extend_from_slice(&self.length.to_le_bytes());
        out.push(self.column_type as u8);
        out.extend_from_slice(&self.flags.bits().to_le_bytes());
        out.push(self.decimals);
        out.extend_from_slice(&[0, 0]);
    }

    /// Appends the `COM_FIELD_LIST` form: the definition followed by an
    /// empty length-encoded default value.
    pub fn encode_field_list(&self, out: &mut Vec<u8>) {
        self.encode(out);
        out.push(0xfb);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definition_layout_matches_protocol() {
        let col = ColumnDef::new("id", ColumnType::MYSQL_TYPE_LONG)
            .with_table("db", "t")
            .with_flags(ColumnFlags::NOT_NULL_FLAG);
        let mut out = Vec::new();
        col.encode(&mut out);
        let expected_prefix = b"\x03def\x02db\x01t\x01t\x02id\x02id\x0c";
        assert_eq!(&out[..expected_prefix.len()], expected_prefix);
        let fixed = &out[expected_prefix.len()..];
        assert_eq!(fixed.len(), 12);
        assert_eq!(&fixed[0..2], &63u16.to_le_bytes()); // charset
        assert_eq!(&fixed[2..6], &11u32.to_le_bytes()); // length
        assert_eq!(fixed[6], ColumnType::MYSQL_TYPE_LONG as u8);
        let flags = u16::from_le_bytes([fixed[7], fixed[8]]);
        assert_eq!(
            flags,
            (ColumnFlags::NOT_NULL_FLAG | ColumnFlags::NUM_FLAG).bits()
        );
        assert_eq!(fixed[9], 0); // decimals
    }
}
