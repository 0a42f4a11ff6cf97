//! Names nearly every type defines (`get`, `run`, `new`, `String`):
//! resolved by the name alone they would name anything, so they name
//! nothing.

/// Names so many types define that the name alone says nothing.
pub(super) fn is_common(name: &str) -> bool {
    name.len() < 3 || COMMON_NAMES.contains(&name)
}

#[rustfmt::skip]
const COMMON_NAMES: &[&str] = &[
    "get", "set", "add", "put", "run", "call", "apply", "update", "read", "write", "close", "open",
    "send", "start", "stop", "load", "save", "delete", "remove", "clear", "append", "extend",
    "insert", "pop", "push", "keys", "values", "items", "copy", "format", "join", "split", "strip",
    "replace", "find", "map", "filter", "reduce", "forEach", "then", "catch", "finally", "next",
    "iter", "new", "default", "from", "into", "clone", "to_string", "as_str", "as_ref", "len",
    "is_empty", "unwrap", "expect", "map_err", "and_then", "unwrap_or", "ok_or", "lock", "borrow",
    "borrow_mut", "init", "__init__", "__str__", "__repr__", "toString", "equals", "hash", "emit",
    "on", "off", "handle", "execute", "parse", "render", "build", "create", "make", "reset",
    "size", "length", "count", "contains", "has", "flush", "collect", "sort", "trim", "String",
    "Error", "Println", "Printf", "Sprintf", "Errorf", "log", "debug", "info", "warn", "error",
    "fmt", "eq", "cmp", "encode", "decode", "value", "name", "type", "test", "setUp", "tearDown",
    "assertEqual", "assertTrue", "Run", "Close", "Get", "Set", "Add", "Write", "Read", "New",
    "Len",
];
