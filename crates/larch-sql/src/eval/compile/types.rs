//! MySQL's static typing rules for compiled expressions: result types of
//! operators and functions, the common type of IF/CASE/COALESCE branches,
//! CAST targets, and collation choice by coercibility.

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, LobKind, Value};
use sqlparser::ast::{CharacterLength, DataType, ExactNumberInfo};

use super::super::func_more::More;
use super::super::{ArithOp, CastTarget, Coerce, Expr, ExprType, Func};
use crate::error::{code, SqlError};

/// An expression being compiled, with what typing needs to know about it.
pub(super) struct Typed {
    pub expr: Expr,
    pub ty: ExprType,
    /// MySQL coercibility: 0 explicit COLLATE, 2 column, 4 literal or
    /// function result, 5 numeric, 6 NULL.
    pub coer: u8,
    /// For hex and bit literals: their value as a number.
    pub hex: Option<u64>,
    pub null_lit: bool,
}

impl Typed {
    pub fn computed(expr: Expr, ty: ColumnType, nullable: bool) -> Typed {
        let coer = if ty.collation().is_some() { 4 } else { 5 };
        Typed {
            expr,
            ty: ExprType { ty, nullable },
            coer,
            hex: None,
            null_lit: false,
        }
    }

    /// The expression in a numeric context: hex and bit literals are numbers.
    pub fn numeric(self) -> Typed {
        match self.hex {
            Some(n) => Typed {
                expr: Expr::Literal(Value::UInt(n)),
                ty: ExprType {
                    ty: ColumnType::Int {
                        bytes: 8,
                        unsigned: true,
                    },
                    nullable: false,
                },
                coer: 5,
                hex: None,
                null_lit: false,
            },
            None => self,
        }
    }
}

pub(super) fn bool_typed(expr: Expr, nullable: bool) -> Typed {
    Typed::computed(
        expr,
        ColumnType::Int {
            bytes: 4,
            unsigned: false,
        },
        nullable,
    )
}

pub(super) fn is_string(ty: &ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Char { .. }
            | ColumnType::Varchar { .. }
            | ColumnType::Binary { .. }
            | ColumnType::Varbinary { .. }
            | ColumnType::Text { .. }
            | ColumnType::Blob { .. }
            | ColumnType::Enum { .. }
            | ColumnType::Set { .. }
    )
}

pub(super) fn is_decimal(ty: &ColumnType) -> bool {
    matches!(ty, ColumnType::Decimal { .. })
}

fn is_int(ty: &ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Int { .. } | ColumnType::Year | ColumnType::Bit { .. }
    )
}

fn is_temporal(ty: &ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Date
            | ColumnType::Time { .. }
            | ColumnType::Datetime { .. }
            | ColumnType::Timestamp { .. }
    )
}

/// (integer digits, scale) of a numeric type as a DECIMAL.
fn dec_shape(ty: &ColumnType) -> (u8, u8) {
    match ty {
        ColumnType::Decimal { precision, scale } => (precision - scale, *scale),
        ColumnType::Date => (8, 0),
        ColumnType::Datetime { fsp } | ColumnType::Timestamp { fsp } => (14, *fsp),
        ColumnType::Time { fsp } => (7, *fsp),
        _ => (20, 0),
    }
}

fn decimal(int: u16, scale: u16) -> ColumnType {
    let scale = scale.min(30) as u8;
    let precision = (int + u16::from(scale)).clamp(1, 65) as u8;
    ColumnType::Decimal {
        precision,
        scale: scale.min(precision),
    }
}

/// Result type of an arithmetic operator.
pub(super) fn arith_type(op: ArithOp, a: &ColumnType, b: &ColumnType) -> ColumnType {
    let real = |t: &ColumnType| matches!(t, ColumnType::Float | ColumnType::Double) || is_string(t);
    if matches!(
        op,
        ArithOp::BitAnd | ArithOp::BitOr | ArithOp::BitXor | ArithOp::Shl | ArithOp::Shr
    ) {
        return ColumnType::Int {
            bytes: 8,
            unsigned: true,
        };
    }
    if real(a) || real(b) {
        return ColumnType::Double;
    }
    let unsigned = |t: &ColumnType| {
        matches!(
            t,
            ColumnType::Int { unsigned: true, .. } | ColumnType::Bit { .. }
        )
    };
    let has_frac = |t: &ColumnType| is_decimal(t) || (is_temporal(t) && dec_shape(t).1 > 0);
    if op == ArithOp::IntDiv {
        return ColumnType::Int {
            bytes: 8,
            unsigned: unsigned(a) || unsigned(b),
        };
    }
    let (ai, asc) = dec_shape(a);
    let (bi, bsc) = dec_shape(b);
    let (ai, asc, bi, bsc) = (u16::from(ai), u16::from(asc), u16::from(bi), u16::from(bsc));
    match op {
        ArithOp::Div => decimal(ai + bsc, asc + 4),
        _ if !(has_frac(a) || has_frac(b))
            && (is_int(a) || is_temporal(a))
            && (is_int(b) || is_temporal(b)) =>
        {
            ColumnType::Int {
                bytes: 8,
                unsigned: unsigned(a) || unsigned(b),
            }
        }
        ArithOp::Mul => decimal(ai + bi, asc + bsc),
        ArithOp::Mod => decimal(ai.max(bi), asc.max(bsc)),
        _ => decimal(ai.max(bi) + 1, asc.max(bsc)),
    }
}

/// The collation of a string operand (binary for binary strings).
pub(super) fn arg_collation(t: &Typed, default: Collation) -> Collation {
    if t.ty.ty.is_binary_string() {
        return Collation::Binary;
    }
    t.ty.ty.collation().unwrap_or(default)
}

/// The collation comparisons among these operands use: binary if any operand
/// is a binary string, else that of the lowest coercibility.
pub(super) fn pick_collation<'t>(
    ts: impl IntoIterator<Item = &'t Typed>,
    default: Collation,
) -> Collation {
    let mut best: Option<(u8, Collation)> = None;
    for t in ts {
        if t.ty.ty.is_binary_string() && !t.null_lit {
            return Collation::Binary;
        }
        if let Some(c) = t.ty.ty.collation() {
            if best.is_none_or(|(k, _)| t.coer < k) {
                best = Some((t.coer, c));
            }
        }
    }
    best.map_or(default, |(_, c)| c)
}

/// The type with its collation replaced (strings), or a VARCHAR in it.
pub(super) fn with_collation(ty: &ColumnType, c: Collation) -> ColumnType {
    match ty {
        ColumnType::Char { len, .. } => ColumnType::Char {
            len: *len,
            collation: c,
        },
        ColumnType::Varchar { max_len, .. } => ColumnType::Varchar {
            max_len: *max_len,
            collation: c,
        },
        ColumnType::Text { kind, .. } => ColumnType::Text {
            kind: *kind,
            collation: c,
        },
        _ => ColumnType::Varchar {
            max_len: 255,
            collation: c,
        },
    }
}

fn str_len(ty: &ColumnType) -> u32 {
    match ty {
        ColumnType::Char { len, .. } | ColumnType::Binary { len } => *len,
        ColumnType::Varchar { max_len, .. } | ColumnType::Varbinary { max_len } => *max_len,
        ColumnType::Text { kind, .. } | ColumnType::Blob { kind } => {
            kind.max_bytes().min(u64::from(u32::MAX)) as u32
        }
        ColumnType::Int { .. } => 21,
        ColumnType::Decimal { precision, .. } => u32::from(*precision) + 2,
        ColumnType::Float | ColumnType::Double => 22,
        ColumnType::Datetime { .. } | ColumnType::Timestamp { .. } => 26,
        _ => 20,
    }
}

fn string_type(len: u32, binary: bool, collation: Collation) -> ColumnType {
    match (binary, len > 16_383) {
        (true, false) => ColumnType::Varbinary { max_len: len },
        (true, true) => ColumnType::Blob {
            kind: LobKind::Long,
        },
        (false, false) => ColumnType::Varchar {
            max_len: len,
            collation,
        },
        (false, true) => ColumnType::Text {
            kind: LobKind::Long,
            collation,
        },
    }
}

/// The common type of IF/CASE/COALESCE branches and how values convert to it.
pub(super) fn merge_types(branches: &[&Typed], default: Collation) -> (ColumnType, Coerce) {
    let real: Vec<&&Typed> = branches.iter().filter(|b| !b.null_lit).collect();
    let Some(first) = real.first() else {
        return (ColumnType::Binary { len: 0 }, Coerce::Keep);
    };
    let all = |f: &dyn Fn(&ColumnType) -> bool| real.iter().all(|b| f(&b.ty.ty));
    let any = |f: &dyn Fn(&ColumnType) -> bool| real.iter().any(|b| f(&b.ty.ty));
    if real.iter().all(|b| b.ty.ty == first.ty.ty) {
        return (first.ty.ty.clone(), Coerce::Keep);
    }
    let len = real.iter().map(|b| str_len(&b.ty.ty)).max().unwrap_or(0);
    if any(&|t| t.is_binary_string()) {
        return (string_type(len, true, Collation::Binary), Coerce::Binary);
    }
    if any(&is_string) || (any(&is_temporal) && !all(&is_temporal)) {
        let coll = pick_collation(real.iter().copied().copied(), default);
        return (string_type(len, false, coll), Coerce::Text);
    }
    if all(&is_temporal) {
        return (ColumnType::Datetime { fsp: 6 }, Coerce::Keep);
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
    let unsigned = all(&|t| matches!(t, ColumnType::Int { unsigned: true, .. }));
    (ColumnType::Int { bytes: 8, unsigned }, Coerce::Int)
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
            },
            coer: if t.is_some() { 2 } else { 6 },
            hex: None,
            null_lit: t.is_none(),
        })
        .collect();
    let refs: Vec<&Typed> = typed.iter().collect();
    merge_types(&refs, default)
}

/// LEAST and GREATEST with a DATE, TIME, DATETIME or TIMESTAMP argument
/// compare and return that type, as in MariaDB: DATE or TIME when every
/// temporal argument is one, else DATETIME, with the largest fraction.
fn temporal_min_max(args: &[Typed]) -> Option<(ColumnType, Coerce)> {
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
        .map(|t| match t {
            ColumnType::Time { fsp }
            | ColumnType::Datetime { fsp }
            | ColumnType::Timestamp { fsp } => *fsp,
            _ => 0,
        })
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

/// CAST target and result type of a sqlparser data type.
pub(super) fn cast_target(
    dt: &DataType,
    collation: Collation,
) -> Result<(CastTarget, ColumnType), SqlError> {
    let char_len = |l: &Option<CharacterLength>| match l {
        Some(CharacterLength::IntegerLength { length, .. }) => u32::try_from(*length).ok(),
        _ => None,
    };
    let collation = if collation == Collation::Binary {
        Collation::Utf8mb4GeneralCi
    } else {
        collation
    };
    Ok(match dt {
        DataType::Signed
        | DataType::SignedInteger
        | DataType::Int(_)
        | DataType::Integer(_)
        | DataType::BigInt(_) => (
            CastTarget::Signed,
            ColumnType::Int {
                bytes: 8,
                unsigned: false,
            },
        ),
        DataType::Unsigned
        | DataType::UnsignedInteger
        | DataType::IntUnsigned(_)
        | DataType::BigIntUnsigned(_) => (
            CastTarget::Unsigned,
            ColumnType::Int {
                bytes: 8,
                unsigned: true,
            },
        ),
        DataType::Decimal(info) | DataType::Numeric(info) | DataType::Dec(info) => {
            let (p, s) = match info {
                ExactNumberInfo::None => (10, 0),
                ExactNumberInfo::Precision(p) => (*p, 0),
                ExactNumberInfo::PrecisionAndScale(p, s) => (*p, u64::try_from(*s).unwrap_or(0)),
            };
            if p > 65 {
                return Err(SqlError::new(
                    code::TOO_BIG_PRECISION,
                    format!("Too big precision {p} specified for 'CAST'. Maximum is 65"),
                ));
            }
            if s > 30 {
                return Err(SqlError::new(
                    code::TOO_BIG_SCALE,
                    format!("Too big scale {s} specified for 'CAST'. Maximum is 30"),
                ));
            }
            if s > p {
                return Err(SqlError::new(
                    code::M_BIGGER_THAN_D,
                    "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column 'CAST')",
                ));
            }
            let (p, s) = (p.max(1) as u8, s as u8);
            (
                CastTarget::Decimal {
                    precision: p,
                    scale: s,
                },
                ColumnType::Decimal {
                    precision: p,
                    scale: s,
                },
            )
        }
        DataType::Double(_) | DataType::DoublePrecision | DataType::Real => {
            (CastTarget::Double, ColumnType::Double)
        }
        DataType::Float(_) => (CastTarget::Float, ColumnType::Float),
        DataType::Char(l)
        | DataType::Character(l)
        | DataType::Varchar(l)
        | DataType::Nvarchar(l) => {
            let len = char_len(l);
            (
                CastTarget::Char { len, collation },
                ColumnType::Varchar {
                    max_len: len.unwrap_or(255),
                    collation,
                },
            )
        }
        DataType::Binary(l) => {
            let len = l.and_then(|n| u32::try_from(n).ok());
            (
                CastTarget::Binary { len },
                ColumnType::Varbinary {
                    max_len: len.unwrap_or(255),
                },
            )
        }
        DataType::Date => (CastTarget::Date, ColumnType::Date),
        DataType::Datetime(fsp) | DataType::Timestamp(fsp, _) => {
            let fsp = fsp.unwrap_or(0).min(6) as u8;
            (CastTarget::Datetime { fsp }, ColumnType::Datetime { fsp })
        }
        DataType::Time(fsp, _) => {
            let fsp = fsp.unwrap_or(0).min(6) as u8;
            (CastTarget::Time { fsp }, ColumnType::Time { fsp })
        }
        other => return Err(SqlError::not_supported(&format!("CAST AS {other}"))),
    })
}

/// True for aggregate function names (compiled by the planner, not here).
pub(super) fn is_aggregate(name: &str) -> bool {
    matches!(
        name,
        "count"
            | "sum"
            | "avg"
            | "min"
            | "max"
            | "group_concat"
            | "bit_and"
            | "bit_or"
            | "bit_xor"
            | "std"
            | "stddev"
            | "stddev_pop"
            | "stddev_samp"
            | "variance"
            | "var_pop"
            | "var_samp"
    )
}

/// Result type, branch coercion and nullability of a function call.
pub(super) fn func_type(f: Func, args: &[Typed], coll: Collation) -> (ColumnType, Coerce, bool) {
    let any_null = args.iter().any(|a| a.ty.nullable);
    let int = ColumnType::Int {
        bytes: 8,
        unsigned: false,
    };
    let binary = args
        .iter()
        .any(|a| a.ty.ty.is_binary_string() && !a.null_lit);
    let coll = pick_collation(args.iter(), coll);
    let text = |len: u32| string_type(len, binary, coll);
    let arg_len = |i: usize| args.get(i).map_or(0, |a| str_len(&a.ty.ty));
    match f {
        Func::If => {
            let (t, c) = merge_types(&[&args[1], &args[2]], coll);
            (t, c, args[1].ty.nullable || args[2].ty.nullable)
        }
        Func::IfNull | Func::Coalesce => {
            let refs: Vec<&Typed> = args.iter().collect();
            let (t, c) = merge_types(&refs, coll);
            (t, c, args.iter().all(|a| a.ty.nullable))
        }
        Func::Greatest | Func::Least => {
            if let Some((t, c)) = temporal_min_max(args) {
                return (t, c, any_null);
            }
            let refs: Vec<&Typed> = args.iter().collect();
            let (t, c) = merge_types(&refs, coll);
            // Mixed strings and numbers compare (and return) as numbers.
            let mixed = args.iter().any(|a| is_string(&a.ty.ty))
                && args.iter().any(|a| !is_string(&a.ty.ty) && !a.null_lit);
            if mixed && c == Coerce::Text {
                return (ColumnType::Double, Coerce::Double, any_null);
            }
            (t, c, any_null)
        }
        Func::NullIf => (args[0].ty.ty.clone(), Coerce::Keep, true),
        Func::IsNull => (int, Coerce::Keep, false),
        Func::Concat => (
            text(
                args.iter()
                    .map(|a| str_len(&a.ty.ty))
                    .fold(0u32, u32::saturating_add),
            ),
            Coerce::Keep,
            any_null,
        ),
        Func::ConcatWs => (
            text(
                args.iter()
                    .map(|a| str_len(&a.ty.ty))
                    .fold(0u32, u32::saturating_add),
            ),
            Coerce::Keep,
            args[0].ty.nullable,
        ),
        Func::Length
        | Func::CharLength
        | Func::Locate
        | Func::Instr
        | Func::Ascii
        | Func::Strcmp => (int, Coerce::Keep, any_null),
        Func::Upper
        | Func::Lower
        | Func::Reverse
        | Func::Trim(_)
        | Func::Substring
        | Func::Left
        | Func::Right => (text(arg_len(0)), Coerce::Keep, any_null),
        Func::Replace | Func::Repeat | Func::Space => (
            text(arg_len(0).saturating_mul(4).max(255)),
            Coerce::Keep,
            true,
        ),
        Func::Lpad | Func::Rpad => (text(255), Coerce::Keep, true),
        Func::Md5 => (string_type(32, false, coll), Coerce::Keep, any_null),
        Func::Password => (string_type(41, false, coll), Coerce::Keep, any_null),
        Func::Hex => (
            string_type(arg_len(0).saturating_mul(2), false, coll),
            Coerce::Keep,
            any_null,
        ),
        Func::Unhex => (
            string_type(arg_len(0).div_ceil(2), true, Collation::Binary),
            Coerce::Keep,
            true,
        ),
        Func::Abs => (args[0].ty.ty.clone(), Coerce::Keep, any_null),
        Func::Ceil | Func::Floor => {
            let t = match &args[0].ty.ty {
                ColumnType::Float | ColumnType::Double => ColumnType::Double,
                t if is_string(t) => ColumnType::Double,
                ColumnType::Int { unsigned, .. } => ColumnType::Int {
                    bytes: 8,
                    unsigned: *unsigned,
                },
                _ => int,
            };
            (t, Coerce::Keep, any_null)
        }
        Func::Round | Func::Truncate => {
            let places = match args.get(1).map(|a| &a.expr) {
                Some(Expr::Literal(Value::Int(n))) => (*n).clamp(0, 30) as u8,
                Some(_) => 30,
                None => 0,
            };
            let t = match &args[0].ty.ty {
                ColumnType::Decimal { precision, scale } => {
                    let s = places.min(*scale);
                    decimal(u16::from(precision - scale) + 1, u16::from(s))
                }
                ColumnType::Int { unsigned, .. } => ColumnType::Int {
                    bytes: 8,
                    unsigned: *unsigned,
                },
                _ => ColumnType::Double,
            };
            (t, Coerce::Keep, any_null)
        }
        Func::Mod => (
            arith_type(ArithOp::Mod, &args[0].ty.ty, &args[1].ty.ty),
            Coerce::Keep,
            true,
        ),
        Func::Pow | Func::Rand | Func::Pi => (ColumnType::Double, Coerce::Keep, any_null),
        Func::Sqrt => (ColumnType::Double, Coerce::Keep, true),
        Func::Sign => (int, Coerce::Keep, any_null),
        Func::Now | Func::UtcTimestamp => (
            ColumnType::Datetime {
                fsp: literal_fsp(args),
            },
            Coerce::Keep,
            false,
        ),
        Func::CurDate => (ColumnType::Date, Coerce::Keep, false),
        Func::CurTime => (
            ColumnType::Time {
                fsp: literal_fsp(args),
            },
            Coerce::Keep,
            false,
        ),
        Func::Date => (ColumnType::Date, Coerce::Keep, true),
        Func::Time => (
            ColumnType::Time {
                fsp: time_precision(&args[0]),
            },
            Coerce::Keep,
            true,
        ),
        Func::Year
        | Func::Month
        | Func::Day
        | Func::Hour
        | Func::Minute
        | Func::Second
        | Func::DayOfWeek
        | Func::DayOfYear
        | Func::DateDiff => (int, Coerce::Keep, true),
        Func::DateFormat => (string_type(255, false, coll), Coerce::Keep, true),
        Func::UnixTimestamp => match args.first().map(time_precision) {
            Some(fsp) if fsp > 0 => (
                decimal(11 + u16::from(fsp), u16::from(fsp)),
                Coerce::Keep,
                true,
            ),
            first => (int, Coerce::Keep, first.is_some()),
        },
        Func::FromUnixtime if args.len() > 1 => (string_type(255, false, coll), Coerce::Keep, true),
        Func::FromUnixtime => (
            ColumnType::Datetime {
                fsp: args.first().map_or(0, time_precision),
            },
            Coerce::Keep,
            true,
        ),
        Func::Database => (
            ColumnType::Varchar {
                max_len: 64,
                collation: Collation::Utf8mb4GeneralCi,
            },
            Coerce::Keep,
            true,
        ),
        Func::Version | Func::User | Func::CurrentUser => (
            ColumnType::Varchar {
                max_len: 64,
                collation: Collation::Utf8mb4GeneralCi,
            },
            Coerce::Keep,
            false,
        ),
        Func::Sleep => (
            ColumnType::Int {
                bytes: 8,
                unsigned: false,
            },
            Coerce::Keep,
            false,
        ),
        Func::More(m) => more_type(m, args, int, text(arg_len(0)), coll),
        Func::Json(j) => {
            let nullable = true;
            if j.func.returns_int() {
                (int, Coerce::Keep, nullable)
            } else {
                (string_type(u32::MAX, false, coll), Coerce::Keep, nullable)
            }
        }
        Func::ConnectionId | Func::LastInsertId => (
            ColumnType::Int {
                bytes: 8,
                unsigned: true,
            },
            Coerce::Keep,
            false,
        ),
    }
}

/// Types of the functions of `func_more`.
fn more_type(
    m: More,
    args: &[Typed],
    int: ColumnType,
    first_text: ColumnType,
    coll: Collation,
) -> (ColumnType, Coerce, bool) {
    let any_null = args.iter().any(|a| a.ty.nullable);
    match m {
        More::BitLength => (int, Coerce::Keep, any_null),
        More::SubstringIndex => (first_text, Coerce::Keep, any_null),
        More::FromDays => (ColumnType::Date, Coerce::Keep, any_null),
        More::LastDay => (ColumnType::Date, Coerce::Keep, true),
        More::DayName | More::MonthName => (string_type(9, false, coll), Coerce::Keep, true),
        More::ToDays
        | More::Weekday
        | More::Quarter
        | More::Week
        | More::YearWeek
        | More::WeekOfYear
        | More::Microsecond => (int, Coerce::Keep, true),
        More::GetLock | More::ReleaseLock | More::IsFreeLock | More::IsUsedLock => {
            (int, Coerce::Keep, true)
        }
        More::ReleaseAllLocks => (int, Coerce::Keep, false),
        More::RegexpLike | More::RegexpInstr => (int, Coerce::Keep, any_null),
        More::RegexpSubstr => (first_text, Coerce::Keep, any_null),
        More::RegexpReplace => (string_type(16_383, false, coll), Coerce::Keep, any_null),
    }
}

/// The fractional digits a temporal value made from `a` keeps, as MariaDB
/// counts them (`time_precision`): a temporal column's own, a DECIMAL's
/// scale, none for integers, the digits written in a string literal, and
/// all six for other strings and for floating-point numbers.
pub(in crate::eval) fn time_precision(a: &Typed) -> u8 {
    if let Expr::Literal(Value::Str(text)) = &a.expr {
        let fraction = text.split_once('.').map_or("", |(_, f)| f);
        return fraction
            .chars()
            .take_while(char::is_ascii_digit)
            .count()
            .min(6) as u8;
    }
    match &a.ty.ty {
        ColumnType::Time { fsp } | ColumnType::Datetime { fsp } | ColumnType::Timestamp { fsp } => {
            *fsp
        }
        ColumnType::Decimal { scale, .. } => (*scale).min(6),
        ColumnType::Int { .. } | ColumnType::Date | ColumnType::Year => 0,
        _ => 6,
    }
}

fn literal_fsp(args: &[Typed]) -> u8 {
    match args.first().map(|a| &a.expr) {
        Some(Expr::Literal(Value::Int(n))) => (*n).clamp(0, 6) as u8,
        _ => 0,
    }
}
