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

/// A small code repository made a Lore project whose gateway embeds its
/// chunks with the provider at `url`.
fn gateway_repository(url: &str, key: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "docs/offboarding.md",
            "# Offboarding\n\nWhat happens when a customer cancels: the account is closed at the end of the period.\n",
        ),
        (
            "shop/basket.py",
            "class Basket:\n    def checkout(self):\n        return Order(self.items)\n",
        ),
        (
            "shop/orders.py",
            "class Order:\n    def __init__(self, items):\n        self.items = items\n",
        ),
        (
            "tests/test_basket.py",
            "from shop.basket import Basket\n\ndef test_checkout():\n    assert Basket().checkout()\n",
        ),
    ];
    for (path, text) in files {
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    let init = lore().arg("init").arg(dir.path()).output().unwrap();
    assert!(init.status.success());
    let config = std::fs::read_to_string(dir.path().join("lore.yaml")).unwrap();
    std::fs::write(
        dir.path().join("lore.yaml"),
        format!("{config}\ngateway:\n  roots:\n    - path: \".\"\n  embeddings: true\n"),
    )
    .unwrap();
    configure(dir.path(), url, key);
    dir
}

fn gateway_json(root: &Path, args: &[&str]) -> Value {
    let mut all = vec!["gateway"];
    all.extend_from_slice(args);
    all.push("--json");
    let output = lore_in(root, &all);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn paths(found: &Value) -> Vec<String> {
    found["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["chunk"]["artifact_path"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn the_gateway_finds_a_document_by_meaning_and_embeds_each_chunk_once() {
    let provider = Provider::default();
    let repo = gateway_repository(&start_provider(provider.clone()), KEY);
    let root = repo.path();

    let run = gateway_json(root, &["ingest"]);
    assert_eq!(run["success"], true, "{run}");
    let lane = &run["embeddings"];
    let sent = provider.received();
    assert_eq!(lane["model"], "fake-embed", "{run}");
    assert_eq!(lane["embedded"].as_u64().unwrap() as usize, sent.len());
    assert_eq!(lane["pending"], 0, "{run}");
    assert!(sent.len() >= 4, "{sent:?}");
    // Each chunk by its path first, every text once.
    assert!(sent.iter().any(|t| t.starts_with("docs/offboarding.md\n")));
    let distinct: std::collections::BTreeSet<&String> = sent.iter().collect();
    assert_eq!(distinct.len(), sent.len(), "{sent:?}");

    // Nothing changed: nothing is sent again (the vectors are in the store).
    let again = gateway_json(root, &["ingest"]);
    assert_eq!(again["embeddings"]["embedded"], 0, "{again}");
    assert_eq!(provider.received().len(), sent.len());

    // No word of the query is in the repository: found by meaning only.
    let found = gateway_json(root, &["search", "attrition"]);
    assert_eq!(paths(&found)[0], "docs/offboarding.md", "{found}");
    let scoring = &found["results"][0]["scoring"];
    assert_eq!(scoring["lexical"], 0.0, "{scoring}");
    assert!(scoring["vector"].as_f64().unwrap() > 0.3, "{scoring}");
    assert_eq!(scoring["fusion"]["vector_rank"], 1, "{scoring}");
    assert!(scoring["fusion"]["lexical_rank"].is_null(), "{scoring}");
    assert_eq!(provider.received()[sent.len()..], ["attrition"]);

    // Both lanes: a chunk found by both is fused above one found by one.
    let found = gateway_json(root, &["search", "customer", "attrition"]);
    let best = &found["results"][0];
    assert_eq!(best["chunk"]["artifact_path"], "docs/offboarding.md");
    assert_eq!(best["scoring"]["fusion"]["lexical_rank"], 1, "{found}");
    assert_eq!(best["scoring"]["fusion"]["vector_rank"], 1, "{found}");

    // Filters hold in the embedding lane too.
    let code = gateway_json(root, &["search", "attrition", "--type", "code"]);
    assert!(
        paths(&code).iter().all(|p| p.starts_with("shop/")),
        "{code}"
    );

    // Ranked by the embedding lane alone, by cosine, best first.
    let by_vector = gateway_json(root, &["search", "basket checkout", "--sort-by-vector"]);
    let cosines: Vec<f64> = by_vector["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["scoring"]["vector"].as_f64().unwrap())
        .collect();
    assert!(cosines.len() >= 3, "{by_vector}");
    assert!(cosines.windows(2).all(|w| w[0] >= w[1]), "{cosines:?}");

    // A changed file: only its chunk is embedded by the next ingest.
    std::fs::write(
        root.join("shop/orders.py"),
        "class Order:\n    def refund(self):\n        return self.total\n",
    )
    .unwrap();
    let before = provider.received().len();
    let changed = root.join("shop/orders.py");
    let run = gateway_json(root, &["ingest", changed.to_str().unwrap()]);
    assert_eq!(run["embeddings"]["embedded"], 1, "{run}");
    let new = provider.received()[before..].to_vec();
    assert!(new[0].starts_with("shop/orders.py\n"), "{new:?}");
    assert!(new[0].contains("refund"), "{new:?}");

    // Over MCP the same: km-search with sort_by_vector.
    let client = stdio_client(root).await;
    let found = ok(
        &client,
        "km-search",
        json!({"query": "attrition", "sort_by_vector": true}),
    )
    .await;
    assert_eq!(paths(&found)[0], "docs/offboarding.md", "{found}");
    client.cancel().await.unwrap();
}

#[test]
fn a_gateway_without_its_provider_ingests_and_searches_lexically() {
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", listener.local_addr().unwrap())
    };
    let repo = gateway_repository(&closed, KEY);
    let root = repo.path();
    let output = lore_in(root, &["gateway", "ingest"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: embeddings incomplete"),
        "{stderr}"
    );
    let run = gateway_json(root, &["ingest"]);
    assert_eq!(run["success"], true);
    assert!(run["embeddings"]["pending"].as_u64().unwrap() >= 4, "{run}");
    assert!(
        run["embeddings"]["error"]
            .as_str()
            .unwrap()
            .contains("cannot reach the embedding provider"),
        "{run}"
    );

    let found = gateway_json(root, &["search", "basket", "checkout"]);
    assert_eq!(paths(&found)[0], "shop/basket.py", "{found}");
    assert!(found["results"][0]["scoring"].get("vector").is_none());
    let warnings = found["metadata"]["warnings"].to_string();
    assert!(warnings.contains("embedding lane skipped"), "{warnings}");

    // Without gateway.embeddings, sort_by_vector says why it is ignored.
    let config = std::fs::read_to_string(root.join("lore.yaml")).unwrap();
    std::fs::write(
        root.join("lore.yaml"),
        config.replace("  embeddings: true\n", ""),
    )
    .unwrap();
    let found = gateway_json(root, &["search", "basket", "--sort-by-vector"]);
    assert_eq!(paths(&found)[0], "shop/basket.py", "{found}");
    let warnings = found["metadata"]["warnings"].to_string();
    assert!(warnings.contains("no embedding lane"), "{warnings}");
}
