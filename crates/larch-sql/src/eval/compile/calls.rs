//! Function calls, CAST/CONVERT and interval arithmetic.

use super::*;

impl Compiler<'_, '_> {
    /// `CAST(x AS dt)`; `charset` is the collation of `CHARACTER SET cs`
    /// after a CHAR type.
    pub(super) fn cast(
        &mut self,
        x: &ast::Expr,
        dt: &DataType,
        charset: Option<Collation>,
    ) -> Result<Typed, SqlError> {
        let arg = self.expr(x)?;
        let collation = charset.unwrap_or_else(|| arg_collation(&arg, self.opts.collation));
        let (target, ty) = cast_target(dt, collation, &x.to_string())?;
        let nullable = arg.ty.nullable
            || !matches!(
                target,
                CastTarget::Signed | CastTarget::Unsigned | CastTarget::Double
            );
        let arg = if matches!(
            target,
            CastTarget::Signed
                | CastTarget::Unsigned
                | CastTarget::Decimal { .. }
                | CastTarget::Double
                | CastTarget::FixedDouble { .. }
        ) {
            arg.numeric()
        } else if matches!(target, CastTarget::Char { .. } | CastTarget::Binary { .. }) {
            arg.text()
        } else {
            arg
        };
        let len = integer_cast_len(&target, &arg);
        let ty = match (len, &ty) {
            (Some(len), ColumnType::Int { unsigned, .. }) => int_of_len(len, *unsigned),
            _ => ty,
        };
        let decimals = match &target {
            CastTarget::FixedDouble { d, .. } => Some(*d),
            _ => None,
        };
        Ok(super::operators::with_decimals(
            decimals,
            Typed {
                len,
                coer: if matches!(target, CastTarget::Char { .. } | CastTarget::Binary { .. }) {
                    2
                } else {
                    5
                },
                ..Typed::computed(
                    Expr::Cast {
                        arg: boxed(arg),
                        target,
                    },
                    ty,
                    nullable,
                )
            },
        ))
    }

    pub(super) fn date_add(
        &mut self,
        date: &ast::Expr,
        iv: &ast::Interval,
        subtract: bool,
    ) -> Result<Typed, SqlError> {
        let first = iv
            .leading_field
            .as_ref()
            .map(|f| f.to_string())
            .unwrap_or_default();
        let last = iv.last_field.as_ref().map(|f| f.to_string());
        let unit =
            IntervalUnit::from_fields(&first, last.as_deref()).ok_or_else(|| SqlError::Syntax {
                near: format!("{first} {}", last.unwrap_or_default()),
                line: 1,
            })?;
        self.date_add_unit(date, &iv.value, unit, subtract)
    }

    /// `date + INTERVAL amount unit` (or minus).
    pub(super) fn date_add_unit(
        &mut self,
        date: &ast::Expr,
        amount: &ast::Expr,
        unit: IntervalUnit,
        subtract: bool,
    ) -> Result<Typed, SqlError> {
        let d = self.expr(date)?;
        let amount = self.expr(amount)?;
        // A single unit's amount is a number (`INTERVAL 0x41 DAY` is 65
        // days); a compound unit's is text ('1 2' DAY_HOUR).
        let amount = if unit.is_single() {
            amount.numeric()
        } else {
            amount
        };
        // MariaDB's interval_dec(): the fractional digits the interval adds.
        let interval_dec = match unit {
            IntervalUnit::Microsecond
            | IntervalUnit::SecondMicrosecond
            | IntervalUnit::MinuteMicrosecond
            | IntervalUnit::HourMicrosecond
            | IntervalUnit::DayMicrosecond => 6,
            IntervalUnit::Second if !amount.null_lit => match &amount.ty.ty {
                ColumnType::Int { .. } | ColumnType::Year => 0,
                ColumnType::Decimal { scale, .. } => (*scale).min(6),
                _ => 6,
            },
            _ => 0,
        };
        let months = unit.is_weeks_or_longer();
        // A temporal argument gives a temporal result; any other (a
        // string, a number, NULL) gives the result as text, a CHAR of a
        // datetime's width in the connection's character set.
        let (ty, as_text) = match &d.ty.ty {
            ColumnType::Datetime { fsp } | ColumnType::Timestamp { fsp } => (
                ColumnType::Datetime {
                    fsp: (*fsp).max(interval_dec),
                },
                None,
            ),
            ColumnType::Date if !unit.has_time() => (ColumnType::Date, None),
            ColumnType::Date => (ColumnType::Datetime { fsp: interval_dec }, None),
            ColumnType::Time { fsp } if !months => (
                ColumnType::Time {
                    fsp: (*fsp).max(interval_dec),
                },
                None,
            ),
            ColumnType::Time { fsp } => (
                ColumnType::Datetime {
                    fsp: (*fsp).max(interval_dec),
                },
                None,
            ),
            _ => {
                let arg_dec = if d.null_lit { 0 } else { time_precision(&d) };
                let dec = arg_dec.max(interval_dec);
                let len = 19 + if dec > 0 { u32::from(dec) + 1 } else { 0 };
                (
                    ColumnType::Char {
                        len,
                        collation: self.opts.collation,
                    },
                    Some(dec),
                )
            }
        };
        Ok(Typed::computed(
            Expr::DateAdd {
                date: boxed(d),
                amount: boxed(amount),
                unit,
                subtract,
                as_text,
            },
            ty,
            true,
        ))
    }

    pub(super) fn function(&mut self, f: &ast::Function) -> Result<Typed, SqlError> {
        if f.over.is_some() {
            // The select list's and ORDER BY's window calls are hidden
            // columns by now (`exec::select::window`); any other is here.
            return Err(SqlError::new(
                4015,
                "Window function is allowed only in SELECT list and ORDER BY clause",
            ));
        }
        let name = f.name.to_string().to_ascii_lowercase();
        if f.name.0.len() == 1
            && f.name.0[0].as_ident().map(|i| i.value.as_str())
                == Some(super::super::CORRELATED_SUBQUERY_FUNCTION)
        {
            return self.correlated_subquery(f);
        }
        let mut args: Vec<&ast::Expr> = Vec::new();
        if let ast::FunctionArguments::List(list) = &f.args {
            if list.duplicate_treatment.is_some() || !list.clauses.is_empty() {
                return Err(SqlError::new(
                    crate::error::code::INVALID_GROUP_FUNC_USE,
                    "Invalid use of group function",
                ));
            }
            for a in &list.args {
                match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => args.push(e),
                    _ if is_aggregate(&name) => {
                        return Err(SqlError::new(
                            crate::error::code::INVALID_GROUP_FUNC_USE,
                            "Invalid use of group function",
                        ))
                    }
                    other => return Err(SqlError::not_supported(&other.to_string())),
                }
            }
        } else if let ast::FunctionArguments::Subquery(_) = &f.args {
            return Err(SqlError::not_supported("subqueries in this context"));
        }
        if is_aggregate(&name) {
            return Err(SqlError::new(
                crate::error::code::INVALID_GROUP_FUNC_USE,
                "Invalid use of group function",
            ));
        }
        match name.as_str() {
            "date_add" | "adddate" | "date_sub" | "subdate" => {
                arity_ok(&name, args.len(), 2, 2)?;
                let subtract = name.contains("sub");
                return match args[1] {
                    ast::Expr::Interval(iv) => self.date_add(args[0], iv, subtract),
                    days => {
                        let iv = ast::Interval {
                            value: Box::new(days.clone()),
                            leading_field: Some(ast::DateTimeField::Day),
                            leading_precision: None,
                            last_field: None,
                            fractional_seconds_precision: None,
                        };
                        self.date_add(args[0], &iv, subtract)
                    }
                };
            }
            "timestampdiff" | "timestampadd" => {
                arity_ok(&name, args.len(), 3, 3)?;
                return self.timestamp_unit_call(&name, &args);
            }
            // A keyword first: any other count is a syntax error.
            "get_format" if args.len() != 2 => {
                return Err(SqlError::Syntax {
                    near: ")".into(),
                    line: 1,
                });
            }
            "get_format" => {
                return self.get_format_call(&args);
            }
            // The character set and collation of the argument's type
            // ("binary" for numbers, binary strings and NULL).
            "charset" | "collation" => {
                arity_ok(&name, args.len(), 1, 1)?;
                let a = self.expr(args[0])?;
                let c = if a.null_lit {
                    None
                } else {
                    text_collation(&a.ty.ty)
                };
                let text = match (name.as_str(), c) {
                    (_, None) => "binary",
                    ("charset", Some(c)) => c.charset().name(),
                    (_, Some(c)) => c.name(),
                };
                return Ok(Typed::computed(
                    Expr::Literal(Value::Str(text.to_owned())),
                    ColumnType::Varchar {
                        max_len: 64,
                        collation: Collation::Utf8mb4GeneralCi,
                    },
                    false,
                ));
            }
            // MySQL's coercibility of the argument: 0 explicit (COLLATE),
            // 2 a column or user variable, 3 a system constant, 4 a
            // literal, 5 no string, 6 NULL.
            "coercibility" => {
                arity_ok(&name, args.len(), 1, 1)?;
                let a = self.expr(args[0])?;
                let n = match &a.expr {
                    _ if a.null_lit => 6,
                    Expr::UserVar { .. } => a.coer,
                    _ if a.ty.ty.collation().is_none() && !a.ty.ty.is_binary_string() => 5,
                    Expr::Call {
                        func: Func::Database | Func::Version | Func::User | Func::CurrentUser,
                        ..
                    } => 3,
                    _ => a.coer,
                };
                return Ok(Typed::computed(
                    Expr::Literal(Value::Int(i64::from(n))),
                    ColumnType::Int {
                        bytes: 4,
                        unsigned: false,
                    },
                    false,
                ));
            }
            "mod" => {
                arity_ok(&name, args.len(), 2, 2)?;
                let (a, b) = (self.expr(args[0])?, self.expr(args[1])?);
                let ty = arith_type(ArithOp::Mod, &a.ty.ty, &b.ty.ty);
                let decimals =
                    super::operators::real_decimals(&ty, super::operators::max_decimals([&a, &b]));
                return Ok(super::operators::with_decimals(
                    decimals,
                    Typed::computed(
                        Expr::Arith {
                            op: ArithOp::Mod,
                            left: boxed(a.numeric()),
                            right: boxed(b.numeric()),
                            text: format!("{f}"),
                        },
                        ty,
                        true,
                    ),
                ));
            }
            // VALUES(col) is ON DUPLICATE KEY UPDATE's (which replaces it
            // before compiling): anywhere else MariaDB's grammar has no
            // such call. Its other name VALUE(col) is NULL there.
            "values" => {
                return Err(SqlError::Syntax {
                    near: crate::parse::near_text(&f.to_string()),
                    line: 1,
                })
            }
            "value" if args.len() == 1 => {
                let a = self.expr(args[0])?;
                return Ok(Typed::computed(Expr::Literal(Value::Null), a.ty.ty, true));
            }
            _ => {}
        }
        let Some((func, min, max)) = lookup(&name) else {
            return self.stored_function(f, args);
        };
        arity_ok(&name, args.len(), min, max)?;
        let func = match func {
            Func::Json(mut call) => {
                for (i, a) in args.iter().enumerate().take(64) {
                    if is_truth_value(a) {
                        call.bool_args |= 1 << i;
                    }
                }
                Func::Json(call)
            }
            other => other,
        };
        let typed = args
            .into_iter()
            .map(|a| self.expr(a))
            .collect::<Result<Vec<_>, _>>()?;
        // IF's condition is no operand of its result; NULLIF, STRCMP,
        // GREATEST and LEAST compare their operands.
        let operands = typed.iter().skip(usize::from(func == Func::If));
        let compared = matches!(
            func,
            Func::NullIf | Func::Strcmp | Func::Greatest | Func::Least
        );
        super::check_collation_mix(operands, &name, compared)?;
        Ok(make_call(func, typed, self.opts.collation))
    }

    /// TIMESTAMPDIFF(unit, a, b) and TIMESTAMPADD(unit, n, d), whose unit
    /// is a keyword (MICROSECOND .. YEAR, optionally `SQL_TSI_`-prefixed):
    /// TIMESTAMPADD is `d + INTERVAL n unit`; TIMESTAMPDIFF passes the unit
    /// to `func_clock` as a first integer argument.
    fn timestamp_unit_call(&mut self, name: &str, args: &[&ast::Expr]) -> Result<Typed, SqlError> {
        use super::super::func_clock::{unit_index, Clock, UNITS};
        let word = match args[0] {
            ast::Expr::Identifier(id) => id.value.clone(),
            other => other.to_string(),
        };
        let Some(index) = unit_index(&word) else {
            return Err(SqlError::Syntax {
                near: format!("{word}, ..."),
                line: 1,
            });
        };
        if name == "timestampadd" {
            let unit =
                IntervalUnit::from_fields(UNITS[index], None).ok_or_else(|| SqlError::Syntax {
                    near: word.clone(),
                    line: 1,
                })?;
            return self.date_add_unit(args[2], args[1], unit, false);
        }
        let unit = Typed::computed(
            Expr::Literal(Value::Int(index as i64)),
            ColumnType::Int {
                bytes: 4,
                unsigned: false,
            },
            false,
        );
        let a = self.expr(args[1])?;
        let b = self.expr(args[2])?;
        Ok(make_call(
            Func::Clock(Clock::TimestampDiff),
            vec![unit, a, b],
            self.opts.collation,
        ))
    }

    /// GET_FORMAT(DATE | TIME | DATETIME | TIMESTAMP, standard): the
    /// keyword becomes a first integer argument (any other word is a
    /// syntax error, as in MariaDB).
    fn get_format_call(&mut self, args: &[&ast::Expr]) -> Result<Typed, SqlError> {
        use super::super::func_extra::Extra;
        use super::super::func_tz::FORMAT_KINDS;
        let word = match args[0] {
            ast::Expr::Identifier(id) if id.quote_style.is_none() => id.value.clone(),
            other => other.to_string(),
        };
        let upper = word.to_ascii_uppercase();
        let Some(index) = FORMAT_KINDS.iter().position(|k| *k == upper) else {
            return Err(SqlError::Syntax {
                near: format!("{word}, ..."),
                line: 1,
            });
        };
        let kind = Typed::computed(
            Expr::Literal(Value::Int(index as i64)),
            ColumnType::Int {
                bytes: 4,
                unsigned: false,
            },
            false,
        );
        let standard = self.expr(args[1])?;
        Ok(make_call(
            Func::Extra(Extra::GetFormat),
            vec![kind, standard],
            self.opts.collation,
        ))
    }

    /// A function that is no built-in: a stored function of the database
    /// the statement runs in (or the one named), typed by its RETURNS;
    /// 1305 when there is none.
    fn stored_function(
        &mut self,
        f: &ast::Function,
        args: Vec<&ast::Expr>,
    ) -> Result<Typed, SqlError> {
        let parts: Vec<String> = f
            .name
            .0
            .iter()
            .filter_map(|p| p.as_ident())
            .map(|i| i.value.clone())
            .collect();
        let (schema, name) = match parts.as_slice() {
            [n] => (None, n.clone()),
            [d, n] => (Some(d.clone()), n.clone()),
            _ => return Err(SqlError::unknown_function(&f.name.to_string())),
        };
        let Some(ty) = crate::exec::routine::stored_function_type(schema.as_deref(), &name) else {
            let shown = match &schema {
                Some(d) => format!("{d}.{name}"),
                None => name.clone(),
            };
            return Err(SqlError::unknown_function(&shown));
        };
        let args = args
            .into_iter()
            .map(|a| self.expr(a).map(|t| t.expr))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Typed::computed(
            Expr::StoredCall { schema, name, args },
            ty,
            true,
        ))
    }

    /// A correlated subquery as the planner passes it (see
    /// [`super::super::CORRELATED_SUBQUERY_FUNCTION`]).
    fn correlated_subquery(&mut self, f: &ast::Function) -> Result<Typed, SqlError> {
        use super::super::{CorrelatedSubquery, SubqueryKind};
        let bad = || SqlError::new(code::UNKNOWN, "malformed correlated subquery");
        let ast::FunctionArguments::List(list) = &f.args else {
            return Err(bad());
        };
        let args: Vec<&ast::Expr> = list
            .args
            .iter()
            .map(|a| match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => Ok(e),
                _ => Err(bad()),
            })
            .collect::<Result<_, _>>()?;
        let (kind, id, template, rest) = match args.as_slice() {
            [ast::Expr::Value(k), ast::Expr::Value(q), rest @ ..] => match (&k.value, &q.value) {
                (ast::Value::SingleQuotedString(k), ast::Value::SingleQuotedString(q)) => {
                    let (kind, id) = k.split_once(':').ok_or_else(bad)?;
                    let id = id.parse::<u64>().map_err(|_| bad())?;
                    (
                        kind,
                        id,
                        crate::parse::parse_query(q).ok_or_else(bad)?,
                        rest,
                    )
                }
                _ => return Err(bad()),
            },
            _ => return Err(bad()),
        };
        let (kind, probe, ty, outer) = match kind {
            "exists" | "not exists" => (
                SubqueryKind::Exists {
                    negated: kind == "not exists",
                },
                Vec::new(),
                ExprType {
                    ty: ColumnType::Int {
                        bytes: 4,
                        unsigned: false,
                    },
                    nullable: false,
                    decimals: None,
                },
                rest,
            ),
            "in" | "not in" => {
                let [probe, outer @ ..] = rest else {
                    return Err(bad());
                };
                let parts: Vec<&ast::Expr> = match probe {
                    ast::Expr::Tuple(row) => row.iter().collect(),
                    one => vec![one],
                };
                let mut probe = Vec::with_capacity(parts.len());
                for p in parts {
                    let p = self.expr(p)?;
                    let collation = p.ty.ty.collation().unwrap_or(self.opts.collation);
                    probe.push((p.expr, collation));
                }
                (
                    SubqueryKind::In {
                        negated: kind == "not in",
                    },
                    probe,
                    ExprType {
                        ty: ColumnType::Int {
                            bytes: 4,
                            unsigned: false,
                        },
                        nullable: true,
                        decimals: None,
                    },
                    outer,
                )
            }
            "scalar" => {
                let [sample, outer @ ..] = rest else {
                    return Err(bad());
                };
                let sample = self.expr(sample)?;
                (
                    SubqueryKind::Scalar,
                    Vec::new(),
                    ExprType {
                        ty: sample.ty.ty,
                        nullable: true,
                        decimals: None,
                    },
                    outer,
                )
            }
            _ => return Err(bad()),
        };
        let outer = outer
            .iter()
            .map(|e| self.expr(e).map(|t| t.expr))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Typed::computed(
            Expr::Subquery(Box::new(CorrelatedSubquery {
                kind,
                id,
                template,
                probe,
                outer,
            })),
            ty.ty,
            ty.nullable,
        ))
    }
}

/// The length of `CAST(arg AS SIGNED|UNSIGNED)` where MariaDB keeps the
/// argument's: an integer's, or a DECIMAL's integer digits and sign. A
/// signed argument made UNSIGNED may become any BIGINT UNSIGNED value
/// (`CAST(-1 AS UNSIGNED)`), unless it is a literal that is not negative.
fn integer_cast_len(target: &CastTarget, arg: &Typed) -> Option<u32> {
    if arg.null_lit {
        // CAST(NULL AS SIGNED) is an INT in MariaDB.
        return matches!(target, CastTarget::Signed | CastTarget::Unsigned).then_some(1);
    }
    let signed_arg = match &arg.ty.ty {
        ColumnType::Int { unsigned, .. } => !*unsigned,
        ColumnType::Decimal { .. } => true,
        _ => return None,
    };
    let len = match &arg.ty.ty {
        ColumnType::Decimal { .. } => int_digits(arg) + 1,
        _ => char_len(arg),
    };
    match target {
        CastTarget::Signed => Some(len.min(20)),
        CastTarget::Unsigned => {
            let not_negative = matches!(&arg.expr, Expr::Literal(Value::Int(n)) if *n >= 0);
            (!signed_arg || not_negative).then_some(len.min(20))
        }
        _ => None,
    }
}

/// True when `e` is a truth value by its form: a comparison, AND, OR, XOR,
/// NOT, IS [NOT] NULL/TRUE/FALSE, IN, BETWEEN, LIKE, REGEXP, EXISTS, TRUE
/// or FALSE (MariaDB's boolean items, which JSON functions embed as `true`
/// and `false`).
fn is_truth_value(e: &ast::Expr) -> bool {
    use ast::BinaryOperator as B;
    match e {
        ast::Expr::Nested(inner) => is_truth_value(inner),
        ast::Expr::BinaryOp { op, .. } => matches!(
            op,
            B::Eq
                | B::NotEq
                | B::Lt
                | B::LtEq
                | B::Gt
                | B::GtEq
                | B::Spaceship
                | B::And
                | B::Or
                | B::Xor
        ),
        ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Not,
            ..
        } => true,
        ast::Expr::Value(v) => matches!(v.value, ast::Value::Boolean(_)),
        ast::Expr::IsNull(_)
        | ast::Expr::IsNotNull(_)
        | ast::Expr::IsTrue(_)
        | ast::Expr::IsNotTrue(_)
        | ast::Expr::IsFalse(_)
        | ast::Expr::IsNotFalse(_)
        | ast::Expr::IsUnknown(_)
        | ast::Expr::IsNotUnknown(_)
        | ast::Expr::InList { .. }
        | ast::Expr::InSubquery { .. }
        | ast::Expr::Between { .. }
        | ast::Expr::Like { .. }
        | ast::Expr::ILike { .. }
        | ast::Expr::RLike { .. }
        | ast::Expr::SimilarTo { .. }
        | ast::Expr::Exists { .. } => true,
        _ => false,
    }
}
