//! `lore connection add NAME --driver D --url URL`: writes one connection
//! into lore.yaml, keeping the rest of the file as it is, after testing it.

use anyhow::{Context, bail};
use lore_core::config::{
    ConnectionConfig, Driver, Secret, is_valid_connection_id, parse_config, with_connection_written,
};
use lore_core::project::{Project, write_atomically};
use lore_warehouse::execute::Warehouses;

/// Arguments of `lore connection add`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Secrets: --url, --private-key and --credentials are written as given, so \
prefer a reference to the secret itself: env:VAR (or '${VAR}', quoted so the shell keeps it) reads \
the whole value from an environment variable when Lore connects, file:PATH the first line of a \
file (relative to the project).\n\nExamples:\n  lore connection add shop --driver postgres --url \
'postgres://lore@db.internal:5432/shop'\n  lore connection add shop --driver postgres --url \
env:SHOP_URL\n  lore connection add local --driver sqlite --path data/shop.db"
)]
pub struct AddArgs {
    /// Connection id (letters, digits, `_` and `-`); agents pass it as connectionId.
    pub name: String,
    /// Database driver: sqlite, postgres, mysql (or mariadb), clickhouse, snowflake,
    /// bigquery, duckdb.
    #[arg(long, value_parser = parse_driver)]
    pub driver: Driver,
    /// Server drivers: the connection URL, a literal, env:VAR, ${VAR} or file:PATH.
    #[arg(long)]
    pub url: Option<String>,
    /// SQLite and DuckDB: the database file, absolute or relative to the project.
    #[arg(long)]
    pub path: Option<String>,
    /// BigQuery: the service-account key, as file:key.json, env:VAR or the JSON itself.
    #[arg(long)]
    pub credentials: Option<String>,
    /// Snowflake: the PKCS#8 PEM private key for key-pair authentication (file:PATH or env:VAR).
    #[arg(long)]
    pub private_key: Option<String>,
    /// What the connection holds, shown to agents.
    #[arg(long)]
    pub description: Option<String>,
    /// A schema (PostgreSQL, DuckDB) or database (MySQL) for `lore scan` to read (repeatable;
    /// default: all non-system ones).
    #[arg(long = "schema", value_name = "SCHEMA")]
    pub schemas: Vec<String>,
    /// Replace an existing connection of this name.
    #[arg(long)]
    pub force: bool,
    /// Write the entry without connecting first.
    #[arg(long)]
    pub no_test: bool,
}

fn parse_driver(name: &str) -> Result<Driver, String> {
    Driver::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = Driver::ALL.iter().map(|d| d.as_str()).collect();
        format!(
            "unknown driver `{name}`; known drivers: {}",
            known.join(", ")
        )
    })
}

pub fn run(args: AddArgs, mut project: Project) -> anyhow::Result<()> {
    let name = args.name.clone();
    if !is_valid_connection_id(&name) {
        bail!("connection name `{name}` must be 1-64 letters, digits, `_` or `-`");
    }
    if let Some(existing) = project.config.connections.get(&name)
        && !args.force
    {
        bail!(
            "connection `{name}` already exists in {} (driver {}); pass --force to replace it",
            project.config_path().display(),
            existing.driver.as_str()
        );
    }
    let connection = connection_from(&args)?;
    let config_path = project.config_path();
    let text = std::fs::read_to_string(&config_path)
        .with_context(|| format!("cannot read {}", config_path.display()))?;
    let Some(new_text) = with_connection_written(&text, &name, &connection) else {
        bail!(
            "cannot add the entry to {}: its `connections:` is not a block mapping; write `connections:` with one entry per indented block, or add the entry by hand",
            config_path.display()
        );
    };
    let loaded = parse_config(&new_text, &config_path).map_err(|e| super::super::coded(&e))?;
    let written = loaded.config.connections.get(&name);
    if written.map(serde_json::to_value).transpose()? != Some(serde_json::to_value(&connection)?) {
        bail!(
            "cannot add the entry to {} without changing other settings: add it by hand",
            config_path.display()
        );
    }
    project.config = loaded.config;
    if !args.no_test {
        let warehouses = Warehouses::for_project(&project);
        let tested = super::test_connection(&warehouses, &name)?;
        println!("{}", tested.line);
        if tested.entry.get("error").is_some() {
            bail!(
                "connection `{name}` failed the test, so {} was left unchanged: fix the settings, or pass --no-test to write it anyway",
                config_path.display()
            );
        }
        if !tested.ok {
            eprintln!("warning: `{name}` can write: give Lore a database user that may only read");
        }
    }
    write_atomically(&config_path, &new_text).map_err(|e| super::super::coded(&e))?;
    println!(
        "{} connection `{name}` ({}) in {}\nNext: lore scan {name}",
        if text == new_text { "kept" } else { "wrote" },
        connection.driver.as_str(),
        config_path.display()
    );
    Ok(())
}

/// The entry the flags describe, with flags checked against the driver.
fn connection_from(args: &AddArgs) -> anyhow::Result<ConnectionConfig> {
    let driver = args.driver;
    let mut connection = ConnectionConfig::new(driver);
    if driver.reads_a_file() {
        if args.url.is_some() {
            bail!(
                "--driver {} takes --path (the database file), not --url",
                driver.as_str()
            );
        }
        let Some(path) = args.path.as_deref().filter(|p| !p.trim().is_empty()) else {
            bail!(
                "--driver {} needs --path: the database file, absolute or relative to the project",
                driver.as_str()
            );
        };
        connection.path = Some(path.to_string());
    } else {
        if args.path.is_some() {
            bail!("--driver {} takes --url, not --path", driver.as_str());
        }
        let Some(url) = args.url.as_deref().filter(|u| !u.trim().is_empty()) else {
            bail!(
                "--driver {} needs --url (a literal, env:VAR, '${{VAR}}' or file:PATH)",
                driver.as_str()
            );
        };
        connection.url = Some(secret_reference(url, "--url")?);
    }
    if let Some(key) = &args.private_key {
        connection.private_key = Some(secret_reference(key, "--private-key")?);
    }
    if let Some(credentials) = &args.credentials {
        connection.credentials = Some(secret_reference(credentials, "--credentials")?);
    }
    connection.description = args.description.clone();
    if !args.schemas.is_empty() {
        connection.schemas = Some(args.schemas.clone());
    }
    Ok(connection)
}

/// A secret as lore.yaml writes it: `${VAR}` becomes `env:VAR`; a
/// variable inside a longer value is refused, since the configuration
/// reads whole values only.
fn secret_reference(value: &str, flag: &str) -> anyhow::Result<Secret> {
    let value = value.trim();
    if let Some(var) = value.strip_prefix("${").and_then(|v| v.strip_suffix('}'))
        && !var.is_empty()
        && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Ok(Secret::new(format!("env:{var}")));
    }
    if value.contains("${") {
        bail!(
            "{flag}: lore.yaml reads a whole value from a variable, not part of one: put the full value in a variable and pass {flag} env:VAR"
        );
    }
    Ok(Secret::new(value))
}
