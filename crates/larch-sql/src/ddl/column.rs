//! One column definition (`name type [options]`) of CREATE TABLE or ALTER
//! TABLE ADD/MODIFY/CHANGE, with MySQL's rules:
//!
//! - NULL is the default nullability; `NOT NULL`/`NULL` may appear anywhere
//!   (the last wins); AUTO_INCREMENT and SERIAL columns are NOT NULL;
//! - `DEFAULT`: a literal is converted to the column type with strict rules
//!   and stored in canonical form (`render`); a value that does not convert,
//!   `DEFAULT NULL` on a NOT NULL column and any default on an AUTO_INCREMENT
//!   column are error 1067; `CURRENT_TIMESTAMP`/`NOW()`[`(n)`] is allowed on
//!   DATETIME and TIMESTAMP only; another constant expression is kept as
//!   `(expr)` after checking that it evaluates and converts;
//! - `ON UPDATE CURRENT_TIMESTAMP` on DATETIME/TIMESTAMP only (1294);
//! - column-level `PRIMARY KEY` / `KEY` / `UNIQUE [KEY]` become keys on the
//!   column; inline `REFERENCES` and `CHECK` are accepted and ignored (as
//!   MySQL does); generated and invisible columns are error 1235;
//! - COMMENT up to 1024 characters (1629).

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Value};
use larch_engine::table::ColumnDef;
use sqlparser::ast;
use sqlparser::tokenizer::Token;

use super::keys::KeySpec;
use super::meta::{ColumnMeta, Generation};
use super::render::{literal_text, now_text};
use super::types::{column_type, resolve_collation};
use super::work::{KeyKind, WCol};
use super::{check_identifier, invalid_default, syntax_error, Ident};
use crate::error::SqlError;
use crate::session::Session;
use crate::value::{store, StoreTarget};

/// Longest column comment.
const MAX_COMMENT_CHARS: usize = 1024;

/// A built column and the keys it declares.
#[derive(Debug, Clone)]
pub(super) struct BuiltColumn {
    pub col: WCol,
    pub keys: Vec<KeySpec>,
}

/// Builds column `name` of type `dt` with `options`; `table_coll` is the
/// table's default collation and `id` the column's id in its `Work`.
pub(super) fn build(
    s: &Session,
    name: &ast::Ident,
    dt: &ast::DataType,
    options: &[&ast::ColumnOption],
    table_coll: Collation,
    id: usize,
) -> Result<BuiltColumn, SqlError> {
    use ast::ColumnOption as O;
    let col = name.value.as_str();
    check_identifier(col, Ident::Column)?;
    let mut charset = None;
    let mut collate = None;
    for o in options {
        match o {
            O::CharacterSet(n) => charset = Some(n.to_string()),
            O::Collation(n) => collate = Some(n.to_string()),
            _ => {}
        }
    }
    let mut coll = resolve_collation(charset.as_deref(), collate.as_deref(), table_coll)?;
    // `VARCHAR(n) BINARY`: the `_bin` collation of the column's character set.
    let binary_attr = options.iter().any(|o| {
        matches!(o, O::DialectSpecific(t) if t.iter().any(|t| matches!(t, Token::Word(w) if w.value.eq_ignore_ascii_case("BINARY"))))
    });
    if binary_attr {
        coll = match coll {
            Collation::Latin1SwedishCi | Collation::Latin1Bin => Collation::Latin1Bin,
            Collation::Binary => Collation::Binary,
            _ => Collation::Utf8mb4Bin,
        };
    }
    let spec = column_type(dt, coll, col)?;
    let mut def = ColumnDef::new(col, spec.ty.clone()).nullable();
    let mut meta = ColumnMeta {
        display_width: spec.display_width,
        unsigned: spec.unsigned,
        precision: spec.precision,
        check: matches!(dt, ast::DataType::JSON).then(|| super::check::json_check(col)),
        ..ColumnMeta::default()
    };
    let mut explicit_null = false;
    let mut auto_inc = spec.serial;
    let mut keys = Vec::new();
    if spec.serial {
        def.nullable = false;
        keys.push(KeySpec::on_column(KeyKind::Unique, col));
    }
    let mut default = None;
    for o in options {
        match o {
            O::Null => {
                def.nullable = true;
                explicit_null = true;
            }
            O::NotNull => {
                def.nullable = false;
                explicit_null = false;
            }
            O::Default(e) => default = Some(e),
            O::OnUpdate(e) => {
                let temporal = matches!(
                    def.ty,
                    ColumnType::Datetime { .. } | ColumnType::Timestamp { .. }
                );
                if now_precision(e).is_none() || !temporal {
                    return Err(SqlError::new(
                        1294,
                        format!("Invalid ON UPDATE clause for '{col}' column"),
                    ));
                }
                meta.on_update_now = true;
            }
            O::Comment(c) => {
                if c.chars().count() > MAX_COMMENT_CHARS {
                    return Err(SqlError::new(
                        1629,
                        format!(
                            "Comment for field '{col}' is too long (max = {MAX_COMMENT_CHARS})"
                        ),
                    ));
                }
                meta.comment = c.clone();
            }
            O::PrimaryKey(_) => keys.push(KeySpec::on_column(KeyKind::Primary, col)),
            O::Unique(_) => keys.push(KeySpec::on_column(KeyKind::Unique, col)),
            O::DialectSpecific(tokens) => {
                for t in tokens {
                    match t {
                        Token::Word(w) if w.value.eq_ignore_ascii_case("AUTO_INCREMENT") => {
                            auto_inc = true
                        }
                        Token::Word(w) if w.value.eq_ignore_ascii_case("ZEROFILL") => {
                            meta.zerofill = true
                        }
                        // `BINARY` after a string type: handled with the collation.
                        Token::Word(w) if w.value.eq_ignore_ascii_case("BINARY") => {}
                        other => return Err(syntax_error(other.to_string())),
                    }
                }
            }
            O::Check(c) => meta.check = Some(super::check::check_text(&c.expr)),
            O::CharacterSet(_) | O::Collation(_) | O::ForeignKey(_) => {}
            O::Generated {
                generation_expr: Some(e),
                generation_expr_mode,
                ..
            } => {
                meta.generated = Some(Generation {
                    expr: super::check::check_text(e),
                    stored: matches!(
                        generation_expr_mode,
                        Some(ast::GeneratedExpressionMode::Stored)
                    ),
                })
            }
            O::Generated { .. } => return Err(syntax_error("AS IDENTITY")),
            O::Materialized(_) | O::Alias(_) | O::Ephemeral(_) => {
                return Err(SqlError::not_supported("generated columns"))
            }
            O::Invisible => meta.invisible = true,
            other => return Err(syntax_error(other.to_string())),
        }
    }
    if meta.generated.is_some() {
        let clash = options.iter().find(|o| {
            matches!(o, O::Null | O::NotNull | O::Default(_) | O::OnUpdate(_))
                || matches!(o, O::DialectSpecific(t) if t.iter().any(|t| matches!(t, Token::Word(w) if w.value.eq_ignore_ascii_case("AUTO_INCREMENT"))))
        });
        if let Some(o) = clash {
            return Err(syntax_error(o.to_string()));
        }
        if spec.serial {
            return Err(syntax_error("SERIAL"));
        }
    }
    if auto_inc {
        def.nullable = false;
        explicit_null = false;
        if default.is_some() {
            return Err(invalid_default(col));
        }
    }
    if let Some(e) = default {
        meta.default = Some(default_text(s, e, &def)?);
    }
    if meta.invisible && !def.nullable && !auto_inc && meta.default.is_none() {
        return Err(SqlError::new(
            4108,
            format!("Invisible column `{col}` must have a default value"),
        ));
    }
    Ok(BuiltColumn {
        col: WCol {
            id,
            def,
            meta,
            origin: None,
            auto_inc,
            explicit_null,
        },
        keys,
    })
}

/// `Some(fsp)` when `e` is CURRENT_TIMESTAMP / NOW() / LOCALTIME /
/// LOCALTIMESTAMP with an optional precision.
pub(super) fn now_precision(e: &ast::Expr) -> Option<u8> {
    let ast::Expr::Function(f) = e else {
        return None;
    };
    let [part] = f.name.0.as_slice() else {
        return None;
    };
    let name = part.as_ident()?.value.to_ascii_uppercase();
    if !matches!(
        name.as_str(),
        "NOW" | "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP"
    ) {
        return None;
    }
    match &f.args {
        ast::FunctionArguments::None => Some(0),
        ast::FunctionArguments::List(l) if l.args.is_empty() => Some(0),
        ast::FunctionArguments::List(l) if l.args.len() == 1 => match &l.args[0] {
            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Value(v))) => {
                match &v.value {
                    ast::Value::Number(n, _) => n.parse::<u8>().ok().filter(|p| *p <= 6),
                    _ => None,
                }
            }
            _ => None,
        },
        _ => None,
    }
}

/// True for literals (what MariaDB stores as a value, not an expression).
fn is_literal(e: &ast::Expr) -> bool {
    match e {
        ast::Expr::Value(_) | ast::Expr::TypedString(_) => true,
        ast::Expr::UnaryOp {
            op: ast::UnaryOperator::Minus | ast::UnaryOperator::Plus,
            expr,
        } => matches!(**expr, ast::Expr::Value(_)),
        ast::Expr::Nested(inner) => is_literal(inner),
        _ => false,
    }
}

/// The canonical DEFAULT text of `e` for column `def` (1067 when it does not
/// fit the column).
pub(super) fn default_text(
    s: &Session,
    e: &ast::Expr,
    def: &ColumnDef,
) -> Result<String, SqlError> {
    let col = def.name.as_str();
    if let Some(fsp) = now_precision(e) {
        return match def.ty {
            ColumnType::Datetime { .. } | ColumnType::Timestamp { .. } => Ok(now_text(fsp)),
            _ => Err(invalid_default(col)),
        };
    }
    let v = match evaluate(s, e) {
        Ok(v) => v,
        // An expression over the row's columns: checked with the finished
        // definition (`defaults::validate`), evaluated per row.
        Err(_) if !super::generated::referenced_columns(e).is_empty() => {
            return Ok(super::defaults::expression_text(e));
        }
        Err(_) => return Err(invalid_default(col)),
    };
    if v.is_null() {
        return if def.nullable {
            Ok("NULL".to_string())
        } else {
            Err(invalid_default(col))
        };
    }
    let stored = convert(&v, def)?;
    if is_literal(e) {
        Ok(literal_text(&stored, &def.ty))
    } else {
        Ok(super::defaults::expression_text(e))
    }
}

/// Evaluates a constant expression (no column references).
pub(super) fn evaluate(s: &Session, e: &ast::Expr) -> Result<Value, SqlError> {
    let opts = crate::eval::CompileOptions {
        collation: s.connection_collation(),
        clause: "DEFAULT".into(),
    };
    let c = crate::eval::compile(e, &|_: &[ast::Ident]| None, &opts)?;
    let mut ctx = s.eval_context(&[]);
    c.eval(&[], &mut ctx)
}

/// Converts `v` to the column type with strict rules (1067 when it does not
/// fit).
fn convert(v: &Value, def: &ColumnDef) -> Result<Value, SqlError> {
    let target = StoreTarget {
        db: "",
        table: "",
        column: &def.name,
        row: 1,
        strict: true,
    };
    let mut warnings = Vec::new();
    store(v, &def.ty, &target, &mut warnings).map_err(|_| invalid_default(&def.name))
}
