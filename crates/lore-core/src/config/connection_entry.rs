//! Writing one connection into the text of `lore.yaml` while keeping the
//! rest of the file (comments, order, other entries) as it is: what
//! `lore connection add` saves.
//!
//! The edit works on lines, not on a parsed tree, because a YAML library
//! that writes the file back drops its comments. It follows the layouts
//! Lore writes and people usually keep (a block `connections:` mapping,
//! empty, `{}` or null) and gives up on others; the caller loads the
//! result and checks it holds exactly the new entry before saving it.

use super::{ConnectionConfig, Driver};

/// `text` with the connection `id` written under `connections:` (replacing
/// an entry of that id), or `None` when the file's layout is one this edit
/// cannot follow (a flow mapping with entries, say).
pub fn with_connection_written(
    text: &str,
    id: &str,
    connection: &ConnectionConfig,
) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let Some(start) = lines.iter().position(|l| l.starts_with("connections:")) else {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("\nconnections:\n");
        out.push_str(&entry_lines(id, connection, 2, 4).join("\n"));
        return Some(out + "\n");
    };
    let rest = lines[start]["connections:".len()..].trim();
    let rest = rest.split(" #").next().unwrap_or(rest).trim();
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    if matches!(rest, "{}" | "null" | "~") {
        out[start] = "connections:".to_string();
    } else if !(rest.is_empty() || rest.starts_with('#')) {
        return None;
    }
    // The block: the lines after `connections:` up to the next top-level key.
    let end = lines[start + 1..]
        .iter()
        .position(|l| !l.is_empty() && !l.starts_with(' ') && !l.starts_with('#'))
        .map_or(lines.len(), |i| start + 1 + i);
    let content: Vec<usize> = (start + 1..end)
        .filter(|&i| !lines[i].trim().is_empty() && !lines[i].trim_start().starts_with('#'))
        .collect();
    let entry_indent = content.first().map_or(2, |&i| indent(lines[i]));
    let field_indent = content
        .iter()
        .map(|&i| indent(lines[i]))
        .find(|&n| n > entry_indent)
        .unwrap_or(entry_indent * 2);
    let entry = entry_lines(id, connection, entry_indent, field_indent);
    let existing = content
        .iter()
        .position(|&i| indent(lines[i]) == entry_indent && is_key_line(lines[i].trim_start(), id));
    match existing {
        Some(at) => {
            let first = content[at];
            let last = content[at + 1..]
                .iter()
                .take_while(|&&i| indent(lines[i]) > entry_indent)
                .last()
                .copied()
                .unwrap_or(first);
            out.splice(first..=last, entry);
        }
        None => {
            let after = content.last().copied().unwrap_or(start);
            out.splice(after + 1..after + 1, entry);
        }
    }
    Some(out.join("\n") + "\n")
}

/// The entry's lines: `id:` at `entry_indent`, its settings at `field_indent`.
fn entry_lines(
    id: &str,
    connection: &ConnectionConfig,
    entry_indent: usize,
    field_indent: usize,
) -> Vec<String> {
    let mut fields = vec![("driver", connection.driver.as_str().to_string())];
    let text_fields = [
        ("path", connection.path.clone()),
        (
            "url",
            connection.url.as_ref().map(|s| s.as_written().to_string()),
        ),
        (
            "private_key",
            connection
                .private_key
                .as_ref()
                .map(|s| s.as_written().to_string()),
        ),
        (
            "credentials",
            connection
                .credentials
                .as_ref()
                .map(|s| s.as_written().to_string()),
        ),
        ("description", connection.description.clone()),
    ];
    for (key, value) in text_fields {
        if let Some(value) = value {
            fields.push((key, yaml_string(&value)));
        }
    }
    if let Some(ms) = connection.statement_timeout_ms {
        fields.push(("statement_timeout_ms", ms.to_string()));
    }
    if let Some(schemas) = &connection.schemas {
        let items: Vec<String> = schemas.iter().map(|s| yaml_string(s)).collect();
        fields.push(("schemas", format!("[{}]", items.join(", "))));
    }
    let mut lines = vec![format!("{}{}:", " ".repeat(entry_indent), yaml_key(id))];
    for (key, value) in fields {
        lines.push(format!("{}{key}: {value}", " ".repeat(field_indent)));
    }
    lines
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Whether a trimmed line opens the mapping entry `id` (plain or quoted).
fn is_key_line(line: &str, id: &str) -> bool {
    [format!("{id}:"), format!("\"{id}\":"), format!("'{id}':")]
        .iter()
        .any(|key| line.starts_with(key.as_str()))
}

/// A connection id as a YAML key: plain unless YAML would read it as
/// something other than a string (`true`, `null`, `1`).
fn yaml_key(id: &str) -> String {
    let plain = id.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && !matches!(
            id.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n"
        );
    if plain {
        id.to_string()
    } else {
        yaml_string(id)
    }
}

/// `text` as a YAML scalar (JSON quoting is valid YAML).
fn yaml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| format!("{text:?}"))
}

impl Driver {
    /// Every driver, in the order `lore.yaml`'s documentation lists them.
    pub const ALL: [Driver; 7] = [
        Driver::Sqlite,
        Driver::Postgres,
        Driver::Mysql,
        Driver::Clickhouse,
        Driver::Snowflake,
        Driver::Bigquery,
        Driver::Duckdb,
    ];

    /// The driver called `name` in `lore.yaml` (`mariadb` is `mysql`).
    pub fn from_name(name: &str) -> Option<Driver> {
        let name = name.trim().to_ascii_lowercase();
        if name == "mariadb" {
            return Some(Driver::Mysql);
        }
        Driver::ALL.into_iter().find(|d| d.as_str() == name)
    }

    /// Whether the driver opens a file (`path`) rather than a server (`url`).
    pub fn reads_a_file(self) -> bool {
        matches!(self, Driver::Sqlite | Driver::Duckdb)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Secret, parse_config};
    use super::*;

    fn postgres(url: &str) -> ConnectionConfig {
        let mut connection = ConnectionConfig::new(Driver::Postgres);
        connection.url = Some(Secret::new(url));
        connection
    }

    fn loads(text: &str) -> super::super::LoreConfig {
        parse_config(text, std::path::Path::new("lore.yaml"))
            .unwrap_or_else(|e| panic!("{e}\n{text}"))
            .config
    }

    #[test]
    fn the_starter_config_gets_the_entry_above_its_commented_examples() {
        let text = crate::project::STARTER_CONFIG;
        let out = with_connection_written(text, "shop", &postgres("env:SHOP_URL")).unwrap();
        assert!(out.contains("connections:\n  shop:\n    driver: postgres\n    url: \"env:SHOP_URL\"\n#  warehouse:"), "{out}");
        assert!(
            out.contains("#    schemas: [public]"),
            "comments kept: {out}"
        );
        assert_eq!(loads(&out).connections.len(), 1);
    }

    #[test]
    fn an_empty_flow_mapping_becomes_a_block_and_entries_keep_their_indent() {
        let out = with_connection_written(
            "# mine\nconnections: {}\nmcp: {port: 1}\n",
            "a",
            &postgres("x"),
        )
        .unwrap();
        assert!(
            out.starts_with("# mine\nconnections:\n  a:\n    driver: postgres\n"),
            "{out}"
        );
        let deep = "connections:\n    w:\n        driver: sqlite\n        path: w.db\nmcp: {}\n";
        let out = with_connection_written(deep, "b", &postgres("x")).unwrap();
        assert!(
            out.contains("        path: w.db\n    b:\n        driver: postgres\n"),
            "{out}"
        );
        assert_eq!(loads(&out).connections.len(), 2);
    }

    #[test]
    fn the_settings_of_an_entry_of_the_same_id_are_replaced() {
        let text = "connections:\n  a:\n    driver: sqlite\n    path: a.db\n    # note\n  b: {driver: sqlite, path: b.db}\n";
        let out = with_connection_written(text, "a", &postgres("x")).unwrap();
        // Its settings go; comments between them stay.
        assert_eq!(
            out,
            "connections:\n  a:\n    driver: postgres\n    url: \"x\"\n    # note\n  b: {driver: sqlite, path: b.db}\n"
        );
    }

    #[test]
    fn a_file_without_connections_gets_the_section_and_odd_layouts_are_refused() {
        let out = with_connection_written("mcp:\n  port: 1\n", "a", &postgres("x")).unwrap();
        assert_eq!(loads(&out).connections.len(), 1);
        assert!(
            with_connection_written(
                "connections: {a: {driver: sqlite, path: a}}\n",
                "b",
                &postgres("x")
            )
            .is_none()
        );
        let odd = with_connection_written("connections:\n", "true", &postgres("x")).unwrap();
        assert!(loads(&odd).connections.contains_key("true"), "{odd}");
    }
}
