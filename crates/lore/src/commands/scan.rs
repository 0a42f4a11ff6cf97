//! `lore scan [CONNECTION…]`: snapshot connections' structure, profiles and
//! relationships, with a progress bar on a terminal and plain lines
//! elsewhere (a line per stage, and a heartbeat line every few seconds
//! while one runs). Ctrl-C stops the scan and leaves no snapshot behind.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::bail;
use indicatif::{ProgressBar, ProgressStyle};
use lore_core::project::Project;
use lore_warehouse::execute::Warehouses;
use lore_warehouse::scan::{ScanObserver, ScanOverrides, ScanReport, ScanStage, scan_connection};

/// Arguments of `lore scan`.
#[derive(Debug, clap::Args)]
pub struct ScanArgs {
    /// Connections to scan (default: every connection in lore.yaml).
    #[arg(value_name = "CONNECTION")]
    pub connections: Vec<String>,
    /// A connection to scan, as `-c` names one in every command
    /// (repeatable; the same as naming it after `scan`).
    #[arg(short = 'c', long = "connection", value_name = "ID")]
    pub connection_flags: Vec<String>,
    /// Print the scan reports as a JSON array on stdout (progress stays on stderr).
    #[arg(long)]
    pub json: bool,
    /// Skip column profiles (and with them the value dictionary).
    #[arg(long)]
    pub no_profile: bool,
    /// Skip inferring relationships from the data (declared keys are still read).
    #[arg(long)]
    pub no_relationships: bool,
    /// Rows sampled per table (default: scan.sample_rows in lore.yaml, else 10000).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub sample_rows: Option<u64>,
}

pub fn run(mut args: ScanArgs, project_dir: Option<&Path>) -> anyhow::Result<()> {
    let project = super::load_project(project_dir)?;
    args.connections.append(&mut args.connection_flags);
    args.connections.dedup();
    let ids = if args.connections.is_empty() {
        let ids: Vec<String> = project.config.connections.keys().cloned().collect();
        if ids.is_empty() {
            bail!(
                "{} has no connections to scan; add one with `lore connection add NAME --driver D --url URL`",
                project.config_path().display()
            );
        }
        ids
    } else {
        args.connections.clone()
    };
    let overrides = ScanOverrides {
        profile: args.no_profile.then_some(false),
        relationships: args.no_relationships.then_some(false),
        sample_rows: args.sample_rows,
    };
    let warehouses = Warehouses::for_project(&project);
    let mut reports = Vec::new();
    let mut failures = 0;
    for id in &ids {
        let progress = Progress::new(id);
        let outcome = super::block_on(async {
            tokio::select! {
                report = scan_connection(&project, &warehouses, id, &overrides, &progress) => Some(report),
                _ = tokio::signal::ctrl_c() => None,
            }
        })?;
        progress.finish();
        match outcome {
            None => bail!("scan of `{id}` interrupted; no snapshot was written"),
            Some(Ok(report)) => {
                if !args.json {
                    print_summary(&project, &report);
                }
                reports.push(report);
            }
            Some(Err(e)) => {
                failures += 1;
                eprintln!("error: scan of `{id}` failed: {:#}", super::coded(&e));
            }
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    }
    if failures > 0 {
        bail!("{failures} of {} scans failed", ids.len());
    }
    Ok(())
}

/// Scans one connection with progress on stderr and prints the summary
/// (used by `lore demo`).
pub fn scan_and_summarize(project: &Project, id: &str) -> anyhow::Result<()> {
    let warehouses = Warehouses::for_project(project);
    let progress = Progress::new(id);
    let outcome = super::block_on(scan_connection(
        project,
        &warehouses,
        id,
        &ScanOverrides::default(),
        &progress,
    ))?;
    progress.finish();
    let report = outcome.map_err(|e| super::coded(&e))?;
    print_summary(project, &report);
    Ok(())
}

fn print_summary(project: &Project, report: &ScanReport) {
    let d = &report.diff_summary;
    println!(
        "Scanned {} ({}) in {:.1} s: {} tables, {} columns",
        report.connection_id,
        report.driver,
        report.duration_ms as f64 / 1000.0,
        report.table_count,
        report.column_count
    );
    println!(
        "  snapshot   {}",
        project.root.join(&report.snapshot_path).display()
    );
    match &report.previous_sync_id {
        Some(previous) => println!(
            "  changes    since {previous}: {} tables added, {} changed, {} removed ({} columns added, {} changed, {} removed)",
            d.tables_added,
            d.tables_modified,
            d.tables_deleted,
            d.columns_added,
            d.columns_modified,
            d.columns_deleted
        ),
        None => println!("  changes    first scan of this connection"),
    }
    let p = &report.profile;
    if p.enabled {
        println!(
            "  profiles   {} columns of {} tables (sample of up to {} rows), {} in the value dictionary{}",
            p.profiled_columns,
            p.profiled_tables,
            p.sample_rows,
            p.dictionary_columns,
            if p.failed_tables > 0 {
                format!(", {} tables failed (see warnings)", p.failed_tables)
            } else {
                String::new()
            }
        );
    } else {
        println!("  profiles   skipped (dictionary_search has nothing to search)");
    }
    let r = &report.relationships;
    if r.inferred_enabled {
        println!(
            "  relations  {} declared, {} inferred from the data, {} candidates rejected",
            r.formal, r.accepted, r.rejected
        );
    } else {
        println!("  relations  {} declared (inference skipped)", r.formal);
    }
    if report.previous_sync_id.is_some() {
        for table in report.diff.tables_added.iter().take(10) {
            println!("  + {table}");
        }
    }
    for table in report.diff.tables_removed.iter().take(10) {
        println!("  - {table}");
    }
}

/// Draws a scan's progress: a bar on a terminal, otherwise a line per
/// stage and a heartbeat line while one runs. Warnings always go to stderr.
struct Progress {
    connection: String,
    bar: Mutex<Option<ProgressBar>>,
    terminal: bool,
    /// Outside a terminal: the stage running and how far it got.
    beat: Arc<Mutex<Option<Beat>>>,
    /// Outside a terminal: the thread printing the heartbeat, stopped by
    /// dropping its sender.
    ticker: Mutex<Option<(mpsc::Sender<()>, JoinHandle<()>)>>,
}

/// The stage a heartbeat line reports.
struct Beat {
    stage: ScanStage,
    done: u64,
    total: u64,
    started: Instant,
}

/// How often the heartbeat line is printed, unless `LORE_PROGRESS_INTERVAL_MS`
/// says otherwise.
const HEARTBEAT_INTERVAL: Duration = Duration::from_secs(2);

impl Progress {
    fn new(connection: &str) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let beat = Arc::new(Mutex::new(None));
        let ticker = (!terminal).then(|| heartbeat(connection.to_string(), Arc::clone(&beat)));
        Progress {
            connection: connection.to_string(),
            bar: Mutex::new(None),
            terminal,
            beat,
            ticker: Mutex::new(ticker),
        }
    }

    fn finish(&self) {
        if let Some(bar) = self.bar.lock().ok().and_then(|mut b| b.take()) {
            bar.finish_and_clear();
        }
        if let Some((stop, thread)) = self.ticker.lock().ok().and_then(|mut t| t.take()) {
            drop(stop);
            let _ = thread.join();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Starts the thread that prints `scan ID: profiling 1200/5000 tables (14 s)`
/// every interval while a stage runs, so a log shows a long scan is alive.
fn heartbeat(
    connection: String,
    beat: Arc<Mutex<Option<Beat>>>,
) -> (mpsc::Sender<()>, JoinHandle<()>) {
    let interval = std::env::var("LORE_PROGRESS_INTERVAL_MS")
        .ok()
        .and_then(|ms| ms.parse::<u64>().ok())
        .filter(|&ms| ms > 0)
        .map_or(HEARTBEAT_INTERVAL, Duration::from_millis);
    let (stop, stopped) = mpsc::channel::<()>();
    let thread = std::thread::spawn(move || {
        while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(interval) {
            let Some(line) = beat.lock().ok().and_then(|b| {
                b.as_ref().map(|b| {
                    let seconds = b.started.elapsed().as_secs();
                    if b.total > 0 {
                        format!(
                            "scan {connection}: {} {}/{} {} ({seconds} s)",
                            b.stage.label(),
                            b.done,
                            b.total,
                            b.stage.unit()
                        )
                    } else {
                        format!("scan {connection}: {} ({seconds} s)", b.stage.label())
                    }
                })
            }) else {
                continue;
            };
            eprintln!("{line}");
        }
    });
    (stop, thread)
}

impl ScanObserver for Progress {
    fn stage(&self, stage: ScanStage, total: u64) {
        if !self.terminal {
            let count = if total > 0 {
                format!(" ({total})")
            } else {
                String::new()
            };
            eprintln!("scan {}: {}{count}", self.connection, stage.label());
            if let Ok(mut beat) = self.beat.lock() {
                *beat = Some(Beat {
                    stage,
                    done: 0,
                    total,
                    started: Instant::now(),
                });
            }
            return;
        }
        let bar = if total > 0 {
            let bar = ProgressBar::new(total);
            bar.set_style(
                ProgressStyle::with_template("{prefix} {msg:<24} [{bar:30}] {pos}/{len} {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar
        } else {
            let spinner = ProgressBar::new_spinner();
            spinner.enable_steady_tick(Duration::from_millis(100));
            spinner
        };
        bar.set_prefix(format!("scan {}", self.connection));
        bar.set_message(stage.label());
        if let Ok(mut current) = self.bar.lock()
            && let Some(previous) = current.replace(bar)
        {
            previous.finish_and_clear();
        }
    }

    fn step(&self) {
        if let Some(beat) = self.beat.lock().ok().as_mut().and_then(|b| b.as_mut()) {
            beat.done += 1;
        }
        if let Some(bar) = self.bar.lock().ok().as_ref().and_then(|b| b.as_ref()) {
            bar.inc(1);
        }
    }

    fn warn(&self, message: &str) {
        match self.bar.lock().ok().as_ref().and_then(|b| b.as_ref()) {
            Some(bar) => bar.println(format!("warning: {message}")),
            None => eprintln!("warning: {message}"),
        }
    }
}
