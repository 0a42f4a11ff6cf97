//! One root's run inside an ingest: open its books (ledger, graph),
//! find what changed, read those files on every core, apply each to the
//! index and the books, forget what is gone, and write the graph's
//! difference to the store.

use super::*;

/// One root's ingest: its catalog, ledger and graph as they are brought
/// up to date.
pub(super) struct RootRun {
    pub(super) name: String,
    pub(super) catalog: Catalog,
    pub(super) conventions: Conventions,
    pub(super) ledger_path: PathBuf,
    pub(super) graph_path: PathBuf,
    pub(super) books: Books,
}

/// What a root's ingest keeps track of: its ledger and graph.
pub(super) struct Books {
    pub(super) ledger: Ledger,
    pub(super) graph: GraphLedger,
    /// Whether a file's facts changed (else the graph is what was written
    /// last time, and is not computed again).
    pub(super) dirty: bool,
    /// What changed for the call edges.
    pub(super) calls: CallChanges,
}

impl RootRun {
    /// The root's catalog, ledger and graph; a ledger that does not match
    /// the index or the catalog (or a graph of older facts) makes every
    /// file read again.
    pub(super) fn open(
        job: &Job<'_>,
        index: &GatewayIndex,
        writer: Option<&tantivy::IndexWriter>,
        root: &Root,
    ) -> Result<RootRun, ErrorReport> {
        if !root.path.is_dir() {
            return Err(ErrorReport::new(
                ErrorCode::NotFound,
                format!(
                    "gateway root `{}` ({}) is not a folder; fix gateway.roots in lore.yaml",
                    root.name,
                    root.path.display()
                ),
            ));
        }
        let project_root = job.project.root();
        let catalog = Catalog::load(project_root, &root.path)?;
        let conventions = Conventions::read(&root.path);
        let catalog_stamp = catalog_stamp(project_root, &root.path, &conventions);
        let mut ledger = read_ledger(job.state, &root.name);
        let current = !index.rebuilt && ledger.index == index.instance;
        // A run over some files of a root only other servers ingested (an
        // upload into it) reads those files and keeps the rest as the
        // store's file log has them: the root stays theirs until a full run.
        let into_store_copy = current && ledger.from_store && !job.request.paths.is_empty();
        if !current || (ledger.from_store && !into_store_copy) {
            // The index does not hold what the ledger lists (it was
            // rebuilt, by this run or by a search that found it outdated):
            // every file is read again. Removed files stay known. So is a
            // root only other servers ingested: a full run reads it whole.
            ledger.files.clear();
            ledger.catalog.clear();
            ledger.index = index.instance.clone();
            ledger.from_store = false;
        }
        if ledger.catalog != catalog_stamp && !into_store_copy {
            // Subsystems may have moved, or the repository's conventions
            // changed: every file is classified again.
            ledger.files.clear();
            ledger.catalog = catalog_stamp;
            if let Some(writer) = writer {
                writer.delete_term(tantivy::Term::from_field_text(
                    index.fields.root,
                    &root.name,
                ));
            }
        }
        let graph_path = job.state.join("graph").join(format!("{}.json", root.name));
        let mut graph = GraphLedger::load(&graph_path);
        let mut dirty = false;
        if graph.facts_version != FACTS_VERSION && job.request.paths.is_empty() {
            // Facts of an older format: every file is read again (a run
            // over some files only keeps the others' until a full one).
            graph.files.clear();
            graph.facts_version = FACTS_VERSION;
            dirty = true;
        }
        // Calls never resolved, or of an older format, are resolved now.
        dirty |= graph.calls_version != CALLS_VERSION && !graph.files.is_empty();
        Ok(RootRun {
            name: root.name.clone(),
            catalog,
            conventions,
            ledger_path: ledger_path(job.state, &root.name),
            graph_path,
            books: Books {
                ledger,
                graph,
                dirty,
                calls: CallChanges::default(),
            },
        })
    }

    /// Reads what changed in the root, forgets what is gone, and counts.
    pub(super) fn ingest(
        &mut self,
        job: &Job<'_>,
        root: &Root,
        reading: &Reading<'_>,
        run: &mut IngestRun,
        started_ms: i64,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<(), ErrorReport> {
        let (files, gone) = files_to_read(
            job.project,
            root,
            job.config,
            job.request,
            &self.books.ledger,
            run,
        )?;
        // Files ingested before the rules of what is served changed are
        // read again (a key file among them is removed from the index).
        let reread = self.books.ledger.rules != SERVE_RULES;
        if job.request.paths.is_empty() {
            self.books.ledger.rules = SERVE_RULES;
        }
        if let Some(head) = git_head(&root.path) {
            run.repo_head.insert(self.name.clone(), head);
        }
        // A shared run publishes every file again when the root's files
        // were published with older records (without the graph's facts).
        let republish =
            reading.outbox.is_some() && self.books.ledger.shared_records != SHARED_RECORDS;
        if reading.outbox.is_some() && job.request.paths.is_empty() {
            self.books.ledger.shared_records = SHARED_RECORDS;
        }
        let wanted = self.wanted(&files, reread || republish, republish, run, started_ms);
        let total = files.len() as u64;
        self.read(job.project, wanted, reading, total, run, progress)?;
        progress(total, total);
        let books = &mut self.books;
        for path in gone {
            books.forget(&self.name, &path, reading, run);
        }
        report_left_out_names(&self.name, &books.graph, &books.ledger, run);
        for entry in books.ledger.files.values() {
            *run.artifact_counts
                .entry(entry.artifact_type.as_str().to_string())
                .or_default() += 1;
        }
        // Files the graph knows but the ledger does not (left by a crash,
        // or published by another server and not in this server's copy:
        // a full run's view of the root wins, in the log too).
        let ledger = &books.ledger;
        let unlisted: Vec<String> = books
            .graph
            .files
            .keys()
            .filter(|path| !ledger.files.contains_key(*path))
            .cloned()
            .collect();
        for path in &unlisted {
            books.graph.files.remove(path);
            if let Some(writer) = reading.writer {
                reading.index.remove_file(writer, &self.name, path);
            }
            if let Some(outbox) = reading.outbox.filter(|_| job.request.paths.is_empty()) {
                outbox.close(&self.name, path);
            }
        }
        if !unlisted.is_empty() {
            books.dirty = true;
            books.calls.removed();
        }
        // A graph never written to a store (ingested without one before).
        books.dirty |=
            job.store.is_some() && books.graph.written.is_empty() && !books.graph.files.is_empty();
        Ok(())
    }

    /// The files to read; the others are kept as they are. Stamps are
    /// trusted only for files older than a moment (one rewritten within
    /// the same clock tick keeps its size and time), and a file the graph
    /// has no facts of is read again.
    fn wanted<'f>(
        &self,
        files: &'f [FoundFile],
        reread: bool,
        refacts: bool,
        run: &mut IngestRun,
        started_ms: i64,
    ) -> Vec<Wanted<'f>> {
        let mut wanted = Vec::new();
        for file in files {
            run.files_seen += 1;
            let settled = file.modified_ms < started_ms - 2_000;
            let entry = self.books.ledger.files.get(&file.path);
            let unchanged = settled
                && !reread
                && entry.is_some_and(|e| e.size == file.size && e.modified_ms == file.modified_ms);
            let known = !refacts && self.books.graph.files.contains_key(&file.path);
            if !(unchanged && known) {
                wanted.push(Wanted {
                    file,
                    previous_hash: entry.map(|e| e.hash.clone()),
                    known,
                });
            }
        }
        wanted
    }

    /// Reads, outlines and chunks the wanted files on every core, and
    /// applies each here as it comes (the index writer, the ledgers and
    /// the run are this thread's).
    fn read(
        &mut self,
        project: &ProjectFiles,
        wanted: Vec<Wanted<'_>>,
        reading: &Reading<'_>,
        total: u64,
        run: &mut IngestRun,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<(), ErrorReport> {
        let mut done = total - wanted.len() as u64;
        progress(done, total);
        let RootRun {
            name,
            catalog,
            conventions,
            books,
            ..
        } = self;
        let shared = Shared {
            project,
            root: name,
            catalog,
            conventions,
            chunks: reading.writer.is_some(),
            keep_text: reading.outbox.is_some(),
        };
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 8)
            .min(wanted.len().max(1));
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| -> Result<(), ErrorReport> {
            let (sender, receiver) = std::sync::mpsc::sync_channel::<Prepared>(64);
            for _ in 0..workers {
                let sender = sender.clone();
                let (next, wanted, shared) = (&next, &wanted, &shared);
                scope.spawn(move || {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(job) = wanted.get(i) else { break };
                        if sender.send(prepare(job, shared)).is_err() {
                            // The run stopped on an error.
                            break;
                        }
                    }
                });
            }
            drop(sender);
            for prepared in receiver {
                done += 1;
                progress(done, total);
                books.apply(name, prepared, reading, run)?;
            }
            Ok(())
        })
    }
}

impl Books {
    /// One file as a worker left it: skipped (and forgotten), or its
    /// facts, chunks and ledger entry.
    fn apply(
        &mut self,
        root: &str,
        prepared: Prepared,
        reading: &Reading<'_>,
        run: &mut IngestRun,
    ) -> Result<(), ErrorReport> {
        let Prepared {
            path,
            file,
            outcome,
        } = prepared;
        let read = match outcome {
            Ok(read) => read,
            Err(reason) => {
                run.skipped.push(Skipped::new(root, &path, reason));
                self.forget(root, &path, reading, run);
                return Ok(());
            }
        };
        if read.changed {
            run.files_changed += 1;
        }
        if let Some(facts) = read.facts {
            if let Some(writer) = reading.writer {
                reading
                    .index
                    .put_file(writer, &facts.index, &facts.chunks)?;
            }
            if let Some(outbox) = reading.outbox {
                outbox.put(&crate::index::shared::Published {
                    facts: &facts.index,
                    chunks: &facts.chunks,
                    graph: &facts.graph,
                    text: facts.text.as_deref().unwrap_or_default(),
                    text_hash: &read.hash,
                })?;
            }
            let before = self.graph.files.insert(path.clone(), facts.graph);
            if let Some(after) = self.graph.files.get(&path) {
                self.calls.replaced(&path, before.as_ref(), after);
            }
            self.dirty = true;
        }
        self.ledger.removed.remove(&path);
        self.ledger.files.insert(
            path,
            LedgerEntry {
                hash: read.hash,
                size: file.size,
                modified_ms: file.modified_ms,
                artifact_type: read.kind,
            },
        );
        Ok(())
    }

    /// A file gone or no longer served: out of the graph, the ledger and
    /// the index.
    fn forget(&mut self, root: &str, path: &str, reading: &Reading<'_>, run: &mut IngestRun) {
        if self.graph.files.remove(path).is_some() {
            self.dirty = true;
            self.calls.removed();
        }
        if self.ledger.forget(path, run) {
            run.files_removed += 1;
            if let Some(writer) = reading.writer {
                reading.index.remove_file(writer, root, path);
            }
            if let Some(outbox) = reading.outbox {
                outbox.close(root, path);
            }
        }
    }
}

/// The index files go to (no writer in a dry run).
pub(super) struct Reading<'a> {
    pub(super) index: &'a GatewayIndex,
    pub(super) writer: Option<&'a tantivy::IndexWriter>,
    /// The files to publish (a shared index's run).
    pub(super) outbox: Option<&'a team::Outbox>,
}

/// Lists the names in indexed files that the graph leaves out (too long
/// for the store), every run: an unchanged file keeps its facts.
fn report_left_out_names(root: &str, graph: &GraphLedger, ledger: &Ledger, run: &mut IngestRun) {
    for (path, file) in &graph.files {
        if !file.left_out.is_empty() && ledger.files.contains_key(path) {
            run.skipped.push(Skipped {
                detail: Some(format!(
                    "left out of the graph (its node id would pass {} characters): {}",
                    crate::graph::MAX_NODE_CHARS,
                    file.left_out.join("; ")
                )),
                ..Skipped::new(root, path, SkipReason::NameTooLong)
            });
        }
    }
}

/// Writes the difference between a root's graph and what was written last
/// time to the store, in one transaction.
pub(super) fn write_graph(
    store: Option<&dyn KnowledgeStore>,
    root: &str,
    graph: &mut GraphLedger,
    catalog: &Catalog,
    run: &mut IngestRun,
) -> Result<(), ErrorReport> {
    let Some(store) = store else {
        return Ok(());
    };
    let edges = crate::graph::build(root, &graph.files, catalog);
    let mut relate = Vec::new();
    let edges: BTreeMap<String, Option<String>> =
        edges.into_iter().map(|(e, p)| (e.key(), p)).collect();
    for (key, properties) in &edges {
        if graph.written.get(key) != Some(properties) {
            let Some(edge) = Edge::from_key(key) else {
                continue;
            };
            relate.push(NewTriple {
                subject: edge.0.clone(),
                predicate: edge.1.clone(),
                object: edge.2.clone(),
                confidence: None,
                properties: properties
                    .as_deref()
                    .and_then(|p| serde_json::from_str(p).ok()),
            });
        }
    }
    let unrelate: Vec<TripleKey> = graph
        .written
        .keys()
        .filter(|key| !edges.contains_key(*key))
        .filter_map(|key| Edge::from_key(key))
        .map(|edge| TripleKey {
            subject: edge.0.clone(),
            predicate: edge.1.clone(),
            object: edge.2.clone(),
        })
        .collect();
    if !relate.is_empty() || !unrelate.is_empty() {
        let summary = format!(
            "gateway ingest of {root}: {} relations written, {} removed",
            relate.len(),
            unrelate.len()
        );
        let written = store
            .relate_many("gateway", &summary, relate, unrelate)
            .map_err(|e| e.report())?;
        run.graph_tx_id = Some(written.tx_id).filter(|_| written.changed);
    }
    run.relation_count += edges.len() as u64;
    graph.written = edges;
    Ok(())
}

/// A file ingest reads: what the ledger knew of it.
struct Wanted<'a> {
    file: &'a FoundFile,
    previous_hash: Option<String>,
    /// Whether the graph has its facts.
    known: bool,
}

/// What every worker reads of a root.
struct Shared<'a> {
    project: &'a ProjectFiles,
    root: &'a str,
    catalog: &'a Catalog,
    /// What the repository's configuration says its files are.
    conventions: &'a Conventions,
    /// Whether chunks are wanted (not in a dry run).
    chunks: bool,
    /// Whether each file's text is kept (to publish it).
    keep_text: bool,
}

/// A file as a worker left it.
struct Prepared {
    path: String,
    file: FileStamps,
    outcome: Result<Read, SkipReason>,
}

/// A file's size and time as the walk saw them.
struct FileStamps {
    size: u64,
    modified_ms: i64,
}

/// A file read.
struct Read {
    hash: String,
    kind: ArtifactType,
    /// Its text differs from the ledger's.
    changed: bool,
    /// Its facts, when its text changed or the graph lacks them.
    facts: Option<Facts>,
}

struct Facts {
    graph: GraphFile,
    index: FileFacts,
    chunks: Vec<Chunk>,
    /// Its text, when it is published.
    text: Option<String>,
}

/// Reads, classifies, outlines and chunks one file (on a worker).
fn prepare(job: &Wanted<'_>, shared: &Shared<'_>) -> Prepared {
    let file = job.file;
    let outcome = read_text(&file.absolute).and_then(|text| {
        // A key file is known by its text too (a service-account key).
        match shared.project.never_served(&file.absolute, Some(&text)) {
            Some(fenced) => Err(fenced.reason),
            None => Ok(text),
        }
    });
    let outcome = outcome.map(|text| {
        let hash = content_hash(&text);
        let lang = language(&file.path);
        let kind = shared.conventions.classify(&file.path, lang, Some(&text));
        let same_text = job.previous_hash.as_deref() == Some(hash.as_str());
        let facts = (!same_text || !job.known).then(|| {
            // Documents may say what they are about in front matter.
            let front = if kind == ArtifactType::Doc {
                FrontMatter::of(&text)
            } else {
                FrontMatter::default()
            };
            let subsystem = shared.catalog.subsystem_for(&file.path, &front);
            let outline = outline(&text, lang);
            let chunks = match (&outline, shared.chunks) {
                (_, false) => Vec::new(),
                (Some(outline), true) => chunk_code(&text, outline),
                (None, true) => chunk(&text, lang),
            };
            Facts {
                graph: GraphFile::new(
                    shared.root,
                    &file.path,
                    kind,
                    lang,
                    subsystem.clone(),
                    outline.as_ref(),
                    &text,
                ),
                index: FileFacts {
                    root: shared.root.to_string(),
                    path: file.path.clone(),
                    artifact_type: kind,
                    language: lang.map(str::to_string),
                    subsystem,
                    modified_ms: file.modified_ms,
                    tags: shared.catalog.tags_of(&file.path, &front),
                },
                chunks,
                text: shared.keep_text.then(|| text.clone()),
            }
        });
        Read {
            hash,
            kind,
            changed: !same_text,
            facts,
        }
    });
    Prepared {
        path: file.path.clone(),
        file: FileStamps {
            size: file.size,
            modified_ms: file.modified_ms,
        },
        outcome,
    }
}
