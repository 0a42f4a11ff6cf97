//! Scratch databases for connector tests.
//!
//! PostgreSQL and MariaDB tests run when `LORE_TEST_POSTGRES_URL` /
//! `LORE_TEST_MYSQL_URL` point at a server where the user may create
//! databases; each test gets its own database (and MySQL a second one for
//! cross-schema keys), dropped when the test ends. When a variable is
//! unset the test prints a notice and passes without running.

#![allow(dead_code)]

pub mod clickhouse;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use lore_core::config::{ConnectionConfig, Driver, LoreConfig, Secret};
use lore_core::project::Project;

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A database created for one test.
pub struct ScratchDb {
    /// The driver.
    pub driver: Driver,
    /// URL of the scratch database (for Lore's connection).
    pub url: String,
    /// Its name.
    pub name: String,
    /// A second scratch database (MySQL), for cross-schema foreign keys.
    pub second: Option<String>,
    admin_url: String,
}

fn unique_name() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "lore_t{}_{}_{nanos}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    )
}

/// `url` with its database (path) replaced by `database`.
pub fn with_database(url: &str, database: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let scheme_end = base.find("://").map(|i| i + 3).unwrap_or(0);
    let host_end = base[scheme_end..]
        .find('/')
        .map(|i| scheme_end + i)
        .unwrap_or(base.len());
    let mut out = format!("{}/{database}", &base[..host_end]);
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    out
}

/// The server URL in `var`, or `None` with a notice when it is unset —
/// unless `LORE_REQUIRE_SERVERS=1` (what `.ci/run` sets when the local
/// servers answer), where a missing server fails the test instead of
/// letting it pass unrun.
pub fn server_url(var: &str, test: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(url) => Some(url),
        Err(_) if std::env::var("LORE_REQUIRE_SERVERS").is_ok_and(|v| v == "1") => {
            panic!("{test}: LORE_REQUIRE_SERVERS=1 but {var} is unset")
        }
        Err(_) => {
            eprintln!("notice: {test} skipped: set {var} to run it against a real server");
            None
        }
    }
}

/// A scratch PostgreSQL database, or `None` (with a notice) when
/// `LORE_TEST_POSTGRES_URL` is unset.
pub async fn postgres(test: &str) -> Option<ScratchDb> {
    let admin_url = server_url("LORE_TEST_POSTGRES_URL", test)?;
    let name = unique_name();
    let admin = pg_client(&admin_url).await;
    admin
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .await
        .expect("create scratch database");
    Some(ScratchDb {
        driver: Driver::Postgres,
        url: with_database(&admin_url, &name),
        name,
        second: None,
        admin_url,
    })
}

/// A scratch MySQL/MariaDB database (plus a second one), or `None` (with a
/// notice) when `LORE_TEST_MYSQL_URL` is unset.
pub async fn mysql(test: &str) -> Option<ScratchDb> {
    let admin_url = server_url("LORE_TEST_MYSQL_URL", test)?;
    let name = unique_name();
    let second = format!("{name}_b");
    let mut admin = mysql_async::Conn::from_url(&admin_url)
        .await
        .expect("connect to LORE_TEST_MYSQL_URL");
    use mysql_async::prelude::Queryable;
    for db in [&name, &second] {
        admin
            .query_drop(format!("CREATE DATABASE {db}"))
            .await
            .expect("create scratch database");
    }
    let _ = admin.disconnect().await;
    Some(ScratchDb {
        driver: Driver::Mysql,
        url: with_database(&admin_url, &name),
        name,
        second: Some(second),
        admin_url,
    })
}

async fn pg_client(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("connect to LORE_TEST_POSTGRES_URL");
    tokio::spawn(async move {
        let _ = connection.await;
    });
    client
}

impl ScratchDb {
    /// Runs setup statements with full privileges (not through Lore).
    pub async fn setup(&self, statements: &[&str]) {
        match self.driver {
            Driver::Postgres => {
                let client = pg_client(&self.url).await;
                for statement in statements {
                    client
                        .batch_execute(statement)
                        .await
                        .unwrap_or_else(|e| panic!("{statement}: {e}"));
                }
            }
            Driver::Mysql => {
                use mysql_async::prelude::Queryable;
                let mut conn = mysql_async::Conn::from_url(&self.url).await.unwrap();
                for statement in statements {
                    conn.query_drop(*statement)
                        .await
                        .unwrap_or_else(|e| panic!("{statement}: {e}"));
                }
                let _ = conn.disconnect().await;
            }
            Driver::Clickhouse => {
                for statement in statements {
                    clickhouse::exec(&self.url, statement)
                        .unwrap_or_else(|e| panic!("{statement}: {e}"));
                }
            }
            Driver::Sqlite | Driver::Snowflake | Driver::Bigquery | Driver::Duckdb => {
                unreachable!("scratch databases are PostgreSQL, MySQL or ClickHouse")
            }
        }
    }

    /// Counts rows with a privileged session (not through Lore).
    pub async fn count(&self, sql: &str) -> i64 {
        match self.driver {
            Driver::Postgres => {
                let client = pg_client(&self.url).await;
                client.query_one(sql, &[]).await.unwrap().get::<_, i64>(0)
            }
            Driver::Mysql => {
                use mysql_async::prelude::Queryable;
                let mut conn = mysql_async::Conn::from_url(&self.url).await.unwrap();
                let n: Option<i64> = conn.query_first(sql).await.unwrap();
                let _ = conn.disconnect().await;
                n.unwrap_or(0)
            }
            Driver::Clickhouse => clickhouse::exec(&self.url, sql)
                .unwrap()
                .trim()
                .parse()
                .unwrap(),
            Driver::Sqlite | Driver::Snowflake | Driver::Bigquery | Driver::Duckdb => {
                unreachable!()
            }
        }
    }

    /// The first column of the first row of `sql` as text, read with a
    /// privileged session (not through Lore).
    pub async fn text(&self, sql: &str) -> Option<String> {
        match self.driver {
            Driver::Postgres => {
                let client = pg_client(&self.url).await;
                client
                    .query_one(sql, &[])
                    .await
                    .unwrap()
                    .get::<_, Option<String>>(0)
            }
            Driver::Mysql => {
                use mysql_async::prelude::Queryable;
                let mut conn = mysql_async::Conn::from_url(&self.url).await.unwrap();
                let value: Option<Option<String>> = conn.query_first(sql).await.unwrap();
                let _ = conn.disconnect().await;
                value.flatten()
            }
            Driver::Clickhouse => clickhouse::exec(&self.url, sql)
                .ok()
                .map(|t| t.trim_end_matches('\n').to_string()),
            Driver::Sqlite | Driver::Snowflake | Driver::Bigquery | Driver::Duckdb => {
                unreachable!()
            }
        }
    }

    /// This database's url with query parameters added (`"sslmode=require"`).
    pub fn url_with(&self, params: &str) -> String {
        let separator = if self.url.contains('?') { '&' } else { '?' };
        format!("{}{separator}{params}", self.url)
    }

    /// A project in `dir` whose connection `id` is this database, with
    /// `edit` applied to its configuration.
    pub fn project(
        &self,
        dir: &Path,
        id: &str,
        edit: impl FnOnce(&mut ConnectionConfig),
    ) -> Project {
        let mut connection = ConnectionConfig::new(self.driver);
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

impl Drop for ScratchDb {
    fn drop(&mut self) {
        let driver = self.driver;
        let admin_url = self.admin_url.clone();
        let mut names = vec![self.name.clone()];
        names.extend(self.second.clone());
        // Dropping runs on its own thread and runtime: the test's runtime
        // may be shutting down.
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                match driver {
                    Driver::Postgres => {
                        let client = pg_client(&admin_url).await;
                        for name in names {
                            let _ = client
                                .batch_execute(&format!(
                                    "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                                ))
                                .await;
                        }
                    }
                    Driver::Mysql => {
                        use mysql_async::prelude::Queryable;
                        if let Ok(mut conn) = mysql_async::Conn::from_url(&admin_url).await {
                            for name in names {
                                let _ = conn
                                    .query_drop(format!("DROP DATABASE IF EXISTS {name}"))
                                    .await;
                            }
                            let _ = conn.disconnect().await;
                        }
                    }
                    Driver::Clickhouse => clickhouse::drop_databases(&admin_url, &names),
                    Driver::Sqlite | Driver::Snowflake | Driver::Bigquery | Driver::Duckdb => {}
                }
            });
        })
        .join();
    }
}

/// The shared scan fixture, as statements for `driver`. `sales` is the main
/// schema (SQLite: the only one); `billing` holds a table whose foreign key
/// crosses into `sales` (servers only; DuckDB has the table without the key).
pub fn fixture(driver: Driver, sales: &str, billing: &str) -> Vec<String> {
    let (int, text, ts) = match driver {
        Driver::Clickhouse => return clickhouse::fixture(sales, billing),
        Driver::Mysql => ("INT", "VARCHAR(100)", "DATETIME"),
        Driver::Postgres => ("INTEGER", "TEXT", "TIMESTAMP"),
        Driver::Sqlite | Driver::Bigquery => ("INTEGER", "TEXT", "TEXT"),
        Driver::Snowflake => ("INTEGER", "VARCHAR(100)", "TIMESTAMP_NTZ"),
        Driver::Duckdb => ("INTEGER", "VARCHAR", "TIMESTAMP"),
    };
    let q = |table: &str| match driver {
        Driver::Sqlite => table.to_string(),
        _ => format!("{sales}.{table}"),
    };
    let comment = |text: &str| match driver {
        Driver::Mysql => format!(" COMMENT '{text}'"),
        _ => String::new(),
    };
    let mut statements = vec![
        format!(
            "CREATE TABLE {} ( -- Customers who bought something\n  id {int} PRIMARY KEY,\n  name {text} NOT NULL,\n  segment {text} NOT NULL{}, -- SMB | Enterprise\n  email {text}\n){}",
            q("customers"),
            comment("SMB | Enterprise"),
            comment("Customers who bought something")
        ),
        format!(
            "CREATE TABLE {} (id {int} PRIMARY KEY, code {text} NOT NULL)",
            q("promos")
        ),
        format!(
            "CREATE TABLE {} (\n  id {int} PRIMARY KEY,\n  customer_id {int} NOT NULL,\n  promo_id {int},\n  status {text} NOT NULL,\n  amount_cents {int} NOT NULL{}, -- in cents\n  created_at {ts} NOT NULL\n)",
            q("orders"),
            comment("in cents")
        ),
        format!(
            "CREATE TABLE {} (order_id {int} NOT NULL REFERENCES {}(id), line_no {int} NOT NULL, sku {text} NOT NULL, PRIMARY KEY (order_id, line_no))",
            q("order_lines"),
            q("orders")
        ),
        format!(
            "CREATE TABLE {} (order_id {int} NOT NULL, line_no {int} NOT NULL, shipped_at {ts}, \
             CONSTRAINT shipments_line_fk FOREIGN KEY (order_id, line_no) REFERENCES {}(order_id, line_no))",
            q("shipments"),
            q("order_lines")
        ),
        format!(
            "CREATE VIEW {} AS SELECT c.id, c.name, count(*) AS orders FROM {} c JOIN {} o ON o.customer_id = c.id GROUP BY c.id, c.name",
            q("big_customers"),
            q("customers"),
            q("orders")
        ),
        format!(
            "INSERT INTO {} VALUES (1, 'Acme Corp', 'Enterprise', 'ops@acme.test'), (2, 'Globex', 'SMB', 'hi@globex.test'), \
             (3, 'Initech', 'SMB', NULL), (4, 'Umbrella', 'Enterprise', 'x@umbrella.test'), (5, 'Hooli', 'SMB', NULL)",
            q("customers")
        ),
        format!(
            "INSERT INTO {} VALUES (1, 'SPRING'), (2, 'SUMMER'), (3, 'FALL')",
            q("promos")
        ),
    ];
    let mut orders = Vec::new();
    for i in 1..=20 {
        let customer = (i % 5) + 1;
        let promo = if i % 2 == 0 {
            format!("{}", 900 + i % 6)
        } else {
            "NULL".into()
        };
        let status = ["paid", "paid", "refunded", "Paid"][i % 4];
        orders.push(format!(
            "({i}, {customer}, {promo}, '{status}', {}, '2024-0{}-1{} 10:00:00')",
            i * 1000,
            1 + i % 9,
            i % 10
        ));
    }
    statements.push(format!(
        "INSERT INTO {} VALUES {}",
        q("orders"),
        orders.join(", ")
    ));
    statements.push(format!(
        "INSERT INTO {} VALUES (1, 1, 'A-1'), (1, 2, 'B-2'), (2, 1, 'A-1')",
        q("order_lines")
    ));
    statements.push(format!(
        "INSERT INTO {} VALUES (1, 1, '2024-02-01 09:00:00'), (2, 1, NULL)",
        q("shipments")
    ));
    match driver {
        Driver::Postgres | Driver::Duckdb => {
            statements.insert(0, format!("CREATE SCHEMA {sales}"));
            statements.push(format!(
                "COMMENT ON TABLE {sales}.customers IS 'Customers who bought something'"
            ));
            statements.push(format!(
                "COMMENT ON COLUMN {sales}.customers.segment IS 'SMB | Enterprise'"
            ));
            statements.push(format!(
                "COMMENT ON COLUMN {sales}.orders.amount_cents IS 'in cents'"
            ));
            statements.push(format!("CREATE SCHEMA {billing}"));
        }
        Driver::Mysql
        | Driver::Sqlite
        | Driver::Clickhouse
        | Driver::Snowflake
        | Driver::Bigquery => {}
    }
    if driver != Driver::Sqlite {
        // DuckDB keeps a foreign key within its schema.
        let cross_schema_key = if driver == Driver::Duckdb {
            String::new()
        } else {
            format!(
                ", CONSTRAINT invoices_customer_fk FOREIGN KEY (customer_id) REFERENCES {sales}.customers(id)"
            )
        };
        statements.push(format!(
            "CREATE TABLE {billing}.invoices (id {int} PRIMARY KEY, customer_id {int} NOT NULL{cross_schema_key})"
        ));
        statements.push(format!(
            "INSERT INTO {billing}.invoices VALUES (1, 1), (2, 2)"
        ));
        // Same name in two schemas: an unqualified `big_customers` is ambiguous.
        statements.push(format!(
            "CREATE VIEW {billing}.big_customers AS SELECT id FROM {sales}.customers"
        ));
    }
    if driver == Driver::Postgres {
        // Statistics, as a warehouse that has been running would have.
        statements.push(format!("ANALYZE {sales}.customers"));
    }
    statements
}
