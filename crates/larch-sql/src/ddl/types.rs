//! SQL data types (sqlparser's `DataType`) to engine column types, with
//! MySQL's defaults, synonyms and limits, and character set / collation
//! resolution.
//!
//! Synonyms: BOOL/BOOLEAN = TINYINT(1); SERIAL = BIGINT UNSIGNED NOT NULL
//! AUTO_INCREMENT UNIQUE; INTEGER/INT4 = INT, INT1 = TINYINT, INT2 = SMALLINT,
//! INT3/MIDDLEINT = MEDIUMINT, INT8 = BIGINT; DEC/NUMERIC/FIXED = DECIMAL
//! (default (10,0)); REAL/DOUBLE PRECISION/FLOAT8 = DOUBLE; FLOAT(p) is FLOAT
//! up to p = 24 and DOUBLE up to 53; TEXT(n)/BLOB(n) pick the smallest kind
//! that holds n characters/bytes; JSON = LONGTEXT utf8mb4_bin (MariaDB);
//! a string type with CHARACTER SET binary is its binary counterpart.
//!
//! Character sets: utf8mb4, utf8/utf8mb3 (the Basic Multilingual Plane, up
//! to three bytes a character), latin1 and binary; others are error 1115.
//! Limits: 1074 (CHAR > 255, VARCHAR beyond 65,535 bytes), 1425/1426/1427
//! (DECIMAL and FLOAT(M,D) scale and precision, fractional seconds), 1439
//! (display widths), 1063 (FLOAT(p) with p > 53), 1291 (duplicate ENUM/SET
//! member), 1097 (more than 64 SET members).

use larch_engine::record::collation::{Charset, Collation};
use larch_engine::record::value::{ColumnType, LobKind, DECIMAL_MAX_PRECISION, DECIMAL_MAX_SCALE};
use sqlparser::ast::{self, CharacterLength, DataType, ExactNumberInfo};

use super::syntax_error;
use crate::error::SqlError;

/// A resolved column type with what the engine type does not carry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TypeSpec {
    pub ty: ColumnType,
    pub display_width: Option<u32>,
    /// UNSIGNED of a DECIMAL/FLOAT/DOUBLE.
    pub unsigned: bool,
    /// (M, D) of FLOAT(M,D) / DOUBLE(M,D).
    pub precision: Option<(u32, u32)>,
    /// SERIAL: NOT NULL AUTO_INCREMENT UNIQUE as well.
    pub serial: bool,
}

impl TypeSpec {
    fn of(ty: ColumnType) -> TypeSpec {
        TypeSpec {
            ty,
            display_width: None,
            unsigned: false,
            precision: None,
            serial: false,
        }
    }
}

/// The collation of a character set name's default collation (1115 for an
/// unknown character set).
pub(super) fn charset_default(name: &str) -> Result<Collation, SqlError> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "utf8mb4" => Collation::Utf8mb4GeneralCi,
        "utf8" | "utf8mb3" => Collation::Utf8mb3GeneralCi,
        "latin1" => Collation::Latin1SwedishCi,
        "binary" => Collation::Binary,
        _ => {
            return Err(SqlError::new(
                1115,
                format!("Unknown character set: '{name}'"),
            ))
        }
    })
}

/// Resolves `CHARACTER SET x COLLATE y` against `default` (1115 unknown
/// character set, 1273 unknown collation, 1253 collation of another set).
pub(crate) fn resolve_collation(
    charset: Option<&str>,
    collate: Option<&str>,
    default: Collation,
) -> Result<Collation, SqlError> {
    // The names may be quoted as identifiers or strings (`COLLATE
    // \`utf8mb4_bin\``, as Django writes them).
    let unquote = |n: &str| n.trim_matches(['\'', '`', '"']).to_owned();
    let (charset, collate) = (charset.map(unquote), collate.map(unquote));
    let (charset, collate) = (charset.as_deref(), collate.as_deref());
    let by_name = |n: &str| {
        Collation::from_name(n)
            .ok_or_else(|| SqlError::new(1273, format!("Unknown collation: '{n}'")))
    };
    match (charset, collate) {
        (None, None) => Ok(default),
        (Some(cs), None) => charset_default(cs),
        (None, Some(c)) => by_name(c),
        (Some(cs), Some(c)) => {
            let set = charset_default(cs)?.charset();
            let coll = by_name(c)?;
            if coll.charset() != set {
                return Err(SqlError::new(
                    1253,
                    format!("COLLATION '{c}' is not valid for CHARACTER SET '{cs}'"),
                ));
            }
            Ok(coll)
        }
    }
}

fn width(w: Option<u64>, col: &str) -> Result<Option<u32>, SqlError> {
    match w {
        Some(w) if w > 255 => Err(SqlError::new(
            1439,
            format!("Display width out of range for '{col}' (max = 255)"),
        )),
        w => Ok(w.map(|w| w as u32)),
    }
}

fn int(bytes: u8, unsigned: bool, w: Option<u64>, col: &str) -> Result<TypeSpec, SqlError> {
    Ok(TypeSpec {
        display_width: width(w, col)?,
        ..TypeSpec::of(ColumnType::Int { bytes, unsigned })
    })
}

fn decimal(info: &ExactNumberInfo, unsigned: bool, col: &str) -> Result<TypeSpec, SqlError> {
    let (p, s) = match *info {
        ExactNumberInfo::None => (10, 0),
        ExactNumberInfo::Precision(p) => (p, 0),
        ExactNumberInfo::PrecisionAndScale(p, s) => (
            p,
            u64::try_from(s).map_err(|_| syntax_error(format!("{s})")))?,
        ),
    };
    check_scale(p, s, u64::from(DECIMAL_MAX_PRECISION), col)?;
    let p = if p == 0 { 10 } else { p };
    Ok(TypeSpec {
        unsigned,
        ..TypeSpec::of(ColumnType::Decimal {
            precision: p as u8,
            scale: s as u8,
        })
    })
}

/// MySQL's checks of (M, D): 1426 precision, 1425 scale, 1427 M < D.
fn check_scale(p: u64, s: u64, max_p: u64, col: &str) -> Result<(), SqlError> {
    if p > max_p {
        return Err(SqlError::new(
            1426,
            format!("Too-big precision {p} specified for '{col}'. Maximum is {max_p}."),
        ));
    }
    if s > u64::from(DECIMAL_MAX_SCALE) {
        return Err(SqlError::new(
            1425,
            format!("Too big scale {s} specified for '{col}'. Maximum is {DECIMAL_MAX_SCALE}."),
        ));
    }
    if s > p {
        return Err(SqlError::new(
            1427,
            format!(
                "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '{col}')."
            ),
        ));
    }
    Ok(())
}

fn real(
    info: &ExactNumberInfo,
    double: bool,
    unsigned: bool,
    col: &str,
) -> Result<TypeSpec, SqlError> {
    let (ty, precision) = match *info {
        ExactNumberInfo::None => (
            if double {
                ColumnType::Double
            } else {
                ColumnType::Float
            },
            None,
        ),
        ExactNumberInfo::Precision(p) if !double => match p {
            0..=24 => (ColumnType::Float, None),
            25..=53 => (ColumnType::Double, None),
            _ => {
                return Err(SqlError::new(
                    1063,
                    format!("Incorrect column specifier for column '{col}'"),
                ))
            }
        },
        ExactNumberInfo::Precision(p) => return Err(syntax_error(format!("{p})"))),
        ExactNumberInfo::PrecisionAndScale(m, d) => {
            let d = u64::try_from(d).map_err(|_| syntax_error(format!("{d})")))?;
            width(Some(m), col)?;
            check_scale(m, d, 255, col)?;
            let ty = if double {
                ColumnType::Double
            } else {
                ColumnType::Float
            };
            (ty, Some((m as u32, d as u32)))
        }
    };
    Ok(TypeSpec {
        unsigned,
        precision,
        ..TypeSpec::of(ty)
    })
}

fn too_long(col: &str, max: u64) -> SqlError {
    SqlError::new(
        1074,
        format!("Column length too big for column '{col}' (max = {max}); use BLOB or TEXT instead"),
    )
}

fn char_len(len: &Option<CharacterLength>, default: Option<u64>) -> Result<u64, SqlError> {
    match len {
        None => default.ok_or_else(|| syntax_error(")")),
        Some(CharacterLength::IntegerLength { length, .. }) => Ok(*length),
        Some(CharacterLength::Max) => Err(syntax_error("MAX)")),
    }
}

/// CHAR(n) (`varying` false) or VARCHAR(n) in `coll`.
fn string(n: u64, varying: bool, coll: Collation, col: &str) -> Result<TypeSpec, SqlError> {
    let mb = coll.charset().max_bytes_per_char() as u64;
    if !varying && n > 255 {
        return Err(too_long(col, 255));
    }
    if varying && n.saturating_mul(mb) > 65_535 {
        return Err(too_long(col, 65_535 / mb));
    }
    let n = n as u32;
    let ty = match (coll, varying) {
        (Collation::Binary, false) => ColumnType::Binary { len: n },
        (Collation::Binary, true) => ColumnType::Varbinary { max_len: n },
        (c, false) => ColumnType::Char {
            len: n,
            collation: c,
        },
        (c, true) => ColumnType::Varchar {
            max_len: n,
            collation: c,
        },
    };
    Ok(TypeSpec::of(ty))
}

/// The smallest TEXT/BLOB kind holding `bytes` bytes.
fn lob_kind(bytes: u64) -> LobKind {
    match bytes {
        0..=0xFF => LobKind::Tiny,
        0x100..=0xFFFF => LobKind::Text,
        0x1_0000..=0xFF_FFFF => LobKind::Medium,
        _ => LobKind::Long,
    }
}

fn text(kind: LobKind, coll: Collation) -> TypeSpec {
    TypeSpec::of(match coll {
        Collation::Binary => ColumnType::Blob { kind },
        c => ColumnType::Text { kind, collation: c },
    })
}

fn fsp(p: Option<u64>, col: &str) -> Result<u8, SqlError> {
    match p {
        None => Ok(0),
        Some(p @ 0..=6) => Ok(p as u8),
        Some(p) => Err(SqlError::new(
            1426,
            format!("Too-big precision {p} specified for '{col}'. Maximum is 6."),
        )),
    }
}

/// ENUM/SET members: trailing spaces cut, duplicates (by the column
/// collation) refused with 1291.
fn members(
    raw: Vec<String>,
    coll: Collation,
    kind: &str,
    col: &str,
) -> Result<Vec<String>, SqlError> {
    let mut out: Vec<String> = Vec::with_capacity(raw.len());
    for m in raw {
        let m = m.trim_end_matches(' ').to_string();
        if out.iter().any(|o| coll.compare(o, &m).is_eq()) {
            return Err(SqlError::new(
                1291,
                format!("Column '{col}' has duplicated value '{m}' in {kind}"),
            ));
        }
        out.push(m);
    }
    Ok(out)
}

/// The engine type of `dt` for column `col`; `coll` is the column's
/// collation (explicit, or the table's default).
pub(crate) fn column_type(dt: &DataType, coll: Collation, col: &str) -> Result<TypeSpec, SqlError> {
    use DataType as D;
    Ok(match dt {
        D::TinyInt(w) => int(1, false, *w, col)?,
        D::TinyIntUnsigned(w) => int(1, true, *w, col)?,
        D::SmallInt(w) | D::Int2(w) => int(2, false, *w, col)?,
        D::SmallIntUnsigned(w) | D::Int2Unsigned(w) => int(2, true, *w, col)?,
        D::MediumInt(w) => int(3, false, *w, col)?,
        D::MediumIntUnsigned(w) => int(3, true, *w, col)?,
        D::Int(w) | D::Int4(w) | D::Integer(w) => int(4, false, *w, col)?,
        D::IntUnsigned(w) | D::Int4Unsigned(w) | D::IntegerUnsigned(w) => int(4, true, *w, col)?,
        D::BigInt(w) | D::Int8(w) => int(8, false, *w, col)?,
        D::BigIntUnsigned(w) | D::Int8Unsigned(w) => int(8, true, *w, col)?,
        D::Bool | D::Boolean => int(1, false, Some(1), col)?,
        D::Decimal(i) | D::Numeric(i) | D::Dec(i) => decimal(i, false, col)?,
        D::DecimalUnsigned(i) | D::DecUnsigned(i) => decimal(i, true, col)?,
        D::Float(i) => real(i, false, false, col)?,
        D::FloatUnsigned(i) => real(i, false, true, col)?,
        D::Float4 => TypeSpec::of(ColumnType::Float),
        D::Double(i) => real(i, true, false, col)?,
        D::DoubleUnsigned(i) => real(i, true, true, col)?,
        D::DoublePrecision | D::Real | D::Float8 | D::Float64 => TypeSpec::of(ColumnType::Double),
        D::DoublePrecisionUnsigned | D::RealUnsigned => TypeSpec {
            unsigned: true,
            ..TypeSpec::of(ColumnType::Double)
        },
        D::Char(l) | D::Character(l) => string(char_len(l, Some(1))?, false, coll, col)?,
        D::Varchar(l) | D::CharVarying(l) | D::CharacterVarying(l) => {
            string(char_len(l, None)?, true, coll, col)?
        }
        D::Nvarchar(l) => string(char_len(l, None)?, true, Collation::Utf8mb4GeneralCi, col)?,
        D::Binary(l) => string(l.unwrap_or(1), false, Collation::Binary, col)?,
        D::Varbinary(l) => match l {
            Some(ast::BinaryLength::IntegerLength { length }) => {
                string(*length, true, Collation::Binary, col)?
            }
            _ => return Err(syntax_error(")")),
        },
        D::TinyText => text(LobKind::Tiny, coll),
        D::Text => text(LobKind::Text, coll),
        D::MediumText => text(LobKind::Medium, coll),
        D::LongText => text(LobKind::Long, coll),
        D::JSON => text(LobKind::Long, Collation::Utf8mb4Bin),
        D::Blob(n) => text(lob_kind(n.unwrap_or(0xFFFF)), Collation::Binary),
        D::TinyBlob => text(LobKind::Tiny, Collation::Binary),
        D::MediumBlob => text(LobKind::Medium, Collation::Binary),
        D::LongBlob => text(LobKind::Long, Collation::Binary),
        D::Date => TypeSpec::of(ColumnType::Date),
        D::Time(p, _) => TypeSpec::of(ColumnType::Time { fsp: fsp(*p, col)? }),
        D::Datetime(p) => TypeSpec::of(ColumnType::Datetime { fsp: fsp(*p, col)? }),
        D::Timestamp(p, _) => TypeSpec::of(ColumnType::Timestamp { fsp: fsp(*p, col)? }),
        D::Bit(n) => match n {
            Some(n) if *n > 64 => {
                return Err(SqlError::new(
                    1439,
                    format!("Display width out of range for '{col}' (max = 64)"),
                ))
            }
            n => TypeSpec::of(ColumnType::Bit {
                bits: n.unwrap_or(1).max(1) as u8,
            }),
        },
        D::Enum(list, _) => {
            let raw = list
                .iter()
                .map(|m| match m {
                    ast::EnumMember::Name(n) | ast::EnumMember::NamedValue(n, _) => n.clone(),
                })
                .collect();
            let values = members(raw, coll, "ENUM", col)?;
            if values.is_empty() || values.len() > 0xFFFF {
                return Err(SqlError::new(
                    1097,
                    format!("Too many strings for column {col} and ENUM"),
                ));
            }
            TypeSpec::of(ColumnType::Enum {
                values,
                collation: coll,
            })
        }
        D::Set(list) => {
            let values = members(list.clone(), coll, "SET", col)?;
            if values.len() > 64 {
                return Err(SqlError::new(
                    1097,
                    format!("Too many strings for column {col} and SET"),
                ));
            }
            if let Some(bad) = values.iter().find(|v| v.contains(',')) {
                return Err(SqlError::new(
                    1367,
                    format!("Illegal set '{bad}' value found during parsing"),
                ));
            }
            TypeSpec::of(ColumnType::Set {
                values,
                collation: coll,
            })
        }
        D::Uuid => TypeSpec::of(ColumnType::Uuid),
        D::Custom(name, args) => custom(name, args, coll, col)?,
        other => return Err(syntax_error(other.to_string())),
    })
}

/// Types sqlparser leaves as `Custom`: SERIAL, YEAR, TEXT(n), FIXED,
/// MIDDLEINT, INT1, INT3, LONG (MEDIUMTEXT).
fn custom(
    name: &ast::ObjectName,
    args: &[String],
    coll: Collation,
    col: &str,
) -> Result<TypeSpec, SqlError> {
    let word = name.to_string().to_ascii_uppercase();
    let nums: Vec<u64> = args
        .iter()
        .map(|a| a.trim().parse::<u64>().map_err(|_| syntax_error(a.clone())))
        .collect::<Result<_, _>>()?;
    let one = nums.first().copied();
    Ok(match (word.as_str(), nums.len()) {
        ("SERIAL", 0) => TypeSpec {
            serial: true,
            ..TypeSpec::of(ColumnType::Int {
                bytes: 8,
                unsigned: true,
            })
        },
        ("YEAR", 0) | ("YEAR", 1) if matches!(one, None | Some(2) | Some(4)) => {
            TypeSpec::of(ColumnType::Year)
        }
        ("TEXT", 1) => {
            let mb = coll.charset().max_bytes_per_char() as u64;
            let kind = lob_kind(one.unwrap_or(0).saturating_mul(mb));
            text(kind, coll)
        }
        ("FIXED", 0..=2) => {
            let info = match nums.as_slice() {
                [] => ExactNumberInfo::None,
                [p] => ExactNumberInfo::Precision(*p),
                [p, s, ..] => ExactNumberInfo::PrecisionAndScale(*p, *s as i64),
            };
            decimal(&info, false, col)?
        }
        ("MIDDLEINT" | "INT3", 0..=1) => int(3, false, one, col)?,
        ("INT1", 0..=1) => int(1, false, one, col)?,
        ("LONG", 0) => text(LobKind::Medium, coll),
        ("UUID", 0) => TypeSpec::of(ColumnType::Uuid),
        _ => {
            let text = if args.is_empty() {
                word
            } else {
                format!("{word}({})", args.join(","))
            };
            return Err(syntax_error(text));
        }
    })
}

/// True when `ty` is a character string type (CHAR, VARCHAR, TEXT) with a
/// real character set (what FULLTEXT and COLLATE clauses apply to).
pub(super) fn is_text(ty: &ColumnType) -> bool {
    ty.collation()
        .is_some_and(|c| c.charset() != Charset::Binary)
}
