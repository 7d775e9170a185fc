//! INSERT and REPLACE: rows from VALUES, SET or a SELECT (and the rows
//! CREATE TABLE ... SELECT computed), converted to the table's columns,
//! with IGNORE, REPLACE and ON DUPLICATE KEY UPDATE handling duplicate keys.

use std::sync::atomic::Ordering as AtomicOrdering;

use larch_engine::error::EngineError;
use larch_engine::lock::LockMode;
use larch_engine::record::value::{ColumnType, Value};
use larch_engine::table::{KeyRange, ReadContext, RowRef};
use sqlparser::ast;

use super::names;
use super::row_so_far::RowSoFar;
use super::source;
use super::trigger_nulls::NullChecks;
use super::{
    col_type, column_index, column_ref, convert, generated_null, is_default_word, target, txn_ctx,
    Target, Writer,
};
use crate::error::{SqlError, Warning};
use crate::eval::{self, CompileOptions};
use crate::parse::trigger::{Event, Timing};
use crate::result::{OkInfo, QueryResult};
use crate::session::Session;

/// Prefix of the hidden names that stand for `VALUES(col)` in ON DUPLICATE
/// KEY UPDATE (starts with [`crate::parse::INTERNAL_NAME_MARK`]: no
/// statement can spell it).
const VALUES_SLOT: &str = "\u{1}values_";

/// Inserts rows already computed (CREATE TABLE ... SELECT) into `db.table`:
/// `columns[i]` names the table column that gets each row's `i`-th value.
/// Runs as a data statement of its own (reverted when it fails).
pub(crate) fn insert_selected(
    s: &mut Session,
    db: &str,
    table: &str,
    columns: &[usize],
    rows: Vec<Vec<Value>>,
    ignore: bool,
    replace: bool,
) -> Result<QueryResult, SqlError> {
    let mark = s.statement_mark()?;
    let mut w = Writer {
        warnings: Vec::new(),
        ignore,
        nulls_warn: !s.strict(),
        auto_increment: Default::default(),
        where_warns_only: false,
        first_id: 0,
        returning: None,
    };
    let name = ast::ObjectName::from(vec![ast::Ident::new(db), ast::Ident::new(table)]);
    let r = target(s, &name).and_then(|t| {
        let how = HowToInsert {
            replace,
            ignore,
            odku: &[],
            bare: false,
            rows_before: 0,
        };
        let rows: Vec<Vec<Option<Value>>> = rows
            .into_iter()
            .map(|r| r.into_iter().map(Some).collect())
            .collect();
        // MariaDB reserves AUTO_INCREMENT values for the rows the SELECT
        // is estimated to give: here, the rows it gave.
        w.auto_increment = super::auto_increment::AutoIncrementRun::new(rows.len() as u64);
        insert_rows(s, &t, columns, rows, &how, &[], &mut w)
    });
    for warning in std::mem::take(&mut w.warnings) {
        s.push_warning(warning);
    }
    if w.first_id != 0 {
        s.last_insert_id = w.first_id;
    }
    s.end_statement(r.as_ref().err(), mark)?;
    r
}

pub(super) fn insert(
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
    // INSERT DELAYED queues rows for a table-locking engine; an InnoDB
    // table refuses it, as in MariaDB.
    // A READ ONLY transaction refuses the write first (1792).
    if matches!(ins.priority, Some(ast::MysqlInsertPriority::Delayed)) {
        if s.statement_transaction()?.read_only {
            return Err(SqlError::Engine(EngineError::ReadOnlyTransaction));
        }
        return Err(SqlError::new(
            1616,
            format!(
                "DELAYED option not supported for table '{}'",
                names::object_last(name)
            ),
        ));
    }
    if let Some(items) = &ins.returning {
        w.returning = Some(super::returning::Returning::compile(s, &t, None, items)?);
    }
    let ncols = t.table.def().columns.len();
    let mut cols: Vec<usize> = ins
        .columns
        .iter()
        .map(|c| column_index(&t, &names::object_last(c), "INSERT INTO"))
        .collect::<Result<_, _>>()?;
    // Source rows as expressions (VALUES, SET) or values (SELECT).
    enum Src {
        Exprs(Vec<Vec<ast::Expr>>),
        /// The rows and the type of each of their columns.
        Values(Vec<Vec<Value>>, Vec<ColumnType>),
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
                // InnoDB reserves as many AUTO_INCREMENT values as VALUES
                // has rows.
                w.auto_increment =
                    super::auto_increment::AutoIncrementRun::new(v.rows.len() as u64);
                Src::Exprs(v.rows.iter().map(|r| r.content.clone()).collect())
            }
            _ => {
                // Rows of a SELECT: NULL into NOT NULL warns outside strict mode.
                w.nulls_warn = !s.strict();
                let set = crate::exec::select::run_query_warning(s, q, params, &mut w.warnings)?;
                // A recursive WITH cut at max_recursive_iterations: strict
                // mode inserts nothing (MariaDB's abort on warning).
                if let Some(cut) = w.warnings.iter().find(|w| w.code == 1931) {
                    if s.strict() {
                        return Err(SqlError::new(cut.code, cut.message.clone()));
                    }
                }
                let types: Vec<ColumnType> = set.columns.iter().map(|c| c.ty.clone()).collect();
                Src::Values(set.rows, types)
            }
        }
    };
    if cols.is_empty() && ins.assignments.is_empty() {
        // Without a column list: the visible columns.
        cols = (0..ncols)
            .filter(|&i| !t.meta.columns.get(i).is_some_and(|m| m.invisible))
            .collect();
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
    w.ignore = ignore;
    let how = HowToInsert {
        replace,
        ignore,
        odku: &odku,
        bare: ins.columns.is_empty() && ins.assignments.is_empty(),
        rows_before: 0,
    };
    let rows_in: Vec<Vec<Option<Value>>> = match src {
        Src::Exprs(rows) => {
            w.nulls_warn = !s.strict() && rows.len() > 1;
            let row_values = RowSoFar::new(&t);
            let opts = CompileOptions {
                collation: s.connection_collation(),
                clause: "VALUES".into(),
            };
            let mut next_param = 0;
            let mut out = Vec::with_capacity(rows.len());
            for (n, r) in rows.iter().enumerate() {
                let mut row_values_of = || -> Result<Vec<Option<Value>>, SqlError> {
                    let compiled = r
                        .iter()
                        .enumerate()
                        .map(|(j, e)| {
                            // NULL for a generated column is DEFAULT (no 1906).
                            if is_default_word(e)
                                || (generated_null(e)
                                    && cols.get(j).is_some_and(|&c| t.is_generated(c)))
                            {
                                return Ok(None);
                            }
                            let resolve = |parts: &[ast::Ident]| row_values.resolve(parts);
                            // A subquery in a value runs before any row is
                            // written, as MariaDB's (`VALUES ((SELECT MAX(id)
                            // FROM t))` twice gives one value twice).
                            let inlined;
                            let e = if crate::exec::select::subquery::expr_has_subquery(e) {
                                let mut copy = e.clone();
                                crate::exec::select::subquery::inline_expr(s, &mut copy, params)?;
                                inlined = copy;
                                &inlined
                            } else {
                                e
                            };
                            eval::compile_with_params(e, &resolve, &opts, &mut next_param).map(Some)
                        })
                        .collect::<Result<Vec<_>, SqlError>>()?;
                    // Values may name columns set before them in the row.
                    let mut current = row_values.start(s, &t);
                    let mut vals = Vec::with_capacity(r.len());
                    for (i, c) in compiled.into_iter().enumerate() {
                        let Some(c) = c else {
                            vals.push(None);
                            continue;
                        };
                        let mut ctx = s.eval_context(params);
                        let v = c.eval_stored(current.as_deref().unwrap_or(&[]), &mut ctx)?;
                        w.warnings.extend(ctx.take_warnings());
                        let to = cols.get(i).map(|&col| &t.table.def().columns[col].ty);
                        let hex = to.and_then(|to| source::hex_number(&r[i], &v, to));
                        let v = match hex {
                            Some(n) => n,
                            None => ready(&t, &cols, i, v, Some(&c.ty.ty)),
                        };
                        if let (Some(row), Some(&col)) = (current.as_mut(), cols.get(i)) {
                            row_values.set(s, &t, row, col, &v, n as u64 + 1);
                        }
                        vals.push(Some(v));
                    }
                    Ok(vals)
                };
                match row_values_of() {
                    Ok(vals) => out.push(vals),
                    // MariaDB writes each row before it evaluates the next:
                    // the rows before a failing one went in (their
                    // AUTO_INCREMENT values and LAST_INSERT_ID() stay
                    // taken when the statement is rolled back).
                    Err(e) if !out.is_empty() => {
                        insert_rows(s, &t, &cols, out, &how, params, w)?;
                        return Err(e);
                    }
                    Err(e) => return Err(e),
                }
            }
            out
        }
        Src::Values(rows, types) => rows
            .into_iter()
            .map(|r| {
                r.into_iter()
                    .enumerate()
                    .map(|(i, v)| Some(ready(&t, &cols, i, v, types.get(i))))
                    .collect()
            })
            .collect(),
    };
    let done = insert_rows(s, &t, &cols, rows_in, &how, params, w)?;
    match w.returning.take() {
        Some(r) => r.result(s, params, &mut w.warnings),
        None => Ok(done),
    }
}

/// The `i`-th value of a source row (of type `from`) readied for its
/// column (see [`source::ready_for_column`]).
/// The largest value an AUTO_INCREMENT column of type `ty` holds (`None`
/// for a DECIMAL or floating-point one).
fn auto_increment_max(ty: &ColumnType) -> Option<u64> {
    match ty {
        ColumnType::Int { bytes, unsigned } => {
            let bits = u32::from(*bytes) * 8;
            Some(if *unsigned {
                u64::MAX >> (64 - bits)
            } else {
                u64::MAX >> (65 - bits)
            })
        }
        _ => None,
    }
}

fn ready(t: &Target, cols: &[usize], i: usize, v: Value, from: Option<&ColumnType>) -> Value {
    match (cols.get(i), from) {
        (Some(&c), Some(from)) => source::ready_for_column(v, from, &t.table.def().columns[c].ty),
        _ => v,
    }
}

/// How rows are inserted: REPLACE, IGNORE, ON DUPLICATE KEY UPDATE, and
/// whether the statement named no columns (`VALUES ()` is then a row of
/// defaults).
struct HowToInsert<'a> {
    replace: bool,
    ignore: bool,
    odku: &'a [(usize, ast::Expr)],
    bare: bool,
    /// Number of the first row (for "at row N" messages) minus one.
    rows_before: u64,
}

/// What inserting a batch of rows did.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct InsertCounts {
    /// MySQL's affected rows (REPLACE counts the deleted rows too).
    pub affected: u64,
    /// What `LAST_INSERT_ID()` becomes (0: unchanged): the first
    /// AUTO_INCREMENT value generated for a row that went in.
    pub first_id: u64,
    /// The AUTO_INCREMENT column's value in the last row written or
    /// updated by ON DUPLICATE KEY UPDATE (0: none or no such column): the
    /// OK packet's insert id when no value was generated, as MariaDB sends
    /// it.
    pub last_value: u64,
    /// Rows REPLACE deleted.
    pub deleted: u64,
    /// Rows IGNORE skipped as duplicates.
    pub skipped: u64,
}

/// Rows inserted in batches into one table by one statement (LOAD DATA):
/// the caller opens the statement (`statement_mark`) and ends it.
pub(crate) struct BulkInsert {
    t: Target,
    w: Writer,
    replace: bool,
    ignore: bool,
    pub counts: InsertCounts,
    rows: u64,
}

impl BulkInsert {
    /// Opens `name` for inserting; `ignore` turns duplicate-key and data
    /// errors into warnings, `replace` replaces rows with the same key.
    pub(crate) fn open(
        s: &Session,
        name: &ast::ObjectName,
        replace: bool,
        ignore: bool,
    ) -> Result<BulkInsert, SqlError> {
        Ok(BulkInsert {
            t: target(s, name)?,
            w: Writer {
                warnings: Vec::new(),
                ignore,
                nulls_warn: false,
                auto_increment: Default::default(),
                where_warns_only: false,
                first_id: 0,
                returning: None,
            },
            replace,
            ignore,
            counts: InsertCounts::default(),
            rows: 0,
        })
    }

    /// The table's definition.
    pub(crate) fn def(&self) -> &larch_engine::table::TableDef {
        self.t.table.def()
    }

    /// True when column `i` is INVISIBLE (left out when no column list is
    /// given).
    pub(crate) fn invisible(&self, i: usize) -> bool {
        self.t.meta.columns.get(i).is_some_and(|m| m.invisible)
    }

    /// The column index of `name` (1054 naming `clause` when unknown).
    pub(crate) fn column(&self, name: &str, clause: &str) -> Result<usize, SqlError> {
        column_index(&self.t, name, clause)
    }

    /// Inserts `rows` (values for `cols`; `None` for the column default).
    pub(crate) fn insert(
        &mut self,
        s: &mut Session,
        cols: &[usize],
        rows: Vec<Vec<Option<Value>>>,
    ) -> Result<(), SqlError> {
        let n = rows.len() as u64;
        let how = HowToInsert {
            replace: self.replace,
            ignore: self.ignore,
            odku: &[],
            bare: false,
            rows_before: self.rows,
        };
        let c = insert_counted(s, &self.t, cols, rows, &how, &[], &mut self.w)?;
        self.rows += n;
        self.counts.affected += c.affected;
        self.counts.deleted += c.deleted;
        self.counts.skipped += c.skipped;
        if self.counts.first_id == 0 {
            self.counts.first_id = c.first_id;
        }
        if c.last_value != 0 {
            self.counts.last_value = c.last_value;
        }
        Ok(())
    }

    /// Adds a warning of the statement.
    pub(crate) fn warn(&mut self, w: Warning) {
        self.w.warnings.push(w);
    }

    /// Warnings so far.
    pub(crate) fn warning_count(&self) -> usize {
        self.w.warnings.len()
    }

    /// The statement's warnings (taken out).
    pub(crate) fn take_warnings(&mut self) -> Vec<Warning> {
        std::mem::take(&mut self.w.warnings)
    }
}

/// Inserts `rows_in` (values for the columns `cols`; `None` for DEFAULT).
fn insert_rows(
    s: &mut Session,
    t: &Target,
    cols: &[usize],
    rows_in: Vec<Vec<Option<Value>>>,
    how: &HowToInsert<'_>,
    params: &[Value],
    w: &mut Writer,
) -> Result<QueryResult, SqlError> {
    let c = insert_counted(s, t, cols, rows_in, how, params, w)?;
    if c.first_id != 0 {
        s.last_insert_id = c.first_id;
    }
    Ok(QueryResult::Ok(
        OkInfo {
            affected_rows: c.affected,
            last_insert_id: c.insert_id(),
            info: String::new(),
        }
        .with_dups(c.deleted, w.warnings.len()),
    ))
}

fn insert_counted(
    s: &mut Session,
    t: &Target,
    cols: &[usize],
    rows_in: Vec<Vec<Option<Value>>>,
    how: &HowToInsert<'_>,
    params: &[Value],
    w: &mut Writer,
) -> Result<InsertCounts, SqlError> {
    let (replace, ignore, odku) = (how.replace, how.ignore, how.odku);
    let ncols = t.table.def().columns.len();
    let auto = t.table.def().auto_increment;
    let no_auto_on_zero = s.sql_mode_has("NO_AUTO_VALUE_ON_ZERO");
    let (mut affected, mut first_id, mut dups, mut skipped) = (0u64, 0u64, 0u64, 0u64);
    let mut last_value = 0u64;
    let mut nulls = NullChecks::new(t, Event::Insert);
    // ON DUPLICATE KEY UPDATE with its subqueries inlined at the first row
    // that needs it, as MariaDB runs them: an uncorrelated one once then
    // (later rows reuse its value), a correlated one for each row.
    let mut odku_inlined: Option<Vec<(usize, ast::Expr)>> = None;
    for (n, vals) in rows_in.into_iter().enumerate() {
        // The rows before this one that went in count for LAST_INSERT_ID()
        // even if this one fails the statement.
        if w.first_id == 0 {
            w.first_id = first_id;
        }
        let row_no = how.rows_before + n as u64 + 1;
        // `VALUES ()` without a column list (or with an empty one) is a
        // row of defaults, as in MariaDB.
        let vals = if vals.is_empty() && how.bare {
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
        // Defaults that read the row, evaluated once the rest is in place.
        let mut reading = Vec::new();
        for (c, v) in row.into_iter().enumerate() {
            if t.is_generated(c) {
                if v.is_some() {
                    t.value_for_generated(s, c, w)?;
                }
                full.push(Value::Null);
                continue;
            }
            full.push(match v {
                Some(v) => nulls.convert(s, t, c, &v, row_no, w)?,
                None if t.defaults.reads_row(c) => {
                    reading.push(c);
                    Value::Null
                }
                None => nulls.default_value(s, t, c, row_no, w)?,
            });
        }
        for c in reading {
            full[c] = nulls.default_over(s, t, c, &full, row_no, w)?;
        }
        t.fire(s, Timing::Before, Event::Insert, None, Some(&mut full))?;
        nulls.after_triggers(s, t, &mut full, row_no, w)?;
        let mut generated = None;
        if let Some(a) = auto {
            let zero = matches!(full[a], Value::Int(0) | Value::UInt(0)) && !no_auto_on_zero;
            if full[a].is_null() || zero {
                let id = w.auto_increment.take(s, &t.table)?;
                let column = &t.table.def().columns[a];
                if auto_increment_max(&column.ty).is_some_and(|max| id > max) {
                    // Past the column's type: MariaDB's 167 (a warning
                    // under IGNORE, and the row is not written).
                    let message = format!(
                        "Out of range value for column '{}' at row {row_no}",
                        column.name
                    );
                    if !ignore {
                        return Err(SqlError::new(167, message));
                    }
                    w.warnings.push(Warning::warn(167, message));
                    w.auto_increment.row_done();
                    skipped += 1;
                    continue;
                }
                full[a] = convert(s, t, a, &Value::UInt(id), row_no, w)?;
                generated = Some(id);
            } else {
                w.auto_increment
                    .explicit(s, &t.table, auto_value(&full[a]))?;
            }
            w.auto_increment.row_done();
        }
        // What the row's AUTO_INCREMENT value counts for once it is in.
        let went_in = |full: &[Value], first_id: &mut u64, last_value: &mut u64, w: &mut Writer| {
            if let Some(r) = w.returning.as_mut() {
                r.push(t, full);
            }
            if let Some(a) = auto {
                if let (Some(id), 0) = (generated, *first_id) {
                    *first_id = id;
                }
                *last_value = insert_id_of(&full[a]);
            }
        };
        t.fill_generated(s, &mut full, row_no, w)?;
        // A row REPLACE or ON DUPLICATE KEY UPDATE turns into a change of
        // an existing row has its references checked there, as InnoDB
        // finds the duplicate before it checks the row's foreign keys
        // (MDEV-13206).
        let conflicting = (replace || !odku.is_empty()) && !conflicts(t, &full, s)?.is_empty();
        if !t.verify_checks(s, &full, w)?
            || (!conflicting && !t.verify_references(s, None, &full, w)?)
        {
            skipped += 1;
            if let Some(id) = generated {
                w.auto_increment.give_back(id);
            }
            continue;
        }
        match t.table.insert(txn_ctx(s)?, &full) {
            Ok(_) => {
                affected += 1;
                went_in(&full, &mut first_id, &mut last_value, w);
                t.fire(s, Timing::After, Event::Insert, None, Some(&mut full))?;
            }
            Err(e) if is_duplicate(&e) && (replace || !odku.is_empty() || ignore) => {
                if ignore && !replace && odku.is_empty() {
                    w.warnings
                        .push(Warning::warn(1062, SqlError::from(e).message()));
                    skipped += 1;
                    if let Some(id) = generated {
                        w.auto_increment.give_back(id);
                    }
                    continue;
                }
                let conflicts = conflicts(t, &full, s)?;
                if replace {
                    if let [(_, old)] = conflicts.as_slice() {
                        if *old == full && t.replaces_in_place() {
                            // Nothing to change: the row counts once.
                            affected += 1;
                            went_in(&full, &mut first_id, &mut last_value, w);
                            t.fire(s, Timing::After, Event::Insert, None, Some(&mut full))?;
                            continue;
                        }
                    }
                    for (at, old) in conflicts {
                        t.fire(s, Timing::Before, Event::Delete, Some(&old), None)?;
                        if t.delete_row(s, &at, &old)? {
                            affected += 1;
                            dups += 1;
                            t.fire(s, Timing::After, Event::Delete, Some(&old), None)?;
                        }
                    }
                    if !t.verify_references(s, None, &full, w)? {
                        skipped += 1;
                        if let Some(id) = generated {
                            w.auto_increment.give_back(id);
                        }
                        continue;
                    }
                    t.table.insert(txn_ctx(s)?, &full)?;
                    affected += 1;
                    went_in(&full, &mut first_id, &mut last_value, w);
                    t.fire(s, Timing::After, Event::Insert, None, Some(&mut full))?;
                } else if let Some((at, old)) = conflicts.into_iter().next() {
                    // The updated row's AUTO_INCREMENT value is the OK
                    // packet's insert id; LAST_INSERT_ID() stays, as after
                    // an UPDATE (MariaDB).
                    if let Some(a) = auto {
                        last_value = insert_id_of(&old[a]);
                    }
                    // The value generated for the row that went unused is
                    // the next row's (MariaDB's restore_auto_increment).
                    if let Some(id) = generated {
                        w.auto_increment.give_back(id);
                    }
                    let mut update_nulls = NullChecks::new(t, Event::Update);
                    if odku_inlined.is_none() {
                        odku_inlined = Some(inline_subqueries(s, odku, params)?);
                    }
                    let mut new = odku_row(
                        s,
                        t,
                        &old,
                        &full,
                        odku_inlined.as_deref().unwrap_or(odku),
                        params,
                        row_no,
                        w,
                        &mut update_nulls,
                    )?;
                    t.fire(s, Timing::Before, Event::Update, Some(&old), Some(&mut new))?;
                    update_nulls.after_triggers(s, t, &mut new, row_no, w)?;
                    t.fill_generated(s, &mut new, row_no, w)?;
                    if new == old {
                        // An unchanged row still fires AFTER UPDATE (MDEV-33083).
                        t.fire(s, Timing::After, Event::Update, Some(&old), Some(&mut new))?;
                        if s.client_found_rows {
                            affected += 1;
                        }
                        // RETURNING gives the row the statement met, as
                        // for an updated one.
                        if let Some(r) = w.returning.as_mut() {
                            r.push(t, &new);
                        }
                    } else if t.verify_checks(s, &new, w)?
                        && t.verify_references(s, Some(&old), &new, w)?
                    {
                        if let Some(_new_at) = t.update_row(s, &at, &old, &new, None)? {}
                        affected += 2;
                        if let Some(r) = w.returning.as_mut() {
                            r.push(t, &new);
                        }
                        t.fire(s, Timing::After, Event::Update, Some(&old), Some(&mut new))?;
                    } else if s.client_found_rows {
                        affected += 1;
                    }
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    if w.first_id == 0 {
        w.first_id = first_id;
    }
    s.db.status
        .rows_inserted
        .fetch_add(affected, AtomicOrdering::Relaxed);
    Ok(InsertCounts {
        affected,
        first_id,
        last_value,
        deleted: dups,
        skipped,
    })
}

/// An AUTO_INCREMENT column's value as the insert id (0 for NULL or a
/// value below 1).
fn auto_value(v: &Value) -> u64 {
    match v {
        Value::UInt(n) => *n,
        Value::Int(n) => u64::try_from(*n).unwrap_or(0),
        _ => 0,
    }
}

/// An AUTO_INCREMENT column's value as the OK packet's insert id:
/// MariaDB sends the field's integer value as unsigned, so a negative
/// explicit value -711 is 18446744073709550905.
fn insert_id_of(v: &Value) -> u64 {
    match v {
        Value::UInt(n) => *n,
        Value::Int(n) => *n as u64,
        _ => 0,
    }
}

impl InsertCounts {
    /// The OK packet's insert id: the generated value, else the last
    /// AUTO_INCREMENT value written when rows went in (MariaDB's
    /// `first_successful_insert_id_in_cur_stmt`, else the field's value).
    pub(crate) fn insert_id(&self) -> u64 {
        if self.first_id != 0 {
            self.first_id
        } else if self.affected > 0 {
            self.last_value
        } else {
            0
        }
    }
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

pub(super) fn is_duplicate(e: &EngineError) -> bool {
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

/// The ON DUPLICATE KEY UPDATE assignments with their subqueries replaced
/// (`subquery::inline_expr`): uncorrelated ones by their values now,
/// correlated ones by their per-row form.
fn inline_subqueries(
    s: &Session,
    sets: &[(usize, ast::Expr)],
    params: &[Value],
) -> Result<Vec<(usize, ast::Expr)>, SqlError> {
    use crate::exec::select::subquery;
    sets.iter()
        .map(|(c, e)| {
            let mut e = e.clone();
            if subquery::expr_has_subquery(&e) {
                subquery::inline_expr(s, &mut e, params)?;
            }
            Ok((*c, e))
        })
        .collect()
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
    nulls: &mut NullChecks,
) -> Result<Vec<Value>, SqlError> {
    let def = t.table.def();
    let n = def.columns.len();
    let mut row: Vec<Value> = old.to_vec();
    row.extend(new.iter().cloned());
    for (c, e) in sets {
        if t.is_generated(*c) {
            if !is_default_word(e) && !generated_null(e) {
                t.value_for_generated(s, *c, w)?;
            }
            continue;
        }
        let mut e = e.clone();
        let _ = ast::visit_expressions_mut(&mut e, |x| {
            if let ast::Expr::Function(f) = x {
                // VALUE() is MariaDB's other name of VALUES().
                let name = f.name.to_string();
                if name.eq_ignore_ascii_case("VALUES") || name.eq_ignore_ascii_case("VALUE") {
                    if let ast::FunctionArguments::List(l) = &f.args {
                        if let Some(ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(arg))) =
                            l.args.first()
                        {
                            if let Some(i) = column_ref(def, arg) {
                                *x = ast::Expr::Identifier(ast::Ident::with_quote(
                                    '`',
                                    format!("{VALUES_SLOT}{i}"),
                                ));
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
                .strip_prefix(VALUES_SLOT)
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
        let v = compiled.eval_stored(&row, &mut ctx)?;
        let v = source::ready_for_column(v, &compiled.ty.ty, &t.table.def().columns[*c].ty);
        row[*c] = nulls.convert(s, t, *c, &v, row_no, w)?;
    }
    row.truncate(n);
    Ok(row)
}
