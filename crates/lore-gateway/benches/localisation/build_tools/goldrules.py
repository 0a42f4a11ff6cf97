"""Which changed files of a fix count as gold: non-test source files.

Shared by candidates.py, add_issue.py and check_set.py (stdlib only).
"""
import re
import subprocess

SOURCE_EXT = (".py", ".pyi", ".ts", ".tsx", ".js", ".mjs", ".cjs", ".mts", ".cts", ".go", ".rs")

# Any path component equal to one of these excludes the file.
EXCLUDED_DIRS = {
    "test", "tests", "__tests__", "testing", "runtime-tests", "testdata", "test-types",
    "type-tests", "typetests", "integration", "e2e", "fixtures", "fixture", "__fixtures__",
    "mocks", "__mocks__", "snapshots", "__snapshots__", "docs", "doc", "docs_src",
    "documentation", "website", "examples", "example", "benches", "bench", "benchmark",
    "benchmarks", "asv_bench", "scripts", ".github", ".circleci", "ci", "deno",
    "deno_dist", "playground", "vendor", "third_party", "fuzz", "xtask", "contrib",
    "typing-examples", "typing_examples", "type_tests", "types-tests",
}
EXCLUDED_NAMES = {
    "conftest.py", "setup.py", "noxfile.py", "tasks.py", "__version__.py", "_version.py",
    "version.py", "versions.ts", "version.ts", "version.js", "play.ts", "build.rs",
    "Gruntfile.js", "gulpfile.js", "typing_examples.py",
}
EXCLUDED_PATTERNS = [
    re.compile(p) for p in (
        r"(^|/)test_[^/]*\.py$", r"_test\.py$", r"_tests?\.rs$", r"(^|/)tests?\.rs$", r"_test\.go$",
        r"\.(test|spec|test-d|bench)\.[cm]?[jt]sx?$", r"(^|/)(tests?|benchmark|spec)\.[cm]?[jt]sx?$", r"\.tst\.ts$",
        r"\.config\.[cm]?[jt]s$", r"(^|/)\.[^/]*rc\.[cm]?js$",
        r"\.pb\.go$", r"_gen\.go$", r"(^|/)zz_generated", r"\.generated\.", r"_generated\.",
        r"(^|/)generated/", r"\.min\.js$", r"(^|/)dist/", r"(^|/)build/", r"(^|/)lib/.*\.d\.ts$",
    )
]


def is_gold_candidate(path: str) -> bool:
    """True when `path` is a non-test, non-doc, non-generated source file."""
    if not path.endswith(SOURCE_EXT):
        return False
    parts = path.split("/")
    if any(p in EXCLUDED_DIRS for p in parts[:-1]):
        return False
    # a top-level `script/` holds build scripts; a package's `script/` (alembic/script/) is source
    if len(parts) > 1 and parts[0] == "script":
        return False
    if parts[-1] in EXCLUDED_NAMES:
        return False
    return not any(p.search(path) for p in EXCLUDED_PATTERNS)


def git(mirror: str, *args: str) -> str:
    return subprocess.run(["git", "-C", mirror, *args], check=True, capture_output=True,
                          text=True).stdout


def gold_of(mirror: str, base: str, fix: str):
    """(gold files, all changed source files, only_added) for the fix against its base."""
    out = git(mirror, "diff", "--no-renames", "--name-status", base, fix)
    gold, added_src = [], []
    for line in out.splitlines():
        status, path = line.split("\t", 1)
        if not is_gold_candidate(path):
            continue
        if status.startswith("A"):
            added_src.append(path)
        else:
            gold.append(path)
    return sorted(gold), added_src
