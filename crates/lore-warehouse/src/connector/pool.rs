//! A small bounded pool of database sessions, shared by every driver.
//!
//! At most `max` sessions exist at once (a semaphore permit per session in
//! use); idle sessions are reused newest first and dropped once they have
//! been idle longer than [`MAX_IDLE`], before a server could time them out.
//! A session goes back to the pool only through [`Lease::release`]: a lease
//! dropped any other way (timeout, cancellation, an error that leaves the
//! session in doubt) discards its session, so a half-finished session is
//! never handed to the next caller.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Idle sessions older than this are closed rather than reused.
pub(crate) const MAX_IDLE: Duration = Duration::from_secs(300);

struct Idle<S> {
    session: S,
    since: Instant,
}

struct Inner<S> {
    idle: Mutex<Vec<Idle<S>>>,
    permits: Arc<Semaphore>,
}

/// A bounded pool of sessions of type `S`.
pub(crate) struct Pool<S> {
    inner: Arc<Inner<S>>,
}

impl<S> std::fmt::Debug for Pool<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("available", &self.inner.permits.available_permits())
            .finish()
    }
}

impl<S: Send + 'static> Pool<S> {
    /// A pool of at most `max` sessions (at least one).
    pub(crate) fn new(max: usize) -> Pool<S> {
        Pool {
            inner: Arc::new(Inner {
                idle: Mutex::new(Vec::new()),
                permits: Arc::new(Semaphore::new(max.max(1))),
            }),
        }
    }

    /// Waits for a free slot, then reuses an idle session or opens one
    /// with `open`.
    pub(crate) async fn acquire<E, F, Fut>(&self, open: F) -> Result<Lease<S>, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<S, E>>,
    {
        let permit = Arc::clone(&self.inner.permits)
            .acquire_owned()
            .await
            .expect("the pool's semaphore is never closed");
        let reused = self.take_idle();
        let session = match reused {
            Some(session) => session,
            None => open().await?,
        };
        Ok(Lease {
            inner: Arc::clone(&self.inner),
            session: Some(session),
            _permit: permit,
        })
    }

    fn take_idle(&self) -> Option<S> {
        let mut idle = self.inner.idle.lock().ok()?;
        // Newest last; anything too old is dropped on the way.
        while let Some(entry) = idle.pop() {
            if entry.since.elapsed() < MAX_IDLE {
                return Some(entry.session);
            }
        }
        None
    }

    /// Idle sessions waiting for reuse.
    #[cfg(test)]
    pub(crate) fn idle_count(&self) -> usize {
        self.inner.idle.lock().map(|idle| idle.len()).unwrap_or(0)
    }
}

/// One session borrowed from a [`Pool`].
pub(crate) struct Lease<S> {
    inner: Arc<Inner<S>>,
    session: Option<S>,
    _permit: OwnedSemaphorePermit,
}

impl<S> Lease<S> {
    /// The session.
    pub(crate) fn session(&mut self) -> &mut S {
        self.session
            .as_mut()
            .expect("a lease holds its session until released or taken")
    }

    /// Moves the session out (to a blocking thread, say); give it back
    /// with [`Lease::restore`] before releasing.
    pub(crate) fn take(&mut self) -> S {
        self.session
            .take()
            .expect("a lease holds its session until released or taken")
    }

    /// Gives back a session moved out with [`Lease::take`].
    pub(crate) fn restore(&mut self, session: S) {
        self.session = Some(session);
    }

    /// Returns the session to the pool for reuse.
    pub(crate) fn release(mut self) {
        if let Some(session) = self.session.take()
            && let Ok(mut idle) = self.inner.idle.lock()
        {
            idle.push(Idle {
                session,
                since: Instant::now(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test]
    async fn released_sessions_are_reused_and_dropped_ones_are_not() {
        let opened = AtomicUsize::new(0);
        let pool: Pool<usize> = Pool::new(2);
        let open = || async { Ok::<_, ()>(opened.fetch_add(1, Ordering::SeqCst)) };
        let mut first = pool.acquire(open).await.unwrap();
        assert_eq!(*first.session(), 0);
        first.release();
        let mut again = pool.acquire(open).await.unwrap();
        assert_eq!(*again.session(), 0, "the idle session is reused");
        drop(again);
        assert_eq!(pool.idle_count(), 0, "a dropped lease discards its session");
        let mut fresh = pool.acquire(open).await.unwrap();
        assert_eq!(*fresh.session(), 1);
    }

    #[tokio::test]
    async fn no_more_than_max_sessions_are_lent_at_once() {
        let pool: Pool<u8> = Pool::new(1);
        let held = pool.acquire(|| async { Ok::<_, ()>(1) }).await.unwrap();
        let waiting = tokio::time::timeout(
            Duration::from_millis(50),
            pool.acquire(|| async { Ok::<_, ()>(2) }),
        )
        .await;
        assert!(waiting.is_err(), "the second caller waits for the first");
        held.release();
        let mut next = pool.acquire(|| async { Ok::<_, ()>(3) }).await.unwrap();
        assert_eq!(*next.session(), 1);
    }

    #[tokio::test]
    async fn a_failed_open_frees_its_slot() {
        let pool: Pool<u8> = Pool::new(1);
        let failed = pool.acquire(|| async { Err::<u8, _>("down") }).await;
        assert!(failed.is_err());
        assert!(pool.acquire(|| async { Ok::<_, ()>(1) }).await.is_ok());
    }
}
