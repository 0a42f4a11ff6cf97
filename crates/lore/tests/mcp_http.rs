//! End to end over Streamable HTTP: the real `lore mcp serve` process on an
//! ephemeral port, driven by rmcp's client and by raw HTTP requests.

mod common;

use common::{
    HttpServer, Recorder, demo_project, empty_project, exercise_analytics_tools, lore, lore_in,
    spawn_http_server,
};
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;

fn start_server(root: &std::path::Path) -> HttpServer {
    let mut command = lore();
    command
        .arg("--project-dir")
        .arg(root)
        .args(["mcp", "serve", "--port", "0"]);
    spawn_http_server(command)
}

#[tokio::test]
#[allow(deprecated)] // resources/subscribe: the protocol this server speaks
async fn http_sessions_get_resource_updates_on_their_event_stream() {
    let (_dir, root) = empty_project();
    let server = start_server(&root);
    let transport = StreamableHttpClientTransport::from_uri(server.url.clone());
    let client = Recorder::default().serve(transport).await.unwrap();
    client
        .subscribe(rmcp::model::SubscribeRequestParams::new(
            "knowledge://history/transactions",
        ))
        .await
        .unwrap();
    let out = lore_in(
        &root,
        &[
            "memory",
            "relate",
            "--subject",
            "a",
            "--predicate",
            "b",
            "--object",
            "c",
        ],
    );
    assert!(out.status.success());
    let mut updated = Vec::new();
    for _ in 0..200 {
        updated = client.service().updated.lock().unwrap().clone();
        if !updated.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(updated, ["knowledge://history/transactions"]);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn http_server_answers_the_analytics_tools() {
    let (_dir, root) = demo_project();
    let server = start_server(&root);
    let transport = StreamableHttpClientTransport::from_uri(server.url.clone());
    let client = Recorder::default().serve(transport).await.unwrap();
    exercise_analytics_tools(&client).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn health_and_dns_rebinding_defences() {
    let (_dir, root) = demo_project();
    let server = start_server(&root);
    let base = server.url.trim_end_matches("/mcp").to_string();
    let port: u16 = base.rsplit(':').next().unwrap().parse().unwrap();
    let http = reqwest::Client::new();

    let health = http.get(format!("{base}/health")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    let body: serde_json::Value = serde_json::from_str(&health.text().await.unwrap()).unwrap();
    assert_eq!(body["status"], "ok");
    assert_eq!(body["port"], port);
    assert_eq!(body["projectDir"], root.display().to_string());

    // A foreign Host (DNS rebinding) is refused on /health and /mcp alike.
    for path in ["/health", "/mcp"] {
        let response = http
            .get(format!("{base}{path}"))
            .header("Host", "attacker.example")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403, "{path}");
        let body: serde_json::Value =
            serde_json::from_str(&response.text().await.unwrap()).unwrap();
        assert_eq!(body["code"], "forbidden");
    }

    // A browser Origin is refused unless configured.
    let response = http
        .post(format!("{base}/mcp"))
        .header("Origin", "http://attacker.example")
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
}

#[test]
fn a_busy_port_is_reported_with_a_way_out() {
    let (_dir, root) = demo_project();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let output = lore()
        .arg("--project-dir")
        .arg(&root)
        .args(["mcp", "serve", "--port", &port])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("already in use") && stderr.contains("--port"),
        "{stderr}"
    );
}

#[test]
fn binding_beyond_loopback_is_refused() {
    let (_dir, root) = demo_project();
    let output = lore()
        .arg("--project-dir")
        .arg(&root)
        .args(["mcp", "serve", "--host", "0.0.0.0", "--port", "0"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("loopback"));
}
