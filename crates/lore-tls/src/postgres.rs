//! A PostgreSQL URL as Lore's clients of it use it: `sslmode` (all six of
//! libpq's modes) and `sslrootcert` are read here, because
//! `tokio-postgres` knows neither `verify-ca` nor `verify-full`; the rest
//! goes to the driver.

use std::path::{Path, PathBuf};

use tokio_postgres::config::{Host, SslMode};
use tokio_postgres::tls::{MakeTlsConnect, TlsConnect};
use tokio_postgres::{Client, Config, Connection, NoTls, Socket};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::{TlsMode, TlsSettings, client_config, explain_failure, take_params};

/// A PostgreSQL URL taken apart: the driver's configuration and the TLS
/// the URL asks for.
#[derive(Debug, Clone)]
pub struct PgTarget {
    /// The driver's configuration (without `sslmode`/`sslrootcert`, which
    /// it would misread).
    pub config: Config,
    /// The TLS asked for (libpq's default, `prefer`, when unsaid).
    pub settings: TlsSettings,
}

impl PgTarget {
    /// Reads `url` (`postgres://…` or a `key=value` string). Errors are
    /// messages for the user.
    pub fn parse(url: &str) -> Result<PgTarget, String> {
        let (rest, taken) = take_params(url, &["sslmode", "sslrootcert"]);
        let mut settings = TlsSettings {
            mode: TlsMode::Prefer,
            root_cert: None,
        };
        for (key, value) in taken {
            if key == "sslmode" {
                settings.mode = TlsMode::parse_libpq(&value).ok_or_else(|| {
                    format!(
                        "sslmode `{value}` is not one of disable, allow, prefer, require, verify-ca, verify-full"
                    )
                })?;
            } else if value != "system" {
                settings.root_cert = Some(PathBuf::from(value));
            }
        }
        // As in libpq: naming a CA with sslmode=require verifies the chain.
        if settings.mode == TlsMode::Require && settings.root_cert.is_some() {
            settings.mode = TlsMode::VerifyCa;
        }
        let mut config: Config = rest
            .parse()
            .map_err(|e: tokio_postgres::Error| e.to_string())?;
        config.ssl_mode(match settings.mode {
            TlsMode::Disable => SslMode::Disable,
            TlsMode::Prefer => SslMode::Prefer,
            TlsMode::Require | TlsMode::VerifyCa | TlsMode::VerifyFull => SslMode::Require,
        });
        Ok(PgTarget { config, settings })
    }

    /// `host:port` (or the socket folder) the URL points at, for messages.
    pub fn address(&self) -> String {
        let host = match self.config.get_hosts().first() {
            Some(Host::Tcp(host)) => host.clone(),
            #[cfg(unix)]
            Some(Host::Unix(path)) => path.display().to_string(),
            None => "localhost".to_string(),
        };
        let port = self.config.get_ports().first().copied().unwrap_or(5432);
        format!("{host}:{port}")
    }

    /// The connector for the TLS asked for: `None` for `sslmode=disable`.
    /// A relative `sslrootcert` is read from `base_dir`. Errors are
    /// messages for the user (an unreadable or empty CA file).
    pub fn tls(&self, base_dir: &Path) -> Result<Option<MakeRustlsConnect>, String> {
        match self.settings.mode {
            TlsMode::Disable => Ok(None),
            _ => Ok(Some(MakeRustlsConnect::new(client_config(
                &self.settings,
                base_dir,
            )?))),
        }
    }

    /// Connects with `tls` (from [`PgTarget::tls`]); the connection is
    /// driven on a task of the current runtime until the client is
    /// dropped or the server goes away.
    pub async fn connect(
        &self,
        tls: Option<&MakeRustlsConnect>,
    ) -> Result<Client, tokio_postgres::Error> {
        match tls {
            None => spawn_driven(self.config.connect(NoTls).await?),
            Some(tls) => spawn_driven(self.config.connect(tls.clone()).await?),
        }
    }

    /// Connects with `tls` and hands the connection to `drive` instead of
    /// driving it (a listener reads its notifications itself).
    pub async fn connect_with<F, R>(
        &self,
        tls: Option<&MakeRustlsConnect>,
        drive: F,
    ) -> Result<(Client, R), tokio_postgres::Error>
    where
        F: FnOnce(Driven) -> R,
    {
        match tls {
            None => {
                let (client, connection) = self.config.connect(NoTls).await?;
                Ok((client, drive(Driven::Plain(Box::new(connection)))))
            }
            Some(tls) => {
                let (client, connection) = self.config.connect(tls.clone()).await?;
                Ok((client, drive(Driven::Tls(Box::new(connection)))))
            }
        }
    }

    /// What to change when `error` is a TLS failure; `None` otherwise.
    pub fn tls_failure(&self, error: &tokio_postgres::Error) -> Option<String> {
        let mut chain = error.to_string();
        let mut source = std::error::Error::source(error);
        while let Some(inner) = source {
            chain.push_str(": ");
            chain.push_str(&inner.to_string());
            source = inner.source();
        }
        if chain.contains("server does not support TLS") {
            return Some(
                "the server does not offer TLS, but the url's sslmode demands it; enable ssl on the server, or use sslmode=prefer or disable"
                    .to_string(),
            );
        }
        let lower = chain.to_ascii_lowercase();
        (lower.contains("tls") || lower.contains("certificate") || lower.contains("handshake"))
            .then(|| explain_failure(&chain, &self.settings, "sslrootcert", "sslmode=require"))
    }
}

fn spawn_driven<S, T>(
    (client, connection): (Client, Connection<S, T>),
) -> Result<Client, tokio_postgres::Error>
where
    Connection<S, T>:
        std::future::Future<Output = Result<(), tokio_postgres::Error>> + Send + 'static,
{
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(client)
}

type TlsStream =
    <<MakeRustlsConnect as MakeTlsConnect<Socket>>::TlsConnect as TlsConnect<Socket>>::Stream;

/// A connection whose messages its owner reads (notifications), plain or
/// over TLS.
pub enum Driven {
    /// Plain TCP (or a Unix socket).
    Plain(Box<Connection<Socket, tokio_postgres::tls::NoTlsStream>>),
    /// Over rustls.
    Tls(Box<Connection<Socket, TlsStream>>),
}

impl Driven {
    /// The next message from the server (a notification, a notice);
    /// `None` when the connection has ended.
    pub async fn next_message(
        &mut self,
    ) -> Option<Result<tokio_postgres::AsyncMessage, tokio_postgres::Error>> {
        match self {
            Driven::Plain(connection) => {
                std::future::poll_fn(|cx| connection.poll_message(cx)).await
            }
            Driven::Tls(connection) => std::future::poll_fn(|cx| connection.poll_message(cx)).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libpq_modes_are_read_and_the_rest_goes_to_the_driver() {
        let target = PgTarget::parse(
            "postgres://lore@db.internal:6432/knowledge?sslmode=verify-full&application_name=x",
        )
        .unwrap();
        assert_eq!(target.settings.mode, TlsMode::VerifyFull);
        assert_eq!(target.config.get_ssl_mode(), SslMode::Require);
        assert_eq!(target.config.get_dbname(), Some("knowledge"));
        assert_eq!(target.address(), "db.internal:6432");

        // A CA with `require` verifies the chain, as in libpq.
        let target = PgTarget::parse("postgres://h/db?sslmode=require&sslrootcert=ca.pem").unwrap();
        assert_eq!(target.settings.mode, TlsMode::VerifyCa);
        assert_eq!(target.settings.root_cert, Some(PathBuf::from("ca.pem")));

        let unsaid = PgTarget::parse("postgres://h/db").unwrap();
        assert_eq!(unsaid.settings.mode, TlsMode::Prefer);

        let error = PgTarget::parse("postgres://h/db?sslmode=always").unwrap_err();
        assert!(error.contains("verify-full"), "{error}");
    }

    #[test]
    fn a_missing_root_certificate_is_named_before_connecting() {
        let target =
            PgTarget::parse("postgres://h/db?sslmode=verify-ca&sslrootcert=certs/ca.pem").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let Err(error) = target.tls(dir.path()) else {
            panic!("a missing CA file was accepted");
        };
        assert!(error.contains("ca.pem"), "{error}");
        let plain = PgTarget::parse("postgres://h/db?sslmode=disable").unwrap();
        assert!(plain.tls(dir.path()).unwrap().is_none());
    }
}
