//! CREATE TABLE: `[OR REPLACE] [IF NOT EXISTS] db.t (columns, keys) [table
//! options]` and `CREATE TABLE t2 LIKE t1`.
//!
//! Errors: 1046/1049 (database), 1050 (exists; a note with IF NOT EXISTS),
//! 1060 (duplicate column), 1113 (no columns), the column, key and type errors
//! of `column`, `keys` and `types`, 1286 (unknown engine), 1628 (table comment
//! over 2048 characters), and the engine's own checks (1071, 1118, 1170...)
//! when the table is created. `CREATE TABLE ... SELECT` is
//! `create_select`'s.
//!
//! Table options: ENGINE (InnoDB; MyISAM, Aria, MEMORY... are replaced by
//! InnoDB with warning 1266), [DEFAULT] CHARSET / CHARACTER SET, [DEFAULT]
//! COLLATE (the database's default when absent), ROW_FORMAT, COMMENT and
//! AUTO_INCREMENT=n (raises the table's counter); the others are accepted and
//! ignored.

use larch_engine::record::collation::Collation;
use sqlparser::ast;

use super::keys::{constraint, Constraint};
use super::types::resolve_collation;
use super::work::{Finished, Work};
use super::{column, syntax_error, table_name, table_name_as_written};
use crate::error::{SqlError, Warning};
use crate::result::QueryResult;
use crate::session::Session;

/// Longest table comment.
const MAX_TABLE_COMMENT_CHARS: usize = 2048;

/// The table options of CREATE TABLE (and ALTER TABLE).
#[derive(Debug, Clone, Default)]
pub(super) struct TableOptions {
    pub engine: Option<String>,
    pub charset: Option<String>,
    pub collate: Option<String>,
    pub row_format: Option<String>,
    pub comment: Option<String>,
    pub auto_increment: Option<u64>,
    /// The other options SHOW CREATE TABLE shows (`table_options`): name
    /// and value, `None` to take the option away (`= DEFAULT`, or a value
    /// MariaDB does not show).
    pub kept: Vec<(String, Option<String>)>,
    /// `ENCRYPTED=YES` was asked for. Larch has no encryption keys, so the
    /// statement is refused, as MariaDB refuses it without a key
    /// management plugin: CREATE with 1005 errno 140, ALTER with 1478
    /// ([`TableOptions::refuse_encryption`]).
    pub encrypted: bool,
}

impl TableOptions {
    /// The refusal of `ENCRYPTED=YES`, if it was asked for: `creating` the
    /// table `db`.`table`, or altering it.
    pub(super) fn refuse_encryption(&self, creating: Option<(&str, &str)>) -> Result<(), SqlError> {
        if !self.encrypted {
            return Ok(());
        }
        Err(match creating {
            Some((db, table)) => SqlError::new(
                1005,
                format!(
                    "Can't create table `{db}`.`{table}` (errno: 140 \"Wrong create options\")"
                ),
            ),
            None => SqlError::new(
                1478,
                "Table storage engine 'InnoDB' does not support the create option 'ENCRYPTION_KEY_ID'",
            ),
        })
    }
}

/// The table options kept and shown by SHOW CREATE TABLE besides ENGINE,
/// AUTO_INCREMENT, the character set, ROW_FORMAT and COMMENT, in the order
/// MariaDB prints them; engine-defined ones (back-quoted) come last.
const SHOWN_OPTIONS: &[&str] = &[
    "MIN_ROWS",
    "MAX_ROWS",
    "AVG_ROW_LENGTH",
    "PACK_KEYS",
    "STATS_PERSISTENT",
    "STATS_AUTO_RECALC",
    "STATS_SAMPLE_PAGES",
    "CHECKSUM",
    "PAGE_CHECKSUM",
    "DELAY_KEY_WRITE",
    "TRANSACTIONAL",
    "KEY_BLOCK_SIZE",
    "CONNECTION",
    "`PAGE_COMPRESSED`",
    "`PAGE_COMPRESSION_LEVEL`",
    "`ENCRYPTED`",
    "`ENCRYPTION_KEY_ID`",
];

/// How SHOW CREATE TABLE shows option `name` given as `text`: `None` when
/// it is not shown (MariaDB's defaults: 0 rows, `DEFAULT`, ...).
fn shown_value(name: &str, text: &str) -> Result<Option<String>, SqlError> {
    let upper = text.to_ascii_uppercase();
    if upper == "DEFAULT" {
        return Ok(None);
    }
    let number = || {
        text.parse::<u64>()
            .map_err(|_| syntax_error(text.to_string()))
    };
    Ok(match name {
        "MIN_ROWS" | "MAX_ROWS" | "AVG_ROW_LENGTH" | "STATS_SAMPLE_PAGES" | "KEY_BLOCK_SIZE" => {
            Some(number()?).filter(|n| *n != 0).map(|n| n.to_string())
        }
        // 0 or 1, shown either way.
        "PACK_KEYS" | "STATS_PERSISTENT" | "STATS_AUTO_RECALC" | "PAGE_CHECKSUM"
        | "TRANSACTIONAL" => Some(u64::from(number()? != 0).to_string()),
        // Shown only when on.
        "CHECKSUM" | "DELAY_KEY_WRITE" => (number()? != 0).then(|| "1".to_string()),
        "CONNECTION" => Some(super::render::quote_string(text)),
        // Engine-defined options: the value as a string.
        _ => Some(super::render::quote_string(text)),
    })
}

/// The kept option a table option key names, if any: its name as shown
/// (an engine-defined option keeps its spelling, back-quoted).
fn kept_name(key: &str) -> Option<String> {
    let upper = key.trim_matches('`').to_ascii_uppercase();
    let upper = match upper.as_str() {
        "TABLE_CHECKSUM" => "CHECKSUM".to_string(),
        _ => upper,
    };
    let known = SHOWN_OPTIONS
        .iter()
        .find(|n| n.trim_matches('`') == upper)?;
    Some(if known.starts_with('`') {
        format!("`{}`", key.trim_matches('`'))
    } else {
        known.to_string()
    })
}

/// Where option `name` goes in SHOW CREATE TABLE's order. Engine-defined
/// options (back-quoted) come last in the order they were set, as MariaDB
/// keeps them: setting one again moves it to the end.
fn option_rank(name: &str) -> usize {
    if name.starts_with('`') {
        return usize::MAX;
    }
    SHOWN_OPTIONS
        .iter()
        .position(|o| o.eq_ignore_ascii_case(name))
        .unwrap_or(usize::MAX)
}

/// `kept` applied to the options a table has, in SHOW CREATE TABLE order.
pub(super) fn merge_options(
    have: &[(String, String)],
    kept: &[(String, Option<String>)],
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = have.to_vec();
    for (name, value) in kept {
        out.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        if let Some(v) = value {
            out.push((name.clone(), v.clone()));
        }
    }
    out.sort_by_key(|(n, _)| option_rank(n));
    out
}

fn option_text(e: &ast::Expr) -> Result<String, SqlError> {
    match e {
        ast::Expr::Identifier(i) => Ok(i.value.clone()),
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s)
            | ast::Value::DoubleQuotedString(s)
            | ast::Value::Number(s, _) => Ok(s.clone()),
            other => Err(syntax_error(other.to_string())),
        },
        other => Err(syntax_error(other.to_string())),
    }
}

/// Collects the table options of `opts`.
pub(super) fn table_options(
    opts: &ast::CreateTableOptions,
    comment: Option<&ast::CommentDef>,
) -> Result<TableOptions, SqlError> {
    let list: &[ast::SqlOption] = match opts {
        ast::CreateTableOptions::None => &[],
        ast::CreateTableOptions::With(v)
        | ast::CreateTableOptions::Options(v)
        | ast::CreateTableOptions::Plain(v)
        | ast::CreateTableOptions::TableProperties(v) => v,
    };
    let mut out = TableOptions::default();
    let comment_text = |c: &ast::CommentDef| match c {
        ast::CommentDef::WithEq(s) | ast::CommentDef::WithoutEq(s) => s.clone(),
    };
    if let Some(c) = comment {
        out.comment = Some(comment_text(c));
    }
    for o in list {
        match o {
            ast::SqlOption::Comment(c) => out.comment = Some(comment_text(c)),
            ast::SqlOption::NamedParenthesizedList(l)
                if l.key.value.eq_ignore_ascii_case("ENGINE") =>
            {
                out.engine = l.name.as_ref().map(|n| n.value.clone());
            }
            ast::SqlOption::KeyValue { key, value } => {
                let text = option_text(value)?;
                match key.value.to_ascii_uppercase().as_str() {
                    "ENGINE" => out.engine = Some(text),
                    "CHARSET" | "DEFAULT CHARSET" | "CHARACTER SET" | "DEFAULT CHARACTER SET" => {
                        out.charset = Some(text)
                    }
                    "COLLATE" | "DEFAULT COLLATE" => out.collate = Some(text),
                    "ROW_FORMAT" => {
                        out.row_format = Some(text.to_ascii_uppercase()).filter(|f| f != "DEFAULT")
                    }
                    "COMMENT" => out.comment = Some(text),
                    "AUTO_INCREMENT" => {
                        out.auto_increment = Some(
                            text.parse::<u64>()
                                .map_err(|_| syntax_error(text.clone()))?,
                        )
                    }
                    _ => {
                        if let Some(name) = kept_name(&key.value) {
                            if name.trim_matches('`').eq_ignore_ascii_case("ENCRYPTED") {
                                out.encrypted = text.eq_ignore_ascii_case("YES");
                            }
                            let value = shown_value(&name, &text)?;
                            out.kept.push((name, value));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Checks an ENGINE name: InnoDB is used for every known engine (with
/// warning 1266 for the others), an unknown one is error 1286.
pub(super) fn check_engine(s: &mut Session, engine: &str, table: &str) -> Result<(), SqlError> {
    let known = [
        "INNODB",
        "XTRADB",
        "MYISAM",
        "ARIA",
        "MEMORY",
        "HEAP",
        "CSV",
        "ARCHIVE",
        "MRG_MYISAM",
        "MERGE",
        "BLACKHOLE",
        "ROCKSDB",
        "TOKUDB",
    ];
    let upper = engine.to_ascii_uppercase();
    if !known.contains(&upper.as_str()) {
        return Err(SqlError::new(
            1286,
            format!("Unknown storage engine '{engine}'"),
        ));
    }
    if upper != "INNODB" && upper != "XTRADB" {
        s.push_warning(Warning::warn(
            1266,
            format!("Using storage engine InnoDB for table '{table}'"),
        ));
    }
    Ok(())
}

/// Applies the character set, row format and comment of `o` to `w`.
pub(super) fn apply_options(
    w: &mut Work,
    o: &TableOptions,
    default: Collation,
) -> Result<(), SqlError> {
    if o.charset.is_some() || o.collate.is_some() {
        w.collation = resolve_collation(o.charset.as_deref(), o.collate.as_deref(), default)?;
    }
    if let Some(f) = &o.row_format {
        w.row_format = Some(f.clone());
    }
    if !o.kept.is_empty() {
        w.options = merge_options(&w.options, &o.kept);
    }
    if let Some(c) = &o.comment {
        if c.chars().count() > MAX_TABLE_COMMENT_CHARS {
            return Err(SqlError::new(
                1628,
                format!(
                    "Comment for table '{}' is too long (max = {MAX_TABLE_COMMENT_CHARS})",
                    w.name
                ),
            ));
        }
        w.comment = c.clone();
    }
    Ok(())
}

/// The default collation of database `db` (kept as `charset\0collation` in
/// its metadata).
pub(super) fn database_collation(s: &Session, db: &str) -> Collation {
    s.db.catalog()
        .database_meta(db)
        .and_then(|m| {
            let text = String::from_utf8(m).ok()?;
            let coll = text.split('\0').nth(1)?.to_string();
            Collation::from_name(&coll)
        })
        .unwrap_or(Collation::Utf8mb4GeneralCi)
}

/// The source table of `CREATE TABLE t2 (LIKE t1)`, which sqlparser reads as
/// a column named LIKE.
fn parenthesized_like(ct: &ast::CreateTable) -> Option<&ast::ObjectName> {
    match ct.columns.as_slice() {
        [c] if c.name.quote_style.is_none()
            && c.name.value.eq_ignore_ascii_case("LIKE")
            && c.options.is_empty() =>
        {
            match &c.data_type {
                ast::DataType::Custom(name, args) if args.is_empty() => Some(name),
                _ => None,
            }
        }
        _ => None,
    }
}

/// CREATE TABLE.
pub(super) fn create_table(
    s: &mut Session,
    ct: &ast::CreateTable,
) -> Result<QueryResult, SqlError> {
    // A temporary table is no DDL for the transaction.
    if !ct.temporary {
        s.commit()?;
    }
    if let Some(q) = &ct.query {
        return super::create_select::create_table_select(s, ct, q);
    }
    let (db, name) = table_name_as_written(s, &ct.name)?;
    let database = s.db.clone();
    let catalog = database.catalog();
    if !catalog.has_database(&db) {
        return Err(SqlError::unknown_database(&db));
    }
    let like = match &ct.like {
        Some(ast::CreateTableLikeKind::Plain(l) | ast::CreateTableLikeKind::Parenthesized(l)) => {
            Some(&l.name)
        }
        None => parenthesized_like(ct),
    };
    if !ct.temporary {
        s.lock_tables_exclusive(&[(db.clone(), name.clone())])?;
    }
    let _ddl = database.ddl_lock.lock();
    let Some(existing) = existing_table(s, ct, &db, &name)? else {
        return Ok(QueryResult::ok());
    };
    let stored = stored_name(s, ct, &db, &name);
    let (mut fin, auto_increment) = match like {
        Some(src) => (like_definition(s, src, &db, &stored)?, None),
        None => {
            let opts = table_options(&ct.table_options, ct.comment.as_ref())?;
            opts.refuse_encryption(Some((&db, &name)))?;
            if let Some(e) = &opts.engine {
                check_engine(s, e, &name)?;
            }
            let mut w = Work::new(&stored, database_collation(s, &db));
            let default = w.collation;
            apply_options(&mut w, &opts, default)?;
            add_elements(s, &mut w, &ct.columns, &ct.constraints)?;
            resolve_foreign_keys(s, &mut w, &db, &name, ct.temporary)?;
            for n in std::mem::take(&mut w.notes) {
                s.push_warning(n);
            }
            (w.finish()?, opts.auto_increment)
        }
    };
    fin.settle_fulltext(s, None)?;
    if ct.temporary && !fin.def.fulltext.is_empty() {
        return Err(SqlError::new(
            1796,
            "Cannot create FULLTEXT index on temporary InnoDB table",
        ));
    }
    replace_existing(s, ct, &db, &name, existing)?;
    let table = catalog.create_table(&db, fin.def, &fin.meta.encode())?;
    if ct.temporary {
        s.add_temporary_table(&db, &name, stored);
    }
    if let Some(n) = auto_increment.filter(|_| table.auto_increment_next().is_some()) {
        table.raise_auto_increment(n)?;
    }
    Ok(QueryResult::ok())
}

/// The table CREATE TABLE `db.name` finds in its way: `Ok(Some(None))` when
/// there is none, `Ok(Some(Some(stored name)))` for one OR REPLACE drops,
/// `Ok(None)` when IF NOT EXISTS makes the statement a note (1050), and
/// 1050 otherwise. A temporary table meets only the session's temporary
/// tables; a permanent one only permanent tables.
pub(super) fn existing_table(
    s: &mut Session,
    ct: &ast::CreateTable,
    db: &str,
    name: &str,
) -> Result<Option<Option<String>>, SqlError> {
    let stored = if ct.temporary {
        s.temporary_table(db, name).map(str::to_owned)
    } else {
        s.db.catalog()
            .table_entry(db, name)
            .map(|_| name.to_owned())
    };
    match stored {
        None => Ok(Some(None)),
        Some(t) if ct.or_replace => Ok(Some(Some(t))),
        Some(_) if ct.if_not_exists => {
            s.push_warning(Warning::note(
                1050,
                format!("Table '{name}' already exists"),
            ));
            Ok(None)
        }
        Some(_) => Err(SqlError::table_exists(name)),
    }
}

/// The name the new table is stored under: a fresh hidden name for a
/// temporary table.
pub(super) fn stored_name(s: &Session, ct: &ast::CreateTable, db: &str, name: &str) -> String {
    if ct.temporary {
        s.new_hidden_name(db)
    } else {
        name.to_owned()
    }
}

/// Drops the table OR REPLACE replaces (see [`existing_table`]).
pub(super) fn replace_existing(
    s: &mut Session,
    ct: &ast::CreateTable,
    db: &str,
    name: &str,
    existing: Option<String>,
) -> Result<(), SqlError> {
    if let Some(old) = existing {
        if !ct.temporary {
            // A parent another table references stays (1451), as DROP TABLE.
            super::foreign_ddl::check_drop_table(s, db, &old)?;
            crate::exec::trigger::table_dropped(s, db, &old)?;
        }
        s.db.catalog().drop_table(db, &old)?;
        if ct.temporary {
            s.remove_temporary_table(db, name);
        }
    }
    Ok(())
}

/// The definition of `CREATE TABLE db.name LIKE src`.
fn like_definition(
    s: &Session,
    src: &ast::ObjectName,
    db: &str,
    name: &str,
) -> Result<Finished, SqlError> {
    let (sdb, sname) = table_name(s, src)?;
    if sdb == db && sname == name {
        return Err(SqlError::new(
            1066,
            format!("Not unique table/alias: '{name}'"),
        ));
    }
    let (entry, meta) = super::table_with_meta(s, &sdb, &sname)?;
    let mut def = entry.def;
    def.name = name.to_string();
    // As InnoDB: LIKE copies no FOREIGN KEY.
    let mut meta = meta;
    meta.foreign_keys.clear();
    let origin = (0..def.columns.len()).map(Some).collect();
    Ok(Finished { def, meta, origin })
}

/// Adds the columns, then the keys, then the indexes FOREIGN KEYs need.
pub(super) fn add_elements(
    s: &mut Session,
    w: &mut Work,
    columns: &[ast::ColumnDef],
    constraints: &[ast::TableConstraint],
) -> Result<(), SqlError> {
    let keys = add_columns(s, w, columns)?;
    add_keys(s, w, keys, constraints)
}

/// Adds the declared columns; returns the keys their options declare.
pub(super) fn add_columns(
    s: &mut Session,
    w: &mut Work,
    columns: &[ast::ColumnDef],
) -> Result<Vec<super::keys::KeySpec>, SqlError> {
    let mut keys = Vec::new();
    for c in columns {
        let options: Vec<&ast::ColumnOption> = c.options.iter().map(|o| &o.option).collect();
        let id = w.new_id();
        let b = column::build(s, &c.name, &c.data_type, &options, w.collation, id)?;
        if w.col_pos(&c.name.value).is_some() {
            return Err(SqlError::new(
                1060,
                format!("Duplicate column name '{}'", c.name.value),
            ));
        }
        w.cols.push(b.col);
        keys.extend(b.keys);
    }
    Ok(keys)
}

/// Adds the keys of the columns (`keys`) and of the table's constraints,
/// then the indexes FOREIGN KEYs need (1113 when the table has no column).
pub(super) fn add_keys(
    s: &mut Session,
    w: &mut Work,
    keys: Vec<super::keys::KeySpec>,
    constraints: &[ast::TableConstraint],
) -> Result<(), SqlError> {
    let mut keys = keys;
    if w.cols.is_empty() {
        return Err(SqlError::new(1113, "A table must have at least 1 column"));
    }
    let mut foreign = Vec::new();
    for c in constraints {
        if let Some(w) = super::keys::ignored_primary_name(c) {
            s.push_warning(w);
        }
        match constraint(c)? {
            Constraint::Key(k) => keys.push(k),
            Constraint::ForeignKey(k, f) => {
                foreign.push(k);
                w.pending_foreign.push(f);
            }
            Constraint::Check(name, expr) => w.add_check(name, expr)?,
        }
    }
    for k in keys {
        w.add_key(k)?;
    }
    for k in foreign {
        w.add_foreign_key_index(k)?;
    }
    Ok(())
}

/// Resolves the FOREIGN KEYs of CREATE TABLE `db`.`name` (`foreign_ddl`).
pub(super) fn resolve_foreign_keys(
    s: &Session,
    w: &mut Work,
    db: &str,
    name: &str,
    temporary: bool,
) -> Result<(), SqlError> {
    let specs = std::mem::take(&mut w.pending_foreign);
    let owner = super::foreign_ddl::Owner {
        db,
        table: name,
        alter: false,
        temporary,
    };
    super::foreign_ddl::add_pending(s, w, &owner, specs)
}
