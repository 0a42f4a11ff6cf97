//! A starting model from a scan: one source per table with typed columns,
//! the primary key as grain, joins from declared and accepted inferred
//! relationships, and a `count` measure. Files that exist are never
//! overwritten, so hand edits survive a regeneration.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

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

/// What generation did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GenerateReport {
    /// Files written.
    pub written: Vec<PathBuf>,
    /// Files that existed and were kept as they are.
    pub kept: Vec<PathBuf>,
    /// Relationships left out, and why.
    pub skipped: Vec<String>,
}

/// Source specs for `tables`, joined by `links`.
pub fn generate_sources(
    tables: &[TableShape],
    links: &[LinkShape],
) -> (Vec<SourceSpec>, Vec<String>) {
    // Source names: the table name, qualified when two schemas share it.
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for t in tables {
        *counts.entry(t.name.as_str()).or_default() += 1;
    }
    let source_name = |db: &Option<String>, name: &str| -> String {
        if counts.get(name).copied().unwrap_or(0) > 1 {
            format!("{}_{name}", db.as_deref().unwrap_or("default"))
        } else {
            name.to_string()
        }
    };
    let mut skipped = Vec::new();
    let mut specs = Vec::new();
    for t in tables {
        let me = source_name(&t.db, &t.name);
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
            let target = source_name(&link.to.0, &link.to.1);
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
        specs.push(SourceSpec {
            name: me,
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
                description: Some(format!("Number of {} rows", t.name)),
                descriptions: None,
            }],
            segments: Vec::new(),
        });
    }
    (specs, skipped)
}

/// Writes one `<source>.yaml` per spec into `dir`, keeping files that
/// already exist; `origin` is said in each file's first line.
pub fn write_sources(
    dir: &Path,
    specs: &[SourceSpec],
    origin: &str,
) -> std::io::Result<GenerateReport> {
    std::fs::create_dir_all(dir)?;
    let mut report = GenerateReport::default();
    for spec in specs {
        let path = dir.join(format!("{}.yaml", spec.name));
        if path.exists() {
            report.kept.push(path);
            continue;
        }
        let mut yaml = serde_saphyr::to_string(spec).map_err(std::io::Error::other)?;
        if !yaml.ends_with('\n') {
            yaml.push('\n');
        }
        let text = format!(
            "# Generated by `lore sl generate` from {origin}. Edit freely: regenerating never overwrites this file.\n{yaml}"
        );
        // Written beside and renamed, so a file is never half there.
        let partial = dir.join(format!(".{}.yaml.partial", spec.name));
        std::fs::write(&partial, text)?;
        std::fs::rename(&partial, &path)?;
        report.written.push(path);
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::load_dir;

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

        let dir = tempfile::tempdir().unwrap();
        let first = write_sources(dir.path(), &specs, "scan X").unwrap();
        assert_eq!(first.written.len(), 2);
        let model = load_dir(dir.path()).unwrap();
        assert_eq!(model.source_names(), vec!["customers", "orders"]);
        std::fs::write(
            dir.path().join("orders.yaml"),
            "name: orders\ntable: orders\n# mine\n",
        )
        .unwrap();
        let second = write_sources(dir.path(), &specs, "scan Y").unwrap();
        assert_eq!((second.written.len(), second.kept.len()), (0, 2));
        assert!(
            std::fs::read_to_string(dir.path().join("orders.yaml"))
                .unwrap()
                .contains("# mine")
        );
    }
}
