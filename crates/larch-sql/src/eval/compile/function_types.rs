//! Result types of function calls: MariaDB's type, branch coercion and
//! nullability of each built-in function's result.

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Value};

use super::super::func_math::{self, ArgInfo, MathStr, ResultKind};
use super::super::func_more::More;
use super::super::{ArithOp, Coerce, Expr, Func};
use super::branch_types::*;
use super::lengths::*;
use super::types::*;

/// Result type, branch coercion and nullability of a function call.
pub(super) fn func_type(f: Func, args: &[Typed], coll: Collation) -> (ColumnType, Coerce, bool) {
    let any_null = args.iter().any(|a| a.ty.nullable);
    // Most integer functions are INT in MariaDB (`Item_long_func`).
    let int = ColumnType::Int {
        bytes: 4,
        unsigned: false,
    };
    let bigint = ColumnType::Int {
        bytes: 8,
        unsigned: false,
    };
    // The connection's collation, which some text results take whatever
    // their arguments are.
    let connection = coll;
    let coll = pick_collation(args.iter(), coll);
    // A binary string argument makes the result binary unless text of a
    // lower coercibility won (CONCAT(X'61', column) is the column's text).
    let binary = coll == Collation::Binary
        && args
            .iter()
            .any(|a| a.ty.ty.is_binary_string() && !a.null_lit);
    let text = |len: u32| string_type(len, binary, coll);
    let arg_len = |i: usize| args.get(i).map_or(0, |a| str_len(&a.ty.ty));
    match f {
        Func::If => {
            let (t, c) = merge_types(&[&args[1], &args[2]], coll);
            (t, c, args[1].ty.nullable || args[2].ty.nullable)
        }
        Func::IfNull | Func::Coalesce => {
            let refs: Vec<&Typed> = args.iter().collect();
            let (t, c) = merge_types(&refs, coll);
            (t, c, args.iter().all(|a| a.ty.nullable))
        }
        Func::Greatest | Func::Least => {
            if let Some((t, c)) = temporal_min_max(args) {
                return (t, c, any_null);
            }
            let refs: Vec<&Typed> = args.iter().collect();
            let (t, c) = merge_types(&refs, coll);
            // Mixed strings and numbers compare (and return) as numbers.
            let mixed = args.iter().any(|a| is_string(&a.ty.ty))
                && args.iter().any(|a| !is_string(&a.ty.ty) && !a.null_lit);
            if mixed && matches!(c, Coerce::Text | Coerce::Binary) {
                return (ColumnType::Double, Coerce::Double, any_null);
            }
            (t, c, any_null)
        }
        // NULLIF of a BIT is a number (MariaDB's BIGINT UNSIGNED).
        Func::NullIf if matches!(args[0].ty.ty, ColumnType::Bit { .. }) => (
            ColumnType::Int {
                bytes: 8,
                unsigned: true,
            },
            Coerce::Int,
            true,
        ),
        Func::NullIf => (args[0].ty.ty.clone(), Coerce::Keep, true),
        Func::IsNull => (int, Coerce::Keep, false),
        Func::Concat => (
            text(
                args.iter()
                    .map(|a| str_len(&a.ty.ty))
                    .fold(0u32, u32::saturating_add),
            ),
            Coerce::Keep,
            any_null,
        ),
        Func::ConcatWs => (
            text(
                args.iter()
                    .map(|a| str_len(&a.ty.ty))
                    .fold(0u32, u32::saturating_add),
            ),
            Coerce::Keep,
            args[0].ty.nullable,
        ),
        Func::Length
        | Func::CharLength
        | Func::Locate
        | Func::Instr
        | Func::Ascii
        | Func::Strcmp => (int, Coerce::Keep, any_null),
        Func::Upper
        | Func::Lower
        | Func::Reverse
        | Func::Trim(_)
        | Func::Substring
        | Func::Left
        | Func::Right => (same_text(f, args, text(arg_len(0))), Coerce::Keep, any_null),
        Func::Replace | Func::Repeat | Func::Space => (
            text(arg_len(0).saturating_mul(4).max(255)),
            Coerce::Keep,
            true,
        ),
        Func::Lpad | Func::Rpad => (text(255), Coerce::Keep, true),
        Func::Md5 => (string_type(32, false, coll), Coerce::Keep, any_null),
        Func::Password => (string_type(41, false, coll), Coerce::Keep, any_null),
        Func::Hex => (
            string_type(arg_len(0).saturating_mul(2), false, coll),
            Coerce::Keep,
            any_null,
        ),
        Func::Unhex => (
            string_type(arg_len(0).div_ceil(2), true, Collation::Binary),
            Coerce::Keep,
            true,
        ),
        Func::Abs => match &args[0].ty.ty {
            ColumnType::Int { unsigned, .. } => (
                int_of_len(char_len(&args[0]), *unsigned),
                Coerce::Keep,
                any_null,
            ),
            other => match temporal_number(other) {
                Some(ty) => (ty, Coerce::Keep, any_null),
                None => (other.clone(), Coerce::Keep, any_null),
            },
        },
        Func::Ceil | Func::Floor => {
            let t = match &args[0].ty.ty {
                ColumnType::Float | ColumnType::Double => ColumnType::Double,
                t if is_string(t) => ColumnType::Double,
                ColumnType::Int { .. } => args[0].ty.ty.clone(),
                ColumnType::Decimal { .. } => int_of_len(int_digits(&args[0]) + 1, false),
                _ => bigint,
            };
            (t, Coerce::Keep, any_null)
        }
        Func::Round | Func::Truncate => {
            // A constant number of places is the result's scale (ROUND(1.5,
            // 3) is 1.500); any other keeps the argument's.
            let places = match args.get(1).map(|a| &a.expr) {
                Some(Expr::Literal(Value::Int(n))) => Some((*n).clamp(0, 38) as u8),
                Some(Expr::Literal(Value::UInt(n))) => Some((*n).min(38) as u8),
                Some(_) => None,
                None => Some(0),
            };
            let fsp = |fsp: &u8| places.map_or(*fsp, |p| p.min(6));
            let t = match &args[0].ty.ty {
                // A temporal value stays one (`eval::temporal_round`).
                ColumnType::Time { fsp: f } => ColumnType::Time { fsp: fsp(f) },
                ColumnType::Datetime { fsp: f } => ColumnType::Datetime { fsp: fsp(f) },
                ColumnType::Timestamp { fsp: f } => ColumnType::Timestamp { fsp: fsp(f) },
                ColumnType::Decimal { precision, scale } => {
                    let s = places.unwrap_or(*scale);
                    // A digit more before the point where rounding may carry.
                    let carry = u16::from(places.is_none() || s < *scale);
                    decimal(u16::from(precision - scale) + carry, u16::from(s))
                }
                ColumnType::Int { .. } => args[0].ty.ty.clone(),
                _ => ColumnType::Double,
            };
            (t, Coerce::Keep, any_null)
        }
        Func::Mod => (
            arith_type(ArithOp::Mod, &args[0].ty.ty, &args[1].ty.ty),
            Coerce::Keep,
            true,
        ),
        Func::Pow | Func::Rand | Func::Pi => (ColumnType::Double, Coerce::Keep, any_null),
        Func::Sqrt => (ColumnType::Double, Coerce::Keep, true),
        Func::Sign => (int, Coerce::Keep, any_null),
        Func::Now | Func::UtcTimestamp => (
            ColumnType::Datetime {
                fsp: literal_fsp(args),
            },
            Coerce::Keep,
            false,
        ),
        Func::CurDate => (ColumnType::Date, Coerce::Keep, false),
        Func::CurTime => (
            ColumnType::Time {
                fsp: literal_fsp(args),
            },
            Coerce::Keep,
            false,
        ),
        Func::Date => (ColumnType::Date, Coerce::Keep, true),
        Func::Time => (
            ColumnType::Time {
                fsp: time_precision(&args[0]),
            },
            Coerce::Keep,
            true,
        ),
        Func::Year
        | Func::Month
        | Func::Day
        | Func::Hour
        | Func::Minute
        | Func::Second
        | Func::DayOfWeek
        | Func::DayOfYear
        | Func::DateDiff => (int, Coerce::Keep, true),
        Func::DateFormat => (string_type(255, false, coll), Coerce::Keep, true),
        Func::UnixTimestamp => match args.first().map(time_precision) {
            Some(fsp) if fsp > 0 => (
                decimal(11 + u16::from(fsp), u16::from(fsp)),
                Coerce::Keep,
                true,
            ),
            first => (bigint, Coerce::Keep, first.is_some()),
        },
        Func::FromUnixtime if args.len() > 1 => (string_type(255, false, coll), Coerce::Keep, true),
        Func::FromUnixtime => (
            ColumnType::Datetime {
                fsp: args.first().map_or(0, time_precision),
            },
            Coerce::Keep,
            true,
        ),
        Func::Database => (
            ColumnType::Varchar {
                max_len: 64,
                collation: Collation::Utf8mb4GeneralCi,
            },
            Coerce::Keep,
            true,
        ),
        Func::Version | Func::User | Func::CurrentUser => (
            ColumnType::Varchar {
                max_len: 64,
                collation: Collation::Utf8mb4GeneralCi,
            },
            Coerce::Keep,
            false,
        ),
        Func::Sleep => (int, Coerce::Keep, false),
        Func::More(m) => more_type(m, args, int, text(arg_len(0)), coll, connection),
        Func::MathStr(m) => math_str_type(m, args, coll),
        Func::Clock(c) => super::clock_types::clock_type(c, args, coll),
        Func::Extra(e) => super::extra_types::extra_type(e, args, connection),
        Func::Json(j) => {
            let nullable = true;
            if j.func.returns_int() {
                (int, Coerce::Keep, nullable)
            } else {
                (json_text(j.func, args, coll), Coerce::Keep, nullable)
            }
        }
        Func::ConnectionId => (
            ColumnType::Int {
                bytes: 4,
                unsigned: true,
            },
            Coerce::Keep,
            false,
        ),
        // BIGINT(21) NOT NULL in MariaDB.
        Func::FoundRows | Func::RowCount => (bigint, Coerce::Keep, false),
        Func::LastInsertId => (
            ColumnType::Int {
                bytes: 8,
                unsigned: true,
            },
            Coerce::Keep,
            false,
        ),
    }
}

/// Types of the functions of `func_more`.
fn more_type(
    m: More,
    args: &[Typed],
    int: ColumnType,
    first_text: ColumnType,
    coll: Collation,
    connection: Collation,
) -> (ColumnType, Coerce, bool) {
    let any_null = args.iter().any(|a| a.ty.nullable);
    match m {
        More::BitLength => (
            ColumnType::Int {
                bytes: 8,
                unsigned: false,
            },
            Coerce::Keep,
            any_null,
        ),
        More::SubstringIndex => (first_text, Coerce::Keep, any_null),
        More::FromDays => (ColumnType::Date, Coerce::Keep, any_null),
        More::LastDay => (ColumnType::Date, Coerce::Keep, true),
        // A name in the connection's collation, whatever the argument.
        More::DayName | More::MonthName => (string_type(9, false, connection), Coerce::Keep, true),
        More::ToDays
        | More::Weekday
        | More::Quarter
        | More::Week
        | More::YearWeek
        | More::WeekOfYear
        | More::Microsecond => (int, Coerce::Keep, true),
        More::GetLock | More::ReleaseLock | More::IsFreeLock | More::IsUsedLock => {
            (int, Coerce::Keep, true)
        }
        More::ReleaseAllLocks => (int, Coerce::Keep, false),
        More::RegexpLike | More::RegexpInstr => (int, Coerce::Keep, any_null),
        More::RegexpSubstr => (first_text, Coerce::Keep, any_null),
        More::RegexpReplace => (string_type(u32::MAX, false, coll), Coerce::Keep, any_null),
    }
}

/// Types of the functions of `func_math`.
fn math_str_type(m: MathStr, args: &[Typed], coll: Collation) -> (ColumnType, Coerce, bool) {
    let info: Vec<ArgInfo> = args
        .iter()
        .map(|a| ArgInfo {
            len: str_len(&a.ty.ty),
            nullable: a.ty.nullable,
            binary: a.ty.ty.is_binary_string() && !a.null_lit,
            literal: match &a.expr {
                Expr::Literal(v) => Some(v.clone()),
                _ => None,
            },
        })
        .collect();
    let (kind, nullable) = func_math::result_type(m, &info);
    let ty = match kind {
        ResultKind::Double => ColumnType::Double,
        ResultKind::Int { bytes, unsigned } => ColumnType::Int { bytes, unsigned },
        ResultKind::Text { len, binary } => {
            string_type(len, binary, if binary { Collation::Binary } else { coll })
        }
    };
    (ty, Coerce::Keep, nullable)
}

fn literal_fsp(args: &[Typed]) -> u8 {
    match args.first().map(|a| &a.expr) {
        Some(Expr::Literal(Value::Int(n))) => (*n).clamp(0, 6) as u8,
        _ => 0,
    }
}

/// The type of a function that returns part of its first argument: as
/// long as a constant LEFT / RIGHT / SUBSTRING length says, else the
/// argument's own TEXT or BLOB class, else `text` (as long as the
/// argument).
fn same_text(f: Func, args: &[Typed], text: ColumnType) -> ColumnType {
    let count = match (f, args.get(1), args.get(2)) {
        (Func::Left | Func::Right, Some(n), _) | (Func::Substring, _, Some(n)) => match &n.expr {
            Expr::Literal(Value::Int(n)) => Some(u32::try_from(*n).unwrap_or(0)),
            _ => None,
        },
        _ => None,
    };
    let resized = |len: u32| match &text {
        ColumnType::Varbinary { .. } | ColumnType::Blob { .. } => {
            ColumnType::Varbinary { max_len: len }
        }
        ColumnType::Varchar { collation, .. } | ColumnType::Text { collation, .. } => {
            ColumnType::Varchar {
                max_len: len,
                collation: *collation,
            }
        }
        other => other.clone(),
    };
    match (count, args.first()) {
        (Some(n), Some(a)) if n <= 16_383 => resized(n.min(str_len(&a.ty.ty))),
        (_, Some(a)) => match (lob_kind(&a.ty.ty), &text) {
            (Some(kind), ColumnType::Text { collation, .. }) => ColumnType::Text {
                kind,
                collation: *collation,
            },
            (Some(kind), ColumnType::Blob { .. }) => ColumnType::Blob { kind },
            _ => text,
        },
        _ => text,
    }
}
