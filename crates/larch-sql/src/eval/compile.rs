//! From sqlparser's AST to [`Expr`]: name resolution, literal typing, MySQL's
//! static result types and the collation each comparison uses.
//!
//! Collations follow MySQL's coercibility: an explicit `COLLATE` (0) beats a
//! column (2), which beats a literal or function result (4); binary strings
//! beat everything. Aggregate functions and subqueries are the planner's
//! business: compiling one is an error (1111 / 1235) so that the planner must
//! replace them first.

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Decimal, Value};
use sqlparser::ast::{self, BinaryOperator as B, DataType, UnaryOperator as U};

use super::func::lookup;
use super::func_time::IntervalUnit;
use super::{ArithOp, CastTarget, CmpOp, Coerce, Compiled, Expr, ExprType, Func, VarScope};
use crate::error::{code, SqlError};
use crate::value::temporal::{parse_datetime, parse_time};

mod branch_types;
mod calls;
mod clock_types;
mod collation_mix;
mod extra_types;
mod function_types;
mod lengths;
mod literals;
mod number_arguments;
mod operators;
mod types;

pub(crate) use branch_types::set_operation_type;
use branch_types::*;
use collation_mix::check_collation_mix;
use function_types::*;
use lengths::*;
use literals::{default_collation_name, number_literal};
use number_arguments::{compared_as_numbers, number_argument};
use types::*;

/// Resolves a (possibly qualified) column name to its row position and type.
pub type Resolver<'a> = dyn Fn(&[ast::Ident]) -> Option<(usize, ExprType)> + 'a;

/// Compilation settings.
#[derive(Debug, Clone)]
pub struct CompileOptions {
    /// Collation of string literals (`collation_connection`).
    pub collation: Collation,
    /// Clause named in 1054 errors ("SELECT", "WHERE", ...).
    pub clause: String,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            collation: Collation::Utf8mb4GeneralCi,
            clause: "SELECT".into(),
        }
    }
}

/// Compiles an expression; `?` parameters are numbered from 0.
pub fn compile(
    e: &ast::Expr,
    resolve: &Resolver<'_>,
    opts: &CompileOptions,
) -> Result<Compiled, SqlError> {
    let mut next = 0;
    compile_with_params(e, resolve, opts, &mut next)
}

/// Compiles an expression whose `?` parameters are numbered from `*next_param`
/// (advanced past them), for statements with several expressions.
pub fn compile_with_params(
    e: &ast::Expr,
    resolve: &Resolver<'_>,
    opts: &CompileOptions,
    next_param: &mut usize,
) -> Result<Compiled, SqlError> {
    let mut c = Compiler {
        resolve,
        opts,
        next_param,
        depth: 0,
    };
    let mut t = c.expr(e)?;
    if matches!(opts.clause.as_str(), "WHERE" | "ON" | "HAVING" | "CHECK") {
        // A condition is a truth value: an ENUM or SET is its number.
        t = t.numeric();
    }
    Ok(Compiled {
        expr: t.expr,
        ty: t.ty,
    })
}

/// Compiles an expression as [`compile`] does, with its coercibility
/// (MariaDB's: 0 for an explicit COLLATE, 2 for a column, 4 for a
/// literal, 5 for a number, 6 for NULL).
pub fn compile_with_coercibility(
    e: &ast::Expr,
    resolve: &Resolver<'_>,
    opts: &CompileOptions,
) -> Result<(Compiled, u8), SqlError> {
    let mut next = 0;
    let mut c = Compiler {
        resolve,
        opts,
        next_param: &mut next,
        depth: 0,
    };
    let t = c.expr(e)?;
    Ok((
        Compiled {
            expr: t.expr,
            ty: t.ty,
        },
        t.coer,
    ))
}

/// The collation in which a column of type `column` compares with an
/// operand of type `other` and coercibility `other_coer` (MariaDB's
/// collation aggregation). An index over the column serves the comparison
/// only when this is the column's own collation.
pub fn comparison_collation(column: &ColumnType, other: &ExprType, other_coer: u8) -> Collation {
    let operand = |ty: &ExprType, coer: u8| Typed {
        coer,
        ..Typed::computed(Expr::Literal(Value::Null), ty.ty.clone(), true)
    };
    let column = operand(
        &ExprType {
            ty: column.clone(),
            nullable: true,
            decimals: None,
        },
        2,
    );
    pick_collation([&column, &operand(other, other_coer)], Collation::Binary)
}

struct Compiler<'a, 'b> {
    resolve: &'a Resolver<'b>,
    opts: &'a CompileOptions,
    next_param: &'a mut usize,
    depth: usize,
}

fn lit(v: Value, ty: ColumnType, coer: u8) -> Typed {
    let nullable = v.is_null();
    Typed {
        expr: Expr::Literal(v),
        ty: ExprType {
            ty,
            nullable,
            decimals: None,
        },
        coer,
        hex: None,
        null_lit: nullable,
        len: None,
    }
}

/// The compiled pattern of a LIKE whose pattern and escape are literals.
fn constant_like(
    pattern: &Expr,
    escape: Option<&Expr>,
    collation: Collation,
) -> Option<super::ConstantLike> {
    let esc = match escape {
        None => super::like::escape_char(None),
        Some(Expr::Literal(e)) => super::like::escape_char(Some(&super::convert::to_str(e))),
        Some(_) => return None,
    };
    match pattern {
        Expr::Literal(Value::Str(text)) => Some(super::ConstantLike(std::sync::Arc::new(
            super::LikePattern::new(text, esc, collation),
        ))),
        _ => None,
    }
}

fn boxed(t: Typed) -> Box<Expr> {
    Box::new(t.expr)
}

fn arity_ok(name: &str, n: usize, min: usize, max: usize) -> Result<(), SqlError> {
    if n < min || n > max {
        return Err(SqlError::wrong_param_count(name));
    }
    Ok(())
}

impl Compiler<'_, '_> {
    fn expr(&mut self, e: &ast::Expr) -> Result<Typed, SqlError> {
        self.depth += 1;
        if self.depth > crate::parse::depth::MAX_EXPRESSION_DEPTH {
            return Err(crate::parse::depth::stack_overrun());
        }
        crate::stack::check()?;
        let r = self.expr_inner(e);
        self.depth -= 1;
        r
    }

    fn string_lit(&self, s: String) -> Typed {
        let len = s.chars().count() as u32;
        lit(
            Value::Str(s),
            ColumnType::Varchar {
                max_len: len,
                collation: self.opts.collation,
            },
            4,
        )
    }

    fn expr_inner(&mut self, e: &ast::Expr) -> Result<Typed, SqlError> {
        use ast::Expr as A;
        Ok(match e {
            A::Nested(x) => self.expr(x)?,
            A::Value(v) => self.value(&v.value)?,
            A::Identifier(id) => self.ident(std::slice::from_ref(id))?,
            A::CompoundIdentifier(ids) => self.ident(ids)?,
            A::UnaryOp { op, expr } => self.unary(*op, expr, e)?,
            A::BinaryOp { left, op, right } => self.binary(left, op, right, e)?,
            A::IsNull(x) | A::IsNotNull(x) => {
                let negated = matches!(e, A::IsNotNull(_));
                bool_typed(
                    Expr::IsNull {
                        arg: boxed(self.expr(x)?),
                        negated,
                    },
                    false,
                )
            }
            A::IsTrue(x) | A::IsNotTrue(x) | A::IsFalse(x) | A::IsNotFalse(x) => {
                let value = matches!(e, A::IsTrue(_) | A::IsNotTrue(_));
                let negated = matches!(e, A::IsNotTrue(_) | A::IsNotFalse(_));
                bool_typed(
                    Expr::IsTruth {
                        arg: boxed(self.expr(x)?.numeric()),
                        value,
                        negated,
                    },
                    false,
                )
            }
            A::IsUnknown(x) | A::IsNotUnknown(x) => {
                let negated = matches!(e, A::IsNotUnknown(_));
                bool_typed(
                    Expr::IsNull {
                        arg: boxed(self.expr(x)?),
                        negated,
                    },
                    false,
                )
            }
            A::IsDistinctFrom(l, r) | A::IsNotDistinctFrom(l, r) => {
                let c = self.compare(CmpOp::NullSafeEq, l, r)?;
                if matches!(e, A::IsDistinctFrom(..)) {
                    bool_typed(Expr::Not(Box::new(c.expr)), false)
                } else {
                    c
                }
            }
            A::InList {
                expr,
                list,
                negated,
            } => {
                if let ast::Expr::Tuple(row) = expr.as_ref() {
                    return self.row_in_list(expr, row.len(), list, *negated);
                }
                let arg = self.expr(expr)?;
                let mut items = list
                    .iter()
                    .map(|x| self.expr(x))
                    .collect::<Result<Vec<_>, _>>()?;
                if items.len() == 1 && (arg.is_json_extract() || items[0].is_json_extract()) {
                    // `x IN (y)` is `x = y` in MariaDB, which reads a
                    // JSON_EXTRACT there as a comparison does.
                    let eq = self.compare(CmpOp::Eq, expr, &list[0])?;
                    return Ok(if *negated {
                        let nullable = eq.ty.nullable;
                        bool_typed(Expr::Not(Box::new(eq.expr)), nullable)
                    } else {
                        eq
                    });
                }
                let mut arg = arg;
                for t in std::iter::once(&mut arg).chain(items.iter_mut()) {
                    t.read_fuzzy();
                }
                if compared_as_numbers(std::iter::once(&arg).chain(items.iter())) {
                    // Compared as numbers, as `=` does (see `compare`).
                    arg = arg.numeric();
                    items = items.into_iter().map(Typed::numeric).collect();
                }
                let uuid = std::iter::once(&arg)
                    .chain(items.iter())
                    .any(|t| matches!(t.ty.ty, ColumnType::Uuid));
                if uuid {
                    // UUIDs compare in UUID order (see `compare`).
                    for t in &items {
                        operators::uuid_comparable(&arg.ty.ty, &t.ty.ty, CmpOp::Eq)?;
                    }
                    let key = |t: Typed| {
                        let (ty, coer, len) = (t.ty.clone(), t.coer, t.len);
                        Typed {
                            expr: operators::uuid_key(t),
                            ty,
                            coer,
                            hex: None,
                            null_lit: false,
                            len,
                        }
                    };
                    arg = key(arg);
                    items = items.into_iter().map(key).collect();
                }
                if !uuid {
                    check_collation_mix(std::iter::once(&arg).chain(items.iter()), "in", true)?;
                }
                let collation = if uuid {
                    Collation::Binary
                } else {
                    pick_collation(
                        std::iter::once(&arg).chain(items.iter()),
                        self.opts.collation,
                    )
                };
                let nullable = arg.ty.nullable || items.iter().any(|t| t.ty.nullable);
                bool_typed(
                    Expr::InList {
                        arg: boxed(arg),
                        list: items.into_iter().map(|t| t.expr).collect(),
                        negated: *negated,
                        collation,
                    },
                    nullable,
                )
            }
            A::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let (mut a, mut l, mut h) = (self.expr(expr)?, self.expr(low)?, self.expr(high)?);
                for t in [&mut a, &mut l, &mut h] {
                    t.read_fuzzy();
                }
                if compared_as_numbers([&a, &l, &h]) {
                    (a, l, h) = (a.numeric(), l.numeric(), h.numeric());
                }
                check_collation_mix([&a, &l, &h], "between", true)?;
                let collation = pick_collation([&a, &l, &h], self.opts.collation);
                let nullable = a.ty.nullable || l.ty.nullable || h.ty.nullable;
                bool_typed(
                    Expr::Between {
                        arg: boxed(a),
                        low: boxed(l),
                        high: boxed(h),
                        negated: *negated,
                        collation,
                    },
                    nullable,
                )
            }
            A::Like {
                negated,
                expr,
                pattern,
                escape_char,
                any: false,
            }
            | A::ILike {
                negated,
                expr,
                pattern,
                escape_char,
                any: false,
            } => {
                let (a, p) = (self.expr(expr)?, self.expr(pattern)?);
                if !matches!(e, A::ILike { .. }) {
                    check_collation_mix([&a, &p], "like", true)?;
                }
                let mut collation = pick_collation([&a, &p], self.opts.collation);
                if matches!(e, A::ILike { .. }) {
                    collation = Collation::Utf8mb4GeneralCi;
                }
                let escape = match escape_char {
                    Some(x) => Some(boxed(self.expr(x)?)),
                    None => None,
                };
                let nullable = a.ty.nullable || p.ty.nullable;
                let pattern = p.text();
                let constant = constant_like(&pattern.expr, escape.as_deref(), collation);
                bool_typed(
                    Expr::Like {
                        arg: boxed(a.text()),
                        pattern: boxed(pattern),
                        escape,
                        negated: *negated,
                        collation,
                        constant,
                    },
                    nullable,
                )
            }
            A::Case {
                operand,
                conditions,
                else_result,
                ..
            } => self.case(operand.as_deref(), conditions, else_result.as_deref())?,
            A::Cast {
                expr, data_type, ..
            } => self.cast(expr, data_type, None)?,
            A::Convert {
                expr,
                data_type: Some(dt),
                charset: None,
                ..
            } => self.cast(expr, dt, None)?,
            A::Convert {
                expr,
                data_type: Some(dt),
                charset: Some(cs),
                ..
            } if matches!(
                dt,
                DataType::Char(_) | DataType::Character(_) | DataType::Varchar(_)
            ) =>
            {
                self.cast(expr, dt, Some(charset_collation(cs)?))?
            }
            A::Convert {
                expr,
                data_type: None,
                charset: Some(cs),
                ..
            } => {
                let collation = charset_collation(cs)?;
                let arg = self.expr(expr)?;
                let nullable = arg.ty.nullable;
                Typed {
                    expr: Expr::Cast {
                        arg: boxed(arg),
                        target: CastTarget::Char {
                            len: None,
                            collation,
                        },
                    },
                    ty: ExprType {
                        ty: ColumnType::Varchar {
                            max_len: 255,
                            collation,
                        },
                        nullable,
                        decimals: None,
                    },
                    coer: 2,
                    hex: None,
                    null_lit: false,
                    len: None,
                }
            }
            A::Collate { expr, collation } => {
                let name = collation.to_string();
                let coll =
                    Collation::from_name(name.trim_matches(['\'', '`', '"'])).ok_or_else(|| {
                        SqlError::new(
                            code::UNKNOWN_COLLATION,
                            format!("Unknown collation: '{name}'"),
                        )
                    })?;
                let mut t = self.expr(expr)?;
                if let Some(c) = t.ty.ty.collation() {
                    if c.charset() != coll.charset() && c != Collation::Binary {
                        return Err(SqlError::new(
                            1253,
                            format!(
                                "COLLATION '{}' is not valid for CHARACTER SET '{}'",
                                coll.name(),
                                c.charset().name()
                            ),
                        ));
                    }
                }
                if t.ty.ty.collation().is_none() {
                    // A number or temporal with COLLATE is its text (MariaDB
                    // compares `0 COLLATE utf8mb4_general_ci < 'a'` as strings).
                    let text = t.text();
                    t = Typed {
                        expr: Expr::Cast {
                            arg: Box::new(text.expr),
                            target: CastTarget::Char {
                                len: None,
                                collation: coll,
                            },
                        },
                        ..text
                    };
                }
                t.ty.ty = with_collation(&t.ty.ty, coll);
                t.coer = 0;
                t
            }
            A::TypedString(ts) => self.typed_string(&ts.data_type, &ts.value.value)?,
            A::Prefixed { prefix, value } => {
                let inner = self.expr(value)?;
                let p = prefix.value.to_ascii_lowercase();
                let v = match &inner.expr {
                    Expr::Literal(v) => v.clone(),
                    _ => {
                        return Err(SqlError::not_supported(
                            "character set introducer on a non-literal",
                        ))
                    }
                };
                if p == "_binary" {
                    let b = super::convert::to_bytes(&v);
                    let n = b.len() as u32;
                    lit(Value::Bytes(b), ColumnType::Varbinary { max_len: n }, 4)
                } else {
                    let coll = Collation::from_name(&default_collation_name(&p[1..])).ok_or_else(
                        || {
                            SqlError::new(
                                code::UNKNOWN_CHARACTER_SET,
                                format!("Unknown character set: '{}'", &p[1..]),
                            )
                        },
                    )?;
                    let s = super::convert::to_str(&v);
                    let n = s.chars().count() as u32;
                    // An introducer's literal is as coercible as any
                    // literal (4), as in MariaDB.
                    lit(
                        Value::Str(s),
                        ColumnType::Varchar {
                            max_len: n,
                            collation: coll,
                        },
                        4,
                    )
                }
            }
            A::Function(f) => self.function(f)?,
            A::Position { expr, r#in } => {
                let args = vec![self.expr(expr)?, self.expr(r#in)?];
                make_call(Func::Locate, args, self.opts.collation)
            }
            A::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                let Some(from) = substring_from else {
                    return Err(SqlError::wrong_param_count("substring"));
                };
                let mut args = vec![self.expr(expr)?, self.expr(from)?];
                if let Some(n) = substring_for {
                    args.push(self.expr(n)?);
                }
                make_call(Func::Substring, args, self.opts.collation)
            }
            A::Trim {
                expr,
                trim_where,
                trim_what,
                trim_characters,
            } => {
                let kind = match trim_where {
                    Some(ast::TrimWhereField::Leading) => 1,
                    Some(ast::TrimWhereField::Trailing) => 2,
                    _ => 0,
                };
                let mut args = vec![self.expr(expr)?];
                if let Some(w) = trim_what {
                    args.push(self.expr(w)?);
                } else if let Some(c) = trim_characters.as_ref().and_then(|c| c.first()) {
                    args.push(self.expr(c)?);
                }
                make_call(Func::Trim(kind), args, self.opts.collation)
            }
            A::Ceil { expr, .. } => {
                let args = vec![self.expr(expr)?];
                make_call(Func::Ceil, args, self.opts.collation)
            }
            A::Floor { expr, .. } => {
                let args = vec![self.expr(expr)?];
                make_call(Func::Floor, args, self.opts.collation)
            }
            A::Extract { field, expr, .. } => {
                let f = match field {
                    ast::DateTimeField::Year => Func::Year,
                    ast::DateTimeField::Month => Func::Month,
                    ast::DateTimeField::Day => Func::Day,
                    ast::DateTimeField::Hour => Func::Hour,
                    ast::DateTimeField::Minute => Func::Minute,
                    ast::DateTimeField::Second => Func::Second,
                    // The same as QUARTER(x) and MICROSECOND(x).
                    ast::DateTimeField::Quarter => Func::More(super::func_more::More::Quarter),
                    ast::DateTimeField::Microsecond | ast::DateTimeField::Microseconds => {
                        Func::More(super::func_more::More::Microsecond)
                    }
                    other => return Err(SqlError::not_supported(&format!("EXTRACT({other})"))),
                };
                let args = vec![self.expr(expr)?];
                make_call(f, args, self.opts.collation)
            }
            A::Tuple(_) => return Err(SqlError::operand_columns(1)),
            A::Subquery(_) | A::Exists { .. } | A::InSubquery { .. } => {
                return Err(SqlError::not_supported("subqueries in this context"))
            }
            A::Interval(_) => {
                return Err(SqlError::Syntax {
                    near: e.to_string(),
                    line: 1,
                })
            }
            A::RLike {
                negated,
                expr,
                pattern,
                ..
            } => {
                let args = vec![self.expr(expr)?, self.expr(pattern)?];
                let c = make_call(
                    Func::More(super::func_more::More::RegexpLike),
                    args,
                    self.opts.collation,
                );
                if *negated {
                    let nullable = c.ty.nullable;
                    bool_typed(Expr::Not(Box::new(c.expr)), nullable)
                } else {
                    c
                }
            }
            other => return Err(SqlError::not_supported(&other.to_string())),
        })
    }
}

/// The default collation of the character set `cs` names (1115 when
/// Larch has none).
fn charset_collation(cs: &ast::ObjectName) -> Result<Collation, SqlError> {
    let name = cs.to_string();
    Collation::from_name(&default_collation_name(&name)).ok_or_else(|| {
        SqlError::new(
            code::UNKNOWN_CHARACTER_SET,
            format!("Unknown character set: '{name}'"),
        )
    })
}

/// A function call with its static type.
fn make_call(func: Func, args: Vec<Typed>, default: Collation) -> Typed {
    // A JSON function embeds the results of other JSON functions as JSON.
    let func = match func {
        Func::Json(mut call) => {
            for (i, a) in args.iter().enumerate().take(64) {
                if matches!(&a.expr, Expr::Call { func: Func::Json(inner), .. } if inner.func.returns_json())
                {
                    call.json_args |= 1 << i;
                }
            }
            Func::Json(call)
        }
        other => other,
    };
    // Arguments read as numbers are numbers before the result's type is
    // worked out (`FROM_UNIXTIME(0x41)` has no fractional digits, the
    // length of `LPAD('a', 0x3, 'b')` is no binary string's).
    let args: Vec<Typed> = args
        .into_iter()
        .enumerate()
        .map(|(i, a)| {
            if number_argument(func, i) {
                a.numeric()
            } else {
                a
            }
        })
        .collect();
    // Compared arguments: a hex literal among numbers is a number.
    let compared = match func {
        Func::Greatest | Func::Least | Func::MathStr(super::func_math::MathStr::Field) => {
            0..args.len()
        }
        _ => 0..0,
    };
    let args: Vec<Typed> = if !compared.is_empty() && compared_as_numbers(&args[compared.clone()]) {
        args.into_iter()
            .enumerate()
            .map(|(i, a)| {
                if compared.contains(&i) {
                    a.hex_as_number()
                } else {
                    a
                }
            })
            .collect()
    } else if func == Func::NullIf && compared_as_numbers(&args) {
        // NULLIF compares a hex literal beside a number as its number but
        // returns its first argument as it is (`NULLIF(0x41, 65)` is NULL,
        // `NULLIF(0x41, 66)` is 'A'): the number compared goes third.
        let number = args[0].hex.map(|n| {
            let ty = ColumnType::Int {
                bytes: 8,
                unsigned: true,
            };
            Typed::computed(Expr::Literal(Value::UInt(n)), ty, false)
        });
        let mut args: Vec<Typed> = args
            .into_iter()
            .enumerate()
            .map(|(i, a)| if i == 1 { a.hex_as_number() } else { a })
            .collect();
        args.extend(number);
        args
    } else {
        args
    };
    // COALESCE(NULL, 0x41) is the literal itself: a number where one is
    // read (`COALESCE(0x41) + 0` is 65).
    let hex = match func {
        Func::Coalesce | Func::IfNull => {
            let mut real = args.iter().filter(|a| !a.null_lit);
            match (real.next(), real.next()) {
                (Some(a), None) => a.hex,
                _ => None,
            }
        }
        _ => None,
    };
    let (ty, coerce, nullable) = func_type(func, &args, default);
    let decimals = operators::real_decimals(&ty, call_decimals(func, &args));
    let len = func_len(func, &args, &ty);
    let collation = pick_collation(args.iter(), default);
    let mut args = args;
    let needs_digits = matches!(
        func,
        Func::UnixTimestamp | Func::Clock(super::func_clock::Clock::TimeToSec)
    );
    if needs_digits && args.len() == 1 {
        // The fractional digits of the result are the argument's (a hidden
        // second argument, which no user call can have).
        let digits = super::compile::types::time_precision(&args[0]);
        args.push(Typed::computed(
            Expr::Literal(Value::Int(i64::from(digits))),
            ColumnType::Int {
                bytes: 8,
                unsigned: false,
            },
            false,
        ));
    }
    let mut coer = if ty.collation().is_some() { 4 } else { 5 };
    let text_args = matches!(
        func,
        Func::Concat
            | Func::ConcatWs
            | Func::Length
            | Func::CharLength
            | Func::Upper
            | Func::Lower
            | Func::Substring
            | Func::Left
            | Func::Right
            | Func::Trim(_)
            | Func::Replace
            | Func::Lpad
            | Func::Rpad
            | Func::Repeat
            | Func::Reverse
            | Func::Locate
            | Func::Instr
            | Func::Hex
            | Func::Ascii
            | Func::Strcmp
            | Func::Md5
    ) || (matches!(
        func,
        Func::If | Func::IfNull | Func::Coalesce | Func::Greatest | Func::Least
    ) && coerce == Coerce::Text);
    let args = args
        .into_iter()
        .enumerate()
        .map(|(i, a)| {
            coer = coer.min(derived_coercibility(&ty, std::iter::once(&a)));
            if number_argument(func, i) {
                a.expr
            } else if text_args
                && !(func == Func::If && i == 0)
                // HEX of a BIT is the hex of its number (MariaDB reads
                // an INT_RESULT argument with val_int()).
                && !(func == Func::Hex && matches!(a.ty.ty, ColumnType::Bit { .. }))
            {
                a.text().expr
            } else {
                a.expr
            }
        })
        .collect();
    let mut typed = Typed {
        coer,
        len,
        hex,
        ..Typed::computed(
            Expr::Call {
                func,
                args,
                coerce,
                collation,
            },
            ty,
            nullable,
        )
    };
    typed.ty.decimals = decimals;
    typed
}

/// The fixed decimals of a function's FLOAT or DOUBLE result, as MariaDB
/// counts them: ROUND and TRUNCATE show as many as their constant second
/// argument asks (0 without one or below 0; any number when it is no
/// constant); ABS and NULLIF those of their first argument; IF, IFNULL,
/// COALESCE, GREATEST and LEAST the most of their results'. Other
/// functions (SQRT, POW, ...) show their shortest form.
fn call_decimals(func: Func, args: &[Typed]) -> Option<u8> {
    match func {
        Func::Round | Func::Truncate
            if args.first().is_some_and(|a| {
                matches!(
                    a.ty.ty,
                    ColumnType::Time { .. }
                        | ColumnType::Datetime { .. }
                        | ColumnType::Timestamp { .. }
                )
            }) =>
        {
            None
        }
        Func::Round | Func::Truncate => match args.get(1).map(|a| &a.expr) {
            None => Some(0),
            Some(Expr::Literal(Value::Int(n))) => {
                Some(u8::try_from((*n).max(0)).unwrap_or(u8::MAX))
                    .filter(|d| *d <= super::MAX_FIXED_DECIMALS)
            }
            Some(Expr::Literal(Value::UInt(n))) => u8::try_from(*n)
                .ok()
                .filter(|d| *d <= super::MAX_FIXED_DECIMALS),
            _ => None,
        },
        Func::Abs | Func::NullIf => args.first().and_then(|a| a.ty.number_decimals()),
        Func::IfNull | Func::Coalesce | Func::Greatest | Func::Least => {
            operators::max_decimals(args)
        }
        Func::If => operators::max_decimals(args.iter().skip(1)),
        _ => None,
    }
}
