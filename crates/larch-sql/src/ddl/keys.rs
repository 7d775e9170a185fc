//! Key definitions: sqlparser's table constraints and index columns to
//! [`KeySpec`]s, and adding a key to a [`Work`] with MySQL's rules.
//!
//! - PRIMARY KEY: one per table (1068); its columns become NOT NULL, except a
//!   column declared `NULL` explicitly in the same statement (1171), and stay
//!   NOT NULL when ALTER TABLE changes them; its name is always `PRIMARY`
//!   (another is ignored with warning 1280).
//! - Other keys: the given name, or MySQL's default (first column name, then
//!   `_2`, `_3`...); `PRIMARY` is reserved (1280); duplicates are 1061;
//!   columns must exist (1072); FULLTEXT columns must be character strings
//!   (1283).
//! - `col(10)` is a prefix part, `col DESC` a descending one.
//! - FOREIGN KEY: like InnoDB, an index on the referencing columns is added
//!   when no key starts with them (named after the constraint, or the default
//!   name); the constraint itself is `foreign_ddl`'s.

use sqlparser::ast;

use super::work::{KeyKind, WKey, WPart, Work};
use super::{check_identifier, syntax_error, Ident};
use crate::error::SqlError;

/// One part of a key as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PartSpec {
    pub column: String,
    pub descending: bool,
    pub prefix: Option<u32>,
}

/// A key as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct KeySpec {
    pub name: Option<String>,
    pub kind: KeyKind,
    pub parts: Vec<PartSpec>,
    pub comment: String,
}

impl KeySpec {
    /// A key on one whole column (column-level PRIMARY KEY / UNIQUE).
    pub fn on_column(kind: KeyKind, column: &str) -> KeySpec {
        KeySpec {
            name: None,
            kind,
            parts: vec![PartSpec {
                column: column.to_string(),
                descending: false,
                prefix: None,
            }],
            comment: String::new(),
        }
    }
}

/// What a table constraint asks for.
#[derive(Debug, Clone)]
pub(super) enum Constraint {
    Key(KeySpec),
    /// The index a FOREIGN KEY needs, and the constraint.
    ForeignKey(KeySpec, super::foreign_ddl::FkSpec),
    /// A table CHECK constraint: its name, if given, and expression text.
    Check(Option<String>, String),
}

/// The parts of an index column list.
pub(super) fn parts(cols: &[ast::IndexColumn]) -> Result<Vec<PartSpec>, SqlError> {
    cols.iter().map(part).collect()
}

fn part(c: &ast::IndexColumn) -> Result<PartSpec, SqlError> {
    let descending = match &c.column.options.sort {
        None | Some(ast::OrderBySort::Asc) => false,
        Some(ast::OrderBySort::Desc) => true,
        Some(ast::OrderBySort::Using(_)) => return Err(syntax_error(c.to_string())),
    };
    if c.column.options.nulls_first.is_some() || c.operator_class.is_some() {
        return Err(syntax_error(c.to_string()));
    }
    let (column, prefix) = match &c.column.expr {
        ast::Expr::Identifier(i) => (i.value.clone(), None),
        ast::Expr::Function(f) => {
            let name = match f.name.0.as_slice() {
                [p] => p.as_ident().map(|i| i.value.clone()),
                _ => None,
            };
            let len = match &f.args {
                ast::FunctionArguments::List(l) if l.args.len() == 1 => match &l.args[0] {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Value(v))) => {
                        match &v.value {
                            ast::Value::Number(n, _) => n.parse::<u32>().ok(),
                            _ => None,
                        }
                    }
                    _ => None,
                },
                _ => None,
            };
            match (name, len) {
                (Some(n), Some(l)) => (n, Some(l)),
                _ => return Err(syntax_error(c.to_string())),
            }
        }
        other => return Err(syntax_error(other.to_string())),
    };
    Ok(PartSpec {
        column,
        descending,
        prefix,
    })
}

/// The COMMENT of index options (USING BTREE/HASH is accepted).
pub(super) fn index_comment(opts: &[ast::IndexOption]) -> String {
    opts.iter()
        .filter_map(|o| match o {
            ast::IndexOption::Comment(c) => Some(c.clone()),
            _ => None,
        })
        .next_back()
        .unwrap_or_default()
}

/// Warning 1280 for a name given to a PRIMARY KEY (`CONSTRAINT pk PRIMARY
/// KEY`, `PRIMARY KEY idx (...)`): the key is always named PRIMARY.
pub(super) fn ignored_primary_name(c: &ast::TableConstraint) -> Option<crate::error::Warning> {
    let ast::TableConstraint::PrimaryKey(p) = c else {
        return None;
    };
    let name = p.index_name.as_ref().or(p.name.as_ref())?;
    (!name.value.eq_ignore_ascii_case("PRIMARY")).then(|| {
        crate::error::Warning::warn(
            1280,
            format!("Name '{}' ignored for PRIMARY key.", name.value),
        )
    })
}

/// A table constraint (CREATE TABLE element or ALTER TABLE ADD).
pub(super) fn constraint(c: &ast::TableConstraint) -> Result<Constraint, SqlError> {
    use ast::TableConstraint as T;
    let ident = |i: &Option<ast::Ident>| i.as_ref().map(|i| i.value.clone());
    Ok(match c {
        T::PrimaryKey(p) => Constraint::Key(KeySpec {
            name: None,
            kind: KeyKind::Primary,
            parts: parts(&p.columns)?,
            comment: index_comment(&p.index_options),
        }),
        T::Unique(u) => Constraint::Key(KeySpec {
            name: ident(&u.index_name).or_else(|| ident(&u.name)),
            kind: KeyKind::Unique,
            parts: parts(&u.columns)?,
            comment: index_comment(&u.index_options),
        }),
        T::Index(i) => Constraint::Key(KeySpec {
            name: ident(&i.name),
            kind: KeyKind::Index,
            parts: parts(&i.columns)?,
            comment: index_comment(&i.index_options),
        }),
        T::FulltextOrSpatial(f) if f.fulltext => Constraint::Key(KeySpec {
            name: ident(&f.opt_index_name),
            kind: KeyKind::Fulltext,
            parts: parts(&f.columns)?,
            comment: String::new(),
        }),
        T::FulltextOrSpatial(_) => return Err(SqlError::not_supported("SPATIAL indexes")),
        T::ForeignKey(fk) => Constraint::ForeignKey(
            KeySpec {
                name: ident(&fk.name).or_else(|| ident(&fk.index_name)),
                kind: KeyKind::Index,
                parts: fk
                    .columns
                    .iter()
                    .map(|c| PartSpec {
                        column: c.value.clone(),
                        descending: false,
                        prefix: None,
                    })
                    .collect(),
                comment: String::new(),
            },
            super::foreign_ddl::FkSpec::from_ast(fk),
        ),
        T::Check(c) => Constraint::Check(
            c.name.as_ref().map(|n| n.value.clone()),
            super::check::check_text(&c.expr),
        ),
        other => return Err(syntax_error(other.to_string())),
    })
}

impl Work {
    /// Keeps the primary key's columns NOT NULL after ALTER TABLE changed
    /// them: MariaDB makes `CHANGE a a INT` or `MODIFY a INT NULL` of a key
    /// column NOT NULL rather than refusing it.
    pub fn primary_columns_not_null(&mut self) {
        let Some(pk) = self.keys.iter().find(|k| k.kind == KeyKind::Primary) else {
            return;
        };
        let ids: Vec<usize> = pk.parts.iter().map(|p| p.col).collect();
        for c in self.cols.iter_mut().filter(|c| ids.contains(&c.id)) {
            c.def.nullable = false;
            if c.meta.default.as_deref() == Some("NULL") {
                c.meta.default = None;
            }
        }
    }

    /// Adds a key (see the module documentation for the rules).
    pub fn add_key(&mut self, spec: KeySpec) -> Result<(), SqlError> {
        let mut parts = Vec::with_capacity(spec.parts.len());
        for p in &spec.parts {
            let Some(pos) = self.col_pos(&p.column) else {
                return Err(SqlError::new(
                    1072,
                    format!("Key column '{}' doesn't exist in table", p.column),
                ));
            };
            let col = &self.cols[pos];
            if spec.kind == KeyKind::Fulltext && !super::types::is_text(&col.def.ty) {
                return Err(SqlError::new(
                    1283,
                    format!("Column '{}' cannot be part of FULLTEXT index", col.def.name),
                ));
            }
            parts.push(WPart {
                col: col.id,
                descending: p.descending,
                prefix: if spec.kind == KeyKind::Fulltext {
                    None
                } else {
                    p.prefix
                },
            });
        }
        let Some(first) = parts.first().and_then(|p| self.col_by_id(p.col)) else {
            return Err(syntax_error(")"));
        };
        let first = first.def.name.clone();
        let name = match spec.kind {
            KeyKind::Primary => {
                if self.keys.iter().any(|k| k.kind == KeyKind::Primary) {
                    return Err(SqlError::new(1068, "Multiple primary key defined"));
                }
                for p in &parts {
                    if let Some(c) = self.cols.iter_mut().find(|c| c.id == p.col) {
                        if c.explicit_null {
                            return Err(SqlError::new(
                                1171,
                                "All parts of a PRIMARY KEY must be NOT NULL; if you need NULL in a key, use UNIQUE instead",
                            ));
                        }
                        c.def.nullable = false;
                        if c.meta.default.as_deref() == Some("NULL") {
                            c.meta.default = None;
                        }
                    }
                }
                "PRIMARY".to_string()
            }
            _ => match spec.name {
                Some(n) => {
                    check_identifier(&n, Ident::Index)?;
                    if n.eq_ignore_ascii_case("PRIMARY") {
                        return Err(SqlError::new(1280, format!("Incorrect index name '{n}'")));
                    }
                    if self.key_pos(&n).is_some() {
                        return Err(SqlError::new(1061, format!("Duplicate key name '{n}'")));
                    }
                    n
                }
                None => self.unique_key_name(&first),
            },
        };
        // A key of the same kind over the same columns and prefixes as an
        // earlier one: MariaDB's note 1831 (it still adds the key).
        let same_parts = |k: &WKey| {
            k.parts.len() == parts.len()
                && k.parts
                    .iter()
                    .zip(&parts)
                    .all(|(a, b)| a.col == b.col && a.prefix == b.prefix)
        };
        if spec.kind != KeyKind::Primary
            && self
                .keys
                .iter()
                .any(|k| k.kind == spec.kind && same_parts(k))
        {
            self.notes.push(crate::error::Warning::note(
                1831,
                format!(
                    "Duplicate index `{name}`. This is deprecated and will be disallowed in a future release"
                ),
            ));
        }
        self.keys.push(WKey {
            name,
            kind: spec.kind,
            parts,
            comment: spec.comment,
        });
        Ok(())
    }

    /// The index a FOREIGN KEY needs, unless a key already starts with its
    /// columns.
    pub fn add_foreign_key_index(&mut self, spec: KeySpec) -> Result<(), SqlError> {
        let mut ids = Vec::with_capacity(spec.parts.len());
        for p in &spec.parts {
            match self.col_pos(&p.column) {
                Some(pos) => ids.push(self.cols[pos].id),
                None => {
                    return Err(SqlError::new(
                        1072,
                        format!("Key column '{}' doesn't exist in table", p.column),
                    ))
                }
            }
        }
        let covered = self.keys.iter().any(|k| {
            k.kind != KeyKind::Fulltext
                && k.parts.len() >= ids.len()
                && k.parts
                    .iter()
                    .zip(&ids)
                    .all(|(p, id)| p.col == *id && p.prefix.is_none())
        });
        if covered {
            return Ok(());
        }
        let spec = KeySpec {
            name: spec.name.filter(|n| self.key_pos(n).is_none()),
            ..spec
        };
        self.add_key(spec)
    }
}
