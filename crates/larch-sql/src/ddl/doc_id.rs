//! InnoDB's rules for the names `FTS_DOC_ID` and `FTS_DOC_ID_INDEX`, which
//! InnoDB reserves for a full-text table's document ids. Larch keeps its
//! document ids beside the row (`larch_engine::fts::doc_map`), so a user's
//! `FTS_DOC_ID` column is an ordinary column, but a definition MariaDB
//! refuses is refused here too, with MariaDB's errors:
//!
//! - in any table, a column whose name equals `FTS_DOC_ID` ignoring case
//!   must be spelled exactly `FTS_DOC_ID` and be `BIGINT [UNSIGNED] NOT
//!   NULL`, else 1166 (Incorrect column name). Names compare as MariaDB's
//!   system collation lowercases them, one character to one: `FTS_DOC_İD`
//!   is the name, `FTS_DOC_ıD` is not;
//! - in a table with a FULLTEXT index, an index named `FTS_DOC_ID_INDEX`
//!   (ignoring case) must be a UNIQUE index on `FTS_DOC_ID` alone,
//!   ascending, else 1798.

use larch_engine::record::value::ColumnType;
use larch_engine::table::TableDef;

use crate::error::SqlError;

/// The reserved column name.
const COLUMN: &str = "FTS_DOC_ID";
/// The reserved index name.
const INDEX: &str = "FTS_DOC_ID_INDEX";

/// True when `name` equals `reserved` under MariaDB's case folding of
/// identifiers (each character lowercased to one character).
fn is_reserved(name: &str, reserved: &str) -> bool {
    let fold = |c: char| c.to_lowercase().next().unwrap_or(c);
    name.chars().map(fold).eq(reserved.chars().map(fold))
}

/// Checks a finished table definition against the rules above.
pub(super) fn check(def: &TableDef) -> Result<(), SqlError> {
    let mut doc_id = None;
    for (pos, c) in def.columns.iter().enumerate() {
        if !is_reserved(&c.name, COLUMN) {
            continue;
        }
        let bigint = matches!(c.ty, ColumnType::Int { bytes: 8, .. });
        if c.name != COLUMN || !bigint || c.nullable {
            return Err(SqlError::new(
                1166,
                format!("Incorrect column name '{}'", c.name),
            ));
        }
        doc_id = Some(pos);
    }
    if def.fulltext.is_empty() {
        return Ok(());
    }
    let indexes = def.primary_key.iter().chain(&def.secondary);
    for idx in indexes.filter(|i| is_reserved(&i.name, INDEX)) {
        let right = idx.unique
            && matches!(idx.columns.as_slice(),
                [c] if Some(c.column) == doc_id && !c.descending && c.prefix_len.is_none());
        if !right {
            return Err(SqlError::new(
                1798,
                format!(
                    "Index '{}' is of wrong type for an InnoDB FULLTEXT index",
                    idx.name
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::is_reserved;

    #[test]
    fn names_fold_one_character_to_one() {
        assert!(is_reserved("FTS_DOC_ID", "FTS_DOC_ID"));
        assert!(is_reserved("fts_doc_id", "FTS_DOC_ID"));
        assert!(is_reserved("FTS_DOC_\u{130}D", "FTS_DOC_ID"));
        assert!(!is_reserved("FTS_DOC_\u{131}D", "FTS_DOC_ID"));
        assert!(!is_reserved("FTS_DOC_IDX", "FTS_DOC_ID"));
    }
}
