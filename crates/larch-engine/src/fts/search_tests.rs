//! Tests of [`super::search`]: MariaDB 10.11's results for the same table
//! and queries (ids and printed relevance, in MariaDB's row order), and a
//! property check of boolean set semantics against a brute-force model.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::*;
use crate::fts::cache::IndexCache;
use crate::fts::ranking::format_relevance;
use crate::fts::test_support::Rng;

/// An index over in-memory documents: an [`IndexCache`] plus the rows.
struct MemIndex {
    cache: IndexCache,
    docs: HashMap<u64, Vec<Option<Vec<u8>>>>,
    deleted: HashSet<u64>,
}

impl MemIndex {
    fn new(
        rows: &[Vec<Option<&str>>],
        collation: Collation,
        limits: TokenSizeLimits,
        stopwords: &StopwordSet,
    ) -> Self {
        let mut cache = IndexCache::new(collation);
        let mut docs = HashMap::new();
        for (i, row) in rows.iter().enumerate() {
            let doc_id = i as u64 + 1;
            let cols: Vec<Option<&[u8]>> = row.iter().map(|c| c.map(str::as_bytes)).collect();
            let tokens = tokenize_columns(&cols, collation, limits);
            cache.add_doc(doc_id, &tokens, stopwords).expect("add");
            docs.insert(
                doc_id,
                row.iter()
                    .map(|c| c.map(|s| s.as_bytes().to_vec()))
                    .collect(),
            );
        }
        MemIndex {
            cache,
            docs,
            deleted: HashSet::new(),
        }
    }

    fn delete(&mut self, doc_id: u64) {
        self.cache.delete_doc(doc_id);
        self.deleted.insert(doc_id);
        self.docs.remove(&doc_id);
    }
}

impl IndexReader for MemIndex {
    fn postings(&self, word: &str) -> Result<Vec<DocEntry>> {
        self.cache.postings(word)
    }
    fn prefix_postings(&self, prefix: &str) -> Result<Vec<(String, Vec<DocEntry>)>> {
        self.cache.prefix_postings(prefix)
    }
    fn is_deleted(&self, doc_id: u64) -> Result<bool> {
        Ok(self.deleted.contains(&doc_id))
    }
    fn total_docs(&self) -> u64 {
        self.docs.len() as u64
    }
    fn document(&self, doc_id: u64) -> Result<Option<Vec<Option<Vec<u8>>>>> {
        Ok(self.docs.get(&doc_id).cloned())
    }
}

/// Runs `query` and prints the result as MariaDB's client does for
/// `SELECT id, MATCH(..) AGAINST(..) FROM t WHERE MATCH(..) AGAINST(..)`.
fn run(index: &MemIndex, mode: &str, query: &str) -> String {
    let stopwords = StopwordSet::default_list();
    let settings = SearchSettings {
        collation: Collation::Utf8mb4GeneralCi,
        limits: TokenSizeLimits::default(),
        stopwords: &stopwords,
        query_expansion: mode == "qe",
    };
    let mode = if mode == "bool" {
        SearchMode::Boolean
    } else {
        SearchMode::NaturalLanguage
    };
    match search(index, query.as_bytes(), mode, &settings) {
        Ok(r) => r
            .by_rank()
            .into_iter()
            .map(|(d, rank)| format!("{d}:{} ", format_relevance(rank)))
            .collect(),
        Err(e) => format!("error: {e}"),
    }
}

/// The table of the MariaDB comparison: utf8mb4_general_ci, FULLTEXT(title,
/// body), default stopwords and token sizes; row 15 deleted after an
/// OPTIMIZE TABLE had synced the index, so it stays in the postings.
fn articles() -> MemIndex {
    let rows: Vec<Vec<Option<&str>>> = ARTICLES.iter().map(|(t, b)| vec![*t, Some(*b)]).collect();
    let stopwords = StopwordSet::default_list();
    let mut index = MemIndex::new(
        &rows,
        Collation::Utf8mb4GeneralCi,
        TokenSizeLimits::default(),
        &stopwords,
    );
    index.delete(15);
    index
}

const ARTICLES: [(Option<&str>, &str); 15] = [
    (Some("MySQL Tutorial"), "DBMS stands for DataBase ..."),
    (
        Some("How To Use MySQL Well"),
        "After you went through a ...",
    ),
    (
        Some("Optimizing MySQL"),
        "In this tutorial we will show ...",
    ),
    (
        Some("1001 MySQL Tricks"),
        "1. Never run mysqld as root. 2. ...",
    ),
    (
        Some("MySQL vs. YourSQL"),
        "In the following database comparison ...",
    ),
    (
        Some("MySQL Security"),
        "When configured properly, MySQL ...",
    ),
    (
        Some("Database tutorial"),
        "database design and database tuning for databases",
    ),
    (
        Some("Data structures"),
        "data data data and the database of records",
    ),
    (
        Some("Security of data"),
        "secure your database: security tips for the careful DBA",
    ),
    (
        Some("Full text search"),
        "search the text with full text search in a database table",
    ),
    (
        Some("Proximity test"),
        "alpha beta gamma delta alpha x y z beta",
    ),
    (
        Some("Phrase test"),
        "the quick brown fox jumps over the lazy dog",
    ),
    (Some("Phrase two"), "quick brown the fox, brown fox quick"),
    (None, "lonely body with fox and tutorial"),
    (Some("deleted row"), "database tutorial security fox"),
];

/// (mode, query, MariaDB 10.11.19's rows as `id:relevance `).
const MARIADB: &[(&str, &str, &str)] = &[
    ("nl", "database", "7:0.4062207341194153 1:0.13540691137313843 5:0.13540691137313843 8:0.13540691137313843 9:0.13540691137313843 10:0.13540691137313843 "),
    ("nl", "Database", "7:0.4062207341194153 1:0.13540691137313843 5:0.13540691137313843 8:0.13540691137313843 9:0.13540691137313843 10:0.13540691137313843 "),
    ("nl", "database database", "7:0.000000005657784907242558 1:0.000000001885928302414186 5:0.000000001885928302414186 8:0.000000001885928302414186 9:0.000000001885928302414186 10:0.000000001885928302414186 "),
    ("nl", "database security", "9:0.9857592582702637 6:0.4475700855255127 7:0.2718571722507477 1:0.0906190574169159 5:0.0906190574169159 8:0.0906190574169159 10:0.0906190574169159 "),
    ("nl", "the database", "7:0.2718571722507477 1:0.0906190574169159 5:0.0906190574169159 8:0.0906190574169159 9:0.0906190574169159 10:0.0906190574169159 "),
    ("nl", "mysql", "6:0.27081382274627686 1:0.13540691137313843 2:0.13540691137313843 3:0.13540691137313843 4:0.13540691137313843 5:0.13540691137313843 "),
    ("nl", "tutorial fox", "13:0.5920200943946838 14:0.4959603548049927 12:0.2960100471973419 1:0.19995030760765076 3:0.19995030760765076 7:0.19995030760765076 "),
    ("nl", "nosuchword", ""),
    ("nl", "a", ""),
    ("nl", "data*", "8:2.8567628860473633 9:0.7141907215118408 "),
    ("nl", "datab*", ""),
    ("nl", "\"quick brown\"", "13:2.8567628860473633 12:1.4283814430236816 "),
    ("nl", "\"brown fox\" tutorial", "13:2.0204014778137207 12:1.0102007389068604 1:0.19995030760765076 3:0.19995030760765076 7:0.19995030760765076 14:0.19995030760765076 "),
    ("nl", "database tutorial security fox", "9:0.9857592582702637 13:0.5920200943946838 14:0.4959603548049927 7:0.47180747985839844 6:0.4475700855255127 12:0.2960100471973419 1:0.29056936502456665 3:0.19995030760765076 5:0.0906190574169159 8:0.0906190574169159 10:0.0906190574169159 "),
    ("bool", "database", "7:0.4062207341194153 1:0.13540691137313843 5:0.13540691137313843 8:0.13540691137313843 9:0.13540691137313843 10:0.13540691137313843 "),
    ("bool", "+database", "7:0.2718571722507477 1:0.0906190574169159 5:0.0906190574169159 8:0.0906190574169159 9:0.0906190574169159 10:0.0906190574169159 "),
    ("bool", "-database", ""),
    ("bool", "+database -security", "7:0.2718571722507477 1:0.0906190574169159 5:0.0906190574169159 8:0.0906190574169159 10:0.0906190574169159 "),
    ("bool", "database -security", "7:0.2718571722507477 1:0.0906190574169159 5:0.0906190574169159 8:0.0906190574169159 10:0.0906190574169159 "),
    ("bool", "database +security", "9:0.9857592582702637 6:0.4475700855255127 "),
    ("bool", "+database +security", "9:0.9857592582702637 "),
    ("bool", "+database security", "9:0.9857592582702637 7:0.2718571722507477 1:0.0906190574169159 5:0.0906190574169159 8:0.0906190574169159 10:0.0906190574169159 "),
    ("bool", ">database <security", "7:1.2718571424484253 1:1.0906190872192383 5:1.0906190872192383 8:1.0906190872192383 10:1.0906190872192383 9:0.9857592582702637 6:-0.5524299144744873 "),
    ("bool", "database ~security", "7:0.2718571722507477 1:0.0906190574169159 5:0.0906190574169159 8:0.0906190574169159 10:0.0906190574169159 9:-0.014240741729736328 "),
    ("bool", "~security", ""),
    ("bool", "~security database", "7:0.2718571722507477 1:0.0906190574169159 5:0.0906190574169159 8:0.0906190574169159 9:0.0906190574169159 10:0.0906190574169159 "),
    ("bool", "<database", "7:-0.7281428575515747 1:-0.9093809127807617 5:-0.9093809127807617 8:-0.9093809127807617 9:-0.9093809127807617 10:-0.9093809127807617 "),
    ("bool", ">database", "7:1.2718571424484253 1:1.0906190872192383 5:1.0906190872192383 8:1.0906190872192383 9:1.0906190872192383 10:1.0906190872192383 "),
    ("bool", ">database >security", "9:1.9857592582702637 6:1.4475700855255127 7:1.2718571424484253 1:1.0906190872192383 5:1.0906190872192383 8:1.0906190872192383 10:1.0906190872192383 "),
    ("bool", "+mysql +(tutorial security)", "6:0.7183839082717896 1:0.3353572189807892 3:0.3353572189807892 "),
    ("bool", "+mysql -(tutorial security)", "2:0.13540691137313843 4:0.13540691137313843 5:0.13540691137313843 "),
    ("bool", "mysql (tutorial security)", "9:0.8951401710510254 6:0.7183839082717896 1:0.3353572189807892 3:0.3353572189807892 7:0.19995030760765076 14:0.19995030760765076 2:0.13540691137313843 4:0.13540691137313843 5:0.13540691137313843 "),
    ("bool", "+mysql >(tutorial security)", "9:1.8951401710510254 6:1.7183839082717896 1:1.3353573083877563 3:1.3353573083877563 7:1.1999503374099731 14:1.1999503374099731 2:0.13540691137313843 4:0.13540691137313843 5:0.13540691137313843 "),
    ("bool", "+mysql <(tutorial security)", "2:0.13540691137313843 4:0.13540691137313843 5:0.13540691137313843 9:-0.10485982894897461 6:-0.28161609172821045 1:-0.6646428108215332 3:-0.6646428108215332 7:-0.8000496625900269 14:-0.8000496625900269 "),
    ("bool", "+mysql ~(tutorial security)", "2:0.13540691137313843 4:0.13540691137313843 5:0.13540691137313843 6:-0.28161609172821045 1:-0.6646428108215332 3:-0.6646428108215332 "),
    ("bool", "(+database +tutorial) fox", "13:0.5920200943946838 7:0.47180747985839844 12:0.2960100471973419 14:0.2960100471973419 1:0.29056936502456665 "),
    ("bool", "+database (+tutorial fox)", "14:0.4959603548049927 7:0.47180747985839844 1:0.29056936502456665 3:0.19995030760765076 5:0.0906190574169159 8:0.0906190574169159 9:0.0906190574169159 10:0.0906190574169159 "),
    ("bool", "+fox database (tutorial security)", "9:0.8951401710510254 13:0.5920200943946838 14:0.4959603548049927 6:0.4475700855255127 12:0.2960100471973419 1:0.19995030760765076 3:0.19995030760765076 7:0.19995030760765076 "),
    ("bool", "database (tutorial security) +fox", "13:0.5920200943946838 14:0.4959603548049927 12:0.2960100471973419 "),
    ("bool", "+(database tutorial) +(fox security)", "9:0.9857592582702637 14:0.4959603548049927 "),
    ("bool", "+(+database -tutorial) fox", "5:0.0906190574169159 8:0.0906190574169159 9:0.0906190574169159 10:0.0906190574169159 "),
    ("bool", "-(database) fox", "13:0.5920200943946838 12:0.2960100471973419 14:0.2960100471973419 "),
    ("bool", "((database)) tutorial", "7:0.47180747985839844 1:0.29056936502456665 3:0.19995030760765076 14:0.19995030760765076 5:0.0906190574169159 8:0.0906190574169159 9:0.0906190574169159 10:0.0906190574169159 "),
    ("bool", "(((fox)))", "13:0.5920200943946838 12:0.2960100471973419 14:0.2960100471973419 "),
    ("bool", "data*", "8:0.14728021621704102 7:0.11046016216278076 1:0.036820054054260254 5:0.036820054054260254 9:0.036820054054260254 10:0.036820054054260254 "),
    ("bool", "datab*", "7:0.2718571722507477 1:0.0906190574169159 5:0.0906190574169159 8:0.0906190574169159 9:0.0906190574169159 10:0.0906190574169159 "),
    ("bool", "+data* -database", ""),
    ("bool", "d*", "8:0.0035911789163947105 7:0.002693384187296033 1:0.0008977947290986776 5:0.0008977947290986776 9:0.0008977947290986776 10:0.0008977947290986776 11:0.0008977947290986776 12:0.0008977947290986776 "),
    ("bool", "s*", "10:0.2718571722507477 1:0.0906190574169159 3:0.0906190574169159 6:0.0906190574169159 8:0.0906190574169159 9:0.0906190574169159 "),
    ("bool", "data* database", "7:0.3359173834323883 8:0.1760326623916626 1:0.11197245866060257 5:0.11197245866060257 9:0.11197245866060257 10:0.11197245866060257 "),
    ("bool", "+secur* +data*", "9:0.317363440990448 "),
    ("bool", "\"quick brown\"", "13:2.8567628860473633 12:1.4283814430236816 "),
    ("bool", "\"brown fox\"", "13:2.0204014778137207 12:1.0102007389068604 "),
    ("bool", "\"fox quick\"", "13:2.0204014778137207 "),
    ("bool", "\"the quick\"", "13:1.4283814430236816 12:0.7141907215118408 "),
    ("bool", "\"the lazy dog\"", "12:2.6272189617156982 "),
    ("bool", "\"quick the fox\"", ""),
    ("bool", "\"brown the fox\"", "13:2.0204014778137207 "),
    ("bool", "+\"brown fox\" -quick", ""),
    ("bool", "\"alpha beta\"@2", "11:5.2544379234313965 "),
    ("bool", "\"alpha beta\"@3", "11:5.2544379234313965 "),
    ("bool", "\"alpha beta\"@1", ""),
    ("bool", "\"alpha beta\"@0", "11:5.2544379234313965 "),
    ("bool", "\"alpha z\"@3", "11:2.6272189617156982 "),
    ("bool", "\"alpha z\"@4", "11:2.6272189617156982 "),
    ("bool", "\"beta alpha\"@2", "11:5.2544379234313965 "),
    ("bool", "\"alpha gamma delta\"@3", "11:5.2544379234313965 "),
    ("bool", "\"quick fox\"@3", "13:2.0204014778137207 12:1.0102007389068604 "),
    ("bool", "\"quick fox\"@2", "13:2.0204014778137207 "),
    ("bool", "\"fox tutorial\"@5", "14:0.4959603548049927 "),
    ("bool", "\"database tutorial\"@3", "7:0.47180747985839844 "),
    ("bool", "\"the\"", ""),
    ("bool", "+\"the\" database", ""),
    ("bool", "\"database\" fox", "13:0.5920200943946838 12:0.2960100471973419 14:0.2960100471973419 7:0.2718571722507477 1:0.0906190574169159 5:0.0906190574169159 8:0.0906190574169159 9:0.0906190574169159 10:0.0906190574169159 "),
    ("bool", "+\"tutorial\" -fox", "1:0.19995030760765076 3:0.19995030760765076 7:0.19995030760765076 "),
    ("bool", "mysql* tutorial*", "1:0.29056936502456665 3:0.29056936502456665 7:0.19995030760765076 14:0.19995030760765076 6:0.1812381148338318 2:0.0906190574169159 4:0.0906190574169159 5:0.0906190574169159 "),
    ("bool", "\"database of records\"", "8:1.4042285680770874 "),
    ("bool", "\"data the database\"", ""),
    ("bool", "\"data data\"", "8:1.1840401887893677 "),
    ("bool", "\"full text search\"", "10:10.508875846862793 "),
    ("bool", "\"text search\"", "10:7.881656646728516 "),
    ("bool", "\"for databases\"", "7:1.3136094808578491 "),
    ("bool", "+dbms", "1:1.3136094808578491 "),
    ("bool", "a* ", "11:0.3999006152153015 2:0.19995030760765076 7:0.19995030760765076 8:0.19995030760765076 14:0.19995030760765076 "),
    ("bool", "\"lonely body\"", "14:2.6272189617156982 "),
    ("bool", "\"body with fox\"", "14:1.6096194982528687 "),
    ("bool", "\"with fox\"", "13:0.5920200943946838 12:0.2960100471973419 14:0.2960100471973419 "),
    ("bool", "\"mysql well\"", "2:1.4490163326263428 "),
    ("bool", "\"tutorial database\"", ""),
    ("bool", "\"database tutorial\"", "7:0.47180747985839844 "),
    ("qe", "database", "10:11.913105010986328 9:8.267997741699219 8:6.0221710205078125 7:4.860206127166748 5:4.166854381561279 1:3.053194999694824 6:0.7183839082717896 14:0.6475204229354858 3:0.3353572189807892 2:0.13540691137313843 4:0.13540691137313843 "),
    ("qe", "fox", "12:8.407210350036621 13:5.476583003997803 14:3.570749282836914 11:0.7141907215118408 7:0.6475204229354858 8:0.4475700855255127 1:0.19995030760765076 3:0.19995030760765076 "),
    ("qe", "lonely", "14:3.570749282836914 7:0.6475204229354858 13:0.5920200943946838 8:0.4475700855255127 12:0.2960100471973419 1:0.19995030760765076 3:0.19995030760765076 "),
    ("qe", "\"lazy dog\"", "12:8.407210350036621 13:4.162973403930664 11:0.7141907215118408 14:0.2960100471973419 "),
    ("qe", "nosuchword", ""),
    ("qe", "tutorial security", "9:8.267997741699219 7:4.860206127166748 14:3.570749282836914 8:3.3949520587921143 6:3.3456029891967773 1:3.0531954765319824 3:2.962576150894165 13:0.5920200943946838 12:0.2960100471973419 5:0.22602596879005432 2:0.13540691137313843 4:0.13540691137313843 10:0.0906190574169159 "),
    ("qe", "data*", "9:8.267997741699219 8:6.0221710205078125 7:0.719427227973938 6:0.4475700855255127 14:0.4475700855255127 1:0.0906190574169159 5:0.0906190574169159 10:0.0906190574169159 "),
    ("qe", "quick fox", "12:8.407211303710938 13:5.476583003997803 14:3.570749282836914 11:0.7141907215118408 7:0.6475204229354858 8:0.4475700855255127 1:0.19995030760765076 3:0.19995030760765076 "),
    ("bool", "+database +fox +\"brown fox\"", ""),
    ("bool", "+tutorial +database +\"database tutorial\"", "7:0.021353408694267273 "),
    ("nl", "database security database", "9:0.8951401710510254 6:0.4475700855255127 7:0.000000005657784907242558 1:0.000000001885928302414186 5:0.000000001885928302414186 8:0.000000001885928302414186 10:0.000000001885928302414186 "),
    ("bool", "mysql.tutorial", "1:0.3353572189807892 3:0.3353572189807892 6:0.27081382274627686 7:0.19995030760765076 14:0.19995030760765076 2:0.13540691137313843 4:0.13540691137313843 5:0.13540691137313843 "),
    ("bool", "+mysql.tutorial", "1:0.3353572189807892 3:0.3353572189807892 "),
    ("bool", "-mysql.tutorial fox", "13:0.5920200943946838 12:0.2960100471973419 14:0.2960100471973419 "),
    ("bool", "+data.base", ""),
    ("bool", "fox +(+database -(security tips)) ", "7:0.2718571722507477 1:0.0906190574169159 5:0.0906190574169159 8:0.0906190574169159 10:0.0906190574169159 "),
    ("bool", "+(fox brown) -(quick lazy)", "14:0.2960100471973419 "),
    ("bool", "(>database <security) fox", "7:1.2718571424484253 1:1.0906190872192383 5:1.0906190872192383 8:1.0906190872192383 10:1.0906190872192383 9:0.9857592582702637 13:0.5920200943946838 12:0.2960100471973419 14:0.2960100471973419 6:-0.5524299144744873 "),
    ("bool", "+(>database <security) +fox", ""),
    ("bool", "~(database security) fox", "13:0.5920200943946838 12:0.2960100471973419 14:0.2960100471973419 "),
    ("bool", "+fox ~(brown quick)", "13:2.4487829208374023 12:0.7243914604187012 14:0.2960100471973419 "),
    ("bool", "(fox) (tutorial) (security) +database", "9:0.9857592582702637 7:0.47180747985839844 1:0.29056936502456665 5:0.0906190574169159 8:0.0906190574169159 10:0.0906190574169159 "),
    ("bool", "+database (fox) (tutorial) (security)", "9:0.9857592582702637 13:0.5920200943946838 14:0.4959603548049927 7:0.47180747985839844 6:0.4475700855255127 12:0.2960100471973419 1:0.29056936502456665 3:0.19995030760765076 5:0.0906190574169159 8:0.0906190574169159 10:0.0906190574169159 "),
    ("bool", "database +(tutorial) -(security) (fox)", "13:0.5920200943946838 14:0.4959603548049927 7:0.47180747985839844 12:0.2960100471973419 1:0.29056936502456665 3:0.19995030760765076 "),
    ("bool", "<(tutorial fox) >database", "5:1.0906190872192383 8:1.0906190872192383 9:1.0906190872192383 10:1.0906190872192383 7:0.47180747985839844 1:0.29056936502456665 13:-0.40797990560531616 14:-0.5040396451950073 12:-0.7039899826049805 3:-0.8000496625900269 "),
    ("bool", "+tut* +data* +mysql", "1:0.35671061277389526 "),
    ("bool", "+mysql +tut* +data*", "1:0.35671061277389526 "),
    ("bool", "+dog +database +tut*", ""),
    ("bool", "+\"quick brown\" +\"brown fox\"", "13:2.6124215126037598 12:1.3062107563018799 "),
    ("bool", "\"quick brown\" -\"lazy dog\"", "13:2.8567628860473633 "),
    ("bool", "\"quick brown\"@5 fox", "13:3.4487829208374023 12:1.7243914604187012 14:0.2960100471973419 "),
    ("bool", "\"lonely body\"@2", "14:2.6272189617156982 "),
    ("bool", "\"fox quick\"@3", "13:2.0204014778137207 12:1.0102007389068604 "),
    ("bool", "\"x y z\"", ""),
    ("bool", "\"alpha alpha\"@5", "11:1.4283814430236816 "),
    ("bool", "\"alpha delta\"@3", "11:3.940828323364258 "),
    ("bool", "\"alpha delta\"@4", "11:3.940828323364258 "),
    ("bool", "\"z beta alpha\"@9", "11:5.2544379234313965 "),
    ("bool", ">\"quick brown\" <fox", "13:3.4487829208374023 12:1.7243914604187012 14:-0.7039899826049805 "),
    ("bool", "-\"brown fox\" fox", "14:0.0590674914419651 "),
    ("bool", "\"secure your database\"", "9:2.7178380489349365 "),
    ("bool", "\"your database security\"", "9:2.2993688583374023 "),
    ("bool", "\"tips for the careful\"", "9:2.6272189617156982 "),
    ("bool", "\"careful dba\"", "9:2.6272189617156982 "),
    ("bool", "\"in a database\"", "7:0.2718571722507477 1:0.0906190574169159 5:0.0906190574169159 8:0.0906190574169159 9:0.0906190574169159 10:0.0906190574169159 "),
    ("bool", "\"a database table\"", "10:1.4042285680770874 "),
    ("bool", "\"DataBase ...\"", "7:0.2718571722507477 1:0.0906190574169159 5:0.0906190574169159 8:0.0906190574169159 9:0.0906190574169159 10:0.0906190574169159 "),
    ("bool", "\"1001 mysql\"", "4:1.4490163326263428 "),
    ("bool", "\"mysql vs yoursql\"", "5:1.4490163326263428 "),
    ("bool", "\"vs yoursql\"", "5:1.3136094808578491 "),
    ("bool", "+\"database\" +\"tutorial\"", "7:0.47180747985839844 1:0.29056936502456665 "),
    ("bool", "\"run mysqld as root\"", "4:3.940828323364258 "),
    ("bool", "\"mysqld as root\"", "4:2.6272189617156982 "),
    ("bool", "\"never run\"", "4:2.6272189617156982 "),
    ("nl", "\"database tutorial\" fox", "13:0.5920200943946838 7:0.47180747985839844 12:0.2960100471973419 14:0.2960100471973419 "),
    ("nl", "\"quick brown\" \"lazy dog\"", "12:4.055600643157959 13:2.8567628860473633 "),
    ("nl", "mysql tutorial database fox security", "9:0.9857592582702637 6:0.7183839082717896 13:0.5920200943946838 14:0.4959603548049927 7:0.47180747985839844 1:0.4259762763977051 3:0.3353572189807892 12:0.2960100471973419 5:0.22602596879005432 2:0.13540691137313843 4:0.13540691137313843 8:0.0906190574169159 10:0.0906190574169159 "),
    ("bool", "+d* +s*", "10:0.18056555092334747 8:0.07251975685358047 1:0.06243055686354637 9:0.06243055686354637 "),
    ("bool", "mysql* -my*", ""),
    ("bool", "struct* record*", "8:2.6272189617156982 "),
    ("bool", "+structures -data", ""),
    ("bool", "~mysql", ""),
    ("bool", "mysql ~mysql", "6:-0.9910362362861633 1:-0.995518147945404 2:-0.995518147945404 3:-0.995518147945404 4:-0.995518147945404 5:-0.995518147945404 "),
    ("bool", "mysql >mysql", "6:1.008963704109192 1:1.0044819116592407 2:1.0044819116592407 3:1.0044819116592407 4:1.0044819116592407 5:1.0044819116592407 "),
    ("bool", "mysql <mysql", "6:-0.9910362362861633 1:-0.995518147945404 2:-0.995518147945404 3:-0.995518147945404 4:-0.995518147945404 5:-0.995518147945404 "),
    ("bool", ">mysql <mysql", "6:0.008963745087385178 1:0.004481872543692589 2:0.004481872543692589 3:0.004481872543692589 4:0.004481872543692589 5:0.004481872543692589 "),
    ("bool", "+mysql +mysql", "6:0.008963745087385178 1:0.004481872543692589 2:0.004481872543692589 3:0.004481872543692589 4:0.004481872543692589 5:0.004481872543692589 "),
    ("bool", "mysql mysql*", "6:0.0020717077422887087 1:0.0010358538711443543 2:0.0010358538711443543 3:0.0010358538711443543 4:0.0010358538711443543 5:0.0010358538711443543 "),
];

#[test]
fn matches_mariadb_results_digit_for_digit() {
    let index = articles();
    let mut failures = Vec::new();
    for (mode, query, expected) in MARIADB {
        let got = run(&index, mode, query);
        if got != *expected {
            failures.push(format!("{mode} {query}\n  want {expected}\n  got  {got}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn result_lookup_and_orders() {
    let index = articles();
    let stopwords = StopwordSet::default_list();
    let settings = SearchSettings {
        collation: Collation::Utf8mb4GeneralCi,
        limits: TokenSizeLimits::default(),
        stopwords: &stopwords,
        query_expansion: false,
    };
    let r = search(
        &index,
        b"tutorial fox",
        SearchMode::NaturalLanguage,
        &settings,
    )
    .expect("ok");
    assert_eq!(r.len(), 6);
    assert_eq!(r.relevance(2), 0.0, "a row the search did not find");
    assert_eq!(r.rank(2), None);
    assert_eq!(format_relevance(r.relevance(14)), "0.4959603548049927");
    let ids: Vec<u64> = r.by_doc_id().map(|(d, _)| d).collect();
    assert_eq!(ids, [1, 3, 7, 12, 13, 14]);
    let ranked: Vec<u64> = r.by_rank().into_iter().map(|(d, _)| d).collect();
    assert_eq!(ranked, [13, 14, 12, 1, 3, 7]);
    let empty = search(&index, b"   ", SearchMode::Boolean, &settings).expect("ok");
    assert!(empty.is_empty());
}

#[test]
fn errors_as_mariadb_gives_them() {
    let index = articles();
    let stopwords = StopwordSet::default_list();
    let settings = SearchSettings {
        collation: Collation::Utf8mb4GeneralCi,
        limits: TokenSizeLimits::default(),
        stopwords: &stopwords,
        query_expansion: false,
    };
    let words = |n: usize| {
        let w: Vec<String> = (0..n).map(|i| format!("w{i:03}")).collect();
        format!("\"{}\"", w.join(" "))
    };
    // ERROR 191: Too many words in a FTS phrase or proximity search.
    let err = search(
        &index,
        words(129).as_bytes(),
        SearchMode::Boolean,
        &settings,
    );
    assert!(matches!(err, Err(EngineError::Schema { errno: 191, .. })));
    let ok = search(
        &index,
        words(128).as_bytes(),
        SearchMode::Boolean,
        &settings,
    );
    assert!(ok.expect("128 words are allowed").is_empty());
    let err = search(&index, b"+a +(b", SearchMode::Boolean, &settings);
    assert!(matches!(err, Err(EngineError::Schema { errno: 1064, .. })));
    let deep = format!("{}fox{}", "(".repeat(33), ")".repeat(33));
    let err = search(&index, deep.as_bytes(), SearchMode::Boolean, &settings);
    assert!(matches!(err, Err(EngineError::Schema { errno: 128, .. })));
    let ok = format!("{}fox{}", "(".repeat(32), ")".repeat(32));
    let r = search(&index, ok.as_bytes(), SearchMode::Boolean, &settings).expect("32 levels");
    assert_eq!(r.len(), 3);
    // A long chain of groups nests InnoDB's lists one per group: no
    // recursion on it.
    let chain = "(fox) ".repeat(20_000);
    let r = search(&index, chain.as_bytes(), SearchMode::Boolean, &settings).expect("chain");
    assert_eq!(r.len(), 3);
}

/// Cache-only deletes (not yet in the DELETED table) are filtered the same
/// way, and the single-term shortcut computes its idf without them.
#[test]
fn single_term_idf_excludes_deleted_documents() {
    let rows: Vec<Vec<Option<&str>>> = vec![
        vec![Some("apple banana")],
        vec![Some("apple")],
        vec![Some("cherry")],
        vec![Some("apple cherry")],
    ];
    let stopwords = StopwordSet::default_list();
    let mut index = MemIndex::new(
        &rows,
        Collation::Utf8mb4GeneralCi,
        TokenSizeLimits::default(),
        &stopwords,
    );
    index.delete(2);
    let settings = SearchSettings {
        collation: Collation::Utf8mb4GeneralCi,
        limits: TokenSizeLimits::default(),
        stopwords: &stopwords,
        query_expansion: false,
    };
    let one = search(&index, b"apple", SearchMode::Boolean, &settings).expect("ok");
    // 3 rows, 2 live documents with the word: log10(3/2)^2.
    assert_eq!(one.rank(1), Some(single_term_rank(1, idf(3, 2))));
    assert_eq!(one.rank(2), None);
    // Two terms: the deleted document still counts in the word's doc count.
    let two = search(&index, b"apple zzz", SearchMode::Boolean, &settings).expect("ok");
    assert_eq!(two.rank(1), Some(word_weight(1, idf(3, 3))));
}

// ---- property check: which documents a boolean query finds ----

const VOCAB: [&str; 6] = ["apple", "apricot", "banana", "berry", "cherry", "citrus"];

#[derive(Clone, Debug)]
enum GenItem {
    Term(&'static str),
    Prefix(String),
    Phrase(&'static str, &'static str),
    Group(Vec<(char, GenItem)>),
}

fn gen_clauses(rng: &mut Rng, depth: u32) -> Vec<(char, GenItem)> {
    let n = 1 + rng.below(4) as usize;
    (0..n)
        .map(|_| {
            let op = [' ', '+', '-', '~', '<', '>'][rng.below(6) as usize];
            let word = |rng: &mut Rng| VOCAB[rng.below(VOCAB.len() as u64) as usize];
            let item = match rng.below(if depth < 3 { 5 } else { 4 }) {
                0 | 1 => GenItem::Term(word(rng)),
                2 => {
                    let w = word(rng);
                    GenItem::Prefix(w[..1 + rng.below(3) as usize].to_owned())
                }
                3 => GenItem::Phrase(word(rng), word(rng)),
                _ => GenItem::Group(gen_clauses(rng, depth + 1)),
            };
            (op, item)
        })
        .collect()
}

fn render(clauses: &[(char, GenItem)]) -> String {
    let parts: Vec<String> = clauses
        .iter()
        .map(|(op, item)| {
            let body = match item {
                GenItem::Term(w) => (*w).to_owned(),
                GenItem::Prefix(p) => format!("{p}*"),
                GenItem::Phrase(a, b) => format!("\"{a} {b}\""),
                GenItem::Group(c) => format!("({})", render(c)),
            };
            format!("{}{body}", op.to_string().trim())
        })
        .collect();
    parts.join(" ")
}

/// The documents an item matches, by brute force over the word lists.
fn item_docs(docs: &[Vec<&str>], live: &BTreeSet<u64>, item: &GenItem) -> BTreeSet<u64> {
    live.iter()
        .copied()
        .filter(|&d| {
            let words = &docs[d as usize - 1];
            match item {
                GenItem::Term(w) => words.contains(w),
                GenItem::Prefix(p) => words.iter().any(|w| w.starts_with(p.as_str())),
                GenItem::Phrase(a, b) => words.windows(2).any(|x| x[0] == *a && x[1] == *b),
                GenItem::Group(_) => false,
            }
        })
        .collect()
}

/// The model of InnoDB's order: at each level the clauses before the last
/// group form a nested level evaluated first; then, for the rest, unmarked
/// clauses (and `~ < >`) in order, then `+` clauses, then `-` clauses. `+`
/// keeps only documents already found once an earlier `+` ran in the same
/// group (else it replaces the set); a group starts from an empty set.
fn model(
    docs: &[Vec<&str>],
    live: &BTreeSet<u64>,
    clauses: &[(char, GenItem)],
    set: &mut BTreeSet<u64>,
    multi_exist: &mut bool,
) {
    let last_group = clauses
        .iter()
        .rposition(|(_, i)| matches!(i, GenItem::Group(_)));
    let rest = match last_group {
        Some(g) => {
            model(docs, live, &clauses[..g], set, multi_exist);
            &clauses[g..]
        }
        None => clauses,
    };
    let eval = |item: &GenItem| match item {
        GenItem::Group(inner) => {
            let mut sub = BTreeSet::new();
            let mut sub_multi = false;
            model(docs, live, inner, &mut sub, &mut sub_multi);
            sub
        }
        other => item_docs(docs, live, other),
    };
    for (op, item) in rest {
        if matches!(op, ' ' | '<' | '>') {
            set.extend(eval(item));
        }
    }
    for (op, item) in rest {
        if *op == '+' {
            let x = eval(item);
            *set = if *multi_exist {
                set.intersection(&x).copied().collect()
            } else {
                x
            };
            *multi_exist = true;
        }
    }
    for (op, item) in rest {
        if *op == '-' {
            for d in eval(item) {
                set.remove(&d);
            }
        }
    }
}

#[test]
fn boolean_sets_match_a_brute_force_model() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let stopwords = StopwordSet::default_list();
    let settings = SearchSettings {
        collation: Collation::Utf8mb4GeneralCi,
        limits: TokenSizeLimits::default(),
        stopwords: &stopwords,
        query_expansion: false,
    };
    for case in 0..400 {
        let n_docs = 1 + rng.below(8) as usize;
        let docs: Vec<Vec<&str>> = (0..n_docs)
            .map(|_| {
                (0..rng.below(7))
                    .map(|_| VOCAB[rng.below(VOCAB.len() as u64) as usize])
                    .collect()
            })
            .collect();
        let texts: Vec<String> = docs.iter().map(|d| d.join(" ")).collect();
        let rows: Vec<Vec<Option<&str>>> = texts.iter().map(|t| vec![Some(t.as_str())]).collect();
        let mut index = MemIndex::new(
            &rows,
            Collation::Utf8mb4GeneralCi,
            TokenSizeLimits::default(),
            &stopwords,
        );
        for _ in 0..rng.below(3) {
            index.delete(1 + rng.below(n_docs as u64));
        }
        let live: BTreeSet<u64> = (1..=n_docs as u64)
            .filter(|d| !index.deleted.contains(d))
            .collect();
        let clauses = gen_clauses(&mut rng, 0);
        let query = render(&clauses);
        let mut want = BTreeSet::new();
        model(&docs, &live, &clauses, &mut want, &mut false);
        let got = search(&index, query.as_bytes(), SearchMode::Boolean, &settings)
            .unwrap_or_else(|e| panic!("case {case}: {query}: {e}"));
        let got_ids: BTreeSet<u64> = got.by_doc_id().map(|(d, _)| d).collect();
        assert_eq!(got_ids, want, "case {case}: {query} on {texts:?}");
        assert!(got.by_doc_id().all(|(_, r)| r.is_finite()));
    }
}
