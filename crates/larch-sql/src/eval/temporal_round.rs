//! ROUND and TRUNCATE of a TIME, DATETIME or TIMESTAMP, as MariaDB computes
//! them: the value stays of its type, its fractional seconds rounded (half
//! away from zero) or cut to `places` digits, 0 to 6 (fewer than 0 is 0).
//! A rounding that carries reaches the seconds, minutes and days; a TIME
//! stays within -838:59:59 and 838:59:59. The result's type has `places`
//! fractional digits when `places` is a constant, else the argument's
//! (`compile::function_types`).

use larch_engine::record::value::{DateTime, Timestamp, Value, TIME_MAX_MICROS};

use crate::value::temporal::{datetime_from_micros, datetime_micros};

/// `v` rounded (or cut) to `places` fractional digits; `None` when `v` is
/// no TIME, DATETIME or TIMESTAMP.
pub(super) fn round(v: &Value, places: i128, rounding: bool) -> Option<Value> {
    let unit = 10i64.pow(6 - places.clamp(0, 6) as u32);
    let cut = |us: i64| {
        let r = if rounding {
            (us.abs() + unit / 2) / unit * unit
        } else {
            us.abs() / unit * unit
        };
        r * us.signum()
    };
    Some(match v {
        Value::Time(us) => {
            let max = TIME_MAX_MICROS / unit * unit;
            Value::Time(cut(*us).clamp(-max, max))
        }
        Value::Datetime(dt) => {
            let micros = cut(i64::from(dt.micros));
            if micros < 1_000_000 {
                Value::Datetime(DateTime {
                    micros: micros as u32,
                    ..*dt
                })
            } else {
                // The next second (a date with zero parts cannot carry:
                // it keeps its whole seconds).
                let next = datetime_micros(&DateTime { micros: 0, ..*dt })
                    .and_then(|us| datetime_from_micros(us + 1_000_000));
                Value::Datetime(next.unwrap_or(DateTime { micros: 0, ..*dt }))
            }
        }
        Value::Timestamp(ts) => {
            let micros = cut(i64::from(ts.micros));
            Value::Timestamp(if micros < 1_000_000 {
                Timestamp {
                    secs: ts.secs,
                    micros: micros as u32,
                }
            } else {
                Timestamp {
                    secs: ts.secs.saturating_add(1),
                    micros: 0,
                }
            })
        }
        _ => return None,
    })
}
