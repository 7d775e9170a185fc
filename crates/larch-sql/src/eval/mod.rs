//! Scalar expressions with MySQL semantics.
//!
//! [`compile`] turns a sqlparser expression into an [`Expr`] tree, resolving
//! column names to row positions through a caller-supplied resolver and
//! working out MySQL's static result type ([`ExprType`], an engine
//! `ColumnType` plus nullability) for result-set metadata. [`Compiled::eval`]
//! evaluates it against a row (`&[Value]`) in an [`EvalContext`] that carries
//! the session ([`Session`]: current database, variables, connection id,
//! last insert id), prepared-statement parameters, the statement's start time
//! and the warnings raised so far (for SHOW WARNINGS).
//!
//! Semantics follow MySQL/MariaDB 10.11:
//! - numbers: integer literals are BIGINT (UNSIGNED above 2^63-1, DECIMAL
//!   beyond 2^64-1), `1.5` is DECIMAL, `1e3` DOUBLE; `+ - *` keep integers as
//!   BIGINT (UNSIGNED if an operand is) and fail with 1690 on overflow,
//!   decimals stay exact, anything with a double or a string is DOUBLE; `/`
//!   gives DECIMAL with 4 more digits ([`decimal`]); division by zero is NULL
//!   with warning 1365 (an error when the context asks, as strict-mode writes
//!   do);
//! - comparisons: numbers numerically, strings by the collation worked out at
//!   compile time (a column's collation wins over a literal's, binary strings
//!   compare bytes), a temporal value against a string as datetimes, a string
//!   against a number as doubles (warning 1292 for text that is no number);
//! - NULL: every operator and function is NULL on a NULL operand except `<=>`,
//!   `IS [NOT] NULL`, `IS [NOT] TRUE/FALSE`, AND/OR's three-valued logic,
//!   IFNULL, COALESCE, CONCAT_WS, IF and CASE.
//!
//! ENUM and SET values are their member index / bitmap here (`Value::Enum`,
//! `Value::Set`), which is what they are in numeric context; where MySQL uses
//! the member text (comparing with a string, string functions) the caller
//! passes the column as `Value::Str` of its member text.
//!
//! Evaluation is by the runtime kinds of the operand values, which mirror the
//! static types (a DECIMAL column yields `Value::Decimal`), so parameters of
//! prepared statements need no static type. Decimal results keep MySQL's
//! internal precision while nested and are rounded to the static scale by
//! [`Compiled::eval`].

mod compare;
mod compile;
pub(crate) mod convert;
pub mod decimal;
mod fold;
mod func;
mod func_clock;
mod func_clock_format;
mod func_crypt;
mod func_extra;
mod func_inet;
mod func_math;
mod func_more;
mod func_number_text;
mod func_str;
mod func_strings_more;
mod func_time;
mod func_tz;
mod json;
pub(crate) use json::{key_json_text, name_returns_json, value_json_text};
mod like;
mod md5;
mod ops;
mod regexp;
mod temporal_round;
#[cfg(test)]
mod tests;
mod tzfile;
pub(crate) mod uservar;
mod week;

use larch_engine::record::collation::Collation;
use larch_engine::record::value::{ColumnType, DateTime, Value};

pub use compare::compare;
pub(crate) use compile::set_operation_type;
pub use compile::{
    comparison_collation, compile, compile_with_coercibility, compile_with_params, CompileOptions,
    Resolver,
};
pub use fold::{drop_impossible, fold_constant_conditions};
pub(crate) use func::lookup as builtin_function;
pub use func::Func;
pub use func_time::IntervalUnit;
pub use like::{like, ConstantLike, LikePattern};
pub(crate) use ops::apply_coerce;
pub(crate) use ops::bit_operand;
pub use ops::{member_number_of, uuid_order_of};

use crate::error::{Level, SqlError, Warning};

/// Most warnings kept per statement (MariaDB's default `max_error_count`).
pub const MAX_WARNINGS: usize = 64;

/// The static type of an expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExprType {
    /// MySQL type of the result (a NULL literal is BINARY(0), as MySQL types
    /// `CREATE TABLE ... AS SELECT NULL`).
    pub ty: ColumnType,
    pub nullable: bool,
    /// The fixed number of decimals a FLOAT or DOUBLE result shows with
    /// (MariaDB's `decimals` below 31: a FLOAT(M,D) column has D, `x * 2`
    /// the larger of its operands', `ROUND(x, 2)` 2, `STDDEV(x)` x's plus
    /// 4); `None` for other types and for a DOUBLE that shows its shortest
    /// form.
    pub decimals: Option<u8>,
}

impl ExprType {
    /// The decimals MariaDB counts for a value of this type where a FLOAT
    /// or DOUBLE result takes its decimals from its arguments: 0 for an
    /// integer, the scale of a DECIMAL, the fixed decimals of a FLOAT or
    /// DOUBLE; `None` (any number of decimals) otherwise.
    pub fn number_decimals(&self) -> Option<u8> {
        match self.ty {
            ColumnType::Int { .. } | ColumnType::Bit { .. } | ColumnType::Year => Some(0),
            ColumnType::Decimal { scale, .. } => Some(scale),
            ColumnType::Float | ColumnType::Double => self.decimals,
            _ => None,
        }
    }
}

/// MariaDB's most decimals a FLOAT or DOUBLE result can fix: 31 and more
/// mean "not fixed".
pub const MAX_FIXED_DECIMALS: u8 = 30;

/// Fixed decimals `d` plus `extra` (AVG, STDDEV, division), or `None` once
/// they reach MariaDB's "not fixed" mark.
pub fn more_decimals(d: Option<u8>, extra: u8) -> Option<u8> {
    d.map(|d| d.saturating_add(extra))
        .filter(|d| *d <= MAX_FIXED_DECIMALS)
}

/// Scope of a system variable reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarScope {
    /// `@@name` (session value, or global when there is no session one).
    Default,
    /// `@@session.name` / `@@local.name`.
    Session,
    /// `@@global.name`.
    Global,
}

/// What expressions need from the session.
pub trait Session {
    /// `DATABASE()`: the current database.
    fn current_database(&self) -> Option<String>;
    /// `CONNECTION_ID()`.
    fn connection_id(&self) -> u64;
    /// `LAST_INSERT_ID()`: the first AUTO_INCREMENT value of the last insert.
    fn last_insert_id(&self) -> u64;
    /// `FOUND_ROWS()`: the rows of the last SELECT (without its LIMIT when
    /// it had SQL_CALC_FOUND_ROWS); 0 where no statement ran before.
    fn found_rows(&self) -> u64 {
        0
    }
    /// `ROW_COUNT()`: the rows the last statement changed (its affected
    /// rows), -1 after a result set or an error; 0 where no statement ran
    /// before, as in a new MariaDB connection.
    fn row_count(&self) -> i64 {
        0
    }
    /// `VERSION()`.
    fn server_version(&self) -> String;
    /// `USER()`: the login name and client host.
    fn current_user(&self) -> String;
    /// `CURRENT_USER()`: the account the login matched.
    fn current_account(&self) -> String {
        self.current_user()
    }
    /// `@@name`: the value, or error 1193 for an unknown variable.
    fn system_variable(&self, name: &str, scope: VarScope) -> Result<Value, SqlError>;
    /// `@name`: NULL when unset.
    fn user_variable(&self, name: &str) -> Value;
    /// A stored function's value for `args` (1305 when there is none).
    fn call_stored_function(
        &self,
        schema: Option<&str>,
        name: &str,
        args: Vec<Value>,
    ) -> Result<Value, SqlError> {
        let _ = (schema, args);
        Err(SqlError::unknown_function(name))
    }
    /// The rows of a correlated subquery's `template` with its outer
    /// references bound to `outer` (in marker order).
    fn run_subquery(
        &self,
        template: &sqlparser::ast::Query,
        id: u64,
        outer: &[Value],
        params: &[Value],
    ) -> Result<Vec<Vec<Value>>, SqlError> {
        let _ = (template, id, outer, params);
        Err(SqlError::not_supported("subqueries in this context"))
    }
}

/// The function name under which the planner hands a correlated subquery to
/// [`compile`]: `<name>('<kind>:<id>', '<template text>', [probe |
/// CAST(NULL AS type)], outer...)` with kind `exists`, `not exists`, `in`, `not in` or
/// `scalar`. No statement can name it: it starts with
/// `parse::INTERNAL_NAME_MARK`, which the parser refuses in identifiers.
pub const CORRELATED_SUBQUERY_FUNCTION: &str = "\u{1}subquery";
/// Outer references in a correlated subquery's template are identifiers
/// named this prefix, the subquery's id, `_` and their index (the id keeps
/// apart the markers of subqueries nested in one another).
pub const OUTER_REFERENCE_PREFIX: &str = "\u{1}outer";

/// What a correlated subquery yields for a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubqueryKind {
    /// `[NOT] EXISTS (...)`: 1 or 0.
    Exists { negated: bool },
    /// `probe [NOT] IN (...)`: 1, 0 or NULL by MySQL's rules; the probe
    /// may be a row `(a, b, ...)` compared with the subquery's columns.
    In { negated: bool },
    /// `(...)`: the one value of the one row, NULL without rows, 1242 for
    /// more than one row.
    Scalar,
}

/// A subquery that reads columns of its enclosing query (built by the
/// planner's subquery step: `crate::exec::select::correlated`).
#[derive(Debug, Clone, PartialEq)]
pub struct CorrelatedSubquery {
    pub kind: SubqueryKind,
    /// Names this subquery's markers.
    pub id: u64,
    /// The subquery with each outer column reference replaced by a marker
    /// (see [`Session::run_subquery`]).
    pub template: sqlparser::ast::Query,
    /// IN's left operand (one expression, or a row's), each with the
    /// collation it compares under; empty for EXISTS and scalars.
    pub probe: Vec<(Expr, Collation)>,
    /// The outer column references, in marker order.
    pub outer: Vec<Expr>,
}

/// What `/`, `DIV`, `%` and `MOD()` by zero give, as MariaDB decides it
/// from `sql_mode` and the statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DivisionByZero {
    /// NULL, silently (no ERROR_FOR_DIVISION_BY_ZERO).
    Null,
    /// NULL and warning 1365 (ERROR_FOR_DIVISION_BY_ZERO outside a strict
    /// data change, or with IGNORE).
    Warn,
    /// Error 1365 (ERROR_FOR_DIVISION_BY_ZERO in a strict INSERT, REPLACE,
    /// UPDATE or LOAD DATA without IGNORE).
    Error,
}

/// Per-statement evaluation state.
pub struct EvalContext<'a> {
    pub session: &'a dyn Session,
    /// Values of `?` parameters, in order.
    pub params: &'a [Value],
    /// The statement's start time (UTC), what NOW() returns.
    pub now: DateTime,
    /// Statement start as microseconds since the epoch.
    pub now_micros: i64,
    /// What division and modulo by zero give besides NULL (per `sql_mode`
    /// and statement: `Session::eval_context`).
    pub division_by_zero: DivisionByZero,
    /// Set by `KILL QUERY`: long functions (SLEEP) stop early.
    pub kill: Option<&'a std::sync::atomic::AtomicBool>,
    /// A warning fails the statement instead (MariaDB's `abort_on_warning`:
    /// a strict INSERT, REPLACE, UPDATE or LOAD DATA without IGNORE). The
    /// first such warning is held in `escalated` until the expression
    /// evaluating returns it as the error.
    pub warnings_are_errors: bool,
    escalated: Option<Warning>,
    warnings: Vec<Warning>,
    warning_count: usize,
    rand_state: (u64, u64),
}

impl std::fmt::Debug for EvalContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EvalContext")
            .field("now", &self.now)
            .field("warnings", &self.warnings)
            .finish()
    }
}

impl<'a> EvalContext<'a> {
    /// A context for a statement starting at `now_micros` (microseconds since
    /// the epoch, UTC).
    pub fn new(session: &'a dyn Session, params: &'a [Value], now_micros: i64) -> EvalContext<'a> {
        let now = crate::value::temporal::datetime_from_micros(now_micros).unwrap_or_default();
        let seed = now_micros.unsigned_abs() ^ session.connection_id().rotate_left(17);
        EvalContext {
            session,
            params,
            now,
            now_micros,
            division_by_zero: DivisionByZero::Warn,
            kill: None,
            warnings_are_errors: false,
            escalated: None,
            warnings: Vec::new(),
            warning_count: 0,
            rand_state: (seed % 0x3FFF_FFFF, (seed / 7) % 0x3FFF_FFFF),
        }
    }

    /// Records a warning; in a statement whose warnings are errors
    /// ([`warnings_are_errors`](Self::warnings_are_errors)) the first one
    /// becomes the error the evaluation returns.
    pub fn warn(&mut self, code: u16, message: impl Into<String>) {
        if self.warnings_are_errors {
            if self.escalated.is_none() {
                self.escalated = Some(Warning::warn(code, message));
            }
            return;
        }
        self.push(Warning::warn(code, message));
    }

    /// Warnings stay warnings and division by zero only warns (a strict
    /// statement's part MariaDB evaluates before its strict checks start).
    pub fn warnings_only(&mut self) {
        self.warnings_are_errors = false;
        if self.division_by_zero == DivisionByZero::Error {
            self.division_by_zero = DivisionByZero::Warn;
        }
    }

    /// The warning that fails the statement, if one was raised (see
    /// [`warn`](Self::warn)); code that warns outside an expression's
    /// evaluation returns it itself.
    pub fn escalated_error(&mut self) -> Option<SqlError> {
        let w = self.escalated.take()?;
        Some(SqlError::new(w.code, w.message))
    }

    /// Records a note.
    pub fn note(&mut self, code: u16, message: impl Into<String>) {
        self.push(Warning {
            level: Level::Note,
            code,
            message: message.into(),
        });
    }

    fn push(&mut self, w: Warning) {
        self.warning_count += 1;
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(w);
        }
    }

    /// Warnings kept so far (at most [`MAX_WARNINGS`]).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// All warnings raised, including those not kept (`@@warning_count`).
    pub fn warning_count(&self) -> usize {
        self.warning_count
    }

    /// Takes the kept warnings.
    pub fn take_warnings(&mut self) -> Vec<Warning> {
        self.warning_count = 0;
        std::mem::take(&mut self.warnings)
    }

    /// MySQL's `my_rnd` generator (RAND()).
    fn next_rand(&mut self) -> f64 {
        const MAX: u64 = 0x3FFF_FFFF;
        let (s1, s2) = self.rand_state;
        let s1 = (s1 * 3 + s2) % MAX;
        let s2 = (s1 + s2 + 33) % MAX;
        self.rand_state = (s1, s2);
        s1 as f64 / MAX as f64
    }
}

/// Arithmetic and bit operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    IntDiv,
    Mod,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `<=>`: NULL-safe equality.
    NullSafeEq,
}

impl CmpOp {
    /// The operator as SQL writes it (and MariaDB's messages name it).
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "<>",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::NullSafeEq => "<=>",
        }
    }
}

/// What the branches of IF/CASE/COALESCE/GREATEST are converted to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coerce {
    /// Values pass unchanged (all branches have one kind).
    Keep,
    Int,
    Decimal,
    Double,
    Text,
    Binary,
    /// To DATE, DATETIME or TIME (LEAST and GREATEST with a temporal
    /// argument compare and return that type); a value that is none gives
    /// the zero value with MariaDB's warning.
    Date,
    Datetime,
    Time,
}

/// Target of CAST / CONVERT.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CastTarget {
    Signed,
    Unsigned,
    Decimal {
        precision: u8,
        scale: u8,
    },
    Double,
    /// DOUBLE(M,D) with D below 31: rounded and bounded as a DOUBLE(M,D)
    /// column holds it (a note 1264 beyond the bound).
    FixedDouble {
        m: u8,
        d: u8,
        /// The CAST as written, for the note.
        text: String,
    },
    Float,
    /// CHAR[(n)] in a collation.
    Char {
        len: Option<u32>,
        collation: Collation,
    },
    /// BINARY[(n)]: binary string, padded with 0x00 to n.
    Binary {
        len: Option<u32>,
    },
    Date,
    /// UUID: the canonical text of a UUID; other text is NULL (1292).
    Uuid,
    Datetime {
        fsp: u8,
    },
    Time {
        fsp: u8,
    },
    /// Internal: CAST AS DATE / DATE() where a comparison or MIN/MAX reads
    /// it: a value that is no date is the zero date, with MariaDB's
    /// "Truncated incorrect datetime value" (not NULL).
    DateOrZero,
    /// Internal: CAST AS DATETIME where a comparison or MIN/MAX reads it.
    DatetimeOrZero {
        fsp: u8,
    },
    /// Internal: CAST AS TIME / TIME() where a comparison reads it: text
    /// that is no time is 00:00:00 with "Truncated incorrect time value"
    /// (`TIME('a') <= 0` holds in MariaDB).
    TimeOrZero {
        fsp: u8,
    },
}

/// A compiled expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Literal(Value),
    /// A column of the row.
    Column(usize),
    /// A `?` parameter (0-based).
    Param(usize),
    SysVar {
        name: String,
        scope: VarScope,
    },
    /// `@name`, read as `kind`: what the variable held when the statement
    /// was compiled (`None`: unknown, read as it is).
    UserVar {
        name: String,
        kind: Option<uservar::UserVarKind>,
    },
    /// A stored function, run through [`Session::call_stored_function`].
    StoredCall {
        schema: Option<String>,
        name: String,
        args: Vec<Expr>,
    },
    /// A subquery that reads columns of the enclosing query, run for each
    /// row through [`Session::run_subquery`].
    Subquery(Box<CorrelatedSubquery>),
    /// `@name := value`, `value` of static type `ty`.
    AssignUserVar {
        name: String,
        value: Box<Expr>,
        ty: Box<ColumnType>,
    },
    /// Unary minus; `text` is the expression as written, for 1690 messages.
    Neg {
        arg: Box<Expr>,
        text: String,
    },
    BitNot(Box<Expr>),
    /// An ENUM or SET value (passed as its member text) in numeric context:
    /// its member number (ENUM, 0 for the invalid '') or bitmap (SET).
    MemberNumber {
        arg: Box<Expr>,
        members: Vec<String>,
        set: bool,
    },
    /// A UUID as it compares and sorts (MariaDB's UUID order): the record
    /// form of a UUID's text (`larch_engine::record::uuid`) as bytes; text
    /// that is no UUID is NULL with warning 1292.
    UuidKey(Box<Expr>),
    /// A TIME, DATETIME or TIMESTAMP value as text with the fractional
    /// digits of its type `ty` (what a string function reads of it).
    AsText {
        arg: Box<Expr>,
        ty: ColumnType,
    },
    Arith {
        op: ArithOp,
        left: Box<Expr>,
        right: Box<Expr>,
        text: String,
    },
    Compare {
        op: CmpOp,
        left: Box<Expr>,
        right: Box<Expr>,
        collation: Collation,
        /// A FLOAT or DOUBLE compared with fixed decimals D (MariaDB's
        /// `compare_real_fixed`): values closer than 5·10^-(D+1) are
        /// equal, so a FLOAT(5,2) holding 12.35 equals 12.35.
        fixed_decimals: Option<u8>,
    },
    IsNull {
        arg: Box<Expr>,
        negated: bool,
    },
    /// `IS [NOT] TRUE|FALSE`.
    IsTruth {
        arg: Box<Expr>,
        value: bool,
        negated: bool,
    },
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Xor(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Between {
        arg: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
        collation: Collation,
    },
    InList {
        arg: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
        collation: Collation,
    },
    Like {
        arg: Box<Expr>,
        pattern: Box<Expr>,
        escape: Option<Box<Expr>>,
        negated: bool,
        collation: Collation,
        /// The pattern compiled once, when it and the escape are literals.
        constant: Option<ConstantLike>,
    },
    Case {
        operand: Option<Box<Expr>>,
        whens: Vec<(Expr, Expr)>,
        otherwise: Option<Box<Expr>>,
        collation: Collation,
        coerce: Coerce,
    },
    /// DATE_ADD / DATE_SUB / `x ± INTERVAL n unit`.
    DateAdd {
        date: Box<Expr>,
        amount: Box<Expr>,
        unit: IntervalUnit,
        subtract: bool,
        /// The result as text with these fractional digits (the argument
        /// is neither a DATE, a TIME nor a DATETIME).
        as_text: Option<u8>,
    },
    Call {
        func: Func,
        args: Vec<Expr>,
        coerce: Coerce,
        collation: Collation,
    },
    Cast {
        arg: Box<Expr>,
        target: CastTarget,
    },
}

/// A compiled expression and its static type.
#[derive(Debug, Clone, PartialEq)]
pub struct Compiled {
    pub expr: Expr,
    pub ty: ExprType,
}

/// An expression as a comparison (=, IN, BETWEEN ...) or MIN/MAX reads
/// it: CAST AS DATE or DATETIME and DATE() of what is no date give the
/// zero date, CAST AS TIME and TIME() of what is no time 00:00:00
/// (MariaDB reads them with fuzzy dates there: `MAX(DATE(1))` is
/// '0000-00-00' and `TIME('a') <= 0` holds, while `SELECT DATE(1)` and
/// `SELECT TIME('a')` are NULL).
pub(crate) fn fuzzy_date(e: Expr) -> Expr {
    match e {
        Expr::Cast {
            arg,
            target: CastTarget::Date,
        } => Expr::Cast {
            arg,
            target: CastTarget::DateOrZero,
        },
        Expr::Cast {
            arg,
            target: CastTarget::Datetime { fsp },
        } => Expr::Cast {
            arg,
            target: CastTarget::DatetimeOrZero { fsp },
        },
        Expr::Call {
            func: Func::Date,
            mut args,
            ..
        } if args.len() == 1 => Expr::Cast {
            arg: Box::new(args.remove(0)),
            target: CastTarget::DateOrZero,
        },
        Expr::Cast {
            arg,
            target: CastTarget::Time { fsp },
        } => Expr::Cast {
            arg,
            target: CastTarget::TimeOrZero { fsp },
        },
        Expr::Call {
            func: Func::Time,
            mut args,
            ..
        } if args.len() == 1 => Expr::Cast {
            arg: Box::new(args.remove(0)),
            target: CastTarget::TimeOrZero { fsp: 6 },
        },
        other => other,
    }
}

/// The fractional digits of a TIME, DATETIME or TIMESTAMP type; 0 for
/// every other type.
pub(crate) fn temporal_fsp(ty: &ColumnType) -> u8 {
    match ty {
        ColumnType::Time { fsp } | ColumnType::Datetime { fsp } | ColumnType::Timestamp { fsp } => {
            *fsp
        }
        _ => 0,
    }
}

impl Compiled {
    /// The expression read as text (GROUP_CONCAT's values): a TIME,
    /// DATETIME or TIMESTAMP with fractional digits shows as many as its
    /// type has, as MariaDB's string value of a temporal does.
    pub fn text(self) -> Compiled {
        // A BIT's text is its bytes (AsText).
        if temporal_fsp(&self.ty.ty) == 0 && !matches!(self.ty.ty, ColumnType::Bit { .. }) {
            return self;
        }
        let ty = self.ty.ty.clone();
        Compiled {
            expr: Expr::AsText {
                arg: Box::new(self.expr),
                ty,
            },
            ty: self.ty,
        }
    }

    /// The value as it is stored into a column or a user variable: a
    /// DECIMAL keeps the precision it was computed with (MariaDB stores
    /// `val_decimal()`: 2/7 into a DOUBLE is 0.285714285, not the 0.2857
    /// a result column shows).
    pub fn eval_stored(&self, row: &[Value], ctx: &mut EvalContext<'_>) -> Result<Value, SqlError> {
        self.expr.eval(row, ctx)
    }

    /// Evaluates against a row; decimals come back rounded to the static scale.
    pub fn eval(&self, row: &[Value], ctx: &mut EvalContext<'_>) -> Result<Value, SqlError> {
        let v = self.expr.eval(row, ctx)?;
        Ok(match (v, &self.ty.ty) {
            (Value::Decimal(d), ColumnType::Decimal { scale, .. }) if d.scale() != *scale => {
                Value::Decimal(d.rescale(*scale))
            }
            (v, _) => v,
        })
    }
}

impl Expr {
    /// Evaluates the expression against a row.
    pub fn eval(&self, row: &[Value], ctx: &mut EvalContext<'_>) -> Result<Value, SqlError> {
        let v = ops::eval(self, row, ctx)?;
        match ctx.escalated_error() {
            Some(e) => Err(e),
            None => Ok(v),
        }
    }
}
