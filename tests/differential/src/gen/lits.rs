//! Literals of every type family for generated expressions: numbers at
//! type boundaries, strings that convert to numbers and temporals,
//! temporal literals in both `DATE '...'` and string form, JSON documents
//! and paths, LIKE and REGEXP patterns, DATE_FORMAT formats.

use super::Gen;
use crate::ast::Expr;
use crate::schema::{self, quote, Ty};

const INTS: [&str; 20] = [
    "0",
    "1",
    "-1",
    "2",
    "3",
    "10",
    "-7",
    "100",
    "127",
    "128",
    "255",
    "256",
    "-128",
    "65535",
    "2147483647",
    "-2147483648",
    "4294967295",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
];
const DECS: [&str; 10] = [
    "0.5",
    "-1.25",
    "3.14159",
    "0.0",
    "100.001",
    "-0.005",
    "99999999.99",
    "1.5",
    "2.675",
    "1e0",
];
const FLOATS: [&str; 8] = [
    "1e0", "2.5e0", "-0.5e1", "1e100", "1.5e-3", "0e0", "3.0e0", "-1e-7",
];

/// JSON paths used with the JSON functions.
pub const PATHS: [&str; 11] = [
    "'$'",
    "'$.a'",
    "'$.b[1]'",
    "'$[0]'",
    "'$.a.a'",
    "'$[*]'",
    "'$.*'",
    "'$**.c'",
    "'$.z'",
    "'$[1]'",
    "'$.b[2].c'",
];

/// LIKE patterns; the ones with `|` are for `ESCAPE '|'`.
pub const LIKE_PATTERNS: [&str; 12] = [
    "'a%'", "'%b%'", "'_'", "'%'", "''", "'A_C'", "'%é%'", "'a |%%'", "'x|%y'", "'%|_%'", "'1%'",
    "'% '",
];

/// Regular expressions.
pub const REGEXPS: [&str; 9] = [
    "'^a'",
    "'b$'",
    "'[a-c]+'",
    "'a|b'",
    "'^.$'",
    "'[[:digit:]]'",
    "'^$'",
    "'(ab)+'",
    "'A'",
];

/// DATE_FORMAT formats.
pub const FORMATS: [&str; 8] = [
    "'%Y-%m-%d'",
    "'%d/%m/%y %H:%i:%s'",
    "'%W %M %e %D'",
    "'%j %U %u %V %v'",
    "'%f %p %r %T'",
    "'%a %b %c %k %l'",
    "'%%%x'",
    "'%X-%V'",
];

/// INTERVAL units for dates and times.
pub const UNITS: [&str; 10] = [
    "DAY",
    "MONTH",
    "YEAR",
    "HOUR",
    "MINUTE",
    "SECOND",
    "MICROSECOND",
    "WEEK",
    "QUARTER",
    "DAY_SECOND",
];

impl Gen {
    /// A literal of type family `ty` (sometimes in a form of another type
    /// that converts: strings for numbers and temporals).
    pub fn literal(&mut self, ty: Ty) -> Expr {
        let s = match ty {
            Ty::Int => {
                if self.chance(0.1) {
                    (*self.pick(&["TRUE", "FALSE", "'3'", "' 12abc'", "0x41", "b'101'"])).to_owned()
                } else {
                    (*self.pick(&INTS)).to_owned()
                }
            }
            Ty::Dec => {
                if self.chance(0.1) {
                    (*self.pick(&["'1.5'", "'-0.25x'", "'.5'"])).to_owned()
                } else {
                    (*self.pick(&DECS)).to_owned()
                }
            }
            Ty::Float => (*self.pick(&FLOATS)).to_owned(),
            Ty::Str => {
                if self.chance(0.05) {
                    (*self.pick(&["_latin1'abc'", "_utf8mb4'Ab'", "X'616263'", "_binary'a'"]))
                        .to_owned()
                } else {
                    let s = *self.pick(&schema::STRINGS);
                    quote(s)
                }
            }
            Ty::Date => {
                let d = schema::date_text(&mut self.rng);
                match self.below(4) {
                    0 => format!("DATE '{d}'"),
                    1 => (*self.pick(&[
                        "'2024-02-30'",
                        "'2024-13-01'",
                        "20240115",
                        "'0000-00-00'",
                        "'24-1-5'",
                    ]))
                    .to_owned(),
                    _ => quote(&d),
                }
            }
            Ty::Time => {
                let t = schema::time_text(&mut self.rng, 6);
                match self.below(4) {
                    0 => format!("TIME '{t}'"),
                    1 => (*self.pick(&[
                        "'25:61:00'",
                        "123456",
                        "'1 02:03:04'",
                        "'12:30'",
                        "'-00:00:01.5'",
                    ]))
                    .to_owned(),
                    _ => quote(&t),
                }
            }
            Ty::DateTime => {
                let t = schema::datetime_text(&mut self.rng, 6, false);
                match self.below(4) {
                    0 => format!("TIMESTAMP '{t}'"),
                    1 => (*self.pick(&[
                        "'2024-02-29 24:00:00'",
                        "20240115123045",
                        "'2024-01-15'",
                        "'2024-01-15T10:11:12.1234567'",
                    ]))
                    .to_owned(),
                    _ => quote(&t),
                }
            }
            Ty::Json => {
                let j = *self.pick(&schema::JSONS);
                quote(j)
            }
        };
        Expr::Leaf(s)
    }

    /// A small non-negative integer literal (lengths, counts, positions).
    pub fn small_int(&mut self) -> Expr {
        Expr::Leaf((*self.pick(&["0", "1", "2", "3", "5", "-1", "NULL", "10"])).to_owned())
    }
}
