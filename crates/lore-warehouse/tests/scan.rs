//! `lore scan` against real databases: the same fixture (composite keys, a
//! composite foreign key, a view, comments, an undeclared relationship, a
//! false one, and on servers a cross-schema foreign key) scanned on SQLite
//! always, on PostgreSQL and MariaDB when their URLs are set, and on a
//! DuckDB file in builds with the `duckdb` feature.

mod common;

use std::path::Path;

use lore_core::config::{ConnectionConfig, Driver, LoreConfig};
use lore_core::project::Project;
use std::sync::Arc;

use lore_warehouse::catalog::{
    Catalog, DictionaryStatus, EntityErrorCode, EntityRequest, MissReason, TableQuery,
    dictionary_search, entity_details,
};
use lore_warehouse::execute::Warehouses;
use lore_warehouse::scan::profile::ProfileArtifact;
use lore_warehouse::scan::relationships::{
    MIN_CONFIDENCE, RelationshipKind, RelationshipStatus, RelationshipsArtifact,
};
use lore_warehouse::scan::{ScanOverrides, ScanReport, Silent, scan_connection};
use lore_warehouse::schema::{DimensionType, SchemaTable, TableKind};
use lore_warehouse::snapshot::{self, ConnectionManifest};

/// What a fixture scan produced.
struct Scanned {
    project: Project,
    report: ScanReport,
    tables: Vec<SchemaTable>,
    sales: Option<String>,
    billing: Option<String>,
}

impl Scanned {
    fn table(&self, db: Option<&str>, name: &str) -> &SchemaTable {
        self.tables
            .iter()
            .find(|t| t.db.as_deref() == db && t.name == name)
            .unwrap_or_else(|| panic!("{db:?}.{name} missing from {:?}", self.names()))
    }

    fn names(&self) -> Vec<String> {
        self.tables
            .iter()
            .map(|t| t.table_ref().display())
            .collect()
    }

    fn snapshot_dir(&self) -> std::path::PathBuf {
        self.project.root.join(&self.report.snapshot_path)
    }
}

fn sqlite_project(dir: &Path) -> Project {
    let path = dir.join("w.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    for statement in common::fixture(Driver::Sqlite, "main", "main") {
        conn.execute_batch(&statement)
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    let mut connection = ConnectionConfig::new(Driver::Sqlite);
    connection.path = Some(path.display().to_string());
    let mut config = LoreConfig::default();
    config.connections.insert("w".into(), connection);
    Project {
        root: dir.to_path_buf(),
        config,
        warnings: Vec::new(),
    }
}

async fn scan(project: &Project) -> ScanReport {
    let warehouses = Warehouses::for_project(project);
    scan_connection(
        project,
        &warehouses,
        "w",
        &ScanOverrides::default(),
        &Silent,
    )
    .await
    .unwrap()
}

async fn scanned(project: Project, sales: Option<String>, billing: Option<String>) -> Scanned {
    let report = scan(&project).await;
    let tables = snapshot::read_tables(&project.root.join(&report.snapshot_path)).unwrap();
    Scanned {
        project,
        report,
        tables,
        sales,
        billing,
    }
}

/// Everything the fixture scan must show, whatever the driver.
fn assert_structure(s: &Scanned) {
    let sales = s.sales.as_deref();
    let customers = s.table(sales, "customers");
    assert_eq!(customers.kind, TableKind::Table);
    assert_eq!(
        customers.comment.as_deref(),
        Some("Customers who bought something")
    );
    let segment = customers.column("segment").unwrap();
    assert_eq!(segment.comment.as_deref(), Some("SMB | Enterprise"));
    assert_eq!(segment.dimension_type, DimensionType::String);
    assert!(!segment.nullable);
    assert!(customers.column("email").unwrap().nullable);
    let id = customers.column("id").unwrap();
    assert!(id.primary_key && id.unique);
    assert_eq!(id.normalized_type, "integer");
    assert_eq!(id.dimension_type, DimensionType::Number);
    assert_eq!(customers.estimated_rows, Some(5));

    let orders = s.table(sales, "orders");
    assert_eq!(
        orders.column("amount_cents").unwrap().comment.as_deref(),
        Some("in cents")
    );
    // Timestamps are time dimensions (on SQLite, text found to hold ISO dates).
    assert_eq!(
        orders.column("created_at").unwrap().dimension_type,
        DimensionType::Time
    );

    let lines = s.table(sales, "order_lines");
    assert_eq!(lines.primary_key(), ["order_id", "line_no"]);
    assert!(
        !lines.column("order_id").unwrap().unique,
        "part of a composite key only"
    );
    assert_eq!(lines.foreign_keys.len(), 1);
    assert_eq!(lines.foreign_keys[0].to_table, "orders");
    assert_eq!(lines.foreign_keys[0].to_column, "id");

    let shipments = s.table(sales, "shipments");
    let pairs: Vec<(&str, &str)> = shipments
        .foreign_keys
        .iter()
        .map(|f| (f.from_column.as_str(), f.to_column.as_str()))
        .collect();
    assert_eq!(pairs, [("order_id", "order_id"), ("line_no", "line_no")]);
    assert!(
        shipments
            .foreign_keys
            .iter()
            .all(|f| f.to_table == "order_lines")
    );
    assert_eq!(
        shipments.foreign_keys[0].constraint_name, shipments.foreign_keys[1].constraint_name,
        "one composite constraint"
    );

    let view = s.table(sales, "big_customers");
    assert_eq!(view.kind, TableKind::View);
    assert_eq!(view.columns.len(), 3);

    if let Some(billing) = s.billing.as_deref() {
        let invoices = s.table(Some(billing), "invoices");
        let fk = &invoices.foreign_keys[0];
        assert_eq!(
            fk.to_db.as_deref(),
            sales,
            "the cross-schema target keeps its schema"
        );
        assert_eq!(fk.to_table, "customers");
        assert_eq!(fk.constraint_name.as_deref(), Some("invoices_customer_fk"));
    }
}

fn assert_profiles_and_relationships(s: &Scanned) {
    let dir = s.snapshot_dir();
    let profile: ProfileArtifact = snapshot::read_json(&dir.join(snapshot::PROFILE_FILE)).unwrap();
    let table = |name: &str| {
        profile
            .tables
            .iter()
            .find(|t| t.name == name && t.db.as_deref() == s.sales.as_deref())
            .unwrap_or_else(|| panic!("no profile of {name}"))
    };
    let orders = table("orders");
    assert_eq!(orders.sampled_rows, 20);
    let status = orders.columns.iter().find(|c| c.name == "status").unwrap();
    assert!(status.dictionary);
    assert_eq!(
        status.distinct_count, 3,
        "case differences are distinct values"
    );
    assert_eq!(status.top_values[0].value, "paid");
    assert_eq!(status.top_values[0].count, 10);
    let promo = orders
        .columns
        .iter()
        .find(|c| c.name == "promo_id")
        .unwrap();
    assert_eq!(promo.null_count, 10);
    assert_eq!(promo.distinct_count, 3);
    assert!(!promo.dictionary);
    let amount = orders
        .columns
        .iter()
        .find(|c| c.name == "amount_cents")
        .unwrap();
    assert_eq!(amount.min_value, Some(serde_json::json!(1000)));
    assert_eq!(amount.max_value, Some(serde_json::json!(20000)));

    let customers = table("customers");
    let name = customers.columns.iter().find(|c| c.name == "name").unwrap();
    assert!(name.values().any(|v| v == "Acme Corp"), "{name:?}");
    assert_eq!(name.max_length, Some(9));
    let email = customers
        .columns
        .iter()
        .find(|c| c.name == "email")
        .unwrap();
    assert!(!email.dictionary);
    assert_eq!(
        email.dictionary_excluded_by.as_deref(),
        Some("name rule `*email*`")
    );
    assert!(email.top_values.is_empty(), "emails are never kept");

    let found: RelationshipsArtifact =
        snapshot::read_json(&dir.join(snapshot::RELATIONSHIPS_FILE)).unwrap();
    let find = |table: &str, column: &str| {
        found
            .relationships
            .iter()
            .find(|r| r.from.table == table && r.from.columns == [column])
            .unwrap_or_else(|| {
                panic!(
                    "no relationship from {table}.{column}: {:#?}",
                    found.relationships
                )
            })
    };
    let inferred = find("orders", "customer_id");
    assert_eq!(inferred.kind, RelationshipKind::Inferred);
    assert_eq!(inferred.status, RelationshipStatus::Accepted);
    assert_eq!(inferred.to.table, "customers");
    assert_eq!(inferred.to.columns, ["id"]);
    let evidence = inferred.evidence.as_ref().unwrap();
    assert_eq!((evidence.child_distinct, evidence.matched), (5, 5));
    assert_eq!(evidence.parent_unique_by.as_deref(), Some("primary key"));
    assert!(
        (MIN_CONFIDENCE..1.0).contains(&inferred.confidence),
        "inferred keys rank below declared ones: {}",
        inferred.confidence
    );

    let rejected = find("orders", "promo_id");
    assert_eq!(rejected.status, RelationshipStatus::Rejected);
    let reason = rejected.evidence.as_ref().unwrap().reason.clone().unwrap();
    assert_eq!(reason, "only 0 of 3 sampled values exist in promos.id");

    let formal = find("order_lines", "order_id");
    assert_eq!(formal.kind, RelationshipKind::Formal);
    assert_eq!(formal.confidence, 1.0);
    let composite = found
        .relationships
        .iter()
        .find(|r| r.from.table == "shipments")
        .unwrap();
    assert_eq!(composite.from.columns, ["order_id", "line_no"]);
    // DuckDB declares no key across schemas: billing.invoices' customer_id
    // is inferred there (see the DuckDB test), declared elsewhere.
    let accepted = if s.report.driver == "duckdb" { 2 } else { 1 };
    assert_eq!(s.report.relationships.accepted, accepted);
    assert_eq!(s.report.relationships.rejected, 1);
}

fn request(table: &str, columns: Option<&[&str]>) -> EntityRequest {
    EntityRequest {
        table: TableQuery::parse(table).unwrap(),
        columns: columns.map(|c| c.iter().map(|s| s.to_string()).collect()),
    }
}

/// What agents read: entity details with their error cases, and values.
fn assert_catalog(s: &Scanned, catalog: &Catalog) {
    let snapshot = catalog.latest("w").unwrap().expect("scanned");
    assert_eq!(snapshot.manifest.sync_id, s.report.sync_id);
    let again = catalog.latest("w").unwrap().unwrap();
    assert!(
        Arc::ptr_eq(&snapshot, &again),
        "an unchanged snapshot is not read again"
    );
    let qualify = |name: &str| match &s.sales {
        Some(db) => format!("{db}.{name}"),
        None => name.to_string(),
    };
    let results = entity_details(
        "w",
        Some(&snapshot),
        &[
            request(&qualify("customers"), None),
            request(&qualify("orders"), Some(&["status", "stauts"])),
            request("custmers", None),
        ],
    );
    let customers = results[0].entity.as_ref().unwrap();
    assert_eq!(results[0].status, "ok");
    assert_eq!(customers.display, qualify("customers"));
    assert_eq!(customers.snapshot.sync_id, s.report.sync_id);
    let segment = customers
        .columns
        .iter()
        .find(|c| c.name == "segment")
        .unwrap();
    let stats = segment.stats.as_ref().unwrap();
    assert_eq!(stats.distinct_count, 2);
    assert_eq!(stats.sample_values, ["SMB", "Enterprise"]);
    let incoming: Vec<(&str, &str)> = customers
        .relationships
        .iter()
        .map(|r| (r.direction.as_str(), r.other_table.as_str()))
        .collect();
    assert!(
        incoming.contains(&("incoming", qualify("orders").as_str())),
        "{incoming:?}"
    );

    assert_eq!(results[1].status, "partial");
    let orders = results[1].entity.as_ref().unwrap();
    assert_eq!(orders.columns.len(), 1, "only the requested columns");
    let to_customers = orders
        .relationships
        .iter()
        .find(|r| r.direction == "outgoing")
        .expect("the inferred key to customers");
    assert_eq!(to_customers.other_table, qualify("customers"));
    assert_eq!(to_customers.kind, RelationshipKind::Inferred);
    assert!(
        orders
            .relationships
            .iter()
            .any(|r| r.direction == "incoming" && r.kind == RelationshipKind::Formal),
        "order_lines declares a key to orders"
    );
    let error = results[1].error.as_ref().unwrap();
    assert_eq!(error.code, EntityErrorCode::ColumnNotFound);
    assert_eq!(error.candidates, ["status"]);

    assert_eq!(results[2].status, "error");
    let error = results[2].error.as_ref().unwrap();
    assert_eq!(error.code, EntityErrorCode::TableNotFound);
    assert!(
        error.candidates.contains(&qualify("customers")),
        "{error:?}"
    );

    if s.billing.is_some() {
        let ambiguous = entity_details("w", Some(&snapshot), &[request("big_customers", None)]);
        let error = ambiguous[0].error.as_ref().unwrap();
        assert_eq!(error.code, EntityErrorCode::AmbiguousTable);
        assert_eq!(error.candidates.len(), 2, "{error:?}");
        // The structured form picks one.
        let structured = EntityRequest {
            table: TableQuery {
                catalog: None,
                db: s.billing.clone(),
                name: "big_customers".into(),
            },
            columns: None,
        };
        assert_eq!(
            entity_details("w", Some(&snapshot), &[structured])[0].status,
            "ok"
        );
    }

    let missing = entity_details("other", None, &[request("customers", None)]);
    let error = missing[0].error.as_ref().unwrap();
    assert_eq!(error.code, EntityErrorCode::ScanMissing);
    assert_eq!(error.command.as_deref(), Some("lore scan other"));

    let (searched, results) = dictionary_search(
        &[
            ("w".to_string(), Some(snapshot)),
            ("other".to_string(), None),
        ],
        &["acme".to_string(), "Wonka".to_string()],
        20,
    );
    assert_eq!(searched[0].status, DictionaryStatus::Ready);
    assert_eq!(searched[0].coverage.sampled_rows, Some(10_000));
    assert_eq!(searched[1].status, DictionaryStatus::NoProfileArtifact);
    let acme = &results[0];
    // The base table first, then the view built on it.
    assert_eq!(acme.matches.len(), 2, "{acme:?}");
    assert_eq!(acme.matches[1].source_name, qualify("big_customers"));
    assert!(acme.matches[1].is_view);
    assert_eq!(acme.matches[0].source_name, qualify("customers"));
    assert_eq!(acme.matches[0].column_name, "name");
    assert_eq!(acme.matches[0].matched_value, "Acme Corp");
    assert_eq!(acme.matches[0].match_type, "prefix");
    assert_eq!(acme.misses.len(), 1);
    assert_eq!(acme.misses[0].reason, MissReason::NoProfileArtifact);
    let wonka = &results[1];
    assert!(wonka.matches.is_empty());
    assert_eq!(wonka.misses[0].reason, MissReason::ValueNotInSample);
}

/// A second scan is a new snapshot with a diff; the first stays as it was;
/// the catalog serves the new one on its next call.
async fn assert_rescan_diff(s: &Scanned) {
    let catalog = Catalog::new(&s.project.root);
    assert_catalog(s, &catalog);
    let first_dir = s.snapshot_dir();
    let first_manifest = std::fs::read(first_dir.join(snapshot::CONNECTION_FILE)).unwrap();
    let second = scan(&s.project).await;
    assert_ne!(second.sync_id, s.report.sync_id);
    assert!(second.sync_id > s.report.sync_id, "sync ids sort by time");
    assert_eq!(
        second.previous_sync_id.as_deref(),
        Some(s.report.sync_id.as_str())
    );
    let added = match &s.sales {
        Some(db) => format!("{db}.audit_log"),
        None => "audit_log".to_string(),
    };
    assert_eq!(second.diff.tables_added, [added]);
    assert_eq!(second.diff_summary.tables_added, 1);
    assert_eq!(second.diff_summary.tables_deleted, 0);
    assert_eq!(
        std::fs::read(first_dir.join(snapshot::CONNECTION_FILE)).unwrap(),
        first_manifest,
        "snapshots are immutable"
    );
    let manifest: ConnectionManifest = snapshot::read_json(
        &s.project
            .root
            .join(&second.snapshot_path)
            .join(snapshot::CONNECTION_FILE),
    )
    .unwrap();
    assert_eq!(manifest.table_count, s.tables.len() + 1);
    let fresh = catalog.latest("w").unwrap().unwrap();
    assert_eq!(fresh.manifest.sync_id, second.sync_id);
    let found = entity_details("w", Some(&fresh), &[request("audit_log", None)]);
    assert_eq!(found[0].status, "ok", "{:?}", found[0].error);
}

#[tokio::test]
async fn sqlite_scan_reads_structure_profiles_and_relationships() {
    let dir = tempfile::tempdir().unwrap();
    let s = scanned(sqlite_project(dir.path()), None, None).await;
    assert_eq!(s.names().len(), 6, "{:?}", s.names());
    assert_structure(&s);
    assert_profiles_and_relationships(&s);
    rusqlite::Connection::open(dir.path().join("w.db"))
        .unwrap()
        .execute_batch("CREATE TABLE audit_log (id INTEGER PRIMARY KEY, note TEXT)")
        .unwrap();
    assert_rescan_diff(&s).await;
}

#[tokio::test]
async fn postgres_scan_reads_structure_profiles_and_relationships() {
    let Some(db) =
        common::postgres("postgres_scan_reads_structure_profiles_and_relationships").await
    else {
        return;
    };
    let statements = common::fixture(Driver::Postgres, "sales", "billing");
    db.setup(&statements.iter().map(String::as_str).collect::<Vec<_>>())
        .await;
    let dir = tempfile::tempdir().unwrap();
    let project = db.project(dir.path(), "w", |_| {});
    let s = scanned(project, Some("sales".into()), Some("billing".into())).await;
    assert_eq!(s.names().len(), 8, "{:?}", s.names());
    assert_structure(&s);
    assert_profiles_and_relationships(&s);
    db.setup(&["CREATE TABLE sales.audit_log (id INT PRIMARY KEY)"])
        .await;
    assert_rescan_diff(&s).await;
}

#[tokio::test]
async fn mysql_scan_reads_structure_profiles_and_relationships() {
    let Some(db) = common::mysql("mysql_scan_reads_structure_profiles_and_relationships").await
    else {
        return;
    };
    let second = db.second.clone().unwrap();
    let statements = common::fixture(Driver::Mysql, &db.name, &second);
    db.setup(&statements.iter().map(String::as_str).collect::<Vec<_>>())
        .await;
    let dir = tempfile::tempdir().unwrap();
    let schemas = vec![db.name.clone(), second.clone()];
    let project = db.project(dir.path(), "w", |c| c.schemas = Some(schemas));
    let s = scanned(project, Some(db.name.clone()), Some(second)).await;
    assert_eq!(s.names().len(), 8, "{:?}", s.names());
    assert_structure(&s);
    assert_profiles_and_relationships(&s);
    let create = format!("CREATE TABLE {}.audit_log (id INT PRIMARY KEY)", db.name);
    db.setup(&[create.as_str()]).await;
    assert_rescan_diff(&s).await;
}

/// DuckDB: the fixture in schemas `sales` and `billing` of one file. DuckDB
/// keeps foreign keys within a schema, so the billing schema has none to
/// check (`billing: None`); comments, keys, the composite foreign key, the
/// view, profiles and relationships are checked as on the servers.
#[cfg(feature = "duckdb")]
#[tokio::test]
async fn duckdb_scan_reads_structure_profiles_and_relationships() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.duckdb");
    let write = |statements: &[String]| {
        let conn = lore_warehouse::duckdb_engine::Connection::open(&path).unwrap();
        for statement in statements {
            conn.execute_batch(statement)
                .unwrap_or_else(|e| panic!("{statement}: {e}"));
        }
    };
    write(&common::fixture(Driver::Duckdb, "sales", "billing"));
    let mut connection = ConnectionConfig::new(Driver::Duckdb);
    connection.path = Some("w.duckdb".into());
    let mut config = LoreConfig::default();
    config.connections.insert("w".into(), connection);
    let project = Project {
        root: dir.path().to_path_buf(),
        config,
        warnings: Vec::new(),
    };
    let s = scanned(project, Some("sales".into()), None).await;
    assert_eq!(s.names().len(), 8, "{:?}", s.names());
    assert_eq!(s.report.driver, "duckdb");
    assert_structure(&s);
    assert_profiles_and_relationships(&s);
    let found: RelationshipsArtifact =
        snapshot::read_json(&s.snapshot_dir().join(snapshot::RELATIONSHIPS_FILE)).unwrap();
    let across = found
        .relationships
        .iter()
        .find(|r| r.from.table == "invoices" && r.from.columns == ["customer_id"])
        .expect("billing.invoices.customer_id is inferred");
    assert_eq!(across.kind, RelationshipKind::Inferred);
    assert_eq!(across.status, RelationshipStatus::Accepted);
    assert_eq!(
        (across.to.db.as_deref(), across.to.table.as_str()),
        (Some("sales"), "customers")
    );
    let orders = s.table(Some("sales"), "orders");
    assert_eq!(orders.estimated_rows, Some(20));
    assert_eq!(
        s.table(Some("sales"), "customers").comment.as_deref(),
        Some("Customers who bought something")
    );
    // The scan's connector is gone, and with it Lore's hold on the file.
    let conn = lore_warehouse::duckdb_engine::Connection::open(&path).unwrap();
    conn.execute_batch("CREATE TABLE sales.audit_log (id INTEGER PRIMARY KEY)")
        .unwrap();
    drop(conn);
    assert_rescan_diff(&s).await;
}

/// Stops a scan at its `stop_at`-th progress event: the scan is dropped
/// at its next await, as Ctrl-C drops it.
struct StopAt {
    events: std::sync::atomic::AtomicUsize,
    stop_at: usize,
    stop: tokio::sync::Notify,
}

impl StopAt {
    fn event(&self) {
        let seen = self
            .events
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
            + 1;
        if seen == self.stop_at {
            self.stop.notify_one();
        }
    }
}

impl lore_warehouse::scan::ScanObserver for StopAt {
    fn stage(&self, _stage: lore_warehouse::scan::ScanStage, _total: u64) {
        self.event();
    }
    fn step(&self) {
        self.event();
    }
}

/// Dropping a scan at any point (Ctrl-C drops it) leaves no snapshot and
/// no unfinished folder: the scan is stopped after its first progress
/// event, then its second, and so on until one completes, checking the
/// folder after every interrupted try.
#[tokio::test]
async fn an_interrupted_scan_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let project = sqlite_project(dir.path());
    let warehouses = Warehouses::for_project(&project);
    let snapshots = snapshot::snapshots_dir(dir.path(), "w");
    let overrides = ScanOverrides::default();
    let mut interrupted = 0;
    for stop_at in 1.. {
        let observer = StopAt {
            events: Default::default(),
            stop_at,
            stop: tokio::sync::Notify::new(),
        };
        let scan = scan_connection(&project, &warehouses, "w", &overrides, &observer);
        let attempt = tokio::select! {
            biased;
            () = observer.stop.notified() => None,
            report = scan => Some(report),
        };
        let leftovers: Vec<String> = std::fs::read_dir(&snapshots)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        match attempt {
            None => {
                interrupted += 1;
                assert!(leftovers.is_empty(), "after event {stop_at}: {leftovers:?}");
            }
            Some(report) => {
                let report = report.unwrap();
                assert_eq!(leftovers, [report.sync_id], "only the complete snapshot");
                break;
            }
        }
    }
    // A scan can stop while it reads the schema, profiles a table or
    // checks a relationship; how many of those points fall between two
    // awaits depends on how the runtime batches finished work (9 on an
    // idle machine, 2 on a busy one), but the first always does.
    assert!(interrupted >= 1, "the scan was never interrupted");
}
