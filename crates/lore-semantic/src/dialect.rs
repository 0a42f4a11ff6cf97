//! How compiled SQL is spelled for each engine: identifier quoting, time
//! truncation, null-safe equality and the aggregates that differ.
//!
//! SQLite, PostgreSQL, MySQL/MariaDB, ClickHouse and Snowflake (fakesnow)
//! are executed in tests; DuckDB and BigQuery are rendered and tested as
//! text.

use serde::{Deserialize, Serialize};

use crate::error::SemanticError;

/// A SQL dialect the planner renders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// SQLite (dates stored as ISO-8601 text).
    Sqlite,
    /// PostgreSQL.
    Postgres,
    /// MySQL and MariaDB.
    Mysql,
    /// DuckDB.
    Duckdb,
    /// Snowflake.
    Snowflake,
    /// Google BigQuery (Standard SQL).
    Bigquery,
    /// ClickHouse (from 18.16: the planner writes one join per SELECT and
    /// no CTEs, see `planner::clickhouse`).
    Clickhouse,
}

/// A time granularity of a dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Granularity {
    /// The calendar day.
    Day,
    /// The ISO week, starting on Monday.
    Week,
    /// The calendar month.
    Month,
    /// The calendar quarter.
    Quarter,
    /// The calendar year.
    Year,
}

impl Granularity {
    /// All granularities, for messages.
    pub const ALL: [Granularity; 5] = [
        Granularity::Day,
        Granularity::Week,
        Granularity::Month,
        Granularity::Quarter,
        Granularity::Year,
    ];

    /// The granularity's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Granularity::Day => "day",
            Granularity::Week => "week",
            Granularity::Month => "month",
            Granularity::Quarter => "quarter",
            Granularity::Year => "year",
        }
    }

    /// Parses a granularity name (case-insensitive).
    pub fn parse(name: &str) -> Option<Granularity> {
        Granularity::ALL
            .into_iter()
            .find(|g| g.as_str().eq_ignore_ascii_case(name.trim()))
    }
}

impl Dialect {
    /// Parses a dialect or driver name.
    pub fn from_name(name: &str) -> Option<Dialect> {
        match name.to_ascii_lowercase().as_str() {
            "sqlite" => Some(Dialect::Sqlite),
            "postgres" | "postgresql" => Some(Dialect::Postgres),
            "mysql" | "mariadb" => Some(Dialect::Mysql),
            "duckdb" => Some(Dialect::Duckdb),
            "snowflake" => Some(Dialect::Snowflake),
            "bigquery" => Some(Dialect::Bigquery),
            "clickhouse" => Some(Dialect::Clickhouse),
            _ => None,
        }
    }

    /// The dialect's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Sqlite => "sqlite",
            Dialect::Postgres => "postgres",
            Dialect::Mysql => "mysql",
            Dialect::Duckdb => "duckdb",
            Dialect::Snowflake => "snowflake",
            Dialect::Bigquery => "bigquery",
            Dialect::Clickhouse => "clickhouse",
        }
    }

    /// An identifier, quoted, with embedded quote characters doubled
    /// (backticks for MySQL and BigQuery, double quotes elsewhere).
    pub fn quote(self, name: &str) -> String {
        let q = match self {
            Dialect::Mysql | Dialect::Bigquery => '`',
            _ => '"',
        };
        let mut out = String::with_capacity(name.len() + 2);
        out.push(q);
        for c in name.chars() {
            if c == q {
                out.push(q);
            }
            out.push(c);
        }
        out.push(q);
        out
    }

    /// A table or column name as written in a model, quoted so that the
    /// engine finds the object the name means there. Snowflake stores
    /// unquoted names in upper case, so a name written in one case
    /// (`orders`, `ORDERS`) means the upper-case object, as it would
    /// unquoted in Snowflake's own SQL; a mixed-case name (`OrderItems`)
    /// can only have been created quoted and is kept as written.
    /// Elsewhere this is [`quote`](Dialect::quote).
    pub fn quote_object(self, name: &str) -> String {
        if self == Dialect::Snowflake && is_single_case_identifier(name) {
            self.quote(&name.to_ascii_uppercase())
        } else {
            self.quote(name)
        }
    }

    /// How a model names a stored object, as its users write it: in
    /// Snowflake, which stores unquoted names in upper case, an upper-case
    /// name (`CUSTOMERS`) is written in lower case (`customers`), as dbt
    /// users write it; [`quote_object`](Dialect::quote_object) finds the
    /// same object from either. Mixed-case names, and every name
    /// elsewhere, are kept as stored.
    pub fn model_name(self, stored: &str) -> String {
        if self == Dialect::Snowflake && is_single_case_identifier(stored) {
            stored.to_ascii_lowercase()
        } else {
            stored.to_string()
        }
    }

    /// A table name as written in a model (`schema.table`, or `table`),
    /// each part quoted as [`quote_object`](Dialect::quote_object) does.
    pub fn quote_table(self, name: &str) -> String {
        name.split('.')
            .map(|part| self.quote_object(part.trim_matches(|c| c == '"' || c == '`')))
            .collect::<Vec<_>>()
            .join(".")
    }

    /// The name a result column is given in SQL for the output `name`
    /// (`accounts.segment`). BigQuery's result columns may hold only
    /// letters, digits and `_` (it writes results to a table): there the
    /// other characters become `_`; callers label the columns with the
    /// output names (`CompiledQuery::columns`). Elsewhere the name as is.
    pub fn output_name(self, name: &str) -> String {
        match self {
            Dialect::Bigquery => {
                let mut out: String = name
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                    .collect();
                if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                    out.insert(0, '_');
                }
                out
            }
            _ => name.to_string(),
        }
    }

    /// `expr` truncated to the start of its `granularity` period.
    pub fn time_trunc(self, expr: &str, granularity: Granularity) -> String {
        let g = granularity.as_str();
        match self {
            Dialect::Postgres | Dialect::Duckdb => format!("date_trunc('{g}', {expr})"),
            Dialect::Snowflake => format!("DATE_TRUNC('{}', {expr})", g.to_ascii_uppercase()),
            Dialect::Bigquery => {
                let part = match granularity {
                    Granularity::Week => "ISOWEEK".to_string(),
                    other => other.as_str().to_ascii_uppercase(),
                };
                format!("DATE_TRUNC(CAST({expr} AS DATE), {part})")
            }
            Dialect::Clickhouse => match granularity {
                Granularity::Day => format!("toDate({expr})"),
                Granularity::Week => format!("toMonday({expr})"),
                Granularity::Month => format!("toStartOfMonth({expr})"),
                Granularity::Quarter => format!("toStartOfQuarter({expr})"),
                Granularity::Year => format!("toStartOfYear({expr})"),
            },
            Dialect::Sqlite => match granularity {
                Granularity::Day => format!("date({expr})"),
                Granularity::Week => format!(
                    "date({expr}, '-' || ((CAST(strftime('%w', {expr}) AS INTEGER) + 6) % 7) || ' days')"
                ),
                Granularity::Month => format!("strftime('%Y-%m-01', {expr})"),
                // printf would turn NULL into text: keep NULL as NULL.
                Granularity::Quarter => format!(
                    "CASE WHEN {expr} IS NULL THEN NULL ELSE printf('%s-%02d-01', strftime('%Y', {expr}), ((CAST(strftime('%m', {expr}) AS INTEGER) - 1) / 3) * 3 + 1) END"
                ),
                Granularity::Year => format!("strftime('%Y-01-01', {expr})"),
            },
            Dialect::Mysql => match granularity {
                Granularity::Day => format!("DATE({expr})"),
                Granularity::Week => {
                    format!("DATE_SUB(DATE({expr}), INTERVAL WEEKDAY({expr}) DAY)")
                }
                Granularity::Month => format!("CAST(DATE_FORMAT({expr}, '%Y-%m-01') AS DATE)"),
                Granularity::Quarter => {
                    format!("MAKEDATE(YEAR({expr}), 1) + INTERVAL (QUARTER({expr}) - 1) QUARTER")
                }
                Granularity::Year => format!("MAKEDATE(YEAR({expr}), 1)"),
            },
        }
    }

    /// `expr`, a day, moved by `count` units (back when negative). A month
    /// end moved by months stays a month end when the target month is
    /// shorter (March 31 less a month is February 29), as each engine's
    /// own date arithmetic does (SQLite's with its `floor` modifier).
    pub fn shift(self, expr: &str, count: i64, unit: Granularity) -> String {
        // Weeks as days and quarters as months, for engines without them.
        let (n, unit) = match unit {
            Granularity::Week => (count * 7, Granularity::Day),
            Granularity::Quarter => (count * 3, Granularity::Month),
            other => (count, other),
        };
        let upper = unit.as_str().to_ascii_uppercase();
        let magnitude = n.unsigned_abs();
        let back = n < 0;
        match self {
            Dialect::Sqlite => match unit {
                Granularity::Day => format!("date({expr}, '{n:+} days')"),
                Granularity::Year => format!("date({expr}, '{n:+} years', 'floor')"),
                _ => format!("date({expr}, '{n:+} months', 'floor')"),
            },
            Dialect::Postgres | Dialect::Duckdb => format!(
                "({expr} {} interval '{magnitude} {}')",
                if back { "-" } else { "+" },
                unit.as_str()
            ),
            Dialect::Mysql | Dialect::Bigquery => format!(
                "{}({expr}, INTERVAL {magnitude} {upper})",
                if back { "DATE_SUB" } else { "DATE_ADD" }
            ),
            Dialect::Snowflake => format!("DATEADD({upper}, {n}, {expr})"),
            Dialect::Clickhouse => {
                let unit = match unit {
                    Granularity::Day => "Days",
                    Granularity::Year => "Years",
                    _ => "Months",
                };
                format!(
                    "{}{unit}({expr}, {magnitude})",
                    if back { "subtract" } else { "add" }
                )
            }
        }
    }

    /// A query listing every day from `lo` to `hi` of the one-row CTE
    /// `bounds` (days as [`time_trunc`](Dialect::time_trunc) to the day
    /// gives them), one row per day in column `d`; no row when `lo` is
    /// NULL. `this` is the name of the CTE it defines, and the flag says
    /// whether it reads itself (`WITH RECURSIVE`). MySQL (whose recursion
    /// stops at 1,000 rows by default) and Snowflake (at 100) count up
    /// from `lo` in five digits instead, so there a range spans at most
    /// 100,000 days (273 years).
    pub fn day_series(self, bounds: &str, this: &str) -> (String, bool) {
        let q = |name: &str| self.quote(name);
        let (d, lo, hi) = (q("d"), q("lo"), q("hi"));
        match self {
            Dialect::Sqlite => (
                format!(
                    "SELECT {lo} AS {d} FROM {bounds} WHERE {lo} IS NOT NULL\n  UNION ALL\n  SELECT date({this}.{d}, '+1 day') FROM {this} JOIN {bounds} ON {this}.{d} < {bounds}.{hi}"
                ),
                true,
            ),
            Dialect::Postgres => (
                format!(
                    "SELECT generate_series({lo}, {hi}, interval '1 day') AS {d} FROM {bounds}"
                ),
                false,
            ),
            Dialect::Duckdb => (
                format!(
                    "SELECT unnest(generate_series({lo}, {hi}, interval '1 day')) AS {d} FROM {bounds}"
                ),
                false,
            ),
            Dialect::Bigquery => (
                format!(
                    "SELECT day AS {d} FROM {bounds} CROSS JOIN UNNEST(GENERATE_DATE_ARRAY({bounds}.{lo}, {bounds}.{hi})) AS day"
                ),
                false,
            ),
            Dialect::Clickhouse => (
                format!(
                    "SELECT addDays({lo}, arrayJoin(range(toUInt64(ifNull(toRelativeDayNum({hi}) - toRelativeDayNum({lo}) + 1, 0))))) AS {d} FROM {bounds}"
                ),
                false,
            ),
            Dialect::Mysql | Dialect::Snowflake => {
                let digits = "(SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)";
                let offset = "(n0.n + 10 * n1.n + 100 * n2.n + 1000 * n3.n + 10000 * n4.n)";
                let (day, span) = if self == Dialect::Mysql {
                    (
                        format!("DATE_ADD(b.{lo}, INTERVAL {offset} DAY)"),
                        format!("DATEDIFF(b.{hi}, b.{lo})"),
                    )
                } else {
                    (
                        format!("DATEADD(DAY, {offset}, b.{lo})"),
                        format!("DATEDIFF(DAY, b.{lo}, b.{hi})"),
                    )
                };
                let joins: String = (0..5)
                    .map(|i| format!(" CROSS JOIN {digits} n{i}"))
                    .collect();
                (
                    format!("SELECT {day} AS {d} FROM {bounds} b{joins} WHERE {offset} <= {span}"),
                    false,
                )
            }
        }
    }

    /// `a` equals `b`, where two NULLs are equal (joining aggregated rows
    /// on dimensions that may be NULL).
    pub fn null_safe_eq(self, a: &str, b: &str) -> String {
        match self {
            Dialect::Mysql => format!("{a} <=> {b}"),
            Dialect::Bigquery | Dialect::Clickhouse => {
                format!("({a} = {b} OR ({a} IS NULL AND {b} IS NULL))")
            }
            _ => format!("{a} IS NOT DISTINCT FROM {b}"),
        }
    }

    /// `numerator / denominator` in floating point, NULL when the
    /// denominator is 0 (MySQL keeps only a few decimals of a `DECIMAL`
    /// quotient, so the numerator is made a double there).
    pub fn ratio(self, numerator: &str, denominator: &str) -> String {
        match self {
            Dialect::Mysql => format!("({numerator}) * 1E0 / NULLIF({denominator}, 0)"),
            _ => format!("({numerator}) * 1.0 / NULLIF({denominator}, 0)"),
        }
    }

    /// The set union that removes duplicates.
    pub fn union_distinct(self) -> &'static str {
        match self {
            Dialect::Bigquery | Dialect::Clickhouse => "UNION DISTINCT",
            _ => "UNION",
        }
    }

    /// The continuous percentile `p` (0–1) of `expr`, as an aggregate.
    pub fn percentile(self, expr: &str, p: f64) -> Result<String, SemanticError> {
        match self {
            Dialect::Postgres | Dialect::Snowflake => Ok(format!(
                "percentile_cont({p}) WITHIN GROUP (ORDER BY {expr})"
            )),
            Dialect::Duckdb => Ok(format!("quantile_cont({expr}, {p})")),
            // SQLite's percentile extension (built into Lore's SQLite).
            Dialect::Sqlite => Ok(format!("percentile_cont({expr}, {p})")),
            Dialect::Mysql | Dialect::Bigquery => Err(SemanticError::Unsupported {
                message: format!(
                    "median and percentile are not aggregates in {}; query them with sql_execution (window functions), or use a measure such as avg",
                    self.as_str()
                ),
            }),
            // quantile() samples beyond 8192 values and quantileExact()
            // does not interpolate: neither is percentile_cont.
            Dialect::Clickhouse => Err(SemanticError::Unsupported {
                message: "ClickHouse has no exact interpolated percentile; query it with sql_execution (quantileExact(p)(col), or quantile(p)(col) approximately), or use a measure such as avg".to_string(),
            }),
        }
    }
}

/// `orders`, `ORDERS`, `order_2`: a plain identifier whose letters are
/// all of one case.
fn is_single_case_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let plain = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    plain
        && !(name.chars().any(|c| c.is_ascii_lowercase())
            && name.chars().any(|c| c.is_ascii_uppercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snowflake_objects_are_named_as_snowflake_stores_them() {
        assert_eq!(
            Dialect::Snowflake.quote_table("sales.orders"),
            "\"SALES\".\"ORDERS\""
        );
        assert_eq!(Dialect::Snowflake.quote_object("ORDERS"), "\"ORDERS\"");
        assert_eq!(
            Dialect::Snowflake.quote_object("OrderItems"),
            "\"OrderItems\""
        );
        assert_eq!(
            Dialect::Snowflake.quote_object("order items"),
            "\"order items\""
        );
        // Models name stored upper-case objects in lower case, and find
        // them again.
        assert_eq!(Dialect::Snowflake.model_name("COUNTRY"), "country");
        assert_eq!(
            Dialect::Snowflake.quote_object(&Dialect::Snowflake.model_name("COUNTRY")),
            "\"COUNTRY\""
        );
        assert_eq!(Dialect::Snowflake.model_name("OrderItems"), "OrderItems");
        assert_eq!(Dialect::Postgres.model_name("COUNTRY"), "COUNTRY");
        // Aliases are Lore's own and keep their case.
        assert_eq!(Dialect::Snowflake.quote("revenue"), "\"revenue\"");
        assert_eq!(Dialect::Postgres.quote_object("orders"), "\"orders\"");
    }

    #[test]
    fn identifiers_are_quoted_per_engine() {
        assert_eq!(
            Dialect::Postgres.quote("order \"items\""),
            "\"order \"\"items\"\"\""
        );
        assert_eq!(Dialect::Mysql.quote("a`b"), "`a``b`");
        assert_eq!(
            Dialect::Bigquery.quote_table("sales.orders"),
            "`sales`.`orders`"
        );
        assert_eq!(Dialect::Sqlite.quote_table("orders"), "\"orders\"");
    }

    #[test]
    fn bigquery_result_columns_are_plain_names() {
        assert_eq!(
            Dialect::Bigquery.output_name("invoices.issued_at.week"),
            "invoices_issued_at_week"
        );
        assert_eq!(Dialect::Bigquery.output_name("1st"), "_1st");
        assert_eq!(Dialect::Postgres.output_name("a.b"), "a.b");
    }

    #[test]
    fn time_truncation_is_rendered_for_every_engine() {
        assert_eq!(
            Dialect::Postgres.time_trunc("x", Granularity::Month),
            "date_trunc('month', x)"
        );
        assert_eq!(
            Dialect::Duckdb.time_trunc("x", Granularity::Week),
            "date_trunc('week', x)"
        );
        assert_eq!(
            Dialect::Snowflake.time_trunc("x", Granularity::Quarter),
            "DATE_TRUNC('QUARTER', x)"
        );
        assert_eq!(
            Dialect::Bigquery.time_trunc("x", Granularity::Week),
            "DATE_TRUNC(CAST(x AS DATE), ISOWEEK)"
        );
        assert_eq!(
            Dialect::Mysql.time_trunc("x", Granularity::Year),
            "MAKEDATE(YEAR(x), 1)"
        );
        assert_eq!(
            Dialect::Sqlite.time_trunc("x", Granularity::Month),
            "strftime('%Y-%m-01', x)"
        );
        assert_eq!(
            Dialect::Clickhouse.time_trunc("x", Granularity::Week),
            "toMonday(x)"
        );
    }

    #[test]
    fn sqlite_time_truncation_gives_period_starts() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let at = "'2025-08-14 13:45:00'"; // a Thursday in Q3
        let expect = [
            (Granularity::Day, "2025-08-14"),
            (Granularity::Week, "2025-08-11"),
            (Granularity::Month, "2025-08-01"),
            (Granularity::Quarter, "2025-07-01"),
            (Granularity::Year, "2025-01-01"),
        ];
        for (granularity, start) in expect {
            let sql = format!("SELECT {}", Dialect::Sqlite.time_trunc(at, granularity));
            let got: String = conn.query_row(&sql, [], |r| r.get(0)).unwrap();
            assert_eq!(got, start, "{granularity:?}");
        }
    }

    #[test]
    fn sqlite_date_shifts_keep_month_ends_as_other_engines_do() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let expect = [
            ("2024-03-31", -1, Granularity::Month, "2024-02-29"),
            ("2024-05-31", -1, Granularity::Quarter, "2024-02-29"),
            ("2024-02-29", 1, Granularity::Year, "2025-02-28"),
            ("2024-03-03", -1, Granularity::Week, "2024-02-25"),
            ("2024-03-01", -7, Granularity::Day, "2024-02-23"),
            ("2024-01-31", 1, Granularity::Month, "2024-02-29"),
        ];
        for (day, count, unit, want) in expect {
            let sql = format!(
                "SELECT {}",
                Dialect::Sqlite.shift(&format!("'{day}'"), count, unit)
            );
            let got: String = conn.query_row(&sql, [], |r| r.get(0)).unwrap();
            assert_eq!(got, want, "{day} {count:+} {unit:?}");
        }
        assert_eq!(
            Dialect::Postgres.shift("d", -2, Granularity::Quarter),
            "(d - interval '6 month')"
        );
        assert_eq!(
            Dialect::Clickhouse.shift("d", -1, Granularity::Week),
            "subtractDays(d, 7)"
        );
        assert_eq!(
            Dialect::Snowflake.shift("d", 1, Granularity::Year),
            "DATEADD(YEAR, 1, d)"
        );
    }

    #[test]
    fn percentiles_are_refused_where_the_engine_has_no_aggregate() {
        assert!(
            Dialect::Postgres
                .percentile("x", 0.5)
                .unwrap()
                .contains("WITHIN GROUP")
        );
        let err = Dialect::Mysql.percentile("x", 0.5).unwrap_err();
        assert!(err.to_string().contains("sql_execution"), "{err}");
    }
}
