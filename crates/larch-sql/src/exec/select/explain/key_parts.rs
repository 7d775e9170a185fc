//! Index key parts as EXPLAIN shows them: how many parts an index has, how
//! many a range bound fixes, and `key_len`, the bytes of the parts used as
//! MySQL counts them.

use std::ops::Bound;

use larch_engine::record::value::{ColumnType, Value};
use larch_engine::table::{Table, CLUSTERED};

pub(super) fn consts(n: usize) -> String {
    vec!["const"; n].join(",")
}

pub(super) fn bound_len(b: &Bound<Vec<Value>>) -> usize {
    match b {
        Bound::Included(v) | Bound::Excluded(v) => v.len(),
        Bound::Unbounded => 0,
    }
}

pub(super) fn index_parts(t: &Table, index: usize) -> usize {
    let def = t.def();
    if index == CLUSTERED {
        def.primary_key.as_ref().map_or(0, |p| p.columns.len())
    } else {
        def.secondary.get(index - 1).map_or(0, |s| s.columns.len())
    }
}

/// Bytes of the first `parts` key parts of an index, as MySQL counts them:
/// the longest value, 2 more for a variable length, 1 more when nullable.
pub(super) fn key_len(t: &Table, index: usize, parts: usize) -> usize {
    let def = t.def();
    let idx = if index == CLUSTERED {
        def.primary_key.as_ref()
    } else {
        def.secondary.get(index - 1)
    };
    let Some(idx) = idx else { return 0 };
    idx.columns
        .iter()
        .take(parts)
        .map(|p| {
            let c = &def.columns[p.column];
            let bytes = match (&c.ty, p.prefix_len) {
                (ty, Some(chars)) => {
                    let per_char = match ty.collation() {
                        Some(col) => col.charset().max_bytes_per_char(),
                        None => 1,
                    };
                    chars as usize * per_char + 2
                }
                (ty, None) => match ty.fixed_len() {
                    Some(n) if !matches!(ty, ColumnType::Varchar { .. }) => n,
                    _ => ty.max_storage_bytes() + 2,
                },
            };
            bytes + usize::from(c.nullable)
        })
        .sum()
}
