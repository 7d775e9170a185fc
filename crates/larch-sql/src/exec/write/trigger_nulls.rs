//! NOT NULL columns under BEFORE triggers, as MariaDB handles them
//! (MDEV-8605, MDEV-19761): when a table has BEFORE triggers for the
//! statement's event, a NULL given for a NOT NULL column and an omitted
//! NOT NULL column without DEFAULT are NULL while the triggers run (so
//! `SET NEW.col = ...` can fill them); the checks run on the row the
//! triggers leave: a NULL there is 1048 (a warning and the type's implicit
//! default under IGNORE), an omitted column still NULL is 1364 (a warning
//! and the implicit default outside strict mode). Without such triggers
//! the checks run as the values are converted.

use larch_engine::record::value::Value;

use super::{convert, default_value, no_default, Target, Writer};
use crate::error::SqlError;
use crate::parse::trigger::{Event, Timing};
use crate::session::Session;

/// How a row's NOT NULL checks run (see the module documentation).
pub(super) struct NullChecks {
    /// Checks wait for the BEFORE triggers.
    deferred: bool,
    /// Columns omitted without a DEFAULT and left NULL for the triggers.
    omitted: Vec<bool>,
}

impl NullChecks {
    /// The checks of a row `t` writes for `event`.
    pub(super) fn new(t: &Target, event: Event) -> NullChecks {
        let deferred = t
            .triggers
            .as_ref()
            .is_some_and(|tt| tt.has(Timing::Before, event));
        NullChecks {
            deferred,
            omitted: Vec::new(),
        }
    }

    fn not_null(t: &Target, c: usize) -> bool {
        let def = t.table.def();
        !def.columns[c].nullable && def.auto_increment != Some(c)
    }

    /// `v` converted for column `c` (a NULL for a NOT NULL column stays
    /// NULL when the checks are deferred).
    pub(super) fn convert(
        &mut self,
        s: &Session,
        t: &Target,
        c: usize,
        v: &Value,
        row_no: u64,
        w: &mut Writer,
    ) -> Result<Value, SqlError> {
        if self.deferred && v.is_null() && Self::not_null(t, c) {
            return Ok(Value::Null);
        }
        convert(s, t, c, v, row_no, w)
    }

    /// The value of omitted column `c` (NULL for a NOT NULL column without
    /// DEFAULT when the checks are deferred).
    pub(super) fn default_value(
        &mut self,
        s: &Session,
        t: &Target,
        c: usize,
        row_no: u64,
        w: &mut Writer,
    ) -> Result<Value, SqlError> {
        let has_default = t.meta.columns.get(c).is_some_and(|m| m.default.is_some());
        if self.deferred && !has_default && Self::not_null(t, c) {
            if self.omitted.len() <= c {
                self.omitted.resize(c + 1, false);
            }
            self.omitted[c] = true;
            return Ok(Value::Null);
        }
        default_value(s, t, c, row_no, w)
    }

    /// The value of omitted column `c` whose DEFAULT reads `row`.
    pub(super) fn default_over(
        &mut self,
        s: &Session,
        t: &Target,
        c: usize,
        row: &[Value],
        row_no: u64,
        w: &mut Writer,
    ) -> Result<Value, SqlError> {
        let v = t
            .defaults
            .evaluate(s, t.table.def(), c, row, &mut w.warnings)?
            .unwrap_or(Value::Null);
        self.convert(s, t, c, &v, row_no, w)
    }

    /// The deferred checks on `row` after the BEFORE triggers ran; ready
    /// for the next row.
    pub(super) fn after_triggers(
        &mut self,
        s: &Session,
        t: &Target,
        row: &mut [Value],
        row_no: u64,
        w: &mut Writer,
    ) -> Result<(), SqlError> {
        if !self.deferred {
            return Ok(());
        }
        for (c, v) in row.iter_mut().enumerate() {
            if !v.is_null() || !Self::not_null(t, c) {
                continue;
            }
            *v = if self.omitted.get(c).copied().unwrap_or(false) {
                no_default(s, t, c, w)?
            } else {
                convert(s, t, c, &Value::Null, row_no, w)?
            };
        }
        self.omitted.clear();
        Ok(())
    }
}
