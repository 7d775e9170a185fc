//! [`TableMeta`]: what the SQL layer knows about a table beyond the engine's
//! `TableDef` (column defaults, ON UPDATE, comments, display widths, table
//! options, FULLTEXT keys, index comments), persisted in the catalog's
//! `sql_meta` bytes of the table.
//!
//! Invariant: `columns` has exactly one entry per column of the table's
//! `TableDef`, in the same order; FULLTEXT column numbers are positions in
//! that order. [`TableMeta::decode`] checks both, so a table whose metadata
//! does not match its definition is reported (error 1105), never used.
//!
//! Byte layout (version 6; version 5 lacks the table options at the end,
//! version 4 also the generation part of a
//! column, version 3 also the INVISIBLE flag, version 2 also the FOREIGN
//! KEY part, version 1 also the CHECK parts), all integers
//! little-endian; a *string* is a u32
//! byte length and that many UTF-8 bytes; an *optional string* is a u8 tag
//! (0 none, 1 present) followed, when present, by a string:
//!
//! ```text
//! "LM"  version:u8(=5)
//! engine:string  charset:string  collation:string  row_format:optional string
//! comment:string
//! column count:u32, then per column:
//!     flags:u8 (bit 0 DEFAULT present, 1 ON UPDATE CURRENT_TIMESTAMP,
//!               2 ZEROFILL, 3 UNSIGNED (non-integer types), 4 display width
//!               present, 5 precision present, 6 CHECK present,
//!               7 INVISIBLE (version 4))
//!     [default:string]  comment:string  [display width:u32]  [M:u32 D:u32]
//!     [check expression:string]
//!     generation:u8 (version 5: 0 ordinary column, 1 VIRTUAL, 2 STORED)
//!     [generation expression:string (when generation is 1 or 2)]
//! FULLTEXT key count:u32, then per key: name:string, column count:u32,
//!     columns:u32...
//! index comment count:u32, then per index: name:string, comment:string
//! table CHECK count:u32, then per constraint: name:string, expression:string
//! FOREIGN KEY count:u32, then per constraint (`ddl::foreign`): name:string,
//!     column count:u32, columns:u32... (positions in this table),
//!     referenced database:string, referenced table:string,
//!     referenced column count:u32 (= column count), names:string...,
//!     ON DELETE:u8, ON UPDATE:u8 (0 RESTRICT, 1 CASCADE, 2 SET NULL,
//!     3 NO ACTION)
//! table option count:u32 (version 6), then per option: name:string,
//!     value:string (`MIN_ROWS`, `PACK_KEYS`, `STATS_PERSISTENT`, ... as
//!     SHOW CREATE TABLE prints them; `ddl::table_options`)
//! ```
//!
//! Nothing may follow. Empty bytes (a table created by the engine alone)
//! decode to [`TableMeta::plain`]. A newer version is refused rather than
//! misread.

use larch_engine::table::TableDef;

use crate::error::SqlError;

/// Current encoding version.
const VERSION: u8 = 6;
const MAGIC: &[u8; 2] = b"LM";

const F_DEFAULT: u8 = 1;
const F_ON_UPDATE: u8 = 1 << 1;
const F_ZEROFILL: u8 = 1 << 2;
const F_UNSIGNED: u8 = 1 << 3;
const F_WIDTH: u8 = 1 << 4;
const F_PRECISION: u8 = 1 << 5;
const F_CHECK: u8 = 1 << 6;
const F_INVISIBLE: u8 = 1 << 7;

/// The SQL layer's metadata of a table, persisted in the catalog's
/// `sql_meta` bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableMeta {
    /// One per column of the `TableDef`, in order.
    pub columns: Vec<ColumnMeta>,
    /// Always "InnoDB" today (other engines are accepted and replaced).
    pub engine: String,
    /// The table's default character set and collation (`DEFAULT CHARSET`,
    /// `COLLATE`).
    pub charset: String,
    pub collation: String,
    /// `ROW_FORMAT=` as given (upper case), if given.
    pub row_format: Option<String>,
    /// The table COMMENT.
    pub comment: String,
    /// FULLTEXT keys: name and column positions (recorded, not built).
    pub fulltext: Vec<(String, Vec<usize>)>,
    /// COMMENT of indexes (by index name), for those that have one.
    pub index_comments: Vec<(String, String)>,
    /// Table-level CHECK constraints: name and expression text.
    pub checks: Vec<(String, String)>,
    /// FOREIGN KEY constraints of this (child) table, in definition order.
    pub foreign_keys: Vec<super::foreign::ForeignKey>,
    /// The other table options given (name upper case, value as shown),
    /// in the order SHOW CREATE TABLE prints them.
    pub options: Vec<(String, String)>,
}

/// The SQL layer's metadata of one column.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnMeta {
    /// SQL expression text of the DEFAULT clause as it must be evaluated for
    /// an INSERT that omits the column, e.g. "'abc'", "0", "NULL",
    /// "current_timestamp()", "current_timestamp(3)"; None = no DEFAULT clause
    /// (then NULL for a nullable column; for NOT NULL the inserter raises 1364
    /// "Field '%s' doesn't have a default value" in strict mode).
    pub default: Option<String>,
    /// ON UPDATE CURRENT_TIMESTAMP.
    pub on_update_now: bool,
    pub comment: String,
    /// Display width and flags MySQL shows but the engine type does not carry
    /// (e.g. int(11), zerofill, BOOLEAN as tinyint(1)).
    pub display_width: Option<u32>,
    pub zerofill: bool,
    /// UNSIGNED on a DECIMAL, FLOAT or DOUBLE column (integer types carry it
    /// in the engine type). Shown by SHOW CREATE TABLE; negative values are
    /// the inserter's to refuse.
    pub unsigned: bool,
    /// `(M, D)` of FLOAT(M,D) / DOUBLE(M,D).
    pub precision: Option<(u32, u32)>,
    /// The column's CHECK constraint expression (named after the column);
    /// a JSON column has `json_valid(`col`)`.
    pub check: Option<String>,
    /// INVISIBLE: left out of `SELECT *` and of INSERT without a column
    /// list.
    pub invisible: bool,
    /// `GENERATED ALWAYS AS (expr) VIRTUAL|STORED` (`ddl::generated`).
    pub generated: Option<Generation>,
}

/// How a generated column gets its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generation {
    /// The expression in MariaDB's printed form (identifiers in
    /// backquotes), as SHOW CREATE TABLE shows it.
    pub expr: String,
    /// STORED (PERSISTENT); false for VIRTUAL.
    pub stored: bool,
}

impl ColumnMeta {
    /// `(M, D)` when this is a FLOAT(M,D) or DOUBLE(M,D) column of engine
    /// type `ty`: values are rounded and bounded when stored and show with
    /// D decimals.
    pub fn fixed_real(&self, ty: &larch_engine::record::value::ColumnType) -> Option<(u32, u32)> {
        use larch_engine::record::value::ColumnType;
        self.precision
            .filter(|_| matches!(ty, ColumnType::Float | ColumnType::Double))
    }
}

impl TableMeta {
    /// Metadata for `def` with nothing special (empty bytes decode to this):
    /// InnoDB, utf8mb4 with `utf8mb4_general_ci`, no defaults or comments.
    pub fn plain(def: &TableDef) -> TableMeta {
        TableMeta {
            columns: vec![ColumnMeta::default(); def.columns.len()],
            engine: "InnoDB".into(),
            charset: "utf8mb4".into(),
            collation: "utf8mb4_general_ci".into(),
            row_format: None,
            comment: String::new(),
            fulltext: Vec::new(),
            index_comments: Vec::new(),
            checks: Vec::new(),
            foreign_keys: Vec::new(),
            options: Vec::new(),
        }
    }

    /// The comment of index `name`, "" when it has none.
    pub fn index_comment(&self, name: &str) -> &str {
        self.index_comments
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map_or("", |(_, c)| c.as_str())
    }

    /// Encodes the metadata (see the module documentation for the layout).
    pub fn encode(&self) -> Vec<u8> {
        self.encode_as(VERSION)
    }

    /// Encodes in the layout of `version` (older layouts leave out what
    /// they lack; tests use them to check that old bytes still load).
    pub(crate) fn encode_as(&self, version: u8) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.columns.len() * 8);
        out.extend_from_slice(MAGIC);
        out.push(version);
        put_str(&mut out, &self.engine);
        put_str(&mut out, &self.charset);
        put_str(&mut out, &self.collation);
        put_opt_str(&mut out, self.row_format.as_deref());
        put_str(&mut out, &self.comment);
        put_len(&mut out, self.columns.len());
        for c in &self.columns {
            let mut flags = 0u8;
            for (on, bit) in [
                (c.default.is_some(), F_DEFAULT),
                (c.on_update_now, F_ON_UPDATE),
                (c.zerofill, F_ZEROFILL),
                (c.unsigned, F_UNSIGNED),
                (c.display_width.is_some(), F_WIDTH),
                (c.precision.is_some(), F_PRECISION),
                (c.check.is_some(), F_CHECK),
                (c.invisible, F_INVISIBLE),
            ] {
                if on {
                    flags |= bit;
                }
            }
            out.push(flags);
            if let Some(d) = &c.default {
                put_str(&mut out, d);
            }
            put_str(&mut out, &c.comment);
            if let Some(w) = c.display_width {
                out.extend_from_slice(&w.to_le_bytes());
            }
            if let Some((m, d)) = c.precision {
                out.extend_from_slice(&m.to_le_bytes());
                out.extend_from_slice(&d.to_le_bytes());
            }
            if let Some(e) = &c.check {
                put_str(&mut out, e);
            }
            match &c.generated {
                _ if version < 5 => {}
                None => out.push(0),
                Some(g) => {
                    out.push(if g.stored { 2 } else { 1 });
                    put_str(&mut out, &g.expr);
                }
            }
        }
        put_len(&mut out, self.fulltext.len());
        for (name, cols) in &self.fulltext {
            put_str(&mut out, name);
            put_len(&mut out, cols.len());
            for &c in cols {
                put_len(&mut out, c);
            }
        }
        put_len(&mut out, self.index_comments.len());
        for (name, comment) in &self.index_comments {
            put_str(&mut out, name);
            put_str(&mut out, comment);
        }
        put_len(&mut out, self.checks.len());
        for (name, expr) in &self.checks {
            put_str(&mut out, name);
            put_str(&mut out, expr);
        }
        super::foreign::encode(&self.foreign_keys, &mut out);
        if version >= 6 {
            put_len(&mut out, self.options.len());
            for (name, value) in &self.options {
                put_str(&mut out, name);
                put_str(&mut out, value);
            }
        }
        out
    }

    /// Decodes bytes written by [`encode`](Self::encode); empty bytes give
    /// [`plain`](Self::plain). Corrupt bytes, a newer version or metadata
    /// that does not match `def` are error 1105, never a panic.
    pub fn decode(bytes: &[u8], def: &TableDef) -> Result<TableMeta, SqlError> {
        if bytes.is_empty() {
            return Ok(TableMeta::plain(def));
        }
        let mut r = Reader {
            bytes,
            at: 0,
            table: &def.name,
        };
        if r.take(2)? != MAGIC {
            return Err(r.corrupt("bad magic"));
        }
        let version = r.u8()?;
        if !(1..=VERSION).contains(&version) {
            return Err(r.corrupt(&format!(
                "version {version} is not supported (this server reads version {VERSION})"
            )));
        }
        let engine = r.string()?;
        let charset = r.string()?;
        let collation = r.string()?;
        let row_format = r.opt_string()?;
        let comment = r.string()?;
        let ncols = r.count(2)?;
        if ncols != def.columns.len() {
            return Err(r.corrupt(&format!(
                "{ncols} column entries for {} columns",
                def.columns.len()
            )));
        }
        let mut columns = Vec::with_capacity(ncols);
        for _ in 0..ncols {
            let flags = r.u8()?;
            if (version < 4 && flags & F_INVISIBLE != 0) || (version < 2 && flags & F_CHECK != 0) {
                return Err(r.corrupt(&format!("unknown column flags {flags:#x}")));
            }
            let default = if flags & F_DEFAULT != 0 {
                Some(r.string()?)
            } else {
                None
            };
            let comment = r.string()?;
            let display_width = if flags & F_WIDTH != 0 {
                Some(r.u32()?)
            } else {
                None
            };
            let precision = if flags & F_PRECISION != 0 {
                Some((r.u32()?, r.u32()?))
            } else {
                None
            };
            let check = if flags & F_CHECK != 0 {
                Some(r.string()?)
            } else {
                None
            };
            let generated = if version >= 5 {
                match r.u8()? {
                    0 => None,
                    kind @ (1 | 2) => Some(Generation {
                        expr: r.string()?,
                        stored: kind == 2,
                    }),
                    kind => return Err(r.corrupt(&format!("bad generation kind {kind}"))),
                }
            } else {
                None
            };
            columns.push(ColumnMeta {
                check,
                generated,
                default,
                on_update_now: flags & F_ON_UPDATE != 0,
                comment,
                display_width,
                zerofill: flags & F_ZEROFILL != 0,
                invisible: flags & F_INVISIBLE != 0,
                unsigned: flags & F_UNSIGNED != 0,
                precision,
            });
        }
        let nft = r.count(8)?;
        let mut fulltext = Vec::with_capacity(nft);
        for _ in 0..nft {
            let name = r.string()?;
            let n = r.count(4)?;
            let mut cols = Vec::with_capacity(n);
            for _ in 0..n {
                let c = r.u32()? as usize;
                if c >= ncols {
                    return Err(r.corrupt(&format!("FULLTEXT key '{name}' names column {c}")));
                }
                cols.push(c);
            }
            fulltext.push((name, cols));
        }
        let ncomments = r.count(8)?;
        let mut index_comments = Vec::with_capacity(ncomments);
        for _ in 0..ncomments {
            let name = r.string()?;
            let comment = r.string()?;
            index_comments.push((name, comment));
        }
        let mut checks = Vec::new();
        if version >= 2 {
            let n = r.count(8)?;
            for _ in 0..n {
                let name = r.string()?;
                checks.push((name, r.string()?));
            }
        }
        let foreign_keys = if version >= 3 {
            super::foreign::decode(&mut r, ncols)?
        } else {
            Vec::new()
        };
        let mut options = Vec::new();
        if version >= 6 {
            let n = r.count(8)?;
            for _ in 0..n {
                let name = r.string()?;
                options.push((name, r.string()?));
            }
        }
        if r.at != bytes.len() {
            return Err(r.corrupt(&format!("{} bytes after the end", bytes.len() - r.at)));
        }
        Ok(TableMeta {
            columns,
            engine,
            charset,
            collation,
            row_format,
            comment,
            fulltext,
            index_comments,
            checks,
            foreign_keys,
            options,
        })
    }
}

fn put_len(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_len(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

fn put_opt_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        None => out.push(0),
        Some(s) => {
            out.push(1);
            put_str(out, s);
        }
    }
}

/// A bounds-checked reader over the encoded bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    table: &'a str,
}

impl super::foreign::FieldReader for Reader<'_> {
    fn u8(&mut self) -> Result<u8, SqlError> {
        Reader::u8(self)
    }
    fn u32(&mut self) -> Result<u32, SqlError> {
        Reader::u32(self)
    }
    fn count(&mut self, min_size: usize) -> Result<usize, SqlError> {
        Reader::count(self, min_size)
    }
    fn string(&mut self) -> Result<String, SqlError> {
        Reader::string(self)
    }
    fn corrupt(&self, what: &str) -> SqlError {
        Reader::corrupt(self, what)
    }
}

impl<'a> Reader<'a> {
    fn corrupt(&self, what: &str) -> SqlError {
        SqlError::new(
            crate::error::code::UNKNOWN,
            format!(
                "Corrupt SQL metadata of table '{}' at byte {}: {what}",
                self.table, self.at
            ),
        )
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], SqlError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| self.corrupt("truncated"))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u8(&mut self) -> Result<u8, SqlError> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32, SqlError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A count of items that take at least `min_size` bytes each (so a
    /// corrupt count cannot ask for more memory than the bytes could hold).
    fn count(&mut self, min_size: usize) -> Result<usize, SqlError> {
        let n = self.u32()? as usize;
        if n.saturating_mul(min_size) > self.bytes.len() - self.at {
            return Err(self.corrupt(&format!("count {n} exceeds the data")));
        }
        Ok(n)
    }

    fn string(&mut self) -> Result<String, SqlError> {
        let n = self.u32()? as usize;
        let b = self.take(n)?;
        match std::str::from_utf8(b) {
            Ok(s) => Ok(s.to_string()),
            Err(_) => Err(self.corrupt("string is not UTF-8")),
        }
    }

    fn opt_string(&mut self) -> Result<Option<String>, SqlError> {
        match self.u8()? {
            0 => Ok(None),
            1 => self.string().map(Some),
            t => Err(self.corrupt(&format!("bad option tag {t}"))),
        }
    }
}
