//! INSERT [IGNORE] (VALUES, SET, SELECT; ON DUPLICATE KEY UPDATE), REPLACE,
//! and single-table UPDATE and DELETE with WHERE, ORDER BY and LIMIT.
//!
//! Every statement runs in the session's transaction: it starts at an undo
//! mark (`session::transaction`) so a failure half-way
//! reverts the statement, and an autocommit statement commits at the end.
//! Values are converted to the column types with MySQL's rules
//! (`crate::value::store`, strict per `sql_mode`); omitted columns take their
//! DEFAULT (`crate::ddl::TableMeta`), NOT NULL columns without one fail
//! with 1364 in strict mode; AUTO_INCREMENT fills NULL and 0.
//! UPDATE and DELETE first collect the matching rows, then change them, so
//! a change never meets its own result.

use std::sync::atomic::Ordering as AtomicOrdering;
use std::sync::Arc;

use larch_engine::error::EngineError;
use larch_engine::lock::LockMode;
use larch_engine::record::value::{ColumnType, Value};
use larch_engine::table::{KeyRange, ReadContext, RowRef, Table, TxnContext};
use sqlparser::ast;

mod multi;

use super::names;
use super::rows;
use crate::ddl::TableMeta;
use crate::error::{SqlError, Warning};
use crate::eval::{self, CompileOptions, ExprType};
use crate::result::{OkInfo, QueryResult};
use crate::session::Session;
use crate::value::store::{store, StoreTarget};

pub(super) fn execute(
    s: &mut Session,
    stmt: &ast::Statement,
    params: &[Value],
) -> Result<QueryResult, SqlError> {
    let mark = s.statement_mark()?;
    s.read = txn_ctx(s)?.read_context();
    if matches!(stmt, ast::Statement::Update(_) | ast::Statement::Delete(_)) {
        s.locking = Some((LockMode::Exclusive, None));
    }
    let mut w = Writer {
        warnings: Vec::new(),
    };
    let r = match stmt {
        ast::Statement::Insert(i) => insert(s, i, params, &mut w),
        ast::Statement::Update(u) => update(s, u, params, &mut w),
        ast::Statement::Delete(d) => delete(s, d, params, &mut w),
        _ => Err(SqlError::not_supported("this statement")),
    };
    s.locking = None;
    s.read = ReadContext::NEWEST;
    for warning in std::mem::take(&mut w.warnings) {
        s.push_warning(warning);
    }
    s.end_statement(r.as_ref().err(), mark)?;
    let r = r?;
    if let QueryResult::Ok(ok) = &r {
        s.row_count = ok.affected_rows as i64;
        if ok.last_insert_id != 0 {
            s.last_insert_id = ok.last_insert_id;
        }
    }
    Ok(r)
}

struct Writer {
    warnings: Vec<Warning>,
}

/// The engine transaction of the statement (opened by `statement_mark`).
pub(super) fn txn_ctx(s: &mut Session) -> Result<&mut TxnContext, SqlError> {
    s.txn
        .as_mut()
        .map(|t| &mut t.ctx)
        .ok_or_else(|| SqlError::new(1105, "no transaction"))
}

/// What a statement needs to know about its target table.
struct Target {
    db: String,
    name: String,
    table: Arc<Table>,
    meta: TableMeta,
}

fn target(s: &Session, name: &ast::ObjectName) -> Result<Target, SqlError> {
    let (db, t) = names::table_name(s, name)?;
    let table = names::open_table(s, &db, &t)?;
    let entry =
        s.db.catalog()
            .table_entry(&db, &t)
            .ok_or_else(|| SqlError::no_such_table(&db, &t))?;
    let meta = TableMeta::decode(&entry.sql_meta, &entry.def)?;
    Ok(Target {
        db,
        name: t,
        table,
        meta,
    })
}

fn column_index(t: &Target, name: &str, clause: &str) -> Result<usize, SqlError> {
    t.table
        .def()
        .columns
        .iter()
        .position(|c| c.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| SqlError::unknown_column(name, clause))
}

/// Converts `v` to column `c`'s type (NULL into NOT NULL is 1048).
fn convert(
    s: &Session,
    t: &Target,
    c: usize,
    v: &Value,
    row_no: u64,
    w: &mut Writer,
) -> Result<Value, SqlError> {
    let col = &t.table.def().columns[c];
    if v.is_null() {
        if !col.nullable && t.table.def().auto_increment != Some(c) {
            return Err(SqlError::new(
                1048,
                format!("Column '{}' cannot be null", col.name),
            ));
        }
        return Ok(Value::Null);
    }
    let target = StoreTarget {
        db: &t.db,
        table: &t.name,
        column: &col.name,
        row: row_no,
        strict: s.strict(),
    };
    store(v, &col.ty, &target, &mut w.warnings)
}

/// The value an omitted column gets.
fn default_value(
    s: &Session,
    t: &Target,
    c: usize,
    row_no: u64,
    w: &mut Writer,
) -> Result<Value, SqlError> {
    let col = &t.table.def().columns[c];
    match t.meta.columns.get(c).and_then(|m| m.default.clone()) {
        Some(text) => {
            let e = crate::parse::parse(&format!("SELECT {text}"))?;
            let expr = match e.first() {
                Some(crate::parse::Statement::Sql(st)) => match st.as_ref() {
                    ast::Statement::Query(q) => match q.body.as_ref() {
                        ast::SetExpr::Select(sel) => match sel.projection.first() {
                            Some(
                                ast::SelectItem::UnnamedExpr(e)
                                | ast::SelectItem::ExprWithAlias { expr: e, .. },
                            ) => e.clone(),
                            _ => return Ok(Value::Null),
                        },
                        _ => return Ok(Value::Null),
                    },
                    _ => return Ok(Value::Null),
                },
                _ => return Ok(Value::Null),
            };
            let resolve = |_: &[ast::Ident]| None;
            let c2 = eval::compile(&expr, &resolve, &CompileOptions::default())?;
            let mut ctx = s.eval_context(&[]);
            let v = c2.eval(&[], &mut ctx)?;
            convert(s, t, c, &v, row_no, w)
        }
        None if col.nullable || t.table.def().auto_increment == Some(c) => Ok(Value::Null),
        None => {
            let msg = format!("Field '{}' doesn't have a default value", col.name);
            if s.strict() {
                return Err(SqlError::new(1364, msg));
            }
            w.warnings.push(Warning::warn(1364, msg));
            Ok(implicit_default(&col.ty))
        }
    }
}

/// MySQL's implicit default of a NOT NULL column without DEFAULT.
fn implicit_default(ty: &ColumnType) -> Value {
    match ty {
        ColumnType::Int { unsigned: true, .. } => Value::UInt(0),
        ColumnType::Int { .. } => Value::Int(0),
        ColumnType::Decimal { .. } => Value::Decimal(larch_engine::record::value::Decimal::zero()),
        ColumnType::Float => Value::Float(0.0),
        ColumnType::Double => Value::Double(0.0),
        ColumnType::Enum { .. } => Value::Enum(1),
        ColumnType::Set { .. } => Value::Set(0),
        ColumnType::Bit { .. } => Value::Bit(0),
        ColumnType::Year => Value::Year(0),
        ColumnType::Date => Value::Date(Default::default()),
        ColumnType::Datetime { .. } => Value::Datetime(Default::default()),
        ColumnType::Time { .. } => Value::Time(0),
        t if t.is_binary_string() => Value::Bytes(Vec::new()),
        _ => Value::Str(String::new()),
    }
}

/// Engine form of a row read by `rows` (ENUM/SET from text back to numbers).
fn engine_row(t: &Target, row: &[Value]) -> Vec<Value> {
    row.iter()
        .zip(&t.table.def().columns)
        .map(|(v, c)| match (&c.ty, v) {
            (ColumnType::Enum { values }, Value::Str(s)) => Value::Enum(
                values
                    .iter()
                    .position(|m| m == s)
                    .map_or(0, |i| i as u16 + 1),
            ),
            (ColumnType::Set { values }, Value::Str(s)) => Value::Set(
                s.split(',')
                    .filter_map(|p| values.iter().position(|m| m == p))
                    .fold(0u64, |acc, i| acc | (1 << i)),
            ),
            _ => v.clone(),
        })
        .collect()
}

fn is_default_word(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Identifier(id) if id.quote_style.is_none() && id.value.eq_ignore_ascii_case("DEFAULT"))
}

fn insert(
    s: &mut Session,
    ins: &ast::Insert,
    params: &[Value],
    w: &mut Writer,
) -> Result<QueryResult, SqlError> {
    s.db.status.com_insert.fetch_add(1, AtomicOrdering::Relaxed);
    let ast::TableObject::TableName(name) = &ins.table else {
        return Err(SqlError::not_supported("INSERT into a table function"));
    };
    let t = target(s, name)?;
    let ncols = t.table.def().columns.len();
    let mut cols: Vec<usize> = ins
        .columns
        .iter()
        .map(|c| column_index(&t, &names::object_last(c), "INSERT INTO"))
        .collect::<Result<_, _>>()?;
    // Source rows as expressions (VALUES, SET) or values (SELECT).
    enum Src {
        Exprs(Vec<Vec<ast::Expr>>),
        Values(Vec<Vec<Value>>),
    }
    let src = if !ins.assignments.is_empty() {
        cols.clear();
        let mut row = Vec::new();
        for a in &ins.assignments {
            let ast::AssignmentTarget::ColumnName(n) = &a.target else {
                return Err(SqlError::not_supported("tuple assignment"));
            };
            cols.push(column_index(&t, &names::object_last(n), "INSERT INTO")?);
            row.push(a.value.clone());
        }
        Src::Exprs(vec![row])
    } else {
        let Some(q) = &ins.source else {
            return Err(SqlError::new(1064, "INSERT needs VALUES, SET or SELECT"));
        };
        match q.body.as_ref() {
            ast::SetExpr::Values(v) => {
                Src::Exprs(v.rows.iter().map(|r| r.content.clone()).collect())
            }
            _ => Src::Values(super::select::run_query(s, q, params)?.rows),
        }
    };
    if cols.is_empty() && ins.assignments.is_empty() {
        cols = (0..ncols).collect();
    }
    let odku: Vec<(usize, ast::Expr)> = match &ins.on {
        Some(ast::OnInsert::DuplicateKeyUpdate(list)) => list
            .iter()
            .map(|a| match &a.target {
                ast::AssignmentTarget::ColumnName(n) => Ok((
                    column_index(&t, &names::object_last(n), "UPDATE")?,
                    a.value.clone(),
                )),
                _ => Err(SqlError::not_supported("tuple assignment")),
            })
            .collect::<Result<_, _>>()?,
        _ => Vec::new(),
    };
    let replace = ins.replace_into;
    let ignore = ins.ignore;
    let auto = t.table.def().auto_increment;
    let no_auto_on_zero = s.sql_mode_has("NO_AUTO_VALUE_ON_ZERO");
    let (mut affected, mut first_id, mut dups) = (0u64, 0u64, 0u64);
    let rows_in: Vec<Vec<Option<Value>>> = match src {
        Src::Exprs(rows) => {
            let resolve = |_: &[ast::Ident]| None;
            let opts = CompileOptions {
                collation: s.connection_collation(),
                clause: "VALUES".into(),
            };
            let mut next_param = 0;
            let mut out = Vec::with_capacity(rows.len());
            for r in &rows {
                let mut vals = Vec::with_capacity(r.len());
                for e in r {
                    if is_default_word(e) {
                        vals.push(None);
                        continue;
                    }
                    let c = eval::compile_with_params(e, &resolve, &opts, &mut next_param)?;
                    let mut ctx = s.eval_context(params);
                    let v = c.eval(&[], &mut ctx)?;
                    w.warnings.extend(ctx.take_warnings());
                    vals.push(Some(v));
                }
                out.push(vals);
            }
            out
        }
        Src::Values(rows) => rows
            .into_iter()
            .map(|r| r.into_iter().map(Some).collect())
            .collect(),
    };
    for (n, vals) in rows_in.into_iter().enumerate() {
        let row_no = n as u64 + 1;
        // `VALUES ()` without a column list (or with an empty one) is a
        // row of defaults, as in MariaDB.
        let vals = if vals.is_empty() && ins.columns.is_empty() && ins.assignments.is_empty() {
            vec![None; cols.len()]
        } else {
            vals
        };
        if vals.len() != cols.len() {
            return Err(SqlError::new(
                1136,
                format!("Column count doesn't match value count at row {row_no}"),
            ));
        }
        let mut row: Vec<Option<Value>> = vec![None; ncols];
        for (c, v) in cols.iter().zip(vals) {
            row[*c] = v;
        }
        let mut full = Vec::with_capacity(ncols);
        for (c, v) in row.into_iter().enumerate() {
            full.push(match v {
                Some(v) => convert(s, &t, c, &v, row_no, w)?,
                None => default_value(s, &t, c, row_no, w)?,
            });
        }
        if let Some(a) = auto {
            let zero = matches!(full[a], Value::Int(0) | Value::UInt(0)) && !no_auto_on_zero;
            if full[a].is_null() || zero {
                let id = t.table.allocate_auto_increment(1)?;
                full[a] = convert(s, &t, a, &Value::UInt(id), row_no, w)?;
                if first_id == 0 {
                    first_id = id;
                }
            }
        }
        match t.table.insert(txn_ctx(s)?, &full) {
            Ok(_) => {
                affected += 1;
            }
            Err(e) if is_duplicate(&e) && (replace || !odku.is_empty() || ignore) => {
                if ignore && !replace && odku.is_empty() {
                    w.warnings
                        .push(Warning::warn(1062, SqlError::from(e).message()));
                    continue;
                }
                let conflicts = conflicts(&t, &full, s)?;
                if replace {
                    for (at, _) in conflicts {
                        if t.table.delete(txn_ctx(s)?, &at)? {
                            affected += 1;
                            dups += 1;
                        }
                    }
                    t.table.insert(txn_ctx(s)?, &full)?;
                    affected += 1;
                } else if let Some((at, old)) = conflicts.into_iter().next() {
                    let new = odku_row(s, &t, &old, &full, &odku, params, row_no, w)?;
                    if new != old {
                        if let Some(_new_at) = t.table.update(txn_ctx(s)?, &at, &new)? {}
                        affected += 2;
                    } else if s.client_found_rows {
                        affected += 1;
                    }
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    s.db.status
        .rows_inserted
        .fetch_add(affected, AtomicOrdering::Relaxed);
    Ok(QueryResult::Ok(
        OkInfo {
            affected_rows: affected,
            last_insert_id: first_id,
            info: String::new(),
        }
        .with_dups(dups, w.warnings.len()),
    ))
}

trait WithDups {
    fn with_dups(self, dups: u64, warnings: usize) -> Self;
}

impl WithDups for OkInfo {
    fn with_dups(mut self, dups: u64, warnings: usize) -> Self {
        if self.affected_rows > 1 || dups > 0 {
            self.info = format!(
                "Records: {}  Duplicates: {dups}  Warnings: {warnings}",
                self.affected_rows.saturating_sub(dups)
            );
        }
        self
    }
}

fn is_duplicate(e: &EngineError) -> bool {
    matches!(
        e,
        EngineError::DuplicateKey { .. } | EngineError::DuplicateEntry { .. }
    )
}

/// Rows that hold one of `row`'s unique key values.
fn conflicts(
    t: &Target,
    row: &[Value],
    s: &mut Session,
) -> Result<Vec<(RowRef, Vec<Value>)>, SqlError> {
    let def = t.table.def();
    let mut out: Vec<(RowRef, Vec<Value>)> = Vec::new();
    if let Some(pk) = &def.primary_key {
        let key: Vec<Value> = pk.columns.iter().map(|c| row[c.column].clone()).collect();
        let at = t.table.row_ref(&key)?;
        let _granted = t
            .table
            .lock_row(txn_ctx(s)?, &at, LockMode::Exclusive, None)?;
        if let Some(old) = t.table.get(&ReadContext::NEWEST, &at)? {
            out.push((at, old));
        }
    }
    for (i, idx) in def.secondary.iter().enumerate().filter(|(_, x)| x.unique) {
        let key: Vec<Value> = idx.columns.iter().map(|c| row[c.column].clone()).collect();
        if key.iter().any(Value::is_null) || idx.columns.iter().any(|c| c.prefix_len.is_some()) {
            continue;
        }
        let mut found = Vec::new();
        let mut cur = t
            .table
            .scan(&ReadContext::NEWEST, i + 1, &KeyRange::eq(key), false, None)?;
        while let Some((at, _)) = cur.next_row()? {
            found.push(at);
        }
        for at in found {
            if out.iter().any(|(a, _)| *a == at) {
                continue;
            }
            let _granted = t
                .table
                .lock_row(txn_ctx(s)?, &at, LockMode::Exclusive, None)?;
            if let Some(old) = t.table.get(&ReadContext::NEWEST, &at)? {
                out.push((at, old));
            }
        }
    }
    Ok(out)
}

/// The row ON DUPLICATE KEY UPDATE makes of `old`; `VALUES(c)` reads the
/// row that failed to insert.
#[allow(clippy::too_many_arguments)]
fn odku_row(
    s: &Session,
    t: &Target,
    old: &[Value],
    new: &[Value],
    sets: &[(usize, ast::Expr)],
    params: &[Value],
    row_no: u64,
    w: &mut Writer,
) -> Result<Vec<Value>, SqlError> {
    let def = t.table.def();
    let n = def.columns.len();
    let mut row: Vec<Value> = old.to_vec();
    row.extend(new.iter().cloned());
    for (c, e) in sets {
        let mut e = e.clone();
        let _ = ast::visit_expressions_mut(&mut e, |x| {
            if let ast::Expr::Function(f) = x {
                if f.name.to_string().eq_ignore_ascii_case("VALUES") {
                    if let ast::FunctionArguments::List(l) = &f.args {
                        if let Some(ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(arg))) =
                            l.args.first()
                        {
                            if let Some(i) = column_ref(def, arg) {
                                *x = ast::Expr::Identifier(ast::Ident::new(format!(
                                    "__larch_new_{i}"
                                )));
                            }
                        }
                    }
                }
            }
            std::ops::ControlFlow::<()>::Continue(())
        });
        let resolve = |parts: &[ast::Ident]| {
            let name = &parts.last()?.value;
            if let Some(i) = name
                .strip_prefix("__larch_new_")
                .and_then(|i| i.parse::<usize>().ok())
            {
                return Some((n + i, col_type(def, i)));
            }
            let i = def
                .columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(name))?;
            Some((i, col_type(def, i)))
        };
        let compiled = eval::compile(&e, &resolve, &CompileOptions::default())?;
        let mut ctx = s.eval_context(params);
        let v = compiled.eval(&row, &mut ctx)?;
        row[*c] = convert(s, t, *c, &v, row_no, w)?;
    }
    row.truncate(n);
    Ok(row)
}

fn col_type(def: &larch_engine::table::TableDef, i: usize) -> ExprType {
    ExprType {
        ty: def.columns[i].ty.clone(),
        nullable: def.columns[i].nullable,
    }
}

fn column_ref(def: &larch_engine::table::TableDef, e: &ast::Expr) -> Option<usize> {
    let name = match e {
        ast::Expr::Identifier(i) => &i.value,
        ast::Expr::CompoundIdentifier(p) => &p.last()?.value,
        _ => return None,
    };
    def.columns
        .iter()
        .position(|c| c.name.eq_ignore_ascii_case(name))
}

/// The rows an UPDATE or DELETE changes: (address, row as read).
fn matching_rows(
    s: &Session,
    t: &Target,
    alias: &str,
    selection: Option<&ast::Expr>,
    order_by: &[ast::OrderByExpr],
    limit: Option<&ast::Expr>,
    params: &[Value],
) -> Result<Vec<(RowRef, Vec<Value>)>, SqlError> {
    let def = t.table.def();
    let resolve = |parts: &[ast::Ident]| {
        let (q, name) = match parts {
            [c] => (None, &c.value),
            [tb, c] => (Some(&tb.value), &c.value),
            [_, tb, c] => (Some(&tb.value), &c.value),
            _ => return None,
        };
        if q.is_some_and(|q| q != alias && *q != t.name) {
            return None;
        }
        let i = def
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))?;
        Some((i, col_type(def, i)))
    };
    let opts = CompileOptions {
        collation: s.connection_collation(),
        clause: "WHERE".into(),
    };
    let cond = selection
        .map(|e| eval::compile(e, &resolve, &opts))
        .transpose()?;
    let conds: Vec<&ast::Expr> = selection.map(rows::conjuncts).unwrap_or_default();
    let column_of = |e: &ast::Expr| match e {
        ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_) => {
            let parts = match e {
                ast::Expr::Identifier(i) => vec![i.clone()],
                ast::Expr::CompoundIdentifier(p) => p.clone(),
                _ => vec![],
            };
            resolve(&parts).map(|(i, _)| i)
        }
        _ => None,
    };
    let mut ctx = s.eval_context(params);
    let access = crate::exec::access::choose_access(&t.table, &conds, &column_of, &mut ctx);
    let limit_n = match limit {
        Some(e) => {
            let r = |_: &[ast::Ident]| None;
            match eval::compile(e, &r, &CompileOptions::default())?.eval(&[], &mut ctx)? {
                Value::Int(i) if i >= 0 => Some(i as u64),
                Value::UInt(u) => Some(u),
                _ => return Err(SqlError::new(1210, "Incorrect arguments to LIMIT")),
            }
        }
        None => None,
    };
    let stop = if order_by.is_empty() { limit_n } else { None };
    let mut out = Vec::new();
    rows::for_each_row(
        &t.table,
        &access,
        false,
        None,
        &s.process.kill_query,
        &s.row_reading(),
        &mut |at, row| {
            if let Some(c) = &cond {
                if !rows::truthy(&c.eval(&row, &mut ctx)?) {
                    return Ok(true);
                }
            }
            out.push((at, row));
            Ok(stop.is_none_or(|n| (out.len() as u64) < n))
        },
    )?;
    if !order_by.is_empty() {
        let keys: Vec<(eval::Compiled, bool)> = order_by
            .iter()
            .map(|o| {
                eval::compile(&o.expr, &resolve, &opts)
                    .map(|c| (c, matches!(o.options.sort, Some(ast::OrderBySort::Desc))))
            })
            .collect::<Result<_, _>>()?;
        let mut keyed = Vec::with_capacity(out.len());
        for item in out {
            let mut k = Vec::new();
            for (c, _) in &keys {
                k.push(c.eval(&item.1, &mut ctx)?);
            }
            keyed.push((k, item));
        }
        let mut c2 = s.eval_context(&[]);
        keyed.sort_by(|a, b| {
            for (i, (c, desc)) in keys.iter().enumerate() {
                let coll =
                    c.ty.ty
                        .collation()
                        .unwrap_or(larch_engine::record::collation::Collation::Binary);
                let o = match (a.0[i].is_null(), b.0[i].is_null()) {
                    (true, true) => std::cmp::Ordering::Equal,
                    (true, false) => std::cmp::Ordering::Less,
                    (false, true) => std::cmp::Ordering::Greater,
                    _ => eval::compare(&a.0[i], &b.0[i], coll, &mut c2)
                        .unwrap_or(std::cmp::Ordering::Equal),
                };
                let o = if *desc { o.reverse() } else { o };
                if o != std::cmp::Ordering::Equal {
                    return o;
                }
            }
            std::cmp::Ordering::Equal
        });
        out = keyed.into_iter().map(|(_, i)| i).collect();
        if let Some(n) = limit_n {
            out.truncate(usize::try_from(n).unwrap_or(usize::MAX));
        }
    }
    Ok(out)
}

fn single_table(twj: &ast::TableWithJoins) -> Result<(&ast::ObjectName, Option<String>), SqlError> {
    if !twj.joins.is_empty() {
        return Err(SqlError::not_supported("multi-table UPDATE and DELETE"));
    }
    match &twj.relation {
        ast::TableFactor::Table { name, alias, .. } => {
            Ok((name, alias.as_ref().map(|a| a.name.value.clone())))
        }
        _ => Err(SqlError::not_supported("this UPDATE/DELETE target")),
    }
}

fn update(
    s: &mut Session,
    u: &ast::Update,
    params: &[Value],
    w: &mut Writer,
) -> Result<QueryResult, SqlError> {
    s.db.status.com_update.fetch_add(1, AtomicOrdering::Relaxed);
    if u.from.is_some() {
        return Err(SqlError::not_supported("UPDATE ... FROM"));
    }
    if !u.table.joins.is_empty() {
        return multi::update(s, u, params, w);
    }
    let (name, alias) = single_table(&u.table)?;
    let t = target(s, name)?;
    let alias = alias.unwrap_or_else(|| t.name.clone());
    let def = t.table.def().clone();
    let sets: Vec<(usize, ast::Expr)> = u
        .assignments
        .iter()
        .map(|a| match &a.target {
            ast::AssignmentTarget::ColumnName(n) => Ok((
                column_index(&t, &names::object_last(n), "SET")?,
                a.value.clone(),
            )),
            _ => Err(SqlError::not_supported("tuple assignment")),
        })
        .collect::<Result<_, _>>()?;
    let resolve = |parts: &[ast::Ident]| {
        let name = &parts.last()?.value;
        let i = def
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))?;
        Some((i, col_type(&def, i)))
    };
    let opts = CompileOptions {
        collation: s.connection_collation(),
        clause: "SET".into(),
    };
    // Prepared statements number their placeholders in text order, so the
    // SET list and the WHERE read the same parameter list.
    let compiled: Vec<(usize, eval::Compiled)> = sets
        .iter()
        .map(|(c, e)| eval::compile(e, &resolve, &opts).map(|x| (*c, x)))
        .collect::<Result<_, _>>()?;
    let found = matching_rows(
        s,
        &t,
        &alias,
        u.selection.as_ref(),
        &u.order_by,
        u.limit.as_ref(),
        params,
    )?;
    let on_update: Vec<usize> = t
        .meta
        .columns
        .iter()
        .enumerate()
        .filter(|(i, m)| m.on_update_now && !sets.iter().any(|(c, _)| c == i))
        .map(|(i, _)| i)
        .collect();
    let (mut matched, mut changed) = (0u64, 0u64);
    for (n, (at, row)) in found.into_iter().enumerate() {
        matched += 1;
        let old = engine_row(&t, &row);
        let mut cur = row.clone();
        let mut new = old.clone();
        for (c, e) in &compiled {
            let mut ctx = s.eval_context(params);
            let v = e.eval(&cur, &mut ctx)?;
            w.warnings.extend(ctx.take_warnings());
            let stored = convert(s, &t, *c, &v, n as u64 + 1, w)?;
            cur[*c] = match (&def.columns[*c].ty, &stored) {
                (ColumnType::Enum { .. } | ColumnType::Set { .. }, v) if !v.is_null() => {
                    Value::Str(
                        String::from_utf8_lossy(
                            &crate::value::to_text(v, &def.columns[*c].ty).unwrap_or_default(),
                        )
                        .into_owned(),
                    )
                }
                (_, v) => v.clone(),
            };
            new[*c] = stored;
        }
        if new == old {
            continue;
        }
        for &c in &on_update {
            let mut ctx = s.eval_context(&[]);
            let now = Value::Datetime(ctx.now);
            let _ = &mut ctx;
            new[c] = convert(s, &t, c, &now, n as u64 + 1, w)?;
        }
        if let Some(_new_at) = t.table.update(txn_ctx(s)?, &at, &new)? {
            changed += 1;
        }
    }
    s.db.status
        .rows_updated
        .fetch_add(changed, AtomicOrdering::Relaxed);
    let affected = if s.client_found_rows {
        matched
    } else {
        changed
    };
    Ok(QueryResult::Ok(OkInfo {
        affected_rows: affected,
        last_insert_id: 0,
        info: format!(
            "Rows matched: {matched}  Changed: {changed}  Warnings: {}",
            w.warnings.len()
        ),
    }))
}

fn delete(
    s: &mut Session,
    d: &ast::Delete,
    params: &[Value],
    w: &mut Writer,
) -> Result<QueryResult, SqlError> {
    s.db.status.com_delete.fetch_add(1, AtomicOrdering::Relaxed);
    let from = match &d.from {
        ast::FromTable::WithFromKeyword(v) | ast::FromTable::WithoutKeyword(v) => v,
    };
    let single = d.tables.is_empty()
        && d.using.is_none()
        && from.len() == 1
        && from.iter().all(|f| f.joins.is_empty());
    if !single {
        return multi::delete(s, d, params, w);
    }
    let [twj] = from.as_slice() else {
        return Err(SqlError::not_supported("DELETE without a table"));
    };
    let (name, alias) = single_table(twj)?;
    let t = target(s, name)?;
    let alias = alias.unwrap_or_else(|| t.name.clone());
    let found = matching_rows(
        s,
        &t,
        &alias,
        d.selection.as_ref(),
        &d.order_by,
        d.limit.as_ref(),
        params,
    )?;
    let mut deleted = 0u64;
    for (at, _row) in found {
        if t.table.delete(txn_ctx(s)?, &at)? {
            deleted += 1;
        }
    }
    s.db.status
        .rows_deleted
        .fetch_add(deleted, AtomicOrdering::Relaxed);
    Ok(QueryResult::affected(deleted))
}
