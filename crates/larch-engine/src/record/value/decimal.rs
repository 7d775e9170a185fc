//! Exact decimal numbers: the [`Decimal`] type (parsing, rescaling half away from
//! zero, numeric equality and order, formatting), the DECIMAL precision and scale
//! limits, and MySQL's binary DECIMAL row encoding ([`decimal_bin_size`] bytes,
//! memcomparable for a fixed precision and scale).

use std::cmp::Ordering;
use std::fmt;

use super::{corrupt, get_be, out_of_range, ColumnType, ValueError};

/// Most digits of a DECIMAL.
pub const DECIMAL_MAX_PRECISION: u8 = 65;
/// Most fractional digits of a DECIMAL.
pub const DECIMAL_MAX_SCALE: u8 = 30;

/// An exact decimal number: sign, coefficient digits and scale
/// (value = ±coefficient × 10^-scale). Equality and order are numeric
/// (`1.5 == 1.50`); zero is never negative.
#[derive(Clone, Debug)]
pub struct Decimal {
    negative: bool,
    /// Coefficient digits 0..=9, most significant first, no leading zeros.
    digits: Vec<u8>,
    scale: u8,
}

impl Decimal {
    /// Builds a decimal from its parts; `digits` are 0..=9, most significant first.
    pub fn from_parts(negative: bool, digits: &[u8], scale: u8) -> Result<Decimal, ValueError> {
        if digits.iter().any(|&d| d > 9) {
            return Err(bad_decimal("digit out of range"));
        }
        let first = digits.iter().position(|&d| d != 0).unwrap_or(digits.len());
        let digits = digits[first..].to_vec();
        Ok(Decimal {
            negative: negative && !digits.is_empty(),
            digits,
            scale,
        })
    }

    /// Parses `[+-]digits[.digits]`.
    pub fn parse(s: &str) -> Result<Decimal, ValueError> {
        let (negative, body) = match s.as_bytes().first() {
            Some(b'-') => (true, &s[1..]),
            Some(b'+') => (false, &s[1..]),
            _ => (false, s),
        };
        let (int, frac) = body.split_once('.').unwrap_or((body, ""));
        let all_digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
        if (int.is_empty() && frac.is_empty()) || !all_digits(int) || !all_digits(frac) {
            return Err(bad_decimal(s));
        }
        let scale = u8::try_from(frac.len()).map_err(|_| bad_decimal(s))?;
        let digits: Vec<u8> = int.bytes().chain(frac.bytes()).map(|b| b - b'0').collect();
        Decimal::from_parts(negative, &digits, scale)
    }

    /// `unscaled × 10^-scale`.
    pub fn from_i128(unscaled: i128, scale: u8) -> Decimal {
        let digits: Vec<u8> = unscaled
            .unsigned_abs()
            .to_string()
            .bytes()
            .map(|b| b - b'0')
            .collect();
        Decimal::from_parts(unscaled < 0, &digits, scale).unwrap_or_else(|_| Decimal::zero())
    }

    /// Zero with scale 0.
    pub fn zero() -> Decimal {
        Decimal {
            negative: false,
            digits: Vec::new(),
            scale: 0,
        }
    }

    /// True for values below zero.
    pub fn is_negative(&self) -> bool {
        self.negative
    }

    /// True for zero.
    pub fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// Number of fractional digits.
    pub fn scale(&self) -> u8 {
        self.scale
    }

    /// Coefficient digits, most significant first, without leading zeros.
    pub fn coefficient(&self) -> &[u8] {
        &self.digits
    }

    /// Integer-part digits (no leading zeros).
    fn int_part(&self) -> &[u8] {
        &self.digits[..self.digits.len().saturating_sub(usize::from(self.scale))]
    }

    /// Fractional digit `i` (0-based after the point); 0 beyond the scale.
    fn frac_digit(&self, i: usize) -> u8 {
        let scale = usize::from(self.scale);
        if i >= scale {
            return 0;
        }
        // Position of fractional digit i in `digits`, counting from the end.
        let from_end = scale - i;
        if from_end > self.digits.len() {
            0
        } else {
            self.digits[self.digits.len() - from_end]
        }
    }

    /// Rounds half away from zero to `scale` digits (MySQL's rule) or extends.
    pub fn rescale(&self, scale: u8) -> Decimal {
        let mut int: Vec<u8> = self.int_part().to_vec();
        int.extend((0..usize::from(scale)).map(|i| self.frac_digit(i)));
        if scale < self.scale && self.frac_digit(usize::from(scale)) >= 5 {
            // Propagate the carry.
            let mut i = int.len();
            loop {
                if i == 0 {
                    int.insert(0, 1);
                    break;
                }
                i -= 1;
                if int[i] == 9 {
                    int[i] = 0;
                } else {
                    int[i] += 1;
                    break;
                }
            }
        }
        Decimal::from_parts(self.negative, &int, scale).unwrap_or_else(|_| Decimal::zero())
    }

    fn magnitude_cmp(&self, other: &Decimal) -> Ordering {
        let (a, b) = (self.int_part(), other.int_part());
        a.len().cmp(&b.len()).then_with(|| a.cmp(b)).then_with(|| {
            let n = usize::from(self.scale.max(other.scale));
            (0..n)
                .map(|i| self.frac_digit(i).cmp(&other.frac_digit(i)))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        })
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.magnitude_cmp(other),
            (true, true) => other.magnitude_cmp(self),
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Decimal {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Decimal {}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negative {
            f.write_str("-")?;
        }
        let int = self.int_part();
        if int.is_empty() {
            f.write_str("0")?;
        }
        for d in int {
            write!(f, "{d}")?;
        }
        if self.scale > 0 {
            f.write_str(".")?;
            for i in 0..usize::from(self.scale) {
                write!(f, "{}", self.frac_digit(i))?;
            }
        }
        Ok(())
    }
}

fn bad_decimal(s: &str) -> ValueError {
    ValueError::BadValue {
        ty: "decimal".into(),
        value: s.into(),
    }
}

/// Bytes of a DECIMAL(precision, scale) in MySQL's binary format.
pub fn decimal_bin_size(precision: u8, scale: u8) -> usize {
    let intg = usize::from(precision.saturating_sub(scale));
    let frac = usize::from(scale);
    (intg / 9 + frac / 9) * 4 + DIG2BYTES[intg % 9] + DIG2BYTES[frac % 9]
}

/// Bytes holding a group of n < 9 decimal digits.
const DIG2BYTES: [usize; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];

/// MySQL's binary DECIMAL format: the integer part then the fraction, each in
/// groups of 9 digits stored as 4-byte big-endian numbers (a partial group of n
/// digits takes `DIG2BYTES[n]` bytes: leading for the integer part, trailing for
/// the fraction); negative numbers are complemented, then the top bit is flipped.
pub(super) fn encode_decimal(
    ty: &ColumnType,
    precision: u8,
    scale: u8,
    d: &Decimal,
    out: &mut Vec<u8>,
) -> Result<(), ValueError> {
    let d = if d.scale() > scale {
        d.rescale(scale)
    } else {
        d.clone()
    };
    let intg = usize::from(precision - scale);
    let int = d.int_part();
    if int.len() > intg {
        return Err(out_of_range(ty, &d));
    }
    // All digits, integer part left-padded to intg, fraction right-padded to scale.
    let mut all = vec![0u8; intg - int.len()];
    all.extend_from_slice(int);
    all.extend((0..usize::from(scale)).map(|i| d.frac_digit(i)));
    let mask: u8 = if d.is_negative() { 0xFF } else { 0 };
    let start = out.len();
    let mut put_group = |digits: &[u8]| {
        if digits.is_empty() {
            return;
        }
        let v = digits.iter().fold(0u64, |acc, &x| acc * 10 + u64::from(x));
        let width = if digits.len() == 9 {
            4
        } else {
            DIG2BYTES[digits.len()]
        };
        for b in &v.to_be_bytes()[8 - width..] {
            out.push(b ^ mask);
        }
    };
    let (int_digits, frac_digits) = all.split_at(intg);
    let lead = intg % 9;
    put_group(&int_digits[..lead]);
    int_digits[lead..].chunks(9).for_each(&mut put_group);
    frac_digits.chunks(9).for_each(&mut put_group);
    if let Some(first) = out.get_mut(start) {
        *first ^= 0x80;
    }
    Ok(())
}

pub(super) fn decode_decimal(
    ty: &ColumnType,
    precision: u8,
    scale: u8,
    bytes: &[u8],
) -> Result<Decimal, ValueError> {
    let mut buf = bytes.to_vec();
    let first = buf.first_mut().ok_or_else(|| corrupt(ty, "empty"))?;
    let negative = *first & 0x80 == 0;
    *first ^= 0x80;
    if negative {
        buf.iter_mut().for_each(|b| *b = !*b);
    }
    let intg = usize::from(precision - scale);
    let mut sizes: Vec<usize> = Vec::new();
    if intg % 9 > 0 {
        sizes.push(intg % 9);
    }
    sizes.extend(std::iter::repeat_n(9, intg / 9 + usize::from(scale) / 9));
    if scale % 9 > 0 {
        sizes.push(usize::from(scale % 9));
    }
    let mut digits = Vec::with_capacity(usize::from(precision));
    let mut pos = 0;
    for n in sizes {
        let width = if n == 9 { 4 } else { DIG2BYTES[n] };
        let v = get_be(&buf[pos..pos + width]);
        pos += width;
        if v >= 10u64.pow(n as u32) {
            return Err(corrupt(ty, "decimal group out of range"));
        }
        let s = format!("{v:0n$}");
        digits.extend(s.bytes().map(|b| b - b'0'));
    }
    Decimal::from_parts(negative, &digits, scale)
}
