//! Where a symbol is named as a type (`km-graph-references`'
//! `type_uses`) beyond annotations: Python string forward references,
//! TypeScript `implements`, interface `extends`, type arguments and type
//! aliases, Rust tuple fields and `impl Trait for Type`, Go embedded
//! interfaces and structs.

mod graph_support;

use graph_support::{line_of, listed, project, references};
use lore_gateway::Gateway;

/// `node path:line resolution` of each place `symbol` is a type.
fn type_uses(gateway: &Gateway, symbol: &str) -> Vec<String> {
    listed(&references(gateway, symbol).type_uses)
}

const SERVICE_PY: &str = r#"from typing import Literal, Optional

from . import models
from .models import Invoice

fallback: "Invoice" = None


def bill(invoice: "Invoice") -> "Optional[models.Ledger]":
    return None


class Cart:
    owner: "Invoice"
    mode: Literal["Ledger"]
"#;

#[test]
fn python_forward_references_in_strings_are_type_uses() {
    let (_dir, gateway) = project(&[
        ("shop/__init__.py", ""),
        (
            "shop/models.py",
            "class Invoice:\n    pass\n\n\nclass Ledger:\n    pass\n",
        ),
        ("shop/service.py", SERVICE_PY),
    ]);
    let at = |node: &str, needle: &str| {
        format!(
            "{node} shop/service.py:{} import",
            line_of(SERVICE_PY, needle)
        )
    };
    assert_eq!(
        type_uses(&gateway, "shop/models.py::Invoice"),
        vec![
            at("Code:app/shop/service.py", "fallback:"),
            at("Symbol:app/shop/service.py::bill", "def bill"),
            at("Symbol:app/shop/service.py::Cart", "owner:"),
        ]
    );
    // `models.Ledger` inside `Optional[…]`; `Literal["Ledger"]` is a
    // value, no type.
    assert_eq!(
        type_uses(&gateway, "shop/models.py::Ledger"),
        vec![at("Symbol:app/shop/service.py::bill", "def bill")]
    );
}

const CIRCLE_TS: &str = r#"import { Shape, Named, Base, Point } from './types';

export interface Solid extends Shape, Named {}

export class Circle extends Base implements Shape {
  area() { return 1; }
}

export function points(): void {
  const seen = new Map<string, Point>();
  const next = fetchAll<Point>();
  const last = next as Point;
}

export type Later = Promise<Point>;
"#;

#[test]
fn typescript_implements_extends_and_type_arguments_are_type_uses() {
    let (_dir, gateway) = project(&[
        (
            "web/types.ts",
            "export interface Shape {\n  area(): number;\n}\nexport interface Named {\n  name: string;\n}\nexport class Base {}\nexport class Point {}\n",
        ),
        ("web/circle.ts", CIRCLE_TS),
    ]);
    let at = |node: &str, needle: &str| {
        format!(
            "Symbol:app/web/circle.ts::{node} web/circle.ts:{} import",
            line_of(CIRCLE_TS, needle)
        )
    };
    assert_eq!(
        type_uses(&gateway, "web/types.ts::Shape"),
        vec![at("Solid", "interface Solid"), at("Circle", "class Circle")]
    );
    assert_eq!(
        type_uses(&gateway, "web/types.ts::Named"),
        vec![at("Solid", "interface Solid")]
    );
    assert_eq!(
        type_uses(&gateway, "web/types.ts::Point"),
        vec![
            at("points", "new Map"),
            at("points", "fetchAll"),
            at("points", "as Point"),
            at("Later", "type Later"),
        ]
    );
    // Implementing an interface is no call of it; extending a class
    // still is (its constructor runs).
    let shape = references(&gateway, "web/types.ts::Shape");
    assert!(shape.callers.is_empty(), "{:?}", shape.callers.len());
    let base = references(&gateway, "web/types.ts::Base");
    assert_eq!(base.callers.len(), 1);
    assert!(base.type_uses.is_empty());
}

const LIB_RS: &str = r#"pub mod model;

use crate::model::{Item, Order, Priced};

pub struct Pair(Order, pub Item);

pub enum Line {
    One(Item),
    Many { orders: Vec<Order> },
}

impl Priced for Pair {
    fn price(&self) -> u32 {
        0
    }
}
"#;

#[test]
fn rust_tuple_fields_and_trait_impls_are_type_uses() {
    let (_dir, gateway) = project(&[
        (
            "core/src/model.rs",
            "pub struct Order;\n\npub struct Item;\n\npub trait Priced {\n    fn price(&self) -> u32;\n}\n",
        ),
        ("core/src/lib.rs", LIB_RS),
    ]);
    let at = |node: &str, needle: &str, how: &str| {
        format!("{node} core/src/lib.rs:{} {how}", line_of(LIB_RS, needle))
    };
    let pair = "Symbol:app/core/src/lib.rs::Pair";
    let line = "Symbol:app/core/src/lib.rs::Line";
    assert_eq!(
        type_uses(&gateway, "core/src/model.rs::Order"),
        vec![
            at(pair, "pub struct Pair", "import"),
            at(line, "Many {", "import")
        ]
    );
    assert_eq!(
        type_uses(&gateway, "core/src/model.rs::Item"),
        vec![
            at(pair, "pub struct Pair", "import"),
            at(line, "One(", "import")
        ]
    );
    // Where the trait is implemented, and for which type.
    let file = "Code:app/core/src/lib.rs";
    assert_eq!(
        type_uses(&gateway, "Priced"),
        vec![at(file, "impl Priced", "import")]
    );
    assert_eq!(
        type_uses(&gateway, "Pair"),
        vec![at(file, "impl Priced", "same_file")]
    );
}

const SERVER_GO: &str = r#"package server

import "example.com/app/store"

type ReadCloser interface {
	store.Reader
	Close() error
}

type Server struct {
	store.Base
	*Local
}

type Local struct{}
"#;

#[test]
fn go_embedded_interfaces_and_structs_are_type_uses() {
    let (_dir, gateway) = project(&[
        ("go.mod", "module example.com/app\n\ngo 1.22\n"),
        (
            "store/store.go",
            "package store\n\ntype Reader interface{ Read() }\n\ntype Base struct{}\n",
        ),
        ("server/server.go", SERVER_GO),
    ]);
    let at = |node: &str, needle: &str, how: &str| {
        format!(
            "Symbol:app/server/server.go::{node} server/server.go:{} {how}",
            line_of(SERVER_GO, needle)
        )
    };
    assert_eq!(
        type_uses(&gateway, "store/store.go::Reader"),
        vec![at("ReadCloser", "store.Reader", "import")]
    );
    assert_eq!(
        type_uses(&gateway, "store/store.go::Base"),
        vec![at("Server", "store.Base", "import")]
    );
    assert_eq!(
        type_uses(&gateway, "server/server.go::Local"),
        vec![at("Server", "*Local", "same_file")]
    );
}
