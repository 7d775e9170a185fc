//! Operators: unary and binary arithmetic, comparisons (row comparisons
//! included), logic and CASE.

use super::*;

impl Compiler<'_, '_> {
    pub(super) fn unary(
        &mut self,
        op: U,
        x: &ast::Expr,
        whole: &ast::Expr,
    ) -> Result<Typed, SqlError> {
        // -9223372036854775808 is a BIGINT literal, not the negation of an
        // unsigned one.
        if op == U::Minus {
            if let ast::Expr::Value(v) = x {
                if let ast::Value::Number(s, _) = &v.value {
                    if let Ok(t) = number_literal(&format!("-{s}")) {
                        return Ok(t);
                    }
                }
            }
        }
        let t = self.expr(x)?;
        if op == U::Minus {
            // A constant integer whose negation no BIGINT holds
            // (`-(18446744073709551615)`, `-(-9223372036854775808)`) is
            // negated as a DECIMAL, as MariaDB's Item_func_neg does.
            let negated = match &t.expr {
                Expr::Literal(Value::UInt(n)) if *n > 1 << 63 => Some(format!("-{n}")),
                Expr::Literal(Value::Int(i64::MIN)) => Some((1u64 << 63).to_string()),
                _ => None,
            };
            if let Some(text) = negated {
                return number_literal(&text);
            }
        }
        Ok(match op {
            U::Plus => t,
            U::Minus => {
                let nullable = t.ty.nullable;
                // A date or time negates as its number: a DECIMAL with its
                // fractional digits (YEAR an integer).
                let temporal = temporal_number(&t.ty.ty);
                let t = t.numeric();
                // A negated integer is one character (the sign) longer.
                let len = matches!(t.ty.ty, ColumnType::Int { .. }).then(|| char_len(&t) + 1);
                let ty = match (&t.ty.ty, temporal) {
                    (_, Some(ty)) => ty,
                    (ColumnType::Int { .. }, _) => int_of_len(len.unwrap_or(20), false),
                    (other, _) if is_decimal(other) => other.clone(),
                    _ => ColumnType::Double,
                };
                let decimals = real_decimals(&ty, t.ty.number_decimals());
                with_decimals(
                    decimals,
                    Typed {
                        len,
                        ..Typed::computed(
                            Expr::Neg {
                                arg: boxed(t),
                                text: whole.to_string(),
                            },
                            ty,
                            nullable,
                        )
                    },
                )
            }
            U::Not | U::BangNot => {
                let nullable = t.ty.nullable;
                bool_typed(Expr::Not(boxed(t.numeric())), nullable)
            }
            U::BitwiseNot => {
                let nullable = t.ty.nullable;
                Typed::computed(
                    Expr::BitNot(boxed(t.numeric())),
                    ColumnType::Int {
                        bytes: 8,
                        unsigned: true,
                    },
                    nullable,
                )
            }
            other => return Err(SqlError::not_supported(&format!("operator {other}"))),
        })
    }

    pub(super) fn binary(
        &mut self,
        l: &ast::Expr,
        op: &B,
        r: &ast::Expr,
        whole: &ast::Expr,
    ) -> Result<Typed, SqlError> {
        if *op == B::Assignment {
            return self.assign_user_var(l, r, whole);
        }
        let arith = |op| Some(op);
        let aop = match op {
            B::Plus => arith(ArithOp::Add),
            B::Minus => arith(ArithOp::Sub),
            B::Multiply => arith(ArithOp::Mul),
            B::Divide => arith(ArithOp::Div),
            B::Modulo => arith(ArithOp::Mod),
            B::MyIntegerDivide => arith(ArithOp::IntDiv),
            B::BitwiseAnd => arith(ArithOp::BitAnd),
            B::BitwiseOr => arith(ArithOp::BitOr),
            B::BitwiseXor => arith(ArithOp::BitXor),
            B::PGBitwiseShiftLeft => arith(ArithOp::Shl),
            B::PGBitwiseShiftRight => arith(ArithOp::Shr),
            _ => None,
        };
        if let Some(aop) = aop {
            // date ± INTERVAL n unit (and INTERVAL n unit + date).
            if matches!(aop, ArithOp::Add | ArithOp::Sub) {
                if let ast::Expr::Interval(iv) = r {
                    return self.date_add(l, iv, aop == ArithOp::Sub);
                }
                if let (ast::Expr::Interval(iv), ArithOp::Add) = (l, aop) {
                    return self.date_add(r, iv, false);
                }
            }
            let (a, b) = (self.expr(l)?.numeric(), self.expr(r)?.numeric());
            let mut ty = arith_type(aop, &a.ty.ty, &b.ty.ty);
            let nullable = a.ty.nullable
                || b.ty.nullable
                || matches!(aop, ArithOp::Div | ArithOp::IntDiv | ArithOp::Mod);
            let bitwise = matches!(
                aop,
                ArithOp::BitAnd | ArithOp::BitOr | ArithOp::BitXor | ArithOp::Shl | ArithOp::Shr
            );
            let len = match ty {
                ColumnType::Int { unsigned, .. } if !bitwise => {
                    let len = arith_len(aop, &a, &b, unsigned);
                    ty = int_of_len(len, unsigned);
                    Some(len)
                }
                _ => None,
            };
            let decimals = real_decimals(&ty, arith_decimals(aop, &a, &b));
            return Ok(with_decimals(
                decimals,
                Typed {
                    len,
                    ..Typed::computed(
                        Expr::Arith {
                            op: aop,
                            left: boxed(a),
                            right: boxed(b),
                            text: whole.to_string(),
                        },
                        ty,
                        nullable,
                    )
                },
            ));
        }
        let cmp = match op {
            B::Eq => Some(CmpOp::Eq),
            B::NotEq => Some(CmpOp::Ne),
            B::Lt => Some(CmpOp::Lt),
            B::LtEq => Some(CmpOp::Le),
            B::Gt => Some(CmpOp::Gt),
            B::GtEq => Some(CmpOp::Ge),
            B::Spaceship => Some(CmpOp::NullSafeEq),
            _ => None,
        };
        if let Some(cop) = cmp {
            return self.compare(cop, l, r);
        }
        let (a, b) = (self.expr(l)?, self.expr(r)?);
        let nullable = a.ty.nullable || b.ty.nullable;
        let (x, y) = (boxed(a.numeric()), boxed(b.numeric()));
        Ok(match op {
            B::And => bool_typed(Expr::And(x, y), nullable),
            // `||` is OR unless sql_mode has PIPES_AS_CONCAT (not supported).
            B::Or | B::StringConcat => bool_typed(Expr::Or(x, y), nullable),
            B::Xor => bool_typed(Expr::Xor(x, y), nullable),
            other => return Err(SqlError::not_supported(&format!("operator {other}"))),
        })
    }

    pub(super) fn compare(
        &mut self,
        op: CmpOp,
        l: &ast::Expr,
        r: &ast::Expr,
    ) -> Result<Typed, SqlError> {
        if let (ast::Expr::Tuple(ls), ast::Expr::Tuple(rs)) = (l, r) {
            if ls.len() != rs.len() {
                return Err(SqlError::operand_columns(ls.len()));
            }
            if !matches!(op, CmpOp::Eq | CmpOp::Ne | CmpOp::NullSafeEq) {
                return Err(SqlError::not_supported(
                    "row comparisons other than =, <> and <=>",
                ));
            }
            let eq_op = if op == CmpOp::Ne { CmpOp::Eq } else { op };
            let mut acc: Option<Typed> = None;
            for (a, b) in ls.iter().zip(rs) {
                let c = self.compare(eq_op, a, b)?;
                acc = Some(match acc {
                    None => c,
                    Some(p) => {
                        let nullable = p.ty.nullable || c.ty.nullable;
                        bool_typed(Expr::And(boxed(p), boxed(c)), nullable)
                    }
                });
            }
            let t = acc.ok_or_else(|| SqlError::operand_columns(1))?;
            return Ok(if op == CmpOp::Ne {
                bool_typed(Expr::Not(boxed(t)), true)
            } else {
                t
            });
        }
        let (mut a, mut b) = (self.expr(l)?, self.expr(r)?);
        a.read_fuzzy();
        b.read_fuzzy();
        year_constant(&a, &mut b);
        year_constant(&b, &mut a);
        if matches!(a.ty.ty, ColumnType::Uuid) || matches!(b.ty.ty, ColumnType::Uuid) {
            // UUIDs compare in MariaDB's UUID order, the other side read as
            // a UUID (NULL where it is none).
            uuid_comparable(&a.ty.ty, &b.ty.ty, op)?;
            return Ok(bool_typed(
                Expr::Compare {
                    op,
                    left: Box::new(uuid_key(a)),
                    right: Box::new(uuid_key(b)),
                    collation: Collation::Binary,
                    fixed_decimals: None,
                },
                op != CmpOp::NullSafeEq,
            ));
        }
        super::check_collation_mix([&a, &b], op.symbol(), true)?;
        let collation = pick_collation([&a, &b], self.opts.collation);
        let nullable = op != CmpOp::NullSafeEq && (a.ty.nullable || b.ty.nullable);
        // A hex literal compared with a number is a number.
        let numeric = !is_string(&a.ty.ty) || !is_string(&b.ty.ty);
        // A JSON_EXTRACT compared as a string is its JSON string unquoted
        // (the left one only, when both are: MariaDB's compare_json_str).
        let (a, b) = if numeric {
            (a, b)
        } else if a.is_json_extract() {
            (a.json_extract_as(crate::eval::json::JsonFunc::Unquote), b)
        } else if b.is_json_extract() {
            (a, b.json_extract_as(crate::eval::json::JsonFunc::Unquote))
        } else {
            (a, b)
        };
        let (a, b) = if numeric {
            (a.numeric(), b.numeric())
        } else {
            (a, b)
        };
        // Two DECIMALs (or a DECIMAL and an integer) compare rounded to
        // their shown scales, as MariaDB's compare_decimal: 2/7 = 0.2857.
        let decimal_or_int =
            |t: &Typed| matches!(t.ty.ty, ColumnType::Decimal { .. } | ColumnType::Int { .. });
        let (a, b) = if decimal_or_int(&a) && decimal_or_int(&b) {
            (a.shown_decimal(), b.shown_decimal())
        } else {
            (a, b)
        };
        let fixed_decimals = compared_fixed_decimals(&a, &b);
        Ok(bool_typed(
            Expr::Compare {
                op,
                left: boxed(a),
                right: boxed(b),
                collation,
                fixed_decimals,
            },
            nullable,
        ))
    }

    /// `(a, b, ...) [NOT] IN ((x, y, ...), ...)`: each row compared as
    /// `(a, b) = (x, y)` is (an AND of its columns' equalities, NULL where
    /// none is false and one is NULL), the results ORed, as MariaDB's row
    /// IN gives them. Every item must have the row's width (1241).
    pub(super) fn row_in_list(
        &mut self,
        row: &ast::Expr,
        width: usize,
        list: &[ast::Expr],
        negated: bool,
    ) -> Result<Typed, SqlError> {
        let mut terms = Vec::with_capacity(list.len());
        for item in list {
            match item {
                ast::Expr::Tuple(values) if values.len() == width => {}
                _ => return Err(SqlError::operand_columns(width)),
            }
            terms.push(self.compare(CmpOp::Eq, row, item)?);
        }
        // A balanced tree of ORs: a long list must not nest deeply.
        while terms.len() > 1 {
            let mut next = Vec::with_capacity(terms.len().div_ceil(2));
            let mut it = terms.into_iter();
            while let Some(a) = it.next() {
                next.push(match it.next() {
                    Some(b) => {
                        let nullable = a.ty.nullable || b.ty.nullable;
                        bool_typed(Expr::Or(boxed(a), boxed(b)), nullable)
                    }
                    None => a,
                });
            }
            terms = next;
        }
        let t = terms
            .pop()
            .ok_or_else(|| SqlError::operand_columns(width))?;
        Ok(if negated {
            let nullable = t.ty.nullable;
            bool_typed(Expr::Not(boxed(t)), nullable)
        } else {
            t
        })
    }

    pub(super) fn case(
        &mut self,
        operand: Option<&ast::Expr>,
        whens: &[ast::CaseWhen],
        otherwise: Option<&ast::Expr>,
    ) -> Result<Typed, SqlError> {
        let mut op = operand.map(|o| self.expr(o)).transpose()?;
        let mut conds = Vec::new();
        let mut results = Vec::new();
        for w in whens {
            conds.push(self.expr(&w.condition)?);
            results.push(self.expr(&w.result)?);
        }
        let other = otherwise.map(|o| self.expr(o)).transpose()?;
        if op.is_none() {
            // Each WHEN is a truth value.
            conds = conds.into_iter().map(Typed::numeric).collect();
        } else if super::compared_as_numbers(op.iter().chain(conds.iter())) {
            op = op.map(Typed::hex_as_number);
            conds = conds.into_iter().map(Typed::hex_as_number).collect();
        }
        if op.is_some() {
            super::check_collation_mix(op.iter().chain(conds.iter()), "case", true)?;
        }
        let collation = pick_collation(op.iter().chain(conds.iter()), self.opts.collation);
        let mut branches: Vec<&Typed> = results.iter().collect();
        if let Some(o) = &other {
            branches.push(o);
        }
        super::check_collation_mix(branches.iter().copied(), "case", false)?;
        let (ty, coerce) = merge_types(&branches, self.opts.collation);
        let nullable = other.is_none() || branches.iter().any(|b| b.ty.nullable);
        let decimals = real_decimals(&ty, max_decimals(branches.iter().copied()));
        let coer = derived_coercibility(&ty, branches);
        // Text results: a temporal branch's text has its type's digits.
        let as_result = |t: Typed| {
            if coerce == Coerce::Text {
                t.text()
            } else {
                t
            }
        };
        let mut typed = Typed::computed(
            Expr::Case {
                operand: op.map(boxed),
                whens: conds
                    .into_iter()
                    .zip(results)
                    .map(|(c, r)| (c.expr, as_result(r).expr))
                    .collect(),
                otherwise: other.map(|o| boxed(as_result(o))),
                collation,
                coerce,
            },
            ty,
            nullable,
        );
        typed.coer = coer;
        typed.ty.decimals = decimals;
        Ok(typed)
    }
}

impl Compiler<'_, '_> {
    /// `@name := expr`: the value of `expr`, stored in the user variable.
    fn assign_user_var(
        &mut self,
        l: &ast::Expr,
        r: &ast::Expr,
        whole: &ast::Expr,
    ) -> Result<Typed, SqlError> {
        let name = match l {
            ast::Expr::Identifier(id)
                if id.quote_style.is_none()
                    && id.value.starts_with('@')
                    && !id.value.starts_with("@@") =>
            {
                id.value[1..]
                    .trim_matches(['`', '\'', '"'])
                    .to_ascii_lowercase()
            }
            _ => {
                return Err(SqlError::Syntax {
                    near: whole.to_string(),
                    line: 1,
                })
            }
        };
        let value = self.expr(r)?;
        let (source, nullable) = (value.ty.ty.clone(), value.ty.nullable);
        // The value as the variable keeps it (a DECIMAL keeps its scale, a
        // string its length).
        let kind = super::super::uservar::UserVarKind::of(&source);
        let (ty, coer) = match (&source, kind) {
            (ColumnType::Decimal { .. }, _) => (source.clone(), 5),
            (
                ColumnType::Char { .. } | ColumnType::Varchar { .. } | ColumnType::Text { .. },
                super::super::uservar::UserVarKind::Text(_),
            ) => (source.clone(), 2),
            _ => super::super::uservar::static_type(kind, &Value::Null),
        };
        Ok(Typed {
            coer,
            ..Typed::computed(
                Expr::AssignUserVar {
                    name,
                    value: boxed(value),
                    ty: Box::new(source),
                },
                ty,
                nullable,
            )
        })
    }
}

/// A YEAR column compared with a date or datetime literal compares with the
/// literal's year as an integer (MariaDB's convert_const_to_int: the
/// constant stored into the YEAR column, where it fits).
/// [`Expr::UuidKey`] of an operand; a literal that is a UUID is converted
/// once, here (one that is none stays, to warn where it is compared).
pub(super) fn uuid_key(t: Typed) -> Expr {
    if let Expr::Literal(Value::Str(text)) = &t.expr {
        if let Some(r) = larch_engine::record::uuid::record_from_text(text.as_bytes()) {
            return Expr::Literal(Value::Bytes(r.to_vec()));
        }
    }
    Expr::UuidKey(boxed(t))
}

/// A UUID compares with a UUID or a string (NULL too); with a number or a
/// temporal value it is MariaDB's error 4078.
pub(super) fn uuid_comparable(a: &ColumnType, b: &ColumnType, op: CmpOp) -> Result<(), SqlError> {
    let name = |t: &ColumnType| -> Option<&'static str> {
        Some(match t {
            ColumnType::Uuid
            | ColumnType::Char { .. }
            | ColumnType::Varchar { .. }
            | ColumnType::Text { .. }
            | ColumnType::Binary { .. }
            | ColumnType::Varbinary { .. }
            | ColumnType::Blob { .. }
            | ColumnType::Enum { .. }
            | ColumnType::Set { .. } => return None,
            ColumnType::Int { bytes: 8, .. } => "bigint",
            ColumnType::Int { .. } => "int",
            ColumnType::Decimal { .. } => "decimal",
            ColumnType::Float => "float",
            ColumnType::Double => "double",
            ColumnType::Date => "date",
            ColumnType::Time { .. } => "time",
            ColumnType::Datetime { .. } => "datetime",
            ColumnType::Timestamp { .. } => "timestamp",
            ColumnType::Year => "year",
            ColumnType::Bit { .. } => "bit",
        })
    };
    let bad = name(a).is_some() || name(b).is_some();
    if !bad {
        return Ok(());
    }
    let shown = |t: &ColumnType| name(t).unwrap_or("uuid");
    let op = op.symbol();
    Err(SqlError::new(
        code::ILLEGAL_PARAMETER_DATA_TYPES,
        format!(
            "Illegal parameter data types {} and {} for operation '{op}'",
            shown(a),
            shown(b)
        ),
    ))
}

fn year_constant(column: &Typed, other: &mut Typed) {
    if !matches!(column.expr, Expr::Column(_)) || column.ty.ty != ColumnType::Year {
        return;
    }
    let year = match &other.expr {
        Expr::Literal(Value::Date(d)) => d.year,
        Expr::Literal(Value::Datetime(dt)) => dt.date.year,
        _ => return,
    };
    if (1901..=2155).contains(&year) {
        other.expr = Expr::Literal(Value::Year(year));
        other.ty.ty = ColumnType::Year;
    }
}

/// `decimals` for a FLOAT or DOUBLE result type, else `None`.
pub(super) fn real_decimals(ty: &ColumnType, decimals: Option<u8>) -> Option<u8> {
    matches!(ty, ColumnType::Float | ColumnType::Double)
        .then_some(decimals)
        .flatten()
}

/// `t` with its fixed FLOAT/DOUBLE decimals set.
pub(super) fn with_decimals(decimals: Option<u8>, mut t: Typed) -> Typed {
    t.ty.decimals = decimals;
    t
}

/// The larger fixed decimals of `args` (each a number with fixed
/// decimals, else `None`), as MariaDB counts those of a FLOAT or DOUBLE
/// that mixes them (`IFNULL`, `CASE`, `+`): a NULL literal counts none.
pub(super) fn max_decimals<'t>(args: impl IntoIterator<Item = &'t Typed>) -> Option<u8> {
    let mut most = None;
    for a in args {
        if a.null_lit {
            continue;
        }
        let d = a.ty.number_decimals()?;
        most = Some(most.map_or(d, |m: u8| m.max(d)));
    }
    most
}

/// The fixed decimals of `a op b` as a FLOAT or DOUBLE: the larger of the
/// operands', 4 more for a division (`div_precision_increment`).
fn arith_decimals(op: ArithOp, a: &Typed, b: &Typed) -> Option<u8> {
    let d = max_decimals([a, b]);
    match op {
        ArithOp::Div => crate::eval::more_decimals(d, 4),
        _ => d,
    }
}

/// The decimals a comparison of `a` and `b` as doubles tolerates
/// (MariaDB's `set_cmp_func_real`): when one side is a FLOAT or DOUBLE,
/// both sides have fixed decimals and one with them is no constant, the
/// larger of their decimals; `None` for an exact comparison.
fn compared_fixed_decimals(a: &Typed, b: &Typed) -> Option<u8> {
    let real = |t: &Typed| matches!(t.ty.ty, ColumnType::Float | ColumnType::Double);
    if !real(a) && !real(b) {
        return None;
    }
    let (da, db) = (a.ty.number_decimals()?, b.ty.number_decimals()?);
    let constant = |t: &Typed| matches!(t.expr, Expr::Literal(_));
    (!constant(a) || !constant(b)).then_some(da.max(db))
}
