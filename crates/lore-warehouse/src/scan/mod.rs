//! `lore scan`: read a connection's structure, profile its columns, find
//! its relationships, and write it all as an immutable snapshot (see
//! [`crate::snapshot`]).
//!
//! A scan runs in four stages, reported to a [`ScanObserver`] so a terminal
//! can draw progress without this crate printing anything:
//!
//! 1. [`introspect`]: tables, views, columns, keys, comments, estimates.
//! 2. [`profile`]: per-column statistics and dictionary values on a sample,
//!    several tables at once (as many as the connection's session limit).
//! 3. [`relationships`]: declared foreign keys, and inferred ones checked
//!    against the data.
//! 4. Writing the snapshot, with a [`diff`] against the previous one.
//!
//! Every query is read-only. Dropping the scan's future (Ctrl-C) stops the
//! running query and leaves no snapshot behind.

pub mod diff;
pub mod introspect;
pub mod profile;
pub mod relationships;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use futures_util::stream::{self, StreamExt};
use lore_core::config::{ScanConfig, pattern_matches};
use lore_core::error::{ErrorCode, HasErrorCode};
use lore_core::project::Project;
use lore_core::time::UtcMillis;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::WarehouseError;
use crate::execute::Warehouses;
use crate::schema::DimensionType;
use crate::snapshot::{
    self, CONNECTION_FILE, ConnectionManifest, PROFILE_FILE, RELATIONSHIPS_FILE, REPORT_FILE,
    ScopeManifest, SnapshotError, SnapshotWriter, TABLES_DIR,
};
use diff::{DiffSummary, SchemaDiff, diff_tables};
pub use introspect::ScanScope;
use profile::{ProfileArtifact, TableProfile};
use relationships::{Relationship, RelationshipKind, RelationshipStatus, RelationshipsArtifact};

/// A stage of a scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanStage {
    /// Reading tables, columns and keys.
    ReadingSchema,
    /// Profiling tables (total: tables).
    Profiling,
    /// Checking inferred relationships (total: candidates).
    CheckingRelationships,
    /// Writing the snapshot (total: tables).
    Writing,
}

impl ScanStage {
    /// A short label for progress displays.
    pub fn label(self) -> &'static str {
        match self {
            ScanStage::ReadingSchema => "reading schema",
            ScanStage::Profiling => "profiling",
            ScanStage::CheckingRelationships => "checking relationships",
            ScanStage::Writing => "writing snapshot",
        }
    }

    /// What the stage's steps count, for progress lines.
    pub fn unit(self) -> &'static str {
        match self {
            ScanStage::CheckingRelationships => "candidate keys",
            _ => "tables",
        }
    }
}

/// Receives a scan's progress. Every method has a do-nothing default.
pub trait ScanObserver: Send + Sync {
    /// A stage starts with `total` steps (0 when unknown).
    fn stage(&self, _stage: ScanStage, _total: u64) {}
    /// One more step of the current stage is done.
    fn step(&self) {}
    /// Something worth telling the user that does not stop the scan.
    fn warn(&self, _message: &str) {}
}

/// An observer that ignores everything.
pub struct Silent;

impl ScanObserver for Silent {}

/// Overrides of `lore.yaml`'s scan settings for one run.
#[derive(Debug, Clone, Default)]
pub struct ScanOverrides {
    /// Profile columns (default: `scan.profile`).
    pub profile: Option<bool>,
    /// Infer relationships (default: `scan.relationships`).
    pub relationships: Option<bool>,
    /// Rows sampled per table (default: `scan.sample_rows`).
    pub sample_rows: Option<u64>,
}

/// Why a scan failed.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// The database could not be read.
    #[error(transparent)]
    Warehouse(#[from] WarehouseError),
    /// The snapshot could not be written.
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    /// The request was out of range.
    #[error("{0}")]
    Invalid(String),
}

impl HasErrorCode for ScanError {
    fn code(&self) -> ErrorCode {
        match self {
            ScanError::Warehouse(e) => e.code(),
            ScanError::Snapshot(e) => e.code(),
            ScanError::Invalid(_) => ErrorCode::InvalidRequest,
        }
    }
}

/// Profiling counts for the report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileSummary {
    /// Whether profiling ran.
    pub enabled: bool,
    /// Most rows sampled per table.
    pub sample_rows: u64,
    /// Tables profiled.
    pub profiled_tables: usize,
    /// Columns profiled.
    pub profiled_columns: usize,
    /// Columns whose values feed `dictionary_search`.
    pub dictionary_columns: usize,
    /// Tables that could not be profiled (see warnings).
    pub failed_tables: usize,
}

/// Relationship counts for the report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RelationshipSummary {
    /// Whether inference ran.
    pub inferred_enabled: bool,
    /// Declared foreign keys.
    pub formal: usize,
    /// Inferred and accepted.
    pub accepted: usize,
    /// Proposed by names and rejected by the data.
    pub rejected: usize,
}

/// `scan-report.json`: what one scan did and found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScanReport {
    /// Connection id.
    pub connection_id: String,
    /// Driver name.
    pub driver: String,
    /// The snapshot written.
    pub sync_id: String,
    /// This scan run.
    pub scan_run_id: String,
    /// The snapshot compared against, if any.
    pub previous_sync_id: Option<String>,
    /// When the scan started (ISO-8601 UTC).
    pub started_at: String,
    /// When it finished.
    pub finished_at: String,
    /// How long it took, in milliseconds.
    pub duration_ms: u64,
    /// The snapshot folder, relative to the project.
    pub snapshot_path: String,
    /// Tables and views.
    pub table_count: usize,
    /// Columns in all tables.
    pub column_count: usize,
    /// Change counts since the previous snapshot.
    pub diff_summary: DiffSummary,
    /// Changes since the previous snapshot.
    pub diff: SchemaDiff,
    /// Profiling counts.
    pub profile: ProfileSummary,
    /// Relationship counts.
    pub relationships: RelationshipSummary,
    /// Problems that did not stop the scan.
    pub warnings: Vec<String>,
}

/// Scans connection `id` of `project` and writes a snapshot.
pub async fn scan_connection(
    project: &Project,
    warehouses: &Warehouses,
    id: &str,
    overrides: &ScanOverrides,
    observer: &dyn ScanObserver,
) -> Result<ScanReport, ScanError> {
    let started = UtcMillis::now();
    let clock = std::time::Instant::now();
    let (connection, connector) = warehouses.get(id)?;
    let mut settings: ScanConfig = connection.scan.clone();
    if let Some(rows) = overrides.sample_rows {
        if !(1..=1_000_000).contains(&rows) {
            return Err(ScanError::Invalid(format!(
                "the sample must be between 1 and 1000000 rows, got {rows}"
            )));
        }
        settings.sample_rows = rows;
    }
    let profile_enabled = overrides.profile.unwrap_or(settings.profile);
    let infer_enabled = overrides.relationships.unwrap_or(settings.relationships);
    let concurrency = connection.max_connections() as usize;
    let mut warnings = Vec::new();
    let mut warn = |message: String| {
        observer.warn(&message);
        warnings.push(message);
    };

    observer.stage(ScanStage::ReadingSchema, 0);
    // Names as the catalog stores them (Snowflake: `sales` is `SALES`).
    let scope = ScanScope {
        schemas: connection.schemas.as_ref().map(|schemas| {
            schemas
                .iter()
                .map(|s| connector.dialect().fold_identifier(s))
                .collect()
        }),
    };
    let mut tables = introspect::introspect(&connector, &scope).await?;
    tables.retain(|t| {
        let qualified = t.table_ref().display();
        !settings
            .exclude_tables
            .iter()
            .any(|p| pattern_matches(p, &t.name) || pattern_matches(p, &qualified))
    });
    if let Some(schemas) = &scope.schemas {
        let found: HashSet<&str> = tables.iter().filter_map(|t| t.db.as_deref()).collect();
        for schema in schemas.iter().filter(|s| !found.contains(s.as_str())) {
            warn(format!(
                "schema `{schema}` (from `schemas` in lore.yaml) has no tables Lore can see"
            ));
        }
    }

    let mut profiles: Vec<TableProfile> = Vec::new();
    if profile_enabled {
        observer.stage(ScanStage::Profiling, tables.len() as u64);
        let connector = &connector;
        let settings = &settings;
        profiles = stream::iter(tables.iter())
            .map(|table| async move {
                let profile = profile::profile_table(connector, table, settings).await;
                observer.step();
                profile
            })
            .buffered(concurrency)
            .collect()
            .await;
        for (table, profile) in tables.iter_mut().zip(&profiles) {
            if let Some(error) = &profile.error {
                warn(format!(
                    "{} was not profiled: {error}",
                    table.table_ref().display()
                ));
                continue;
            }
            for (column, measured) in table.columns.iter_mut().zip(&profile.columns) {
                if measured.inferred_type.is_some() {
                    column.dimension_type = DimensionType::Time;
                }
            }
            // A sample smaller than its limit saw every row: an exact count.
            if profile.sampled_rows < settings.sample_rows {
                table.estimated_rows = Some(profile.sampled_rows);
            }
        }
    }

    let mut found = relationships::formal_relationships(&tables);
    if infer_enabled {
        let candidates = relationships::candidates(&tables);
        observer.stage(ScanStage::CheckingRelationships, candidates.len() as u64);
        let by_table: HashMap<(Option<String>, String), &TableProfile> = profiles
            .iter()
            .filter(|p| p.error.is_none())
            .map(|p| ((p.db.clone(), p.name.clone()), p))
            .collect();
        let connector = &connector;
        let tables = &tables;
        let by_table = &by_table;
        let sample_rows = settings.sample_rows;
        let mut inferred: Vec<Relationship> = stream::iter(candidates.iter())
            .map(|candidate| async move {
                let checked = relationships::check_candidate(
                    connector,
                    tables,
                    by_table,
                    candidate,
                    sample_rows,
                )
                .await;
                observer.step();
                checked
            })
            .buffer_unordered(concurrency)
            .collect()
            .await;
        relationships::settle_competing(&mut inferred);
        inferred.sort_by(|a, b| {
            b.confidence.total_cmp(&a.confidence).then_with(|| {
                (&a.from.table, &a.from.columns).cmp(&(&b.from.table, &b.from.columns))
            })
        });
        found.extend(inferred);
    }

    observer.stage(ScanStage::Writing, tables.len() as u64);
    let dir = snapshot::snapshots_dir(&project.root, id);
    let previous_sync_id = snapshot::latest_sync_id(&dir)?;
    let previous_tables = match &previous_sync_id {
        Some(previous) => snapshot::read_tables(&dir.join(previous)).unwrap_or_else(|e| {
            warn(format!(
                "the previous snapshot could not be read for the diff: {e}"
            ));
            Vec::new()
        }),
        None => Vec::new(),
    };
    let sync_id = snapshot::new_sync_id(previous_sync_id.as_deref());
    let scan_run_id = format!("scan-{sync_id}");
    let writer = SnapshotWriter::create(&dir, &sync_id)?;
    let mut used = HashSet::new();
    for table in &tables {
        let file = snapshot::table_file_name(table, &mut used);
        writer.write_json(&format!("{TABLES_DIR}/{file}"), table)?;
        observer.step();
    }
    if profile_enabled {
        let header = ProfileArtifact {
            connection_id: id.to_string(),
            sync_id: sync_id.clone(),
            profiled_at: UtcMillis::now().to_iso(),
            sample_rows: settings.sample_rows,
            top_values_per_column: settings.top_values,
            dictionary_max_values: settings.dictionary.max_values,
            tables: Vec::new(),
        };
        writer.write_records(PROFILE_FILE, &header, "tables", &profiles)?;
    }
    let header = RelationshipsArtifact {
        connection_id: id.to_string(),
        sync_id: sync_id.clone(),
        relationships: Vec::new(),
    };
    writer.write_records(RELATIONSHIPS_FILE, &header, "relationships", &found)?;
    writer.write_json(
        CONNECTION_FILE,
        &ConnectionManifest {
            connection_id: id.to_string(),
            driver: connection.driver.as_str().to_string(),
            dialect: connector.dialect().as_str().to_string(),
            sync_id: sync_id.clone(),
            scan_run_id: scan_run_id.clone(),
            extracted_at: started.to_iso(),
            scope: ScopeManifest {
                schemas: scope.schemas.clone(),
                exclude_tables: settings.exclude_tables.clone(),
            },
            table_count: tables.len(),
            lore_version: env!("CARGO_PKG_VERSION").to_string(),
        },
    )?;
    let (diff, diff_summary) = diff_tables(&previous_tables, &tables);
    let count = |kind: RelationshipKind, status: RelationshipStatus| {
        found
            .iter()
            .filter(|r| r.kind == kind && r.status == status)
            .count()
    };
    let snapshot_path = PathBuf::from("raw-sources")
        .join(id)
        .join(snapshot::LIVE_DATABASE_DIR)
        .join(&sync_id);
    let report = ScanReport {
        connection_id: id.to_string(),
        driver: connection.driver.as_str().to_string(),
        sync_id: sync_id.clone(),
        scan_run_id,
        previous_sync_id,
        started_at: started.to_iso(),
        finished_at: UtcMillis::now().to_iso(),
        duration_ms: clock.elapsed().as_millis() as u64,
        snapshot_path: snapshot_path.display().to_string(),
        table_count: tables.len(),
        column_count: tables.iter().map(|t| t.columns.len()).sum(),
        diff_summary,
        diff,
        profile: ProfileSummary {
            enabled: profile_enabled,
            sample_rows: settings.sample_rows,
            profiled_tables: profiles.iter().filter(|p| p.error.is_none()).count(),
            profiled_columns: profiles.iter().map(|p| p.columns.len()).sum(),
            dictionary_columns: profiles
                .iter()
                .flat_map(|p| &p.columns)
                .filter(|c| c.dictionary)
                .count(),
            failed_tables: profiles.iter().filter(|p| p.error.is_some()).count(),
        },
        relationships: RelationshipSummary {
            inferred_enabled: infer_enabled,
            formal: count(RelationshipKind::Formal, RelationshipStatus::Accepted),
            accepted: count(RelationshipKind::Inferred, RelationshipStatus::Accepted),
            rejected: count(RelationshipKind::Inferred, RelationshipStatus::Rejected),
        },
        warnings,
    };
    writer.write_json(REPORT_FILE, &report)?;
    writer.commit()?;
    if let Err(e) = snapshot::prune(&dir, settings.keep_snapshots as usize) {
        observer.warn(&format!("old snapshots could not be removed: {e}"));
    }
    Ok(report)
}
