//! The writers' side of generated columns (`ddl::generated`): a value a
//! statement gives a generated column is ignored with 1906 (an error in
//! strict mode without IGNORE, a warning otherwise; `DEFAULT` is always
//! fine), and every written row gets its generated values computed
//! ([`Target::fill_generated`]) after its other values are final (defaults,
//! BEFORE triggers, AUTO_INCREMENT) and before its keys and CHECK
//! constraints are looked at.

use larch_engine::record::value::Value;

use super::{Target, Writer};
use crate::error::{SqlError, Warning};
use crate::session::Session;
use crate::value::store::{store, StoreTarget};

/// 1906: the value given for a generated column is ignored.
const VALUE_FOR_GENERATED: u16 = 1906;

impl Target {
    /// True when column `c` is generated.
    pub(super) fn is_generated(&self, c: usize) -> bool {
        !self.generated.is_empty() && self.generated.is_generated(c)
    }

    /// A statement gave generated column `c` a value (other than DEFAULT):
    /// error 1906 in strict mode without IGNORE, else the same as a
    /// warning; the value is not used either way.
    pub(super) fn value_for_generated(
        &self,
        s: &Session,
        c: usize,
        w: &mut Writer,
    ) -> Result<(), SqlError> {
        let msg = format!(
            "The value specified for generated column '{}' in table '{}' has been ignored",
            self.table.def().columns[c].name,
            self.name
        );
        if s.strict() && !w.ignore {
            return Err(SqlError::new(VALUE_FOR_GENERATED, msg));
        }
        w.warnings.push(Warning::warn(VALUE_FOR_GENERATED, msg));
        Ok(())
    }

    /// Computes the generated values of `row` (engine values of every
    /// column; row `row_no` of the statement for messages), converting each
    /// to its column's type with the statement's strictness.
    pub(super) fn fill_generated(
        &self,
        s: &Session,
        row: &mut [Value],
        row_no: u64,
        w: &mut Writer,
    ) -> Result<(), SqlError> {
        if self.generated.is_empty() {
            return Ok(());
        }
        let def = self.table.def();
        let strict = s.strict() && !w.ignore;
        self.generated
            .fill(s, def, row, &mut w.warnings, |c, v, warnings| {
                if v.is_null() {
                    return Ok(Value::Null);
                }
                let target = StoreTarget {
                    db: &self.db,
                    table: &self.name,
                    column: &def.columns[c].name,
                    row: row_no,
                    strict,
                };
                store(v, &def.columns[c].ty, &target, warnings)
            })
    }
}
