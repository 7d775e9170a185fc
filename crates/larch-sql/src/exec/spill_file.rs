//! Rows a statement moves out of memory: written to an unnamed temporary
//! file in `tmpdir` and read back in the order written, once
//! ([`SpillFile::into_reader`]) or by any number of readers, each from the
//! first row ([`SpilledRows`], a derived table read at every scan).
//!
//! The file is created and at once unlinked, so it never outlives the
//! statement (nor a crash of the server): its space is freed when the
//! [`SpillFile`] or its [`SpillReader`] is dropped. Writes and reads are
//! buffered. Failing I/O is MariaDB's error 3 ("Error writing file") or 29
//! ("File not found" for a `tmpdir` that cannot hold files), never a panic.
//!
//! Row encoding (little-endian): `u32` value count, then per value a tag
//! byte and its payload:
//!
//! | tag | value | payload |
//! |---|---|---|
//! | 0 | NULL | none |
//! | 1 / 2 | Int / UInt | 8 bytes |
//! | 3 | Decimal | `u8` negative, `u8` scale, `u32` digit count, one byte per digit |
//! | 4 / 5 | Float / Double | 4 / 8 bytes (IEEE bits) |
//! | 6 / 7 | Bytes / Str | `u32` length, the bytes |
//! | 8 | Date | `u16` year, `u8` month, `u8` day |
//! | 9 | Time | `i64` microseconds |
//! | 10 | Datetime | a Date, `u8` hour, minute, second, `u32` micros |
//! | 11 | Timestamp | `u32` seconds, `u32` micros |
//! | 12 / 13 | Year / Enum | `u16` |
//! | 14 / 15 | Set / Bit | `u64` |

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use larch_engine::record::value::{Date, DateTime, Decimal, Timestamp, Value};

use crate::error::SqlError;

/// Names the files of this process apart (they are unlinked at once, but
/// two statements may create theirs in the same instant).
static NEXT_FILE: AtomicU64 = AtomicU64::new(0);

/// A temporary file rows are appended to.
pub(crate) struct SpillFile {
    out: BufWriter<File>,
    rows: u64,
    /// Scratch for one encoded row.
    buf: Vec<u8>,
}

fn write_error(e: std::io::Error) -> SqlError {
    SqlError::new(
        3,
        format!("Error writing file '(temporary)' (Errcode: {e})"),
    )
}

fn read_error(e: std::io::Error) -> SqlError {
    SqlError::new(
        1030,
        format!("Got error {e} reading a temporary file from storage engine InnoDB"),
    )
}

impl SpillFile {
    /// Creates an empty file in `dir`.
    pub(crate) fn create(dir: &Path) -> Result<SpillFile, SqlError> {
        let n = NEXT_FILE.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("#larch-spill-{}-{n}", std::process::id()));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| {
                SqlError::new(
                    29,
                    format!("File '{}' not found (Errcode: {e})", path.display()),
                )
            })?;
        // The open file stays usable; no name is left behind.
        std::fs::remove_file(&path).map_err(write_error)?;
        Ok(SpillFile {
            out: BufWriter::with_capacity(64 * 1024, file),
            rows: 0,
            buf: Vec::new(),
        })
    }

    /// Appends one row.
    pub(crate) fn write_row(&mut self, row: &[Value]) -> Result<(), SqlError> {
        self.buf.clear();
        encode_row(row, &mut self.buf);
        self.out.write_all(&self.buf).map_err(write_error)?;
        self.rows += 1;
        Ok(())
    }

    /// Rows written so far.
    pub(crate) fn rows(&self) -> u64 {
        self.rows
    }

    /// The rows written, to be read from the first.
    pub(crate) fn into_reader(self) -> Result<SpillReader, SqlError> {
        Ok(self.into_rows()?.reader())
    }

    /// The rows written, to be read from the first as often as wanted.
    pub(crate) fn into_rows(self) -> Result<SpilledRows, SqlError> {
        let file = self
            .out
            .into_inner()
            .map_err(|e| write_error(e.into_error()))?;
        Ok(SpilledRows {
            file: Arc::new(file),
            rows: self.rows,
        })
    }
}

/// The rows of a finished [`SpillFile`]: each [`SpilledRows::reader`]
/// reads them all from the first, apart from any other reader. A clone
/// shares the file.
#[derive(Clone)]
pub(crate) struct SpilledRows {
    file: Arc<File>,
    rows: u64,
}

impl SpilledRows {
    /// How many rows there are.
    pub(crate) fn rows(&self) -> u64 {
        self.rows
    }

    /// A reader at the first row.
    pub(crate) fn reader(&self) -> SpillReader {
        SpillReader {
            input: BufReader::with_capacity(
                64 * 1024,
                FileAt {
                    file: self.file.clone(),
                    at: 0,
                },
            ),
            left: self.rows,
        }
    }
}

/// A shared file read from a position of one's own (positional reads, so
/// readers of one file do not move each other).
struct FileAt {
    file: Arc<File>,
    at: u64,
}

impl Read for FileAt {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read_at(buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// The rows of a [`SpillFile`], in the order written.
pub(crate) struct SpillReader {
    input: BufReader<FileAt>,
    left: u64,
}

impl SpillReader {
    /// The next row (into `row`, replacing its values); false after the
    /// last.
    pub(crate) fn next_row(&mut self, row: &mut Vec<Value>) -> Result<bool, SqlError> {
        if self.left == 0 {
            return Ok(false);
        }
        self.left -= 1;
        row.clear();
        let n = self.u32()?;
        for _ in 0..n {
            let v = self.value()?;
            row.push(v);
        }
        Ok(true)
    }

    fn bytes<const N: usize>(&mut self) -> Result<[u8; N], SqlError> {
        let mut b = [0u8; N];
        self.input.read_exact(&mut b).map_err(read_error)?;
        Ok(b)
    }

    fn u8(&mut self) -> Result<u8, SqlError> {
        Ok(self.bytes::<1>()?[0])
    }

    fn u16(&mut self) -> Result<u16, SqlError> {
        Ok(u16::from_le_bytes(self.bytes()?))
    }

    fn u32(&mut self) -> Result<u32, SqlError> {
        Ok(u32::from_le_bytes(self.bytes()?))
    }

    fn u64(&mut self) -> Result<u64, SqlError> {
        Ok(u64::from_le_bytes(self.bytes()?))
    }

    fn vec(&mut self) -> Result<Vec<u8>, SqlError> {
        let n = self.u32()? as usize;
        let mut v = vec![0u8; n];
        self.input.read_exact(&mut v).map_err(read_error)?;
        Ok(v)
    }

    fn date(&mut self) -> Result<Date, SqlError> {
        Ok(Date {
            year: self.u16()?,
            month: self.u8()?,
            day: self.u8()?,
        })
    }

    fn value(&mut self) -> Result<Value, SqlError> {
        let corrupt = || {
            SqlError::new(
                1030,
                "Got error 'corrupt temporary file' from storage engine InnoDB",
            )
        };
        Ok(match self.u8()? {
            0 => Value::Null,
            1 => Value::Int(self.u64()? as i64),
            2 => Value::UInt(self.u64()?),
            3 => {
                let negative = self.u8()? != 0;
                let scale = self.u8()?;
                let digits = self.vec()?;
                Value::Decimal(
                    Decimal::from_parts(negative, &digits, scale).map_err(|_| corrupt())?,
                )
            }
            4 => Value::Float(f32::from_bits(self.u32()?)),
            5 => Value::Double(f64::from_bits(self.u64()?)),
            6 => Value::Bytes(self.vec()?),
            7 => Value::Str(String::from_utf8(self.vec()?).map_err(|_| corrupt())?),
            8 => Value::Date(self.date()?),
            9 => Value::Time(self.u64()? as i64),
            10 => Value::Datetime(DateTime {
                date: self.date()?,
                hour: self.u8()?,
                minute: self.u8()?,
                second: self.u8()?,
                micros: self.u32()?,
            }),
            11 => Value::Timestamp(Timestamp {
                secs: self.u32()?,
                micros: self.u32()?,
            }),
            12 => Value::Year(self.u16()?),
            13 => Value::Enum(self.u16()?),
            14 => Value::Set(self.u64()?),
            15 => Value::Bit(self.u64()?),
            _ => return Err(corrupt()),
        })
    }
}

fn encode_row(row: &[Value], out: &mut Vec<u8>) {
    out.extend_from_slice(&(row.len() as u32).to_le_bytes());
    for v in row {
        encode_value(v, out);
    }
}

fn encode_date(d: &Date, out: &mut Vec<u8>) {
    out.extend_from_slice(&d.year.to_le_bytes());
    out.push(d.month);
    out.push(d.day);
}

fn encode_bytes(b: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

fn encode_value(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.push(0),
        Value::Int(n) => {
            out.push(1);
            out.extend_from_slice(&n.to_le_bytes());
        }
        Value::UInt(n) => {
            out.push(2);
            out.extend_from_slice(&n.to_le_bytes());
        }
        Value::Decimal(d) => {
            out.push(3);
            out.push(u8::from(d.is_negative()));
            out.push(d.scale());
            encode_bytes(d.coefficient(), out);
        }
        Value::Float(x) => {
            out.push(4);
            out.extend_from_slice(&x.to_bits().to_le_bytes());
        }
        Value::Double(x) => {
            out.push(5);
            out.extend_from_slice(&x.to_bits().to_le_bytes());
        }
        Value::Bytes(b) => {
            out.push(6);
            encode_bytes(b, out);
        }
        Value::Str(s) => {
            out.push(7);
            encode_bytes(s.as_bytes(), out);
        }
        Value::Date(d) => {
            out.push(8);
            encode_date(d, out);
        }
        Value::Time(t) => {
            out.push(9);
            out.extend_from_slice(&t.to_le_bytes());
        }
        Value::Datetime(dt) => {
            out.push(10);
            encode_date(&dt.date, out);
            out.extend_from_slice(&[dt.hour, dt.minute, dt.second]);
            out.extend_from_slice(&dt.micros.to_le_bytes());
        }
        Value::Timestamp(ts) => {
            out.push(11);
            out.extend_from_slice(&ts.secs.to_le_bytes());
            out.extend_from_slice(&ts.micros.to_le_bytes());
        }
        Value::Year(y) => {
            out.push(12);
            out.extend_from_slice(&y.to_le_bytes());
        }
        Value::Enum(e) => {
            out.push(13);
            out.extend_from_slice(&e.to_le_bytes());
        }
        Value::Set(s) => {
            out.push(14);
            out.extend_from_slice(&s.to_le_bytes());
        }
        Value::Bit(b) => {
            out.push(15);
            out.extend_from_slice(&b.to_le_bytes());
        }
    }
}

/// Heap and inline bytes a value takes in memory (for memory accounts).
pub(crate) fn value_bytes(v: &Value) -> usize {
    std::mem::size_of::<Value>()
        + match v {
            Value::Str(s) => s.capacity(),
            Value::Bytes(b) => b.capacity(),
            Value::Decimal(d) => d.coefficient().len(),
            _ => 0,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_come_back_as_written() -> Result<(), SqlError> {
        let rows = vec![
            vec![
                Value::Null,
                Value::Int(-5),
                Value::UInt(u64::MAX),
                Value::Decimal(
                    Decimal::parse("-123.4500").map_err(|e| SqlError::new(1105, e.to_string()))?,
                ),
                Value::Float(1.5),
                Value::Double(-2.25e300),
            ],
            vec![
                Value::Bytes(vec![0, 255, 7]),
                Value::Str("grüße".into()),
                Value::Date(Date {
                    year: 2024,
                    month: 2,
                    day: 29,
                }),
                Value::Time(-3_020_399_000_000),
                Value::Datetime(DateTime {
                    date: Date {
                        year: 1,
                        month: 0,
                        day: 0,
                    },
                    hour: 23,
                    minute: 59,
                    second: 58,
                    micros: 999_999,
                }),
                Value::Timestamp(Timestamp { secs: 7, micros: 1 }),
                Value::Year(2155),
                Value::Enum(3),
                Value::Set(0b101),
                Value::Bit(u64::MAX),
            ],
            Vec::new(),
        ];
        let mut f = SpillFile::create(&std::env::temp_dir())?;
        for r in &rows {
            f.write_row(r)?;
        }
        assert_eq!(f.rows(), 3);
        let mut reader = f.into_reader()?;
        let mut row = Vec::new();
        for r in &rows {
            assert!(reader.next_row(&mut row)?);
            assert_eq!(&row, r);
        }
        assert!(!reader.next_row(&mut row)?);
        Ok(())
    }

    #[test]
    fn a_directory_that_cannot_hold_files_is_an_error() {
        let missing = std::env::temp_dir()
            .join("larch-no-such-directory")
            .join("x");
        match SpillFile::create(&missing) {
            Err(e) => assert_eq!(e.code(), 29),
            Ok(_) => panic!("a file was created in a missing directory"),
        }
    }
}
