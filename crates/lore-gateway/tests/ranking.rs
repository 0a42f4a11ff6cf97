//! The ranking rules of `km-search`, each held to what a user sees: "code"
//! is shipped source only, filters decide membership and never a score,
//! files are ranked by all their evidence, a stack trace's frames lead to
//! their files, and a query that matches little scores low.

use lore_core::config::{GatewayConfig, GatewayRoot};
use lore_gateway::index::GatewayIndex;
use lore_gateway::ingest::project_files::ProjectFiles;
use lore_gateway::ingest::{IngestRequest, Root, ingest, resolve_roots};
use lore_gateway::search::{SearchFilters, SearchRequest, SearchResult, search};

struct Repo {
    dir: tempfile::TempDir,
    config: GatewayConfig,
    roots: Vec<Root>,
}

impl Repo {
    fn new(files: &[(&str, &str)]) -> Repo {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("repo")).unwrap();
        let config = GatewayConfig {
            roots: vec![GatewayRoot {
                path: "repo".into(),
                name: Some("app".into()),
            }],
            ..Default::default()
        };
        let roots = resolve_roots(dir.path(), &config);
        for (path, text) in files {
            let file = dir.path().join("repo").join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        let repo = Repo { dir, config, roots };
        let run = ingest(
            &ProjectFiles::at(repo.dir.path()),
            &repo.dir.path().join(".lore/gateway"),
            &repo.config,
            &repo.roots,
            &IngestRequest::default(),
            None,
            &mut |_, _| {},
        )
        .unwrap();
        assert!(run.success, "{:?}", run.error);
        repo
    }

    fn search(&self, query: &str, types: &[&str]) -> Vec<SearchResult> {
        let index = GatewayIndex::open(&self.dir.path().join(".lore/gateway/index")).unwrap();
        search(
            &index,
            &SearchRequest {
                query: query.into(),
                limit: Some(25),
                filters: SearchFilters {
                    artifact_types: types.iter().map(|t| t.to_string()).collect(),
                    ..Default::default()
                },
                ..Default::default()
            },
            None,
        )
        .unwrap()
        .results
    }
}

fn files(results: &[SearchResult]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for r in results {
        if !out.contains(&r.chunk.artifact_path.as_str()) {
            out.push(&r.chunk.artifact_path);
        }
    }
    out
}

const RETRY: &str = "def retry_request(session, attempts):\n    \"\"\"Send again after a timeout, with backoff.\"\"\"\n    for attempt in range(attempts):\n        if session.send(timeout=backoff(attempt)):\n            return True\n    return False\n";

#[test]
fn code_is_shipped_source_never_tests_examples_benchmarks_or_vendored_code() {
    // Every file says the same words; only the shipped module is code.
    let repo = Repo::new(&[
        ("src/client/retry.py", RETRY),
        ("tests/test_retry.py", RETRY),
        ("testing/helpers/retry.py", RETRY),
        ("src/client/conftest.py", RETRY),
        ("examples/retry_demo.py", RETRY),
        ("doc/usage/retry_example.py", RETRY),
        ("asv_bench/benchmarks/retry.py", RETRY),
        ("vendor/backoff/retry.py", RETRY),
        ("src/client/_vendor/retry.py", RETRY),
        ("src/client/retry_pb2.py", RETRY),
        ("setup.py", RETRY),
        (".gitattributes", "src/client/gen/** linguist-generated\n"),
        ("src/client/gen/retry.py", RETRY),
    ]);
    let code = repo.search("retry the request after a timeout with backoff", &["code"]);
    assert_eq!(
        files(&code),
        vec!["src/client/retry.py"],
        "{:?}",
        files(&code)
    );
    let tests = repo.search("retry the request after a timeout with backoff", &["test"]);
    for test in [
        "tests/test_retry.py",
        "testing/helpers/retry.py",
        "asv_bench/benchmarks/retry.py",
    ] {
        assert!(files(&tests).contains(&test), "{test}: {:?}", files(&tests));
    }
}

#[test]
fn a_filter_decides_membership_and_never_a_score() {
    let repo = Repo::new(&[
        ("src/client/retry.py", RETRY),
        (
            "src/client/session.py",
            "class Session:\n    def send(self, timeout):\n        return self.adapter.send(timeout)\n",
        ),
        (
            "tests/test_retry.py",
            "from client.retry import retry_request\n\ndef test_retry_request_backs_off():\n    assert retry_request(FakeSession(), 3)\n",
        ),
        (
            "docs/retry.md",
            "# Retry\nretry_request retries with backoff after a timeout.\n",
        ),
    ]);
    let query = "retry_request does not back off after a timeout";
    let all = repo.search(query, &[]);
    let code = repo.search(query, &["code"]);
    assert!(!code.is_empty());
    for result in &code {
        let same = all
            .iter()
            .find(|r| r.chunk.chunk_id == result.chunk.chunk_id)
            .unwrap_or_else(|| panic!("{} is in the unfiltered results", result.chunk.chunk_id));
        assert_eq!(same.score, result.score, "{}", result.chunk.chunk_id);
        assert_eq!(same.scoring.signals, result.scoring.signals);
    }
}

#[test]
fn a_file_is_ranked_by_all_its_evidence_not_its_best_chunk_alone() {
    // `parser.py` holds the words in three functions, each a
    // chunk of its own; `lexer.py` holds two of them, slightly more
    // densely, in one.
    let body = "    x = stream.next()\n".repeat(50);
    let parser = format!(
        "def parse_header(stream):\n    \"\"\"Read the header block.\"\"\"\n{body}\n\n\
         def parse_footer(stream):\n    \"\"\"Read the footer and its checksum.\"\"\"\n{body}\n\n\
         def parse_body(stream):\n    \"\"\"Read the body, skipping comments.\"\"\"\n{body}\n"
    );
    let lexer = "def read_header_footer(stream):\n    \"\"\"Header footer header footer.\"\"\"\n    return stream\n";
    let mut files_in: Vec<(&str, String)> = vec![
        ("src/fmt/parser.py", parser),
        ("src/fmt/lexer.py", lexer.to_string()),
    ];
    // A long module that says the words once each, far apart, in many
    // chunks: it must not win by volume.
    let mut long = String::new();
    for n in 0..60 {
        long.push_str(&format!(
            "def helper_{n}(x):\n    \"\"\"Unrelated helper number {n}, header.\"\"\"\n    return x + {n}\n\n\n"
        ));
    }
    files_in.push(("src/fmt/helpers.py", long));
    let refs: Vec<(&str, &str)> = files_in.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let repo = Repo::new(&refs);
    let found = repo.search(
        "header footer checksum and comments are read wrong by the body parser",
        &["code"],
    );
    assert_eq!(files(&found)[0], "src/fmt/parser.py", "{:?}", files(&found));
    let first = &found[0];
    assert!(
        first.scoring.signals.contains_key("file_evidence"),
        "{:?}",
        first.scoring.signals
    );
}

#[test]
fn a_query_that_matches_little_scores_low() {
    let repo = Repo::new(&[
        ("src/client/retry.py", RETRY),
        ("src/q.py", "q = 1\n"),
        ("README.md", "# Client\nRetries requests with backoff.\n"),
    ]);
    let nonsense = repo.search("notignoredzz_q", &[]);
    if let Some(top) = nonsense.first() {
        assert!(top.score < 0.5, "nonsense scored {}", top.score);
    }
    let good = repo.search("retry_request backoff timeout", &[]);
    assert_eq!(good[0].chunk.artifact_path, "src/client/retry.py");
    assert!(good[0].score > 0.9, "a full match scored {}", good[0].score);
}

#[test]
fn a_stack_frame_leads_to_its_file_and_function_in_go_and_rust() {
    let help = "package cli\n\n// printHelp prints the help of the verbose flag and the version flag.\n\
                func printHelp(verbose bool, version string) {\n\tfmt.Println(\"verbose flag version flag help\", verbose, version)\n}\n";
    let command = "package cli\n\nfunc (c *Command) parseFlags(args []string) error {\n\tfor _, a := range args {\n\t\tc.set(a)\n\t}\n\treturn nil\n}\n";
    let lexer = "pub fn read_text(input: &str) -> usize {\n    input.len()\n}\n";
    let docs = "pub fn describe() -> &'static str {\n    \"the reader panics when the text ends early; read text\"\n}\n";
    let repo = Repo::new(&[
        ("help.go", help),
        ("command.go", command),
        ("src/reader/parser.rs", lexer),
        ("src/describe.rs", docs),
    ]);
    let go = "The verbose flag prints the version and exits\n\
              panic: runtime error: index out of range\n\ngoroutine 1 [running]:\n\
              github.com/acme/cli.(*Command).parseFlags(0xc000120000, {0xc00001e0a0, 0x1, 0x1})\n\
              \t/home/u/go/pkg/mod/github.com/acme/cli@v3.1.0/command.go:4 +0x1d\n";
    let found = repo.search(go, &["code"]);
    assert_eq!(files(&found)[0], "command.go", "{:?}", files(&found));
    let rust = "The reader panics when the text ends early\n\
                thread 'main' panicked at src/reader/parser.rs:2:5:\nstack backtrace:\n   \
                3: quick_reader::reader::parser::read_text\n";
    let found = repo.search(rust, &["code"]);
    assert_eq!(
        files(&found)[0],
        "src/reader/parser.rs",
        "{:?}",
        files(&found)
    );
    assert!(found[0].scoring.signals.contains_key("defines_symbol"));
}
