//! Correlated subqueries: `EXISTS`, `IN` and scalar subqueries that read
//! columns of the query around them, as in
//! `SELECT * FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.a_id = a.id)`.
//!
//! A subquery that fails on its own with 1054 (unknown column) is looked at
//! here: each column reference the subquery's own FROM clauses cannot
//! supply (a qualified name whose table is none of the subquery's, or an
//! unqualified name none of its tables has) is an outer reference. The
//! subquery becomes a template in which every outer reference is a marker
//! identifier ([`eval::OUTER_REFERENCE_PREFIX`] and its index), handed to the
//! expression compiler as [`eval::CORRELATED_SUBQUERY_FUNCTION`] with the
//! outer references as ordinary arguments, so they resolve against the
//! enclosing query like any column. For each row the evaluator computes the
//! outer values and the session runs the template with the markers replaced
//! by those values ([`run_template`]), as MariaDB does for a subquery it
//! cannot turn into a join. No names are left unresolved: when nothing in
//! the subquery is outer, its own 1054 stands.

use std::collections::HashSet;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};

use larch_engine::record::value::{ColumnType, Value};
use sqlparser::ast;

use super::subquery::literal;
use crate::error::SqlError;
use crate::eval;
use crate::session::Session;

/// Ids of correlated subqueries (unique in the process; they only need to
/// differ between subqueries nested in one another).
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The compiler's form of the correlated subquery `x`, or `None` when
/// nothing in it refers to the enclosing query.
pub(super) fn rewrite(
    s: &Session,
    x: &ast::Expr,
    params: &[Value],
    aggregates: super::subquery::Aggregates,
) -> Result<Option<ast::Expr>, SqlError> {
    let (kind, query, probe) = match x {
        ast::Expr::Exists { subquery, negated } => (
            if *negated { "not exists" } else { "exists" },
            subquery.as_ref(),
            None,
        ),
        ast::Expr::InSubquery {
            expr,
            subquery,
            negated,
        } => (
            if *negated { "not in" } else { "in" },
            subquery.as_ref(),
            Some(expr.as_ref().clone()),
        ),
        ast::Expr::Subquery(q) => ("scalar", q.as_ref(), None),
        _ => return Ok(None),
    };
    let mut scope = Scope::default();
    scope.collect(s, query, params)?;
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let mut template = query.clone();
    let mut outer: Vec<ast::Expr> = Vec::new();
    // Aggregates over outer columns only first: they belong to the
    // enclosing query, which computes them and hands in their values.
    let mut hoisted = OuterAggregates {
        scope: &scope,
        id,
        outer: &mut outer,
    };
    if aggregates == super::subquery::Aggregates::Hoisted {
        let _ = ast::VisitMut::visit(&mut template, &mut hoisted);
    }
    let _ = ast::visit_expressions_mut(&mut template, |e| {
        if let Some(found) = scope.outer_reference(e) {
            *e = marker(id, &mut outer, found);
        }
        ControlFlow::<()>::Continue(())
    });
    if outer.is_empty() {
        return Ok(None);
    }
    let mut args = vec![
        ast::Expr::value(ast::Value::SingleQuotedString(format!("{kind}:{id}"))),
        // As text: what walks the enclosing query's expressions (aggregate
        // and view rewriting, the subquery step itself) must not see the
        // subquery's own names.
        ast::Expr::value(ast::Value::SingleQuotedString(crate::parse::sql_text(
            &template,
        ))),
    ];
    if let Some(p) = probe {
        args.push(p);
    }
    if kind == "scalar" {
        // The result type, from one run with every outer value NULL.
        let nulls = vec![Value::Null; outer.len()];
        let set = super::run_query(s, &bind(&template, id, &nulls), params)?;
        if set.columns.len() != 1 {
            return Err(SqlError::operand_columns(1));
        }
        args.push(ast::Expr::Cast {
            kind: ast::CastKind::Cast,
            expr: Box::new(ast::Expr::value(ast::Value::Null)),
            data_type: cast_type(&set.columns[0].ty),
            format: None,
        });
    }
    args.extend(outer);
    Ok(Some(ast::Expr::Function(ast::Function {
        // Quoted, so that the text of an enclosing template parses back.
        name: ast::ObjectName::from(vec![ast::Ident::with_quote(
            '`',
            eval::CORRELATED_SUBQUERY_FUNCTION,
        )]),
        uses_odbc_syntax: false,
        parameters: ast::FunctionArguments::None,
        args: ast::FunctionArguments::List(ast::FunctionArgumentList {
            duplicate_treatment: None,
            args: args
                .into_iter()
                .map(|a| ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(a)))
                .collect(),
            clauses: vec![],
        }),
        filter: None,
        null_treatment: None,
        over: None,
        within_group: vec![],
    })))
}

/// The marker standing for the outer expression `found` in subquery `id`
/// (one marker per distinct expression; `outer` collects them in order).
fn marker(id: u64, outer: &mut Vec<ast::Expr>, found: ast::Expr) -> ast::Expr {
    let text = found.to_string();
    let i = match outer.iter().position(|o| o.to_string() == text) {
        Some(i) => i,
        None => {
            outer.push(found);
            outer.len() - 1
        }
    };
    ast::Expr::Identifier(ast::Ident::with_quote(
        '`',
        format!("{}{id}_{i}", eval::OUTER_REFERENCE_PREFIX),
    ))
}

/// Replaces each aggregate call of a subquery whose columns all belong to
/// the enclosing query by a marker: as in MariaDB, such an aggregate is
/// computed by the enclosing query (which then groups), so
/// `SELECT (SELECT SUM(t.a) FROM u LIMIT 1) FROM t` is one row. An
/// aggregate reading any of the subquery's own columns, or none at all
/// (`COUNT(*)`), stays in the subquery.
struct OuterAggregates<'a> {
    scope: &'a Scope,
    id: u64,
    outer: &'a mut Vec<ast::Expr>,
}

impl ast::VisitorMut for OuterAggregates<'_> {
    type Break = ();

    fn pre_visit_expr(&mut self, e: &mut ast::Expr) -> ControlFlow<()> {
        let ast::Expr::Function(f) = &*e else {
            return ControlFlow::Continue(());
        };
        if !super::aggregate::is_aggregate_call(f) {
            return ControlFlow::Continue(());
        }
        let mut columns = 0usize;
        let only_outer = ast::visit_expressions(&*e, |x| match x {
            ast::Expr::Exists { .. } | ast::Expr::InSubquery { .. } | ast::Expr::Subquery(_) => {
                ControlFlow::Break(())
            }
            ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) => {
                columns += 1;
                if self.scope.outer_reference(x).is_some() {
                    ControlFlow::Continue(())
                } else {
                    ControlFlow::Break(())
                }
            }
            _ => ControlFlow::Continue(()),
        })
        .is_continue();
        if only_outer && columns > 0 {
            let found = e.clone();
            *e = marker(self.id, self.outer, found);
        }
        ControlFlow::Continue(())
    }
}

/// Runs a template for one row: its markers bound to `outer`.
pub(crate) fn run_template(
    s: &Session,
    template: &ast::Query,
    id: u64,
    outer: &[Value],
    params: &[Value],
) -> Result<Vec<Vec<Value>>, SqlError> {
    Ok(super::run_query(s, &bind(template, id, outer), params)?.rows)
}

/// The template with each of its markers (those of subquery `id`) replaced
/// by its value as a literal.
fn bind(template: &ast::Query, id: u64, outer: &[Value]) -> ast::Query {
    let mut q = template.clone();
    let own = format!("{}{id}_", eval::OUTER_REFERENCE_PREFIX);
    let _ = ast::visit_expressions_mut(&mut q, |e| {
        if let ast::Expr::Identifier(ident) = e {
            if let Some(i) = ident
                .value
                .strip_prefix(own.as_str())
                .and_then(|d| d.parse::<usize>().ok())
            {
                let v = outer.get(i).cloned().unwrap_or(Value::Null);
                *e = literal(&v).unwrap_or_else(|| ast::Expr::value(ast::Value::Null));
            }
        }
        ControlFlow::<()>::Continue(())
    });
    q
}

/// The names a subquery (and the subqueries inside it) supplies itself.
#[derive(Default)]
struct Scope {
    /// Table names and aliases of every FROM clause, as written.
    tables: HashSet<String>,
    /// Column names of those tables (lower case: column names compare
    /// without case) and the select-list aliases.
    columns: HashSet<String>,
}

impl Scope {
    /// Adds the names of `q`'s FROM clauses and select lists, and of the
    /// subqueries in its expressions.
    fn collect(&mut self, s: &Session, q: &ast::Query, params: &[Value]) -> Result<(), SqlError> {
        if let Some(with) = &q.with {
            for cte in &with.cte_tables {
                self.tables.insert(cte.alias.name.value.clone());
            }
        }
        self.collect_set(s, &q.body, params)?;
        let mut nested = Vec::new();
        let _ = ast::visit_expressions(q, |e| {
            match e {
                ast::Expr::Exists { subquery, .. }
                | ast::Expr::InSubquery { subquery, .. }
                | ast::Expr::Subquery(subquery) => nested.push(subquery.as_ref().clone()),
                _ => {}
            }
            ControlFlow::<()>::Continue(())
        });
        for n in &nested {
            self.collect_set(s, &n.body, params)?;
        }
        Ok(())
    }

    fn collect_set(
        &mut self,
        s: &Session,
        body: &ast::SetExpr,
        params: &[Value],
    ) -> Result<(), SqlError> {
        match body {
            ast::SetExpr::Select(sel) => {
                for item in &sel.projection {
                    if let ast::SelectItem::ExprWithAlias { alias, .. } = item {
                        self.columns.insert(alias.value.to_lowercase());
                    }
                }
                for twj in &sel.from {
                    self.table(&twj.relation);
                    for j in &twj.joins {
                        self.table(&j.relation);
                    }
                }
                if !sel.from.is_empty() {
                    let from: Vec<String> = sel.from.iter().map(crate::parse::sql_text).collect();
                    let probe = format!("SELECT * FROM {} LIMIT 0", from.join(", "));
                    if let Some(q) = crate::parse::parse_query(&probe) {
                        // A FROM clause that itself reads outer columns
                        // cannot be probed; its names then stay unknown.
                        if let Ok(set) = super::run_query(s, &q, params) {
                            for c in set.columns {
                                self.columns.insert(c.name.to_lowercase());
                            }
                        }
                    }
                }
                Ok(())
            }
            ast::SetExpr::SetOperation { left, right, .. } => {
                self.collect_set(s, left, params)?;
                self.collect_set(s, right, params)
            }
            ast::SetExpr::Query(q) => self.collect_set(s, &q.body, params),
            _ => Ok(()),
        }
    }

    fn table(&mut self, t: &ast::TableFactor) {
        match t {
            // An alias hides the table's own name: in `FROM t U0`, `t.id`
            // is the enclosing query's `t` (Django's `OuterRef` on the
            // same model).
            ast::TableFactor::Table { name, alias, .. } => match alias {
                Some(a) => {
                    self.tables.insert(a.name.value.clone());
                }
                None => {
                    if let Some(last) = name.0.last().and_then(|p| p.as_ident()) {
                        self.tables.insert(last.value.clone());
                    }
                }
            },
            ast::TableFactor::Derived { alias: Some(a), .. } => {
                self.tables.insert(a.name.value.clone());
            }
            ast::TableFactor::NestedJoin {
                table_with_joins, ..
            } => {
                self.table(&table_with_joins.relation);
                for j in &table_with_joins.joins {
                    self.table(&j.relation);
                }
            }
            _ => {}
        }
    }

    /// `e` itself when it is a column reference this scope cannot supply.
    fn outer_reference(&self, e: &ast::Expr) -> Option<ast::Expr> {
        match e {
            ast::Expr::Identifier(id)
                if !id.value.starts_with(eval::OUTER_REFERENCE_PREFIX)
                    && !self.columns.contains(&id.value.to_lowercase()) =>
            {
                Some(e.clone())
            }
            ast::Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
                let table = &parts[parts.len() - 2].value;
                (!self.tables.contains(table)).then(|| e.clone())
            }
            _ => None,
        }
    }
}

/// A CAST target with the values of `ty` (the result type of a scalar
/// subquery, passed to the compiler as `CAST(NULL AS type)`).
fn cast_type(ty: &ColumnType) -> ast::DataType {
    use ast::DataType as D;
    match ty {
        ColumnType::Int { unsigned: true, .. } => D::Unsigned,
        ColumnType::Int { .. } | ColumnType::Year => D::Signed,
        ColumnType::Decimal { precision, scale } => D::Decimal(
            ast::ExactNumberInfo::PrecisionAndScale(u64::from(*precision), i64::from(*scale)),
        ),
        ColumnType::Double => D::Double(ast::ExactNumberInfo::None),
        ColumnType::Float => D::Float(ast::ExactNumberInfo::None),
        ColumnType::Date => D::Date,
        ColumnType::Datetime { fsp } | ColumnType::Timestamp { fsp } => {
            D::Datetime(Some(u64::from(*fsp)))
        }
        ColumnType::Time { fsp } => D::Time(Some(u64::from(*fsp)), ast::TimezoneInfo::None),
        ColumnType::Binary { .. } | ColumnType::Varbinary { .. } | ColumnType::Blob { .. } => {
            D::Binary(None)
        }
        _ => D::Char(None),
    }
}
