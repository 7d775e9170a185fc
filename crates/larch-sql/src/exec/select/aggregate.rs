//! Aggregates: COUNT, SUM, AVG, MIN, MAX, GROUP_CONCAT, BIT_AND/OR/XOR,
//! JSON_ARRAYAGG and JSON_OBJECTAGG (`super::json_aggregate`), with
//! DISTINCT, over groups of rows.
//!
//! The planner replaces each aggregate call in the select list, HAVING and
//! ORDER BY by a reference to a hidden column (`rewrite`); a group's output
//! row is the group's first source row followed by the aggregate results, so
//! non-aggregated columns read the first row's values (MariaDB's behaviour
//! without ONLY_FULL_GROUP_BY).
//!
//! Result types follow MySQL: COUNT is BIGINT; SUM of integers or decimals is
//! DECIMAL, of anything else DOUBLE; AVG is DECIMAL with 4 more digits of
//! scale (DOUBLE for approximate inputs); MIN/MAX keep the argument's type.

use std::cmp::Ordering;
use std::collections::HashSet;
use std::ops::ControlFlow;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Decimal, LobKind, Value};
use sqlparser::ast;

use super::json_aggregate::{compare_keys, JsonItems};
use crate::error::SqlError;
use crate::eval::convert::Num;
use crate::eval::{self, decimal, Compiled, EvalContext, ExprType};

/// Prefix of the hidden column names that stand for aggregate results
/// (starts with [`crate::parse::INTERNAL_NAME_MARK`]: no statement can
/// spell it).
pub(crate) const AGG_PREFIX: &str = "\u{1}agg_";

/// Aggregate functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AggKind {
    Count,
    CountStar,
    Sum,
    Avg,
    Min,
    Max,
    GroupConcat,
    BitAnd,
    BitOr,
    BitXor,
    JsonArrayAgg,
    JsonObjectAgg,
    /// STD, STDDEV, STDDEV_POP.
    StdPop,
    /// STDDEV_SAMP.
    StdSamp,
    /// VARIANCE, VAR_POP.
    VarPop,
    /// VAR_SAMP.
    VarSamp,
}

impl AggKind {
    /// True for the aggregates of exactly one argument.
    fn one_argument(self) -> bool {
        !matches!(
            self,
            AggKind::Count
                | AggKind::CountStar
                | AggKind::GroupConcat
                | AggKind::JsonArrayAgg
                | AggKind::JsonObjectAgg
        )
    }
}

/// One aggregate call found in the statement.
#[derive(Debug, Clone)]
pub(crate) struct AggCall {
    pub kind: AggKind,
    pub distinct: bool,
    pub args: Vec<ast::Expr>,
    pub separator: String,
    /// ORDER BY directions (descending?) of a JSON aggregate; its keys are
    /// the arguments after the value arguments.
    pub order: Vec<bool>,
    /// The collation of each ORDER BY key (filled when the arguments are
    /// compiled; a key without one compares in the value's collation).
    pub order_collations: Vec<Collation>,
    /// LIMIT of a JSON aggregate.
    pub limit: Option<u64>,
    /// The value argument comes from a JSON function (embedded as JSON).
    pub json_value: bool,
}

fn kind_of(name: &str) -> Option<AggKind> {
    Some(match name.to_ascii_uppercase().as_str() {
        "COUNT" => AggKind::Count,
        "SUM" => AggKind::Sum,
        "AVG" => AggKind::Avg,
        "MIN" => AggKind::Min,
        "MAX" => AggKind::Max,
        "GROUP_CONCAT" => AggKind::GroupConcat,
        "BIT_AND" => AggKind::BitAnd,
        "BIT_OR" => AggKind::BitOr,
        "BIT_XOR" => AggKind::BitXor,
        "JSON_ARRAYAGG" => AggKind::JsonArrayAgg,
        "JSON_OBJECTAGG" => AggKind::JsonObjectAgg,
        "STD" | "STDDEV" | "STDDEV_POP" => AggKind::StdPop,
        "STDDEV_SAMP" => AggKind::StdSamp,
        "VARIANCE" | "VAR_POP" => AggKind::VarPop,
        "VAR_SAMP" => AggKind::VarSamp,
        _ => return None,
    })
}

/// Replaces aggregate calls in `e` by hidden column references, appending
/// them to `calls`.
pub(crate) fn rewrite(e: &mut ast::Expr, calls: &mut Vec<AggCall>) -> Result<(), SqlError> {
    let mut err = None;
    let _ = ast::visit_expressions_mut(e, |x| {
        if let ast::Expr::Function(f) = x {
            // A call with OVER is a window function (`window`).
            if f.over.is_some() {
                return ControlFlow::Continue(());
            }
            match call_of(f) {
                Ok(Some(call)) => {
                    let n = calls.len();
                    calls.push(call);
                    *x = ast::Expr::Identifier(ast::Ident::with_quote(
                        '`',
                        format!("{AGG_PREFIX}{n}"),
                    ));
                }
                Ok(None) => {}
                Err(e) => {
                    err = Some(e);
                    return ControlFlow::Break(());
                }
            }
        }
        ControlFlow::<()>::Continue(())
    });
    err.map_or(Ok(()), Err)
}

/// The aggregate call `f` makes (`None` when `f` is no aggregate).
pub(crate) fn call_of(f: &ast::Function) -> Result<Option<AggCall>, SqlError> {
    let name = f.name.to_string();
    let Some(mut kind) = kind_of(&name) else {
        return Ok(None);
    };
    let (mut distinct, mut args, mut separator) = (false, Vec::new(), ",".to_owned());
    if let ast::FunctionArguments::List(list) = &f.args {
        distinct = matches!(
            list.duplicate_treatment,
            Some(ast::DuplicateTreatment::Distinct)
        );
        for a in &list.args {
            match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => args.push(e.clone()),
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard)
                    if kind == AggKind::Count && !distinct =>
                {
                    kind = AggKind::CountStar
                }
                other => {
                    return Err(SqlError::Syntax {
                        near: crate::parse::near_text(&other.to_string()),
                        line: 1,
                    })
                }
            }
        }
        for c in &list.clauses {
            if let ast::FunctionArgumentClause::Separator(v) = c {
                if let ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) =
                    &v.value
                {
                    separator = s.clone();
                }
            }
        }
    }
    if args.is_empty() && kind != AggKind::CountStar {
        return Err(SqlError::wrong_param_count(&name));
    }
    if kind.one_argument() && args.len() > 1 {
        return Err(SqlError::wrong_param_count(&name));
    }
    let mut call = AggCall {
        kind,
        distinct,
        args,
        separator,
        order: Vec::new(),
        order_collations: Vec::new(),
        limit: None,
        json_value: false,
    };
    match kind {
        AggKind::JsonArrayAgg | AggKind::JsonObjectAgg => {
            super::aggregate_clauses::json_clauses(&name, f, &mut call)?
        }
        AggKind::GroupConcat => super::aggregate_clauses::order_and_limit(f, &mut call, true)?,
        _ => {}
    }
    Ok(Some(call))
}

/// True when `f` is an aggregate function call (not a window function).
pub(crate) fn is_aggregate_call(f: &ast::Function) -> bool {
    f.over.is_none() && kind_of(&f.name.to_string()).is_some()
}

/// True when `e` calls an aggregate function (not as a window function).
pub(crate) fn has_aggregate(e: &ast::Expr) -> bool {
    ast::visit_expressions(e, |x| {
        if let ast::Expr::Function(f) = x {
            if f.over.is_none() && kind_of(&f.name.to_string()).is_some() {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    })
    .is_break()
}

/// The result type of an aggregate over arguments of type `arg`
/// (`arg_is_column`: the argument is a column, whose type MIN and MAX
/// keep; over a computed integer they are BIGINT, as in MariaDB).
pub(crate) fn result_type(kind: AggKind, arg: Option<&ExprType>, arg_is_column: bool) -> ExprType {
    let int = |unsigned| ColumnType::Int { bytes: 8, unsigned };
    let nullable = !matches!(kind, AggKind::Count | AggKind::CountStar);
    let ty = match (kind, arg.map(|a| &a.ty)) {
        (AggKind::Count | AggKind::CountStar, _) => int(false),
        (AggKind::BitAnd | AggKind::BitOr | AggKind::BitXor, _) => int(true),
        (AggKind::Sum, Some(ColumnType::Int { .. })) => ColumnType::Decimal {
            precision: 41,
            scale: 0,
        },
        (AggKind::Sum, Some(ColumnType::Decimal { scale, .. })) => ColumnType::Decimal {
            precision: 65,
            scale: *scale,
        },
        (AggKind::Avg, Some(ColumnType::Int { .. })) => ColumnType::Decimal {
            precision: 14,
            scale: 4,
        },
        (AggKind::Avg, Some(ColumnType::Decimal { scale, .. })) => ColumnType::Decimal {
            precision: 65,
            scale: (*scale + 4).min(30),
        },
        (AggKind::Sum | AggKind::Avg, Some(t)) if eval::convert::number_digits(t).is_some() => {
            let (digits, scale) = eval::convert::number_digits(t).unwrap_or((0, 0));
            if kind == AggKind::Sum {
                ColumnType::Decimal {
                    precision: (digits + 22).min(65),
                    scale,
                }
            } else {
                ColumnType::Decimal {
                    precision: (digits + 4).min(65),
                    scale: scale + 4,
                }
            }
        }
        (AggKind::Sum | AggKind::Avg, _) => ColumnType::Double,
        (AggKind::Min | AggKind::Max, Some(ColumnType::Bit { .. })) => int(true),
        (AggKind::Min | AggKind::Max, Some(ColumnType::Int { unsigned, .. })) if !arg_is_column => {
            int(*unsigned)
        }
        (AggKind::Min | AggKind::Max, Some(t)) => t.clone(),
        (AggKind::GroupConcat, _) => ColumnType::Text {
            kind: LobKind::Text,
            collation: Collation::Utf8mb4GeneralCi,
        },
        (AggKind::JsonArrayAgg | AggKind::JsonObjectAgg, _) => ColumnType::Text {
            kind: LobKind::Medium,
            collation: Collation::Utf8mb4GeneralCi,
        },
        _ => ColumnType::Double,
    };
    let decimals = match (&ty, arg) {
        (ColumnType::Float | ColumnType::Double, Some(a)) => match kind {
            AggKind::Sum | AggKind::Min | AggKind::Max => a.number_decimals(),
            AggKind::Avg
            | AggKind::StdPop
            | AggKind::StdSamp
            | AggKind::VarPop
            | AggKind::VarSamp => eval::more_decimals(a.number_decimals(), 4),
            _ => None,
        },
        _ => None,
    };
    ExprType {
        ty,
        nullable,
        decimals,
    }
}

/// Running state of one aggregate in one group.
#[derive(Debug, Clone)]
pub(crate) struct Accumulator {
    count: u64,
    int_sum: i128,
    dec_sum: Option<Decimal>,
    dbl_sum: f64,
    exact: bool,
    best: Value,
    bits: u64,
    /// GROUP_CONCAT's values as text, each with its sort keys (the ORDER BY
    /// values, or with DISTINCT alone the values; none otherwise).
    concat: Vec<(Vec<Value>, String)>,
    seen: Option<HashSet<Vec<u8>>>,
    json: Option<Box<JsonItems>>,
    /// Standard deviations and variances: the running mean and sum of
    /// squared differences (MariaDB's recurrence, so the doubles agree).
    mean: f64,
    squares: f64,
}

impl Accumulator {
    pub fn new(call: &AggCall) -> Accumulator {
        Accumulator {
            count: 0,
            int_sum: 0,
            dec_sum: None,
            dbl_sum: 0.0,
            exact: true,
            best: Value::Null,
            bits: if call.kind == AggKind::BitAnd {
                u64::MAX
            } else {
                0
            },
            concat: Vec::new(),
            seen: call.distinct.then(HashSet::new),
            json: matches!(call.kind, AggKind::JsonArrayAgg | AggKind::JsonObjectAgg)
                .then(Box::default),
            mean: 0.0,
            squares: 0.0,
        }
    }

    /// Adds one row's argument values.
    pub fn add(
        &mut self,
        call: &AggCall,
        args: &[Value],
        coll: Collation,
        ctx: &mut EvalContext<'_>,
    ) -> Result<(), SqlError> {
        if call.kind == AggKind::CountStar {
            self.count += 1;
            return Ok(());
        }
        if let Some(items) = &mut self.json {
            return items.add(call, args, coll, ctx);
        }
        // The values, without GROUP_CONCAT's ORDER BY keys after them.
        let values = &args[..args.len().saturating_sub(call.order.len())];
        if values.iter().any(Value::is_null) {
            return Ok(());
        }
        if let Some(seen) = &mut self.seen {
            if !seen.insert(group_key(values, coll)) {
                return Ok(());
            }
        }
        self.count += 1;
        let v = &args[0];
        match call.kind {
            AggKind::Sum | AggKind::Avg => match v {
                Value::Int(i) => self.int_sum += i128::from(*i),
                Value::UInt(u) => self.int_sum += i128::from(*u),
                Value::Decimal(d) => {
                    self.dec_sum = Some(match &self.dec_sum {
                        None => d.clone(),
                        Some(s) => decimal::add(s, d)
                            .ok_or_else(|| SqlError::out_of_range("DECIMAL", "SUM"))?,
                    })
                }
                // Dates, times, YEAR, ENUM, SET and BIT add up as their
                // numbers (20240229 for 2024-02-29), exactly.
                Value::Date(_)
                | Value::Time(_)
                | Value::Datetime(_)
                | Value::Timestamp(_)
                | Value::Year(_)
                | Value::Enum(_)
                | Value::Set(_)
                | Value::Bit(_) => match eval::convert::to_num(v, ctx) {
                    Num::Int(i) => self.int_sum += i128::from(i),
                    Num::UInt(u) => self.int_sum += i128::from(u),
                    Num::Dec(d) => {
                        self.dec_sum = Some(match &self.dec_sum {
                            None => d,
                            Some(s) => decimal::add(s, &d)
                                .ok_or_else(|| SqlError::out_of_range("DECIMAL", "SUM"))?,
                        })
                    }
                    Num::Dbl(f) => {
                        self.exact = false;
                        self.dbl_sum += f;
                    }
                },
                other => {
                    self.exact = false;
                    self.dbl_sum += eval_f64(other, ctx);
                }
            },
            AggKind::StdPop | AggKind::StdSamp | AggKind::VarPop | AggKind::VarSamp => {
                let x = eval_f64(v, ctx);
                if self.count == 1 {
                    self.mean = x;
                    self.squares = 0.0;
                } else {
                    let before = self.mean;
                    let diff = x - before;
                    self.mean = before + diff / self.count as f64;
                    self.squares += diff * (x - self.mean);
                }
            }
            AggKind::Min | AggKind::Max => {
                let better = match eval::compare(v, &self.best, coll, ctx) {
                    None => true,
                    Some(o) => {
                        (o == Ordering::Less) == (call.kind == AggKind::Min) && o != Ordering::Equal
                    }
                };
                if better {
                    self.best = v.clone();
                }
            }
            AggKind::GroupConcat => {
                let text = values
                    .iter()
                    .map(crate::value::store::value_to_string)
                    .collect();
                let keys = if !call.order.is_empty() {
                    args[values.len()..].to_vec()
                } else if call.distinct {
                    values.to_vec()
                } else {
                    Vec::new()
                };
                self.concat.push((keys, text));
            }
            AggKind::BitAnd | AggKind::BitOr | AggKind::BitXor => {
                let n = match v {
                    Value::Int(i) => *i as u64,
                    Value::UInt(u) => *u,
                    // A temporal value loses its fraction.
                    Value::Date(_) | Value::Time(_) | Value::Datetime(_) | Value::Timestamp(_) => {
                        match eval::convert::to_num(v, ctx) {
                            Num::Dec(d) => eval::bit_operand(&Num::Dec(decimal::cut(&d, 0, false))),
                            n => eval::bit_operand(&n),
                        }
                    }
                    other => eval::bit_operand(&eval::convert::to_num(other, ctx)),
                };
                match call.kind {
                    AggKind::BitAnd => self.bits &= n,
                    AggKind::BitOr => self.bits |= n,
                    _ => self.bits ^= n,
                }
            }
            AggKind::Count | AggKind::CountStar => {}
            AggKind::JsonArrayAgg | AggKind::JsonObjectAgg => {}
        }
        Ok(())
    }

    /// The aggregate's value for the group.
    pub fn finish(&self, call: &AggCall, ty: &ExprType) -> Value {
        match call.kind {
            AggKind::Count | AggKind::CountStar => Value::Int(self.count as i64),
            AggKind::BitAnd | AggKind::BitOr | AggKind::BitXor => Value::UInt(self.bits),
            // MIN/MAX of a BIT is a number (BIGINT UNSIGNED), as in MariaDB.
            AggKind::Min | AggKind::Max => match &self.best {
                Value::Bit(bits) => Value::UInt(*bits),
                best => best.clone(),
            },
            AggKind::JsonArrayAgg | AggKind::JsonObjectAgg => {
                self.json.as_ref().map_or(Value::Null, |j| j.finish(call))
            }
            // Groups::finish calls `concat`.
            AggKind::GroupConcat => Value::Null,
            AggKind::Sum | AggKind::Avg if self.count == 0 => Value::Null,
            AggKind::StdPop | AggKind::VarPop if self.count == 0 => Value::Null,
            AggKind::StdSamp | AggKind::VarSamp if self.count < 2 => Value::Null,
            AggKind::StdPop | AggKind::StdSamp | AggKind::VarPop | AggKind::VarSamp => {
                let sample = matches!(call.kind, AggKind::StdSamp | AggKind::VarSamp);
                let variance = self.squares / (self.count - u64::from(sample)) as f64;
                Value::Double(match call.kind {
                    AggKind::StdPop | AggKind::StdSamp => variance.sqrt(),
                    _ => variance,
                })
            }
            AggKind::Sum | AggKind::Avg => {
                let exact = self.exact && matches!(ty.ty, ColumnType::Decimal { .. });
                if !exact {
                    let total = self.dbl_sum
                        + self.int_sum as f64
                        + self.dec_sum.as_ref().map_or(0.0, decimal::to_f64);
                    return Value::Double(if call.kind == AggKind::Avg {
                        total / self.count as f64
                    } else {
                        total
                    });
                }
                let mut total = Decimal::from_i128(self.int_sum, 0);
                if let Some(d) = &self.dec_sum {
                    total = decimal::add(&total, d).unwrap_or(total);
                }
                let scale = match ty.ty {
                    ColumnType::Decimal { scale, .. } => scale,
                    _ => 0,
                };
                if call.kind == AggKind::Sum {
                    return Value::Decimal(total.rescale(scale));
                }
                // Divided at MariaDB's internal scale, then rounded to the
                // shown one.
                let n = Decimal::from_i128(self.count as i128, 0);
                let inside = decimal::div_internal_scale(total.scale()).max(scale);
                decimal::div(&total, &n, inside)
                    .map_or(Value::Null, |d| Value::Decimal(d.rescale(scale)))
            }
        }
    }

    /// GROUP_CONCAT's value for the group: the values in ORDER BY order
    /// (NULL keys first ascending), or with DISTINCT alone sorted by the
    /// values, else as they came; the first LIMIT of them, joined by the
    /// separator and cut to `max_len` bytes. `written` counts the values
    /// the call has written over the statement's groups, the row number
    /// of MariaDB's warning 1260 for a cut value.
    pub(super) fn concat(
        &mut self,
        call: &AggCall,
        coll: Collation,
        max_len: usize,
        written: &mut u64,
        ctx: &mut EvalContext<'_>,
    ) -> Value {
        if self.count == 0 {
            return Value::Null;
        }
        if !call.order.is_empty() || call.distinct {
            self.concat
                .sort_by(|a, b| compare_keys(&a.0, &b.0, call, coll, ctx));
        }
        let limit = call
            .limit
            .map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
        let mut out = String::new();
        for (i, (_, text)) in self.concat.iter().take(limit).enumerate() {
            if i > 0 {
                out.push_str(&call.separator);
            }
            out.push_str(text);
            *written += 1;
            if out.len() > max_len {
                let mut end = max_len;
                while !out.is_char_boundary(end) {
                    end -= 1;
                }
                out.truncate(end);
                ctx.warn(1260, format!("Row {written} was cut by GROUP_CONCAT()"));
                break;
            }
        }
        Value::Str(out)
    }
}

fn eval_f64(v: &Value, _ctx: &mut EvalContext<'_>) -> f64 {
    match v {
        Value::Double(d) => *d,
        Value::Float(f) => f64::from(*f),
        Value::Int(i) => *i as f64,
        Value::UInt(u) => *u as f64,
        Value::Decimal(d) => decimal::to_f64(d),
        other => {
            let s = crate::value::store::value_to_string(other);
            crate::value::number::prefix_to_f64(&crate::value::number::parse_number_prefix(&s))
        }
    }
}

/// Bytes that are equal for values SQL considers equal (strings by the
/// collation's weights), for GROUP BY, DISTINCT and COUNT(DISTINCT).
pub(crate) fn group_key(values: &[Value], coll: Collation) -> Vec<u8> {
    let mut out = Vec::new();
    group_key_into(values, coll, &mut out);
    out
}

/// Appends the [`group_key`] of `values` to `out`.
pub(crate) fn group_key_into(values: &[Value], coll: Collation, out: &mut Vec<u8>) {
    for v in values {
        value_key_into(v, coll, out);
    }
}

/// Appends the key of `values` to `out`, each value's strings compared by
/// its own column's collation (`colls[i]`; binary where none is given):
/// GROUP BY, DISTINCT and UNION keep 'a' and 'A' apart in a case-sensitive
/// column, as MariaDB does.
pub(crate) fn column_key_into(values: &[Value], colls: &[Collation], out: &mut Vec<u8>) {
    for (i, v) in values.iter().enumerate() {
        value_key_into(v, colls.get(i).copied().unwrap_or(Collation::Binary), out);
    }
}

/// The collations a row of `columns` compares by (binary for values that
/// are not strings).
pub(crate) fn column_collations(columns: &[crate::result::ResultColumn]) -> Vec<Collation> {
    columns
        .iter()
        .map(|c| c.ty.collation().unwrap_or(Collation::Binary))
        .collect()
}

pub(super) fn value_key_into(v: &Value, coll: Collation, out: &mut Vec<u8>) {
    {
        match v {
            Value::Null => out.push(0),
            Value::Str(s) => {
                // Tag, then the weights' length before them (patched in).
                // Under PAD SPACE trailing spaces count for nothing: 'a' and
                // 'a ' are one group, as they compare equal.
                out.push(1);
                let at = out.len();
                out.extend_from_slice(&[0; 4]);
                let s = if coll.is_pad_space() {
                    s.trim_end_matches(' ')
                } else {
                    s
                };
                coll.weights(s, out);
                let len = (out.len() - at - 4) as u32;
                out[at..at + 4].copy_from_slice(&len.to_be_bytes());
            }
            Value::Int(i) => {
                out.push(2);
                out.extend_from_slice(&i128::from(*i).to_be_bytes());
            }
            Value::UInt(u) => {
                out.push(2);
                out.extend_from_slice(&i128::from(*u).to_be_bytes());
            }
            // Equal numbers are one key whatever their scale: 0 and
            // 0.000000, 1.50 and 1.5.
            Value::Decimal(d) => {
                // The coefficient has no leading zeros: pad it to the scale.
                let scale = usize::from(d.scale());
                let mut digits = vec![0u8; scale.saturating_sub(d.coefficient().len())];
                digits.extend_from_slice(d.coefficient());
                let int_len = digits.len() - scale;
                let frac = &digits[int_len..];
                let frac = &frac[..frac.iter().rposition(|&x| x != 0).map_or(0, |p| p + 1)];
                let int = &digits[..int_len];
                if frac.is_empty() && int.len() <= 37 {
                    let m = int.iter().fold(0i128, |a, &x| a * 10 + i128::from(x));
                    out.push(2);
                    let m = if d.is_negative() { -m } else { m };
                    out.extend_from_slice(&m.to_be_bytes());
                } else {
                    out.push(4);
                    out.push(u8::from(
                        d.is_negative() && !(int.is_empty() && frac.is_empty()),
                    ));
                    out.extend_from_slice(&(int.len() as u32).to_be_bytes());
                    out.extend_from_slice(int);
                    out.extend_from_slice(frac);
                    out.push(10);
                }
            }
            Value::Double(f) => {
                out.push(5);
                // -0 and 0 are one value.
                let f = if *f == 0.0 { 0.0 } else { *f };
                out.extend_from_slice(&f.to_bits().to_be_bytes());
            }
            // A TIMESTAMP beside DATETIMEs (IF(k, ts, dt)) is the datetime
            // it shows.
            Value::Timestamp(ts) => {
                let dt = Value::Datetime(crate::value::temporal::timestamp_to_datetime(ts));
                value_key_into(&dt, coll, out);
            }
            other => {
                out.push(3);
                let s = format!("{other:?}");
                out.extend_from_slice(&(s.len() as u32).to_be_bytes());
                out.extend_from_slice(s.as_bytes());
            }
        }
    }
}

/// Aggregate arguments as MariaDB reads them: an ENUM or SET as its member
/// number in SUM, AVG, the deviations and the bit aggregates; GROUP_CONCAT's
/// values (not its ORDER BY keys) as text, a temporal one with its type's fractional
/// digits ('11:20:19.70000' for a DATETIME(5)); MIN/MAX's with fuzzy dates
/// when `fuzzy_dates` (see [`eval::fuzzy_date`]).
pub(crate) fn concat_values_as_text(
    call: &AggCall,
    args: Vec<Compiled>,
    fuzzy_dates: bool,
) -> Vec<Compiled> {
    if matches!(call.kind, AggKind::Min | AggKind::Max) {
        // MIN/MAX read DATE(x) of what is no date as the zero date, and
        // compare UUIDs in UUID order: by their record form, which is the
        // value they keep (and show as the UUID's text).
        return args
            .into_iter()
            .map(|a| Compiled {
                expr: match a.ty.ty {
                    ColumnType::Uuid => eval::Expr::UuidKey(Box::new(a.expr)),
                    _ if fuzzy_dates => eval::fuzzy_date(a.expr),
                    _ => a.expr,
                },
                ty: a.ty,
            })
            .collect();
    }
    if matches!(
        call.kind,
        AggKind::Sum
            | AggKind::Avg
            | AggKind::StdPop
            | AggKind::StdSamp
            | AggKind::VarPop
            | AggKind::VarSamp
            | AggKind::BitAnd
            | AggKind::BitOr
            | AggKind::BitXor
    ) {
        // Numeric aggregates read an ENUM or SET as its member number.
        return args
            .into_iter()
            .map(|a| {
                let (members, set) = match &a.ty.ty {
                    ColumnType::Enum { values, .. } => (values.clone(), false),
                    ColumnType::Set { values, .. } => (values.clone(), true),
                    _ => return a,
                };
                Compiled {
                    expr: eval::Expr::MemberNumber {
                        arg: Box::new(a.expr),
                        members,
                        set,
                    },
                    ty: a.ty,
                }
            })
            .collect();
    }
    if call.kind != AggKind::GroupConcat {
        return args;
    }
    let values = args.len().saturating_sub(call.order.len());
    args.into_iter()
        .enumerate()
        .map(|(i, a)| if i < values { a.text() } else { a })
        .collect()
}

/// Compiled arguments of the aggregates of a statement.
pub(crate) struct CompiledAgg {
    pub call: AggCall,
    pub args: Vec<Compiled>,
    pub ty: ExprType,
    pub collation: Collation,
}
