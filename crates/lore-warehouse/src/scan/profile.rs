//! Column profiles: what the data in each column looks like, measured with
//! read-only SQL on a bounded sample of each table (`scan.sample_rows`,
//! default 10 000 rows; PostgreSQL tables much larger than the sample are
//! sampled with `TABLESAMPLE SYSTEM` so the rows are not only the oldest).
//!
//! Every column gets its row, null and distinct counts in the sample; text
//! columns their shortest and longest value; numbers and dates their
//! smallest and largest. Text that always holds ISO-8601 dates is marked
//! as time (`inferredType`), which matters for SQLite, where dates are
//! text.
//!
//! Dictionary columns (short text, enums and booleans that are not ids,
//! contact details, secrets, free text or timestamps: see
//! [`dictionary_exclusion`]) also keep their most frequent values with
//! counts (`topValues`, default 20) and further distinct values up to
//! `scan.dictionary.max_values` (`otherValues`). Those values back
//! `dictionary_search`, so an agent can find which column holds
//! "Acme Labs".

use lore_core::config::{
    DEFAULT_DICTIONARY_EXCLUDES, DictionaryConfig, ScanConfig, pattern_matches,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::introspect::{INTERNAL_MAX_ROWS, integer, text};
use crate::connector::Connector;
use crate::dialect::SqlDialect;
use crate::error::WarehouseError;
use crate::schema::{DimensionType, SchemaColumn, SchemaTable, TableKind, TableRef};

/// Columns measured in one aggregate query (keeps every engine under its
/// select-list limit).
const COLUMNS_PER_QUERY: usize = 100;

/// `profile.json`: the profiles of every table of one snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileArtifact {
    /// Connection id.
    pub connection_id: String,
    /// The snapshot these profiles belong to.
    pub sync_id: String,
    /// When profiling finished (ISO-8601 UTC).
    pub profiled_at: String,
    /// Most rows sampled per table.
    pub sample_rows: u64,
    /// Most frequent values kept per dictionary column.
    pub top_values_per_column: u32,
    /// Distinct values kept per dictionary column.
    pub dictionary_max_values: u32,
    /// One entry per profiled table.
    pub tables: Vec<TableProfile>,
}

/// The profile of one table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TableProfile {
    /// Catalog of the table.
    pub catalog: Option<String>,
    /// Schema or database of the table.
    pub db: Option<String>,
    /// Table name.
    pub name: String,
    /// Rows in the sample.
    pub sampled_rows: u64,
    /// Why the table could not be profiled, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Column profiles, in column order.
    pub columns: Vec<ColumnProfile>,
}

/// A value and how often it occurs in the sample.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ValueCount {
    /// The value as text.
    pub value: String,
    /// Occurrences in the sample.
    pub count: u64,
}

/// The profile of one column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ColumnProfile {
    /// Column name.
    pub name: String,
    /// Rows in the sample.
    pub row_count: u64,
    /// NULLs in the sample.
    pub null_count: u64,
    /// Distinct non-NULL values in the sample.
    pub distinct_count: u64,
    /// Shortest text value, in characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Longest text value, in characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// Smallest value (numbers and dates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_value: Option<Value>,
    /// Largest value (numbers and dates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_value: Option<Value>,
    /// `date` or `timestamp` when a text column holds only ISO-8601 dates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inferred_type: Option<String>,
    /// Whether the column's values feed `dictionary_search`.
    pub dictionary: bool,
    /// Why a text column was left out of the dictionary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dictionary_excluded_by: Option<String>,
    /// Most frequent values with their counts, most frequent first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub top_values: Vec<ValueCount>,
    /// Further distinct values, by decreasing frequency.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_values: Vec<String>,
}

impl TableProfile {
    /// The profiled table's identity.
    pub fn table_ref(&self) -> TableRef {
        TableRef {
            catalog: self.catalog.clone(),
            db: self.db.clone(),
            name: self.name.clone(),
        }
    }
}

impl ColumnProfile {
    /// Every dictionary value of the column, most frequent first.
    pub fn values(&self) -> impl Iterator<Item = &str> {
        self.top_values
            .iter()
            .map(|v| v.value.as_str())
            .chain(self.other_values.iter().map(String::as_str))
    }
}

/// Which aggregates a column gets.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Measure {
    /// Lengths, ISO-date check, dictionary candidate.
    Text,
    /// Smallest and largest value.
    Ordered,
    /// Counts only.
    Plain,
}

fn measure_of(column: &SchemaColumn) -> Measure {
    match column.normalized_type.as_str() {
        "text" | "enum" => Measure::Text,
        "integer" | "decimal" | "float" | "date" | "timestamp" | "timestamptz" | "time" => {
            Measure::Ordered
        }
        _ => Measure::Plain,
    }
}

/// An expression whose distinct values are the column's distinct values,
/// for every type of every engine (PostgreSQL `json` has no equality;
/// MySQL compares text case-insensitively unless told otherwise).
fn distinct_key(dialect: SqlDialect, column: &SchemaColumn, quoted: &str) -> String {
    match (dialect, column.normalized_type.as_str()) {
        (
            SqlDialect::Postgres | SqlDialect::Snowflake | SqlDialect::Duckdb,
            "json" | "array" | "other" | "binary",
        ) => dialect.cast_to_text(quoted),
        (SqlDialect::Mysql, "text" | "enum") => group_key(dialect, quoted),
        // Arrays, records, JSON and geographies cannot be grouped.
        (SqlDialect::Bigquery, "json" | "array" | "other" | "interval") => {
            format!("TO_JSON_STRING({quoted})")
        }
        _ => quoted.to_string(),
    }
}

/// A text expression that groups values exactly (case-sensitively).
fn group_key(dialect: SqlDialect, quoted: &str) -> String {
    match dialect {
        SqlDialect::Mysql => format!("CAST({quoted} AS CHAR) COLLATE utf8mb4_bin"),
        _ => dialect.cast_to_text(quoted),
    }
}

/// The `FROM` clause of the sample: the first rows of the table, or for a
/// PostgreSQL table far larger than the sample, a random set of its pages.
fn sample_source(
    dialect: SqlDialect,
    table: &SchemaTable,
    columns: &str,
    sample_rows: u64,
) -> String {
    let quoted = dialect.quote_table(table.db.as_deref(), &table.name);
    let estimated = table.estimated_rows.unwrap_or(0);
    let tablesample = matches!(dialect, SqlDialect::Postgres | SqlDialect::Bigquery)
        && table.kind == TableKind::Table
        && estimated > sample_rows.saturating_mul(5);
    if tablesample {
        // Ask for three samples' worth of pages, then cut to the sample.
        // (BigQuery then also bills only the blocks it reads.)
        let percent = (sample_rows as f64 * 300.0 / estimated as f64).clamp(0.0001, 100.0);
        let unit = if dialect == SqlDialect::Bigquery {
            " PERCENT"
        } else {
            ""
        };
        format!(
            "SELECT {columns} FROM {quoted} TABLESAMPLE SYSTEM ({percent:.4}{unit}) LIMIT {sample_rows}"
        )
    } else {
        format!("SELECT {columns} FROM {quoted} LIMIT {sample_rows}")
    }
}

/// `body` reading the sample under the name it gets: a CTE `s`, or (on
/// ClickHouse, whose 18.x has no `WITH … AS (subquery)`) the sample
/// inlined as a derived table `(…) AS s` at each place it is read.
fn with_sample(dialect: SqlDialect, sample: &str, body: impl Fn(&str) -> String) -> String {
    match dialect {
        SqlDialect::Clickhouse => body(&format!("({sample}) AS s")),
        _ => format!("WITH s AS ({sample}) {}", body("s")),
    }
}

/// Why a column stays out of the dictionary by its name or type, or `None`
/// when it may enter (its values are checked afterwards).
pub fn dictionary_exclusion(
    table: &SchemaTable,
    column: &SchemaColumn,
    config: &DictionaryConfig,
) -> Option<String> {
    let qualified = format!("{}.{}", table.name, column.name);
    let matches = |pattern: &str| {
        if pattern.contains('.') {
            pattern_matches(pattern, &qualified)
        } else {
            pattern_matches(pattern, &column.name)
        }
    };
    let eligible_type = matches!(column.normalized_type.as_str(), "text" | "enum" | "boolean");
    if !eligible_type {
        return Some(format!("type {}", column.normalized_type));
    }
    if column.dimension_type == DimensionType::Time {
        return Some("holds dates".to_string());
    }
    if config.include_columns.iter().any(|p| matches(p)) {
        return None;
    }
    if let Some(pattern) = DEFAULT_DICTIONARY_EXCLUDES
        .iter()
        .copied()
        .chain(config.exclude_columns.iter().map(String::as_str))
        .find(|p| matches(p))
    {
        return Some(format!("name rule `{pattern}`"));
    }
    if is_camel_case_id(&column.name) {
        return Some("name rule `*Id`".to_string());
    }
    None
}

/// `customerId`, `orderUUID`: an identifier in camelCase.
fn is_camel_case_id(name: &str) -> bool {
    ["Id", "ID", "Uuid", "UUID", "Key"].iter().any(|suffix| {
        name.strip_suffix(suffix)
            .and_then(|stem| stem.chars().last())
            .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    })
}

/// Profiles one table. Failures are recorded in the profile (`error`)
/// rather than stopping the scan.
pub(crate) async fn profile_table(
    connector: &Connector,
    table: &SchemaTable,
    config: &ScanConfig,
) -> TableProfile {
    match measure_table(connector, table, config).await {
        Ok(profile) => profile,
        Err(e) => TableProfile {
            catalog: table.catalog.clone(),
            db: table.db.clone(),
            name: table.name.clone(),
            sampled_rows: 0,
            error: Some(e.to_string()),
            columns: Vec::new(),
        },
    }
}

async fn measure_table(
    connector: &Connector,
    table: &SchemaTable,
    config: &ScanConfig,
) -> Result<TableProfile, WarehouseError> {
    let dialect = connector.dialect();
    let mut columns: Vec<ColumnProfile> = Vec::with_capacity(table.columns.len());
    let mut sampled_rows = 0;
    for group in table.columns.chunks(COLUMNS_PER_QUERY) {
        let (sampled, measured) = measure_columns(connector, dialect, table, group, config).await?;
        sampled_rows = sampled;
        columns.extend(measured);
    }
    let candidates: Vec<usize> = columns
        .iter()
        .enumerate()
        .filter(|(_, c)| c.dictionary)
        .map(|(i, _)| i)
        .collect();
    if !candidates.is_empty() {
        let keep = config.top_values.max(config.dictionary.max_values) as usize;
        let mut values =
            frequent_values(connector, dialect, table, &candidates, keep, config).await?;
        for (slot, index) in candidates.iter().enumerate() {
            let counted = std::mem::take(&mut values[slot]);
            let column = &mut columns[*index];
            let (top, other) = counted.split_at(counted.len().min(config.top_values as usize));
            column.top_values = top.to_vec();
            column.other_values = other
                .iter()
                .take(config.dictionary.max_values as usize)
                .map(|v| v.value.clone())
                .collect();
        }
    }
    Ok(TableProfile {
        catalog: table.catalog.clone(),
        db: table.db.clone(),
        name: table.name.clone(),
        sampled_rows,
        error: None,
        columns,
    })
}

/// One aggregate query over the sample for a group of columns.
async fn measure_columns(
    connector: &Connector,
    dialect: SqlDialect,
    table: &SchemaTable,
    group: &[SchemaColumn],
    config: &ScanConfig,
) -> Result<(u64, Vec<ColumnProfile>), WarehouseError> {
    let quoted: Vec<String> = group.iter().map(|c| dialect.quote_ident(&c.name)).collect();
    let mut select = vec!["count(*)".to_string()];
    for (column, q) in group.iter().zip(&quoted) {
        select.push(format!("count({q})"));
        select.push(format!(
            "count(DISTINCT {})",
            distinct_key(dialect, column, q)
        ));
        match measure_of(column) {
            Measure::Text => {
                let length = dialect.text_length(q);
                select.push(format!("min({length})"));
                select.push(format!("max({length})"));
                select.push(format!(
                    "sum(CASE WHEN {} THEN 1 ELSE 0 END)",
                    dialect.looks_like_iso_date(&dialect.cast_to_text(q))
                ));
            }
            Measure::Ordered => {
                select.push(format!("min({q})"));
                select.push(format!("max({q})"));
            }
            Measure::Plain => {}
        }
    }
    let sql = with_sample(
        dialect,
        &sample_source(dialect, table, &quoted.join(", "), config.sample_rows),
        |s| format!("SELECT {} FROM {s}", select.join(", ")),
    );
    let result = connector.run(&sql, 1).await?;
    let row = result.rows.into_iter().next().unwrap_or_default();
    let mut cells = row.into_iter();
    let mut next = || cells.next().unwrap_or(Value::Null);
    let count = |v: Value| integer(&v).and_then(|n| u64::try_from(n).ok()).unwrap_or(0);
    let sampled = count(next());
    let mut profiles = Vec::with_capacity(group.len());
    for column in group {
        let non_null = count(next());
        let distinct = count(next());
        let mut profile = ColumnProfile {
            name: column.name.clone(),
            row_count: sampled,
            null_count: sampled.saturating_sub(non_null),
            distinct_count: distinct,
            min_length: None,
            max_length: None,
            min_value: None,
            max_value: None,
            inferred_type: None,
            dictionary: false,
            dictionary_excluded_by: None,
            top_values: Vec::new(),
            other_values: Vec::new(),
        };
        match measure_of(column) {
            Measure::Text => {
                profile.min_length = integer(&next()).and_then(|n| u64::try_from(n).ok());
                profile.max_length = integer(&next()).and_then(|n| u64::try_from(n).ok());
                let iso = count(next());
                if non_null > 0 && iso == non_null {
                    profile.inferred_type = Some(
                        if profile.max_length == Some(10) {
                            "date"
                        } else {
                            "timestamp"
                        }
                        .to_string(),
                    );
                }
            }
            Measure::Ordered => {
                profile.min_value = Some(next()).filter(|v| !v.is_null());
                profile.max_value = Some(next()).filter(|v| !v.is_null());
            }
            Measure::Plain => {}
        }
        let mut typed = column.clone();
        if profile.inferred_type.is_some() {
            typed.dimension_type = DimensionType::Time;
        }
        profile.dictionary_excluded_by = dictionary_exclusion(table, &typed, &config.dictionary)
            .or_else(|| {
                if distinct == 0 {
                    Some("no values in the sample".to_string())
                } else if profile.max_length.unwrap_or(0)
                    > u64::from(config.dictionary.max_value_length)
                {
                    Some(format!(
                        "free text (values up to {} characters)",
                        profile.max_length.unwrap_or(0)
                    ))
                } else {
                    None
                }
            });
        profile.dictionary = profile.dictionary_excluded_by.is_none();
        // Only text columns need saying why they are not in the dictionary.
        if !matches!(measure_of(column), Measure::Text) && column.normalized_type != "boolean" {
            profile.dictionary_excluded_by = None;
        }
        profiles.push(profile);
    }
    Ok((sampled, profiles))
}

/// The `keep` most frequent values of each candidate column, in one query.
async fn frequent_values(
    connector: &Connector,
    dialect: SqlDialect,
    table: &SchemaTable,
    candidates: &[usize],
    keep: usize,
    config: &ScanConfig,
) -> Result<Vec<Vec<ValueCount>>, WarehouseError> {
    let all: Vec<String> = candidates
        .iter()
        .map(|&i| dialect.quote_ident(&table.columns[i].name))
        .collect();
    let sql = with_sample(
        dialect,
        &sample_source(dialect, table, &all.join(", "), config.sample_rows),
        |s| {
            all.iter()
                .enumerate()
                .map(|(slot, q)| {
                    let key = group_key(dialect, q);
                    format!(
                        "SELECT * FROM (SELECT {slot} AS slot, {key} AS v, count(*) AS n FROM {s} \
                         WHERE {q} IS NOT NULL GROUP BY {key} ORDER BY n DESC, v LIMIT {keep}) AS q{slot}"
                    )
                })
                .collect::<Vec<_>>()
                .join(" UNION ALL ")
        },
    );
    let result = connector.run(&sql, INTERNAL_MAX_ROWS).await?;
    let mut values = vec![Vec::new(); candidates.len()];
    for row in result.rows {
        let (Some(slot), Some(value)) = (integer(&row[0]), text(&row[1]).or(Some(String::new())))
        else {
            continue;
        };
        if let Some(bucket) = values.get_mut(slot as usize) {
            bucket.push(ValueCount {
                value,
                count: integer(&row[2])
                    .and_then(|n| u64::try_from(n).ok())
                    .unwrap_or(0),
            });
        }
    }
    // UNION ALL keeps each part's order on every engine Lore supports, but
    // nothing promises it: sort again.
    for bucket in &mut values {
        bucket.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.value.cmp(&b.value)));
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str, normalized: &str) -> SchemaColumn {
        SchemaColumn {
            name: name.into(),
            native_type: normalized.into(),
            normalized_type: normalized.into(),
            dimension_type: DimensionType::String,
            nullable: true,
            primary_key: false,
            unique: false,
            comment: None,
        }
    }

    fn table() -> SchemaTable {
        SchemaTable::named(None, "accounts")
    }

    #[test]
    fn ids_emails_and_free_text_stay_out_of_the_dictionary() {
        let config = DictionaryConfig::default();
        let t = table();
        for (name, kind) in [
            ("account_id", "text"),
            ("customerId", "text"),
            ("billing_email", "text"),
            ("description", "text"),
            ("created_at", "text"),
            ("amount", "integer"),
        ] {
            assert!(
                dictionary_exclusion(&t, &column(name, kind), &config).is_some(),
                "{name} should be excluded"
            );
        }
        for name in ["status", "segment", "name", "paid", "valid"] {
            assert_eq!(
                dictionary_exclusion(&t, &column(name, "text"), &config),
                None,
                "{name}"
            );
        }
    }

    #[test]
    fn configured_patterns_include_and_exclude_by_table_and_column() {
        let config = DictionaryConfig {
            include_columns: vec!["accounts.status_key".into()],
            exclude_columns: vec!["segment".into()],
            ..DictionaryConfig::default()
        };
        let t = table();
        assert_eq!(
            dictionary_exclusion(&t, &column("status_key", "text"), &config),
            None
        );
        assert_eq!(
            dictionary_exclusion(&t, &column("segment", "text"), &config).as_deref(),
            Some("name rule `segment`")
        );
    }

    #[test]
    fn large_postgres_tables_are_sampled_across_their_pages() {
        let mut t = table();
        t.estimated_rows = Some(10_000_000);
        let sql = sample_source(SqlDialect::Postgres, &t, "\"a\"", 10_000);
        assert!(sql.contains("TABLESAMPLE SYSTEM (0.3000)"), "{sql}");
        t.estimated_rows = Some(20_000);
        let sql = sample_source(SqlDialect::Postgres, &t, "\"a\"", 10_000);
        assert!(!sql.contains("TABLESAMPLE"), "{sql}");
        assert!(sql.ends_with("LIMIT 10000"), "{sql}");
    }
}
