//! Relationships between tables: declared foreign keys (`formal`) and
//! keys the data implies but nobody declared (`inferred`), as warehouses
//! built by ELT tools rarely declare any.
//!
//! Inference has two steps. Names propose candidates: a column
//! `customer_id` (or `customerId`, `customer_key`) points at a table
//! `customer` or `customers` (also behind a `stg_`, `dim_`, `fct_`, … prefix,
//! and after dropping leading qualifiers: `requester_user_id` → `users`);
//! a column named like another table's single-column primary key points at
//! that table. Then the data decides: read-only SQL takes the distinct
//! values of the child column in a sample and counts how many exist in the
//! parent key, and the parent key must be unique (declared, or in its
//! sample). A candidate is accepted when at least [`MIN_COVERAGE`] of its
//! values are found, the parent is unique and there are at least two
//! distinct values; every candidate is kept, accepted or rejected, with its
//! confidence and the evidence, so a reader can see why.

use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::introspect::integer;
use super::profile::TableProfile;
use crate::connector::Connector;
use crate::dialect::SqlDialect;
use crate::schema::{SchemaColumn, SchemaTable, TableKind, TableRef};

/// Share of sampled child values that must exist in the parent.
pub const MIN_COVERAGE: f64 = 0.95;
/// Confidence below which a candidate is rejected.
pub const MIN_CONFIDENCE: f64 = 0.6;

/// Table-name prefixes of common modelling layers, ignored when matching.
const LAYER_PREFIXES: &[&str] = &[
    "stg_", "dim_", "fct_", "fact_", "raw_", "src_", "int_", "tbl_", "d_", "f_",
];

/// `relationships.json`: every relationship of one snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RelationshipsArtifact {
    /// Connection id.
    pub connection_id: String,
    /// The snapshot these relationships belong to.
    pub sync_id: String,
    /// Formal ones first, then inferred ones by decreasing confidence.
    pub relationships: Vec<Relationship>,
}

/// Declared or inferred.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RelationshipKind {
    /// A declared foreign key.
    Formal,
    /// Proposed by names, checked against the data.
    Inferred,
}

/// Whether a relationship holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RelationshipStatus {
    /// Declared, or the data supports it.
    Accepted,
    /// Proposed by names but the data disagrees.
    Rejected,
}

/// One side of a relationship.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RelationshipEnd {
    /// Catalog of the table.
    pub catalog: Option<String>,
    /// Schema or database of the table.
    pub db: Option<String>,
    /// Table name.
    pub table: String,
    /// Columns, paired in order with the other side's.
    pub columns: Vec<String>,
}

impl RelationshipEnd {
    /// The table of this side.
    pub fn table_ref(&self) -> TableRef {
        TableRef {
            catalog: self.catalog.clone(),
            db: self.db.clone(),
            name: self.table.clone(),
        }
    }
}

/// What the data said about an inferred relationship.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RelationshipEvidence {
    /// The naming rule that proposed it.
    pub rule: String,
    /// Distinct non-NULL child values checked (from a sample).
    pub child_distinct: u64,
    /// How many of them exist in the parent.
    pub matched: u64,
    /// `matched / childDistinct`.
    pub coverage: f64,
    /// Whether the parent column is unique.
    pub parent_unique: bool,
    /// How uniqueness is known: `primary key`, `unique constraint` or `sample`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_unique_by: Option<String>,
    /// Why it was rejected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A relationship from child columns to parent columns (many-to-one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Relationship {
    /// The referencing (child) side.
    pub from: RelationshipEnd,
    /// The referenced (parent) side.
    pub to: RelationshipEnd,
    /// Declared or inferred.
    pub kind: RelationshipKind,
    /// Accepted or rejected.
    pub status: RelationshipStatus,
    /// 1 for declared keys; for inferred ones, how strongly names and data agree (0..1).
    pub confidence: f64,
    /// The constraint name of a declared key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraint_name: Option<String>,
    /// For inferred relationships: the rule and what the data said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<RelationshipEvidence>,
}

fn end(table: &SchemaTable, columns: Vec<String>) -> RelationshipEnd {
    RelationshipEnd {
        catalog: table.catalog.clone(),
        db: table.db.clone(),
        table: table.name.clone(),
        columns,
    }
}

/// Declared foreign keys, one relationship per constraint (composite keys
/// keep their column pairs in order).
pub(crate) fn formal_relationships(tables: &[SchemaTable]) -> Vec<Relationship> {
    let mut relationships = Vec::new();
    for table in tables {
        let mut by_constraint: BTreeMap<String, Vec<&crate::schema::ForeignKey>> = BTreeMap::new();
        for (index, fk) in table.foreign_keys.iter().enumerate() {
            let key = fk
                .constraint_name
                .clone()
                .unwrap_or_else(|| format!("#{index}"));
            by_constraint.entry(key).or_default().push(fk);
        }
        for (constraint, fks) in by_constraint {
            let first = fks[0];
            relationships.push(Relationship {
                from: end(table, fks.iter().map(|f| f.from_column.clone()).collect()),
                to: RelationshipEnd {
                    catalog: first.to_catalog.clone(),
                    db: first.to_db.clone(),
                    table: first.to_table.clone(),
                    columns: fks.iter().map(|f| f.to_column.clone()).collect(),
                },
                kind: RelationshipKind::Formal,
                status: RelationshipStatus::Accepted,
                confidence: 1.0,
                constraint_name: first
                    .constraint_name
                    .clone()
                    .filter(|_| !constraint.starts_with('#')),
                evidence: None,
            });
        }
    }
    relationships
}

/// A relationship proposed by names, not yet checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Candidate {
    pub child: usize,
    pub child_column: String,
    pub parent: usize,
    pub parent_column: String,
    pub rule: String,
    pub name_score: f64,
}

/// A table name without its modelling-layer prefix, lower-cased.
fn base_name(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    LAYER_PREFIXES
        .iter()
        .find_map(|p| lower.strip_prefix(p).filter(|rest| !rest.is_empty()))
        .unwrap_or(&lower)
        .to_string()
}

fn plural(word: &str) -> String {
    if let Some(stem) = word.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'i', 'o', 'u'])
    {
        return format!("{stem}ies");
    }
    if word.ends_with(['s', 'x', 'z']) || word.ends_with("ch") || word.ends_with("sh") {
        return format!("{word}es");
    }
    format!("{word}s")
}

/// The stem a key column names: `customer_id` → `customer`.
fn key_stem(column: &str) -> Option<String> {
    let lower = column.to_ascii_lowercase();
    for suffix in ["_id", "_key", "_fk", "_sk"] {
        if let Some(stem) = lower.strip_suffix(suffix).filter(|s| !s.is_empty()) {
            return Some(stem.to_string());
        }
    }
    // camelCase: customerId, customerID.
    for suffix in ["Id", "ID"] {
        if let Some(stem) = column.strip_suffix(suffix)
            && stem.chars().last().is_some_and(|c| c.is_ascii_lowercase())
        {
            return Some(stem.to_ascii_lowercase());
        }
    }
    None
}

/// Value families that can be compared with `=` on every engine.
fn family(column: &SchemaColumn) -> &str {
    match column.normalized_type.as_str() {
        "integer" | "decimal" => "number",
        "text" | "enum" => "text",
        other => other,
    }
}

/// The column of `parent` that a reference to it most likely targets.
fn parent_key<'a>(
    parent: &'a SchemaTable,
    child_column: &str,
    stem: &str,
) -> Option<&'a SchemaColumn> {
    let key = parent.primary_key();
    if key.len() == 1 {
        return parent.column(key[0]);
    }
    let wanted = [
        "id".to_string(),
        child_column.to_ascii_lowercase(),
        format!("{stem}_id"),
    ];
    wanted.iter().find_map(|w| {
        parent
            .columns
            .iter()
            .find(|c| c.name.to_ascii_lowercase() == *w)
    })
}

/// Candidates proposed by column and table names.
pub(crate) fn candidates(tables: &[SchemaTable]) -> Vec<Candidate> {
    let mut by_base: HashMap<String, Vec<usize>> = HashMap::new();
    let mut by_key_name: HashMap<String, Vec<usize>> = HashMap::new();
    for (index, table) in tables.iter().enumerate() {
        if table.kind == TableKind::Table {
            by_base
                .entry(base_name(&table.name))
                .or_default()
                .push(index);
            let key = table.primary_key();
            if key.len() == 1 && !key[0].eq_ignore_ascii_case("id") {
                by_key_name
                    .entry(key[0].to_ascii_lowercase())
                    .or_default()
                    .push(index);
            }
        }
    }
    let mut found: Vec<Candidate> = Vec::new();
    for (child_index, table) in tables.iter().enumerate() {
        let declared: Vec<&str> = table
            .foreign_keys
            .iter()
            .map(|f| f.from_column.as_str())
            .collect();
        let own_key = table.primary_key();
        for column in &table.columns {
            if declared.contains(&column.name.as_str())
                || (own_key.len() == 1 && own_key[0] == column.name)
            {
                continue;
            }
            let mut proposals: Vec<(usize, String, String, f64)> = Vec::new();
            if let Some(stem) = key_stem(&column.name) {
                let tokens: Vec<&str> = stem.split('_').filter(|t| !t.is_empty()).collect();
                for dropped in 0..tokens.len() {
                    let variant = tokens[dropped..].join("_");
                    if variant.len() < 2 {
                        continue;
                    }
                    let score = if dropped == 0 { 1.0 } else { 0.85 };
                    for name in [variant.clone(), plural(&variant)] {
                        for &parent in by_base.get(&name).into_iter().flatten() {
                            proposals.push((
                                parent,
                                variant.clone(),
                                format!(
                                    "column `{}` names table `{}`",
                                    column.name, tables[parent].name
                                ),
                                score,
                            ));
                        }
                    }
                    if !proposals.is_empty() {
                        break;
                    }
                }
            }
            for &parent in by_key_name
                .get(&column.name.to_ascii_lowercase())
                .into_iter()
                .flatten()
            {
                proposals.push((
                    parent,
                    column.name.to_ascii_lowercase(),
                    format!(
                        "column `{}` has the name of the primary key of `{}`",
                        column.name, tables[parent].name
                    ),
                    0.9,
                ));
            }
            for (parent, stem, rule, score) in proposals {
                let Some(target) = parent_key(&tables[parent], &column.name, &stem) else {
                    continue;
                };
                let self_reference = parent == child_index && target.name == column.name;
                let duplicate = found.iter().any(|c| {
                    c.child == child_index && c.child_column == column.name && c.parent == parent
                });
                if self_reference || duplicate || family(target) != family(column) {
                    continue;
                }
                found.push(Candidate {
                    child: child_index,
                    child_column: column.name.clone(),
                    parent,
                    parent_column: target.name.clone(),
                    rule,
                    name_score: score,
                });
            }
        }
    }
    found
}

/// How a parent column is known to be unique, if it is. A primary key
/// proves it only where the engine enforces keys (`keys_enforced`); a
/// ClickHouse primary key is a sorting prefix, so there the data decides.
fn uniqueness(
    parent: &SchemaTable,
    column: &str,
    profile: Option<&TableProfile>,
    keys_enforced: bool,
) -> Option<&'static str> {
    let target = parent.column(column)?;
    if keys_enforced && target.primary_key && parent.primary_key().len() == 1 {
        return Some("primary key");
    }
    if target.unique {
        return Some("unique constraint");
    }
    let measured = profile?.columns.iter().find(|c| c.name == column)?;
    let non_null = measured.row_count.saturating_sub(measured.null_count);
    (non_null > 0 && measured.distinct_count == non_null).then_some("sample")
}

/// The SQL counting distinct sampled child values and how many exist in
/// the parent key.
pub(crate) fn overlap_sql(
    dialect: SqlDialect,
    child: &SchemaTable,
    child_column: &str,
    parent: &SchemaTable,
    parent_column: &str,
    sample_rows: u64,
) -> String {
    let cc = dialect.quote_ident(child_column);
    let pc = dialect.quote_ident(parent_column);
    if dialect == SqlDialect::Clickhouse {
        return clickhouse_overlap_sql(child, child_column, parent, parent_column, sample_rows);
    }
    format!(
        "WITH c AS (SELECT DISTINCT {cc} AS v FROM (SELECT {cc} FROM {child_table} WHERE {cc} IS NOT NULL LIMIT {sample_rows}) AS x) \
         SELECT count(*), sum(CASE WHEN EXISTS (SELECT 1 FROM {parent_table} p WHERE p.{pc} = c.v) THEN 1 ELSE 0 END) FROM c",
        child_table = dialect.quote_table(child.db.as_deref(), &child.name),
        parent_table = dialect.quote_table(parent.db.as_deref(), &parent.name),
    )
}

/// [`overlap_sql`] for ClickHouse, which has neither `WITH … AS
/// (subquery)` (before 20.x) nor correlated subqueries: the parent's keys
/// become an `IN` set. Keys of different types are compared as text (an
/// `IN` set must match the type of its left side).
fn clickhouse_overlap_sql(
    child: &SchemaTable,
    child_column: &str,
    parent: &SchemaTable,
    parent_column: &str,
    sample_rows: u64,
) -> String {
    let dialect = SqlDialect::Clickhouse;
    let cc = dialect.quote_ident(child_column);
    let pc = dialect.quote_ident(parent_column);
    let base = |table: &SchemaTable, column: &str| {
        table.column(column).map(|c| {
            let mut t = c.native_type.as_str();
            for wrapper in ["LowCardinality(", "Nullable("] {
                if let Some(inner) = t.strip_prefix(wrapper).and_then(|r| r.strip_suffix(')')) {
                    t = inner;
                }
            }
            t.to_string()
        })
    };
    let same_type = base(child, child_column).is_some()
        && base(child, child_column) == base(parent, parent_column);
    let (v, p) = if same_type {
        ("v".to_string(), pc.clone())
    } else {
        ("toString(v)".to_string(), format!("toString({pc})"))
    };
    format!(
        "SELECT count(), sum(CASE WHEN {v} IN (SELECT {p} FROM {parent_table} WHERE {pc} IS NOT NULL) THEN 1 ELSE 0 END) \
         FROM (SELECT DISTINCT {cc} AS v FROM (SELECT {cc} FROM {child_table} WHERE {cc} IS NOT NULL LIMIT {sample_rows}) AS x) AS c",
        child_table = dialect.quote_table(child.db.as_deref(), &child.name),
        parent_table = dialect.quote_table(parent.db.as_deref(), &parent.name),
    )
}

/// Checks one candidate against the data.
pub(crate) async fn check_candidate(
    connector: &Connector,
    tables: &[SchemaTable],
    profiles: &HashMap<(Option<String>, String), &TableProfile>,
    candidate: &Candidate,
    sample_rows: u64,
) -> Relationship {
    let child = &tables[candidate.child];
    let parent = &tables[candidate.parent];
    let parent_profile = profiles
        .get(&(parent.db.clone(), parent.name.clone()))
        .copied();
    let keys_enforced = connector.dialect() != SqlDialect::Clickhouse;
    let mut unique_by = uniqueness(
        parent,
        &candidate.parent_column,
        parent_profile,
        keys_enforced,
    );
    if unique_by.is_none() && parent_profile.is_none() {
        unique_by =
            unique_in_sample(connector, parent, &candidate.parent_column, sample_rows).await;
    }
    let sql = overlap_sql(
        connector.dialect(),
        child,
        &candidate.child_column,
        parent,
        &candidate.parent_column,
        sample_rows,
    );
    let (child_distinct, matched, failure) = match connector.run(&sql, 1).await {
        Ok(result) => {
            let row = result.rows.first();
            let cell = |i: usize| {
                row.and_then(|r| integer(&r[i]))
                    .and_then(|n| u64::try_from(n).ok())
                    .unwrap_or(0)
            };
            (cell(0), cell(1), None)
        }
        Err(e) => (0, 0, Some(format!("the check failed: {e}"))),
    };
    let coverage = if child_distinct == 0 {
        0.0
    } else {
        matched as f64 / child_distinct as f64
    };
    let support = ((child_distinct as f64 + 1.0).log10() / 2.0).min(1.0);
    let unique_factor = if unique_by.is_some() { 1.0 } else { 0.5 };
    let confidence = coverage * candidate.name_score * (0.6 + 0.4 * support) * unique_factor;
    let confidence = (confidence * 1000.0).round() / 1000.0;
    let parent_display = format!("{}.{}", parent.name, candidate.parent_column);
    let reason = if let Some(failure) = failure {
        Some(failure)
    } else if child_distinct == 0 {
        Some("the child column has no values to compare".to_string())
    } else if coverage < MIN_COVERAGE {
        Some(format!(
            "only {matched} of {child_distinct} sampled values exist in {parent_display}"
        ))
    } else if unique_by.is_none() {
        Some(format!("{parent_display} is not unique"))
    } else if child_distinct < 2 {
        Some("a single distinct value is too little evidence".to_string())
    } else if confidence < MIN_CONFIDENCE {
        Some(format!("confidence {confidence} is below {MIN_CONFIDENCE}"))
    } else {
        None
    };
    Relationship {
        from: end(child, vec![candidate.child_column.clone()]),
        to: end(parent, vec![candidate.parent_column.clone()]),
        kind: RelationshipKind::Inferred,
        status: if reason.is_none() {
            RelationshipStatus::Accepted
        } else {
            RelationshipStatus::Rejected
        },
        confidence,
        constraint_name: None,
        evidence: Some(RelationshipEvidence {
            rule: candidate.rule.clone(),
            child_distinct,
            matched,
            coverage: (coverage * 1000.0).round() / 1000.0,
            parent_unique: unique_by.is_some(),
            parent_unique_by: unique_by.map(str::to_string),
            reason,
        }),
    }
}

async fn unique_in_sample(
    connector: &Connector,
    table: &SchemaTable,
    column: &str,
    sample_rows: u64,
) -> Option<&'static str> {
    let dialect = connector.dialect();
    let c = dialect.quote_ident(column);
    let sql = format!(
        "SELECT count(*), count(DISTINCT {c}) FROM (SELECT {c} FROM {} WHERE {c} IS NOT NULL LIMIT {sample_rows}) AS x",
        dialect.quote_table(table.db.as_deref(), &table.name)
    );
    let result = connector.run(&sql, 1).await.ok()?;
    let row = result.rows.first()?;
    let (rows, distinct) = (integer(&row[0])?, integer(&row[1])?);
    (rows > 0 && rows == distinct).then_some("sample")
}

/// When one child column has several accepted parents, keeps the most
/// confident (preferring the child's own schema) and rejects the rest.
pub(crate) fn settle_competing(relationships: &mut [Relationship]) {
    let mut best: HashMap<(Option<String>, String, Vec<String>), usize> = HashMap::new();
    for (index, r) in relationships.iter().enumerate() {
        if r.kind != RelationshipKind::Inferred || r.status != RelationshipStatus::Accepted {
            continue;
        }
        let key = (
            r.from.db.clone(),
            r.from.table.clone(),
            r.from.columns.clone(),
        );
        let better = |current: &Relationship| {
            let same_schema = |x: &Relationship| x.to.db == x.from.db;
            (r.confidence, same_schema(r)) > (current.confidence, same_schema(current))
        };
        match best.get(&key) {
            Some(&current) if !better(&relationships[current]) => {}
            _ => {
                best.insert(key, index);
            }
        }
    }
    let winners: Vec<usize> = best.values().copied().collect();
    for (index, r) in relationships.iter_mut().enumerate() {
        if r.kind == RelationshipKind::Inferred
            && r.status == RelationshipStatus::Accepted
            && !winners.contains(&index)
        {
            r.status = RelationshipStatus::Rejected;
            if let Some(evidence) = &mut r.evidence {
                evidence.reason = Some("another parent table fits this column better".to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{DimensionType, ForeignKey};

    fn column(name: &str, normalized: &str, primary_key: bool) -> SchemaColumn {
        SchemaColumn {
            name: name.into(),
            native_type: normalized.into(),
            normalized_type: normalized.into(),
            dimension_type: DimensionType::Number,
            nullable: !primary_key,
            primary_key,
            unique: primary_key,
            comment: None,
        }
    }

    fn table(name: &str, columns: Vec<SchemaColumn>) -> SchemaTable {
        SchemaTable {
            columns,
            ..SchemaTable::named(Some("public"), name)
        }
    }

    fn proposed(tables: &[SchemaTable]) -> Vec<(String, String, String)> {
        candidates(tables)
            .into_iter()
            .map(|c| {
                (
                    format!("{}.{}", tables[c.child].name, c.child_column),
                    format!("{}.{}", tables[c.parent].name, c.parent_column),
                    c.rule,
                )
            })
            .collect()
    }

    #[test]
    fn names_propose_plural_prefixed_and_qualified_parents() {
        let tables = vec![
            table("dim_customers", vec![column("id", "integer", true)]),
            table("users", vec![column("user_key", "integer", true)]),
            table("category", vec![column("category_id", "integer", true)]),
            table(
                "fct_orders",
                vec![
                    column("id", "integer", true),
                    column("customer_id", "integer", false),
                    column("requester_user_id", "integer", false),
                    column("category_id", "integer", false),
                    column("user_key", "integer", false),
                    column("paid", "integer", false),
                ],
            ),
        ];
        let found = proposed(&tables);
        let pairs: Vec<(&str, &str)> = found
            .iter()
            .map(|(a, b, _)| (a.as_str(), b.as_str()))
            .collect();
        assert!(
            pairs.contains(&("fct_orders.customer_id", "dim_customers.id")),
            "{found:?}"
        );
        assert!(
            pairs.contains(&("fct_orders.requester_user_id", "users.user_key")),
            "{found:?}"
        );
        assert!(
            pairs.contains(&("fct_orders.category_id", "category.category_id")),
            "{found:?}"
        );
        assert!(
            pairs.contains(&("fct_orders.user_key", "users.user_key")),
            "{found:?}"
        );
        assert!(
            !pairs.iter().any(|(a, _)| *a == "fct_orders.paid"),
            "{found:?}"
        );
    }

    #[test]
    fn declared_keys_and_incompatible_types_propose_nothing() {
        let mut orders = table(
            "orders",
            vec![
                column("id", "integer", true),
                column("customer_id", "integer", false),
                column("account_id", "text", false),
            ],
        );
        orders.foreign_keys.push(ForeignKey {
            from_column: "customer_id".into(),
            to_catalog: None,
            to_db: Some("public".into()),
            to_table: "customers".into(),
            to_column: "id".into(),
            constraint_name: Some("orders_customer_fk".into()),
        });
        let tables = vec![
            table("customers", vec![column("id", "integer", true)]),
            table("accounts", vec![column("id", "integer", true)]),
            orders,
        ];
        assert!(proposed(&tables).is_empty(), "{:?}", proposed(&tables));
        let formal = formal_relationships(&tables);
        assert_eq!(formal.len(), 1);
        assert_eq!(
            formal[0].constraint_name.as_deref(),
            Some("orders_customer_fk")
        );
        assert_eq!(formal[0].to.columns, ["id"]);
    }

    #[test]
    fn plurals_follow_english_spelling() {
        assert_eq!(plural("category"), "categories");
        assert_eq!(plural("day"), "days");
        assert_eq!(plural("box"), "boxes");
        assert_eq!(plural("invoice"), "invoices");
        assert_eq!(base_name("stg_Orders"), "orders");
    }
}
