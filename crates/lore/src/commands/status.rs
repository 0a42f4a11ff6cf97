//! `lore status`: one screen that says whether the project is ready for
//! agents (project, config, connections, scans, semantic layer, index,
//! server, agent clients) and, for anything that is not, the command to run.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;
use lore_core::config::ConfigError;
use lore_core::project::{Project, resolve_project_dir};
use lore_semantic::model::ModelCache;
use lore_warehouse::catalog::Catalog;
use lore_warehouse::execute::Warehouses;
use serde::Serialize;

use super::daemon::{self, Liveness};

/// A scan older than this is reported as worth refreshing.
const STALE_SCAN_DAYS: i64 = 7;

/// How long one connection may take to answer.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// `lore status`.
#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum Level {
    Ok,
    /// Works, but something is missing or old.
    Warn,
    /// Broken: agents will get errors.
    Fail,
}

#[derive(Debug, Serialize)]
struct Check {
    check: &'static str,
    status: Level,
    detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    next: Option<String>,
}

fn check(check: &'static str, status: Level, detail: impl Into<String>) -> Check {
    Check {
        check,
        status,
        detail: detail.into(),
        next: None,
    }
}

impl Check {
    fn next(mut self, command: impl Into<String>) -> Check {
        self.next = Some(command.into());
        self
    }
}

pub fn run(args: StatusArgs, project_dir: Option<&Path>) -> anyhow::Result<()> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let root = resolve_project_dir(project_dir, &cwd);
    let checks = match Project::load(&root) {
        Ok(project) => project_checks(&project),
        Err(ConfigError::NotFound { path }) => vec![
            check(
                "project",
                Level::Fail,
                format!("no lore.yaml at {}", path.display()),
            )
            .next("lore init (or lore demo to try Lore on a sample warehouse)"),
        ],
        Err(e) => vec![
            check(
                "project",
                Level::Ok,
                root.join("lore.yaml").display().to_string(),
            ),
            check("config", Level::Fail, e.to_string())
                .next("fix lore.yaml, then lore config check"),
        ],
    };
    let ready = checks.iter().all(|c| c.status == Level::Ok);
    if args.json {
        let value = serde_json::json!({
            "projectDir": root.display().to_string(),
            "ready": ready,
            "checks": checks,
        });
        println!("{}", serde_json::to_string_pretty(&value)?);
        return failed(&checks);
    }
    println!("Lore status for {}\n", root.display());
    for c in &checks {
        let mark = match c.status {
            Level::Ok => "ok  ",
            Level::Warn => "--  ",
            Level::Fail => "FAIL",
        };
        match &c.next {
            Some(next) => println!(
                "  {mark}  {:<11} {}\n              → {next}",
                c.check, c.detail
            ),
            None => println!("  {mark}  {:<11} {}", c.check, c.detail),
        }
    }
    let next: Vec<&str> = checks.iter().filter_map(|c| c.next.as_deref()).collect();
    if next.is_empty() {
        println!("\nReady: agents connected to this project have everything they need.");
    } else {
        println!("\nNext: {}", next[0]);
    }
    failed(&checks)
}

/// An error (exit 1) when a check failed; warnings alone pass.
fn failed(checks: &[Check]) -> anyhow::Result<()> {
    let failed: Vec<&str> = checks
        .iter()
        .filter(|c| c.status == Level::Fail)
        .map(|c| c.check)
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        anyhow::bail!("failed: {}", failed.join(", "))
    }
}

fn project_checks(project: &Project) -> Vec<Check> {
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
    let warehouses = Warehouses::for_project(project);
    let ids = warehouses.ids();
    if ids.is_empty() {
        checks.push(check("connection", Level::Warn, "none configured").next(
            "add one: lore connection add NAME --driver postgres --url URL (or uncomment an example in lore.yaml)",
        ));
    }
    let catalog = Catalog::new(&project.root);
    let models = ModelCache::new(&project.semantic_layer_dir());
    for id in &ids {
        checks.push(connection_check(&warehouses, id));
        checks.push(scan_check(&catalog, &project.root, id));
        checks.push(semantic_check(&models, id));
    }
    checks.push(store_check(project));
    checks.push(index_check(project));
    checks.push(server_check(project));
    checks.push(agents_check(project));
    checks
}

/// The knowledge store: the embedded file (not created until first
/// used), or the PostgreSQL database `store.url` names — reachable, and
/// at which transaction.
fn store_check(project: &Project) -> Check {
    let handle = lore_store::feed::StoreHandle::for_project(project);
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
            .spawn(|| {
                use lore_core::error::HasErrorCode;
                handle.open().and_then(|s| s.head().map_err(|e| e.report()))
            })
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

fn connection_check(warehouses: &Warehouses, id: &str) -> Check {
    let started = Instant::now();
    let outcome = super::block_on(async {
        let (_, connector) = warehouses.get(id)?;
        tokio::time::timeout(CONNECT_TIMEOUT, connector.server_info())
            .await
            .unwrap_or_else(|_| {
                Err(lore_warehouse::error::WarehouseError::Timeout {
                    timeout_ms: CONNECT_TIMEOUT.as_millis() as u64,
                })
            })
    });
    let elapsed = started.elapsed().as_millis();
    let guarded_only = warehouses
        .get(id)
        .is_ok_and(|(_, connector)| !connector.has_read_only_sessions());
    match outcome {
        Ok(Ok(info)) if info.read_only => check(
            "connection",
            Level::Ok,
            format!("{id}: {} in {elapsed} ms, read-only", info.version),
        ),
        Ok(Ok(info)) if guarded_only => check(
            "connection",
            Level::Ok,
            format!(
                "{id}: {} in {elapsed} ms, no read-only sessions in this engine: the guard checks every statement",
                info.version
            ),
        ),
        Ok(Ok(info)) => check(
            "connection",
            Level::Fail,
            format!(
                "{id}: {} answers, but its sessions are not read-only",
                info.version
            ),
        )
        .next(format!("lore connection test {id}")),
        Ok(Err(e)) => check("connection", Level::Fail, format!("{id}: {e}"))
            .next(format!("lore connection test {id}")),
        Err(e) => check("connection", Level::Fail, format!("{id}: {e:#}")),
    }
}

fn scan_check(catalog: &Catalog, root: &Path, id: &str) -> Check {
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
                super::connection::age(extracted)
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

fn semantic_check(models: &ModelCache, id: &str) -> Check {
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

fn index_check(project: &Project) -> Check {
    if !project.index_dir().exists() {
        return check(
            "index",
            Level::Warn,
            "not built yet (the first search builds it)",
        )
        .next("lore reindex");
    }
    let discover = lore_context::discover::Discover::standalone(project);
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

fn server_check(project: &Project) -> Check {
    match daemon::liveness(project) {
        Liveness::Running {
            state,
            health: Some(_),
        } => check(
            "server",
            Level::Ok,
            format!(
                "running at {} (pid {}, token auth {})",
                state.url,
                state.pid,
                if state.token_auth { "on" } else { "off" }
            ),
        ),
        Liveness::Running {
            state,
            health: None,
        } => check(
            "server",
            Level::Fail,
            format!(
                "pid {} runs but does not answer at {}",
                state.pid, state.url
            ),
        )
        .next("lore mcp logs, then lore mcp stop && lore mcp start"),
        Liveness::Stale(state) => check(
            "server",
            Level::Warn,
            format!("stale: pid {} is not running", state.pid),
        )
        .next("lore mcp start"),
        Liveness::Stopped => check("server", Level::Warn, "stopped").next("lore mcp start"),
    }
}

fn agents_check(project: &Project) -> Check {
    let path = project
        .state_dir()
        .join("agents")
        .join("install-manifest.json");
    let configured = super::setup::configured_targets(&path);
    if configured.is_empty() {
        check("agents", Level::Warn, "no agent client set up by Lore").next(
            "lore setup agents --target claude-code (or cursor, codex, opencode, claude-desktop)",
        )
    } else {
        check("agents", Level::Ok, configured.join(", "))
    }
}
