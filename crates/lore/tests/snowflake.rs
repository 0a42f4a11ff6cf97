//! A Snowflake connection end to end, as a user meets it: `lore.yaml` with
//! `driver: snowflake` and its url in a file, then `lore connection test`,
//! `lore scan`, `lore entity`, `lore dictionary`, `lore sql`, `lore sl
//! generate` and `lore sl query` on the command line, and the analytics
//! tools over MCP (the official Rust SDK's client of `lore mcp stdio`).
//!
//! Runs when `LORE_TEST_SNOWFLAKE_URL` names a Snowflake-protocol server
//! (fakesnow, which `.ci/run` starts); otherwise it prints a notice and
//! passes, unless `LORE_REQUIRE_SERVERS=1`.

mod common;

use common::{call, empty_project, error_of, lore_in, ok, stdio_client};
use serde_json::{Value, json};

/// The password the connection's url carries: it must never be printed.
const PASSWORD: &str = "sf-e2e-Secret-9";

fn server_url() -> Option<String> {
    const VAR: &str = "LORE_TEST_SNOWFLAKE_URL";
    match std::env::var(VAR) {
        Ok(url) => Some(url),
        Err(_) if std::env::var("LORE_REQUIRE_SERVERS").is_ok_and(|v| v == "1") => {
            panic!("LORE_REQUIRE_SERVERS=1 but {VAR} is unset")
        }
        Err(_) => {
            eprintln!("notice: the Snowflake end-to-end test is skipped: set {VAR} (fakesnow -s)");
            None
        }
    }
}

/// Runs statements on the server through the REST protocol directly
/// (autocommit on), not through Lore.
fn setup(server: &str, database: &str, statements: &[&str]) {
    let query = server.split_once('?').map(|(_, q)| q).unwrap_or("");
    let param = |name: &str| {
        query
            .split('&')
            .find_map(|p| p.strip_prefix(&format!("{name}=")))
            .map(str::to_string)
    };
    let base = format!(
        "{}://{}:{}",
        param("protocol").unwrap_or_else(|| "https".into()),
        param("host").unwrap_or_else(|| "127.0.0.1".into()),
        param("port").unwrap_or_else(|| "443".into())
    );
    let post = |path: &str, token: Option<&str>, body: Value| -> Value {
        let mut request =
            ureq::post(format!("{base}{path}")).header("Content-Type", "application/json");
        if let Some(token) = token {
            request = request.header("Authorization", format!("Snowflake Token=\"{token}\""));
        }
        let mut response = request.send(body.to_string().as_bytes()).unwrap();
        serde_json::from_slice(&response.body_mut().read_to_vec().unwrap()).unwrap()
    };
    let login = post(
        &format!("/session/v1/login-request?databaseName={database}&schemaName=PUBLIC"),
        None,
        json!({"data": {"ACCOUNT_NAME": "admin", "LOGIN_NAME": "admin", "PASSWORD": "admin",
                        "SESSION_PARAMETERS": {"AUTOCOMMIT": true}}}),
    );
    let token = login["data"]["token"].as_str().unwrap().to_string();
    for (i, statement) in statements.iter().enumerate() {
        let answer = post(
            &format!("/queries/v1/query-request?requestId=00000000-0000-4000-8000-{i:012}"),
            Some(&token),
            json!({"sqlText": statement, "sequenceId": i + 1}),
        );
        assert_eq!(
            answer["success"], true,
            "{statement}: {}",
            answer["message"]
        );
    }
}

/// The server's url for `database`, logging in as `lore` with [`PASSWORD`].
fn lore_url(server: &str, database: &str) -> String {
    let (base, query) = server.split_once('?').unwrap_or((server, ""));
    let account = base
        .rsplit_once('@')
        .map(|(_, rest)| rest.split('/').next().unwrap_or(rest))
        .unwrap_or("fakesnow");
    format!("snowflake://lore:{PASSWORD}@{account}/{database}?{query}")
}

const FIXTURE: &[&str] = &[
    "CREATE SCHEMA SALES",
    "CREATE TABLE SALES.CUSTOMERS (ID INTEGER PRIMARY KEY, NAME VARCHAR(100) NOT NULL, SEGMENT VARCHAR(20) NOT NULL) COMMENT = 'Customers who bought something'",
    "CREATE TABLE SALES.ORDERS (ID INTEGER PRIMARY KEY, CUSTOMER_ID INTEGER NOT NULL, STATUS VARCHAR(20) NOT NULL, AMOUNT NUMBER(10,2) NOT NULL)",
    "INSERT INTO SALES.CUSTOMERS VALUES (1, 'Acme Corp', 'Enterprise'), (2, 'Globex', 'SMB'), (3, 'Initech', 'SMB')",
    "INSERT INTO SALES.ORDERS VALUES (1, 1, 'paid', 100.00), (2, 1, 'paid', 50.50), (3, 2, 'refunded', 20.00), (4, 3, 'paid', 10.00), (5, 3, 'paid', 5.25)",
];

fn assert_no_secret(output: &std::process::Output) {
    for text in [&output.stdout, &output.stderr] {
        assert!(
            !String::from_utf8_lossy(text).contains(PASSWORD),
            "the password was printed"
        );
    }
}

#[tokio::test]
async fn a_snowflake_connection_works_from_the_cli_and_over_mcp() {
    let Some(server) = server_url() else {
        return;
    };
    let database = format!("LORE_E2E_{}", std::process::id());
    setup(&server, &database, FIXTURE);
    let (_dir, root) = empty_project();
    std::fs::write(root.join("sf-url.txt"), lore_url(&server, &database)).unwrap();
    std::fs::write(
        root.join("lore.yaml"),
        "connections:\n  shop:\n    driver: snowflake\n    url: file:sf-url.txt\n    schemas: [sales]\n    description: The shop on Snowflake\n",
    )
    .unwrap();
    let run = |args: &[&str]| {
        let output = lore_in(&root, args);
        assert_no_secret(&output);
        output
    };
    let text = |output: &std::process::Output| String::from_utf8_lossy(&output.stdout).to_string();

    let tested = run(&["connection", "test", "-c", "shop"]);
    assert!(
        tested.status.success(),
        "{}",
        String::from_utf8_lossy(&tested.stderr)
    );
    assert!(
        text(&tested).starts_with("ok    shop: Snowflake "),
        "{}",
        text(&tested)
    );
    assert!(
        text(&tested).contains("the guard checks every statement"),
        "{}",
        text(&tested)
    );

    let status = run(&["status"]);
    assert!(
        text(&status).contains("shop: Snowflake")
            && text(&status).contains("the guard checks every statement"),
        "{}",
        text(&status)
    );

    let scanned = run(&["scan", "-c", "shop"]);
    assert!(
        scanned.status.success(),
        "{}",
        String::from_utf8_lossy(&scanned.stderr)
    );

    let entity = run(&["entity", "sales.customers"]);
    assert!(
        entity.status.success(),
        "{}",
        String::from_utf8_lossy(&entity.stderr)
    );
    assert!(
        text(&entity).starts_with("SALES.CUSTOMERS (table, ~3 rows)"),
        "{}",
        text(&entity)
    );
    assert!(
        text(&entity).contains("Customers who bought something"),
        "{}",
        text(&entity)
    );

    let values = run(&["dictionary", "Acme Corp"]);
    assert!(
        text(&values).contains("SALES.CUSTOMERS") && text(&values).contains("NAME"),
        "{}",
        text(&values)
    );

    let rows = run(&[
        "sql",
        "-c",
        "shop",
        "--json",
        "SELECT NAME, SEGMENT FROM SALES.CUSTOMERS ORDER BY ID",
    ]);
    assert!(
        rows.status.success(),
        "{}",
        String::from_utf8_lossy(&rows.stderr)
    );
    let rows: Value = serde_json::from_slice(&rows.stdout).unwrap();
    assert_eq!(rows["headers"], json!(["NAME", "SEGMENT"]));
    assert_eq!(rows["rows"][0], json!(["Acme Corp", "Enterprise"]));

    let write = run(&["sql", "-c", "shop", "DELETE FROM SALES.ORDERS"]);
    assert!(!write.status.success());
    assert!(String::from_utf8_lossy(&write.stderr).contains("[read_only_violation]"));

    let generated = run(&["sl", "generate", "-c", "shop"]);
    assert!(
        generated.status.success(),
        "{}",
        String::from_utf8_lossy(&generated.stderr)
    );
    // Named as dbt users write them; the SQL still reads SALES.ORDERS.
    let orders_model =
        std::fs::read_to_string(root.join("semantic-layer/shop/orders.yaml")).unwrap();
    assert!(
        orders_model.contains("customer_id = customers.id")
            && orders_model.contains("table: sales.orders"),
        "{orders_model}"
    );
    // Orders per segment: the join fans out nothing it should not.
    let query = run(&[
        "sl",
        "query",
        "-c",
        "shop",
        "-m",
        "orders.count",
        "-m",
        "customers.count",
        "-d",
        "customers.segment",
        "--format",
        "json",
    ]);
    assert!(
        query.status.success(),
        "{}",
        String::from_utf8_lossy(&query.stderr)
    );
    let out: Value = serde_json::from_slice(&query.stdout).unwrap();
    let mut got: Vec<Value> = out["rows"].as_array().unwrap().clone();
    got.sort_by_key(|r| r[0].as_str().unwrap_or("").to_string());
    assert_eq!(
        got,
        vec![json!(["Enterprise", 2, 1]), json!(["SMB", 3, 2])],
        "{out}"
    );

    // The same through MCP.
    let client = stdio_client(&root).await;
    let listed = ok(&client, "connection_list", json!({})).await;
    assert_eq!(listed["connections"][0]["dialect"], "snowflake", "{listed}");
    let details = ok(
        &client,
        "entity_details",
        json!({"connectionId": "shop", "entities": ["SALES.ORDERS"]}),
    )
    .await;
    assert_eq!(details["entities"][0]["status"], "ok", "{details}");
    let found = ok(&client, "dictionary_search", json!({"values": ["Globex"]})).await;
    assert_eq!(
        found["results"][0]["matches"][0]["sourceName"], "SALES.CUSTOMERS",
        "{found}"
    );
    let sql = ok(&client, "sql_execution", json!({"connectionId": "shop", "sql": "SELECT SUM(AMOUNT) AS TOTAL FROM SALES.ORDERS WHERE STATUS = 'paid'"})).await;
    assert_eq!(sql["rows"][0][0], json!(165.75), "{sql}");
    let refused = call(
        &client,
        "sql_execution",
        json!({"connectionId": "shop", "sql": "SELECT * FROM @landing"}),
    )
    .await
    .unwrap();
    assert_eq!(error_of(&refused)["code"], "read_only_violation");
    // Snowflake folds unquoted names, and so does the semantic layer.
    let semantic = ok(&client, "sl_query", json!({"connectionId": "shop", "measures": ["ORDERS.count"], "dimensions": ["CUSTOMERS.NAME"]})).await;
    let lower = ok(&client, "sl_query", json!({"connectionId": "shop", "measures": ["orders.count"], "dimensions": ["customers.name"]})).await;
    assert_eq!(lower["rows"], semantic["rows"]);
    assert_eq!(
        semantic["rows"].as_array().map(Vec::len),
        Some(3),
        "{semantic}"
    );
    client.cancel().await.unwrap();
}
