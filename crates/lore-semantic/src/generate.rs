//! A starting model from a scan: one source per table with typed columns,
//! the primary key as grain, joins from declared and accepted inferred
//! relationships, and a `count` measure. Files that exist are never
//! overwritten, so hand edits survive a regeneration.

use std::collections::{HashMap, HashSet};

use crate::dialect::Dialect;
use crate::model::{
    Cardinality, ColumnSpec, ColumnType, Descriptions, JoinSpec, MeasureSpec, SourceSpec,
};

/// A scanned table, as generation needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct TableShape {
    /// Schema (or database), when the engine has one.
    pub db: Option<String>,
    /// Table name.
    pub name: String,
    /// The database comment.
    pub comment: Option<String>,
    /// Columns in order.
    pub columns: Vec<ColumnShape>,
    /// Primary key columns, in order.
    pub primary_key: Vec<String>,
}

/// A scanned column.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnShape {
    /// Column name.
    pub name: String,
    /// Its dimension type.
    pub column_type: ColumnType,
    /// The database comment.
    pub comment: Option<String>,
}

/// A relationship between two scanned tables (child columns reference the
/// parent's).
#[derive(Debug, Clone, PartialEq)]
pub struct LinkShape {
    /// Child table `(db, name)`.
    pub from: (Option<String>, String),
    /// Child columns.
    pub from_columns: Vec<String>,
    /// Parent table `(db, name)`.
    pub to: (Option<String>, String),
    /// Parent columns.
    pub to_columns: Vec<String>,
    /// Declared in the database (preferred over inferred ones).
    pub declared: bool,
}

/// Renames the stored tables, columns and keys as the model names them
/// on `dialect` ([`Dialect::model_name`]: Snowflake's `CUSTOMERS.COUNTRY`
/// becomes `customers.country`, which still reads the same objects).
pub fn name_as_modelled(dialect: Dialect, tables: &mut [TableShape], links: &mut [LinkShape]) {
    let name = |n: &mut String| *n = dialect.model_name(n);
    for t in tables {
        t.db.as_mut().map(name);
        name(&mut t.name);
        t.columns.iter_mut().for_each(|c| name(&mut c.name));
        t.primary_key.iter_mut().for_each(name);
    }
    for l in links {
        for (db, table) in [&mut l.from, &mut l.to] {
            db.as_mut().map(name);
            name(table);
        }
        l.from_columns
            .iter_mut()
            .chain(&mut l.to_columns)
            .for_each(name);
    }
}

/// Source specs for `tables`, joined by `links`.
pub fn generate_sources(
    tables: &[TableShape],
    links: &[LinkShape],
) -> (Vec<SourceSpec>, Vec<String>) {
    let names = SourceNames::of(tables);
    let mut skipped = Vec::new();
    let mut specs = Vec::new();
    for t in tables {
        let me = names.name(&t.db, &t.name);
        let joins = joins_of(t, &me, tables, links, &names, &mut skipped);
        specs.push(source_spec(t, me, joins));
    }
    (specs, skipped)
}

/// Source names: the table name, qualified when two schemas share it.
struct SourceNames<'a> {
    /// How many scanned tables have each name.
    counts: HashMap<&'a str, usize>,
}

impl<'a> SourceNames<'a> {
    /// The names of `tables`' sources.
    fn of(tables: &'a [TableShape]) -> SourceNames<'a> {
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for t in tables {
            *counts.entry(t.name.as_str()).or_default() += 1;
        }
        SourceNames { counts }
    }

    /// The source name of the table `db.name`.
    fn name(&self, db: &Option<String>, name: &str) -> String {
        if self.counts.get(name).copied().unwrap_or(0) > 1 {
            format!("{}_{name}", db.as_deref().unwrap_or("default"))
        } else {
            name.to_string()
        }
    }
}

/// The joins of the table `t` (source `me`) to the scanned tables its
/// links reach, declared links first; self-references and a second link
/// to the same source are left out, said in `skipped`.
fn joins_of(
    t: &TableShape,
    me: &str,
    tables: &[TableShape],
    links: &[LinkShape],
    names: &SourceNames,
    skipped: &mut Vec<String>,
) -> Vec<JoinSpec> {
    let mut joins = Vec::new();
    let mut targets = HashSet::new();
    let mut mine: Vec<&LinkShape> = links
        .iter()
        .filter(|l| l.from.0 == t.db && l.from.1 == t.name)
        .collect();
    // Declared first, then by column name, for a stable choice.
    mine.sort_by(|a, b| {
        b.declared
            .cmp(&a.declared)
            .then(a.from_columns.cmp(&b.from_columns))
    });
    for link in mine {
        if !tables
            .iter()
            .any(|x| x.db == link.to.0 && x.name == link.to.1)
        {
            continue;
        }
        let target = names.name(&link.to.0, &link.to.1);
        if target == me {
            skipped.push(format!(
                "{me}: self-reference {} -> {target} (self-joins need an alias, not generated)",
                link.from_columns.join(", ")
            ));
            continue;
        }
        if !targets.insert(target.clone()) {
            skipped.push(format!(
                "{me}: second relationship to {target} ({}) left out, so paths to {target} stay unambiguous; add it by hand with an alias",
                link.from_columns.join(", ")
            ));
            continue;
        }
        let on = link
            .from_columns
            .iter()
            .zip(&link.to_columns)
            .map(|(f, p)| format!("{f} = {target}.{p}"))
            .collect::<Vec<_>>()
            .join(" AND ");
        let one_to_one = !t.primary_key.is_empty() && {
            let mut pk = t.primary_key.clone();
            let mut cols = link.from_columns.clone();
            pk.sort();
            cols.sort();
            pk == cols
        };
        joins.push(JoinSpec {
            to: target,
            on,
            relationship: if one_to_one {
                Cardinality::OneToOne
            } else {
                Cardinality::ManyToOne
            },
            alias: None,
        });
    }
    joins
}

/// The source `name` over the table `t`: its typed columns, the primary
/// key as grain, `joins`, and a `count` measure.
fn source_spec(t: &TableShape, name: String, joins: Vec<JoinSpec>) -> SourceSpec {
    SourceSpec {
        name,
        description: None,
        descriptions: t.comment.clone().map(|c| Descriptions {
            db: Some(c),
            ..Descriptions::default()
        }),
        table: Some(match &t.db {
            Some(db) => format!("{db}.{}", t.name),
            None => t.name.clone(),
        }),
        sql: None,
        time_spine: None,
        grain: t.primary_key.clone(),
        columns: t
            .columns
            .iter()
            .map(|c| ColumnSpec {
                name: c.name.clone(),
                column_type: c.column_type,
                expr: None,
                visibility: None,
                role: None,
                description: None,
                descriptions: c.comment.clone().map(|d| Descriptions {
                    db: Some(d),
                    ..Descriptions::default()
                }),
            })
            .collect(),
        joins,
        measures: vec![MeasureSpec {
            name: "count".into(),
            expr: "count(*)".into(),
            filter: None,
            cumulative: None,
            offset: None,
            non_additive: None,
            conversion: None,
            description: Some(format!("Number of {} rows", t.name)),
            descriptions: None,
        }],
        segments: Vec::new(),
    }
}

/// The file (`<source>.yaml`) and text of each spec; `origin` is said in
/// each file's first line.
pub fn render_sources(specs: &[SourceSpec], origin: &str) -> Vec<(String, String)> {
    specs
        .iter()
        .map(|spec| {
            // Every field of a spec is plain data: rendering cannot fail;
            // should it, the file says so instead of holding half a source.
            let mut yaml = serde_saphyr::to_string(spec)
                .unwrap_or_else(|e| format!("# cannot render this source: {e}\n"));
            if !yaml.ends_with('\n') {
                yaml.push('\n');
            }
            (
                format!("{}.yaml", spec.name),
                format!(
                    "# Generated by `lore sl generate` from {origin}. Edit freely: regenerating never overwrites this file.\n{yaml}"
                ),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(name: &str, pk: &[&str], cols: &[(&str, ColumnType)]) -> TableShape {
        TableShape {
            db: Some("main".into()),
            name: name.into(),
            comment: None,
            columns: cols
                .iter()
                .map(|(n, t)| ColumnShape {
                    name: n.to_string(),
                    column_type: *t,
                    comment: None,
                })
                .collect(),
            primary_key: pk.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn link(from: &str, col: &str, to: &str, declared: bool) -> LinkShape {
        LinkShape {
            from: (Some("main".into()), from.into()),
            from_columns: vec![col.into()],
            to: (Some("main".into()), to.into()),
            to_columns: vec!["id".into()],
            declared,
        }
    }

    #[test]
    fn generated_models_load_and_keep_hand_edits() {
        let n = ColumnType::Number;
        let tables = vec![
            table(
                "customers",
                &["id"],
                &[("id", n), ("name", ColumnType::String)],
            ),
            table(
                "orders",
                &["id"],
                &[
                    ("id", n),
                    ("customer_id", n),
                    ("referrer_id", n),
                    ("at", ColumnType::Time),
                ],
            ),
        ];
        let links = vec![
            link("orders", "referrer_id", "customers", false),
            link("orders", "customer_id", "customers", true),
        ];
        let (specs, skipped) = generate_sources(&tables, &links);
        let orders = specs.iter().find(|s| s.name == "orders").unwrap();
        assert_eq!(orders.joins.len(), 1, "one join per target");
        assert_eq!(
            orders.joins[0].on, "customer_id = customers.id",
            "the declared key wins"
        );
        assert_eq!(orders.grain, vec!["id"]);
        assert!(skipped[0].contains("referrer_id"), "{skipped:?}");

        // The rendered files load back as the same model.
        let files = render_sources(&specs, "scan X");
        assert_eq!(files[0].0, "customers.yaml");
        assert!(
            files[0]
                .1
                .starts_with("# Generated by `lore sl generate` from scan X.")
        );
        let model = crate::model::load_sources(
            files
                .into_iter()
                .map(|(name, text)| (std::path::PathBuf::from(name), text))
                .collect(),
        )
        .unwrap();
        assert_eq!(model.source_names(), vec!["customers", "orders"]);
        assert_eq!(model.source("orders").unwrap().joins.len(), 1);
    }

    #[test]
    fn snowflake_tables_are_modelled_in_lower_case_and_read_the_stored_objects() {
        let mut tables = vec![
            TableShape {
                db: Some("SHOP".into()),
                ..table(
                    "CUSTOMERS",
                    &["ID"],
                    &[("ID", ColumnType::Number), ("COUNTRY", ColumnType::String)],
                )
            },
            TableShape {
                db: Some("SHOP".into()),
                ..table(
                    "ORDERS",
                    &["ID"],
                    &[
                        ("ID", ColumnType::Number),
                        ("CUSTOMER_ID", ColumnType::Number),
                        ("QuotedMixed", ColumnType::Number),
                    ],
                )
            },
        ];
        let mut links = vec![LinkShape {
            from: (Some("SHOP".into()), "ORDERS".into()),
            from_columns: vec!["CUSTOMER_ID".into()],
            to: (Some("SHOP".into()), "CUSTOMERS".into()),
            to_columns: vec!["ID".into()],
            declared: true,
        }];
        name_as_modelled(Dialect::Snowflake, &mut tables, &mut links);
        let (specs, _) = generate_sources(&tables, &links);
        let files = render_sources(&specs, "scan X");
        let names: Vec<&str> = files.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(names, ["customers.yaml", "orders.yaml"]);
        let model = crate::model::load_sources(
            files
                .into_iter()
                .map(|(name, text)| (std::path::PathBuf::from(name), text))
                .collect(),
        )
        .unwrap();
        let orders = model.source("orders").unwrap();
        assert_eq!(orders.joins[0].on.text, "customer_id = customers.id");
        assert!(orders.column("QuotedMixed").is_some(), "mixed case kept");
        // customers.country is what a dbt user asks for; the SQL reads the
        // stored upper-case objects.
        let query: crate::query::SemanticQuery = serde_json::from_value(serde_json::json!({
            "measures": ["orders.count"], "dimensions": ["customers.country"]
        }))
        .unwrap();
        let compiled = crate::planner::compile(
            &model,
            &query,
            Dialect::Snowflake,
            &lore_core::limits::SqlLimits::default(),
        )
        .unwrap();
        assert!(
            compiled.sql.contains("\"SHOP\".\"CUSTOMERS\""),
            "{}",
            compiled.sql
        );
        assert!(compiled.sql.contains(".\"COUNTRY\""), "{}", compiled.sql);
        assert!(
            compiled.sql.contains(".\"CUSTOMER_ID\""),
            "{}",
            compiled.sql
        );

        // A model generated before (upper-case names) answers the same
        // lower-case query, reading the same objects.
        let upper = [(
            "CUSTOMERS.yaml",
            "name: CUSTOMERS\ntable: SHOP.CUSTOMERS\ngrain: [ID]\ncolumns:\n  - {name: ID, type: number}\n  - {name: COUNTRY, type: string}\nmeasures:\n  - {name: COUNT, expr: count(*)}\n",
        )];
        let model = crate::model::load_sources(
            upper
                .iter()
                .map(|(f, t)| (std::path::PathBuf::from(f), t.to_string()))
                .collect(),
        )
        .unwrap();
        let query: crate::query::SemanticQuery = serde_json::from_value(serde_json::json!({
            "measures": ["customers.count"], "dimensions": ["customers.country"]
        }))
        .unwrap();
        let compiled = crate::planner::compile(
            &model,
            &query,
            Dialect::Snowflake,
            &lore_core::limits::SqlLimits::default(),
        )
        .unwrap();
        assert!(compiled.sql.contains(".\"COUNTRY\""), "{}", compiled.sql);
    }
}
