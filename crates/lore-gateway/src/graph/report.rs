//! What the gateway holds and what went stale: `km-coverage-summary` and
//! `km-lifecycle-report`.
//!
//! Both read what ingest left (the ledgers, the graph ledgers with the
//! edges written, the run log, the subsystem catalogs); the lifecycle
//! report also reads each root's git history, when the root is a git work
//! tree, for when a document and the code it describes last changed (the
//! `git` command, newest commits first, stopped once every file asked
//! about is dated). Nothing here writes.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use lore_core::time::UtcMillis;
use schemars::JsonSchema;
use serde::Serialize;

use crate::graph::explore::GraphView;
use crate::graph::{Edge, GraphLedger, dir_of, normalize};
use crate::ingest::classify::ArtifactType;
use crate::ingest::{IngestRun, Ledger, Skipped};

/// Most entries a report's list shows (its total is always given).
pub const MAX_LISTED: usize = 200;

/// `km-coverage-summary`'s answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CoverageSummary {
    /// The totals.
    pub summary: CoverageTotals,
    /// Per root and subsystem (files without one under `null`):
    /// artifacts by type.
    pub artifacts: Vec<SubsystemArtifacts>,
    /// Files the newest full ingest left out, with the reason (binary,
    /// too large, a link out of the root, unreadable, Lore's own file, a
    /// file holding credentials, a path or name too long for the graph). Files the ignore
    /// rules (`.gitignore`, `.ignore`) exclude are never walked, so never
    /// listed.
    pub skipped: Vec<Skipped>,
    /// Skipped files in all (the list stops at 200).
    pub skipped_total: usize,
    /// Globs of the subsystem catalog that match no ingested file.
    pub missing_artifacts: Vec<MissingArtifact>,
    /// Files ingested once and gone since (deleted, or now skipped),
    /// newest first.
    pub removed_artifacts: Vec<RemovedArtifact>,
    /// Removed files in all (the list stops at 200).
    pub removed_total: usize,
    /// How recent the index is.
    pub freshness: Freshness,
}

/// Totals over every root.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CoverageTotals {
    /// Files indexed.
    pub artifact_total: u64,
    /// Files indexed by type (code, test, doc, config, other).
    pub artifact_breakdown: BTreeMap<String, u64>,
    /// Chunks in the index.
    pub chunk_count: u64,
    /// Roots counted: those configured, and those known from a shared
    /// store alone.
    pub roots: usize,
}

/// One subsystem's artifacts in one root.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SubsystemArtifacts {
    /// The root.
    pub root: String,
    /// The subsystem (null for files in none).
    pub subsystem: Option<String>,
    /// Its files.
    pub artifact_total: u64,
    /// Its files by type.
    pub artifact_breakdown: BTreeMap<String, u64>,
}

/// A catalog glob that matches nothing.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MissingArtifact {
    /// The root whose catalog says it.
    pub root: String,
    /// The subsystem.
    pub subsystem: String,
    /// The glob (`paths` in the catalog).
    pub pattern: String,
}

/// A file that is gone.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RemovedArtifact {
    /// Its root.
    pub root: String,
    /// Its root-relative path.
    pub path: String,
    /// Its type when it was last ingested.
    pub artifact_type: String,
    /// When the run that removed it started.
    pub removed_at: String,
    /// That run.
    pub run_id: String,
}

/// How recent the index is.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Freshness {
    /// The indexed file modified longest ago.
    pub oldest_artifact: Option<ArtifactTime>,
    /// The indexed file modified last.
    pub newest_artifact: Option<ArtifactTime>,
    /// The newest ingest run.
    pub last_run: Option<RunBrief>,
}

/// A file and its modification time.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ArtifactTime {
    /// Its root.
    pub root: String,
    /// Its root-relative path.
    pub path: String,
    /// When it was last modified (RFC 3339).
    pub modified_at: String,
}

/// A run in brief.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RunBrief {
    /// Its id.
    pub run_id: String,
    /// Its profile.
    pub profile: String,
    /// When it started.
    pub started_at: String,
    /// Whether it succeeded.
    pub success: bool,
}

/// What coverage is computed from, per root.
pub struct RootState<'a> {
    /// The root's name.
    pub name: &'a str,
    /// Its folder; none for a root known from a shared store alone
    /// (another server holds its folder).
    pub path: Option<&'a Path>,
    /// Its ledger.
    pub ledger: Ledger,
}

/// The coverage of the roots.
pub fn coverage(
    roots: &[RootState<'_>],
    view: &GraphView,
    runs: &[IngestRun],
    chunk_count: u64,
) -> CoverageSummary {
    let mut breakdown: BTreeMap<String, u64> = BTreeMap::new();
    let mut per_subsystem: BTreeMap<(String, Option<String>), BTreeMap<String, u64>> =
        BTreeMap::new();
    let mut oldest: Option<(i64, &str, &str)> = None;
    let mut newest: Option<(i64, &str, &str)> = None;
    let mut removed = Vec::new();
    let mut missing = Vec::new();
    for root in roots {
        let graph = view
            .roots
            .iter()
            .find(|(name, _, _)| name == root.name)
            .map(|(_, ledger, catalog)| (ledger, catalog));
        for (path, entry) in &root.ledger.files {
            let kind = entry.artifact_type.as_str().to_string();
            *breakdown.entry(kind.clone()).or_default() += 1;
            let subsystem = graph
                .and_then(|(ledger, _)| ledger.files.get(path))
                .and_then(|f| f.subsystem.clone());
            *per_subsystem
                .entry((root.name.to_string(), subsystem))
                .or_default()
                .entry(kind)
                .or_default() += 1;
            let at = (entry.modified_ms, root.name, path.as_str());
            if oldest.is_none_or(|o| at.0 < o.0) {
                oldest = Some(at);
            }
            if newest.is_none_or(|n| at.0 > n.0) {
                newest = Some(at);
            }
        }
        for (path, entry) in &root.ledger.removed {
            removed.push(RemovedArtifact {
                root: root.name.to_string(),
                path: path.clone(),
                artifact_type: entry.artifact_type.as_str().to_string(),
                removed_at: entry.removed_at.clone(),
                run_id: entry.run_id.clone(),
            });
        }
        if let Some((_, catalog)) = graph {
            for (subsystem, pattern) in catalog.unmatched_patterns(root.ledger.files.keys()) {
                missing.push(MissingArtifact {
                    root: root.name.to_string(),
                    subsystem,
                    pattern,
                });
            }
        }
    }
    removed
        .sort_by(|a, b| (&b.removed_at, &a.root, &a.path).cmp(&(&a.removed_at, &b.root, &b.path)));
    let removed_total = removed.len();
    removed.truncate(MAX_LISTED);

    // The newest run that read every file of every root it names.
    let full = runs
        .iter()
        .rev()
        .find(|r| r.success && !r.dry_run && r.paths.is_empty());
    let mut skipped: Vec<Skipped> = full.map(|r| r.skipped.clone()).unwrap_or_default();
    let named: HashSet<&str> = roots.iter().map(|r| r.name).collect();
    skipped.retain(|s| named.contains(s.root.as_str()));
    let skipped_total = skipped.len();
    skipped.truncate(MAX_LISTED);

    let time = |at: Option<(i64, &str, &str)>| {
        at.map(|(ms, root, path)| ArtifactTime {
            root: root.to_string(),
            path: path.to_string(),
            modified_at: UtcMillis(ms).to_iso(),
        })
    };
    CoverageSummary {
        summary: CoverageTotals {
            artifact_total: breakdown.values().sum(),
            artifact_breakdown: breakdown,
            chunk_count,
            roots: roots.len(),
        },
        artifacts: per_subsystem
            .into_iter()
            .map(
                |((root, subsystem), artifact_breakdown)| SubsystemArtifacts {
                    root,
                    subsystem,
                    artifact_total: artifact_breakdown.values().sum(),
                    artifact_breakdown,
                },
            )
            .collect(),
        skipped,
        skipped_total,
        missing_artifacts: missing,
        removed_artifacts: removed,
        removed_total,
        freshness: Freshness {
            oldest_artifact: time(oldest),
            newest_artifact: time(newest),
            last_run: runs.last().map(|r| RunBrief {
                run_id: r.run_id.clone(),
                profile: r.profile.clone(),
                started_at: r.started_at.clone(),
                success: r.success,
            }),
        },
    }
}

/// `km-lifecycle-report`'s answer (the original's shape: isolated nodes by
/// label, stale documents, subsystems missing tests, a summary), with the
/// documents that still point at removed files.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LifecycleReport {
    /// Files linked to no other file, by label (`Code`, `TestCase`,
    /// `DesignDoc`, `Config`): nothing imports them and they import
    /// nothing the graph resolves, no test validates them (or, for a
    /// test, it validates nothing), no document describes them (or, for a
    /// document, it describes nothing). At most `limit` per label (50 by
    /// default); test fixtures and web assets are left out unless asked.
    pub isolated_nodes: BTreeMap<String, Vec<String>>,
    /// Documents gone stale: those older than the code they describe
    /// first, then the oldest (at most `limit`).
    pub stale_docs: Vec<StaleDoc>,
    /// Subsystems with code and no test: no test file in them, and no
    /// test validating any of their files.
    pub missing_tests: Vec<MissingTests>,
    /// Documents mentioning files that were removed.
    pub removed_references: Vec<RemovedReference>,
    /// Counts, and how each root was dated.
    pub summary: LifecycleSummary,
}

/// A stale document.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StaleDoc {
    /// Its node (`DesignDoc:<root>/docs/api.md`).
    pub id: String,
    /// Its root.
    pub root: String,
    /// Its root-relative path.
    pub path: String,
    /// When it last changed: its last commit in a git work tree, else its
    /// modification time.
    pub last_changed: String,
    /// Days since.
    pub age_days: u64,
    /// `age` (unchanged for more than the threshold) and/or
    /// `code_changed` (code it describes changed after it did; git roots
    /// only).
    pub reasons: Vec<String>,
    /// The code files it describes (itself or through their symbols)
    /// that changed after it, newest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changed_code: Vec<ChangedCode>,
}

/// A file that changed after the document describing it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChangedCode {
    /// Its root-relative path.
    pub path: String,
    /// Its last commit.
    pub last_changed: String,
}

/// A subsystem without tests.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MissingTests {
    /// The subsystem.
    pub subsystem: String,
    /// Its code files.
    pub code_files: usize,
    /// A few of them (`<root>/<path>`).
    pub examples: Vec<String>,
}

/// A document mentioning a removed file.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RemovedReference {
    /// The document's node.
    pub doc: String,
    /// Its root.
    pub root: String,
    /// The removed file (root-relative).
    pub removed_path: String,
    /// When it was removed.
    pub removed_at: String,
}

/// The lifecycle report's counts.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LifecycleSummary {
    /// Isolated files by label (all of them, not only those listed).
    pub isolated_nodes: BTreeMap<String, usize>,
    /// Stale documents.
    pub stale_docs: usize,
    /// Subsystems missing tests.
    pub missing_tests: usize,
    /// Documents' mentions of removed files.
    pub removed_references: usize,
    /// The age threshold used, in days.
    pub stale_after_days: u32,
    /// Documents `gateway.lifecycle.exclude` kept out of `stale_docs`
    /// (licences, changelogs, blog posts, … by default).
    pub excluded_docs: usize,
    /// Test fixtures and web assets left out of every list (ask for
    /// them with `include_fixtures`).
    pub fixtures_and_assets: usize,
    /// How each root's files were dated: `git` (commit history) or
    /// `mtime` (not a git work tree, or git is not installed).
    pub dated_by: BTreeMap<String, String>,
}

/// Edges that link a file to another file (or its symbols); containment
/// and subsystem membership do not.
const LINKS: [&str; 4] = ["IMPORTS", "VALIDATES", "EXERCISES", "DESCRIBES"];

/// The root-relative path of the file a node is about
/// (`Code:app/a.py` and `Symbol:app/a.py::A.run` → `a.py`): a root's edges
/// link its own files only.
fn node_path(node: &str) -> Option<&str> {
    let (label, rest) = node.split_once(':')?;
    let qualified = match label {
        "Symbol" => rest.split_once("::").map(|(path, _)| path),
        "Code" | "TestCase" | "DesignDoc" | "Config" => Some(rest),
        _ => None,
    }?;
    crate::graph::ids::split_root(qualified).map(|(_, path)| path)
}

/// Entries a lifecycle report lists per list unless asked for more.
pub const DEFAULT_LISTED: usize = 50;

/// What is asked of a lifecycle report.
#[derive(Debug, Clone, Default)]
pub struct LifecycleRequest {
    /// Days after which an unchanged document is stale (default
    /// `gateway.lifecycle.stale_after_days`).
    pub stale_after_days: Option<u32>,
    /// Most entries per list, 1 to [`MAX_LISTED`] (default
    /// [`DEFAULT_LISTED`]).
    pub limit: Option<usize>,
    /// Also report test fixtures and web assets.
    pub include_fixtures: bool,
}

/// What a lifecycle report looks at and how much it lists.
#[derive(Debug, Clone)]
pub struct LifecycleScope {
    /// Days after which an unchanged document is stale.
    pub stale_after_days: u32,
    /// Documents never called stale (`gateway.lifecycle.exclude`).
    pub exclude: globset::GlobSet,
    /// Also report test fixtures (documents in test folders) and web
    /// assets (stylesheets, pages, scripts under `static/`), which are
    /// left out by default.
    pub include_fixtures: bool,
    /// Most entries listed per list (isolated files per label, stale
    /// documents, removed references); the summary counts them all.
    pub limit: usize,
}

impl LifecycleScope {
    /// Whether the file at `path` is left out: a document in a test
    /// folder (a fixture, not the project's documentation) or a web
    /// asset, unless asked for.
    fn leaves_out(&self, path: &str, file: &crate::graph::GraphFile) -> bool {
        use crate::ingest::classify::{in_test_folder, is_asset};
        !self.include_fixtures
            && ((file.artifact_type == ArtifactType::Doc && in_test_folder(path))
                || (file.artifact_type == ArtifactType::Code
                    && is_asset(path, file.language.as_deref())))
    }
}

/// The lifecycle of the roots, as of `now_ms`.
pub fn lifecycle(
    roots: &[RootState<'_>],
    view: &GraphView,
    scope: &LifecycleScope,
    now_ms: i64,
) -> LifecycleReport {
    let stale_after_days = scope.stale_after_days;
    let mut excluded_docs = 0;
    let mut fixtures_and_assets = 0;
    let mut isolated: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut isolated_totals: BTreeMap<String, usize> = BTreeMap::new();
    let mut stale = Vec::new();
    let mut removed_references = Vec::new();
    let mut dated_by = BTreeMap::new();
    // Per subsystem: (code files, has a test).
    let mut subsystems: BTreeMap<String, (Vec<String>, bool)> = BTreeMap::new();
    for root in roots {
        let Some((_, graph, _)) = view.roots.iter().find(|(name, _, _)| name == root.name) else {
            continue;
        };
        let edges: Vec<Edge> = graph
            .written
            .keys()
            .filter_map(|k| Edge::from_key(k))
            .collect();
        let links = Links::of(&edges);
        let (linked, validated) = (&links.linked, &links.validated);
        for (path, file) in &graph.files {
            if scope.leaves_out(path, file) {
                fixtures_and_assets += 1;
                continue;
            }
            if let Some(node) = crate::graph::file_node(file.artifact_type, root.name, path)
                && !linked.contains(path.as_str())
            {
                let label = node.split(':').next().unwrap_or_default().to_string();
                *isolated_totals.entry(label.clone()).or_default() += 1;
                let listed = isolated.entry(label).or_default();
                if listed.len() < scope.limit {
                    listed.push(node);
                }
            }
            if let Some(subsystem) = &file.subsystem {
                let entry = subsystems.entry(subsystem.clone()).or_default();
                match file.artifact_type {
                    ArtifactType::Code => {
                        entry.0.push(format!("{}/{path}", root.name));
                        entry.1 |= validated.contains(path.as_str());
                    }
                    ArtifactType::Test => entry.1 = true,
                    _ => {}
                }
            }
        }

        // Documents: their age, and the code they describe.
        let docs = StaleDocs::of(root, graph, &links.describes, scope, now_ms);
        dated_by.insert(root.name.to_string(), docs.dated_by.to_string());
        excluded_docs += docs.excluded;
        stale.extend(docs.stale);
        removed_references.extend(removed_mentions(root, graph));
    }
    // Documents the code outdated first (the most telling), then the
    // oldest.
    stale.sort_by(|a, b| {
        let outdated = |d: &StaleDoc| d.changed_code.is_empty();
        (outdated(&a.1), a.0, &a.1.root, &a.1.path).cmp(&(
            outdated(&b.1),
            b.0,
            &b.1.root,
            &b.1.path,
        ))
    });
    let stale_total = stale.len();
    let stale_docs: Vec<StaleDoc> = stale
        .into_iter()
        .take(scope.limit)
        .map(|(_, d)| d)
        .collect();
    let missing_tests: Vec<MissingTests> = subsystems
        .into_iter()
        .filter(|(_, (code, tested))| !code.is_empty() && !tested)
        .map(|(subsystem, (code, _))| MissingTests {
            subsystem,
            code_files: code.len(),
            examples: code.into_iter().take(5).collect(),
        })
        .collect();
    let removed_total = removed_references.len();
    removed_references.truncate(scope.limit);
    LifecycleReport {
        summary: LifecycleSummary {
            isolated_nodes: isolated_totals,
            stale_docs: stale_total,
            missing_tests: missing_tests.len(),
            removed_references: removed_total,
            stale_after_days,
            excluded_docs,
            fixtures_and_assets,
            dated_by,
        },
        isolated_nodes: isolated,
        stale_docs,
        missing_tests,
        removed_references,
    }
}

/// What a root's graph links: the files with any link, the files a test
/// validates or exercises, and the code each document describes (its
/// links to other documents and to tests are not what it documents).
struct Links<'a> {
    linked: HashSet<&'a str>,
    validated: HashSet<&'a str>,
    describes: BTreeMap<&'a str, BTreeSet<&'a str>>,
}

impl<'a> Links<'a> {
    fn of(edges: &'a [Edge]) -> Links<'a> {
        let mut links = Links {
            linked: HashSet::new(),
            validated: HashSet::new(),
            describes: BTreeMap::new(),
        };
        for Edge(subject, predicate, object) in edges {
            if !LINKS.contains(&predicate.as_str()) {
                continue;
            }
            let (Some(from), Some(to)) = (node_path(subject), node_path(object)) else {
                continue;
            };
            if from == to {
                continue;
            }
            links.linked.insert(from);
            links.linked.insert(to);
            if predicate == "VALIDATES" || predicate == "EXERCISES" {
                links.validated.insert(to);
            }
            if predicate == "DESCRIBES"
                && (object.starts_with("Code:")
                    || object.starts_with("Config:")
                    || object.starts_with("Symbol:"))
            {
                links.describes.entry(from).or_default().insert(to);
            }
        }
        links
    }
}

/// A root's stale documents: older than `stale_after_days`, or older than
/// code they describe (by git history when the root has one, else by
/// file times, which cannot tell the order of changes).
struct StaleDocs {
    /// `git` or `mtime`.
    dated_by: &'static str,
    /// Documents left out by `gateway.lifecycle.exclude`.
    excluded: usize,
    /// Each stale document with its last change.
    stale: Vec<(i64, StaleDoc)>,
}

impl StaleDocs {
    fn of(
        root: &RootState<'_>,
        graph: &GraphLedger,
        describes: &BTreeMap<&str, BTreeSet<&str>>,
        scope: &LifecycleScope,
        now_ms: i64,
    ) -> StaleDocs {
        let (exclude, stale_after_days) = (&scope.exclude, scope.stale_after_days);
        let docs: Vec<&str> = graph
            .files
            .iter()
            .filter(|(p, f)| f.artifact_type == ArtifactType::Doc && !scope.leaves_out(p, f))
            .map(|(p, _)| p.as_str())
            .collect();
        let mut wanted: HashSet<String> = docs.iter().map(|d| d.to_string()).collect();
        for targets in describes.values() {
            wanted.extend(targets.iter().map(|t| t.to_string()));
        }
        let history = root.path.and_then(|path| git_last_changes(path, &wanted));
        let changed_at = |path: &str| -> Option<i64> {
            match &history {
                Some(history) => history.get(path).copied(),
                None => root.ledger.files.get(path).map(|e| e.modified_ms),
            }
        };
        let mut found = StaleDocs {
            dated_by: if history.is_some() { "git" } else { "mtime" },
            excluded: 0,
            stale: Vec::new(),
        };
        for doc in docs {
            if exclude.is_match(doc) {
                found.excluded += 1;
                continue;
            }
            let Some(doc_at) = changed_at(doc) else {
                continue;
            };
            let age_days = (now_ms - doc_at).max(0) as u64 / 86_400_000;
            let mut reasons = Vec::new();
            if age_days > u64::from(stale_after_days) {
                reasons.push("age".to_string());
            }
            let mut changed_code = Vec::new();
            if history.is_some() {
                for target in describes.get(doc).into_iter().flatten() {
                    if let Some(at) = changed_at(target)
                        && at > doc_at
                    {
                        changed_code.push((at, target.to_string()));
                    }
                }
            }
            if !changed_code.is_empty() {
                reasons.push("code_changed".to_string());
            }
            if reasons.is_empty() {
                continue;
            }
            changed_code.sort_by(|a, b| b.cmp(a));
            found.stale.push((
                doc_at,
                StaleDoc {
                    id: format!("DesignDoc:{}/{doc}", root.name),
                    root: root.name.to_string(),
                    path: doc.to_string(),
                    last_changed: UtcMillis(doc_at).to_iso(),
                    age_days,
                    reasons,
                    changed_code: changed_code
                        .into_iter()
                        .map(|(at, path)| ChangedCode {
                            path,
                            last_changed: UtcMillis(at).to_iso(),
                        })
                        .collect(),
                },
            ));
        }
        found
    }
}

/// The documents of a root that mention a file removed since (and not
/// back): by path relative to the document, from the root, or by the end
/// of a removed path.
fn removed_mentions(root: &RootState<'_>, graph: &GraphLedger) -> Vec<RemovedReference> {
    let removed = &root.ledger.removed;
    if removed.is_empty() {
        return Vec::new();
    }
    let exists = |path: &str| root.ledger.files.contains_key(path);
    let mut out = Vec::new();
    for (doc, file) in &graph.files {
        if file.artifact_type != ArtifactType::Doc {
            continue;
        }
        let mut seen: HashSet<&str> = HashSet::new();
        for mention in &file.mentions {
            let path = mention.trim_start_matches("./").trim_start_matches('/');
            if !path.contains('.') || crate::ingest::classify::language(path).is_none() {
                continue;
            }
            let relative = normalize(&format!("{}/{path}", dir_of(doc)));
            if relative.as_deref().is_some_and(exists) || exists(path) {
                continue;
            }
            let found = relative
                .as_deref()
                .and_then(|r| removed.get_key_value(r))
                .or_else(|| removed.get_key_value(path))
                .or_else(|| {
                    path.contains('/')
                        .then(|| {
                            let suffix = format!("/{path}");
                            let mut matches = removed.iter().filter(|(p, _)| p.ends_with(&suffix));
                            let first = matches.next();
                            // An ambiguous end names no file.
                            first.filter(|_| matches.next().is_none())
                        })
                        .flatten()
                });
            if let Some((removed_path, entry)) = found
                && seen.insert(removed_path.as_str())
            {
                out.push(RemovedReference {
                    doc: format!("DesignDoc:{}/{doc}", root.name),
                    root: root.name.to_string(),
                    removed_path: removed_path.clone(),
                    removed_at: entry.removed_at.clone(),
                });
            }
        }
    }
    out
}

/// When each of `wanted` (root-relative paths) was last committed, from
/// the root's git history (newest commits first; stops once every tracked
/// one is dated). `None` when the root is not in a git work tree or git
/// cannot run; a file git does not track (new, not committed) is left
/// out.
pub fn git_last_changes(root: &Path, wanted: &HashSet<String>) -> Option<HashMap<String, i64>> {
    let inside = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["rev-parse", "--is-inside-work-tree"])
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !inside.status.success() || String::from_utf8_lossy(&inside.stdout).trim() != "true" {
        return None;
    }
    let mut out = HashMap::new();
    // Only files git tracks can be found in its history: waiting for an
    // untracked one would read the whole history for nothing.
    let tracked = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["ls-files", "-z", "--full-name"])
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let prefix = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["rev-parse", "--show-prefix"])
        .stderr(Stdio::null())
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let wanted: HashSet<&str> = tracked
        .stdout
        .split(|b| *b == 0)
        .filter_map(|p| std::str::from_utf8(p).ok())
        .filter_map(|p| p.strip_prefix(prefix.as_str()))
        .filter(|p| wanted.contains(*p))
        .collect();
    if wanted.is_empty() {
        return Some(out);
    }
    // A repository without commits has no history to read.
    let mut child = Command::new("git")
        .arg("-C")
        .arg(root)
        .args([
            "-c",
            "core.quotepath=off",
            "log",
            "--relative",
            "--no-renames",
            "--name-only",
            "--format=%x1e%ct",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let stdout = child.stdout.take()?;
    let mut when: Option<i64> = None;
    for line in BufReader::new(stdout).lines() {
        let Ok(line) = line else { break };
        if let Some(stamp) = line.strip_prefix('\u{1e}') {
            when = stamp.trim().parse::<i64>().ok().map(|s| s * 1000);
            continue;
        }
        let path = line.trim();
        if path.is_empty() {
            continue;
        }
        if let Some(at) = when
            && wanted.contains(path)
            && !out.contains_key(path)
        {
            out.insert(path.to_string(), at);
            if out.len() == wanted.len() {
                break;
            }
        }
    }
    // Stopped early, or done: either way the child is not needed.
    let _ = child.kill();
    let _ = child.wait();
    Some(out)
}
