//! Exact DECIMAL arithmetic for expressions: add, subtract, multiply, divide
//! and remainder on the engine's [`Decimal`], with MySQL's result scales
//! (sum: the larger scale; product: the sum of scales, at most 30; quotient:
//! the dividend's scale plus `div_precision_increment` (4), computed to the
//! next multiple of 9 digits as MySQL's word-based decimals do, so that
//! `1/3*3` is `0.999999999` internally and shows as `1.0000`).
//!
//! Magnitudes are base-10 digit vectors, most significant first; operations
//! are schoolbook (operands have at most 65 + 30 digits). Results whose integer
//! part exceeds 65 digits are `None` (the caller reports 1690).

use std::cmp::Ordering;

use larch_engine::record::value::Decimal;

/// MySQL's `div_precision_increment` default.
pub const DIV_PRECISION_INCREMENT: u8 = 4;
/// Most fractional digits of a DECIMAL.
pub const MAX_SCALE: u8 = 30;
/// Most integer digits a result may have.
const MAX_INT_DIGITS: usize = 65;

/// Coefficient digits of `d` extended to `scale` fractional digits.
fn digits_at(d: &Decimal, scale: u8) -> Vec<u8> {
    let mut v = d.coefficient().to_vec();
    v.extend(std::iter::repeat_n(
        0,
        usize::from(scale.saturating_sub(d.scale())),
    ));
    v
}

fn trim(mut v: Vec<u8>) -> Vec<u8> {
    let nz = v.iter().position(|&x| x != 0).unwrap_or(v.len());
    v.drain(..nz);
    v
}

fn cmp_mag(a: &[u8], b: &[u8]) -> Ordering {
    let (a, b) = (strip(a), strip(b));
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

fn strip(a: &[u8]) -> &[u8] {
    &a[a.iter().position(|&x| x != 0).unwrap_or(a.len())..]
}

fn add_mag(a: &[u8], b: &[u8]) -> Vec<u8> {
    let n = a.len().max(b.len()) + 1;
    let mut out = vec![0u8; n];
    let mut carry = 0u8;
    for k in 0..n {
        let x = if k < a.len() { a[a.len() - 1 - k] } else { 0 };
        let y = if k < b.len() { b[b.len() - 1 - k] } else { 0 };
        let s = x + y + carry;
        out[n - 1 - k] = s % 10;
        carry = s / 10;
    }
    trim(out)
}

/// `a - b` for `a >= b`.
fn sub_mag(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = a.to_vec();
    let mut borrow = 0i8;
    for k in 0..out.len() {
        let i = out.len() - 1 - k;
        let y = if k < b.len() {
            b[b.len() - 1 - k] as i8
        } else {
            0
        };
        let mut d = out[i] as i8 - y - borrow;
        borrow = 0;
        if d < 0 {
            d += 10;
            borrow = 1;
        }
        out[i] = d as u8;
    }
    trim(out)
}

fn mul_mag(a: &[u8], b: &[u8]) -> Vec<u8> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let mut acc = vec![0u32; a.len() + b.len()];
    for (i, &x) in a.iter().enumerate().rev() {
        for (j, &y) in b.iter().enumerate().rev() {
            acc[i + j + 1] += u32::from(x) * u32::from(y);
        }
    }
    for k in (1..acc.len()).rev() {
        let carry = acc[k] / 10;
        acc[k] %= 10;
        acc[k - 1] += carry;
    }
    trim(acc.into_iter().map(|d| d as u8).collect())
}

/// Quotient and remainder of magnitudes (`d` non-zero).
fn divmod_mag(n: &[u8], d: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let d = strip(d);
    let mut q = Vec::with_capacity(n.len());
    let mut rem: Vec<u8> = Vec::new();
    for &digit in n {
        rem.push(digit);
        rem = trim(rem);
        let mut count = 0u8;
        while cmp_mag(&rem, d) != Ordering::Less {
            rem = sub_mag(&rem, d);
            count += 1;
        }
        q.push(count);
    }
    (trim(q), rem)
}

fn make(negative: bool, digits: &[u8], scale: u8) -> Option<Decimal> {
    let d = Decimal::from_parts(negative, digits, scale).ok()?;
    (d.coefficient().len().saturating_sub(usize::from(scale)) <= MAX_INT_DIGITS).then_some(d)
}

fn signed_add(an: bool, a: &[u8], bn: bool, b: &[u8], scale: u8) -> Option<Decimal> {
    if an == bn {
        return make(an, &add_mag(a, b), scale);
    }
    match cmp_mag(a, b) {
        Ordering::Less => make(bn, &sub_mag(b, a), scale),
        _ => make(an, &sub_mag(a, b), scale),
    }
}

/// `a + b`.
pub fn add(a: &Decimal, b: &Decimal) -> Option<Decimal> {
    let s = a.scale().max(b.scale());
    signed_add(
        a.is_negative(),
        &digits_at(a, s),
        b.is_negative(),
        &digits_at(b, s),
        s,
    )
}

/// `a - b`.
pub fn sub(a: &Decimal, b: &Decimal) -> Option<Decimal> {
    let s = a.scale().max(b.scale());
    signed_add(
        a.is_negative(),
        &digits_at(a, s),
        !b.is_negative() && !b.is_zero(),
        &digits_at(b, s),
        s,
    )
}

/// `a * b` (scale capped at 30 by rounding).
pub fn mul(a: &Decimal, b: &Decimal) -> Option<Decimal> {
    let s = u16::from(a.scale()) + u16::from(b.scale());
    let digits = mul_mag(a.coefficient(), b.coefficient());
    let neg = a.is_negative() != b.is_negative();
    if s > u16::from(MAX_SCALE) {
        let wide = Decimal::from_parts(neg, &digits, u8::try_from(s).ok()?).ok()?;
        return make(
            wide.is_negative(),
            wide.rescale(MAX_SCALE).coefficient(),
            MAX_SCALE,
        );
    }
    make(neg, &digits, s as u8)
}

/// The scale MySQL computes a quotient with: the dividend's scale plus the
/// increment, rounded up to a multiple of 9, at most 30.
pub fn div_internal_scale(dividend_scale: u8) -> u8 {
    let s = dividend_scale + DIV_PRECISION_INCREMENT;
    (s.div_ceil(9) * 9).min(MAX_SCALE)
}

/// `a / b` truncated to `scale` digits, as MariaDB's `decimal_div` (the
/// shown result rounds from there: 2/7 is 0.285714285 inside, 0.2857
/// shown); `None` for a zero divisor or an overflow.
pub fn div(a: &Decimal, b: &Decimal, scale: u8) -> Option<Decimal> {
    if b.is_zero() {
        return None;
    }
    // |a| * 10^(scale + b.scale - a.scale) / |b|.
    let shift = i32::from(scale) + i32::from(b.scale()) - i32::from(a.scale());
    let mut n = a.coefficient().to_vec();
    let mut d = b.coefficient().to_vec();
    if shift >= 0 {
        n.extend(std::iter::repeat_n(0, shift as usize));
    } else {
        d.extend(std::iter::repeat_n(0, shift.unsigned_abs() as usize));
    }
    let (q, _) = divmod_mag(&n, &d);
    let neg = a.is_negative() != b.is_negative() && q.iter().any(|&x| x != 0);
    make(neg, &q, scale)
}

/// `a MOD b`: the sign of `a`, the larger scale; `None` for a zero divisor.
pub fn rem(a: &Decimal, b: &Decimal) -> Option<Decimal> {
    if b.is_zero() {
        return None;
    }
    let s = a.scale().max(b.scale());
    let (_, r) = divmod_mag(&digits_at(a, s), &digits_at(b, s));
    make(a.is_negative(), &r, s)
}

/// `a DIV b`: the quotient truncated toward zero, as an i128.
pub fn int_div(a: &Decimal, b: &Decimal) -> Option<i128> {
    if b.is_zero() {
        return None;
    }
    let s = a.scale().max(b.scale());
    let (q, _) = divmod_mag(&digits_at(a, s), &digits_at(b, s));
    if q.len() > 38 {
        return None;
    }
    let m = q.iter().fold(0i128, |acc, &x| acc * 10 + i128::from(x));
    Some(if a.is_negative() != b.is_negative() {
        -m
    } else {
        m
    })
}

/// `-a`.
pub fn neg(a: &Decimal) -> Decimal {
    Decimal::from_parts(!a.is_negative(), a.coefficient(), a.scale())
        .unwrap_or_else(|_| Decimal::zero())
}

/// The decimal as a double.
pub fn to_f64(a: &Decimal) -> f64 {
    a.to_string().parse().unwrap_or(0.0)
}

/// Truncates toward zero (`up == false`) or rounds away from zero (`up`) to
/// `scale` digits; MySQL's TRUNCATE and the CEIL/FLOOR building block.
pub fn cut(a: &Decimal, scale: u8, away: bool) -> Decimal {
    if a.scale() <= scale {
        return a.clone();
    }
    let drop = usize::from(a.scale() - scale);
    let digits = a.coefficient();
    let keep = digits.len().saturating_sub(drop);
    let lost = digits[keep..].iter().any(|&x| x != 0);
    let mut kept = digits[..keep].to_vec();
    if away && lost {
        kept = add_mag(&kept, &[1]);
    }
    Decimal::from_parts(a.is_negative(), &kept, scale).unwrap_or_else(|_| Decimal::zero())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s).unwrap_or_else(|_| Decimal::zero())
    }

    fn show(x: Option<Decimal>) -> String {
        x.map_or_else(|| "NULL".into(), |x| x.to_string())
    }

    #[test]
    fn arithmetic_keeps_mysql_scales() {
        assert_eq!(show(add(&d("0.1"), &d("0.2"))), "0.3");
        assert_eq!(show(sub(&d("5"), &d("2.25"))), "2.75");
        assert_eq!(show(sub(&d("-1.5"), &d("-1.5"))), "0.0");
        assert_eq!(show(sub(&d("1"), &d("3.5"))), "-2.5");
        assert_eq!(show(mul(&d("3"), &d("1.50"))), "4.50");
        assert_eq!(show(mul(&d("-0.5"), &d("0.5"))), "-0.25");
        assert_eq!(show(div(&d("1"), &d("3"), 9)), "0.333333333");
        // Truncated, as MariaDB's decimal_div: the shown value rounds later.
        assert_eq!(show(div(&d("2"), &d("3"), 4)), "0.6666");
        assert_eq!(show(div(&d("-7"), &d("2"), 4)), "-3.5000");
        assert_eq!(show(div(&d("1"), &d("0"), 4)), "NULL");
        assert_eq!(show(rem(&d("7.5"), &d("2"))), "1.5");
        assert_eq!(show(rem(&d("-7"), &d("3"))), "-1");
        assert_eq!(int_div(&d("-5"), &d("2.5")), Some(-2));
        assert_eq!(int_div(&d("10"), &d("4.0")), Some(2));
        assert_eq!(div_internal_scale(0), 9);
        assert_eq!(div_internal_scale(9), 18);
        assert_eq!(cut(&d("1.59"), 1, false).to_string(), "1.5");
        assert_eq!(cut(&d("-1.51"), 0, true).to_string(), "-2");
        let big = d(&"9".repeat(65));
        assert!(add(&big, &d("1")).is_none());
    }
}
