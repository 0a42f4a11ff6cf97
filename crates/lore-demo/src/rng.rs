//! A small deterministic random generator (SplitMix64) and calendar helpers
//! for the demo data. Determinism matters more than quality here: the same
//! binary always produces the same warehouse, so docs and tests can cite it.

/// SplitMix64: tiny, fast, and good enough for synthetic data.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(super) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub(super) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [low, high] (inclusive).
    pub(super) fn range(&mut self, low: i64, high: i64) -> i64 {
        low + (self.next_u64() % ((high - low + 1) as u64)) as i64
    }

    pub(super) fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Picks from `(item, weight)` pairs.
    pub(super) fn weighted<T: Copy>(&mut self, items: &[(T, f64)]) -> T {
        let total: f64 = items.iter().map(|(_, w)| w).sum();
        let mut pick = self.unit() * total;
        for (item, weight) in items {
            if pick < *weight {
                return *item;
            }
            pick -= weight;
        }
        items[items.len() - 1].0
    }

    pub(super) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next_u64() % items.len() as u64) as usize]
    }
}

pub(super) use lore_core::time::{civil_from_days, days_from_civil};

/// `YYYY-MM-DD`.
pub(super) fn date(days: i64) -> String {
    lore_core::time::format_date(days)
}

/// `YYYY-MM-DD HH:MM:SS` for a day plus seconds into it.
pub(super) fn timestamp(days: i64, seconds: i64) -> String {
    let seconds = seconds.clamp(0, 86_399);
    format!(
        "{} {:02}:{:02}:{:02}",
        date(days),
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// `YYYY-MM-DD HH:MM:SS` for seconds since 1970-01-01.
pub(super) fn timestamp_at(seconds: i64) -> String {
    timestamp(seconds.div_euclid(86_400), seconds.rem_euclid(86_400))
}

/// Day of week, 0 = Monday … 6 = Sunday.
pub(super) fn weekday(days: i64) -> i64 {
    (days + 3).rem_euclid(7)
}

/// The same day of month `months` later, clamped to the month's end.
pub(super) fn add_months(days: i64, months: i64) -> i64 {
    let (y, m, d) = civil_from_days(days);
    let index = y * 12 + (m - 1) + months;
    let (ny, nm) = (index.div_euclid(12), index.rem_euclid(12) + 1);
    let last = days_from_civil(
        if nm == 12 { ny + 1 } else { ny },
        if nm == 12 { 1 } else { nm + 1 },
        1,
    ) - days_from_civil(ny, nm, 1);
    days_from_civil(ny, nm, d.min(last))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendar_round_trips_and_knows_weekdays() {
        let day = days_from_civil(2024, 2, 29);
        assert_eq!(civil_from_days(day), (2024, 2, 29));
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(weekday(days_from_civil(2025, 12, 31)), 2, "a Wednesday");
        assert_eq!(
            date(add_months(days_from_civil(2024, 1, 31), 1)),
            "2024-02-29"
        );
        assert_eq!(timestamp(0, 3661), "1970-01-01 01:01:01");
        assert_eq!(timestamp_at(86_400 + 61), "1970-01-02 00:01:01");
    }

    #[test]
    fn same_seed_same_sequence() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }
}
