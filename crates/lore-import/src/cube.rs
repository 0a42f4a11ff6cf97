//! Cube → Lore: each cube of the project's model files
//! (`model/**/*.yml|*.js`, `schema/**/*.yml|*.js`; JavaScript files read
//! as data by [`super::cube_js`]) becomes a source of the same
//! name over its `sql_table` (or `sql`); dimensions become columns (a
//! `primary_key` the grain), measures measures (`count`, `count_distinct`,
//! `sum`, `avg`, `min`, `max`, with their `filters`; `number` measures as
//! expressions over measures), joins joins with their cardinality,
//! segments segments. Cube's references — `{CUBE}.col`, `${CUBE}.col`,
//! `{CUBE.col}`, `{other}.col`, `{measure}` — become Lore's plain SQL.
//! JavaScript that computes cubes at run time, views, `running_total` and
//! approximate distinct counts are reported, not silently dropped.

use std::path::Path;

use lore_core::{ErrorCode, ErrorReport};
use lore_semantic::model::{
    Cardinality, ColumnSpec, ColumnType, JoinSpec, MeasureSpec, SegmentSpec, SourceSpec,
};
use lore_warehouse::catalog::LoadedSnapshot;
use serde_json::Value;

use super::{ImportReport, Imported, Outcome};

fn refuse(message: String) -> ErrorReport {
    ErrorReport::new(ErrorCode::InvalidArguments, message)
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// Cube's template references as plain SQL: `{CUBE}.x`, `${CUBE}.x` and
/// `{CUBE.x}` → `x` (and the same with `TABLE`, Cube's older name); `{name}.x` / `${name}.x` → `name.x`; `{name}` →
/// `name` (a measure or another cube's member).
pub fn plain_sql(sql: &str) -> String {
    let mut out = String::new();
    let mut rest = sql;
    while let Some(start) = rest.find('{') {
        let dollar = start > 0 && rest.as_bytes()[start - 1] == b'$';
        out.push_str(&rest[..if dollar { start - 1 } else { start }]);
        let Some(end) = rest[start..].find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let inner = rest[start + 1..start + end].trim();
        let after = &rest[start + end + 1..];
        // `TABLE` is Cube's older name of `CUBE`, still accepted.
        match inner
            .strip_prefix("CUBE")
            .or_else(|| inner.strip_prefix("TABLE"))
        {
            Some("") => {
                // `{CUBE}.x` → `x`
                rest = after.strip_prefix('.').unwrap_or(after);
                continue;
            }
            Some(member) if member.starts_with('.') => out.push_str(&member[1..]),
            _ => out.push_str(inner),
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

fn model_files(project: &Path) -> Vec<std::path::PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    for folder in ["model", "schema"] {
        walk(&project.join(folder), &mut files);
    }
    files.sort();
    files
}

const JINJA_SKIPPED: &str = "a Jinja template, which Cube renders with Python each time it loads the model (cube_dbt's `dbt_model(...)`, loops, macros); Lore reads plain YAML: render the template (or write its cubes out) and import again";

/// Whether a YAML model file is a Jinja template (`{% … %}`, `{{ … }}`,
/// `{# … #}`); Cube's own references use single braces (`{CUBE}`).
fn is_jinja(source: &str) -> bool {
    source.contains("{%") || source.contains("{{") || source.contains("{#")
}

const VIEWS_SKIPPED: &str =
    "Cube views (curated member lists) have no Lore equivalent; the cubes they expose are imported";

fn cardinality(relationship: &str) -> Option<Cardinality> {
    Some(match relationship {
        "many_to_one" | "belongs_to" | "belongsTo" | "manyToOne" => Cardinality::ManyToOne,
        "one_to_many" | "has_many" | "hasMany" | "oneToMany" => Cardinality::OneToMany,
        "one_to_one" | "has_one" | "hasOne" | "oneToOne" => Cardinality::OneToOne,
        _ => return None,
    })
}

/// Reads a Cube project's cubes (YAML and JavaScript model files) as Lore
/// sources (the columns the cubes' SQL reads typed by the latest scan).
pub fn read(project: &Path, scan: Option<&LoadedSnapshot>) -> Result<Imported, ErrorReport> {
    let mut report = ImportReport {
        from: "cube".into(),
        ..ImportReport::default()
    };
    let mut cubes: Vec<Value> = Vec::new();
    let mut templates: Vec<String> = Vec::new();
    for file in &model_files(project) {
        let name = file.to_string_lossy().to_string();
        let javascript = name.ends_with(".js") || name.ends_with(".ts");
        let yaml = name.ends_with(".yml") || name.ends_with(".yaml");
        if !(javascript || yaml || name.ends_with(".jinja")) {
            continue;
        }
        let source = std::fs::read_to_string(file)
            .map_err(|e| refuse(format!("{}: cannot be read: {e}", file.display())))?;
        if !javascript && (name.ends_with(".jinja") || is_jinja(&source)) {
            report.push("file", &name, Outcome::Skipped, JINJA_SKIPPED);
            templates.push(name);
            continue;
        }
        read_model(&name, &source, javascript, &mut cubes, &mut report)?;
    }
    if cubes.is_empty() {
        let mut message = format!(
            "{} has no cubes (YAML or JavaScript model files) under model/ or schema/",
            project.display()
        );
        if !templates.is_empty() {
            message.push_str(&format!(
                "; Lore reads plain YAML, and {} {} Jinja, which Cube renders with Python each time it loads the model: render the templates (or write their cubes out as YAML) and import again",
                templates.join(", "),
                if templates.len() == 1 { "is" } else { "are" }
            ));
        }
        return Err(refuse(message));
    }
    from_cubes(&cubes, report, scan)
}

/// Reads a Cube model pasted into a note (`memory_ingest`): YAML with
/// `cubes:`, or JavaScript with `cube(...)` calls.
pub fn read_text(text: &str, scan: Option<&LoadedSnapshot>) -> Result<Imported, ErrorReport> {
    let mut report = ImportReport {
        from: "cube".into(),
        ..ImportReport::default()
    };
    let mut cubes: Vec<Value> = Vec::new();
    // JavaScript calls `cube(...)` and is no YAML model (some JavaScript,
    // `cube(`x`, {sql: …})`, parses as a YAML mapping without `cubes:`);
    // anything else is read as YAML (and a YAML error is reported as one).
    let yaml_model = serde_saphyr::from_str::<Value>(text)
        .is_ok_and(|v| v.get("cubes").is_some() || v.get("views").is_some());
    let javascript = !yaml_model && (text.contains("cube(") || text.contains("view("));
    read_model("the Cube block", text, javascript, &mut cubes, &mut report)?;
    if cubes.is_empty() {
        // JavaScript the reader could not read says why.
        let unread = report
            .items
            .iter()
            .find(|i| i.kind == "file" && i.outcome == Outcome::Skipped);
        return Err(refuse(match unread {
            Some(item) => format!("the Cube block: {}", item.detail),
            None => {
                "the Cube block has no cubes (a `cubes:` list, or `cube(...)` in JavaScript)".into()
            }
        }));
    }
    from_cubes(&cubes, report, scan)
}

/// One model file's cubes; its views are reported as skipped. A
/// JavaScript file Lore cannot read as data is reported, not fatal; YAML
/// that does not parse is.
fn read_model(
    name: &str,
    source: &str,
    javascript: bool,
    cubes: &mut Vec<Value>,
    report: &mut ImportReport,
) -> Result<(), ErrorReport> {
    if javascript {
        match super::cube_js::read(source) {
            Ok(model) => {
                cubes.extend(model.cubes);
                for view in model.views {
                    report.push("view", &view, Outcome::Skipped, VIEWS_SKIPPED);
                }
            }
            Err(why) => report.push(
                "file",
                name,
                Outcome::Skipped,
                format!("{why}; the cubes of this file were not read"),
            ),
        }
        return Ok(());
    }
    let value: Value =
        serde_saphyr::from_str(source).map_err(|e| refuse(format!("{name}: not YAML: {e}")))?;
    cubes.extend(
        value
            .get("cubes")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
    );
    for view in value
        .get("views")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        report.push(
            "view",
            text(view, "name").unwrap_or("?"),
            Outcome::Skipped,
            VIEWS_SKIPPED,
        );
    }
    Ok(())
}

fn from_cubes(
    cubes: &[Value],
    mut report: ImportReport,
    scan: Option<&LoadedSnapshot>,
) -> Result<Imported, ErrorReport> {
    let mut sources = Vec::new();
    for cube in cubes {
        let Some(name) = text(cube, "name") else {
            report.push("cube", "?", Outcome::Skipped, "a cube without a name");
            continue;
        };
        let (table, sql) = match (text(cube, "sql_table"), text(cube, "sql")) {
            (Some(t), _) => (Some(t.to_string()), None),
            (None, Some(s)) => (None, Some(plain_sql(s))),
            (None, None) => {
                report.push("cube", name, Outcome::Skipped, "neither sql_table nor sql");
                continue;
            }
        };
        let mut spec = super::source(
            name,
            text(cube, "description").map(str::to_string),
            table.clone(),
            sql,
        );
        for dim in list(cube, "dimensions") {
            add_dimension(&mut spec, name, dim, &mut report);
        }
        for measure in list(cube, "measures") {
            add_measure(&mut spec, name, measure, &mut report);
        }
        for join in list(cube, "joins") {
            add_join(&mut spec, name, join, &mut report);
        }
        for segment in list(cube, "segments") {
            let (Some(sname), Some(sql)) = (text(segment, "name"), text(segment, "sql")) else {
                continue;
            };
            spec.segments.push(SegmentSpec {
                name: sname.to_string(),
                expr: plain_sql(sql),
                description: None,
            });
            report.push(
                "segment",
                &format!("{name}.{sname}"),
                Outcome::Imported,
                "segment",
            );
        }
        super::declare_read_columns(&mut spec, scan);
        if spec.grain.is_empty() {
            report.push(
                "cube",
                name,
                Outcome::Approximated,
                "no primary_key dimension: the source has no grain, so measures of a one-to-many join are not protected from fan-out",
            );
        } else {
            report.push("cube", name, Outcome::Imported, format!("source {name}"));
        }
        sources.push(spec);
    }
    Ok(Imported { sources, report })
}

/// The items of a cube's list `key` (none when it has no such list).
fn list<'a>(cube: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    cube.get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// A dimension as a column of `spec` (a `primary_key` one also its
/// grain); a type Lore lacks is reported and skipped.
fn add_dimension(spec: &mut SourceSpec, cube: &str, dim: &Value, report: &mut ImportReport) {
    let Some(dname) = text(dim, "name") else {
        return;
    };
    let full = format!("{cube}.{dname}");
    let expr = plain_sql(text(dim, "sql").unwrap_or(dname));
    let column_type = match text(dim, "type").unwrap_or("string") {
        "number" => ColumnType::Number,
        "time" => ColumnType::Time,
        "boolean" => ColumnType::Boolean,
        "string" => ColumnType::String,
        other => {
            report.push(
                "dimension",
                &full,
                Outcome::Skipped,
                format!("dimension type `{other}` has no Lore equivalent"),
            );
            return;
        }
    };
    spec.columns.push(ColumnSpec {
        name: dname.to_string(),
        column_type,
        expr: (expr != dname).then_some(expr),
        visibility: None,
        role: None,
        description: text(dim, "description").map(str::to_string),
        descriptions: None,
    });
    if dim.get("primary_key").and_then(Value::as_bool) == Some(true) {
        spec.grain.push(dname.to_string());
    }
    report.push("dimension", &full, Outcome::Imported, "column");
}

/// A measure's expression and, where Lore's answer differs from Cube's,
/// how; `Err` with the reason it cannot be imported.
fn measure_expr(kind: &str, sql: Option<String>) -> Result<(String, Option<String>), String> {
    let arg = sql.clone().unwrap_or_else(|| "*".to_string());
    // Cube counts from a left join, so a dimension value without rows
    // counts 0; Lore aggregates each source on its own and answers null
    // there (as MetricFlow does).
    let empty = "a dimension value without rows gets null where Cube answers 0".to_string();
    Ok(match kind {
        "count" => (format!("count({arg})"), Some(empty)),
        "count_distinct" => (format!("count_distinct({arg})"), Some(empty)),
        "count_distinct_approx" => (
            format!("count_distinct({arg})"),
            Some(format!(
                "an approximate distinct count: Lore counts exactly; {empty}"
            )),
        ),
        "sum" | "avg" | "min" | "max" => (format!("{kind}({arg})"), None),
        "number" => match sql {
            Some(s) => (s, None),
            None => return Err("a number measure without sql".to_string()),
        },
        other => return Err(format!("measure type `{other}` has no Lore equivalent")),
    })
}

/// A measure of `spec`, its filters ANDed; one Lore cannot express is
/// reported and skipped, one it answers differently reported as such.
fn add_measure(spec: &mut SourceSpec, cube: &str, measure: &Value, report: &mut ImportReport) {
    let Some(mname) = text(measure, "name") else {
        return;
    };
    let full = format!("{cube}.{mname}");
    let kind = text(measure, "type").unwrap_or("count");
    let (expr, outcome) = match measure_expr(kind, text(measure, "sql").map(plain_sql)) {
        Ok(found) => found,
        Err(why) => {
            report.push("measure", &full, Outcome::Skipped, why);
            return;
        }
    };
    let filters: Vec<String> = list(measure, "filters")
        .filter_map(|f| text(f, "sql").map(|s| format!("({})", plain_sql(s))))
        .collect();
    spec.measures.push(MeasureSpec {
        name: mname.to_string(),
        expr,
        filter: (!filters.is_empty()).then(|| filters.join(" AND ")),
        cumulative: None,
        offset: None,
        non_additive: None,
        conversion: None,
        description: text(measure, "description")
            .or(text(measure, "title"))
            .map(str::to_string),
        descriptions: None,
    });
    match outcome {
        Some(how) => report.push("measure", &full, Outcome::Approximated, how),
        None => report.push(
            "measure",
            &full,
            Outcome::Imported,
            format!("measure {full}"),
        ),
    }
}

/// A join of `spec` (relationship `many_to_one` when unsaid); one without
/// sql or with an unknown relationship is reported and skipped.
fn add_join(spec: &mut SourceSpec, cube: &str, join: &Value, report: &mut ImportReport) {
    let Some(target) = text(join, "name") else {
        return;
    };
    let full = format!("{cube} → {target}");
    let relationship = text(join, "relationship").unwrap_or("many_to_one");
    let Some(relationship) = cardinality(relationship) else {
        report.push(
            "join",
            &full,
            Outcome::Skipped,
            format!("relationship `{relationship}` is not known"),
        );
        return;
    };
    let Some(on) = text(join, "sql") else {
        report.push("join", &full, Outcome::Skipped, "a join without sql");
        return;
    };
    spec.joins.push(JoinSpec {
        to: target.to_string(),
        on: plain_sql(on),
        relationship,
        alias: None,
    });
    report.push("join", &full, Outcome::Imported, "join");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jinja_templates_are_reported_and_the_plain_files_imported() {
        let dir = tempfile::tempdir().unwrap();
        let model = dir.path().join("model/cubes");
        std::fs::create_dir_all(&model).unwrap();
        // As cube_dbt projects write them (Cube's jaffle_shop_cube).
        let template = "{% set model = dbt_model('orders') %}\n\ncubes:\n  - {{ model.as_cube() }}\n\n    measures:\n      - name: count\n        type: count\n";
        std::fs::write(model.join("orders.yml.jinja"), template).unwrap();
        std::fs::write(
            model.join("all.yml"),
            "{# cubes:\n  {% for m in dbt_models() %}\n  {% endfor %} #}",
        )
        .unwrap();
        let only_templates = read(dir.path(), None).unwrap_err();
        assert!(
            only_templates.message.contains("all.yml, ")
                && only_templates
                    .message
                    .contains("orders.yml.jinja are Jinja")
                && only_templates.message.contains("render the templates"),
            "{}",
            only_templates.message
        );

        std::fs::write(
            model.join("payments.yml"),
            "cubes:\n  - name: payments\n    sql_table: payments\n    measures:\n      - {name: count, type: count}\n",
        )
        .unwrap();
        let imported = read(dir.path(), None).unwrap();
        assert_eq!(imported.sources.len(), 1);
        assert_eq!(imported.sources[0].name, "payments");
        let skipped: Vec<&str> = imported
            .report
            .items
            .iter()
            .filter(|i| i.outcome == Outcome::Skipped)
            .map(|i| i.name.as_str())
            .collect();
        assert_eq!(skipped.len(), 2, "{skipped:?}");
        assert!(
            skipped
                .iter()
                .all(|n| n.ends_with("all.yml") || n.ends_with("orders.yml.jinja"))
        );

        // Broken YAML that is no template is still an error with its line.
        std::fs::write(
            model.join("broken.yml"),
            "cubes:\n  - name: x\n   sql_table: [\n",
        )
        .unwrap();
        let err = read(dir.path(), None).unwrap_err();
        assert!(
            err.message.contains("broken.yml: not YAML"),
            "{}",
            err.message
        );
    }

    #[test]
    fn cube_references_become_plain_sql() {
        assert_eq!(plain_sql("{CUBE}.status = 'paid'"), "status = 'paid'");
        assert_eq!(
            plain_sql("${CUBE}.customer_id = ${customers}.id"),
            "customer_id = customers.id"
        );
        assert_eq!(plain_sql("{CUBE.amount} * 2"), "amount * 2");
        assert_eq!(
            plain_sql("{revenue} / NULLIF({count}, 0)"),
            "revenue / NULLIF(count, 0)"
        );
        assert_eq!(plain_sql("{customers.count}"), "customers.count");
        assert_eq!(plain_sql("amount"), "amount");
        // Older models (Cube's own Stripe model) write `TABLE` for `CUBE`.
        assert_eq!(
            plain_sql("CASE WHEN ${TABLE}.status = 1 THEN 1 END"),
            "CASE WHEN status = 1 THEN 1 END"
        );
        assert_eq!(plain_sql("{TABLE.amount}"), "amount");
        assert_eq!(plain_sql("{tables}.id"), "tables.id");
    }
}
