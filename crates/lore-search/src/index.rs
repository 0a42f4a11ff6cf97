//! The on-disk index (`.lore/index/`): documents grouped by where they come
//! from (a connection's latest scan, a connection's semantic model, the
//! wiki, one knowledge entry…). A group is replaced whole in one commit, and
//! the commit records each group's *stamp* (a scan `syncId`, file stamps, a
//! transaction id), so callers re-index a group only when its source moved
//! on. A missing, damaged or outdated index is rebuilt empty, never fatal:
//! its stamps are gone with it, so every group is indexed again.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tantivy::collector::TopDocs;
use tantivy::directory::MmapDirectory;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use crate::tokenizer::{IDENTIFIER_ANALYZER, identifier_analyzer, query_terms};
use crate::{DocKind, MatchField, SearchDoc, SearchError, SearchHit, SearchQuery};

/// Bumped whenever the schema or the analyzer changes: an index written by
/// another version is rebuilt.
const FORMAT: &str = "lore-search-3";

/// Extra weight of a document that holds every word of a multi-word query.
const ALL_TERMS_BOOST: f32 = 4.0;

/// The extra weight of a document whose name is exactly the query
/// (`src_0042` asked for, `src_0042` found before `src_0042.revenue_0042`).
const EXACT_NAME_BOOST: f32 = 8.0;

/// Memory for the indexing buffer of one commit.
const WRITER_HEAP_BYTES: usize = 32 * 1024 * 1024;

struct Fields {
    key: Field,
    group: Field,
    kind: Field,
    connection: Field,
    id: Field,
    payload: Field,
    /// The lower-cased name, untokenised: exact-name matches.
    exact: Field,
    text: Vec<(MatchField, Field)>,
}

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let text_options = TextOptions::default()
        .set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(IDENTIFIER_ANALYZER)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        )
        .set_stored();
    let key = builder.add_text_field("key", STRING | STORED);
    let group = builder.add_text_field("group", STRING);
    let kind = builder.add_text_field("kind", STRING | STORED);
    let connection = builder.add_text_field("connection", STRING | STORED);
    let id = builder.add_text_field("id", STORED);
    let payload = builder.add_text_field("payload", STORED);
    let exact = builder.add_text_field("exact", STRING);
    let text = MatchField::ALL
        .iter()
        .map(|field| {
            (
                *field,
                builder.add_text_field(field.as_str(), text_options.clone()),
            )
        })
        .collect();
    let fields = Fields {
        key,
        group,
        kind,
        connection,
        id,
        payload,
        exact,
        text,
    };
    (builder.build(), fields)
}

/// What the last commit recorded.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct CommitPayload {
    format: String,
    stamps: BTreeMap<String, String>,
}

/// A search index, on disk or in memory.
pub struct SearchIndex {
    index: Index,
    reader: IndexReader,
    fields: Fields,
    /// Serialises writers inside this process (tantivy's lock file keeps
    /// other processes out).
    writing: Mutex<()>,
    /// The commit the reader serves (another process may commit too).
    served: std::sync::atomic::AtomicU64,
    rebuilt: bool,
    dir: Option<PathBuf>,
}

impl SearchIndex {
    /// Opens the index in `dir`, creating it if needed and rebuilding it
    /// (empty) if it is damaged or from another format.
    pub fn open(dir: &Path) -> Result<SearchIndex, SearchError> {
        match Self::try_open(dir) {
            Ok(index) => Ok(index),
            Err(_) => {
                // Damaged or foreign: start over.
                if dir.exists() {
                    std::fs::remove_dir_all(dir).map_err(|e| io(dir, e))?;
                }
                let mut index = Self::try_open(dir)?;
                index.rebuilt = true;
                Ok(index)
            }
        }
    }

    fn try_open(dir: &Path) -> Result<SearchIndex, SearchError> {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        let (schema, fields) = schema();
        let directory = MmapDirectory::open(dir).map_err(|e| SearchError::Index(e.to_string()))?;
        let index = Index::open_or_create(directory, schema).map_err(tantivy_error)?;
        let fresh = index
            .searchable_segment_ids()
            .map_err(tantivy_error)?
            .is_empty();
        let mut opened = Self::wrap(index, fields, Some(dir.to_path_buf()))?;
        let payload = opened.payload()?;
        if payload.format != FORMAT && !(fresh && payload.format.is_empty()) {
            return Err(SearchError::Index(format!(
                "index format {:?}",
                payload.format
            )));
        }
        opened.rebuilt = fresh && payload.format.is_empty();
        Ok(opened)
    }

    /// An index in memory (tests, one-off searches).
    pub fn in_memory() -> Result<SearchIndex, SearchError> {
        let (schema, fields) = schema();
        Self::wrap(Index::create_in_ram(schema), fields, None)
    }

    fn wrap(
        index: Index,
        fields: Fields,
        dir: Option<PathBuf>,
    ) -> Result<SearchIndex, SearchError> {
        index
            .tokenizers()
            .register(IDENTIFIER_ANALYZER, identifier_analyzer());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(tantivy_error)?;
        Ok(SearchIndex {
            index,
            reader,
            fields,
            writing: Mutex::new(()),
            served: std::sync::atomic::AtomicU64::new(u64::MAX),
            rebuilt: false,
            dir,
        })
    }

    /// True when opening found no usable index and started a new one.
    pub fn was_rebuilt(&self) -> bool {
        self.rebuilt
    }

    /// The folder the index lives in (none in memory).
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    fn payload(&self) -> Result<CommitPayload, SearchError> {
        let metas = self.index.load_metas().map_err(tantivy_error)?;
        Ok(metas
            .payload
            .and_then(|p| serde_json::from_str(&p).ok())
            .unwrap_or_default())
    }

    /// Every group's stamp as last committed (by any process), after
    /// making searches see that commit.
    pub fn sync(&self) -> Result<BTreeMap<String, String>, SearchError> {
        let metas = self.index.load_metas().map_err(tantivy_error)?;
        let served = self.served.load(std::sync::atomic::Ordering::Acquire);
        if metas.opstamp != served {
            self.reader.reload().map_err(tantivy_error)?;
            self.served
                .store(metas.opstamp, std::sync::atomic::Ordering::Release);
        }
        let payload: CommitPayload = metas
            .payload
            .and_then(|p| serde_json::from_str(&p).ok())
            .unwrap_or_default();
        Ok(payload.stamps)
    }

    /// The stamp recorded when `group` was last replaced.
    pub fn stamp(&self, group: &str) -> Result<Option<String>, SearchError> {
        Ok(self.payload()?.stamps.get(group).cloned())
    }

    /// Every group with its stamp.
    pub fn stamps(&self) -> Result<BTreeMap<String, String>, SearchError> {
        Ok(self.payload()?.stamps)
    }

    /// Replaces every document of `group` with `docs` in one commit and
    /// records `stamp`; searches see the new documents when it returns.
    pub fn replace_group(
        &self,
        group: &str,
        stamp: &str,
        docs: &[SearchDoc],
    ) -> Result<(), SearchError> {
        self.replace_groups(&[(group, stamp, docs)], &[])
    }

    /// Replaces several groups and drops others, all in one commit.
    pub fn replace_groups(
        &self,
        groups: &[(&str, &str, &[SearchDoc])],
        dropped: &[&str],
    ) -> Result<(), SearchError> {
        self.commit(|writer, payload| {
            for group in dropped {
                writer.delete_term(Term::from_field_text(self.fields.group, group));
                payload.stamps.remove(*group);
            }
            for (group, stamp, docs) in groups {
                writer.delete_term(Term::from_field_text(self.fields.group, group));
                for doc in docs.iter() {
                    writer
                        .add_document(self.document(group, doc))
                        .map_err(tantivy_error)?;
                }
                payload.stamps.insert(group.to_string(), stamp.to_string());
            }
            Ok(())
        })
    }

    /// Changes part of one group in one commit: removes the documents
    /// whose keys are given ([`SearchDoc::key`]), adds or replaces `docs`,
    /// and records `stamp`. For sources that say what changed (the
    /// knowledge store's transaction log).
    pub fn update_group(
        &self,
        group: &str,
        stamp: &str,
        removed_keys: &[String],
        docs: &[SearchDoc],
    ) -> Result<(), SearchError> {
        self.commit(|writer, payload| {
            for key in removed_keys {
                writer.delete_term(Term::from_field_text(self.fields.key, key));
            }
            for doc in docs {
                writer.delete_term(Term::from_field_text(self.fields.key, &doc.key()));
                writer
                    .add_document(self.document(group, doc))
                    .map_err(tantivy_error)?;
            }
            payload.stamps.insert(group.to_string(), stamp.to_string());
            Ok(())
        })
    }

    /// Runs `change` with a writer and the commit payload, then commits
    /// both; searches see the commit when it returns.
    fn commit(
        &self,
        change: impl FnOnce(
            &mut IndexWriter<TantivyDocument>,
            &mut CommitPayload,
        ) -> Result<(), SearchError>,
    ) -> Result<(), SearchError> {
        let _guard = self.writing.lock().unwrap_or_else(|p| p.into_inner());
        let mut payload = self.payload()?;
        payload.format = FORMAT.to_string();
        // Another process (a server, `lore search`) may be committing:
        // wait for its lock a little before giving up.
        let started = std::time::Instant::now();
        let mut writer = loop {
            match self
                .index
                .writer_with_num_threads::<TantivyDocument>(1, WRITER_HEAP_BYTES)
            {
                Ok(writer) => break writer,
                Err(tantivy::TantivyError::LockFailure(..))
                    if started.elapsed() < std::time::Duration::from_secs(10) =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(e) => return Err(tantivy_error(e)),
            }
        };
        change(&mut writer, &mut payload)?;
        let text = serde_json::to_string(&payload).unwrap_or_default();
        let mut prepared = writer.prepare_commit().map_err(tantivy_error)?;
        prepared.set_payload(&text);
        prepared.commit().map_err(tantivy_error)?;
        writer.wait_merging_threads().map_err(tantivy_error)?;
        self.reader.reload().map_err(tantivy_error)?;
        Ok(())
    }

    fn document(&self, group: &str, doc: &SearchDoc) -> TantivyDocument {
        let f = &self.fields;
        let mut out = TantivyDocument::default();
        out.add_text(f.key, doc.key());
        out.add_text(f.group, group);
        out.add_text(f.kind, doc.kind.as_str());
        out.add_text(f.connection, doc.connection.as_deref().unwrap_or(""));
        out.add_text(f.id, &doc.id);
        out.add_text(f.payload, doc.payload.to_string());
        for (field, text) in &doc.fields {
            if let Some((_, tantivy_field)) = f.text.iter().find(|(m, _)| m == field) {
                out.add_text(*tantivy_field, text);
            }
            if *field == MatchField::Name {
                out.add_text(f.exact, text.trim().to_lowercase());
            }
        }
        out
    }

    /// Every document of `group`, as indexed.
    pub fn group_docs(&self, group: &str) -> Result<Vec<SearchDoc>, SearchError> {
        self.stored_docs(&TermQuery::new(
            Term::from_field_text(self.fields.group, group),
            IndexRecordOption::Basic,
        ))
    }

    /// The indexed documents with these keys ([`SearchDoc::key`]), in no
    /// particular order; keys not indexed are left out.
    pub fn docs_by_key(&self, keys: &[String]) -> Result<Vec<SearchDoc>, SearchError> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let any: Vec<(Occur, Box<dyn Query>)> = keys
            .iter()
            .map(|key| -> (Occur, Box<dyn Query>) {
                (
                    Occur::Should,
                    Box::new(TermQuery::new(
                        Term::from_field_text(self.fields.key, key),
                        IndexRecordOption::Basic,
                    )),
                )
            })
            .collect();
        self.stored_docs(&BooleanQuery::new(any))
    }

    fn stored_docs(&self, query: &dyn Query) -> Result<Vec<SearchDoc>, SearchError> {
        let f = &self.fields;
        let searcher = self.reader.searcher();
        let mut addresses: Vec<_> = searcher
            .search(query, &tantivy::collector::DocSetCollector)
            .map_err(tantivy_error)?
            .into_iter()
            .collect();
        addresses.sort();
        let mut docs = Vec::with_capacity(addresses.len());
        for address in addresses {
            let doc: TantivyDocument = searcher.doc(address).map_err(tantivy_error)?;
            let text = |field: Field| stored_text(&doc, field);
            let connection = text(f.connection);
            let fields = f
                .text
                .iter()
                .flat_map(|(field, tantivy_field)| {
                    doc.get_all(*tantivy_field)
                        .filter_map(|v| v.as_str())
                        .map(|v| (*field, v.to_string()))
                        .collect::<Vec<_>>()
                })
                .collect();
            docs.push(SearchDoc {
                kind: DocKind::parse(&text(f.kind)).unwrap_or(DocKind::Entry),
                connection: (!connection.is_empty()).then_some(connection),
                id: text(f.id),
                fields,
                payload: serde_json::from_str(&text(f.payload)).unwrap_or_default(),
            });
        }
        Ok(docs)
    }

    /// Documents in the index.
    pub fn len(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Whether the index holds no document.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// BM25 search over every text field (weighted by [`MatchField::weight`]),
    /// filtered by kinds and connection.
    pub fn search(&self, query: &SearchQuery) -> Result<Vec<SearchHit>, SearchError> {
        let wanted: BTreeSet<String> = query_terms(&query.text).into_iter().collect();
        if wanted.is_empty() {
            return Ok(Vec::new());
        }
        let f = &self.fields;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> =
            vec![(Occur::Must, Box::new(f.relevance(&wanted, &query.text)))];
        clauses.extend(f.filters(query));
        let searcher = self.reader.searcher();
        let top = searcher
            .search(
                &BooleanQuery::new(clauses),
                &TopDocs::with_limit(query.limit.max(1)).order_by_score(),
            )
            .map_err(tantivy_error)?;
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let doc: TantivyDocument = searcher.doc(address).map_err(tantivy_error)?;
            hits.push(f.hit(&doc, score, &wanted));
        }
        Ok(hits)
    }
}

impl Fields {
    /// What scores a document: each query word in each text field (at the
    /// field's weight), every word together, and the whole query as the
    /// exact name.
    fn relevance(&self, wanted: &BTreeSet<String>, text: &str) -> BooleanQuery {
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for term in wanted {
            for (field, tantivy_field) in &self.text {
                let q = TermQuery::new(
                    Term::from_field_text(*tantivy_field, term),
                    IndexRecordOption::WithFreqs,
                );
                should.push((
                    Occur::Should,
                    Box::new(BoostQuery::new(Box::new(q), field.weight())),
                ));
            }
        }
        // A document holding every query word (in any fields) outranks one
        // that repeats a single word: "monthly recurring revenue" prefers
        // the measure described by all three over one named `revenue`.
        if wanted.len() > 1 {
            should.push((
                Occur::Should,
                Box::new(BoostQuery::new(
                    Box::new(self.all_terms(wanted)),
                    ALL_TERMS_BOOST,
                )),
            ));
        }
        let whole = text.trim().to_lowercase();
        if !whole.is_empty() {
            should.push((
                Occur::Should,
                Box::new(BoostQuery::new(
                    Box::new(TermQuery::new(
                        Term::from_field_text(self.exact, &whole),
                        IndexRecordOption::Basic,
                    )),
                    EXACT_NAME_BOOST,
                )),
            ));
        }
        BooleanQuery::new(should)
    }

    /// Documents holding every query word, each in any text field.
    fn all_terms(&self, wanted: &BTreeSet<String>) -> BooleanQuery {
        let all: Vec<(Occur, Box<dyn Query>)> = wanted
            .iter()
            .map(|term| -> (Occur, Box<dyn Query>) {
                let any_field = self
                    .text
                    .iter()
                    .map(|(_, tantivy_field)| -> (Occur, Box<dyn Query>) {
                        (
                            Occur::Should,
                            Box::new(TermQuery::new(
                                Term::from_field_text(*tantivy_field, term),
                                IndexRecordOption::Basic,
                            )),
                        )
                    })
                    .collect();
                (Occur::Must, Box::new(BooleanQuery::new(any_field)))
            })
            .collect();
        BooleanQuery::new(all)
    }

    /// The query's filters, each a clause a document must meet: one of
    /// the kinds asked for, and the connection asked for (or none).
    fn filters(&self, query: &SearchQuery) -> Vec<(Occur, Box<dyn Query>)> {
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        if !query.kinds.is_empty() {
            let kinds = query
                .kinds
                .iter()
                .map(|k| -> (Occur, Box<dyn Query>) {
                    (
                        Occur::Should,
                        Box::new(TermQuery::new(
                            Term::from_field_text(self.kind, k.as_str()),
                            IndexRecordOption::Basic,
                        )),
                    )
                })
                .collect();
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(kinds))));
        }
        if let Some(connection) = &query.connection {
            // Scoped to one connection; documents of no connection (wiki
            // pages, knowledge entries) stay in.
            let scope = [connection.as_str(), ""]
                .into_iter()
                .map(|c| -> (Occur, Box<dyn Query>) {
                    (
                        Occur::Should,
                        Box::new(TermQuery::new(
                            Term::from_field_text(self.connection, c),
                            IndexRecordOption::Basic,
                        )),
                    )
                })
                .collect();
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(scope))));
        }
        clauses
    }

    /// A found document as a hit, with the heaviest field that holds a
    /// query word as what it matched on.
    fn hit(&self, doc: &TantivyDocument, score: f32, wanted: &BTreeSet<String>) -> SearchHit {
        let text = |field: Field| stored_text(doc, field);
        // Stems are (nearly always) prefixes of the words they come
        // from, so a lower-cased substring test finds the matching
        // field without analysing every stored text again.
        let (matched_on, matched_text) = self
            .text
            .iter()
            .filter_map(|(field, tantivy_field)| {
                let value = text(*tantivy_field);
                let lower = value.to_lowercase();
                wanted
                    .iter()
                    .any(|t| lower.contains(t.as_str()))
                    .then_some((*field, value))
            })
            .max_by(|a, b| a.0.weight().total_cmp(&b.0.weight()))
            .unwrap_or((MatchField::Name, String::new()));
        let connection = text(self.connection);
        SearchHit {
            key: text(self.key),
            kind: DocKind::parse(&text(self.kind)).unwrap_or(DocKind::Entry),
            connection: (!connection.is_empty()).then_some(connection),
            id: text(self.id),
            score,
            matched_on,
            matched_text,
            payload: serde_json::from_str(&text(self.payload)).unwrap_or_default(),
        }
    }
}

/// A stored field's first value ("" when it has none).
fn stored_text(doc: &TantivyDocument, field: Field) -> String {
    doc.get_first(field)
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_string()
}

fn tantivy_error(error: tantivy::TantivyError) -> SearchError {
    SearchError::Index(error.to_string())
}

fn io(path: &Path, error: std::io::Error) -> SearchError {
    SearchError::Index(format!("{}: {}", path.display(), error.kind()))
}
