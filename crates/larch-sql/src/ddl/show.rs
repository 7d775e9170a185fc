//! SHOW CREATE TABLE, SHOW [FULL] COLUMNS / DESCRIBE, SHOW INDEX|INDEXES|KEYS,
//! in MariaDB 10.11's formats.
//!
//! - SHOW CREATE TABLE: columns `Table`, `Create Table`; the text has
//!   backquoted names, two-space indentation, one line per column
//!   (`` `c` type [CHARACTER SET x COLLATE y] [NOT NULL | NULL] [DEFAULT v]
//!   [ON UPDATE current_timestamp()] [AUTO_INCREMENT] [COMMENT '...'] ``,
//!   the character set printed when the column's collation differs from the
//!   table's, `NULL` only for nullable TIMESTAMPs), then the keys in the
//!   table's key order (`PRIMARY KEY (...)`, `UNIQUE KEY`, `KEY`, `FULLTEXT
//!   KEY`, prefixes as `` `c`(10) ``, ` DESC`), then `) ENGINE=InnoDB
//!   [AUTO_INCREMENT=n] DEFAULT CHARSET=cs COLLATE=coll [ROW_FORMAT=..]
//!   [COMMENT='...']` (AUTO_INCREMENT when the counter is above 1).
//! - SHOW COLUMNS / DESCRIBE: Field, Type, [Collation,] Null, Key, Default,
//!   Extra[, Privileges, Comment]; Key is PRI for primary key columns (or, as
//!   MySQL does, for the columns of the first UNIQUE key without NULL columns
//!   or prefixes when there is no primary key), UNI for the column of a
//!   single-column UNIQUE key, MUL for the first column of any other key;
//!   `LIKE 'pattern'` and `WHERE expr` filter the rows.
//! - SHOW INDEX: Table, Non_unique, Key_name, Seq_in_index, Column_name,
//!   Collation (A/D), Cardinality, Sub_part, Packed, Null, Index_type,
//!   Comment, Index_comment, Ignored; sqlparser reads it as `SHOW <words>`,
//!   which [`is_show_index`] recognizes.

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Value};
use larch_engine::table::{IndexDef, TableDef};
use sqlparser::ast;

use super::meta::TableMeta;
use super::render::{
    column_type_text, default_clause, default_for_show, extra_for_show, now_text, quote_ident,
    quote_string, type_fsp,
};
use super::{syntax_error, table_name, table_with_meta};
use crate::error::SqlError;
use crate::result::{QueryResult, ResultColumn, RowSet};
use crate::session::Session;

fn text(s: impl Into<String>) -> Value {
    Value::Str(s.into())
}

/// The table's keys in display order: primary, secondary, FULLTEXT (with a
/// flag for FULLTEXT).
fn all_keys(def: &TableDef, meta: &TableMeta) -> Vec<(IndexDef, bool)> {
    let mut out: Vec<(IndexDef, bool)> = def
        .primary_key
        .iter()
        .chain(&def.secondary)
        .map(|k| (k.clone(), false))
        .collect();
    for (name, cols) in &meta.fulltext {
        out.push((IndexDef::on(name, cols, false), true));
    }
    out
}

/// The CREATE TABLE statement SHOW CREATE TABLE prints.
pub(super) fn create_table_text(
    db: &str,
    def: &TableDef,
    meta: &TableMeta,
    auto_increment: Option<u64>,
) -> String {
    let table_coll = Collation::from_name(&meta.collation);
    let mut lines = Vec::new();
    for (i, c) in def.columns.iter().enumerate() {
        let m = meta.columns.get(i).cloned().unwrap_or_default();
        let auto = def.auto_increment == Some(i);
        let mut l = format!("  {} {}", quote_ident(&c.name), column_type_text(c, &m));
        let own = c.ty.collation().or_else(|| c.ty.member_collation());
        if let Some(coll) = own.filter(|coll| Some(*coll) != table_coll) {
            if super::types::is_text(&c.ty) || c.ty.member_collation().is_some() {
                l.push_str(&format!(
                    " CHARACTER SET {} COLLATE {}",
                    coll.charset().name(),
                    coll.name()
                ));
            }
        }
        if let Some(g) = &m.generated {
            let kind = if g.stored { "STORED" } else { "VIRTUAL" };
            l.push_str(&format!(" GENERATED ALWAYS AS ({}) {kind}", g.expr));
            if m.invisible {
                l.push_str(" INVISIBLE");
            }
        } else {
            if !c.nullable {
                l.push_str(" NOT NULL");
            } else if matches!(c.ty, ColumnType::Timestamp { .. }) {
                l.push_str(" NULL");
            }
            if m.invisible {
                l.push_str(" INVISIBLE");
            }
            if let Some(d) = default_clause(c, &m, auto) {
                l.push(' ');
                l.push_str(&d);
            }
        }
        if m.on_update_now {
            l.push_str(&format!(" ON UPDATE {}", now_text(type_fsp(&c.ty))));
        }
        if auto {
            l.push_str(" AUTO_INCREMENT");
        }
        if !m.comment.is_empty() {
            l.push_str(&format!(" COMMENT {}", quote_string(&m.comment)));
        }
        if let Some(check) = &m.check {
            l.push_str(&format!(" CHECK ({check})"));
        }
        lines.push(l);
    }
    for (k, fulltext) in all_keys(def, meta) {
        let primary = def.primary_key.as_ref() == Some(&k) && !fulltext;
        let head = if primary {
            "PRIMARY KEY".to_string()
        } else if fulltext {
            format!("FULLTEXT KEY {}", quote_ident(&k.name))
        } else if k.unique {
            format!("UNIQUE KEY {}", quote_ident(&k.name))
        } else {
            format!("KEY {}", quote_ident(&k.name))
        };
        let parts: Vec<String> = k
            .columns
            .iter()
            .map(|p| {
                let mut t = quote_ident(&def.columns[p.column].name);
                if let Some(n) = p.prefix_len {
                    t.push_str(&format!("({n})"));
                }
                if p.descending {
                    t.push_str(" DESC");
                }
                t
            })
            .collect();
        let mut l = format!("  {head} ({})", parts.join(","));
        let comment = meta.index_comment(&k.name);
        if !comment.is_empty() {
            l.push_str(&format!(" COMMENT {}", quote_string(comment)));
        }
        lines.push(l);
    }
    for fk in &meta.foreign_keys {
        lines.push(format!("  {}", fk.clause(&fk.column_names(def), db)));
    }
    for (name, expr) in &meta.checks {
        lines.push(format!("  CONSTRAINT {} CHECK ({expr})", quote_ident(name)));
    }
    let mut out = format!(
        "CREATE TABLE {} (\n{}\n)",
        quote_ident(&def.name),
        lines.join(",\n")
    );
    out.push_str(&format!(" ENGINE={}", meta.engine));
    if let Some(n) = auto_increment.filter(|n| *n > 1) {
        out.push_str(&format!(" AUTO_INCREMENT={n}"));
    }
    out.push_str(&format!(" DEFAULT CHARSET={}", meta.charset));
    if meta.charset != "binary" {
        out.push_str(&format!(" COLLATE={}", meta.collation));
    }
    // MariaDB's order: the numeric and switch options, ROW_FORMAT,
    // TRANSACTIONAL, KEY_BLOCK_SIZE, COMMENT, CONNECTION, then the
    // engine-defined options.
    let option = |out: &mut String, name: &str| {
        if let Some((n, v)) = meta.options.iter().find(|(n, _)| n == name) {
            out.push_str(&format!(" {n}={v}"));
        }
    };
    let after_row_format = |n: &str| {
        matches!(n, "TRANSACTIONAL" | "KEY_BLOCK_SIZE" | "CONNECTION") || n.starts_with('`')
    };
    for (n, v) in meta.options.iter().filter(|(n, _)| !after_row_format(n)) {
        out.push_str(&format!(" {n}={v}"));
    }
    if let Some(f) = &meta.row_format {
        out.push_str(&format!(" ROW_FORMAT={f}"));
    }
    option(&mut out, "TRANSACTIONAL");
    option(&mut out, "KEY_BLOCK_SIZE");
    if !meta.comment.is_empty() {
        out.push_str(&format!(" COMMENT={}", quote_string(&meta.comment)));
    }
    option(&mut out, "CONNECTION");
    for (n, v) in meta.options.iter().filter(|(n, _)| n.starts_with('`')) {
        out.push_str(&format!(" {n}={v}"));
    }
    out
}

/// SHOW CREATE TABLE t.
pub(super) fn show_create_table(
    s: &mut Session,
    name: &ast::ObjectName,
) -> Result<QueryResult, SqlError> {
    let (db, table) = table_name(s, name)?;
    let (entry, meta) = table_with_meta(s, &db, &table)?;
    let next = s.db.catalog().table(&db, &table)?.auto_increment_next();
    let temporary = s.is_temporary(&db, &table);
    let table = s.visible_table_name(&db, &table);
    let mut def = entry.def;
    def.name = table.clone();
    let mut body = create_table_text(&db, &def, &meta, next);
    if temporary {
        body.replace_range(.."CREATE".len(), "CREATE TEMPORARY");
    }
    Ok(QueryResult::Rows(RowSet {
        columns: vec![
            ResultColumn::text("Table", 64, false),
            ResultColumn::text("Create Table", 1024, false),
        ],
        rows: vec![vec![text(table), text(body)]],
    }))
}

/// The PRI/UNI/MUL flag of every column.
fn key_flags(def: &TableDef, meta: &TableMeta) -> Vec<&'static str> {
    let mut flags = vec![""; def.columns.len()];
    let promoted = if def.primary_key.is_some() {
        def.primary_key.as_ref()
    } else {
        def.secondary.iter().find(|k| {
            k.unique
                && k.columns
                    .iter()
                    .all(|p| p.prefix_len.is_none() && !def.columns[p.column].nullable)
        })
    };
    let rank = |f: &str| match f {
        "PRI" => 3,
        "UNI" => 2,
        "MUL" => 1,
        _ => 0,
    };
    let mut set = |c: usize, f: &'static str| {
        if rank(f) > rank(flags[c]) {
            flags[c] = f;
        }
    };
    if let Some(p) = promoted {
        for part in &p.columns {
            set(part.column, "PRI");
        }
    }
    for (k, _) in all_keys(def, meta) {
        if Some(&k) == promoted {
            continue;
        }
        if let Some(first) = k.columns.first() {
            let single_unique = k.unique && k.columns.len() == 1;
            set(first.column, if single_unique { "UNI" } else { "MUL" });
        }
    }
    flags
}

/// SHOW [FULL] COLUMNS FROM t [FROM db] [LIKE 'p' | WHERE e].
pub(super) fn show_columns(
    s: &mut Session,
    full: bool,
    opts: &ast::ShowStatementOptions,
) -> Result<QueryResult, SqlError> {
    let Some(name) = opts.show_in.as_ref().and_then(|i| i.parent_name.as_ref()) else {
        return Err(syntax_error(""));
    };
    let filter = match &opts.filter_position {
        Some(
            ast::ShowStatementFilterPosition::Infix(f)
            | ast::ShowStatementFilterPosition::Suffix(f),
        ) => Some(f),
        None => None,
    };
    columns_result(s, name, full, filter)
}

/// DESCRIBE t / DESC t / EXPLAIN t.
pub(super) fn describe(s: &mut Session, name: &ast::ObjectName) -> Result<QueryResult, SqlError> {
    columns_result(s, name, false, None)
}

fn columns_result(
    s: &mut Session,
    name: &ast::ObjectName,
    full: bool,
    filter: Option<&ast::ShowStatementFilter>,
) -> Result<QueryResult, SqlError> {
    let (db, table) = table_name(s, name)?;
    let (entry, meta) = match super::view::as_table(s, &db, &table)? {
        Some(v) => v,
        None => table_with_meta(s, &db, &table)?,
    };
    let def = &entry.def;
    let flags = key_flags(def, &meta);
    let mut columns = vec![
        ResultColumn::text("Field", 64, false),
        ResultColumn::text("Type", 1024, false),
    ];
    if full {
        columns.push(ResultColumn::text("Collation", 64, true));
    }
    columns.extend([
        ResultColumn::text("Null", 3, false),
        ResultColumn::text("Key", 3, false),
        ResultColumn::text("Default", 1024, true),
        ResultColumn::text("Extra", 80, false),
    ]);
    if full {
        columns.push(ResultColumn::text("Privileges", 80, false));
        columns.push(ResultColumn::text("Comment", 1024, false));
    }
    let mut rows = Vec::with_capacity(def.columns.len());
    for (i, c) in def.columns.iter().enumerate() {
        let m = meta.columns.get(i).cloned().unwrap_or_default();
        let auto = def.auto_increment == Some(i);
        let mut row = vec![text(&c.name), text(column_type_text(c, &m))];
        if full {
            row.push(match c.ty.collation() {
                Some(coll) if super::types::is_text(&c.ty) => text(coll.name()),
                _ => Value::Null,
            });
        }
        row.extend([
            text(if c.nullable { "YES" } else { "NO" }),
            text(flags[i]),
            if auto {
                Value::Null
            } else {
                default_for_show(&m)
            },
            text(extra_for_show(c, &m, auto)),
        ]);
        if full {
            row.push(text("select,insert,update,references"));
            row.push(text(&m.comment));
        }
        rows.push(row);
    }
    let rows = filter_rows(s, &columns, rows, filter)?;
    Ok(QueryResult::Rows(RowSet { columns, rows }))
}

/// Applies `LIKE 'pattern'` (to the first column) or `WHERE expr`.
fn filter_rows(
    s: &Session,
    columns: &[ResultColumn],
    rows: Vec<Vec<Value>>,
    filter: Option<&ast::ShowStatementFilter>,
) -> Result<Vec<Vec<Value>>, SqlError> {
    match filter {
        None => Ok(rows),
        Some(ast::ShowStatementFilter::Like(p) | ast::ShowStatementFilter::NoKeyword(p)) => {
            Ok(rows
                .into_iter()
                .filter(|r| matches!(&r[0], Value::Str(f) if like(p, f)))
                .collect())
        }
        Some(ast::ShowStatementFilter::Where(e)) => {
            let resolve = |idents: &[ast::Ident]| {
                let name = &idents.last()?.value;
                let i = columns
                    .iter()
                    .position(|c| c.name.eq_ignore_ascii_case(name))?;
                Some((
                    i,
                    crate::eval::ExprType {
                        ty: columns[i].ty.clone(),
                        nullable: true,
                        decimals: None,
                    },
                ))
            };
            let opts = crate::eval::CompileOptions {
                collation: s.connection_collation(),
                clause: "WHERE".into(),
            };
            let c = crate::eval::compile(e, &resolve, &opts)?;
            let mut out = Vec::new();
            for r in rows {
                let mut ctx = s.eval_context(&[]);
                if crate::value::number::is_true(&c.eval(&r, &mut ctx)?) {
                    out.push(r);
                }
            }
            Ok(out)
        }
        Some(other) => Err(syntax_error(other.to_string())),
    }
}

/// SQL LIKE with `%`, `_` and `\` escapes, case-insensitive (the
/// utf8mb4_general_ci comparison of names): the one LIKE matcher
/// (`eval::like`, iterative).
pub(super) fn like(pattern: &str, s: &str) -> bool {
    crate::eval::like(
        s,
        pattern,
        '\\',
        larch_engine::record::collation::Collation::Utf8mb4GeneralCi,
    )
}

/// True for the words of `SHOW INDEX|INDEXES|KEYS FROM|IN ...`.
pub(super) fn is_show_index(words: &[ast::Ident]) -> bool {
    matches!(words, [w, from, ..]
        if w.quote_style.is_none()
            && ["INDEX", "INDEXES", "KEYS"].iter().any(|k| w.value.eq_ignore_ascii_case(k))
            && from.quote_style.is_none()
            && (from.value.eq_ignore_ascii_case("FROM") || from.value.eq_ignore_ascii_case("IN")))
}

/// SHOW INDEX FROM t [FROM db] (words as sqlparser splits them).
pub(super) fn show_index(s: &mut Session, words: &[ast::Ident]) -> Result<QueryResult, SqlError> {
    let is_from = |w: &ast::Ident| {
        w.quote_style.is_none()
            && (w.value.eq_ignore_ascii_case("FROM") || w.value.eq_ignore_ascii_case("IN"))
    };
    let rest = &words[2..];
    let (table_parts, db_part) = match rest.iter().position(is_from) {
        Some(i) => (&rest[..i], rest.get(i + 1..)),
        None => (rest, None),
    };
    let mut parts: Vec<ast::Ident> = match db_part {
        Some([db]) => vec![db.clone()],
        Some(_) => {
            return Err(syntax_error(
                words
                    .iter()
                    .map(|w| w.to_string())
                    .collect::<Vec<_>>()
                    .join(" "),
            ))
        }
        None => Vec::new(),
    };
    match table_parts {
        [t] => parts.push(t.clone()),
        [db, t] if parts.is_empty() => {
            parts.push(db.clone());
            parts.push(t.clone());
        }
        _ => {
            return Err(syntax_error(
                words
                    .iter()
                    .map(|w| w.to_string())
                    .collect::<Vec<_>>()
                    .join(" "),
            ))
        }
    }
    let name = ast::ObjectName::from(parts);
    let (db, table) = table_name(s, &name)?;
    let (entry, meta) = table_with_meta(s, &db, &table)?;
    let visible = s.visible_table_name(&db, &table);
    let def = &entry.def;
    let columns = vec![
        ResultColumn::text("Table", 64, false),
        ResultColumn::bigint("Non_unique", false, false),
        ResultColumn::text("Key_name", 64, false),
        ResultColumn::bigint("Seq_in_index", true, false),
        ResultColumn::text("Column_name", 64, false),
        ResultColumn::text("Collation", 1, true),
        ResultColumn::bigint("Cardinality", false, true),
        ResultColumn::bigint("Sub_part", false, true),
        ResultColumn::text("Packed", 10, true),
        ResultColumn::text("Null", 3, false),
        ResultColumn::text("Index_type", 16, false),
        ResultColumn::text("Comment", 16, false),
        ResultColumn::text("Index_comment", 1024, false),
        ResultColumn::text("Ignored", 3, false),
    ];
    let cardinality = index_cardinality(s, &db, &table, def);
    let mut rows = Vec::new();
    for (i, (k, fulltext)) in all_keys(def, &meta).into_iter().enumerate() {
        let primary = !fulltext && def.primary_key.as_ref() == Some(&k);
        let non_unique = i64::from(!(primary || k.unique));
        for (seq, p) in k.columns.iter().enumerate() {
            let c = &def.columns[p.column];
            rows.push(vec![
                text(&visible),
                Value::Int(non_unique),
                text(&k.name),
                Value::UInt(seq as u64 + 1),
                text(&c.name),
                if fulltext {
                    Value::Null
                } else {
                    text(if p.descending { "D" } else { "A" })
                },
                cardinality_value(&cardinality, i, seq),
                p.prefix_len
                    .map_or(Value::Null, |n| Value::Int(i64::from(n))),
                Value::Null,
                text(if c.nullable { "YES" } else { "" }),
                text(if fulltext { "FULLTEXT" } else { "BTREE" }),
                text(""),
                text(meta.index_comment(&k.name)),
                text("NO"),
            ]);
        }
    }
    Ok(QueryResult::Rows(RowSet { columns, rows }))
}

/// Distinct-prefix estimates of every B+tree index of `db`.`table`, in the
/// order of [`all_keys`] (primary key first, then the secondary indexes;
/// full-text indexes have none). Empty when the table cannot be read: the
/// figures are then shown as 0. Takes no metadata lock, as MariaDB's SHOW
/// INDEX does not wait for DDL; a table dropped meanwhile gives an error from
/// the engine, never pages of another table.
pub(crate) fn index_cardinality(
    s: &Session,
    db: &str,
    table: &str,
    def: &TableDef,
) -> Vec<Vec<u64>> {
    let Ok(t) = s.db.catalog().table(db, table) else {
        return Vec::new();
    };
    let mut engine_indexes = Vec::new();
    if def.primary_key.is_some() {
        engine_indexes.push(larch_engine::table::CLUSTERED);
    }
    engine_indexes.extend((0..def.secondary.len()).map(|i| i + 1));
    engine_indexes
        .into_iter()
        .map(|i| t.index_cardinality(i).unwrap_or_default())
        .collect()
}

/// The Cardinality of key part `seq` of key `key` (an index into
/// [`index_cardinality`]'s list), 0 when unknown.
pub(crate) fn cardinality_value(all: &[Vec<u64>], key: usize, seq: usize) -> Value {
    let n = all.get(key).and_then(|k| k.get(seq)).copied().unwrap_or(0);
    Value::Int(i64::try_from(n).unwrap_or(i64::MAX))
}
