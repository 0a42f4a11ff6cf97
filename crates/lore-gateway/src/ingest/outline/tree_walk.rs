//! The one whole-tree walk the site and `require` readers share:
//! iterative (no recursion, so a hostile file cannot exhaust the stack),
//! in pre-order, skipping what is nested deeper than [`MAX_TREE_DEPTH`].

use std::ops::ControlFlow;

use tree_sitter::Node;

use super::MAX_DEPTH;

/// Tree levels walked at most: a call nests a few levels per statement,
/// block and argument, so this is some times the depth definitions nest.
pub(super) const MAX_TREE_DEPTH: usize = 8 * MAX_DEPTH;

/// Hands every node under `root` (itself first) to `visit`, in pre-order,
/// until `visit` breaks.
pub(super) fn walk(root: Node, mut visit: impl FnMut(Node) -> ControlFlow<()>) {
    let mut cursor = root.walk();
    let mut depth = 0;
    loop {
        if visit(cursor.node()).is_break() {
            return;
        }
        if depth < MAX_TREE_DEPTH && cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return;
            }
            depth -= 1;
        }
    }
}
