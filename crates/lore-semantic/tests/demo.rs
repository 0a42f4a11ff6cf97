//! The demo's semantic model answers the questions the demo is about with
//! the numbers a careful analyst computes by hand on the same warehouse.

use std::path::PathBuf;

use lore_core::limits::SqlLimits;
use lore_demo::{DEMO_SEMANTIC_MODEL, generate_demo_warehouse};
use lore_semantic::dialect::Dialect;
use lore_semantic::model::{SemanticModel, load_sources};
use lore_semantic::planner::compile;
use lore_semantic::query::SemanticQuery;
use lore_warehouse::dialect::SqlDialect;
use lore_warehouse::guard::check_read_only;
use rusqlite::Connection;
use serde_json::json;

struct Demo {
    _dir: tempfile::TempDir,
    conn: Connection,
    model: SemanticModel,
}

fn demo() -> Demo {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("warehouse.db");
    generate_demo_warehouse(&db).unwrap();
    let conn = Connection::open(&db).unwrap();
    let model = load_sources(
        DEMO_SEMANTIC_MODEL
            .iter()
            .map(|(name, text)| (PathBuf::from(name), text.to_string()))
            .collect(),
    )
    .unwrap();
    assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    Demo {
        _dir: dir,
        conn,
        model,
    }
}

fn rows(conn: &Connection, sql: &str) -> Vec<Vec<String>> {
    let mut stmt = conn.prepare(sql).unwrap_or_else(|e| panic!("{e}\n{sql}"));
    let n = stmt.column_count();
    let mut out: Vec<Vec<String>> = stmt
        .query_map([], |row| {
            (0..n)
                .map(|i| {
                    Ok(match row.get::<_, rusqlite::types::Value>(i)? {
                        rusqlite::types::Value::Null => "∅".to_string(),
                        rusqlite::types::Value::Integer(v) => format!("{:.4}", v as f64),
                        rusqlite::types::Value::Real(v) => format!("{v:.4}"),
                        rusqlite::types::Value::Text(t) => t,
                        rusqlite::types::Value::Blob(_) => "blob".into(),
                    })
                })
                .collect()
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    out.sort();
    out
}

impl Demo {
    fn check(&self, query: serde_json::Value, oracle: &str) -> usize {
        let query: SemanticQuery = serde_json::from_value(query).unwrap();
        let compiled = compile(&self.model, &query, Dialect::Sqlite, &SqlLimits::default())
            .unwrap_or_else(|e| panic!("{e}"));
        // The SQL the planner writes for each executed dialect passes the
        // guard that sql_execution uses.
        for (dialect, guard) in [
            (Dialect::Sqlite, SqlDialect::Sqlite),
            (Dialect::Postgres, SqlDialect::Postgres),
            (Dialect::Mysql, SqlDialect::Mysql),
        ] {
            let sql = compile(&self.model, &query, dialect, &SqlLimits::default())
                .unwrap()
                .sql;
            check_read_only(&sql, guard, &SqlLimits::default())
                .unwrap_or_else(|e| panic!("{dialect:?}: the guard refused {e}\n{sql}"));
        }
        let got = rows(&self.conn, &compiled.sql);
        let want = rows(&self.conn, oracle);
        assert!(!want.is_empty(), "the oracle returned nothing: {oracle}");
        assert_eq!(
            got, want,
            "\ncompiled:\n{}\noracle:\n{oracle}",
            compiled.sql
        );
        got.len()
    }
}

const ACTIVE: &str = "lower(status) = 'active'";

#[test]
fn revenue_by_account_segment_and_month() {
    let n = demo().check(
        json!({"measures": ["invoices.revenue"],
               "dimensions": ["accounts.segment", {"field": "invoices.issued_at", "granularity": "month"}]}),
        "SELECT a.segment, strftime('%Y-%m-01', i.issued_at), SUM(CASE WHEN i.status = 'paid' THEN i.total_cents / 100.0 END) \
         FROM invoices i LEFT JOIN accounts a ON a.id = i.account_id GROUP BY 1, 2",
    );
    assert!(n > 24, "segments × months: {n}");
}

#[test]
fn average_tickets_per_paying_account_by_plan() {
    demo().check(
        json!({"measures": [{"expr": "support_tickets.tickets / subscriptions.paying_accounts", "name": "tickets_per_paying_account"}],
               "dimensions": ["plans.name"],
               "filters": ["subscriptions.status_normalized = 'active'"]}),
        &format!(
            "WITH active AS (SELECT DISTINCT account_id, plan_id FROM subscriptions WHERE {ACTIVE}), \
                  t AS (SELECT p.name n, COUNT(*) c FROM support_tickets t JOIN active s ON s.account_id = t.account_id JOIN plans p ON p.id = s.plan_id GROUP BY 1), \
                  a AS (SELECT p.name n, COUNT(DISTINCT s.account_id) c FROM subscriptions s JOIN plans p ON p.id = s.plan_id WHERE {ACTIVE} GROUP BY 1) \
             SELECT a.n, t.c * 1.0 / a.c FROM a LEFT JOIN t ON t.n = a.n"
        ),
    );
}

#[test]
fn mrr_and_arr_by_plan_tier_count_active_and_past_due_subscriptions() {
    // The wiki's definition (mrr.md): active or past due, status normalised.
    let billing = "lower(replace(status, 'PastDue', 'past_due')) IN ('active', 'past_due')";
    demo().check(
        json!({"measures": ["subscriptions.mrr", "subscriptions.arr"], "dimensions": ["plans.tier"]}),
        &format!(
            "SELECT p.tier, SUM(CASE WHEN {billing} THEN s.mrr_cents END) / 100.0, SUM(CASE WHEN {billing} THEN s.mrr_cents END) / 100.0 * 12 \
             FROM subscriptions s LEFT JOIN plans p ON p.id = s.plan_id GROUP BY 1"
        ),
    );
}

#[test]
fn usd_revenue_by_region_and_quarter_for_active_accounts() {
    demo().check(
        json!({"measures": ["invoices.revenue"], "segments": ["invoices.usd", "accounts.active"],
               "dimensions": ["accounts.region", {"field": "invoices.issued_at", "granularity": "quarter"}]}),
        "SELECT a.region, printf('%s-%02d-01', strftime('%Y', i.issued_at), ((CAST(strftime('%m', i.issued_at) AS INTEGER) - 1) / 3) * 3 + 1), \
                SUM(CASE WHEN i.status = 'paid' THEN i.total_cents / 100.0 END) \
         FROM invoices i JOIN accounts a ON a.id = i.account_id WHERE i.currency = 'USD' AND a.deleted_at IS NULL GROUP BY 1, 2",
    );
}

#[test]
fn invoice_revenue_by_line_type_is_not_inflated_by_the_lines() {
    demo().check(
        json!({"measures": ["invoices.revenue", "invoice_lines.line_amount"], "dimensions": ["invoice_lines.line_type"]}),
        "WITH r AS (SELECT k.line_type n, SUM(CASE WHEN i.status = 'paid' THEN i.total_cents / 100.0 END) v \
                    FROM (SELECT DISTINCT i.id, l.line_type FROM invoices i LEFT JOIN invoice_lines l ON l.invoice_id = i.id) k \
                    JOIN invoices i ON i.id = k.id GROUP BY 1), \
              l AS (SELECT line_type n, SUM(amount_cents) / 100.0 v FROM invoice_lines GROUP BY 1) \
         SELECT r.n, r.v, l.v FROM r LEFT JOIN l ON l.n IS r.n",
    );
}

#[test]
fn revenue_tickets_and_accounts_by_segment_three_sources() {
    demo().check(
        json!({"measures": ["invoices.revenue", "support_tickets.tickets", "accounts.active_accounts"],
               "dimensions": ["accounts.segment"]}),
        "SELECT a.segment, \
                (SELECT SUM(i.total_cents / 100.0) FROM invoices i JOIN accounts x ON x.id = i.account_id WHERE x.segment = a.segment AND i.status = 'paid'), \
                (SELECT COUNT(*) FROM support_tickets t JOIN accounts x ON x.id = t.account_id WHERE x.segment = a.segment), \
                COUNT(CASE WHEN a.deleted_at IS NULL THEN 1 END) \
         FROM accounts a GROUP BY a.segment",
    );
}
