#!/usr/bin/env python3
"""Derives the schema-linking evaluation set for `discover_data` from public
mirrors of its sources (see README.md). Reproducible: every source is read at a
pinned commit with `git show`, questions are chosen by fixed rules, and gold
tables and columns come from the gold SQL through sqlglot's `qualify`.

    python3 -m venv /work/venv-sg && /work/venv-sg/bin/pip install sqlglot
    /work/venv-sg/bin/python build.py [--mirrors /work/.mirror] [--out DIR]

Writes questions.jsonl, dbs/<db>/{schema.sql,schema.nocomments.sql,
schema.pg.sql,comments.json,meta.json}, and build_report.json (what was kept
and dropped, and why) into the output folder: --out, else $LORE_BENCH_SCHEMA_SET,
else /work/.cache/schema_linking. The folder is outside the repository on
purpose: the set is derived from fetched snapshots and is not committed.
Needs only the standard library and sqlglot.
"""

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
from collections import Counter, OrderedDict, defaultdict

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, OptimizeError, SqlglotError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import traverse_scope

# Each source at the commit this set was built from.
SOURCES = {
    "kaggledbqa": ("Chia-Hsuan-Lee+KaggleDBQA", "ab6325c9b5749f2f3509a1f64299bfa30396e6b0"),
    "sede": ("hirupert+sede", "2bf261248feb330889a9e84f74e33ff7df0d6a86"),
    "ehrsql": ("glee4810+EHRSQL", "01241a3c55bda895561c76923251ea2421d2e892"),
    "ehrsql2024": ("glee4810+ehrsql-2024", "46597893d9ffc6b9e67785b9c6dcbb06f1b62568"),
    "mimic_code": ("MIT-LCP+mimic-code", "8bcbd190ca75670cd5281f9ead3611ae1cefb73e"),
    "mimic_website": ("MIT-LCP+mimic-website", "fc37ce9f2ad23aebc45efe2d1f5e0717ca482ce0"),
    "eicu_website": ("MIT-LCP+eicu.mit.edu", "bd091dfe71f4aac8c095128039d476d985efacae"),
    "beaver": ("peterbaile+beaver", "3cd10d436f20d947eb3284a4ec96aeca9becde75"),
}

# The split, chosen by database before any ranking was run on this set.
# Databases that share question templates or vocabulary sit in one part:
# EHRSQL's MIMIC-III, eICU and EHRSQL 2024's MIMIC-IV share templates; the five
# BEAVER "NW" databases are one OpenStack deployment.
DEV_DBS = {
    # SEDE: one wide schema with no published comments.
    "sede_stackexchange",
    # BEAVER NW (OpenStack services of one deployment).
    "beaver_csail_stata_nova",
    "beaver_csail_stata_neutron",
    "beaver_keystone",
    "beaver_csail_stata_glance",
    "beaver_csail_stata_cinder",
    # One KaggleDBQA database, the first by sha256 of its name (see README).
    "kaggle_GeoNuclearData",
}

# KaggleDBQA databases that Spider also carries (Spider's baseball_1 is the
# same Kaggle "the-history-of-baseball" data): Spider is a hidden check.
KAGGLE_EXCLUDED = {"TheHistoryofBaseball": "same Kaggle data as Spider's baseball_1 (Spider is a hidden check)"}

PER_DB_CAP = {"sede_stackexchange": 200, "ehrsql_mimic_iii": 150, "ehrsql_eicu": 150, "ehrsql_mimic_iv": 150}

LICENCES = {
    "kaggledbqa": "CC-BY-SA-4.0 (KaggleDBQA, Microsoft); underlying Kaggle data per DATASETS.md of the source",
    "sede": "Apache-2.0 (SEDE repository); queries and titles are Stack Exchange Data Explorer user content, CC BY-SA",
    "ehrsql": "CC-BY-4.0 (EHRSQL questions, SQL and schema)",
    "ehrsql2024": "CC-BY-4.0 (EHRSQL 2024 repository licence file); schema of the MIMIC-IV demo (ODbL-1.0)",
    "mimic_code": "MIT (MIT-LCP/mimic-code)",
    "mimic_website": "MIT (MIT-LCP/mimic-website)",
    "eicu_website": "MIT (MIT-LCP/eicu.mit.edu)",
    "beaver": "MIT (BEAVER, peterbaile/beaver)",
}

MIRRORS = "/work/.mirror"

# Where the set is written (and where load.py, check.py and the bench read it).
DEFAULT_SET = "/work/.cache/schema_linking"


def set_dir():
    return os.environ.get("LORE_BENCH_SCHEMA_SET") or DEFAULT_SET


def show(source, path):
    repo, commit = SOURCES[source]
    out = subprocess.run(
        ["git", "-C", os.path.join(MIRRORS, repo, "repo"), "show", f"{commit}:{path}"],
        capture_output=True,
        check=True,
    )
    return out.stdout.decode("utf-8")


def ls(source, folder):
    repo, commit = SOURCES[source]
    out = subprocess.run(
        ["git", "-C", os.path.join(MIRRORS, repo, "repo"), "ls-tree", "--name-only", f"{commit}:{folder}"],
        capture_output=True,
        check=True,
    )
    return out.stdout.decode("utf-8").split()


def sha(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def one_line(text):
    return " ".join((text or "").split())


# ---------------------------------------------------------------- schema model


class Db:
    def __init__(self, name, source, dialect):
        self.name = name
        self.source = source
        self.dialect = dialect  # dialect of the gold SQL
        self.tables = OrderedDict()  # lower name -> table dict
        self.meta = {}

    def add_table(self, name, comment=""):
        t = {"name": name, "comment": one_line(comment), "columns": OrderedDict(), "pk": [], "fks": [], "unique": []}
        self.tables[name.lower()] = t
        return t

    @staticmethod
    def add_column(table, name, type_, notnull=False, comment=""):
        table["columns"][name.lower()] = {"name": name, "type": type_, "notnull": notnull, "comment": one_line(comment)}

    def column(self, table, column):
        t = self.tables.get(table.lower())
        return t and t["columns"].get(column.lower())

    def sqlglot_schema(self):
        return {t: {c: "TEXT" for c in tab["columns"]} for t, tab in self.tables.items()}


def portable_type(raw):
    """(sqlite type, postgres type) for a source's type text."""
    t = one_line(raw).lower()
    t = re.sub(r"\b(not null|null|default\b.*|auto_increment|unsigned|character set \S+|collate \S+|primary key|unique)\b", "", t).strip()
    base = re.match(r"[a-z ]+", t)
    base = base.group(0).strip() if base else ""
    args = re.search(r"\(([^)]*)\)", t)
    args = args.group(1).replace(" ", "") if args else ""
    if base in ("int", "integer", "mediumint", "int4"):
        return "INTEGER", "INTEGER"
    if base in ("bigint", "int8"):
        return "BIGINT", "BIGINT"
    if base in ("smallint", "tinyint", "int2"):
        return "SMALLINT", "SMALLINT"
    if base in ("bit", "boolean", "bool"):
        return "BOOLEAN", "BOOLEAN"
    if base in ("float", "double", "double precision", "real", "float8"):
        return "DOUBLE PRECISION", "DOUBLE PRECISION"
    if base in ("number",):
        return "NUMERIC", "NUMERIC"
    if base in ("numeric", "decimal"):
        return (f"NUMERIC({args})", f"NUMERIC({args})") if args else ("NUMERIC", "NUMERIC")
    if base in ("varchar", "character varying", "nvarchar", "char", "character", "nchar", "varchar2"):
        n = args.split(",")[0] if args else ""
        if n and n.isdigit() and int(n) > 0:
            return f"VARCHAR({n})", f"VARCHAR({n})"
        return "TEXT", "TEXT"
    if base in ("text", "mediumtext", "longtext", "tinytext", "enum", "set", "json", "clob", "other", "uniqueidentifier"):
        return "TEXT", "TEXT"
    if base in ("date",):
        return "DATE", "DATE"
    if base in ("datetime", "timestamp", "time", "timestamp without time zone", "datetime2"):
        return ("TIME", "TIME") if base == "time" and raw.strip().lower() == "time" else ("TIMESTAMP", "TIMESTAMP")
    if base in ("blob", "mediumblob", "longblob", "varbinary", "binary", "bytea", "tinyblob"):
        return "BLOB", "BYTEA"
    raise ValueError(f"unmapped type {raw!r}")


def q(name):
    return '"' + name.replace('"', '""') + '"'


def ddl(db, dialect, with_comments=True):
    """CREATE TABLE statements; for SQLite, comments as `-- text` beside each
    column (and on the line of the opening parenthesis for the table), which is
    where Lore's SQLite scan reads them; for PostgreSQL, COMMENT ON."""
    out = [f"-- {db.name}: derived by build.py from {db.meta['source_repos']}; see README.md"]
    post = []
    for t in db.tables.values():
        lines = []
        cols = list(t["columns"].values())
        defs = []
        for c in cols:
            st, pt = portable_type(c["type"])
            typ = st if dialect == "sqlite" else pt
            d = f"  {q(c['name'])} {typ}" + (" NOT NULL" if c["notnull"] else "")
            defs.append((d, c["comment"]))
        if t["pk"]:
            defs.append(("  PRIMARY KEY (" + ", ".join(q(x) for x in t["pk"]) + ")", ""))
        for u in t["unique"]:
            defs.append(("  UNIQUE (" + ", ".join(q(x) for x in u) + ")", ""))
        if dialect == "sqlite":
            for cols_, rt, rcols in t["fks"]:
                defs.append((f"  FOREIGN KEY (" + ", ".join(q(x) for x in cols_) + f") REFERENCES {q(rt)} (" + ", ".join(q(x) for x in rcols) + ")", ""))
        head = f"CREATE TABLE {q(t['name'])} ("
        if dialect == "sqlite" and with_comments and t["comment"]:
            head += " -- " + t["comment"]
        lines.append(head)
        for i, (d, comment) in enumerate(defs):
            sep = "," if i < len(defs) - 1 else ""
            line = d + sep
            if dialect == "sqlite" and with_comments and comment:
                line += " -- " + comment
            lines.append(line)
        lines.append(");")
        out.append("\n".join(lines))
        if dialect == "postgres":
            if with_comments and t["comment"]:
                post.append(f"COMMENT ON TABLE {q(t['name'])} IS {sql_str(t['comment'])};")
            if with_comments:
                for c in cols:
                    if c["comment"]:
                        post.append(f"COMMENT ON COLUMN {q(t['name'])}.{q(c['name'])} IS {sql_str(c['comment'])};")
    if dialect == "postgres":
        # Foreign keys after every table exists; PostgreSQL needs a unique
        # referenced column, so keys whose target is not unique are listed as
        # comments (they stay declared in the SQLite file).
        for t in db.tables.values():
            for cols_, rt, rcols in t["fks"]:
                target = db.tables[rt.lower()]
                uniq = [x.lower() for x in rcols]
                if [x.lower() for x in target["pk"]] == uniq or any([x.lower() for x in u] == uniq for u in target["unique"]):
                    post.append(
                        f"ALTER TABLE {q(t['name'])} ADD FOREIGN KEY (" + ", ".join(q(x) for x in cols_) + f") REFERENCES {q(rt)} (" + ", ".join(q(x) for x in rcols) + ");"
                    )
                else:
                    post.append(f"-- join key (referenced column not unique): {t['name']}({', '.join(cols_)}) -> {rt}({', '.join(rcols)})")
    return "\n\n".join(out) + "\n\n" + "\n".join(post) + ("\n" if post else "")


def sql_str(s):
    return "'" + s.replace("'", "''") + "'"


def parse_ddl(db, text, read, lower=False):
    """Tables, columns, keys out of a CREATE TABLE script."""
    for st in sqlglot.parse(text, read=read):
        if not isinstance(st, exp.Create) or st.args.get("kind", "").upper() != "TABLE":
            continue
        schema = st.this
        name = schema.this.name
        name = name.lower() if lower else name
        t = db.add_table(name)
        for e in schema.expressions:
            if isinstance(e, exp.ColumnDef):
                cname = e.name.lower() if lower else e.name
                kinds = [c.args.get("kind") for c in e.constraints]
                notnull = any(isinstance(k, exp.NotNullColumnConstraint) and not k.args.get("allow_null") for k in kinds)
                Db.add_column(t, cname, e.args["kind"].sql(dialect="postgres"), notnull)
                if any(isinstance(k, exp.PrimaryKeyColumnConstraint) for k in kinds):
                    t["pk"] = [cname]
                if any(isinstance(k, exp.UniqueColumnConstraint) for k in kinds):
                    t["unique"].append([cname])
            elif isinstance(e, exp.ForeignKey):
                ref = e.args["reference"].this
                cols = [x.name.lower() if lower else x.name for x in e.expressions]
                rt = ref.this.name.lower() if lower else ref.this.name
                rcols = [x.name.lower() if lower else x.name for x in ref.expressions]
                t["fks"].append((cols, rt, rcols))
            elif isinstance(e, exp.PrimaryKey):
                t["pk"] = [x.name.lower() if lower else x.name for x in e.expressions]
    return db


# ---------------------------------------------------------------- gold from SQL


# A projection listing at least this share of a table's columns is read as
# `table.*` (ORM entity loads leave out a deferred column or two).
ENTITY_LOAD_SHARE = 0.8


class Unresolved(Exception):
    pass


def lower_identifiers(node):
    for ident in node.find_all(exp.Identifier):
        ident.set("this", ident.this.lower())
        ident.set("quoted", False)
    return node


def double_quoted_strings(db, st):
    """SQLite reads a double-quoted word that names no column as a string
    literal ("Spain"); the gold SQL of KaggleDBQA relies on it."""
    known = {c for t in db.tables.values() for c in t["columns"]}
    aliases = {a.alias.lower() for a in st.find_all(exp.Alias)}
    changed = set()
    for col in list(st.find_all(exp.Column)):
        ident = col.this
        if isinstance(ident, exp.Identifier) and ident.quoted and not col.table:
            if ident.this.lower() not in known and ident.this.lower() not in aliases:
                col.replace(exp.Literal.string(ident.this))
                changed.add("double_quoted_string_literal")
    return changed


def split_tsql_statements(sql):
    """SEDE queries declare variables without semicolons; end each DECLARE /
    SET line with one so that sqlglot parses the query after it."""
    return re.sub(r"(?im)^(\s*(?:DECLARE|SET)\s+@[^\n;]*?)\s*$", r"\1;", sql)


def gold(db, sql):
    """(tables, columns, notes) read by `sql`, qualified against db's schema.
    Raises ParseError / Unresolved when the SQL does not parse or a column or
    table cannot be resolved."""
    try:
        if db.dialect == "tsql":
            sql = split_tsql_statements(sql)
        statements = [s for s in sqlglot.parse(sql, read=db.dialect) if s is not None]
    except (ParseError, SqlglotError) as e:
        raise ParseError(str(e)[:200])
    if not statements:
        raise ParseError("empty")
    schema = db.sqlglot_schema()
    tables, columns, notes = set(), set(), set()
    queries = 0
    for st in statements:
        if isinstance(st, exp.Command):
            raise ParseError("statement sqlglot keeps as an opaque command: " + st.sql()[:60])
        if not st.find(exp.Select):
            continue  # DECLARE / SET without a query
        queries += 1
        if db.dialect == "sqlite":
            notes |= double_quoted_strings(db, st)
        st = lower_identifiers(st)
        try:
            st = qualify(
                st,
                schema=schema,
                dialect=db.dialect,
                expand_stars=False,
                validate_qualify_columns=True,
                quote_identifiers=False,
                identify=False,
            )
        except (OptimizeError, SqlglotError, KeyError, ValueError, AttributeError, TypeError) as e:
            raise Unresolved(str(e)[:200])
        proj = defaultdict(set)  # table -> columns read in a projection
        other = defaultdict(set)  # table -> columns read elsewhere
        for scope in traverse_scope(st):
            select = scope.expression if isinstance(scope.expression, exp.Select) else None
            proj_ids = set()
            aliases = set()
            if select is not None:
                for p in select.expressions:
                    if isinstance(p, exp.Alias):
                        aliases.add(p.alias.lower())
                    for c in p.find_all(exp.Column):
                        proj_ids.add(id(c))
            for name, src in scope.sources.items():
                if isinstance(src, exp.Table):
                    tn = src.name.lower()
                    if tn not in db.tables:
                        raise Unresolved(f"unknown table {src.name}")
                    tables.add(tn)
            for c in scope.columns:
                if isinstance(c.this, exp.Star):
                    continue
                if not c.table:
                    if c.name.lower() in aliases:
                        continue  # ORDER BY an output alias
                    raise Unresolved(f"unqualified column {c.name}")
                s, src = scope, None
                while s is not None and src is None:
                    src = s.sources.get(c.table)
                    s = s.parent
                if src is None:
                    raise Unresolved(f"column {c.sql()} has no source")
                if not isinstance(src, exp.Table):
                    continue  # a derived table's column: its inner scope has the real one
                tn = src.name.lower()
                if c.name.lower() not in db.tables[tn]["columns"]:
                    raise Unresolved(f"unknown column {tn}.{c.name}")
                (proj if id(c) in proj_ids else other)[tn].add(c.name.lower())
        for tn, cols in proj.items():
            allc = set(db.tables[tn]["columns"])
            if len(allc) >= 3 and len(cols) >= ENTITY_LOAD_SHARE * len(allc):
                # (Nearly) every column of the table listed in a projection,
                # as ORM entity loads do (BEAVER's OpenStack queries): the
                # same as `t.*`, which counts no column.
                notes.add("projection_lists_every_column:" + tn)
                cols = set()
            columns.update((tn, c) for c in cols)
        for tn, cols in other.items():
            columns.update((tn, c) for c in cols)
    if queries == 0:
        raise ParseError("no query")
    if not tables:
        raise Unresolved("no table")
    out_tables = sorted(db.tables[t]["name"] for t in tables)
    out_cols = sorted(f"{db.tables[t]['name']}.{db.tables[t]['columns'][c]['name']}" for t, c in columns)
    return out_tables, out_cols, sorted(notes)


# ---------------------------------------------------------------- sources


def kaggledbqa(report):
    dbs, questions = [], []
    tables_json = json.loads(show("kaggledbqa", "KaggleDBQA_tables.json"))
    for spec in tables_json:
        kid = spec["db_id"]
        if kid in KAGGLE_EXCLUDED:
            report["excluded_dbs"][f"kaggle_{kid}"] = KAGGLE_EXCLUDED[kid]
            continue
        db = Db(f"kaggle_{kid}", "kaggledbqa", "sqlite")
        db.meta = {
            "overview": one_line(spec.get("db_overview") or ""),
            "value_enums": spec.get("value_enums"),
            "source_repos": "Chia-Hsuan-Lee/KaggleDBQA (KaggleDBQA_tables.json, examples/)",
        }
        tabs = [db.add_table(n) for n in spec["table_names_original"]]
        idx = {}
        for i, ((ti, cname), ctype, desc) in enumerate(zip(spec["column_names_original"], spec["column_types"], spec["column_descriptions"])):
            if ti < 0:
                continue
            typ = {"text": "TEXT", "number": "NUMERIC", "time": "TIMESTAMP", "boolean": "BOOLEAN", "others": "TEXT"}[ctype]
            Db.add_column(tabs[ti], cname, typ, False, desc or "")
            idx[i] = (tabs[ti], cname)
        for i in spec["primary_keys"]:
            t, c = idx[i]
            t["pk"] = [c]
        # KaggleDBQA lists a key pair as [parent, child] (torrents.id/tags.id,
        # sampledata15.sample_pk/resultsdata15.sample_pk): the child references
        # the parent.
        for a, b in spec["foreign_keys"]:
            pt, pc = idx[a]
            ct, cc = idx[b]
            ct["fks"].append(([cc], pt["name"], [pc]))
            if ct["pk"] == [cc] and pt["pk"] == [pc]:
                ct["pk"] = []  # the child's key column is not unique there
                report["notes"].append(f"{db.name}: {ct['name']}.{cc} published as a primary key and as the child of a key pair; kept only as the foreign key")
        if len(tabs) == 1:
            # The database overview describes its only table.
            tabs[0]["comment"] = db.meta["overview"]
        dbs.append(db)
        raw = json.loads(show("kaggledbqa", f"examples/{kid}.json"))
        for i, e in enumerate(raw):
            questions.append({"id": f"kaggle_{kid}_{i:03d}", "db": db.name, "question": one_line(e["question"]), "sql": e["query"], "source_split": "KaggleDBQA examples"})
    return dbs, questions


SEDE_PARAM = re.compile(r"##[A-Za-z0-9_]+(?::[A-Za-z]+)?(?:\?[^#]*)?##")


def sede(report):
    spec = json.loads(show("sede", "stackexchange_schema/tables_so.json"))[0]
    db = Db("sede_stackexchange", "sede", "tsql")
    db.meta = {
        "source_repos": "hirupert/sede (stackexchange_schema/tables_so.json, data/sede/{val,test}.jsonl)",
        "overview": "Stack Exchange Data Explorer (public Stack Exchange site data)",
        "comments": "none published in the source; keys derived by a naming rule (README)",
    }
    tabs = [db.add_table(n) for n in spec["table_names_original"]]
    for (ti, cname), ctype in zip(spec["column_names_original"], spec["column_types"]):
        if ti < 0:
            continue
        typ = {"text": "TEXT", "number": "INTEGER", "time": "TIMESTAMP", "boolean": "BOOLEAN", "other": "TEXT"}[ctype]
        Db.add_column(tabs[ti], cname, typ)
    # SEDE publishes no keys. Every table here has an `Id`; a column named
    # <X>Id references <X>s.Id / <X>.Id when that table exists, and the
    # user and post columns the SEDE documentation links (OwnerUserId,
    # LastEditorUserId, ParentId, AcceptedAnswerId, ...) by their names.
    names = {t["name"].lower(): t["name"] for t in tabs}
    special = {
        "owneruserid": "Users", "lasteditoruserid": "Users", "creationmoderatorid": "Users",
        "approvalmoderatorid": "Users", "deactivationmoderatorid": "Users", "owneruserid": "Users",
        "parentid": "Posts", "acceptedanswerid": "Posts", "relatedpostid": "Posts", "postid": "Posts",
        "userid": "Users", "tagid": "Tags", "suggestededitid": "SuggestedEdits", "reviewtaskid": "ReviewTasks",
        "excerptpostid": "Posts", "wikipostid": "Posts", "originalquestionid": "Posts",
    }
    for t in tabs:
        if "id" in t["columns"]:
            t["pk"] = [t["columns"]["id"]["name"]]
    for t in tabs:
        for c in t["columns"].values():
            cl = c["name"].lower()
            if cl == "id" or not cl.endswith("id"):
                continue
            target = special.get(cl)
            if target is None:
                stem = cl[:-2]
                for cand in (stem + "s", stem, stem + "es"):
                    if cand in names:
                        target = names[cand]
                        break
            if target and target.lower() in names and target.lower() != t["name"].lower() or (target and cl == "parentid"):
                t["fks"].append(([c["name"]], target, ["Id"]))
    questions = []
    seen = set()
    for part in ("val", "test"):
        for line in show("sede", f"data/sede/{part}.jsonl").splitlines():
            if not line.strip():
                continue
            e = json.loads(line)
            title = one_line(e["Title"])
            key = title.lower()
            if key in seen:
                report["dropped"]["sede_stackexchange"]["duplicate question"] += 1
                continue
            seen.add(key)
            sql = SEDE_PARAM.sub("0", e["QueryBody"])
            questions.append({
                "id": f"sede_{part}_{e['QuerySetId']}",
                "db": db.name,
                "question": title,
                "detail": one_line(e.get("Description") or ""),
                "sql": sql,
                "source_split": f"SEDE {part}",
            })
    return [db], questions


def ehrsql_comments_mimic3(db):
    text = show("mimic_code", "mimic-iii/buildmimic/postgres/postgres_add_comments.sql")
    for m in re.finditer(r"COMMENT ON TABLE\s+(\w+)\s+IS\s+'((?:[^']|'')*)'", text, re.I):
        t = db.tables.get(m.group(1).lower())
        if t:
            t["comment"] = one_line(m.group(2).replace("''", "'"))
    for m in re.finditer(r"COMMENT ON COLUMN\s+(\w+)\.(\w+)\s+IS\s+'((?:[^']|'')*)'", text, re.I):
        c = db.column(m.group(1), m.group(2))
        if c:
            c["comment"] = one_line(m.group(3).replace("''", "'"))


def ehrsql_comments_eicu(db):
    for f in ls("eicu_website", "_eicutables"):
        text = show("eicu_website", f"_eicutables/{f}")
        t = db.tables.get(f[:-3].lower())
        if not t:
            continue
        m = re.search(r"\*\*Purpose:\*\*\s*(.+)", text)
        if m:
            t["comment"] = strip_md(m.group(1))
        for line in text.splitlines():
            cells = [x.strip() for x in line.split("|")]
            if len(cells) >= 4 and cells[0].startswith("`"):
                c = t["columns"].get(cells[0].strip("`").lower())
                if c and cells[3]:
                    c["comment"] = strip_md(cells[3])


def strip_md(s):
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", s)
    s = s.replace("`", "").replace("**", "").replace("\\_", "_")
    return one_line(s)


def first_sentences(text, limit=300):
    text = one_line(strip_md(text))
    out = ""
    for sent in re.split(r"(?<=[.!?])\s+", text):
        if out and len(out) + len(sent) > limit:
            break
        out = (out + " " + sent).strip()
    return out


def ehrsql_comments_mimic4(db):
    for module in ("hosp", "icu"):
        for f in ls("mimic_website", f"content/en/docs/IV/modules/{module}"):
            if not f.endswith(".md") or f.startswith("_"):
                continue
            t = db.tables.get(f[:-3].lower())
            if not t:
                continue
            text = show("mimic_website", f"content/en/docs/IV/modules/{module}/{f}")
            m = re.search(r"^description:\s*>?\s*\n((?:\s+.+\n)+)", text, re.M)
            if m:
                t["comment"] = strip_md(m.group(1))
            # "## `a`, `b`" sections of the detailed description: the first
            # sentences of the paragraph under each.
            parts = re.split(r"^#+\s+(.*)$", text, flags=re.M)
            for head, body in zip(parts[1::2], parts[2::2]):
                names = re.findall(r"`([^`]+)`", head)
                if not names:
                    continue
                para = body.strip().split("\n\n")[0]
                if not para or para.startswith(("Name |", "|")):
                    continue
                desc = first_sentences(para)
                for n in names:
                    c = t["columns"].get(n.replace("\\_", "_").lower())
                    if c and desc and not c["comment"]:
                        c["comment"] = desc


def ehrsql(report):
    dbs, questions = [], []
    for key, folder, sqlfile in (("mimic_iii", "mimic_iii", "mimic_iii.sql"), ("eicu", "eicu", "eicu.sql")):
        db = Db(f"ehrsql_{key}", "ehrsql", "sqlite")
        parse_ddl(db, show("ehrsql", f"dataset/ehrsql/{folder}/{sqlfile}"), "postgres", lower=True)
        if key == "mimic_iii":
            ehrsql_comments_mimic3(db)
            db.meta = {"source_repos": "glee4810/EHRSQL (dataset/ehrsql/mimic_iii), MIT-LCP/mimic-code (postgres_add_comments.sql)",
                       "overview": "MIMIC-III critical care database as restructured by EHRSQL"}
        else:
            ehrsql_comments_eicu(db)
            db.meta = {"source_repos": "glee4810/EHRSQL (dataset/ehrsql/eicu), MIT-LCP/eicu.mit.edu (_eicutables/*.md)",
                       "overview": "eICU Collaborative Research Database as restructured by EHRSQL"}
        dbs.append(db)
        rows = []
        for part in ("valid", "test"):
            for e in json.loads(show("ehrsql", f"dataset/ehrsql/{folder}/{part}.json")):
                e["_part"] = part
                rows.append(e)
        questions += pick_by_template(db, rows, lambda e: e["q_tag"], lambda e: e.get("para_type") == "human" and not e["is_impossible"] and e["query"] not in (None, "", "null"), report, "EHRSQL")
    db = Db("ehrsql_mimic_iv", "ehrsql2024", "sqlite")
    parse_ddl(db, show("ehrsql2024", "data/mimic_iv/mimic_iv.sql"), "postgres", lower=True)
    ehrsql_comments_mimic4(db)
    db.meta = {"source_repos": "glee4810/ehrsql-2024 (data/mimic_iv), MIT-LCP/mimic-website (content/en/docs/IV/modules)",
               "overview": "MIMIC-IV (demo) as restructured by EHRSQL 2024"}
    dbs.append(db)
    rows = []
    for part in ("valid", "test"):
        for e in json.loads(show("ehrsql2024", f"data/mimic_iv/{part}/annotated.json")):
            e["_part"] = part
            rows.append(e)
    questions += pick_by_template(db, rows, lambda e: e["template"], lambda e: e["query"] not in (None, "", "null"), report, "EHRSQL 2024")
    return dbs, questions


def pick_by_template(db, rows, template, usable, report, label):
    """One question per question template (EHRSQL asks each template many
    times with other values): the one with the smallest sha256(id)."""
    by_t = defaultdict(list)
    for e in rows:
        if not usable(e):
            report["not_candidates"][db.name] += 1
            continue
        by_t[template(e)].append(e)
    out = []
    for tmpl in sorted(by_t):
        e = min(by_t[tmpl], key=lambda e: sha(e["id"]))
        out.append({"id": f"{db.name}_{e['id']}", "db": db.name, "question": one_line(e["question"]), "sql": e["query"], "template": tmpl, "source_split": f"{label} {e['_part']}"})
    report["not_candidates"][db.name] += sum(len(v) - 1 for v in by_t.values())
    return out


def beaver(report):
    spec = json.loads(show("beaver", "dev_tables.json"))
    join_keys = json.loads(show("beaver", "dw_join_keys.json"))
    dbs = {}
    for key, t in spec.items():
        dbn = t["db_id"]
        if dbn not in dbs:
            db = Db(f"beaver_{dbn}", "beaver", "mysql")
            db.meta = {"source_repos": "peterbaile/beaver (dev_tables.json, dw_join_keys.json, dev_dw.json, dev_nw.json)",
                       "overview": "BEAVER enterprise database " + dbn,
                       "comments": "none published in the source"}
            dbs[dbn] = db
        db = dbs[dbn]
        tab = db.add_table(t["table_name_original"])
        for c, typ in zip(t["column_names_original"], t["column_types"]):
            Db.add_column(tab, c, typ, "not null" in typ.lower())
        tab["pk"] = [c for c in (t.get("primary_key") or [])]
        for fk in t.get("foreign_key") or []:
            tab["fks"].append(fk)  # normalised below
    # Foreign keys: published as lists; normalise to (cols, table, cols).
    for db in dbs.values():
        for tab in db.tables.values():
            fks, tab["fks"] = tab["fks"], []
            for fk in fks:
                norm = normalise_beaver_fk(fk)
                if norm and norm[1].lower() in db.tables:
                    tab["fks"].append(norm)
                else:
                    report["notes"].append(f"{db.name}.{tab['name']}: foreign key not understood: {fk!r}")
    # DW: no keys are published in dev_tables.json, but dw_join_keys.json
    # lists the join pairs [a, b]; each is declared as a foreign key from a to
    # b in the SQLite DDL (PostgreSQL needs a unique target: see ddl()).
    dw = dbs["dw"]
    loose = []
    seen = set()
    for a, b in join_keys:
        pair = tuple(sorted((a.lower(), b.lower())))
        if pair in seen:
            continue  # listed again, or the other way round
        seen.add(pair)
        (ta, ca), (tb, cb) = a.split("."), b.split(".")
        A, B = dw.tables.get(ta.lower()), dw.tables.get(tb.lower())
        if not A or not B or ca.lower() not in A["columns"] or cb.lower() not in B["columns"]:
            loose.append([a, b])
            continue
        ca, cb = A["columns"][ca.lower()]["name"], B["columns"][cb.lower()]["name"]
        A["fks"].append(([ca], B["name"], [cb]))
    dw.meta["join_keys_not_declared"] = loose
    questions = []
    for f in ("dev_dw.json", "dev_nw.json"):
        for i, e in enumerate(json.loads(show("beaver", f))):
            questions.append({"id": f"beaver_{f[4:6]}_{i:03d}", "db": f"beaver_{e['db_id']}", "question": one_line(e["question"]), "sql": e["sql"], "source_split": f"BEAVER {f}"})
    return list(dbs.values()), questions


def normalise_beaver_fk(fk):
    # Published as {"column_name", "referenced_table_name": "<db>#sep#<table>",
    # "referenced_column_name"}.
    if isinstance(fk, dict) and fk.get("column_name") and fk.get("referenced_table_name"):
        return ([fk["column_name"]], fk["referenced_table_name"].split("#sep#")[-1], [fk["referenced_column_name"]])
    return None


# ---------------------------------------------------------------- main


def main():
    global MIRRORS
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirrors", default=os.environ.get("LORE_MIRRORS", MIRRORS))
    ap.add_argument("--out", default=set_dir())
    args = ap.parse_args()
    MIRRORS = args.mirrors
    report = {
        "sqlglot": sqlglot.__version__,
        "excluded_dbs": {},
        "dropped": defaultdict(Counter),
        "not_candidates": Counter(),
        "capped": {},
        "notes": [],
        "projection_rule_applied": Counter(),
        "double_quoted_strings_read_as_literals": Counter(),
    }
    dbs, questions = [], []
    for fn in (kaggledbqa, sede, ehrsql, beaver):
        d, qs = fn(report)
        dbs += d
        questions += qs
    by_name = {d.name: d for d in dbs}
    kaggle = sorted((d.name[len("kaggle_"):] for d in dbs if d.source == "kaggledbqa"), key=sha)
    assert f"kaggle_{kaggle[0]}" in DEV_DBS and not any(f"kaggle_{k}" in DEV_DBS for k in kaggle[1:]), kaggle
    kept = []
    drop_examples = defaultdict(list)
    for qn in questions:
        db = by_name[qn["db"]]
        try:
            tables, cols, notes = gold(db, qn["sql"])
        except ParseError as e:
            report["dropped"][db.name]["sql does not parse"] += 1
            drop_examples[db.name].append((qn["id"], "parse", str(e)[:120]))
            continue
        except Unresolved as e:
            report["dropped"][db.name]["table or column not resolved"] += 1
            drop_examples[db.name].append((qn["id"], "unresolved", str(e)[:120]))
            continue
        if not qn["question"]:
            report["dropped"][db.name]["empty question"] += 1
            continue
        if any(n.startswith("projection_lists_every_column") for n in notes):
            report["projection_rule_applied"][db.name] += 1
        if "double_quoted_string_literal" in notes:
            report["double_quoted_strings_read_as_literals"][db.name] += 1
        qn = dict(qn)
        qn["gold_tables"] = tables
        qn["gold_columns"] = cols
        if notes:
            qn["gold_notes"] = notes
        qn["split"] = "dev" if db.name in DEV_DBS else "heldout"
        kept.append(qn)
    # Caps: a deterministic sample (smallest sha256 of the id) where a source
    # has far more questions than the others.
    final = []
    per_db = defaultdict(list)
    for qn in kept:
        per_db[qn["db"]].append(qn)
    for name in sorted(per_db):
        items = per_db[name]
        cap = PER_DB_CAP.get(name)
        if cap and len(items) > cap:
            report["capped"][name] = {"valid": len(items), "kept": cap}
            items = sorted(items, key=lambda x: sha(x["id"]))[:cap]
        final += sorted(items, key=lambda x: x["id"])
    order = ["id", "db", "split", "question", "detail", "sql", "gold_tables", "gold_columns", "gold_notes", "template", "source_split"]
    os.makedirs(os.path.join(args.out, "dbs"), exist_ok=True)
    with open(os.path.join(args.out, "questions.jsonl"), "w") as fh:
        for qn in final:
            fh.write(json.dumps({k: qn[k] for k in order if k in qn}, ensure_ascii=False) + "\n")
    counts = Counter((qn["db"], qn["split"]) for qn in final)
    for db in dbs:
        d = os.path.join(args.out, "dbs", db.name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "schema.sql"), "w") as fh:
            fh.write(ddl(db, "sqlite"))
        with open(os.path.join(d, "schema.nocomments.sql"), "w") as fh:
            fh.write(ddl(db, "sqlite", with_comments=False))
        with open(os.path.join(d, "schema.pg.sql"), "w") as fh:
            fh.write(ddl(db, "postgres"))
        comments = OrderedDict()
        for t in db.tables.values():
            entry = OrderedDict([("", t["comment"])])
            for c in t["columns"].values():
                entry[c["name"]] = c["comment"]
            comments[t["name"]] = entry
        with open(os.path.join(d, "comments.json"), "w") as fh:
            json.dump(comments, fh, indent=1, ensure_ascii=False)
            fh.write("\n")
        ncols = sum(len(t["columns"]) for t in db.tables.values())
        meta = OrderedDict(
            db=db.name,
            split="dev" if db.name in DEV_DBS else "heldout",
            source=db.source,
            source_commit=SOURCES[db.source][1],
            licence=LICENCES[db.source],
            sql_dialect=db.dialect,
            tables=len(db.tables),
            columns=ncols,
            tables_with_comment=sum(1 for t in db.tables.values() if t["comment"]),
            columns_with_comment=sum(1 for t in db.tables.values() for c in t["columns"].values() if c["comment"]),
            foreign_keys=sum(len(t["fks"]) for t in db.tables.values()),
            questions=counts[(db.name, "dev")] + counts[(db.name, "heldout")],
        )
        meta.update(db.meta)
        with open(os.path.join(d, "meta.json"), "w") as fh:
            json.dump(meta, fh, indent=1, ensure_ascii=False)
            fh.write("\n")
    report["dropped"] = {k: dict(v) for k, v in report["dropped"].items()}
    report["drop_examples"] = {k: v[:5] for k, v in drop_examples.items()}
    report["kept"] = {db.name: counts[(db.name, "dev")] + counts[(db.name, "heldout")] for db in dbs}
    report["candidates"] = dict(Counter(qn["db"] for qn in questions))
    with open(os.path.join(args.out, "build_report.json"), "w") as fh:
        json.dump(report, fh, indent=1, ensure_ascii=False, default=dict)
        fh.write("\n")
    total = Counter(qn["split"] for qn in final)
    print(f"{len(final)} questions ({dict(total)}) over {len(dbs)} databases, written to {args.out}")
    for db in dbs:
        n = report["kept"][db.name]
        print(f"  {db.name:32} {'dev' if db.name in DEV_DBS else 'heldout':8} kept {n:4} of {report['candidates'].get(db.name, 0):4}  dropped {report['dropped'].get(db.name, {})}")


if __name__ == "__main__":
    sys.exit(main())
