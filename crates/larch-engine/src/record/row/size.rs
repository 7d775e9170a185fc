//! The record size policy: how big a B+tree entry may be, and which long
//! columns move off-page so that a row fits.
//!
//! At least [`MIN_RECORDS_PER_PAGE`] entries must fit one B+tree leaf page,
//! counting [`PAGE_OVERHEAD`] bytes per page (page header, trailer, index page
//! header, infimum/supremum, directory) and [`RECORD_OVERHEAD`] bytes per entry
//! (slot and entry header, which also holds the delete mark). The constants
//! belong to the B+tree's page format; it may adjust them here.
//!
//! Like InnoDB's DYNAMIC format, a row that is too big moves its longest
//! off-page-capable column (longer than [`EXTERN_MIN_LEN`] bytes) off-page,
//! leaving a 20-byte pointer, until it fits; if nothing is left to move, the
//! row is rejected with MySQL's error 1118 ([`RowError::RowTooLarge`]).

use super::{ColumnLayout, ExternRef, RowError, RowKind, RowLayout};
use crate::page::PageSize;

/// Bytes of a B+tree leaf page not available to entries.
pub const PAGE_OVERHEAD: usize = 200;
/// Bytes per B+tree entry besides its key and value (slot, entry header).
pub const RECORD_OVERHEAD: usize = 16;
/// Entries that must fit in one leaf page.
pub const MIN_RECORDS_PER_PAGE: usize = 2;
/// Columns of at most this many bytes always stay inline (as InnoDB DYNAMIC).
pub const EXTERN_MIN_LEN: usize = 40;

/// Largest B+tree entry (key plus value) such that [`MIN_RECORDS_PER_PAGE`]
/// entries fit a page: 1932 bytes at 4k, 3980 at 8k, 8076 at 16k, 16268 at 32k,
/// 32652 at 64k.
pub const fn max_record_bytes(page_size: PageSize) -> usize {
    (page_size.bytes() - PAGE_OVERHEAD) / MIN_RECORDS_PER_PAGE - RECORD_OVERHEAD
}

fn check_len(i: usize, c: &ColumnLayout, len: Option<usize>) -> Result<(), RowError> {
    match (len, c.fixed_len) {
        (None, _) if c.nullable => Ok(()),
        (None, _) => Err(RowError::NullNotAllowed { column: i }),
        (Some(l), Some(n)) if l != n as usize => Err(RowError::WrongLength {
            column: i,
            expected: n,
            got: l,
        }),
        (Some(l), None) if l as u64 > u64::from(c.max_len) => Err(RowError::ColumnTooLong {
            column: i,
            len: l as u64,
            max: c.max_len,
        }),
        _ => Ok(()),
    }
}

/// Bytes of the record (value only, without the key) whose columns have
/// `lengths` (`None` = NULL) when the columns flagged in `external` are stored
/// off-page. Validates nullability, fixed widths, maxima and off-page
/// eligibility (but not the 15-bit inline limit, which the policy covers).
pub fn record_len(
    layout: &RowLayout,
    lengths: &[Option<usize>],
    external: &[bool],
) -> Result<usize, RowError> {
    let n = layout.columns.len();
    if lengths.len() != n || external.len() != n {
        return Err(RowError::ColumnCount {
            expected: n,
            got: if lengths.len() != n {
                lengths.len()
            } else {
                external.len()
            },
        });
    }
    let mut total = layout.hidden_len() + layout.null_bitmap_len();
    for (i, c) in layout.columns.iter().enumerate() {
        check_len(i, c, lengths[i])?;
        let Some(len) = lengths[i] else { continue };
        total = total.saturating_add(c.length_header_len());
        if external[i] {
            if !c.can_be_external() || layout.kind == RowKind::Secondary {
                return Err(RowError::ExternalNotAllowed { column: i });
            }
            total = total.saturating_add(ExternRef::ENCODED_LEN);
        } else {
            total = total.saturating_add(len);
        }
    }
    Ok(total)
}

/// [`plan_external_for_entry`] for a value whose key is not counted.
pub fn plan_external(
    layout: &RowLayout,
    lengths: &[Option<usize>],
    page_size: PageSize,
) -> Result<Vec<bool>, RowError> {
    plan_external_for_entry(layout, lengths, 0, page_size)
}

/// Chooses the columns to store off-page (`true` = off-page) for a row whose
/// columns have `lengths` (`None` = NULL) and whose B+tree key takes `key_len`
/// bytes: while the entry is larger than [`max_record_bytes`], the longest
/// off-page-capable column longer than [`EXTERN_MIN_LEN`] moves off-page (ties:
/// the first such column). [`RowError::RowTooLarge`] when it still does not fit.
pub fn plan_external_for_entry(
    layout: &RowLayout,
    lengths: &[Option<usize>],
    key_len: usize,
    page_size: PageSize,
) -> Result<Vec<bool>, RowError> {
    let max = max_record_bytes(page_size);
    let mut external = vec![false; layout.columns.len()];
    loop {
        let size = record_len(layout, lengths, &external)?.saturating_add(key_len);
        if size <= max {
            return Ok(external);
        }
        let mut best: Option<(usize, usize)> = None;
        if layout.kind != RowKind::Secondary {
            for (i, c) in layout.columns.iter().enumerate() {
                let Some(len) = lengths[i] else { continue };
                if external[i] || !c.can_be_external() || len <= EXTERN_MIN_LEN {
                    continue;
                }
                if best.is_none_or(|(_, l)| len > l) {
                    best = Some((i, len));
                }
            }
        }
        match best {
            Some((i, _)) => external[i] = true,
            None => return Err(RowError::RowTooLarge { max }),
        }
    }
}

/// The CREATE TABLE check (InnoDB strict mode): fails with
/// [`RowError::RowTooLarge`] if a row with every column non-null at its
/// maximum length could not fit even with all eligible columns off-page.
pub fn check_worst_case(
    layout: &RowLayout,
    key_len: usize,
    page_size: PageSize,
) -> Result<(), RowError> {
    layout.validate()?;
    let lengths: Vec<Option<usize>> = layout
        .columns
        .iter()
        .map(|c| Some(c.fixed_len.unwrap_or(c.max_len) as usize))
        .collect();
    plan_external_for_entry(layout, &lengths, key_len, page_size).map(|_| ())
}
