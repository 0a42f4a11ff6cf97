//! Why a server could not be reached, in words that tell the causes apart:
//! a host name no resolver knows ("could not resolve host X") is a typo to
//! fix in the url, a refused port ("connection refused at host:port") is a
//! server that is not running or listens elsewhere.

use crate::error::WarehouseError;

/// What a failed connection attempt says about the server.
enum Failure {
    /// The host name does not resolve.
    HostNotFound,
    /// The host answered, but nothing listens on the port.
    Refused,
    /// Something else: the driver's own description.
    Other(String),
}

/// Texts resolvers put in their errors (glibc, musl, macOS, Windows).
const DNS_FAILURES: [&str; 6] = [
    "failed to lookup address",
    "name or service not known",
    "nodename nor servname",
    "no address associated with hostname",
    "temporary failure in name resolution",
    "no such host is known",
];

fn classify(error: &(dyn std::error::Error + 'static)) -> Failure {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(current) = cause {
        if let Some(io) = current.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::ConnectionRefused
        {
            return Failure::Refused;
        }
        let text = current.to_string().to_ascii_lowercase();
        if DNS_FAILURES.iter().any(|marker| text.contains(marker)) {
            return Failure::HostNotFound;
        }
        if text.contains("connection refused") {
            return Failure::Refused;
        }
        cause = current.source();
    }
    Failure::Other(error.to_string())
}

/// The error for a connection attempt to `target` (`host:port`) that
/// failed with `error` before the server answered.
pub(crate) fn unreachable(
    id: &str,
    driver: &'static str,
    target: &str,
    error: &(dyn std::error::Error + 'static),
) -> WarehouseError {
    let host = target
        .rsplit_once(':')
        .map_or(target, |(host, _)| host)
        .trim_start_matches('[')
        .trim_end_matches(']');
    match classify(error) {
        Failure::HostNotFound => WarehouseError::HostNotFound {
            id: id.to_string(),
            driver,
            host: host.to_string(),
        },
        Failure::Refused => WarehouseError::Unreachable {
            id: id.to_string(),
            driver,
            target: target.to_string(),
            message: "connection refused".to_string(),
        },
        Failure::Other(message) => WarehouseError::Unreachable {
            id: id.to_string(),
            driver,
            target: target.to_string(),
            message,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_that_does_not_resolve_reads_differently_from_a_refused_port() {
        let dns = std::io::Error::other(
            "failed to lookup address information: Name or service not known",
        );
        let message = unreachable("pg", "postgres", "db.invalid:5432", &dns).to_string();
        assert!(
            message.contains("could not resolve host db.invalid"),
            "{message}"
        );
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        let message = unreachable("pg", "postgres", "127.0.0.1:1", &refused).to_string();
        assert!(
            message.contains("connection refused at 127.0.0.1:1"),
            "{message}"
        );
        assert!(!message.contains("resolve"), "{message}");
    }
}
