//! `EXPLAIN UPDATE | DELETE | INSERT | REPLACE` in MariaDB's tabular form.
//!
//! A single-table UPDATE or DELETE reads its table through the access path
//! `access::plan` chooses from the WHERE conjuncts (the statement itself
//! calls it through `access::choose_access`, with the same column mapping),
//! so the line shows that path as MariaDB's single-table optimizer does:
//! an index read is always `range` (a point too) with `Using where`; with no
//! usable index UPDATE reads the clustered index (`index` on PRIMARY) and
//! DELETE the table (`ALL`); a DELETE of every row is `Deleting all rows`.
//! `Using buffer` marks an UPDATE that changes a column of the index it
//! reads by, `Using filesort` an ORDER BY.
//!
//! INSERT/REPLACE ... SELECT shows the SELECT's plan; with VALUES or SET,
//! one `INSERT` line naming the table.

use larch_engine::record::value::Value;
use larch_engine::table::{KeyRange, Table, CLUSTERED};
use sqlparser::ast;

use super::key_parts::key_len;
use super::{first_line, result, Line};
use crate::error::SqlError;
use crate::exec::access::{self, Access, Want};
use crate::exec::{names, rows};
use crate::result::{QueryResult, ResultColumn, RowSet};
use crate::session::Session;

/// Explains an UPDATE, DELETE, INSERT or REPLACE statement.
pub(crate) fn explain_write(
    s: &mut Session,
    stmt: &ast::Statement,
    params: &[Value],
) -> Result<QueryResult, SqlError> {
    match stmt {
        ast::Statement::Update(u) => {
            if !u.table.joins.is_empty() || u.from.is_some() {
                return Err(SqlError::not_supported("EXPLAIN of a multi-table UPDATE"));
            }
            let set: Vec<String> = u
                .assignments
                .iter()
                .filter_map(|a| match &a.target {
                    ast::AssignmentTarget::ColumnName(n) => Some(names::object_last(n)),
                    _ => None,
                })
                .collect();
            let line = single_table_line(
                s,
                &u.table.relation,
                u.selection.as_ref(),
                &u.order_by,
                u.limit.is_some(),
                Some(&set),
                params,
            )?;
            Ok(result(vec![line]))
        }
        ast::Statement::Delete(d) => {
            let from = match &d.from {
                ast::FromTable::WithFromKeyword(v) | ast::FromTable::WithoutKeyword(v) => v,
            };
            let [twj] = from.as_slice() else {
                return Err(SqlError::not_supported("EXPLAIN of a multi-table DELETE"));
            };
            if !d.tables.is_empty() || d.using.is_some() || !twj.joins.is_empty() {
                return Err(SqlError::not_supported("EXPLAIN of a multi-table DELETE"));
            }
            let line = single_table_line(
                s,
                &twj.relation,
                d.selection.as_ref(),
                &d.order_by,
                d.limit.is_some(),
                None,
                params,
            )?;
            Ok(result(vec![line]))
        }
        ast::Statement::Insert(i) => match &i.source {
            Some(q) if !matches!(q.body.as_ref(), ast::SetExpr::Values(_)) => {
                super::explain(s, q, params)
            }
            _ => {
                let name = match &i.table {
                    ast::TableObject::TableName(n) => names::object_last(n),
                    _ => return Err(SqlError::not_supported("INSERT INTO a table function")),
                };
                Ok(insert_line(name))
            }
        },
        _ => Err(SqlError::not_supported("EXPLAIN of this statement")),
    }
}

/// The one line of an INSERT with VALUES or SET.
fn insert_line(table: String) -> QueryResult {
    let QueryResult::Rows(RowSet { columns, .. }) = result(Vec::new()) else {
        return result(Vec::new());
    };
    let null = || Value::Null;
    QueryResult::Rows(RowSet {
        columns: columns
            .into_iter()
            .map(|c| ResultColumn {
                nullable: true,
                ..c
            })
            .collect(),
        rows: vec![vec![
            Value::UInt(1),
            Value::Str("INSERT".into()),
            Value::Str(table),
            Value::Str("ALL".into()),
            null(),
            null(),
            null(),
            null(),
            null(),
            null(),
        ]],
    })
}

/// The line of a single-table UPDATE (`set`: the columns it assigns) or
/// DELETE (`set` is `None`).
fn single_table_line(
    s: &Session,
    relation: &ast::TableFactor,
    selection: Option<&ast::Expr>,
    order_by: &[ast::OrderByExpr],
    limited: bool,
    set: Option<&[String]>,
    params: &[Value],
) -> Result<Line, SqlError> {
    let ast::TableFactor::Table { name, alias, .. } = relation else {
        return Err(SqlError::not_supported("this UPDATE/DELETE target"));
    };
    let (db, table) = names::table_name(s, name)?;
    let t = names::open_table(s, &db, &table, None, false)?;
    let shown = alias
        .as_ref()
        .map_or_else(|| names::object_last(name), |a| a.name.value.clone());
    let def = t.def();
    // The column mapping of the statement's own WHERE (write::matching).
    let column_of = |e: &ast::Expr| {
        let parts: Vec<&ast::Ident> = match e {
            ast::Expr::Identifier(i) => vec![i],
            ast::Expr::CompoundIdentifier(p) => p.iter().collect(),
            _ => return None,
        };
        let (q, col) = match parts.as_slice() {
            [c] => (None, &c.value),
            [tb, c] | [_, tb, c] => (Some(&tb.value), &c.value),
            _ => return None,
        };
        if q.is_some_and(|q| *q != shown && *q != table) {
            return None;
        }
        def.columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(col))
    };
    let conds: Vec<&ast::Expr> = selection.map(rows::conjuncts).unwrap_or_default();
    let mut ctx = s.eval_context(params);
    let plan = access::plan(&t, &conds, &column_of, &mut ctx, Want::default());
    let total = t.estimate_rows(CLUSTERED, &KeyRange::all()).unwrap_or(0);
    let mut line = match &plan.access {
        Access::Scan if set.is_none() && selection.is_none() && order_by.is_empty() && !limited => {
            return Ok(Line {
                id: Some(1),
                select_type: "SIMPLE".into(),
                table: None,
                access: None,
                possible_keys: None,
                key: None,
                key_len: None,
                reference: None,
                rows: Some(total),
                extra: "Deleting all rows".into(),
            });
        }
        Access::Scan => match &def.primary_key {
            Some(pk) if set.is_some() => Line {
                access: Some("index".into()),
                key: Some("PRIMARY".into()),
                key_len: Some(key_len(&t, CLUSTERED, pk.columns.len()).to_string()),
                ..Line::all(Some(total), "")
            },
            _ => Line::all(Some(total), ""),
        },
        Access::Ranges { .. } => {
            let mut l = first_line(&t, &plan, &conds);
            l.access = Some("range".into());
            l.reference = None;
            l
        }
    };
    let mut extra = Vec::new();
    if selection.is_some() {
        extra.push("Using where");
    }
    if let (Some(set), Access::Ranges { index, .. }) = (set, &plan.access) {
        if changes_key(&t, *index, set) {
            extra.push("Using buffer");
        }
    }
    if !order_by.is_empty() {
        extra.push("Using filesort");
    }
    line.id = Some(1);
    line.select_type = "SIMPLE".into();
    line.table = Some(shown);
    line.extra = extra.join("; ");
    Ok(line)
}

/// True when one of `set` is a column of index `index` of `t`.
fn changes_key(t: &Table, index: usize, set: &[String]) -> bool {
    let def = t.def();
    let idx = if index == CLUSTERED {
        def.primary_key.as_ref()
    } else {
        def.secondary.get(index - 1)
    };
    idx.is_some_and(|idx| {
        idx.columns.iter().any(|p| {
            def.columns
                .get(p.column)
                .is_some_and(|c| set.iter().any(|n| n.eq_ignore_ascii_case(&c.name)))
        })
    })
}
