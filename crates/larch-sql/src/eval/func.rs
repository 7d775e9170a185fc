//! Built-in functions: the [`Func`] table (names, argument counts), dispatch,
//! control-flow and numeric functions, and CAST/CONVERT. String functions live
//! in `func_str`, date and time functions in `func_time`.

use std::cmp::Ordering;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{Decimal, Value};

use super::compare::compare;
use super::convert::{self, to_int, to_num, to_str, truth, Num};
use super::ops::apply_coerce;
use super::{
    decimal, func_clock, func_math, func_more, func_str, func_time, CastTarget, Coerce,
    EvalContext, Expr,
};
use crate::error::{code, SqlError};
use crate::value::store::decimal_to_i128;

/// A built-in function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Func {
    // Control flow.
    If,
    IfNull,
    NullIf,
    Coalesce,
    IsNull,
    // Strings.
    Concat,
    ConcatWs,
    Length,
    CharLength,
    Upper,
    Lower,
    Substring,
    Left,
    Right,
    /// TRIM(BOTH ...), LTRIM, RTRIM: 0 both, 1 leading, 2 trailing.
    Trim(u8),
    Replace,
    Lpad,
    Rpad,
    Repeat,
    Reverse,
    /// LOCATE(substr, str[, pos]) and POSITION(substr IN str).
    Locate,
    /// INSTR(str, substr).
    Instr,
    Hex,
    Unhex,
    Ascii,
    Space,
    Strcmp,
    Md5,
    /// `PASSWORD(x)`: MySQL's native password hash.
    Password,
    // Numbers.
    Abs,
    Ceil,
    Floor,
    Round,
    Truncate,
    Mod,
    Pow,
    Sqrt,
    Sign,
    Greatest,
    Least,
    Rand,
    Pi,
    // Dates and times.
    Now,
    UtcTimestamp,
    CurDate,
    CurTime,
    Date,
    Time,
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    DayOfWeek,
    DayOfYear,
    DateFormat,
    DateDiff,
    UnixTimestamp,
    FromUnixtime,
    // Session information.
    Database,
    Version,
    ConnectionId,
    LastInsertId,
    FoundRows,
    RowCount,
    User,
    CurrentUser,
    Sleep,
    /// The functions of `func_more`.
    More(func_more::More),
    /// The math and string functions of `func_math`.
    MathStr(func_math::MathStr),
    /// The clock arithmetic functions of `func_clock`.
    Clock(func_clock::Clock),
    /// The JSON functions (`json`).
    Json(super::json::JsonCall),
    /// The time zone, compression, encryption and address functions of
    /// `func_extra`.
    Extra(super::func_extra::Extra),
}

/// The function of a name (case-insensitive) with its (min, max) argument
/// counts (`usize::MAX` for variadic).
pub fn lookup(name: &str) -> Option<(Func, usize, usize)> {
    use Func::*;
    const N: usize = usize::MAX;
    let f = match name.to_ascii_uppercase().as_str() {
        "IF" => (If, 3, 3),
        "IFNULL" | "NVL" => (IfNull, 2, 2),
        "NULLIF" => (NullIf, 2, 2),
        "COALESCE" => (Coalesce, 1, N),
        "ISNULL" => (IsNull, 1, 1),
        "CONCAT" => (Concat, 1, N),
        "CONCAT_WS" => (ConcatWs, 2, N),
        "LENGTH" | "OCTET_LENGTH" => (Length, 1, 1),
        "CHAR_LENGTH" | "CHARACTER_LENGTH" => (CharLength, 1, 1),
        "UPPER" | "UCASE" => (Upper, 1, 1),
        "LOWER" | "LCASE" => (Lower, 1, 1),
        "SUBSTRING" | "SUBSTR" | "MID" => (Substring, 2, 3),
        "LEFT" => (Left, 2, 2),
        "RIGHT" => (Right, 2, 2),
        "TRIM" => (Trim(0), 1, 2),
        "LTRIM" => (Trim(1), 1, 1),
        "RTRIM" => (Trim(2), 1, 1),
        "REPLACE" => (Replace, 3, 3),
        "LPAD" => (Lpad, 3, 3),
        "RPAD" => (Rpad, 3, 3),
        "REPEAT" => (Repeat, 2, 2),
        "REVERSE" => (Reverse, 1, 1),
        "LOCATE" => (Locate, 2, 3),
        "INSTR" => (Instr, 2, 2),
        "HEX" => (Hex, 1, 1),
        "UNHEX" => (Unhex, 1, 1),
        "ASCII" => (Ascii, 1, 1),
        "SPACE" => (Space, 1, 1),
        "STRCMP" => (Strcmp, 2, 2),
        "MD5" => (Md5, 1, 1),
        "PASSWORD" => (Password, 1, 1),
        "ABS" => (Abs, 1, 1),
        "CEIL" | "CEILING" => (Ceil, 1, 1),
        "FLOOR" => (Floor, 1, 1),
        "ROUND" => (Round, 1, 2),
        "TRUNCATE" => (Truncate, 2, 2),
        "MOD" => (Mod, 2, 2),
        "POW" | "POWER" => (Pow, 2, 2),
        "SQRT" => (Sqrt, 1, 1),
        "SIGN" => (Sign, 1, 1),
        "GREATEST" => (Greatest, 2, N),
        "LEAST" => (Least, 2, N),
        "RAND" => (Rand, 0, 1),
        "PI" => (Pi, 0, 0),
        "NOW" | "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" | "SYSDATE" => (Now, 0, 1),
        "UTC_TIMESTAMP" => (UtcTimestamp, 0, 1),
        "CURDATE" | "CURRENT_DATE" => (CurDate, 0, 0),
        "CURTIME" | "CURRENT_TIME" => (CurTime, 0, 1),
        "DATE" => (Date, 1, 1),
        "TIME" => (Time, 1, 1),
        "YEAR" => (Year, 1, 1),
        "MONTH" => (Month, 1, 1),
        "DAY" | "DAYOFMONTH" => (Day, 1, 1),
        "HOUR" => (Hour, 1, 1),
        "MINUTE" => (Minute, 1, 1),
        "SECOND" => (Second, 1, 1),
        "DAYOFWEEK" => (DayOfWeek, 1, 1),
        "DAYOFYEAR" => (DayOfYear, 1, 1),
        "DATE_FORMAT" => (DateFormat, 2, 2),
        "DATEDIFF" => (DateDiff, 2, 2),
        "UNIX_TIMESTAMP" => (UnixTimestamp, 0, 1),
        "FROM_UNIXTIME" => (FromUnixtime, 1, 2),
        "DATABASE" | "SCHEMA" => (Database, 0, 0),
        "VERSION" => (Version, 0, 0),
        "CONNECTION_ID" => (ConnectionId, 0, 0),
        "SLEEP" => (Sleep, 1, 1),
        "LAST_INSERT_ID" => (LastInsertId, 0, 0),
        "FOUND_ROWS" => (FoundRows, 0, 0),
        "ROW_COUNT" => (RowCount, 0, 0),
        "USER" | "SESSION_USER" | "SYSTEM_USER" => (User, 0, 0),
        "CURRENT_USER" => (CurrentUser, 0, 0),
        other => match func_more::lookup(other) {
            Some((m, min, max)) => (More(m), min, max),
            None if func_math::lookup(other).is_some() => {
                let (m, min, max) = func_math::lookup(other)?;
                (MathStr(m), min, max)
            }
            None if super::func_extra::lookup(other).is_some() => {
                let (e, min, max) = super::func_extra::lookup(other)?;
                (Extra(e), min, max)
            }
            None if func_clock::lookup(other).is_some() => {
                let (c, min, max) = func_clock::lookup(other)?;
                (Clock(c), min, max)
            }
            None => {
                let (j, min, max) = super::json::lookup(other)?;
                let call = super::json::JsonCall {
                    func: j,
                    json_args: 0,
                    bool_args: 0,
                };
                (Json(call), min, max)
            }
        },
    };
    Some(f)
}

/// True for functions that are NULL when any argument is NULL.
fn null_propagating(f: Func) -> bool {
    use Func::*;
    if let MathStr(m) = f {
        return func_math::null_propagating(m);
    }
    if let Extra(e) = f {
        return super::func_extra::null_propagating(e);
    }
    !matches!(
        f,
        If | IfNull
            | NullIf
            | Coalesce
            | IsNull
            | ConcatWs
            | Rand
            | UnixTimestamp
            | Now
            | UtcTimestamp
            | CurTime
            | Clock(super::func_clock::Clock::UtcTime)
            | More(super::func_more::More::GetLock)
            | More(super::func_more::More::Week)
            | More(super::func_more::More::YearWeek)
            | Json(_)
    )
}

pub(super) fn call(
    f: Func,
    args: &[Expr],
    coerce: Coerce,
    coll: Collation,
    row: &[Value],
    ctx: &mut EvalContext<'_>,
) -> Result<Value, SqlError> {
    // Lazily evaluated control flow first.
    match f {
        Func::If => {
            let c = args[0].eval(row, ctx)?;
            let branch = if truth(&c, ctx) == Some(true) {
                &args[1]
            } else {
                &args[2]
            };
            let v = branch.eval(row, ctx)?;
            return Ok(apply_coerce(v, coerce, ctx));
        }
        Func::IfNull | Func::Coalesce => {
            for a in args {
                let v = a.eval(row, ctx)?;
                if !v.is_null() {
                    return Ok(apply_coerce(v, coerce, ctx));
                }
            }
            return Ok(Value::Null);
        }
        _ => {}
    }
    let mut vals = Vec::with_capacity(args.len());
    for a in args {
        vals.push(a.eval(row, ctx)?);
    }
    if null_propagating(f) && vals.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let v = &vals;
    Ok(match f {
        Func::NullIf => {
            // A third value is the first as the number it is compared as.
            let compared = v.get(2).unwrap_or(&v[0]);
            if compare(compared, &v[1], coll, ctx) == Some(Ordering::Equal) {
                Value::Null
            } else {
                apply_coerce(v[0].clone(), coerce, ctx)
            }
        }
        Func::IsNull => Value::Int(i64::from(v[0].is_null())),
        Func::Greatest | Func::Least => {
            let mut best = apply_coerce(v[0].clone(), coerce, ctx);
            for x in &v[1..] {
                let x = apply_coerce(x.clone(), coerce, ctx);
                let o = compare(&x, &best, coll, ctx).unwrap_or(Ordering::Equal);
                if (f == Func::Greatest && o == Ordering::Greater)
                    || (f == Func::Least && o == Ordering::Less)
                {
                    best = x;
                }
            }
            best
        }
        Func::Abs => match to_num(&v[0], ctx) {
            Num::Int(i) => Value::Int(
                i.checked_abs()
                    .ok_or_else(|| SqlError::out_of_range("BIGINT", "abs"))?,
            ),
            Num::UInt(u) => Value::UInt(u),
            Num::Dec(d) => Value::Decimal(if d.is_negative() { decimal::neg(&d) } else { d }),
            Num::Dbl(x) => Value::Double(x.abs()),
        },
        Func::Ceil | Func::Floor => {
            let up = f == Func::Ceil;
            match to_num(&v[0], ctx) {
                Num::Dbl(x) => Value::Double(if up { x.ceil() } else { x.floor() }),
                Num::Dec(d) => {
                    let away = up != d.is_negative();
                    let r = decimal::cut(&d, 0, away);
                    Value::Int(i64::try_from(decimal_to_i128(&r)).unwrap_or(i64::MAX))
                }
                n => n.into_value(),
            }
        }
        Func::Round | Func::Truncate => {
            let places = if v.len() > 1 { to_int(&v[1], ctx) } else { 0 };
            match super::temporal_round::round(&v[0], places, f == Func::Round) {
                Some(t) => t,
                None => round(to_num(&v[0], ctx), places, f == Func::Round),
            }
        }
        Func::Mod => super::ops::arith(super::ArithOp::Mod, &v[0], &v[1], "mod", ctx)?,
        Func::Pow => float(
            convert::to_f64(&v[0], ctx).powf(convert::to_f64(&v[1], ctx)),
            "pow",
        )?,
        Func::Sqrt => {
            let x = convert::to_f64(&v[0], ctx);
            if x < 0.0 {
                Value::Null
            } else {
                Value::Double(x.sqrt())
            }
        }
        Func::Sign => {
            let n = to_num(&v[0], ctx);
            Value::Int(match super::compare::compare_num(&n, &Num::Int(0)) {
                Ordering::Less => -1,
                Ordering::Equal => 0,
                Ordering::Greater => 1,
            })
        }
        Func::Rand => {
            if let Some(seed) = v.first().filter(|s| !s.is_null()) {
                const MAX: i128 = 0x3FFF_FFFF;
                let n = to_int(seed, ctx).rem_euclid(MAX);
                let s1 = (n * 0x10001 + 55_555_555).rem_euclid(MAX);
                let s2 = (n * 0x1000_0001).rem_euclid(MAX);
                Value::Double(((s1 * 3 + s2) % MAX) as f64 / MAX as f64)
            } else {
                Value::Double(ctx.next_rand())
            }
        }
        Func::Pi => Value::Double(std::f64::consts::PI),
        Func::Database => ctx
            .session
            .current_database()
            .map_or(Value::Null, Value::Str),
        Func::Version => Value::Str(ctx.session.server_version()),
        Func::ConnectionId => Value::UInt(ctx.session.connection_id()),
        Func::LastInsertId => Value::UInt(ctx.session.last_insert_id()),
        Func::FoundRows => Value::Int(i64::try_from(ctx.session.found_rows()).unwrap_or(i64::MAX)),
        Func::RowCount => Value::Int(ctx.session.row_count()),
        Func::User => Value::Str(ctx.session.current_user()),
        Func::CurrentUser => Value::Str(ctx.session.current_account()),
        Func::Sleep => sleep(&v[0], ctx)?,
        Func::More(m) => func_more::call(m, v, coll, ctx)?,
        Func::MathStr(m) => func_math::call(m, v, coll, ctx)?,
        Func::Clock(c) => func_clock::call(c, v, ctx)?,
        Func::Json(j) => super::json::call(j, v, ctx)?,
        Func::Extra(e) => super::func_extra::call(e, v, ctx)?,
        Func::If | Func::IfNull | Func::Coalesce => Value::Null,
        _ => match func_str::call(f, v, coll, ctx)? {
            Some(x) => x,
            None => func_time::call(f, v, ctx)?,
        },
    })
}

fn float(x: f64, what: &str) -> Result<Value, SqlError> {
    if x.is_finite() {
        Ok(Value::Double(x))
    } else {
        Err(SqlError::out_of_range("DOUBLE", what))
    }
}

/// ROUND / TRUNCATE to `places` digits (negative: left of the point).
fn round(n: Num, places: i128, rounding: bool) -> Value {
    let places = places.clamp(-65, 30) as i32;
    match n {
        Num::Dbl(x) => {
            let m = 10f64.powi(places);
            let y = x * m;
            let r = if rounding {
                y.round_ties_even()
            } else {
                y.trunc()
            };
            Value::Double(if m.is_finite() && r.is_finite() {
                r / m
            } else {
                x
            })
        }
        n => {
            let unsigned = matches!(n, Num::UInt(_));
            let int = matches!(n, Num::Int(_) | Num::UInt(_));
            let d = n.to_decimal();
            let r = if places >= 0 {
                let p = places as u8;
                if rounding {
                    if d.scale() > p {
                        d.rescale(p)
                    } else {
                        d.clone()
                    }
                } else {
                    decimal::cut(&d, p, false)
                }
            } else {
                // Round at 10^-places: shift, round to 0 digits, shift back.
                let k = places.unsigned_abs() as u8;
                let shifted = Decimal::from_parts(
                    d.is_negative(),
                    d.coefficient(),
                    d.scale().saturating_add(k),
                )
                .unwrap_or_else(|_| Decimal::zero());
                let r0 = if rounding {
                    shifted.rescale(0)
                } else {
                    decimal::cut(&shifted, 0, false)
                };
                let mut digits = r0.coefficient().to_vec();
                if !digits.is_empty() {
                    digits.extend(std::iter::repeat_n(0, usize::from(k)));
                }
                Decimal::from_parts(r0.is_negative(), &digits, 0)
                    .unwrap_or_else(|_| Decimal::zero())
            };
            if int {
                let i = decimal_to_i128(&r);
                if unsigned {
                    Value::UInt(u64::try_from(i).unwrap_or(0))
                } else {
                    Value::Int(i64::try_from(i).unwrap_or(0))
                }
            } else {
                Value::Decimal(r)
            }
        }
    }
}

/// A DOUBLE as a SIGNED (`signed`) or UNSIGNED integer: rounded half to
/// even and held at the type's range, as MariaDB's CAST (below zero as
/// UNSIGNED is 0 with note 1916).
fn real_to_integer(f: f64, signed: bool, ctx: &mut EvalContext<'_>) -> Value {
    let r = if f.is_nan() { 0.0 } else { f.round_ties_even() };
    let overflow = |ctx: &mut EvalContext<'_>, to: &str| {
        ctx.note(
            code::DATA_OVERFLOW,
            format!(
                "Got overflow when converting '{}' to {to}. Value truncated",
                crate::value::number::format_double(f)
            ),
        )
    };
    // `as` holds a float at the integer type's bounds; 2^63 and 2^64 are
    // the first floats past them.
    if signed {
        if !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&r) {
            overflow(ctx, "SIGNED BIGINT");
        }
        return Value::Int(r as i64);
    }
    if r < 0.0 || r >= 1.844_674_407_370_955_2e19 {
        overflow(ctx, "UNSIGNED BIGINT");
    }
    Value::UInt(if r < 0.0 { 0 } else { r as u64 })
}

/// A DECIMAL as a SIGNED (`signed`) or UNSIGNED integer: rounded half away
/// from zero and held at the type's range (below zero as UNSIGNED is 0 with
/// warning 1916).
fn decimal_to_integer(d: &Decimal, signed: bool, ctx: &mut EvalContext<'_>) -> Value {
    let n = decimal_to_i128(d);
    let (low, high, to) = if signed {
        (i128::from(i64::MIN), i128::from(i64::MAX), "INT")
    } else {
        (0, i128::from(u64::MAX), "UNSIGNED INT")
    };
    if !(low..=high).contains(&n) {
        ctx.warn(
            code::DATA_OVERFLOW,
            format!("Got overflow when converting '{d}' to {to}. Value truncated"),
        );
    }
    let n = n.clamp(low, high);
    if signed {
        Value::Int(n as i64)
    } else {
        Value::UInt(n as u64)
    }
}

/// CAST(v AS target) / CONVERT(v, target).
pub(super) fn cast(
    v: &Value,
    target: &CastTarget,
    ctx: &mut EvalContext<'_>,
) -> Result<Value, SqlError> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    Ok(match target {
        CastTarget::Signed | CastTarget::Unsigned => {
            let n = match v {
                Value::Str(_) | Value::Bytes(_) => {
                    let s = to_str(v);
                    let p = crate::value::number::parse_number_prefix(&s);
                    if p.truncated || p.is_real {
                        ctx.warn(
                            code::TRUNCATED_WRONG_VALUE,
                            format!("Truncated incorrect INTEGER value: '{s}'"),
                        );
                    }
                    let int_text: String = p
                        .text
                        .chars()
                        .take_while(|c| c.is_ascii_digit() || *c == '-' || *c == '+')
                        .collect();
                    match int_text.parse::<i128>() {
                        Ok(i) => i,
                        Err(_) if int_text.len() > 1 => {
                            if int_text.starts_with('-') {
                                i128::from(i64::MIN)
                            } else {
                                i128::from(u64::MAX)
                            }
                        }
                        Err(_) => 0,
                    }
                }
                // A temporal value loses its fraction (MariaDB truncates).
                Value::Date(_) | Value::Time(_) | Value::Datetime(_) | Value::Timestamp(_) => {
                    match to_num(v, ctx) {
                        Num::Dec(d) => decimal_to_i128(&super::decimal::cut(&d, 0, false)),
                        n => n.to_i128(),
                    }
                }
                other => match to_num(other, ctx) {
                    // A real or decimal saturates at the target's range
                    // (an integer wraps, below).
                    Num::Dbl(f) => {
                        return Ok(real_to_integer(f, *target == CastTarget::Signed, ctx))
                    }
                    Num::Dec(d) => {
                        return Ok(decimal_to_integer(&d, *target == CastTarget::Signed, ctx))
                    }
                    n => n.to_i128(),
                },
            };
            if *target == CastTarget::Signed {
                Value::Int(if n > i128::from(i64::MAX) {
                    n as u64 as i64
                } else {
                    n.max(i128::from(i64::MIN)) as i64
                })
            } else if let (true, Value::Time(us)) = (n < 0, v) {
                // A negative TIME is 0 as UNSIGNED.
                ctx.note(
                    code::DATA_OVERFLOW,
                    format!(
                        "Got overflow when converting '{}' to UNSIGNED BIGINT. Value truncated",
                        crate::value::format_time(*us, 6)
                    ),
                );
                Value::UInt(0)
            } else {
                if n < 0 {
                    ctx.note(
                        code::UNKNOWN,
                        "Cast to unsigned converted negative integer to it's positive complement",
                    );
                }
                Value::UInt(if n < 0 {
                    n as i64 as u64
                } else {
                    u64::try_from(n).unwrap_or(u64::MAX)
                })
            }
        }
        CastTarget::Decimal { precision, scale } => {
            let d = match v {
                Value::Str(_) | Value::Bytes(_) => {
                    let s = to_str(v);
                    let p = crate::value::number::parse_number_prefix(&s);
                    if p.truncated {
                        ctx.warn(
                            code::TRUNCATED_WRONG_VALUE,
                            format!("Truncated incorrect DECIMAL value: '{s}'"),
                        );
                    }
                    crate::value::number::prefix_to_decimal(&p).unwrap_or_else(Decimal::zero)
                }
                other => match to_num(other, ctx) {
                    // Beyond DECIMAL's digits: the largest DECIMAL of its
                    // sign, then out of range below, as MariaDB does.
                    Num::Dbl(f) if crate::value::store::f64_to_decimal(f).is_none() => {
                        if f.abs() >= 1e81 {
                            ctx.warn(
                                code::DATA_OVERFLOW,
                                "Got overflow when converting '' to DECIMAL. Value truncated",
                            );
                        }
                        Decimal::from_parts(f < 0.0, &[9; 65], 0)
                            .unwrap_or_else(|_| Decimal::zero())
                    }
                    n => n.to_decimal(),
                },
            };
            let r = d.rescale(*scale);
            let int_digits = r.coefficient().len().saturating_sub(usize::from(*scale));
            if int_digits > usize::from(precision - scale) {
                ctx.warn(
                    code::WARN_DATA_OUT_OF_RANGE,
                    format!("Out of range value for column '{}' at row 1", "CAST"),
                );
                let nines = vec![9u8; usize::from(*precision)];
                Value::Decimal(
                    Decimal::from_parts(r.is_negative(), &nines, *scale)
                        .unwrap_or_else(|_| Decimal::zero()),
                )
            } else {
                Value::Decimal(r)
            }
        }
        CastTarget::Double => Value::Double(convert::to_f64(v, ctx)),
        CastTarget::FixedDouble { m, d, text } => {
            let f = convert::to_f64(v, ctx);
            let (r, out_of_range) =
                crate::value::number::fit_fixed(f, (u32::from(*m), u32::from(*d)), false);
            if out_of_range {
                ctx.note(
                    code::WARN_DATA_OUT_OF_RANGE,
                    format!("Out of range value for column '{text}' at row 1"),
                );
            }
            Value::Double(r)
        }
        CastTarget::Float => Value::Float(convert::to_f64(v, ctx) as f32),
        CastTarget::Char { len, .. } => {
            let s = to_str(v);
            match len {
                Some(n) if s.chars().count() > *n as usize => {
                    ctx.warn(
                        code::TRUNCATED_WRONG_VALUE,
                        format!("Truncated incorrect CHAR({n}) value: '{s}'"),
                    );
                    Value::Str(s.chars().take(*n as usize).collect())
                }
                _ => Value::Str(s),
            }
        }
        CastTarget::Uuid => match super::ops::uuid_key(v.clone(), ctx) {
            Value::Bytes(r) => {
                larch_engine::record::uuid::text_of_record(&r).map_or(Value::Null, Value::Str)
            }
            _ => Value::Null,
        },
        CastTarget::Binary { len } => {
            let mut b = convert::to_bytes(v);
            if let Some(n) = len {
                let n = *n as usize;
                if b.len() > n {
                    ctx.warn(
                        code::TRUNCATED_WRONG_VALUE,
                        format!("Truncated incorrect BINARY({n}) value: '{}'", to_str(v)),
                    );
                }
                b.resize(n, 0);
            }
            Value::Bytes(b)
        }
        CastTarget::Date => convert::to_date(v, ctx).map_or(Value::Null, Value::Date),
        CastTarget::DateOrZero => {
            Value::Date(super::compare::compared_datetime_or_zero(v, ctx).date)
        }
        CastTarget::DatetimeOrZero { fsp } => {
            let mut dt = super::compare::compared_datetime_or_zero(v, ctx);
            let unit = 10u32.pow(6 - u32::from((*fsp).min(6)));
            dt.micros -= dt.micros % unit;
            Value::Datetime(dt)
        }
        CastTarget::Datetime { fsp } => {
            convert::to_datetime(v, ctx).map_or(Value::Null, |mut dt| {
                let unit = 10u32.pow(6 - u32::from((*fsp).min(6)));
                dt.micros -= dt.micros % unit;
                Value::Datetime(dt)
            })
        }
        CastTarget::TimeOrZero { fsp } => {
            let us = match v {
                Value::Str(_) | Value::Bytes(_) => convert::to_time_for_comparison(v, ctx),
                other => convert::to_time(other, ctx).unwrap_or(0),
            };
            let unit = 10i64.pow(6 - u32::from((*fsp).min(6)));
            Value::Time(us - us % unit)
        }
        CastTarget::Time { fsp } => convert::to_time(v, ctx).map_or(Value::Null, |us| {
            let unit = 10i64.pow(6 - u32::from((*fsp).min(6)));
            Value::Time(us - us % unit)
        }),
    })
}

/// `SLEEP(seconds)`: 0 after sleeping, NULL for NULL (a negative duration
/// is a warning and no sleep). Interrupted by `KILL QUERY` or a time limit,
/// the statement ends with 1317, as in MariaDB, where the 1 SLEEP returns
/// then never reaches the client.
fn sleep(secs: &Value, ctx: &mut EvalContext<'_>) -> Result<Value, SqlError> {
    if secs.is_null() {
        return Ok(Value::Null);
    }
    let s = super::convert::to_f64(secs, ctx);
    if s < 0.0 || !s.is_finite() {
        ctx.warn(1210, "Incorrect arguments to sleep");
        return Ok(Value::Int(0));
    }
    let end = std::time::Instant::now() + std::time::Duration::from_secs_f64(s.min(1e9));
    larch_engine::io::blocking::blocking(|| loop {
        if ctx
            .kill
            .is_some_and(|k| k.load(std::sync::atomic::Ordering::Relaxed))
        {
            return Err(SqlError::new(1317, "Query execution was interrupted"));
        }
        let now = std::time::Instant::now();
        if now >= end {
            return Ok(Value::Int(0));
        }
        std::thread::sleep((end - now).min(std::time::Duration::from_millis(10)));
    })
}
