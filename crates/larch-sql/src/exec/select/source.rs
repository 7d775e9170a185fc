//! The FROM clause: tables, views, derived tables and joins as [`Source`]s
//! laid out side by side in one combined row, and name resolution over them.
//! A view that was not merged into the query (`super::view`) is read like a
//! derived table: its query runs and its rows are the source's.
//!
//! The combined row holds every column of every source in FROM order;
//! `Source::offset` is where a source's columns start. A column reference
//! `c`, `t.c` or `db.t.c` resolves to one position (1052 when `c` is in two
//! sources, 1054 when it is nowhere).

use std::sync::Arc;

use larch_engine::record::value::{ColumnType, Value};
use larch_engine::table::Table;
use sqlparser::ast;

use crate::error::SqlError;
use crate::eval::ExprType;
use crate::exec::names;
use crate::result::{ResultColumn, RowSet};
use crate::session::Session;

/// How a source joins the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JoinKind {
    /// The first source, a comma or CROSS/INNER JOIN.
    Inner,
    /// LEFT [OUTER] JOIN: a row of NULLs when nothing matches.
    Left,
}

/// A join condition, checked at the last source of the join's right side.
pub(crate) struct Check {
    /// ON condition (USING is turned into ON); `None` for a join without.
    pub cond: Option<ast::Expr>,
    /// For an outer join: how many sources back its NULL-extended side
    /// starts (0: at this source). Passing the check means that side found
    /// a match.
    pub closes_back: Option<usize>,
}

/// Where a source's rows come from.
pub(crate) enum SourceRows {
    Table(Arc<Table>),
    /// A derived table (subquery in FROM) or a virtual table, materialized.
    Rows(super::materialized::Materialized),
}

/// One entry of FROM.
pub(crate) struct Source {
    /// Name used to qualify columns (alias or table name).
    pub alias: String,
    pub db: String,
    pub table: String,
    pub rows: SourceRows,
    /// Column names and types.
    pub columns: Vec<ResultColumn>,
    pub offset: usize,
    /// `Left` when an outer join may NULL-extend this source.
    pub join: JoinKind,
    /// Conditions checked once this source's row is in place, innermost
    /// join first (see [`Check`]).
    pub checks: Vec<Check>,
    /// When this source starts an outer join's NULL-extended side: how many
    /// sources (this one and those after it) that side spans.
    pub group_len: Option<usize>,
    /// Conditions every row of this source that takes part must meet (the
    /// ON conditions of the joins around it): their equalities with earlier
    /// sources' columns drive index lookups.
    pub lookup: Vec<ast::Expr>,
    /// Position in FROM as written (`*` lists columns in that order; the
    /// sources themselves are in reading order).
    pub text_order: usize,
    /// The table name EXPLAIN shows for a WITH element (`<derivedN>`).
    pub explain_name: Option<String>,
    /// Empty unless FROM has a USING or NATURAL join; then per column its
    /// position in `*`, `usize::MAX` for a shared column merged into the
    /// other side's, which `*` and unqualified names skip (`join_tree`).
    pub star_rank: Vec<usize>,
    /// The relevance of each `MATCH ... AGAINST` over this table, as hidden
    /// columns after the table's own (`super::fulltext`).
    pub matches: Vec<super::fulltext::MatchColumn>,
    /// When the block reads this (first) source through a FULLTEXT index:
    /// the addresses of the rows found, best first.
    pub fulltext_order: Option<Arc<Vec<Vec<u8>>>>,
}

impl Source {
    pub fn width(&self) -> usize {
        self.columns.len()
    }

    /// The columns the source's rows hold (before the hidden relevance
    /// columns of `MATCH`).
    pub fn stored_width(&self) -> usize {
        self.columns.len() - self.matches.len()
    }

    /// The fields a FROM item does not determine, for struct update.
    fn placeholder() -> Source {
        Source {
            alias: String::new(),
            db: String::new(),
            table: String::new(),
            rows: SourceRows::Rows(Vec::new().into()),
            columns: Vec::new(),
            offset: 0,
            join: JoinKind::Inner,
            checks: Vec::new(),
            group_len: None,
            lookup: Vec::new(),
            text_order: 0,
            explain_name: None,
            star_rank: Vec::new(),
            matches: Vec::new(),
            fulltext_order: None,
        }
    }
}

/// `USE | FORCE | IGNORE INDEX (name, ...)`: every name must be one of the
/// table's indexes (`PRIMARY` its primary key), else MariaDB's 1176. The
/// hints themselves only steer MariaDB's plan; Larch's planner picks its
/// own access path, which gives the same rows.
fn check_index_hints(
    t: &Table,
    alias: &str,
    hints: &[ast::TableIndexHints],
) -> Result<(), SqlError> {
    let def = t.def();
    for name in hints.iter().flat_map(|h| &h.index_names) {
        let n = name.value.as_str();
        let known = (n.eq_ignore_ascii_case("PRIMARY") && def.primary_key.is_some())
            || def.secondary.iter().any(|i| i.name.eq_ignore_ascii_case(n))
            || def.fulltext.iter().any(|i| i.name.eq_ignore_ascii_case(n));
        if !known {
            let shown = if n.eq_ignore_ascii_case("PRIMARY") {
                "PRIMARY"
            } else {
                n
            };
            return Err(SqlError::new(
                1176,
                format!("Key '{shown}' doesn't exist in table '{alias}'"),
            ));
        }
    }
    Ok(())
}

pub(crate) fn table_columns(
    s: &Session,
    db: &str,
    table: &str,
    alias: &str,
    t: &Table,
) -> Vec<ResultColumn> {
    let def = t.def();
    let shown = column_display(s, db, table, t);
    let pk: Vec<usize> = def
        .primary_key
        .as_ref()
        .map(|p| p.columns.iter().map(|c| c.column).collect())
        .unwrap_or_default();
    def.columns
        .iter()
        .enumerate()
        .map(|(i, c)| ResultColumn {
            name: c.name.clone(),
            org_name: c.name.clone(),
            table: alias.to_owned(),
            org_table: table.to_owned(),
            schema: db.to_owned(),
            ty: c.ty.clone(),
            nullable: c.nullable,
            primary_key: pk.contains(&i),
            unique_key: def
                .secondary
                .iter()
                .any(|s| s.unique && s.columns.first().is_some_and(|p| p.column == i)),
            multiple_key: def
                .secondary
                .iter()
                .any(|s| !s.unique && s.columns.first().is_some_and(|p| p.column == i)),
            auto_increment: def.auto_increment == Some(i),
            null_literal: false,
            unsigned_number: shown.get(i).is_some_and(|d| d.unsigned_number),
            fixed_real: shown.get(i).and_then(|d| d.fixed_real),
            zerofill: shown.get(i).and_then(|d| d.zerofill),
        })
        .collect()
}

/// How a table column's values show beyond its engine type (kept in the
/// table's SQL metadata).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct ColumnDisplay {
    /// A DECIMAL, FLOAT or DOUBLE declared UNSIGNED.
    unsigned_number: bool,
    /// FLOAT(M,D) / DOUBLE(M,D).
    fixed_real: Option<(u32, u32)>,
    /// ZEROFILL, with the width the values are padded to.
    zerofill: Option<u32>,
}

/// [`ColumnDisplay`] per column of a table; empty when no column can have
/// any (no DECIMAL, FLOAT or DOUBLE, no UNSIGNED integer: ZEROFILL makes a
/// column UNSIGNED), so that most tables read no metadata here. Kept per
/// session (by the table's engine name) until the tables change.
fn column_display(s: &Session, db: &str, table: &str, t: &Table) -> Arc<Vec<ColumnDisplay>> {
    let def = t.def();
    let kept = s
        .shown_columns
        .borrow()
        .get(db, &def.name, |key| s.plan_valid(key));
    if let Some(kept) = kept {
        return kept;
    }
    let key = s.plan_key();
    let shown = Arc::new(read_column_display(s, db, table, t));
    s.shown_columns
        .borrow_mut()
        .put(db, &def.name, key, shown.clone());
    shown
}

fn read_column_display(s: &Session, db: &str, table: &str, t: &Table) -> Vec<ColumnDisplay> {
    let def = t.def();
    if !def.columns.iter().any(|c| {
        matches!(
            c.ty,
            ColumnType::Decimal { .. }
                | ColumnType::Float
                | ColumnType::Double
                | ColumnType::Int { unsigned: true, .. }
        )
    }) {
        return Vec::new();
    }
    // By name, else by the engine's name (a temporary table's hidden one).
    let catalog = s.db.catalog();
    let Some(entry) = catalog
        .table_entry(db, table)
        .or_else(|| catalog.table_entry(db, &def.name))
    else {
        return Vec::new();
    };
    let Ok(meta) = crate::ddl::TableMeta::decode(&entry.sql_meta, &entry.def) else {
        return Vec::new();
    };
    def.columns
        .iter()
        .zip(&meta.columns)
        .map(|(c, m)| {
            let fixed_real = m.fixed_real(&c.ty);
            ColumnDisplay {
                unsigned_number: m.unsigned,
                fixed_real,
                zerofill: m.zerofill.then(|| {
                    m.display_width
                        .unwrap_or_else(|| zerofill_width(&c.ty, fixed_real))
                }),
            }
        })
        .collect()
}

/// The width a ZEROFILL column without a display width pads to: MariaDB's
/// default display length of its type.
fn zerofill_width(ty: &ColumnType, fixed_real: Option<(u32, u32)>) -> u32 {
    match (ty, fixed_real) {
        (_, Some((m, _))) => m,
        (ColumnType::Int { bytes, .. }, _) => match bytes {
            1 => 3,
            2 => 5,
            3 => 8,
            4 => 10,
            _ => 20,
        },
        (ColumnType::Decimal { precision, scale }, _) => {
            u32::from(*precision) + u32::from(*scale > 0)
        }
        (ColumnType::Float, _) => 12,
        _ => 22,
    }
}

/// A FROM item that is not a nested join, as a source (offset 0, inner,
/// no conditions: the join tree sets those).
pub(super) fn factor(
    s: &Session,
    f: &ast::TableFactor,
    params: &[Value],
) -> Result<Source, SqlError> {
    match f {
        ast::TableFactor::Table {
            name,
            alias,
            index_hints,
            ..
        } => {
            if let Some(found) = super::cte::lookup(name) {
                let (set, explain_name) = super::cte::rows(s, &found, params)?;
                let table = names::object_last(name);
                let alias = alias
                    .as_ref()
                    .map_or_else(|| table.clone(), |a| a.name.value.clone());
                return Ok(Source {
                    columns: set
                        .columns
                        .iter()
                        .map(|c| ResultColumn {
                            table: alias.clone(),
                            org_table: String::new(),
                            // Materialised, a NULL is a BINARY(0) column.
                            null_literal: false,
                            ..c.clone()
                        })
                        .collect(),
                    alias,
                    db: String::new(),
                    table,
                    rows: SourceRows::Rows(set.rows.clone()),
                    explain_name,
                    ..Source::placeholder()
                });
            }
            let (db, table) = names::table_name(s, name)?;
            // Unaliased, a table is known by its name as written (the
            // hidden name of a temporary table is no name to qualify by).
            let alias = alias
                .as_ref()
                .map_or_else(|| names::object_last(name), |a| a.name.value.clone());
            if names::is_virtual_database(&db) {
                let set = crate::exec::select::information_schema::table(s, &table)?;
                return Ok(Source {
                    columns: set
                        .columns
                        .into_iter()
                        .map(|mut c| {
                            c.table = alias.clone();
                            c
                        })
                        .collect(),
                    alias,
                    db,
                    table,
                    rows: SourceRows::Rows(set.rows.into()),
                    ..Source::placeholder()
                });
            }
            if let Some(v) = super::view::load(s, &db, &table)? {
                let RowSet { columns, rows } = super::view::rows(s, &v)?;
                return Ok(Source {
                    columns: columns
                        .into_iter()
                        .map(|mut c| {
                            c.table = alias.clone();
                            c
                        })
                        .collect(),
                    alias,
                    db,
                    table,
                    rows: SourceRows::Rows(rows.into()),
                    ..Source::placeholder()
                });
            }
            let t = names::open_table(s, &db, &table, Some(&alias), false)?;
            check_index_hints(&t, &alias, index_hints)?;
            Ok(Source {
                columns: table_columns(s, &db, &table, &alias, &t),
                alias,
                db,
                table,
                rows: SourceRows::Table(t),
                ..Source::placeholder()
            })
        }
        ast::TableFactor::Derived {
            subquery, alias, ..
        } => {
            let Some(alias) = alias.as_ref().map(|a| a.name.value.clone()) else {
                return Err(SqlError::new(
                    1248,
                    "Every derived table must have its own alias",
                ));
            };
            let (columns, rows) = super::run_derived(s, subquery, params)?;
            let columns = columns
                .into_iter()
                .map(|mut c| {
                    c.table = alias.clone();
                    c.org_table = String::new();
                    // Materialised, a NULL is a BINARY(0) column.
                    c.null_literal = false;
                    c
                })
                .collect();
            Ok(Source {
                alias: alias.clone(),
                db: String::new(),
                table: alias,
                rows: SourceRows::Rows(rows),
                columns,
                ..Source::placeholder()
            })
        }
        _ => Err(SqlError::not_supported("this FROM item")),
    }
}

pub(crate) use super::join_tree::sources;

/// Per column of a table source, whether it is INVISIBLE (left out of
/// `*`); empty for other sources and tables without such columns.
pub(crate) fn invisible_columns(s: &Session, src: &Source) -> Vec<bool> {
    let SourceRows::Table(t) = &src.rows else {
        return Vec::new();
    };
    // By name, else by the engine's name (a temporary table's hidden one).
    let catalog = s.db.catalog();
    let Some(entry) = catalog
        .table_entry(&src.db, &src.table)
        .or_else(|| catalog.table_entry(&src.db, &t.def().name))
    else {
        return Vec::new();
    };
    match crate::ddl::TableMeta::decode(&entry.sql_meta, &entry.def) {
        Ok(m) if m.columns.iter().any(|c| c.invisible) => {
            m.columns.iter().map(|c| c.invisible).collect()
        }
        _ => Vec::new(),
    }
}

/// Resolves a column reference over the sources: its combined-row position
/// and type. `Err` for an ambiguous name.
pub(crate) fn resolve(
    sources: &[Source],
    parts: &[ast::Ident],
) -> Result<Option<(usize, ExprType)>, SqlError> {
    let (qual_db, qual_table, col) = match parts {
        [c] => (None, None, &c.value),
        [t, c] => (None, Some(&t.value), &c.value),
        [d, t, c] => (Some(&d.value), Some(&t.value), &c.value),
        _ => return Ok(None),
    };
    let mut found: Option<(usize, ExprType)> = None;
    for src in sources {
        if let Some(t) = qual_table {
            if src.alias != *t && !(qual_db.is_some() && src.table == *t) {
                continue;
            }
        }
        if let Some(d) = qual_db {
            if src.db != *d {
                continue;
            }
        }
        if let Some(i) = src.columns.iter().enumerate().position(|(i, c)| {
            c.name.eq_ignore_ascii_case(col)
                && (qual_table.is_some() || src.star_rank.get(i) != Some(&usize::MAX))
        }) {
            if found.is_some() {
                return Err(SqlError::ambiguous_column(col, "SELECT"));
            }
            let c = &src.columns[i];
            found = Some((
                src.offset + i,
                ExprType {
                    ty: c.ty.clone(),
                    nullable: c.nullable || src.join == JoinKind::Left,
                    decimals: c.real_decimals(),
                },
            ));
        }
    }
    Ok(found)
}
