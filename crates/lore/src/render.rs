//! Query results for a terminal: an aligned table, CSV (RFC 4180) or JSON.

use lore_warehouse::execute::QueryResult;
use serde_json::Value;

/// Longest cell shown in table output; longer values are cut with `…`.
const MAX_CELL_CHARS: usize = 60;

/// A value as plain text: strings unquoted, NULL as empty (CSV) or `NULL`.
fn cell_text(value: &Value, null: &str) -> String {
    match value {
        Value::Null => null.to_string(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// An aligned text table with a row-count footer.
pub fn table(result: &QueryResult) -> String {
    let cells: Vec<Vec<String>> = result
        .rows
        .iter()
        .map(|row| row.iter().map(|v| cell_text(v, "NULL")).collect())
        .collect();
    let mut out = grid(&result.headers, &cells);
    let n = result.rows.len();
    let noun = if n == 1 { "row" } else { "rows" };
    if result.cut_at_bytes.is_some() {
        out.push_str(&format!(
            "({n} {noun}, truncated at the size limit of one result: narrow the columns, aggregate or page)\n"
        ));
    } else if result.truncated {
        out.push_str(&format!(
            "({n} {noun}, truncated: more rows exist; raise the limit or narrow the query)\n"
        ));
    } else {
        out.push_str(&format!("({n} {noun})\n"));
    }
    out
}

/// Cells aligned in columns under a header and a rule. Line breaks and
/// tabs inside cells become spaces; cells longer than 60 characters are
/// cut with `…`.
pub fn grid(headers: &[String], rows: &[Vec<String>]) -> String {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|cell| {
                    let text = cell.replace(['\n', '\r', '\t'], " ");
                    if text.chars().count() > MAX_CELL_CHARS {
                        let cut: String = text.chars().take(MAX_CELL_CHARS - 1).collect();
                        format!("{cut}…")
                    } else {
                        text
                    }
                })
                .collect()
        })
        .collect();
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in &cells {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |values: &[String]| -> String {
        values
            .iter()
            .zip(&widths)
            .map(|(v, w)| format!("{v:<w$}"))
            .collect::<Vec<_>>()
            .join(" | ")
            .trim_end()
            .to_string()
    };
    let mut out = String::new();
    out.push_str(&line(headers));
    out.push('\n');
    out.push_str(
        &widths
            .iter()
            .map(|w| "-".repeat(*w))
            .collect::<Vec<_>>()
            .join("-+-"),
    );
    out.push('\n');
    for row in &cells {
        out.push_str(&line(row));
        out.push('\n');
    }
    out
}

/// CSV with a header line; NULL is an empty field.
pub fn csv(result: &QueryResult) -> String {
    let mut out = String::new();
    let write_line = |out: &mut String, fields: Vec<String>| {
        out.push_str(
            &fields
                .iter()
                .map(|f| csv_field(f))
                .collect::<Vec<_>>()
                .join(","),
        );
        out.push_str("\r\n");
    };
    write_line(&mut out, result.headers.clone());
    for row in &result.rows {
        write_line(&mut out, row.iter().map(|v| cell_text(v, "")).collect());
    }
    out
}

fn csv_field(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

/// JSON with `sql_execution`'s result fields (without its `maxRows` and
/// `notice`, which the command line reports on stderr).
pub fn json(result: &QueryResult) -> String {
    let mut object = serde_json::json!({
        "headers": result.headers,
        "rows": result.rows,
        "rowCount": result.rows.len(),
        "truncated": result.truncated,
        "elapsedMs": result.elapsed_ms,
    });
    if let Some(types) = &result.header_types {
        object["headerTypes"] = serde_json::json!(types);
    }
    if let Some(bytes) = result.bytes_processed {
        object["bytesProcessed"] = serde_json::json!(bytes);
    }
    serde_json::to_string_pretty(&object).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(truncated: bool) -> QueryResult {
        QueryResult {
            headers: vec!["id".into(), "note".into()],
            header_types: None,
            rows: vec![
                vec![json!(1), json!("a, \"quoted\" note")],
                vec![json!(22), Value::Null],
            ],
            truncated,
            cut_at_bytes: None,
            elapsed_ms: 0,
            bytes_processed: None,
        }
    }

    #[test]
    fn table_aligns_columns_and_says_when_truncated() {
        let text = table(&result(true));
        let lines: Vec<_> = text.lines().collect();
        assert_eq!(lines[0], "id | note");
        assert_eq!(lines[2], "1  | a, \"quoted\" note");
        assert_eq!(lines[3], "22 | NULL");
        assert!(lines[4].contains("truncated"), "{text}");
        assert!(table(&result(false)).ends_with("(2 rows)\n"));
    }

    #[test]
    fn csv_quotes_what_needs_quoting() {
        assert_eq!(
            csv(&result(false)),
            "id,note\r\n1,\"a, \"\"quoted\"\" note\"\r\n22,\r\n"
        );
    }
}
