//! User variables (`@name`): what they hold, and assignments made inside
//! expressions (`@a := expr`).
//!
//! A user variable keeps what MariaDB's `user_var_entry` keeps: an integer,
//! a DOUBLE, a DECIMAL, or a string with its collation ([`UserValue`]).
//! Other values are converted when stored: a temporal value becomes its
//! text (in latin1, MariaDB's character set of numbers and dates), ENUM and
//! SET their member text, YEAR and BIT an integer, FLOAT a DOUBLE. A
//! statement reads `@name` with the type of the value it held when the
//! statement was compiled (a string variable in its own collation, IMPLICIT
//! coercibility; an integer as BIGINT; an unset one as a binary NULL), and
//! a value assigned later in the same statement is read converted to that
//! type, as in MariaDB.
//!
//! Expressions see the session only through `&dyn Session`, so an assignment
//! made while a statement runs goes to a per-thread overlay: reads of `@name`
//! look there first, then at the session's variables. A statement runs on one
//! thread from start to end (blocking regions keep the thread), so the overlay
//! belongs to the statement running on this thread; [`StatementScope`] opens
//! it when the statement starts and hands the assignments back when it ends,
//! to be stored in the session (in assignment order, last one wins), even when
//! the statement fails (MariaDB keeps assignments made before an error).
//! Nested statement runs share the outermost one's overlay. The scope also
//! lends the compiler the session's variables ([`UserVariables`], shared),
//! so that a read is typed by the variable's current value.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, Decimal, LobKind, Value};
use parking_lot::Mutex;

use super::convert::{str_to_decimal, to_f64, to_int};
use super::{EvalContext, Session};

/// What a user variable holds (MariaDB's `Item_result` of the entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserVarKind {
    Int {
        unsigned: bool,
    },
    Double,
    Decimal,
    /// A string in this collation ([`Collation::Binary`]: a byte string).
    Text(Collation),
}

impl UserVarKind {
    /// The kind a value of static type `ty` is stored as.
    pub fn of(ty: &ColumnType) -> UserVarKind {
        match ty {
            ColumnType::Int { unsigned, .. } => UserVarKind::Int {
                unsigned: *unsigned,
            },
            ColumnType::Year => UserVarKind::Int { unsigned: false },
            ColumnType::Bit { .. } => UserVarKind::Int { unsigned: true },
            ColumnType::Decimal { .. } => UserVarKind::Decimal,
            ColumnType::Float | ColumnType::Double => UserVarKind::Double,
            ColumnType::Date
            | ColumnType::Time { .. }
            | ColumnType::Datetime { .. }
            | ColumnType::Timestamp { .. } => UserVarKind::Text(Collation::Latin1SwedishCi),
            ColumnType::Uuid => UserVarKind::Text(Collation::Latin1SwedishCi),
            t if t.is_binary_string() => UserVarKind::Text(Collation::Binary),
            t => UserVarKind::Text(
                t.collation()
                    .or_else(|| t.member_collation())
                    .unwrap_or(Collation::Binary),
            ),
        }
    }

    /// The kind of a value as it is (for a value whose static type did not
    /// foresee it).
    fn of_value(v: &Value) -> Option<UserVarKind> {
        Some(match v {
            Value::Int(_) => UserVarKind::Int { unsigned: false },
            Value::UInt(_) => UserVarKind::Int { unsigned: true },
            Value::Decimal(_) => UserVarKind::Decimal,
            Value::Double(_) | Value::Float(_) => UserVarKind::Double,
            Value::Bytes(_) => UserVarKind::Text(Collation::Binary),
            _ => return None,
        })
    }

    /// True when a stored value of this kind can be `v` as it is.
    fn holds(self, v: &Value) -> bool {
        match self {
            UserVarKind::Int { .. } => matches!(v, Value::Int(_) | Value::UInt(_)),
            UserVarKind::Double => matches!(v, Value::Double(_)),
            UserVarKind::Decimal => matches!(v, Value::Decimal(_)),
            UserVarKind::Text(_) => matches!(v, Value::Str(_) | Value::Bytes(_)),
        }
    }

    /// `v` read as this kind (a value assigned after the statement was
    /// compiled, of another kind).
    pub fn convert(self, v: Value, ctx: &mut EvalContext<'_>) -> Value {
        if v.is_null() || self.holds(&v) {
            return v;
        }
        match self {
            UserVarKind::Int { unsigned: true } => {
                Value::UInt(to_int(&v, ctx).clamp(0, i128::from(u64::MAX)) as u64)
            }
            UserVarKind::Int { unsigned: false } => {
                Value::Int(to_int(&v, ctx).clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64)
            }
            UserVarKind::Double => Value::Double(to_f64(&v, ctx)),
            UserVarKind::Decimal => match &v {
                Value::Int(i) => Value::Decimal(Decimal::from_i128(i128::from(*i), 0)),
                Value::UInt(u) => Value::Decimal(Decimal::from_i128(i128::from(*u), 0)),
                Value::Str(s) => Value::Decimal(str_to_decimal(s, ctx)),
                other => Value::Decimal(str_to_decimal(&super::convert::to_str(other), ctx)),
            },
            UserVarKind::Text(Collation::Binary) => Value::Bytes(super::convert::to_bytes(&v)),
            UserVarKind::Text(_) => Value::Str(super::convert::to_str(&v)),
        }
    }
}

/// A user variable's value with the kind MariaDB keeps it as.
#[derive(Debug, Clone, PartialEq)]
pub struct UserValue {
    pub value: Value,
    pub kind: UserVarKind,
}

impl UserValue {
    /// `v`, a value of static type `ty`, as a user variable keeps it (see
    /// the module documentation).
    pub fn new(v: Value, ty: &ColumnType) -> UserValue {
        let kind = UserVarKind::of(ty);
        let value = match (kind, v) {
            (_, Value::Null) => Value::Null,
            (_, Value::Year(y)) => Value::Int(i64::from(y)),
            (_, Value::Bit(b)) => Value::UInt(b),
            (_, Value::Float(f)) => Value::Double(f64::from(f)),
            (UserVarKind::Text(_), v @ (Value::Str(_) | Value::Bytes(_))) => v,
            (_, v @ (Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_))) => v,
            (_, v) => Value::Str(
                String::from_utf8_lossy(&crate::value::to_text(&v, ty).unwrap_or_default())
                    .into_owned(),
            ),
        };
        // A value its static type did not foresee keeps its own kind.
        let kind = if value.is_null() || kind.holds(&value) {
            kind
        } else {
            UserVarKind::of_value(&value).unwrap_or(UserVarKind::Text(Collation::Binary))
        };
        UserValue { value, kind }
    }

    /// The static type and coercibility of a read of this variable: a
    /// string is IMPLICIT (2) in its collation, a number NUMERIC (5); an
    /// unset variable is a binary string.
    pub fn static_type(&self) -> (ColumnType, u8) {
        static_type(self.kind, &self.value)
    }
}

/// The type and coercibility a value of `kind` is read with; a DECIMAL keeps
/// the scale `value` has.
pub fn static_type(kind: UserVarKind, value: &Value) -> (ColumnType, u8) {
    match kind {
        UserVarKind::Int { unsigned } => (ColumnType::Int { bytes: 8, unsigned }, 5),
        UserVarKind::Double => (ColumnType::Double, 5),
        UserVarKind::Decimal => {
            let scale = match value {
                Value::Decimal(d) => d.scale().min(30),
                _ => 0,
            };
            (
                ColumnType::Decimal {
                    precision: 65,
                    scale,
                },
                5,
            )
        }
        UserVarKind::Text(Collation::Binary) => (
            ColumnType::Blob {
                kind: LobKind::Long,
            },
            2,
        ),
        UserVarKind::Text(collation) => (
            ColumnType::Text {
                kind: LobKind::Long,
                collation,
            },
            2,
        ),
    }
}

/// A session's user variables. Shared with the compiler while a statement
/// of the session runs ([`StatementScope`]), so that statements of a stored
/// program see the variables its earlier statements set.
#[derive(Debug, Default)]
pub struct UserVariables(Arc<Mutex<Variables>>);

#[derive(Debug, Default)]
struct Variables {
    values: HashMap<String, UserValue>,
    /// Counts the changes of a variable's static type (and the variables
    /// created): a statement compiled under one value of it reads every
    /// variable with the type it has now.
    types_generation: u64,
}

impl UserVariables {
    /// The variable `name` (lower case), if it was ever set.
    pub fn get(&self, name: &str) -> Option<UserValue> {
        self.0.lock().values.get(name).cloned()
    }

    /// Sets `name` (lower case).
    pub fn set(&self, name: String, value: UserValue) {
        let mut vars = self.0.lock();
        let retyped = vars
            .values
            .get(&name)
            .is_none_or(|old| old.static_type() != value.static_type());
        if retyped {
            vars.types_generation += 1;
        }
        vars.values.insert(name, value);
    }

    /// Forgets every variable (COM_RESET_CONNECTION, COM_CHANGE_USER).
    pub fn clear(&self) {
        let mut vars = self.0.lock();
        vars.values.clear();
        vars.types_generation += 1;
    }

    /// Changes whenever a statement compiled now could read a variable
    /// with another type than one compiled before (cached plans).
    pub fn types_generation(&self) -> u64 {
        self.0.lock().types_generation
    }

    fn share(&self) -> UserVariables {
        UserVariables(Arc::clone(&self.0))
    }
}

#[derive(Default)]
struct Overlay {
    depth: usize,
    vars: HashMap<String, UserValue>,
    /// The variables of the session whose statement runs on this thread.
    session: Option<UserVariables>,
}

thread_local! {
    static OVERLAY: RefCell<Overlay> = RefCell::new(Overlay::default());
}

/// `@name` (lower-case name): the value assigned during this statement, else
/// the session's.
pub(crate) fn read(session: &dyn Session, name: &str) -> Value {
    OVERLAY
        .with(|o| o.borrow().vars.get(name).map(|u| u.value.clone()))
        .unwrap_or_else(|| session.user_variable(name))
}

/// What `@name` (lower-case name) holds for a statement compiled now:
/// `None` outside a statement (nothing is known), `Some(None)` for a
/// variable never set.
pub(crate) fn compile_time_value(name: &str) -> Option<Option<UserValue>> {
    OVERLAY.with(|o| {
        let o = o.borrow();
        if let Some(v) = o.vars.get(name) {
            return Some(Some(v.clone()));
        }
        o.session.as_ref().map(|s| s.get(name))
    })
}

/// `@name := value` (lower-case name).
pub(crate) fn assign(name: &str, value: UserValue) {
    OVERLAY.with(|o| {
        o.borrow_mut().vars.insert(name.to_owned(), value);
    });
}

/// Forgets a pending assignment of `name` (a later `SET @name = ...` wins).
pub(crate) fn forget(name: &str) {
    OVERLAY.with(|o| {
        o.borrow_mut().vars.remove(name);
    });
}

/// The overlay's lifetime for one statement; see the module documentation.
#[derive(Debug)]
pub(crate) struct StatementScope {
    outermost: bool,
}

impl StatementScope {
    /// Opens the overlay (the outermost scope starts it empty) for a
    /// statement of the session whose variables are `vars`.
    pub(crate) fn enter(vars: &UserVariables) -> StatementScope {
        let outermost = OVERLAY.with(|o| {
            let mut o = o.borrow_mut();
            o.depth += 1;
            if o.depth == 1 {
                o.vars.clear();
                o.session = Some(vars.share());
                true
            } else {
                false
            }
        });
        StatementScope { outermost }
    }

    /// Closes the scope; the outermost one returns the statement's
    /// assignments.
    pub(crate) fn finish(self) -> Vec<(String, UserValue)> {
        let outermost = self.outermost;
        drop(self);
        if !outermost {
            return Vec::new();
        }
        OVERLAY.with(|o| o.borrow_mut().vars.drain().collect())
    }
}

impl Drop for StatementScope {
    fn drop(&mut self) {
        OVERLAY.with(|o| {
            let mut o = o.borrow_mut();
            o.depth = o.depth.saturating_sub(1);
            if self.outermost {
                o.session = None;
            }
        });
    }
}
