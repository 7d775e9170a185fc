//! Target `page`: corrupt pages of a real data directory and check that
//! verification reports them and that nothing reading them panics or
//! serves wrong rows.
//!
//! At start ([`PageTarget::new`]) a data directory with 4 KiB pages gets a
//! table `test.t` of a few dozen pages (a clustered index and a secondary
//! one), the answers of [`QUERIES`] are recorded, the directory is closed
//! cleanly and every file is kept in memory.
//!
//! An input is a list of edits: byte 0 holds flags (bit 0: stamp the
//! checksum again after editing, a page that is corrupt yet passes
//! verification, such as a bug would write; only the `page-stamped`
//! variant of the target honours it, see README.md's open findings), then
//! edits of
//! `[file u8][page u16][offset u16][length u8][bytes]`, the file chosen
//! among [`FILES`], the page and offset taken modulo the file's pages and
//! the page size. Running an input:
//!
//! 1. every edited page image goes through `page::verify`: unless its
//!    checksum was stamped again or the edit changed nothing, it must not be
//!    `Valid`;
//! 2. the directory is written out with the edits and opened through the
//!    SQL layer: opening may fail; if it opens, `Storage::check` must report
//!    a problem when an edited page fails verification (or fail itself),
//!    each query must fail or give exactly the recorded answer (no
//!    stamping: with a stamped checksum, changed data is undetectable by
//!    design), and nothing may panic.

use std::collections::BTreeMap;
use std::path::Path;

use larch_engine::page::{self, PageHeader, PageId, PageSize, PageState};
use larch_sql::database::Database;
use larch_sql::result::QueryResult;
use rand::rngs::StdRng;
use rand::Rng;

use crate::driver::Target;

/// Files whose pages are edited (the table's tablespace most often).
pub const FILES: [&str; 3] = ["test/t.ibd", "test/t.ibd", "ibdata1"];

/// The queries whose answers must never change silently.
pub const QUERIES: [&str; 4] = [
    "SELECT id, a, b FROM t ORDER BY id",
    "SELECT COUNT(*), SUM(b) FROM t FORCE INDEX (b) WHERE b >= 0",
    "SELECT a FROM t WHERE id BETWEEN 700 AND 720",
    "SELECT id FROM t ORDER BY b DESC, id LIMIT 5",
];

const PAGE_SIZE: PageSize = PageSize::K4;

/// Flag of byte 0: stamp the checksum of edited pages again.
const RESTAMP: u8 = 1;

/// See the module documentation.
pub struct PageTarget {
    /// Whether the stamping flag is honoured (`page-stamped`).
    stamped: bool,
    /// Every file of the clean directory, by path relative to it.
    files: BTreeMap<String, Vec<u8>>,
    /// The answer of each of [`QUERIES`].
    answers: Vec<QueryResult>,
}

/// Every file under `dir`, by relative path.
fn read_tree(dir: &Path, base: &Path, out: &mut BTreeMap<String, Vec<u8>>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            read_tree(&path, base, out)?;
        } else if let Ok(rel) = path.strip_prefix(base) {
            out.insert(rel.to_string_lossy().into_owned(), std::fs::read(&path)?);
        }
    }
    Ok(())
}

fn open(dir: &Path) -> Result<std::sync::Arc<Database>, larch_sql::error::SqlError> {
    let mut config = super::sql::fuzz_config(dir);
    config.page_size = Some(PAGE_SIZE);
    config.log_file_size = 2 << 20;
    config.buffer_pool_size = 8 << 20;
    Database::open(config)
}

/// One edit of an input.
struct Edit<'a> {
    file: &'static str,
    page: usize,
    offset: usize,
    bytes: &'a [u8],
}

fn parse_edits(body: &[u8]) -> Vec<Edit<'_>> {
    let mut edits = Vec::new();
    let mut rest = body;
    while let [file, p0, p1, o0, o1, len, tail @ ..] = rest {
        let n = usize::from(*len).min(tail.len());
        edits.push(Edit {
            file: FILES[usize::from(*file) % FILES.len()],
            page: usize::from(u16::from_le_bytes([*p0, *p1])),
            offset: usize::from(u16::from_le_bytes([*o0, *o1])),
            bytes: &tail[..n],
        });
        rest = &tail[n..];
    }
    edits
}

impl PageTarget {
    /// Builds the clean directory and records the answers; `stamped`
    /// honours the stamping flag of inputs.
    pub fn new(stamped: bool) -> Result<PageTarget, crate::Error> {
        let dir = super::sql::temp_dir()?;
        let db = open(dir.path())?;
        let mut s = db.new_session(0, "root", "localhost")?;
        s.use_database("test")?;
        s.execute("CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(100), b INT, KEY (b))")?;
        for chunk in 0..15 {
            let rows: Vec<String> = (0..100)
                .map(|i| {
                    let id = chunk * 100 + i;
                    format!(
                        "({id}, '{}', {})",
                        "v".repeat(id % 90) + &id.to_string(),
                        (id * 37) % 1000
                    )
                })
                .collect();
            s.execute(&format!("INSERT INTO t VALUES {}", rows.join(",")))?;
        }
        let mut answers = Vec::new();
        for q in QUERIES {
            answers.push(s.execute(q)?);
        }
        drop(s);
        db.close()?;
        drop(db);
        let mut files = BTreeMap::new();
        read_tree(dir.path(), dir.path(), &mut files)?;
        for f in FILES {
            if !files.contains_key(f) {
                return Err(format!("the clean directory has no {f}").into());
            }
        }
        Ok(PageTarget {
            stamped,
            files,
            answers,
        })
    }

    /// Whether `input` asks for stamped checksums (and may have them).
    fn restamp(&self, input: &[u8]) -> bool {
        self.stamped && input.first().is_some_and(|f| f & RESTAMP != 0)
    }

    /// Applies the edits to copies of the files; returns the edited files
    /// and, per edited page, (file, page number) for the checks.
    #[allow(clippy::type_complexity)]
    fn apply(&self, input: &[u8]) -> (BTreeMap<&'static str, Vec<u8>>, Vec<(&'static str, usize)>) {
        let restamp = self.restamp(input);
        let ps = PAGE_SIZE.bytes();
        let mut edited: BTreeMap<&'static str, Vec<u8>> = BTreeMap::new();
        let mut pages = Vec::new();
        for e in parse_edits(input.get(1..).unwrap_or_default()) {
            let Some(clean) = self.files.get(e.file) else {
                continue;
            };
            let data = edited.entry(e.file).or_insert_with(|| clean.clone());
            let n_pages = data.len() / ps;
            if n_pages == 0 {
                continue;
            }
            let page = e.page % n_pages;
            let image = &mut data[page * ps..(page + 1) * ps];
            for (k, &b) in e.bytes.iter().enumerate() {
                image[(e.offset + k) % ps] = b;
            }
            if restamp {
                page::stamp_checksum(image);
            }
            if !pages.contains(&(e.file, page)) {
                pages.push((e.file, page));
            }
        }
        (edited, pages)
    }
}

impl Target for PageTarget {
    fn name(&self) -> &'static str {
        if self.stamped {
            "page-stamped"
        } else {
            "page"
        }
    }

    fn save_before_run(&self) -> bool {
        true
    }

    fn seeds(&mut self) -> Vec<Vec<u8>> {
        // One byte in the body of page 3, a header field, a trailer, and a
        // stamped change of a node's entry count.
        vec![
            vec![0, 0, 3, 0, 0, 8, 1, 0xaa],
            vec![0, 0, 4, 0, 24, 0, 2, 0xff, 0xff],
            vec![0, 1, 5, 0, 0xf8, 0x0f, 4, 1, 2, 3, 4],
            vec![RESTAMP, 0, 3, 0, 42, 0, 2, 0xff, 0x7f],
        ]
    }

    fn generate(&mut self, rng: &mut StdRng) -> Vec<u8> {
        let mut v = vec![u8::from(self.stamped && rng.random_bool(0.5))];
        for _ in 0..rng.random_range(1..=3) {
            v.push(rng.random_range(0..FILES.len() as u8));
            v.extend_from_slice(&rng.random_range(0u16..80).to_le_bytes());
            let offset: u16 = if rng.random_bool(0.5) {
                rng.random_range(0..128)
            } else {
                rng.random_range(0..PAGE_SIZE.bytes() as u16)
            };
            v.extend_from_slice(&offset.to_le_bytes());
            let n = rng.random_range(1..=8u8);
            v.push(n);
            v.extend((0..n).map(|_| rng.random::<u8>()));
        }
        v
    }

    fn run(&mut self, input: &[u8]) -> Result<(), String> {
        let restamp = self.restamp(input);
        let (edited, pages) = self.apply(input);
        let ps = PAGE_SIZE.bytes();
        // Whether some page fails verification (and `check` must say so).
        let mut damaged = false;
        for &(file, page) in &pages {
            let (Some(clean), Some(data)) = (self.files.get(file), edited.get(file)) else {
                continue;
            };
            let space = PageHeader(&clean[..ps]).space_id();
            let id = PageId::new(space, page as u32);
            let before = &clean[page * ps..(page + 1) * ps];
            let after = &data[page * ps..(page + 1) * ps];
            let state = page::verify(after, id);
            if !restamp && after != before {
                damaged = true;
                if state == PageState::Valid {
                    return Err(format!(
                        "{file} page {page}: a changed page verifies as valid"
                    ));
                }
            }
        }
        let dir = super::sql::temp_dir().map_err(|e| format!("no temporary directory: {e}"))?;
        for (name, clean) in &self.files {
            let bytes = edited.get(name.as_str()).unwrap_or(clean);
            let path = dir.path().join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            }
            std::fs::write(&path, bytes).map_err(|e| format!("write {name}: {e}"))?;
        }
        let Ok(db) = open(dir.path()) else {
            return Ok(());
        };
        let verdict = self.check_open(&db, restamp, damaged);
        let _ = db.close();
        verdict
    }
}

impl PageTarget {
    /// The checks on an opened directory (see the module documentation).
    fn check_open(
        &self,
        db: &std::sync::Arc<Database>,
        restamp: bool,
        damaged: bool,
    ) -> Result<(), String> {
        if let Ok(report) = db.storage().check() {
            if damaged && report.is_clean() {
                return Err("`check` reports no problem in a directory with a corrupt page".into());
            }
        }
        let Ok(mut s) = db.new_session(0, "root", "localhost") else {
            return Ok(());
        };
        if s.use_database("test").is_err() {
            return Ok(());
        }
        for (q, answer) in QUERIES.iter().zip(&self.answers) {
            if let Ok(got) = s.execute(q) {
                if !restamp && &got != answer {
                    return Err(format!(
                        "`{q}` answered differently from a corrupt directory"
                    ));
                }
            }
        }
        let _ = s.execute("CHECK TABLE t");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_corrupt_page_is_reported_and_a_clean_directory_answers() -> Result<(), crate::Error> {
        let mut t = PageTarget::new(false)?;
        // No edits: the directory opens and every answer is the recorded one.
        assert_eq!(crate::driver::run_one(&mut t, &[0]), Ok(()));
        // A changed byte in a page of the table: verify must catch it.
        let (edited, pages) = t.apply(&[0, 0, 3, 0, 100, 0, 1, 0x5a]);
        assert_eq!(pages, vec![("test/t.ibd", 3)]);
        let data = edited.get("test/t.ibd").ok_or("not edited")?;
        let ps = PAGE_SIZE.bytes();
        let space = PageHeader(&data[..ps]).space_id();
        let state = page::verify(&data[3 * ps..4 * ps], PageId::new(space, 3));
        assert!(matches!(state, PageState::Corrupt(_)), "{state:?}");
        for seed in t.seeds() {
            assert_eq!(crate::driver::run_one(&mut t, &seed), Ok(()));
        }
        Ok(())
    }
}
