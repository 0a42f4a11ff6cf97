//! The double's HTTP surface: routes a request to its REST method, checks
//! the bearer token, answers Google's error envelope, and records and
//! checks every exchange against the discovery document.

use std::sync::Arc;

use axum::body::Bytes;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::google::{dataset_denied, google_error};
use super::jobs::{cancel, query, results};
use super::token::token;
use super::{Exchange, PROJECT, Shared};

fn json_response(status: u16, body: Value) -> Response {
    (
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

pub(super) async fn handle(
    state: Arc<Shared>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let parameters: Vec<(String, String)> =
        form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes())
            .into_owned()
            .collect();
    let path = uri.path().to_string();
    let segments: Vec<String> = path
        .trim_start_matches('/')
        .split('/')
        .map(|s| {
            form_urlencoded::parse(format!("x={}", s.replace('+', "%2B")).as_bytes())
                .next()
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default()
        })
        .collect();
    if path == "/token" && method == Method::POST {
        let (status, answer) = token(&state, &body);
        record(&state, "token", parameters, None, status, &answer);
        return json_response(status, answer);
    }
    let request: Option<Value> = serde_json::from_slice(&body).ok();
    let segs: Vec<&str> = segments.iter().map(String::as_str).collect();
    let call = match (&method, segs.as_slice()) {
        (&Method::POST, ["bigquery", "v2", "projects", _, "queries"]) => "jobs.query",
        (&Method::GET, ["bigquery", "v2", "projects", _, "queries", _]) => "jobs.getQueryResults",
        (&Method::POST, ["bigquery", "v2", "projects", _, "jobs", _, "cancel"]) => "jobs.cancel",
        (&Method::GET, ["bigquery", "v2", "projects", _, "datasets"]) => "datasets.list",
        (&Method::GET, ["bigquery", "v2", "projects", _, "datasets", _, "tables"]) => "tables.list",
        (&Method::POST, ["bigquery", "v2", "projects", _, "datasets", _, "tables", t])
            if t.ends_with(":testIamPermissions") =>
        {
            "tables.testIamPermissions"
        }
        _ => {
            let answer = google_error(404, "notFound", &format!("Not found: {path}"));
            record(&state, "unknown", parameters, request, 404, &answer);
            return json_response(404, answer);
        }
    };
    let authorized = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|t| state.tokens.lock().expect("tokens").iter().any(|k| k == t));
    let (status, answer) = if !authorized {
        (
            401,
            google_error(
                401,
                "authError",
                "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
            ),
        )
    } else {
        let project = segs[3];
        match call {
            "jobs.query" => query(&state, project, request.as_ref()).await,
            "jobs.getQueryResults" => results(&state, segs[5], &parameters).await,
            "jobs.cancel" => cancel(&state, project, segs[5]),
            "datasets.list" => datasets(&state, project),
            "tables.list" => tables(&state, project, segs[5]),
            _ => permissions(
                &state,
                segs[5],
                segs[7].trim_end_matches(":testIamPermissions"),
                request.as_ref(),
            ),
        }
    };
    validate(&state, call, &parameters, request.as_ref(), status, &answer);
    record(&state, call, parameters, request, status, &answer);
    json_response(status, answer)
}

fn record(
    state: &Shared,
    call: &str,
    parameters: Vec<(String, String)>,
    request: Option<Value>,
    status: u16,
    response: &Value,
) {
    state.exchanges.lock().expect("exchanges").push(Exchange {
        call: call.to_string(),
        parameters,
        request,
        status,
        response: response.clone(),
    });
}

/// Checks an exchange against the discovery document.
fn validate(
    state: &Shared,
    call: &str,
    parameters: &[(String, String)],
    request: Option<&Value>,
    status: u16,
    answer: &Value,
) {
    let (resource, method) = call.split_once('.').unwrap_or((call, ""));
    let mut problems = state
        .discovery
        .check_parameters(resource, method, parameters);
    if let Some(m) = state.discovery.method(resource, method) {
        if let (Some(schema), Some(body)) = (m["request"]["$ref"].as_str(), request) {
            problems.extend(state.discovery.check(schema, body));
        }
        if let Some(schema) = m["response"]["$ref"].as_str()
            && status == 200
        {
            problems.extend(state.discovery.check(schema, answer));
        }
    }
    if status != 200 {
        // Google's error envelope is not in the discovery document; its
        // shape is AIP-193's.
        let error = &answer["error"];
        if !(error["code"].is_u64() && error["message"].is_string() && error["status"].is_string())
        {
            problems.push(format!(
                "{call}: error answer without code, message and status"
            ));
        }
    }
    state
        .violations
        .lock()
        .expect("violations")
        .extend(problems.into_iter().map(|p| format!("{call}: {p}")));
}

fn datasets(state: &Shared, project: &str) -> (u16, Value) {
    if project != PROJECT {
        return (
            404,
            google_error(404, "notFound", &format!("Not found: Project {project}")),
        );
    }
    let mut names: Vec<&str> = state.tables.values().map(|t| t.dataset).collect();
    names.sort();
    names.dedup();
    let datasets: Vec<Value> = names
        .into_iter()
        .filter(|d| !dataset_denied(state, d))
        .map(|d| {
            json!({
                "kind": "bigquery#dataset",
                "id": format!("{PROJECT}:{d}"),
                "datasetReference": {"datasetId": d, "projectId": PROJECT},
                "location": "US",
            })
        })
        .collect();
    (
        200,
        json!({"kind": "bigquery#datasetList", "etag": "double", "datasets": datasets}),
    )
}

fn tables(state: &Shared, project: &str, dataset: &str) -> (u16, Value) {
    if project != PROJECT || !state.tables.keys().any(|(d, _)| d == dataset) {
        return (
            404,
            google_error(
                404,
                "notFound",
                &format!("Not found: Dataset {project}:{dataset}"),
            ),
        );
    }
    if dataset_denied(state, dataset) {
        return (
            403,
            google_error(
                403,
                "accessDenied",
                &format!(
                    "Access Denied: Dataset {project}:{dataset}: Permission bigquery.tables.list denied"
                ),
            ),
        );
    }
    let mut names: Vec<&str> = state
        .tables
        .values()
        .filter(|t| t.dataset == dataset)
        .map(|t| t.name)
        .collect();
    names.sort();
    let tables: Vec<Value> = names
        .iter()
        .map(|name| {
            json!({
                "kind": "bigquery#table",
                "id": format!("{project}:{dataset}.{name}"),
                "tableReference": {"projectId": project, "datasetId": dataset, "tableId": name},
                "type": "TABLE",
            })
        })
        .collect();
    (
        200,
        json!({"kind": "bigquery#tableList", "etag": "double", "tables": tables, "totalItems": names.len()}),
    )
}

fn permissions(
    state: &Shared,
    dataset: &str,
    table: &str,
    request: Option<&Value>,
) -> (u16, Value) {
    let asked: Vec<String> = request
        .and_then(|r| r["permissions"].as_array())
        .map(|a| {
            a.iter()
                .filter_map(|p| p.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let writable = state
        .knobs
        .lock()
        .expect("knobs")
        .writable
        .contains(&format!("{dataset}.{table}"));
    let exists = state
        .tables
        .get(&(dataset.to_string(), table.to_string()))
        .is_some_and(|t| !t.denied);
    let granted: Vec<String> = asked
        .into_iter()
        .filter(|p| {
            exists && (p == "bigquery.tables.getData" || p == "bigquery.tables.get" || writable)
        })
        .collect();
    (200, json!({"permissions": granted}))
}
