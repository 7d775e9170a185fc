//! Evaluation of operators: arithmetic with MySQL's result types and overflow
//! errors, comparison operators (the coercions themselves: `compare.rs`),
//! three-valued logic, BETWEEN, IN, LIKE, CASE and the branch coercions of
//! IF/CASE/COALESCE.

use std::cmp::Ordering;

use larch_engine::record::value::{ColumnType, Decimal, Value};

use super::compare::*;
use super::convert::{self, bool_value, to_num, to_str, truth, Num};
use super::like::like;
use super::{decimal, func, func_time, ArithOp, CmpOp, Coerce, DivisionByZero, EvalContext, Expr};
use crate::error::{code, SqlError};
use crate::value::store::decimal_to_i128;

pub(super) fn eval(e: &Expr, row: &[Value], ctx: &mut EvalContext<'_>) -> Result<Value, SqlError> {
    Ok(match e {
        Expr::Literal(v) => v.clone(),
        Expr::Column(i) => row
            .get(*i)
            .cloned()
            .ok_or_else(|| SqlError::new(code::UNKNOWN, format!("column {i} is not in the row")))?,
        Expr::Param(i) => ctx.params.get(*i).cloned().ok_or_else(|| {
            SqlError::new(
                code::WRONG_ARGUMENTS,
                "Incorrect arguments to mysqld_stmt_execute",
            )
        })?,
        Expr::SysVar { name, scope } => ctx.session.system_variable(name, *scope)?,
        Expr::UserVar { name, kind } => {
            let v = super::uservar::read(ctx.session, name);
            match kind {
                Some(kind) => kind.convert(v, ctx),
                None => v,
            }
        }
        Expr::StoredCall { schema, name, args } => {
            let values = args
                .iter()
                .map(|a| a.eval(row, ctx))
                .collect::<Result<Vec<_>, _>>()?;
            ctx.session
                .call_stored_function(schema.as_deref(), name, values)?
        }
        Expr::Subquery(q) => correlated_subquery(q, row, ctx)?,
        Expr::AssignUserVar { name, value, ty } => {
            let v = super::uservar::UserValue::new(value.eval(row, ctx)?, ty);
            let result = v.value.clone();
            super::uservar::assign(name, v);
            result
        }
        Expr::Neg { arg, text } => {
            let v = arg.eval(row, ctx)?;
            if v.is_null() {
                return Ok(Value::Null);
            }
            negate(to_num(&v, ctx), text)?
        }
        Expr::BitNot(arg) => {
            let v = arg.eval(row, ctx)?;
            if v.is_null() {
                return Ok(Value::Null);
            }
            Value::UInt(!bit_operand(&to_num(&v, ctx)))
        }
        Expr::MemberNumber { arg, members, set } => match arg.eval(row, ctx)? {
            Value::Null => Value::Null,
            v => Value::UInt(member_number(&to_str(&v), members, *set)),
        },
        Expr::UuidKey(arg) => uuid_key(arg.eval(row, ctx)?, ctx),
        Expr::AsText { arg, ty } => match arg.eval(row, ctx)? {
            Value::Null => Value::Null,
            // A BIT's string is its big-endian bytes, a binary string.
            Value::Bit(b) => match crate::value::to_text(&Value::Bit(b), ty) {
                Some(bytes) => Value::Bytes(bytes),
                None => Value::Bit(b),
            },
            v => match crate::value::to_text(&v, ty) {
                Some(text) => Value::Str(String::from_utf8_lossy(&text).into_owned()),
                None => v,
            },
        },
        Expr::Arith {
            op,
            left,
            right,
            text,
        } => {
            let a = left.eval(row, ctx)?;
            // `&`, `|` and DIV with a NULL left side are NULL without
            // evaluating (nor failing on) the right one, as in MariaDB.
            if a.is_null() && matches!(op, ArithOp::BitAnd | ArithOp::BitOr | ArithOp::IntDiv) {
                return Ok(Value::Null);
            }
            let b = right.eval(row, ctx)?;
            if a.is_null() || b.is_null() {
                return Ok(Value::Null);
            }
            arith(*op, &a, &b, text, ctx)?
        }
        Expr::Compare {
            op,
            left,
            right,
            collation,
            fixed_decimals,
        } => {
            let a = left.eval(row, ctx)?;
            // A NULL left side decides: the right one is not evaluated
            // (nor warns), as in MariaDB's Arg_comparator.
            if a.is_null() && *op != CmpOp::NullSafeEq {
                return Ok(Value::Null);
            }
            let b = right.eval(row, ctx)?;
            let order = |ctx: &mut EvalContext<'_>| match fixed_decimals {
                Some(d) => compare_fixed_reals(&a, &b, *d, ctx),
                None => compare(&a, &b, *collation, ctx),
            };
            if *op == CmpOp::NullSafeEq {
                return Ok(Value::Int(i64::from(match (a.is_null(), b.is_null()) {
                    (true, true) => true,
                    (false, false) => order(ctx) == Some(Ordering::Equal),
                    _ => false,
                })));
            }
            bool_value(order(ctx).map(|o| cmp_holds(*op, o)))
        }
        Expr::IsNull { arg, negated } => {
            Value::Int(i64::from(arg.eval(row, ctx)?.is_null() != *negated))
        }
        Expr::IsTruth {
            arg,
            value,
            negated,
        } => {
            let v = arg.eval(row, ctx)?;
            let t = truth(&v, ctx);
            Value::Int(i64::from((t == Some(*value)) != *negated))
        }
        Expr::Not(arg) => {
            let v = arg.eval(row, ctx)?;
            bool_value(truth(&v, ctx).map(|b| !b))
        }
        Expr::And(l, r) => {
            let a = truth(&l.eval(row, ctx)?, ctx);
            if a == Some(false) {
                return Ok(Value::Int(0));
            }
            let b = truth(&r.eval(row, ctx)?, ctx);
            bool_value(match (a, b) {
                (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            })
        }
        Expr::Or(l, r) => {
            let a = truth(&l.eval(row, ctx)?, ctx);
            if a == Some(true) {
                return Ok(Value::Int(1));
            }
            let b = truth(&r.eval(row, ctx)?, ctx);
            bool_value(match (a, b) {
                (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            })
        }
        Expr::Xor(l, r) => {
            let a = truth(&l.eval(row, ctx)?, ctx);
            let b = truth(&r.eval(row, ctx)?, ctx);
            bool_value(a.zip(b).map(|(a, b)| a != b))
        }
        Expr::Between {
            arg,
            low,
            high,
            negated,
            collation,
        } => {
            let (v, lo, hi) = (
                arg.eval(row, ctx)?,
                low.eval(row, ctx)?,
                high.eval(row, ctx)?,
            );
            let [v, lo, hi] = datetimes_if_mixed_with_numbers([v, lo, hi], ctx);
            // The three compare in one type (MariaDB aggregates it over
            // all of them): with a number among them and no temporal
            // value, every string is read once as a DOUBLE when a number
            // is a DECIMAL or DOUBLE, else as a DECIMAL ('a' BETWEEN
            // '2024' AND 1 compares 0, 2024 and 1).
            let inexact =
                |x: &Value| matches!(x, Value::Decimal(_) | Value::Double(_) | Value::Float(_));
            let all = [&v, &lo, &hi];
            let partner = if all.iter().any(|x| super::compare::is_temporal(x)) {
                None
            } else {
                all.iter()
                    .find(|x| inexact(x))
                    .or_else(|| {
                        all.iter()
                            .find(|x| matches!(x, Value::Int(_) | Value::UInt(_)))
                    })
                    .map(|x| (*x).clone())
            };
            let [v, lo, hi] = match &partner {
                Some(p) => [v, lo, hi].map(|x| Probe::new(x).against(p, ctx).clone()),
                None => [v, lo, hi],
            };
            let ge = compare(&v, &lo, *collation, ctx).map(|o| o != Ordering::Less);
            let le = compare(&v, &hi, *collation, ctx).map(|o| o != Ordering::Greater);
            let r = match (ge, le) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            };
            bool_value(r.map(|b| b != *negated))
        }
        Expr::InList {
            arg,
            list,
            negated,
            collation,
        } => {
            let v = arg.eval(row, ctx)?;
            if v.is_null() {
                return Ok(Value::Null);
            }
            let mut saw_null = false;
            let mut v = Probe::new(v);
            for item in list {
                let x = item.eval(row, ctx)?;
                if x.is_null() {
                    saw_null = true;
                    continue;
                }
                match compare(v.against(&x, ctx), &x, *collation, ctx) {
                    Some(Ordering::Equal) => return Ok(Value::Int(i64::from(!*negated))),
                    None => saw_null = true,
                    _ => {}
                }
            }
            if saw_null {
                Value::Null
            } else {
                Value::Int(i64::from(*negated))
            }
        }
        Expr::Like {
            arg,
            pattern,
            escape,
            negated,
            collation,
            constant,
        } => {
            let v = arg.eval(row, ctx)?;
            if let Some(compiled) = constant {
                if v.is_null() {
                    return Ok(Value::Null);
                }
                return Ok(Value::Int(i64::from(
                    compiled.0.matches(&str_of(&v)) != *negated,
                )));
            }
            let p = pattern.eval(row, ctx)?;
            if v.is_null() || p.is_null() {
                return Ok(Value::Null);
            }
            let esc = match escape {
                Some(e) => super::like::escape_char(Some(&to_str(&e.eval(row, ctx)?))),
                None => super::like::escape_char(None),
            };
            // The compiled collation: binary only when a binary string
            // won (`c LIKE X'61'` is the column's collation).
            Value::Int(i64::from(
                like(&str_of(&v), &str_of(&p), esc, *collation) != *negated,
            ))
        }
        Expr::Case {
            operand,
            whens,
            otherwise,
            collation,
            coerce,
        } => {
            let op = match operand {
                Some(o) => Some(o.eval(row, ctx)?),
                None => None,
            };
            for (cond, result) in whens {
                let c = cond.eval(row, ctx)?;
                let hit = match &op {
                    Some(o) => compare(o, &c, *collation, ctx) == Some(Ordering::Equal),
                    None => truth(&c, ctx) == Some(true),
                };
                if hit {
                    let r = result.eval(row, ctx)?;
                    return Ok(apply_coerce(r, *coerce, ctx));
                }
            }
            match otherwise {
                Some(o) => {
                    let r = o.eval(row, ctx)?;
                    apply_coerce(r, *coerce, ctx)
                }
                None => Value::Null,
            }
        }
        Expr::DateAdd {
            date,
            amount,
            unit,
            subtract,
            as_text,
        } => {
            let d = date.eval(row, ctx)?;
            let a = amount.eval(row, ctx)?;
            let r = func_time::date_add(&d, &a, *unit, *subtract, ctx)?;
            match (as_text, r) {
                (Some(_), Value::Date(d)) => Value::Str(d.to_string()),
                (Some(dec), Value::Datetime(dt)) => {
                    Value::Str(crate::value::format_datetime(&dt, *dec))
                }
                (_, r) => r,
            }
        }
        Expr::Call {
            func,
            args,
            coerce,
            collation,
        } => func::call(*func, args, *coerce, *collation, row, ctx)?,
        Expr::Cast { arg, target } => {
            let v = arg.eval(row, ctx)?;
            func::cast(&v, target, ctx)?
        }
    })
}

pub(super) fn div_zero(ctx: &mut EvalContext<'_>) -> Result<Value, SqlError> {
    match ctx.division_by_zero {
        DivisionByZero::Error => Err(SqlError::new(code::DIVISION_BY_ZERO, "Division by 0")),
        DivisionByZero::Warn => {
            ctx.warn(code::DIVISION_BY_ZERO, "Division by 0");
            Ok(Value::Null)
        }
        DivisionByZero::Null => Ok(Value::Null),
    }
}

fn int_result(n: i128, unsigned: bool, text: &str) -> Result<Value, SqlError> {
    if unsigned {
        u64::try_from(n)
            .map(Value::UInt)
            .map_err(|_| SqlError::out_of_range("BIGINT UNSIGNED", text))
    } else {
        i64::try_from(n)
            .map(Value::Int)
            .map_err(|_| SqlError::out_of_range("BIGINT", text))
    }
}

fn dbl_result(f: f64, text: &str) -> Result<Value, SqlError> {
    if f.is_finite() {
        Ok(Value::Double(f))
    } else {
        Err(SqlError::out_of_range("DOUBLE", text))
    }
}

fn dec_result(d: Option<Decimal>, text: &str) -> Result<Value, SqlError> {
    d.map(Value::Decimal)
        .ok_or_else(|| SqlError::out_of_range("DECIMAL", text))
}

fn negate(n: Num, text: &str) -> Result<Value, SqlError> {
    match n {
        Num::Int(i) => int_result(-i128::from(i), false, text),
        Num::UInt(u) => int_result(-i128::from(u), false, text),
        Num::Dec(d) => Ok(Value::Decimal(decimal::neg(&d))),
        Num::Dbl(f) => Ok(Value::Double(-f)),
    }
}

/// Binary arithmetic and bit operators on non-NULL operands.
pub(super) fn arith(
    op: ArithOp,
    a: &Value,
    b: &Value,
    text: &str,
    ctx: &mut EvalContext<'_>,
) -> Result<Value, SqlError> {
    let (x, y) = (to_num(a, ctx), to_num(b, ctx));
    let dbl = matches!(x, Num::Dbl(_)) || matches!(y, Num::Dbl(_));
    let dec = !dbl && (matches!(x, Num::Dec(_)) || matches!(y, Num::Dec(_)));
    let unsigned = matches!(x, Num::UInt(_)) || matches!(y, Num::UInt(_));
    match op {
        ArithOp::Add | ArithOp::Sub | ArithOp::Mul => {
            if dbl {
                let (p, q) = (x.to_f64(), y.to_f64());
                let f = match op {
                    ArithOp::Add => p + q,
                    ArithOp::Sub => p - q,
                    _ => p * q,
                };
                return dbl_result(f, text);
            }
            if dec {
                let (p, q) = (x.to_decimal(), y.to_decimal());
                let r = match op {
                    ArithOp::Add => decimal::add(&p, &q),
                    ArithOp::Sub => decimal::sub(&p, &q),
                    _ => decimal::mul(&p, &q),
                };
                return dec_result(r, text);
            }
            let (p, q) = (x.to_i128(), y.to_i128());
            let r = match op {
                ArithOp::Add => p.checked_add(q),
                ArithOp::Sub => p.checked_sub(q),
                _ => p.checked_mul(q),
            };
            let ty = if unsigned {
                "BIGINT UNSIGNED"
            } else {
                "BIGINT"
            };
            int_result(
                r.ok_or_else(|| SqlError::out_of_range(ty, text))?,
                unsigned,
                text,
            )
        }
        ArithOp::Div => {
            if y.is_zero() {
                return div_zero(ctx);
            }
            if dbl {
                return dbl_result(x.to_f64() / y.to_f64(), text);
            }
            let p = x.to_decimal();
            let scale = decimal::div_internal_scale(p.scale());
            dec_result(decimal::div(&p, &y.to_decimal(), scale), text)
        }
        ArithOp::IntDiv => {
            if y.is_zero() {
                return div_zero(ctx);
            }
            let q = if dbl || dec {
                let (p, q) = if dbl {
                    let f = (x.to_f64() / y.to_f64()).trunc();
                    if !f.is_finite() || f.abs() > 1.8e19 {
                        return Err(SqlError::out_of_range("BIGINT", text));
                    }
                    return int_result(f as i128, unsigned, text);
                } else {
                    (x.to_decimal(), y.to_decimal())
                };
                decimal::int_div(&p, &q).ok_or_else(|| SqlError::out_of_range("BIGINT", text))?
            } else {
                x.to_i128() / y.to_i128()
            };
            int_result(q, unsigned, text)
        }
        ArithOp::Mod => {
            if y.is_zero() {
                return div_zero(ctx);
            }
            if dbl {
                return dbl_result(x.to_f64() % y.to_f64(), text);
            }
            if dec {
                return dec_result(decimal::rem(&x.to_decimal(), &y.to_decimal()), text);
            }
            let r = x.to_i128() % y.to_i128();
            int_result(r, matches!(x, Num::UInt(_)), text)
        }
        ArithOp::BitAnd | ArithOp::BitOr | ArithOp::BitXor | ArithOp::Shl | ArithOp::Shr => {
            let (p, q) = (bit_operand(&x), bit_operand(&y));
            Ok(Value::UInt(match op {
                ArithOp::BitAnd => p & q,
                ArithOp::BitOr => p | q,
                ArithOp::BitXor => p ^ q,
                ArithOp::Shl => p.checked_shl(u32::try_from(q).unwrap_or(64)).unwrap_or(0),
                _ => p.checked_shr(u32::try_from(q).unwrap_or(64)).unwrap_or(0),
            }))
        }
    }
}

/// The 64 bits a bit operator (`& | ^ << >> ~`, BIT_AND/OR/XOR) works on:
/// an integer's own bits; a real or decimal rounded half away from zero,
/// below zero held at BIGINT's minimum and above it at BIGINT UNSIGNED's
/// maximum, as MariaDB converts them.
pub(crate) fn bit_operand(n: &Num) -> u64 {
    let i = match n {
        Num::Int(i) => return *i as u64,
        Num::UInt(u) => return *u,
        Num::Dec(d) => decimal_to_i128(d),
        // `as` holds the float at i128's bounds.
        Num::Dbl(f) if f.is_nan() => 0,
        Num::Dbl(f) => f.round() as i128,
    };
    if i < 0 {
        i.max(i128::from(i64::MIN)) as i64 as u64
    } else {
        u64::try_from(i).unwrap_or(u64::MAX)
    }
}

/// Converts a branch result to the common type of IF/CASE/COALESCE (and
/// of a UNION's branches).
pub(crate) fn apply_coerce(v: Value, c: Coerce, ctx: &mut EvalContext<'_>) -> Value {
    if v.is_null() {
        return v;
    }
    match c {
        Coerce::Keep => v,
        Coerce::Int => match to_num(&v, ctx) {
            Num::UInt(u) => Value::UInt(u),
            n => Value::Int(i64::try_from(n.to_i128()).unwrap_or(i64::MAX)),
        },
        Coerce::Decimal => Value::Decimal(to_num(&v, ctx).to_decimal()),
        Coerce::Double => Value::Double(to_num(&v, ctx).to_f64()),
        Coerce::Text => match v {
            Value::Str(_) => v,
            other => Value::Str(to_str(&other)),
        },
        Coerce::Binary => Value::Bytes(convert::to_bytes(&v)),
        Coerce::Date => Value::Date(temporal_or_zero(&v, ctx).date),
        Coerce::Datetime => Value::Datetime(temporal_or_zero(&v, ctx)),
        Coerce::Time => Value::Time(convert::to_time(&v, ctx).unwrap_or(0)),
    }
}

/// The member number (ENUM) or bitmap (SET) of a value of column type `ty`
/// (passed as its member text), which ORDER BY and GROUP BY sort by; `None`
/// for other types and NULL.
pub fn member_number_of(v: &Value, ty: &ColumnType) -> Option<u64> {
    let (members, set) = match ty {
        ColumnType::Enum { values, .. } => (values, false),
        ColumnType::Set { values, .. } => (values, true),
        _ => return None,
    };
    match v {
        Value::Null => None,
        Value::Enum(i) => Some(u64::from(*i)),
        Value::Set(bits) => Some(*bits),
        other => Some(member_number(&to_str(other), members, set)),
    }
}

/// The record form of a value of a UUID-typed expression, by which UUIDs
/// sort (`None` for other types, and for text that is no UUID).
pub fn uuid_order_of(v: &Value, ty: &ColumnType) -> Option<[u8; 16]> {
    use larch_engine::record::uuid;
    if !matches!(ty, ColumnType::Uuid) {
        return None;
    }
    match v {
        Value::Str(s) => uuid::record_from_text(s.as_bytes()),
        Value::Bytes(b) => b.as_slice().try_into().ok(),
        _ => None,
    }
}

/// The number of an ENUM member's text (1-based, 0 for none) or the bitmap
/// of a SET value's comma-separated members.
fn member_number(text: &str, members: &[String], set: bool) -> u64 {
    let index = |m: &str| {
        members
            .iter()
            .position(|x| x == m)
            .or_else(|| members.iter().position(|x| x.eq_ignore_ascii_case(m)))
    };
    if !set {
        return index(text).map_or(0, |i| i as u64 + 1);
    }
    text.split(',')
        .filter_map(index)
        .filter(|&i| i < 64)
        .fold(0, |bits, i| bits | 1u64 << i)
}

/// A value's string form, borrowed when it is a string.
fn str_of(v: &Value) -> std::borrow::Cow<'_, str> {
    match v {
        Value::Str(s) => std::borrow::Cow::Borrowed(s.as_str()),
        other => std::borrow::Cow::Owned(to_str(other)),
    }
}

/// Runs a correlated subquery for `row` (see [`super::CorrelatedSubquery`]).
fn correlated_subquery(
    q: &super::CorrelatedSubquery,
    row: &[Value],
    ctx: &mut EvalContext<'_>,
) -> Result<Value, SqlError> {
    use super::SubqueryKind;
    let outer = q
        .outer
        .iter()
        .map(|e| e.eval(row, ctx))
        .collect::<Result<Vec<_>, _>>()?;
    let probe = q
        .probe
        .iter()
        .map(|(p, collation)| Ok((p.eval(row, ctx)?, *collation)))
        .collect::<Result<Vec<_>, SqlError>>()?;
    let rows = ctx
        .session
        .run_subquery(&q.template, q.id, &outer, ctx.params)?;
    let flag = |b: bool| Value::Int(i64::from(b));
    Ok(match q.kind {
        SubqueryKind::Exists { negated } => flag(rows.is_empty() == negated),
        SubqueryKind::Scalar => {
            if rows.len() > 1 {
                return Err(SqlError::new(1242, "Subquery returns more than 1 row"));
            }
            match rows.into_iter().next() {
                Some(r) if r.len() != 1 => return Err(SqlError::operand_columns(1)),
                Some(r) => r.into_iter().next().unwrap_or(Value::Null),
                None => Value::Null,
            }
        }
        SubqueryKind::In { negated } => {
            let width = probe.len().max(1);
            if rows.first().is_some_and(|r| r.len() != width) {
                return Err(SqlError::operand_columns(width));
            }
            if rows.is_empty() {
                // x IN (empty) is false, even for a NULL x.
                return Ok(flag(negated));
            }
            // Per row: equal when every column is, not equal when one is
            // not, unknown otherwise (a NULL and no difference).
            let mut unknown = false;
            for r in &rows {
                let mut equal = Some(true);
                for ((p, collation), v) in probe.iter().zip(r) {
                    if p.is_null() || v.is_null() {
                        equal = None;
                    } else if compare(p, v, *collation, ctx) != Some(Ordering::Equal) {
                        equal = Some(false);
                        break;
                    }
                }
                match equal {
                    Some(true) => return Ok(flag(!negated)),
                    None => unknown = true,
                    Some(false) => {}
                }
            }
            if unknown {
                Value::Null
            } else {
                flag(negated)
            }
        }
    })
}

/// [`Expr::UuidKey`]: a UUID's text (or its 16 bytes) as its record form.
pub(super) fn uuid_key(v: Value, ctx: &mut EvalContext<'_>) -> Value {
    use larch_engine::record::uuid;
    let text = match &v {
        Value::Null => return Value::Null,
        Value::Bytes(b) => {
            if let Ok(m) = <&[u8; uuid::UUID_BYTES]>::try_from(b.as_slice()) {
                return Value::Bytes(uuid::to_record(m).to_vec());
            }
            String::from_utf8_lossy(b).into_owned()
        }
        other => to_str(other),
    };
    match uuid::record_from_text(text.as_bytes()) {
        Some(r) => Value::Bytes(r.to_vec()),
        None => {
            ctx.warn(
                code::TRUNCATED_WRONG_VALUE,
                &format!("Incorrect uuid value: '{text}'"),
            );
            Value::Null
        }
    }
}

/// MariaDB's `compare_real_fixed`: two numbers read as doubles, equal when
/// they differ by less than 5·10^-(decimals+1).
fn compare_fixed_reals(
    a: &Value,
    b: &Value,
    decimals: u8,
    ctx: &mut EvalContext<'_>,
) -> Option<Ordering> {
    if a.is_null() || b.is_null() {
        return None;
    }
    let (x, y) = (convert::to_f64(a, ctx), convert::to_f64(b, ctx));
    let precision = 5.0 / 10f64.powi(i32::from(decimals) + 1);
    if x == y || (x - y).abs() < precision {
        return Some(Ordering::Equal);
    }
    x.partial_cmp(&y)
}
