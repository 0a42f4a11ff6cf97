//! `lore status`: one screen that says whether the project is ready for
//! agents (project, config, connections, scans, semantic layer, index,
//! server, agent clients) and, for anything that is not, the command to run.

use std::path::Path;

use anyhow::Context;
use lore_context::health::{self, Check, Level, check};
use lore_context::services::Services;
use lore_core::config::ConfigError;
use lore_core::project::{Project, resolve_project_dir};
use lore_gateway::Gateway;
use lore_gateway::ingest::follow::{FollowMode, RootFreshness};

use super::daemon::{self, Liveness};
use super::foreground;

/// `lore status`.
#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: StatusArgs, project_dir: Option<&Path>) -> anyhow::Result<()> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let root = resolve_project_dir(project_dir, &cwd);
    let checks = match Project::load(&root) {
        Ok(project) => project_checks(&project)?,
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

/// The project's checks (the health service's, then the background
/// server's and the agent clients').
fn project_checks(project: &Project) -> anyhow::Result<Vec<Check>> {
    let services = Services::for_project(project);
    let mut checks = super::block_on(health::project_checks(project, &services))?;
    // The gateway: the project's roots, or those a shared store's file
    // log brings (a server with no root of its own answers them).
    let gateway = super::gateway::gateway_of(project);
    if !project.config.gateway.roots.is_empty() || !gateway.store_roots().is_empty() {
        checks.push(gateway_check(&gateway));
    }
    checks.push(server_check(project));
    checks.push(agents_check(project));
    Ok(checks)
}

/// The gateway's roots, its last ingest (when, how it went, what the
/// index holds) and how fresh each root is.
fn gateway_check(gateway: &Gateway) -> Check {
    let roots: Vec<&str> = gateway.roots().iter().map(|r| r.name.as_str()).collect();
    let roots = if roots.is_empty() {
        "no root of its own".to_string()
    } else {
        format!("{} root(s): {}", roots.len(), roots.join(", "))
    };
    let fresh = gateway.freshness();
    let from_store = fresh.iter().any(|f| f.follow == FollowMode::Store);
    match gateway.last_run(None) {
        // Another server sharing the store ingests them: this one answers
        // from the store's file log.
        None if from_store => {
            let level = if fresh.iter().all(|f| f.fresh) {
                Level::Ok
            } else {
                Level::Warn
            };
            check(
                "gateway",
                level,
                format!(
                    "{roots}{}; {}",
                    if gateway.roots().is_empty() {
                        ""
                    } else {
                        "; not ingested by this server"
                    },
                    freshness_line(&fresh)
                ),
            )
        }
        None => check("gateway", Level::Warn, format!("{roots}; never ingested"))
            .next("lore gateway ingest"),
        Some(run) if !run.success => check(
            "gateway",
            Level::Warn,
            format!(
                "{roots}; the last ingest ({}) failed: {}; {}",
                lore_core::time::age(&run.started_at),
                run.error.as_deref().unwrap_or("no reason recorded"),
                freshness_line(&fresh)
            ),
        )
        .next("lore gateway ingest"),
        Some(run) => {
            let level = if fresh.iter().all(|f| f.fresh) {
                Level::Ok
            } else {
                Level::Warn
            };
            let line = check(
                "gateway",
                level,
                format!(
                    "{roots}; last ingest {} ({} files, {} chunks indexed); {}",
                    lore_core::time::age(&run.started_at),
                    // What the index holds, not what the run read (a
                    // follower's run reads the changed files alone).
                    run.artifact_counts.values().sum::<u64>(),
                    run.chunk_count,
                    freshness_line(&fresh)
                ),
            );
            let followed = fresh
                .iter()
                .any(|f| matches!(f.follow, FollowMode::Inotify | FollowMode::Walk));
            match level {
                Level::Warn if followed => {
                    line.next("lore mcp logs (the server follows the roots)")
                }
                Level::Warn => {
                    line.next("lore gateway ingest (or lore mcp start, which follows the roots)")
                }
                _ => line,
            }
        }
    }
}

/// Each root's freshness in a few words: `app fresh, followed (inotify)`.
fn freshness_line(roots: &[RootFreshness]) -> String {
    let parts: Vec<String> = roots.iter().map(super::gateway::root_freshness).collect();
    parts.join("; ")
}

/// The background server (`lore mcp start`) and those run in the
/// foreground (`lore mcp stdio`, `lore mcp serve`), which announce
/// themselves in `.lore/servers/`.
fn server_check(project: &Project) -> Check {
    let in_foreground: Vec<String> = foreground::running(project)
        .iter()
        .map(|server| format!("running ({})", server.describe()))
        .collect();
    let also = if in_foreground.is_empty() {
        String::new()
    } else {
        format!("; also {}", in_foreground.join("; "))
    };
    match daemon::liveness(project) {
        Liveness::Running {
            state,
            health: Some(_),
        } => check(
            "server",
            Level::Ok,
            format!(
                "running at {} (pid {}, token auth {}){also}",
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
                "pid {} runs but does not answer at {}{also}",
                state.pid, state.url
            ),
        )
        .next("lore mcp logs, then lore mcp stop && lore mcp start"),
        Liveness::Stale(_) | Liveness::Stopped if !in_foreground.is_empty() => {
            check("server", Level::Ok, in_foreground.join("; "))
        }
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
