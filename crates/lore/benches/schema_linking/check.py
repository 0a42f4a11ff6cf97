#!/usr/bin/env python3
"""Validates the schema-linking evaluation set (standard library only).

    python3 check.py [--dir SET] # questions, splits, SQLite load, comments
    python3 check.py --pg       # also load every schema.pg.sql into a scratch
                                # PostgreSQL database through psql
                                # (PGHOST/PGPORT/PGUSER as usual; default
                                # 127.0.0.1:5432, user postgres)

Checks: each question has the fields the bench reads; ids are unique; every
database's questions sit in one split, the split written in its meta.json;
schema.sql (and schema.nocomments.sql, the same tables) loads into SQLite with foreign keys that name real tables and
columns; every gold table and column exists in the loaded schema (names
compared case-insensitively, as the databases do); comments.json names only
real tables and columns, and each comment is the one Lore's SQLite scan would
read beside that column in schema.sql (same rule as
crates/lore-warehouse/src/scan/introspect/sqlite.rs: a `-- comment` on a
column's line).
"""

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
from collections import Counter, defaultdict

# Where build.py writes the set (--dir overrides).
SET = os.environ.get("LORE_BENCH_SCHEMA_SET") or "/work/.cache/schema_linking"
FIELDS = {"id": str, "db": str, "question": str, "sql": str, "gold_tables": list, "gold_columns": list, "split": str}


def fail(errors, msg):
    errors.append(msg)


def load_sqlite(path):
    con = sqlite3.connect(":memory:")
    con.executescript(open(path).read())
    tables = {}
    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        cols = [r[1] for r in con.execute(f'PRAGMA table_info("{name}")')]
        fks = [(r[2], r[3], r[4]) for r in con.execute(f'PRAGMA foreign_key_list("{name}")')]
        tables[name] = (cols, fks)
    sql = {name: s for name, s in con.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'")}
    con.close()
    return tables, sql


def inline_comments(create_sql):
    """{column lower: comment} for `"col" TYPE, -- comment` lines, and the
    table comment on the opening line (the layout build.py writes)."""
    out, table = {}, ""
    for i, line in enumerate(create_sql.splitlines()):
        if i == 0:
            m = re.search(r"\(\s*--\s*(.*)$", line)
            table = m.group(1).strip() if m else ""
            continue
        m = re.match(r'\s*"((?:[^"]|"")+)"[^\n]*?--\s*(.*)$', line)
        if m:
            out[m.group(1).replace('""', '"').lower()] = m.group(2).strip()
    return table, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pg", action="store_true")
    ap.add_argument("--dir", default=SET)
    args = ap.parse_args()
    errors = []
    qs = [json.loads(line) for line in open(os.path.join(args.dir, "questions.jsonl"))]
    ids = Counter(q.get("id") for q in qs)
    for i, n in ids.items():
        if n > 1:
            fail(errors, f"duplicate id {i}")
    db_split = defaultdict(set)
    for q in qs:
        for f, t in FIELDS.items():
            if not isinstance(q.get(f), t):
                fail(errors, f"{q.get('id')}: field {f} missing or not {t.__name__}")
        if q.get("split") not in ("dev", "heldout"):
            fail(errors, f"{q.get('id')}: split {q.get('split')!r}")
        if not q.get("gold_tables"):
            fail(errors, f"{q.get('id')}: no gold table")
        if not q.get("question", "").strip():
            fail(errors, f"{q.get('id')}: empty question")
        db_split[q["db"]].add(q["split"])
    dbdir = os.path.join(args.dir, "dbs")
    dbs = sorted(os.listdir(dbdir))
    for db in db_split:
        if db not in dbs:
            fail(errors, f"questions name database {db}, which has no folder")
    schemas = {}
    for db in dbs:
        d = os.path.join(dbdir, db)
        meta = json.load(open(os.path.join(d, "meta.json")))
        if db_split.get(db) and db_split[db] != {meta["split"]}:
            fail(errors, f"{db}: question splits {sorted(db_split[db])} but meta.json says {meta['split']}")
        try:
            tables, create = load_sqlite(os.path.join(d, "schema.sql"))
        except sqlite3.Error as e:
            fail(errors, f"{db}: schema.sql does not load into SQLite: {e}")
            continue
        try:
            bare, bare_sql = load_sqlite(os.path.join(d, "schema.nocomments.sql"))
            if bare != tables or any("--" in x for x in bare_sql.values()):
                fail(errors, f"{db}: schema.nocomments.sql is not schema.sql without its comments")
        except sqlite3.Error as e:
            fail(errors, f"{db}: schema.nocomments.sql does not load into SQLite: {e}")
        lower = {t.lower(): (t, {c.lower(): c for c in cols}) for t, (cols, _) in tables.items()}
        schemas[db] = lower
        for t, (cols, fks) in tables.items():
            for rt, frm, to in fks:
                if rt.lower() not in lower or (to and to.lower() not in lower[rt.lower()][1]) or frm.lower() not in {c.lower() for c in cols}:
                    fail(errors, f"{db}: foreign key {t}.{frm} -> {rt}.{to} names no real column")
        comments = json.load(open(os.path.join(d, "comments.json")))
        for t, entry in comments.items():
            if t.lower() not in lower:
                fail(errors, f"{db}: comments.json names table {t}, not in schema.sql")
                continue
            tcomment, ccomments = inline_comments(create[lower[t.lower()][0]])
            if (entry.get("") or "") != tcomment:
                fail(errors, f"{db}: table comment of {t} differs between comments.json and schema.sql")
            for c, text in entry.items():
                if c == "":
                    continue
                if c.lower() not in lower[t.lower()][1]:
                    fail(errors, f"{db}: comments.json names column {t}.{c}, not in schema.sql")
                elif (text or "") != ccomments.get(c.lower(), ""):
                    fail(errors, f"{db}: comment of {t}.{c} differs between comments.json and schema.sql")
    for q in qs:
        s = schemas.get(q["db"])
        if s is None:
            continue
        for t in q["gold_tables"]:
            if t.lower() not in s:
                fail(errors, f"{q['id']}: gold table {t} not in {q['db']}")
        for tc in q["gold_columns"]:
            t, _, c = tc.partition(".")
            if t.lower() not in s or c.lower() not in s[t.lower()][1]:
                fail(errors, f"{q['id']}: gold column {tc} not in {q['db']}")
            elif t not in q["gold_tables"]:
                fail(errors, f"{q['id']}: gold column {tc} outside the gold tables")
    if args.pg:
        env = dict(os.environ)
        env.setdefault("PGHOST", "127.0.0.1")
        env.setdefault("PGPORT", "5432")
        env.setdefault("PGUSER", "postgres")
        scratch = "lore_schema_linking_check"
        for db in dbs:
            subprocess.run(["psql", "-q", "-d", "postgres", "-c", f"DROP DATABASE IF EXISTS {scratch}"], env=env, check=True, capture_output=True)
            subprocess.run(["psql", "-q", "-d", "postgres", "-c", f"CREATE DATABASE {scratch}"], env=env, check=True, capture_output=True)
            r = subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", "-d", scratch, "-f", os.path.join(dbdir, db, "schema.pg.sql")], env=env, capture_output=True, text=True)
            if r.returncode != 0:
                fail(errors, f"{db}: schema.pg.sql does not load into PostgreSQL: {r.stderr.strip()[:300]}")
            else:
                n = subprocess.run(["psql", "-At", "-d", scratch, "-c", "SELECT count(*) FROM pg_description d JOIN pg_class c ON c.oid = d.objoid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'"], env=env, capture_output=True, text=True).stdout.strip()
                print(f"  pg {db}: loaded, {n} comments")
        subprocess.run(["psql", "-q", "-d", "postgres", "-c", f"DROP DATABASE IF EXISTS {scratch}"], env=env, capture_output=True)
    per = Counter((q["db"], q["split"]) for q in qs)
    print(f"{len(qs)} questions, {len(dbs)} databases: " + ", ".join(f"{s} {n}" for s, n in sorted(Counter(q['split'] for q in qs).items())))
    for (db, split), n in sorted(per.items(), key=lambda x: (x[0][1], x[0][0])):
        print(f"  {split:8} {db:32} {n}")
    if errors:
        print(f"{len(errors)} problem(s):")
        for e in errors[:50]:
            print("  " + e)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
