//! Bearer tokens and their scopes. A server with no tokens serves loopback
//! only and treats every caller as the local user (every tool); a server
//! with tokens asks each `/mcp` request for `Authorization: Bearer <token>`
//! and lets it see and call only the tools its scope allows.

use std::sync::Arc;

pub use crate::caller::Caller;

use axum::http::{HeaderMap, header};
use lore_core::config::Scope;

/// One accepted token. Its `Debug` form never shows the secret.
#[derive(Clone)]
pub struct AccessToken {
    /// Who holds it, for logs and metrics.
    pub name: String,
    /// The token itself.
    pub secret: String,
    /// What it may do.
    pub scope: Scope,
}

impl std::fmt::Debug for AccessToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccessToken")
            .field("name", &self.name)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// Why a request was not let in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Denied {
    /// No usable `Authorization: Bearer` header.
    Missing,
    /// A bearer token no configured token matches.
    Invalid,
}

/// The tokens a server accepts.
pub(crate) struct Tokens {
    tokens: Vec<AccessToken>,
}

impl Tokens {
    pub(crate) fn new(tokens: Vec<AccessToken>) -> Tokens {
        Tokens { tokens }
    }

    /// Whether requests must present a token.
    pub(crate) fn required(&self) -> bool {
        !self.tokens.is_empty()
    }

    /// The caller a request's headers identify.
    pub(crate) fn authenticate(&self, headers: &HeaderMap) -> Result<Caller, Denied> {
        if !self.required() {
            return Ok(Caller {
                name: Arc::from("local"),
                scope: Scope::Admin,
            });
        }
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                let (scheme, token) = v.trim().split_once(' ')?;
                scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
            })
            .filter(|t| !t.is_empty())
            .ok_or(Denied::Missing)?;
        // Compare against every token in constant time, so timing tells
        // neither which token nor how much of one matched.
        let mut found: Option<&AccessToken> = None;
        for token in &self.tokens {
            if constant_time_eq(token.secret.as_bytes(), presented.as_bytes()) && found.is_none() {
                found = Some(token);
            }
        }
        found
            .map(|t| Caller {
                name: Arc::from(t.name.as_str()),
                scope: t.scope,
            })
            .ok_or(Denied::Invalid)
    }
}

pub(super) fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens() -> Tokens {
        Tokens::new(vec![
            AccessToken {
                name: "ci".into(),
                secret: "reader-secret-123".into(),
                scope: Scope::Reader,
            },
            AccessToken {
                name: "ops".into(),
                secret: "admin-secret-456".into(),
                scope: Scope::Admin,
            },
        ])
    }

    fn bearer(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, value.parse().unwrap());
        headers
    }

    #[test]
    fn tokens_identify_their_holder_and_scope() {
        let caller = tokens()
            .authenticate(&bearer("Bearer admin-secret-456"))
            .unwrap();
        assert_eq!(&*caller.name, "ops");
        assert_eq!(caller.scope, Scope::Admin);
        let caller = tokens()
            .authenticate(&bearer("bearer reader-secret-123"))
            .unwrap();
        assert_eq!(caller.scope, Scope::Reader);
    }

    #[test]
    fn missing_and_wrong_tokens_are_told_apart() {
        let t = tokens();
        assert_eq!(
            t.authenticate(&HeaderMap::new()).unwrap_err(),
            Denied::Missing
        );
        assert_eq!(
            t.authenticate(&bearer("Basic abc")).unwrap_err(),
            Denied::Missing
        );
        assert_eq!(
            t.authenticate(&bearer("Bearer reader-secret-12"))
                .unwrap_err(),
            Denied::Invalid
        );
    }

    #[test]
    fn without_tokens_the_local_user_may_do_everything() {
        let caller = Tokens::new(Vec::new())
            .authenticate(&HeaderMap::new())
            .unwrap();
        assert_eq!(caller.scope, Scope::Admin);
    }

    #[test]
    fn debug_never_shows_the_secret() {
        let text = format!("{:?}", tokens().tokens);
        assert!(!text.contains("secret-123"), "{text}");
    }
}
