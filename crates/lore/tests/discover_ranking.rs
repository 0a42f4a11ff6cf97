//! How `discover_data` ranks a scanned schema for a data question, each
//! rule held to what a user sees: a clinic's SQLite database, scanned with
//! `lore scan`, asked through `lore search --json` (the service the tool
//! calls).

mod common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

/// A project with one SQLite connection, `clinic`, scanned.
fn clinic() -> (tempfile::TempDir, PathBuf) {
    let (dir, root) = empty_project();
    let db = root.join("clinic.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(
        "CREATE TABLE patients (id INTEGER PRIMARY KEY, full_name TEXT, birth_date DATE, city TEXT);
         CREATE TABLE doctors (id INTEGER PRIMARY KEY, full_name TEXT, specialty TEXT, hired_on DATE);
         CREATE TABLE appointments (id INTEGER PRIMARY KEY,
             patient_id INTEGER REFERENCES patients(id), doctor_id INTEGER REFERENCES doctors(id),
             starts_at TIMESTAMP, room TEXT, status TEXT);
         CREATE TABLE shadow_appointments (id INTEGER PRIMARY KEY, patient_id INTEGER,
             doctor_id INTEGER, starts_at TIMESTAMP, room TEXT, status TEXT, archived_at TIMESTAMP);
         CREATE TABLE invoices (id INTEGER PRIMARY KEY,
             appointment_id INTEGER REFERENCES appointments(id), amount_cents INTEGER, paid BOOLEAN);
         CREATE TABLE wards (id INTEGER PRIMARY KEY, label TEXT, bed_count INTEGER, floor INTEGER);
         CREATE TABLE prescriptions (id INTEGER PRIMARY KEY,
             patient_id INTEGER REFERENCES patients(id), drug TEXT, dose_mg REAL, prescribed_at TIMESTAMP);
         CREATE TABLE referrals (id INTEGER PRIMARY KEY,
             patient_id INTEGER REFERENCES patients(id), reason TEXT, sent_on DATE);
         CREATE TABLE staff_notes (id INTEGER PRIMARY KEY,
             author_id INTEGER REFERENCES doctors(id), body TEXT, written_at TIMESTAMP);",
    )
    .unwrap();
    drop(conn);
    let config = root.join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    let text = with_connections(&text, "  clinic: { driver: sqlite, path: clinic.db }");
    std::fs::write(&config, text).unwrap();
    let scanned = lore_in(&root, &["scan"]);
    assert!(
        scanned.status.success(),
        "{}",
        String::from_utf8_lossy(&scanned.stderr)
    );
    (dir, root)
}

/// The tables in the order the refs first name them, and the columns
/// (`table.column`) in order.
fn ranked(root: &Path, question: &str) -> (Vec<String>, Vec<String>) {
    let mut tables: Vec<String> = Vec::new();
    let mut columns = Vec::new();
    for r in &refs(root, question) {
        let Some(table) = r["tableRef"]["name"].as_str() else {
            continue;
        };
        if !tables.iter().any(|t| t == table) {
            tables.push(table.to_string());
        }
        if let Some(column) = r["columnName"].as_str() {
            columns.push(format!("{table}.{column}"));
        }
    }
    (tables, columns)
}

#[test]
fn the_table_joining_two_found_tables_comes_with_its_keys() {
    let (_dir, root) = clinic();
    let (tables, columns) = ranked(&root, "which doctors has each patient seen?");
    for table in ["doctors", "patients", "appointments"] {
        assert!(
            tables[..3].contains(&table.to_string()),
            "{table} among the first three: {tables:?}"
        );
    }
    for key in ["appointments.patient_id", "appointments.doctor_id"] {
        assert!(
            columns[..10].contains(&key.to_string()),
            "{key}: {columns:?}"
        );
    }
}

#[test]
fn a_table_is_found_by_its_columns_words() {
    let (_dir, root) = clinic();
    let (tables, columns) = ranked(&root, "how many beds are there on each floor?");
    assert_eq!(tables[0], "wards", "{tables:?}");
    assert!(
        columns[..2].contains(&"wards.bed_count".to_string())
            && columns[..2].contains(&"wards.floor".to_string()),
        "{columns:?}"
    );
}

#[test]
fn a_copy_of_a_table_ranks_below_the_table() {
    let (_dir, root) = clinic();
    let (tables, _) = ranked(&root, "appointment room and status");
    let at = |name: &str| tables.iter().position(|t| t == name);
    assert_eq!(at("appointments"), Some(0), "{tables:?}");
    assert!(
        at("shadow_appointments").is_none_or(|p| p > 1),
        "{tables:?}"
    );
}

#[test]
fn a_question_asking_when_brings_the_date_column() {
    let (_dir, root) = clinic();
    let (tables, columns) = ranked(&root, "when was the drug last prescribed to patient 42?");
    // The patient's own table comes too (42 may be a name's id).
    assert!(
        tables[..2].contains(&"prescriptions".to_string()),
        "{tables:?}"
    );
    assert!(
        columns[..5].contains(&"prescriptions.prescribed_at".to_string()),
        "{columns:?}"
    );
    assert!(
        columns[..10].contains(&"prescriptions.patient_id".to_string()),
        "{columns:?}"
    );
}

#[test]
fn a_column_that_points_elsewhere_does_not_make_its_table_the_answer() {
    let (_dir, root) = clinic();
    // Four tables have a column naming the doctor or patient; the doctors
    // table is the one that holds doctors.
    let (tables, _) = ranked(&root, "doctor specialty");
    assert_eq!(tables[0], "doctors", "{tables:?}");
    let (tables, _) = ranked(&root, "patients by city");
    assert_eq!(tables[0], "patients", "{tables:?}");
}

#[test]
fn another_form_of_a_word_finds_the_table() {
    let (_dir, root) = clinic();
    // "referred" and `referrals` stem apart (`refer`, `referr`).
    let (tables, _) = ranked(&root, "which patients were referred for surgery?");
    let at = |name: &str| tables.iter().position(|t| t == name).unwrap_or(usize::MAX);
    assert!(at("referrals") < 2, "{tables:?}");
    assert!(at("referrals") < at("prescriptions"), "{tables:?}");
    assert!(at("referrals") < at("appointments"), "{tables:?}");
}

#[test]
fn a_table_asked_by_name_comes_before_its_columns() {
    let (_dir, root) = clinic();
    // Every column of `patients` carries its table's name, and the
    // pointers `patient_id` name it too: the table itself is the answer.
    let out = lore_in(&root, &["search", "patients", "--json"]);
    let found: Value = serde_json::from_slice(&out.stdout).unwrap();
    let first = &found["refs"][0];
    assert_eq!(
        (first["kind"].as_str(), first["id"].as_str()),
        (Some("table"), Some("patients")),
        "{found}"
    );
}

/// The refs `lore search --json` returns for `question`.
fn refs(root: &Path, question: &str) -> Vec<Value> {
    let out = lore_in(root, &["search", question, "--limit", "50", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let found: Value = serde_json::from_slice(&out.stdout).unwrap();
    found["refs"].as_array().unwrap().clone()
}

#[test]
fn a_table_joined_to_the_found_one_comes_with_it() {
    let (_dir, root) = clinic();
    // No word of the question is in `appointments`, but an invoice is for
    // an appointment.
    let (tables, _) = ranked(&root, "invoice amounts");
    assert_eq!(tables[0], "invoices", "{tables:?}");
    assert_eq!(tables[1], "appointments", "{tables:?}");
}

#[test]
fn a_question_in_everyday_words_finds_the_column_named_otherwise() {
    let (_dir, root) = clinic();
    let (_, columns) = ranked(&root, "who are the oldest patients?");
    assert_eq!(columns[0], "patients.birth_date", "{columns:?}");
    let (_, columns) = ranked(&root, "patients from Leeds");
    assert_eq!(columns[0], "patients.city", "{columns:?}");
    // Without a place named, "from" asks for nothing.
    let (_, columns) = ranked(&root, "patients from last week");
    assert_ne!(columns[0], "patients.city", "{columns:?}");
}

#[test]
fn a_small_schema_is_listed_whole_and_scores_low_when_no_word_matches() {
    let (_dir, root) = clinic();
    let found = refs(&root, "quarterly gizmo throughput");
    let mut tables: Vec<&str> = found
        .iter()
        .filter(|r| r["columnName"].is_null())
        .filter_map(|r| r["tableRef"]["name"].as_str())
        .collect();
    tables.sort();
    assert_eq!(tables.len(), 9, "every table of the clinic: {tables:?}");
    for r in &found {
        let score = r["score"].as_f64().unwrap();
        assert!(score <= 0.05, "nothing matched, yet {score}: {r}");
    }
    // With a word that matches, the listed rest comes after it, far below.
    let found = refs(&root, "invoice amounts");
    assert_eq!(found[0]["score"], 1.0);
    let last = found.last().unwrap();
    assert!(last["score"].as_f64().unwrap() <= 0.05, "{last}");
}

#[test]
fn a_table_typed_by_its_name_comes_first_whatever_joins_it() {
    let (_dir, root) = empty_project();
    let db = root.join("sales.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    // The tables pointing at `sales_2024` hold the question's other words;
    // the table it names holds none of them.
    conn.execute_batch(
        "CREATE TABLE sales_2024 (id INTEGER PRIMARY KEY, label TEXT);
         CREATE TABLE refunds (id INTEGER PRIMARY KEY,
             sales_2024_id INTEGER REFERENCES sales_2024(id), amount INTEGER, status TEXT);
         CREATE TABLE payouts (id INTEGER PRIMARY KEY,
             sales_2024_id INTEGER REFERENCES sales_2024(id), amount INTEGER, status TEXT);
         CREATE TABLE audits (id INTEGER PRIMARY KEY, refund_id INTEGER REFERENCES refunds(id),
             payout_id INTEGER REFERENCES payouts(id), amount INTEGER, status TEXT);",
    )
    .unwrap();
    drop(conn);
    let config = root.join("lore.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        with_connections(&text, "  shop: { driver: sqlite, path: sales.db }"),
    )
    .unwrap();
    assert!(lore_in(&root, &["scan"]).status.success());
    let (tables, _) = ranked(&root, "amount and status of sales_2024");
    assert_eq!(tables[0], "sales_2024", "{tables:?}");
    // A table named like an everyday word is not forced up in a sentence.
    let (tables, _) = ranked(&root, "refunds amount and status");
    assert_eq!(tables[0], "refunds", "{tables:?}");
}
