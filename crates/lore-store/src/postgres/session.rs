//! Sessions with the PostgreSQL server, used from synchronous code.
//!
//! The driver (`tokio-postgres`) is asynchronous; [`crate::KnowledgeStore`]
//! is not, and is called from plain threads, from tokio's blocking pool
//! (`spawn_blocking`) and, by mistake, from async tasks. A nested
//! `Runtime::block_on` panics on a tokio worker thread, so no caller ever
//! enters a runtime here:
//!
//! - each store owns a private runtime (one worker thread) that opens the
//!   connections and drives them (all socket I/O happens there);
//! - a query's future only talks to its connection's task through
//!   channels, so the calling thread polls it itself with [`block_on`], a
//!   minimal executor that parks the thread until the connection task
//!   wakes it.
//!
//! Whatever thread calls, nothing panics and nothing deadlocks (the
//! connection is driven elsewhere); an async task that calls the store
//! directly only blocks its own worker for the duration of the call, as
//! it would with SQLite.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll, Wake};

use lore_tls::postgres::PgTarget;
use tokio_postgres::types::{FromSql, ToSql};
use tokio_postgres::{Client, Row, Statement};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::error::StoreError;

/// Parameters of one statement.
pub(super) type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

/// Idle sessions kept open.
const IDLE_SESSIONS: usize = 8;

/// Sessions one store has open at most: callers beyond it wait for one
/// (a server's connections are few: 100 by default, shared by every
/// process).
const MAX_SESSIONS: usize = 16;

/// How long a caller waits for a session when all are busy.
const SESSION_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Prepared statements a session keeps (queries built from filters vary).
const STATEMENTS_KEPT: usize = 256;

/// Column `index` of `row`, or why it cannot be read as a `T`.
pub(super) fn get<'a, T: FromSql<'a>>(row: &'a Row, index: usize) -> Result<T, StoreError> {
    row.try_get(index).map_err(|e| {
        StoreError::Unavailable(format!(
            "the PostgreSQL store holds a value this build cannot read ({e}); is it a Lore store of another version?"
        ))
    })
}

/// `($n, $n+1, …)`: the values of one row of `width` parameters.
pub(super) fn placeholders(n: usize, width: usize) -> String {
    let marks: Vec<String> = (n..n + width).map(|i| format!("${i}")).collect();
    format!("({})", marks.join(", "))
}

/// Runs `future` to completion on the calling thread, parking it while
/// the future waits. Never enters a tokio runtime, so it is safe on any
/// thread.
pub(super) fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
        fn wake_by_ref(self: &Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Arc::new(Unpark(std::thread::current())).into();
    let mut context = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        match future.as_mut().poll(&mut context) {
            Poll::Ready(output) => return output,
            // A spurious wake-up only polls once more.
            Poll::Pending => std::thread::park(),
        }
    }
}

/// How sessions are opened, and the idle ones.
pub(super) struct Sessions {
    /// Drives the connections; `None` only while the store is dropped.
    runtime: Option<tokio::runtime::Runtime>,
    /// The server and the driver's settings.
    server: PgTarget,
    /// The TLS connector, unless the url says `sslmode=disable`.
    tls: Option<MakeRustlsConnect>,
    /// Run on every new session (the schema, the lock timeout).
    setup: String,
    /// The channel writes notify.
    channel: Arc<str>,
    pool: Mutex<Pool>,
    /// Signalled when a session is returned or closed.
    returned: Condvar,
}

/// The sessions of a store: those idle, and how many are open.
#[derive(Default)]
struct Pool {
    idle: Vec<Session>,
    open: usize,
}

impl Sessions {
    /// Sessions with the server `server` names, over `tls`; `setup` runs
    /// on each new one, and committed writes notify `channel`.
    pub fn new(
        server: PgTarget,
        tls: Option<MakeRustlsConnect>,
        setup: String,
        channel: &str,
    ) -> Result<Sessions, StoreError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .max_blocking_threads(2)
            .thread_name("lore-store-postgres")
            .enable_all()
            .build()
            .map_err(|e| {
                StoreError::Unavailable(format!(
                    "cannot start the PostgreSQL store's driver thread: {e}"
                ))
            })?;
        Ok(Sessions {
            runtime: Some(runtime),
            server,
            tls,
            setup,
            channel: Arc::from(channel),
            pool: Mutex::default(),
            returned: Condvar::new(),
        })
    }

    /// Runs `f` on an idle session (opening one if none is idle, or
    /// waiting for one when [`MAX_SESSIONS`] are busy), and keeps the
    /// session for later unless it broke.
    pub fn with<T>(
        &self,
        f: impl FnOnce(&mut Session) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut lease = Lease {
            sessions: self,
            session: Some(self.checkout()?),
        };
        match lease.session.as_mut() {
            Some(session) => f(session),
            None => Err(StoreError::Unavailable(
                "the PostgreSQL store lost a session".to_string(),
            )),
        }
    }

    /// Takes `session` back (idle, unless it broke or enough are idle).
    fn give_back(&self, session: Session) {
        let mut pool = self.lock_pool();
        if !session.broken && !session.client.is_closed() && pool.idle.len() < IDLE_SESSIONS {
            pool.idle.push(session);
        } else {
            pool.open -= 1;
        }
        drop(pool);
        self.returned.notify_one();
    }

    fn lock_pool(&self) -> MutexGuard<'_, Pool> {
        self.pool
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// An idle session, or a new one (counted as open before it is).
    fn checkout(&self) -> Result<Session, StoreError> {
        let deadline = std::time::Instant::now() + SESSION_WAIT;
        let mut pool = self.lock_pool();
        loop {
            while let Some(session) = pool.idle.pop() {
                // A connection the server closed (a restart, an idle
                // timeout) is noticed by its task and not used again.
                if !session.client.is_closed() {
                    return Ok(session);
                }
                pool.open -= 1;
            }
            if pool.open < MAX_SESSIONS {
                pool.open += 1;
                drop(pool);
                let opened = self.open();
                if opened.is_err() {
                    self.lock_pool().open -= 1;
                    self.returned.notify_one();
                }
                return opened;
            }
            let now = std::time::Instant::now();
            if now >= deadline {
                return Err(StoreError::Busy);
            }
            pool = self
                .returned
                .wait_timeout(pool, deadline - now)
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .0;
        }
    }

    /// Opens a new session.
    fn open(&self) -> Result<Session, StoreError> {
        let runtime = self.runtime.as_ref().ok_or_else(|| {
            StoreError::Unavailable("the PostgreSQL store is closing".to_string())
        })?;
        let server = self.server.clone();
        let tls = self.tls.clone();
        // The connection's task ends when the client is dropped or the
        // server goes away.
        let connecting = runtime.spawn(async move { server.connect(tls.as_ref()).await });
        let client = match block_on(connecting) {
            Ok(Ok(client)) => client,
            Ok(Err(e)) => return Err(connect_error(&self.server, e)),
            Err(_) => {
                return Err(StoreError::Unavailable(
                    "the PostgreSQL store's driver stopped while connecting".to_string(),
                ));
            }
        };
        let mut session = Session {
            client,
            statements: HashMap::new(),
            broken: false,
            channel: Arc::clone(&self.channel),
        };
        session.batch(&self.setup)?;
        Ok(session)
    }
}

impl Drop for Sessions {
    fn drop(&mut self) {
        self.lock_pool().idle.clear();
        // Never blocks, so dropping a store inside an async task is safe
        // (dropping a runtime there would panic).
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// A session in use; given back when dropped (a panicking caller too).
struct Lease<'a> {
    sessions: &'a Sessions,
    session: Option<Session>,
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let Some(session) = self.session.take() {
            self.sessions.give_back(session);
        }
    }
}

/// Why a connection could not be opened, and how to fix it.
fn connect_error(server: &PgTarget, error: tokio_postgres::Error) -> StoreError {
    if error.as_db_error().is_some() {
        // The server answered: a login, a database or a limit.
        return StoreError::from(error);
    }
    let target = server.address();
    if let Some(fix) = server.tls_failure(&error) {
        return StoreError::Refused(format!(
            "TLS with the PostgreSQL server of the knowledge store at {target} failed: {fix}"
        ));
    }
    let mut reason = error.to_string();
    if let Some(source) = std::error::Error::source(&error) {
        let source = source.to_string();
        if !reason.contains(&source) {
            reason = format!("{reason}: {source}");
        }
    }
    StoreError::ServerUnavailable(format!(
        "cannot reach the PostgreSQL server of the knowledge store at {target} ({reason}); check that it runs and that the store url names the right host and port, then retry"
    ))
}

/// One connection, with the statements it has prepared.
pub(super) struct Session {
    client: Client,
    statements: HashMap<String, Statement>,
    /// The connection failed outside a statement (I/O, protocol): it is
    /// not reused.
    broken: bool,
    channel: Arc<str>,
}

impl Session {
    /// The channel a committed write notifies (`NOTIFY <channel>, '<tx_id>'`).
    pub fn channel(&self) -> &str {
        &self.channel
    }

    /// The prepared statement for `sql` (prepared once per session).
    fn statement(&mut self, sql: &str) -> Result<Statement, StoreError> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let prepared = block_on(self.client.prepare(sql));
        let statement = self.settle(prepared)?;
        if self.statements.len() >= STATEMENTS_KEPT {
            self.statements.clear();
        }
        self.statements.insert(sql.to_string(), statement.clone());
        Ok(statement)
    }

    /// The driver's result as the store's, marking the session broken
    /// when the connection (not the statement) failed.
    fn settle<T>(&mut self, result: Result<T, tokio_postgres::Error>) -> Result<T, StoreError> {
        result.map_err(|e| {
            if e.as_db_error().is_none() {
                self.broken = true;
            }
            StoreError::from(e)
        })
    }

    /// Every row `sql` returns.
    pub fn query(&mut self, sql: &str, params: Params<'_>) -> Result<Vec<Row>, StoreError> {
        let statement = self.statement(sql)?;
        let rows = block_on(self.client.query(&statement, params));
        self.settle(rows)
    }

    /// The first row `sql` returns, if any.
    pub fn query_opt(&mut self, sql: &str, params: Params<'_>) -> Result<Option<Row>, StoreError> {
        Ok(self.query(sql, params)?.into_iter().next())
    }

    /// The first row `sql` returns (one is expected).
    pub fn query_one(&mut self, sql: &str, params: Params<'_>) -> Result<Row, StoreError> {
        self.query_opt(sql, params)?.ok_or_else(|| {
            StoreError::Unavailable("the PostgreSQL store answered no row".to_string())
        })
    }

    /// Runs `sql`; returns the rows it changed.
    pub fn execute(&mut self, sql: &str, params: Params<'_>) -> Result<u64, StoreError> {
        let statement = self.statement(sql)?;
        let changed = block_on(self.client.execute(&statement, params));
        self.settle(changed)
    }

    /// Inserts `rows` with one statement: `head` (`INSERT INTO t (a, b)
    /// VALUES`) then, for each row, the values `tuple(n)` writes with its
    /// parameters numbered from `n`. Nothing when there are no rows.
    pub fn insert_rows<const WIDTH: usize>(
        &mut self,
        head: &str,
        tuple: fn(usize) -> String,
        rows: &[[&(dyn ToSql + Sync); WIDTH]],
    ) -> Result<(), StoreError> {
        if rows.is_empty() {
            return Ok(());
        }
        let mut sql = String::from(head);
        for i in 0..rows.len() {
            sql.push_str(if i == 0 { " " } else { ", " });
            sql.push_str(&tuple(i * WIDTH + 1));
        }
        let params: Vec<&(dyn ToSql + Sync)> = rows.iter().flatten().copied().collect();
        self.execute(&sql, &params)?;
        Ok(())
    }

    /// Runs statements without parameters (the simple protocol).
    pub fn batch(&mut self, sql: &str) -> Result<(), StoreError> {
        let done = block_on(self.client.batch_execute(sql));
        self.settle(done)
    }

    /// Starts a read-write transaction (`READ COMMITTED`).
    pub fn begin(&mut self) -> Result<Tx<'_>, StoreError> {
        self.batch("BEGIN")?;
        Ok(Tx {
            session: self,
            open: true,
        })
    }

    /// Starts a read-only transaction that sees one snapshot throughout.
    pub fn begin_snapshot(&mut self) -> Result<Tx<'_>, StoreError> {
        self.batch("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")?;
        Ok(Tx {
            session: self,
            open: true,
        })
    }
}

/// An open transaction: rolled back when dropped uncommitted.
pub(super) struct Tx<'a> {
    session: &'a mut Session,
    open: bool,
}

impl Tx<'_> {
    /// Commits.
    pub fn commit(mut self) -> Result<(), StoreError> {
        self.open = false;
        self.session.batch("COMMIT")
    }
}

impl std::ops::Deref for Tx<'_> {
    type Target = Session;
    fn deref(&self) -> &Session {
        self.session
    }
}

impl std::ops::DerefMut for Tx<'_> {
    fn deref_mut(&mut self) -> &mut Session {
        self.session
    }
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        if self.open && self.session.batch("ROLLBACK").is_err() {
            self.session.broken = true;
        }
    }
}
