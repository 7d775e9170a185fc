//! Collations that cannot be mixed: MariaDB's 1267, 1270 and 1271
//! ("Illegal mix of collations ... for operation '='").
//!
//! MariaDB aggregates the collations of an operation's string operands by
//! coercibility (`DTCollation::aggregate`): the lowest wins. Two operands of
//! the lowest coercibility in one character set but different collations
//! conflict
//! - when both are EXPLICIT (`COLLATE`): every operation refuses;
//! - when both are IMPLICIT (columns) and neither collation is a binary
//!   (`_bin`) one: the result has no collation, which a comparison refuses
//!   and a string result (CONCAT) accepts.
//!
//! Operands of different character sets convert to the larger one (utf8mb4
//! over utf8mb3 over latin1) and never conflict here; a binary string, a
//! number or a NULL literal takes no part.

use larch_engine::record::collation::Collation;

use super::types::text_collation;
use super::Typed;
use crate::error::SqlError;

/// MariaDB's name of a coercibility level, as its messages print it.
fn derivation_name(coer: u8) -> &'static str {
    match coer {
        0 => "EXPLICIT",
        1 => "NONE",
        2 => "IMPLICIT",
        3 => "SYSCONST",
        4 => "COERCIBLE",
        5 => "NUMERIC",
        _ => "IGNORABLE",
    }
}

/// Whether `c` sorts by the bytes of its characters (a `_bin` collation),
/// which wins a tie with another collation of its character set.
fn binary_sort(c: Collation) -> bool {
    c.name().ends_with("_bin")
}

/// Checks that the string operands `ts` of operation `op` (MariaDB's name:
/// `=`, `like`, `concat` ...) can be given one collation; `compared` when
/// the operation compares them, where IMPLICIT conflicts count too.
pub(super) fn check_collation_mix<'t>(
    ts: impl IntoIterator<Item = &'t Typed>,
    op: &str,
    compared: bool,
) -> Result<(), SqlError> {
    let mut operands: Vec<(Collation, u8)> = Vec::new();
    for t in ts {
        if t.null_lit {
            continue;
        }
        if t.ty.ty.is_binary_string() {
            return Ok(());
        }
        if let Some(c) = text_collation(&t.ty.ty) {
            operands.push((c, t.coer));
        }
    }
    let Some(lowest) = operands.iter().map(|&(_, k)| k).min() else {
        return Ok(());
    };
    let conflicting = match lowest {
        0 => true,
        2 => compared,
        _ => false,
    };
    if !conflicting {
        return Ok(());
    }
    let strongest: Vec<Collation> = operands
        .iter()
        .filter(|&&(_, k)| k == lowest)
        .map(|&(c, _)| c)
        .collect();
    let clash = strongest.iter().enumerate().any(|(i, &a)| {
        strongest[i + 1..].iter().any(|&b| {
            a != b
                && a.charset() == b.charset()
                && (lowest == 0 || !(binary_sort(a) || binary_sort(b)))
        })
    });
    if !clash {
        return Ok(());
    }
    Err(illegal_mix(&operands, op))
}

/// The error MariaDB gives for `operands` of `op`: 1267 for two, 1270 for
/// three (each listed), 1271 for more.
fn illegal_mix(operands: &[(Collation, u8)], op: &str) -> SqlError {
    let shown = |&(c, k): &(Collation, u8)| format!("({},{})", c.name(), derivation_name(k));
    match operands {
        [a, b] => SqlError::new(
            1267,
            format!(
                "Illegal mix of collations {} and {} for operation '{op}'",
                shown(a),
                shown(b)
            ),
        ),
        [a, b, c] => SqlError::new(
            1270,
            format!(
                "Illegal mix of collations {}, {}, {} for operation '{op}'",
                shown(a),
                shown(b),
                shown(c)
            ),
        ),
        _ => SqlError::new(
            1271,
            format!("Illegal mix of collations for operation '{op}'"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use larch_engine::record::value::{ColumnType, Value};

    use crate::eval::Expr;

    fn text(c: Collation, coer: u8) -> Typed {
        Typed {
            coer,
            ..Typed::computed(
                Expr::Literal(Value::Null),
                ColumnType::Varchar {
                    max_len: 5,
                    collation: c,
                },
                true,
            )
        }
    }

    #[test]
    fn explicit_collations_of_one_charset_never_mix() {
        let (bin, ci) = (Collation::Utf8mb4Bin, Collation::Utf8mb4GeneralCi);
        let e = check_collation_mix([&text(bin, 0), &text(ci, 0)], "concat", false)
            .err()
            .map(|e| (e.code(), e.message().to_owned()));
        assert_eq!(
            e,
            Some((
                1267,
                "Illegal mix of collations (utf8mb4_bin,EXPLICIT) and \
                 (utf8mb4_general_ci,EXPLICIT) for operation 'concat'"
                    .to_owned()
            ))
        );
        let three = [&text(bin, 0), &text(ci, 0), &text(ci, 4)];
        assert_eq!(
            check_collation_mix(three, "in", true)
                .err()
                .map(|e| e.code()),
            Some(1270)
        );
        // EXPLICIT beats the columns, whatever theirs.
        let over = [&text(bin, 0), &text(ci, 2), &text(Collation::Latin1Bin, 2)];
        assert!(check_collation_mix(over, "=", true).is_ok());
        // Different character sets convert.
        let sets = [&text(bin, 0), &text(Collation::Latin1Bin, 0)];
        assert!(check_collation_mix(sets, "=", true).is_ok());
    }

    #[test]
    fn implicit_collations_mix_in_strings_not_in_comparisons() {
        let general = text(Collation::Latin1GeneralCi, 2);
        let swedish = text(Collation::Latin1SwedishCi, 2);
        assert_eq!(
            check_collation_mix([&general, &swedish], "=", true)
                .err()
                .map(|e| e.code()),
            Some(1267)
        );
        assert!(check_collation_mix([&general, &swedish], "concat", false).is_ok());
        // A _bin collation wins the tie.
        let bin = text(Collation::Latin1Bin, 2);
        assert!(check_collation_mix([&general, &bin], "=", true).is_ok());
    }
}
