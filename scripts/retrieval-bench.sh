#!/usr/bin/env bash
# Issue 41's two relevance benches in one command, each printing Lore and
# BM25 (computed in the same run, over the same files or schema text) per
# language or database, and per split:
#
#   - km-search: file-level localisation of real issues
#     (crates/lore-gateway/benches/localisation/README.md);
#   - discover_data: schema linking of real questions, with and without
#     comments (crates/lore/benches/schema_linking/README.md).
#
#   scripts/retrieval-bench.sh              # both splits
#   LORE_BENCH_SPLIT=heldout scripts/retrieval-bench.sh   # report figures
#   LORE_BENCH_SPLIT=dev scripts/retrieval-bench.sh       # tuning
#
# Both read mirrors of public repositories (LORE_BENCH_MIRRORS, default
# /work/.mirror) and the schema set built from them (LORE_BENCH_SCHEMA_SET,
# default /work/.cache/schema_linking); each set's README says how to get
# them. A missing mirror or set is reported and skipped, not faked.
# Release builds: the localisation bench ingests some 50 checkouts.
set -euo pipefail
cd "$(dirname "$0")/.."
export LORE_BENCH_SPLIT="${LORE_BENCH_SPLIT:-all}"
set_dir="${LORE_BENCH_SCHEMA_SET:-/work/.cache/schema_linking}"

echo "## km-search: localisation (split: $LORE_BENCH_SPLIT)"
cargo bench --locked -p lore-gateway --bench localisation

echo
echo "## discover_data: schema linking (split: $LORE_BENCH_SPLIT)"
if [ -d "$set_dir" ]; then
  cargo bench --locked -p lore --bench schema_linking
else
  echo "no schema-linking set at $set_dir: build it with"
  echo "crates/lore/benches/schema_linking/build.py (its README), then rerun"
  exit 1
fi
