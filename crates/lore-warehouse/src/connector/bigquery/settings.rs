//! What a `bigquery://` url says: the project jobs run (and are billed)
//! in, the datasets a scan reads, the location, the bytes-billed budget
//! and the REST root.
//!
//! ```text
//! bigquery://PROJECT?datasets=A,B&location=EU&maximum_bytes_billed=10GiB
//! ```
//!
//! Unknown parameters are refused rather than ignored: a misspelt
//! `maximum_bytes_billed` would silently leave the default budget.

/// The REST root of BigQuery v2 (the discovery document's `rootUrl` and
/// `servicePath`).
pub const DEFAULT_ENDPOINT: &str = "https://bigquery.googleapis.com/bigquery/v2";

/// Bytes one query may bill unless the url says otherwise: 1 GiB (about
/// half a US cent at on-demand prices).
pub const DEFAULT_MAXIMUM_BYTES_BILLED: u64 = 1024 * 1024 * 1024;

/// A dataset Lore reads: `dataset`, or `project.dataset` for a dataset of
/// another project (public datasets, a shared warehouse project).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatasetRef {
    /// The dataset's project, when it is not the connection's.
    pub project: Option<String>,
    /// The dataset id.
    pub dataset: String,
}

impl DatasetRef {
    /// Parses `dataset` or `project.dataset`.
    pub fn parse(text: &str) -> Option<DatasetRef> {
        let text = text.trim();
        let (project, dataset) = match text.rsplit_once('.') {
            Some((project, dataset)) => (Some(project.to_string()), dataset),
            None => (None, text),
        };
        let valid = !dataset.is_empty()
            && dataset
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        valid.then(|| DatasetRef {
            project: project.filter(|p| !p.is_empty()),
            dataset: dataset.to_string(),
        })
    }
}

/// The settings of one BigQuery connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The project jobs run in (and are billed to).
    pub project: String,
    /// The datasets `lore scan` reads (`None`: every dataset of the project).
    pub datasets: Option<Vec<DatasetRef>>,
    /// Where jobs run (`EU`, `US`, `europe-west1`); `None` lets BigQuery
    /// choose from the datasets a query reads.
    pub location: Option<String>,
    /// The most bytes one query may bill.
    pub maximum_bytes_billed: u64,
    /// The REST root, without a trailing slash.
    pub endpoint: String,
}

impl Settings {
    /// Reads a `bigquery://` url; the error says what is wrong without
    /// repeating the url.
    pub fn parse(url: &str) -> Result<Settings, String> {
        let rest = url
            .trim()
            .strip_prefix("bigquery://")
            .ok_or("it must start with bigquery:// followed by the project id")?;
        let (project, query) = rest.split_once('?').unwrap_or((rest, ""));
        let project = percent_decode(project.trim_end_matches('/'));
        if project.is_empty() {
            return Err("the project id is missing: bigquery://PROJECT".to_string());
        }
        if !project
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
        {
            return Err(
                "the project id may hold only letters, digits, `-`, and `.`/`:` for domain-scoped projects"
                    .to_string(),
            );
        }
        let mut settings = Settings {
            project,
            datasets: None,
            location: None,
            maximum_bytes_billed: DEFAULT_MAXIMUM_BYTES_BILLED,
            endpoint: DEFAULT_ENDPOINT.to_string(),
        };
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = percent_decode(value);
            match key {
                "datasets" | "dataset" => {
                    let mut datasets = Vec::new();
                    for name in value.split(',').filter(|n| !n.trim().is_empty()) {
                        datasets.push(DatasetRef::parse(name).ok_or_else(|| {
                            format!("`{}` is not a dataset id (letters, digits and `_`, optionally after `project.`)", name.trim())
                        })?);
                    }
                    if datasets.is_empty() {
                        return Err(
                            "datasets= lists no dataset; leave it out to scan every dataset"
                                .to_string(),
                        );
                    }
                    settings.datasets = Some(datasets);
                }
                "location" => {
                    if value.is_empty()
                        || !value.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                    {
                        return Err(format!(
                            "location `{value}` is not a BigQuery location such as EU, US or europe-west1"
                        ));
                    }
                    settings.location = Some(value);
                }
                "maximum_bytes_billed" => {
                    settings.maximum_bytes_billed = parse_bytes(&value).ok_or_else(|| {
                        format!("maximum_bytes_billed `{value}` is not a number of bytes (e.g. 10737418240 or 10GiB)")
                    })?;
                }
                "endpoint" => {
                    if !(value.starts_with("https://") || value.starts_with("http://")) {
                        return Err(
                            "endpoint must be an http:// or https:// url (the REST root, e.g. https://bigquery.googleapis.com/bigquery/v2)"
                                .to_string(),
                        );
                    }
                    settings.endpoint = value.trim_end_matches('/').to_string();
                }
                other => {
                    return Err(format!(
                        "unknown parameter `{other}` (known: datasets, location, maximum_bytes_billed, endpoint)"
                    ));
                }
            }
        }
        Ok(settings)
    }

    /// `host:port` of the REST root, for messages.
    pub fn target(&self) -> String {
        let without_scheme = self
            .endpoint
            .split_once("://")
            .map(|(_, rest)| rest)
            .unwrap_or(&self.endpoint);
        let host = without_scheme.split('/').next().unwrap_or(without_scheme);
        if host.contains(':') {
            host.to_string()
        } else if self.endpoint.starts_with("https://") {
            format!("{host}:443")
        } else {
            format!("{host}:80")
        }
    }
}

/// `1073741824`, `10GiB`, `500MB`, `1TB` (decimal and binary units).
pub fn parse_bytes(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits_end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits_end);
    let number: u64 = number.parse().ok()?;
    let factor: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "tib" => 1 << 40,
        _ => return None,
    };
    number.checked_mul(factor).filter(|bytes| *bytes > 0)
}

/// A byte count for people: `1.5 GiB`, `12 MiB`, `800 bytes`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64;
    let mut unit = "bytes";
    for next in UNITS {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = next;
    }
    if value.fract() < 0.05 {
        format!("{value:.0} {unit}")
    } else {
        format!("{value:.1} {unit}")
    }
}

fn percent_decode(text: &str) -> String {
    form_urlencoded::parse(format!("x={text}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_url_gives_every_setting() {
        let s = Settings::parse(
            "bigquery://acme-data?datasets=shop,other-proj.web&location=EU&maximum_bytes_billed=10GiB&endpoint=http://127.0.0.1:9050/bigquery/v2/",
        )
        .unwrap();
        assert_eq!(s.project, "acme-data");
        assert_eq!(
            s.datasets.clone().unwrap(),
            vec![
                DatasetRef {
                    project: None,
                    dataset: "shop".into()
                },
                DatasetRef {
                    project: Some("other-proj".into()),
                    dataset: "web".into()
                }
            ]
        );
        assert_eq!(s.location.as_deref(), Some("EU"));
        assert_eq!(s.maximum_bytes_billed, 10 * 1024 * 1024 * 1024);
        assert_eq!(s.endpoint, "http://127.0.0.1:9050/bigquery/v2");
        assert_eq!(s.target(), "127.0.0.1:9050");
    }

    #[test]
    fn defaults_are_the_real_service_and_a_small_budget() {
        let s = Settings::parse("bigquery://p").unwrap();
        assert_eq!(s.endpoint, DEFAULT_ENDPOINT);
        assert_eq!(s.maximum_bytes_billed, DEFAULT_MAXIMUM_BYTES_BILLED);
        assert_eq!(s.target(), "bigquery.googleapis.com:443");
        assert_eq!(s.datasets, None);
    }

    #[test]
    fn mistakes_are_named() {
        for (url, says) in [
            ("postgres://x", "bigquery://"),
            ("bigquery://", "project id is missing"),
            ("bigquery://p?maximum_bytes_billd=5", "maximum_bytes_billd"),
            ("bigquery://p?maximum_bytes_billed=lots", "not a number"),
            ("bigquery://p?datasets=a;b", "not a dataset id"),
            ("bigquery://p?endpoint=ftp://x", "endpoint"),
        ] {
            let err = Settings::parse(url).unwrap_err();
            assert!(err.contains(says), "{url}: {err}");
        }
    }

    #[test]
    fn byte_counts_read_and_print_in_units() {
        assert_eq!(parse_bytes("1000"), Some(1000));
        assert_eq!(parse_bytes("2MB"), Some(2_000_000));
        assert_eq!(parse_bytes("1 TiB"), Some(1 << 40));
        assert_eq!(parse_bytes("0"), None);
        assert_eq!(human_bytes(1536 * 1024 * 1024), "1.5 GiB");
        assert_eq!(human_bytes(10 * 1024 * 1024), "10 MiB");
        assert_eq!(human_bytes(12), "12 bytes");
    }
}
