//! The gateway's chunk index (`.lore/gateway/index/`, tantivy): one
//! document per chunk with its text, path, heading, artifact type,
//! language, subsystem and modification time. A file's chunks are replaced
//! together (deleted by the file's key, then added) and a run's changes
//! become visible in one commit, so an interrupted ingest leaves the
//! previous index answering. A damaged index, or one of an older format,
//! is rebuilt empty and the next ingest fills it again.

pub mod shared;
pub mod vectors;

use std::path::Path;

use lore_core::{ErrorCode, ErrorReport};
use lore_search::tokenizer::{IDENTIFIER_ANALYZER, identifier_analyzer};
use tantivy::directory::MmapDirectory;
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use crate::ingest::chunk::Chunk;
use crate::ingest::classify::ArtifactType;

/// The index's format; an index of another is rebuilt on open (5: chunk
/// ids name their root, `<root>/<path>::<key>`).
const FORMAT: &str = "lore-gateway-5";
const WRITER_HEAP_BYTES: usize = 64 * 1024 * 1024;

/// The index's fields.
pub(crate) struct Fields {
    pub file: Field,
    pub root: Field,
    pub path: Field,
    pub file_name: Field,
    pub path_text: Field,
    pub heading: Field,
    pub text: Field,
    pub artifact_type: Field,
    pub language: Field,
    pub subsystem: Field,
    pub chunk_id: Field,
    pub start_line: Field,
    pub end_line: Field,
    pub modified: Field,
    /// Qualified and bare names of the chunk's definitions (lower case).
    pub symbol: Field,
    /// Their kinds.
    pub symbol_kind: Field,
    /// Their names, split like identifiers (ranked).
    pub symbol_text: Field,
    /// The bare names the chunk defines, lower case: its symbols', or for
    /// a chunk without an outline the names after `def`, `class`, `fn`,
    /// `func`, … in its text (the `defines_symbol` signal, read without
    /// the stored document).
    pub defines: Field,
    /// The chunk's symbols as JSON (stored only).
    pub symbols: Field,
    /// The file's tags (its subsystem's, its front matter's).
    pub tags: Field,
    /// The hash of the text the chunk is embedded by (the embedding
    /// lane's key).
    pub embed_hash: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let analyzed = |stored: bool| {
        let options = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(IDENTIFIER_ANALYZER)
                // Searches are by terms, never phrases: no positions.
                .set_index_option(IndexRecordOption::WithFreqs),
        );
        if stored {
            options.set_stored()
        } else {
            options
        }
    };
    let fields = Fields {
        file: b.add_text_field("file", STRING | FAST),
        root: b.add_text_field("root", STRING | STORED),
        path: b.add_text_field("path", STRING | STORED),
        file_name: b.add_text_field("file_name", STRING),
        path_text: b.add_text_field("path_text", analyzed(false)),
        heading: b.add_text_field("heading", analyzed(true)),
        text: b.add_text_field("text", analyzed(true)),
        artifact_type: b.add_text_field("artifact_type", STRING | STORED | FAST),
        language: b.add_text_field("language", STRING | STORED),
        subsystem: b.add_text_field("subsystem", STRING | STORED),
        chunk_id: b.add_text_field("chunk_id", STRING | STORED | FAST),
        start_line: b.add_u64_field("start_line", STORED),
        end_line: b.add_u64_field("end_line", STORED),
        modified: b.add_i64_field("modified", INDEXED | STORED | FAST),
        symbol: b.add_text_field("symbol", STRING),
        symbol_kind: b.add_text_field("symbol_kind", STRING),
        symbol_text: b.add_text_field("symbol_text", analyzed(false)),
        defines: b.add_text_field("defines", STRING),
        symbols: b.add_text_field("symbols", STORED),
        tags: b.add_text_field("tags", STRING | STORED),
        embed_hash: b.add_text_field("embed_hash", STRING | FAST),
    };
    (b.build(), fields)
}

/// What a file is, for its chunks' documents.
#[derive(Debug, Clone)]
pub struct FileFacts {
    /// The root's name.
    pub root: String,
    /// Root-relative path.
    pub path: String,
    /// Its type.
    pub artifact_type: ArtifactType,
    /// Its language.
    pub language: Option<String>,
    /// Its subsystem.
    pub subsystem: Option<String>,
    /// Modification time, ms since the epoch.
    pub modified_ms: i64,
    /// Its tags.
    pub tags: Vec<String>,
}

/// The chunk index.
pub struct GatewayIndex {
    pub(crate) index: Index,
    pub(crate) reader: IndexReader,
    pub(crate) fields: Fields,
    /// True when the index was (re)created empty on opening.
    pub rebuilt: bool,
    /// This index's identity, made when it was created (`INSTANCE`): a
    /// ledger written for another index (one a search rebuilt, or that
    /// was deleted) is not trusted.
    pub instance: String,
}

/// Small segments merged together once there are this many.
const SMALL_SEGMENTS: usize = 4;

/// Which segments to merge, given each one's documents: all of them when
/// those beside the largest hold a tenth of the documents or more (a
/// first ingest writes several segments of like size), else the small
/// ones together once there are [`SMALL_SEGMENTS`] of them (each
/// re-ingest of a few files writes one), so re-ingesting a file never
/// rewrites the whole index; none otherwise.
fn to_merge<Id: Copy>(sizes: &[(Id, u32)]) -> Option<Vec<Id>> {
    if sizes.len() < 2 {
        return None;
    }
    let largest = (0..sizes.len()).max_by_key(|&i| sizes[i].1)?;
    let total: u64 = sizes.iter().map(|(_, n)| u64::from(*n)).sum();
    let rest: Vec<Id> = (0..sizes.len())
        .filter(|&i| i != largest)
        .map(|i| sizes[i].0)
        .collect();
    let rest_docs = total - u64::from(sizes[largest].1);
    if rest_docs * 10 >= total {
        Some(sizes.iter().map(|(id, _)| *id).collect())
    } else if rest.len() >= SMALL_SEGMENTS {
        Some(rest)
    } else {
        None
    }
}

fn internal(e: impl std::fmt::Display) -> ErrorReport {
    ErrorReport::new(ErrorCode::Internal, format!("gateway index: {e}"))
}

/// The key a file's chunks are deleted by.
pub(crate) fn file_key(root: &str, path: &str) -> String {
    format!("{root}\u{1f}{path}")
}

/// A chunk's id: `<root>/<path>::<key>` (the root first, so two roots
/// holding the same file never share an id, nor the votes on it).
pub fn chunk_id(root: &str, path: &str, key: &str) -> String {
    format!("{root}/{path}::{key}")
}

impl GatewayIndex {
    /// Opens (or creates) the index in `dir`; a damaged or outdated one is
    /// rebuilt empty (`rebuilt`).
    pub fn open(dir: &Path) -> Result<GatewayIndex, ErrorReport> {
        match GatewayIndex::try_open(dir) {
            Ok(index) => Ok(index),
            Err(_) => {
                if dir.exists() {
                    std::fs::remove_dir_all(dir).map_err(internal)?;
                }
                let mut index = GatewayIndex::try_open(dir)?;
                index.rebuilt = true;
                Ok(index)
            }
        }
    }

    fn try_open(dir: &Path) -> Result<GatewayIndex, ErrorReport> {
        std::fs::create_dir_all(dir).map_err(internal)?;
        let marker = dir.join("FORMAT");
        let fresh = !dir.join("meta.json").exists();
        if !fresh && std::fs::read_to_string(&marker).ok().as_deref() != Some(FORMAT) {
            return Err(internal("an index of another format"));
        }
        if fresh {
            // Before the index exists, so another opener that sees it also
            // sees its format.
            lore_core::project::write_atomically(&marker, FORMAT).map_err(internal)?;
        }
        let (schema, fields) = schema();
        let directory = MmapDirectory::open(dir).map_err(internal)?;
        let index = Index::open_or_create(directory, schema).map_err(internal)?;
        index
            .tokenizers()
            .register(IDENTIFIER_ANALYZER, identifier_analyzer());
        let instance_file = dir.join("INSTANCE");
        let instance = match std::fs::read_to_string(&instance_file) {
            Ok(id) if !fresh && !id.trim().is_empty() => id.trim().to_string(),
            _ => {
                let id = format!(
                    "{}-{}",
                    lore_core::time::UtcMillis::now().to_compact(),
                    std::process::id()
                );
                lore_core::project::write_atomically(&instance_file, &id).map_err(internal)?;
                id
            }
        };
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(internal)?;
        Ok(GatewayIndex {
            index,
            reader,
            fields,
            rebuilt: fresh,
            instance,
        })
    }

    /// The files the index's last commit uses, relative to its folder
    /// `dir`: `meta.json`, the `FORMAT` and `INSTANCE` markers, and each
    /// segment's files (its delete file of the committed opstamp only).
    /// Segments a merge replaced but garbage collection has not removed
    /// yet, temporary files and anything else in the folder are not the
    /// index, and a backup leaves them out.
    pub fn live_files(
        &self,
        dir: &Path,
    ) -> Result<std::collections::BTreeSet<String>, ErrorReport> {
        let mut live: std::collections::BTreeSet<String> = ["meta.json", "FORMAT", "INSTANCE"]
            .into_iter()
            .map(String::from)
            .collect();
        let segments = self.index.searchable_segment_metas().map_err(internal)?;
        let names: Vec<String> = std::fs::read_dir(dir)
            .map_err(internal)?
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| e.file_name().to_str().map(String::from))
            .collect();
        for segment in &segments {
            let prefix = format!("{}.", segment.id().uuid_string());
            let deletes = segment
                .delete_opstamp()
                .map(|_| segment.relative_path(tantivy::index::SegmentComponent::Delete));
            for name in names.iter().filter(|n| n.starts_with(&prefix)) {
                let stale_deletes =
                    name.ends_with(".del") && deletes.as_deref() != Some(Path::new(name.as_str()));
                if !stale_deletes && !name.ends_with(".temp") {
                    live.insert(name.clone());
                }
            }
        }
        Ok(live)
    }

    /// A writer (one at a time per index; another process writing is a
    /// `conflict` saying an ingest is running).
    /// Segments are merged only by [`GatewayIndex::compact`], never in the
    /// background.
    pub fn writer(&self) -> Result<IndexWriter, ErrorReport> {
        let writer: IndexWriter = self.index.writer(WRITER_HEAP_BYTES).map_err(|e| match e {
            tantivy::TantivyError::LockFailure(..) => ErrorReport::new(
                ErrorCode::Conflict,
                "another ingest is writing the gateway index; wait for it to finish",
            ),
            other => internal(other),
        })?;
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        Ok(writer)
    }

    /// Merges segments after an ingest's commit (see [`to_merge`]). A
    /// search looks each of its words up once per segment (a whole issue
    /// is some 250 lookups), so an index of one segment answers fastest:
    /// at 105,000 chunks, a whole-issue search takes half the time in one
    /// segment as in ten. Scores do not change: a term's statistics are
    /// the index's, whatever its segments.
    pub fn compact(&self, writer: &mut IndexWriter) -> Result<(), ErrorReport> {
        let metas = self.index.searchable_segment_metas().map_err(internal)?;
        let sizes: Vec<(tantivy::index::SegmentId, u32)> =
            metas.iter().map(|m| (m.id(), m.max_doc())).collect();
        if let Some(segments) = to_merge(&sizes) {
            writer.merge(&segments).wait().map_err(internal)?;
            self.reader.reload().map_err(internal)?;
        }
        Ok(())
    }

    /// Removes a file's chunks (seen after the commit).
    pub fn remove_file(&self, writer: &IndexWriter, root: &str, path: &str) {
        writer.delete_term(Term::from_field_text(
            self.fields.file,
            &file_key(root, path),
        ));
    }

    /// Replaces a file's chunks with `chunks` (seen after the commit).
    pub fn put_file(
        &self,
        writer: &IndexWriter,
        facts: &FileFacts,
        chunks: &[Chunk],
    ) -> Result<(), ErrorReport> {
        self.remove_file(writer, &facts.root, &facts.path);
        let f = &self.fields;
        let name = facts
            .path
            .rsplit('/')
            .next()
            .unwrap_or(&facts.path)
            .to_lowercase();
        for chunk in chunks {
            let mut doc = TantivyDocument::default();
            doc.add_text(f.file, file_key(&facts.root, &facts.path));
            doc.add_text(f.root, &facts.root);
            doc.add_text(f.path, &facts.path);
            doc.add_text(f.file_name, &name);
            doc.add_text(f.path_text, &facts.path);
            if let Some(heading) = &chunk.heading {
                doc.add_text(f.heading, heading);
            }
            doc.add_text(f.text, &chunk.text);
            doc.add_text(f.artifact_type, facts.artifact_type.as_str());
            doc.add_text(f.language, facts.language.as_deref().unwrap_or(""));
            doc.add_text(f.subsystem, facts.subsystem.as_deref().unwrap_or(""));
            doc.add_text(f.chunk_id, chunk_id(&facts.root, &facts.path, &chunk.key));
            for symbol in &chunk.symbols {
                let name = symbol.qualified_name.rsplit('.').next().unwrap_or_default();
                doc.add_text(f.symbol, symbol.qualified_name.to_lowercase());
                if name != symbol.qualified_name {
                    doc.add_text(f.symbol, name.to_lowercase());
                }
                doc.add_text(f.symbol_kind, symbol.kind.as_str());
                doc.add_text(f.symbol_text, &symbol.qualified_name);
                doc.add_text(f.defines, name.to_lowercase());
            }
            if chunk.symbols.is_empty() {
                for name in defined_names(&chunk.text) {
                    doc.add_text(f.defines, name.to_lowercase());
                }
            }
            if !chunk.symbols.is_empty() {
                let json = serde_json::to_string(&chunk.symbols).map_err(internal)?;
                doc.add_text(f.symbols, json);
            }
            for tag in &facts.tags {
                doc.add_text(f.tags, tag);
            }
            doc.add_u64(f.start_line, chunk.start_line as u64);
            doc.add_u64(f.end_line, chunk.end_line as u64);
            doc.add_i64(f.modified, facts.modified_ms);
            let embedded = crate::ingest::chunk::embed_text(
                &facts.path,
                chunk.heading.as_deref(),
                &chunk.text,
            );
            doc.add_text(f.embed_hash, lore_core::hash::content_hash(&embedded));
            writer.add_document(doc).map_err(internal)?;
        }
        Ok(())
    }

    /// Makes the writer's changes visible at once.
    pub fn commit(&self, writer: &mut IndexWriter) -> Result<(), ErrorReport> {
        writer.commit().map_err(internal)?;
        self.reader.reload().map_err(internal)?;
        Ok(())
    }

    /// Sees commits made since (by this or another process).
    pub fn reload(&self) -> Result<(), ErrorReport> {
        self.reader.reload().map_err(internal)
    }

    /// How many chunks the index holds.
    pub fn chunk_count(&self) -> u64 {
        self.reader.searcher().num_docs()
    }
}

/// The names `text` defines by a keyword (`def name`, `class Name`, `fn
/// name`, `func (r *T) Name`, …): the definitions of a chunk no grammar
/// outlined (a language without one, a window of a file the parser gave
/// up on, a code sample in a document).
pub(crate) fn defined_names(text: &str) -> Vec<&str> {
    const KEYWORDS: [&str; 10] = [
        "def ",
        "class ",
        "fn ",
        "func ",
        "function ",
        "interface ",
        "type ",
        "struct ",
        "enum ",
        "trait ",
    ];
    let name_at = |rest: &'_ str| -> usize {
        rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len())
    };
    let mut out: Vec<&str> = Vec::new();
    for keyword in KEYWORDS {
        for (at, _) in text.match_indices(keyword) {
            let rest = &text[at + keyword.len()..];
            let name = &rest[..name_at(rest)];
            if !name.is_empty() && !out.contains(&name) {
                out.push(name);
            }
        }
    }
    // Go methods: `func (r *Router) Handle(`.
    for line in text.lines() {
        let line = line.trim_start();
        if let Some(receiver) = line.strip_prefix("func (")
            && let Some((_, rest)) = receiver.split_once(") ")
        {
            let name = &rest[..name_at(rest)];
            if !name.is_empty() && !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::to_merge;

    #[test]
    fn a_first_ingest_is_merged_whole_and_a_small_re_ingest_waits() {
        // A first ingest: segments of like size.
        let fresh = [(1, 30_000), (2, 28_000), (3, 25_000), (4, 22_000)];
        assert_eq!(to_merge(&fresh), Some(vec![1, 2, 3, 4]));
        // One segment: nothing to do.
        assert_eq!(to_merge(&[(1, 100_000)]), None);
        // Re-ingests of a few files: small segments beside a large one
        // wait until there are four, then merge among themselves.
        let three = [(1, 100_000), (2, 12), (3, 40), (4, 7)];
        assert_eq!(to_merge(&three), None);
        let four = [(1, 100_000), (2, 12), (3, 40), (4, 7), (5, 3)];
        assert_eq!(to_merge(&four), Some(vec![2, 3, 4, 5]));
        // Once the small ones hold a tenth of the documents, all merge.
        let grown = [(1, 90_000), (2, 6_000), (3, 5_000)];
        assert_eq!(to_merge(&grown), Some(vec![1, 2, 3]));
    }
}
