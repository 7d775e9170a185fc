//! Literals and names: MySQL's typing of number, string, hex and bit literals,
//! typed date/time strings, column and variable references.

use super::*;

impl Compiler<'_, '_> {
    pub(super) fn value(&mut self, v: &ast::Value) -> Result<Typed, SqlError> {
        use ast::Value as V;
        Ok(match v {
            V::Number(s, _) => number_literal(s)?,
            V::SingleQuotedString(s) | V::DoubleQuotedString(s) | V::NationalStringLiteral(s) => {
                // Bytes that were not UTF-8 make the literal a binary string.
                match crate::parse::raw_bytes(s) {
                    Some(b) => {
                        let n = b.len() as u32;
                        lit(Value::Bytes(b), ColumnType::Varbinary { max_len: n }, 4)
                    }
                    None => self.string_lit(s.clone()),
                }
            }
            V::HexStringLiteral(h) => {
                let h = if h.len() % 2 == 1 {
                    format!("0{h}")
                } else {
                    h.clone()
                };
                let bytes: Option<Vec<u8>> = (0..h.len())
                    .step_by(2)
                    .map(|i| h.get(i..i + 2).and_then(|x| u8::from_str_radix(x, 16).ok()))
                    .collect();
                let bytes = bytes.ok_or_else(|| SqlError::Syntax {
                    near: format!("X'{h}'"),
                    line: 1,
                })?;
                hex_literal(bytes)
            }
            V::SingleQuotedByteStringLiteral(bits) | V::DoubleQuotedByteStringLiteral(bits) => {
                if !bits.bytes().all(|b| b == b'0' || b == b'1') || bits.len() > 64 {
                    return Err(SqlError::Syntax {
                        near: format!("b'{bits}'"),
                        line: 1,
                    });
                }
                let n =
                    u64::from_str_radix(if bits.is_empty() { "0" } else { bits }, 2).unwrap_or(0);
                let width = bits.len().div_ceil(8).max(1);
                hex_literal(n.to_be_bytes()[8 - width..].to_vec())
            }
            V::Boolean(b) => lit(
                Value::Int(i64::from(*b)),
                ColumnType::Int {
                    bytes: 4,
                    unsigned: false,
                },
                5,
            ),
            V::Null => lit(Value::Null, ColumnType::Binary { len: 0 }, 6),
            V::Placeholder(p) => {
                // `?N` (numbered by the prepare step in statement order) or
                // a bare `?`, numbered here in compile order.
                let i = match p.strip_prefix('?').and_then(|d| d.parse::<usize>().ok()) {
                    Some(n) => n,
                    None => {
                        let i = *self.next_param;
                        *self.next_param += 1;
                        i
                    }
                };
                Typed {
                    expr: Expr::Param(i),
                    ty: ExprType {
                        ty: ColumnType::Varchar {
                            max_len: 255,
                            collation: self.opts.collation,
                        },
                        nullable: true,
                        decimals: None,
                    },
                    coer: 4,
                    hex: None,
                    null_lit: false,
                    len: None,
                }
            }
            other => return Err(SqlError::not_supported(&other.to_string())),
        })
    }

    pub(super) fn ident(&mut self, ids: &[ast::Ident]) -> Result<Typed, SqlError> {
        if let Some(first) = ids.first() {
            if first.quote_style.is_none() && first.value.starts_with("@@") {
                let head = first.value[2..].to_ascii_lowercase();
                let (scope, name) = match (head.as_str(), ids.len()) {
                    ("session" | "local", n) if n > 1 => (
                        VarScope::Session,
                        ids[1..]
                            .iter()
                            .map(|i| i.value.as_str())
                            .collect::<Vec<_>>()
                            .join("."),
                    ),
                    ("global", n) if n > 1 => (
                        VarScope::Global,
                        ids[1..]
                            .iter()
                            .map(|i| i.value.as_str())
                            .collect::<Vec<_>>()
                            .join("."),
                    ),
                    _ => (
                        VarScope::Default,
                        std::iter::once(&first.value[2..])
                            .chain(ids[1..].iter().map(|i| i.value.as_str()))
                            .collect::<Vec<_>>()
                            .join("."),
                    ),
                };
                return Ok(var_typed(
                    Expr::SysVar {
                        name: name.to_ascii_lowercase(),
                        scope,
                    },
                    self.opts.collation,
                ));
            }
            if first.quote_style.is_none() && first.value.starts_with('@') && ids.len() == 1 {
                let name = first.value[1..]
                    .trim_matches(['`', '\'', '"'])
                    .to_ascii_lowercase();
                return Ok(user_var_typed(name, self.opts.collation));
            }
        }
        match (self.resolve)(ids) {
            Some((i, ty)) => Ok(Typed {
                coer: if text_collation(&ty.ty).is_some() || ty.ty.is_binary_string() {
                    2
                } else {
                    5
                },
                expr: Expr::Column(i),
                ty,
                hex: None,
                null_lit: false,
                len: None,
            }),
            None => {
                let name = ids
                    .iter()
                    .map(|i| i.value.as_str())
                    .collect::<Vec<_>>()
                    .join(".");
                Err(SqlError::unknown_column(&name, &self.opts.clause))
            }
        }
    }

    pub(super) fn typed_string(
        &mut self,
        dt: &DataType,
        v: &ast::Value,
    ) -> Result<Typed, SqlError> {
        let s = v.clone().into_string().unwrap_or_default();
        let bad = |kind: &str| SqlError::new(1525, format!("Incorrect {kind} value: '{s}'"));
        Ok(match dt {
            DataType::Date => {
                let p = parse_datetime(&s)
                    .filter(|p| !p.has_time && !p.truncated)
                    .ok_or_else(|| bad("DATE"))?;
                lit(Value::Date(p.value.date), ColumnType::Date, 5)
            }
            DataType::Time(..) => {
                let (us, oor, tr) = parse_time(&s).ok_or_else(|| bad("TIME"))?;
                if oor || tr {
                    return Err(bad("TIME"));
                }
                let fsp = s.split_once('.').map_or(0, |(_, f)| f.len().min(6) as u8);
                lit(Value::Time(us), ColumnType::Time { fsp }, 5)
            }
            DataType::Timestamp(..) | DataType::Datetime(_) => {
                let p = parse_datetime(&s)
                    .filter(|p| !p.truncated)
                    .ok_or_else(|| bad("DATETIME"))?;
                lit(
                    Value::Datetime(p.value),
                    ColumnType::Datetime { fsp: p.frac_digits },
                    5,
                )
            }
            other => return Err(SqlError::not_supported(&format!("{other} literals"))),
        })
    }
}

/// A literal's DOUBLE, or MariaDB's 1367 for one beyond DOUBLE's range
/// (`1e400`), never an infinity.
fn finite_double(text: &str, f: f64) -> Result<Value, SqlError> {
    if f.is_finite() {
        Ok(Value::Double(f))
    } else {
        Err(SqlError::new(
            1367,
            format!("Illegal double '{text}' value found during parsing"),
        ))
    }
}

/// Parses a number literal the way MySQL types it.
pub(super) fn number_literal(s: &str) -> Result<Typed, SqlError> {
    let int_ty = |unsigned| ColumnType::Int { bytes: 8, unsigned };
    if s.contains(['e', 'E']) {
        let f: f64 = s.parse().map_err(|_| SqlError::Syntax {
            near: s.into(),
            line: 1,
        })?;
        return Ok(lit(finite_double(s, f)?, ColumnType::Double, 5));
    }
    if !s.contains('.') {
        if let Ok(i) = s.parse::<i64>() {
            // INT up to 9 characters, as MariaDB types integer literals.
            let len = s.trim_start_matches(['+', '0']).len().max(1) as u32;
            return Ok(lit(Value::Int(i), int_of_len(len, false), 5));
        }
        if let Ok(u) = s.parse::<u64>() {
            return Ok(lit(Value::UInt(u), int_ty(true), 5));
        }
    }
    let d = Decimal::parse(s).map_err(|_| SqlError::Syntax {
        near: s.into(),
        line: 1,
    })?;
    let scale = d.scale();
    let digits = d.coefficient().len().max(usize::from(scale) + 1);
    if digits > 65 || scale > 30 {
        let f: f64 = s.parse().unwrap_or(0.0);
        return Ok(lit(finite_double(s, f)?, ColumnType::Double, 5));
    }
    Ok(lit(
        Value::Decimal(d),
        ColumnType::Decimal {
            precision: digits as u8,
            scale,
        },
        5,
    ))
}

fn hex_literal(bytes: Vec<u8>) -> Typed {
    let n = bytes.len() as u32;
    let num = if bytes.len() <= 8 {
        Some(bytes.iter().fold(0u64, |a, &b| (a << 8) | u64::from(b)))
    } else {
        None
    };
    Typed {
        hex: num,
        ..lit(Value::Bytes(bytes), ColumnType::Varbinary { max_len: n }, 4)
    }
}

fn var_typed(expr: Expr, collation: Collation) -> Typed {
    Typed {
        expr,
        ty: ExprType {
            ty: ColumnType::Varchar {
                max_len: 1024,
                collation,
            },
            nullable: true,
            decimals: None,
        },
        coer: 4,
        hex: None,
        null_lit: false,
        len: None,
    }
}

/// A read of `@name`, typed by what the variable holds now (see
/// [`super::super::uservar`]); outside a statement, a string in
/// `collation`.
fn user_var_typed(name: String, collation: Collation) -> Typed {
    use super::super::uservar::{compile_time_value, static_type, UserVarKind};
    let Some(held) = compile_time_value(&name) else {
        return Typed {
            coer: 2,
            ..var_typed(Expr::UserVar { name, kind: None }, collation)
        };
    };
    let (kind, (ty, coer)) = match held {
        Some(u) => (u.kind, u.static_type()),
        None => {
            let kind = UserVarKind::Text(Collation::Binary);
            (kind, static_type(kind, &Value::Null))
        }
    };
    Typed {
        coer,
        ..Typed::computed(
            Expr::UserVar {
                name,
                kind: Some(kind),
            },
            ty,
            true,
        )
    }
}

/// The default collation of a character set name (utf8 is utf8mb3).
pub(super) fn default_collation_name(charset: &str) -> String {
    match charset.to_ascii_lowercase().trim_matches(['\'', '`', '"']) {
        "binary" => "binary".into(),
        "latin1" => "latin1_swedish_ci".into(),
        "utf8" | "utf8mb3" => "utf8mb3_general_ci".into(),
        "utf8mb4" => "utf8mb4_general_ci".into(),
        other => other.to_string(),
    }
}
