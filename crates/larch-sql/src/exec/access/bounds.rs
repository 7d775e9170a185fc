//! What the WHERE conjuncts say about each column of one table: equality
//! values and range bounds from `column op constant` conditions whose
//! constant converts exactly to the column's type, and which conjuncts gave
//! them (for [`Plan::exact`](super::Plan::exact)).

use std::ops::Bound;

use larch_engine::record::value::{ColumnType, Value};
use larch_engine::table::Table;
use sqlparser::ast;

use super::ColumnOf;
use crate::eval::{self, Compiled, EvalContext};
use crate::value::store::{store, StoreTarget};

/// What a condition says about one column, for one execution.
#[derive(Debug, Clone)]
pub(super) enum ColumnBound {
    Eq(Vec<Value>),
    Range {
        lower: Bound<Value>,
        upper: Bound<Value>,
    },
}

/// What a [`ColumnBound`] is, without its values: the plan's choices depend
/// on this only (see [`super::KeptAccess`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BoundShape {
    /// An equality with this many values.
    Eq(usize),
    /// A range, bounded below and above or not.
    Range { lower: bool, upper: bool },
}

impl ColumnBound {
    pub fn shape(&self) -> BoundShape {
        match self {
            ColumnBound::Eq(v) => BoundShape::Eq(v.len()),
            ColumnBound::Range { lower, upper } => BoundShape::Range {
                lower: !matches!(lower, Bound::Unbounded),
                upper: !matches!(upper, Bound::Unbounded),
            },
        }
    }
}

/// The comparison a conjunct makes with its column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BoundOp {
    Eq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    /// `BETWEEN` (two constants).
    Between,
    /// `IN (...)` (one constant per item).
    In,
}

/// A conjunct of the form `column op constant`, as far as the statement
/// alone says: its column, its comparison and its constants compiled. Its
/// constants are evaluated per execution ([`CondBound::evaluate`]).
#[derive(Debug, Clone)]
pub(super) struct CondBound {
    pub column: usize,
    op: BoundOp,
    /// Each constant compiled, with its coercibility (which decides the
    /// comparison's collation against a string column).
    constants: Vec<(Compiled, u8)>,
    /// Every constant is a literal or a parameter (see [`plain`]).
    pub plain: bool,
}

/// Compiles a constant expression (no column references); `None` when it
/// is not constant or assigns a user variable.
fn compile_constant(e: &ast::Expr) -> Option<(Compiled, u8)> {
    // An expression that assigns a user variable (`@a := 5`) is evaluated
    // by the filter only, so the assignment happens once per row.
    let mut assigns = false;
    let _ = ast::visit_expressions(e, |x| {
        if let ast::Expr::BinaryOp {
            op: ast::BinaryOperator::Assignment,
            ..
        } = x
        {
            assigns = true;
            return std::ops::ControlFlow::Break(());
        }
        std::ops::ControlFlow::Continue(())
    });
    if assigns {
        return None;
    }
    let resolve = |_: &[ast::Ident]| None;
    eval::compile_with_coercibility(e, &resolve, &eval::CompileOptions::default()).ok()
}

/// Evaluates a compiled constant and converts it exactly to `ty`; `None`
/// when it is NULL, fails or does not convert exactly, or when the
/// comparison is in another collation than the column's (`l = 'b' COLLATE
/// utf8mb4_general_ci` over a latin1_bin column: its index orders by
/// another rule).
fn constant(
    (c, coercibility): &(Compiled, u8),
    ty: &ColumnType,
    ctx: &mut EvalContext<'_>,
) -> Option<Value> {
    if let Some(own) = ty.collation() {
        if eval::comparison_collation(ty, &c.ty, *coercibility) != own {
            return None;
        }
    }
    let v = c.eval(&[], ctx).ok()?;
    if v.is_null() {
        return None;
    }
    // Only kinds that convert without changing the comparison's meaning.
    let fits = match ty {
        ColumnType::Int { .. } | ColumnType::Year => matches!(v, Value::Int(_) | Value::UInt(_)),
        ColumnType::Decimal { .. } => {
            matches!(v, Value::Int(_) | Value::UInt(_) | Value::Decimal(_))
        }
        ColumnType::Char { .. } | ColumnType::Varchar { .. } | ColumnType::Text { .. } => {
            matches!(v, Value::Str(_))
        }
        ColumnType::Binary { .. } | ColumnType::Varbinary { .. } | ColumnType::Blob { .. } => {
            matches!(v, Value::Bytes(_) | Value::Str(_))
        }
        ColumnType::Date | ColumnType::Datetime { .. } | ColumnType::Timestamp { .. } => {
            matches!(v, Value::Str(_) | Value::Date(_) | Value::Datetime(_))
        }
        _ => false,
    };
    if !fits {
        return None;
    }
    let target = StoreTarget {
        db: "",
        table: "",
        column: "",
        row: 1,
        strict: true,
    };
    let mut warnings = Vec::new();
    let stored = store(&v, ty, &target, &mut warnings).ok()?;
    if !warnings.is_empty() {
        return None;
    }
    // A value that changed (a decimal rounded into an integer column) would
    // move range bounds: compare numerically with the original.
    if let (Value::Decimal(d), Value::Int(_) | Value::UInt(_)) = (&v, &stored) {
        if d.scale() > 0 && d.rescale(0).rescale(d.scale()) != *d {
            return None;
        }
    }
    Some(stored)
}

impl CondBound {
    /// The bound conjunct `e` may give, as far as the statement says.
    pub fn of(e: &ast::Expr, column_of: &ColumnOf<'_>) -> Option<CondBound> {
        use ast::BinaryOperator as B;
        let is_plain = plain(e);
        match e {
            ast::Expr::BinaryOp { left, op, right } => {
                let (column, other, op) = if let Some(c) = column_of(left) {
                    (c, right, op.clone())
                } else if let Some(c) = column_of(right) {
                    let flipped = match op {
                        B::Lt => B::Gt,
                        B::LtEq => B::GtEq,
                        B::Gt => B::Lt,
                        B::GtEq => B::LtEq,
                        o => o.clone(),
                    };
                    (c, left, flipped)
                } else {
                    return None;
                };
                let op = match op {
                    B::Eq | B::Spaceship => BoundOp::Eq,
                    B::Lt => BoundOp::Lt,
                    B::LtEq => BoundOp::LtEq,
                    B::Gt => BoundOp::Gt,
                    B::GtEq => BoundOp::GtEq,
                    _ => return None,
                };
                Some(CondBound {
                    column,
                    op,
                    constants: vec![compile_constant(other)?],
                    plain: is_plain,
                })
            }
            ast::Expr::Between {
                expr,
                negated: false,
                low,
                high,
            } => Some(CondBound {
                column: column_of(expr)?,
                op: BoundOp::Between,
                constants: vec![compile_constant(low)?, compile_constant(high)?],
                plain: is_plain,
            }),
            ast::Expr::InList {
                expr,
                list,
                negated: false,
            } if !list.is_empty() && list.len() <= 1000 => Some(CondBound {
                column: column_of(expr)?,
                op: BoundOp::In,
                constants: list
                    .iter()
                    .map(compile_constant)
                    .collect::<Option<Vec<_>>>()?,
                plain: is_plain,
            }),
            ast::Expr::Nested(inner) => CondBound::of(inner, column_of).map(|b| CondBound {
                plain: is_plain,
                ..b
            }),
            _ => None,
        }
    }

    /// The bound for this execution: its constants evaluated and converted
    /// exactly to the column's type `ty`; `None` when one does not.
    pub fn evaluate(&self, ty: &ColumnType, ctx: &mut EvalContext<'_>) -> Option<ColumnBound> {
        let one = |i: usize, ctx: &mut EvalContext<'_>| constant(self.constants.get(i)?, ty, ctx);
        Some(match self.op {
            BoundOp::Eq => ColumnBound::Eq(vec![one(0, ctx)?]),
            BoundOp::Lt => ColumnBound::Range {
                lower: Bound::Unbounded,
                upper: Bound::Excluded(one(0, ctx)?),
            },
            BoundOp::LtEq => ColumnBound::Range {
                lower: Bound::Unbounded,
                upper: Bound::Included(one(0, ctx)?),
            },
            BoundOp::Gt => ColumnBound::Range {
                lower: Bound::Excluded(one(0, ctx)?),
                upper: Bound::Unbounded,
            },
            BoundOp::GtEq => ColumnBound::Range {
                lower: Bound::Included(one(0, ctx)?),
                upper: Bound::Unbounded,
            },
            BoundOp::Between => {
                let lo = one(0, ctx)?;
                ColumnBound::Range {
                    lower: Bound::Included(lo),
                    upper: Bound::Included(one(1, ctx)?),
                }
            }
            BoundOp::In => {
                let mut vals = Vec::with_capacity(self.constants.len());
                for c in &self.constants {
                    vals.push(constant(c, ty, ctx)?);
                }
                ColumnBound::Eq(vals)
            }
        })
    }
}

/// Per table column: the equality values and range bounds the conjuncts give.
pub(super) struct Bounds {
    pub eq: Vec<Option<Vec<Value>>>,
    pub range: Vec<Option<(Bound<Value>, Bound<Value>)>>,
    /// Per column: the conjuncts that bound it.
    pub conds_of: Vec<Vec<usize>>,
    /// Per column: is it an integer column bounded by literals and
    /// parameters only (whose bounds are then exact)?
    pub integer: Vec<bool>,
}

impl Bounds {
    /// No bounds, for a table of `columns` columns.
    pub fn empty(columns: usize) -> Bounds {
        Bounds {
            eq: vec![None; columns],
            range: vec![None; columns],
            conds_of: vec![Vec::new(); columns],
            integer: vec![false; columns],
        }
    }

    /// What the analyzed conjuncts `conds` give for this execution, with
    /// their evaluated bounds in `evaluated` (one per conjunct, moved out).
    /// Reuses `self`'s buffers.
    pub fn fill(
        &mut self,
        table: &Table,
        conds: &[Option<CondBound>],
        evaluated: &mut [Option<ColumnBound>],
    ) {
        let columns = &table.def().columns;
        let n = columns.len();
        self.eq.clear();
        self.eq.resize(n, None);
        self.range.clear();
        self.range.resize(n, None);
        self.conds_of.resize_with(n, Vec::new);
        self.conds_of.truncate(n);
        for c in &mut self.conds_of {
            c.clear();
        }
        self.integer.clear();
        self.integer.extend(
            columns
                .iter()
                .map(|c| matches!(c.ty, ColumnType::Int { .. })),
        );
        for (i, (cond, bound)) in conds.iter().zip(evaluated.iter_mut()).enumerate() {
            let (Some(cond), Some(bound)) = (cond, bound.take()) else {
                continue;
            };
            let col = cond.column;
            if col >= n {
                continue;
            }
            self.conds_of[col].push(i);
            if !cond.plain {
                // Enforced only with constants evaluated once: a
                // function (RAND(), a variable) may differ per row.
                self.integer[col] = false;
            }
            match bound {
                ColumnBound::Eq(v)
                    if self.eq[col].as_ref().is_none_or(|old| old.len() > v.len()) =>
                {
                    self.eq[col] = Some(v);
                }
                ColumnBound::Eq(_) => {}
                ColumnBound::Range { lower, upper } => {
                    let r = self.range[col].get_or_insert((Bound::Unbounded, Bound::Unbounded));
                    if !matches!(lower, Bound::Unbounded) {
                        r.0 = lower;
                    }
                    if !matches!(upper, Bound::Unbounded) {
                        r.1 = upper;
                    }
                }
            }
        }
    }

    /// What the conjuncts `conds` give for this execution (`column_of`
    /// maps a column reference to this table's column number).
    pub fn of(
        table: &Table,
        conds: &[&ast::Expr],
        column_of: &ColumnOf<'_>,
        ctx: &mut EvalContext<'_>,
    ) -> Bounds {
        let analyzed: Vec<Option<CondBound>> =
            conds.iter().map(|c| CondBound::of(c, column_of)).collect();
        let mut evaluated = evaluate_all(table, &analyzed, ctx);
        let mut b = Bounds::empty(0);
        b.fill(table, &analyzed, &mut evaluated);
        b
    }

    /// The conjuncts the ranges over `columns` enforce exactly (see
    /// [`Plan::exact`]).
    pub fn exact(&self, columns: &[usize]) -> Vec<usize> {
        columns
            .iter()
            .filter_map(|&c| match self.conds_of[c].as_slice() {
                [only] if self.integer[c] => Some(*only),
                _ => None,
            })
            .collect()
    }

    /// Is the column fixed to one value by an equality?
    pub fn fixed(&self, column: usize) -> bool {
        self.eq[column].as_ref().is_some_and(|v| v.len() == 1)
    }
}

/// Every analyzed conjunct's bound for this execution, in order.
pub(super) fn evaluate_all(
    table: &Table,
    conds: &[Option<CondBound>],
    ctx: &mut EvalContext<'_>,
) -> Vec<Option<ColumnBound>> {
    let mut out = Vec::with_capacity(conds.len());
    evaluate_into(table, conds, ctx, &mut out);
    out
}

/// As [`evaluate_all`], into `out` (cleared first).
pub(super) fn evaluate_into(
    table: &Table,
    conds: &[Option<CondBound>],
    ctx: &mut EvalContext<'_>,
    out: &mut Vec<Option<ColumnBound>>,
) {
    let columns = &table.def().columns;
    out.clear();
    out.extend(conds.iter().map(|c| {
        let c = c.as_ref()?;
        c.evaluate(&columns.get(c.column)?.ty, ctx)
    }));
}

/// Whether every constant of the bound `c` is a literal or a parameter
/// (possibly negated), so it has the same value for every row.
fn plain(c: &ast::Expr) -> bool {
    fn literal(e: &ast::Expr) -> bool {
        match e {
            ast::Expr::Value(_) => true,
            ast::Expr::UnaryOp {
                op: ast::UnaryOperator::Minus | ast::UnaryOperator::Plus,
                expr,
            }
            | ast::Expr::Nested(expr) => literal(expr),
            _ => false,
        }
    }
    match c {
        ast::Expr::BinaryOp { left, right, .. } => literal(left) || literal(right),
        ast::Expr::Between { low, high, .. } => literal(low) && literal(high),
        ast::Expr::InList { list, .. } => list.iter().all(literal),
        ast::Expr::Nested(inner) => plain(inner),
        _ => false,
    }
}
