//! Uncorrelated subqueries in expressions, evaluated once before the outer
//! query runs: `x IN (SELECT ...)` becomes `x IN (v1, v2, ...)`, `x op
//! ANY|SOME|ALL (SELECT ...)` a balanced OR (AND) of `x op v`,
//! `EXISTS (SELECT ...)` becomes 1 or 0, and a scalar `(SELECT ...)` its one
//! value (error 1242 for more than one row, 1241 for more than one column).
//! A correlated subquery fails inside with 1054 (unknown column), as the
//! outer columns are not visible to it.

use std::ops::ControlFlow;

use larch_engine::record::value::{ColumnType, Value};
use sqlparser::ast;

use crate::error::SqlError;
use crate::session::Session;

/// An AST literal for a value (`None` for values with no literal form).
pub(crate) fn literal(v: &Value) -> Option<ast::Expr> {
    literal_of(v, None)
}

/// An AST literal for a value of a column of type `ty`: one that keeps the
/// value's type where the type changes comparisons (FLOAT stays FLOAT,
/// DOUBLE stays DOUBLE, a binary string stays binary, temporal values
/// stay temporal, ENUM and SET members are their text). `None` for values
/// with no literal form.
pub(crate) fn literal_of(v: &Value, ty: Option<&ColumnType>) -> Option<ast::Expr> {
    let number = |n: String| ast::Expr::value(ast::Value::Number(n, false));
    let typed = |data_type: ast::DataType, text: String| {
        ast::Expr::TypedString(ast::TypedString {
            data_type,
            value: ast::Value::SingleQuotedString(text).into(),
            uses_odbc_syntax: false,
        })
    };
    let val = match v {
        Value::Null => ast::Value::Null,
        Value::Int(i) => ast::Value::Number(i.to_string(), false),
        Value::UInt(u) => ast::Value::Number(u.to_string(), false),
        Value::Decimal(d) => ast::Value::Number(d.to_string(), false),
        Value::Float(f) => {
            return Some(ast::Expr::Cast {
                kind: ast::CastKind::Cast,
                expr: Box::new(number(crate::value::number::format_float(*f))),
                data_type: ast::DataType::Float(ast::ExactNumberInfo::None),
                format: None,
            })
        }
        Value::Double(_) => {
            // An exponent makes the literal a DOUBLE, not a DECIMAL.
            let text = crate::value::store::value_to_string(v);
            let text = if text.contains(['e', 'E']) {
                text
            } else {
                format!("{text}e0")
            };
            ast::Value::Number(text, false)
        }
        Value::Bytes(b) => {
            return Some(ast::Expr::Cast {
                kind: ast::CastKind::Cast,
                expr: Box::new(ast::Expr::value(match std::str::from_utf8(b) {
                    Ok(s) => ast::Value::SingleQuotedString(s.to_owned()),
                    Err(_) => {
                        ast::Value::HexStringLiteral(b.iter().map(|x| format!("{x:02X}")).collect())
                    }
                })),
                data_type: ast::DataType::Binary(None),
                format: None,
            })
        }
        Value::Date(_) => {
            return Some(typed(
                ast::DataType::Date,
                crate::value::store::value_to_string(v),
            ))
        }
        Value::Time(_) => {
            return Some(typed(
                ast::DataType::Time(None, ast::TimezoneInfo::None),
                crate::value::store::value_to_string(v),
            ))
        }
        // A TIMESTAMP compares as the datetime it shows, as a DATETIME does.
        Value::Datetime(_) | Value::Timestamp(_) => {
            return Some(typed(
                ast::DataType::Datetime(None),
                crate::value::store::value_to_string(v),
            ))
        }
        Value::Enum(_) | Value::Set(_) => match ty {
            Some(ty) => ast::Value::SingleQuotedString(
                String::from_utf8(crate::value::to_text(v, ty)?).ok()?,
            ),
            None => return None,
        },
        other => ast::Value::SingleQuotedString(crate::value::store::value_to_string(other)),
    };
    Some(ast::Expr::value(val))
}

/// True when an expression of `q` (a query or a SELECT block) holds a
/// subquery.
pub(super) fn has_subquery<V: ast::Visit>(q: &V) -> bool {
    ast::visit_expressions(q, |e| match e {
        ast::Expr::InSubquery { .. } | ast::Expr::Exists { .. } | ast::Expr::Subquery(_) => {
            ControlFlow::Break(())
        }
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

/// Replaces the subqueries of `q`'s expressions (the select list, WHERE,
/// GROUP BY, HAVING, ORDER BY and the ON conditions of FROM; not derived
/// tables) by their values.
pub(super) fn inline(s: &Session, q: &mut ast::Query, params: &[Value]) -> Result<(), SqlError> {
    if let ast::SetExpr::Select(sel) = q.body.as_mut() {
        inline_select(s, sel, params)?;
        // ORDER BY of a single block orders its rows, so a subquery there
        // reads them as the select list does (`ORDER BY EXISTS(...)`).
        if let Some(ast::OrderBy {
            kind: ast::OrderByKind::Expressions(items),
            ..
        }) = &mut q.order_by
        {
            for item in items {
                inline_expr_in(s, &mut item.expr, params, Aggregates::Hoisted)?;
            }
        }
    }
    Ok(())
}

/// [`inline`] for one SELECT block (a branch of UNION, INTERSECT or
/// EXCEPT, or a query's only block).
pub(super) fn inline_select(
    s: &Session,
    sel: &mut ast::Select,
    params: &[Value],
) -> Result<(), SqlError> {
    // Where the block may aggregate (select list, HAVING), an aggregate of
    // a correlated subquery over this block's columns only is this block's.
    let mut grouping: Vec<&mut ast::Expr> = Vec::new();
    for p in &mut sel.projection {
        if let ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } = p
        {
            grouping.push(e);
        }
    }
    if let Some(h) = &mut sel.having {
        grouping.push(h);
    }
    for e in grouping {
        inline_expr_in(s, e, params, Aggregates::Hoisted)?;
    }
    let mut exprs: Vec<&mut ast::Expr> = Vec::new();
    if let Some(w) = &mut sel.selection {
        exprs.push(w);
    }
    if let ast::GroupByExpr::Expressions(keys, _) = &mut sel.group_by {
        exprs.extend(keys.iter_mut());
    }
    for twj in &mut sel.from {
        on_conditions(twj, &mut exprs);
    }
    for e in exprs {
        inline_expr(s, e, params)?;
    }
    Ok(())
}

/// The ON conditions of a FROM item's joins, nested ones included.
fn on_conditions<'a>(twj: &'a mut ast::TableWithJoins, out: &mut Vec<&'a mut ast::Expr>) {
    let factor = |f: &'a mut ast::TableFactor, out: &mut Vec<&'a mut ast::Expr>| {
        if let ast::TableFactor::NestedJoin {
            table_with_joins, ..
        } = f
        {
            on_conditions(table_with_joins, out);
        }
    };
    factor(&mut twj.relation, out);
    for j in &mut twj.joins {
        use ast::JoinOperator as J;
        factor(&mut j.relation, out);
        if let J::Join(c)
        | J::Inner(c)
        | J::Left(c)
        | J::LeftOuter(c)
        | J::Right(c)
        | J::RightOuter(c)
        | J::CrossJoin(c)
        | J::StraightJoin(c) = &mut j.join_operator
        {
            if let ast::JoinConstraint::On(e) = c {
                out.push(e);
            }
        }
    }
}

/// Replaces the subqueries of one expression: uncorrelated ones by their
/// values, correlated ones by their per-row form. The expression is one
/// of a clause that cannot aggregate (WHERE, a SET value, ...).
pub(crate) fn inline_expr(
    s: &Session,
    e: &mut ast::Expr,
    params: &[Value],
) -> Result<(), SqlError> {
    inline_expr_in(s, e, params, Aggregates::Kept)
}

/// Where a correlated subquery's aggregates over outer columns only are
/// computed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Aggregates {
    /// In the subquery: the enclosing clause cannot aggregate (WHERE, ON,
    /// GROUP BY, a statement that is no query).
    Kept,
    /// In the enclosing query (its select list, HAVING or ORDER BY).
    Hoisted,
}

/// [`inline_expr`] for an expression of a clause described by `aggregates`.
pub(crate) fn inline_expr_in(
    s: &Session,
    e: &mut ast::Expr,
    params: &[Value],
    aggregates: Aggregates,
) -> Result<(), SqlError> {
    // `x op ANY (SELECT ...)` first, from the outside in: the generic pass
    // below goes from the inside out and would read the quantified subquery
    // as a scalar one.
    let mut quantified = QuantifiedComparisons {
        s,
        params,
        err: None,
    };
    let _ = ast::VisitMut::visit(e, &mut quantified);
    if let Some(e) = quantified.err {
        return Err(e);
    }
    let mut err = None;
    let _ = ast::visit_expressions_mut(e, |x| {
        match replace(s, x, params, aggregates) {
            Ok(Some(new)) => *x = new,
            Ok(None) => {}
            Err(e) => {
                err = Some(e);
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    err.map_or(Ok(()), Err)
}

/// Replaces `x op ANY|SOME|ALL (SELECT ...)` before its subquery is seen
/// on its own.
struct QuantifiedComparisons<'a> {
    s: &'a Session,
    params: &'a [Value],
    err: Option<SqlError>,
}

impl ast::VisitorMut for QuantifiedComparisons<'_> {
    type Break = ();

    fn pre_visit_expr(&mut self, x: &mut ast::Expr) -> ControlFlow<()> {
        let quantified = match x {
            ast::Expr::AnyOp { right, .. } | ast::Expr::AllOp { right, .. } => {
                matches!(right.as_ref(), ast::Expr::Subquery(_))
            }
            _ => false,
        };
        if quantified {
            match replace(self.s, x, self.params, Aggregates::Kept) {
                Ok(Some(new)) => *x = new,
                Ok(None) => {}
                Err(e) => {
                    self.err = Some(e);
                    return ControlFlow::Break(());
                }
            }
        }
        ControlFlow::Continue(())
    }
}

/// True when `e` holds a subquery.
pub(crate) fn expr_has_subquery(e: &ast::Expr) -> bool {
    ast::visit_expressions(e, |x| match x {
        ast::Expr::InSubquery { .. } | ast::Expr::Exists { .. } | ast::Expr::Subquery(_) => {
            ControlFlow::Break(())
        }
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

fn replace(
    s: &Session,
    x: &ast::Expr,
    params: &[Value],
    aggregates: Aggregates,
) -> Result<Option<ast::Expr>, SqlError> {
    match run_uncorrelated(s, x, params) {
        Err(e)
            if e.code() == crate::error::code::BAD_FIELD
                && matches!(x, ast::Expr::AnyOp { .. } | ast::Expr::AllOp { .. }) =>
        {
            Err(SqlError::not_supported(
                "ANY/ALL/SOME over a subquery that reads the outer query's columns",
            ))
        }
        // An aggregate over outer columns in the subquery's WHERE is the
        // enclosing query's: the subquery refuses it on its own (1111).
        Err(e)
            if e.code() == crate::error::code::BAD_FIELD
                || (e.code() == crate::error::code::INVALID_GROUP_FUNC_USE
                    && aggregates == Aggregates::Hoisted) =>
        {
            match super::correlated::rewrite(s, x, params, aggregates)? {
                Some(rewritten) => Ok(Some(rewritten)),
                None => Err(e),
            }
        }
        other => other,
    }
}

/// `(a, b, ...) [NOT] IN (SELECT x, y, ...)` with the subquery's rows
/// `set`: the row IN of those rows as literals (1241 when the widths
/// differ).
fn row_in_rows(
    row: &ast::Expr,
    width: usize,
    set: &crate::result::RowSet,
    negated: bool,
) -> Result<ast::Expr, SqlError> {
    if set.columns.len() != width {
        return Err(SqlError::operand_columns(width));
    }
    if set.rows.is_empty() {
        // A row IN no rows is false (NOT IN true), NULLs or not.
        return Ok(ast::Expr::value(ast::Value::Number(
            if negated { "1" } else { "0" }.into(),
            false,
        )));
    }
    let list = set
        .rows
        .iter()
        .map(|r| {
            r.iter()
                .zip(&set.columns)
                .map(|(v, c)| literal_of(v, Some(&c.ty)).ok_or_else(|| no_literal(v)))
                .collect::<Result<Vec<_>, _>>()
                .map(ast::Expr::Tuple)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ast::Expr::InList {
        expr: Box::new(row.clone()),
        list,
        negated,
    })
}

/// `x` replaced by its value, running its subquery once.
fn run_uncorrelated(
    s: &Session,
    x: &ast::Expr,
    params: &[Value],
) -> Result<Option<ast::Expr>, SqlError> {
    Ok(Some(match x {
        ast::Expr::InSubquery {
            expr,
            subquery,
            negated,
        } => {
            let set = super::run_query(s, subquery, params)?;
            if let ast::Expr::Tuple(row) = expr.as_ref() {
                return row_in_rows(expr, row.len(), &set, *negated).map(Some);
            }
            if set.columns.len() != 1 {
                return Err(SqlError::operand_columns(1));
            }
            let ty = &set.columns[0].ty;
            let list: Vec<ast::Expr> = set
                .rows
                .iter()
                .map(|r| {
                    let v = r.first().unwrap_or(&Value::Null);
                    literal_of(v, Some(ty)).ok_or_else(|| no_literal(v))
                })
                .collect::<Result<_, _>>()?;
            if list.is_empty() {
                // x IN (empty) is false (NOT IN is true), even for NULL x.
                return Ok(Some(ast::Expr::value(ast::Value::Number(
                    if *negated { "1" } else { "0" }.into(),
                    false,
                ))));
            }
            ast::Expr::InList {
                expr: expr.clone(),
                list,
                negated: *negated,
            }
        }
        ast::Expr::AnyOp {
            left,
            compare_op,
            right,
            ..
        }
        | ast::Expr::AllOp {
            left,
            compare_op,
            right,
        } => {
            let ast::Expr::Subquery(q) = right.as_ref() else {
                return Ok(None);
            };
            let any = matches!(x, ast::Expr::AnyOp { .. });
            let set = super::run_query(s, q, params)?;
            if set.columns.len() != 1 {
                return Err(SqlError::operand_columns(1));
            }
            let ty = &set.columns[0].ty;
            // x op ANY (v1, v2, ...) is (x op v1) OR (x op v2) OR ..., and
            // ALL the same with AND: SQL's three-valued OR and AND give
            // TRUE, FALSE or NULL exactly as MariaDB decides them.
            let terms = set
                .rows
                .iter()
                .map(|r| {
                    let v = r.first().unwrap_or(&Value::Null);
                    let value = literal_of(v, Some(ty)).ok_or_else(|| no_literal(v))?;
                    Ok(ast::Expr::BinaryOp {
                        left: left.clone(),
                        op: compare_op.clone(),
                        right: Box::new(value),
                    })
                })
                .collect::<Result<Vec<_>, SqlError>>()?;
            if terms.is_empty() {
                // Nothing to compare with: ANY is false, ALL is true.
                return Ok(Some(ast::Expr::value(ast::Value::Number(
                    if any { "0" } else { "1" }.into(),
                    false,
                ))));
            }
            let op = if any {
                ast::BinaryOperator::Or
            } else {
                ast::BinaryOperator::And
            };
            ast::Expr::Nested(Box::new(crate::parse::depth::balanced(terms, &op)))
        }
        ast::Expr::Exists { subquery, negated } => {
            let set = super::run_query(s, subquery, params)?;
            let found = !set.rows.is_empty();
            ast::Expr::value(ast::Value::Number(
                if found != *negated { "1" } else { "0" }.into(),
                false,
            ))
        }
        ast::Expr::Subquery(q) => {
            let set = super::run_query(s, q, params)?;
            if set.columns.len() != 1 {
                return Err(SqlError::operand_columns(1));
            }
            if set.rows.len() > 1 {
                return Err(SqlError::new(1242, "Subquery returns more than 1 row"));
            }
            let v = set
                .rows
                .first()
                .and_then(|r| r.first().cloned())
                .unwrap_or(Value::Null);
            literal_of(&v, Some(&set.columns[0].ty)).ok_or_else(|| no_literal(&v))?
        }
        _ => return Ok(None),
    }))
}

/// 1235 for a subquery value the planner cannot carry into the outer query
/// (rather than a wrong answer).
fn no_literal(v: &Value) -> SqlError {
    SqlError::not_supported(&format!(
        "this kind of value ({v:?}) as the result of a subquery"
    ))
}
