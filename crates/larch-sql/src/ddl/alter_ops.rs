//! The ALTER TABLE operations of Larch's own ALTER parser that change keys
//! and character sets: `RENAME INDEX|KEY old TO new` and `CONVERT TO
//! CHARACTER SET cs [COLLATE c]` (applied to a [`Work`] by `super::alter`).
//!
//! RENAME INDEX only renames (metadata, no rebuild): 1176 when `old` is not
//! a key of the table, 1061 when another key is already called `new`.
//! CONVERT TO sets the table's default collation and gives every character
//! column (CHAR, VARCHAR, TEXT; not binary strings, ENUM/SET or JSON) the
//! new collation; as MariaDB does, a TEXT column whose characters would no
//! longer fit its byte limit grows to the next TEXT type (latin1 TEXT to
//! utf8mb4 becomes MEDIUMTEXT), and a VARCHAR that would pass 65,535 bytes
//! is 1074. The values are converted by the copying rebuild (1366 in strict
//! mode for a character the new set lacks).

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, LobKind};

use super::types::resolve_collation;
use super::work::Work;
use crate::error::SqlError;

/// The largest VARCHAR in bytes (a row's limit).
const MAX_VARCHAR_BYTES: u64 = 65_535;

/// RENAME INDEX|KEY `old` TO `new` in table `table`.
pub(super) fn rename_key(w: &mut Work, table: &str, old: &str, new: &str) -> Result<(), SqlError> {
    let Some(pos) = w.key_pos(old) else {
        return Err(SqlError::new(
            1176,
            format!("Key '{old}' doesn't exist in table '{table}'"),
        ));
    };
    if w.key_pos(new).is_some_and(|other| other != pos) {
        return Err(SqlError::new(1061, format!("Duplicate key name '{new}'")));
    }
    w.keys[pos].name = new.to_string();
    Ok(())
}

/// CONVERT TO CHARACTER SET `charset` (`None`: DEFAULT, the database's
/// `database_default`) [COLLATE `collate`].
pub(super) fn convert_to(
    w: &mut Work,
    charset: Option<&str>,
    collate: Option<&str>,
    database_default: Collation,
) -> Result<(), SqlError> {
    let collation = resolve_collation(charset, collate, database_default)?;
    w.collation = collation;
    let new_mb = collation.charset().max_bytes_per_char() as u64;
    for c in &mut w.cols {
        let is_json = c
            .meta
            .check
            .as_deref()
            .is_some_and(|k| k.starts_with("json_valid("));
        if is_json {
            continue;
        }
        let name = &c.def.name;
        c.def.ty = match &c.def.ty {
            ColumnType::Char {
                len,
                collation: old,
            } if *old != Collation::Binary => ColumnType::Char {
                len: *len,
                collation,
            },
            ColumnType::Varchar {
                max_len,
                collation: old,
            } if *old != Collation::Binary => {
                if u64::from(*max_len) * new_mb > MAX_VARCHAR_BYTES {
                    return Err(SqlError::new(
                        1074,
                        format!(
                            "Column length too big for column '{name}' (max = {}); use BLOB or \
                             TEXT instead",
                            MAX_VARCHAR_BYTES / new_mb
                        ),
                    ));
                }
                ColumnType::Varchar {
                    max_len: *max_len,
                    collation,
                }
            }
            ColumnType::Text {
                kind,
                collation: old,
            } if *old != Collation::Binary => {
                let old_mb = old.charset().max_bytes_per_char() as u64;
                let chars = kind.max_bytes() / old_mb.max(1);
                let kind = [LobKind::Tiny, LobKind::Text, LobKind::Medium, LobKind::Long]
                    .into_iter()
                    .filter(|k| k.max_bytes() >= kind.max_bytes())
                    .find(|k| k.max_bytes() >= chars.saturating_mul(new_mb))
                    .unwrap_or(LobKind::Long);
                ColumnType::Text { kind, collation }
            }
            other => other.clone(),
        };
    }
    Ok(())
}
