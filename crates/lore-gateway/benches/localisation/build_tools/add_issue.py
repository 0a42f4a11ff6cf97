"""Append one issue to its split's file.

usage: add_issue.py OWNER/NAME < blocks
Each block is three lines: `@@ ISSUE FIX_SHA`, the issue's title as a JSON string, and the
reporter's description as a JSON string (copied from the public issue thread, never the pull
request or the commit; cut to 3000 characters here).
"""
import json
import os
import re
import sys

from goldrules import git, gold_of
from repos import REPOS, out_file

HERE = os.path.dirname(os.path.abspath(__file__))
SET_DIR = os.path.dirname(HERE)


def add(repo, issue, fix, title, body):
    language, split = REPOS[repo]
    mirror = f"/work/.mirror/{repo.replace('/', '+')}/repo"
    fix = git(mirror, "rev-parse", fix + "^{commit}").strip()
    base = git(mirror, "rev-parse", fix + "^1").strip()
    gold, _ = gold_of(mirror, base, fix)
    assert 1 <= len(gold) <= 5, gold
    subject = git(mirror, "log", "-1", "--format=%s", fix)
    pr = re.findall(r"\(#(\d+)\)\s*$", subject) or re.findall(r"Merge pull request #(\d+)", subject)
    fix_url = (f"https://github.com/{repo}/pull/{pr[-1]}" if pr
               else f"https://github.com/{repo}/commit/{fix}")
    title, body = title.strip(), body.strip("\n")[:3000]
    assert title and body
    rec = {"id": f"{repo}#{issue}", "repo": repo,
           "issue_url": f"https://github.com/{repo}/issues/{issue}", "fix_url": fix_url,
           "fix_commit": fix, "base_commit": base, "language": language, "split": split,
           "title": title, "body": body, "gold": gold}
    path = os.path.join(SET_DIR, out_file(split))
    if os.path.exists(path):
        with open(path) as f:
            ids = {json.loads(l)["id"] for l in f if l.strip()}
        assert rec["id"] not in ids, f"{rec['id']} already in {path}"
    with open(path, "a") as f:
        f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print(rec["id"], split, gold)


def main():
    """Blocks of three lines: `@@ ISSUE FIX`, the title and the body, each a JSON string."""
    repo = sys.argv[1]
    lines = [l for l in sys.stdin.read().split("\n") if l.strip()]
    for i in range(0, len(lines), 3):
        head = lines[i].split()
        assert head[0] == "@@", lines[i]
        try:
            add(repo, int(head[1]), head[2], json.loads(lines[i + 1]), json.loads(lines[i + 2]))
        except AssertionError as e:
            print("SKIPPED", head, e)


if __name__ == "__main__":
    main()
