//! Query jobs: `jobs.query` (dry runs included), `jobs.getQueryResults`
//! with long polls and page tokens, `jobs.cancel`, and REST cells from
//! SQLite values.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use base64::Engine;
use lore_core::time::days_from_civil;
use rusqlite::types::Value as Cell;
use serde_json::{Value, json};

use super::fixture::{self, FieldType};
use super::google::{dataset_denied, google_error};
use super::{Job, MIN_BILLED_PER_TABLE, PROJECT, Shared, sql};

pub(super) async fn query(state: &Shared, project: &str, request: Option<&Value>) -> (u16, Value) {
    let Some(request) = request else {
        return (
            400,
            google_error(400, "invalid", "Invalid JSON payload received."),
        );
    };
    if project != PROJECT {
        return (
            404,
            google_error(404, "notFound", &format!("Not found: Project {project}")),
        );
    }
    if request["useLegacySql"] != false {
        return (
            400,
            google_error(
                400,
                "invalidQuery",
                "the double speaks Standard SQL only: send useLegacySql: false (BigQuery's default is legacy SQL)",
            ),
        );
    }
    let location = request["location"].as_str().unwrap_or("US").to_string();
    let sql = request["query"].as_str().unwrap_or_default();
    let translated = match sql::translate(sql, PROJECT) {
        Ok(t) => t,
        Err(sql::Refusal::Invalid(message)) => {
            return (400, google_error(400, "invalidQuery", &message));
        }
        Err(sql::Refusal::NotAQuery(verb)) => {
            return (
                403,
                google_error(
                    403,
                    "accessDenied",
                    &format!(
                        "Access Denied: Project {PROJECT}: User does not have permission to run {verb} statements (bigquery.tables.updateData)"
                    ),
                ),
            );
        }
    };
    let Cost {
        processed,
        billed,
        delay_ms: delay,
    } = match cost_of(state, &translated, &location) {
        Ok(cost) => cost,
        Err(refusal) => return refusal,
    };
    let executed = execute(state, &translated.sql);
    let (names, types, rows) = match executed {
        Ok(result) => result,
        Err(message) => return (400, google_error(400, "invalidQuery", &message)),
    };
    let schema = schema_json(&names, &types);
    if request["dryRun"] == true {
        return (
            200,
            json!({
                "kind": "bigquery#queryResponse",
                "jobReference": {"projectId": PROJECT, "location": location},
                "schema": schema,
                "totalBytesProcessed": processed.to_string(),
                "jobComplete": true,
                "cacheHit": false,
            }),
        );
    }
    if let Some(max) = request["maximumBytesBilled"]
        .as_str()
        .and_then(|m| m.parse::<u64>().ok())
        && billed > max
    {
        return (
            400,
            google_error(
                400,
                "bytesBilledLimitExceeded",
                &format!(
                    "Query exceeded limit for bytes billed: {max}. {billed} or higher required."
                ),
            ),
        );
    }
    let started = Instant::now();
    let job_id = format!(
        "job_double_{}",
        state.counter.fetch_add(1, Ordering::SeqCst)
    );
    let timeout_at = request["jobTimeoutMs"]
        .as_str()
        .and_then(|t| t.parse::<u64>().ok())
        .map(|ms| started + Duration::from_millis(ms));
    state.jobs.lock().expect("jobs").insert(
        job_id.clone(),
        Job {
            location,
            names,
            types,
            rows,
            processed,
            billed,
            ready_at: started + Duration::from_millis(delay),
            failed: None,
            timeout_at,
        },
    );
    let wait = request["timeoutMs"].as_u64().unwrap_or(10_000);
    let max_results = request["maxResults"].as_u64().map(|m| m as usize);
    let int64 = request["formatOptions"]["useInt64Timestamp"] == true;
    answer_job(
        state,
        &job_id,
        wait,
        max_results,
        0,
        int64,
        "bigquery#queryResponse",
    )
    .await
}

/// What a query's tables cost: bytes processed and billed, and the
/// slowest table's delay.
#[derive(Default)]
struct Cost {
    processed: u64,
    billed: u64,
    delay_ms: u64,
}

/// The cost of reading `translated`'s tables, or BigQuery's error for the
/// first one the project does not have or the caller may not read.
fn cost_of(
    state: &Shared,
    translated: &sql::Translated,
    location: &str,
) -> Result<Cost, (u16, Value)> {
    let mut cost = Cost::default();
    for (table_project, dataset, table) in &translated.tables {
        if table_project != PROJECT {
            return Err((
                404,
                google_error(
                    404,
                    "notFound",
                    &format!("Not found: Project {table_project}"),
                ),
            ));
        }
        let known_dataset = state.tables.keys().any(|(d, _)| d == dataset);
        if !known_dataset {
            return Err((
                404,
                google_error(
                    404,
                    "notFound",
                    &format!(
                        "Not found: Dataset {PROJECT}:{dataset} was not found in location {location}"
                    ),
                ),
            ));
        }
        if let Some(view) = table.strip_prefix("INFORMATION_SCHEMA.") {
            if dataset_denied(state, dataset) {
                return Err((
                    403,
                    google_error(
                        403,
                        "accessDenied",
                        &format!(
                            "Access Denied: Dataset {PROJECT}:{dataset}: Permission bigquery.tables.list denied on dataset {PROJECT}:{dataset} (or it may not exist)."
                        ),
                    ),
                ));
            }
            if !fixture::INFORMATION_SCHEMA.iter().any(|(v, _)| *v == view) {
                return Err((
                    404,
                    google_error(
                        404,
                        "notFound",
                        &format!(
                            "Not found: Table {PROJECT}:{dataset}.INFORMATION_SCHEMA.{view} was not found in location {location}"
                        ),
                    ),
                ));
            }
            cost.billed += MIN_BILLED_PER_TABLE;
            continue;
        }
        if table == "__TABLES__" {
            cost.billed += MIN_BILLED_PER_TABLE;
            continue;
        }
        let Some(def) = state.tables.get(&(dataset.clone(), table.clone())) else {
            return Err((
                404,
                google_error(
                    404,
                    "notFound",
                    &format!(
                        "Not found: Table {PROJECT}:{dataset}.{table} was not found in location {location}"
                    ),
                ),
            ));
        };
        if def.denied {
            return Err((
                403,
                google_error(
                    403,
                    "accessDenied",
                    &format!(
                        "Access Denied: Table {PROJECT}:{dataset}.{table}: User does not have permission to query table {PROJECT}:{dataset}.{table}, or perhaps it does not exist."
                    ),
                ),
            ));
        }
        cost.processed += def.logical_bytes;
        cost.billed += def.logical_bytes.max(MIN_BILLED_PER_TABLE);
        cost.delay_ms = cost.delay_ms.max(def.delay_ms);
    }
    Ok(cost)
}

/// Runs translated SQL: column names, types and rows.
#[allow(clippy::type_complexity)]
fn execute(
    state: &Shared,
    sql: &str,
) -> Result<(Vec<String>, Vec<(FieldType, bool)>, Vec<Vec<Cell>>), String> {
    let db = state
        .db
        .lock()
        .map_err(|_| "the double's database is poisoned".to_string())?;
    let mut statement = db.prepare(sql).map_err(|e| format!("{e}"))?;
    let names: Vec<String> = statement.column_names().map(|n| n.to_string()).collect();
    let declared: Vec<Option<FieldType>> = statement
        .columns()
        .map(|c| {
            let decl = c.decl_type()?;
            let index: usize = decl.split_once("_T")?.1.parse().ok()?;
            state.types.get(index).cloned()
        })
        .collect();
    let count = names.len();
    let mut rows = Vec::new();
    let mut cursor = statement.query([]).map_err(|e| e.to_string())?;
    while let Some(row) = cursor.next().map_err(|e| e.to_string())? {
        let mut cells = Vec::with_capacity(count);
        for i in 0..count {
            cells.push(row.get::<_, Cell>(i).map_err(|e| e.to_string())?);
        }
        rows.push(cells);
    }
    let types = declared
        .into_iter()
        .enumerate()
        .map(|(i, t)| match t {
            Some(t) => (t, true),
            None => (infer(rows.iter().map(|r| &r[i])), true),
        })
        .collect();
    Ok((names, types, rows))
}

/// The type of a computed column, from its values.
fn infer<'a>(mut values: impl Iterator<Item = &'a Cell>) -> FieldType {
    let kind = match values.find(|v| !matches!(v, Cell::Null)) {
        Some(Cell::Integer(_)) | None => "INTEGER",
        Some(Cell::Real(_)) => "FLOAT",
        Some(Cell::Blob(_)) => "BYTES",
        Some(Cell::Text(t)) => {
            let b = t.as_bytes();
            let date = b.len() >= 10
                && b[4] == b'-'
                && b[7] == b'-'
                && b[..4].iter().all(u8::is_ascii_digit);
            if date && b.len() == 10 {
                "DATE"
            } else if date && b.len() >= 19 && b[10] == b' ' {
                "TIMESTAMP"
            } else {
                "STRING"
            }
        }
        Some(Cell::Null) => "INTEGER",
    };
    FieldType::parse(kind)
}

fn schema_json(names: &[String], types: &[(FieldType, bool)]) -> Value {
    json!({"fields": names
        .iter()
        .zip(types)
        .map(|(n, (t, nullable))| t.schema(n, *nullable))
        .collect::<Vec<_>>()})
}

/// Waits up to `wait_ms` for the job, then answers its state and a page.
async fn answer_job(
    state: &Shared,
    job_id: &str,
    wait_ms: u64,
    max_results: Option<usize>,
    offset: usize,
    int64: bool,
    kind: &str,
) -> (u16, Value) {
    let deadline = Instant::now() + Duration::from_millis(wait_ms);
    loop {
        let now = Instant::now();
        {
            let mut jobs = state.jobs.lock().expect("jobs");
            let Some(job) = jobs.get_mut(job_id) else {
                return (
                    404,
                    google_error(
                        404,
                        "notFound",
                        &format!("Not found: Job {PROJECT}:{job_id}"),
                    ),
                );
            };
            if job.failed.is_none()
                && let Some(at) = job.timeout_at
                && at < job.ready_at
                && now >= at
            {
                job.failed = Some((
                    "timeout".into(),
                    "Job execution was cancelled: Job timed out after the job timeout (jobTimeoutMs)".into(),
                ));
            }
            let reference =
                json!({"projectId": PROJECT, "jobId": job_id, "location": job.location});
            if let Some((reason, message)) = &job.failed {
                return (400, google_error(400, reason, message));
            }
            if now >= job.ready_at {
                let page_rows = state.knobs.lock().expect("knobs").page_rows;
                let take = max_results.unwrap_or(page_rows).min(page_rows);
                let end = (offset + take).min(job.rows.len());
                let rows: Vec<Value> = job.rows[offset.min(end)..end]
                    .iter()
                    .map(|row| {
                        json!({"f": row
                            .iter()
                            .zip(&job.types)
                            .map(|(cell, (t, _))| json!({"v": rest_cell(t, cell, int64)}))
                            .collect::<Vec<_>>()})
                    })
                    .collect();
                let mut answer = json!({
                    "kind": kind,
                    "jobReference": reference,
                    "schema": schema_json(&job.names, &job.types),
                    "totalRows": job.rows.len().to_string(),
                    "rows": rows,
                    "totalBytesProcessed": job.processed.to_string(),
                    "jobComplete": true,
                    "cacheHit": false,
                });
                if kind == "bigquery#queryResponse" {
                    answer["totalBytesBilled"] = Value::String(job.billed.to_string());
                }
                if end < job.rows.len() {
                    answer["pageToken"] = Value::String(
                        base64::engine::general_purpose::STANDARD.encode(format!("offset:{end}")),
                    );
                }
                return (200, answer);
            }
            if now >= deadline {
                return (
                    200,
                    json!({"kind": kind, "jobReference": reference, "jobComplete": false}),
                );
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub(super) async fn results(
    state: &Shared,
    job_id: &str,
    parameters: &[(String, String)],
) -> (u16, Value) {
    let get = |key: &str| {
        parameters
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    let offset = get("pageToken")
        .and_then(|t| base64::engine::general_purpose::STANDARD.decode(t).ok())
        .and_then(|t| String::from_utf8(t).ok())
        .and_then(|t| t.strip_prefix("offset:").and_then(|n| n.parse().ok()))
        .unwrap_or(0);
    let wait = get("timeoutMs")
        .and_then(|t| t.parse().ok())
        .unwrap_or(10_000);
    let max_results = get("maxResults").and_then(|m| m.parse().ok());
    let int64 = get("formatOptions.useInt64Timestamp") == Some("true");
    answer_job(
        state,
        job_id,
        wait,
        max_results,
        offset,
        int64,
        "bigquery#getQueryResultsResponse",
    )
    .await
}

pub(super) fn cancel(state: &Shared, project: &str, job_id: &str) -> (u16, Value) {
    let mut jobs = state.jobs.lock().expect("jobs");
    let Some(job) = jobs.get_mut(job_id) else {
        return (
            404,
            google_error(
                404,
                "notFound",
                &format!("Not found: Job {project}:{job_id}"),
            ),
        );
    };
    let running = Instant::now() < job.ready_at && job.failed.is_none();
    if running {
        job.failed = Some((
            "stopped".into(),
            "Job execution was cancelled: User requested cancellation".into(),
        ));
        state
            .cancelled
            .lock()
            .expect("cancelled")
            .push(job_id.to_string());
    }
    (
        200,
        json!({"kind": "bigquery#jobCancelResponse", "job": {
            "kind": "bigquery#job",
            "id": format!("{project}:{}.{job_id}", job.location),
            "jobReference": {"projectId": project, "jobId": job_id, "location": job.location},
            "status": {"state": if running { "RUNNING" } else { "DONE" }},
        }}),
    )
}

/// A SQLite value as a REST cell of type `t`.
fn rest_cell(t: &FieldType, cell: &Cell, int64: bool) -> Value {
    if t.repeated || !t.fields.is_empty() {
        let Cell::Text(text) = cell else {
            return if t.repeated { json!([]) } else { Value::Null };
        };
        let parsed: Value = serde_json::from_str(text).unwrap_or(Value::Null);
        return nested_cell(t, &parsed, int64);
    }
    match cell {
        Cell::Null => Value::Null,
        Cell::Integer(i) => Value::String(match t.kind.as_str() {
            "BOOLEAN" => (*i != 0).to_string(),
            _ => i.to_string(),
        }),
        Cell::Real(f) => Value::String(match t.kind.as_str() {
            "INTEGER" => (*f as i64).to_string(),
            _ => f.to_string(),
        }),
        Cell::Text(s) if t.kind == "TIMESTAMP" => Value::String(timestamp_cell(s, int64)),
        Cell::Text(s) => Value::String(s.clone()),
        Cell::Blob(b) => Value::String(base64::engine::general_purpose::STANDARD.encode(b)),
    }
}

/// An array or record from the JSON the double stores it as.
fn nested_cell(t: &FieldType, value: &Value, int64: bool) -> Value {
    if t.repeated {
        let element = FieldType {
            repeated: false,
            ..t.clone()
        };
        let items = value.as_array().cloned().unwrap_or_default();
        return Value::Array(
            items
                .iter()
                .map(|item| json!({"v": nested_cell(&element, item, int64)}))
                .collect(),
        );
    }
    if !t.fields.is_empty() {
        if value.is_null() {
            return Value::Null;
        }
        return json!({"f": t
            .fields
            .iter()
            .map(|(name, ft)| json!({"v": nested_cell(ft, &value[name.as_str()], int64)}))
            .collect::<Vec<_>>()});
    }
    match value {
        Value::Null => Value::Null,
        Value::String(s) if t.kind == "TIMESTAMP" => Value::String(timestamp_cell(s, int64)),
        Value::String(s) => Value::String(s.clone()),
        other => Value::String(other.to_string()),
    }
}

/// `YYYY-MM-DD HH:MM:SS[.ffffff]` as BigQuery sends a TIMESTAMP: int64
/// microseconds, or float seconds (`1.7360712E9`).
fn timestamp_cell(text: &str, int64: bool) -> String {
    let parse = || -> Option<i64> {
        let (date, time) = text.split_once([' ', 'T'])?;
        let mut d = date.split('-').map(|p| p.parse::<i64>().ok());
        let days = days_from_civil(d.next()??, d.next()??, d.next()??);
        let (clock, fraction) = time.split_once('.').unwrap_or((time, ""));
        let mut c = clock.split(':').map(|p| p.parse::<i64>().ok());
        let seconds = c.next()?? * 3600 + c.next()?? * 60 + c.next()??;
        let micros: i64 = format!("{fraction:0<6}").get(..6)?.parse().ok()?;
        Some((days * 86_400 + seconds) * 1_000_000 + micros)
    };
    match parse() {
        Some(micros) if int64 => micros.to_string(),
        Some(micros) => format!("{:E}", micros as f64 / 1_000_000.0),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_sent_as_bigquery_sends_them() {
        assert_eq!(
            timestamp_cell("2025-01-05 10:00:00", true),
            "1736071200000000"
        );
        assert_eq!(timestamp_cell("2025-01-05 10:00:00", false), "1.7360712E9");
        assert_eq!(
            timestamp_cell("2024-06-01 18:45:30.25", true),
            "1717267530250000"
        );
    }
}
