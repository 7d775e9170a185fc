//! INSERT [IGNORE] (VALUES, SET, SELECT; ON DUPLICATE KEY UPDATE), REPLACE,
//! and single-table UPDATE [IGNORE] and DELETE with WHERE, ORDER BY and
//! LIMIT (the rows they change: `matching`). With ERROR_FOR_DIVISION_BY_ZERO
//! in strict mode, division by zero fails INSERT, REPLACE and UPDATE without
//! IGNORE (`Session::begin_strict_statement`); DELETE only warns.
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

use larch_engine::lock::LockMode;
use larch_engine::record::value::{ColumnType, Value};
use larch_engine::table::{ReadContext, RowRef, Table, TxnContext};
use sqlparser::ast;

mod auto_increment;
pub(crate) mod foreign;
mod generated;
mod insert;
mod matching;
mod multi;
mod returning;
mod row_so_far;
mod source;
mod target;
mod trigger_nulls;
pub(crate) mod view;

pub(crate) use insert::{insert_selected, BulkInsert};
use matching::{matching_rows, with_subqueries};
use target::target_meta;
pub(crate) use target::TargetMeta;

use super::names;
use super::rows;
use crate::ddl::TableMeta;
use crate::error::{SqlError, Warning};
use crate::eval::{self, CompileOptions, ExprType};
use crate::exec::select::fulltext;
use crate::parse::trigger::{Event, Timing};
use crate::result::{OkInfo, QueryResult};
use crate::session::Session;
use crate::value::store::{store, store_fixed_real, store_unsigned, StoreTarget};

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
        ignore: false,
        // UPDATE: NULL into NOT NULL warns outside strict mode (INSERT
        // decides per statement form).
        nulls_warn: matches!(stmt, ast::Statement::Update(_)) && !s.strict(),
        auto_increment: auto_increment::AutoIncrementRun::default(),
        where_warns_only: false,
        first_id: 0,
        returning: None,
    };
    // Division by zero fails INSERT, REPLACE and UPDATE in strict mode
    // (without IGNORE); DELETE only warns, as in MariaDB.
    let strict = s.begin_strict_statement(match stmt {
        ast::Statement::Insert(i) => i.ignore,
        ast::Statement::Update(u) => update_ignore(u),
        _ => true,
    });
    let r = match stmt {
        ast::Statement::Insert(i) => insert::insert(s, i, params, &mut w),
        ast::Statement::Update(u) => update(s, u, params, &mut w),
        ast::Statement::Delete(d) => delete(s, d, params, &mut w),
        _ => Err(SqlError::not_supported("this statement")),
    };
    s.end_strict_statement(strict);
    s.locking = None;
    s.read = ReadContext::NEWEST;
    for warning in std::mem::take(&mut w.warnings) {
        s.push_warning(warning);
    }
    if w.first_id != 0 {
        s.last_insert_id = w.first_id;
    }
    s.end_statement(r.as_ref().err(), mark)?;
    r
}

struct Writer {
    warnings: Vec<Warning>,
    /// INSERT IGNORE: data errors are warnings and the value is adjusted,
    /// whatever `sql_mode` says.
    ignore: bool,
    /// NULL into a NOT NULL column is warning 1048 and the type's implicit
    /// default, not an error: outside strict mode for UPDATE, INSERT of
    /// several rows and INSERT ... SELECT (a single-row INSERT still fails,
    /// as in MariaDB).
    nulls_warn: bool,
    /// The AUTO_INCREMENT intervals of the statement.
    auto_increment: auto_increment::AutoIncrementRun,
    /// WHERE only warns, also in a strict UPDATE: MariaDB finds the rows
    /// of an UPDATE with ORDER BY or of one that changes the primary key in
    /// a first pass, before its strict checks start.
    where_warns_only: bool,
    /// The AUTO_INCREMENT value generated for the first row of the
    /// statement that went in (0: none yet). LAST_INSERT_ID() takes it
    /// even when a later row makes the statement fail, as in MariaDB.
    first_id: u64,
    /// The statement's RETURNING list and the rows it wrote (`None`
    /// without RETURNING).
    returning: Option<returning::Returning>,
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
    meta: Arc<TableMeta>,
    /// The table's CHECK constraints, compiled for this statement.
    checks: Arc<crate::ddl::Checks>,
    /// The table's generated columns, compiled (`generated.rs`).
    generated: Arc<crate::ddl::GeneratedColumns>,
    /// The table's DEFAULT expressions, compiled.
    defaults: Arc<crate::ddl::ColumnDefaults>,
    /// The FOREIGN KEY constraints the table takes part in.
    fks: foreign::ForeignKeys,
    /// The table's triggers (`None` without any).
    triggers: Option<Arc<crate::exec::trigger::TableTriggers>>,
}

fn target(s: &Session, name: &ast::ObjectName) -> Result<Target, SqlError> {
    let (db, t) = names::table_name(s, name)?;
    crate::exec::trigger::check_not_in_use(s, &db, &t)?;
    let table = names::open_table(s, &db, &t, None, true)?;
    let derived = target_meta(s, &db, &t, &table)?;
    let fks = foreign::ForeignKeys::load(s, &db, &t, table.def(), &derived.meta);
    let triggers = crate::exec::trigger::TableTriggers::load(s, &db, &t)?;
    Ok(Target {
        db,
        name: derived.name.clone(),
        table,
        meta: derived.meta.clone(),
        checks: derived.checks.clone(),
        generated: derived.generated.clone(),
        defaults: derived.defaults.clone(),
        fks,
        triggers,
    })
}

impl Target {
    /// Fires the table's triggers of `timing` and `event` for one row (see
    /// `exec::trigger`); nothing when the table has none.
    fn fire(
        &self,
        s: &mut Session,
        timing: Timing,
        event: Event,
        old: Option<&[Value]>,
        new: Option<&mut Vec<Value>>,
    ) -> Result<(), SqlError> {
        match &self.triggers {
            Some(tt) => {
                crate::exec::trigger::fire(s, tt, timing, event, self.table.def(), old, new)
            }
            None => Ok(()),
        }
    }

    /// Whether REPLACE changes a conflicting row in place, as MariaDB does
    /// when the duplicate is on the table's last unique key (here: its only
    /// one), no foreign key references the table and no DELETE trigger
    /// would see the delete; an identical row then counts once, not as a
    /// delete and an insert.
    fn replaces_in_place(&self) -> bool {
        let def = self.table.def();
        let unique_keys = usize::from(def.primary_key.is_some())
            + def.secondary.iter().filter(|i| i.unique).count();
        unique_keys == 1
            && !self.fks.is_referenced()
            && self.triggers.as_ref().is_none_or(|tt| {
                !tt.has(Timing::Before, Event::Delete) && !tt.has(Timing::After, Event::Delete)
            })
    }

    /// Checks `row` against the table's CHECK constraints: false when it
    /// fails and the statement's IGNORE made that a warning.
    fn verify_checks(&self, s: &Session, row: &[Value], w: &mut Writer) -> Result<bool, SqlError> {
        self.checks
            .verify(s, self.table.def(), row, w.ignore, &mut w.warnings)
    }

    /// Checks that `new` has the parent rows its FOREIGN KEYs need (only
    /// for keys that changed from `old`, for an update): false when one is
    /// missing and IGNORE made that a warning.
    fn verify_references(
        &self,
        s: &Session,
        old: Option<&[Value]>,
        new: &[Value],
        w: &mut Writer,
    ) -> Result<bool, SqlError> {
        self.fks
            .verify_parents(s, old, new, w.ignore, &mut w.warnings)
    }

    /// Deletes the row at `at` (`old`: its engine values), then applies
    /// the ON DELETE actions of the tables that reference it.
    fn delete_row(&self, s: &mut Session, at: &RowRef, old: &[Value]) -> Result<bool, SqlError> {
        let deleted = self.table.delete(txn_ctx(s)?, at)?;
        if deleted && self.fks.has_children(s) {
            foreign::parent_deleted(s, &self.fks, old, 0)?;
        }
        Ok(deleted)
    }

    /// Updates the row at `at` from `old` to `new` (engine values), then
    /// applies the ON UPDATE actions of the tables that reference it. With
    /// `skip_duplicate` (UPDATE IGNORE) a duplicate key leaves the row as
    /// it was, with warning 1062 there.
    fn update_row(
        &self,
        s: &mut Session,
        at: &RowRef,
        old: &[Value],
        new: &[Value],
        skip_duplicate: Option<&mut Vec<Warning>>,
    ) -> Result<Option<RowRef>, SqlError> {
        let r = match (self.table.update(txn_ctx(s)?, at, new), skip_duplicate) {
            (Err(e), Some(warnings)) if insert::is_duplicate(&e) => {
                warnings.push(Warning::warn(1062, SqlError::from(e).message()));
                return Ok(None);
            }
            (r, _) => r?,
        };
        if r.is_some() && self.fks.has_children(s) {
            foreign::parent_updated(s, &self.fks, old, new, 0)?;
        }
        Ok(r)
    }
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
            let msg = format!("Column '{}' cannot be null", col.name);
            if w.ignore || w.nulls_warn {
                w.warnings.push(Warning::warn(1048, msg));
                return Ok(implicit_default(&col.ty));
            }
            return Err(SqlError::new(1048, msg));
        }
        return Ok(Value::Null);
    }
    let target = StoreTarget {
        db: &t.db,
        table: &t.name,
        column: &col.name,
        row: row_no,
        strict: s.strict() && !w.ignore,
    };
    let meta = t.meta.columns.get(c);
    if let Some((m, precision)) = meta.and_then(|m| Some((m, m.fixed_real(&col.ty)?))) {
        let float = col.ty == ColumnType::Float;
        return store_fixed_real(v, float, precision, m.unsigned, &target, &mut w.warnings);
    }
    let unsigned_real = matches!(
        col.ty,
        ColumnType::Decimal { .. } | ColumnType::Float | ColumnType::Double
    ) && meta.is_some_and(|m| m.unsigned);
    if unsigned_real {
        return store_unsigned(v, &col.ty, &target, &mut w.warnings);
    }
    if let (Value::Time(us), true) = (v, is_date_type(&col.ty)) {
        // A TIME going into a date column is that time on the current date.
        let on_today = source::time_on_date(*us, s.eval_context(&[]).now.date);
        return store(&on_today, &col.ty, &target, &mut w.warnings);
    }
    store(v, &col.ty, &target, &mut w.warnings)
}

/// DATE, DATETIME and TIMESTAMP.
fn is_date_type(ty: &ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Date | ColumnType::Datetime { .. } | ColumnType::Timestamp { .. }
    )
}

/// The value an omitted column gets (one whose DEFAULT reads the row gets
/// it from `NullChecks::default_over` once the row is in place).
fn default_value(
    s: &Session,
    t: &Target,
    c: usize,
    row_no: u64,
    w: &mut Writer,
) -> Result<Value, SqlError> {
    let def = t.table.def();
    let col = &def.columns[c];
    match t.defaults.evaluate(s, def, c, &[], &mut w.warnings)? {
        Some(v) => convert(s, t, c, &v, row_no, w),
        None if col.nullable || def.auto_increment == Some(c) => Ok(Value::Null),
        None => no_default(s, t, c, w),
    }
}

/// An omitted NOT NULL column without DEFAULT: 1364 in strict mode, else
/// a warning and the type's implicit default.
fn no_default(s: &Session, t: &Target, c: usize, w: &mut Writer) -> Result<Value, SqlError> {
    let col = &t.table.def().columns[c];
    let msg = format!("Field '{}' doesn't have a default value", col.name);
    if s.strict() && !w.ignore {
        return Err(SqlError::new(1364, msg));
    }
    w.warnings.push(Warning::warn(1364, msg));
    Ok(implicit_default(&col.ty))
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
            (ColumnType::Enum { values, .. }, Value::Str(s)) => Value::Enum(
                values
                    .iter()
                    .position(|m| m == s)
                    .map_or(0, |i| i as u16 + 1),
            ),
            (ColumnType::Set { values, .. }, Value::Str(s)) => Value::Set(
                s.split(',')
                    .filter_map(|p| values.iter().position(|m| m == p))
                    .fold(0u64, |acc, i| acc | (1 << i)),
            ),
            (ColumnType::Uuid, Value::Str(s)) => {
                match larch_engine::record::uuid::record_from_text(s.as_bytes()) {
                    Some(r) => Value::Bytes(r.to_vec()),
                    None => v.clone(),
                }
            }
            _ => v.clone(),
        })
        .collect()
}

/// A literal NULL: what a generated column may be given as well as
/// DEFAULT (MariaDB's `vcol_assignment_allowed_value`).
fn generated_null(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Value(v) => matches!(v.value, ast::Value::Null),
        ast::Expr::Nested(inner) => generated_null(inner),
        _ => false,
    }
}

fn is_default_word(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Identifier(id) if id.quote_style.is_none() && id.value.eq_ignore_ascii_case("DEFAULT"))
}

fn col_type(def: &larch_engine::table::TableDef, i: usize) -> ExprType {
    ExprType {
        ty: def.columns[i].ty.clone(),
        nullable: def.columns[i].nullable,
        decimals: None,
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

/// UPDATE IGNORE (`UPDATE OR IGNORE` once parsed, see `parse::rewrite`).
fn update_ignore(u: &ast::Update) -> bool {
    matches!(u.or, Some(ast::SqliteOnConflict::Ignore))
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
    w.ignore = update_ignore(u);
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
                with_subqueries(s, &a.value, params)?.into_owned(),
            )),
            _ => Err(SqlError::not_supported("tuple assignment")),
        })
        .collect::<Result<_, _>>()?;
    // Values given to generated columns are refused or ignored per row.
    let (given_generated, sets): (Vec<_>, Vec<_>) =
        sets.into_iter().partition(|(c, _)| t.is_generated(*c));
    let given_generated: Vec<usize> = given_generated
        .into_iter()
        .filter(|(_, e)| !is_default_word(e) && !generated_null(e))
        .map(|(c, _)| c)
        .collect();
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
    if sets.iter().any(|(_, e)| fulltext::has_match(e)) {
        return Err(fulltext::unsupported_here());
    }
    let compiled: Vec<(usize, eval::Compiled)> = sets
        .iter()
        .map(|(c, e)| eval::compile(e, &resolve, &opts).map(|x| (*c, x)))
        .collect::<Result<_, _>>()?;
    let changes_primary_key = def.primary_key.as_ref().is_some_and(|pk| {
        pk.columns
            .iter()
            .any(|k| sets.iter().any(|(c, _)| *c == k.column))
    });
    w.where_warns_only = !u.order_by.is_empty() || changes_primary_key;
    let found = matching_rows(
        s,
        &t,
        &alias,
        u.selection.as_ref(),
        &u.order_by,
        u.limit.as_ref(),
        params,
        w,
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
        let mut nulls = trigger_nulls::NullChecks::new(&t, Event::Update);
        for ((c, e), (_, written)) in compiled.iter().zip(sets.iter()) {
            let mut ctx = s.eval_context(params);
            let v = e.eval_stored(&cur, &mut ctx)?;
            w.warnings.extend(ctx.take_warnings());
            let to = &def.columns[*c].ty;
            let v = match source::hex_number(written, &v, to) {
                Some(n) => n,
                None => source::ready_for_column(v, &e.ty.ty, to),
            };
            let stored = nulls.convert(s, &t, *c, &v, n as u64 + 1, w)?;
            cur[*c] = crate::value::expression_value(&stored, &def.columns[*c].ty);
            new[*c] = stored;
        }
        t.fire(s, Timing::Before, Event::Update, Some(&old), Some(&mut new))?;
        nulls.after_triggers(s, &t, &mut new, n as u64 + 1, w)?;
        for &c in &given_generated {
            t.value_for_generated(s, c, w)?;
        }
        t.fill_generated(s, &mut new, n as u64 + 1, w)?;
        if new == old {
            // An unchanged row still fires AFTER UPDATE (MDEV-33083).
            t.fire(s, Timing::After, Event::Update, Some(&old), Some(&mut new))?;
            continue;
        }
        for &c in &on_update {
            let mut ctx = s.eval_context(&[]);
            let now = Value::Datetime(ctx.now);
            let _ = &mut ctx;
            new[c] = convert(s, &t, c, &now, n as u64 + 1, w)?;
        }
        if !t.verify_checks(s, &new, w)? || !t.verify_references(s, Some(&old), &new, w)? {
            continue;
        }
        let skip = w.ignore.then_some(&mut w.warnings);
        if let Some(_new_at) = t.update_row(s, &at, &old, &new, skip)? {
            changed += 1;
            t.fire(s, Timing::After, Event::Update, Some(&old), Some(&mut new))?;
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
    let mut returning = match &d.returning {
        Some(items) => Some(returning::Returning::compile(
            s,
            &t,
            alias.as_deref(),
            items,
        )?),
        None => None,
    };
    let alias = alias.unwrap_or_else(|| t.name.clone());
    if d.order_by.iter().any(|o| fulltext::has_match(&o.expr)) {
        return Err(fulltext::unsupported_here());
    }
    let found = matching_rows(
        s,
        &t,
        &alias,
        d.selection.as_ref(),
        &d.order_by,
        d.limit.as_ref(),
        params,
        w,
    )?;
    let mut deleted = 0u64;
    for (at, row) in found {
        let old = engine_row(&t, &row);
        t.fire(s, Timing::Before, Event::Delete, Some(&old), None)?;
        if t.delete_row(s, &at, &old)? {
            deleted += 1;
            if let Some(r) = returning.as_mut() {
                r.push(&t, &old);
            }
            t.fire(s, Timing::After, Event::Delete, Some(&old), None)?;
        }
    }
    s.db.status
        .rows_deleted
        .fetch_add(deleted, AtomicOrdering::Relaxed);
    match returning {
        Some(r) => r.result(s, params, &mut w.warnings),
        None => Ok(QueryResult::affected(deleted)),
    }
}
