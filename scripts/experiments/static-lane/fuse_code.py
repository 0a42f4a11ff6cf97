"""Development split only: does the static lane reorder km-search's files
for the better? Reads the localisation bench's dump (LORE_BENCH_DUMP, dev
issues), re-ranks the code-filtered search's files by Lore's rank fused
with the static cosine of the issue and each file's text (from the
mirror, at the issue's base commit), and chooses the weight and k leaving
one repository out; prints the whole grid too.

python fuse_code.py DUMP [MIRRORS]"""
import json
import os
import subprocess
import sys
from collections import defaultdict

import numpy as np

from encoder import Encoder

dump_path = sys.argv[1]
mirrors = sys.argv[2] if len(sys.argv) > 2 else "/work/.mirror"
bench = os.path.join(os.path.dirname(__file__), "../../../crates/lore-gateway/benches/localisation")
enc = Encoder()
issues = {}
for name in ["issues.jsonl", "dev-extra.jsonl"]:
    for line in open(os.path.join(bench, name)):
        issue = json.loads(line)
        issues[issue["id"]] = issue
files = defaultdict(list)
for line in open(dump_path):
    iid, system, _, chunk = line.split("\t")[:4]
    if system == "code":
        path = chunk.split("::")[0].split("/", 1)[1]
        if path not in files[iid]:
            files[iid].append(path)


def text_at(issue, path):
    git_dir = f"{mirrors}/{issue['repo'].replace('/', '+')}/repo"
    shown = subprocess.run(["git", "--git-dir", git_dir, "show", f"{issue['base_commit']}:{path}"],
                           capture_output=True, text=True, errors="replace")
    return shown.stdout[:20000]


rows = []
for iid, listed in files.items():
    issue = issues[iid]
    qv = enc.vec(issue["title"] + "\n" + issue["body"])
    rows.append((issue, listed, [float(qv @ enc.vec(p + "\n" + text_at(issue, p))) for p in listed]))


def ranked(listed, sims, lam, k):
    srank = {listed[i]: r for r, i in enumerate(np.argsort(-np.array(sims), kind="stable"))}
    score = {p: 1 / (k + i + 1) + lam / (k + srank[p] + 1) for i, p in enumerate(listed)}
    return sorted(listed, key=lambda p: (-score[p], listed.index(p)))


def acc(sub, cfg, n):
    return np.mean([any(g in ranked(fl, s, *cfg)[:n] for g in issue["gold"]) for issue, fl, s in sub])


grid = [(lam, k) for lam in [0, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0] for k in [1, 3, 10, 60]]
total, n = np.zeros(4), 0
for held in sorted({issue["repo"] for issue, _, _ in rows}):
    train = [r for r in rows if r[0]["repo"] != held]
    test = [r for r in rows if r[0]["repo"] == held]
    best = max(grid, key=lambda c: (acc(train, c, 5), acc(train, c, 1), -c[0]))
    total += np.array([acc(test, (0, 1), 5), acc(test, best, 5), acc(test, (0, 1), 1), acc(test, best, 1)]) * len(test)
    n += len(test)
print("pooled, leave one repository out (n=%d): Acc@5 Lore %.3f fused %.3f; Acc@1 Lore %.3f fused %.3f"
      % ((n,) + tuple(total / n)))
print("the whole grid on all dev issues (lam, k): Acc@5 Acc@1")
for cfg in grid:
    print(cfg, f"{acc(rows, cfg, 5):.3f} {acc(rows, cfg, 1):.3f}")
