//! Schema linking: for real questions with gold SQL over real, documented
//! schemas, does `discover_data` rank the tables and columns the gold SQL
//! reads near the top, given the question alone?
//!
//! The set is built by `schema_linking/build.py` from public mirrors and is
//! not committed (see `schema_linking/README.md`); the bench reads it from
//! `LORE_BENCH_SCHEMA_SET` (default `/work/.cache/schema_linking`).
//!
//! For each database and each of two passes (`schema.sql`, with the
//! published comments, and `schema.nocomments.sql`), the DDL is loaded into
//! an empty SQLite file, a project with one SQLite connection to it is
//! scanned with `lore scan` (as a user would), and every question goes to
//! the service `discover_data` calls, as the tool passes it: the question,
//! no connection, no kinds, the tool's largest limit (50). The refs give a
//! ranked list of distinct tables (a column ref counts for its table) and
//! a ranked list of columns. The same run scores a plain BM25 baseline over
//! the same schema text (tantivy's default tokenizer, every query token
//! OR'ed, no boosts): one document per table (its name, comment, column
//! names and comments) ranks tables, one document per column (table name,
//! column name, comment) ranks columns.
//!
//! Figures: table@5 (every gold table among the first 5 tables), column
//! recall@20 (share of gold columns among the first 20 columns) and strict
//! column@20 (all of them); questions whose SQL reads no column are left
//! out of the column figures.
//!
//! `cargo bench -p lore --bench schema_linking`
//! - `LORE_BENCH_SPLIT=dev|heldout|all` (default all: both, printed apart);
//! - `LORE_BENCH_ONLY=<substring>`: only the databases whose name has it;
//! - `LORE_BENCH_VERBOSE=1`: print each miss, development split only (the
//!   protocol forbids studying held-out misses, so it is refused with
//!   `LORE_BENCH_SPLIT=heldout` and held-out misses are never printed);
//! - `LORE_BENCH_DUMP=<file>`: append each development question's ranked
//!   tables and columns (Lore's and BM25's) to the file as JSON lines, to
//!   try a change of ranking outside the bench; only with
//!   `LORE_BENCH_SPLIT=dev`.

mod support;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use lore_context::discover::{Discover, DiscoverDataInput, RefKind, discover_data};
use lore_core::project::Project;
use lore_warehouse::catalog::Catalog;
use serde::Deserialize;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, STORED, Schema, TEXT, Value};
use tantivy::{Index, TantivyDocument, Term};

/// The most refs `discover_data` returns (the tool's maximum).
const LIMIT: usize = 50;
/// Tables looked at for table@k.
const TABLES_K: usize = 5;
/// Columns looked at for column recall@k and column@k.
const COLUMNS_K: usize = 20;
/// How many ranked items a verbose miss shows.
const SHOWN: usize = 8;

/// One question of `questions.jsonl` (the fields the bench reads).
#[derive(Debug, Deserialize)]
struct Question {
    id: String,
    db: String,
    split: String,
    question: String,
    gold_tables: Vec<String>,
    gold_columns: Vec<String>,
}

/// The part of `meta.json` the bench reads.
#[derive(Debug, Deserialize)]
struct Meta {
    split: String,
}

/// Published comments: table → {"" → table comment, column → comment},
/// every table and column of the schema ("" where none is published).
type Comments = BTreeMap<String, BTreeMap<String, String>>;

/// The two passes over every database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Pass {
    WithComments,
    WithoutComments,
}

impl Pass {
    fn file(self) -> &'static str {
        match self {
            Pass::WithComments => "schema.sql",
            Pass::WithoutComments => "schema.nocomments.sql",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Pass::WithComments => "with comments",
            Pass::WithoutComments => "without comments",
        }
    }
}

/// What the bench was asked to run.
struct Options {
    set: PathBuf,
    splits: Vec<&'static str>,
    only: Option<String>,
    verbose: bool,
    /// Where development questions' rankings go (`LORE_BENCH_DUMP`).
    dump: Option<PathBuf>,
}

/// A system's ranked tables and columns for one question, lower-cased
/// (`table`, `table.column`).
#[derive(Default)]
struct Ranked {
    tables: Vec<String>,
    columns: Vec<String>,
}

/// One system's figures on one question.
struct Score {
    table_hit: bool,
    /// Recall and strict hit over the first columns; `None` when the gold
    /// SQL reads no column.
    columns: Option<(f64, bool)>,
}

/// Totals of one slice for one system.
#[derive(Default, Clone)]
struct Tally {
    n: usize,
    table_hits: usize,
    n_columns: usize,
    recall: f64,
    strict: usize,
}

impl Tally {
    fn add(&mut self, score: &Score) {
        self.n += 1;
        self.table_hits += usize::from(score.table_hit);
        if let Some((recall, strict)) = score.columns {
            self.n_columns += 1;
            self.recall += recall;
            self.strict += usize::from(strict);
        }
    }

    fn table_at(&self) -> f64 {
        ratio(self.table_hits as f64, self.n)
    }

    fn recall_at(&self) -> f64 {
        ratio(self.recall, self.n_columns)
    }

    fn strict_at(&self) -> f64 {
        ratio(self.strict as f64, self.n_columns)
    }
}

fn ratio(value: f64, n: usize) -> f64 {
    if n == 0 { 0.0 } else { value / n as f64 }
}

/// Lore's and BM25's tallies of one database in one pass, and what the
/// scan read.
#[derive(Default)]
struct DbResult {
    lore: Tally,
    bm25: Tally,
    /// Questions whose refs held fewer than `COLUMNS_K` columns (or fewer
    /// than the schema has, when it has fewer): the limit of 50 refs, or
    /// too few columns matching any word of the question.
    short: usize,
    coverage: String,
}

fn main() {
    let options = options();
    let questions = read_questions(&options.set.join("questions.jsonl"));
    let dbs = databases(&options);
    println!("{}", support::machine());
    println!(
        "schema_linking: set {}, {} profile, splits {}, {} database(s){}",
        options.set.display(),
        if cfg!(debug_assertions) {
            "dev (debug)"
        } else {
            "release"
        },
        options.splits.join(" + "),
        dbs.len(),
        options
            .only
            .as_deref()
            .map(|o| format!(" matching `{o}`"))
            .unwrap_or_default()
    );
    let started = Instant::now();
    let mut results: BTreeMap<(Pass, String, String), DbResult> = BTreeMap::new();
    let mut dump = options.dump.as_deref().map(|path| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap_or_else(|e| exit(&format!("cannot write {}: {e}", path.display())))
    });
    for pass in [Pass::WithComments, Pass::WithoutComments] {
        for (db, split) in &dbs {
            let asked: Vec<&Question> = questions.iter().filter(|q| &q.db == db).collect();
            // A database sits in one split: its questions may not say otherwise.
            if let Some(q) = asked.iter().find(|q| &q.split != split) {
                exit(&format!("{}: split {} but {db} is {split}", q.id, q.split));
            }
            let verbose = options.verbose && split == "dev";
            let dump = dump.as_mut().filter(|_| split == "dev");
            let result = run_db(&options.set, db, pass, &asked, verbose, dump);
            results.insert((pass, split.clone(), db.clone()), result);
        }
    }
    println!(
        "schema_linking: {} database pass(es) in {:.1} s",
        results.len(),
        started.elapsed().as_secs_f64()
    );
    print_scan_coverage(&results);
    for split in &options.splits {
        for pass in [Pass::WithComments, Pass::WithoutComments] {
            print_split(&results, pass, split);
        }
    }
    print_summary(&results, &options.splits);
}

/// Reads the environment; exits with a message on a bad value.
fn options() -> Options {
    let set = PathBuf::from(
        std::env::var("LORE_BENCH_SCHEMA_SET")
            .ok()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "/work/.cache/schema_linking".to_string()),
    );
    let split = std::env::var("LORE_BENCH_SPLIT").unwrap_or_else(|_| "all".to_string());
    let splits = match split.as_str() {
        "dev" => vec!["dev"],
        "heldout" => vec!["heldout"],
        "all" | "" => vec!["dev", "heldout"],
        other => exit(&format!(
            "LORE_BENCH_SPLIT must be dev, heldout or all, got `{other}`"
        )),
    };
    let verbose = std::env::var("LORE_BENCH_VERBOSE").is_ok_and(|v| !v.is_empty() && v != "0");
    if verbose && splits == ["heldout"] {
        exit(
            "LORE_BENCH_VERBOSE prints misses of the development split only: held-out misses must not be studied (EVALUATION.md); use LORE_BENCH_SPLIT=dev",
        );
    }
    let dump = std::env::var("LORE_BENCH_DUMP")
        .ok()
        .filter(|s| !s.is_empty())
        .map(PathBuf::from);
    if dump.is_some() && splits != ["dev"] {
        exit("LORE_BENCH_DUMP writes development rankings only: use LORE_BENCH_SPLIT=dev");
    }
    if !set.join("questions.jsonl").is_file() {
        exit(&format!(
            "no schema-linking set at {}: build it with crates/lore/benches/schema_linking/build.py (see its README), or point LORE_BENCH_SCHEMA_SET at it",
            set.display()
        ));
    }
    if verbose && splits.contains(&"heldout") {
        println!(
            "schema_linking: LORE_BENCH_VERBOSE prints development misses only; held-out misses are not shown"
        );
    }
    Options {
        set,
        splits,
        only: std::env::var("LORE_BENCH_ONLY")
            .ok()
            .filter(|s| !s.is_empty()),
        verbose,
        dump,
    }
}

fn exit(message: &str) -> ! {
    eprintln!("schema_linking: {message}");
    std::process::exit(2)
}

/// Reads the set, one JSON object a line.
fn read_questions(path: &Path) -> Vec<Question> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| exit(&format!("cannot read {}: {e}", path.display())));
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| exit(&format!("{}:{}: {e}", path.display(), n + 1)))
        })
        .collect()
}

/// The selected databases with their split, by name.
fn databases(options: &Options) -> Vec<(String, String)> {
    let dir = options.set.join("dbs");
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| exit(&format!("cannot list {}: {e}", dir.display())));
    let mut dbs: Vec<(String, String)> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|db| options.only.as_deref().is_none_or(|o| db.contains(o)))
        .map(|db| {
            let meta: Meta = read_json(&dir.join(&db).join("meta.json"));
            (db, meta.split)
        })
        .filter(|(_, split)| options.splits.contains(&split.as_str()))
        .collect();
    dbs.sort();
    dbs
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> T {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| exit(&format!("cannot read {}: {e}", path.display())));
    serde_json::from_str(&text).unwrap_or_else(|e| exit(&format!("{}: {e}", path.display())))
}

/// Loads, scans and scores one database in one pass, with both systems.
fn run_db(
    set: &Path,
    db: &str,
    pass: Pass,
    questions: &[&Question],
    verbose: bool,
    mut dump: Option<&mut std::fs::File>,
) -> DbResult {
    let dir = set.join("dbs").join(db);
    let comments: Comments = read_json(&dir.join("comments.json"));
    let ddl = std::fs::read_to_string(dir.join(pass.file()))
        .unwrap_or_else(|e| exit(&format!("cannot read {}: {e}", dir.display())));
    let temp = tempfile::tempdir().expect("temporary folder");
    let root = temp.path().join("project");
    let file = temp.path().join(format!("{db}.sqlite"));
    let conn = rusqlite::Connection::open(&file).expect("sqlite file");
    if let Err(e) = conn.execute_batch(&ddl) {
        exit(&format!("{db}: {} does not load: {e}", pass.file()));
    }
    drop(conn);
    support::write_config(
        &root,
        &format!("    driver: sqlite\n    path: {}\n", file.display()),
    );
    let scan = std::process::Command::new(env!("CARGO_BIN_EXE_lore"))
        .arg("--project-dir")
        .arg(&root)
        .args(["scan", "w"])
        .output()
        .expect("run lore scan");
    let mut result = DbResult::default();
    if !scan.status.success() {
        // Every question counts as a miss for Lore: a scan that fails is
        // what a user would get.
        result.coverage = format!(
            "scan FAILED: {}",
            String::from_utf8_lossy(&scan.stderr).trim()
        );
    } else {
        result.coverage = coverage(&root, &comments, pass);
    }
    let project = Project::load(&root).expect("project");
    let discover = lore_context::services::Services::for_project(&project).discover;
    let baseline = Bm25::build(&comments, pass == Pass::WithComments).expect("bm25 index");
    let schema_columns: usize = comments.values().map(|c| c.len() - 1).sum();
    for question in questions {
        let lore = if scan.status.success() {
            lore_ranking(&discover, &question.question)
        } else {
            Ranked::default()
        };
        let bm25 = baseline.rank(&question.question).expect("bm25 search");
        result.short += usize::from(lore.columns.len() < COLUMNS_K.min(schema_columns));
        let (lore_score, bm25_score) = (score(question, &lore), score(question, &bm25));
        if verbose && (!lore_score.table_hit || lore_score.columns.is_some_and(|(_, s)| !s)) {
            print_miss(question, pass, &lore, &bm25);
        }
        if let Some(file) = dump.as_deref_mut() {
            dump_ranking(file, question, pass, &lore, &bm25);
        }
        result.lore.add(&lore_score);
        result.bm25.add(&bm25_score);
    }
    result
}

/// Appends one question's rankings to `file` as a JSON line.
fn dump_ranking(
    file: &mut std::fs::File,
    question: &Question,
    pass: Pass,
    lore: &Ranked,
    bm25: &Ranked,
) {
    use std::io::Write;
    let line = serde_json::json!({
        "id": question.id,
        "db": question.db,
        "pass": pass.label(),
        "lore_tables": lore.tables,
        "lore_columns": lore.columns,
        "bm25_tables": bm25.tables,
        "bm25_columns": bm25.columns,
    });
    writeln!(file, "{line}").unwrap_or_else(|e| exit(&format!("cannot write the dump: {e}")));
}

/// What the scan read, against what the DDL declares: tables, columns,
/// table and column comments.
fn coverage(root: &Path, comments: &Comments, pass: Pass) -> String {
    let expected_tables = comments.len();
    let expected_columns: usize = comments.values().map(|c| c.len() - 1).sum();
    let (mut expected_table_comments, mut expected_column_comments) = (0, 0);
    if pass == Pass::WithComments {
        for columns in comments.values() {
            for (name, text) in columns {
                match (name.is_empty(), text.is_empty()) {
                    (true, false) => expected_table_comments += 1,
                    (false, false) => expected_column_comments += 1,
                    _ => {}
                }
            }
        }
    }
    let snapshot = match Catalog::new(root).latest("w") {
        Ok(Some(snapshot)) => snapshot,
        Ok(None) => return "no snapshot after the scan".to_string(),
        Err(e) => return format!("snapshot unreadable: {e}"),
    };
    let tables = snapshot.tables.len();
    let columns: usize = snapshot.tables.iter().map(|t| t.columns.len()).sum();
    let table_comments = snapshot
        .tables
        .iter()
        .filter(|t| t.comment.is_some())
        .count();
    let column_comments: usize = snapshot
        .tables
        .iter()
        .flat_map(|t| &t.columns)
        .filter(|c| c.comment.is_some())
        .count();
    format!(
        "tables {tables}/{expected_tables}, columns {columns}/{expected_columns}, table comments {table_comments}/{expected_table_comments}, column comments {column_comments}/{expected_column_comments}"
    )
}

/// `discover_data` for the question alone, as the tool passes it.
fn lore_ranking(discover: &Discover, question: &str) -> Ranked {
    let found = discover_data(
        discover,
        DiscoverDataInput {
            query: question.to_string(),
            connection_id: None,
            kinds: None,
            limit: Some(LIMIT),
        },
    )
    .unwrap_or_else(|e| panic!("discover_data {question:?}: {}", e.message));
    let mut ranked = Ranked::default();
    let mut seen = HashSet::new();
    for r in found.refs {
        let Some(table) = r.table_ref.as_ref().map(|t| t.name.to_lowercase()) else {
            continue;
        };
        if seen.insert(table.clone()) {
            ranked.tables.push(table.clone());
        }
        if r.kind == RefKind::Column
            && let Some(column) = &r.column_name
        {
            ranked
                .columns
                .push(format!("{table}.{}", column.to_lowercase()));
        }
    }
    ranked
}

/// One system's figures on one question.
fn score(question: &Question, ranked: &Ranked) -> Score {
    let first_tables: HashSet<&str> = ranked
        .tables
        .iter()
        .take(TABLES_K)
        .map(String::as_str)
        .collect();
    let table_hit = question
        .gold_tables
        .iter()
        .all(|t| first_tables.contains(t.to_lowercase().as_str()));
    let columns = (!question.gold_columns.is_empty()).then(|| {
        let first: HashSet<&str> = ranked
            .columns
            .iter()
            .take(COLUMNS_K)
            .map(String::as_str)
            .collect();
        let found = question
            .gold_columns
            .iter()
            .filter(|c| first.contains(c.to_lowercase().as_str()))
            .count();
        let n = question.gold_columns.len();
        (found as f64 / n as f64, found == n)
    });
    Score { table_hit, columns }
}

/// A development miss: the gold, and both systems' first tables and the
/// rank of each gold column.
fn print_miss(question: &Question, pass: Pass, lore: &Ranked, bm25: &Ranked) {
    let rank = |ranked: &Ranked, column: &str| {
        ranked
            .columns
            .iter()
            .position(|c| c == &column.to_lowercase())
            .map_or("-".to_string(), |r| (r + 1).to_string())
    };
    println!(
        "miss [{}] {} ({}): {}",
        question.db,
        question.id,
        pass.label(),
        question.question
    );
    println!("    gold tables: {}", question.gold_tables.join(", "));
    println!(
        "    lore tables: {}",
        lore.tables
            .iter()
            .take(SHOWN)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "    bm25 tables: {}",
        bm25.tables
            .iter()
            .take(SHOWN)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    );
    let columns: Vec<String> = question
        .gold_columns
        .iter()
        .map(|c| format!("{c} (lore {}, bm25 {})", rank(lore, c), rank(bm25, c)))
        .collect();
    println!("    gold columns (rank): {}", columns.join(", "));
}

/// The plain BM25 baseline over one schema's text, in RAM: a table index
/// and a column index.
struct Bm25 {
    tables: Index,
    columns: Index,
    key: Field,
    text: Field,
}

impl Bm25 {
    /// Indexes every table and every column of `comments` (with the
    /// comments when `with_comments`).
    fn build(comments: &Comments, with_comments: bool) -> tantivy::Result<Bm25> {
        let mut schema = Schema::builder();
        let key = schema.add_text_field("key", STORED);
        let text = schema.add_text_field("text", TEXT);
        let schema = schema.build();
        let tables = Index::create_in_ram(schema.clone());
        let columns = Index::create_in_ram(schema);
        let mut table_writer = tables.writer_with_num_threads(1, 15_000_000)?;
        let mut column_writer = columns.writer_with_num_threads(1, 15_000_000)?;
        let comment = |c: &String| {
            if with_comments {
                c.clone()
            } else {
                String::new()
            }
        };
        for (table, entries) in comments {
            let mut table_text = vec![table.clone()];
            for (name, note) in entries {
                if !name.is_empty() {
                    table_text.push(name.clone());
                }
                table_text.push(comment(note));
                if name.is_empty() {
                    continue;
                }
                let mut doc = TantivyDocument::default();
                doc.add_text(key, format!("{table}.{name}").to_lowercase());
                doc.add_text(text, format!("{table}\n{name}\n{}", comment(note)));
                column_writer.add_document(doc)?;
            }
            let mut doc = TantivyDocument::default();
            doc.add_text(key, table.to_lowercase());
            doc.add_text(text, table_text.join("\n"));
            table_writer.add_document(doc)?;
        }
        table_writer.commit()?;
        column_writer.commit()?;
        Ok(Bm25 {
            tables,
            columns,
            key,
            text,
        })
    }

    /// The tables and columns best matching `question`.
    fn rank(&self, question: &str) -> tantivy::Result<Ranked> {
        Ok(Ranked {
            tables: self.search(&self.tables, question, TABLES_K.max(SHOWN))?,
            columns: self.search(&self.columns, question, COLUMNS_K)?,
        })
    }

    /// Keys of the best `limit` documents of `index`, every distinct query
    /// token OR'ed.
    fn search(&self, index: &Index, question: &str, limit: usize) -> tantivy::Result<Vec<String>> {
        let mut analyzer = index.tokenizer_for_field(self.text)?;
        let mut seen = HashSet::new();
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut stream = analyzer.token_stream(question);
        while stream.advance() {
            let token = stream.token().text.clone();
            if seen.insert(token.clone()) {
                clauses.push((
                    Occur::Should,
                    Box::new(TermQuery::new(
                        Term::from_field_text(self.text, &token),
                        IndexRecordOption::WithFreqs,
                    )),
                ));
            }
        }
        if clauses.is_empty() {
            return Ok(Vec::new());
        }
        let searcher = index.reader()?.searcher();
        let top = searcher.search(
            &BooleanQuery::new(clauses),
            &TopDocs::with_limit(limit).order_by_score(),
        )?;
        let mut keys = Vec::with_capacity(top.len());
        for (_, address) in top {
            let doc: TantivyDocument = searcher.doc(address)?;
            if let Some(k) = doc.get_first(self.key).and_then(|v| v.as_str()) {
                keys.push(k.to_string());
            }
        }
        Ok(keys)
    }
}

fn split_label(split: &str) -> &'static str {
    if split == "dev" {
        "development split (tuning allowed)"
    } else {
        "HELD-OUT split (report only)"
    }
}

/// What each scan read, per database and pass.
fn print_scan_coverage(results: &BTreeMap<(Pass, String, String), DbResult>) {
    println!();
    println!("Scans (read / declared in the DDL):");
    println!();
    println!("| pass | split | db | scan |");
    println!("|---|---|---|---|");
    for ((pass, split, db), result) in results {
        println!(
            "| {} | {split} | {db} | {} |",
            pass.label(),
            result.coverage
        );
    }
}

/// One split in one pass: a row per database, the pooled figure and the
/// mean of the databases.
fn print_split(results: &BTreeMap<(Pass, String, String), DbResult>, pass: Pass, split: &str) {
    let rows: Vec<(&String, &DbResult)> = results
        .iter()
        .filter(|((p, s, _), _)| *p == pass && s == split)
        .map(|((_, _, db), r)| (db, r))
        .collect();
    if rows.is_empty() {
        return;
    }
    println!();
    println!("### {}, {}", split_label(split), pass.label());
    println!();
    println!(
        "| db | n | table@5 Lore | table@5 BM25 | n (cols) | col recall@20 Lore | col recall@20 BM25 | col@20 Lore | col@20 BM25 | Lore < 20 cols |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let (mut lore, mut bm25, mut short) = (Tally::default(), Tally::default(), 0);
    let mut means = [0.0f64; 6];
    for (db, r) in &rows {
        println!("{}", row(db, &r.lore, &r.bm25, r.short.to_string()));
        for (total, part) in [(&mut lore, &r.lore), (&mut bm25, &r.bm25)] {
            merge(total, part);
        }
        short += r.short;
        let figures = [
            r.lore.table_at(),
            r.bm25.table_at(),
            r.lore.recall_at(),
            r.bm25.recall_at(),
            r.lore.strict_at(),
            r.bm25.strict_at(),
        ];
        for (mean, f) in means.iter_mut().zip(figures) {
            *mean += f / rows.len() as f64;
        }
    }
    println!(
        "{}",
        row("**all (pooled)**", &lore, &bm25, short.to_string())
    );
    println!(
        "| mean of {} dbs | | {:.3} | {:.3} | | {:.3} | {:.3} | {:.3} | {:.3} | |",
        rows.len(),
        means[0],
        means[1],
        means[2],
        means[3],
        means[4],
        means[5]
    );
}

fn merge(total: &mut Tally, part: &Tally) {
    total.n += part.n;
    total.table_hits += part.table_hits;
    total.n_columns += part.n_columns;
    total.recall += part.recall;
    total.strict += part.strict;
}

fn row(name: &str, lore: &Tally, bm25: &Tally, short: String) -> String {
    format!(
        "| {name} | {} | {:.3} | {:.3} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {short} |",
        lore.n,
        lore.table_at(),
        bm25.table_at(),
        lore.n_columns,
        lore.recall_at(),
        bm25.recall_at(),
        lore.strict_at(),
        bm25.strict_at()
    )
}

/// Pooled figures of each split and pass, Lore against BM25.
fn print_summary(results: &BTreeMap<(Pass, String, String), DbResult>, splits: &[&str]) {
    println!();
    println!("### Summary (pooled over questions)");
    println!();
    println!(
        "| split | pass | n | table@5 Lore | table@5 BM25 | n (cols) | col recall@20 Lore | col recall@20 BM25 | col@20 Lore | col@20 BM25 | Lore < 20 cols |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for split in splits {
        for pass in [Pass::WithComments, Pass::WithoutComments] {
            let (mut lore, mut bm25, mut short) = (Tally::default(), Tally::default(), 0);
            for ((p, s, _), r) in results {
                if *p == pass && s == split {
                    merge(&mut lore, &r.lore);
                    merge(&mut bm25, &r.bm25);
                    short += r.short;
                }
            }
            if lore.n > 0 {
                let name = format!("{split} | {}", pass.label());
                println!("{}", row(&name, &lore, &bm25, short.to_string()));
            }
        }
    }
}
