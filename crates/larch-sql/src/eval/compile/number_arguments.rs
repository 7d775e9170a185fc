//! Where MariaDB reads a function's argument as a number.
//!
//! A hexadecimal or bit literal (`0x41`, `b'1000001'`) is a string where
//! its text is read and a number where its number is: `CHAR(0x41)` is
//! `'A'`, `LPAD('a', 0x3, 'b')` is `'bba'`, `LEFT(0x4142, 0x1)` is `'A'`.
//! MariaDB decides by the value it asks the argument for (`val_int()`,
//! `val_real()` or `val_str()`); this module names, for each function, the
//! argument positions it reads as numbers, so the compiler can give those
//! positions the literal's number ([`Typed::numeric`], which also reads an
//! ENUM or SET as its member number and a JSON_EXTRACT result as its JSON
//! number, as MariaDB's `val_int()` of them does).
//!
//! Comparisons decide by the other operands instead: a hex literal among
//! numbers (`0x41 IN (65)`, `0x41 BETWEEN 60 AND 70`, `GREATEST(0x41, 1)`)
//! is a number, among strings a string ([`compared_as_numbers`]).

use super::super::func_clock::Clock as C;
use super::super::func_math::MathStr as M;
use super::super::func_more::More as R;
use super::super::Func;
use super::types::is_string;
use super::Typed;

/// True when `func` reads its argument at position `i` (from 0) as a
/// number.
pub(super) fn number_argument(func: Func, i: usize) -> bool {
    use Func::*;
    match func {
        Abs | Ceil | Floor | Round | Truncate | Mod | Pow | Sqrt | Sign | Rand | Sleep => true,
        Substring => i >= 1,
        Left | Right | Lpad | Rpad | Repeat => i == 1,
        Locate => i == 2,
        Space | FromUnixtime => i == 0,
        // IF's condition is a truth value.
        If => i == 0,
        More(m) => match m {
            R::SubstringIndex => i == 2,
            R::FromDays => true,
            R::Week | R::YearWeek | R::GetLock => i == 1,
            _ => false,
        },
        MathStr(m) => match m {
            M::Ln
            | M::Log
            | M::Log2
            | M::Log10
            | M::Exp
            | M::Sin
            | M::Cos
            | M::Tan
            | M::Cot
            | M::Asin
            | M::Acos
            | M::Atan
            | M::Degrees
            | M::Radians
            | M::Char
            | M::BitCount
            | M::InetNtoa => true,
            M::Chr | M::Elt | M::MakeSet => i == 0,
            M::Insert | M::Conv => i == 1 || i == 2,
            M::Format => i <= 1,
            M::ExportSet => i == 0 || i == 4,
            _ => false,
        },
        Clock(c) => matches!(
            c,
            C::SecToTime | C::MakeDate | C::MakeTime | C::PeriodAdd | C::PeriodDiff
        ),
        _ => false,
    }
}

/// True when values compared with each other (IN, BETWEEN, CASE's operand
/// and WHEN values, GREATEST, LEAST, FIELD) compare as numbers
/// because one of them is not a string; a NULL literal does not count.
pub(super) fn compared_as_numbers<'a>(items: impl IntoIterator<Item = &'a Typed>) -> bool {
    items
        .into_iter()
        .any(|t| !t.null_lit && !is_string(&t.ty.ty))
}

impl Typed {
    /// A hex or bit literal as its number; anything else as it is.
    pub(super) fn hex_as_number(self) -> Typed {
        if self.hex.is_some() {
            self.numeric()
        } else {
            self
        }
    }
}
