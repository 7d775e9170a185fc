//! The math functions LN, LOG (one and two arguments), LOG2, LOG10, EXP,
//! SIN, COS, TAN, COT, ASIN, ACOS, ATAN (one and two arguments), ATAN2,
//! DEGREES and RADIANS, and the table (`Func::MathStr`) of the more string
//! functions of `func_strings_more` (CHAR, CHR, ORD, SHA1, SHA2, CRC32,
//! FIELD, FIND_IN_SET, ELT, INSERT, FORMAT, CONV, BIN, OCT, QUOTE,
//! TO_BASE64, FROM_BASE64, BIT_COUNT, MAKE_SET, EXPORT_SET, SOUNDEX,
//! INET_ATON, INET_NTOA, UUID) with their result types.
//!
//! MariaDB's rules followed here: every math function computes in DOUBLE;
//! a logarithm of a number that is not positive (and LOG with base 1) is
//! NULL with warning 1365 "Division by 0" (an error where division by
//! zero is one); ASIN and ACOS outside [-1, 1] are NULL without warning;
//! an infinite result (EXP(710), COT(0), DEGREES(1e308)) is error 1690;
//! strings that are no number read as their numeric prefix with 1292.

use larch_engine::record::collation::Collation;
use larch_engine::record::value::Value;

use super::convert::to_f64;
use super::{func_strings_more, EvalContext};
use crate::error::SqlError;

/// The functions of this module (`Func::MathStr`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MathStr {
    Ln,
    /// LOG(x) or LOG(base, x).
    Log,
    Log2,
    Log10,
    Exp,
    Sin,
    Cos,
    Tan,
    Cot,
    Asin,
    Acos,
    /// ATAN(x), ATAN(y, x) and ATAN2(y, x).
    Atan,
    Degrees,
    Radians,
    /// CHAR(n, ...): the bytes of each integer.
    Char,
    /// CHR(n): CHAR(n) in the connection's character set.
    Chr,
    Ord,
    Sha1,
    Sha2,
    Crc32,
    Field,
    FindInSet,
    Elt,
    Insert,
    Format,
    Conv,
    Bin,
    Oct,
    Quote,
    ToBase64,
    FromBase64,
    BitCount,
    MakeSet,
    ExportSet,
    Soundex,
    InetAton,
    InetNtoa,
    Uuid,
}

/// The function of an upper-case name with its (min, max) argument counts.
pub(super) fn lookup(upper: &str) -> Option<(MathStr, usize, usize)> {
    use MathStr::*;
    const N: usize = usize::MAX;
    Some(match upper {
        "LN" => (Ln, 1, 1),
        "LOG" => (Log, 1, 2),
        "LOG2" => (Log2, 1, 1),
        "LOG10" => (Log10, 1, 1),
        "EXP" => (Exp, 1, 1),
        "SIN" => (Sin, 1, 1),
        "COS" => (Cos, 1, 1),
        "TAN" => (Tan, 1, 1),
        "COT" => (Cot, 1, 1),
        "ASIN" => (Asin, 1, 1),
        "ACOS" => (Acos, 1, 1),
        "ATAN" => (Atan, 1, 2),
        "ATAN2" => (Atan, 2, 2),
        "DEGREES" => (Degrees, 1, 1),
        "RADIANS" => (Radians, 1, 1),
        "CHAR" => (Char, 1, N),
        "CHR" => (Chr, 1, 1),
        "ORD" => (Ord, 1, 1),
        "SHA1" | "SHA" => (Sha1, 1, 1),
        "SHA2" => (Sha2, 2, 2),
        "CRC32" => (Crc32, 1, 1),
        "FIELD" => (Field, 2, N),
        "FIND_IN_SET" => (FindInSet, 2, 2),
        "ELT" => (Elt, 2, N),
        "INSERT" => (Insert, 4, 4),
        "FORMAT" => (Format, 2, 3),
        "CONV" => (Conv, 3, 3),
        "BIN" => (Bin, 1, 1),
        "OCT" => (Oct, 1, 1),
        "QUOTE" => (Quote, 1, 1),
        "TO_BASE64" => (ToBase64, 1, 1),
        "FROM_BASE64" => (FromBase64, 1, 1),
        "BIT_COUNT" => (BitCount, 1, 1),
        "MAKE_SET" => (MakeSet, 2, N),
        "EXPORT_SET" => (ExportSet, 3, 5),
        "SOUNDEX" => (Soundex, 1, 1),
        "INET_ATON" => (InetAton, 1, 1),
        "INET_NTOA" => (InetNtoa, 1, 1),
        "UUID" => (Uuid, 0, 0),
        _ => return None,
    })
}

/// True for the functions that are NULL whenever an argument is NULL.
pub(super) fn null_propagating(m: MathStr) -> bool {
    use MathStr::*;
    !matches!(
        m,
        Char | Field | Elt | Format | MakeSet | Sha2 | Quote | Uuid
    )
}

pub(super) fn call(
    m: MathStr,
    v: &[Value],
    coll: Collation,
    ctx: &mut EvalContext<'_>,
) -> Result<Value, SqlError> {
    use MathStr::*;
    let x = || v[0].clone();
    let real = |ctx: &mut EvalContext<'_>| to_f64(&x(), ctx);
    Ok(match m {
        Ln | Log2 | Log10 => {
            let a = real(ctx);
            if a <= 0.0 || a.is_nan() {
                return super::ops::div_zero(ctx);
            }
            Value::Double(match m {
                Ln => a.ln(),
                Log2 => a.log2(),
                _ => a.log10(),
            })
        }
        Log => {
            let a = real(ctx);
            if v.len() == 1 {
                if a <= 0.0 || a.is_nan() {
                    return super::ops::div_zero(ctx);
                }
                return Ok(Value::Double(a.ln()));
            }
            let b = to_f64(&v[1], ctx);
            if a <= 0.0 || b <= 0.0 || a == 1.0 || a.is_nan() || b.is_nan() {
                return super::ops::div_zero(ctx);
            }
            Value::Double(b.ln() / a.ln())
        }
        Exp => finite(real(ctx).exp(), "exp")?,
        Sin => Value::Double(real(ctx).sin()),
        Cos => Value::Double(real(ctx).cos()),
        Tan => finite(real(ctx).tan(), "tan")?,
        Cot => finite(1.0 / real(ctx).tan(), "cot")?,
        Asin | Acos => {
            let a = real(ctx);
            if !(-1.0..=1.0).contains(&a) {
                Value::Null
            } else if m == Asin {
                Value::Double(a.asin())
            } else {
                Value::Double(a.acos())
            }
        }
        Atan => {
            let a = real(ctx);
            match v.get(1) {
                // `+ 0.0` makes a negative zero positive, as MariaDB reads it.
                Some(b) => Value::Double((a + 0.0).atan2(to_f64(b, ctx) + 0.0)),
                None => Value::Double(a.atan()),
            }
        }
        Degrees => finite(real(ctx) * 180.0 / std::f64::consts::PI, "degrees")?,
        Radians => finite(real(ctx) * std::f64::consts::PI / 180.0, "radians")?,
        _ => return func_strings_more::call(m, v, coll, ctx),
    })
}

fn finite(x: f64, what: &str) -> Result<Value, SqlError> {
    if x.is_finite() {
        Ok(Value::Double(x))
    } else {
        Err(SqlError::out_of_range("DOUBLE", what))
    }
}

/// What the typing of a call needs to know of one argument.
pub(super) struct ArgInfo {
    /// The argument's length in characters as a string.
    pub len: u32,
    pub nullable: bool,
    /// The argument is a binary string.
    pub binary: bool,
    /// The argument's value when it is a literal.
    pub literal: Option<Value>,
}

/// The kind of a function's result.
pub(super) enum ResultKind {
    Double,
    Int {
        bytes: u8,
        unsigned: bool,
    },
    /// A string of `len` characters (binary when `binary`).
    Text {
        len: u32,
        binary: bool,
    },
}

/// MariaDB's result type and nullability of a call.
pub(super) fn result_type(m: MathStr, args: &[ArgInfo]) -> (ResultKind, bool) {
    use MathStr::*;
    use ResultKind::*;
    let any_null = args.iter().any(|a| a.nullable);
    let len = |i: usize| args.get(i).map_or(0, |a| a.len);
    let text = |len: u32| Text { len, binary: false };
    let int = Int {
        bytes: 4,
        unsigned: false,
    };
    let binary = args.first().is_some_and(|a| a.binary);
    match m {
        Degrees | Radians => (Double, any_null),
        Ln | Log | Log2 | Log10 | Exp | Sin | Cos | Tan | Cot | Asin | Acos | Atan => {
            (Double, true)
        }
        Char => (
            Text {
                len: 4 * args.len() as u32,
                binary: true,
            },
            true,
        ),
        Chr => (text(4), true),
        Ord | BitCount => (int, any_null),
        Field => (int, false),
        FindInSet => (int, any_null),
        Crc32 => (
            Int {
                bytes: 4,
                unsigned: true,
            },
            any_null,
        ),
        Sha1 => (text(40), true),
        Sha2 => {
            let n = match args.get(1).and_then(|a| a.literal.as_ref()) {
                Some(Value::Int(0 | 256)) => 64,
                Some(Value::Int(224)) => 56,
                Some(Value::Int(384)) => 96,
                _ => 128,
            };
            (text(n), true)
        }
        Elt => (
            Text {
                len: args[1..].iter().map(|a| a.len).max().unwrap_or(0),
                binary: args[1..].iter().any(|a| a.binary),
            },
            true,
        ),
        Insert => (
            Text {
                len: len(0).saturating_add(len(3)),
                binary: binary || args[3].binary,
            },
            true,
        ),
        Format => (
            text(len(0).saturating_add(len(0) / 3).saturating_add(40)),
            true,
        ),
        Conv | Bin | Oct => (text(65), true),
        Quote => (
            Text {
                len: len(0).saturating_mul(2).saturating_add(2),
                binary,
            },
            true,
        ),
        ToBase64 => (
            text(len(0).div_ceil(3).saturating_mul(4).saturating_mul(77) / 76 + 4),
            true,
        ),
        FromBase64 => (
            Text {
                len: len(0).div_ceil(4).saturating_mul(3),
                binary: true,
            },
            true,
        ),
        MakeSet => (
            text(
                args[1..]
                    .iter()
                    .map(|a| a.len.saturating_add(1))
                    .fold(0u32, u32::saturating_add)
                    .saturating_sub(1),
            ),
            true,
        ),
        ExportSet => (text(127), true),
        Soundex => (text(len(0).max(4)), true),
        InetAton => (
            Int {
                bytes: 8,
                unsigned: true,
            },
            true,
        ),
        InetNtoa => (text(31), true),
        Uuid => (text(36), false),
    }
}

/// MariaDB's display length of an integer result.
pub(super) fn int_len(m: MathStr) -> Option<u32> {
    Some(match m {
        MathStr::Ord => 7,
        MathStr::Crc32 => 10,
        MathStr::Field | MathStr::FindInSet => 3,
        MathStr::BitCount => 2,
        MathStr::InetAton => 21,
        _ => return None,
    })
}
