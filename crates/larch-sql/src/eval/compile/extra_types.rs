//! Result types of the functions of `func_extra`, as MariaDB 10.11
//! announces them: CONVERT_TZ and TIMESTAMP are DATETIMEs with their
//! arguments' fractional digits; TIME_FORMAT is as long as DATE_FORMAT
//! sizes its format (`format_length`), ten times the format's bytes when
//! it is no literal; GET_FORMAT is a VARCHAR(17); COMPRESS is a VARBINARY
//! of 120% of its argument's bytes plus 12, UNCOMPRESS a LONGBLOB,
//! UNCOMPRESSED_LENGTH an INT(10); AES_ENCRYPT is a VARBINARY of the
//! argument's bytes rounded up to the next whole block, AES_DECRYPT as
//! long as its argument; INET6_ATON is a VARBINARY(16), INET6_NTOA a
//! VARCHAR(39) and the IS_ functions INT(1).

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, LobKind, Value};

use super::super::func_extra::Extra;
use super::super::{Coerce, Expr};
use super::types::*;

/// An argument's length in bytes (characters times its charset's
/// `mbmaxlen`).
fn byte_len(a: &Typed) -> u32 {
    let per_char =
        a.ty.ty
            .collation()
            .map_or(1, |c| c.charset().max_bytes_per_char() as u32);
    str_len(&a.ty.ty).saturating_mul(per_char)
}

/// The fractional digits of a temporal argument (none for NULL).
fn fsp(a: &Typed) -> u8 {
    if a.null_lit {
        0
    } else {
        time_precision(a)
    }
}

/// MariaDB's `Item_func_date_format::format_length` of a format.
pub(super) fn format_length(format: &str) -> u32 {
    let mut size = 0u32;
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' || chars.peek().is_none() {
            size += 1;
            continue;
        }
        size += match chars.next() {
            Some('M' | 'W') => 64,
            Some('D' | 'Y' | 'x' | 'X') => 4,
            Some('a' | 'b') => 32,
            Some('j') => 3,
            Some(
                'U' | 'u' | 'V' | 'v' | 'y' | 'm' | 'd' | 'h' | 'I' | 'i' | 'l' | 'p' | 'S' | 's'
                | 'c' | 'e',
            ) => 2,
            Some('k' | 'H') => 7,
            Some('r') => 11,
            Some('T') => 8,
            Some('f') => 6,
            _ => 1,
        };
    }
    size
}

/// Result type, branch coercion and nullability of a `func_extra` call;
/// `coll` is the connection's collation (that of the text results).
pub(super) fn extra_type(e: Extra, args: &[Typed], coll: Collation) -> (ColumnType, Coerce, bool) {
    let any_null = args.iter().any(|a| a.ty.nullable);
    let varbinary = |max_len: u32| ColumnType::Varbinary { max_len };
    let ty = match e {
        Extra::ConvertTz => ColumnType::Datetime { fsp: fsp(&args[0]) },
        Extra::Timestamp => ColumnType::Datetime {
            fsp: args.iter().map(fsp).max().unwrap_or(0),
        },
        Extra::TimeFormat => {
            let len = match &args[1].expr {
                Expr::Literal(Value::Str(f)) => format_length(f),
                _ => byte_len(&args[1]).saturating_mul(10),
            };
            string_type(len, false, coll)
        }
        Extra::GetFormat => string_type(17, false, coll),
        Extra::Compress => {
            let n = byte_len(&args[0]);
            varbinary(n.saturating_mul(120) / 100 + 12)
        }
        Extra::Uncompress => ColumnType::Blob {
            kind: LobKind::Long,
        },
        Extra::UncompressedLength => ColumnType::Int {
            bytes: 4,
            unsigned: false,
        },
        Extra::AesEncrypt => varbinary((byte_len(&args[0]) / 16 + 1).saturating_mul(16)),
        Extra::AesDecrypt => varbinary(byte_len(&args[0])),
        Extra::Inet6Aton => varbinary(16),
        Extra::Inet6Ntoa => string_type(39, false, coll),
        Extra::IsIpv4 | Extra::IsIpv6 | Extra::IsIpv4Compat | Extra::IsIpv4Mapped => {
            return (
                ColumnType::Int {
                    bytes: 4,
                    unsigned: false,
                },
                Coerce::Keep,
                any_null,
            )
        }
    };
    (ty, Coerce::Keep, true)
}

/// MariaDB's display length of an integer result.
pub(super) fn extra_int_len(e: Extra) -> Option<u32> {
    match e {
        Extra::UncompressedLength => Some(10),
        Extra::IsIpv4 | Extra::IsIpv6 | Extra::IsIpv4Compat | Extra::IsIpv4Mapped => Some(1),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::format_length;

    #[test]
    fn format_lengths_follow_mariadb() {
        assert_eq!(format_length("%H"), 7);
        assert_eq!(format_length("%H%H%H%H%H%H"), 42);
        assert_eq!(format_length("xx"), 2);
        assert_eq!(format_length("%T %r %f %%"), 8 + 1 + 11 + 1 + 6 + 1 + 1);
        assert_eq!(format_length("abc%"), 4);
    }
}
