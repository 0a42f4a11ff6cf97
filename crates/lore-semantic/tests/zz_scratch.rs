use lore_core::limits::SqlLimits;
use lore_semantic::dialect::Dialect;
use lore_semantic::model::load_sources;
use lore_semantic::planner::compile;
use lore_semantic::query::SemanticQuery;
use std::path::PathBuf;
const MODEL: &str = include_str!("/tmp/scratch/model.yaml");
#[test]
fn print() {
    let model = load_sources(vec![(PathBuf::from("m.yaml"), MODEL.to_string())]).unwrap();
    for q in [
        serde_json::json!({"measures": ["invoices.revenue", "tickets.ticket_count"], "dimensions": ["accounts.segment"]}),
        serde_json::json!({"measures": ["invoices.revenue"], "dimensions": ["invoice_lines.product"]}),
        serde_json::json!({"measures": ["accounts.count"], "dimensions": ["plans.name", "tickets.priority"], "include_empty": true}),
        serde_json::json!({"measures": ["invoices.invoice_count", "tickets.ticket_count"], "dimensions": [{"field": "invoices.issued_at", "granularity": "week"}]}),
        serde_json::json!({"measures": [{"expr": "tickets.ticket_count / accounts.count", "name": "per"}], "dimensions": ["plans.name"]}),
    ] {
        let query: SemanticQuery = serde_json::from_value(q).unwrap();
        let c = compile(&model, &query, Dialect::Bigquery, &SqlLimits::default()).unwrap();
        println!("{}\n----", c.sql);
    }
}
