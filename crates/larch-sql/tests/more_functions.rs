//! CONVERT_TZ, TIME_FORMAT, GET_FORMAT, TIMESTAMP(), COMPRESS, UNCOMPRESS,
//! UNCOMPRESSED_LENGTH, AES_ENCRYPT, AES_DECRYPT, INET6_ATON, INET6_NTOA,
//! IS_IPV4, IS_IPV6, IS_IPV4_COMPAT, IS_IPV4_MAPPED and EXTRACT(QUARTER|
//! MICROSECOND FROM x) as MariaDB 10.11
//! answers them: values, NULLs, warnings and result types. Every expected
//! answer was read from MariaDB 10.11 (named zones: with its time zone
//! tables loaded from the same zoneinfo database).

mod support;

use larch_engine::record::value::{ColumnType, LobKind};
use support::{columns, error, rows, warning, warnings, TestDb, R};

/// Binary columns whose lengths size the results of the byte functions.
const TABLE: &str = "CREATE TABLE tb (b VARBINARY(10), c VARBINARY(40), d VARBINARY(16))";

fn row(values: &[&str]) -> Vec<Vec<String>> {
    vec![values.iter().map(|v| (*v).to_owned()).collect()]
}

#[test]
fn convert_tz_with_offsets_and_system() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT CONVERT_TZ('2024-01-01 12:00:00','+00:00','+05:30'), \
             CONVERT_TZ('2024-01-01 10:00:00.123456','+00:00','+05:00'), \
             CONVERT_TZ('2024-01-01','+00:00','+05:00'), \
             CONVERT_TZ(20240101100000,'+00:00','+01:00'), \
             CONVERT_TZ('2024-01-01 10:00:00','+13:00','-12:59'), \
             CONVERT_TZ('2024-01-01 10:00:00','system','+00:00'), \
             CONVERT_TZ('2024-01-01 10:00:00','+5:30','+00:00'), \
             CONVERT_TZ('2024-01-01 10:00:00','+:30','+00:00')"
        )?,
        row(&[
            "2024-01-01 17:30:00",
            "2024-01-01 15:00:00.123456",
            "2024-01-01 05:00:00",
            "2024-01-01 11:00:00",
            "2023-12-31 08:01:00",
            "2024-01-01 10:00:00",
            "2024-01-01 04:30:00",
            "2024-01-01 09:30:00"
        ])
    );
    // Offsets beyond -12:59 .. +13:00 or badly written are no zone.
    assert_eq!(
        rows(
            &mut s,
            "SELECT CONVERT_TZ('2024-01-01 10:00:00','+13:01','+00:00'), \
             CONVERT_TZ('2024-01-01 10:00:00','+14:00','+00:00'), \
             CONVERT_TZ('2024-01-01 10:00:00','-13:00','+00:00'), \
             CONVERT_TZ('2024-01-01 10:00:00','+05:60','+00:00'), \
             CONVERT_TZ('2024-01-01 10:00:00','+05:30 ','+00:00'), \
             CONVERT_TZ('2024-01-01 10:00:00','','+00:00'), \
             CONVERT_TZ(NULL,'+00:00','+01:00'), \
             CONVERT_TZ('2024-01-01',NULL,'+01:00')"
        )?,
        row(&["NULL"; 8])
    );
    assert!(warnings(&mut s)?.is_empty());
    // Outside TIMESTAMP's range the datetime comes back unchanged.
    assert_eq!(
        rows(
            &mut s,
            "SELECT CONVERT_TZ('1960-01-01 00:00:00','+00:00','+05:00'), \
             CONVERT_TZ('2040-01-01 00:00:00','+00:00','+05:00'), \
             CONVERT_TZ('1970-01-01 05:00:00','+05:00','+00:00'), \
             CONVERT_TZ('1970-01-01 05:00:01','+05:00','+00:00'), \
             CONVERT_TZ('2038-01-19 03:14:07','+00:00','+01:00'), \
             CONVERT_TZ('2038-01-19 03:14:08','+00:00','+01:00')"
        )?,
        row(&[
            "1960-01-01 00:00:00",
            "2040-01-01 00:00:00",
            "1970-01-01 05:00:00",
            "1970-01-01 00:00:01",
            "2038-01-19 04:14:07",
            "2038-01-19 03:14:08"
        ])
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT CONVERT_TZ('0000-00-00 00:00:00','+00:00','+05:00'), \
             CONVERT_TZ('2024-00-01 00:00:00','+00:00','+05:00'), \
             CONVERT_TZ('abc','+00:00','+05:00'), \
             CONVERT_TZ(0,'+00:00','+05:00')"
        )?,
        row(&["NULL"; 4])
    );
    assert_eq!(
        warnings(&mut s)?,
        vec![
            warning("1292", "Incorrect datetime value: '0000-00-00 00:00:00'"),
            warning("1292", "Incorrect datetime value: '2024-00-01 00:00:00'"),
            warning("1292", "Incorrect datetime value: 'abc'"),
            warning("1292", "Incorrect datetime value: '0'"),
        ]
    );
    let cols = columns(
        &mut s,
        "SELECT CONVERT_TZ('2024-01-01 10:00:00','+00:00','+01:00'), \
         CONVERT_TZ('2024-01-01 10:00:00.12','+00:00','+01:00'), \
         CONVERT_TZ(NOW(3),'+00:00','+01:00')",
    )?;
    assert_eq!(cols[0].ty, ColumnType::Datetime { fsp: 0 });
    assert_eq!(cols[1].ty, ColumnType::Datetime { fsp: 2 });
    assert_eq!(cols[2].ty, ColumnType::Datetime { fsp: 3 });
    assert!(cols[0].nullable);
    Ok(())
}

#[test]
fn convert_tz_with_named_zones() -> R<()> {
    let zoneinfo = std::env::var_os("TZDIR").unwrap_or_else(|| "/usr/share/zoneinfo".into());
    if !std::path::Path::new(&zoneinfo)
        .join("Europe/Paris")
        .exists()
    {
        // Where the test programs are required (CI), so is the zoneinfo
        // database (Debian's tzdata).
        if std::env::var_os("LARCH_REQUIRE_TEST_PROGRAMS").is_some() {
            return Err("no zoneinfo database (install tzdata)".into());
        }
        eprintln!("SKIPPED: no zoneinfo database");
        return Ok(());
    }
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT CONVERT_TZ('2024-01-01 12:00:00','UTC','Europe/Paris'), \
             CONVERT_TZ('2024-07-01 12:00:00','UTC','Europe/Paris'), \
             CONVERT_TZ('2024-03-10 02:30:00','America/New_York','UTC'), \
             CONVERT_TZ('2024-11-03 01:30:00','America/New_York','UTC'), \
             CONVERT_TZ('2024-01-01 12:00:00','utc','europe/paris'), \
             CONVERT_TZ('2024-01-01 12:00:00','UTC ','Europe/Paris'), \
             CONVERT_TZ('2024-01-01 12:00:00','Etc/GMT+5','UTC'), \
             CONVERT_TZ('2024-06-01 12:00:00','EST5EDT','UTC'), \
             CONVERT_TZ('2024-01-01 12:00:00','Asia/Kolkata','UTC')"
        )?,
        row(&[
            "2024-01-01 13:00:00",
            "2024-07-01 14:00:00",
            "2024-03-10 07:00:00",
            "2024-11-03 05:30:00",
            "2024-01-01 13:00:00",
            "2024-01-01 13:00:00",
            "2024-01-01 17:00:00",
            "2024-06-01 16:00:00",
            "2024-01-01 06:30:00"
        ])
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT CONVERT_TZ('2024-01-01 12:00:00','Nowhere','UTC'), \
             CONVERT_TZ('2024-01-01 12:00:00','zone.tab','UTC'), \
             CONVERT_TZ('2024-01-01 12:00:00','Europe/../UTC','UTC'), \
             CONVERT_TZ('2024-01-01 12:00:00','/UTC','UTC'), \
             CONVERT_TZ('2024-01-01 12:00:00','Europe','UTC'), \
             CONVERT_TZ('2024-01-01 12:00:00','SYSTEM ','+01:00'), \
             CONVERT_TZ('2024-01-01 12:00:00',' UTC','+01:00'), \
             CONVERT_TZ('2024-01-01 12:00:00','Europe//Paris','+01:00')"
        )?,
        row(&["NULL"; 8])
    );
    Ok(())
}

#[test]
fn time_format_and_get_format() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT TIME_FORMAT('10:05:03','%H %k %h %I %l %i %s %S %f %p %r %T'), \
             TIME_FORMAT('100:05:03','%H %k %h %I %l %p %r %T'), \
             TIME_FORMAT('-10:05:03.5','%H|%f|%T'), \
             TIME_FORMAT('2024-01-02 10:05:03','%H:%i'), \
             TIME_FORMAT(100503,'%T'), \
             TIME_FORMAT(36.5,'%T %f'), \
             TIME_FORMAT('12:00:00','%p %h %%%'), \
             TIME_FORMAT('00:00:00','%p %h %l %r'), \
             TIME_FORMAT('10:00','abc%q')"
        )?,
        row(&[
            "10 10 10 10 10 05 03 03 000000 AM 10:05:03 AM 10:05:03",
            "100 100 04 04 4 AM 04:05:03 AM 100:05:03",
            "-10|500000|10:05:03",
            "10:05",
            "10:05:03",
            "00:00:36 500000",
            "PM 12 %%",
            "AM 12 12 12:00:00 AM",
            "abcq"
        ])
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT TIME_FORMAT('10:05:03','%Y'), TIME_FORMAT('10:05:03','%d'), \
             TIME_FORMAT('10:05:03','%x'), TIME_FORMAT('10:00',''), \
             TIME_FORMAT(NULL,'%H'), TIME_FORMAT('10:00',NULL), TIME_FORMAT('abc','%H')"
        )?,
        row(&["NULL"; 7])
    );
    assert_eq!(
        warnings(&mut s)?,
        vec![warning("1292", "Incorrect time value: 'abc'")]
    );
    let cols = columns(
        &mut s,
        "SELECT TIME_FORMAT('10:05:03','%H'), TIME_FORMAT('1','xx'), GET_FORMAT(DATE,'EUR')",
    )?;
    assert!(matches!(cols[0].ty, ColumnType::Varchar { max_len: 7, .. }));
    assert!(matches!(cols[1].ty, ColumnType::Varchar { max_len: 2, .. }));
    assert!(matches!(
        cols[2].ty,
        ColumnType::Varchar { max_len: 17, .. }
    ));

    assert_eq!(
        rows(
            &mut s,
            "SELECT GET_FORMAT(DATE,'EUR'), GET_FORMAT(DATE,'USA'), GET_FORMAT(date,'jis'), \
             GET_FORMAT(TIME,'USA'), GET_FORMAT(TIME,'INTERNAL'), GET_FORMAT(DATETIME,'EUR'), \
             GET_FORMAT(TIMESTAMP,'ISO'), GET_FORMAT(DATE,'xx'), GET_FORMAT(DATE,'EUR '), \
             GET_FORMAT(DATE,NULL)"
        )?,
        row(&[
            "%d.%m.%Y",
            "%m.%d.%Y",
            "%Y-%m-%d",
            "%h:%i:%s %p",
            "%H%i%s",
            "%Y-%m-%d %H.%i.%s",
            "%Y-%m-%d %H:%i:%s",
            "NULL",
            "NULL",
            "NULL"
        ])
    );
    Ok(())
}

#[test]
fn timestamp_of_one_and_two_arguments() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT TIMESTAMP('2024-01-01'), TIMESTAMP('2024-01-01 10:00:00.5'), \
             TIMESTAMP('2024-01-01', '10:00:00'), \
             TIMESTAMP('2024-12-31 23:00:00', '01:00:00.25'), \
             TIMESTAMP('2024-01-01','-1 01:00:00'), TIMESTAMP(20240101), \
             TIMESTAMP('0000-00-00'), TIMESTAMP('2024-01-01', 10), \
             TIMESTAMP('2024-01-01', 1.5), TIMESTAMP('9999-12-31 23:00:00','02:00:00'), \
             TIMESTAMP(NULL)"
        )?,
        row(&[
            "2024-01-01 00:00:00",
            "2024-01-01 10:00:00.5",
            "2024-01-01 10:00:00",
            "2025-01-01 00:00:00.25",
            "2023-12-30 23:00:00",
            "2024-01-01 00:00:00",
            "0000-00-00 00:00:00",
            "2024-01-01 00:00:10",
            "2024-01-01 00:00:01.5",
            "NULL",
            "NULL"
        ])
    );
    assert!(warnings(&mut s)?.is_empty());
    assert_eq!(
        rows(&mut s, "SELECT TIMESTAMP('abc'), TIMESTAMP('2024-02-30')")?,
        row(&["NULL", "NULL"])
    );
    assert_eq!(
        warnings(&mut s)?,
        vec![
            warning("1292", "Incorrect datetime value: 'abc'"),
            warning("1292", "Incorrect datetime value: '2024-02-30'"),
        ]
    );
    // The time is an INTERVAL DAY TO SECOND, added by MariaDB's day numbers.
    assert_eq!(
        rows(
            &mut s,
            "SELECT TIMESTAMP('2024-01-01 10:00:00','900:00:00'), \
             TIMESTAMP('2024-00-00','01:00:00'), TIMESTAMP('2024-01-01',20240101), \
             TIMESTAMP('2024-01-01','2 03:00'), TIMESTAMP('2024-01-01',-1.5), \
             TIMESTAMP('0000-01-01 10:00:00','01:00:00'), TIMESTAMP('0000-00-00','01:00:00'), \
             TIMESTAMP('2024-01-01','abc'), TIMESTAMP('2024-01-01','2024-01-01 10:00:00'), \
             TIMESTAMP('2024-01-01','10:60:00'), TIMESTAMP('2024-01-01','01:00:00x')"
        )?,
        row(&[
            "2024-02-07 22:00:00",
            "2023-11-30 01:00:00",
            "2024-03-25 08:01:01",
            "2024-01-03 03:00:00",
            "2023-12-31 23:59:58.5",
            "NULL",
            "NULL",
            "NULL",
            "NULL",
            "NULL",
            "2024-01-01 01:00:00"
        ])
    );
    assert_eq!(
        warnings(&mut s)?,
        vec![
            warning("1292", "Incorrect INTERVAL DAY TO SECOND value: 'abc'"),
            warning(
                "1292",
                "Incorrect INTERVAL DAY TO SECOND value: '2024-01-01 10:00:00'"
            ),
            warning("1292", "Incorrect INTERVAL DAY TO SECOND value: '10:60:00'"),
            warning(
                "1292",
                "Truncated incorrect INTERVAL DAY TO SECOND value: '01:00:00x'"
            ),
        ]
    );
    let cols = columns(
        &mut s,
        "SELECT TIMESTAMP('2024-01-01'), TIMESTAMP('2024-01-01 10:00:00.5'), \
         TIMESTAMP('2024-12-31 23:00:00', '01:00:00.25')",
    )?;
    assert_eq!(cols[0].ty, ColumnType::Datetime { fsp: 0 });
    assert_eq!(cols[1].ty, ColumnType::Datetime { fsp: 1 });
    assert_eq!(cols[2].ty, ColumnType::Datetime { fsp: 2 });
    let cols = columns(
        &mut s,
        "SELECT TIMESTAMP(NULL), CONVERT_TZ(NULL,'+00:00','+01:00')",
    )?;
    assert_eq!(cols[0].ty, ColumnType::Datetime { fsp: 0 });
    assert_eq!(cols[1].ty, ColumnType::Datetime { fsp: 0 });
    // GET_FORMAT's first argument is one of four keywords.
    assert_eq!(error(&mut s, "SELECT GET_FORMAT(YEAR,'EUR')")?.0, 1064);
    assert_eq!(error(&mut s, "SELECT GET_FORMAT(DATE)")?.0, 1064);
    Ok(())
}

#[test]
fn compress_and_uncompress() -> R<()> {
    let t = TestDb::new(&[TABLE])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT HEX(COMPRESS('hello')), HEX(COMPRESS('')), HEX(COMPRESS('hello ')), \
             UNCOMPRESS(COMPRESS('hello ')), LENGTH(UNCOMPRESS(COMPRESS('hello '))), \
             UNCOMPRESSED_LENGTH(COMPRESS('hello')), UNCOMPRESS(''), \
             UNCOMPRESSED_LENGTH(''), HEX(COMPRESS(NULL)), UNCOMPRESS(NULL), \
             HEX(COMPRESS(123)), UNCOMPRESS(COMPRESS(REPEAT('ab',5000))) = REPEAT('ab',5000), \
             UNCOMPRESS(UNHEX('64000000789C4B4CA43D00007A4725E5')) = REPEAT('a',100)"
        )?,
        row(&[
            "05000000789CCB48CDC9C90700062C0215",
            "",
            "06000000789CCB48CDC9C957000008610235",
            "hello ",
            "6",
            "5",
            "",
            "0",
            "NULL",
            "NULL",
            "03000000789C3334320600012D0097",
            "1",
            "1"
        ])
    );
    assert!(warnings(&mut s)?.is_empty());
    assert_eq!(
        rows(
            &mut s,
            "SELECT UNCOMPRESS('abc'), UNCOMPRESSED_LENGTH('abc'), UNCOMPRESSED_LENGTH('abcde'), \
             UNCOMPRESS('abcde'), UNCOMPRESS(UNHEX('02000000789CCB48CDC9C90700062C0215')), \
             UNCOMPRESS(UNHEX('09000000789CCB48CDC9C90700062C0215')), \
             UNCOMPRESS(UNHEX('05000000789CCB48CDC9C90700062C02')), \
             UNCOMPRESS(UNHEX('05000000789CCB48CDC9C90700062C0215FFFF')), \
             UNCOMPRESS(UNHEX('FFFFFF7F789CCB48CDC9C90700062C0215')), \
             UNCOMPRESS(UNHEX('00000000789CCB48CDC9C90700062C0215')), \
             UNCOMPRESS(UNHEX('00000000789C030000000001')), \
             UNCOMPRESS(UNHEX('05000000789CCB48CDC9C90700062C0216'))"
        )?,
        row(&[
            "NULL",
            "NULL",
            "610493025",
            "NULL",
            "NULL",
            "hello",
            "NULL",
            "hello",
            "NULL",
            "NULL",
            "",
            "NULL"
        ])
    );
    let too_big = "Uncompressed data size too large; the maximum size is 16777216 \
                   (probably, length of uncompressed data was corrupted)";
    let no_room = "ZLIB: Not enough room in the output buffer (probably, length of \
                   uncompressed data was corrupted)";
    assert_eq!(
        warnings(&mut s)?,
        vec![
            warning("1259", "ZLIB: Input data corrupted"),
            warning("1259", "ZLIB: Input data corrupted"),
            warning("1256", too_big),
            warning("1258", no_room),
            warning("1258", no_room),
            warning("1256", too_big),
            warning("1259", "ZLIB: Input data corrupted"),
            warning("1259", "ZLIB: Input data corrupted"),
        ]
    );
    let cols = columns(
        &mut s,
        "SELECT COMPRESS(b), UNCOMPRESS(b), UNCOMPRESSED_LENGTH(b) FROM tb",
    )?;
    assert_eq!(cols[0].ty, ColumnType::Varbinary { max_len: 24 });
    assert_eq!(
        cols[1].ty,
        ColumnType::Blob {
            kind: LobKind::Long
        }
    );
    assert!(matches!(cols[2].ty, ColumnType::Int { bytes: 4, .. }));
    Ok(())
}

#[test]
fn aes_encrypt_and_decrypt() -> R<()> {
    let t = TestDb::new(&[TABLE])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT HEX(AES_ENCRYPT('hello','key')), AES_DECRYPT(AES_ENCRYPT('hello','key'),'key'), \
             HEX(AES_ENCRYPT('','key')), HEX(AES_ENCRYPT('hello','')), \
             AES_DECRYPT('garbage','key'), AES_DECRYPT(AES_ENCRYPT('hello','key'),'kez'), \
             HEX(AES_ENCRYPT('hello','0123456789abcdefXYZ')), HEX(AES_ENCRYPT(NULL,'k')), \
             HEX(AES_ENCRYPT('x',NULL)), HEX(AES_ENCRYPT(123,456))"
        )?,
        row(&[
            "5E27050B59C889FEE9F953137259BF6B",
            "hello",
            "C717530F41F320757B4AA1BFAF11C42E",
            "9834ED518CBC8FBE9AF3C6ECB75EB8C0",
            "NULL",
            "NULL",
            "601DC59BC329E922A15D943DF1158965",
            "NULL",
            "NULL",
            "92055C764935D344F2C58E3C4B7BD374"
        ])
    );
    assert!(warnings(&mut s)?.is_empty());
    assert_eq!(error(&mut s, "SELECT AES_ENCRYPT('a','b','c')")?.0, 1582);
    let cols = columns(
        &mut s,
        "SELECT AES_ENCRYPT(b,'k'), AES_ENCRYPT(d,'k'), AES_DECRYPT(c,'k') FROM tb",
    )?;
    assert_eq!(cols[0].ty, ColumnType::Varbinary { max_len: 16 });
    assert_eq!(cols[1].ty, ColumnType::Varbinary { max_len: 32 });
    assert_eq!(cols[2].ty, ColumnType::Varbinary { max_len: 40 });
    Ok(())
}

#[test]
fn inet6_functions() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT HEX(INET6_ATON('1.2.3.4')), HEX(INET6_ATON('::1')), \
             HEX(INET6_ATON('::ffff:1.2.3.4')), HEX(INET6_ATON('01.2.3.4')), \
             HEX(INET6_ATON('FE80::1')), HEX(INET6_ATON('1:2:3:4:5:6:7:8')), \
             HEX(INET6_ATON('::')), HEX(INET6_ATON('1:2:3:4:5:6:1.2.3.4')), \
             HEX(INET6_ATON('1.2.3.04')), HEX(INET6_ATON(CONCAT('1.2.3.4',CHAR(0),'xyz')))"
        )?,
        row(&[
            "01020304",
            "00000000000000000000000000000001",
            "00000000000000000000FFFF01020304",
            "01020304",
            "FE800000000000000000000000000001",
            "00010002000300040005000600070008",
            "00000000000000000000000000000000",
            "00010002000300040005000601020304",
            "01020304",
            "01020304"
        ])
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT INET6_ATON('1.2.3.4x'), INET6_ATON('1.2.3'), INET6_ATON('256.1.1.1'), \
             INET6_ATON('fe80::1%eth0'), INET6_ATON(''), INET6_ATON(NULL), \
             INET6_ATON('1:2:3:4:5:6:7:8:9'), INET6_ATON('1::2::3'), INET6_ATON(' 1.2.3.4'), \
             INET6_ATON('1.2.3.4 '), INET6_ATON(12), INET6_ATON('1:2:3:4:5:6:7:1.2.3.4')"
        )?,
        row(&["NULL"; 12])
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT INET6_NTOA(INET6_ATON('1:0:2:3:4:5:6:7')), INET6_NTOA(INET6_ATON('::1')), \
             INET6_NTOA(INET6_ATON('::1.2.3.4')), INET6_NTOA(INET6_ATON('::ffff:1.2.3.4')), \
             INET6_NTOA(INET6_ATON('1.2.3.4')), INET6_NTOA('1234'), INET6_NTOA(x'01020304'), \
             INET6_NTOA(UNHEX('0102')), INET6_NTOA(INET6_ATON('1:0:0:2:0:0:3:4')), \
             INET6_NTOA(INET6_ATON('::ffff:0:1.2.3.4')), INET6_NTOA(INET6_ATON('FE80::ABCD')), \
             INET6_NTOA(16909060), INET6_NTOA(INET6_ATON('::0.0.0.1'))"
        )?,
        row(&[
            "1::2:3:4:5:6:7",
            "::1",
            "::1.2.3.4",
            "::ffff:1.2.3.4",
            "1.2.3.4",
            "NULL",
            "1.2.3.4",
            "NULL",
            "1::2:0:0:3:4",
            "::ffff:0:102:304",
            "fe80::abcd",
            "NULL",
            "::1"
        ])
    );
    assert!(warnings(&mut s)?.is_empty());
    assert_eq!(
        rows(
            &mut s,
            "SELECT IS_IPV4('1.2.3.4'), IS_IPV4('1.2.3.256'), IS_IPV4('::1'), IS_IPV4(NULL), \
             IS_IPV6('::1'), IS_IPV6('1.2.3.4'), IS_IPV6(NULL), \
             IS_IPV4_COMPAT(INET6_ATON('::1.2.3.4')), IS_IPV4_COMPAT(INET6_ATON('::0.0.0.1')), \
             IS_IPV4_COMPAT('::1.2.3.4'), IS_IPV4_MAPPED(INET6_ATON('::ffff:1.2.3.4')), \
             IS_IPV4_MAPPED('::ffff:1.2.3.4'), IS_IPV4_COMPAT(NULL), \
             IS_IPV4_COMPAT(INET6_ATON('::0.0.1.0'))"
        )?,
        row(&["1", "0", "0", "0", "1", "0", "0", "1", "0", "1", "1", "1", "0", "1"])
    );
    assert!(warnings(&mut s)?.is_empty());
    assert_eq!(
        rows(
            &mut s,
            "SELECT IS_IPV4_MAPPED(INET6_ATON('1.2.3.4')), IS_IPV4_COMPAT('abc'), \
             IS_IPV4_MAPPED('1.2.3.4'), IS_IPV4_COMPAT(x'00FF80')"
        )?,
        row(&["0", "0", "0", "0"])
    );
    assert_eq!(
        warnings(&mut s)?,
        vec![
            warning("1292", "Incorrect inet6 value: '\\x01\\x02\\x03\\x04'"),
            warning("1292", "Incorrect inet6 value: 'abc'"),
            warning("1292", "Incorrect inet6 value: '1.2.3.4'"),
            warning("1292", "Incorrect inet6 value: '\\x00\\xFF\\x80'"),
        ]
    );
    let cols = columns(
        &mut s,
        "SELECT INET6_ATON('1.2.3.4'), INET6_NTOA(x'01020304'), IS_IPV4('1.2.3.4'), \
         IS_IPV4_COMPAT(NULL)",
    )?;
    assert_eq!(cols[0].ty, ColumnType::Varbinary { max_len: 16 });
    assert!(matches!(
        cols[1].ty,
        ColumnType::Varchar { max_len: 39, .. }
    ));
    assert!(matches!(cols[2].ty, ColumnType::Int { bytes: 4, .. }));
    assert!(!cols[2].nullable);
    assert!(cols[3].nullable);
    Ok(())
}

#[test]
fn extract_quarter_and_microsecond() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT EXTRACT(QUARTER FROM '2024-05-17'), \
             EXTRACT(MICROSECOND FROM '2024-05-17 10:00:00.123456'), \
             EXTRACT(QUARTER FROM NULL), EXTRACT(QUARTER FROM '2024-12-31 23:59:59')"
        )?,
        row(&["2", "123456", "NULL", "4"])
    );
    Ok(())
}

/// `CHAR(n, ... USING charset)`: the bytes CHAR makes, read in that
/// character set (Django's `Chr` writes it); EXPLAIN FORMAT=TRADITIONAL is
/// the plain EXPLAIN table.
#[test]
fn char_using_a_charset_and_explain_format_traditional() -> R<()> {
    let t = TestDb::new(&["CREATE TABLE t (id INT PRIMARY KEY)"])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT CHAR(77, 78 USING utf8mb4), CHAR(195, 169 USING utf8mb4), \
             HEX(CHAR(74 USING binary)), CHARSET(CHAR(74 USING latin1)), CHARSET(CHAR(74))"
        )?,
        row(&["MN", "é", "4A", "latin1", "binary"])
    );
    assert_eq!(
        rows(&mut s, "EXPLAIN FORMAT=TRADITIONAL SELECT * FROM t")?,
        rows(&mut s, "EXPLAIN SELECT * FROM t")?
    );
    Ok(())
}
