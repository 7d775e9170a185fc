//! The common type of several expressions that give one value: the
//! branches of IF/CASE/COALESCE/IFNULL, the arguments of LEAST/GREATEST,
//! and the columns of UNION/INTERSECT/EXCEPT, as MariaDB aggregates them
//! (`Type_handler_hybrid_field_type::aggregate_for_result`): strings keep
//! the widest TEXT/BLOB class, integers the widest type (DECIMAL when
//! signed meets unsigned), temporals TIME or DATETIME with the most
//! fractional digits, BIT values a BIGINT UNSIGNED.

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, LobKind, Value};

use super::super::{Coerce, Expr, ExprType};
use super::lengths::int_digits;
use super::types::*;

/// The size class of a TEXT or BLOB type.
pub(super) fn lob_kind(ty: &ColumnType) -> Option<LobKind> {
    match ty {
        ColumnType::Text { kind, .. } | ColumnType::Blob { kind } => Some(*kind),
        _ => None,
    }
}

/// The largest of TEXT and BLOB size classes.
fn larger_lob(a: LobKind, b: LobKind) -> LobKind {
    if a.max_bytes() >= b.max_bytes() {
        a
    } else {
        b
    }
}

/// The string type of merged branches: the largest TEXT or BLOB class
/// among them when there is one (`CASE ... THEN 1 ELSE text_col END` is
/// TEXT), else a string as long as the longest branch.
fn merged_string_type(real: &[&&Typed], len: u32, binary: bool, coll: Collation) -> ColumnType {
    match real
        .iter()
        .filter_map(|b| lob_kind(&b.ty.ty))
        .reduce(larger_lob)
    {
        Some(kind) if binary => ColumnType::Blob { kind },
        Some(kind) => ColumnType::Text {
            kind,
            collation: coll,
        },
        None => string_type(len, binary, coll),
    }
}

/// The common type of temporal branches of different types: TIME when all
/// are TIMEs, else DATETIME; with the most fractional digits any branch has
/// (NVL of a DATETIME(2) and a DATETIME(0) is a DATETIME(2) in MariaDB).
fn temporal_common_type(branches: &[&&Typed]) -> ColumnType {
    let types: Vec<&ColumnType> = branches.iter().map(|b| &b.ty.ty).collect();
    temporal_common(&types).0
}

/// The common type of IF/CASE/COALESCE branches and how values convert to it.
pub(super) fn merge_types(branches: &[&Typed], default: Collation) -> (ColumnType, Coerce) {
    let real: Vec<&&Typed> = branches.iter().filter(|b| !b.null_lit).collect();
    let Some(first) = real.first() else {
        return (ColumnType::Binary { len: 0 }, Coerce::Keep);
    };
    let all = |f: &dyn Fn(&ColumnType) -> bool| real.iter().all(|b| f(&b.ty.ty));
    let any = |f: &dyn Fn(&ColumnType) -> bool| real.iter().any(|b| f(&b.ty.ty));
    if all(&|t| matches!(t, ColumnType::Bit { .. })) {
        // BIT values come out as numbers (MariaDB's BIGINT UNSIGNED).
        let ty = ColumnType::Int {
            bytes: 8,
            unsigned: true,
        };
        return (ty, Coerce::Int);
    }
    if real.iter().all(|b| b.ty.ty == first.ty.ty) {
        return (first.ty.ty.clone(), Coerce::Keep);
    }
    let len = real.iter().map(|b| str_len(&b.ty.ty)).max().unwrap_or(0);
    // Binary unless text of a lower coercibility wins (IF(c, c, X'41') is
    // the column's text).
    if any(&|t| t.is_binary_string())
        && pick_collation(real.iter().copied().copied(), default) == Collation::Binary
    {
        let ty = merged_string_type(&real, len, true, Collation::Binary);
        return (ty, Coerce::Binary);
    }
    if any(&is_string) || (any(&is_temporal) && !all(&is_temporal)) {
        let coll = pick_collation(real.iter().copied().copied(), default);
        return (merged_string_type(&real, len, false, coll), Coerce::Text);
    }
    if all(&is_temporal) {
        return (temporal_common_type(&real), Coerce::Keep);
    }
    if any(&|t| matches!(t, ColumnType::Float | ColumnType::Double)) {
        return (ColumnType::Double, Coerce::Double);
    }
    if any(&is_decimal) {
        let int = real
            .iter()
            .map(|b| dec_shape(&b.ty.ty).0)
            .max()
            .unwrap_or(1);
        let scale = real
            .iter()
            .map(|b| dec_shape(&b.ty.ty).1)
            .max()
            .unwrap_or(0);
        return (decimal(u16::from(int), u16::from(scale)), Coerce::Decimal);
    }
    int_common(&real)
}

/// The common type of integer branches, as MariaDB aggregates them: the
/// widest integer type, or a DECIMAL when signed and unsigned ones meet.
fn int_common(branches: &[&&Typed]) -> (ColumnType, Coerce) {
    let unsigned = |t: &ColumnType| {
        matches!(
            t,
            ColumnType::Int { unsigned: true, .. } | ColumnType::Bit { .. }
        )
    };
    let all_unsigned = branches.iter().all(|b| unsigned(&b.ty.ty));
    let any_unsigned = branches.iter().any(|b| unsigned(&b.ty.ty));
    if any_unsigned && !all_unsigned {
        let int = branches.iter().map(|b| int_digits(b)).max().unwrap_or(1);
        return (decimal(int.min(65) as u16, 0), Coerce::Decimal);
    }
    let bytes = branches
        .iter()
        .map(|b| match &b.ty.ty {
            ColumnType::Int { bytes, .. } => *bytes,
            _ => 8,
        })
        .max()
        .unwrap_or(8);
    (
        ColumnType::Int {
            bytes,
            unsigned: all_unsigned,
        },
        Coerce::Int,
    )
}

/// The type of a UNION, INTERSECT or EXCEPT result column whose branches
/// have `types` (a branch whose column is a bare NULL has `None`), and how
/// each branch's values convert to it: MariaDB's aggregation for results,
/// as for CASE, except that temporal types of different kinds meet as
/// DATETIME with the largest fraction (a TIME on today's date).
pub(crate) fn set_operation_type(
    types: &[Option<&ColumnType>],
    default: Collation,
) -> (ColumnType, Coerce) {
    let real: Vec<&ColumnType> = types.iter().flatten().copied().collect();
    if !real.is_empty() && real.iter().all(|t| is_temporal(t)) && real.iter().any(|t| *t != real[0])
    {
        return temporal_common(&real);
    }
    let typed: Vec<Typed> = types
        .iter()
        .map(|t| Typed {
            expr: Expr::Literal(Value::Null),
            ty: ExprType {
                ty: t.cloned().unwrap_or(ColumnType::Binary { len: 0 }),
                nullable: true,
                decimals: None,
            },
            coer: if t.is_some() { 2 } else { 6 },
            hex: None,
            null_lit: t.is_none(),
            len: None,
        })
        .collect();
    let refs: Vec<&Typed> = typed.iter().collect();
    merge_types(&refs, default)
}

/// LEAST and GREATEST with a DATE, TIME, DATETIME or TIMESTAMP argument
/// compare and return that type, as in MariaDB: DATE or TIME when every
/// temporal argument is one, else DATETIME, with the largest fraction.
pub(super) fn temporal_min_max(args: &[Typed]) -> Option<(ColumnType, Coerce)> {
    let temporal: Vec<&ColumnType> = args
        .iter()
        .filter(|a| !a.null_lit && is_temporal(&a.ty.ty))
        .map(|a| &a.ty.ty)
        .collect();
    if temporal.is_empty() {
        return None;
    }
    Some(temporal_common(&temporal))
}

/// The common type of DATE, TIME, DATETIME and TIMESTAMP types: DATE or
/// TIME when every one is, else DATETIME, with the largest fraction.
fn temporal_common(temporal: &[&ColumnType]) -> (ColumnType, Coerce) {
    let fsp = temporal
        .iter()
        .map(|t| super::super::temporal_fsp(t))
        .max()
        .unwrap_or(0);
    if temporal.iter().all(|t| **t == ColumnType::Date) {
        (ColumnType::Date, Coerce::Date)
    } else if temporal
        .iter()
        .all(|t| matches!(t, ColumnType::Time { .. }))
    {
        (ColumnType::Time { fsp }, Coerce::Time)
    } else {
        (ColumnType::Datetime { fsp }, Coerce::Datetime)
    }
}
