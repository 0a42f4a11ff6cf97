//! placeholder while deps build
