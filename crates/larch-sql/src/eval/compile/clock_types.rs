//! Result types of the clock arithmetic functions (`func_clock`), as
//! MariaDB announces them: TIMESTAMPDIFF and TO_SECONDS are BIGINT,
//! TIME_TO_SEC a BIGINT or, for an argument with fractional seconds, a
//! DECIMAL with as many digits; SEC_TO_TIME, MAKETIME, TIMEDIFF, ADDTIME
//! and SUBTIME keep their arguments' fractional digits; ADDTIME and SUBTIME
//! of a string are strings; STR_TO_DATE is a DATE, TIME or DATETIME by
//! the fields of its format (DATETIME(6) when the format is no literal).

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Value};

use super::super::func_clock::Clock;
use super::super::func_clock_format::format_kind;
use super::super::{Coerce, Expr};
use super::lengths::int_of_len;
use super::types::*;

/// Result type, branch coercion and nullability of a `func_clock` call.
pub(super) fn clock_type(c: Clock, args: &[Typed], coll: Collation) -> (ColumnType, Coerce, bool) {
    let any_null = args.iter().any(|a| a.ty.nullable);
    let max_fsp = || args.iter().map(time_precision).max().unwrap_or(0);
    let ty = match c {
        Clock::TimestampDiff | Clock::ToSeconds => int_of_len(21, false),
        Clock::TimeToSec => match args.first().map(time_precision) {
            Some(fsp) if fsp > 0 => decimal(16, u16::from(fsp)),
            _ => int_of_len(17, false),
        },
        Clock::SecToTime => ColumnType::Time {
            fsp: numeric_fsp(&args[0]),
        },
        Clock::MakeTime => ColumnType::Time {
            fsp: numeric_fsp(&args[2]),
        },
        Clock::TimeDiff => ColumnType::Time { fsp: max_fsp() },
        Clock::AddTime | Clock::SubTime => match &args[0].ty.ty {
            ColumnType::Time { .. } => ColumnType::Time { fsp: max_fsp() },
            ColumnType::Date | ColumnType::Datetime { .. } | ColumnType::Timestamp { .. } => {
                ColumnType::Datetime { fsp: max_fsp() }
            }
            _ => string_type(26, false, coll),
        },
        Clock::MakeDate => ColumnType::Date,
        Clock::StrToDate => match &args[1].expr {
            Expr::Literal(Value::Str(fmt)) => {
                let k = format_kind(fmt);
                let fsp = if k.fraction { 6 } else { 0 };
                match (k.date, k.time) {
                    (true, false) => ColumnType::Date,
                    (false, true) => ColumnType::Time { fsp },
                    _ => ColumnType::Datetime { fsp },
                }
            }
            _ => ColumnType::Datetime { fsp: 6 },
        },
        Clock::PeriodAdd | Clock::PeriodDiff => {
            return (int_of_len(6, false), Coerce::Keep, any_null)
        }
        Clock::UtcDate => return (ColumnType::Date, Coerce::Keep, false),
        Clock::UtcTime => {
            let fsp = match args.first().map(|a| &a.expr) {
                Some(Expr::Literal(Value::Int(n))) => (*n).clamp(0, 6) as u8,
                _ => 0,
            };
            return (ColumnType::Time { fsp }, Coerce::Keep, false);
        }
    };
    (ty, Coerce::Keep, true)
}

/// The fractional digits of a number read as seconds: none for integers,
/// a DECIMAL's scale (at most 6), else 6.
fn numeric_fsp(a: &Typed) -> u8 {
    match &a.ty.ty {
        ColumnType::Int { .. } | ColumnType::Year => 0,
        ColumnType::Decimal { scale, .. } => (*scale).min(6),
        _ => 6,
    }
}
