//! The names a language has without importing them (builtins, the
//! standard library's always-there objects): a call of one is no call of
//! the code's, unless the file defines or imports that name itself.

use super::{Definition, Import, Lang};

/// Whether the file itself defines or imports the first name of `site`.
pub(super) fn is_own(site: &str, definitions: &[Definition], imports: &[Import]) -> bool {
    let head = site.split(['.', ':']).next().unwrap_or(site);
    definitions.iter().any(|d| d.name == head)
        || imports.iter().any(|i| {
            i.names.iter().any(|n| n == head)
                || i.aliases.contains_key(head)
                || i.module.split([':', '{', ',', ' ', '}']).any(|s| s == head)
        })
}

/// Whether `site` names a builtin of the language (or of its standard
/// library's always-there objects).
pub(super) fn is_builtin(lang: Lang, site: &str) -> bool {
    let (head, qualified) = match site.split_once(['.', ':']) {
        Some((head, _)) => (head, true),
        None => (site, false),
    };
    let list: &[&str] = match (lang, qualified) {
        (Lang::Python, false) => PYTHON_BUILTINS,
        (Lang::Script, false) => SCRIPT_GLOBALS,
        (Lang::Script, true) => SCRIPT_OBJECTS,
        (Lang::Go, false) => GO_BUILTINS,
        (Lang::Rust, false) => RUST_PRELUDE,
        (Lang::Rust, true) => RUST_ROOTS,
        _ => return false,
    };
    list.contains(&head)
}

#[rustfmt::skip]
const PYTHON_BUILTINS: &[&str] = &[
    "abs", "all", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes", "callable",
    "chr", "classmethod", "compile", "complex", "delattr", "dict", "dir", "divmod", "enumerate",
    "eval", "exec", "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr",
    "hash", "help", "hex", "id", "input", "int", "isinstance", "issubclass", "iter", "len", "list",
    "locals", "map", "max", "memoryview", "min", "next", "object", "oct", "open", "ord", "pow",
    "print", "property", "range", "repr", "reversed", "round", "set", "setattr", "slice", "sorted",
    "staticmethod", "str", "sum", "super", "tuple", "type", "vars", "zip", "__import__",
    "Exception", "BaseException", "ValueError", "TypeError", "KeyError", "IndexError",
    "AttributeError", "RuntimeError", "NotImplementedError", "OSError", "IOError", "StopIteration",
    "AssertionError", "ImportError", "LookupError", "FileNotFoundError", "PermissionError",
    "UnicodeDecodeError", "UnicodeEncodeError", "Warning", "DeprecationWarning", "UserWarning",
    "NotImplemented",
];

#[rustfmt::skip]
const SCRIPT_GLOBALS: &[&str] = &[
    "require", "parseInt", "parseFloat", "isNaN", "isFinite", "setTimeout", "setInterval",
    "clearTimeout", "clearInterval", "queueMicrotask", "structuredClone", "fetch",
    "encodeURIComponent", "decodeURIComponent", "encodeURI", "decodeURI", "Error", "TypeError",
    "RangeError", "SyntaxError", "Map", "Set", "WeakMap", "WeakSet", "Promise", "Date", "RegExp",
    "Array", "Object", "String", "Number", "Boolean", "Symbol", "BigInt", "URL", "URLSearchParams",
    "describe", "it", "test", "expect", "beforeEach", "afterEach", "beforeAll", "afterAll",
    "super", "import",
];

#[rustfmt::skip]
const SCRIPT_OBJECTS: &[&str] = &[
    "console", "Math", "JSON", "Object", "Array", "Promise", "Number", "String", "Reflect",
    "Symbol", "Date", "window", "document", "process", "Buffer", "jest", "vi", "expect",
];

#[rustfmt::skip]
const GO_BUILTINS: &[&str] = &[
    "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max",
    "min", "new", "panic", "print", "println", "real", "recover", "bool", "byte", "complex64",
    "complex128", "error", "float32", "float64", "int", "int8", "int16", "int32", "int64", "rune",
    "string", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "any",
];

#[rustfmt::skip]
const RUST_PRELUDE: &[&str] = &[
    "Some", "Ok", "Err", "drop", "Box", "Vec", "String",
];

#[rustfmt::skip]
const RUST_ROOTS: &[&str] = &[
    "std", "core", "alloc", "Box", "Vec", "String", "Option", "Result", "Some", "Ok", "Err", "Arc",
    "Rc", "HashMap", "HashSet", "BTreeMap", "BTreeSet", "Default", "PathBuf", "Path",
];
