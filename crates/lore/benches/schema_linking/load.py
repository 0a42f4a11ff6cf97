#!/usr/bin/env python3
"""Loads the schema-linking databases into real databases for a scan
(standard library; PostgreSQL through psql).

    python3 load.py sqlite OUTDIR [--no-comments] [--split dev|heldout] [--dir SET]
        -> OUTDIR/<db>.sqlite, one empty SQLite database per schema
    python3 load.py postgres [--no-comments] [--split …] [--prefix lore_sl_]
        -> one PostgreSQL database <prefix><db lower-cased> per schema
           (PGHOST/PGPORT/PGUSER as usual; default 127.0.0.1:5432 postgres)

Also prints the questions of the chosen split as a JSON list on --questions
FILE. The tables are empty: the set is about schema text, not values.
The set is read from --dir, else $LORE_BENCH_SCHEMA_SET, else
/work/.cache/schema_linking (where build.py writes it).
"""

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys

SET = os.environ.get("LORE_BENCH_SCHEMA_SET") or "/work/.cache/schema_linking"


def databases(split):
    out = []
    for db in sorted(os.listdir(os.path.join(SET, "dbs"))):
        meta = json.load(open(os.path.join(SET, "dbs", db, "meta.json")))
        if split in (None, meta["split"]):
            out.append(db)
    return out


def strip_pg_comments(text):
    return "\n".join(line for line in text.splitlines() if not line.startswith("COMMENT ON "))


def main():
    global SET
    ap = argparse.ArgumentParser()
    ap.add_argument("target", choices=["sqlite", "postgres"])
    ap.add_argument("outdir", nargs="?")
    ap.add_argument("--no-comments", action="store_true")
    ap.add_argument("--split", choices=["dev", "heldout"])
    ap.add_argument("--prefix", default="lore_sl_")
    ap.add_argument("--questions")
    ap.add_argument("--dir", default=SET)
    args = ap.parse_args()
    SET = args.dir
    dbs = databases(args.split)
    if args.target == "sqlite":
        if not args.outdir:
            ap.error("sqlite needs OUTDIR")
        os.makedirs(args.outdir, exist_ok=True)
        name = "schema.nocomments.sql" if args.no_comments else "schema.sql"
        for db in dbs:
            path = os.path.join(args.outdir, f"{db}.sqlite")
            if os.path.exists(path):
                os.remove(path)
            con = sqlite3.connect(path)
            con.executescript(open(os.path.join(SET, "dbs", db, name)).read())
            con.commit()
            con.close()
            print(path)
    else:
        env = dict(os.environ)
        env.setdefault("PGHOST", "127.0.0.1")
        env.setdefault("PGPORT", "5432")
        env.setdefault("PGUSER", "postgres")
        env.setdefault("PGOPTIONS", "-c client_min_messages=warning")
        for db in dbs:
            name = args.prefix + re.sub(r"[^a-z0-9_]", "_", db.lower())
            subprocess.run(["psql", "-q", "-d", "postgres", "-c", f"DROP DATABASE IF EXISTS {name}"], env=env, check=True)
            subprocess.run(["psql", "-q", "-d", "postgres", "-c", f"CREATE DATABASE {name}"], env=env, check=True)
            text = open(os.path.join(SET, "dbs", db, "schema.pg.sql")).read()
            if args.no_comments:
                text = strip_pg_comments(text)
            subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", "-d", name], input=text, text=True, env=env, check=True)
            print(name)
    if args.questions:
        qs = [json.loads(line) for line in open(os.path.join(SET, "questions.jsonl"))]
        qs = [q for q in qs if q["db"] in dbs]
        with open(args.questions, "w") as fh:
            json.dump(qs, fh, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
