//! The project's health, as `lore status` shows it: one [`Check`] per
//! part an agent depends on (config, each connection, its scan and
//! semantic model, the knowledge store, the search index), each with what
//! to run when it is not right. The CLI adds its own (the background
//! server, the agent clients it set up) and renders them.

use std::path::Path;
use std::time::{Duration, Instant};

use lore_core::error::HasErrorCode;
use lore_core::project::Project;
use lore_semantic::model::ModelCache;
use lore_store::feed::StoreHandle;
use lore_warehouse::catalog::Catalog;
use lore_warehouse::execute::Warehouses;
use serde::Serialize;

use crate::discover::Discover;
use crate::services::Services;

/// A scan older than this is reported as worth refreshing.
pub const STALE_SCAN_DAYS: i64 = 7;

/// How long one connection may take to answer.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How a part is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Ready.
    Ok,
    /// Works, but something is missing or old.
    Warn,
    /// Broken: agents will get errors.
    Fail,
}

/// One part's health.
#[derive(Debug, Serialize)]
pub struct Check {
    /// The part (`config`, `connection`, `scan`, `semantic`, `store`, …).
    pub check: &'static str,
    /// How it is.
    pub status: Level,
    /// What was seen.
    pub detail: String,
    /// The command that fixes or refreshes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// A check without a next step.
pub fn check(check: &'static str, status: Level, detail: impl Into<String>) -> Check {
    Check {
        check,
        status,
        detail: detail.into(),
        next: None,
    }
}

impl Check {
    /// The check with `command` as its next step.
    pub fn next(mut self, command: impl Into<String>) -> Check {
        self.next = Some(command.into());
        self
    }
}

/// Every check of a loaded project: the config, each connection with its
/// scan and semantic model, the store and the index. Connections are
/// tried one after the other, each bounded by [`CONNECT_TIMEOUT`].
pub async fn project_checks(project: &Project, services: &Services) -> Vec<Check> {
    let mut checks = vec![check(
        "project",
        Level::Ok,
        project.config_path().display().to_string(),
    )];
    checks.push(if project.warnings.is_empty() {
        check("config", Level::Ok, "valid")
    } else {
        check(
            "config",
            Level::Warn,
            format!(
                "valid, with {} warning(s): {}",
                project.warnings.len(),
                project.warnings[0].message
            ),
        )
        .next("lore config check")
    });
    let ids = services.warehouses.ids();
    if ids.is_empty() && !project.config.gateway.roots.is_empty() {
        // A code project: the gateway serves it, no database is missing.
        checks.push(check(
            "connection",
            Level::Ok,
            "none (a code project: the gateway toolset serves it)",
        ));
    } else if ids.is_empty() {
        checks.push(check("connection", Level::Warn, "none configured").next(
            "add one: lore connection add NAME --driver postgres --url URL (or uncomment an example in lore.yaml)",
        ));
    }
    for id in &ids {
        checks.push(connection(&services.warehouses, id).await);
        checks.push(scan(&services.catalog, &project.root, id));
        checks.push(semantic(&services.models, id));
    }
    checks.push(store(project, &services.store));
    // A code project serves the gateway alone: the discovery index (tables,
    // wiki, memory) is not asked for there until a connection is added.
    let code_project = ids.is_empty() && !project.config.gateway.roots.is_empty();
    if !code_project || project.index_dir().exists() {
        checks.push(index(project, &services.discover));
    }
    checks
}

/// The knowledge store: the embedded file (not created until first
/// used), or the PostgreSQL database `store.url` names — reachable, and
/// at which transaction. Blocking.
pub fn store(project: &Project, handle: &StoreHandle) -> Check {
    let place = handle.describe();
    if !handle.is_server() && !handle.exists() {
        return match project.config.store.url {
            // store.url is set but cannot be resolved.
            Some(_) => check("store", Level::Fail, place).next("fix store.url in lore.yaml"),
            None => check(
                "store",
                Level::Ok,
                format!("{place} (created on first write)"),
            ),
        };
    }
    let answer = std::thread::scope(|scope| {
        scope
            .spawn(|| handle.open().and_then(|s| s.head().map_err(|e| e.report())))
            .join()
    });
    match answer {
        Ok(Ok(head)) => check(
            "store",
            Level::Ok,
            format!("{place}, at transaction {head}"),
        ),
        Ok(Err(report)) => check(
            "store",
            Level::Fail,
            format!("{place}: {} [{}]", report.message, report.code.as_str()),
        )
        .next(if handle.is_server() {
            "start the PostgreSQL server or fix store.url in lore.yaml; Lore reconnects by itself"
        } else {
            "lore backup restore ARCHIVE (or move .lore/store.db away to start afresh)"
        }),
        Err(_) => check("store", Level::Fail, format!("{place}: could not be read")),
    }
}

/// A connection answers, in how long, and whether its sessions are
/// read-only (or, for engines without such sessions, that the guard
/// checks every statement).
pub async fn connection(warehouses: &Warehouses, id: &str) -> Check {
    let started = Instant::now();
    let outcome = async {
        let (_, connector) = warehouses.get(id)?;
        tokio::time::timeout(CONNECT_TIMEOUT, connector.server_info())
            .await
            .unwrap_or_else(|_| {
                Err(lore_warehouse::error::WarehouseError::Timeout {
                    timeout_ms: CONNECT_TIMEOUT.as_millis() as u64,
                })
            })
    }
    .await;
    let elapsed = started.elapsed().as_millis();
    let guarded_only = warehouses
        .get(id)
        .is_ok_and(|(_, connector)| !connector.has_read_only_sessions());
    match outcome {
        Ok(info) if info.read_only => check(
            "connection",
            Level::Ok,
            format!("{id}: {} in {elapsed} ms, read-only", info.version),
        ),
        Ok(info) if guarded_only => check(
            "connection",
            Level::Ok,
            format!(
                "{id}: {} in {elapsed} ms, no read-only sessions in this engine: the guard checks every statement",
                info.version
            ),
        ),
        Ok(info) => check(
            "connection",
            Level::Fail,
            format!(
                "{id}: {} answers, but its sessions are not read-only",
                info.version
            ),
        )
        .next(format!("lore connection test {id}")),
        Err(e) => check("connection", Level::Fail, format!("{id}: {e}"))
            .next(format!("lore connection test {id}")),
    }
}

/// The connection's latest scan: present, complete, and how old.
pub fn scan(catalog: &Catalog, root: &Path, id: &str) -> Check {
    let dir = lore_warehouse::snapshot::snapshots_dir(root, id);
    let incomplete = lore_warehouse::snapshot::incomplete_snapshots(&dir).unwrap_or_default();
    if !incomplete.is_empty() {
        return check(
            "scan",
            Level::Warn,
            format!(
                "{id}: {} incomplete snapshot folder(s) in {} ({}): ignored; the next scan removes them, or delete them",
                incomplete.len(),
                dir.display(),
                incomplete.join(", ")
            ),
        )
        .next(format!("lore scan {id}"));
    }
    match catalog.latest(id) {
        Ok(Some(snapshot)) => {
            let extracted = &snapshot.manifest.extracted_at;
            let days = lore_core::time::UtcMillis::parse_iso(extracted)
                .map(|t| t.seconds_ago() / 86_400)
                .unwrap_or(0);
            let detail = format!(
                "{id}: {} tables, {}",
                snapshot.tables.len(),
                lore_core::time::age(extracted)
            );
            if days >= STALE_SCAN_DAYS {
                check(
                    "scan",
                    Level::Warn,
                    format!("{detail} (older than {STALE_SCAN_DAYS} days)"),
                )
                .next(format!("lore scan {id}"))
            } else {
                check("scan", Level::Ok, detail)
            }
        }
        Ok(None) => check("scan", Level::Warn, format!("{id}: never scanned"))
            .next(format!("lore scan {id}")),
        Err(e) => check("scan", Level::Fail, format!("{id}: {e}")).next(format!("lore scan {id}")),
    }
}

/// The connection's semantic model: loads, and what it holds.
pub fn semantic(models: &ModelCache, id: &str) -> Check {
    match models.model(id) {
        Ok(model) if model.sources.is_empty() => check(
            "semantic",
            Level::Warn,
            format!("{id}: no semantic model (agents fall back to SQL)"),
        )
        .next(format!("lore sl generate -c {id}")),
        Ok(model) => {
            let measures: usize = model.sources.iter().map(|s| s.measures.len()).sum();
            check(
                "semantic",
                Level::Ok,
                format!("{id}: {} sources, {measures} measures", model.sources.len()),
            )
        }
        Err(e) => check("semantic", Level::Fail, format!("{id}: {e}"))
            .next(format!("lore sl validate -c {id}")),
    }
}

/// The search index: built, and caught up with its sources. Blocking.
pub fn index(project: &Project, discover: &Discover) -> Check {
    if !project.index_dir().exists() {
        return check(
            "index",
            Level::Warn,
            "not built yet (the first search builds it)",
        )
        .next("lore reindex");
    }
    match discover.stale_groups() {
        Ok(stale) if stale.is_empty() => check("index", Level::Ok, "up to date"),
        Ok(stale) => check(
            "index",
            Level::Warn,
            format!(
                "behind on {} (caught up on the next search)",
                stale.join(", ")
            ),
        )
        .next("lore reindex"),
        Err(e) => check("index", Level::Fail, e.message).next("lore reindex"),
    }
}
