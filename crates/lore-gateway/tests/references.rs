//! Callers, callees and definitions (`km-graph-references`) over small
//! projects in Python, TypeScript, Go and Rust: each call site with its
//! file, line and how its name was resolved; an imported name wins over
//! a same-named definition elsewhere; builtins make no edges.

mod graph_support;

use graph_support::{line_of, listed, project, references};
use lore_core::ErrorCode;
use lore_gateway::graph::calls::Resolution;
use lore_gateway::graph::references::ReferencesAnswer;

/// `node path:line resolution` of each caller.
fn callers(answer: &ReferencesAnswer) -> Vec<String> {
    listed(&answer.callers)
}

/// `node line resolution` of each callee.
fn callees(answer: &ReferencesAnswer) -> Vec<String> {
    answer
        .callees
        .iter()
        .map(|r| format!("{} {} {}", r.node, r.line, r.resolution.as_str()))
        .collect()
}

const INVOICE: &str = r#"from .tax import rate
from . import tax as taxes
import shop.util as util


class Invoice:
    def total(self):
        return self.net() * rate()

    def net(self):
        return taxes.rate() + util.helper()

    def read(self):
        return open("invoice.txt")
"#;

const TAX: &str = "def rate():\n    return 1.2\n\n\ndef open(path):\n    return path\n";

const UTIL: &str = "def helper():\n    return 1\n\n\ndef rate():\n    return 2\n";

const TEST_INVOICE: &str = r#"import shop
from shop.billing.invoice import Invoice


def test_total():
    assert Invoice().total() > 0


def test_helper():
    assert shop.helper() == 1


def test_read():
    invoice = Invoice()
    assert invoice.read()
"#;

#[test]
fn python_calls_resolve_through_imports_aliases_and_self() {
    let (_dir, gateway) = project(&[
        ("shop/__init__.py", "from .util import helper\n"),
        ("shop/billing/__init__.py", ""),
        ("shop/billing/invoice.py", INVOICE),
        ("shop/billing/tax.py", TAX),
        ("shop/util.py", UTIL),
        ("tests/test_invoice.py", TEST_INVOICE),
    ]);
    let total = references(&gateway, "Invoice.total");
    assert_eq!(total.definitions.len(), 1);
    assert_eq!(total.definitions[0].path, "shop/billing/invoice.py");
    assert_eq!(total.definitions[0].kind, "method");
    let call = line_of(INVOICE, "self.net()");
    assert_eq!(
        callees(&total),
        vec![
            format!("Symbol:app/shop/billing/invoice.py::Invoice.net {call} same_file"),
            format!("Symbol:app/shop/billing/tax.py::rate {call} import"),
        ]
    );
    // The test constructs the class (an import) and calls the method on
    // the new object (found by its name alone).
    assert_eq!(
        callers(&total),
        vec![format!(
            "Symbol:app/tests/test_invoice.py::test_total tests/test_invoice.py:{} name_only",
            line_of(TEST_INVOICE, "Invoice()")
        )]
    );

    // `taxes.rate()` through a module alias, `util.helper()` through an
    // aliased module: both imports.
    let net = references(&gateway, "shop/billing/invoice.py::Invoice.net");
    let line = line_of(INVOICE, "taxes.rate()");
    assert_eq!(
        callees(&net),
        vec![
            format!("Symbol:app/shop/billing/tax.py::rate {line} import"),
            format!("Symbol:app/shop/util.py::helper {line} import"),
        ]
    );
    // `shop.helper()` reaches the module the package passes it on from.
    let helper = references(&gateway, "helper");
    assert!(
        callers(&helper).contains(&format!(
            "Symbol:app/tests/test_invoice.py::test_helper tests/test_invoice.py:{} import",
            line_of(TEST_INVOICE, "shop.helper()")
        )),
        "{:?}",
        callers(&helper)
    );
    // The other `rate` is never the one invoice.py imports.
    let other = references(&gateway, "shop/util.py::rate");
    assert!(other.callers.is_empty(), "{:?}", callers(&other));
    // `open()` is the builtin, though tax.py beside it defines one.
    let read = references(&gateway, "Invoice.read");
    assert!(read.callees.is_empty(), "{:?}", callees(&read));
    // `read` is too common a name to resolve alone: the variable's type
    // (the class it was made from) says which.
    assert_eq!(
        callers(&read),
        vec![format!(
            "Symbol:app/tests/test_invoice.py::test_read tests/test_invoice.py:{} import",
            line_of(TEST_INVOICE, "invoice.read()")
        )]
    );
    let open = references(&gateway, "shop/billing/tax.py::open");
    assert!(open.callers.is_empty(), "{:?}", callers(&open));

    // A bare name defined twice answers both definitions.
    let rate = references(&gateway, "rate");
    assert!(rate.ambiguous);
    assert_eq!(rate.total_definitions, 2);
    assert_eq!(rate.total_callers, 2, "{:?}", callers(&rate));
    let invoice = references(&gateway, "Symbol:app/shop/billing/invoice.py::Invoice");
    assert_eq!(
        callers(&invoice),
        vec![
            format!(
                "Symbol:app/tests/test_invoice.py::test_total tests/test_invoice.py:{} import",
                line_of(TEST_INVOICE, "Invoice().total()")
            ),
            format!(
                "Symbol:app/tests/test_invoice.py::test_read tests/test_invoice.py:{} import",
                line_of(TEST_INVOICE, "invoice = Invoice()")
            ),
        ]
    );
}

const CLIENT: &str = r#"import { retry, Backoff as B } from './retry';
import * as util from './util';

export class Client {
  send() {
    return retry(3) + B.wait() + this.log() + util.pad();
  }
  log() {
    console.log("sent");
    return 1;
  }
}
"#;

const APP: &str = r#"import { Client } from './client';

export function App() {
  const client = new Client();
  return <View client={client} />;
}

export function View() {
  return null;
}
"#;

#[test]
fn typescript_calls_resolve_through_named_and_namespace_imports() {
    let (_dir, gateway) = project(&[
        ("web/src/client.ts", CLIENT),
        (
            "web/src/retry.ts",
            "export function retry(n: number) { return n; }\nexport class Backoff {\n  static wait() { return 1; }\n}\n",
        ),
        (
            "web/src/other.ts",
            "export function retry() { return 0; }\n",
        ),
        ("web/src/util.ts", "export function pad() { return ''; }\n"),
        ("web/src/app.tsx", APP),
    ]);
    let send = references(&gateway, "Client.send");
    let line = line_of(CLIENT, "retry(3)");
    assert_eq!(
        callees(&send),
        vec![
            format!("Symbol:app/web/src/client.ts::Client.log {line} same_file"),
            format!("Symbol:app/web/src/retry.ts::Backoff.wait {line} import"),
            format!("Symbol:app/web/src/retry.ts::retry {line} import"),
            format!("Symbol:app/web/src/util.ts::pad {line} import"),
        ]
    );
    let other = references(&gateway, "web/src/other.ts::retry");
    assert!(other.callers.is_empty(), "{:?}", callers(&other));
    // console.log is no call of the code's.
    let log = references(&gateway, "Client.log");
    assert!(log.callees.is_empty(), "{:?}", callees(&log));

    // `new Client()` and a JSX component are references too.
    let client = references(&gateway, "Client");
    assert_eq!(
        callers(&client),
        vec![format!(
            "Symbol:app/web/src/app.tsx::App web/src/app.tsx:{} import",
            line_of(APP, "new Client")
        )]
    );
    let view = references(&gateway, "View");
    assert_eq!(
        callers(&view),
        vec![format!(
            "Symbol:app/web/src/app.tsx::App web/src/app.tsx:{} same_file",
            line_of(APP, "<View")
        )]
    );
}

const HANDLER: &str = r#"package server

import (
	"fmt"

	st "example.com/app/store"
)

type Server struct{}

func (s *Server) Handle() {
	s.audit()
	st.Get()
	fmt.Println(len("x"))
	helper()
}
"#;

#[test]
fn go_calls_resolve_through_packages_receivers_and_the_package() {
    let (_dir, gateway) = project(&[
        ("go.mod", "module example.com/app\n\ngo 1.22\n"),
        ("server/handler.go", HANDLER),
        (
            "server/audit.go",
            "package server\n\nfunc (s *Server) audit() {}\n\nfunc helper() {}\n",
        ),
        ("store/store.go", "package store\n\nfunc Get() {}\n"),
        ("other/other.go", "package other\n\nfunc Get() {}\n"),
    ]);
    let handle = references(&gateway, "Server.Handle");
    assert_eq!(
        callees(&handle),
        vec![
            format!(
                "Symbol:app/server/audit.go::Server.audit {} same_module",
                line_of(HANDLER, "s.audit()")
            ),
            format!(
                "Symbol:app/store/store.go::Get {} import",
                line_of(HANDLER, "st.Get()")
            ),
            format!(
                "Symbol:app/server/audit.go::helper {} same_module",
                line_of(HANDLER, "helper()")
            ),
        ]
    );
    let get = references(&gateway, "store/store.go::Get");
    assert_eq!(
        callers(&get),
        vec![format!(
            "Symbol:app/server/handler.go::Server.Handle server/handler.go:{} import",
            line_of(HANDLER, "st.Get()")
        )]
    );
    let other = references(&gateway, "other/other.go::Get");
    assert!(other.callers.is_empty(), "{:?}", callers(&other));
}

const LIB: &str = r#"pub mod feed;
pub mod store;

use crate::feed::{poll, Feed};
use crate::store::Store;

pub fn run() -> Feed {
    poll();
    let store = Store::open();
    helper();
    assert_eq!(feed::count(), 0);
    Feed { n: 1 }
}

fn helper() {}
"#;

const STORE: &str = r#"pub struct Store;

impl Store {
    pub fn open() -> Store {
        Self::create()
    }

    fn create() -> Store {
        Store
    }
}
"#;

#[test]
fn rust_calls_resolve_through_use_paths_types_and_macros() {
    let (_dir, gateway) = project(&[
        ("core/src/lib.rs", LIB),
        (
            "core/src/feed.rs",
            "pub struct Feed {\n    pub n: usize,\n}\n\npub fn poll() {}\n\npub fn count() -> usize {\n    0\n}\n",
        ),
        ("core/src/store.rs", STORE),
        ("tools/src/lib.rs", "pub fn poll() {}\n"),
        (
            "core/src/app/mod.rs",
            "mod engine;\n\nuse engine::Engine;\n\npub fn start() {\n    let engine = Engine::default();\n    engine.boot();\n}\n",
        ),
        (
            "core/src/app/engine.rs",
            "#[derive(Default)]\npub struct Engine;\n\nimpl Engine {\n    pub fn boot(&self) {}\n}\n",
        ),
    ]);
    let run = references(&gateway, "run");
    assert_eq!(
        callees(&run),
        vec![
            format!(
                "Symbol:app/core/src/feed.rs::poll {} import",
                line_of(LIB, "poll();")
            ),
            format!(
                "Symbol:app/core/src/store.rs::Store.open {} import",
                line_of(LIB, "Store::open")
            ),
            format!(
                "Symbol:app/core/src/lib.rs::helper {} same_file",
                line_of(LIB, "helper();")
            ),
            format!(
                "Symbol:app/core/src/feed.rs::count {} import",
                line_of(LIB, "feed::count")
            ),
            format!(
                "Symbol:app/core/src/feed.rs::Feed {} import",
                line_of(LIB, "Feed { n")
            ),
        ]
    );
    let open = references(&gateway, "Store::open");
    assert_eq!(
        callees(&open),
        vec![format!(
            "Symbol:app/core/src/store.rs::Store.create {} same_file",
            line_of(STORE, "Self::create")
        )]
    );
    // `use engine::Engine` beside `mod engine;`, and a method called on
    // a variable made from the type.
    let start = references(&gateway, "start");
    assert_eq!(
        callees(&start),
        vec!["Symbol:app/core/src/app/engine.rs::Engine.boot 7 import"]
    );
    let other = references(&gateway, "tools/src/lib.rs::poll");
    assert!(other.callers.is_empty(), "{:?}", callers(&other));
}

#[test]
fn bad_input_says_what_to_write() {
    let (_dir, gateway) = project(&[(
        "src/app.py",
        "def main():\n    run()\n\n\ndef run():\n    pass\n",
    )]);
    let main = references(&gateway, "main");
    assert_eq!(main.callees[0].resolution, Resolution::SameFile);
    for (symbol, root, limit, code, words) in [
        (
            "",
            None,
            None,
            ErrorCode::InvalidArguments,
            "symbol must be",
        ),
        (
            "main",
            None,
            Some(0),
            ErrorCode::InvalidArguments,
            "limit must be 1 to 200",
        ),
        (
            "main",
            None,
            Some(201),
            ErrorCode::InvalidArguments,
            "limit must be 1 to 200",
        ),
        ("mian", None, None, ErrorCode::NotFound, "km-graph-search"),
        (
            "main",
            Some("web"),
            None,
            ErrorCode::InvalidArguments,
            "roots: `web` is not a gateway root; the roots are app",
        ),
    ] {
        let roots: Vec<String> = root.into_iter().map(str::to_string).collect();
        let error = gateway.references(symbol, &roots, limit).unwrap_err();
        assert_eq!(error.code, code, "{symbol}: {}", error.message);
        assert!(error.message.contains(words), "{}", error.message);
    }
    let unknown = gateway.references("mian", &[], None).unwrap_err();
    assert!(
        unknown.message.contains("src/app.py::main"),
        "{}",
        unknown.message
    );
    // `limit` cuts each list and says so.
    let (_dir, gateway) = project(&[(
        "src/app.py",
        "def run():\n    pass\n\n\ndef a():\n    run()\n\n\ndef b():\n    run()\n",
    )]);
    let cut = gateway.references("run", &[], Some(1)).unwrap();
    assert_eq!(
        (cut.callers.len(), cut.total_callers, cut.truncated),
        (1, 2, true)
    );
}
