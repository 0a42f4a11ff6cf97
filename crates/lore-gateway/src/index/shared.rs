//! The chunk index shared through a server store: what one file's chunks
//! are in the store's file log (one JSON record per file version, see
//! `lore_store::shared`), and how a server's index applies the versions
//! other servers wrote. The sequence number applied last is remembered
//! beside the index (`.lore/gateway/shared.json`, with the index's
//! instance: a rebuilt index reads the log from its start).

use std::path::{Path, PathBuf};

use lore_core::{ErrorCode, ErrorReport};
use serde::{Deserialize, Serialize};

use crate::index::{FileFacts, GatewayIndex};
use crate::ingest::chunk::{Chunk, ChunkSymbol};
use crate::ingest::classify::ArtifactType;

/// The record format; a record of another one is skipped (with a warning)
/// until the server that reads it is upgraded.
const RECORD_FORMAT: u32 = 1;

/// One file's version as the store keeps it.
#[derive(Debug, Serialize, Deserialize)]
struct FileRecord {
    format: u32,
    artifact_type: ArtifactType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    language: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    subsystem: Option<String>,
    modified_ms: i64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tags: Vec<String>,
    chunks: Vec<ChunkRecord>,
}

/// One chunk of a [`FileRecord`].
#[derive(Debug, Serialize, Deserialize)]
struct ChunkRecord {
    key: String,
    start_line: usize,
    end_line: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    heading: Option<String>,
    text: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    symbols: Vec<ChunkSymbol>,
}

fn internal(e: impl std::fmt::Display) -> ErrorReport {
    ErrorReport::new(ErrorCode::Internal, format!("shared index: {e}"))
}

/// A file's chunks as one store value, and its hash (what says whether
/// the file moved since its live version).
pub fn encode(facts: &FileFacts, chunks: &[Chunk]) -> Result<(String, String), ErrorReport> {
    let record = FileRecord {
        format: RECORD_FORMAT,
        artifact_type: facts.artifact_type,
        language: facts.language.clone(),
        subsystem: facts.subsystem.clone(),
        modified_ms: facts.modified_ms,
        tags: facts.tags.clone(),
        chunks: chunks
            .iter()
            .map(|c| ChunkRecord {
                key: c.key.clone(),
                start_line: c.start_line,
                end_line: c.end_line,
                heading: c.heading.clone(),
                text: c.text.clone(),
                symbols: c.symbols.clone(),
            })
            .collect(),
    };
    let json = serde_json::to_string(&record).map_err(internal)?;
    let hash = lore_core::hash::content_hash(&json);
    Ok((json, hash))
}

/// A stored value read back into the index's terms.
fn decode(root: &str, path: &str, json: &str) -> Result<(FileFacts, Vec<Chunk>), String> {
    let record: FileRecord = serde_json::from_str(json).map_err(|e| e.to_string())?;
    if record.format != RECORD_FORMAT {
        return Err(format!("record format {} is not known", record.format));
    }
    let facts = FileFacts {
        root: root.to_string(),
        path: path.to_string(),
        artifact_type: record.artifact_type,
        language: record.language,
        subsystem: record.subsystem,
        modified_ms: record.modified_ms,
        tags: record.tags,
    };
    let chunks = record
        .chunks
        .into_iter()
        .enumerate()
        .map(|(ordinal, c)| Chunk {
            ordinal,
            key: c.key,
            start_line: c.start_line,
            end_line: c.end_line,
            heading: c.heading,
            text: c.text,
            symbols: c.symbols,
        })
        .collect();
    Ok((facts, chunks))
}

/// What a server's index has applied of the store's file log.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Mark {
    /// The index it was applied to ([`GatewayIndex::instance`]).
    index: String,
    /// The newest sequence number applied.
    seq: i64,
}

fn mark_path(state: &Path) -> PathBuf {
    state.join("shared.json")
}

/// The sequence number `index` has applied up to (0 for an index that
/// never followed the log, or that was rebuilt since).
pub fn applied(state: &Path, index: &GatewayIndex) -> i64 {
    std::fs::read(mark_path(state))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Mark>(&bytes).ok())
        .filter(|mark| mark.index == index.instance)
        .map_or(0, |mark| mark.seq)
}

/// Remembers that `index` has applied the log up to `seq` (after its
/// commit: a crash in between applies a few versions twice, which
/// changes nothing).
pub fn remember(state: &Path, index: &GatewayIndex, seq: i64) -> Result<(), ErrorReport> {
    let mark = Mark {
        index: index.instance.clone(),
        seq,
    };
    let bytes = serde_json::to_vec(&mark).map_err(internal)?;
    lore_core::project::write_atomically(&mark_path(state), bytes).map_err(internal)
}

/// Applies versions of the log to the index (not committed): a file's
/// chunks replaced, or removed for a closing version; versions written
/// by `origin` (this index's own) are already in it. Answers how many
/// were applied, and a warning per version that could not be read.
pub fn apply(
    index: &GatewayIndex,
    writer: &tantivy::IndexWriter,
    versions: &[lore_store::SharedFileVersion],
    origin: &str,
) -> Result<(usize, Vec<String>), ErrorReport> {
    let mut applied = 0;
    let mut warnings = Vec::new();
    for version in versions.iter().filter(|v| v.origin != origin) {
        let file = &version.file;
        match &file.chunks {
            None => index.remove_file(writer, &file.root, &file.path),
            Some(json) => match decode(&file.root, &file.path, json) {
                Ok((facts, chunks)) => index.put_file(writer, &facts, &chunks)?,
                Err(e) => {
                    warnings.push(format!(
                        "{}/{} (version {}) is skipped: {e}",
                        file.root, file.path, version.seq
                    ));
                    continue;
                }
            },
        }
        applied += 1;
    }
    Ok((applied, warnings))
}
