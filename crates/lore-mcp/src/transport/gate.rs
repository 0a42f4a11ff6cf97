//! The Host and Origin check every HTTP request passes first. It defends a
//! loopback server against DNS rebinding from a browser: the Host must be
//! loopback or explicitly allowed, and a request carrying an `Origin` is
//! refused unless that exact origin is allowed. Clients that are not
//! browsers send no `Origin` and pass.

use axum::http::{HeaderMap, header};

/// The Host names every server accepts.
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Why the gate refused a request: the metrics label and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// `host` or `origin`.
    pub reason: &'static str,
    /// What is wrong and how to allow it.
    pub message: String,
}

pub(crate) struct Gate {
    pub(crate) hosts: Vec<String>,
    pub(crate) origins: Vec<String>,
}

impl Gate {
    /// Builds the gate: loopback names plus `hosts`, and `origins`.
    pub(crate) fn new(hosts: &[String], origins: &[String]) -> Gate {
        Gate {
            hosts: LOOPBACK_HOSTS
                .iter()
                .map(|h| h.to_string())
                .chain(hosts.iter().map(|h| normalize_host(h)))
                .collect(),
            origins: origins.iter().map(|o| normalize_origin(o)).collect(),
        }
    }

    pub(crate) fn admit(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .map(normalize_host)
            .ok_or_else(|| Refusal {
                reason: "host",
                message: "the request has no Host header".to_string(),
            })?;
        if !self.hosts.contains(&host) {
            return Err(Refusal {
                reason: "host",
                message: format!(
                    "Host `{host}` is not allowed; add it with --allowed-host or mcp.allowed_hosts in lore.yaml if this server is meant to answer it"
                ),
            });
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = normalize_origin(origin.to_str().unwrap_or_default());
            if !self.origins.contains(&origin) {
                return Err(Refusal {
                    reason: "origin",
                    message: format!(
                        "Origin `{origin}` is not allowed; add it with --allowed-origin or mcp.allowed_origins in lore.yaml to let that page call this server"
                    ),
                });
            }
        }
        Ok(())
    }
}

/// Lower case, without port, without IPv6 brackets: `[::1]:7878` → `::1`.
pub fn normalize_host(host: &str) -> String {
    let host = host.trim().to_ascii_lowercase();
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or_default().to_string();
    }
    match host.rsplit_once(':') {
        // A single colon separates a port; more mean a bare IPv6 address.
        Some((name, port)) if !name.contains(':') && port.chars().all(|c| c.is_ascii_digit()) => {
            name.to_string()
        }
        _ => host,
    }
}

pub(crate) fn normalize_origin(origin: &str) -> String {
    origin.trim().trim_end_matches('/').to_ascii_lowercase()
}

/// Checks that `origin` is a full origin: `http(s)://host[:port]` with no path.
pub fn validate_origin(origin: &str) -> Result<(), String> {
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .ok_or_else(|| format!("allowed origin `{origin}` must start with http:// or https://"))?;
    if rest.is_empty() || rest.trim_end_matches('/').contains('/') {
        return Err(format!(
            "allowed origin `{origin}` must be scheme://host[:port] with no path, e.g. http://localhost:3000"
        ));
    }
    Ok(())
}

/// Whether binding `host` keeps the server on this machine.
pub fn is_loopback_host(host: &str) -> bool {
    let host = normalize_host(host);
    LOOPBACK_HOSTS.contains(&host.as_str()) || host.starts_with("127.")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(origins: &[&str]) -> Gate {
        Gate {
            hosts: LOOPBACK_HOSTS.iter().map(|h| h.to_string()).collect(),
            origins: origins.iter().map(|o| normalize_origin(o)).collect(),
        }
    }

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(name.clone(), value.parse().unwrap());
        }
        map
    }

    #[test]
    fn hosts_are_normalized() {
        assert_eq!(normalize_host("[::1]:7878"), "::1");
        assert_eq!(normalize_host("LocalHost:7878"), "localhost");
        assert_eq!(normalize_host("::1"), "::1");
        assert_eq!(normalize_host("127.0.0.1"), "127.0.0.1");
    }

    #[test]
    fn loopback_hosts_pass_and_rebinding_hosts_do_not() {
        let g = gate(&[]);
        assert!(
            g.admit(&headers(&[(header::HOST, "127.0.0.1:7878")]))
                .is_ok()
        );
        assert!(g.admit(&headers(&[(header::HOST, "[::1]:7878")])).is_ok());
        let err = g
            .admit(&headers(&[(header::HOST, "evil.example:7878")]))
            .unwrap_err();
        assert_eq!(err.reason, "host");
        assert!(err.message.contains("evil.example"), "{err:?}");
    }

    #[test]
    fn any_origin_is_refused_unless_allowed() {
        let closed = gate(&[]);
        let request = headers(&[
            (header::HOST, "localhost"),
            (header::ORIGIN, "http://localhost:3000"),
        ]);
        assert!(closed.admit(&request).is_err());
        let open = gate(&["http://localhost:3000/"]);
        assert!(open.admit(&request).is_ok());
    }

    #[test]
    fn origins_must_be_full_origins() {
        assert!(validate_origin("http://localhost:3000").is_ok());
        assert!(validate_origin("localhost:3000").is_err());
        assert!(validate_origin("https://app.example.com/path").is_err());
    }

    #[test]
    fn loopback_binds_are_recognized() {
        assert!(is_loopback_host("127.0.0.1"));
        assert!(is_loopback_host("localhost"));
        assert!(!is_loopback_host("0.0.0.0"));
    }
}
