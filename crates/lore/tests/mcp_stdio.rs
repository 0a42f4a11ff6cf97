//! End to end over stdio: the real `lore mcp stdio` process, driven by
//! rmcp's client.

mod common;

use common::{Recorder, demo_project, exercise_analytics_tools};
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;

#[tokio::test]
async fn stdio_server_answers_the_analytics_tools() {
    let (_dir, root) = demo_project();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_lore"));
    command
        .arg("--project-dir")
        .arg(&root)
        .args(["mcp", "stdio"]);
    let transport = TokioChildProcess::new(command).unwrap();
    let client = Recorder::default().serve(transport).await.unwrap();
    let info = client.peer_info().unwrap();
    let server_info = info.server_info.clone().expect("server info");
    assert_eq!(server_info.name, "lore");
    assert_eq!(server_info.version, env!("CARGO_PKG_VERSION"));
    exercise_analytics_tools(&client).await;
    client.cancel().await.unwrap();
}
