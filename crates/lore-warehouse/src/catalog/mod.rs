//! The catalog: what agents read about scanned warehouses, served from
//! memory and always from the latest snapshot.
//!
//! [`Catalog::latest`] lists a connection's snapshot folder (one directory
//! read) and compares the newest `syncId` with the one it holds; only when
//! a newer snapshot appeared (a `lore scan` from any process) does it load
//! the files again and rebuild its indexes. Every other call answers from
//! memory, so a long-running server sees a new scan on its next call
//! without re-reading every artifact on every call.
//!
//! On top of a loaded snapshot: [`entity_details`] (tables and columns by
//! name, with structured errors an agent can act on) and
//! [`dictionary_search`] (which column holds a literal value).

pub mod dictionary;
pub mod resolve;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scan::profile::{ProfileArtifact, TableProfile};
use crate::scan::relationships::{
    Relationship, RelationshipKind, RelationshipStatus, RelationshipsArtifact,
};
use crate::schema::{ForeignKey, SchemaTable, TableKind, TableRef};
use crate::snapshot::{self, ConnectionManifest, SnapshotError};
pub use dictionary::{Dictionary, DictionaryBuilder, DictionaryMatch, MatchKind};
pub use resolve::{Resolution, TableQuery};

/// Sample values shown per column in entity details.
const SAMPLE_VALUES_SHOWN: usize = 5;

/// When and by which scan a snapshot was taken.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotInfo {
    /// The snapshot's id (sorts by time).
    pub sync_id: String,
    /// When the structure was read (ISO-8601 UTC).
    pub extracted_at: String,
    /// The scan run that wrote it.
    pub scan_run_id: Option<String>,
}

/// One snapshot, loaded and indexed.
#[derive(Debug)]
pub struct LoadedSnapshot {
    /// The manifest (`connection.json`).
    pub manifest: ConnectionManifest,
    /// Every table, sorted by schema and name.
    pub tables: Vec<SchemaTable>,
    /// Tables by lower-cased name.
    names: resolve::NameIndex,
    /// Sample statistics of `tables[t].columns[c]` at `stats[t][c]`.
    stats: Vec<Vec<Option<ColumnStats>>>,
    /// Positions in `relationships` of those touching each table.
    relationships_by_table: HashMap<TableRef, Vec<u32>>,
    /// Profiling settings and time, when the scan profiled.
    pub profile: Option<ProfileInfo>,
    /// Declared and inferred relationships.
    pub relationships: Vec<Relationship>,
    /// Every dictionary value, searchable.
    pub dictionary: Dictionary,
}

/// How a snapshot was profiled.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileInfo {
    /// Most rows sampled per table.
    pub sample_rows: u64,
    /// Distinct values kept per dictionary column.
    pub values_per_column: u32,
    /// When profiling finished.
    pub profiled_at: String,
}

impl LoadedSnapshot {
    /// Loads the snapshot in `dir`.
    pub fn load(dir: &Path) -> Result<LoadedSnapshot, SnapshotError> {
        let manifest: ConnectionManifest =
            snapshot::read_json(&dir.join(snapshot::CONNECTION_FILE))?;
        let tables = snapshot::read_tables(dir)?;
        let relationships: Option<RelationshipsArtifact> =
            snapshot::read_json_if_present(&dir.join(snapshot::RELATIONSHIPS_FILE))?;
        let views: std::collections::HashSet<TableRef> = tables
            .iter()
            .filter(|t| t.kind == TableKind::View)
            .map(SchemaTable::table_ref)
            .collect();
        let positions: HashMap<TableRef, usize> = tables
            .iter()
            .enumerate()
            .map(|(i, t)| (t.table_ref(), i))
            .collect();
        let mut stats: Vec<Vec<Option<ColumnStats>>> =
            tables.iter().map(|t| vec![None; t.columns.len()]).collect();
        let profile_path = dir.join(snapshot::PROFILE_FILE);
        let (dictionary, info) = if profile_path.is_file() {
            // Table by table: the profile's values never sit in memory whole.
            let mut builder = DictionaryBuilder::new();
            let header: ProfileArtifact =
                snapshot::read_records(&profile_path, "tables", |table: TableProfile| {
                    let key = table.table_ref();
                    builder.add_table(&table, views.contains(&key));
                    let Some(&t) = positions.get(&key) else {
                        return;
                    };
                    for measured in table.columns {
                        if let Some(c) = tables[t]
                            .columns
                            .iter()
                            .position(|c| c.name == measured.name)
                        {
                            stats[t][c] = Some(ColumnStats {
                                sampled_rows: measured.row_count,
                                null_count: measured.null_count,
                                distinct_count: measured.distinct_count,
                                min_value: measured.min_value,
                                max_value: measured.max_value,
                                sample_values: measured
                                    .top_values
                                    .into_iter()
                                    .take(SAMPLE_VALUES_SHOWN)
                                    .map(|v| v.value)
                                    .collect(),
                            });
                        }
                    }
                })?;
            let info = ProfileInfo {
                sample_rows: header.sample_rows,
                values_per_column: header.dictionary_max_values,
                profiled_at: header.profiled_at,
            };
            (builder.finish(), Some(info))
        } else {
            (Dictionary::default(), None)
        };
        let relationships = relationships.map(|r| r.relationships).unwrap_or_default();
        let mut relationships_by_table: HashMap<TableRef, Vec<u32>> = HashMap::new();
        for (i, r) in relationships.iter().enumerate() {
            for end in [&r.from, &r.to] {
                let key = end.table_ref();
                let list = relationships_by_table.entry(key).or_default();
                if list.last() != Some(&(i as u32)) {
                    list.push(i as u32);
                }
            }
        }
        Ok(LoadedSnapshot {
            manifest,
            names: resolve::name_index(&tables),
            tables,
            stats,
            profile: info,
            relationships,
            relationships_by_table,
            dictionary,
        })
    }

    /// Sample statistics of `tables[table].columns[column]`, when profiled.
    pub fn column_stats(&self, table: usize, column: usize) -> Option<&ColumnStats> {
        self.stats.get(table)?.get(column)?.as_ref()
    }

    /// Freshness of this snapshot.
    pub fn info(&self) -> SnapshotInfo {
        SnapshotInfo {
            sync_id: self.manifest.sync_id.clone(),
            extracted_at: self.manifest.extracted_at.clone(),
            scan_run_id: Some(self.manifest.scan_run_id.clone()),
        }
    }

    /// Resolves a table name in this snapshot.
    pub fn resolve(&self, query: &TableQuery) -> Resolution {
        let sqlite = self.manifest.driver == "sqlite";
        resolve::resolve(&self.tables, &self.names, query, sqlite)
    }
}

/// The latest snapshot of every connection of a project, cached in memory.
#[derive(Debug)]
pub struct Catalog {
    root: PathBuf,
    cache: Mutex<HashMap<String, Arc<LoadedSnapshot>>>,
    /// One gate per connection: a snapshot is loaded by one caller while
    /// the others wait for it, never twice at once.
    loading: Mutex<HashMap<String, Arc<Mutex<()>>>>,
}

impl Catalog {
    /// A catalog of the project at `root`. Nothing is read until asked.
    pub fn new(root: &Path) -> Catalog {
        Catalog {
            root: root.to_path_buf(),
            cache: Mutex::new(HashMap::new()),
            loading: Mutex::new(HashMap::new()),
        }
    }

    /// Loads the latest snapshot of each connection on a background
    /// thread, so a server's first `entity_details` or `dictionary_search`
    /// does not pay for it (a call that arrives meanwhile waits for the
    /// load rather than starting another).
    pub fn warm(self: &Arc<Self>, connection_ids: Vec<String>) {
        let catalog = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("lore-catalog-warm".to_string())
            .spawn(move || {
                for id in connection_ids {
                    // A broken snapshot is reported by the call that needs it.
                    let _ = catalog.latest(&id);
                }
            });
        drop(spawned);
    }

    /// The snapshot of `connection_id` completed last, or `None` before its
    /// first scan. Loads it only when it is not the one in memory.
    pub fn latest(
        &self,
        connection_id: &str,
    ) -> Result<Option<Arc<LoadedSnapshot>>, SnapshotError> {
        let dir = snapshot::snapshots_dir(&self.root, connection_id);
        let Some(sync_id) = snapshot::latest_sync_id(&dir)? else {
            return Ok(None);
        };
        if let Some(cached) = self.cached(connection_id)
            && cached.manifest.sync_id == sync_id
        {
            return Ok(Some(cached));
        }
        let gate = self
            .loading
            .lock()
            .ok()
            .map(|mut gates| Arc::clone(gates.entry(connection_id.to_string()).or_default()));
        let _loading = gate.as_ref().map(|gate| gate.lock());
        // Someone else may have loaded it while this caller waited.
        if let Some(cached) = self.cached(connection_id)
            && cached.manifest.sync_id == sync_id
        {
            return Ok(Some(cached));
        }
        let loaded = Arc::new(LoadedSnapshot::load(&dir.join(&sync_id))?);
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(connection_id.to_string(), Arc::clone(&loaded));
        }
        Ok(Some(loaded))
    }

    fn cached(&self, connection_id: &str) -> Option<Arc<LoadedSnapshot>> {
        self.cache.lock().ok()?.get(connection_id).cloned()
    }
}

/// A table (and optionally some of its columns) an agent asks about.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityRequest {
    /// The table as named by the agent (display string or structured).
    pub table: TableQuery,
    /// Only these columns (all when `None`).
    pub columns: Option<Vec<String>>,
}

/// Codes of per-entity errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EntityErrorCode {
    /// The connection has never been scanned.
    ScanMissing,
    /// No table by that name in the latest scan.
    TableNotFound,
    /// Several tables fit the name.
    AmbiguousTable,
    /// Some requested columns do not exist.
    ColumnNotFound,
}

/// Why one entity could not be answered (fully).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EntityError {
    /// What went wrong.
    pub code: EntityErrorCode,
    /// What went wrong and what to do next.
    pub message: String,
    /// Names to try instead (tables or columns).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<String>,
    /// A command that fixes it, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// The data of a column, from the profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ColumnStats {
    /// Rows in the sample.
    pub sampled_rows: u64,
    /// NULLs in the sample.
    pub null_count: u64,
    /// Distinct values in the sample.
    pub distinct_count: u64,
    /// Smallest value (numbers and dates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_value: Option<serde_json::Value>,
    /// Largest value (numbers and dates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_value: Option<serde_json::Value>,
    /// The most frequent values, most frequent first (dictionary columns only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sample_values: Vec<String>,
}

/// A column with what the scan learned about its data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EntityColumn {
    /// Column name.
    pub name: String,
    /// Type as the database declares it.
    pub native_type: String,
    /// Type in Lore's shared vocabulary (integer, decimal, float, boolean, text, enum, date, timestamp, timestamptz, time, interval, json, uuid, binary, array, other).
    pub normalized_type: String,
    /// How the column behaves as a dimension: time, string, number or boolean.
    pub dimension_type: crate::schema::DimensionType,
    /// Whether NULL is allowed.
    pub nullable: bool,
    /// Whether the column is part of the primary key.
    pub primary_key: bool,
    /// Whether a single-column unique constraint covers it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unique: bool,
    /// The database comment.
    pub comment: Option<String>,
    /// Counts and frequent values from a sample, when the scan profiled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stats: Option<ColumnStats>,
}

/// A relationship seen from one table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EntityRelationship {
    /// `outgoing` (this table references the other) or `incoming`.
    pub direction: String,
    /// `formal` (declared) or `inferred` (checked against the data).
    pub kind: RelationshipKind,
    /// Columns of this table.
    pub columns: Vec<String>,
    /// The other table, as a display name.
    pub other_table: String,
    /// Columns of the other table, paired in order.
    pub other_columns: Vec<String>,
    /// 1 for declared keys; how strongly the data agrees for inferred ones.
    pub confidence: f64,
}

/// Everything known about one table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EntityRecord {
    /// The connection.
    pub connection_id: String,
    /// Structured identity, lossless on every driver.
    pub table_ref: TableRef,
    /// The name to write in SQL, e.g. `sales.orders`.
    pub display: String,
    /// table, view, external or event_stream.
    pub kind: TableKind,
    /// The database comment on the table.
    pub comment: Option<String>,
    /// Row count estimate.
    pub estimated_rows: Option<u64>,
    /// Columns (only the requested ones when a subset was asked for).
    pub columns: Vec<EntityColumn>,
    /// Declared foreign keys (always the whole table's).
    pub foreign_keys: Vec<ForeignKey>,
    /// Accepted relationships to and from this table, declared and inferred.
    pub relationships: Vec<EntityRelationship>,
    /// The snapshot this comes from.
    pub snapshot: SnapshotInfo,
}

/// The answer for one requested entity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EntityResult {
    /// The table as it was asked for.
    pub requested: String,
    /// `ok`, `partial` (found, but some columns were not) or `error`.
    pub status: String,
    /// What went wrong, with candidates and the command to run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<EntityError>,
    /// The table, when found.
    #[serde(flatten)]
    pub entity: Option<EntityRecord>,
}

fn error_result(requested: String, error: EntityError) -> EntityResult {
    EntityResult {
        requested,
        status: "error".into(),
        error: Some(error),
        entity: None,
    }
}

/// Answers entity requests against a connection's latest snapshot.
pub fn entity_details(
    connection_id: &str,
    snapshot: Option<&LoadedSnapshot>,
    requests: &[EntityRequest],
) -> Vec<EntityResult> {
    requests
        .iter()
        .map(|request| {
            let requested = request.table.display();
            let Some(snapshot) = snapshot else {
                return error_result(
                    requested,
                    EntityError {
                        code: EntityErrorCode::ScanMissing,
                        message: format!(
                            "connection `{connection_id}` has not been scanned yet, so Lore knows none of its tables; run `lore scan {connection_id}`, or meanwhile list tables with sql_execution"
                        ),
                        candidates: Vec::new(),
                        command: Some(format!("lore scan {connection_id}")),
                    },
                );
            };
            match snapshot.resolve(&request.table) {
                Resolution::Found(index) => describe(connection_id, snapshot, index, request, requested),
                Resolution::Ambiguous(candidates) => error_result(
                    requested.clone(),
                    EntityError {
                        code: EntityErrorCode::AmbiguousTable,
                        message: format!(
                            "`{requested}` names {} tables; ask again with a qualified name from candidates",
                            candidates.len()
                        ),
                        candidates,
                        command: None,
                    },
                ),
                Resolution::NotFound(candidates) => error_result(
                    requested.clone(),
                    EntityError {
                        code: EntityErrorCode::TableNotFound,
                        message: format!(
                            "no table `{requested}` in the scan of `{connection_id}` taken {}; {}if the table is newer than the scan, run `lore scan {connection_id}` and ask again",
                            snapshot.manifest.extracted_at,
                            if candidates.is_empty() {
                                ""
                            } else {
                                "did you mean one of the candidates? "
                            }
                        ),
                        candidates,
                        command: Some(format!("lore scan {connection_id}")),
                    },
                ),
            }
        })
        .collect()
}

fn describe(
    connection_id: &str,
    snapshot: &LoadedSnapshot,
    index: usize,
    request: &EntityRequest,
    requested: String,
) -> EntityResult {
    let table = &snapshot.tables[index];
    let table_ref = table.table_ref();
    let mut missing = Vec::new();
    let chosen: Vec<usize> = match &request.columns {
        None => (0..table.columns.len()).collect(),
        Some(names) => names
            .iter()
            .filter_map(|name| {
                let found = table
                    .columns
                    .iter()
                    .position(|c| c.name == *name)
                    .or_else(|| {
                        table
                            .columns
                            .iter()
                            .position(|c| c.name.eq_ignore_ascii_case(name))
                    });
                if found.is_none() {
                    missing.push(name.clone());
                }
                found
            })
            .collect(),
    };
    let columns = chosen
        .into_iter()
        .map(|i| (&table.columns[i], snapshot.stats[index][i].clone()))
        .map(|(c, stats)| EntityColumn {
            name: c.name.clone(),
            native_type: c.native_type.clone(),
            normalized_type: c.normalized_type.clone(),
            dimension_type: c.dimension_type,
            nullable: c.nullable,
            primary_key: c.primary_key,
            unique: c.unique,
            comment: c.comment.clone(),
            stats,
        })
        .collect();
    let relationships = snapshot
        .relationships_by_table
        .get(&table_ref)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|&i| &snapshot.relationships[i as usize])
        .filter(|r| r.status == RelationshipStatus::Accepted)
        .filter_map(|r| {
            let from_here = r.from.table == table.name && r.from.db == table.db;
            let to_here = r.to.table == table.name && r.to.db == table.db;
            let (direction, here, there) = if from_here {
                ("outgoing", &r.from, &r.to)
            } else if to_here {
                ("incoming", &r.to, &r.from)
            } else {
                return None;
            };
            Some(EntityRelationship {
                direction: direction.to_string(),
                kind: r.kind,
                columns: here.columns.clone(),
                other_table: there.table_ref().display(),
                other_columns: there.columns.clone(),
                confidence: r.confidence,
            })
        })
        .collect();
    let error = (!missing.is_empty()).then(|| {
        let candidates = missing
            .iter()
            .flat_map(|m| {
                resolve::closest(
                    table.columns.iter(),
                    m,
                    |c| c.name.clone(),
                    |c| c.name.clone(),
                )
            })
            .collect();
        EntityError {
            code: EntityErrorCode::ColumnNotFound,
            message: format!(
                "{} has no column {}; the other requested columns are shown",
                table_ref.display(),
                missing
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            candidates,
            command: None,
        }
    });
    EntityResult {
        requested,
        status: if error.is_some() { "partial" } else { "ok" }.to_string(),
        error,
        entity: Some(EntityRecord {
            connection_id: connection_id.to_string(),
            display: table_ref.display(),
            table_ref,
            kind: table.kind,
            comment: table.comment.clone(),
            estimated_rows: table.estimated_rows,
            columns,
            foreign_keys: table.foreign_keys.clone(),
            relationships,
            snapshot: snapshot.info(),
        }),
    }
}

/// How much of a connection the dictionary covers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DictionaryCoverage {
    /// Most rows sampled per table when profiling.
    pub sampled_rows: Option<u64>,
    /// Distinct values kept per column.
    pub values_per_column: Option<u32>,
    /// Columns in the dictionary.
    pub profiled_columns: usize,
    /// The snapshot searched.
    pub sync_id: Option<String>,
    /// When it was profiled (ISO-8601 UTC).
    pub profiled_at: Option<String>,
}

/// A connection's readiness for value lookups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DictionaryStatus {
    /// Profiled, with dictionary columns.
    Ready,
    /// Never scanned with profiling.
    NoProfileArtifact,
    /// Profiled, but no column qualified for the dictionary.
    NoCandidateColumns,
}

/// One connection searched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchedConnection {
    /// The connection.
    pub connection_id: String,
    /// What the dictionary covers.
    pub coverage: DictionaryCoverage,
    /// ready, no_profile_artifact or no_candidate_columns.
    pub status: DictionaryStatus,
}

/// A column holding a matching value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ValueMatch {
    /// The connection.
    pub connection_id: String,
    /// The table, as a display name to use in SQL.
    pub source_name: String,
    /// The table, structured.
    pub table_ref: TableRef,
    /// The column.
    pub column_name: String,
    /// The value as stored (case may differ from the search).
    pub matched_value: String,
    /// exact, prefix or substring.
    pub match_type: String,
    /// Occurrences in the sample, when among the most frequent values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_count: Option<u64>,
    /// Distinct values of the column in the sample.
    pub cardinality: Option<u64>,
    /// Whether the table is a view (base tables are listed first).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_view: bool,
}

/// Why a connection had no match for a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MissReason {
    /// Never scanned with profiling.
    NoProfileArtifact,
    /// No column qualified for the dictionary.
    NoCandidateColumns,
    /// Not in the sampled values (it may still exist).
    ValueNotInSample,
}

/// A connection without a match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ValueMiss {
    /// The connection.
    pub connection_id: String,
    /// Why nothing matched.
    pub reason: MissReason,
}

/// Matches for one searched value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ValueResult {
    /// The value searched for.
    pub value: String,
    /// The best matches: exact first, then prefix, then substring.
    pub matches: Vec<ValueMatch>,
    /// Matching values in all, including those not listed.
    pub total_matches: usize,
    /// Whether more matches exist than are listed.
    pub truncated: bool,
    /// Connections without a match, and why.
    pub misses: Vec<ValueMiss>,
}

/// Searches the dictionaries of `snapshots` (connection id and its latest
/// snapshot, if any) for each value, keeping the best `limit` matches.
pub fn dictionary_search(
    snapshots: &[(String, Option<Arc<LoadedSnapshot>>)],
    values: &[String],
    limit: usize,
) -> (Vec<SearchedConnection>, Vec<ValueResult>) {
    let searched: Vec<SearchedConnection> = snapshots
        .iter()
        .map(|(id, snapshot)| {
            let profile = snapshot
                .as_deref()
                .and_then(|s| s.profile.as_ref().map(|p| (s, p)));
            let columns = snapshot.as_ref().map_or(0, |s| s.dictionary.column_count());
            SearchedConnection {
                connection_id: id.clone(),
                coverage: DictionaryCoverage {
                    sampled_rows: profile.map(|(_, p)| p.sample_rows),
                    values_per_column: profile.map(|(_, p)| p.values_per_column),
                    profiled_columns: columns,
                    sync_id: profile.map(|(s, _)| s.manifest.sync_id.clone()),
                    profiled_at: profile.map(|(_, p)| p.profiled_at.clone()),
                },
                status: match (profile.is_some(), columns) {
                    (false, _) => DictionaryStatus::NoProfileArtifact,
                    (true, 0) => DictionaryStatus::NoCandidateColumns,
                    (true, _) => DictionaryStatus::Ready,
                },
            }
        })
        .collect();
    let results = values
        .iter()
        .map(|value| {
            let mut matches: Vec<(MatchKind, ValueMatch)> = Vec::new();
            let mut misses = Vec::new();
            let mut total = 0;
            for ((id, snapshot), searched) in snapshots.iter().zip(&searched) {
                let found = match (searched.status, snapshot) {
                    (DictionaryStatus::Ready, Some(snapshot)) => {
                        snapshot.dictionary.search(value, limit)
                    }
                    _ => (Vec::new(), 0),
                };
                if found.1 == 0 {
                    misses.push(ValueMiss {
                        connection_id: id.clone(),
                        reason: match searched.status {
                            DictionaryStatus::Ready => MissReason::ValueNotInSample,
                            DictionaryStatus::NoProfileArtifact => MissReason::NoProfileArtifact,
                            DictionaryStatus::NoCandidateColumns => MissReason::NoCandidateColumns,
                        },
                    });
                }
                total += found.1;
                matches.extend(found.0.into_iter().map(|m| {
                    (
                        m.kind,
                        ValueMatch {
                            connection_id: id.clone(),
                            source_name: m.column.table.display(),
                            table_ref: m.column.table.clone(),
                            column_name: m.column.column.clone(),
                            matched_value: m.value.to_string(),
                            match_type: match m.kind {
                                MatchKind::Exact => "exact",
                                MatchKind::Prefix => "prefix",
                                MatchKind::Substring => "substring",
                            }
                            .to_string(),
                            sample_count: m.count,
                            cardinality: Some(m.column.distinct_count),
                            is_view: m.column.is_view,
                        },
                    )
                }));
            }
            matches.sort_by(|(ka, a), (kb, b)| {
                ka.cmp(kb)
                    .then_with(|| a.is_view.cmp(&b.is_view))
                    .then_with(|| {
                        b.sample_count
                            .unwrap_or(0)
                            .cmp(&a.sample_count.unwrap_or(0))
                    })
                    .then_with(|| a.matched_value.len().cmp(&b.matched_value.len()))
            });
            matches.truncate(limit);
            ValueResult {
                value: value.clone(),
                truncated: total > matches.len(),
                total_matches: total,
                matches: matches.into_iter().map(|(_, m)| m).collect(),
                misses,
            }
        })
        .collect();
    (searched, results)
}
