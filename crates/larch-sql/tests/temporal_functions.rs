//! Clock arithmetic functions as MariaDB 10.11 answers them: TIMESTAMPDIFF
//! and TIMESTAMPADD (with their unit keyword, as Django's
//! `TIMESTAMPDIFF(MICROSECOND, ...)`), TIME_TO_SEC, SEC_TO_TIME, TIMEDIFF,
//! ADDTIME, SUBTIME, MAKEDATE, MAKETIME, TO_SECONDS, PERIOD_ADD,
//! PERIOD_DIFF, UTC_DATE and UTC_TIME: values, NULLs, warnings and result
//! types. Every expected answer was read from MariaDB 10.11.

mod support;

use larch_engine::record::value::ColumnType;
use support::{columns, error, rows, warning, warnings, TestDb, R};

#[test]
fn timestampdiff_counts_units_as_mariadb() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT TIMESTAMPDIFF(MICROSECOND, '2020-01-01', '2020-01-02 00:00:01.5'), \
             TIMESTAMPDIFF(MONTH, '2020-01-31', '2020-02-29'), \
             TIMESTAMPDIFF(SQL_TSI_DAY, '2020-01-02', '2020-01-01 00:00:01'), \
             TIMESTAMPDIFF(YEAR, '2000-02-29', '2001-02-28'), \
             TIMESTAMPDIFF(QUARTER, '2020-01-01', '2020-07-01'), \
             TIMESTAMPDIFF(WEEK, '2020-01-01', '2020-01-15'), \
             TIMESTAMPDIFF(DAY, NULL, '2020-01-01')"
        )?,
        vec![vec!["86401500000", "0", "0", "0", "2", "2", "NULL"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT TIMESTAMPDIFF(MONTH, '2020-03-31 10:00:00', '2020-01-31 09:00:00'), \
             TIMESTAMPDIFF(YEAR, '2021-06-15', '2020-06-15'), \
             TIMESTAMPDIFF(HOUR, '2020-01-01 10:30:00', '2020-01-01 08:00:00'), \
             TIMESTAMPDIFF(MINUTE, '2020-01-01', '2020-01-01 00:59:59'), \
             TIMESTAMPDIFF(SECOND, '2020-01-01', '2020-01-01 00:00:59.9')"
        )?,
        vec![vec!["-2", "-1", "-2", "59", "59"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT TIMESTAMPDIFF(DAY, 'abc', '2020-01-01')")?,
        vec![vec!["NULL"]]
    );
    assert_eq!(
        warnings(&mut s)?,
        vec![warning("1292", "Incorrect datetime value: 'abc'")]
    );
    let cols = columns(
        &mut s,
        "SELECT TIMESTAMPDIFF(DAY, '2020-01-01', '2020-01-02')",
    )?;
    assert!(matches!(cols[0].ty, ColumnType::Int { bytes: 8, .. }));
    assert_eq!(
        error(
            &mut s,
            "SELECT TIMESTAMPDIFF(FORTNIGHT, '2020-01-01', '2020-01-02')"
        )?
        .0,
        1064
    );
    Ok(())
}

#[test]
fn timestampadd_is_date_add() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT TIMESTAMPADD(MICROSECOND, 1, '2020-01-01'), \
             TIMESTAMPADD(MONTH, 1, DATE '2020-01-31'), \
             TIMESTAMPADD(HOUR, 1, DATE '2020-01-31'), \
             TIMESTAMPADD(SQL_TSI_MINUTE, 1, TIME '10:00:00'), \
             TIMESTAMPADD(DAY, NULL, '2020-01-01')"
        )?,
        vec![vec![
            "2020-01-01 00:00:00.000001",
            "2020-02-29",
            "2020-01-31 01:00:00",
            "10:01:00",
            "NULL"
        ]]
    );
    let cols = columns(
        &mut s,
        "SELECT TIMESTAMPADD(MONTH, 1, DATE '2020-01-31'), \
         TIMESTAMPADD(HOUR, 1, DATE '2020-01-31')",
    )?;
    assert_eq!(cols[0].ty, ColumnType::Date);
    assert_eq!(cols[1].ty, ColumnType::Datetime { fsp: 0 });
    Ok(())
}

#[test]
fn seconds_and_times_convert_as_mariadb() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT TIME_TO_SEC('01:00:01.5'), TIME_TO_SEC(TIME '-838:59:59'), \
             TIME_TO_SEC('2020-01-01 10:00:00'), TIME_TO_SEC(100), TIME_TO_SEC(NULL), \
             TIME_TO_SEC(TIME '01:00:00')"
        )?,
        vec![vec!["3601.5", "-3020399", "36000", "60", "NULL", "3600"]]
    );
    let cols = columns(
        &mut s,
        "SELECT TIME_TO_SEC('01:00:01.5'), TIME_TO_SEC(TIME '01:00:00')",
    )?;
    assert_eq!(
        cols[0].ty,
        ColumnType::Decimal {
            precision: 17,
            scale: 1
        }
    );
    assert!(matches!(cols[1].ty, ColumnType::Int { bytes: 8, .. }));
    assert_eq!(
        rows(
            &mut s,
            "SELECT SEC_TO_TIME(3601), SEC_TO_TIME(3601.5), SEC_TO_TIME(-1), \
             SEC_TO_TIME(NULL), SEC_TO_TIME(1e0)"
        )?,
        vec![vec![
            "01:00:01",
            "01:00:01.5",
            "-00:00:01",
            "NULL",
            "00:00:01.000000"
        ]]
    );
    assert_eq!(
        rows(&mut s, "SELECT SEC_TO_TIME(99999999)")?,
        vec![vec!["838:59:59"]]
    );
    assert_eq!(
        warnings(&mut s)?,
        vec![warning(
            "1292",
            "Truncated incorrect seconds value: '99999999'"
        )]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT TO_SECONDS('2020-01-01 00:00:01'), TO_SECONDS(NULL), TO_SECONDS(20200101)"
        )?,
        vec![vec!["63745056001", "NULL", "63745056000"]]
    );
    Ok(())
}

#[test]
fn timediff_addtime_subtime_follow_mariadb() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT TIMEDIFF('10:00:00', '09:00:01.5'), \
             TIMEDIFF('2020-01-02 00:00:00', '2020-01-01 00:00:00'), \
             TIMEDIFF(TIME '10:00:00', TIME '12:00:00'), \
             TIMEDIFF('2020-01-01 00:00:00', '10:00:00'), TIMEDIFF(NULL, '10:00:00')"
        )?,
        vec![vec!["00:59:58.5", "24:00:00", "-02:00:00", "NULL", "NULL"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT TIMEDIFF(TIMESTAMP '2020-03-01 00:00:00', TIMESTAMP '2020-01-01 00:00:00')"
        )?,
        vec![vec!["838:59:59"]]
    );
    assert_eq!(
        warnings(&mut s)?,
        vec![warning(
            "1292",
            "Truncated incorrect time value: '1440:00:00'"
        )]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT ADDTIME('10:00:00', '01:00:00.5'), ADDTIME('2020-01-01 23:00:00', '02:00:00'), \
             SUBTIME(TIME '10:00:00', '11:00:00'), ADDTIME(NULL, '1'), \
             ADDTIME(TIMESTAMP '2020-01-01 00:00:00', '1 01:00:00')"
        )?,
        vec![vec![
            "11:00:00.500000",
            "2020-01-02 01:00:00",
            "-01:00:00",
            "NULL",
            "2020-01-02 01:00:00"
        ]]
    );
    assert_eq!(
        rows(&mut s, "SELECT ADDTIME(TIME '800:00:00', '100:00:00')")?,
        vec![vec!["838:59:59"]]
    );
    assert_eq!(
        warnings(&mut s)?,
        vec![warning(
            "1292",
            "Truncated incorrect time value: '900:00:00'"
        )]
    );
    let cols = columns(
        &mut s,
        "SELECT TIMEDIFF('10:00:00', '09:00:01.5'), SUBTIME(TIME '10:00:00', '11:00:00'), \
         ADDTIME(TIMESTAMP '2020-01-01 00:00:00', '1 01:00:00')",
    )?;
    assert_eq!(cols[0].ty, ColumnType::Time { fsp: 1 });
    assert_eq!(cols[1].ty, ColumnType::Time { fsp: 0 });
    assert_eq!(cols[2].ty, ColumnType::Datetime { fsp: 0 });
    Ok(())
}

#[test]
fn makedate_maketime_and_periods_follow_mariadb() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT MAKEDATE(2020, 60), MAKEDATE(2020, 0), MAKEDATE(20, 1), \
             MAKEDATE(9999, 366), MAKEDATE(2020, 400), MAKEDATE(NULL, 1)"
        )?,
        vec![vec![
            "2020-02-29",
            "NULL",
            "2020-01-01",
            "NULL",
            "2021-02-03",
            "NULL"
        ]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT MAKETIME(10, 20, 30), MAKETIME(-1, 5, 6.5), MAKETIME(1, 60, 0), \
             MAKETIME(1, 0, 60)"
        )?,
        vec![vec!["10:20:30", "-01:05:06.5", "NULL", "NULL"]]
    );
    assert_eq!(
        rows(&mut s, "SELECT MAKETIME(900, 0, 0)")?,
        vec![vec!["838:59:59"]]
    );
    assert_eq!(
        warnings(&mut s)?,
        vec![warning(
            "1292",
            "Truncated incorrect time value: '900:00:00'"
        )]
    );
    assert_eq!(
        rows(&mut s, "SELECT MAKETIME('a', 1, 1)")?,
        vec![vec!["00:01:01"]]
    );
    assert_eq!(
        warnings(&mut s)?,
        vec![warning("1292", "Truncated incorrect INTEGER value: 'a'")]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT PERIOD_ADD(202001, 13), PERIOD_DIFF(202001, 201912), PERIOD_ADD(9912, 1), \
             PERIOD_ADD(0, 5), PERIOD_ADD(NULL, 1)"
        )?,
        vec![vec!["202102", "1", "200001", "0", "NULL"]]
    );
    let cols = columns(
        &mut s,
        "SELECT PERIOD_ADD(202001, 13), MAKETIME(-1, 5, 6.5), UTC_TIME(3)",
    )?;
    assert!(matches!(cols[0].ty, ColumnType::Int { bytes: 4, .. }));
    assert_eq!(cols[1].ty, ColumnType::Time { fsp: 1 });
    assert_eq!(cols[2].ty, ColumnType::Time { fsp: 3 });
    assert_eq!(
        rows(
            &mut s,
            "SELECT UTC_DATE() = UTC_DATE(), UTC_DATE() = DATE(UTC_TIMESTAMP())"
        )?,
        vec![vec!["1", "1"]]
    );
    Ok(())
}

#[test]
fn str_to_date_reads_text_as_mariadb() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT STR_TO_DATE('01,5,2013', '%d,%m,%Y'), STR_TO_DATE('May 1, 2013', '%M %d,%Y'), \
             STR_TO_DATE('a09:30:17', 'a%h:%i:%s'), \
             STR_TO_DATE('2013-05-01 10:11:12.5', '%Y-%m-%d %H:%i:%s.%f'), \
             STR_TO_DATE('2013-05-01 10:11:12', '%Y-%m-%d %H:%i:%s'), STR_TO_DATE('2013', '%Y'), \
             STR_TO_DATE('10:11 PM', '%h:%i %p'), STR_TO_DATE('13/02/31', '%y/%m/%d'), \
             STR_TO_DATE(NULL, '%Y'), STR_TO_DATE('Tue 2 Jan 2018', '%a %e %b %Y')"
        )?,
        vec![vec![
            "2013-05-01",
            "2013-05-01",
            "09:30:17",
            "2013-05-01 10:11:12.500000",
            "2013-05-01 10:11:12",
            "2013-00-00",
            "22:11:00",
            "2013-02-31",
            "NULL",
            "2018-01-02"
        ]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT STR_TO_DATE('2013', '%Y-%m-%d'), STR_TO_DATE('2013-5', '%Y-%m-%d %H'), \
             STR_TO_DATE('13-5-1', '%Y-%m-%d'), STR_TO_DATE(' 2013 - 05', '%Y-%m'), \
             STR_TO_DATE('1.5', '%s.%f'), STR_TO_DATE('2020 200', '%Y %j'), \
             STR_TO_DATE(20130501, '%Y%m%d')"
        )?,
        vec![vec![
            "2013-00-00",
            "2013-05-00 00:00:00",
            "2013-05-01",
            "2013-05-00",
            "00:00:01.500000",
            "2020-07-18",
            "2013-05-01"
        ]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT STR_TO_DATE('abc', '%Y'), STR_TO_DATE('2020-13-01', '%Y-%m-%d'), \
             STR_TO_DATE('2013-05-01 13:00 PM', '%Y-%m-%d %h:%i %p')"
        )?,
        vec![vec!["NULL", "NULL", "NULL"]]
    );
    assert_eq!(
        warnings(&mut s)?,
        vec![
            warning(
                "1411",
                "Incorrect datetime value: 'abc' for function str_to_date"
            ),
            warning(
                "1411",
                "Incorrect datetime value: '2020-13-01' for function str_to_date"
            ),
            warning(
                "1411",
                "Incorrect datetime value: '2013-05-01 13:00 PM' for function str_to_date"
            ),
        ]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT STR_TO_DATE('2013-05-01 00:00:00', '%Y-%m-%d')"
        )?,
        vec![vec!["2013-05-01"]]
    );
    assert_eq!(
        warnings(&mut s)?,
        vec![warning(
            "1292",
            "Truncated incorrect date value: '2013-05-01 00:00:00'"
        )]
    );
    s.execute("CREATE TABLE f (x VARCHAR(10))")?;
    s.execute("INSERT INTO f VALUES ('%d')")?;
    let cols = columns(
        &mut s,
        "SELECT STR_TO_DATE('1', '%d'), STR_TO_DATE('1', '%H'), STR_TO_DATE('1', '%s.%f'), \
         STR_TO_DATE('1 1', '%d %H'), STR_TO_DATE('1', x) FROM f",
    )?;
    assert_eq!(cols[0].ty, ColumnType::Date);
    assert_eq!(cols[1].ty, ColumnType::Time { fsp: 0 });
    assert_eq!(cols[2].ty, ColumnType::Time { fsp: 6 });
    assert_eq!(cols[3].ty, ColumnType::Datetime { fsp: 0 });
    assert_eq!(cols[4].ty, ColumnType::Datetime { fsp: 6 });
    Ok(())
}

/// ROUND and TRUNCATE of a TIME, DATETIME or TIMESTAMP stay temporal:
/// fractional seconds rounded half away from zero or cut, carries reaching
/// the next day, a TIME kept within 838:59:59, the result's fractional
/// digits those asked for (0 to 6). A DATE reads as its number. Every
/// answer is MariaDB 10.11's.
#[test]
fn round_and_truncate_keep_temporal_types() -> R<()> {
    let t = TestDb::new(&[])?;
    let mut s = t.session(50)?;
    assert_eq!(
        rows(
            &mut s,
            "SELECT ROUND(TIME'10:11:12.345678', 2), TRUNCATE(TIME'-10:11:12.99', 1), \
             ROUND(TIME'-10:11:12.5'), TRUNCATE(TIME'10:11:12.345', -1), \
             ROUND(TIME'838:59:59.9'), TRUNCATE(TIME'10:11:12', 3), \
             ROUND(TIME'10:11:59.5', 0), ROUND(TIME'10:11:12.345', 8), \
             TRUNCATE(DATE'2020-01-01', 1)"
        )?,
        [[
            "10:11:12.35",
            "-10:11:12.9",
            "-10:11:13",
            "10:11:12",
            "838:59:59",
            "10:11:12.000",
            "10:12:00",
            "10:11:12.345000",
            "20200101"
        ]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT ROUND(TIMESTAMP'2020-12-31 23:59:59.56', -2), \
             TRUNCATE(TIMESTAMP'2020-01-01 10:11:12.56', 1), \
             ROUND(CAST('2020-01-01 10:00:00.7' AS DATETIME(1))), \
             TRUNCATE(CAST('0000-00-00 10:00:00.7' AS DATETIME(1)), 0)"
        )?,
        [[
            "2021-01-01 00:00:00",
            "2020-01-01 10:11:12.5",
            "2020-01-01 10:00:01",
            "0000-00-00 10:00:00"
        ]]
    );
    s.execute(
        "CREATE TABLE r AS SELECT ROUND(TIME'10:11:12.5', 2) a, \
         TRUNCATE(TIMESTAMP'2020-01-01 10:00:00.55', 1) b, ROUND(CAST('10:11:12.555' AS TIME(3))) d",
    )?;
    let types: Vec<ColumnType> = columns(&mut s, "SELECT * FROM r")?
        .into_iter()
        .map(|c| c.ty)
        .collect();
    assert_eq!(
        types,
        [
            ColumnType::Time { fsp: 2 },
            ColumnType::Datetime { fsp: 1 },
            ColumnType::Time { fsp: 0 }
        ]
    );
    assert_eq!(
        rows(&mut s, "SELECT * FROM r")?,
        [["10:11:12.50", "2020-01-01 10:00:00.5", "10:11:13"]]
    );
    Ok(())
}
