//! The chunk index shared through a server store: what one file's chunks
//! are in the store's file log (one JSON record per file version, see
//! `lore_store::shared`), and how a server's index applies the versions
//! other servers wrote. The sequence number applied last is remembered
//! beside the index (`.lore/gateway/shared.json`, with the index's
//! instance: a rebuilt index reads the log from its start).
//!
//! A record carries, besides the chunks, what the code graph knows of the
//! file ([`GraphFile`], at [`FACTS_VERSION`]) and its text (up to
//! [`MAX_SHARED_TEXT_BYTES`]), so a server that never read the file
//! answers graph questions and `km-read` as the one that did. Those
//! fields are optional: a record an older server wrote (chunks only) is
//! still applied to the index, and says it lacks them.

use std::path::{Path, PathBuf};

use lore_core::{ErrorCode, ErrorReport};
use serde::{Deserialize, Serialize};

use crate::graph::{FACTS_VERSION, GraphFile};
use crate::index::{FileFacts, GatewayIndex};
use crate::ingest::chunk::{Chunk, ChunkSymbol};
use crate::ingest::classify::ArtifactType;

/// The record format; a record of another one is skipped (with a warning)
/// until the server that reads it is upgraded. Fields added since are
/// optional, so the format stays 1 and servers of either age read each
/// other's records.
const RECORD_FORMAT: u32 = 1;

/// The longest text a record carries (a longer file is served by
/// `km-read` only where it was ingested).
pub const MAX_SHARED_TEXT_BYTES: usize = 2 * 1024 * 1024;

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
    /// The graph's facts of the file, in the format `facts_version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    graph: Option<GraphFile>,
    #[serde(default, skip_serializing_if = "is_zero")]
    facts_version: u32,
    /// The file's text, when it is at most [`MAX_SHARED_TEXT_BYTES`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    /// The hash of the file's text (what a ledger keeps).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    text_hash: String,
    /// The file's size in bytes.
    #[serde(default)]
    size: u64,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
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

/// A file as one server read it, to publish to the others.
pub struct Published<'a> {
    /// What the index keeps of it.
    pub facts: &'a FileFacts,
    /// Its chunks.
    pub chunks: &'a [Chunk],
    /// What the graph keeps of it.
    pub graph: &'a GraphFile,
    /// Its text.
    pub text: &'a str,
    /// The hash of its text.
    pub text_hash: &'a str,
}

/// A file's version as one store value, and its hash (what says whether
/// the file moved since its live version).
pub fn encode(file: &Published<'_>) -> Result<(String, String), ErrorReport> {
    let facts = file.facts;
    let record = FileRecord {
        format: RECORD_FORMAT,
        artifact_type: facts.artifact_type,
        language: facts.language.clone(),
        subsystem: facts.subsystem.clone(),
        modified_ms: facts.modified_ms,
        tags: facts.tags.clone(),
        chunks: file
            .chunks
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
        graph: Some(file.graph.clone()),
        facts_version: FACTS_VERSION,
        text: (file.text.len() <= MAX_SHARED_TEXT_BYTES).then(|| file.text.to_string()),
        text_hash: file.text_hash.to_string(),
        size: file.text.len() as u64,
    };
    let json = serde_json::to_string(&record).map_err(internal)?;
    let hash = lore_core::hash::content_hash(&json);
    Ok((json, hash))
}

/// A stored value read back.
pub struct Decoded {
    /// What the index keeps of the file.
    pub facts: FileFacts,
    /// Its chunks.
    pub chunks: Vec<Chunk>,
    /// What the graph keeps of it: none in a record an older server
    /// wrote, or of facts in another format.
    pub graph: Option<GraphFile>,
    /// Its text, when the record carries it.
    pub text: Option<String>,
    /// The hash of its text (empty in an older record).
    pub text_hash: String,
    /// Its size in bytes (0 in an older record).
    pub size: u64,
}

/// A stored value read back into the index's and the graph's terms.
pub fn decode(root: &str, path: &str, json: &str) -> Result<Decoded, String> {
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
    Ok(Decoded {
        facts,
        chunks,
        graph: record
            .graph
            .filter(|_| record.facts_version == FACTS_VERSION),
        text: record.text,
        text_hash: record.text_hash,
        size: record.size,
    })
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

/// How far this server's index has applied the log, whichever index
/// instance it was (what a status reports; 0 before the first version).
pub fn applied_seq(state: &Path) -> i64 {
    std::fs::read(mark_path(state))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Mark>(&bytes).ok())
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

/// A version another server wrote, as applied to the index: what the
/// server's books learn of it (`file: None` when it closed the file).
pub struct Applied {
    /// Its version.
    pub seq: i64,
    /// Its writer.
    pub origin: String,
    /// When it was written (ms since the epoch).
    pub written_ms: i64,
    /// The root.
    pub root: String,
    /// The root-relative path.
    pub path: String,
    /// What the books keep of the file, or none when it closed.
    pub file: Option<AppliedFile>,
}

/// What a server's books keep of a file another server published (its
/// chunks are in the index, its text in the store).
pub struct AppliedFile {
    /// Its type.
    pub artifact_type: ArtifactType,
    /// Its modification time where it was read (ms since the epoch).
    pub modified_ms: i64,
    /// What the graph keeps of it (none in an older record).
    pub graph: Option<GraphFile>,
    /// The hash of its text (empty in an older record).
    pub text_hash: String,
    /// Its size in bytes (0 in an older record).
    pub size: u64,
}

/// Applies versions of the log to the index (not committed): a file's
/// chunks replaced, or removed for a closing version; versions written
/// by `origin` (this index's own) are already in it. Answers what was
/// applied, and a warning per version that could not be read (or that
/// lacks the graph's facts).
pub fn apply(
    index: &GatewayIndex,
    writer: &tantivy::IndexWriter,
    versions: &[lore_store::SharedFileVersion],
    origin: &str,
) -> Result<(Vec<Applied>, Vec<String>), ErrorReport> {
    let mut applied = Vec::new();
    let mut warnings = Vec::new();
    for version in versions.iter().filter(|v| v.origin != origin) {
        let file = &version.file;
        // The root names this server's files for it (`graph/<root>.json`).
        if !lore_core::config::is_root_name(&file.root) {
            warnings.push(format!(
                "version {} is skipped: `{}` is not a root name",
                version.seq, file.root
            ));
            continue;
        }
        let kept = match &file.chunks {
            None => {
                index.remove_file(writer, &file.root, &file.path);
                None
            }
            Some(json) => match decode(&file.root, &file.path, json) {
                Ok(decoded) => {
                    index.put_file(writer, &decoded.facts, &decoded.chunks)?;
                    if decoded.graph.is_none() {
                        warnings.push(format!(
                            "{}/{} (version {}) carries no code-graph facts this server reads (written by an older or newer server): it is searchable here, but out of this server's graph until {} ingests it again",
                            file.root, file.path, version.seq, version.origin
                        ));
                    }
                    Some(AppliedFile {
                        artifact_type: decoded.facts.artifact_type,
                        modified_ms: decoded.facts.modified_ms,
                        graph: decoded.graph,
                        text_hash: decoded.text_hash,
                        size: decoded.size,
                    })
                }
                Err(e) => {
                    warnings.push(format!(
                        "{}/{} (version {}) is skipped: {e}",
                        file.root, file.path, version.seq
                    ));
                    continue;
                }
            },
        };
        applied.push(Applied {
            seq: version.seq,
            origin: version.origin.clone(),
            written_ms: version.written_ms,
            root: file.root.clone(),
            path: file.path.clone(),
            file: kept,
        });
    }
    Ok((applied, warnings))
}

/// The text of a live version of the log: `Ok(None)` for a closed file,
/// an error saying why a record holds no text.
pub fn text_of(version: &lore_store::SharedFileVersion) -> Result<Option<String>, String> {
    let file = &version.file;
    let Some(json) = &file.chunks else {
        return Ok(None);
    };
    let decoded = decode(&file.root, &file.path, json)?;
    decoded.text.map(Some).ok_or_else(|| {
        if decoded.size as usize > MAX_SHARED_TEXT_BYTES {
            format!(
                "it is larger than the {} MiB a shared record carries",
                MAX_SHARED_TEXT_BYTES / (1024 * 1024)
            )
        } else {
            "it was published by an older server, whose records carry chunks only".to_string()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts() -> FileFacts {
        FileFacts {
            root: "shop".into(),
            path: "billing/tax.py".into(),
            artifact_type: ArtifactType::Code,
            language: Some("python".into()),
            subsystem: Some("billing".into()),
            modified_ms: 7,
            tags: Vec::new(),
        }
    }

    fn version(json: Option<String>) -> lore_store::SharedFileVersion {
        lore_store::SharedFileVersion {
            seq: 3,
            origin: "host:/srv/a".into(),
            written_ms: 9,
            file: lore_store::SharedFile {
                root: "shop".into(),
                path: "billing/tax.py".into(),
                hash: "h".into(),
                chunks: json,
            },
        }
    }

    #[test]
    fn a_record_carries_the_graph_facts_and_text_and_reads_back() {
        let text = "def tax_rate():\n    return 2\n";
        let graph = GraphFile::new(
            "shop",
            "billing/tax.py",
            ArtifactType::Code,
            Some("python"),
            Some("billing".into()),
            None,
            text,
        );
        let (json, _) = encode(&Published {
            facts: &facts(),
            chunks: &[],
            graph: &graph,
            text,
            text_hash: "t",
        })
        .unwrap();
        let decoded = decode("shop", "billing/tax.py", &json).unwrap();
        assert_eq!(decoded.graph, Some(graph));
        assert_eq!(decoded.text.as_deref(), Some(text));
        assert_eq!((decoded.text_hash.as_str(), decoded.size), ("t", 29));
        assert_eq!(
            text_of(&version(Some(json))).unwrap().as_deref(),
            Some(text)
        );
        assert_eq!(text_of(&version(None)).unwrap(), None);
    }

    #[test]
    fn an_older_record_is_read_without_graph_or_text_and_another_format_is_refused() {
        // What servers before graph facts and text wrote.
        let old = r#"{"format":1,"artifact_type":"code","modified_ms":5,"chunks":[{"key":"billing/tax.py::tax_rate","start_line":1,"end_line":2,"text":"def tax_rate():"}]}"#;
        let decoded = decode("shop", "billing/tax.py", old).unwrap();
        assert_eq!(decoded.chunks.len(), 1);
        assert!(decoded.graph.is_none() && decoded.text.is_none());
        let why = text_of(&version(Some(old.to_string()))).unwrap_err();
        assert!(why.contains("older server"), "{why}");
        // Facts of another format stay out of the graph.
        let other = old.replace(
            "\"chunks\"",
            "\"facts_version\":999,\"graph\":{\"artifact_type\":\"code\"},\"chunks\"",
        );
        assert!(
            decode("shop", "billing/tax.py", &other)
                .unwrap()
                .graph
                .is_none()
        );
        let newer = old.replace("\"format\":1", "\"format\":2");
        assert!(decode("shop", "billing/tax.py", &newer).is_err());
    }
}
