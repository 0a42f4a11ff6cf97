//! Model validation names file, source and field for every problem, and
//! queries that cannot be answered say why and what to ask instead.

use std::path::PathBuf;

use lore_core::error::{ErrorCode, HasErrorCode};
use lore_core::limits::SqlLimits;
use lore_semantic::SemanticError;
use lore_semantic::dialect::Dialect;
use lore_semantic::model::{SemanticModel, load_sources};
use lore_semantic::planner::compile;
use lore_semantic::query::SemanticQuery;
use serde_json::json;

fn load(files: &[(&str, &str)]) -> Result<SemanticModel, SemanticError> {
    load_sources(
        files
            .iter()
            .map(|(f, t)| (PathBuf::from(f), t.to_string()))
            .collect(),
    )
}

fn issues(files: &[(&str, &str)]) -> Vec<String> {
    match load(files) {
        Err(SemanticError::InvalidModel { issues }) => {
            issues.iter().map(|i| i.to_string()).collect()
        }
        other => panic!("expected an invalid model, got {other:?}"),
    }
}

#[test]
fn every_model_error_is_reported_with_its_location() {
    let found = issues(&[
        (
            "orders.yaml",
            r#"
name: orders
table: orders
grain: [id, missing_grain]
columns:
  - { name: id, type: number }
  - { name: customer_id, type: number }
  - { name: amount, type: number }
joins:
  - { to: customer, "on": "customer_id = customer.id", relationship: many_to_one }
  - { to: products, "on": "product_id = products.id", relationship: many_to_one }
measures:
  - { name: revenue, expr: "sum(amount" }
  - { name: total, expr: "sum(amount)" }
  - { name: total, expr: "count(*)" }
  - { name: plain, expr: "amount" }
  - { name: typo, expr: "sum(amont)" }
"#,
        ),
        (
            "products.yaml",
            "name: products\ntable: products\ncolumns:\n  - { name: id, type: number }\n",
        ),
        ("dupe.yaml", "name: products\nsql: SELECT 1 AS id\n"),
    ]);
    let all = found.join("\n");
    for expected in [
        "orders.yaml: source `orders`, grain: grain column `missing_grain`",
        "orders.yaml: source `orders`, joins[0].to: no source `customer`",
        "orders.yaml: source `orders`, joins[1].on: `product_id` is not a column",
        "orders.yaml: source `orders`, measures.revenue.expr: `sum(amount` does not parse",
        "orders.yaml: source `orders`, measures.total: duplicate measure name",
        "orders.yaml: source `orders`, measures.plain.expr: `amount` is not a measure",
        "orders.yaml: source `orders`, measures.typo.expr: unknown column `amont`",
        "dupe.yaml: source `products`, name: duplicate source name (also defined in products.yaml)",
    ] {
        assert!(all.contains(expected), "missing `{expected}` in:\n{all}");
    }
    assert_eq!(
        load(&[("x.yaml", "name: x\ntable: x\n")])
            .err()
            .map(|e| e.code()),
        None,
        "a minimal source is valid"
    );
}

#[test]
fn a_measure_filter_reads_other_sources_only_through_many_to_one_joins() {
    let customers = "name: customers\ntable: customers\ngrain: [id]\ncolumns:\n  - { name: id, type: number }\n  - { name: region, type: string }\nmeasures:\n  - { name: big_spenders, expr: \"count(*)\", filter: \"orders.amount > 100\" }\n";
    let orders = "name: orders\ntable: orders\ngrain: [id]\ncolumns:\n  - { name: id, type: number }\n  - { name: customer_id, type: number }\n  - { name: amount, type: number }\njoins:\n  - { to: customers, \"on\": \"customer_id = customers.id\", relationship: many_to_one }\nmeasures:\n  - { name: north, expr: \"sum(amount)\", filter: \"customers.region = 'north'\" }\n  - { name: typo, expr: \"sum(amount)\", filter: \"customers.regoin = 'north'\" }\n";
    let found = issues(&[("customers.yaml", customers), ("orders.yaml", orders)]);
    assert!(
        found.iter().any(|i| i.contains("measures.typo.filter")
            && i.contains("`customers` has no column `regoin`")),
        "{found:?}"
    );
    // The many-to-one filter (orders.north) is fine; the typo is the only
    // per-source problem, so the path check has not run yet.
    assert_eq!(found.len(), 1, "{found:?}");
    let fixed = orders.replace("regoin", "region");
    let found = issues(&[("customers.yaml", customers), ("orders.yaml", &fixed)]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("big_spenders")
            && found[0].contains("one-to-many join customers -> orders"),
        "{found:?}"
    );
}

#[test]
fn derived_measure_cycles_are_errors() {
    let found = issues(&[(
        "a.yaml",
        "name: a\ntable: a\ncolumns:\n  - { name: x, type: number }\nmeasures:\n  - { name: p, expr: \"q + 1\" }\n  - { name: q, expr: \"p * 2\" }\n",
    )]);
    assert!(
        found
            .iter()
            .any(|i| i.contains("cycle") && i.contains("a.p")),
        "{found:?}"
    );
}

#[test]
fn a_source_no_join_reaches_is_a_warning_not_an_error() {
    let model = load(&[
        ("a.yaml", "name: a\ntable: a\ncolumns:\n  - { name: b_id, type: number }\njoins:\n  - { to: b, \"on\": \"b_id = b.id\", relationship: many_to_one }\n"),
        ("b.yaml", "name: b\ntable: b\ncolumns:\n  - { name: id, type: number }\n"),
        ("lonely.yaml", "name: lonely\ntable: lonely\n"),
    ])
    .unwrap();
    assert_eq!(model.warnings.len(), 1);
    assert_eq!(model.warnings[0].source.as_deref(), Some("lonely"));
}

const MODEL: &str = r#"
- name: accounts
  table: accounts
  grain: [id]
  columns:
    - { name: id, type: number }
    - { name: segment, type: string }
    - { name: created_at, type: time }
  measures:
    - { name: count, expr: "count(*)" }
- name: users
  table: users
  columns:
    - { name: id, type: number }
    - { name: account_id, type: number }
    - { name: manager_account_id, type: number }
    - { name: billing_account_id, type: number }
  joins:
    - { to: accounts, "on": "account_id = accounts.id", relationship: many_to_one }
    - { to: accounts, "on": "billing_account_id = accounts.id", relationship: many_to_one }
    - { to: accounts, alias: managed, "on": "manager_account_id = managed.id", relationship: many_to_one }
  measures:
    - { name: count, expr: "count(*)" }
- name: events
  table: events
  columns:
    - { name: user_id, type: number, visibility: hidden }
    - { name: kind, type: string }
  joins:
    - { to: users, "on": "user_id = users.id", relationship: many_to_one }
  measures:
    - { name: event_count, expr: "count(*)" }
"#;

fn query_error(query: serde_json::Value) -> SemanticError {
    let model = load(&[("m.yaml", MODEL)]).unwrap();
    let query: SemanticQuery = serde_json::from_value(query).unwrap();
    compile(&model, &query, Dialect::Postgres, &SqlLimits::default()).unwrap_err()
}

#[test]
fn query_errors_say_what_to_ask_instead() {
    // A name the model lacks is not_found, with the close ones; a query
    // that cannot be answered as asked is invalid_request.
    let e = query_error(json!({"measures": ["acounts.count"]}));
    assert_eq!(e.code(), ErrorCode::NotFound);
    match &e {
        SemanticError::NotFound { candidates, .. } => assert!(
            candidates.contains(&"accounts.count".to_string()),
            "{candidates:?}"
        ),
        other => panic!("{other:?}"),
    }
    let e = query_error(json!({"measures": ["count"]}));
    assert!(e.to_string().contains("several sources"), "{e}");
    assert_eq!(e.code(), ErrorCode::InvalidRequest);
    let e = query_error(json!({"measures": ["accounts.count"], "dimensions": ["accounts.nope"]}));
    assert_eq!(e.code(), ErrorCode::NotFound, "{e}");
    let e = query_error(json!({"measures": ["accounts.count"], "segments": ["accounts.nope"]}));
    assert_eq!(e.code(), ErrorCode::NotFound, "{e}");

    let e = query_error(
        json!({"measures": ["accounts.count"], "dimensions": [{"field": "accounts.created_at", "granularity": "fortnight"}]}),
    );
    assert!(
        e.to_string().contains("day, week, month, quarter, year"),
        "{e}"
    );
    let e = query_error(
        json!({"measures": ["accounts.count"], "dimensions": [{"field": "accounts.segment", "granularity": "month"}]}),
    );
    assert!(e.to_string().contains("not a time column"), "{e}");

    let e = query_error(
        json!({"measures": ["accounts.count"], "dimensions": ["accounts.segment"],
                              "filters": ["accounts.count > 3 OR accounts.segment = 'smb'"]}),
    );
    assert!(e.to_string().contains("mixes columns and measures"), "{e}");

    let model = load(&[("m.yaml", MODEL)]).unwrap();
    let median: SemanticQuery =
        serde_json::from_value(json!({"measures": ["median(accounts.id)"]})).unwrap();
    let e = compile(&model, &median, Dialect::Mysql, &SqlLimits::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::UnsupportedOperation);
    assert!(
        compile(&model, &median, Dialect::Postgres, &SqlLimits::default())
            .unwrap()
            .sql
            .contains("percentile_cont(0.5)")
    );
}

#[test]
fn two_equally_short_join_paths_are_ambiguous_and_listed() {
    let e = query_error(json!({"measures": ["users.count"], "dimensions": ["accounts.segment"]}));
    match &e {
        SemanticError::AmbiguousPath { alternatives, .. } => {
            assert_eq!(alternatives.len(), 2, "{alternatives:?}");
            assert!(
                alternatives
                    .iter()
                    .any(|a| a.contains("billing_account_id")),
                "{alternatives:?}"
            );
            assert!(
                !alternatives.iter().any(|a| a.contains("managed")),
                "an alias is not a default path: {alternatives:?}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_alias_names_its_own_join_path() {
    let model = load(&[("m.yaml", MODEL)]).unwrap();
    let query: SemanticQuery = serde_json::from_value(
        json!({"measures": ["users.count"], "dimensions": ["managed.segment"]}),
    )
    .unwrap();
    let sql = compile(&model, &query, Dialect::Postgres, &SqlLimits::default())
        .unwrap()
        .sql;
    assert!(
        sql.contains("t0.\"manager_account_id\" = t1.\"id\""),
        "{sql}"
    );
}

#[test]
fn a_fanned_out_source_without_grain_is_asked_to_declare_one() {
    let e = query_error(json!({"measures": ["users.count"], "dimensions": ["events.kind"]}));
    assert!(e.to_string().contains("declare `grain`"), "{e}");
}

/// `term` repeated `terms` times, joined by `op`.
fn chain(term: &str, op: &str, terms: usize) -> String {
    vec![term; terms].join(op)
}

#[test]
fn long_chains_in_filters_and_measures_are_refused_as_invalid_sql_naming_the_limit() {
    for query in [
        json!({"measures": ["accounts.count"], "filters": [chain("accounts.id > 5", " AND ", 10_000)]}),
        json!({"measures": ["accounts.count"], "filters": [format!("accounts.id > {}", chain("1", "+", 2_000))]}),
        json!({"measures": [format!("sum({})", chain("accounts.id", "+", 5_000))]}),
        json!({"measures": [{"expr": chain("accounts.count", "+", 3_000), "name": "x"}]}),
    ] {
        let error = query_error(query);
        assert_eq!(error.code(), ErrorCode::InvalidSql, "{error}");
        assert!(error.to_string().contains("limits.sql_depth"), "{error}");
    }
}

#[test]
fn model_expressions_past_the_limit_are_model_issues() {
    let yaml = format!(
        "name: a\ntable: a\ncolumns:\n  - {{ name: id, type: number }}\nmeasures:\n  - {{ name: big, expr: \"sum({})\" }}\n",
        chain("id", "+", 3_000)
    );
    let found = issues(&[("a.yaml", &yaml)]);
    assert!(
        found
            .iter()
            .any(|i| i.contains("measures") && i.contains("limits.sql_depth")),
        "{found:?}"
    );
}

#[test]
fn a_query_at_the_depth_limit_compiles_on_a_small_thread() {
    // Runtime workers have 2 MiB of stack; a tree this deep needs more in
    // the planner's walks, which the stack budget provides.
    let compiled = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let model = load(&[("m.yaml", MODEL)]).unwrap();
            let query: SemanticQuery = serde_json::from_value(json!({
                "measures": [format!("sum({})", chain("accounts.id", "+", 990))],
                "filters": [format!("accounts.id > {}", chain("1", "+", 990))],
            }))
            .unwrap();
            compile(&model, &query, Dialect::Sqlite, &SqlLimits::default()).map(|c| c.sql)
        })
        .unwrap()
        .join()
        .expect("the planner overflowed its stack");
    let sql = compiled.unwrap();
    assert_eq!(sql.matches("+ 1").count(), 989, "{sql}");
}

#[test]
fn measures_with_subqueries_are_refused_in_models_and_queries() {
    let yaml = "name: a\ntable: a\ncolumns:\n  - { name: id, type: number }\nmeasures:\n  - { name: sneaky, expr: \"sum((SELECT max(id) FROM b))\" }\n";
    let found = issues(&[("a.yaml", yaml)]);
    assert!(
        found
            .iter()
            .any(|i| i.contains("measures.sneaky.expr") && i.contains("subquery")),
        "{found:?}"
    );
    let error = query_error(json!({"measures": ["sum((SELECT 1))"]}));
    assert_eq!(error.code(), ErrorCode::InvalidRequest);
    assert!(error.to_string().contains("subquery"), "{error}");
}

#[test]
fn cumulative_measures_and_the_time_spine_are_checked_where_written() {
    let found = issues(&[
        (
            "orders.yaml",
            r#"
name: orders
table: orders
columns:
  - { name: id, type: number }
  - { name: ordered_at, type: time }
  - { name: shipped_at, type: time }
  - { name: amount, type: number }
measures:
  - { name: revenue, expr: "sum(amount)" }
  - { name: which_time, expr: "sum(amount)", cumulative: { window: 7 days } }
  - { name: not_time, expr: "sum(amount)", cumulative: { time: amount } }
  - { name: bad_window, expr: "sum(amount)", cumulative: { time: ordered_at, window: a week } }
  - { name: both, expr: "sum(amount)", cumulative: { time: ordered_at, window: 7 days, grain_to_date: month } }
  - { name: bad_grain, expr: "sum(amount)", cumulative: { time: ordered_at, grain_to_date: fortnight } }
  - { name: derived, expr: "revenue * 2", cumulative: { time: ordered_at } }
  - { name: both_kinds, expr: "sum(amount)", cumulative: { time: ordered_at }, offset: { time: ordered_at, window: 1 month } }
  - { name: no_shift, expr: "sum(amount)", offset: { time: ordered_at } }
  - { name: bad_to_grain, expr: "sum(amount)", offset: { time: ordered_at, to_grain: hour } }
  - { name: derived_offset, expr: "revenue * 2", offset: { time: ordered_at, window: 1 month } }
  - { name: balance_per_nothing, expr: "sum(amount)", non_additive: { time: ordered_at, per: [account_id] } }
  - { name: balance_running, expr: "sum(amount)", cumulative: { time: ordered_at }, non_additive: { time: ordered_at } }
"#,
        ),
        (
            "days.yaml",
            "- { name: days, table: days, time_spine: day, columns: [{ name: day, type: string }] }\n- { name: dates, table: dates, time_spine: date, columns: [{ name: date, type: time }] }\n",
        ),
    ]);
    let expect = [
        "measures.which_time.cumulative: name the time column it runs over with `time`",
        "measures.not_time.cumulative: `amount` is not a time column",
        "measures.bad_window.cumulative: window `a week` is not `<count> <unit>`",
        "measures.both.cumulative: give `window` (a trailing window) or `grain_to_date`",
        "measures.bad_grain.cumulative: grain_to_date `fortnight` is not one of day, week, month, quarter, year",
        "measures.derived.cumulative: a cumulative measure aggregates rows",
        "measures.both_kinds.offset: a measure is cumulative or offset, not both",
        "measures.no_shift.offset: give `window` (how far back, e.g. `1 month`) or `to_grain`",
        "measures.bad_to_grain.offset: to_grain `hour` is not one of day, week, month, quarter, year",
        "measures.derived_offset.offset: an offset measure aggregates rows",
        "measures.balance_per_nothing.non_additive: per: `account_id` is not among the source's columns",
        "measures.balance_running.non_additive: a non-additive measure cannot also be cumulative or offset",
        "days.yaml: source `days`, time_spine: the time spine column `day` must be of type time",
        "days.yaml: source `dates`, time_spine: the model already has a time spine (`days`)",
    ];
    for e in expect {
        assert!(
            found.iter().any(|f| f.contains(e)),
            "missing {e:?} in {found:#?}"
        );
    }
    // An unknown key is refused, not read as "all time".
    let err = load(&[(
        "o.yaml",
        "name: o\ntable: o\ncolumns: [{ name: t, type: time }]\nmeasures: [{ name: m, expr: \"count(*)\", cumulative: { windw: 7 days } }]\n",
    )])
    .unwrap_err();
    assert!(err.to_string().contains("windw"), "{err}");
}
