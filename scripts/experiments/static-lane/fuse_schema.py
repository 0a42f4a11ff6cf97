"""Development split only: does the static lane add to discover_data's own
ranking? Reads the schema-linking bench's dump (LORE_BENCH_DUMP, dev
questions), fuses Lore's ranks of tables and columns with the static
cosine by weighted reciprocal rank, and chooses the weight and k leaving
one database out.

python fuse_schema.py DUMP [SET_DIR]"""
import json
import sys

import numpy as np

from encoder import Encoder

dump_path = sys.argv[1]
root = sys.argv[2] if len(sys.argv) > 2 else "/work/.cache/schema_linking"
enc = Encoder()
questions = {}
for line in open(f"{root}/questions.jsonl"):
    q = json.loads(line)
    if q["split"] == "dev":
        questions[q["id"]] = q
dump = [d for d in map(json.loads, open(dump_path)) if d["pass"] == "with comments"]
assert all(d["id"] in questions for d in dump), "the dump holds a question outside the dev split"
schemas = {}


def schema(db):
    if db not in schemas:
        tables = {}
        for t, cols in json.load(open(f"{root}/dbs/{db}/comments.json")).items():
            comment = cols.get("", "") or ""
            columns = {c.lower(): enc.vec(f"{t} {c} {cc or ''}")
                       for c, cc in cols.items() if c}
            whole = enc.vec(" ; ".join([f"{t} {comment}"] + [f"{c} {cc or ''}" for c, cc in cols.items() if c]))
            tables[t.lower()] = (whole, columns)
        schemas[db] = tables
    return schemas[db]


rows = []
for d in dump:
    q = questions[d["id"]]
    qv = enc.vec(q["question"])
    tsim, csim = {}, {}
    for t, (whole, columns) in schema(d["db"]).items():
        tsim[t] = (float(qv @ whole), max((float(qv @ v) for v in columns.values()), default=0.0))
        for c, v in columns.items():
            csim[f"{t}.{c}"] = float(qv @ v)
    rows.append((d, q, tsim, csim))


def fuse(lore, sims, lam, k):
    lr = {x: i for i, x in enumerate(lore)}
    sr = {x: i for i, x in enumerate(sorted(sims, key=lambda x: -sims[x]))}
    score = {x: (1 / (k + lr[x] + 1) if x in lr else 0) + lam / (k + sr[x] + 1) for x in sims}
    return sorted(score, key=lambda x: (-score[x], lr.get(x, 1e9)))


def table_at5(sub, cfg):
    lam, k, variant = cfg
    return np.mean([{t.lower() for t in q["gold_tables"]} <= set(
        fuse(d["lore_tables"], {t: s[variant] for t, s in ts.items()}, lam, k)[:5]) for d, q, ts, _ in sub])


def col_recall20(sub, cfg):
    lam, k = cfg
    out = []
    for d, q, _, cs in sub:
        gold = {c.lower() for c in q["gold_columns"]}
        if gold:
            out.append(len(gold & set(fuse(d["lore_columns"], cs, lam, k)[:20])) / len(gold))
    return np.mean(out)


lams = [0, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0]
tgrid = [(lam, k, v) for lam in lams for k in [1, 5, 20, 60] for v in [0, 1]]
cgrid = [(lam, k) for lam in lams for k in [1, 5, 20, 60]]
total = np.zeros(4)
n = 0
print("db | n | table@5 Lore | fused | col recall@20 Lore | fused | settings chosen on the other dbs")
for held in sorted({d["db"] for d, *_ in rows}):
    train = [r for r in rows if r[0]["db"] != held]
    test = [r for r in rows if r[0]["db"] == held]
    tbest = max(tgrid, key=lambda c: (table_at5(train, c), -c[0]))
    cbest = max(cgrid, key=lambda c: (col_recall20(train, c), -c[0]))
    figures = [table_at5(test, (0, 1, 0)), table_at5(test, tbest),
               col_recall20(test, (0, 1)), col_recall20(test, cbest)]
    print(f"{held} | {len(test)} | " + " | ".join(f"{x:.3f}" for x in figures) + f" | {tbest} {cbest}")
    total += np.array(figures) * len(test)
    n += len(test)
print(f"pooled, leave one database out (n={n}): " + " | ".join(f"{x:.3f}" for x in total / n))
