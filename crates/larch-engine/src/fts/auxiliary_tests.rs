//! Partition choice and index numbering of the full-text auxiliary tables.

use super::*;

#[test]
fn partitions_are_stable_and_spread() {
    let c = Collation::Utf8mb4GeneralCi;
    // Same first-character weight, same table (case and accents in _ci).
    assert_eq!(partition_of("apple", c), partition_of("Avocado", c));
    assert_eq!(partition_of("élan", c), partition_of("eagle", c));
    let mut used = [0usize; INDEX_PARTITIONS];
    for ch in 'a'..='z' {
        used[partition_of(&ch.to_string(), c)] += 1;
    }
    assert!(used.iter().all(|&n| n > 0), "letters spread: {used:?}");
    for c in [Collation::Utf8mb4UnicodeCi, Collation::Utf8mb4Bin] {
        let mut used = [0usize; INDEX_PARTITIONS];
        for ch in 'a'..='z' {
            used[partition_of(&ch.to_string(), c)] += 1;
        }
        assert!(used.iter().all(|&n| n > 0), "{c:?}: {used:?}");
    }
    assert_eq!(partition_of("", c), 0);
}

#[test]
fn index_numbers_do_not_collide() -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for n in AUX_INDEX_BASE..AUX_INDEX_BASE + 3 {
        assert!(seen.insert(n));
    }
    for i in 0..MAX_FULLTEXT_INDEXES {
        for p in 0..INDEX_PARTITIONS {
            assert!(seen.insert(word_table_index_number(i, p)?));
        }
    }
    assert!(word_table_index_number(MAX_FULLTEXT_INDEXES, 0).is_err());
    Ok(())
}
