//! MySQL's static typing rules for compiled expressions: result types of
//! operators (functions: `function_types.rs`; integer lengths:
//! `lengths.rs`; the common type of branches: `branch_types.rs`),
//! CAST targets, and collation choice by coercibility.

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, LobKind, Value};
use sqlparser::ast::{CharacterLength, DataType, ExactNumberInfo};

use super::super::{ArithOp, CastTarget, Expr, ExprType};
use super::lengths::int_of_len;
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
    /// MariaDB's display length in characters (`max_char_length`) of a
    /// computed integer, where the type alone does not fix it: `1 + 1` is
    /// 3 characters. It decides whether a column is announced as INT or
    /// BIGINT and feeds the length of the expressions built on it.
    pub len: Option<u32>,
}

impl Typed {
    pub fn computed(expr: Expr, ty: ColumnType, nullable: bool) -> Typed {
        let coer = if ty.collation().is_some() || ty.is_binary_string() {
            4
        } else {
            5
        };
        Typed {
            expr,
            ty: ExprType {
                ty,
                nullable,
                decimals: None,
            },
            coer,
            hex: None,
            null_lit: false,
            len: None,
        }
    }

    /// A computed integer of `len` characters: INT up to 9 of them, as
    /// MariaDB announces it (`type_handler_long_or_longlong`), else BIGINT.
    pub fn integer(expr: Expr, len: u32, unsigned: bool, nullable: bool) -> Typed {
        Typed {
            len: Some(len),
            ..Typed::computed(expr, int_of_len(len, unsigned), nullable)
        }
    }

    /// The expression as a comparison reads it ([`fuzzy_date`]).
    ///
    /// [`fuzzy_date`]: super::super::fuzzy_date
    pub fn read_fuzzy(&mut self) {
        let e = std::mem::replace(&mut self.expr, Expr::Literal(Value::Null));
        self.expr = super::super::fuzzy_date(e);
    }

    /// The expression where its text is read (string functions): a TIME,
    /// DATETIME or TIMESTAMP with fractional digits shows as many as its
    /// type has (a DATETIME(1) is `...:36.3`, not `...:36.300000`).
    pub fn text(self) -> Typed {
        if matches!(self.ty.ty, ColumnType::Decimal { .. }) {
            // A DECIMAL's text shows its scale (CONCAT(2/7) is '0.2857').
            return self.shown_decimal();
        }
        let bit = matches!(self.ty.ty, ColumnType::Bit { .. });
        if super::super::temporal_fsp(&self.ty.ty) == 0 && !bit {
            return self;
        }
        Typed {
            expr: Expr::AsText {
                arg: Box::new(self.expr),
                ty: self.ty.ty.clone(),
            },
            ..self
        }
    }

    /// A computed DECIMAL rounded to the scale its type shows, where
    /// MariaDB reads it so (a comparison of decimals, its text); a column
    /// or a literal has no more digits than that.
    pub fn shown_decimal(self) -> Typed {
        let ColumnType::Decimal { scale, .. } = self.ty.ty else {
            return self;
        };
        if matches!(self.expr, Expr::Column(_) | Expr::Literal(_)) {
            return self;
        }
        Typed {
            expr: Expr::Cast {
                arg: Box::new(self.expr),
                target: super::super::CastTarget::Decimal {
                    precision: 65,
                    scale,
                },
            },
            ..self
        }
    }

    /// True when this is a JSON_EXTRACT call, whose result MariaDB reads
    /// as the JSON value it is where it is compared or used as a number.
    pub fn is_json_extract(&self) -> bool {
        matches!(
            &self.expr,
            Expr::Call { func: super::super::Func::Json(j), .. }
                if j.func == super::super::json::JsonFunc::Extract
        )
    }

    /// This JSON_EXTRACT result read through `func` (JSON_UNQUOTE where it
    /// is compared with a string, [`JsonFunc::NumberOf`] as a number).
    ///
    /// [`JsonFunc::NumberOf`]: super::super::json::JsonFunc::NumberOf
    pub fn json_extract_as(self, func: super::super::json::JsonFunc) -> Typed {
        let (coer, len, nullable) = (self.coer, self.len, self.ty.nullable);
        let ty = self.ty.ty.clone();
        let collation = match &ty {
            ColumnType::Char { collation, .. }
            | ColumnType::Varchar { collation, .. }
            | ColumnType::Text { collation, .. } => *collation,
            _ => Collation::Utf8mb4Bin,
        };
        Typed {
            expr: Expr::Call {
                func: super::super::Func::Json(super::super::json::JsonCall {
                    func,
                    json_args: 1,
                    bool_args: 0,
                }),
                args: vec![self.expr],
                coerce: super::super::Coerce::Keep,
                collation,
            },
            ty: ExprType {
                ty,
                nullable,
                decimals: None,
            },
            coer,
            hex: None,
            null_lit: false,
            len,
        }
    }

    /// The expression in a numeric context (arithmetic, a truth value):
    /// hex and bit literals are numbers, ENUM and SET values their member
    /// number, a JSON_EXTRACT result the number its JSON value is.
    pub fn numeric(self) -> Typed {
        if self.is_json_extract() {
            return self.json_extract_as(super::super::json::JsonFunc::NumberOf);
        }
        let member_of = match &self.ty.ty {
            ColumnType::Enum { values, .. } => Some((values.clone(), false)),
            ColumnType::Set { values, .. } => Some((values.clone(), true)),
            _ => None,
        };
        if let Some((members, set)) = member_of {
            let nullable = self.ty.nullable;
            return Typed::computed(
                Expr::MemberNumber {
                    arg: Box::new(self.expr),
                    members,
                    set,
                },
                ColumnType::Int {
                    bytes: 8,
                    unsigned: true,
                },
                nullable,
            );
        }
        match self.hex {
            Some(n) => Typed {
                expr: Expr::Literal(Value::UInt(n)),
                ty: ExprType {
                    ty: ColumnType::Int {
                        bytes: 8,
                        unsigned: true,
                    },
                    nullable: false,
                    decimals: None,
                },
                coer: 5,
                hex: None,
                null_lit: false,
                len: None,
            },
            None => self,
        }
    }
}

pub(super) fn bool_typed(expr: Expr, nullable: bool) -> Typed {
    Typed::integer(expr, 1, false, nullable)
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

pub(super) fn is_int(ty: &ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Int { .. } | ColumnType::Year | ColumnType::Bit { .. }
    )
}

pub(super) fn is_temporal(ty: &ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Date
            | ColumnType::Time { .. }
            | ColumnType::Datetime { .. }
            | ColumnType::Timestamp { .. }
    )
}

/// (integer digits, scale) of a numeric type as a DECIMAL.
pub(super) fn dec_shape(ty: &ColumnType) -> (u8, u8) {
    match ty {
        ColumnType::Decimal { precision, scale } => (precision - scale, *scale),
        ColumnType::Date => (8, 0),
        ColumnType::Datetime { fsp } | ColumnType::Timestamp { fsp } => (14, *fsp),
        ColumnType::Time { fsp } => (7, *fsp),
        _ => (20, 0),
    }
}

pub(super) fn decimal(int: u16, scale: u16) -> ColumnType {
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
    text_collation(&t.ty.ty).unwrap_or(default)
}

/// The collation of a type's text: a string's, or an ENUM's or SET's
/// member names'.
pub(super) fn text_collation(ty: &ColumnType) -> Option<Collation> {
    ty.collation().or_else(|| ty.member_collation())
}

/// The collation comparisons among these operands use: that of the lowest
/// coercibility; between two of the same coercibility, the larger character
/// set (utf8mb4, utf8mb3, latin1) and then a `_bin` collation over another
/// of its character set; a binary string wins over text of the same or a
/// higher coercibility (MariaDB's `DTCollation::aggregate`: a JSON column,
/// utf8mb4_bin, against a TEXT column compares in utf8mb4_bin; a hex
/// literal against a column compares in the column's collation, a
/// VARBINARY column against a literal as bytes).
pub(super) fn pick_collation<'t>(
    ts: impl IntoIterator<Item = &'t Typed>,
    default: Collation,
) -> Collation {
    let mut best: Option<(u8, Collation)> = None;
    let mut binary: Option<u8> = None;
    for t in ts {
        if t.ty.ty.is_binary_string() {
            if !t.null_lit {
                binary = Some(binary.map_or(t.coer, |b| b.min(t.coer)));
            }
            continue;
        }
        if let Some(c) = text_collation(&t.ty.ty) {
            let wins = match best {
                None => true,
                Some((k, b)) => t.coer < k || (t.coer == k && wins_tie(c, b)),
            };
            if wins {
                best = Some((t.coer, c));
            }
        }
    }
    match (binary, best) {
        (Some(b), Some((k, c))) if k < b => c,
        (Some(_), _) => Collation::Binary,
        (None, best) => best.map_or(default, |(_, c)| c),
    }
}

/// Whether collation `c` wins over `b` of the same coercibility.
fn wins_tie(c: Collation, b: Collation) -> bool {
    use larch_engine::record::collation::Charset;
    let is_bin = |x: Collation| {
        matches!(
            x,
            Collation::Latin1Bin | Collation::Utf8mb4Bin | Collation::Utf8mb3Bin
        )
    };
    if c.charset() != b.charset() {
        // The superset wins: utf8mb4 over utf8mb3 and latin1, utf8mb3 over
        // latin1.
        let rank = |x: Charset| match x {
            Charset::Utf8mb4 => 2,
            Charset::Utf8mb3 => 1,
            Charset::Latin1 | Charset::Binary => 0,
        };
        return rank(c.charset()) > rank(b.charset());
    }
    is_bin(c) && !is_bin(b)
}

/// MySQL coercibility of a string result whose collation comes from its
/// operands (a function call, CASE): that of the strongest operand with the
/// result's collation, so `CONCAT(col)` is as strong as `col` (2) and beats a
/// literal; 4 when no operand gives it, 5 for a result that is no string.
pub(super) fn derived_coercibility<'t>(
    ty: &ColumnType,
    args: impl IntoIterator<Item = &'t Typed>,
) -> u8 {
    if ty.is_binary_string() {
        return args
            .into_iter()
            .filter(|a| !a.null_lit && a.ty.ty.is_binary_string())
            .map(|a| a.coer)
            .fold(4, u8::min);
    }
    let Some(c) = ty.collation() else {
        return 5;
    };
    args.into_iter()
        .filter(|a| {
            !a.null_lit && !a.ty.ty.is_binary_string() && text_collation(&a.ty.ty) == Some(c)
        })
        .map(|a| a.coer)
        .fold(4, u8::min)
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

pub(super) fn str_len(ty: &ColumnType) -> u32 {
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

/// A string of up to `len` characters: VARCHAR (VARBINARY) up to 16,383,
/// else MEDIUMTEXT (MEDIUMBLOB) while 4 bytes a character fit 16 MiB,
/// else LONGTEXT (LONGBLOB), as MariaDB sizes a computed string.
pub(super) fn string_type(len: u32, binary: bool, collation: Collation) -> ColumnType {
    let kind = if len < 4_194_304 {
        LobKind::Medium
    } else {
        LobKind::Long
    };
    match (binary, len > 16_383) {
        (true, false) => ColumnType::Varbinary { max_len: len },
        (true, true) => ColumnType::Blob { kind },
        (false, false) => ColumnType::Varchar {
            max_len: len,
            collation,
        },
        (false, true) => ColumnType::Text { kind, collation },
    }
}

/// CAST target and result type of a sqlparser data type; `arg` is the
/// cast expression's text, for MariaDB's 1426 message.
pub(super) fn cast_target(
    dt: &DataType,
    collation: Collation,
    arg: &str,
) -> Result<(CastTarget, ColumnType), SqlError> {
    let too_big_precision = |max: u64| {
        SqlError::new(
            code::TOO_BIG_PRECISION,
            format!("Too big precision specified for '{arg}'. Maximum is {max}"),
        )
    };
    let m_bigger_than_d = || {
        SqlError::new(
            code::M_BIGGER_THAN_D,
            "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '')",
        )
    };
    // A TIME/DATETIME/TIMESTAMP's fractional digits: at most 6 (1426).
    let fsp_of = |fsp: &Option<u64>| -> Result<u8, SqlError> {
        match fsp.unwrap_or(0) {
            n @ 0..=6 => Ok(n as u8),
            _ => Err(too_big_precision(6)),
        }
    };
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
                return Err(too_big_precision(65));
            }
            if s > p {
                return Err(m_bigger_than_d());
            }
            if s > 30 {
                return Err(SqlError::new(
                    code::TOO_BIG_SCALE,
                    format!("Too big scale specified for '{arg}'. Maximum is 30"),
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
        DataType::Double(ExactNumberInfo::PrecisionAndScale(m, d)) => {
            let d = u64::try_from(*d).unwrap_or(u64::MAX);
            if *m > 65 {
                return Err(too_big_precision(65));
            }
            if d > *m {
                return Err(m_bigger_than_d());
            }
            // 31 or more decimals is MariaDB's "not fixed": a plain DOUBLE.
            if d < 31 {
                let (m, d) = ((*m).max(1) as u8, d as u8);
                let text = format!("CAST({arg} AS DOUBLE({m},{d}))");
                (CastTarget::FixedDouble { m, d, text }, ColumnType::Double)
            } else {
                (CastTarget::Double, ColumnType::Double)
            }
        }
        DataType::Double(_) | DataType::DoublePrecision | DataType::Real => {
            (CastTarget::Double, ColumnType::Double)
        }
        DataType::Float(_) => (CastTarget::Float, ColumnType::Float),
        DataType::Uuid => (CastTarget::Uuid, ColumnType::Uuid),
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
            let fsp = fsp_of(fsp)?;
            (CastTarget::Datetime { fsp }, ColumnType::Datetime { fsp })
        }
        DataType::Time(fsp, _) => {
            let fsp = fsp_of(fsp)?;
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

/// The type of a DATE, TIME, DATETIME, TIMESTAMP or YEAR value read as a
/// number by ABS and unary minus: a DECIMAL with the value's fractional
/// digits (an integer for YEAR), as MariaDB; `None` for other types.
pub(super) fn temporal_number(t: &ColumnType) -> Option<ColumnType> {
    match t {
        ColumnType::Year => Some(ColumnType::Int {
            bytes: 4,
            unsigned: false,
        }),
        ColumnType::Date
        | ColumnType::Time { .. }
        | ColumnType::Datetime { .. }
        | ColumnType::Timestamp { .. } => {
            let (digits, scale) = crate::eval::convert::number_digits(t)?;
            Some(ColumnType::Decimal {
                precision: digits + 1,
                scale,
            })
        }
        _ => None,
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
