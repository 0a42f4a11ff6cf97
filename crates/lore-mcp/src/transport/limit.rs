//! Per-client rate limiting: a fixed window of `requests` per
//! `window_seconds` for each client (its token's name, else its address).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Clients tracked before expired windows are swept.
const SWEEP_AT: usize = 4096;

/// Counts requests per client and window.
pub(crate) struct RateLimiter {
    limit: u32,
    window: Duration,
    clients: Mutex<HashMap<String, Window>>,
}

struct Window {
    started: Instant,
    count: u32,
}

impl RateLimiter {
    /// `limit` requests per `window`; a limit of 0 lets everything through.
    pub(crate) fn new(limit: u32, window: Duration) -> RateLimiter {
        RateLimiter {
            limit,
            window,
            clients: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one request of `client`: `Err(wait)` when it is over its
    /// limit, with how long until its window ends.
    pub(crate) fn hit(&self, client: &str) -> Result<(), Duration> {
        self.hit_at(client, Instant::now())
    }

    fn hit_at(&self, client: &str, now: Instant) -> Result<(), Duration> {
        if self.limit == 0 {
            return Ok(());
        }
        let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        if clients.len() >= SWEEP_AT && !clients.contains_key(client) {
            let window = self.window;
            clients.retain(|_, w| now.duration_since(w.started) < window);
        }
        let entry = match clients.get_mut(client) {
            Some(entry) => entry,
            None => clients.entry(client.to_string()).or_insert(Window {
                started: now,
                count: 0,
            }),
        };
        let elapsed = now.duration_since(entry.started);
        if elapsed >= self.window {
            entry.started = now;
            entry.count = 0;
        }
        if entry.count >= self.limit {
            return Err(self
                .window
                .saturating_sub(now.duration_since(entry.started)));
        }
        entry.count += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_client_gets_its_own_window() {
        let limiter = RateLimiter::new(2, Duration::from_secs(10));
        let t0 = Instant::now();
        assert!(limiter.hit_at("a", t0).is_ok());
        assert!(limiter.hit_at("a", t0).is_ok());
        let wait = limiter
            .hit_at("a", t0 + Duration::from_secs(4))
            .unwrap_err();
        assert_eq!(wait, Duration::from_secs(6));
        assert!(
            limiter.hit_at("b", t0).is_ok(),
            "another client is not limited"
        );
        assert!(
            limiter.hit_at("a", t0 + Duration::from_secs(10)).is_ok(),
            "a new window starts afresh"
        );
    }

    #[test]
    fn a_zero_limit_is_off() {
        let limiter = RateLimiter::new(0, Duration::from_secs(1));
        for _ in 0..1000 {
            assert!(limiter.hit("a").is_ok());
        }
    }
}
