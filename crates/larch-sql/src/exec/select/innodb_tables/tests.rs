//! Unit tests of lock ids, lock modes and `lock_data` values.

use super::keys::shown_value;
use super::*;

#[test]
fn lock_ids_and_modes_follow_innodb() {
    let sup = LockTarget::supremum((7u64 << 32) | 3);
    assert_eq!(lock_id(42, &sup), "42:7:3:1");
    let rec = LockTarget::new((7u64 << 32) | 3, b"\x80\x00\x00\x01");
    let id = lock_id(42, &rec);
    assert!(id.starts_with("42:7:3:"), "{id}");
    assert_ne!(id, lock_id(42, &LockTarget::new((7u64 << 32) | 3, b"\x80")));
    let x = LockMode::Exclusive;
    assert_eq!(lock_mode_enum(x, LockKind::RecordOnly, &rec), "X");
    assert_eq!(lock_mode_enum(x, LockKind::NextKey, &rec), "X");
    assert_eq!(lock_mode_enum(x, LockKind::GapOnly, &rec), "X,GAP");
    assert_eq!(lock_mode_enum(x, LockKind::GapOnly, &sup), "X");
    assert_eq!(lock_mode_enum(x, LockKind::InsertIntention, &sup), "X,GAP");
    assert_eq!(
        lock_mode_enum(LockMode::Shared, LockKind::GapOnly, &rec),
        "S,GAP"
    );
    assert_eq!(
        monitor_mode(x, LockKind::RecordOnly, &rec, true),
        "lock_mode X locks rec but not gap waiting"
    );
    assert_eq!(
        monitor_mode(LockMode::Shared, LockKind::GapOnly, &rec, false),
        "lock mode S locks gap before rec"
    );
}

#[test]
fn values_are_shown_as_innodb_lock_data() {
    let int = ColumnType::Int {
        bytes: 4,
        unsigned: false,
    };
    assert_eq!(shown_value(&Value::Int(-5), &int).as_deref(), Some("-5"));
    let vc = ColumnType::Varchar {
        max_len: 10,
        collation: Collation::Binary,
    };
    assert_eq!(
        shown_value(&Value::Str("it's".into()), &vc).as_deref(),
        Some("'it''s'")
    );
    assert_eq!(
        shown_value(&Value::Bytes(vec![1, 0xab]), &vc).as_deref(),
        Some("0x01AB")
    );
}
