//! The semantic lane end to end: `lore reindex` and `lore mcp stdio`
//! against a local HTTP server speaking the OpenAI embeddings wire format
//! (`POST /v1/embeddings`, bearer key, `{"data":[{"index","embedding"}]}`).
//! Its model is small but real: words of one meaning share a dimension, so
//! a query finds a page by meaning when no word of it matches.

mod common;

use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use common::*;
use serde_json::{Value, json};

const KEY: &str = "sk-test-embed-123";
const DIMS: usize = 64;

/// Words that mean "customers leaving" share dimension 0; every other
/// word falls in one of the remaining dimensions by a hash.
const LEAVING: [&str; 9] = [
    "churn",
    "churned",
    "attrition",
    "cancel",
    "cancels",
    "canceled",
    "cancelled",
    "leaves",
    "depart",
];

fn embed(text: &str) -> Vec<f32> {
    let mut vector = vec![0.0f32; DIMS];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let word = word.to_lowercase();
        if LEAVING.contains(&word.as_str()) {
            vector[0] += 3.0;
        } else {
            let hash = word
                .bytes()
                .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
            vector[1 + (hash % (DIMS as u64 - 1)) as usize] += 1.0;
        }
    }
    vector
}

#[derive(Clone, Default)]
struct Provider {
    /// Every text received, in order.
    inputs: Arc<Mutex<Vec<String>>>,
}

impl Provider {
    fn received(&self) -> Vec<String> {
        self.inputs.lock().unwrap().clone()
    }
}

async fn embeddings(
    State(provider): State<Provider>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if auth != format!("Bearer {KEY}") {
        // Like some providers, this one repeats the key it refused.
        let given = auth.trim_start_matches("Bearer ");
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({"error": {"message": format!("Incorrect API key provided: {given}"), "type": "invalid_request_error"}})),
        )
            .into_response();
    }
    assert_eq!(body["model"], "fake-embed");
    assert_eq!(body["encoding_format"], "float");
    let inputs: Vec<String> = body["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    provider.inputs.lock().unwrap().extend(inputs.clone());
    // Answered out of order, as the format allows: `index` says which.
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .rev()
        .map(|(i, text)| json!({"object": "embedding", "index": i, "embedding": embed(text)}))
        .collect();
    Json(json!({"object": "list", "data": data, "model": "fake-embed", "usage": {"prompt_tokens": 1, "total_tokens": 1}}))
        .into_response()
}

/// Starts the provider on its own thread and runtime (the tests block on
/// child processes); returns its base URL.
fn start_provider(provider: Provider) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let app = axum::Router::new()
                .route("/v1/embeddings", axum::routing::post(embeddings))
                .with_state(provider);
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    url
}

fn configure(root: &Path, url: &str, key: &str) {
    std::fs::write(root.join("embed.key"), key).unwrap();
    let config = std::fs::read_to_string(root.join("lore.yaml")).unwrap();
    let base = config
        .split("\nsearch:")
        .next()
        .unwrap()
        .trim_end()
        .to_string();
    std::fs::write(
        root.join("lore.yaml"),
        format!(
            "{base}\nsearch:\n  embeddings:\n    url: {url}\n    model: fake-embed\n    api_key: file:embed.key\n    timeout_ms: 2000\n"
        ),
    )
    .unwrap();
}

fn lane<'v>(found: &'v Value, name: &str) -> &'v Value {
    found["lanes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["lane"] == name)
        .unwrap_or_else(|| panic!("no {name} lane in {found}"))
}

fn keys(found: &Value) -> Vec<String> {
    found["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_page_is_found_by_meaning_and_each_text_is_embedded_once() {
    let (_dir, root) = demo_project();
    let provider = Provider::default();
    configure(&root, &start_provider(provider.clone()), KEY);

    let output = lore_in(&root, &["reindex"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("Embeddings:"), "{stderr}");
    let embedded = provider.received();
    // The demo's 14 pages, its semantic layer and its tables; no columns
    // (not embedded by default); no text twice.
    assert!(embedded.len() > 30, "{}", embedded.len());
    assert!(embedded.iter().any(|t| t.starts_with("wiki: global/churn")));
    assert!(embedded.iter().any(|t| t.starts_with("table: ")));
    assert!(!embedded.iter().any(|t| t.starts_with("column: ")));
    let distinct: std::collections::BTreeSet<&String> = embedded.iter().collect();
    assert_eq!(distinct.len(), embedded.len(), "a text is sent once");

    // A rebuilt index takes every vector from the cache in the store.
    let output = lore_in(&root, &["reindex"]);
    assert!(output.status.success());
    assert_eq!(
        provider.received().len(),
        embedded.len(),
        "nothing re-embedded"
    );

    let client = stdio_client(&root).await;
    // No word of "attrition" is in the wiki: the page is found by meaning.
    let found = ok(&client, "wiki_search", json!({"query": "attrition"})).await;
    let best = keys(&found);
    assert!(best.iter().take(3).any(|k| k == "churn"), "{found}");
    let churn = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == "churn")
        .unwrap();
    let reasons = churn["matchReasons"].to_string();
    assert!(reasons.contains("meaning: similarity"), "{reasons}");
    assert_eq!(churn["lanes"][0]["lane"], "embedding");
    assert!(churn["lanes"][0]["similarity"].as_f64().unwrap() > 0.3);
    assert_eq!(lane(&found, "lexical")["candidates"], 0);
    assert!(lane(&found, "embedding")["candidates"].as_u64().unwrap() > 0);
    assert!(lane(&found, "embedding").get("skipped").is_none());

    let discovered = ok(&client, "discover_data", json!({"query": "attrition"})).await;
    let churn_ref = discovered["refs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "wiki" && r["id"] == "churn")
        .unwrap_or_else(|| panic!("{discovered}"));
    assert_eq!(churn_ref["matchedOn"], "meaning");
    assert!(churn_ref["summary"].as_str().unwrap().contains("churn"));
    for lexical in ["raw_schema", "semantic_layer", "wiki"] {
        assert_eq!(lane(&discovered, lexical)["candidates"], 0, "{lexical}");
    }
    // Both searches embedded only the query, once.
    let after = provider.received();
    assert_eq!(&after[embedded.len()..], ["attrition"]);

    // A page written a moment ago is embedded by the next search.
    std::fs::write(
        root.join("wiki/global/exit-interviews.md"),
        "---\nsummary: Why accounts depart\n---\n# Exit interviews\n\nReasons given when an account leaves us.\n",
    )
    .unwrap();
    let found = ok(&client, "wiki_search", json!({"query": "attrition"})).await;
    assert!(
        keys(&found).contains(&"exit-interviews".to_string()),
        "{found}"
    );
    let sent = provider.received()[after.len()..].to_vec();
    assert_eq!(sent.len(), 1, "only the new page: {sent:?}");
    assert!(
        sent[0].starts_with("wiki: global/exit-interviews"),
        "{sent:?}"
    );

    // Kinds the lane does not embed: it says so, the others still answer.
    let columns = ok(
        &client,
        "discover_data",
        json!({"query": "plan name", "kinds": ["column"]}),
    )
    .await;
    assert!(
        lane(&columns, "embedding")["skipped"]
            .as_str()
            .unwrap()
            .contains("search.embeddings.kinds")
    );
    assert!(!columns["refs"].as_array().unwrap().is_empty());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_unreachable_or_refusing_provider_leaves_search_lexical() {
    let (_dir, root) = demo_project();
    // A port nobody listens on.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", listener.local_addr().unwrap())
    };
    configure(&root, &closed, KEY);
    let client = stdio_client(&root).await;
    let found = ok(
        &client,
        "discover_data",
        json!({"query": "how is revenue defined?"}),
    )
    .await;
    let refs: Vec<String> = found["refs"]
        .as_array()
        .unwrap()
        .iter()
        .take(3)
        .map(|r| {
            format!(
                "{}:{}",
                r["kind"].as_str().unwrap(),
                r["id"].as_str().unwrap()
            )
        })
        .collect();
    assert!(refs.contains(&"wiki:revenue".to_string()), "{refs:?}");
    let skipped = lane(&found, "embedding")["skipped"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        skipped.contains("cannot reach the embedding provider"),
        "{skipped}"
    );
    // The dead provider is left alone for a while: no search waits on it.
    let again = ok(&client, "wiki_search", json!({"query": "revenue"})).await;
    assert_eq!(keys(&again)[0], "revenue");
    let skipped = lane(&again, "embedding")["skipped"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(skipped.contains("retrying in"), "{skipped}");
    client.cancel().await.unwrap();

    let output = lore_in(&root, &["reindex"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("warning: embeddings skipped"), "{stderr}");

    // A provider that refuses the key: its message, never the key.
    let provider = Provider::default();
    configure(&root, &start_provider(provider.clone()), "sk-wrong-key-456");
    let client = stdio_client(&root).await;
    let found = ok(&client, "discover_data", json!({"query": "revenue"})).await;
    let skipped = lane(&found, "embedding")["skipped"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(skipped.contains("HTTP 401"), "{skipped}");
    assert!(
        skipped.contains("Incorrect API key provided: ***"),
        "{skipped}"
    );
    assert!(!found.to_string().contains("sk-wrong-key-456"));
    assert!(!found["refs"].as_array().unwrap().is_empty());
    client.cancel().await.unwrap();
    let output = lore_in(&root, &["search", "revenue"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("the embedding lane was skipped"),
        "{stderr}"
    );
    assert!(!stderr.contains("sk-wrong-key-456"));
    assert!(provider.received().is_empty());
}
