//! What a Snowflake connection's `url` (and `private_key`) say: who logs
//! in, how, where, and into which database, warehouse and role.
//!
//! `snowflake://USER:PASSWORD@ACCOUNT/DATABASE?warehouse=W&role=R&schemas=A,B`
//! reaches `https://ACCOUNT.snowflakecomputing.com`; `host`, `port` and
//! `protocol` point it elsewhere (a proxy, a private link, a local test
//! server). The user and password are percent-decoded. Nothing here ever
//! formats a password or key: [`Settings`]' `Debug` leaves them out, and
//! errors name parameters, never their values.

use std::path::Path;

use lore_core::config::Secret;

use super::keypair::KeyPair;
use crate::dialect::SqlDialect;

/// How Lore proves who it is.
pub(crate) enum Credentials {
    /// `PASSWORD` in the login request.
    Password(String),
    /// A JWT signed with the user's private key (`SNOWFLAKE_JWT`).
    KeyPair(Box<KeyPair>),
}

/// Everything a session needs, read from the url and the private key.
pub(crate) struct Settings {
    /// `https://host:port`, without a trailing slash.
    pub base_url: String,
    /// `host:port`, for messages.
    pub target: String,
    /// The account identifier as written (`myorg-myaccount`, `xy12345.us-east-1`).
    pub account: String,
    /// The login name.
    pub user: String,
    pub credentials: Credentials,
    /// The database every session opens in.
    pub database: String,
    pub warehouse: Option<String>,
    pub role: Option<String>,
    /// `schemas=` of the url, folded as Snowflake stores them (upper case
    /// unless quoted); the first is the sessions' current schema (else
    /// `PUBLIC`, Snowflake's default).
    pub schemas: Vec<String>,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("base_url", &self.base_url)
            .field("account", &self.account)
            .field("user", &self.user)
            .field(
                "credentials",
                &match self.credentials {
                    Credentials::Password(_) => "password",
                    Credentials::KeyPair(_) => "key pair",
                },
            )
            .field("database", &self.database)
            .field("warehouse", &self.warehouse)
            .field("role", &self.role)
            .field("schemas", &self.schemas)
            .finish()
    }
}

/// The query parameters a url may carry.
const PARAMETERS: &[&str] = &["warehouse", "role", "schemas", "host", "port", "protocol"];

impl Settings {
    /// Reads `url` (resolved) and the connection's `private_key`. Errors
    /// say what to fix and never repeat a value.
    pub(crate) fn parse(
        url: &str,
        private_key: Option<&Secret>,
        what: &str,
        project_dir: &Path,
    ) -> Result<Settings, SettingsError> {
        let invalid = |reason: &str| SettingsError::Url(reason.to_string());
        let rest = url
            .strip_prefix("snowflake://")
            .ok_or_else(|| invalid("it must start with snowflake://"))?;
        let (rest, query) = match rest.split_once('?') {
            Some((rest, query)) => (rest, Some(query)),
            None => (rest, None),
        };
        let (userinfo, location) = rest.rsplit_once('@').ok_or_else(|| {
            invalid("it names no user: snowflake://USER:PASSWORD@ACCOUNT/DATABASE")
        })?;
        let (user, password) = match userinfo.split_once(':') {
            Some((user, password)) => (percent_decode(user)?, Some(percent_decode(password)?)),
            None => (percent_decode(userinfo)?, None),
        };
        if user.is_empty() {
            return Err(invalid("the user is empty"));
        }
        let (account, database) = location.split_once('/').unwrap_or((location, ""));
        let account = percent_decode(account)?;
        if account.is_empty() || account.contains(['/', ':', ' ']) {
            return Err(invalid(
                "the account identifier is missing or malformed (e.g. myorg-myaccount, or xy12345.eu-west-1)",
            ));
        }
        let database = percent_decode(database.trim_end_matches('/'))?;
        if database.is_empty() {
            return Err(invalid(
                "it names no database: snowflake://USER:PASSWORD@ACCOUNT/DATABASE",
            ));
        }
        let mut warehouse = None;
        let mut role = None;
        let mut schemas = Vec::new();
        let mut host = None;
        let mut port = None;
        let mut protocol = "https".to_string();
        for (key, value) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
            let value = value.trim().to_string();
            match key.to_ascii_lowercase().as_str() {
                "warehouse" => warehouse = Some(value).filter(|v| !v.is_empty()),
                "role" => role = Some(value).filter(|v| !v.is_empty()),
                "schemas" | "schema" => schemas.extend(
                    value
                        .split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(|s| SqlDialect::Snowflake.fold_identifier(s)),
                ),
                "host" => host = Some(value).filter(|v| !v.is_empty()),
                "port" => {
                    port = Some(value.parse::<u16>().map_err(|_| {
                        invalid("the port parameter must be a number from 1 to 65535")
                    })?)
                }
                "protocol" => {
                    protocol = value.to_ascii_lowercase();
                    if protocol != "http" && protocol != "https" {
                        return Err(invalid("the protocol parameter must be http or https"));
                    }
                }
                other => {
                    return Err(SettingsError::Url(format!(
                        "unknown parameter `{other}` (known: {})",
                        PARAMETERS.join(", ")
                    )));
                }
            }
        }
        let host = host.unwrap_or_else(|| default_host(&account));
        let port = port.unwrap_or(if protocol == "https" { 443 } else { 80 });
        let credentials = match (private_key, password) {
            (Some(key), _) => {
                let pem = key
                    .resolve_text(&format!("{what} private_key"), project_dir)
                    .map_err(SettingsError::Secret)?;
                Credentials::KeyPair(Box::new(
                    KeyPair::from_pem(&pem).map_err(SettingsError::Key)?,
                ))
            }
            (None, Some(password)) if !password.is_empty() => Credentials::Password(password),
            (None, _) => {
                return Err(invalid(
                    "it has no password, and the connection has no private_key: add one of them",
                ));
            }
        };
        let bracketed = if host.contains(':') {
            format!("[{host}]")
        } else {
            host.clone()
        };
        Ok(Settings {
            base_url: format!("{protocol}://{bracketed}:{port}"),
            target: format!("{bracketed}:{port}"),
            account,
            user,
            credentials,
            database,
            warehouse,
            role,
            schemas,
        })
    }

    /// `ACCOUNT_NAME` of the login request: the account without the region
    /// or cloud the identifier may carry (`xy12345.us-east-1` → `xy12345`),
    /// as the official connectors send it.
    pub(crate) fn account_name(&self) -> String {
        let mut parts = self.account.split('.');
        let first = parts.next().unwrap_or_default();
        match parts.next() {
            // `account-externalid.global`: the part before the last `-`.
            Some("global") => first
                .rsplit_once('-')
                .map(|(account, _)| account)
                .unwrap_or(first)
                .to_string(),
            _ => first.to_string(),
        }
    }
}

/// `ACCOUNT.snowflakecomputing.com` (`.cn` for China regions).
fn default_host(account: &str) -> String {
    let china = account
        .split('.')
        .nth(1)
        .is_some_and(|region| region.to_ascii_lowercase().starts_with("cn-"));
    format!(
        "{}.snowflakecomputing.{}",
        account.to_ascii_lowercase(),
        if china { "cn" } else { "com" }
    )
}

/// Percent-decoding of the url's user, password and path (`+` stays `+`).
fn percent_decode(text: &str) -> Result<String, SettingsError> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = |b: Option<&u8>| b.and_then(|b| (*b as char).to_digit(16));
            match (hex(bytes.get(i + 1)), hex(bytes.get(i + 2))) {
                (Some(high), Some(low)) => {
                    out.push((high * 16 + low) as u8);
                    i += 3;
                    continue;
                }
                _ => {
                    return Err(SettingsError::Url(
                        "a `%` is not followed by two hex digits (percent-encode special characters of the user or password)".to_string(),
                    ));
                }
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out)
        .map_err(|_| SettingsError::Url("a percent-encoded part is not UTF-8".to_string()))
}

/// Why the settings cannot be read.
#[derive(Debug)]
pub(crate) enum SettingsError {
    /// The url, with the reason (never the url).
    Url(String),
    /// The private key's secret could not be resolved.
    Secret(lore_core::config::ConfigError),
    /// The private key is not a usable RSA key.
    Key(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(url: &str) -> Result<Settings, SettingsError> {
        Settings::parse(url, None, "connection `sf`", Path::new("."))
    }

    #[test]
    fn a_full_url_gives_every_setting() {
        let s = parse(
            "snowflake://lore%40corp:p%40ss+word@myorg-acct/ANALYTICS?warehouse=WH&role=LORE_READER&schemas=sales,%22Mixed%22",
        )
        .unwrap();
        assert_eq!(s.base_url, "https://myorg-acct.snowflakecomputing.com:443");
        assert_eq!(s.user, "lore@corp");
        assert!(matches!(&s.credentials, Credentials::Password(p) if p == "p@ss+word"));
        assert_eq!(s.database, "ANALYTICS");
        assert_eq!(s.warehouse.as_deref(), Some("WH"));
        assert_eq!(s.role.as_deref(), Some("LORE_READER"));
        assert_eq!(s.schemas, vec!["SALES", "Mixed"]);
        assert_eq!(s.account_name(), "myorg-acct");
        assert!(!format!("{s:?}").contains("p@ss"), "{s:?}");
    }

    #[test]
    fn host_port_and_protocol_point_elsewhere() {
        let s = parse("snowflake://u:p@acct/db?host=127.0.0.1&port=8080&protocol=http").unwrap();
        assert_eq!(s.base_url, "http://127.0.0.1:8080");
        assert_eq!(s.target, "127.0.0.1:8080");
        let region = parse("snowflake://u:p@xy12345.us-east-1/db").unwrap();
        assert_eq!(
            region.base_url,
            "https://xy12345.us-east-1.snowflakecomputing.com:443"
        );
        assert_eq!(region.account_name(), "xy12345");
        let china = parse("snowflake://u:p@xy12345.cn-north-1/db").unwrap();
        assert!(china.base_url.ends_with(".snowflakecomputing.cn:443"));
    }

    #[test]
    fn mistakes_are_named_without_repeating_values() {
        for (url, says) in [
            ("postgres://u:p@h/db", "snowflake://"),
            ("snowflake://acct/db", "no user"),
            ("snowflake://u:secret@acct", "no database"),
            (
                "snowflake://u:secret@acct/db?colour=blue",
                "unknown parameter `colour`",
            ),
            ("snowflake://u:secret@acct/db?port=99999", "port"),
            ("snowflake://u:secret@acct/db?protocol=ftp", "protocol"),
            ("snowflake://u@acct/db", "no password"),
            ("snowflake://u:se%zzcret@acct/db", "hex digits"),
        ] {
            let Err(SettingsError::Url(reason)) = parse(url) else {
                panic!("{url} should be refused");
            };
            assert!(reason.contains(says), "{url}: {reason}");
            assert!(!reason.contains("secret"), "{url}: {reason}");
            assert!(!reason.contains("blue"), "{url}: {reason}");
        }
    }
}
