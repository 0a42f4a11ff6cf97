//! Lore's window onto the user's warehouses.
//!
//! - [`guard`]: decides from the parsed SQL whether a statement is a pure
//!   read. The first wall.
//! - [`execute`]: runs guarded SQL in a session the database itself holds
//!   read-only (the second wall), with a row cap, a statement timeout that
//!   really interrupts, and lossless JSON values.
//! - [`demo`]: generates the embedded demo warehouse.
//!
//! Nothing here knows about MCP or terminals.

pub mod demo;
pub mod execute;
pub mod guard;
