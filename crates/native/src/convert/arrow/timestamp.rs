//! Timestamp columns written as records hold them: integer nanoseconds since the epoch, UTC,
//! as models store an aware `datetime`. A timestamp without a time zone is refused, as a
//! model refuses a naive `datetime`: its instant is unknown.

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::Array;
use arrow_schema::{DataType, TimeUnit};

/// Why a column of type `t` cannot be written, when it is a timestamp without a time zone.
pub fn refusal(name: &str, t: &DataType) -> Option<String> {
    match t {
        DataType::Timestamp(_, None) => Some(format!(
            "column '{name}' is a timestamp without a time zone: records hold UTC nanoseconds, \
             so give it one (pandas: df['{name}'].dt.tz_localize('UTC'), polars: \
             pl.col('{name}').dt.replace_time_zone('UTC'))"
        )),
        _ => None,
    }
}

/// Nanoseconds per unit of `unit`.
fn per(unit: &TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 1_000_000_000,
        TimeUnit::Millisecond => 1_000_000,
        TimeUnit::Microsecond => 1_000,
        TimeUnit::Nanosecond => 1,
    }
}

fn raw(a: &dyn Array, unit: &TimeUnit, row: usize) -> i64 {
    match unit {
        TimeUnit::Second => a.as_primitive::<TimestampSecondType>().value(row),
        TimeUnit::Millisecond => a.as_primitive::<TimestampMillisecondType>().value(row),
        TimeUnit::Microsecond => a.as_primitive::<TimestampMicrosecondType>().value(row),
        TimeUnit::Nanosecond => a.as_primitive::<TimestampNanosecondType>().value(row),
    }
}

/// The instant at `row` of timestamp array `a` in nanoseconds since the epoch (None: it
/// does not fit in 64 bits, beyond the years 1677 to 2262).
pub fn nanos(a: &dyn Array, unit: &TimeUnit, row: usize) -> Option<i64> {
    raw(a, unit, row).checked_mul(per(unit))
}

/// The first row of timestamp column `a` whose instant has no 64-bit nanosecond count.
pub fn first_out_of_range(a: &dyn Array) -> Option<usize> {
    let DataType::Timestamp(unit, _) = a.data_type() else {
        return None;
    };
    (0..a.len()).find(|&row| !a.is_null(row) && nanos(a, unit, row).is_none())
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::TimestampSecondArray;

    #[test]
    fn seconds_become_nanoseconds_and_overflow_is_found() {
        let a = TimestampSecondArray::from(vec![1, i64::MAX / 10]).with_timezone("UTC");
        assert_eq!(nanos(&a, &TimeUnit::Second, 0), Some(1_000_000_000));
        assert_eq!(first_out_of_range(&a), Some(1));
    }
}
