//! The store handle every surface shares, and the change feed that turns
//! committed transactions (from this process or any other) into events.
//!
//! The feed polls the store's newest transaction every [`POLL_INTERVAL`]
//! and is woken at once by this process's own writes, so a write made by
//! the CLI or a second server reaches listeners within one poll interval,
//! and this process's own writes immediately.

use crate::{Durability, KnowledgeStore, PostgresStore, SqliteStore, StoreError, TxChanges, TxId};
use lore_core::ErrorReport;
use lore_core::error::HasErrorCode;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Notify, broadcast};

/// How often the feed looks for transactions written by other processes.
pub const POLL_INTERVAL: Duration = Duration::from_millis(150);

/// The shared store: what the services hold. The backend is chosen
/// where the handle is made ([`StoreHandle::sqlite`], or any
/// [`KnowledgeStore`] through [`StoreHandle::from_store`]); nothing that
/// uses the handle names a backend.
pub struct StoreHandle {
    backend: Backend,
    /// The open store; a failed open is not kept, so fixing the cause
    /// (permissions, a full disk) needs no restart.
    opened: Arc<std::sync::Mutex<Option<Arc<dyn KnowledgeStore>>>>,
}

/// How a handle opens its store.
#[derive(Clone)]
enum Backend {
    /// The embedded SQLite file, opened on first use (so a server that
    /// never touches memory never creates `.lore/store.db`, and start-up
    /// stays instant).
    Sqlite(PathBuf),
    /// A PostgreSQL database (`store.url`), connected on first use and
    /// again after a failure, so a server started while the database is
    /// down serves everything else and recovers when it returns.
    Postgres {
        url: Arc<str>,
        /// Where a relative `sslrootcert` of the url is read from.
        base_dir: Arc<Path>,
    },
    /// `store:` in `lore.yaml` cannot be used (an `env:` variable that is
    /// not set, …): every use answers this.
    Broken(ErrorReport),
    /// A store opened by the caller.
    Open,
}

impl StoreHandle {
    /// A handle on the SQLite store file at `path`, opened on first use.
    pub fn sqlite(path: PathBuf) -> StoreHandle {
        StoreHandle {
            backend: Backend::Sqlite(path),
            opened: Arc::default(),
        }
    }

    /// A handle on the PostgreSQL store at `url`, connected on first use;
    /// a relative `sslrootcert` of the url is read from `base_dir`.
    pub fn postgres(url: &str, base_dir: &Path) -> StoreHandle {
        StoreHandle {
            backend: Backend::Postgres {
                url: url.into(),
                base_dir: base_dir.into(),
            },
            opened: Arc::default(),
        }
    }

    /// The project's store: `store.url` in `lore.yaml` (PostgreSQL) when
    /// set, else the embedded file `.lore/store.db`. Never fails here: a
    /// `store.url` that cannot be resolved is reported by every use.
    pub fn for_project(project: &lore_core::project::Project) -> StoreHandle {
        let Some(url) = &project.config.store.url else {
            return StoreHandle::sqlite(project.store_path());
        };
        match url.resolve("store.url", &project.root) {
            Ok(url) => StoreHandle::postgres(&url, &project.root),
            Err(e) => StoreHandle {
                backend: Backend::Broken(ErrorReport::new(
                    lore_core::ErrorCode::ConfigError,
                    format!("{e}; fix store.url in lore.yaml"),
                )),
                opened: Arc::default(),
            },
        }
    }

    /// Where the store is, for people: `SQLite <path>` or `PostgreSQL
    /// host:port/database` (never a password).
    pub fn describe(&self) -> String {
        match &self.backend {
            Backend::Sqlite(path) => format!("SQLite {}", path.display()),
            Backend::Postgres { url, .. } => format!("PostgreSQL {}", server_of(url)),
            Backend::Broken(report) => format!("unusable: {}", report.message),
            Backend::Open => "opened by the caller".to_string(),
        }
    }

    /// Whether the store is a database server's (shared by several Lore
    /// servers) rather than a file of this project.
    pub fn is_server(&self) -> bool {
        matches!(self.backend, Backend::Postgres { .. })
    }

    /// A handle on a store the caller opened (any backend).
    pub fn from_store(store: Arc<dyn KnowledgeStore>) -> StoreHandle {
        StoreHandle {
            backend: Backend::Open,
            opened: Arc::new(std::sync::Mutex::new(Some(store))),
        }
    }

    /// Whether the store exists yet (reads that must not create it check
    /// first).
    pub fn exists(&self) -> bool {
        match &self.backend {
            Backend::Sqlite(path) => path.is_file(),
            Backend::Postgres { .. } | Backend::Open => true,
            Backend::Broken(_) => false,
        }
    }

    /// The open store (opening it first if needed). Blocking: call it off
    /// the async runtime.
    pub fn open(&self) -> Result<Arc<dyn KnowledgeStore>, ErrorReport> {
        open_shared(&self.opened, &self.backend)
    }

    /// Runs a store operation on the blocking pool (a write may wait for
    /// another process's lock) and maps its error to the public shape.
    pub async fn run<T: Send + 'static>(
        &self,
        op: impl FnOnce(&dyn KnowledgeStore) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, ErrorReport> {
        let (opened, backend) = (Arc::clone(&self.opened), self.backend.clone());
        tokio::task::spawn_blocking(move || {
            let store = open_shared(&opened, &backend)?;
            op(store.as_ref()).map_err(|e| e.report())
        })
        .await
        .map_err(|_| {
            ErrorReport::new(
                lore_core::ErrorCode::Internal,
                "the store operation was interrupted",
            )
        })?
    }
}

/// The store in `slot`, opening it first if needed.
fn open_shared(
    slot: &std::sync::Mutex<Option<Arc<dyn KnowledgeStore>>>,
    backend: &Backend,
) -> Result<Arc<dyn KnowledgeStore>, ErrorReport> {
    let mut opened = slot.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(store) = opened.as_ref() {
        return Ok(Arc::clone(store));
    }
    let store: Arc<dyn KnowledgeStore> = match backend {
        Backend::Sqlite(path) => {
            Arc::new(SqliteStore::open(path, Durability::Process).map_err(|e| e.report())?)
        }
        Backend::Postgres { url, base_dir } => {
            Arc::new(PostgresStore::open_in(url, base_dir).map_err(|e| e.report())?)
        }
        Backend::Broken(report) => return Err(report.clone()),
        Backend::Open => {
            return Err(ErrorReport::new(
                lore_core::ErrorCode::Internal,
                "the store handle lost its store",
            ));
        }
    };
    *opened = Some(Arc::clone(&store));
    Ok(store)
}

/// Committed transactions as a stream of events.
pub struct ChangeFeed {
    store: Arc<StoreHandle>,
    events: broadcast::Sender<Arc<TxChanges>>,
    wake: Arc<Notify>,
    started: tokio::sync::OnceCell<()>,
}

impl ChangeFeed {
    /// A feed over `store`; it starts polling on the first subscription.
    pub fn new(store: Arc<StoreHandle>) -> ChangeFeed {
        ChangeFeed {
            store,
            events: broadcast::channel(1024).0,
            wake: Arc::new(Notify::new()),
            started: tokio::sync::OnceCell::new(),
        }
    }

    /// Tells the feed this process just committed (skips the poll wait).
    pub fn committed(&self) {
        self.wake.notify_one();
    }

    /// Receives every transaction committed from now on. The first call
    /// reads the newest transaction before it returns, so nothing committed
    /// after it is missed.
    pub async fn listen(&self) -> broadcast::Receiver<Arc<TxChanges>> {
        let receiver = self.events.subscribe();
        self.started
            .get_or_init(|| async {
                let seen = self.store.run(|s| s.head()).await.unwrap_or(0);
                let store = Arc::clone(&self.store);
                let events = self.events.clone();
                let wake = Arc::clone(&self.wake);
                if let Backend::Postgres { url, base_dir } = &self.store.backend {
                    tokio::spawn(wake_on_notify(
                        Arc::clone(url),
                        Arc::clone(base_dir),
                        Arc::clone(&wake),
                    ));
                }
                tokio::spawn(poll(store, events, wake, seen));
            })
            .await;
        receiver
    }
}

/// `host:port/database` of a PostgreSQL url (no user, no password).
fn server_of(url: &str) -> String {
    match url.parse::<tokio_postgres::Config>() {
        Ok(config) => {
            let host = match config.get_hosts().first() {
                Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
                #[cfg(unix)]
                Some(tokio_postgres::config::Host::Unix(path)) => path.display().to_string(),
                None => "localhost".to_string(),
            };
            let port = config.get_ports().first().copied().unwrap_or(5432);
            format!(
                "{host}:{port}/{}",
                config.get_dbname().unwrap_or("postgres")
            )
        }
        Err(_) => "(a url that does not parse)".to_string(),
    }
}

/// Wakes the feed the moment any process commits to the PostgreSQL store
/// (each commit sends `NOTIFY lore_store`), so another server's write
/// reaches this one's listeners without waiting for the next poll. The
/// poll stays, as the fallback: a lost connection is reopened a second
/// later, and nothing is missed meanwhile.
async fn wake_on_notify(url: Arc<str>, base_dir: Arc<Path>, wake: Arc<Notify>) {
    loop {
        if let Err(e) = listen_once(&url, &base_dir, &wake).await {
            tracing::debug!("store notifications: {e}; reconnecting");
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

async fn listen_once(url: &str, base_dir: &Path, wake: &Notify) -> Result<(), String> {
    let server = lore_tls::postgres::PgTarget::parse(url)?;
    let tls = server.tls(base_dir)?;
    let (notified, mut notifications) = tokio::sync::mpsc::unbounded_channel();
    let (client, driver) = server
        .connect_with(tls.as_ref(), |mut connection| {
            tokio::spawn(async move {
                while let Some(message) = connection.next_message().await {
                    match message {
                        Ok(tokio_postgres::AsyncMessage::Notification(_)) => {
                            if notified.send(()).is_err() {
                                return;
                            }
                        }
                        Ok(_) => {}
                        Err(_) => return,
                    }
                }
            })
        })
        .await
        .map_err(|e| e.to_string())?;
    client
        .batch_execute(&format!("LISTEN {}", crate::postgres::NOTIFY_CHANNEL))
        .await
        .map_err(|e| e.to_string())?;
    while notifications.recv().await.is_some() {
        wake.notify_one();
    }
    driver.abort();
    Ok(())
}

async fn poll(
    store: Arc<StoreHandle>,
    events: broadcast::Sender<Arc<TxChanges>>,
    wake: Arc<Notify>,
    mut seen: TxId,
) {
    loop {
        tokio::select! {
            _ = wake.notified() => {}
            _ = tokio::time::sleep(POLL_INTERVAL) => {}
        }
        if events.receiver_count() == 0 {
            // Nobody listens: move on, so a later subscriber gets no backlog.
            if let Ok(head) = store.run(|s| s.head()).await {
                seen = head;
            }
            continue;
        }
        let after = seen;
        let Ok(changes) = store.run(move |s| s.changes_since(after, 500)).await else {
            continue;
        };
        for change in changes {
            seen = change.tx_id;
            let _ = events.send(Arc::new(change));
        }
    }
}
