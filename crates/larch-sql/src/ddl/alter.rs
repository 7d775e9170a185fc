//! ALTER TABLE and the statements that are ALTERs in disguise: CREATE
//! [UNIQUE] INDEX, DROP INDEX, CREATE FULLTEXT INDEX and ALTER TABLE ...
//! ENGINE.
//!
//! Operations apply in order to a [`Work`] built from the table: ADD
//! [COLUMN] (FIRST / AFTER x), DROP [COLUMN] [IF EXISTS], MODIFY, CHANGE,
//! RENAME COLUMN, RENAME [TO|AS], ALTER [COLUMN] SET/DROP DEFAULT, ADD
//! [UNIQUE] INDEX|KEY / PRIMARY KEY / FULLTEXT / FOREIGN KEY / CHECK, DROP
//! INDEX|KEY / PRIMARY KEY / FOREIGN KEY / CONSTRAINT, AUTO_INCREMENT=n,
//! RENAME INDEX|KEY and CONVERT TO CHARACTER SET (`super::alter_ops`),
//! [DEFAULT] CHARACTER SET / COLLATE;
//! The result is applied by `rebuild`: in place for metadata-only changes,
//! by an index build when only secondary indexes change, otherwise by a
//! copying rebuild. ALGORITHM= and LOCK= are honoured or refused with
//! MariaDB's 1846 ([`check_algorithm_and_lock`]): INSTANT takes changes
//! that build and drop no index, INPLACE those that copy no rows, COPY
//! always copies;
//! an index build lets other sessions write the table while it runs
//! (LOCK=NONE, the default) or read it (LOCK=SHARED), see
//! `index_change`; a copy holds the table's exclusive lock throughout, so
//! LOCK=NONE and LOCK=SHARED are refused for it.
//!
//! Errors: 1146 (no table; a note with ALTER TABLE IF EXISTS), 1054 (unknown
//! column), 1060 (duplicate column), 1090 (dropping every column), 1091
//! (DROP of a column or key that does not exist; a note with IF EXISTS),
//! 1050/1049 (RENAME target), 1235 (operations Larch does not do), and the
//! errors of column and key definitions.

use sqlparser::ast;

use super::column;
use super::create::check_engine;
use super::keys::{constraint, parts, Constraint, KeySpec, PartSpec};
use super::rebuild;
use super::work::{KeyKind, Work};
use super::{cant_drop, check_identifier, syntax_error, table_name, table_with_meta, Ident};
use crate::error::{SqlError, Warning};
use crate::result::{OkInfo, QueryResult};
use crate::session::Session;

/// What an ALTER changes besides the definition.
#[derive(Debug, Clone)]
struct AlterState {
    db: String,
    name: String,
    /// Where the table ends up (RENAME).
    to: (String, String),
    auto_increment: Option<u64>,
    force: bool,
    /// ALGORITHM= and LOCK= as given (the last of each).
    algorithm: Option<ast::AlterTableAlgorithm>,
    lock: Option<ast::AlterTableLock>,
}

/// Runs `ops` against table `name` under the DDL lock and applies the result.
fn run_alter(
    s: &mut Session,
    name: &ast::ObjectName,
    if_exists: bool,
    renames_to: Vec<(String, String)>,
    ops: impl FnOnce(&mut Session, &mut Work, &mut AlterState) -> Result<(), SqlError>,
) -> Result<QueryResult, SqlError> {
    s.commit()?;
    let (db, table) = table_name(s, name)?;
    let mut locked = renames_to;
    locked.push((db.clone(), table.clone()));
    s.lock_tables_exclusive(&locked)?;
    let database = s.db.clone();
    let mut ddl = database.ddl_lock.lock();
    if if_exists && database.catalog().table_entry(&db, &table).is_none() {
        s.push_warning(Warning::note(
            1146,
            format!("Table '{db}.{table}' doesn't exist"),
        ));
        return Ok(QueryResult::ok());
    }
    let (entry, meta) = table_with_meta(s, &db, &table)?;
    let mut w = Work::from_table(&entry.def, &meta);
    let mut st = AlterState {
        db: db.clone(),
        name: table.clone(),
        to: (db.clone(), table.clone()),
        auto_increment: None,
        force: false,
        algorithm: None,
        lock: None,
    };
    ops(s, &mut w, &mut st)?;
    let owner = super::foreign_ddl::Owner {
        db: &db,
        table: &s.visible_table_name(&db, &table),
        alter: true,
        temporary: s.is_temporary(&db, &table),
    };
    let specs = std::mem::take(&mut w.pending_foreign);
    let added: Vec<String> = {
        let before = w.foreign.len();
        super::foreign_ddl::add_pending(s, &mut w, &owner, specs)?;
        w.foreign[before..].iter().map(|f| f.name.clone()).collect()
    };
    super::foreign_ddl::check_dropped_indexes(s, &w, &entry.def, &db, &table)?;
    super::foreign_ddl::check_altered_columns(s, &w, &entry.def, &db, &table)?;
    let renamed = super::foreign_ddl::renamed_columns(&w, &entry.def);
    w.primary_columns_not_null();
    w.name = st.to.1.clone();
    for n in std::mem::take(&mut w.notes) {
        s.push_warning(n);
    }
    let mut fin = w.finish()?;
    fin.settle_fulltext(s, Some(&entry.def))?;
    if st.algorithm == Some(ast::AlterTableAlgorithm::Copy) {
        st.force = true;
    }
    let how = rebuild::method(&entry, &fin, st.force)?;
    check_algorithm_and_lock(st.algorithm, st.lock, how)?;
    let to = (st.to.0.as_str(), st.to.1.as_str());
    super::foreign_ddl::verify_added(s, &db, &table, &fin, &added)?;
    let applied = rebuild::apply(
        s,
        (&db, &table),
        &entry,
        &fin,
        to,
        st.force,
        st.auto_increment,
        super::index_change::Sharing {
            lock: st.lock,
            ddl: &mut ddl,
        },
    )?;
    super::foreign_ddl::after_column_renames(s, &db, &table, &renamed)?;
    if (db.as_str(), table.as_str()) != to {
        super::foreign_ddl::after_rename(s, (&db, &table), to)?;
    }
    Ok(QueryResult::Ok(OkInfo {
        affected_rows: applied.rows,
        last_insert_id: 0,
        info: format!(
            "Records: {}  Duplicates: 0  Warnings: {}",
            applied.rows, applied.warnings
        ),
    }))
}

/// ALTER TABLE with operations sqlparser has no AST for (Larch's parser:
/// IF [NOT] EXISTS on keys and columns, table options, FORCE).
pub(super) fn alter_table_extended(
    s: &mut Session,
    at: &crate::parse::AlterTable,
) -> Result<QueryResult, SqlError> {
    use crate::parse::AlterOp;
    let renames_to = rename_targets(
        s,
        at.operations.iter().filter_map(|op| match op {
            AlterOp::Sql(op) | AlterOp::IfExists(op) | AlterOp::IfNotExists(op) => Some(op),
            _ => None,
        }),
    );
    run_alter(s, &at.name, at.if_exists, renames_to, |s, w, st| {
        for op in &at.operations {
            match op {
                AlterOp::Sql(op) => operation(s, w, st, op)?,
                AlterOp::IfExists(op) => match operation(s, w, st, op) {
                    Err(e) if matches!(e.code(), 1091 | 1054) => {
                        s.push_warning(Warning::note(e.code(), e.message()))
                    }
                    r => r?,
                },
                AlterOp::IfNotExists(op) => match operation(s, w, st, op) {
                    Err(e) if e.code() == 1061 => s.push_warning(Warning::note(1061, e.message())),
                    r => r?,
                },
                AlterOp::Options(list) => {
                    let o = super::create::table_options(
                        &ast::CreateTableOptions::Plain(list.clone()),
                        None,
                    )?;
                    o.refuse_encryption(None)?;
                    if let Some(engine) = &o.engine {
                        check_engine(s, engine, &st.name)?;
                        st.force = true;
                    }
                    if let Some(n) = o.auto_increment {
                        st.auto_increment = Some(n);
                    }
                    let current = w.collation;
                    super::create::apply_options(w, &o, current)?;
                }
                AlterOp::Force => st.force = true,
                AlterOp::RenameIndex { old, new } => {
                    super::alter_ops::rename_key(w, &st.name, &old.value, &new.value)?
                }
                AlterOp::ConvertTo { charset, collate } => {
                    let database = super::create::database_collation(s, &st.db);
                    super::alter_ops::convert_to(
                        w,
                        charset.as_deref(),
                        collate.as_deref(),
                        database,
                    )?
                }
            }
        }
        Ok(())
    })
}

/// ALTER TABLE.
pub(super) fn alter_table(s: &mut Session, at: &ast::AlterTable) -> Result<QueryResult, SqlError> {
    let renames_to = rename_targets(s, at.operations.iter());
    run_alter(s, &at.name, at.if_exists, renames_to, |s, w, st| {
        for op in &at.operations {
            operation(s, w, st, op)?;
        }
        Ok(())
    })
}

/// The names an ALTER renames its table to: locked with the table before
/// the ALTER starts (a name that does not resolve fails later, in the
/// operation itself).
fn rename_targets<'a>(
    s: &Session,
    ops: impl Iterator<Item = &'a ast::AlterTableOperation>,
) -> Vec<(String, String)> {
    ops.filter_map(|op| match op {
        ast::AlterTableOperation::RenameTable {
            table_name: ast::RenameTableNameKind::To(n) | ast::RenameTableNameKind::As(n),
        } => super::table_name_as_written(s, n).ok(),
        _ => None,
    })
    .collect()
}

/// CREATE [UNIQUE] INDEX name ON t (columns).
pub(super) fn create_index(
    s: &mut Session,
    ci: &ast::CreateIndex,
) -> Result<QueryResult, SqlError> {
    let Some(name) = ci
        .name
        .as_ref()
        .and_then(|n| n.0.last()?.as_ident().cloned())
    else {
        return Err(syntax_error(format!("ON {}", ci.table_name)));
    };
    let spec = KeySpec {
        name: Some(name.value.clone()),
        kind: if ci.unique {
            KeyKind::Unique
        } else {
            KeyKind::Index
        },
        parts: parts(&ci.columns)?,
        comment: super::keys::index_comment(&ci.index_options),
    };
    let if_not_exists = ci.if_not_exists;
    run_alter(s, &ci.table_name, false, Vec::new(), move |s, w, _| {
        if if_not_exists && w.key_pos(&name.value).is_some() {
            s.push_warning(Warning::note(
                1061,
                format!("Duplicate key name '{}'", name.value),
            ));
            return Ok(());
        }
        w.add_key(spec)
    })
}

/// CREATE FULLTEXT INDEX name ON t (columns): recorded in the metadata.
pub(super) fn create_fulltext_index(
    s: &mut Session,
    name: &ast::Ident,
    table: &ast::ObjectName,
    columns: &[ast::Ident],
) -> Result<QueryResult, SqlError> {
    let spec = KeySpec {
        name: Some(name.value.clone()),
        kind: KeyKind::Fulltext,
        parts: columns
            .iter()
            .map(|c| PartSpec {
                column: c.value.clone(),
                descending: false,
                prefix: None,
            })
            .collect(),
        comment: String::new(),
    };
    run_alter(s, table, false, Vec::new(), move |_, w, _| w.add_key(spec))
}

/// DROP INDEX name ON t.
pub(super) fn drop_index(
    s: &mut Session,
    names: &[ast::ObjectName],
    table: &ast::ObjectName,
    if_exists: bool,
) -> Result<QueryResult, SqlError> {
    let [index] = names else {
        return Err(syntax_error(format!("ON {table}")));
    };
    let index = super::tables::last_part(index);
    run_alter(s, table, false, Vec::new(), move |s, w, _| {
        drop_key(s, w, &index, if_exists)
    })
}

/// ALTER TABLE t ENGINE=x: a rebuild.
pub(super) fn alter_engine(
    s: &mut Session,
    table: &ast::ObjectName,
    engine: &str,
) -> Result<QueryResult, SqlError> {
    let engine = engine.to_string();
    run_alter(s, table, false, Vec::new(), move |s, _, st| {
        check_engine(s, &engine, &st.name)?;
        st.force = true;
        Ok(())
    })
}

/// Rebuilds a table as it is (OPTIMIZE TABLE).
pub(super) fn rebuild_table(
    s: &mut Session,
    table: &ast::ObjectName,
) -> Result<QueryResult, SqlError> {
    run_alter(s, table, false, Vec::new(), |_, _, st| {
        st.force = true;
        Ok(())
    })
}

/// Removes key `name` (`PRIMARY` for the primary key).
fn drop_key(s: &mut Session, w: &mut Work, name: &str, if_exists: bool) -> Result<(), SqlError> {
    let pos = if name.eq_ignore_ascii_case("PRIMARY") {
        w.keys.iter().position(|k| k.kind == KeyKind::Primary)
    } else {
        w.key_pos(name)
    };
    match pos {
        Some(p) => {
            w.keys.remove(p);
            Ok(())
        }
        None if if_exists => {
            s.push_warning(cant_drop_note("INDEX", name));
            Ok(())
        }
        None => Err(cant_drop("INDEX", name)),
    }
}

fn cant_drop_note(kind: &str, name: &str) -> Warning {
    Warning::note(1091, cant_drop(kind, name).message())
}

/// Moves column `pos` to `position` (FIRST / AFTER x).
fn place(
    w: &mut Work,
    pos: usize,
    position: Option<&ast::MySQLColumnPosition>,
    table: &str,
) -> Result<(), SqlError> {
    let Some(position) = position else {
        return Ok(());
    };
    let col = w.cols.remove(pos);
    let at = match position {
        ast::MySQLColumnPosition::First => 0,
        ast::MySQLColumnPosition::After(a) => match w.col_pos(&a.value) {
            Some(p) => p + 1,
            None => {
                w.cols.insert(pos, col);
                return Err(SqlError::unknown_column(&a.value, table));
            }
        },
    };
    w.cols.insert(at, col);
    Ok(())
}

/// Replaces column `pos` by a new definition (MODIFY / CHANGE), keeping its
/// id (so keys follow) and origin (so rows are copied).
fn redefine(
    s: &Session,
    w: &mut Work,
    pos: usize,
    name: &ast::Ident,
    data_type: &ast::DataType,
    options: &[ast::ColumnOption],
) -> Result<Vec<KeySpec>, SqlError> {
    let old = &w.cols[pos];
    let opts: Vec<&ast::ColumnOption> = options.iter().collect();
    let mut b = column::build(s, name, data_type, &opts, w.collation, old.id)?;
    b.col.origin = old.origin;
    let renamed = (!old.def.name.eq_ignore_ascii_case(&name.value)).then(|| old.def.name.clone());
    w.cols[pos] = b.col;
    if let Some(from) = renamed {
        super::generated::rename_references(w, &from, &name.value)?;
    }
    Ok(b.keys)
}

fn operation(
    s: &mut Session,
    w: &mut Work,
    st: &mut AlterState,
    op: &ast::AlterTableOperation,
) -> Result<(), SqlError> {
    use ast::AlterTableOperation as A;
    let table = st.name.clone();
    let find = |w: &Work, c: &ast::Ident| {
        w.col_pos(&c.value)
            .ok_or_else(|| SqlError::unknown_column(&c.value, &table))
    };
    match op {
        A::AddColumn {
            if_not_exists,
            column_def: c,
            column_position,
            ..
        } => {
            if w.col_pos(&c.name.value).is_some() {
                let e = SqlError::new(1060, format!("Duplicate column name '{}'", c.name.value));
                if *if_not_exists {
                    s.push_warning(Warning::note(1060, e.message()));
                    return Ok(());
                }
                return Err(e);
            }
            let opts: Vec<&ast::ColumnOption> = c.options.iter().map(|o| &o.option).collect();
            let id = w.new_id();
            let b = column::build(s, &c.name, &c.data_type, &opts, w.collation, id)?;
            w.cols.push(b.col);
            place(w, w.cols.len() - 1, column_position.as_ref(), &table)?;
            for k in b.keys {
                w.add_key(k)?;
            }
        }
        A::DropColumn {
            column_names,
            if_exists,
            ..
        } => {
            for c in column_names {
                match w.col_pos(&c.value) {
                    Some(p) => {
                        super::foreign_ddl::check_drop_column(w, p)?;
                        w.remove_column(p);
                    }
                    None if *if_exists => s.push_warning(cant_drop_note("COLUMN", &c.value)),
                    None => return Err(cant_drop("COLUMN", &c.value)),
                }
            }
            if w.cols.is_empty() {
                return Err(SqlError::new(
                    1090,
                    "You can't delete all columns with ALTER TABLE; use DROP TABLE instead",
                ));
            }
        }
        A::ModifyColumn {
            col_name,
            data_type,
            options,
            column_position,
        } => {
            let pos = find(w, col_name)?;
            let name = ast::Ident::new(w.cols[pos].def.name.clone());
            let keys = redefine(s, w, pos, &name, data_type, options)?;
            place(w, pos, column_position.as_ref(), &table)?;
            for k in keys {
                w.add_key(k)?;
            }
        }
        A::ChangeColumn {
            old_name,
            new_name,
            data_type,
            options,
            column_position,
        } => {
            let pos = find(w, old_name)?;
            if w.col_pos(&new_name.value).is_some_and(|p| p != pos) {
                return Err(SqlError::new(
                    1060,
                    format!("Duplicate column name '{}'", new_name.value),
                ));
            }
            let keys = redefine(s, w, pos, new_name, data_type, options)?;
            place(w, pos, column_position.as_ref(), &table)?;
            for k in keys {
                w.add_key(k)?;
            }
        }
        A::RenameColumn {
            old_column_name,
            new_column_name,
        } => {
            let pos = find(w, old_column_name)?;
            check_identifier(&new_column_name.value, Ident::Column)?;
            if w.col_pos(&new_column_name.value).is_some_and(|p| p != pos) {
                return Err(SqlError::new(
                    1060,
                    format!("Duplicate column name '{}'", new_column_name.value),
                ));
            }
            let from = std::mem::replace(&mut w.cols[pos].def.name, new_column_name.value.clone());
            if !from.eq_ignore_ascii_case(&new_column_name.value) {
                super::generated::rename_references(w, &from, &new_column_name.value)?;
            }
        }
        A::RenameTable { table_name: t } => {
            let (ast::RenameTableNameKind::To(n) | ast::RenameTableNameKind::As(n)) = t;
            if s.is_temporary(&st.db, &st.name) {
                // A temporary table keeps its hidden table; its name changes.
                let (db, new) = super::table_name_as_written(s, n)?;
                if db != st.db {
                    return Err(SqlError::not_supported(
                        "RENAME of a temporary table to another database",
                    ));
                }
                if s.temporary_table(&db, &new).is_some() {
                    return Err(SqlError::table_exists(&new));
                }
                let old = s.visible_table_name(&st.db, &st.name);
                if let Some(hidden) = s.remove_temporary_table(&db, &old) {
                    s.add_temporary_table(&db, &new, hidden);
                }
                return Ok(());
            }
            let to = table_name(s, n)?;
            if to != (st.db.clone(), st.name.clone()) {
                let catalog = s.db.catalog();
                if !catalog.has_database(&to.0) {
                    return Err(SqlError::unknown_database(&to.0));
                }
                if catalog.table_entry(&to.0, &to.1).is_some() {
                    return Err(SqlError::table_exists(&to.1));
                }
            }
            st.to = to;
        }
        A::AlterColumn { column_name, op } => {
            let pos = find(w, column_name)?;
            match op {
                ast::AlterColumnOperation::SetDefault { value } => {
                    let c = &w.cols[pos];
                    if c.auto_inc {
                        return Err(super::invalid_default(&c.def.name));
                    }
                    let text = column::default_text(s, value, &c.def)?;
                    w.cols[pos].meta.default = Some(text);
                }
                ast::AlterColumnOperation::DropDefault => w.cols[pos].meta.default = None,
                other => return Err(syntax_error(other.to_string())),
            }
        }
        A::AddConstraint { constraint: c, .. } => {
            if let Some(w) = super::keys::ignored_primary_name(c) {
                s.push_warning(w);
            }
            match constraint(c)? {
                Constraint::Key(k) => w.add_key(k)?,
                Constraint::ForeignKey(k, f) => {
                    w.add_foreign_key_index(k)?;
                    w.pending_foreign.push(f);
                }
                Constraint::Check(name, expr) => w.add_check(name, expr)?,
            }
        }
        A::DropIndex { name } => drop_key(s, w, &name.value, false)?,
        A::DropPrimaryKey { .. } => drop_key(s, w, "PRIMARY", false)?,
        A::DropForeignKey { name, .. } => super::foreign_ddl::drop_foreign_key(w, &name.value)?,
        A::DropConstraint {
            name, if_exists, ..
        } => {
            // A CHECK, a foreign key, a UNIQUE key or the primary key (not
            // a plain index), as MariaDB drops them; else 1091.
            if !w.drop_check(&name.value)
                && super::foreign_ddl::drop_foreign_key(w, &name.value).is_err()
            {
                let pos = if name.value.eq_ignore_ascii_case("PRIMARY") {
                    w.keys.iter().position(|k| k.kind == KeyKind::Primary)
                } else {
                    w.key_pos(&name.value)
                        .filter(|&p| matches!(w.keys[p].kind, KeyKind::Unique | KeyKind::Primary))
                };
                match pos {
                    Some(p) => {
                        w.keys.remove(p);
                    }
                    None if *if_exists => s.push_warning(cant_drop_note("CONSTRAINT", &name.value)),
                    None => return Err(cant_drop("CONSTRAINT", &name.value)),
                }
            }
        }
        A::AutoIncrement { value, .. } => {
            let text = value.value.to_string();
            let n = text
                .parse::<u64>()
                .map_err(|_| syntax_error(text.clone()))?;
            st.auto_increment = Some(n);
        }
        A::Algorithm { algorithm, .. } => st.algorithm = Some(*algorithm),
        A::Lock { lock, .. } => st.lock = Some(*lock),
        other => {
            return Err(SqlError::not_supported(&format!("ALTER TABLE {other}")));
        }
    }
    Ok(())
}

/// MariaDB's 1846 for an ALGORITHM= or LOCK= that `how` cannot honour.
fn check_algorithm_and_lock(
    algorithm: Option<ast::AlterTableAlgorithm>,
    lock: Option<ast::AlterTableLock>,
    how: rebuild::Method,
) -> Result<(), SqlError> {
    use ast::AlterTableAlgorithm as Alg;
    use ast::AlterTableLock as Lock;
    use rebuild::Method;
    let refuse = |what: String, reason: &str, fix: &str| {
        Err(SqlError::new(
            1846,
            format!("{what} is not supported. Reason: {reason}. Try {fix}"),
        ))
    };
    match (algorithm, how) {
        (Some(Alg::Instant), Method::Indexes(w)) if w.builds => {
            return refuse("ALGORITHM=INSTANT".into(), "ADD INDEX", "ALGORITHM=NOCOPY");
        }
        (Some(Alg::Instant), Method::Indexes(w)) if w.drops => {
            return refuse("ALGORITHM=INSTANT".into(), "DROP INDEX", "ALGORITHM=NOCOPY");
        }
        (Some(a @ (Alg::Instant | Alg::Inplace)), Method::Copy) => {
            return refuse(
                format!("ALGORITHM={a}"),
                "Larch copies the table for this change",
                "ALGORITHM=COPY",
            );
        }
        _ => {}
    }
    if how != Method::Copy {
        return Ok(());
    }
    match lock {
        Some(l @ (Lock::None | Lock::Shared)) => refuse(
            format!("LOCK={l}"),
            "COPY algorithm requires an exclusive lock in Larch",
            "LOCK=EXCLUSIVE",
        ),
        _ => Ok(()),
    }
}
