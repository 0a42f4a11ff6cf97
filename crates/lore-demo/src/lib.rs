//! The demo project `lore demo` writes: a warehouse, the wiki pages that
//! explain it and the semantic model that describes it.
//!
//! The warehouse is a believable B2B SaaS company in one SQLite file,
//! generated from a fixed seed so every build produces the same data.
//!
//! Two years (2024–2025) of accounts, users, plans, subscriptions, invoices
//! and their lines, payments, support tickets and product events, about
//! 110,000 rows with primary and foreign keys. It carries the traps real
//! warehouses have, so agents (and later the semantic layer and wiki) have
//! something real to get right:
//!
//! - money in integer cents, and invoices in three currencies;
//! - soft-deleted accounts and users (`deleted_at`);
//! - `subscriptions.status` with mixed-case legacy values;
//! - one-to-many chains that fan out naive joins (invoices → invoice lines,
//!   invoices → payments, accounts → subscriptions).
//!
//! [`DEMO_WIKI`] holds the pages that explain those traps and
//! [`DEMO_SEMANTIC_MODEL`] the model that gets them right; both are
//! compiled in, so the demo needs no file beside the binary. Nothing here
//! connects to a warehouse or knows the services: it only writes files.
#![doc = include_str!("../README.md")]

mod generate;
mod rng;

use std::path::{Path, PathBuf};

use lore_core::error::{ErrorCode, HasErrorCode};

/// The DDL of the demo warehouse, with a comment on every subtle column.
pub const DEMO_SCHEMA: &str = include_str!("schema.sql");

/// The connection id the demo project uses.
pub const DEMO_CONNECTION_ID: &str = "warehouse";

/// Where the demo database lives inside a demo project.
pub const DEMO_DATABASE_PATH: &str = "data/warehouse.db";

/// The hand-written semantic model of the demo warehouse, as
/// `(file name, YAML)`: written to `semantic-layer/warehouse/`.
pub const DEMO_SEMANTIC_MODEL: [(&str, &str); 9] = [
    ("accounts.yaml", include_str!("semantic/accounts.yaml")),
    ("plans.yaml", include_str!("semantic/plans.yaml")),
    (
        "subscriptions.yaml",
        include_str!("semantic/subscriptions.yaml"),
    ),
    ("invoices.yaml", include_str!("semantic/invoices.yaml")),
    (
        "invoice_lines.yaml",
        include_str!("semantic/invoice_lines.yaml"),
    ),
    ("payments.yaml", include_str!("semantic/payments.yaml")),
    (
        "support_tickets.yaml",
        include_str!("semantic/support_tickets.yaml"),
    ),
    ("users.yaml", include_str!("semantic/users.yaml")),
    (
        "product_events.yaml",
        include_str!("semantic/product_events.yaml"),
    ),
];

/// The demo's wiki pages, as `(file name, markdown)`: written to
/// `wiki/global/` and imported into the knowledge store on first use.
pub const DEMO_WIKI: [(&str, &str); 14] = [
    (
        "active-accounts.md",
        include_str!("wiki/active-accounts.md"),
    ),
    ("churn.md", include_str!("wiki/churn.md")),
    ("currencies.md", include_str!("wiki/currencies.md")),
    ("fan-out-joins.md", include_str!("wiki/fan-out-joins.md")),
    ("glossary.md", include_str!("wiki/glossary.md")),
    ("money-in-cents.md", include_str!("wiki/money-in-cents.md")),
    ("mrr.md", include_str!("wiki/mrr.md")),
    ("plans.md", include_str!("wiki/plans.md")),
    ("product-usage.md", include_str!("wiki/product-usage.md")),
    ("refunds.md", include_str!("wiki/refunds.md")),
    ("revenue.md", include_str!("wiki/revenue.md")),
    ("soft-deletes.md", include_str!("wiki/soft-deletes.md")),
    (
        "subscription-status.md",
        include_str!("wiki/subscription-status.md"),
    ),
    (
        "support-tickets.md",
        include_str!("wiki/support-tickets.md"),
    ),
];

/// Writes the demo's wiki pages into `root/wiki/global/` when that folder
/// holds no page yet (pages deleted or edited later stay so). Returns the
/// files written.
pub fn write_demo_wiki(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let dir = root.join("wiki").join("global");
    let has_pages = std::fs::read_dir(&dir).is_ok_and(|mut entries| entries.next().is_some());
    if has_pages {
        return Ok(Vec::new());
    }
    std::fs::create_dir_all(&dir)?;
    let mut written = Vec::new();
    for (name, text) in DEMO_WIKI {
        let path = dir.join(name);
        lore_core::project::write_atomically(&path, text).map_err(std::io::Error::other)?;
        written.push(path);
    }
    Ok(written)
}

/// Writes the demo's semantic model into `root/semantic-layer/warehouse/`,
/// leaving files that already exist (perhaps edited) as they are. Returns
/// the files written.
pub fn write_demo_semantic_model(root: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let dir = root.join("semantic-layer").join(DEMO_CONNECTION_ID);
    std::fs::create_dir_all(&dir)?;
    let mut written = Vec::new();
    for (name, text) in DEMO_SEMANTIC_MODEL {
        let path = dir.join(name);
        if !path.exists() {
            lore_core::project::write_atomically(&path, text).map_err(std::io::Error::other)?;
            written.push(path);
        }
    }
    Ok(written)
}

/// Why the demo warehouse could not be written.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// Writing the file failed.
    #[error("cannot write the demo warehouse at {}: {message}", path.display())]
    Write {
        /// The target file.
        path: PathBuf,
        /// What failed.
        message: String,
    },
}

impl HasErrorCode for DemoError {
    fn code(&self) -> ErrorCode {
        ErrorCode::Internal
    }
}

/// Row counts per table of a generated warehouse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemoSummary {
    /// `(table, rows)` in schema order.
    pub tables: Vec<(String, u64)>,
}

impl DemoSummary {
    /// Rows across all tables.
    pub fn total_rows(&self) -> u64 {
        self.tables.iter().map(|(_, n)| n).sum()
    }
}

/// Generates the demo warehouse at `path`, replacing any file there. The
/// file appears complete or not at all: it is built beside the target and
/// renamed into place.
pub fn generate_demo_warehouse(path: &Path) -> Result<DemoSummary, DemoError> {
    let write_err = |message: String| DemoError::Write {
        path: path.to_path_buf(),
        message,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| write_err(e.to_string()))?;
    }
    let building = path.with_extension("db.building");
    let _ = std::fs::remove_file(&building);
    let summary = (|| -> Result<DemoSummary, rusqlite::Error> {
        let mut conn = rusqlite::Connection::open(&building)?;
        conn.execute_batch("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")?;
        conn.execute_batch(DEMO_SCHEMA)?;
        let tx = conn.transaction()?;
        generate::populate(&tx)?;
        tx.commit()?;
        conn.execute_batch("ANALYZE;")?;
        summarize(&conn)
    })()
    .map_err(|e| {
        let _ = std::fs::remove_file(&building);
        write_err(e.to_string())
    })?;
    std::fs::rename(&building, path).map_err(|e| write_err(e.to_string()))?;
    Ok(summary)
}

fn summarize(conn: &rusqlite::Connection) -> Result<DemoSummary, rusqlite::Error> {
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")?
        .query_map([], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    let mut counts = Vec::with_capacity(tables.len());
    for table in tables {
        let n: i64 = conn.query_row(&format!("SELECT count(*) FROM \"{table}\""), [], |r| {
            r.get(0)
        })?;
        counts.push((table, n as u64));
    }
    Ok(DemoSummary { tables: counts })
}

/// The `lore.yaml` of a demo project.
pub fn demo_project_config() -> String {
    format!(
        r#"# Lore demo project: an embedded SQLite warehouse generated by `lore demo`.
# `lore config schema` prints the JSON Schema of this file.
connections:
  {DEMO_CONNECTION_ID}:
    driver: sqlite
    path: {DEMO_DATABASE_PATH}
    description: >-
      Demo warehouse of Northwind Cloud, a B2B SaaS company (2024-2025):
      accounts, users, plans, subscriptions, invoices, invoice_lines, payments,
      support_tickets, product_events. Money is in cents; deleted_at marks
      soft-deleted rows; subscriptions.status has mixed-case legacy values.
    statement_timeout_ms: 30000

mcp:
  host: 127.0.0.1
  port: 7878
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::Connection;

    fn generated() -> (tempfile::TempDir, Connection, DemoSummary) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.db");
        let summary = generate_demo_warehouse(&path).unwrap();
        let conn = Connection::open(&path).unwrap();
        (dir, conn, summary)
    }

    fn count(conn: &Connection, sql: &str) -> i64 {
        conn.query_row(sql, [], |r| r.get(0)).unwrap()
    }

    #[test]
    fn demo_warehouse_has_every_table_and_tens_of_thousands_of_rows() {
        let (_dir, _conn, summary) = generated();
        let names: Vec<_> = summary.tables.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "plans",
                "accounts",
                "users",
                "subscriptions",
                "invoices",
                "invoice_lines",
                "payments",
                "support_tickets",
                "product_events"
            ]
        );
        assert!(summary.total_rows() > 50_000, "{summary:?}");
        assert!(summary.tables.iter().all(|(_, n)| *n > 0), "{summary:?}");
    }

    #[test]
    fn generation_is_deterministic() {
        let (_a, conn_a, summary_a) = generated();
        let (_b, conn_b, summary_b) = generated();
        assert_eq!(summary_a, summary_b);
        let fingerprint = "SELECT sum(total_cents) || ':' || max(invoice_number) FROM invoices";
        let a: String = conn_a.query_row(fingerprint, [], |r| r.get(0)).unwrap();
        let b: String = conn_b.query_row(fingerprint, [], |r| r.get(0)).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn foreign_keys_hold() {
        let (_dir, conn, _) = generated();
        let violations: i64 = conn
            .prepare("PRAGMA foreign_key_check")
            .unwrap()
            .query_map([], |_| Ok(()))
            .unwrap()
            .count() as i64;
        assert_eq!(violations, 0);
    }

    #[test]
    fn the_traps_are_present() {
        let (_dir, conn, _) = generated();
        // Soft-deleted rows exist but are a minority.
        let deleted = count(
            &conn,
            "SELECT count(*) FROM accounts WHERE deleted_at IS NOT NULL",
        );
        let accounts = count(&conn, "SELECT count(*) FROM accounts");
        assert!(
            deleted > 0 && deleted * 10 < accounts,
            "{deleted} of {accounts}"
        );
        // Legacy status values differ only by case.
        let spellings = count(
            &conn,
            "SELECT count(DISTINCT status) FROM subscriptions WHERE lower(status) = 'active'",
        );
        assert!(spellings >= 3, "{spellings} spellings of active");
        // Naive invoice ⋈ lines join overstates revenue (the fan trap).
        let true_total = count(&conn, "SELECT sum(total_cents) FROM invoices");
        let fanned = count(
            &conn,
            "SELECT sum(i.total_cents) FROM invoices i JOIN invoice_lines l ON l.invoice_id = i.id",
        );
        assert!(
            fanned > true_total + true_total / 2,
            "fanned {fanned} vs {true_total}"
        );
        // Lines add up to each invoice's subtotal.
        let mismatched = count(
            &conn,
            "SELECT count(*) FROM invoices i WHERE subtotal_cents <> (SELECT sum(amount_cents) FROM invoice_lines l WHERE l.invoice_id = i.id)",
        );
        assert_eq!(mismatched, 0);
        // Several currencies.
        assert_eq!(
            count(&conn, "SELECT count(DISTINCT currency) FROM invoices"),
            3
        );
    }

    #[test]
    fn mrr_matches_what_each_subscription_is_billed_per_month() {
        let (_dir, conn, _) = generated();
        // Recurring lines (plan fee and seats) of any invoice, spread over
        // the billing interval, give the subscription's MRR.
        let mismatched = count(
            &conn,
            "SELECT count(*) FROM subscriptions s JOIN invoices i ON i.id = (SELECT min(id) FROM invoices WHERE subscription_id = s.id)
             WHERE s.mrr_cents <> (SELECT sum(amount_cents) FROM invoice_lines l WHERE l.invoice_id = i.id AND l.line_type IN ('subscription', 'seats'))
                                  / CASE s.billing_interval WHEN 'year' THEN 12 ELSE 1 END",
        );
        assert_eq!(mismatched, 0);
        assert!(
            count(
                &conn,
                "SELECT count(*) FROM subscriptions WHERE billing_interval = 'year'"
            ) > 0
        );
    }

    #[test]
    fn tickets_are_answered_after_opening_and_closed_after_the_answer() {
        let (_dir, conn, _) = generated();
        let out_of_order = count(
            &conn,
            "SELECT count(*) FROM support_tickets
             WHERE first_response_at < opened_at OR closed_at < opened_at OR closed_at < first_response_at",
        );
        assert_eq!(out_of_order, 0);
    }

    #[test]
    fn data_spans_two_years_with_seasonality() {
        let (_dir, conn, _) = generated();
        let first: String = conn
            .query_row("SELECT min(created_at) FROM accounts", [], |r| r.get(0))
            .unwrap();
        let last: String = conn
            .query_row("SELECT max(issued_at) FROM invoices", [], |r| r.get(0))
            .unwrap();
        assert!(first.starts_with("2024-01"), "{first}");
        assert!(last.starts_with("2025-12"), "{last}");
        let weekday = count(
            &conn,
            "SELECT count(*) FROM product_events WHERE strftime('%w', occurred_at) IN ('1','2','3','4','5')",
        ) / 5;
        let weekend = count(
            &conn,
            "SELECT count(*) FROM product_events WHERE strftime('%w', occurred_at) IN ('0','6')",
        ) / 2;
        assert!(
            weekday > weekend * 2,
            "weekday/day {weekday}, weekend/day {weekend}"
        );
    }

    #[test]
    fn demo_config_loads_and_points_at_the_database() {
        let loaded =
            lore_core::config::parse_config(&demo_project_config(), Path::new("lore.yaml"))
                .unwrap();
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        let conn = &loaded.config.connections[DEMO_CONNECTION_ID];
        assert_eq!(conn.path.as_deref(), Some(DEMO_DATABASE_PATH));
    }

    #[test]
    fn the_wiki_and_the_semantic_layer_define_money_the_same_way() {
        let model = |file: &str| {
            DEMO_SEMANTIC_MODEL
                .iter()
                .find(|(name, _)| *name == file)
                .map(|(_, text)| *text)
                .unwrap()
        };
        let wiki = |file: &str| {
            DEMO_WIKI
                .iter()
                .find(|(name, _)| *name == file)
                .map(|(_, text)| *text)
                .unwrap()
        };
        // MRR: active and past-due subscriptions, in both.
        let mrr = model("subscriptions.yaml")
            .lines()
            .find(|l| l.contains("name: mrr,"))
            .unwrap();
        assert!(mrr.contains("'active', 'past_due'"), "{mrr}");
        assert!(wiki("mrr.md").contains("active or past due"));
        assert!(
            wiki("subscription-status.md")
                .contains("Past-due subscriptions still count in [[mrr]]")
        );
        // Money is never added across currencies, and both say so.
        for (file, measure) in [
            ("invoices.yaml", "name: revenue,"),
            ("subscriptions.yaml", "name: mrr,"),
        ] {
            let line = model(file).lines().find(|l| l.contains(measure)).unwrap();
            assert!(line.contains("currenc"), "{file}: {line}");
        }
        for page in ["revenue.md", "mrr.md"] {
            assert!(wiki(page).contains("[[currencies]]"), "{page}");
        }
        // Active accounts: not soft-deleted, in both.
        assert!(
            model("accounts.yaml").contains(
                "name: active_accounts, expr: \"count(*)\", filter: \"deleted_at IS NULL\""
            )
        );
        assert!(wiki("active-accounts.md").contains("`accounts.active_accounts`"));
    }
}
