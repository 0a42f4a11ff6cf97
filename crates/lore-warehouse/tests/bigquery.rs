//! The BigQuery connector against the double (`lore_warehouse::bigquery_double`):
//! service-account auth, dry runs against the bytes-billed budget, paging,
//! types, cancel on timeout and drop, errors with stable codes and no
//! secrets, `lore scan` of a dataset, and every request and answer checked
//! against Google's discovery document.
//!
//! No BigQuery emulator runs on Lore's machines: this is a double speaking
//! the REST shapes, not the real service.

use std::path::Path;
use std::time::Duration;

use lore_core::config::{ConnectionConfig, Driver, LoreConfig, Secret};
use lore_core::error::{ErrorCode, HasErrorCode};
use lore_core::project::Project;
use lore_warehouse::bigquery_double::BigqueryDouble;
use lore_warehouse::connector::bigquery::rest;
use lore_warehouse::execute::{Connector, Warehouses};
use lore_warehouse::scan::profile::ProfileArtifact;
use lore_warehouse::scan::relationships::{
    RelationshipKind, RelationshipStatus, RelationshipsArtifact,
};
use lore_warehouse::scan::{ScanOverrides, Silent, scan_connection};
use lore_warehouse::schema::TableKind;
use lore_warehouse::snapshot;
use serde_json::json;

fn project(dir: &Path, url: String, edit: impl FnOnce(&mut ConnectionConfig)) -> Project {
    let mut connection = ConnectionConfig::new(Driver::Bigquery);
    connection.url = Some(Secret::new(url));
    connection.credentials = Some(Secret::new("file:key.json"));
    edit(&mut connection);
    let mut config = LoreConfig::default();
    config.connections.insert("bq".into(), connection);
    Project {
        root: dir.to_path_buf(),
        config,
        warnings: Vec::new(),
    }
}

/// A project with one connection `bq` to the double, its key in key.json.
fn setup(double: &BigqueryDouble, extra: &str) -> (tempfile::TempDir, Project) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("key.json"), double.key_json()).unwrap();
    let project = project(dir.path(), double.url(extra), |_| {});
    (dir, project)
}

fn connector(project: &Project) -> std::sync::Arc<Connector> {
    Warehouses::for_project(project).get("bq").unwrap().1
}

/// No private key, access token or signed assertion in `text`.
fn assert_no_secret(double: &BigqueryDouble, text: &str) {
    let pem = BigqueryDouble::private_key_pem();
    let key_body = pem.lines().nth(1).unwrap();
    assert!(!text.contains(key_body), "the private key leaked: {text}");
    for token in double.issued_tokens() {
        assert!(!text.contains(&token), "an access token leaked: {text}");
    }
    assert!(!text.contains("eyJ"), "a JWT leaked: {text}");
}

#[tokio::test]
async fn rows_are_paged_until_the_row_cap_and_the_cap_is_honest() {
    let double = BigqueryDouble::start();
    double.set_page_rows(4);
    let (_dir, project) = setup(&double, "");
    let connector = connector(&project);
    let some = connector
        .run("SELECT n, label FROM shop.page_me ORDER BY n", 10)
        .await
        .unwrap();
    assert_eq!(some.rows.len(), 10);
    assert!(some.truncated);
    assert_eq!(some.rows[9], vec![json!(10), json!("row 10")]);
    let all = connector
        .run("SELECT n FROM shop.page_me ORDER BY n", 100)
        .await
        .unwrap();
    assert_eq!(all.rows.len(), 25);
    assert!(!all.truncated);
    assert_eq!(all.rows[24], vec![json!(25)]);
    let pages: Vec<_> = double
        .exchanges()
        .into_iter()
        .filter(|e| e.call == "jobs.getQueryResults")
        .collect();
    assert!(pages.len() >= 6, "25 rows in pages of 4: {}", pages.len());
    assert!(
        pages
            .iter()
            .all(|p| p.parameters.iter().any(|(k, _)| k == "pageToken")),
        "pages after the first are asked for by token"
    );
    assert_eq!(all.bytes_processed, Some(2 * 1024 * 1024));
    assert!(double.violations().is_empty(), "{:#?}", double.violations());
}

#[tokio::test]
async fn values_arrive_as_lossless_json_by_their_bigquery_type() {
    let double = BigqueryDouble::start();
    let (_dir, project) = setup(&double, "");
    let connector = connector(&project);
    let orders = connector
        .run(
            "SELECT id, amount, weight_kg, paid, placed_at, placed_on, picked_at, receipt FROM shop.orders WHERE id = 1",
            10,
        )
        .await
        .unwrap();
    assert_eq!(
        orders.rows[0],
        vec![
            json!(1),
            json!("120.5"),
            json!(1.25),
            json!(true),
            json!("2025-01-05T10:00:00Z"),
            json!("2025-01-05"),
            json!("2025-01-05T11:30:00"),
            json!({"$base64": "AP8="}),
        ]
    );
    assert_eq!(
        orders.header_types.unwrap(),
        [
            "INT64",
            "NUMERIC",
            "FLOAT64",
            "BOOL",
            "TIMESTAMP",
            "DATE",
            "DATETIME",
            "BYTES"
        ]
    );
    let customers = connector
        .run(
            "SELECT id, signed_up_at, tags, address FROM shop.customers WHERE id IN (1, 4, 5) ORDER BY id",
            10,
        )
        .await
        .unwrap();
    assert_eq!(
        customers.rows,
        vec![
            vec![
                json!(1),
                json!("2024-01-10T09:00:00Z"),
                json!(["b2b", "eu"]),
                json!({"city": "Berlin", "zip": "10115"})
            ],
            vec![
                json!(4),
                json!("2024-05-01T12:00:00Z"),
                json!(["eu"]),
                serde_json::Value::Null
            ],
            vec![
                json!(5),
                json!("2024-06-01T18:45:30.25Z"),
                json!([]),
                json!({"city": "Palo Alto", "zip": null})
            ],
        ]
    );
    assert_eq!(
        customers.header_types.unwrap()[2..],
        ["ARRAY<STRING>", "STRUCT<city STRING, zip STRING>"]
    );
    let queries: Vec<_> = double
        .exchanges()
        .into_iter()
        .filter(|e| e.call == "jobs.query")
        .collect();
    let real = queries
        .iter()
        .find(|e| e.request.as_ref().unwrap()["dryRun"] == false)
        .unwrap();
    let request = real.request.as_ref().unwrap();
    assert_eq!(request["useLegacySql"], false);
    assert_eq!(request["maximumBytesBilled"], "1073741824");
    assert_eq!(request["formatOptions"]["useInt64Timestamp"], true);
    assert_eq!(request["jobTimeoutMs"], "30000");
    assert!(double.violations().is_empty(), "{:#?}", double.violations());
}

#[tokio::test]
async fn a_query_over_the_bytes_billed_budget_is_refused_before_it_runs() {
    let double = BigqueryDouble::start();
    let (_dir, project) = setup(&double, "");
    let err = connector(&project)
        .run("SELECT url FROM shop.clickstream", 10)
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::BudgetExceeded, "{err}");
    let message = err.to_string();
    assert!(message.contains("5 TiB"), "{message}");
    assert!(message.contains("maximum_bytes_billed"), "{message}");
    assert!(message.contains("1 GiB"), "{message}");
    let ran: Vec<_> = double
        .exchanges()
        .into_iter()
        .filter(|e| e.call == "jobs.query" && e.request.as_ref().unwrap()["dryRun"] == false)
        .collect();
    assert!(ran.is_empty(), "only the dry run reached BigQuery");
    assert!(!err.retryable());
}

#[tokio::test]
async fn bigquery_itself_stops_a_job_that_would_bill_more_than_the_budget() {
    let double = BigqueryDouble::start();
    // Orders process 2 MiB, within 3 MiB; BigQuery bills at least 10 MB.
    let (_dir, project) = setup(&double, "maximum_bytes_billed=3MiB");
    let err = connector(&project)
        .run("SELECT id FROM shop.orders", 10)
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::BudgetExceeded, "{err}");
    assert!(
        err.to_string().contains("BigQuery stopped the query"),
        "{err}"
    );
    let refused = double
        .exchanges()
        .into_iter()
        .find(|e| e.status == 400)
        .unwrap();
    assert_eq!(
        refused.response["error"]["errors"][0]["reason"],
        "bytesBilledLimitExceeded"
    );
}

#[tokio::test]
async fn the_statement_timeout_stops_the_job_on_bigquery() {
    let double = BigqueryDouble::start();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("key.json"), double.key_json()).unwrap();
    let project = project(dir.path(), double.url(""), |c| {
        c.statement_timeout_ms = Some(400)
    });
    let err = connector(&project)
        .run("SELECT x FROM slow.sleepy", 10)
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Timeout, "{err}");
    assert!(err.to_string().contains("statement_timeout_ms"), "{err}");
    let job = double
        .exchanges()
        .into_iter()
        .find(|e| e.call == "jobs.query" && e.request.as_ref().unwrap()["dryRun"] == false)
        .unwrap();
    assert_eq!(
        job.request.unwrap()["jobTimeoutMs"],
        "400",
        "BigQuery is told to stop the job itself"
    );
}

#[tokio::test]
async fn dropping_the_query_cancels_the_job() {
    let double = BigqueryDouble::start();
    let (_dir, project) = setup(&double, "");
    let connector = connector(&project);
    let running = tokio::spawn(async move { connector.run("SELECT x FROM slow.sleepy", 10).await });
    // Wait until BigQuery has answered with the job's id (the answer is
    // recorded just before it is sent), give the driver a moment to read
    // it, then walk away from the job.
    for _ in 0..1200 {
        if double
            .exchanges()
            .iter()
            .any(|e| e.call == "jobs.query" && e.request.as_ref().unwrap()["dryRun"] == false)
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    running.abort();
    let mut cancelled = Vec::new();
    for _ in 0..1200 {
        cancelled = double.cancelled_jobs();
        if !cancelled.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let calls: Vec<_> = double
        .exchanges()
        .iter()
        .map(|e| (e.call.clone(), e.status))
        .collect();
    assert_eq!(
        cancelled.len(),
        1,
        "jobs.cancel was sent for the running job: {calls:?}"
    );
    assert!(double.violations().is_empty(), "{:#?}", double.violations());
}

#[tokio::test]
async fn failures_have_stable_codes_fix_it_messages_and_no_secrets() {
    let double = BigqueryDouble::start();
    let (dir, project) = setup(&double, "");
    let good = connector(&project);
    // Warm up: a token is issued, so a leak of it would show.
    good.run("SELECT 1", 1).await.unwrap();

    let mut seen = Vec::new();
    let mut expect = |err: lore_warehouse::error::WarehouseError, code: ErrorCode, says: &str| {
        let text = format!("{err} {err:?}");
        assert_eq!(err.code(), code, "{text}");
        assert!(text.contains(says), "{says}: {text}");
        seen.push(text);
    };

    // A write that slipped past the guard: the service account may not.
    let err = good
        .run("DELETE FROM shop.orders WHERE TRUE", 1)
        .await
        .unwrap_err();
    expect(err, ErrorCode::Forbidden, "BigQuery Job User");
    // The guard refuses it first.
    let err = Warehouses::for_project(&project)
        .prepare("bq", "DELETE FROM shop.orders WHERE TRUE")
        .unwrap_err();
    expect(err, ErrorCode::ReadOnlyViolation, "DELETE");
    let err = good.run("SELECT * FROM hr.salaries", 1).await.unwrap_err();
    expect(err, ErrorCode::Forbidden, "BigQuery Data Viewer");
    let err = good
        .run("SELECT nope FROM shop.orders", 1)
        .await
        .unwrap_err();
    expect(err, ErrorCode::InvalidSql, "nope");
    let err = good.run("SELECT 1 FROM shop.missing", 1).await.unwrap_err();
    expect(
        err,
        ErrorCode::InvalidSql,
        "Not found: Table lore-double:shop.missing",
    );

    // A project that does not exist.
    let wrong_project = double
        .url("")
        .replace("bigquery://lore-double", "bigquery://no-such-project");
    let p = self::project(dir.path(), wrong_project, |_| {});
    let err = connector(&p).run("SELECT 1", 1).await.unwrap_err();
    expect(
        err,
        ErrorCode::ConfigError,
        "does not know project `no-such-project`",
    );

    // A key file that is not one.
    std::fs::write(
        dir.path().join("bad.json"),
        "{\"type\": \"authorized_user\"}",
    )
    .unwrap();
    let p = self::project(dir.path(), double.url(""), |c| {
        c.credentials = Some(Secret::new("file:bad.json"))
    });
    let err = connector(&p).run("SELECT 1", 1).await.unwrap_err();
    expect(err, ErrorCode::ConfigError, "service account");
    let p = self::project(dir.path(), double.url(""), |c| {
        c.credentials = Some(Secret::new("file:absent.json"))
    });
    let err = connector(&p).run("SELECT 1", 1).await.unwrap_err();
    expect(err, ErrorCode::ConfigError, "absent.json");

    // A url that does not parse.
    let p = self::project(
        dir.path(),
        format!("{}&maximum_bytes_billed=lots", double.url("")),
        |_| {},
    );
    let err = connector(&p).run("SELECT 1", 1).await.unwrap_err();
    expect(err, ErrorCode::ConfigError, "maximum_bytes_billed");

    // The token endpoint refuses the key (revoked, deleted).
    double.refuse_tokens(true);
    let fresh = connector(&project);
    let err = fresh.run("SELECT 1", 1).await.unwrap_err();
    expect(err, ErrorCode::ConfigError, "invalid_grant");
    double.refuse_tokens(false);

    // Nothing answers at the endpoint.
    let p = self::project(
        dir.path(),
        "bigquery://lore-double?endpoint=http%3A%2F%2F127.0.0.1%3A9%2Fbigquery%2Fv2".to_string(),
        |_| {},
    );
    let err = connector(&p).run("SELECT 1", 1).await.unwrap_err();
    expect(err, ErrorCode::UpstreamError, "127.0.0.1:9");

    for text in &seen {
        assert_no_secret(&double, text);
    }
    assert!(double.violations().is_empty(), "{:#?}", double.violations());
}

#[tokio::test]
async fn the_connection_test_checks_the_project_and_the_accounts_write_permissions() {
    let double = BigqueryDouble::start();
    let (_dir, project) = setup(&double, "datasets=shop,sl&location=US");
    let info = connector(&project).server_info().await.unwrap();
    assert!(info.read_only, "{info:?}");
    assert!(
        info.version.contains("project lore-double"),
        "{}",
        info.version
    );
    assert!(
        info.version.contains("1 GiB billed per query"),
        "{}",
        info.version
    );
    assert!(
        info.version
            .contains("no write permission on the 2 table(s)"),
        "{}",
        info.version
    );
    assert_eq!(info.encrypted, Some(false), "the double is plain http");
    double.grant_write("shop.clickstream");
    let info = connector(&project).server_info().await.unwrap();
    assert!(!info.read_only, "{info:?}");
    assert!(
        info.version.contains("shop.clickstream"),
        "{}",
        info.version
    );
    assert!(
        info.version.contains("Data Viewer and Job User"),
        "{}",
        info.version
    );
    assert!(double.violations().is_empty(), "{:#?}", double.violations());
}

#[tokio::test]
async fn without_datasets_every_dataset_the_account_sees_is_read() {
    let double = BigqueryDouble::start();
    let (_dir, project) = setup(&double, "");
    let connector = connector(&project);
    let Connector::Bigquery(bigquery) = connector.as_ref() else {
        panic!("a bigquery connector");
    };
    let names: Vec<String> = bigquery
        .datasets()
        .await
        .unwrap()
        .into_iter()
        .map(|d| d.dataset)
        .collect();
    assert_eq!(
        names,
        ["shop", "sl", "slow"],
        "hr is not visible to the account"
    );
}

#[tokio::test]
async fn schemas_in_lore_yaml_choose_the_datasets_a_scan_reads() {
    let double = BigqueryDouble::start();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("key.json"), double.key_json()).unwrap();
    let project = project(dir.path(), double.url("datasets=shop"), |c| {
        c.schemas = Some(vec!["sl".into()])
    });
    let warehouses = Warehouses::for_project(&project);
    let overrides = ScanOverrides {
        profile: Some(false),
        relationships: Some(false),
        ..ScanOverrides::default()
    };
    let report = scan_connection(&project, &warehouses, "bq", &overrides, &Silent)
        .await
        .unwrap();
    let tables = snapshot::read_tables(&project.root.join(&report.snapshot_path)).unwrap();
    assert!(
        tables.iter().all(|t| t.db.as_deref() == Some("sl")),
        "{tables:?}"
    );
    assert_eq!(tables.len(), 5);
}

#[tokio::test]
async fn a_scan_reads_tables_views_columns_descriptions_keys_profiles_and_relationships() {
    let double = BigqueryDouble::start();
    let (_dir, project) = setup(&double, "datasets=shop");
    let warehouses = Warehouses::for_project(&project);
    let report = scan_connection(
        &project,
        &warehouses,
        "bq",
        &ScanOverrides::default(),
        &Silent,
    )
    .await
    .unwrap();
    let dir = project.root.join(&report.snapshot_path);
    let tables = snapshot::read_tables(&dir).unwrap();
    let names: Vec<String> = tables.iter().map(|t| t.table_ref().display()).collect();
    assert_eq!(
        names,
        [
            "shop.clickstream",
            "shop.customers",
            "shop.order_items",
            "shop.orders",
            "shop.page_me",
            "shop.paid_orders"
        ]
    );
    let table = |name: &str| tables.iter().find(|t| t.name == name).unwrap();
    let customers = table("customers");
    assert_eq!(
        customers.comment.as_deref(),
        Some("People and companies that buy from the shop")
    );
    assert_eq!(customers.estimated_rows, Some(5));
    assert_eq!(customers.primary_key(), ["id"]);
    let segment = customers.column("segment").unwrap();
    assert_eq!(
        segment.comment.as_deref(),
        Some("Pricing tier: smb or enterprise")
    );
    assert_eq!(segment.native_type, "STRING");
    assert_eq!(segment.normalized_type, "text");
    let address = customers.column("address").unwrap();
    assert_eq!(address.native_type, "STRUCT<city STRING, zip STRING>");
    assert_eq!(customers.column("tags").unwrap().normalized_type, "array");
    assert!(!customers.column("id").unwrap().nullable);
    let orders = table("orders");
    assert_eq!(
        orders.column("placed_at").unwrap().normalized_type,
        "timestamptz"
    );
    assert_eq!(orders.column("amount").unwrap().normalized_type, "decimal");
    assert_eq!(orders.foreign_keys.len(), 1);
    let fk = &orders.foreign_keys[0];
    assert_eq!(
        (
            fk.from_column.as_str(),
            fk.to_db.as_deref(),
            fk.to_table.as_str(),
            fk.to_column.as_str()
        ),
        ("customer_id", Some("shop"), "customers", "id")
    );
    assert_eq!(table("paid_orders").kind, TableKind::View);

    let profile: ProfileArtifact = snapshot::read_json(&dir.join(snapshot::PROFILE_FILE)).unwrap();
    let profiled = |name: &str| profile.tables.iter().find(|t| t.name == name).unwrap();
    let segment = profiled("customers")
        .columns
        .iter()
        .find(|c| c.name == "segment")
        .unwrap();
    assert!(segment.dictionary);
    assert_eq!(segment.null_count, 1);
    assert_eq!(segment.top_values.len(), 2);
    let amount = profiled("orders")
        .columns
        .iter()
        .find(|c| c.name == "amount")
        .unwrap();
    // NUMERIC is exact text on BigQuery; the double types aggregates by
    // their values, so either spelling of the number is accepted here.
    let number = |v: &Option<serde_json::Value>| match v {
        Some(serde_json::Value::String(s)) => s.parse::<f64>().ok(),
        Some(other) => other.as_f64(),
        None => None,
    };
    assert_eq!(number(&amount.min_value), Some(15.0));
    assert_eq!(number(&amount.max_value), Some(500.0));
    let tags = profiled("customers")
        .columns
        .iter()
        .find(|c| c.name == "tags")
        .unwrap();
    assert_eq!(
        tags.distinct_count, 4,
        "arrays are told apart by their JSON"
    );
    let click = profiled("clickstream");
    let error = click.error.as_deref().unwrap();
    assert!(error.contains("maximum_bytes_billed"), "{error}");

    let found: RelationshipsArtifact =
        snapshot::read_json(&dir.join(snapshot::RELATIONSHIPS_FILE)).unwrap();
    let from = |table: &str, column: &str| {
        found
            .relationships
            .iter()
            .find(|r| r.from.table == table && r.from.columns == [column])
            .unwrap_or_else(|| panic!("{table}.{column}: {:#?}", found.relationships))
    };
    assert_eq!(from("orders", "customer_id").kind, RelationshipKind::Formal);
    let items = from("order_items", "order_id");
    assert_eq!(items.kind, RelationshipKind::Inferred);
    assert_eq!(items.status, RelationshipStatus::Accepted, "{items:#?}");
    assert_eq!(items.to.table, "orders");
    assert!(double.violations().is_empty(), "{:#?}", double.violations());
}

/// Every field the driver reads is a field of Google's schema, with its
/// type: the driver's answer types filled completely, as JSON, checked
/// against the discovery document. (What the driver sends is checked on
/// every request by the double.)
#[test]
fn every_field_the_driver_reads_is_in_the_discovery_document() {
    let double = BigqueryDouble::start();
    let field = rest::FieldSchema {
        name: "a".into(),
        kind: "RECORD".into(),
        mode: Some("REPEATED".into()),
        fields: vec![rest::FieldSchema {
            name: "b".into(),
            kind: "INTEGER".into(),
            mode: None,
            fields: Vec::new(),
        }],
    };
    let error = rest::ErrorProto {
        reason: Some("invalidQuery".into()),
        message: Some("m".into()),
        location: Some("query".into()),
    };
    let answer = rest::QueryAnswer {
        job_complete: Some(true),
        job_reference: Some(rest::JobReference {
            project_id: Some("p".into()),
            job_id: Some("j".into()),
            location: Some("EU".into()),
        }),
        schema: Some(rest::TableSchema {
            fields: vec![field],
        }),
        rows: Some(vec![json!({"f": [{"v": "1"}]})]),
        page_token: Some("t".into()),
        total_rows: Some("1".into()),
        total_bytes_processed: Some("10".into()),
        total_bytes_billed: Some("10".into()),
        errors: Some(vec![error.clone()]),
    };
    let mut as_json = serde_json::to_value(&answer).unwrap();
    let mut problems = double.check_schema("QueryResponse", &as_json);
    as_json.as_object_mut().unwrap().remove("totalBytesBilled");
    problems.extend(double.check_schema("GetQueryResultsResponse", &as_json));
    let datasets = rest::DatasetList {
        datasets: vec![rest::DatasetListItem {
            dataset_reference: rest::DatasetReference {
                dataset_id: "d".into(),
                project_id: Some("p".into()),
            },
            location: Some("EU".into()),
        }],
        next_page_token: Some("t".into()),
    };
    problems.extend(double.check_schema("DatasetList", &serde_json::to_value(&datasets).unwrap()));
    let tables = rest::TableList {
        tables: vec![rest::TableListItem {
            table_reference: rest::TableReference {
                project_id: "p".into(),
                dataset_id: "d".into(),
                table_id: "t".into(),
            },
        }],
    };
    problems.extend(double.check_schema("TableList", &serde_json::to_value(&tables).unwrap()));
    let granted = rest::Permissions {
        permissions: vec!["bigquery.tables.get".into()],
    };
    problems.extend(double.check_schema(
        "TestIamPermissionsResponse",
        &serde_json::to_value(&granted).unwrap(),
    ));
    assert!(problems.is_empty(), "{problems:#?}");
    assert_eq!(double.discovery_revision(), "20261009");
}

/// The real service, when `LORE_TEST_BIGQUERY_URL` (a `bigquery://` url)
/// and `LORE_TEST_BIGQUERY_CREDENTIALS` (a key file) are set: the
/// connection test and one query that processes no bytes. No real
/// BigQuery is reachable from Lore's CI, so this is skipped there even
/// with `LORE_REQUIRE_SERVERS=1`.
#[tokio::test]
async fn the_real_service_answers_when_configured() {
    let (Ok(url), Ok(key)) = (
        std::env::var("LORE_TEST_BIGQUERY_URL"),
        std::env::var("LORE_TEST_BIGQUERY_CREDENTIALS"),
    ) else {
        eprintln!(
            "notice: the_real_service_answers_when_configured skipped: set LORE_TEST_BIGQUERY_URL and LORE_TEST_BIGQUERY_CREDENTIALS to run it against BigQuery"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let project = project(dir.path(), url, |c| {
        c.credentials = Some(Secret::new(format!("file:{key}")))
    });
    let connector = connector(&project);
    let info = connector.server_info().await.unwrap();
    assert!(info.version.starts_with("BigQuery"), "{info:?}");
    let result = connector
        .run("SELECT 1 AS one, CURRENT_TIMESTAMP() AS now", 1)
        .await
        .unwrap();
    assert_eq!(result.rows[0][0], json!(1));
    assert!(result.rows[0][1].as_str().unwrap().ends_with('Z'));
}
