//! Values, keys and rows: how SQL data becomes bytes.
//!
//! - [`value`]: column types and values (MySQL's types as used in practice);
//! - [`collation`]: character-set collations and their sort keys;
//! - [`key`]: memcomparable key encoding (byte order = SQL order), with enough
//!   information kept to recover the original values for covering reads;
//! - [`row`]: the compact row format, with the hidden transaction fields of
//!   clustered records;
//! - [`overflow`]: long column values stored off-page in overflow page chains.
//!
//! The B+tree (`crate::btree`) sees only encoded keys and row bytes.

pub mod collation;
pub mod key;
pub mod overflow;
pub mod row;
pub mod uuid;
pub mod value;
