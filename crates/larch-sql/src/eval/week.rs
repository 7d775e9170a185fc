//! Week numbers as MariaDB computes them (`calc_week`): WEEK(date[, mode]),
//! YEARWEEK(date[, mode]) and WEEKOFYEAR(date).
//!
//! A mode's three bits: 1, weeks start on Monday (else Sunday); 2, the week
//! number runs 1..53 and a week in the previous or next year counts there
//! (else 0..53 within the year); 4 (after `week_mode` flips it for
//! Sunday-first modes), week 1 is the first week with a first day of the week
//! in the year (else the first with 4 or more days in the year). MariaDB's
//! calendar is proleptic Gregorian with year 0 not a leap year.

use larch_engine::record::value::Date;

use super::func_more::day_number;

const MONDAY_FIRST: u32 = 1;
const WEEK_YEAR: u32 = 2;
const FIRST_WEEKDAY: u32 = 4;

/// The internal behaviour bits of a user-visible mode (`week_mode`).
pub fn behaviour(mode: i128) -> u32 {
    let mut bits = (mode & 7) as u32;
    if bits & MONDAY_FIRST == 0 {
        bits ^= FIRST_WEEKDAY;
    }
    bits
}

/// Days in `year` as MariaDB counts them.
fn days_in_year(year: i64) -> i64 {
    if year & 3 == 0 && (year % 100 != 0 || (year % 400 == 0 && year != 0)) {
        366
    } else {
        365
    }
}

/// 0 for the first day of the week (Monday or Sunday), 6 for the last.
fn weekday(day_nr: i64, sunday_first: bool) -> i64 {
    (day_nr + 5 + i64::from(sunday_first)).rem_euclid(7)
}

/// The week of `d` under `bits` (see [`behaviour`]) and the year it belongs to.
pub fn week(d: &Date, bits: u32) -> (i64, i64) {
    let (year, month, day) = (i64::from(d.year), i64::from(d.month), i64::from(d.day));
    let day_nr = day_number(year, month, day);
    let mut first_day_nr = day_number(year, 1, 1);
    let monday_first = bits & MONDAY_FIRST != 0;
    let mut week_year = bits & WEEK_YEAR != 0;
    let first_weekday = bits & FIRST_WEEKDAY != 0;
    let mut wd = weekday(first_day_nr, !monday_first);
    let mut year = year;
    // Week 1 starts late: the first week of the year lies in the previous one.
    let starts_late = |wd: i64| (first_weekday && wd != 0) || (!first_weekday && wd >= 4);
    if month == 1 && day <= 7 - wd {
        if !week_year && starts_late(wd) {
            return (0, year);
        }
        week_year = true;
        year -= 1;
        let days = days_in_year(year);
        first_day_nr -= days;
        wd = (wd + 53 * 7 - days).rem_euclid(7);
    }
    let days = if starts_late(wd) {
        day_nr - (first_day_nr + (7 - wd))
    } else {
        day_nr - (first_day_nr - wd)
    };
    if week_year && days >= 52 * 7 {
        let wd_next = (wd + days_in_year(year)).rem_euclid(7);
        if !starts_late(wd_next) {
            return (1, year + 1);
        }
    }
    (days / 7 + 1, year)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(year: u16, month: u8, day: u8) -> Date {
        Date { year, month, day }
    }

    #[test]
    fn weeks_as_mariadb_numbers_them() {
        // Checked against MariaDB 10.11: WEEK(x, mode) and YEARWEEK(x, mode).
        assert_eq!(week(&d(2024, 1, 1), behaviour(0)).0, 0);
        assert_eq!(week(&d(2024, 12, 31), behaviour(1)).0, 53);
        assert_eq!(week(&d(2024, 1, 1), behaviour(3)).0, 1);
        assert_eq!(week(&d(2024, 12, 31), behaviour(3) | WEEK_YEAR), (1, 2025));
        assert_eq!(week(&d(2024, 1, 1), behaviour(0) | WEEK_YEAR), (53, 2023));
        assert_eq!(week(&d(2008, 2, 20), behaviour(0)).0, 7);
        assert_eq!(week(&d(2008, 12, 31), behaviour(1)).0, 53);
        assert_eq!(week(&d(2000, 1, 1), behaviour(2)).0, 52);
    }
}
