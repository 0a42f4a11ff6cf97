//! The SQL dialects Lore speaks: how statements are parsed (the guard) and
//! how the SQL Lore writes itself (introspection, profiles, relationship
//! checks) quotes identifiers and literals.

use lore_core::config::Driver;
use sqlparser::dialect::{
    BigQueryDialect, ClickHouseDialect, Dialect, DuckDbDialect, MySqlDialect, PostgreSqlDialect,
    SQLiteDialect, SnowflakeDialect,
};

/// The SQL dialect of a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SqlDialect {
    /// SQLite.
    Sqlite,
    /// PostgreSQL.
    Postgres,
    /// MySQL and MariaDB.
    Mysql,
    /// ClickHouse.
    Clickhouse,
    /// Snowflake: unquoted identifiers are stored upper case, so the SQL
    /// Lore writes quotes scanned names exactly as the catalog gives them.
    Snowflake,
    /// Google BigQuery (Standard SQL).
    Bigquery,
    /// DuckDB.
    Duckdb,
}

impl SqlDialect {
    /// Parses a dialect name as used in the guard corpus and the CLI.
    pub fn from_name(name: &str) -> Option<SqlDialect> {
        match name.to_ascii_lowercase().as_str() {
            "sqlite" => Some(SqlDialect::Sqlite),
            "postgres" | "postgresql" => Some(SqlDialect::Postgres),
            "mysql" | "mariadb" => Some(SqlDialect::Mysql),
            "clickhouse" => Some(SqlDialect::Clickhouse),
            "snowflake" => Some(SqlDialect::Snowflake),
            "bigquery" => Some(SqlDialect::Bigquery),
            "duckdb" => Some(SqlDialect::Duckdb),
            _ => None,
        }
    }

    /// The dialect's name.
    pub fn as_str(self) -> &'static str {
        match self {
            SqlDialect::Sqlite => "sqlite",
            SqlDialect::Postgres => "postgres",
            SqlDialect::Mysql => "mysql",
            SqlDialect::Clickhouse => "clickhouse",
            SqlDialect::Snowflake => "snowflake",
            SqlDialect::Bigquery => "bigquery",
            SqlDialect::Duckdb => "duckdb",
        }
    }

    pub(crate) fn parser_dialect(self) -> Box<dyn Dialect> {
        match self {
            SqlDialect::Sqlite => Box::new(SQLiteDialect {}),
            SqlDialect::Postgres => Box::new(PostgreSqlDialect {}),
            SqlDialect::Mysql => Box::new(MySqlDialect {}),
            SqlDialect::Clickhouse => Box::new(ClickHouseDialect {}),
            SqlDialect::Snowflake => Box::new(SnowflakeDialect {}),
            SqlDialect::Bigquery => Box::new(BigQueryDialect {}),
            SqlDialect::Duckdb => Box::new(DuckDbDialect {}),
        }
    }

    /// An identifier quoted for this dialect: `"name"` (backticks for
    /// MySQL and BigQuery), with embedded quote characters doubled
    /// (escaped with a backslash in BigQuery, which has no doubling).
    pub fn quote_ident(self, name: &str) -> String {
        if self == SqlDialect::Bigquery {
            return bigquery_ident(name);
        }
        let quote = match self {
            SqlDialect::Mysql => '`',
            SqlDialect::Sqlite
            | SqlDialect::Postgres
            | SqlDialect::Clickhouse
            | SqlDialect::Snowflake
            | SqlDialect::Bigquery
            | SqlDialect::Duckdb => '"',
        };
        let mut quoted = String::with_capacity(name.len() + 2);
        quoted.push(quote);
        for c in name.chars() {
            if c == quote {
                quoted.push(quote);
            }
            quoted.push(c);
        }
        quoted.push(quote);
        quoted
    }

    /// A table name qualified by its schema when it has one: `"db"."name"`.
    pub fn quote_table(self, db: Option<&str>, name: &str) -> String {
        match db {
            Some(db) => format!("{}.{}", self.quote_ident(db), self.quote_ident(name)),
            None => self.quote_ident(name),
        }
    }

    /// A string literal: `'text'` with quotes doubled (and backslashes
    /// doubled for MySQL, ClickHouse and Snowflake, where they escape;
    /// BigQuery escapes both with a backslash).
    pub fn quote_literal(self, text: &str) -> String {
        if self == SqlDialect::Bigquery {
            return bigquery_literal(text);
        }
        let mut escaped = text.replace('\'', "''");
        if matches!(
            self,
            SqlDialect::Mysql | SqlDialect::Clickhouse | SqlDialect::Snowflake
        ) {
            escaped = escaped.replace('\\', "\\\\");
        }
        format!("'{escaped}'")
    }

    /// An expression casting `expr` to text.
    pub fn cast_to_text(self, expr: &str) -> String {
        match self {
            SqlDialect::Sqlite => format!("CAST({expr} AS TEXT)"),
            SqlDialect::Postgres => format!("({expr})::text"),
            SqlDialect::Mysql => format!("CAST({expr} AS CHAR)"),
            SqlDialect::Clickhouse => format!("toString({expr})"),
            SqlDialect::Snowflake => format!("TO_VARCHAR({expr})"),
            SqlDialect::Bigquery => format!("CAST({expr} AS STRING)"),
            SqlDialect::Duckdb => format!("CAST({expr} AS VARCHAR)"),
        }
    }

    /// The length in characters of a text expression.
    pub fn text_length(self, expr: &str) -> String {
        match self {
            SqlDialect::Sqlite | SqlDialect::Duckdb => format!("length({expr})"),
            SqlDialect::Postgres | SqlDialect::Mysql | SqlDialect::Bigquery => {
                format!("char_length({expr})")
            }
            // Enums, UUIDs and FixedStrings have no text length of their own.
            SqlDialect::Clickhouse => format!("lengthUTF8(toString({expr}))"),
            SqlDialect::Snowflake => format!("length({expr})"),
        }
    }

    /// A predicate: the text expression starts like an ISO-8601 date
    /// (`YYYY-MM-DD`).
    pub fn looks_like_iso_date(self, expr: &str) -> String {
        match self {
            SqlDialect::Sqlite => {
                format!("{expr} GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]*'")
            }
            SqlDialect::Postgres => format!("{expr} ~ '^[0-9]{{4}}-[01][0-9]-[0-3][0-9]'"),
            SqlDialect::Mysql => format!("{expr} REGEXP '^[0-9]{{4}}-[01][0-9]-[0-3][0-9]'"),
            SqlDialect::Duckdb => {
                format!("regexp_matches({expr}, '^[0-9]{{4}}-[01][0-9]-[0-3][0-9]')")
            }
            SqlDialect::Clickhouse => format!("match({expr}, '^[0-9]{{4}}-[01][0-9]-[0-3][0-9]')"),
            // REGEXP_LIKE matches the whole text.
            SqlDialect::Snowflake => {
                format!("REGEXP_LIKE({expr}, '[0-9]{{4}}-[01][0-9]-[0-3][0-9].*', 's')")
            }
            SqlDialect::Bigquery => {
                format!("REGEXP_CONTAINS({expr}, r'^[0-9]{{4}}-[01][0-9]-[0-3][0-9]')")
            }
        }
    }

    /// A schema or table name as written in `lore.yaml` or a URL, as the
    /// catalog stores it: Snowflake keeps an unquoted name upper case
    /// (`analytics` is `ANALYTICS`) and a `"quoted"` one exactly; other
    /// engines keep names as written.
    pub fn fold_identifier(self, name: &str) -> String {
        let name = name.trim();
        if self != SqlDialect::Snowflake {
            return name.to_string();
        }
        match name
            .strip_prefix('"')
            .and_then(|rest| rest.strip_suffix('"'))
        {
            Some(quoted) => quoted.replace("\"\"", "\""),
            None => name.to_ascii_uppercase(),
        }
    }
}

impl From<Driver> for SqlDialect {
    fn from(driver: Driver) -> Self {
        match driver {
            Driver::Sqlite => SqlDialect::Sqlite,
            Driver::Postgres => SqlDialect::Postgres,
            Driver::Mysql => SqlDialect::Mysql,
            Driver::Clickhouse => SqlDialect::Clickhouse,
            Driver::Snowflake => SqlDialect::Snowflake,
            Driver::Bigquery => SqlDialect::Bigquery,
            Driver::Duckdb => SqlDialect::Duckdb,
        }
    }
}

/// A BigQuery identifier in backticks, with backticks and backslashes escaped.
pub fn bigquery_ident(name: &str) -> String {
    format!("`{}`", name.replace('\\', "\\\\").replace('`', "\\`"))
}

/// A BigQuery string literal in single quotes, with quotes and backslashes escaped.
pub fn bigquery_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            _ => out.push(c),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_and_literals_are_quoted_per_dialect() {
        assert_eq!(SqlDialect::Postgres.quote_ident("we\"ird"), "\"we\"\"ird\"");
        assert_eq!(SqlDialect::Mysql.quote_ident("a`b"), "`a``b`");
        assert_eq!(
            SqlDialect::Postgres.quote_table(Some("billing"), "Invoices"),
            "\"billing\".\"Invoices\""
        );
        assert_eq!(SqlDialect::Sqlite.quote_literal("O'Brien"), "'O''Brien'");
        assert_eq!(SqlDialect::Mysql.quote_literal("a\\'"), "'a\\\\'''");
        assert_eq!(SqlDialect::Bigquery.quote_ident("a`b"), r"`a\`b`");
        assert_eq!(
            SqlDialect::Bigquery.quote_table(Some("shop"), "orders"),
            "`shop`.`orders`"
        );
        assert_eq!(SqlDialect::Bigquery.quote_literal(r"O'B\"), r"'O\'B\\'");
        assert_eq!(
            SqlDialect::Snowflake.quote_table(Some("SALES"), "ORDERS"),
            "\"SALES\".\"ORDERS\""
        );
    }

    #[test]
    fn snowflake_folds_unquoted_names_to_upper_case() {
        assert_eq!(
            SqlDialect::Snowflake.fold_identifier("analytics"),
            "ANALYTICS"
        );
        assert_eq!(
            SqlDialect::Snowflake.fold_identifier("\"MixedCase\""),
            "MixedCase"
        );
        assert_eq!(
            SqlDialect::Postgres.fold_identifier("analytics"),
            "analytics"
        );
    }
}
