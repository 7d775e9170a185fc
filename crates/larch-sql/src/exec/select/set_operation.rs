//! INTERSECT and EXCEPT of two row sets, with and without ALL, as MariaDB
//! 10.11 computes them: rows compare by their columns' collations (NULLs
//! equal, as in DISTINCT); INTERSECT keeps the first set's rows that the
//! second has, EXCEPT those it lacks; without ALL the result has no
//! duplicates, with ALL a row comes out as many times as it is in the first
//! set, less (EXCEPT ALL) or at most (INTERSECT ALL) as many as in the
//! second. UNION is in `query` (concatenation and `order::distinct_rows`).

use std::collections::HashMap;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::Value;

use super::aggregate;
use super::order::distinct_rows;

/// Replaces `left` by `left INTERSECT right` (`intersect`) or `left EXCEPT
/// right`, with or without `all`.
pub(super) fn combine(
    left: &mut Vec<Vec<Value>>,
    right: Vec<Vec<Value>>,
    intersect: bool,
    all: bool,
    colls: &[Collation],
) {
    let key = |row: &[Value]| {
        let mut k = Vec::new();
        aggregate::column_key_into(row, colls, &mut k);
        k
    };
    let mut counts: HashMap<Vec<u8>, u64> = HashMap::with_capacity(right.len());
    for r in &right {
        *counts.entry(key(r)).or_default() += 1;
    }
    if !all {
        distinct_rows(left, colls);
    }
    left.retain(|row| {
        let found = match counts.get_mut(&key(row)) {
            Some(n) if *n > 0 => {
                if all {
                    *n -= 1;
                }
                true
            }
            _ => false,
        };
        found == intersect
    });
}
