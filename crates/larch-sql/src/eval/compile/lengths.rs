//! Display lengths of computed integers, as MariaDB sizes them
//! (`max_char_length`): they decide whether an integer expression is
//! announced as INT (up to 9 characters) or BIGINT, as `SELECT 1` is INT
//! and `99999999 + 1` BIGINT; and the lengths of JSON functions' text.

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Value};

use super::super::json::JsonFunc;
use super::super::{ArithOp, Expr, Func};
use super::types::*;

/// The integer type MariaDB gives a computed integer of `len` characters.
pub(super) fn int_of_len(len: u32, unsigned: bool) -> ColumnType {
    ColumnType::Int {
        bytes: if len <= 9 { 4 } else { 8 },
        unsigned,
    }
}

/// Decimal digits of `n`.
fn digits(n: u64) -> u32 {
    n.checked_ilog10().map_or(1, |d| d + 1)
}

/// MariaDB's display length in characters of an integer or DECIMAL
/// operand: a literal's digits (and sign), a computed integer's own
/// length, else the display width of its type.
pub(super) fn char_len(t: &Typed) -> u32 {
    if let Some(n) = t.len {
        return n;
    }
    match &t.expr {
        Expr::Literal(Value::Int(n)) => return digits(n.unsigned_abs()) + u32::from(*n < 0),
        Expr::Literal(Value::UInt(n)) => return digits(*n),
        _ => {}
    }
    match &t.ty.ty {
        ColumnType::Int { bytes, unsigned } => {
            let signed: u32 = match bytes {
                1 => 4,
                2 => 6,
                3 => 9,
                4 => 11,
                _ => return 20,
            };
            signed - u32::from(*unsigned)
        }
        ColumnType::Year => 4,
        ColumnType::Decimal { precision, scale } => {
            u32::from(*precision) + u32::from(*scale > 0) + 1
        }
        other => u32::from(dec_shape(other).0) + 1,
    }
}

/// Digits before the point of an integer or DECIMAL operand (MariaDB's
/// `decimal_int_part`): a literal's digits, an integer's length without
/// its sign, a DECIMAL's integer digits.
pub(super) fn int_digits(t: &Typed) -> u32 {
    match (&t.expr, &t.ty.ty) {
        (Expr::Literal(Value::Int(n)), _) if t.len.is_none() => digits(n.unsigned_abs()),
        (Expr::Literal(Value::UInt(n)), _) => digits(*n),
        (_, ColumnType::Int { unsigned, .. }) => char_len(t).saturating_sub(u32::from(!*unsigned)),
        (_, ColumnType::Year) => 4,
        (_, other) => u32::from(dec_shape(other).0),
    }
}

/// The length of an integer `+ - * % DIV` of `a` and `b` (MariaDB's
/// `result_precision`, plus a sign unless unsigned), capped at BIGINT's.
pub(super) fn arith_len(op: ArithOp, a: &Typed, b: &Typed, unsigned: bool) -> u32 {
    let (da, db) = (int_digits(a), int_digits(b));
    let precision = match op {
        ArithOp::Add | ArithOp::Sub => da.max(db) + 1,
        ArithOp::Mul => da + db,
        ArithOp::Mod => da.max(db),
        // DIV: the dividend's integer digits, without a sign.
        _ => return da.min(21),
    };
    (precision + u32::from(!unsigned)).min(21)
}

/// The display length of an integer function's result where it is not
/// its type's width: MariaDB's `max_length` of the date-part functions and
/// of the small integer functions, and the argument's own for ABS, CEIL,
/// FLOOR, ROUND and TRUNCATE of an integer.
pub(super) fn func_len(f: Func, args: &[Typed], ty: &ColumnType) -> Option<u32> {
    if !matches!(ty, ColumnType::Int { .. }) {
        return None;
    }
    let n = match f {
        Func::Abs | Func::Ceil | Func::Floor | Func::Round | Func::Truncate => {
            return match args.first() {
                Some(a) if matches!(a.ty.ty, ColumnType::Int { .. }) => Some(char_len(a)),
                Some(a) if is_decimal(&a.ty.ty) => Some(int_digits(a) + 1),
                _ => None,
            };
        }
        Func::MathStr(m) => return super::super::func_math::int_len(m),
        Func::Extra(e) => return super::extra_types::extra_int_len(e),
        Func::Year => 4,
        Func::Month | Func::Day | Func::Hour | Func::Minute | Func::Second => 2,
        Func::DayOfWeek | Func::IsNull | Func::Sleep => 1,
        Func::DayOfYear | Func::Ascii => 3,
        Func::Sign | Func::Strcmp => 2,
        Func::Length | Func::CharLength | Func::Locate | Func::Instr | Func::DateDiff => 10,
        _ => return None,
    };
    Some(n)
}

/// The text type of a JSON function's result: as long as its arguments
/// together (and some room for the JSON around them), as MariaDB sizes
/// it, so that a JSON document column makes it LONGTEXT and short
/// arguments a VARCHAR; JSON_DETAILED and JSON_LOOSE are always LONGTEXT.
pub(super) fn json_text(f: JsonFunc, args: &[Typed], coll: Collation) -> ColumnType {
    let total = args
        .iter()
        .filter(|a| !a.null_lit)
        .map(|a| str_len(&a.ty.ty))
        .fold(0u32, u32::saturating_add);
    let len = match f {
        JsonFunc::Detailed | JsonFunc::Loose => u32::MAX,
        JsonFunc::Type => 12,
        // Every character may become an escape sequence, plus the quotes.
        JsonFunc::Quote => total.saturating_mul(6).saturating_add(2),
        JsonFunc::Unquote | JsonFunc::NumberOf => total,
        _ => total.saturating_add(16u32.saturating_mul(args.len() as u32)),
    };
    string_type(len, false, coll)
}
