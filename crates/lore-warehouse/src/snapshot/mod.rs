//! Scan snapshots on disk: immutable folders, one per scan, that agents'
//! tools read and people can diff.
//!
//! ```text
//! raw-sources/<connection>/live-database/<syncId>/
//!   connection.json      which connection, when, what scope, how many tables
//!   tables/<db>.<name>.json   one file per table (schema::SchemaTable)
//!   profile.json         column profiles and dictionary values
//!   relationships.json   declared and inferred relationships
//!   scan-report.json     what the scan did and what changed since the last one
//! ```
//!
//! Table files are pretty-printed; `profile.json` and `relationships.json`,
//! which grow with every column, hold one record per line: still one JSON
//! document, diffable line by line, a third of the size.
//!
//! A `syncId` is the scan's UTC time plus a random suffix
//! (`20261122T202530123Z-a3f1`), so snapshots sort by time and never
//! collide. A snapshot is written into a hidden `.tmp-<syncId>` folder,
//! its completion recorded last (`complete.json`: the sync id and when it
//! completed), then renamed into place. Only completed snapshots count,
//! newest completion first, whatever their folder is called: a folder
//! without its record (copied half-way, written by hand, left by a killed
//! process) is reported by [`incomplete_snapshots`] and ignored. Snapshots
//! written before completion records existed count when their scan report
//! (written last) is there, as of that file's time.

use std::collections::HashSet;
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};
use std::time::Duration;

use lore_core::error::{ErrorCode, HasErrorCode};
use lore_core::time::UtcMillis;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::schema::SchemaTable;

/// The folder of a connection's snapshots, under `raw-sources/<id>/`.
pub const LIVE_DATABASE_DIR: &str = "live-database";
/// The manifest of a snapshot.
pub const CONNECTION_FILE: &str = "connection.json";
/// The folder of table files.
pub const TABLES_DIR: &str = "tables";
/// Column profiles.
pub const PROFILE_FILE: &str = "profile.json";
/// Relationships.
pub const RELATIONSHIPS_FILE: &str = "relationships.json";
/// The scan report.
pub const REPORT_FILE: &str = "scan-report.json";
/// The completion record, written last.
pub const COMPLETE_FILE: &str = "complete.json";
/// Prefix of snapshots being written.
const TEMP_PREFIX: &str = ".tmp-";
/// Unfinished snapshots older than this are debris from a killed scan.
const STALE_TEMP_AGE: Duration = Duration::from_secs(3600);

/// Why a snapshot could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// A file or folder could not be written or read.
    #[error("cannot access {}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A file exists but is not what Lore wrote.
    #[error("{} is not a valid scan artifact ({message}); run `lore scan` again to write a fresh snapshot", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
}

impl HasErrorCode for SnapshotError {
    fn code(&self) -> ErrorCode {
        match self {
            SnapshotError::Io { source, .. }
                if source.kind() == std::io::ErrorKind::PermissionDenied =>
            {
                ErrorCode::PermissionDenied
            }
            SnapshotError::Io { .. } => ErrorCode::Internal,
            SnapshotError::Corrupt { .. } => ErrorCode::ConfigError,
        }
    }
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> SnapshotError + '_ {
    move |source| SnapshotError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// `connection.json`: which connection a snapshot describes, and when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionManifest {
    /// Connection id.
    pub connection_id: String,
    /// Driver name.
    pub driver: String,
    /// SQL dialect of the connection.
    pub dialect: String,
    /// The snapshot's id.
    pub sync_id: String,
    /// The scan run that wrote it.
    pub scan_run_id: String,
    /// When the structure was read (ISO-8601 UTC).
    pub extracted_at: String,
    /// What was scanned.
    pub scope: ScopeManifest,
    /// Tables and views in the snapshot.
    pub table_count: usize,
    /// The Lore version that wrote it.
    pub lore_version: String,
}

/// The scope of a scan.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScopeManifest {
    /// Schemas or databases read; `null` means the driver's default.
    pub schemas: Option<Vec<String>>,
    /// Table patterns left out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude_tables: Vec<String>,
}

/// The snapshots folder of connection `id` in the project at `root`.
pub fn snapshots_dir(root: &Path, connection_id: &str) -> PathBuf {
    root.join("raw-sources")
        .join(connection_id)
        .join(LIVE_DATABASE_DIR)
}

/// What a snapshot records as its last act.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Completion {
    sync_id: String,
    completed_at: String,
}

/// When the snapshot in `path` (named `name`) completed, if it did.
fn completed_at(path: &Path, name: &str) -> Option<UtcMillis> {
    if let Ok(text) = std::fs::read_to_string(path.join(COMPLETE_FILE)) {
        let record: Completion = serde_json::from_str(&text).ok()?;
        return (record.sync_id == name)
            .then(|| UtcMillis::parse_iso(&record.completed_at))
            .flatten();
    }
    // Written before completion records: the report was its last file.
    let modified = std::fs::metadata(path.join(REPORT_FILE))
        .and_then(|m| m.modified())
        .ok()?;
    let millis = modified
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_millis();
    Some(UtcMillis(i64::try_from(millis).ok()?))
}

/// The visible snapshot folders of `dir` (not the hidden ones being
/// written), each with its completion time if it completed.
fn snapshot_folders(dir: &Path) -> Result<Vec<(String, Option<UtcMillis>)>, SnapshotError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error(dir)(e)),
    };
    Ok(entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            (!name.starts_with('.')).then(|| {
                let done = completed_at(&e.path(), &name);
                (name, done)
            })
        })
        .collect())
}

/// Completed snapshots in `dir`, oldest completion first (an absent folder
/// has none).
pub fn list_sync_ids(dir: &Path) -> Result<Vec<String>, SnapshotError> {
    let mut done: Vec<(UtcMillis, String)> = snapshot_folders(dir)?
        .into_iter()
        .filter_map(|(name, at)| Some((at?, name)))
        .collect();
    done.sort();
    Ok(done.into_iter().map(|(_, name)| name).collect())
}

/// The snapshot completed last in `dir`.
pub fn latest_sync_id(dir: &Path) -> Result<Option<String>, SnapshotError> {
    Ok(list_sync_ids(dir)?.pop())
}

/// Visible snapshot folders in `dir` that never completed: ignored by every
/// reader, removed by the next scan's pruning.
pub fn incomplete_snapshots(dir: &Path) -> Result<Vec<String>, SnapshotError> {
    let mut names: Vec<String> = snapshot_folders(dir)?
        .into_iter()
        .filter(|(_, at)| at.is_none())
        .map(|(name, _)| name)
        .collect();
    names.sort();
    Ok(names)
}

/// A new sync id, later than `after` even if the clock went backwards.
pub fn new_sync_id(after: Option<&str>) -> String {
    let mut now = UtcMillis::now();
    if let Some(previous) = after.and_then(millis_of)
        && previous >= now
    {
        now = UtcMillis(previous.0 + 1);
    }
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    hasher.write_u32(std::process::id());
    format!("{}-{:04x}", now.to_compact(), hasher.finish() & 0xffff)
}

/// The time part of a sync id.
fn millis_of(sync_id: &str) -> Option<UtcMillis> {
    let c = sync_id.get(..19)?; // YYYYMMDDTHHMMSSmmmZ
    let iso = format!(
        "{}-{}-{}T{}:{}:{}.{}Z",
        c.get(0..4)?,
        c.get(4..6)?,
        c.get(6..8)?,
        c.get(9..11)?,
        c.get(11..13)?,
        c.get(13..15)?,
        c.get(15..18)?
    );
    UtcMillis::parse_iso(&iso)
}

/// A file name for a table, safe on every filesystem and unique within a
/// snapshot even where names differ only in case.
pub fn table_file_name(table: &SchemaTable, used: &mut HashSet<String>) -> String {
    let display = table.table_ref().display();
    let mut stem: String = display
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c.to_string()
            } else {
                format!("%{:02X}", c as u32)
            }
        })
        .collect();
    if stem.starts_with('.') {
        stem.insert(0, '_');
    }
    let mut name = format!("{stem}.json");
    let mut n = 2;
    while !used.insert(name.to_ascii_lowercase()) {
        name = format!("{stem}~{n}.json");
        n += 1;
    }
    name
}

/// Reads and parses one JSON artifact.
pub fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, SnapshotError> {
    let bytes = std::fs::read(path).map_err(io_error(path))?;
    serde_json::from_slice(&bytes).map_err(|e| SnapshotError::Corrupt {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Reads a JSON artifact that may be absent.
pub fn read_json_if_present<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, SnapshotError> {
    if path.is_file() {
        read_json(path).map(Some)
    } else {
        Ok(None)
    }
}

/// Reads a document written by [`SnapshotWriter::write_records`] (or any
/// JSON object with an array under `field`), handing each element of
/// `field` to `on_record` as soon as it is parsed, so the array never sits
/// in memory whole. Returns the rest of the document as `H` (with an empty
/// `field`).
pub fn read_records<H: DeserializeOwned, T: DeserializeOwned>(
    path: &Path,
    field: &str,
    on_record: impl FnMut(T),
) -> Result<H, SnapshotError> {
    use serde::Deserializer as _;
    let bytes = std::fs::read(path).map_err(io_error(path))?;
    let corrupt = |message: String| SnapshotError::Corrupt {
        path: path.to_path_buf(),
        message,
    };
    let mut deserializer = serde_json::Deserializer::from_slice(&bytes);
    let mut on_record = on_record;
    let fields = deserializer
        .deserialize_map(records::Document {
            field,
            on_record: &mut on_record,
            record: std::marker::PhantomData,
        })
        .map_err(|e| corrupt(e.to_string()))?;
    deserializer.end().map_err(|e| corrupt(e.to_string()))?;
    serde_json::from_value(serde_json::Value::Object(fields)).map_err(|e| corrupt(e.to_string()))
}

mod records {
    //! The serde visitors behind [`super::read_records`].

    use std::marker::PhantomData;

    use serde::de::{DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};
    use serde_json::{Map, Value};

    pub(super) struct Document<'f, F, T> {
        pub field: &'f str,
        pub on_record: &'f mut F,
        pub record: PhantomData<T>,
    }

    impl<'de, F: FnMut(T), T: DeserializeOwned> Visitor<'de> for Document<'_, F, T> {
        type Value = Map<String, Value>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "a JSON object with an array `{}`", self.field)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut fields = Map::new();
            while let Some(key) = map.next_key::<String>()? {
                if key == self.field {
                    map.next_value_seed(Records {
                        on_record: &mut *self.on_record,
                        record: PhantomData,
                    })?;
                    fields.insert(key, Value::Array(Vec::new()));
                } else {
                    fields.insert(key, map.next_value()?);
                }
            }
            Ok(fields)
        }
    }

    struct Records<'f, F, T> {
        on_record: &'f mut F,
        record: PhantomData<T>,
    }

    impl<'de, F: FnMut(T), T: DeserializeOwned> DeserializeSeed<'de> for Records<'_, F, T> {
        type Value = ();

        fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
            deserializer.deserialize_seq(self)
        }
    }

    impl<'de, F: FnMut(T), T: DeserializeOwned> Visitor<'de> for Records<'_, F, T> {
        type Value = ();

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an array of records")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while let Some(record) = seq.next_element::<T>()? {
                (self.on_record)(record);
            }
            Ok(())
        }
    }
}

/// Every table file of the snapshot in `snapshot_dir`, read on several
/// threads.
pub fn read_tables(snapshot_dir: &Path) -> Result<Vec<SchemaTable>, SnapshotError> {
    let dir = snapshot_dir.join(TABLES_DIR);
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(&dir).map_err(io_error(&dir))? {
        let path = entry.map_err(io_error(&dir))?.path();
        if path.extension().is_some_and(|e| e == "json") {
            paths.push(path);
        }
    }
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8);
    let chunk = paths.len().div_ceil(threads).max(1);
    let parts: Vec<Result<Vec<SchemaTable>, SnapshotError>> = std::thread::scope(|scope| {
        let workers: Vec<_> = paths
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || part.iter().map(|p| read_json::<SchemaTable>(p)).collect())
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join().unwrap_or_else(|_| {
                    Err(SnapshotError::Corrupt {
                        path: dir.clone(),
                        message: "a thread reading table files failed".into(),
                    })
                })
            })
            .collect()
    });
    let mut tables = Vec::with_capacity(paths.len());
    for part in parts {
        tables.extend(part?);
    }
    tables.sort_by(|a, b| (&a.db, &a.name).cmp(&(&b.db, &b.name)));
    Ok(tables)
}

/// A snapshot being written. Dropping it before [`SnapshotWriter::commit`]
/// deletes what was written.
#[derive(Debug)]
pub struct SnapshotWriter {
    temp: PathBuf,
    target: PathBuf,
    committed: bool,
}

impl SnapshotWriter {
    /// Starts snapshot `sync_id` in `dir` (created if needed).
    pub fn create(dir: &Path, sync_id: &str) -> Result<SnapshotWriter, SnapshotError> {
        let temp = dir.join(format!("{TEMP_PREFIX}{sync_id}"));
        std::fs::create_dir_all(temp.join(TABLES_DIR)).map_err(io_error(&temp))?;
        Ok(SnapshotWriter {
            temp,
            target: dir.join(sync_id),
            committed: false,
        })
    }

    /// Writes `value` as pretty JSON at `relative` inside the snapshot.
    pub fn write_json<T: Serialize>(&self, relative: &str, value: &T) -> Result<(), SnapshotError> {
        let path = self.temp.join(relative);
        let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| SnapshotError::Corrupt {
            path: path.clone(),
            message: e.to_string(),
        })?;
        bytes.push(b'\n');
        std::fs::write(&path, bytes).map_err(io_error(&path))
    }

    /// Writes one JSON object at `relative`: the fields of `header`, then
    /// `field` holding `records` as an array with one compact record per
    /// line. Streams to the file, so the document never sits in memory.
    pub fn write_records<H: Serialize, T: Serialize>(
        &self,
        relative: &str,
        header: &H,
        field: &str,
        records: &[T],
    ) -> Result<(), SnapshotError> {
        use std::io::Write;
        let path = self.temp.join(relative);
        let corrupt = |message: String| SnapshotError::Corrupt {
            path: path.clone(),
            message,
        };
        let serde_json::Value::Object(mut fields) =
            serde_json::to_value(header).map_err(|e| corrupt(e.to_string()))?
        else {
            return Err(corrupt("the header is not a JSON object".into()));
        };
        fields.remove(field);
        let file = std::fs::File::create(&path).map_err(io_error(&path))?;
        let mut out = std::io::BufWriter::new(file);
        let mut write = || -> std::io::Result<()> {
            out.write_all(b"{\n")?;
            for (key, value) in &fields {
                serde_json::to_writer(&mut out, key)?;
                out.write_all(b": ")?;
                serde_json::to_writer(&mut out, value)?;
                out.write_all(b",\n")?;
            }
            serde_json::to_writer(&mut out, field)?;
            out.write_all(b": [")?;
            for (i, record) in records.iter().enumerate() {
                out.write_all(if i == 0 { b"\n" } else { b",\n" })?;
                serde_json::to_writer(&mut out, record)?;
            }
            out.write_all(b"\n]\n}\n")?;
            out.flush()
        };
        write().map_err(io_error(&path))
    }

    /// Records the snapshot's completion, then makes it visible under its
    /// sync id.
    pub fn commit(mut self) -> Result<PathBuf, SnapshotError> {
        let sync_id = self
            .target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        self.write_json(
            COMPLETE_FILE,
            &Completion {
                sync_id,
                completed_at: UtcMillis::now().to_iso(),
            },
        )?;
        std::fs::rename(&self.temp, &self.target).map_err(io_error(&self.target))?;
        self.committed = true;
        Ok(self.target.clone())
    }
}

impl Drop for SnapshotWriter {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.temp);
        }
    }
}

/// Deletes all but the newest `keep` snapshots, folders that never
/// completed, and unfinished ones left by scans that were killed. Returns
/// the names removed.
pub fn prune(dir: &Path, keep: usize) -> Result<Vec<String>, SnapshotError> {
    let ids = list_sync_ids(dir)?;
    let excess = ids.len().saturating_sub(keep.max(1));
    let mut removed = Vec::new();
    for id in ids
        .into_iter()
        .take(excess)
        .chain(incomplete_snapshots(dir)?)
    {
        let path = dir.join(&id);
        std::fs::remove_dir_all(&path).map_err(io_error(&path))?;
        removed.push(id);
    }
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.filter_map(Result::ok) {
            let stale = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > STALE_TEMP_AGE);
            let is_temp = entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX);
            if is_temp && stale {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(db: Option<&str>, name: &str) -> SchemaTable {
        SchemaTable::named(db, name)
    }

    #[test]
    fn sync_ids_sort_by_time_and_never_go_backwards() {
        let first = new_sync_id(None);
        assert_eq!(first.len(), "20261122T202530123Z-a3f1".len(), "{first}");
        let future = "29991231T235959999Z-0000";
        let next = new_sync_id(Some(future));
        assert!(next.as_str() > future, "{next} must sort after {future}");
        assert!(millis_of(&first).is_some());
    }

    #[test]
    fn table_file_names_are_safe_and_unique_ignoring_case() {
        let mut used = HashSet::new();
        assert_eq!(
            table_file_name(&table(Some("public"), "orders"), &mut used),
            "public.orders.json"
        );
        assert_eq!(
            table_file_name(&table(Some("public"), "Orders"), &mut used),
            "public.Orders~2.json"
        );
        assert_eq!(
            table_file_name(&table(None, "a/b c"), &mut used),
            "a%2Fb%20c.json"
        );
        assert_eq!(
            table_file_name(&table(None, ".hidden"), &mut used),
            "_.hidden.json"
        );
    }

    #[test]
    fn records_are_one_per_line_in_a_valid_document() {
        let dir = tempfile::tempdir().unwrap();
        let writer = SnapshotWriter::create(dir.path(), "20260101T000000000Z-0001").unwrap();
        let header = serde_json::json!({"connectionId": "w", "rows": []});
        writer
            .write_records(
                "r.json",
                &header,
                "rows",
                &[serde_json::json!({"a": 1}), serde_json::json!({"a": 2})],
            )
            .unwrap();
        let target = writer.commit().unwrap();
        let text = std::fs::read_to_string(target.join("r.json")).unwrap();
        assert_eq!(
            text,
            "{\n\"connectionId\": \"w\",\n\"rows\": [\n{\"a\":1},\n{\"a\":2}\n]\n}\n"
        );
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed["rows"][1]["a"], 2);
    }

    #[test]
    fn an_uncommitted_snapshot_leaves_nothing_and_a_committed_one_is_listed() {
        let dir = tempfile::tempdir().unwrap();
        let writer = SnapshotWriter::create(dir.path(), "20260101T000000000Z-0001").unwrap();
        writer
            .write_json("connection.json", &serde_json::json!({}))
            .unwrap();
        drop(writer);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        assert_eq!(latest_sync_id(dir.path()).unwrap(), None);

        for id in [
            "20260101T000000000Z-0001",
            "20260102T000000000Z-0002",
            "20260103T000000000Z-0003",
        ] {
            SnapshotWriter::create(dir.path(), id)
                .unwrap()
                .commit()
                .unwrap();
        }
        assert_eq!(
            latest_sync_id(dir.path()).unwrap().as_deref(),
            Some("20260103T000000000Z-0003")
        );
        let removed = prune(dir.path(), 2).unwrap();
        assert_eq!(removed, ["20260101T000000000Z-0001"]);
        assert_eq!(list_sync_ids(dir.path()).unwrap().len(), 2);
    }

    fn complete(dir: &Path, id: &str) {
        let writer = SnapshotWriter::create(dir, id).unwrap();
        writer
            .write_json(REPORT_FILE, &serde_json::json!({}))
            .unwrap();
        writer.commit().unwrap();
    }

    #[test]
    fn only_completed_snapshots_count_newest_completion_first() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        complete(dir, "20260101T000000000Z-aaaa");
        // A folder named far in the future but never completed, and one
        // whose record names another snapshot (copied over), do not count.
        std::fs::create_dir_all(dir.join("29991231T235959999Z-ffff/tables")).unwrap();
        complete(dir, "20250101T000000000Z-bbbb");
        // Completed an hour later than the first (its clock was behind).
        let later = Completion {
            sync_id: "20250101T000000000Z-bbbb".into(),
            completed_at: UtcMillis(UtcMillis::now().0 + 3_600_000).to_iso(),
        };
        std::fs::write(
            dir.join("20250101T000000000Z-bbbb").join(COMPLETE_FILE),
            serde_json::to_vec(&later).unwrap(),
        )
        .unwrap();
        std::fs::create_dir_all(dir.join("29990101T000000000Z-cccc")).unwrap();
        std::fs::copy(
            dir.join("20250101T000000000Z-bbbb").join(COMPLETE_FILE),
            dir.join("29990101T000000000Z-cccc").join(COMPLETE_FILE),
        )
        .unwrap();
        // The one completed last wins, whatever its name says.
        assert_eq!(
            latest_sync_id(dir).unwrap().as_deref(),
            Some("20250101T000000000Z-bbbb")
        );
        assert_eq!(
            incomplete_snapshots(dir).unwrap(),
            vec!["29990101T000000000Z-cccc", "29991231T235959999Z-ffff"]
        );
        let removed = prune(dir, 5).unwrap();
        assert_eq!(removed.len(), 2, "{removed:?}");
        assert!(incomplete_snapshots(dir).unwrap().is_empty());
        assert_eq!(list_sync_ids(dir).unwrap().len(), 2);
    }
}
