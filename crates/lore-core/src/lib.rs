//! The foundation every Lore crate stands on.
//!
//! Three ideas live here and nowhere else:
//!
//! - [`error`]: the stable, public error codes. Every failure a user or an
//!   agent can see carries one of these codes, a human message and a
//!   `retryable` flag, whichever crate it started in.
//! - [`config`]: the `lore.yaml` model, its loader (precise locations for
//!   malformed files, warnings for unknown keys) and secret references
//!   (`env:VAR`, `file:PATH`).
//! - [`project`]: where a project lives on disk, how a command finds it, and
//!   the layout `lore init` writes.
//! - [`hold`]: the lock every process serving a project holds, which a
//!   restore takes exclusively.
//! - [`limits`]: how large and deep a SQL text may be, measured without
//!   recursion before anything parses it, and the stack budget of the code
//!   that walks SQL trees.
//! - [`cursor`]: the one page-cursor codec of every listing.
//! - [`time`]: calendar arithmetic and UTC timestamps for artifacts and
//!   decoded database values.
//!
//! This crate performs no network I/O and prints nothing.
#![doc = include_str!("../README.md")]

pub mod arguments;
pub mod config;
pub mod cursor;
pub mod error;
pub mod hash;
pub mod hold;
pub mod limits;
pub mod project;
pub mod time;

pub use error::{ErrorCode, ErrorReport};
