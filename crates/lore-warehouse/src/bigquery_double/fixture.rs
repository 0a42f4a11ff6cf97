//! The double's project: its datasets, tables, keys, descriptions and
//! rows, and the `INFORMATION_SCHEMA` views and `__TABLES__` meta-table
//! BigQuery derives from them.
//!
//! - `shop`: customers (arrays, records, descriptions), orders (every
//!   scalar type, a declared foreign key), order_items (an undeclared
//!   key), the `paid_orders` view, `page_me` (25 rows, for paging) and
//!   `clickstream` (5 TiB as BigQuery would bill it, for budgets);
//! - `hr`: `salaries`, which the service account may not read;
//! - `slow`: `sleepy`, a job that takes a minute;
//! - `sl`: the semantic layer's test data (plans, accounts, invoices,
//!   invoice_lines, tickets), as in `lore-semantic/tests/engines.rs`.

/// A column: name, BigQuery type (`INT64`, `ARRAY<STRING>`,
/// `STRUCT<city STRING, zip STRING>`), nullability, description.
pub struct Column {
    pub name: &'static str,
    pub bq_type: &'static str,
    pub nullable: bool,
    pub description: Option<&'static str>,
}

/// A declared foreign key.
pub struct ForeignKeyDef {
    pub name: &'static str,
    pub columns: &'static [&'static str],
    pub to_table: &'static str,
    pub to_columns: &'static [&'static str],
}

/// One table or view of the double.
pub struct Table {
    pub dataset: &'static str,
    pub name: &'static str,
    /// `BASE TABLE` or `VIEW`.
    pub kind: &'static str,
    pub description: Option<&'static str>,
    pub columns: Vec<Column>,
    pub primary_key: &'static [&'static str],
    pub foreign_keys: Vec<ForeignKeyDef>,
    /// SQLite `VALUES` tuples, or the view's SQLite `SELECT`.
    pub rows: &'static str,
    /// Bytes a query reading the table processes (as BigQuery would count).
    pub logical_bytes: u64,
    /// How long a job reading the table runs.
    pub delay_ms: u64,
    /// Whether the service account may not read it.
    pub denied: bool,
}

fn col(name: &'static str, bq_type: &'static str) -> Column {
    Column {
        name,
        bq_type,
        nullable: true,
        description: None,
    }
}

fn key(name: &'static str, bq_type: &'static str) -> Column {
    Column {
        nullable: false,
        ..col(name, bq_type)
    }
}

fn described(mut column: Column, description: &'static str) -> Column {
    column.description = Some(description);
    column
}

fn table(
    dataset: &'static str,
    name: &'static str,
    columns: Vec<Column>,
    rows: &'static str,
) -> Table {
    Table {
        dataset,
        name,
        kind: "BASE TABLE",
        description: None,
        columns,
        primary_key: &[],
        foreign_keys: Vec::new(),
        rows,
        logical_bytes: 2 * 1024 * 1024,
        delay_ms: 0,
        denied: false,
    }
}

/// Every table of the double's project.
pub fn tables() -> Vec<Table> {
    let mut all = vec![
        Table {
            description: Some("People and companies that buy from the shop"),
            primary_key: &["id"],
            ..table(
                "shop",
                "customers",
                vec![
                    key("id", "INT64"),
                    col("name", "STRING"),
                    described(col("segment", "STRING"), "Pricing tier: smb or enterprise"),
                    col("country", "STRING"),
                    col("signed_up_at", "TIMESTAMP"),
                    col("tags", "ARRAY<STRING>"),
                    col("address", "STRUCT<city STRING, zip STRING>"),
                ],
                r#"(1, 'Acme Labs', 'enterprise', 'DE', '2024-01-10 09:00:00', '["b2b","eu"]', '{"city":"Berlin","zip":"10115"}'),
               (2, 'Globex', 'enterprise', 'US', '2024-02-11 10:30:00', '["b2b"]', '{"city":"Springfield","zip":"49007"}'),
               (3, 'Initech', 'smb', 'US', '2024-03-12 08:15:00', '[]', '{"city":"Austin","zip":"73301"}'),
               (4, 'Umbrella', 'smb', 'FR', '2024-05-01 12:00:00', '["eu"]', NULL),
               (5, 'Hooli', NULL, 'US', '2024-06-01 18:45:30.25', '[]', '{"city":"Palo Alto","zip":null}')"#,
            )
        },
        Table {
            description: Some("One row per checkout"),
            primary_key: &["id"],
            foreign_keys: vec![ForeignKeyDef {
                name: "fk_orders_customer",
                columns: &["customer_id"],
                to_table: "customers",
                to_columns: &["id"],
            }],
            ..table(
                "shop",
                "orders",
                vec![
                    key("id", "INT64"),
                    col("customer_id", "INT64"),
                    col("status", "STRING"),
                    described(col("amount", "NUMERIC"), "Order total in EUR, tax included"),
                    col("weight_kg", "FLOAT64"),
                    col("paid", "BOOL"),
                    col("placed_at", "TIMESTAMP"),
                    col("placed_on", "DATE"),
                    col("picked_at", "DATETIME"),
                    col("receipt", "BYTES"),
                ],
                r#"(1, 1, 'paid', 120.5, 1.25, 1, '2025-01-05 10:00:00', '2025-01-05', '2025-01-05T11:30:00', X'00FF'),
               (2, 1, 'open', 25, 0.5, 0, '2025-02-07 09:00:00', '2025-02-07', NULL, NULL),
               (3, 2, 'paid', 500, 12.0, 1, '2025-01-20 12:00:00', '2025-01-20', '2025-01-21T08:00:00', NULL),
               (4, 3, 'paid', 70.25, 2.5, 1, '2025-04-01 08:00:00', '2025-04-01', '2025-04-01T09:15:00', NULL),
               (5, 4, 'void', 120, NULL, 0, '2025-07-15 16:00:00', '2025-07-15', NULL, NULL),
               (6, 2, 'paid', 300, 7.75, 1, '2025-11-30 23:00:00', '2025-11-30', '2025-12-01T10:00:00', NULL),
               (7, 5, 'refunded', 45.99, 0.3, 1, '2025-03-03 03:03:03', '2025-03-03', NULL, NULL),
               (8, 3, 'open', 15, NULL, 0, '2025-12-24 18:00:00', '2025-12-24', NULL, NULL)"#,
            )
        },
        Table {
            primary_key: &["id"],
            ..table(
                "shop",
                "order_items",
                vec![
                    key("id", "INT64"),
                    col("order_id", "INT64"),
                    col("product", "STRING"),
                    col("qty", "INT64"),
                ],
                "(1, 1, 'seats', 5), (2, 1, 'storage', 1), (3, 2, 'seats', 2), (4, 3, 'seats', 40),
             (5, 3, 'support', 1), (6, 4, 'storage', 3), (7, 5, 'seats', 10), (8, 6, 'seats', 20),
             (9, 6, 'support', 2), (10, 7, 'storage', 1), (11, 8, 'seats', 1)",
            )
        },
        Table {
            kind: "VIEW",
            description: Some("Orders that were paid"),
            ..table(
                "shop",
                "paid_orders",
                vec![
                    col("id", "INT64"),
                    col("customer_id", "INT64"),
                    col("amount", "NUMERIC"),
                ],
                "SELECT id, customer_id, amount FROM orders WHERE paid = 1",
            )
        },
        table(
            "shop",
            "page_me",
            vec![key("n", "INT64"), col("label", "STRING")],
            "(1, 'row 1'), (2, 'row 2'), (3, 'row 3'), (4, 'row 4'), (5, 'row 5'), (6, 'row 6'),
         (7, 'row 7'), (8, 'row 8'), (9, 'row 9'), (10, 'row 10'), (11, 'row 11'), (12, 'row 12'),
         (13, 'row 13'), (14, 'row 14'), (15, 'row 15'), (16, 'row 16'), (17, 'row 17'),
         (18, 'row 18'), (19, 'row 19'), (20, 'row 20'), (21, 'row 21'), (22, 'row 22'),
         (23, 'row 23'), (24, 'row 24'), (25, 'row 25')",
        ),
        Table {
            description: Some("Every page view since 2019 (billed by the terabyte)"),
            logical_bytes: 5 * 1024 * 1024 * 1024 * 1024,
            ..table(
                "shop",
                "clickstream",
                vec![col("url", "STRING"), col("seen_at", "TIMESTAMP")],
                "('/pricing', '2025-01-01 00:00:00'), ('/docs', '2025-01-02 00:00:00')",
            )
        },
        Table {
            denied: true,
            ..table(
                "hr",
                "salaries",
                vec![col("employee", "STRING"), col("salary", "NUMERIC")],
                "('Ann', 100000)",
            )
        },
        Table {
            delay_ms: 60_000,
            ..table("slow", "sleepy", vec![col("x", "INT64")], "(1)")
        },
    ];
    all.extend(semantic_tables());
    all
}

fn semantic_tables() -> Vec<Table> {
    vec![
        Table {
            primary_key: &["id"],
            ..table(
                "sl",
                "plans",
                vec![key("id", "INT64"), col("name", "STRING"), col("price_cents", "INT64")],
                "(1, 'Starter', 1000), (2, 'Pro', 5000), (3, 'Unused', 9000)",
            )
        },
        Table {
            primary_key: &["id"],
            ..table(
                "sl",
                "accounts",
                vec![
                    key("id", "INT64"),
                    col("name", "STRING"),
                    col("segment", "STRING"),
                    col("plan_id", "INT64"),
                    col("created_at", "TIMESTAMP"),
                ],
                "(1, 'Acme', 'smb', 1, '2024-01-10 00:00:00'), (2, 'Globex', 'enterprise', 2, '2024-02-11 00:00:00'),
                 (3, 'Initech', 'smb', 2, '2024-03-12 00:00:00'), (4, 'Umbrella', 'enterprise', 2, '2024-05-01 00:00:00'),
                 (5, 'Hooli', NULL, 1, '2024-06-01 00:00:00')",
            )
        },
        Table {
            primary_key: &["id"],
            ..table(
                "sl",
                "invoices",
                vec![
                    key("id", "INT64"),
                    col("account_id", "INT64"),
                    col("amount_cents", "INT64"),
                    col("status", "STRING"),
                    col("issued_at", "TIMESTAMP"),
                ],
                "(1, 1, 10000, 'paid', '2025-01-05 10:00:00'), (2, 1, 2500, 'open', '2025-02-07 09:00:00'),
                 (3, 2, 50000, 'paid', '2025-01-20 12:00:00'), (4, 3, 7000, 'paid', '2025-04-01 08:00:00'),
                 (5, 4, 12000, 'void', '2025-07-15 16:00:00'), (6, 2, 30000, 'paid', '2025-11-30 23:00:00')",
            )
        },
        Table {
            primary_key: &["id"],
            ..table(
                "sl",
                "invoice_lines",
                vec![
                    key("id", "INT64"),
                    col("invoice_id", "INT64"),
                    col("product", "STRING"),
                    col("qty", "INT64"),
                ],
                "(1, 1, 'seats', 5), (2, 1, 'storage', 1), (3, 1, 'seats', 2), (4, 3, 'seats', 40),
                 (5, 3, 'support', 1), (6, 4, 'storage', 3), (7, 5, 'seats', 10), (8, 6, 'seats', 20),
                 (9, 6, 'support', 2)",
            )
        },
        Table {
            primary_key: &["id"],
            ..table(
                "sl",
                "tickets",
                vec![
                    key("id", "INT64"),
                    col("account_id", "INT64"),
                    col("priority", "STRING"),
                    col("opened_at", "TIMESTAMP"),
                ],
                "(1, 1, 'high', '2025-01-02 00:00:00'), (2, 1, 'low', '2025-01-03 00:00:00'),
                 (3, 1, 'high', '2025-02-01 00:00:00'), (4, 2, 'low', '2025-03-01 00:00:00'),
                 (5, 4, 'high', '2025-03-05 00:00:00'), (6, 5, 'low', '2025-04-04 00:00:00')",
            )
        },
    ]
}

/// A BigQuery type as the REST schema gives it: `(type, mode, fields)`.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldType {
    pub kind: String,
    pub repeated: bool,
    pub fields: Vec<(String, FieldType)>,
}

impl FieldType {
    /// Parses `INT64`, `ARRAY<STRING>`, `STRUCT<a INT64, b ARRAY<STRING>>`.
    pub fn parse(text: &str) -> FieldType {
        let text = text.trim();
        if let Some(inner) = text
            .strip_prefix("ARRAY<")
            .and_then(|t| t.strip_suffix('>'))
        {
            return FieldType {
                repeated: true,
                ..FieldType::parse(inner)
            };
        }
        if let Some(inner) = text
            .strip_prefix("STRUCT<")
            .and_then(|t| t.strip_suffix('>'))
        {
            let fields = split_top_level(inner)
                .into_iter()
                .filter_map(|part| {
                    let (name, kind) = part.trim().split_once(' ')?;
                    Some((name.to_string(), FieldType::parse(kind)))
                })
                .collect();
            return FieldType {
                kind: "RECORD".to_string(),
                repeated: false,
                fields,
            };
        }
        FieldType {
            kind: match text {
                "INT64" => "INTEGER",
                "FLOAT64" => "FLOAT",
                "BOOL" => "BOOLEAN",
                other => other,
            }
            .to_string(),
            repeated: false,
            fields: Vec::new(),
        }
    }

    /// The `TableFieldSchema` JSON of a column `name` of this type.
    pub fn schema(&self, name: &str, nullable: bool) -> serde_json::Value {
        let mut field = serde_json::json!({
            "name": name,
            "type": self.kind,
            "mode": if self.repeated { "REPEATED" } else if nullable { "NULLABLE" } else { "REQUIRED" },
        });
        if !self.fields.is_empty() {
            field["fields"] = serde_json::Value::Array(
                self.fields.iter().map(|(n, t)| t.schema(n, true)).collect(),
            );
        }
        field
    }

    /// The SQLite storage class the values are kept in.
    pub fn affinity(&self) -> &'static str {
        if self.repeated || !self.fields.is_empty() {
            return "TEXT";
        }
        match self.kind.as_str() {
            "INTEGER" | "BOOLEAN" => "INTEGER",
            "FLOAT" => "REAL",
            "NUMERIC" | "BIGNUMERIC" => "NUMERIC",
            "BYTES" => "BLOB",
            _ => "TEXT",
        }
    }
}

fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in text.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// The columns of each `INFORMATION_SCHEMA` view the double serves, with
/// their BigQuery types (Google's documented names, the ones Lore reads).
pub const INFORMATION_SCHEMA: &[(&str, &[(&str, &str)])] = &[
    (
        "TABLES",
        &[
            ("table_catalog", "STRING"),
            ("table_schema", "STRING"),
            ("table_name", "STRING"),
            ("table_type", "STRING"),
            ("creation_time", "TIMESTAMP"),
        ],
    ),
    (
        "TABLE_OPTIONS",
        &[
            ("table_catalog", "STRING"),
            ("table_schema", "STRING"),
            ("table_name", "STRING"),
            ("option_name", "STRING"),
            ("option_type", "STRING"),
            ("option_value", "STRING"),
        ],
    ),
    (
        "COLUMNS",
        &[
            ("table_catalog", "STRING"),
            ("table_schema", "STRING"),
            ("table_name", "STRING"),
            ("column_name", "STRING"),
            ("ordinal_position", "INT64"),
            ("is_nullable", "STRING"),
            ("data_type", "STRING"),
        ],
    ),
    (
        "COLUMN_FIELD_PATHS",
        &[
            ("table_catalog", "STRING"),
            ("table_schema", "STRING"),
            ("table_name", "STRING"),
            ("column_name", "STRING"),
            ("field_path", "STRING"),
            ("data_type", "STRING"),
            ("description", "STRING"),
        ],
    ),
    (
        "TABLE_CONSTRAINTS",
        &[
            ("constraint_catalog", "STRING"),
            ("constraint_schema", "STRING"),
            ("constraint_name", "STRING"),
            ("table_catalog", "STRING"),
            ("table_schema", "STRING"),
            ("table_name", "STRING"),
            ("constraint_type", "STRING"),
            ("is_deferrable", "STRING"),
            ("initially_deferred", "STRING"),
            ("enforced", "STRING"),
        ],
    ),
    (
        "KEY_COLUMN_USAGE",
        &[
            ("constraint_catalog", "STRING"),
            ("constraint_schema", "STRING"),
            ("constraint_name", "STRING"),
            ("table_catalog", "STRING"),
            ("table_schema", "STRING"),
            ("table_name", "STRING"),
            ("column_name", "STRING"),
            ("ordinal_position", "INT64"),
            ("position_in_unique_constraint", "INT64"),
        ],
    ),
    (
        "CONSTRAINT_COLUMN_USAGE",
        &[
            ("table_catalog", "STRING"),
            ("table_schema", "STRING"),
            ("table_name", "STRING"),
            ("column_name", "STRING"),
            ("constraint_catalog", "STRING"),
            ("constraint_schema", "STRING"),
            ("constraint_name", "STRING"),
        ],
    ),
];

/// The columns of the legacy `__TABLES__` meta-table.
pub const META_TABLES: &[(&str, &str)] = &[
    ("project_id", "STRING"),
    ("dataset_id", "STRING"),
    ("table_id", "STRING"),
    ("row_count", "INT64"),
    ("size_bytes", "INT64"),
    ("type", "INT64"),
];

/// A BigQuery SQL string literal (for `TABLE_OPTIONS.option_value`).
pub fn sql_string(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}
