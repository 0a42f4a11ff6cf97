//! CommonJS and TypeScript `require` forms beyond `const x = require(…)`
//! at the top level (`km-graph-references`, tests-of): barrels that pass
//! a module on (`module.exports = require(…)`, `exports.x = require(…)`),
//! TypeScript's `import x = require(…)`, and lazy `require`s inside
//! functions, bound in their function alone.

mod graph_support;

use graph_support::{line_of, listed, project, references};
use lore_gateway::Gateway;

/// `node path:line resolution` of each caller of `symbol`.
fn callers(gateway: &Gateway, symbol: &str) -> Vec<String> {
    listed(&references(gateway, symbol).callers)
}

const IMPL: &str = "function parseDoc(s) {\n  return s;\n}\n\nfunction renderDoc(t) {\n  return t;\n}\n\nmodule.exports = { parseDoc, renderDoc };\n";

const INDEX: &str = "exports.fmt = require('./fmt');\nmodule.exports.tools = require('./tools');\nexports.draw = require('./impl').renderDoc;\n";

const MAIN: &str = r#"const api = require('../lib/api');
const { parseDoc } = require('../lib/api');
const kit = require('../lib');
const { fmt } = require('../lib');

function main(s) {
  const doc = parseDoc(s);
  const shown = api.renderDoc(doc);
  const padded = kit.fmt.padLeft(shown);
  const again = fmt.padLeft(padded);
  kit.tools.sharpen();
  return kit.draw(again);
}

module.exports = { main };
"#;

/// The same names elsewhere: only the barrels say which are meant.
const DECOY: &str = "function parseDoc() {}\nfunction renderDoc() {}\nfunction padLeft() {}\nfunction sharpen() {}\nmodule.exports = { parseDoc, renderDoc, padLeft, sharpen };\n";

#[test]
fn commonjs_barrels_lead_callers_to_the_module_they_pass_on() {
    let (_dir, gateway) = project(&[
        ("lib/impl.js", IMPL),
        // A barrel of any name passing a whole module on.
        ("lib/api.js", "module.exports = require('./impl');\n"),
        // A folder's barrel passing modules on under names.
        ("lib/index.js", INDEX),
        (
            "lib/fmt.js",
            "function padLeft(s) {\n  return s;\n}\n\nmodule.exports = { padLeft };\n",
        ),
        (
            "lib/tools.js",
            "function sharpen() {\n  return 1;\n}\n\nmodule.exports = { sharpen };\n",
        ),
        ("app/main.js", MAIN),
        ("app/decoy.js", DECOY),
        ("vendor2/decoy.js", DECOY),
    ]);
    let at = |needle: &str| {
        format!(
            "Symbol:app/app/main.js::main app/main.js:{} import",
            line_of(MAIN, needle)
        )
    };
    // `const { parseDoc } = require('../lib/api')`.
    assert_eq!(
        callers(&gateway, "lib/impl.js::parseDoc"),
        vec![at("parseDoc(s)")]
    );
    // `api.renderDoc` through the whole module, `kit.draw` through
    // `exports.draw = require('./impl').renderDoc`.
    assert_eq!(
        callers(&gateway, "lib/impl.js::renderDoc"),
        vec![at("api.renderDoc"), at("kit.draw")]
    );
    // `kit.fmt.padLeft` and `{ fmt }` through `exports.fmt = require(…)`.
    assert_eq!(
        callers(&gateway, "lib/fmt.js::padLeft"),
        vec![at("kit.fmt.padLeft"), at("again = fmt.padLeft")]
    );
    // `module.exports.tools = require('./tools')`.
    assert_eq!(
        callers(&gateway, "lib/tools.js::sharpen"),
        vec![at("kit.tools.sharpen")]
    );
    let decoy = callers(&gateway, "app/decoy.js::padLeft");
    assert!(decoy.is_empty(), "{decoy:?}");
}

const PAGE: &str = "import util = require('./util');\n\nexport function title(s: string) {\n  return util.slugify(s);\n}\n";

#[test]
fn typescript_import_equals_require_binds_the_module() {
    let (_dir, gateway) = project(&[
        (
            "web/util.ts",
            "export function slugify(s: string) {\n  return s;\n}\n",
        ),
        ("web/page.ts", PAGE),
        (
            "web/other.ts",
            "export function slugify(s: string) {\n  return '';\n}\n",
        ),
    ]);
    assert_eq!(
        callers(&gateway, "web/util.ts::slugify"),
        vec![format!(
            "Symbol:app/web/page.ts::title web/page.ts:{} import",
            line_of(PAGE, "util.slugify")
        )]
    );
    let other = callers(&gateway, "web/other.ts::slugify");
    assert!(other.is_empty(), "{other:?}");
}

const SERVICE: &str = r#"function load(id) {
  const db = require('../lib/db');
  return db.query(id);
}

function fake(id) {
  const db = require('../lib/mock/db');
  return db.query(id);
}

function lazy(id) {
  return require('../lib/db').query(id);
}

async function later(id) {
  const { query } = await import('../lib/db');
  return query(id);
}

module.exports = { load, fake, lazy, later };
"#;

const STORAGE_TEST: &str = r#"describe('storage', () => {
  it('queries', () => {
    const db = require('../lib/db');
    expect(db.query(1)).toBe(1);
  });
});
"#;

#[test]
fn a_require_inside_a_function_binds_its_names_there_alone() {
    let db = "function query(id) {\n  return id;\n}\n\nmodule.exports = { query };\n";
    let (_dir, gateway) = project(&[
        ("lib/db.js", db),
        ("lib/mock/db.js", db),
        ("app/service.js", SERVICE),
        ("test/storage.test.js", STORAGE_TEST),
    ]);
    let at = |caller: &str, needle: &str| {
        format!(
            "Symbol:app/app/service.js::{caller} app/service.js:{} import",
            line_of(SERVICE, needle)
        )
    };
    // Each function's `db` is its own: `load` never calls the mock.
    assert_eq!(
        callers(&gateway, "lib/db.js::query"),
        vec![
            at("load", "return db.query"),
            at("lazy", "require('../lib/db').query"),
            at("later", "return query(id)"),
            format!(
                "TestCase:app/test/storage.test.js test/storage.test.js:{} import",
                line_of(STORAGE_TEST, "db.query(1)")
            ),
        ]
    );
    assert_eq!(
        callers(&gateway, "lib/mock/db.js::query"),
        vec![format!(
            "Symbol:app/app/service.js::fake app/service.js:{} import",
            line_of(SERVICE, "return db.query") + 5
        )]
    );
    // The test requiring its code inside a callback tests it.
    let tests = gateway.tests_of("lib/db.js", &[]).unwrap();
    let paths: Vec<&str> = tests.results.iter().map(|t| t.path.as_str()).collect();
    assert_eq!(paths, vec!["test/storage.test.js"]);
}

#[test]
fn a_test_requiring_the_package_folder_reaches_the_code_its_index_passes_on() {
    // express's layout: no `main`, an `index.js` that passes the library
    // on, and tests that `require('..')`.
    let (_dir, gateway) = project(&[
        ("package.json", "{\"name\": \"web\"}\n"),
        ("index.js", "module.exports = require('./lib/web');\n"),
        (
            "lib/web.js",
            "function createApplication() {\n  return {};\n}\n\nmodule.exports = createApplication;\n",
        ),
        (
            "test/app.js",
            "var web = require('..');\n\ndescribe('app', function () {\n  it('is made', function () {\n    web();\n  });\n});\n",
        ),
    ]);
    for code in ["index.js", "lib/web.js"] {
        let tests = gateway.tests_of(code, &[]).unwrap();
        let paths: Vec<&str> = tests.results.iter().map(|t| t.path.as_str()).collect();
        assert_eq!(paths, vec!["test/app.js"], "{code}");
    }
}
