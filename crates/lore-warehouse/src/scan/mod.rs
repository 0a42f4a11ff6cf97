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

/// Scans connection `id` of `project` and writes a snapshot: the schema
/// read from the catalog, column profiles, relationships (declared, then
/// inferred and checked on the data), then the snapshot and its report.
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
    let mut scan = Scan {
        id,
        connection,
        connector: &connector,
        profile_enabled: overrides.profile.unwrap_or(settings.profile),
        infer_enabled: overrides.relationships.unwrap_or(settings.relationships),
        settings,
        observer,
        warnings: Vec::new(),
    };
    let (scope, mut tables) = scan.read_schema().await?;
    let profiles = if scan.profile_enabled {
        scan.profile(&mut tables).await
    } else {
        Vec::new()
    };
    let found = scan.relationships(&tables, &profiles).await;
    let scanned = Scanned {
        scope,
        tables,
        profiles,
        relationships: found,
    };
    let report = scan.write(project, scanned, started, clock)?;
    Ok(report)
}

/// One connection's scan under way.
struct Scan<'a> {
    id: &'a str,
    connection: &'a lore_core::config::ConnectionConfig,
    connector: &'a crate::connector::Connector,
    settings: ScanConfig,
    profile_enabled: bool,
    infer_enabled: bool,
    observer: &'a dyn ScanObserver,
    /// Problems that did not stop the scan.
    warnings: Vec<String>,
}

/// What a scan found, to be written.
struct Scanned {
    scope: ScanScope,
    tables: Vec<crate::schema::SchemaTable>,
    profiles: Vec<TableProfile>,
    relationships: Vec<Relationship>,
}

impl Scan<'_> {
    fn warn(&mut self, message: String) {
        self.observer.warn(&message);
        self.warnings.push(message);
    }

    /// The tables of the scope (names as the catalog stores them:
    /// Snowflake's `sales` is `SALES`), less `exclude_tables`; a schema of
    /// `schemas` with no visible table is a warning.
    async fn read_schema(
        &mut self,
    ) -> Result<(ScanScope, Vec<crate::schema::SchemaTable>), ScanError> {
        self.observer.stage(ScanStage::ReadingSchema, 0);
        let connector = self.connector;
        let scope = ScanScope {
            schemas: self.connection.schemas.as_ref().map(|schemas| {
                schemas
                    .iter()
                    .map(|s| connector.dialect().fold_identifier(s))
                    .collect()
            }),
        };
        let mut tables = introspect::introspect(connector, &scope).await?;
        let exclude = &self.settings.exclude_tables;
        tables.retain(|t| {
            let qualified = t.table_ref().display();
            !exclude
                .iter()
                .any(|p| pattern_matches(p, &t.name) || pattern_matches(p, &qualified))
        });
        if let Some(schemas) = &scope.schemas {
            let found: HashSet<&str> = tables.iter().filter_map(|t| t.db.as_deref()).collect();
            let missing: Vec<String> = schemas
                .iter()
                .filter(|s| !found.contains(s.as_str()))
                .cloned()
                .collect();
            for schema in missing {
                self.warn(format!(
                    "schema `{schema}` (from `schemas` in lore.yaml) has no tables Lore can see"
                ));
            }
        }
        Ok((scope, tables))
    }

    /// Profiles every table over a bounded sample, tables in parallel up
    /// to the session limit; a column profiled as time becomes a time
    /// dimension, and a sample smaller than its limit is an exact count.
    async fn profile(&mut self, tables: &mut [crate::schema::SchemaTable]) -> Vec<TableProfile> {
        self.observer
            .stage(ScanStage::Profiling, tables.len() as u64);
        let (connector, settings, observer) = (self.connector, &self.settings, self.observer);
        let profiles: Vec<TableProfile> = stream::iter(tables.iter())
            .map(|table| async move {
                let profile = profile::profile_table(connector, table, settings).await;
                observer.step();
                profile
            })
            .buffered(self.connection.max_connections() as usize)
            .collect()
            .await;
        let sample_rows = self.settings.sample_rows;
        for (table, profile) in tables.iter_mut().zip(&profiles) {
            if let Some(error) = &profile.error {
                self.warn(format!(
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
            if profile.sampled_rows < sample_rows {
                table.estimated_rows = Some(profile.sampled_rows);
            }
        }
        profiles
    }

    /// Declared relationships, then (when enabled) the candidates name
    /// rules propose, each checked on the data; competing ones settled,
    /// most confident first.
    async fn relationships(
        &self,
        tables: &[crate::schema::SchemaTable],
        profiles: &[TableProfile],
    ) -> Vec<Relationship> {
        let mut found = relationships::formal_relationships(tables);
        if !self.infer_enabled {
            return found;
        }
        let candidates = relationships::candidates(tables);
        self.observer
            .stage(ScanStage::CheckingRelationships, candidates.len() as u64);
        let by_table: HashMap<(Option<String>, String), &TableProfile> = profiles
            .iter()
            .filter(|p| p.error.is_none())
            .map(|p| ((p.db.clone(), p.name.clone()), p))
            .collect();
        let (connector, observer, by_table) = (self.connector, self.observer, &by_table);
        let sample_rows = self.settings.sample_rows;
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
            .buffer_unordered(self.connection.max_connections() as usize)
            .collect()
            .await;
        relationships::settle_competing(&mut inferred);
        inferred.sort_by(|a, b| {
            b.confidence.total_cmp(&a.confidence).then_with(|| {
                (&a.from.table, &a.from.columns).cmp(&(&b.from.table, &b.from.columns))
            })
        });
        found.extend(inferred);
        found
    }

    /// Writes the snapshot (tables, profiles, relationships, the
    /// connection's manifest, the report) in a hidden folder, commits it,
    /// then prunes old snapshots.
    fn write(
        mut self,
        project: &Project,
        scanned: Scanned,
        started: UtcMillis,
        clock: std::time::Instant,
    ) -> Result<ScanReport, ScanError> {
        let Scanned {
            scope,
            tables,
            profiles,
            relationships: found,
        } = scanned;
        let id = self.id;
        self.observer.stage(ScanStage::Writing, tables.len() as u64);
        let dir = snapshot::snapshots_dir(&project.root, id);
        let previous_sync_id = snapshot::latest_sync_id(&dir)?;
        let previous_tables = match &previous_sync_id {
            Some(previous) => match snapshot::read_tables(&dir.join(previous)) {
                Ok(tables) => tables,
                Err(e) => {
                    self.warn(format!(
                        "the previous snapshot could not be read for the diff: {e}"
                    ));
                    Vec::new()
                }
            },
            None => Vec::new(),
        };
        let sync_id = snapshot::new_sync_id(previous_sync_id.as_deref());
        let writer = SnapshotWriter::create(&dir, &sync_id)?;
        let mut used = HashSet::new();
        for table in &tables {
            let file = snapshot::table_file_name(table, &mut used);
            writer.write_json(&format!("{TABLES_DIR}/{file}"), table)?;
            self.observer.step();
        }
        if self.profile_enabled {
            let header = ProfileArtifact {
                connection_id: id.to_string(),
                sync_id: sync_id.clone(),
                profiled_at: UtcMillis::now().to_iso(),
                sample_rows: self.settings.sample_rows,
                top_values_per_column: self.settings.top_values,
                dictionary_max_values: self.settings.dictionary.max_values,
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
                driver: self.connection.driver.as_str().to_string(),
                dialect: self.connector.dialect().as_str().to_string(),
                sync_id: sync_id.clone(),
                scan_run_id: format!("scan-{sync_id}"),
                extracted_at: started.to_iso(),
                scope: ScopeManifest {
                    schemas: scope.schemas.clone(),
                    exclude_tables: self.settings.exclude_tables.clone(),
                },
                table_count: tables.len(),
                lore_version: env!("CARGO_PKG_VERSION").to_string(),
            },
        )?;
        let (diff, diff_summary) = diff_tables(&previous_tables, &tables);
        let run = ScanRun {
            sync_id,
            previous_sync_id,
            started,
            clock,
            diff,
            diff_summary,
        };
        let (observer, keep) = (self.observer, self.settings.keep_snapshots as usize);
        let report = self.report(run, &tables, &profiles, &found);
        writer.write_json(REPORT_FILE, &report)?;
        writer.commit()?;
        if let Err(e) = snapshot::prune(&dir, keep) {
            observer.warn(&format!("old snapshots could not be removed: {e}"));
        }
        Ok(report)
    }

    /// The scan's report: where the snapshot is, what changed, what was
    /// profiled and which relationships were found.
    fn report(
        self,
        run: ScanRun,
        tables: &[crate::schema::SchemaTable],
        profiles: &[TableProfile],
        found: &[Relationship],
    ) -> ScanReport {
        let id = self.id;
        let count = |kind: RelationshipKind, status: RelationshipStatus| {
            found
                .iter()
                .filter(|r| r.kind == kind && r.status == status)
                .count()
        };
        let snapshot_path = PathBuf::from("raw-sources")
            .join(id)
            .join(snapshot::LIVE_DATABASE_DIR)
            .join(&run.sync_id);
        ScanReport {
            connection_id: id.to_string(),
            driver: self.connection.driver.as_str().to_string(),
            scan_run_id: format!("scan-{}", run.sync_id),
            sync_id: run.sync_id,
            previous_sync_id: run.previous_sync_id,
            started_at: run.started.to_iso(),
            finished_at: UtcMillis::now().to_iso(),
            duration_ms: run.clock.elapsed().as_millis() as u64,
            snapshot_path: snapshot_path.display().to_string(),
            table_count: tables.len(),
            column_count: tables.iter().map(|t| t.columns.len()).sum(),
            diff_summary: run.diff_summary,
            diff: run.diff,
            profile: ProfileSummary {
                enabled: self.profile_enabled,
                sample_rows: self.settings.sample_rows,
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
                inferred_enabled: self.infer_enabled,
                formal: count(RelationshipKind::Formal, RelationshipStatus::Accepted),
                accepted: count(RelationshipKind::Inferred, RelationshipStatus::Accepted),
                rejected: count(RelationshipKind::Inferred, RelationshipStatus::Rejected),
            },
            warnings: self.warnings,
        }
    }
}

/// The run's identity, timing and changes, for its report.
struct ScanRun {
    sync_id: String,
    previous_sync_id: Option<String>,
    started: UtcMillis,
    clock: std::time::Instant,
    diff: SchemaDiff,
    diff_summary: DiffSummary,
}
