//! Call edges kept by ingest (`km-graph-references`) stay right as files
//! change, go and move, in several roots; Rust items re-exported by
//! `pub use` and CommonJS `require`s resolve like the imports they are.

use lore_gateway::Gateway;
use lore_gateway::graph::references::ReferencesAnswer;
use lore_gateway::ingest::IngestRequest;

/// A project whose roots (`app`, and `other` when `other` is given) hold
/// `files`, ingested.
struct Repo {
    dir: tempfile::TempDir,
    gateway: Gateway,
}

impl Repo {
    fn new(files: &[(&str, &str)], other: Option<&[(&str, &str)]>) -> Repo {
        let dir = tempfile::tempdir().unwrap();
        let mut config = String::from("gateway:\n  roots:\n    - path: repo\n      name: app\n");
        let mut roots = vec![("repo", files)];
        if let Some(other) = other {
            config.push_str("    - path: second\n      name: other\n");
            roots.push(("second", other));
        }
        for (root, files) in roots {
            for (path, text) in files {
                let file = dir.path().join(root).join(path);
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(file, text).unwrap();
            }
        }
        std::fs::write(dir.path().join("lore.yaml"), config).unwrap();
        let project = lore_core::project::Project::load(dir.path()).unwrap();
        let gateway = Gateway::for_project(&project).with_store(std::sync::Arc::new(
            lore_store::feed::StoreHandle::sqlite(project.store_path()),
        ));
        let repo = Repo { dir, gateway };
        repo.ingest(Vec::new());
        repo
    }

    fn ingest(&self, paths: Vec<String>) {
        let run = self
            .gateway
            .ingest(
                &IngestRequest {
                    paths,
                    ..Default::default()
                },
                &mut |_, _| {},
            )
            .unwrap();
        assert!(run.success, "{:?}", run.error);
    }

    /// Writes `text` to `path` of root `app` (its time set a minute back,
    /// so ingest trusts it at once), or removes it (`None`).
    fn write(&self, path: &str, text: Option<&str>) {
        let file = self.dir.path().join("repo").join(path);
        match text {
            Some(text) => {
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(&file, text).unwrap();
                let past = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
                std::fs::File::options()
                    .write(true)
                    .open(&file)
                    .unwrap()
                    .set_modified(past)
                    .unwrap();
            }
            None => std::fs::remove_file(&file).unwrap(),
        }
    }

    fn references(&self, symbol: &str, roots: &[&str]) -> ReferencesAnswer {
        let roots: Vec<String> = roots.iter().map(|r| r.to_string()).collect();
        self.gateway
            .references(symbol, &roots, None)
            .unwrap_or_else(|e| panic!("{symbol}: {}", e.message))
    }
}

/// `node path:line resolution` of each caller.
fn callers(answer: &ReferencesAnswer) -> Vec<String> {
    answer
        .callers
        .iter()
        .map(|r| format!("{} {}:{} {}", r.node, r.path, r.line, r.resolution.as_str()))
        .collect()
}

const BILLING: &str = "def rate():\n    return 1.2\n";
const INVOICE: &str = "from .billing import rate\n\n\ndef total():\n    return rate()\n";
const REPORT: &str = "from .billing import rate\n\n\ndef summary():\n    return rate()\n";

#[test]
fn callers_follow_files_that_change_go_and_move_in_each_root() {
    let files = [
        ("pkg/__init__.py", ""),
        ("pkg/billing.py", BILLING),
        ("pkg/invoice.py", INVOICE),
        ("pkg/report.py", REPORT),
    ];
    let repo = Repo::new(&files, Some(&files[..3]));
    assert_eq!(
        callers(&repo.references("Symbol:app/pkg/billing.py::rate", &[])),
        vec![
            "Symbol:app/pkg/invoice.py::total pkg/invoice.py:5 import",
            "Symbol:app/pkg/report.py::summary pkg/report.py:5 import",
        ]
    );
    // The other root's `rate` has its own caller, and only it.
    assert_eq!(
        callers(&repo.references("rate", &["other"])),
        vec!["Symbol:other/pkg/invoice.py::total pkg/invoice.py:5 import"]
    );

    // A body edited (the call moves two lines down): only that file's
    // sites change.
    repo.write(
        "pkg/report.py",
        Some("from .billing import rate\n\n\ndef summary():\n    x = 1\n    y = x\n    return rate() + y\n"),
    );
    let report = repo.dir.path().join("repo/pkg/report.py");
    repo.ingest(vec![report.display().to_string()]);
    assert_eq!(
        callers(&repo.references("Symbol:app/pkg/billing.py::rate", &[])),
        vec![
            "Symbol:app/pkg/invoice.py::total pkg/invoice.py:5 import",
            "Symbol:app/pkg/report.py::summary pkg/report.py:7 import",
        ]
    );

    // A call removed, a file deleted.
    repo.write(
        "pkg/report.py",
        Some("from .billing import rate\n\n\ndef summary():\n    return 1\n"),
    );
    repo.write("pkg/invoice.py", None);
    repo.ingest(Vec::new());
    assert!(
        callers(&repo.references("Symbol:app/pkg/billing.py::rate", &[])).is_empty(),
        "{:?}",
        callers(&repo.references("Symbol:app/pkg/billing.py::rate", &[]))
    );

    // The defining file renamed (and its importer with it), a definition
    // added above the one called: the edges lead to the new place.
    repo.write("pkg/billing.py", None);
    repo.write(
        "pkg/money.py",
        Some("def fee():\n    return 2\n\n\ndef rate():\n    return fee()\n"),
    );
    repo.write(
        "pkg/report.py",
        Some("from .money import rate\n\n\ndef summary():\n    return rate()\n"),
    );
    repo.ingest(Vec::new());
    let rate = repo.references("rate", &["app"]);
    assert_eq!(rate.definitions.len(), 1);
    assert_eq!(rate.definitions[0].path, "pkg/money.py");
    assert_eq!(
        callers(&rate),
        vec!["Symbol:app/pkg/report.py::summary pkg/report.py:5 import"]
    );
    assert_eq!(
        callers(&repo.references("fee", &[])),
        vec!["Symbol:app/pkg/money.py::rate pkg/money.py:6 same_file"]
    );
    // The other root never moved.
    assert_eq!(
        callers(&repo.references("rate", &["other"])),
        vec!["Symbol:other/pkg/invoice.py::total pkg/invoice.py:5 import"]
    );
}

const GEOMETRY_LIB: &str = r#"pub mod shapes;

pub use shapes::Circle;

pub fn area() -> f64 {
    let c = crate::shapes::Circle::new(1.0);
    c.radius()
}
"#;

const SHAPES: &str =
    "mod circle;\nmod square;\n\npub use self::circle::*;\npub use square::Square;\n";

const CIRCLE: &str = r#"pub struct Circle {
    pub r: f64,
}

impl Circle {
    pub fn new(r: f64) -> Circle {
        Circle { r }
    }

    pub fn radius(&self) -> f64 {
        self.r
    }
}
"#;

const MAIN: &str = r#"use geometry::shapes::Square;
use geometry::Circle;

fn main() {
    let unit = Circle { r: 1.0 };
    let c = Circle::new(2.0);
    let side = Square::side() + geometry::shapes::Square::side();
    println!("{} {} {}", unit.r, c.r, side);
}
"#;

#[test]
fn rust_items_re_exported_by_pub_use_are_found_across_crates() {
    let repo = Repo::new(
        &[
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"geometry\", \"app\"]\n",
            ),
            ("geometry/Cargo.toml", "[package]\nname = \"geometry\"\n"),
            ("geometry/src/lib.rs", GEOMETRY_LIB),
            ("geometry/src/shapes/mod.rs", SHAPES),
            ("geometry/src/shapes/circle.rs", CIRCLE),
            (
                "geometry/src/shapes/square.rs",
                "pub struct Square;\n\nimpl Square {\n    pub fn side() -> f64 {\n        1.0\n    }\n}\n",
            ),
            ("app/Cargo.toml", "[package]\nname = \"app\"\n"),
            ("app/src/main.rs", MAIN),
            // Same names elsewhere: only an import tells them apart.
            (
                "decoy/src/lib.rs",
                "pub struct Circle;\n\nimpl Circle {\n    pub fn new() {}\n}\n\npub struct Square;\n\nimpl Square {\n    pub fn side() {}\n}\n",
            ),
        ],
        None,
    );
    let line = |needle: &str| MAIN.lines().position(|l| l.contains(needle)).unwrap() + 1;
    // `use geometry::Circle` (a `pub use` of a glob `pub use`), then a
    // struct literal.
    let circle = repo.references("geometry/src/shapes/circle.rs::Circle", &[]);
    assert!(
        callers(&circle).contains(&format!(
            "Symbol:app/app/src/main.rs::main app/src/main.rs:{} import",
            line("Circle { r")
        )),
        "{:?}",
        callers(&circle)
    );
    // `Circle::new` through the same `use`, and `crate::shapes::Circle::new`
    // inside the crate.
    let new = repo.references("geometry/src/shapes/circle.rs::Circle.new", &[]);
    assert_eq!(
        callers(&new),
        vec![
            format!(
                "Symbol:app/app/src/main.rs::main app/src/main.rs:{} import",
                line("Circle::new")
            ),
            "Symbol:app/geometry/src/lib.rs::area geometry/src/lib.rs:6 import".to_string(),
        ]
    );
    // `use geometry::shapes::Square` (`pub use square::Square` beside
    // `mod square;`) and the full path written out.
    let side = repo.references("geometry/src/shapes/square.rs::Square.side", &[]);
    let at = line("Square::side()");
    assert_eq!(
        callers(&side),
        vec![
            format!("Symbol:app/app/src/main.rs::main app/src/main.rs:{at} import"),
            format!("Symbol:app/app/src/main.rs::main app/src/main.rs:{at} import"),
        ]
    );
    let decoy = repo.references("decoy/src/lib.rs::Circle.new", &[]);
    assert!(decoy.callers.is_empty(), "{:?}", callers(&decoy));
}

const MATH: &str = "function add(a, b) {\n  return a + b;\n}\n\nfunction mul(a, b) {\n  return a * b;\n}\n\nmodule.exports = { add, mul };\n";

const FORMAT: &str = r#"const math = require('./math');
const { add } = require('./math');
const { mul: times } = require('./math');
const twice = require('./math').mul;

function show(a) {
  return math.mul(a, 2) + add(a, 1) + times(a, 3) + twice(a, 2);
}

module.exports = { show };
"#;

const SHOW_TEST: &str = r#"const { show } = require('../lib/format');
const math = require('mathlib/lib/math');
require('../lib/polyfill');

test('shows', () => {
  expect(show(1) + math.add(1, 1)).toBe(10);
});
"#;

#[test]
fn commonjs_requires_are_imports_for_calls_and_tests() {
    let repo = Repo::new(
        &[
            ("package.json", "{\"name\": \"mathlib\"}\n"),
            ("lib/math.js", MATH),
            ("lib/format.js", FORMAT),
            ("lib/polyfill.js", "global.ready = true;\n"),
            // Same names elsewhere: only the require tells them apart.
            (
                "lib/other.js",
                "function add() {}\nfunction mul() {}\nmodule.exports = { add, mul };\n",
            ),
            ("test/show.test.js", SHOW_TEST),
        ],
        None,
    );
    let line = FORMAT.lines().position(|l| l.contains("math.mul")).unwrap() + 1;
    let site = format!("Symbol:app/lib/format.js::show lib/format.js:{line} import");
    assert_eq!(
        callers(&repo.references("lib/math.js::add", &[])),
        vec![
            site.clone(),
            // The test, through the package's own name.
            "TestCase:app/test/show.test.js test/show.test.js:6 import".to_string(),
        ]
    );
    // `math.mul`, `{ mul: times }` and `require(…).mul`.
    assert_eq!(
        callers(&repo.references("lib/math.js::mul", &[])),
        vec![site.clone(), site.clone(), site]
    );
    let other = repo.references("lib/other.js::add", &[]);
    assert!(other.callers.is_empty(), "{:?}", callers(&other));

    // The test requires its code: by path, by the package's name, and for
    // its effect alone.
    for code in ["lib/format.js", "lib/math.js", "lib/polyfill.js"] {
        let tests = repo.gateway.tests_of(code, &[]).unwrap();
        let paths: Vec<&str> = tests.results.iter().map(|t| t.path.as_str()).collect();
        assert_eq!(paths, vec!["test/show.test.js"], "{code}");
    }
}

const ENTRY: &str = "function start() {\n  return 1;\n}\n\nmodule.exports = { start };\n";

#[test]
fn a_package_folder_or_name_loads_the_file_its_package_json_names_main() {
    let repo = Repo::new(
        &[
            (
                "package.json",
                "{\"name\": \"launcher\", \"main\": \"lib/entry.js\"}\n",
            ),
            ("lib/entry.js", ENTRY),
            // An `index.js` the folder also holds is not what it loads.
            (
                "index.js",
                "function start() {}\nmodule.exports = { start };\n",
            ),
            (
                "test/folder.test.js",
                "const launcher = require('../');\n\ntest('starts', () => launcher.start());\n",
            ),
            (
                "test/name.test.js",
                "const { start } = require('launcher');\n\ntest('starts', () => start());\n",
            ),
        ],
        None,
    );
    let tests = repo.gateway.tests_of("lib/entry.js", &[]).unwrap();
    let mut paths: Vec<&str> = tests.results.iter().map(|t| t.path.as_str()).collect();
    paths.sort_unstable();
    assert_eq!(paths, vec!["test/folder.test.js", "test/name.test.js"]);
    let callers = callers(&repo.references("lib/entry.js::start", &[]));
    assert_eq!(callers.len(), 2, "{callers:?}");
    let decoy = repo.references("index.js::start", &[]);
    assert!(decoy.callers.is_empty(), "{:?}", decoy.callers.len());
}

/// `node path:line resolution` of each place the symbol is a type.
fn type_uses(answer: &ReferencesAnswer) -> Vec<String> {
    answer
        .type_uses
        .iter()
        .map(|r| format!("{} {}:{} {}", r.node, r.path, r.line, r.resolution.as_str()))
        .collect()
}

#[test]
fn a_symbol_used_as_a_type_lists_where_apart_from_its_callers() {
    let repo = Repo::new(
        &[
            ("shop/__init__.py", ""),
            ("shop/models.py", "class Invoice:\n    pass\n"),
            (
                "shop/service.py",
                "from .models import Invoice\n\n\ndef bill(invoice: Invoice) -> Invoice:\n    return invoice\n\n\nclass Ledger:\n    last: Invoice\n",
            ),
            (
                "web/types.ts",
                "export interface Order {\n  id: string;\n}\n",
            ),
            (
                "web/shop.ts",
                "import { Order } from './types';\n\nexport function place(order: Order): Order[] {\n  return [order];\n}\n",
            ),
            ("go.mod", "module example.com/app\n\ngo 1.22\n"),
            ("store/store.go", "package store\n\ntype Item struct{}\n"),
            (
                "server/server.go",
                "package server\n\nimport \"example.com/app/store\"\n\ntype Server struct {\n\titems []*store.Item\n}\n\nfunc (s *Server) Get(id string) *store.Item {\n\treturn nil\n}\n",
            ),
            ("core/src/model.rs", "#[derive(Clone)]\npub struct Order;\n"),
            (
                "core/src/lib.rs",
                "pub mod model;\n\nuse crate::model::Order;\n\npub struct Cart {\n    pub orders: Vec<Order>,\n}\n\npub fn total(order: &Order) -> crate::model::Order {\n    order.clone()\n}\n",
            ),
        ],
        None,
    );
    let invoice = repo.references("shop/models.py::Invoice", &[]);
    assert_eq!(
        type_uses(&invoice),
        vec![
            "Symbol:app/shop/service.py::bill shop/service.py:4 import",
            "Symbol:app/shop/service.py::Ledger shop/service.py:9 import",
        ]
    );
    // Naming a type is no call.
    assert!(invoice.callers.is_empty(), "{:?}", callers(&invoice));
    assert_eq!(invoice.total_type_uses, 2);

    assert_eq!(
        type_uses(&repo.references("web/types.ts::Order", &[])),
        vec!["Symbol:app/web/shop.ts::place web/shop.ts:3 import"]
    );
    assert_eq!(
        type_uses(&repo.references("Item", &[])),
        vec![
            "Symbol:app/server/server.go::Server server/server.go:6 import",
            "Symbol:app/server/server.go::Server.Get server/server.go:9 import",
        ]
    );
    // A method's receiver is not a use of its type.
    let server = repo.references("server/server.go::Server", &[]);
    assert!(server.type_uses.is_empty(), "{:?}", type_uses(&server));
    assert_eq!(
        type_uses(&repo.references("core/src/model.rs::Order", &[])),
        vec![
            "Symbol:app/core/src/lib.rs::Cart core/src/lib.rs:6 import",
            "Symbol:app/core/src/lib.rs::total core/src/lib.rs:9 import",
            "Symbol:app/core/src/lib.rs::total core/src/lib.rs:9 import",
        ]
    );
}
