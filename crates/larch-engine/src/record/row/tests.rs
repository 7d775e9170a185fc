//! Tests of the row format: exact byte layouts, randomized round trips,
//! validation of malformed records, hidden-field updates and the size policy.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::*;
use crate::page::PageSize;

fn clustered(columns: Vec<ColumnLayout>, hidden_row_id: bool) -> RowLayout {
    RowLayout::new(columns, RowKind::Clustered { hidden_row_id })
}

fn encode(
    layout: &RowLayout,
    hidden: &HiddenFields,
    cols: &[Option<ColumnBytes<'_>>],
) -> Result<Vec<u8>, RowError> {
    let mut out = Vec::new();
    encode_row(layout, hidden, cols, &mut out)?;
    Ok(out)
}

const EXT: ExternRef = ExternRef {
    space: 7,
    first_page: 0x0102_0304,
    offset: 40,
    len: 70_000,
};

#[test]
fn exact_bytes_of_a_clustered_record() {
    let layout = clustered(
        vec![
            ColumnLayout::fixed(4),
            ColumnLayout::variable(10).nullable(),
            ColumnLayout::variable(300),
            ColumnLayout::long(100_000).nullable(),
            ColumnLayout::fixed(2).nullable(),
        ],
        true,
    );
    let hidden = HiddenFields {
        trx_id: 0x0102_0304_0506,
        roll_ptr: 0x000a_0b0c_0d0e_0f10,
        row_id: 0x11_1213_1415,
    };
    let cols = [
        Some(ColumnBytes::Inline(&[0xde, 0xad, 0xbe, 0xef][..])),
        Some(ColumnBytes::Inline(&b"abc"[..])),
        Some(ColumnBytes::Inline(&b"xy"[..])),
        Some(ColumnBytes::External(EXT)),
        None,
    ];
    let rec = encode(&layout, &hidden, &cols).expect("encode");
    let mut want: Vec<u8> = vec![
        1, 2, 3, 4, 5, 6, // trx_id
        0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, // roll_ptr
        0, 0x11, 0x12, 0x13, 0x14, 0x15,  // row_id
        0b100, // null bitmap: nullable columns 1, 3, 4; the third (col 4) is NULL
        3,     // col 1: 1-byte length
        0x00, 0x02, // col 2: 2-byte length
        0x80, 20, // col 3: off-page flag + 20
        0xde, 0xad, 0xbe, 0xef, b'a', b'b', b'c', b'x', b'y',
    ];
    want.extend_from_slice(&[0, 0, 0, 7, 1, 2, 3, 4, 0, 0, 0, 40]);
    want.extend_from_slice(&70_000u64.to_be_bytes());
    assert_eq!(rec, want);
    let lengths = [Some(4), Some(3), Some(2), Some(70_000), None];
    let ext = [false, false, false, true, false];
    assert_eq!(record_len(&layout, &lengths, &ext), Ok(rec.len()));

    let v = RowView::parse(&layout, &rec).expect("parse");
    assert_eq!(v.hidden(), hidden);
    assert_eq!(v.row_id(), Some(0x11_1213_1415));
    for (i, c) in cols.iter().enumerate() {
        assert_eq!(v.column(i), *c, "column {i}");
    }
    assert_eq!(v.column(5), None);
    assert!(v.is_null(4) && !v.is_null(0));
    assert!(v.has_external());
    assert_eq!(v.external_columns().collect::<Vec<_>>(), vec![(3, EXT)]);
    assert_eq!(v.column_range(0), Some(25..29));
    assert_eq!(v.column_range(3), Some(34..54));
}

#[test]
fn exact_bytes_of_a_secondary_value() {
    let empty = RowLayout::new(vec![], RowKind::Secondary);
    let rec = encode(
        &empty,
        &HiddenFields {
            trx_id: 42,
            ..Default::default()
        },
        &[],
    )
    .expect("encode");
    assert_eq!(rec, [0, 0, 0, 0, 0, 42]);
    assert_eq!(secondary_stamp(&rec), Ok(42));
    let v = RowView::parse(&empty, &rec).expect("parse");
    assert_eq!((v.trx_id(), v.roll_ptr(), v.row_id()), (42, 0, None));

    let layout = RowLayout::new(
        vec![
            ColumnLayout::variable(40).nullable(),
            ColumnLayout::variable(1000),
        ],
        RowKind::Secondary,
    );
    let cols = [None, Some(ColumnBytes::Inline(&b"Hello"[..]))];
    let rec = encode(
        &layout,
        &HiddenFields {
            trx_id: 9,
            ..Default::default()
        },
        &cols,
    )
    .expect("encode");
    assert_eq!(
        rec,
        [0, 0, 0, 0, 0, 9, 1, 0, 5, b'H', b'e', b'l', b'l', b'o']
    );
    let v = RowView::parse(&layout, &rec).expect("parse");
    assert_eq!(v.column(0), None);
    assert_eq!(v.column(1), Some(ColumnBytes::Inline(&b"Hello"[..])));
}

#[test]
fn random_layouts_round_trip() {
    let mut rng = StdRng::seed_from_u64(0x1a7c);
    for iter in 0..3000 {
        let ncols = rng.random_range(0..24);
        let columns: Vec<ColumnLayout> = (0..ncols)
            .map(|_| {
                let nullable = rng.random_bool(0.5);
                match rng.random_range(0..3) {
                    0 => ColumnLayout {
                        nullable,
                        fixed_len: Some(rng.random_range(0..=16)),
                        max_len: 16,
                        may_be_external: false,
                    },
                    1 => ColumnLayout {
                        nullable,
                        fixed_len: None,
                        max_len: rng.random_range(0..=255),
                        may_be_external: rng.random_bool(0.5),
                    },
                    _ => ColumnLayout {
                        nullable,
                        fixed_len: None,
                        max_len: rng.random_range(256..=70_000),
                        may_be_external: rng.random_bool(0.7),
                    },
                }
            })
            .collect();
        let kind = match rng.random_range(0..3) {
            0 => RowKind::Secondary,
            k => RowKind::Clustered {
                hidden_row_id: k == 2,
            },
        };
        let layout = RowLayout::new(columns, kind);
        let hidden = HiddenFields {
            trx_id: rng.random_range(0..=MAX_48),
            roll_ptr: if matches!(kind, RowKind::Clustered { .. }) {
                rng.random_range(0..=MAX_56)
            } else {
                0
            },
            row_id: if kind.hidden_len() == 19 {
                rng.random_range(0..=MAX_48)
            } else {
                0
            },
        };
        // Values: owned buffers first, then borrowed column bytes.
        let mut values: Vec<Option<Result<Vec<u8>, ExternRef>>> = Vec::new();
        for c in &layout.columns {
            if c.nullable && rng.random_bool(0.3) {
                values.push(None);
                continue;
            }
            if c.can_be_external() && kind != RowKind::Secondary && rng.random_bool(0.3) {
                values.push(Some(Err(ExternRef {
                    space: rng.random(),
                    first_page: rng.random(),
                    offset: rng.random(),
                    len: rng.random_range(0..=u64::from(c.max_len)),
                })));
                continue;
            }
            let len = match c.fixed_len {
                Some(n) => n as usize,
                None => {
                    // Favour the extremes: empty, the maximum, the 1/2-byte edge.
                    let cap = (c.max_len as usize).min(MAX_INLINE_LEN).min(3000);
                    match rng.random_range(0..4) {
                        0 => 0,
                        1 => cap,
                        _ => rng.random_range(0..=cap),
                    }
                }
            };
            values.push(Some(Ok((0..len).map(|_| rng.random()).collect())));
        }
        let cols: Vec<Option<ColumnBytes<'_>>> = values
            .iter()
            .map(|v| {
                v.as_ref().map(|v| match v {
                    Ok(b) => ColumnBytes::Inline(b.as_slice()),
                    Err(r) => ColumnBytes::External(*r),
                })
            })
            .collect();
        // Append after some existing bytes: encode_row must only append.
        let prefix: Vec<u8> = (0..rng.random_range(0..8)).map(|_| rng.random()).collect();
        let mut out = prefix.clone();
        encode_row(&layout, &hidden, &cols, &mut out).expect("encode");
        assert_eq!(out[..prefix.len()], prefix[..]);
        let rec = &out[prefix.len()..];
        let lengths: Vec<Option<usize>> = cols
            .iter()
            .map(|c| c.map(|c| c.value_len() as usize))
            .collect();
        let ext: Vec<bool> = cols
            .iter()
            .map(|c| matches!(c, Some(ColumnBytes::External(_))))
            .collect();
        assert_eq!(
            record_len(&layout, &lengths, &ext),
            Ok(rec.len()),
            "iter {iter}"
        );

        let v = RowView::parse(&layout, rec).expect("parse");
        assert_eq!(v.hidden(), hidden, "iter {iter}");
        assert_eq!(v.column_count(), cols.len());
        for (i, c) in cols.iter().enumerate() {
            assert_eq!(v.column(i), *c, "iter {iter} column {i}");
            if let Some(ColumnBytes::Inline(b)) = c {
                let r = v.column_range(i).expect("range");
                assert_eq!(&rec[r], *b);
            }
        }
        // Every strict prefix and any extension is rejected.
        let cut = rng.random_range(0..rec.len());
        assert!(
            RowView::parse(&layout, &rec[..cut]).is_err(),
            "iter {iter} cut {cut}"
        );
        let mut longer = rec.to_vec();
        longer.push(0);
        assert!(
            RowView::parse(&layout, &longer).is_err(),
            "iter {iter} extended"
        );
    }
}

#[test]
fn every_truncation_of_a_record_is_rejected() {
    let layout = clustered(
        vec![
            ColumnLayout::variable(10).nullable(),
            ColumnLayout::long(100_000),
            ColumnLayout::fixed(3),
        ],
        false,
    );
    let rec = encode(
        &layout,
        &HiddenFields::default(),
        &[
            Some(ColumnBytes::Inline(&b"ab"[..])),
            Some(ColumnBytes::External(EXT)),
            Some(ColumnBytes::Inline(&b"xyz"[..])),
        ],
    )
    .expect("encode");
    for n in 0..rec.len() {
        let e = RowView::parse(&layout, &rec[..n]).expect_err("truncated record accepted");
        assert!(e.is_corruption());
        assert_eq!(e.mysql_code(), (1030, "HY000"));
    }
}

#[test]
fn malformed_records_are_rejected() {
    let layout = clustered(
        vec![
            ColumnLayout::variable(10).nullable(),
            ColumnLayout::variable(300),
        ],
        false,
    );
    let ok = encode(
        &layout,
        &HiddenFields::default(),
        &[None, Some(ColumnBytes::Inline(&b"hi"[..]))],
    )
    .expect("encode");
    assert!(RowView::parse(&layout, &ok).is_ok());
    // Bitmap bits beyond the nullable columns must be zero.
    let mut bad = ok.clone();
    bad[13] |= 0x02;
    assert!(matches!(
        RowView::parse(&layout, &bad),
        Err(RowError::Malformed(_))
    ));
    // Off-page flag on a column that cannot be off-page.
    let mut bad = ok.clone();
    bad[14] |= 0x80;
    assert!(matches!(
        RowView::parse(&layout, &bad),
        Err(RowError::Malformed(_))
    ));
    // A length above the column maximum.
    let mut bad = ok.clone();
    bad[14] = 0x01;
    bad[15] = 0x2d; // 301
    assert!(matches!(
        RowView::parse(&layout, &bad),
        Err(RowError::Malformed(_))
    ));
    // An off-page column whose pointer is not 20 bytes.
    let long = clustered(vec![ColumnLayout::long(100_000)], false);
    let mut rec = encode(
        &long,
        &HiddenFields::default(),
        &[Some(ColumnBytes::External(EXT))],
    )
    .expect("encode");
    rec[14] = 19;
    rec.pop();
    assert!(matches!(
        RowView::parse(&long, &rec),
        Err(RowError::Malformed(_))
    ));
    // Parsing with the wrong layout fails rather than returning garbage.
    let other = clustered(vec![ColumnLayout::fixed(8)], true);
    assert!(RowView::parse(&other, &ok).is_err());
}

#[test]
fn encode_rejects_bad_input() {
    let layout = clustered(
        vec![
            ColumnLayout::fixed(4),
            ColumnLayout::variable(10),
            ColumnLayout::variable(200).nullable(),
            ColumnLayout::long(100_000),
            ColumnLayout::variable(100_000),
        ],
        false,
    );
    let good: [Option<ColumnBytes<'_>>; 5] = [
        Some(ColumnBytes::Inline(&[1, 2, 3, 4][..])),
        Some(ColumnBytes::Inline(&b""[..])),
        None,
        Some(ColumnBytes::External(EXT)),
        Some(ColumnBytes::Inline(&b"z"[..])),
    ];
    let h = HiddenFields::default();
    assert!(encode(&layout, &h, &good).is_ok());
    let check = |i: usize, v: Option<ColumnBytes<'static>>, want: RowError| {
        let mut cols = good;
        cols[i] = v;
        let mut out = vec![9u8];
        assert_eq!(encode_row(&layout, &h, &cols, &mut out), Err(want.clone()));
        assert_eq!(out, [9], "output untouched after {want}");
    };
    check(1, None, RowError::NullNotAllowed { column: 1 });
    check(
        0,
        Some(ColumnBytes::Inline(&[1, 2, 3][..])),
        RowError::WrongLength {
            column: 0,
            expected: 4,
            got: 3,
        },
    );
    check(
        1,
        Some(ColumnBytes::Inline(&[0u8; 11][..])),
        RowError::ColumnTooLong {
            column: 1,
            len: 11,
            max: 10,
        },
    );
    check(
        2,
        Some(ColumnBytes::External(EXT)),
        RowError::ExternalNotAllowed { column: 2 },
    );
    check(
        4,
        Some(ColumnBytes::External(EXT)),
        RowError::ExternalNotAllowed { column: 4 },
    );
    check(
        3,
        Some(ColumnBytes::External(ExternRef {
            len: 100_001,
            ..EXT
        })),
        RowError::ColumnTooLong {
            column: 3,
            len: 100_001,
            max: 100_000,
        },
    );
    static BIG: [u8; MAX_INLINE_LEN + 1] = [0; MAX_INLINE_LEN + 1];
    check(
        4,
        Some(ColumnBytes::Inline(&BIG[..])),
        RowError::InlineTooLong {
            column: 4,
            len: MAX_INLINE_LEN + 1,
        },
    );
    let mut out = Vec::new();
    assert_eq!(
        encode_row(&layout, &h, &good[..4], &mut out),
        Err(RowError::ColumnCount {
            expected: 5,
            got: 4
        })
    );
    let big_trx = HiddenFields {
        trx_id: MAX_48 + 1,
        ..h
    };
    assert!(matches!(
        encode_row(&layout, &big_trx, &good, &mut out),
        Err(RowError::HiddenFieldOverflow {
            field: "trx_id",
            ..
        })
    ));
    let big_roll = HiddenFields {
        roll_ptr: MAX_56 + 1,
        ..h
    };
    assert!(matches!(
        encode_row(&layout, &big_roll, &good, &mut out),
        Err(RowError::HiddenFieldOverflow {
            field: "roll_ptr",
            ..
        })
    ));
    assert!(out.is_empty());
    // Secondary entries never hold off-page columns.
    let sec = RowLayout::new(vec![ColumnLayout::long(100_000)], RowKind::Secondary);
    assert_eq!(
        encode(&sec, &h, &[Some(ColumnBytes::External(EXT))]),
        Err(RowError::ExternalNotAllowed { column: 0 })
    );
}

#[test]
fn hidden_fields_update_in_place() {
    let layout = clustered(vec![ColumnLayout::variable(20)], true);
    let mut rec = encode(
        &layout,
        &HiddenFields {
            trx_id: 5,
            roll_ptr: 6,
            row_id: 7,
        },
        &[Some(ColumnBytes::Inline(&b"payload"[..]))],
    )
    .expect("encode");
    assert_eq!(
        (trx_id_offset(), roll_ptr_offset(), row_id_offset()),
        (0, 6, 13)
    );
    set_trx_id(&mut rec, MAX_48).expect("trx");
    set_roll_ptr(&mut rec, MAX_56).expect("roll");
    set_row_id(&mut rec, 0x1234_5678_9abc).expect("row id");
    let v = RowView::parse(&layout, &rec).expect("parse");
    assert_eq!(
        v.hidden(),
        HiddenFields {
            trx_id: MAX_48,
            roll_ptr: MAX_56,
            row_id: 0x1234_5678_9abc
        }
    );
    assert_eq!(v.column(0), Some(ColumnBytes::Inline(&b"payload"[..])));
    // The same change as the B+tree makes it through an mtr: bytes at an offset.
    let b = encode_trx_id(77).expect("encode trx");
    rec[TRX_ID_OFFSET..TRX_ID_OFFSET + TRX_ID_LEN].copy_from_slice(&b);
    let b = encode_roll_ptr(88).expect("encode roll");
    rec[ROLL_PTR_OFFSET..ROLL_PTR_OFFSET + ROLL_PTR_LEN].copy_from_slice(&b);
    let v = RowView::parse(&layout, &rec).expect("parse");
    assert_eq!((v.trx_id(), v.roll_ptr()), (77, 88));
    assert!(set_trx_id(&mut rec, MAX_48 + 1).is_err());
    assert!(set_roll_ptr(&mut rec, MAX_56 + 1).is_err());
    assert!(encode_row_id(1 << 48).is_err());
    assert!(matches!(
        set_trx_id(&mut [0u8; 5], 1),
        Err(RowError::Malformed(_))
    ));

    let mut sec = vec![0u8; 6];
    sec.extend_from_slice(b"rest");
    set_secondary_stamp(&mut sec, 0xabcdef).expect("stamp");
    assert_eq!(secondary_stamp(&sec), Ok(0xabcdef));
    assert_eq!(&sec[6..], b"rest");
    set_secondary_stamp(&mut sec, 0).expect("clear stamp");
    assert_eq!(secondary_stamp(&sec), Ok(0));
    assert!(secondary_stamp(&sec[..5]).is_err());
    assert!(set_secondary_stamp(&mut sec, MAX_48 + 1).is_err());
}

fn too_large_message(max: usize) -> String {
    format!(
        "Row size too large. The maximum row size for the used table type, not counting BLOBs, is {max}. This includes storage overhead, check the manual. You have to change some columns to TEXT or BLOBs"
    )
}

#[test]
fn max_record_bytes_per_page_size() {
    let got: Vec<usize> = PageSize::ALL.iter().map(|&p| max_record_bytes(p)).collect();
    assert_eq!(got, [1932, 3980, 8076, 16268, 32652]);
    for ps in PageSize::ALL {
        // Two maximal entries and their overhead fit the page.
        assert!(
            MIN_RECORDS_PER_PAGE * (max_record_bytes(ps) + RECORD_OVERHEAD) + PAGE_OVERHEAD
                <= ps.bytes()
        );
        assert!(max_record_bytes(ps) <= MAX_INLINE_LEN);
    }
}

#[test]
fn row_too_large_at_every_page_size() {
    for ps in PageSize::ALL {
        let max = max_record_bytes(ps);
        // One inline column: 13 hidden bytes + 2 length bytes + data.
        let layout = clustered(vec![ColumnLayout::variable(100_000)], false);
        let fits = max - 15;
        assert_eq!(
            plan_external(&layout, &[Some(fits)], ps),
            Ok(vec![false]),
            "{ps}"
        );
        let err = plan_external(&layout, &[Some(fits + 1)], ps).expect_err("too large");
        assert_eq!(err, RowError::RowTooLarge { max });
        assert_eq!(err.to_string(), too_large_message(max));
        assert_eq!(err.mysql_code(), (1118, "42000"));
        // The key counts too.
        assert!(plan_external_for_entry(&layout, &[Some(fits)], 1, ps).is_err());
        // Many short columns cannot move off-page: CREATE TABLE check fails.
        let n = max / 255 + 1;
        let wide = clustered(vec![ColumnLayout::variable(255); n], false);
        let err = check_worst_case(&wide, 0, ps).expect_err("too wide");
        assert_eq!(err.to_string(), too_large_message(max));
        // Many BLOBs: each takes 22 bytes inline at worst.
        let blobs = (max - 13) / 22;
        let ok = clustered(vec![ColumnLayout::long(u32::MAX); blobs], false);
        assert_eq!(check_worst_case(&ok, 0, ps), Ok(()), "{ps}");
        let bad = clustered(vec![ColumnLayout::long(u32::MAX); blobs + 1], false);
        assert_eq!(
            check_worst_case(&bad, 0, ps),
            Err(RowError::RowTooLarge { max })
        );
    }
}

#[test]
fn plan_moves_the_longest_columns_first() {
    let ps = PageSize::K4; // 1932 bytes
    let layout = clustered(
        vec![
            ColumnLayout::long(100_000),
            ColumnLayout::long(100_000),
            ColumnLayout::long(100_000),
            ColumnLayout::variable(100_000), // cannot move
            ColumnLayout::long(100_000).nullable(),
            ColumnLayout::long(200), // max_len <= 255: never off-page
        ],
        true,
    );
    // Fits as is.
    let small = [Some(100), Some(200), Some(300), Some(400), None, Some(200)];
    assert_eq!(plan_external(&layout, &small, ps), Ok(vec![false; 6]));
    // Column 2 (the longest) alone is enough.
    let l = [Some(500), Some(600), Some(1500), Some(10), None, Some(200)];
    assert_eq!(
        plan_external(&layout, &l, ps),
        Ok(vec![false, false, true, false, false, false])
    );
    // Needs three: the longest movable columns, not the unmovable one.
    let l = [
        Some(900),
        Some(800),
        Some(1000),
        Some(1000),
        Some(100),
        Some(200),
    ];
    assert_eq!(
        plan_external(&layout, &l, ps),
        Ok(vec![true, true, true, false, false, false])
    );
    // Ties go to the first column.
    let l = [Some(1200), Some(1200), Some(0), Some(0), None, Some(0)];
    assert_eq!(
        plan_external(&layout, &l, ps),
        Ok(vec![true, false, false, false, false, false])
    );
    // Columns of at most 40 bytes stay inline even if that means failing.
    let l = [Some(40), Some(40), Some(40), Some(1800), Some(40), Some(0)];
    assert_eq!(
        plan_external(&layout, &l, ps),
        Err(RowError::RowTooLarge { max: 1932 })
    );
    // The plan's record fits and can be encoded.
    let l = [
        Some(5000),
        Some(70_000),
        Some(3000),
        Some(600),
        Some(41),
        Some(200),
    ];
    let plan = plan_external(&layout, &l, ps).expect("plan");
    assert_eq!(plan, vec![true, true, true, false, false, false]);
    let size = record_len(&layout, &l, &plan).expect("size");
    assert!(size <= max_record_bytes(ps), "{size}");
    // Invalid input is reported, not planned around.
    let l = [None, Some(1), Some(1), Some(1), None, Some(1)];
    assert_eq!(
        plan_external(&layout, &l, ps),
        Err(RowError::NullNotAllowed { column: 0 })
    );
    let l = [Some(100_001), Some(1), Some(1), Some(1), None, Some(1)];
    assert!(matches!(
        plan_external(&layout, &l, ps),
        Err(RowError::ColumnTooLong { column: 0, .. })
    ));
    // Secondary entries never go off-page.
    let sec = RowLayout::new(vec![ColumnLayout::long(100_000)], RowKind::Secondary);
    assert_eq!(
        plan_external(&sec, &[Some(5000)], ps),
        Err(RowError::RowTooLarge { max: 1932 })
    );
}

#[test]
fn random_plans_are_minimal_and_encodable() {
    let mut rng = StdRng::seed_from_u64(7);
    for _ in 0..500 {
        let ps = PageSize::ALL[rng.random_range(0..5)];
        let n = rng.random_range(1..12);
        let layout = clustered(
            (0..n)
                .map(|_| match rng.random_range(0..3) {
                    0 => ColumnLayout::fixed(8),
                    1 => ColumnLayout::variable(rng.random_range(0..2000)),
                    _ => ColumnLayout::long(1 << 20),
                })
                .collect(),
            rng.random_bool(0.5),
        );
        let lengths: Vec<Option<usize>> = layout
            .columns
            .iter()
            .map(|c| {
                Some(match c.fixed_len {
                    Some(f) => f as usize,
                    None => rng.random_range(0..=(c.max_len as usize).min(40_000)),
                })
            })
            .collect();
        match plan_external(&layout, &lengths, ps) {
            Ok(plan) => {
                let size = record_len(&layout, &lengths, &plan).expect("size");
                assert!(size <= max_record_bytes(ps));
                // Every moved column is at least as long as every eligible
                // column left inline.
                let moved_min = (0..n).filter(|&i| plan[i]).filter_map(|i| lengths[i]).min();
                let kept_max = (0..n)
                    .filter(|&i| !plan[i] && layout.columns[i].can_be_external())
                    .filter_map(|i| lengths[i])
                    .filter(|&l| l > EXTERN_MIN_LEN)
                    .max();
                if let (Some(m), Some(k)) = (moved_min, kept_max) {
                    assert!(m >= k, "moved {m} but kept {k}");
                }
                let bufs: Vec<Vec<u8>> =
                    lengths.iter().map(|l| vec![0x5a; l.unwrap_or(0)]).collect();
                let cols: Vec<Option<ColumnBytes<'_>>> = (0..n)
                    .map(|i| {
                        Some(if plan[i] {
                            ColumnBytes::External(ExternRef {
                                len: bufs[i].len() as u64,
                                ..EXT
                            })
                        } else {
                            ColumnBytes::Inline(&bufs[i])
                        })
                    })
                    .collect();
                let rec = encode(&layout, &HiddenFields::default(), &cols).expect("encode");
                assert_eq!(rec.len(), size);
                assert!(RowView::parse(&layout, &rec).is_ok());
            }
            Err(e) => {
                assert_eq!(
                    e,
                    RowError::RowTooLarge {
                        max: max_record_bytes(ps)
                    }
                );
                // Even with every eligible column off-page it would not fit.
                let all: Vec<bool> = (0..n)
                    .map(|i| {
                        layout.columns[i].can_be_external()
                            && lengths[i].is_some_and(|l| l > EXTERN_MIN_LEN)
                    })
                    .collect();
                let size = record_len(&layout, &lengths, &all).expect("size");
                assert!(size > max_record_bytes(ps));
            }
        }
    }
}

#[test]
fn extern_ref_round_trips() {
    let b = EXT.to_bytes();
    assert_eq!(ExternRef::from_bytes(&b), EXT);
    assert_eq!(b.len(), ExternRef::ENCODED_LEN);
}
