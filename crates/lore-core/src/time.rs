//! Calendar arithmetic and UTC timestamps.
//!
//! Lore needs dates in a few fixed shapes only: ISO-8601 text for artifacts
//! (`2026-11-22T20:15:30.123Z`), day numbers for decoding database values,
//! and ids that sort by time. Day numbers count from 1970-01-01 in the
//! proleptic Gregorian calendar (Howard Hinnant's algorithms); text is
//! parsed by the `time` crate's RFC 3339 parser, which refuses what is not
//! a real date (month 13, February 30).

use std::time::{SystemTime, UNIX_EPOCH};

/// Microseconds in one day.
pub const MICROS_PER_DAY: i64 = 86_400_000_000;

/// Days since 1970-01-01 for a civil date.
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date `(year, month, day)` of a day number.
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `YYYY-MM-DD` of a day number.
pub fn format_date(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// `HH:MM:SS`, with `.ffffff` (trailing zeros trimmed) when there is a
/// fraction, for microseconds into a day.
pub fn format_time_of_day(micros: i64) -> String {
    let seconds = micros.div_euclid(1_000_000);
    let fraction = micros.rem_euclid(1_000_000);
    let mut text = format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    );
    if fraction != 0 {
        let digits = format!("{fraction:06}");
        text.push('.');
        text.push_str(digits.trim_end_matches('0'));
    }
    text
}

/// `YYYY-MM-DDTHH:MM:SS[.ffffff]` for microseconds since 1970-01-01.
pub fn format_timestamp_micros(micros: i64) -> String {
    format!(
        "{}T{}",
        format_date(micros.div_euclid(MICROS_PER_DAY)),
        format_time_of_day(micros.rem_euclid(MICROS_PER_DAY))
    )
}

/// A moment in UTC, with millisecond precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct UtcMillis(pub i64);

impl UtcMillis {
    /// The current time.
    pub fn now() -> UtcMillis {
        let millis = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        UtcMillis(millis)
    }

    /// Whole seconds from this moment to now (0 for a moment in the future).
    pub fn seconds_ago(self) -> i64 {
        (UtcMillis::now().0 - self.0).max(0) / 1000
    }

    /// ISO-8601 with milliseconds and `Z`: `2026-11-22T20:15:30.123Z`.
    pub fn to_iso(self) -> String {
        let days = self.0.div_euclid(86_400_000);
        let ms = self.0.rem_euclid(86_400_000);
        let seconds = ms / 1000;
        format!(
            "{}T{:02}:{:02}:{:02}.{:03}Z",
            format_date(days),
            seconds / 3600,
            seconds / 60 % 60,
            seconds % 60,
            ms % 1000
        )
    }

    /// A compact form that sorts by time and is safe in file names:
    /// `20261122T201530123Z`.
    pub fn to_compact(self) -> String {
        self.to_iso()
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect()
    }

    /// Parses an RFC 3339 timestamp such as [`UtcMillis::to_iso`] writes
    /// (also without milliseconds, or with another offset); `None` for
    /// anything that is not a real moment.
    pub fn parse_iso(text: &str) -> Option<UtcMillis> {
        let parsed = time::OffsetDateTime::parse(
            text.trim(),
            &time::format_description::well_known::Rfc3339,
        )
        .ok()?;
        let millis = parsed.unix_timestamp_nanos() / 1_000_000;
        i64::try_from(millis).ok().map(UtcMillis)
    }
}

/// How long ago an ISO-8601 instant was, in words ("just now", "3 days
/// ago"); the text itself when it does not parse.
pub fn age(iso: &str) -> String {
    let Some(then) = UtcMillis::parse_iso(iso) else {
        return iso.to_string();
    };
    let seconds = then.seconds_ago();
    let (n, unit) = match seconds {
        0..60 => return "just now".to_string(),
        60..3600 => (seconds / 60, "minute"),
        3600..86_400 => (seconds / 3600, "hour"),
        _ => (seconds / 86_400, "day"),
    };
    format!("{n} {unit}{} ago", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_in_words() {
        let now = UtcMillis::now();
        assert_eq!(age(&now.to_iso()), "just now");
        assert_eq!(
            age(&UtcMillis(now.0 - 3 * 86_400_000).to_iso()),
            "3 days ago"
        );
        assert_eq!(age(&UtcMillis(now.0 - 90 * 60_000).to_iso()), "1 hour ago");
        assert_eq!(age("last week"), "last week");
    }

    #[test]
    fn calendar_round_trips() {
        let day = days_from_civil(2024, 2, 29);
        assert_eq!(civil_from_days(day), (2024, 2, 29));
        assert_eq!(format_date(0), "1970-01-01");
        assert_eq!(format_date(-1), "1969-12-31");
    }

    #[test]
    fn timestamps_format_with_trimmed_fractions() {
        assert_eq!(format_timestamp_micros(0), "1970-01-01T00:00:00");
        assert_eq!(
            format_timestamp_micros(MICROS_PER_DAY + 3_661_500_000),
            "1970-01-02T01:01:01.5"
        );
        assert_eq!(format_timestamp_micros(-1), "1969-12-31T23:59:59.999999");
    }

    #[test]
    fn iso_and_compact_forms_sort_by_time_and_parse_back() {
        let t = UtcMillis(days_from_civil(2026, 11, 22) * 86_400_000 + 73_530_123);
        assert_eq!(t.to_iso(), "2026-11-22T20:25:30.123Z");
        assert_eq!(t.to_compact(), "20261122T202530123Z");
        assert_eq!(UtcMillis::parse_iso(&t.to_iso()), Some(t));
        assert!(UtcMillis(t.0 + 1).to_compact() > t.to_compact());
        assert_eq!(UtcMillis::parse_iso("yesterday"), None);
    }

    #[test]
    fn only_real_moments_parse() {
        let t = UtcMillis::parse_iso("2026-11-22T20:15:30.123Z").unwrap();
        assert_eq!(t.to_iso(), "2026-11-22T20:15:30.123Z");
        assert_eq!(UtcMillis::parse_iso(&t.to_iso()), Some(t));
        assert_eq!(
            UtcMillis::parse_iso("2026-11-22T20:15:30Z").map(|t| t.0 % 1000),
            Some(0)
        );
        for bad in [
            "2026-13-01T00:00:00Z",
            "2026-02-30T00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01",
            "not a date at all!!",
        ] {
            assert_eq!(UtcMillis::parse_iso(bad), None, "{bad}");
        }
    }
}
