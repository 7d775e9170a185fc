//! The table (`Func::Extra`) of the time zone, formatting, compression,
//! encryption and network address functions: CONVERT_TZ, TIME_FORMAT,
//! GET_FORMAT and TIMESTAMP (`func_tz`), COMPRESS, UNCOMPRESS,
//! UNCOMPRESSED_LENGTH, AES_ENCRYPT and AES_DECRYPT (`func_crypt`),
//! INET6_ATON, INET6_NTOA, IS_IPV4, IS_IPV6, IS_IPV4_COMPAT and
//! IS_IPV4_MAPPED (`func_inet`), with their NULL rules and dispatch.
//! Their result types are in `compile/extra_types.rs`.

use larch_engine::record::value::Value;

use super::convert::to_int;
use super::{func_crypt, func_inet, func_tz, EvalContext};
use crate::error::SqlError;

/// The functions of this module (`Func::Extra`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Extra {
    ConvertTz,
    TimeFormat,
    /// GET_FORMAT(kind, standard): the compiler passes the kind keyword as
    /// an integer first argument (an index of `func_tz::FORMAT_KINDS`).
    GetFormat,
    /// TIMESTAMP(expr[, time]).
    Timestamp,
    Compress,
    Uncompress,
    UncompressedLength,
    AesEncrypt,
    AesDecrypt,
    Inet6Aton,
    Inet6Ntoa,
    IsIpv4,
    IsIpv6,
    IsIpv4Compat,
    IsIpv4Mapped,
}

/// The function of an upper-case name with its (min, max) argument counts.
pub(super) fn lookup(upper: &str) -> Option<(Extra, usize, usize)> {
    use Extra::*;
    Some(match upper {
        "CONVERT_TZ" => (ConvertTz, 3, 3),
        "TIME_FORMAT" => (TimeFormat, 2, 2),
        "TIMESTAMP" => (Timestamp, 1, 2),
        "COMPRESS" => (Compress, 1, 1),
        "UNCOMPRESS" => (Uncompress, 1, 1),
        "UNCOMPRESSED_LENGTH" => (UncompressedLength, 1, 1),
        "AES_ENCRYPT" => (AesEncrypt, 2, 2),
        "AES_DECRYPT" => (AesDecrypt, 2, 2),
        "INET6_ATON" => (Inet6Aton, 1, 1),
        "INET6_NTOA" => (Inet6Ntoa, 1, 1),
        "IS_IPV4" => (IsIpv4, 1, 1),
        "IS_IPV6" => (IsIpv6, 1, 1),
        "IS_IPV4_COMPAT" => (IsIpv4Compat, 1, 1),
        "IS_IPV4_MAPPED" => (IsIpv4Mapped, 1, 1),
        _ => return None,
    })
}

/// True for the functions that are NULL whenever an argument is NULL
/// (the IS_ functions are 0).
pub(super) fn null_propagating(e: Extra) -> bool {
    use Extra::*;
    !matches!(e, IsIpv4 | IsIpv6 | IsIpv4Compat | IsIpv4Mapped)
}

/// Evaluates a function of this module.
pub(super) fn call(e: Extra, v: &[Value], ctx: &mut EvalContext<'_>) -> Result<Value, SqlError> {
    use Extra::*;
    Ok(match e {
        ConvertTz => func_tz::convert_tz(v, ctx),
        TimeFormat => func_tz::time_format(v, ctx),
        GetFormat => func_tz::get_format(to_int(&v[0], ctx), &v[1]),
        Timestamp => func_tz::timestamp(v, ctx),
        Compress => func_crypt::compress(&v[0]),
        Uncompress => func_crypt::uncompress(&v[0], ctx),
        UncompressedLength => func_crypt::uncompressed_length(&v[0], ctx),
        AesEncrypt => func_crypt::aes_encrypt(&v[0], &v[1]),
        AesDecrypt => func_crypt::aes_decrypt(&v[0], &v[1]),
        Inet6Aton => func_inet::inet6_aton(&v[0]),
        Inet6Ntoa => func_inet::inet6_ntoa(&v[0]),
        IsIpv4 => func_inet::is_ip(&v[0], false),
        IsIpv6 => func_inet::is_ip(&v[0], true),
        IsIpv4Compat => func_inet::is_ipv4_in_6(&v[0], false, ctx),
        IsIpv4Mapped => func_inet::is_ipv4_in_6(&v[0], true, ctx),
    })
}
