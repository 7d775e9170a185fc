//! Canonical values and SQL order: [`normalize_value`] (the value as the column
//! stores it) and [`compare_values`] (NULL first, strings by the column's
//! collation, everything else by value).

use std::cmp::Ordering;

use super::{decode_value, encode_value, mismatch, ColumnType, Value, ValueError};

/// The value as the column stores it (`decode_value(encode_value(v))`); NULL stays
/// NULL. Fails as [`encode_value`] does.
pub fn normalize_value(ty: &ColumnType, v: &Value) -> Result<Value, ValueError> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    let mut buf = Vec::new();
    encode_value(ty, v, &mut buf)?;
    decode_value(ty, &buf)
}

/// Compares two values of a column in SQL order (NULL first; strings by the
/// column's collation; ENUM by index; SET and BIT numerically).
pub fn compare_values(ty: &ColumnType, a: &Value, b: &Value) -> Result<Ordering, ValueError> {
    let (a, b) = (normalize_value(ty, a)?, normalize_value(ty, b)?);
    let o = match (&a, &b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Less,
        (_, Value::Null) => Ordering::Greater,
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::UInt(x), Value::UInt(y)) => x.cmp(y),
        (Value::Decimal(x), Value::Decimal(y)) => x.cmp(y),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
        (Value::Double(x), Value::Double(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
        (Value::Bytes(x), Value::Bytes(y)) => x.cmp(y),
        (Value::Str(x), Value::Str(y)) => {
            ty.collation().map_or_else(|| x.cmp(y), |c| c.compare(x, y))
        }
        (Value::Date(x), Value::Date(y)) => x.cmp(y),
        (Value::Time(x), Value::Time(y)) => x.cmp(y),
        (Value::Datetime(x), Value::Datetime(y)) => x.cmp(y),
        (Value::Timestamp(x), Value::Timestamp(y)) => x.cmp(y),
        (Value::Year(x), Value::Year(y)) => x.cmp(y),
        (Value::Enum(x), Value::Enum(y)) => x.cmp(y),
        (Value::Set(x), Value::Set(y)) => x.cmp(y),
        (Value::Bit(x), Value::Bit(y)) => x.cmp(y),
        _ => return Err(mismatch(ty, &b)),
    };
    Ok(o)
}
