//! The shape of a warehouse as a scan records it: tables and views, their
//! columns and keys, in the JSON format of the scan snapshot
//! (`tables/<table>.json`, one file per table).
//!
//! Each column carries three types: the database's own (`nativeType`,
//! `VARCHAR(20)`), a small normalised vocabulary shared by all drivers
//! (`normalizedType`: `integer`, `decimal`, `float`, `boolean`, `text`,
//! `enum`, `date`, `timestamp`, `timestamptz`, `time`, `interval`, `json`,
//! `uuid`, `binary`, `array`, `other`), and how the column behaves as a
//! dimension (`dimensionType`: `time`, `string`, `number`, `boolean`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a table lives: `{catalog, db, name}`. `db` is the schema
/// (PostgreSQL) or database (MySQL); SQLite has neither.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub struct TableRef {
    /// Catalog (a database above schemas), when the driver has one.
    pub catalog: Option<String>,
    /// Schema or database.
    pub db: Option<String>,
    /// Table or view name.
    pub name: String,
}

impl TableRef {
    /// The name agents write in SQL: `db.name`, or `name` alone.
    pub fn display(&self) -> String {
        qualified_name(self.catalog.as_deref(), self.db.as_deref(), &self.name)
    }
}

/// `catalog.db.name` with the absent parts left out.
pub fn qualified_name(catalog: Option<&str>, db: Option<&str>, name: &str) -> String {
    [catalog, db, Some(name)]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(".")
}

/// What kind of relation a table is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TableKind {
    /// A base table (also partitioned parents).
    Table,
    /// A view or materialized view.
    View,
    /// A foreign or external table.
    External,
    /// A streaming source.
    EventStream,
}

/// How a column behaves as a dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DimensionType {
    /// Dates and timestamps (also text holding ISO-8601 dates).
    Time,
    /// Text and anything without arithmetic.
    String,
    /// Integers, decimals, floats.
    Number,
    /// True/false.
    Boolean,
}

/// One column of a table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SchemaColumn {
    /// Column name.
    pub name: String,
    /// The type as the database declares it, e.g. `character varying(20)`.
    pub native_type: String,
    /// The type in Lore's shared vocabulary, e.g. `text`.
    pub normalized_type: String,
    /// How the column behaves as a dimension.
    pub dimension_type: DimensionType,
    /// Whether NULL is allowed.
    pub nullable: bool,
    /// Whether the column is part of the primary key.
    pub primary_key: bool,
    /// Whether a single-column unique constraint or index covers it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unique: bool,
    /// The database comment on the column.
    pub comment: Option<String>,
}

/// One column pair of a declared foreign key; a composite key is several
/// entries with the same `constraintName`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ForeignKey {
    /// Column of this table.
    pub from_column: String,
    /// Catalog of the referenced table.
    pub to_catalog: Option<String>,
    /// Schema or database of the referenced table (may differ from this table's).
    pub to_db: Option<String>,
    /// Referenced table.
    pub to_table: String,
    /// Referenced column.
    pub to_column: String,
    /// Constraint name, when the database names it.
    pub constraint_name: Option<String>,
}

/// One table or view as scanned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SchemaTable {
    /// Catalog, when the driver has one.
    pub catalog: Option<String>,
    /// Schema or database.
    pub db: Option<String>,
    /// Table or view name.
    pub name: String,
    /// Table, view, external table or stream.
    pub kind: TableKind,
    /// The database comment on the table.
    pub comment: Option<String>,
    /// Row count estimate (statistics, or an exact count when cheap).
    pub estimated_rows: Option<u64>,
    /// Columns in declaration order.
    pub columns: Vec<SchemaColumn>,
    /// Declared foreign keys.
    pub foreign_keys: Vec<ForeignKey>,
}

impl SchemaTable {
    /// The table's identity.
    pub fn table_ref(&self) -> TableRef {
        TableRef {
            catalog: self.catalog.clone(),
            db: self.db.clone(),
            name: self.name.clone(),
        }
    }

    /// A column by exact name.
    pub fn column(&self, name: &str) -> Option<&SchemaColumn> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The primary key columns, in declaration order.
    pub fn primary_key(&self) -> Vec<&str> {
        self.columns
            .iter()
            .filter(|c| c.primary_key)
            .map(|c| c.name.as_str())
            .collect()
    }
}

/// `(normalizedType, dimensionType)` of a normalised type name.
pub(crate) fn classify(normalized: &'static str) -> (&'static str, DimensionType) {
    let dimension = match normalized {
        "integer" | "decimal" | "float" => DimensionType::Number,
        "boolean" => DimensionType::Boolean,
        "date" | "timestamp" | "timestamptz" => DimensionType::Time,
        _ => DimensionType::String,
    };
    (normalized, dimension)
}

/// Normalises a SQLite declared type, following SQLite's affinity rules
/// after the names that carry more meaning (booleans, dates).
pub fn normalize_sqlite_type(declared: &str) -> (&'static str, DimensionType) {
    let t = declared.to_ascii_uppercase();
    let normalized = if t.contains("BOOL") {
        "boolean"
    } else if t.contains("TIMESTAMP") || t.contains("DATETIME") {
        "timestamp"
    } else if t.contains("DATE") {
        "date"
    } else if t.contains("TIME") {
        "time"
    } else if t.contains("JSON") {
        "json"
    } else if t.contains("UUID") {
        "uuid"
    } else if t.contains("INT") {
        "integer"
    } else if t.contains("CHAR") || t.contains("CLOB") || t.contains("TEXT") {
        "text"
    } else if t.contains("BLOB") {
        "binary"
    } else if t.trim().is_empty() {
        "other"
    } else if t.contains("REAL") || t.contains("FLOA") || t.contains("DOUB") {
        "float"
    } else {
        "decimal"
    };
    classify(normalized)
}

/// Normalises a PostgreSQL type from its (base) `typname`, `typtype` and
/// `typcategory`.
pub fn normalize_postgres_type(
    typname: &str,
    typtype: &str,
    category: &str,
) -> (&'static str, DimensionType) {
    let normalized = match typname {
        "int2" | "int4" | "int8" | "oid" => "integer",
        "numeric" | "money" => "decimal",
        "float4" | "float8" => "float",
        "bool" => "boolean",
        "text" | "varchar" | "bpchar" | "name" | "citext" | "char" => "text",
        "date" => "date",
        "timestamp" => "timestamp",
        "timestamptz" => "timestamptz",
        "time" | "timetz" => "time",
        "interval" => "interval",
        "json" | "jsonb" => "json",
        "uuid" => "uuid",
        "bytea" => "binary",
        _ if typtype == "e" => "enum",
        _ if category == "A" => "array",
        _ if category == "S" => "text",
        _ if category == "N" => "decimal",
        _ => "other",
    };
    classify(normalized)
}

/// Normalises a MySQL/MariaDB type from `data_type` and `column_type`.
pub fn normalize_mysql_type(data_type: &str, column_type: &str) -> (&'static str, DimensionType) {
    let data_type = data_type.to_ascii_lowercase();
    let column_type = column_type.to_ascii_lowercase();
    let normalized = match data_type.as_str() {
        "tinyint" if column_type.starts_with("tinyint(1)") => "boolean",
        "bit" if column_type == "bit(1)" => "boolean",
        "bool" | "boolean" => "boolean",
        "tinyint" | "smallint" | "mediumint" | "int" | "integer" | "bigint" | "year" | "bit" => {
            "integer"
        }
        "decimal" | "numeric" => "decimal",
        "float" | "double" | "real" => "float",
        "char" | "varchar" | "tinytext" | "text" | "mediumtext" | "longtext" | "set" => "text",
        "enum" => "enum",
        "date" => "date",
        "datetime" | "timestamp" => "timestamp",
        "time" => "time",
        "json" => "json",
        "binary" | "varbinary" | "tinyblob" | "blob" | "mediumblob" | "longblob" => "binary",
        _ => "other",
    };
    classify(normalized)
}

/// Normalises a BigQuery Standard SQL type as `INFORMATION_SCHEMA.COLUMNS`
/// spells it (`INT64`, `NUMERIC(10, 2)`, `ARRAY<STRING>`, `STRUCT<…>`).
pub fn normalize_bigquery_type(data_type: &str) -> (&'static str, DimensionType) {
    let upper = data_type.trim().to_ascii_uppercase();
    let base = upper.split(['(', '<']).next().unwrap_or_default().trim();
    let normalized = match base {
        "INT64" | "INTEGER" | "INT" | "SMALLINT" | "BIGINT" | "TINYINT" | "BYTEINT" => "integer",
        "NUMERIC" | "BIGNUMERIC" | "DECIMAL" | "BIGDECIMAL" => "decimal",
        "FLOAT64" | "FLOAT" => "float",
        "BOOL" | "BOOLEAN" => "boolean",
        "STRING" => "text",
        "BYTES" => "binary",
        "DATE" => "date",
        "DATETIME" => "timestamp",
        "TIMESTAMP" => "timestamptz",
        "TIME" => "time",
        "INTERVAL" => "interval",
        "JSON" => "json",
        "ARRAY" => "array",
        _ => "other",
    };
    classify(normalized)
}

/// Normalises a DuckDB type as `duckdb_columns()` spells it
/// (`DECIMAL(12,2)`, `VARCHAR[]`, `TIMESTAMP WITH TIME ZONE`, `ENUM(…)`).
pub fn normalize_duckdb_type(data_type: &str) -> (&'static str, DimensionType) {
    let t = data_type.trim().to_ascii_uppercase();
    let base = t.split('(').next().unwrap_or_default().trim();
    let normalized = if t.ends_with(']') {
        "array"
    } else {
        match base {
            "BOOLEAN" | "BOOL" => "boolean",
            "TINYINT" | "SMALLINT" | "INTEGER" | "INT" | "BIGINT" | "HUGEINT" | "UTINYINT"
            | "USMALLINT" | "UINTEGER" | "UBIGINT" | "UHUGEINT" | "BIGNUM" | "VARINT" => "integer",
            "DECIMAL" | "NUMERIC" => "decimal",
            "FLOAT" | "REAL" | "DOUBLE" => "float",
            "VARCHAR" | "TEXT" | "STRING" | "CHAR" | "BPCHAR" => "text",
            "ENUM" => "enum",
            "DATE" => "date",
            "TIMESTAMP WITH TIME ZONE" | "TIMESTAMPTZ" => "timestamptz",
            "TIMESTAMP" | "DATETIME" | "TIMESTAMP_S" | "TIMESTAMP_MS" | "TIMESTAMP_NS" => {
                "timestamp"
            }
            "TIME" | "TIME WITH TIME ZONE" | "TIMETZ" | "TIME_NS" => "time",
            "INTERVAL" => "interval",
            "JSON" => "json",
            "UUID" => "uuid",
            "BLOB" | "BYTEA" => "binary",
            _ => "other",
        }
    };
    classify(normalized)
}

#[cfg(test)]
impl SchemaTable {
    /// An empty base table, for tests.
    pub(crate) fn named(db: Option<&str>, name: &str) -> SchemaTable {
        SchemaTable {
            catalog: None,
            db: db.map(str::to_string),
            name: name.to_string(),
            kind: TableKind::Table,
            comment: None,
            estimated_rows: None,
            columns: Vec::new(),
            foreign_keys: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_types_follow_affinity_after_meaningful_names() {
        assert_eq!(
            normalize_sqlite_type("INTEGER"),
            ("integer", DimensionType::Number)
        );
        assert_eq!(
            normalize_sqlite_type("varchar(20)"),
            ("text", DimensionType::String)
        );
        assert_eq!(
            normalize_sqlite_type("DATETIME"),
            ("timestamp", DimensionType::Time)
        );
        assert_eq!(
            normalize_sqlite_type("BOOLEAN"),
            ("boolean", DimensionType::Boolean)
        );
        assert_eq!(
            normalize_sqlite_type("DECIMAL(10,2)"),
            ("decimal", DimensionType::Number)
        );
        assert_eq!(normalize_sqlite_type(""), ("other", DimensionType::String));
    }

    #[test]
    fn server_types_normalise_to_the_shared_vocabulary() {
        assert_eq!(
            normalize_postgres_type("timestamptz", "b", "D"),
            ("timestamptz", DimensionType::Time)
        );
        assert_eq!(
            normalize_postgres_type("mood", "e", "E"),
            ("enum", DimensionType::String)
        );
        assert_eq!(
            normalize_postgres_type("_int4", "b", "A"),
            ("array", DimensionType::String)
        );
        assert_eq!(
            normalize_mysql_type("tinyint", "tinyint(1)"),
            ("boolean", DimensionType::Boolean)
        );
        assert_eq!(
            normalize_mysql_type("int", "int(10) unsigned"),
            ("integer", DimensionType::Number)
        );
        assert_eq!(
            normalize_duckdb_type("DECIMAL(12,2)"),
            ("decimal", DimensionType::Number)
        );
        assert_eq!(
            normalize_duckdb_type("TIMESTAMP WITH TIME ZONE"),
            ("timestamptz", DimensionType::Time)
        );
        assert_eq!(
            normalize_duckdb_type("VARCHAR[]"),
            ("array", DimensionType::String)
        );
        assert_eq!(
            normalize_duckdb_type("ENUM('x', 'y')"),
            ("enum", DimensionType::String)
        );
        assert_eq!(
            normalize_duckdb_type("STRUCT(a INTEGER)"),
            ("other", DimensionType::String)
        );
        assert_eq!(
            normalize_bigquery_type("NUMERIC(10, 2)"),
            ("decimal", DimensionType::Number)
        );
        assert_eq!(
            normalize_bigquery_type("TIMESTAMP"),
            ("timestamptz", DimensionType::Time)
        );
        assert_eq!(
            normalize_bigquery_type("ARRAY<STRUCT<a INT64>>"),
            ("array", DimensionType::String)
        );
        assert_eq!(
            normalize_bigquery_type("STRUCT<city STRING>"),
            ("other", DimensionType::String)
        );
    }

    #[test]
    fn display_joins_the_qualified_parts() {
        let table = TableRef {
            catalog: None,
            db: Some("billing".into()),
            name: "invoices".into(),
        };
        assert_eq!(table.display(), "billing.invoices");
    }
}
