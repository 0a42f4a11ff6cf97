"""Validate the localisation sets and print their counts (stdlib only).

usage: python3 check_set.py [--mirrors DIR] [--table]

Checks every line of issues.jsonl (the original development set), dev-extra.jsonl and
heldout.jsonl:
- every field is present (`split` is required in the new files and implied `dev` for
  issues.jsonl);
- ids are unique across the files;
- `repo` is in repos.py and its split matches the line's split (no repository in both splits);
- where the repository's mirror is present: `base_commit` is the first parent of `fix_commit`,
  every gold file exists at `base_commit`, and every gold file is a non-test source file by the
  rules in goldrules.py; the gold list has 1 to 5 files.
Prints issues per language family and split, repositories per split, and the largest share of
one repository (and, with --table, the README's sources table). Exits non-zero on any error.
"""
import collections
import json
import os
import subprocess
import sys

from goldrules import is_gold_candidate
from repos import FAMILY, REPOS

HERE = os.path.dirname(os.path.abspath(__file__))
SET_DIR = os.path.dirname(HERE)
FILES = {"issues.jsonl": "dev", "dev-extra.jsonl": "dev", "heldout.jsonl": "heldout"}
FIELDS = ["id", "repo", "issue_url", "fix_url", "fix_commit", "base_commit", "language",
          "title", "body", "gold"]


def git(mirror, *args):
    r = subprocess.run(["git", "-C", mirror, *args], capture_output=True, text=True)
    return r.returncode, r.stdout.strip()


def main():
    mirrors = os.environ.get("LORE_BENCH_MIRRORS", "/work/.mirror")
    if "--mirrors" in sys.argv:
        mirrors = sys.argv[sys.argv.index("--mirrors") + 1]
    errors, rows, seen = [], [], set()
    unchecked = collections.Counter()
    for name, split in FILES.items():
        path = os.path.join(SET_DIR, name)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                where = f"{name}:{n}"
                try:
                    rec = json.loads(line)
                except ValueError as e:
                    errors.append(f"{where}: not JSON ({e})")
                    continue
                missing = [k for k in FIELDS if not rec.get(k)]
                if name != "issues.jsonl" and rec.get("split") not in ("dev", "heldout"):
                    missing.append("split")
                if missing:
                    errors.append(f"{where}: missing {missing}")
                    continue
                rec_split = rec.get("split", split)
                if rec_split != split:
                    errors.append(f"{where}: split {rec_split} in {name}")
                if rec["id"] in seen:
                    errors.append(f"{where}: duplicate id {rec['id']}")
                seen.add(rec["id"])
                if rec["id"] != f"{rec['repo']}#{rec['issue_url'].rsplit('/', 1)[-1]}":
                    errors.append(f"{where}: id does not match issue_url")
                if rec["repo"] not in REPOS:
                    errors.append(f"{where}: {rec['repo']} not in repos.py")
                    continue
                lang, repo_split = REPOS[rec["repo"]]
                if repo_split != split:
                    errors.append(f"{where}: {rec['repo']} is a {repo_split} repository")
                if rec["language"] != lang:
                    errors.append(f"{where}: language {rec['language']} != {lang}")
                if len(rec["body"]) > 3000:
                    errors.append(f"{where}: body longer than 3000 characters")
                if not 1 <= len(rec["gold"]) <= 5:
                    errors.append(f"{where}: {len(rec['gold'])} gold files")
                if name != "issues.jsonl":
                    bad = [g for g in rec["gold"] if not is_gold_candidate(g)]
                    if bad:
                        errors.append(f"{where}: not source or a test/doc file: {bad}")
                mirror = os.path.join(mirrors, rec["repo"].replace("/", "+"), "repo")
                if not os.path.isdir(mirror):
                    unchecked[rec["repo"]] += 1
                else:
                    rc, parent = git(mirror, "rev-parse", rec["fix_commit"] + "^1")
                    if rc or parent != rec["base_commit"]:
                        errors.append(f"{where}: base_commit is not the fix's first parent")
                    for g in rec["gold"]:
                        rc, _ = git(mirror, "cat-file", "-e", f"{rec['base_commit']}:{g}")
                        if rc:
                            errors.append(f"{where}: {g} absent at base_commit")
                rows.append((split, FAMILY[lang], rec["repo"]))
    by = collections.Counter((s, fam) for s, fam, _ in rows)
    repos = collections.defaultdict(set)
    for s, fam, r in rows:
        repos[s].add(r)
    print("issues by split and language family:")
    for s in ("dev", "heldout"):
        fams = {fam: by[(s, fam)] for fam in ("python", "ts/js", "go", "rust")}
        print(f"  {s:8} {sum(fams.values()):4}  " + "  ".join(f"{k} {v}" for k, v in fams.items()))
        rf = collections.Counter(FAMILY[REPOS[r][0]] for r in repos[s])
        print(f"  {'':8} {len(repos[s]):4} repositories  "
              + "  ".join(f"{k} {rf[k]}" for k in ("python", "ts/js", "go", "rust")))
    both = repos["dev"] & repos["heldout"]
    if both:
        errors.append(f"repositories in both splits: {sorted(both)}")
    per_repo = collections.Counter(r for _, _, r in rows)
    if rows:
        r, c = per_repo.most_common(1)[0]
        print(f"all: {len(rows)} issues, {len(per_repo)} repositories; largest {r} {c} "
              f"({100 * c / len(rows):.1f}%)")
    if "--table" in sys.argv:
        print("\n| repository | language | split | issues |\n|---|---|---|---:|")
        for repo, (lang, s) in sorted(REPOS.items(), key=lambda kv: (kv[1][1], FAMILY[kv[1][0]], kv[0].lower())):
            print(f"| {repo} | {lang} | {s} | {per_repo[repo]} |")
    for r, c in sorted(unchecked.items()):
        print(f"note: no mirror for {r}; {c} issues not checked against git")
    for e in errors:
        print("ERROR", e)
    print(f"{len(errors)} errors")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
