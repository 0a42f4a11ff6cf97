//! A Snowflake result as rows of lossless JSON.
//!
//! The answer describes its columns (`rowtype`) and carries the first part
//! of the rows inline — as JSON (`rowset`, every value a string or null)
//! or as an Arrow IPC stream (`rowsetBase64`), whichever the server chose —
//! and, for large results, `chunks`: URLs of further parts in the same
//! format, downloaded one at a time and only while rows are still wanted
//! (the row cap and the byte budget stop the reading).
//!
//! Each value is decoded by [`super::values`] (JSON) or [`super::arrow`].

use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::Value;

use super::arrow;
use super::values::{Column, json_cell};
use super::wire::{Endpoint, WireError};
use crate::connector::{Fetched, ResultBudget, RowLimit};

/// A finished query's answer, ready to read.
pub(crate) struct ResultSet {
    columns: Vec<Column>,
    arrow: bool,
    first: Value,
    chunks: Vec<String>,
    chunk_headers: Vec<(String, String)>,
}

impl ResultSet {
    /// The result in a query answer's `data`.
    pub(crate) fn from_data(data: &Value) -> Result<ResultSet, WireError> {
        let rowtype = data
            .get("rowtype")
            .and_then(Value::as_array)
            .ok_or_else(|| WireError::Protocol("the answer has no rowtype".into()))?;
        let format = data
            .get("queryResultFormat")
            .and_then(Value::as_str)
            .unwrap_or("json")
            .to_ascii_lowercase();
        let arrow = format == "arrow";
        let first = if arrow {
            data.get("rowsetBase64").cloned().unwrap_or(Value::Null)
        } else {
            data.get("rowset").cloned().unwrap_or(Value::Null)
        };
        let chunks = data
            .get("chunks")
            .and_then(Value::as_array)
            .map(|chunks| {
                chunks
                    .iter()
                    .filter_map(|c| c.get("url").and_then(Value::as_str).map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let chunk_headers = match (data.get("chunkHeaders"), data.get("qrmk")) {
            (Some(Value::Object(headers)), _) => headers
                .iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                .collect(),
            (_, Some(Value::String(qrmk))) => vec![
                (
                    "x-amz-server-side-encryption-customer-algorithm".to_string(),
                    "AES256".to_string(),
                ),
                (
                    "x-amz-server-side-encryption-customer-key".to_string(),
                    qrmk.clone(),
                ),
            ],
            _ => Vec::new(),
        };
        Ok(ResultSet {
            columns: rowtype.iter().map(Column::from_rowtype).collect(),
            arrow,
            first,
            chunks,
            chunk_headers,
        })
    }

    /// Reads rows until `limit` (one row more than its cap, or the byte
    /// budget), downloading chunks as needed before `deadline`.
    pub(crate) fn read(
        self,
        endpoint: &Endpoint,
        limit: RowLimit,
        deadline: Instant,
    ) -> Result<Fetched, WireError> {
        let mut reader = Reader {
            columns: &self.columns,
            rows: Vec::new(),
            budget: ResultBudget::new(limit),
            wanted: limit.rows.saturating_add(1),
            stopped: false,
        };
        if self.arrow {
            if let Some(encoded) = self.first.as_str().filter(|s| !s.is_empty()) {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(encoded)
                    .map_err(|_| WireError::Protocol("rowsetBase64 is not base64".into()))?;
                reader.arrow(&bytes)?;
            }
        } else if let Some(rows) = self.first.as_array() {
            reader.json(rows);
        }
        for url in &self.chunks {
            if reader.full() {
                break;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(WireError::Unreachable(
                    "the result's chunks could not be read within the statement timeout".into(),
                ));
            }
            let bytes =
                endpoint.chunk(url, &self.chunk_headers, left.max(Duration::from_secs(1)))?;
            if self.arrow {
                reader.arrow(&bytes)?;
            } else {
                // A JSON chunk is the rows without the enclosing brackets.
                let mut wrapped = Vec::with_capacity(bytes.len() + 2);
                wrapped.push(b'[');
                wrapped.extend_from_slice(&bytes);
                wrapped.push(b']');
                let rows: Vec<Value> = serde_json::from_slice(&wrapped).map_err(|e| {
                    WireError::Protocol(format!("a JSON result chunk does not parse: {e}"))
                })?;
                reader.json(&rows);
            }
        }
        let stopped = reader.stopped;
        let cut_at_bytes = reader.budget.cut_at(stopped);
        Ok(Fetched {
            headers: self.columns.iter().map(|c| c.name.clone()).collect(),
            header_types: Some(self.columns.iter().map(|c| c.type_name.clone()).collect()),
            rows: reader.rows,
            cut_at_bytes,
        })
    }
}

/// Collects rows up to the cap and the budget.
struct Reader<'a> {
    columns: &'a [Column],
    rows: Vec<Vec<Value>>,
    budget: ResultBudget,
    wanted: usize,
    stopped: bool,
}

impl Reader<'_> {
    fn full(&self) -> bool {
        self.stopped || self.rows.len() >= self.wanted
    }

    /// Takes one row; `false` once no more are wanted.
    fn push(&mut self, mut row: Vec<Value>) -> bool {
        if self.full() {
            return false;
        }
        if !self.budget.admit(&mut row) {
            self.stopped = true;
            return false;
        }
        self.rows.push(row);
        !self.full()
    }

    fn json(&mut self, rows: &[Value]) {
        for row in rows {
            let cells = row.as_array().map(Vec::as_slice).unwrap_or_default();
            let values = self
                .columns
                .iter()
                .enumerate()
                .map(|(i, column)| json_cell(column, cells.get(i).unwrap_or(&Value::Null)))
                .collect();
            if !self.push(values) {
                return;
            }
        }
    }

    fn arrow(&mut self, bytes: &[u8]) -> Result<(), WireError> {
        for batch in arrow::batches(bytes)? {
            let arrays = batch.columns();
            for row in 0..batch.num_rows() {
                let values = self
                    .columns
                    .iter()
                    .enumerate()
                    .map(|(i, column)| match arrays.get(i) {
                        Some(array) => arrow::cell(column, array, row),
                        None => Value::Null,
                    })
                    .collect();
                if !self.push(values) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}
