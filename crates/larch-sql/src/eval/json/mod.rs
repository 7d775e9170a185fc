//! MariaDB's JSON functions (`JSON_EXTRACT`, `JSON_SET`, `JSON_OBJECT`, ...)
//! over JSON kept as text, as MariaDB keeps it (a `JSON` column is
//! `LONGTEXT` in `utf8mb4_bin`).
//!
//! - [`document`]: the parsed tree, the parser with MariaDB's error
//!   positions, and the printed forms;
//! - [`path`]: JSON paths and finding values by them;
//! - [`functions`]: each function's behaviour.
//!
//! An invalid document or path makes the function NULL with MariaDB's
//! warning (4037, 4038, 4040, 4042, 4043, 4044), never an error, as in
//! MariaDB. A value that comes from another JSON function is embedded as
//! JSON rather than quoted as a string: the compiler marks those arguments
//! in [`JsonCall::json_args`].

pub mod document;
mod functions;
pub mod path;

use larch_engine::record::value::Value;

use super::EvalContext;
use crate::error::SqlError;

/// A JSON function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JsonFunc {
    Valid,
    Type,
    Extract,
    Value,
    Query,
    Unquote,
    Quote,
    Object,
    Array,
    Length,
    Depth,
    Keys,
    Contains,
    ContainsPath,
    Exists,
    Set,
    Insert,
    Replace,
    Remove,
    ArrayAppend,
    ArrayInsert,
    MergePreserve,
    MergePatch,
    Search,
    Compact,
    Detailed,
    Loose,
    Equals,
    /// The value a JSON_EXTRACT result has as a number (no SQL name: the
    /// compiler puts it where a number is read from JSON_EXTRACT): a JSON
    /// string is its text, `true` and `false` are 1 and 0, and anything
    /// else its JSON text.
    NumberOf,
}

/// A JSON function, which of its arguments are JSON values already and
/// which are truth values (a comparison, AND, NOT, IN, TRUE, ...: JSON
/// `true`/`false`, as MariaDB embeds them). Bit `i` stands for argument
/// `i`; arguments past 63 count as plain values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct JsonCall {
    pub func: JsonFunc,
    pub json_args: u64,
    pub bool_args: u64,
}

impl JsonCall {
    fn is_json_arg(&self, i: usize) -> bool {
        i < 64 && self.json_args & (1 << i) != 0
    }

    fn is_bool_arg(&self, i: usize) -> bool {
        i < 64 && self.bool_args & (1 << i) != 0
    }
}

/// A SQL value as JSON text, as JSON_ARRAY embeds it (`json`: the value is
/// JSON from a JSON function, embedded as it is). For JSON_ARRAYAGG and
/// JSON_OBJECTAGG.
pub fn value_json_text(v: &Value, json: bool) -> String {
    let call = JsonCall {
        func: JsonFunc::Array,
        json_args: u64::from(json),
        bool_args: 0,
    };
    functions::sql_to_json(call, 0, v).to_text()
}

/// A JSON object key as JSON_OBJECT prints it (quoted and escaped).
pub fn key_json_text(key: &str) -> String {
    document::Json::string(key).to_text()
}

/// True when the function called `name` returns JSON (its result is
/// embedded as JSON by a JSON function or aggregate).
pub fn name_returns_json(name: &str) -> bool {
    lookup(&name.to_ascii_uppercase()).is_some_and(|(f, _, _)| f.returns_json())
}

/// The function of an upper-case name with its (min, max) argument counts.
pub fn lookup(upper: &str) -> Option<(JsonFunc, usize, usize)> {
    use JsonFunc::*;
    const N: usize = usize::MAX;
    Some(match upper {
        "JSON_VALID" => (Valid, 1, 1),
        "JSON_TYPE" => (Type, 1, 1),
        "JSON_EXTRACT" => (Extract, 2, N),
        "JSON_VALUE" => (Value, 2, 2),
        "JSON_QUERY" => (Query, 2, 2),
        "JSON_UNQUOTE" => (Unquote, 1, 1),
        "JSON_QUOTE" => (Quote, 1, 1),
        "JSON_OBJECT" => (Object, 0, N),
        "JSON_ARRAY" => (Array, 0, N),
        "JSON_LENGTH" => (Length, 1, 2),
        "JSON_DEPTH" => (Depth, 1, 1),
        "JSON_KEYS" => (Keys, 1, 2),
        "JSON_CONTAINS" => (Contains, 2, 3),
        "JSON_CONTAINS_PATH" => (ContainsPath, 3, N),
        "JSON_EXISTS" => (Exists, 2, 2),
        "JSON_SET" => (Set, 3, N),
        "JSON_INSERT" => (Insert, 3, N),
        "JSON_REPLACE" => (Replace, 3, N),
        "JSON_REMOVE" => (Remove, 2, N),
        "JSON_ARRAY_APPEND" => (ArrayAppend, 3, N),
        "JSON_ARRAY_INSERT" => (ArrayInsert, 3, N),
        "JSON_MERGE" | "JSON_MERGE_PRESERVE" => (MergePreserve, 2, N),
        "JSON_MERGE_PATCH" => (MergePatch, 2, N),
        "JSON_SEARCH" => (Search, 3, N),
        "JSON_COMPACT" => (Compact, 1, 1),
        "JSON_DETAILED" | "JSON_PRETTY" => (Detailed, 1, 2),
        "JSON_LOOSE" => (Loose, 1, 1),
        "JSON_EQUALS" => (Equals, 2, 2),
        _ => return None,
    })
}

impl JsonFunc {
    /// The name MariaDB's messages use.
    pub fn name(self) -> &'static str {
        use JsonFunc::*;
        match self {
            Valid => "json_valid",
            Type => "json_type",
            Extract => "json_extract",
            Value => "json_value",
            Query => "json_query",
            Unquote => "json_unquote",
            Quote => "json_quote",
            Object => "json_object",
            Array => "json_array",
            Length => "json_length",
            Depth => "json_depth",
            Keys => "json_keys",
            Contains => "json_contains",
            ContainsPath => "json_contains_path",
            Exists => "json_exists",
            Set => "json_set",
            Insert => "json_insert",
            Replace => "json_replace",
            Remove => "json_remove",
            ArrayAppend => "json_array_append",
            ArrayInsert => "json_array_insert",
            MergePreserve => "json_merge_preserve",
            MergePatch => "json_merge_patch",
            Search => "json_search",
            Compact => "json_compact",
            Detailed => "json_detailed",
            Loose => "json_loose",
            Equals => "json_equals",
            NumberOf => "json_extract",
        }
    }

    /// True when the result is JSON (embedded as JSON by another JSON
    /// function) rather than a plain string or number.
    pub fn returns_json(self) -> bool {
        use JsonFunc::*;
        matches!(
            self,
            Extract
                | Query
                | Object
                | Array
                | Keys
                | Set
                | Insert
                | Replace
                | Remove
                | ArrayAppend
                | ArrayInsert
                | MergePreserve
                | MergePatch
                | Compact
                | Detailed
                | Loose
        )
    }

    /// True when the result is an integer (or NULL).
    pub fn returns_int(self) -> bool {
        use JsonFunc::*;
        matches!(
            self,
            Valid | Length | Depth | Contains | ContainsPath | Exists | Equals
        )
    }

    /// True when the function handles NULL arguments itself (the others
    /// are NULL when any argument is).
    pub fn takes_nulls(self) -> bool {
        use JsonFunc::*;
        matches!(
            self,
            Object
                | Array
                | Set
                | Insert
                | Replace
                | ArrayAppend
                | ArrayInsert
                | Search
                | MergePatch
        )
    }
}

/// Runs JSON function `call` on `args`.
pub fn call(call: JsonCall, args: &[Value], ctx: &mut EvalContext<'_>) -> Result<Value, SqlError> {
    functions::call(call, args, ctx)
}
