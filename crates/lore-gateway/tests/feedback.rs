//! Feedback that ranks, through the `Gateway` service with its store: a
//! vote on a search's result moves it for the same and alike queries, each
//! voter counts once, another process's gateway sees the votes, and bad
//! feedback is refused with what to do.

use std::sync::Arc;

use lore_core::ErrorCode;
use lore_core::project::Project;
use lore_gateway::Gateway;
use lore_gateway::ingest::IngestRequest;
use lore_gateway::search::{SearchRequest, SearchResponse};
use lore_store::NewFeedback;
use lore_store::feed::StoreHandle;

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("lore.yaml"),
            "gateway:\n  roots:\n    - path: repo\n      name: app\n",
        )
        .unwrap();
        // Two loaders alike to the letter: only feedback can part them.
        for name in ["alpha", "beta"] {
            let file = dir.path().join(format!("repo/src/loaders/{name}.py"));
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(
                file,
                "def parse_settings_file(path):\n    \"\"\"Reads the settings file and parses each line.\"\"\"\n    return [line.split('=') for line in open(path)]\n",
            )
            .unwrap();
        }
        let fixture = Fixture { dir };
        let run = fixture
            .gateway()
            .ingest(&IngestRequest::default(), &mut |_, _| {})
            .unwrap();
        assert!(run.success, "{:?}", run.error);
        fixture
    }

    /// A gateway as a new process would open it.
    fn gateway(&self) -> Gateway {
        let project = Project::load(self.dir.path()).unwrap();
        Gateway::for_project(&project)
            .with_store(Arc::new(StoreHandle::sqlite(project.store_path())))
    }
}

fn search(gateway: &Gateway, query: &str) -> SearchResponse {
    gateway
        .search(&SearchRequest {
            query: query.into(),
            limit: Some(10),
            ..Default::default()
        })
        .unwrap()
}

fn paths(found: &SearchResponse) -> Vec<&str> {
    found
        .results
        .iter()
        .map(|r| r.chunk.artifact_path.as_str())
        .collect()
}

fn vote(gateway: &Gateway, found: &SearchResponse, path: &str, vote: i8, voter: &str) {
    let chunk = found
        .results
        .iter()
        .find(|r| r.chunk.artifact_path == path)
        .expect("the result voted on");
    gateway
        .submit_feedback(NewFeedback {
            request_id: found.metadata.request_id.clone(),
            chunk_id: chunk.chunk.chunk_id.clone(),
            vote,
            note: Some("the bug was here".into()),
            context: None,
            voter: voter.into(),
        })
        .unwrap();
}

fn feedback_signal(found: &SearchResponse, path: &str) -> Option<f32> {
    found
        .results
        .iter()
        .find(|r| r.chunk.artifact_path == path)
        .and_then(|r| r.scoring.signals.get("feedback").copied())
}

const QUERY: &str = "parse settings file fails on empty lines";

#[test]
fn an_up_vote_raises_a_result_for_the_same_and_alike_queries_and_each_voter_counts_once() {
    let fixture = Fixture::new();
    let gateway = fixture.gateway();
    let before = search(&gateway, QUERY);
    assert_eq!(before.results.len(), 2);
    let (first, second) = (paths(&before)[0].to_string(), paths(&before)[1].to_string());
    assert!(feedback_signal(&before, &second).is_none());

    // One up-vote for the second: it is first now, and says why.
    vote(&gateway, &before, &second, 1, "alice");
    let after = search(&gateway, QUERY);
    assert_eq!(paths(&after), [second.as_str(), first.as_str()]);
    let once = feedback_signal(&after, &second).expect("the feedback signal");
    assert!(once > 1.0, "{once}");

    // The same voter again and again: still one voter.
    for _ in 0..4 {
        vote(&gateway, &after, &second, 1, "alice");
    }
    let again = search(&gateway, QUERY);
    assert_eq!(feedback_signal(&again, &second), Some(once));
    // A second voter adds to it, within the cap.
    vote(&gateway, &again, &second, 1, "bob");
    let two = feedback_signal(&search(&gateway, QUERY), &second).unwrap();
    assert!(two > once && two <= 1.5, "{two}");

    // An alike query is raised too (less); an unrelated one not at all.
    let alike = search(
        &gateway,
        "settings file fails to parse empty lines after the upgrade",
    );
    assert_eq!(paths(&alike)[0], second);
    assert!(feedback_signal(&alike, &second).is_some_and(|f| f > 1.0 && f < two));
    let other = search(&gateway, "parse path");
    assert!(feedback_signal(&other, &second).is_none());

    // Another process's gateway ranks by the same votes.
    let fresh = search(&fixture.gateway(), QUERY);
    assert_eq!(paths(&fresh)[0], second);

    // Withdrawn (0) by both voters: the tie is back as it was.
    let latest = search(&gateway, QUERY);
    vote(&gateway, &latest, &second, 0, "alice");
    vote(&gateway, &latest, &second, 0, "bob");
    let withdrawn = search(&gateway, QUERY);
    assert_eq!(paths(&withdrawn), paths(&before));
    assert!(feedback_signal(&withdrawn, &second).is_none());
}

#[test]
fn a_down_vote_lowers_a_result() {
    let fixture = Fixture::new();
    let gateway = fixture.gateway();
    let before = search(&gateway, QUERY);
    let (first, second) = (paths(&before)[0].to_string(), paths(&before)[1].to_string());
    vote(&gateway, &before, &first, -1, "carol");
    let after = search(&gateway, QUERY);
    assert_eq!(paths(&after), [second.as_str(), first.as_str()]);
    assert!(feedback_signal(&after, &first).is_some_and(|f| f < 1.0));
}

#[test]
fn feedback_must_name_a_recorded_search_and_one_of_its_results() {
    let fixture = Fixture::new();
    let gateway = fixture.gateway();
    let found = search(&gateway, QUERY);
    let chunk = found.results[0].chunk.chunk_id.clone();
    let submit = |request_id: &str, chunk_id: &str, vote: i8, note: Option<String>| {
        gateway
            .submit_feedback(NewFeedback {
                request_id: request_id.into(),
                chunk_id: chunk_id.into(),
                vote,
                note,
                context: None,
                voter: "dave".into(),
            })
            .unwrap_err()
    };
    let unknown = submit("req-nope", &chunk, 1, None);
    assert_eq!(unknown.code, ErrorCode::NotFound);
    assert!(
        unknown.message.contains("request_id"),
        "{}",
        unknown.message
    );
    let elsewhere = submit(&found.metadata.request_id, "src/other.py::x", 1, None);
    assert_eq!(elsewhere.code, ErrorCode::NotFound);
    assert!(
        elsewhere.message.contains(&chunk),
        "names the results: {}",
        elsewhere.message
    );
    let big = submit(&found.metadata.request_id, &chunk, 2, None);
    assert_eq!(big.code, ErrorCode::InvalidArguments);
    let long = submit(
        &found.metadata.request_id,
        &chunk,
        1,
        Some("x".repeat(2_001)),
    );
    assert_eq!(long.code, ErrorCode::InvalidArguments);
    // Nothing refused was kept: the ranking has no feedback.
    let again = search(&gateway, QUERY);
    assert!(
        again
            .results
            .iter()
            .all(|r| !r.scoring.signals.contains_key("feedback"))
    );
}
