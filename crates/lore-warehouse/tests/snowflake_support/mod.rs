//! Scratch databases on a Snowflake-protocol server (fakesnow in CI).
//!
//! `LORE_TEST_SNOWFLAKE_URL` names the server as a Lore url
//! (`snowflake://USER:PASSWORD@ACCOUNT/DATABASE?host=…&port=…&protocol=http`);
//! each test gets its own database (fakesnow creates it at login). Setup
//! statements go through a small client of their own — the same REST
//! protocol, autocommit on — never through Lore's connector. Unset, the
//! tests print a notice and pass, unless `LORE_REQUIRE_SERVERS=1`.

#![allow(dead_code)]

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use base64::Engine;
use lore_core::config::{ConnectionConfig, Driver, LoreConfig, Secret};
use lore_core::project::Project;
use serde_json::{Value, json};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// The server URL, or `None` with a notice when unset (a failure when
/// `LORE_REQUIRE_SERVERS=1`).
pub fn server_url(test: &str) -> Option<String> {
    const VAR: &str = "LORE_TEST_SNOWFLAKE_URL";
    match std::env::var(VAR) {
        Ok(url) => Some(url),
        Err(_) if std::env::var("LORE_REQUIRE_SERVERS").is_ok_and(|v| v == "1") => {
            panic!("{test}: LORE_REQUIRE_SERVERS=1 but {VAR} is unset")
        }
        Err(_) => {
            eprintln!(
                "notice: {test} skipped: set {VAR} to run it against a Snowflake-protocol server (fakesnow -s)"
            );
            None
        }
    }
}

/// A database made for one test.
pub struct Scratch {
    /// Lore's url for it.
    pub url: String,
    /// Its name (upper case, as Snowflake stores it).
    pub database: String,
    /// `http://host:port` of the server.
    base: String,
    token: String,
}

/// `url` with its database replaced.
pub fn with_database(url: &str, database: &str) -> String {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let at = base.rfind('@').expect("a user in the url") + 1;
    let account_end = base[at..].find('/').map(|i| at + i).unwrap_or(base.len());
    let mut out = format!("{}/{database}", &base[..account_end]);
    if !query.is_empty() {
        out.push('?');
        out.push_str(query);
    }
    out
}

/// `http://host:port` from the url's host, port and protocol parameters.
fn base_of(url: &str) -> String {
    let query = url.split_once('?').map(|(_, q)| q).unwrap_or("");
    let mut host = "127.0.0.1".to_string();
    let mut port = "443".to_string();
    let mut protocol = "https".to_string();
    for pair in query.split('&') {
        match pair.split_once('=') {
            Some(("host", v)) => host = v.to_string(),
            Some(("port", v)) => port = v.to_string(),
            Some(("protocol", v)) => protocol = v.to_string(),
            _ => {}
        }
    }
    format!("{protocol}://{host}:{port}")
}

/// A fresh database on the server, or `None` when the server is not set.
pub fn scratch(test: &str) -> Option<Scratch> {
    let url = server_url(test)?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let database = format!(
        "LORE_T{}_{}_{nanos}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    );
    let base = base_of(&url);
    let token = login(&base, &database);
    Some(Scratch {
        url: with_database(&url, &database),
        database,
        base,
        token,
    })
}

fn login(base: &str, database: &str) -> String {
    let answer = post(
        &format!("{base}/session/v1/login-request?databaseName={database}&schemaName=PUBLIC"),
        None,
        json!({"data": {"ACCOUNT_NAME": "admin", "LOGIN_NAME": "admin", "PASSWORD": "admin",
                        "SESSION_PARAMETERS": {"AUTOCOMMIT": true}}}),
    );
    answer["data"]["token"]
        .as_str()
        .expect("the setup login answers a token")
        .to_string()
}

fn post(url: &str, token: Option<&str>, body: Value) -> Value {
    let mut request = ureq::post(url).header("Content-Type", "application/json");
    if let Some(token) = token {
        request = request.header("Authorization", format!("Snowflake Token=\"{token}\""));
    }
    let mut response = request
        .send(body.to_string().as_bytes())
        .unwrap_or_else(|e| panic!("setup request to {url}: {e}"));
    serde_json::from_slice(&response.body_mut().read_to_vec().unwrap()).unwrap()
}

impl Scratch {
    fn query(&self, sql: &str) -> Value {
        post(
            &format!(
                "{}/queries/v1/query-request?requestId={}",
                self.base,
                uuid::Uuid::new_v4()
            ),
            Some(&self.token),
            json!({"sqlText": sql, "sequenceId": 1, "asyncExec": false}),
        )
    }

    /// Runs setup statements with full privileges (not through Lore).
    pub fn setup(&self, statements: &[&str]) {
        for statement in statements {
            let answer = self.query(statement);
            // fakesnow applies COMMENT ON COLUMN, then fails to describe it.
            let tolerated = statement
                .to_ascii_uppercase()
                .starts_with("COMMENT ON COLUMN");
            assert!(
                answer["success"] == true || tolerated,
                "{statement}: {}",
                answer["message"]
            );
        }
    }

    /// The first value of the first row of `sql`, as text, read by the
    /// setup client (not through Lore).
    pub fn scalar(&self, sql: &str) -> String {
        let answer = self.query(sql);
        assert_eq!(answer["success"], true, "{sql}: {}", answer["message"]);
        let data = &answer["data"];
        if let Some(rows) = data["rowset"].as_array() {
            return rows[0][0].as_str().unwrap_or_default().to_string();
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(data["rowsetBase64"].as_str().unwrap())
            .unwrap();
        let mut reader = arrow_ipc::reader::StreamReader::try_new(bytes.as_slice(), None).unwrap();
        let batch = reader.next().unwrap().unwrap();
        let column = batch.column(0);
        use arrow_array::Array;
        use arrow_array::cast::AsArray;
        use arrow_array::types::{Int32Type, Int64Type};
        match column.data_type() {
            arrow_schema::DataType::Int64 => {
                column.as_primitive::<Int64Type>().value(0).to_string()
            }
            arrow_schema::DataType::Int32 => {
                column.as_primitive::<Int32Type>().value(0).to_string()
            }
            arrow_schema::DataType::Utf8 => column.as_string::<i32>().value(0).to_string(),
            other => panic!("{sql}: a scalar of type {other}"),
        }
    }

    /// A project in `dir` whose connection `id` is this database.
    pub fn project(
        &self,
        dir: &Path,
        id: &str,
        edit: impl FnOnce(&mut ConnectionConfig),
    ) -> Project {
        let mut connection = ConnectionConfig::new(Driver::Snowflake);
        connection.url = Some(Secret::new(self.url.clone()));
        edit(&mut connection);
        let mut config = LoreConfig::default();
        config.connections.insert(id.to_string(), connection);
        Project {
            root: dir.to_path_buf(),
            config,
            warnings: Vec::new(),
        }
    }
}
