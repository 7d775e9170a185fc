//! The stored form of a table definition in the catalog: a [`TableDef`] plus its
//! [`TableRoots`], as a versioned byte string (layout in `docs/catalog.md`).
//!
//! Integers are little-endian; strings are a `u16` byte length and UTF-8 bytes;
//! lists are a `u16` count and their items. Column types are a tag byte and
//! their parameters; collations are stored by name, so the encoding does not
//! depend on the order of any Rust enum.

use crate::error::{EngineError, Result};
use crate::record::collation::Collation;
use crate::record::value::{ColumnType, LobKind};
use crate::table::{
    ColumnDef, FulltextIndexDef, FulltextParserDef, IndexColumn, IndexDef, StopwordTable, TableDef,
    TableRoots,
};

/// Version of the encoding written by [`encode`].
const VERSION: u8 = 1;

fn corrupt(what: &str) -> EngineError {
    EngineError::Internal(format!("catalog: malformed table definition ({what})"))
}

/// Appends the encoding's primitives (also used by [`super::ddl_log`]).
pub(super) struct Writer(pub(super) Vec<u8>);

impl Writer {
    pub(super) fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u16(&mut self, v: u16) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn len(&mut self, n: usize) -> Result<()> {
        let n = u16::try_from(n).map_err(|_| corrupt("list or string longer than 65535"))?;
        self.u16(n);
        Ok(())
    }
    pub(super) fn str(&mut self, s: &str) -> Result<()> {
        self.len(s.len())?;
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// Reads what [`Writer`] wrote (also used by [`super::ddl_log`]).
pub(super) struct Reader<'a>(pub(super) &'a [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8]> {
        if self.0.len() < n {
            return Err(corrupt("truncated"));
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }
    pub(super) fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    pub(super) fn u16(&mut self) -> Result<u16> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub(super) fn u64(&mut self) -> Result<u64> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    pub(super) fn str(&mut self) -> Result<String> {
        let n = usize::from(self.u16()?);
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| corrupt("string is not UTF-8"))
    }
    fn bool(&mut self) -> Result<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(corrupt("bad flag")),
        }
    }
}

fn lob_tag(k: LobKind) -> u8 {
    match k {
        LobKind::Tiny => 0,
        LobKind::Text => 1,
        LobKind::Medium => 2,
        LobKind::Long => 3,
    }
}

fn lob_kind(t: u8) -> Result<LobKind> {
    Ok(match t {
        0 => LobKind::Tiny,
        1 => LobKind::Text,
        2 => LobKind::Medium,
        3 => LobKind::Long,
        _ => return Err(corrupt("bad TEXT/BLOB size class")),
    })
}

fn write_type(w: &mut Writer, ty: &ColumnType) -> Result<()> {
    match ty {
        ColumnType::Int { bytes, unsigned } => {
            w.u8(1);
            w.u8(*bytes);
            w.u8(u8::from(*unsigned));
        }
        ColumnType::Decimal { precision, scale } => {
            w.u8(2);
            w.u8(*precision);
            w.u8(*scale);
        }
        ColumnType::Float => w.u8(3),
        ColumnType::Double => w.u8(4),
        ColumnType::Char { len, collation } => {
            w.u8(5);
            w.u32(*len);
            w.str(collation.name())?;
        }
        ColumnType::Varchar { max_len, collation } => {
            w.u8(6);
            w.u32(*max_len);
            w.str(collation.name())?;
        }
        ColumnType::Binary { len } => {
            w.u8(7);
            w.u32(*len);
        }
        ColumnType::Varbinary { max_len } => {
            w.u8(8);
            w.u32(*max_len);
        }
        ColumnType::Text { kind, collation } => {
            w.u8(9);
            w.u8(lob_tag(*kind));
            w.str(collation.name())?;
        }
        ColumnType::Blob { kind } => {
            w.u8(10);
            w.u8(lob_tag(*kind));
        }
        ColumnType::Date => w.u8(11),
        ColumnType::Time { fsp } => {
            w.u8(12);
            w.u8(*fsp);
        }
        ColumnType::Datetime { fsp } => {
            w.u8(13);
            w.u8(*fsp);
        }
        ColumnType::Timestamp { fsp } => {
            w.u8(14);
            w.u8(*fsp);
        }
        ColumnType::Year => w.u8(15),
        ColumnType::Enum { values, collation } | ColumnType::Set { values, collation } => {
            // 16 and 17 (no collation: utf8mb4_general_ci) are still read.
            w.u8(if matches!(ty, ColumnType::Enum { .. }) {
                20
            } else {
                21
            });
            w.len(values.len())?;
            for v in values {
                w.str(v)?;
            }
            w.str(collation.name())?;
        }
        ColumnType::Bit { bits } => {
            w.u8(18);
            w.u8(*bits);
        }
        ColumnType::Uuid => w.u8(19),
    }
    Ok(())
}

fn read_collation(r: &mut Reader<'_>) -> Result<Collation> {
    let name = r.str()?;
    Collation::from_name(&name).ok_or_else(|| corrupt("unknown collation"))
}

fn read_type(r: &mut Reader<'_>) -> Result<ColumnType> {
    Ok(match r.u8()? {
        1 => ColumnType::Int {
            bytes: r.u8()?,
            unsigned: r.bool()?,
        },
        2 => ColumnType::Decimal {
            precision: r.u8()?,
            scale: r.u8()?,
        },
        3 => ColumnType::Float,
        4 => ColumnType::Double,
        5 => ColumnType::Char {
            len: r.u32()?,
            collation: read_collation(r)?,
        },
        6 => ColumnType::Varchar {
            max_len: r.u32()?,
            collation: read_collation(r)?,
        },
        7 => ColumnType::Binary { len: r.u32()? },
        8 => ColumnType::Varbinary { max_len: r.u32()? },
        9 => ColumnType::Text {
            kind: lob_kind(r.u8()?)?,
            collation: read_collation(r)?,
        },
        10 => ColumnType::Blob {
            kind: lob_kind(r.u8()?)?,
        },
        11 => ColumnType::Date,
        12 => ColumnType::Time { fsp: r.u8()? },
        13 => ColumnType::Datetime { fsp: r.u8()? },
        14 => ColumnType::Timestamp { fsp: r.u8()? },
        15 => ColumnType::Year,
        t @ (16 | 17 | 20 | 21) => {
            let n = r.u16()?;
            let values = (0..n).map(|_| r.str()).collect::<Result<Vec<_>>>()?;
            let collation = if t >= 20 {
                read_collation(r)?
            } else {
                Collation::Utf8mb4GeneralCi
            };
            if t % 2 == 0 {
                ColumnType::Enum { values, collation }
            } else {
                ColumnType::Set { values, collation }
            }
        }
        18 => ColumnType::Bit { bits: r.u8()? },
        19 => ColumnType::Uuid,
        _ => return Err(corrupt("unknown column type")),
    })
}

fn write_index(w: &mut Writer, idx: &IndexDef) -> Result<()> {
    w.str(&idx.name)?;
    w.u8(u8::from(idx.unique));
    w.len(idx.columns.len())?;
    for c in &idx.columns {
        w.u16(u16::try_from(c.column).map_err(|_| corrupt("column number"))?);
        w.u8(u8::from(c.descending));
        w.u32(c.prefix_len.unwrap_or(0));
    }
    Ok(())
}

fn read_index(r: &mut Reader<'_>) -> Result<IndexDef> {
    let name = r.str()?;
    let unique = r.bool()?;
    let n = r.u16()?;
    let columns = (0..n)
        .map(|_| {
            Ok(IndexColumn {
                column: usize::from(r.u16()?),
                descending: r.bool()?,
                prefix_len: Some(r.u32()?).filter(|&p| p != 0),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(IndexDef {
        name,
        columns,
        unique,
    })
}

/// Encodes a table definition and where its indexes live.
pub fn encode(def: &TableDef, roots: &TableRoots) -> Result<Vec<u8>> {
    let mut w = Writer(Vec::with_capacity(64 + 32 * def.columns.len()));
    w.u8(VERSION);
    w.str(&def.name)?;
    w.len(def.columns.len())?;
    for c in &def.columns {
        w.str(&c.name)?;
        w.u8(u8::from(c.nullable));
        write_type(&mut w, &c.ty)?;
    }
    match &def.primary_key {
        Some(pk) => {
            w.u8(1);
            write_index(&mut w, pk)?;
        }
        None => w.u8(0),
    }
    w.len(def.secondary.len())?;
    for idx in &def.secondary {
        write_index(&mut w, idx)?;
    }
    match def.auto_increment {
        Some(c) => w.u16(u16::try_from(c).map_err(|_| corrupt("column number"))? + 1),
        None => w.u16(0),
    }
    w.u32(roots.space);
    w.u32(roots.clustered);
    w.len(roots.secondary.len())?;
    for &r in &roots.secondary {
        w.u32(r);
    }
    // The full-text section: absent for tables without FULLTEXT indexes, so
    // their definitions keep the bytes of the first version.
    if !def.fulltext.is_empty() || !roots.auxiliary.is_empty() {
        w.u8(FULLTEXT_SECTION);
        w.len(def.fulltext.len())?;
        for ft in &def.fulltext {
            w.str(&ft.name)?;
            w.len(ft.columns.len())?;
            for &c in &ft.columns {
                w.u16(u16::try_from(c).map_err(|_| corrupt("column number"))?);
            }
            match ft.parser {
                FulltextParserDef::Builtin => w.u8(0),
                FulltextParserDef::Ngram { token_size } => {
                    w.u8(1);
                    w.u8(token_size);
                }
            }
            match (&ft.stopword_table, ft.use_stopwords) {
                (_, false) => w.u8(STOPWORDS_NONE),
                (None, true) => w.u8(STOPWORDS_DEFAULT),
                (Some(t), true) => {
                    w.u8(STOPWORDS_TABLE);
                    w.str(&t.name)?;
                    w.str(t.collation.name())?;
                    w.u32(u32::try_from(t.words.len()).map_err(|_| corrupt("stopword count"))?);
                    for word in &t.words {
                        w.str(word)?;
                    }
                }
            }
        }
        w.len(roots.auxiliary.len())?;
        for &r in &roots.auxiliary {
            w.u32(r);
        }
    }
    Ok(w.0)
}

/// Tag of the optional full-text section after the index roots.
const FULLTEXT_SECTION: u8 = 0xF7;

/// A FULLTEXT index's stopwords: none (`innodb_ft_enable_stopword` was
/// off), InnoDB's default list, or a user stopword table's words.
const STOPWORDS_NONE: u8 = 0;
const STOPWORDS_DEFAULT: u8 = 1;
const STOPWORDS_TABLE: u8 = 2;

fn read_fulltext(r: &mut Reader<'_>) -> Result<(Vec<FulltextIndexDef>, Vec<u32>)> {
    if r.0.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    if r.u8()? != FULLTEXT_SECTION {
        return Err(corrupt("unknown section"));
    }
    let n = r.u16()?;
    let mut defs = Vec::with_capacity(usize::from(n));
    for _ in 0..n {
        let name = r.str()?;
        let k = r.u16()?;
        let columns = (0..k)
            .map(|_| r.u16().map(usize::from))
            .collect::<Result<Vec<_>>>()?;
        let parser = match r.u8()? {
            0 => FulltextParserDef::Builtin,
            1 => FulltextParserDef::Ngram {
                token_size: r.u8()?,
            },
            _ => return Err(corrupt("full-text parser")),
        };
        let (use_stopwords, stopword_table) = match r.u8()? {
            STOPWORDS_NONE => (false, None),
            STOPWORDS_DEFAULT => (true, None),
            STOPWORDS_TABLE => {
                let name = r.str()?;
                let collation = read_collation(r)?;
                let n = r.u32()?;
                let words = (0..n).map(|_| r.str()).collect::<Result<Vec<_>>>()?;
                (
                    true,
                    Some(StopwordTable {
                        name,
                        collation,
                        words,
                    }),
                )
            }
            _ => return Err(corrupt("full-text stopwords")),
        };
        defs.push(FulltextIndexDef {
            name,
            columns,
            parser,
            use_stopwords,
            stopword_table,
        });
    }
    let n = r.u16()?;
    let roots = (0..n).map(|_| r.u32()).collect::<Result<Vec<_>>>()?;
    Ok((defs, roots))
}

/// Decodes what [`encode`] wrote.
pub fn decode(bytes: &[u8]) -> Result<(TableDef, TableRoots)> {
    let mut r = Reader(bytes);
    if r.u8()? != VERSION {
        return Err(corrupt("unknown version"));
    }
    let name = r.str()?;
    let n = r.u16()?;
    let columns = (0..n)
        .map(|_| {
            let name = r.str()?;
            let nullable = r.bool()?;
            let ty = read_type(&mut r)?;
            Ok(ColumnDef { name, ty, nullable })
        })
        .collect::<Result<Vec<_>>>()?;
    let primary_key = if r.bool()? {
        Some(read_index(&mut r)?)
    } else {
        None
    };
    let n = r.u16()?;
    let secondary = (0..n)
        .map(|_| read_index(&mut r))
        .collect::<Result<Vec<_>>>()?;
    let auto_increment = match r.u16()? {
        0 => None,
        c => Some(usize::from(c - 1)),
    };
    let space = r.u32()?;
    let clustered = r.u32()?;
    let n = r.u16()?;
    let sec_roots = (0..n).map(|_| r.u32()).collect::<Result<Vec<_>>>()?;
    let (fulltext, auxiliary) = read_fulltext(&mut r)?;
    if !r.0.is_empty() {
        return Err(corrupt("trailing bytes"));
    }
    Ok((
        TableDef {
            name,
            columns,
            primary_key,
            secondary,
            auto_increment,
            fulltext,
        },
        TableRoots {
            space,
            clustered,
            secondary: sec_roots,
            auxiliary,
        },
    ))
}
