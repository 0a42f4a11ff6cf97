//! The Snowflake connector against a local double of the REST endpoints
//! (`snowflake_double`), for what fakesnow never does: results split into
//! chunks on other URLs (JSON and Arrow, gzip or not, behind the SSE-C
//! key), queries that keep running (polling, statement timeouts, aborts,
//! a caller that goes away), refused logins, missing databases, expired
//! sessions, privileges a role lacks, and key-pair tokens verified with
//! the public key. Every failure says what to fix; no password, key or
//! session token reaches a message or a log line.

mod snowflake_double;

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use arrow_array::{Array, ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray, StructArray};
use arrow_schema::{DataType, Field, Schema};
use lore_core::config::{ConnectionConfig, Driver, LoreConfig, Secret};
use lore_core::error::{ErrorCode, HasErrorCode};
use lore_core::project::Project;
use lore_warehouse::execute::{Connector, Warehouses};
use serde_json::{Value, json};
use snowflake_double::{Answer, Config, Double, TOKEN_PREFIX, arrow_stream, base64, column};

const PASSWORD: &str = "right-password";

/// Everything every test here logs, at every level (the connector's
/// tracing events and the HTTP client's log records).
fn logs() -> &'static Mutex<Vec<u8>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        struct Writer(Arc<Mutex<Vec<u8>>>);
        impl Write for Writer {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let shared = Arc::clone(&buffer);
        let _ = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(move || Writer(Arc::clone(&shared)))
            .try_init();
        buffer
    })
}

fn project(
    dir: &std::path::Path,
    url: String,
    edit: impl FnOnce(&mut ConnectionConfig),
) -> Project {
    let mut connection = ConnectionConfig::new(Driver::Snowflake);
    connection.url = Some(Secret::new(url));
    connection.statement_timeout_ms = Some(5000);
    edit(&mut connection);
    let mut config = LoreConfig::default();
    config.connections.insert("sf".into(), connection);
    Project {
        root: dir.to_path_buf(),
        config,
        warnings: Vec::new(),
    }
}

fn connector(project: &Project) -> Arc<Connector> {
    Warehouses::for_project(project).get("sf").unwrap().1
}

async fn double_with(answers: Vec<(&str, Answer)>) -> Double {
    logs();
    let mut config = Config::default();
    for (sql, answer) in answers {
        config.answers.insert(sql.to_string(), answer);
    }
    Double::start(config).await
}

fn select_data(rowtype: Vec<Value>, rows: Value) -> Value {
    json!({"rowtype": rowtype, "rowset": rows, "queryResultFormat": "json", "statementTypeId": 4096, "total": 0})
}

#[tokio::test]
async fn json_results_are_read_across_chunks_only_as_far_as_needed() {
    let chunk = |from: i64| -> Vec<u8> {
        (from..from + 3)
            .map(|i| format!("[\"{i}\", \"row {i}\", \"{}.50\"]", i * 10))
            .collect::<Vec<_>>()
            .join(",")
            .into_bytes()
    };
    let double = double_with(vec![]).await;
    let data = json!({
        "rowtype": [column("N", "fixed", 38, 0), column("LABEL", "text", 0, 0), column("AMOUNT", "fixed", 10, 2)],
        "rowset": [["1", "row 1", "10.50"], ["2", "row 2", "20.50"]],
        "queryResultFormat": "json",
        "statementTypeId": 4096,
        "total": 11,
        "qrmk": "QRMK-KEY",
        "chunks": [
            {"url": double.chunk_url("c1"), "rowCount": 3, "uncompressedSize": 90, "compressedSize": 60},
            {"url": double.chunk_url("c2"), "rowCount": 3, "uncompressedSize": 90, "compressedSize": 90},
            {"url": double.chunk_url("c3"), "rowCount": 3, "uncompressedSize": 90, "compressedSize": 60},
        ],
    });
    double.configure(|c| {
        c.answers
            .insert("SELECT * FROM big".into(), Answer::Data(data));
        c.chunks.insert("c1".into(), (chunk(3), true));
        c.chunks.insert("c2".into(), (chunk(6), false));
        c.chunks.insert("c3".into(), (chunk(9), true));
    });
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&project(
        dir.path(),
        double.url(&format!("lore:{PASSWORD}"), "DB"),
        |_| {},
    ));

    let all = conn.run("SELECT * FROM big", 100).await.unwrap();
    assert_eq!(all.rows.len(), 11);
    assert!(!all.truncated);
    assert_eq!(all.rows[0], vec![json!(1), json!("row 1"), json!(10.5)]);
    assert_eq!(all.rows[10], vec![json!(11), json!("row 11"), json!(110.5)]);
    assert_eq!(all.header_types.as_deref().unwrap()[2], "NUMBER(10,2)");
    let downloaded = double.seen(|s| s.chunks.clone());
    assert_eq!(
        downloaded,
        ["c1", "c2", "c3"].map(|c| (c.to_string(), Some("QRMK-KEY".to_string()))),
        "every chunk, with the result's key"
    );

    // Four rows (one more than the cap of three) need the first chunk only.
    let capped = conn.run("SELECT * FROM big", 3).await.unwrap();
    assert_eq!(capped.rows.len(), 3);
    assert!(capped.truncated);
    assert_eq!(double.seen(|s| s.chunks.len()), 4);
}

#[tokio::test]
async fn arrow_results_are_decoded_with_their_snowflake_types() {
    let double = double_with(vec![]).await;
    let epoch = Int64Array::from(vec![1_709_214_301, 0]);
    let fraction = Int32Array::from(vec![250_000_000, 0]);
    let timestamp = StructArray::from(vec![
        (
            Arc::new(Field::new("epoch", DataType::Int64, false)),
            Arc::new(epoch) as ArrayRef,
        ),
        (
            Arc::new(Field::new("fraction", DataType::Int32, false)),
            Arc::new(fraction) as ArrayRef,
        ),
    ]);
    let schema = Arc::new(Schema::new(vec![
        Field::new("PRICE", DataType::Int64, true),
        Field::new("NOTE", DataType::Utf8, true),
        Field::new("AT", timestamp.data_type().clone(), true),
    ]));
    let first = RecordBatch::try_new(
        Arc::clone(&schema),
        vec![
            Arc::new(Int64Array::from(vec![Some(1250), None])),
            Arc::new(StringArray::from(vec![Some("first"), Some("second")])),
            Arc::new(timestamp.clone()),
        ],
    )
    .unwrap();
    let second = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(vec![Some(-5), Some(100)])),
            Arc::new(StringArray::from(vec![Some("third"), None])),
            Arc::new(timestamp),
        ],
    )
    .unwrap();
    let data = json!({
        "rowtype": [column("PRICE", "fixed", 10, 2), column("NOTE", "text", 0, 0), column("AT", "timestamp_ntz", 0, 9)],
        "rowsetBase64": base64(&arrow_stream(&first)),
        "queryResultFormat": "arrow",
        "statementTypeId": 4096,
        "chunkHeaders": {
            "x-amz-server-side-encryption-customer-algorithm": "AES256",
            "x-amz-server-side-encryption-customer-key": "QRMK-KEY",
        },
        "chunks": [{"url": double.chunk_url("a1"), "rowCount": 2, "uncompressedSize": 1, "compressedSize": 1}],
    });
    double.configure(|c| {
        c.answers
            .insert("SELECT * FROM prices".into(), Answer::Data(data));
        c.chunks.insert("a1".into(), (arrow_stream(&second), true));
    });
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&project(
        dir.path(),
        double.url(&format!("lore:{PASSWORD}"), "DB"),
        |_| {},
    ));
    let result = conn.run("SELECT * FROM prices", 10).await.unwrap();
    assert_eq!(
        result.rows,
        vec![
            vec![json!(12.5), json!("first"), json!("2024-02-29T13:45:01.25")],
            vec![json!(null), json!("second"), json!("1970-01-01T00:00:00")],
            vec![
                json!(-0.05),
                json!("third"),
                json!("2024-02-29T13:45:01.25")
            ],
            vec![json!(1.0), json!(null), json!("1970-01-01T00:00:00")],
        ]
    );
}

#[tokio::test]
async fn a_query_still_running_is_polled_until_it_answers() {
    let done = select_data(vec![column("N", "fixed", 38, 0)], json!([["7"]]));
    let double = double_with(vec![(
        "SELECT slow()",
        Answer::Running {
            polls: 2,
            then: done,
        },
    )])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&project(
        dir.path(),
        double.url(&format!("lore:{PASSWORD}"), "DB"),
        |_| {},
    ));
    let result = conn.run("SELECT slow()", 10).await.unwrap();
    assert_eq!(result.rows, vec![vec![json!(7)]]);
    assert_eq!(
        double.seen(|s| s.polls),
        3,
        "two 'in progress' answers, then the result"
    );
}

#[tokio::test]
async fn a_runaway_query_is_stopped_by_its_timeout_and_aborted() {
    let double = double_with(vec![("SELECT forever()", Answer::Endless)]).await;
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&project(
        dir.path(),
        double.url(&format!("lore:{PASSWORD}"), "DB"),
        |c| c.statement_timeout_ms = Some(1000),
    ));
    let err = conn.run("SELECT forever()", 10).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Timeout, "{err}");
    assert!(!err.retryable());
    let (request_id, body) = double.seen(|s| s.queries.last().cloned().unwrap());
    assert_eq!(
        body["parameters"]["STATEMENT_TIMEOUT_IN_SECONDS"], 1,
        "Snowflake stops it too"
    );
    // The abort request names the query's request id.
    let aborted = wait_for(|| {
        double.seen(|s| {
            s.aborts
                .iter()
                .any(|a| a["requestId"] == request_id.as_str())
        })
    })
    .await;
    assert!(aborted, "no abort-request for {request_id}");
}

#[tokio::test]
async fn a_caller_that_goes_away_aborts_its_query() {
    let double = double_with(vec![("SELECT forever()", Answer::Endless)]).await;
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&project(
        dir.path(),
        double.url(&format!("lore:{PASSWORD}"), "DB"),
        |_| {},
    ));
    let gave_up =
        tokio::time::timeout(Duration::from_millis(300), conn.run("SELECT forever()", 10)).await;
    assert!(gave_up.is_err(), "the query was still running");
    let sent = wait_for(|| double.seen(|s| !s.queries.is_empty())).await;
    assert!(sent);
    let request_id = double.seen(|s| s.queries[0].0.clone());
    let aborted = wait_for(|| {
        double.seen(|s| {
            s.aborts
                .iter()
                .any(|a| a["requestId"] == request_id.as_str())
        })
    })
    .await;
    assert!(aborted, "dropping the future sends an abort-request");
}

/// Polls `check` for up to ten seconds.
async fn wait_for(check: impl Fn() -> bool) -> bool {
    for _ in 0..200 {
        if check() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test]
async fn the_login_carries_the_session_settings_and_the_url_context() {
    let double = double_with(vec![(
        "SELECT 1",
        Answer::Data(select_data(
            vec![column("1", "fixed", 38, 0)],
            json!([["1"]]),
        )),
    )])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let url = format!(
        "{}&schemas=sales,%22Mixed%22",
        double.url(&format!("lore:{PASSWORD}"), "ANALYTICS")
    );
    let conn = connector(&project(dir.path(), url, |_| {}));
    conn.run("SELECT 1", 1).await.unwrap();
    let (query, body) = double.seen(|s| s.logins[0].clone());
    for part in [
        "databaseName=ANALYTICS",
        "schemaName=SALES",
        "warehouse=WH",
        "roleName=LORE_READER",
    ] {
        assert!(query.contains(part), "{query} lacks {part}");
    }
    let data = &body["data"];
    assert_eq!(data["ACCOUNT_NAME"], "acct");
    assert_eq!(data["LOGIN_NAME"], "lore");
    assert_eq!(data["CLIENT_APP_ID"], "Lore");
    let parameters = &data["SESSION_PARAMETERS"];
    assert_eq!(parameters["AUTOCOMMIT"], false);
    assert_eq!(parameters["TIMEZONE"], "UTC");
    assert_eq!(parameters["QUOTED_IDENTIFIERS_IGNORE_CASE"], false);
    assert_eq!(parameters["STATEMENT_TIMEOUT_IN_SECONDS"], 5);
    let (_, query_body) = double.seen(|s| s.queries[0].clone());
    assert_eq!(query_body["sqlText"], "SELECT 1");
    assert_eq!(query_body["sequenceId"], 1);
}

#[tokio::test]
async fn an_expired_session_is_replaced_transparently() {
    let double = double_with(vec![(
        "SELECT 1",
        Answer::Data(select_data(
            vec![column("1", "fixed", 38, 0)],
            json!([["1"]]),
        )),
    )])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let conn = connector(&project(
        dir.path(),
        double.url(&format!("lore:{PASSWORD}"), "DB"),
        |_| {},
    ));
    conn.run("SELECT 1", 1).await.unwrap();
    double.configure(|c| c.expire_next_query = true);
    let again = conn.run("SELECT 1", 1).await.unwrap();
    assert_eq!(again.rows, vec![vec![json!(1)]]);
    assert_eq!(double.seen(|s| s.logins.len()), 2, "one new login");
}

#[tokio::test]
async fn refused_logins_and_missing_objects_say_what_to_fix() {
    let double = double_with(vec![(
        "SELECT * FROM hr.salaries",
        Answer::Error {
            code: "003001",
            message: "SQL access control error: Insufficient privileges to operate on table 'SALARIES'",
        },
    )])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let wrong = "wrong-password-hunter2";
    let run = |url: String| {
        let conn = connector(&project(dir.path(), url, |_| {}));
        async move { conn.run("SELECT * FROM hr.salaries", 1).await.unwrap_err() }
    };

    let refused = run(double.url(&format!("lore:{wrong}"), "DB")).await;
    assert_eq!(refused.code(), ErrorCode::ConfigError, "{refused}");
    assert!(
        refused
            .to_string()
            .contains("Incorrect username or password"),
        "{refused}"
    );

    let no_database = {
        double.configure(|c| c.database_exists = false);
        let err = run(double.url(&format!("lore:{PASSWORD}"), "NO_SUCH_DB")).await;
        double.configure(|c| c.database_exists = true);
        err
    };
    assert_eq!(no_database.code(), ErrorCode::ConfigError, "{no_database}");
    assert!(
        no_database
            .to_string()
            .contains("`NO_SUCH_DB` does not exist"),
        "{no_database}"
    );

    let denied = run(double.url(&format!("lore:{PASSWORD}"), "DB")).await;
    assert_eq!(denied.code(), ErrorCode::Forbidden, "{denied}");
    assert!(denied.to_string().contains("SALARIES"), "{denied}");
    assert!(denied.to_string().contains("grant"), "{denied}");

    let unknown_account = {
        double.configure(|c| c.unknown_account = true);
        run(double.url(&format!("lore:{PASSWORD}"), "DB")).await
    };
    assert_eq!(
        unknown_account.code(),
        ErrorCode::ConfigError,
        "{unknown_account}"
    );
    assert!(
        unknown_account.to_string().contains("account identifier"),
        "{unknown_account}"
    );

    for err in [&refused, &no_database, &denied, &unknown_account] {
        for secret in [wrong, PASSWORD, TOKEN_PREFIX] {
            assert!(!err.to_string().contains(secret), "{err}");
            assert!(!format!("{err:?}").contains(secret), "{err:?}");
        }
    }
}

/// An RSA key made by openssl, its PKCS#1 public key and the fingerprint
/// Snowflake would show for it (`RSA_PUBLIC_KEY_FP`), both computed by
/// openssl rather than by Lore.
fn openssl_key(dir: &std::path::Path, name: &str) -> (std::path::PathBuf, Vec<u8>, String) {
    let key = dir.join(name);
    let openssl = |args: &[&str]| {
        let out = std::process::Command::new("openssl")
            .args(args)
            .output()
            .expect("openssl (Debian package openssl) makes the test keys");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let path = key.to_str().unwrap();
    openssl(&[
        "genpkey",
        "-algorithm",
        "RSA",
        "-pkeyopt",
        "rsa_keygen_bits:2048",
        "-out",
        path,
    ]);
    let pkcs1 = openssl(&["rsa", "-in", path, "-RSAPublicKey_out", "-outform", "DER"]);
    let spki = openssl(&["pkey", "-in", path, "-pubout", "-outform", "DER"]);
    let digest = ring::digest::digest(&ring::digest::SHA256, &spki);
    use base64::Engine;
    let fingerprint = format!(
        "SHA256:{}",
        base64::engine::general_purpose::STANDARD.encode(digest)
    );
    (key, pkcs1, fingerprint)
}

#[tokio::test]
async fn key_pair_logins_send_a_jwt_the_public_key_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let (key, public_key, fingerprint) = openssl_key(dir.path(), "lore.p8");
    let (other_key, _, _) = openssl_key(dir.path(), "other.p8");
    let double = double_with(vec![(
        "SELECT 1",
        Answer::Data(select_data(
            vec![column("1", "fixed", 38, 0)],
            json!([["1"]]),
        )),
    )])
    .await;
    double.configure(|c| c.public_key = Some((public_key, fingerprint.clone())));
    let keyed = |key: &std::path::Path| {
        let key = key.file_name().unwrap().to_str().unwrap().to_string();
        project(dir.path(), double.url("lore_user", "DB"), |c| {
            c.private_key = Some(Secret::new(format!("file:{key}")));
        })
    };
    let result = connector(&keyed(&key)).run("SELECT 1", 1).await.unwrap();
    assert_eq!(result.rows, vec![vec![json!(1)]]);
    let claims = double.seen(|s| s.jwt_claims[0].clone());
    assert_eq!(claims["sub"], "ACCT.LORE_USER");
    assert_eq!(claims["iss"], format!("ACCT.LORE_USER.{fingerprint}"));
    let lifetime = claims["exp"].as_u64().unwrap() - claims["iat"].as_u64().unwrap();
    assert!((1..=3600).contains(&lifetime), "{claims}");
    let (_, login) = double.seen(|s| s.logins[0].clone());
    assert_eq!(login["data"]["AUTHENTICATOR"], "SNOWFLAKE_JWT");
    assert!(login["data"].get("PASSWORD").is_none());

    // Another key: refused, with the fingerprint to compare.
    let err = connector(&keyed(&other_key))
        .run("SELECT 1", 1)
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::ConfigError, "{err}");
    assert!(err.to_string().contains("RSA_PUBLIC_KEY_FP"), "{err}");
    let pem = std::fs::read_to_string(&other_key).unwrap();
    let body_line = pem.lines().nth(1).unwrap();
    assert!(!err.to_string().contains(body_line), "{err}");

    // A key file that is not a key.
    std::fs::write(
        dir.path().join("broken.p8"),
        "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n",
    )
    .unwrap();
    let err = connector(&keyed(&dir.path().join("broken.p8")))
        .run("SELECT 1", 1)
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::ConfigError, "{err}");
    assert!(err.to_string().contains("openssl genpkey"), "{err}");
}

/// Run last in its own test so that the other tests' logs are in too.
#[tokio::test]
async fn no_secret_reaches_the_logs() {
    let dir = tempfile::tempdir().unwrap();
    let (key, public_key, fingerprint) = openssl_key(dir.path(), "k.p8");
    let double = double_with(vec![
        (
            "SELECT 1",
            Answer::Data(select_data(
                vec![column("1", "fixed", 38, 0)],
                json!([["1"]]),
            )),
        ),
        ("SELECT forever()", Answer::Endless),
    ])
    .await;
    let secret = "hunter2-in-the-url";
    let failed = connector(&project(
        dir.path(),
        double.url(&format!("lore:{secret}"), "DB"),
        |_| {},
    ))
    .run("SELECT 1", 1)
    .await;
    assert!(failed.is_err());
    let conn = connector(&project(
        dir.path(),
        double.url(&format!("lore:{PASSWORD}"), "DB"),
        |c| c.statement_timeout_ms = Some(1000),
    ));
    conn.run("SELECT 1", 1).await.unwrap();
    assert!(conn.run("SELECT forever()", 1).await.is_err());
    double.configure(|c| c.public_key = Some((public_key, fingerprint)));
    let keyed = project(dir.path(), double.url("lore", "DB"), |c| {
        c.private_key = Some(Secret::new("file:k.p8"))
    });
    connector(&keyed).run("SELECT 1", 1).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;

    let text = String::from_utf8_lossy(&logs().lock().unwrap()).to_string();
    assert!(
        text.contains("snowflake session opened"),
        "the logs were captured: {text}"
    );
    let pem = std::fs::read_to_string(&key).unwrap();
    let key_line = pem.lines().nth(1).unwrap();
    for forbidden in [
        secret,
        PASSWORD,
        TOKEN_PREFIX,
        key_line,
        "eyJhbGciOiJSUzI1NiIs",
    ] {
        assert!(!text.contains(forbidden), "`{forbidden}` is in the logs");
    }
}
