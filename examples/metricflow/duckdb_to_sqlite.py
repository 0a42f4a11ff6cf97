"""Copy the tables of a DuckDB file into a SQLite file, for Lore's SQLite
connection (until Lore reads DuckDB itself).

    python duckdb_to_sqlite.py mf_tutorial.duckdb shop.db [schema]

Needs the `duckdb` package (dbt-duckdb installs it). Every table and view
of the schema (default: every schema but the catalog's own) becomes a
SQLite table of the same name and column types; dates and times are
written as ISO text, decimals as floating point numbers.
"""

import datetime
import decimal
import sqlite3
import sys

import duckdb


def value(v):
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, (datetime.date, datetime.datetime, datetime.time)):
        return v.isoformat(sep=" ") if isinstance(v, datetime.datetime) else v.isoformat()
    return v


def declared(duck_type):
    """The column's type as SQLite is told it (its affinity and, for
    dates and times, the name Lore's scan reads as time)."""
    name = str(duck_type).upper()
    if name.startswith("DECIMAL") or name in ("DOUBLE", "FLOAT", "REAL"):
        return "REAL"
    if name.endswith("INT") or name in ("INTEGER", "BIGINT", "SMALLINT", "TINYINT", "HUGEINT"):
        return "INTEGER"
    if name.startswith("TIMESTAMP"):
        return "TIMESTAMP"
    if name in ("DATE", "TIME", "BOOLEAN"):
        return name
    return "TEXT"


def main(source, target, schema=None):
    src = duckdb.connect(source, read_only=True)
    dst = sqlite3.connect(target)
    tables = src.execute(
        "SELECT table_schema, table_name FROM information_schema.tables "
        "WHERE table_schema NOT IN ('information_schema', 'pg_catalog') "
        "AND (? IS NULL OR table_schema = ?) ORDER BY 1, 2",
        [schema, schema],
    ).fetchall()
    seen = set()
    for table_schema, table in tables:
        if table in seen:
            sys.exit(f"table {table} is in more than one schema; name one schema")
        seen.add(table)
        cursor = src.execute(f'SELECT * FROM "{table_schema}"."{table}"')
        columns = [d[0] for d in cursor.description]
        types = [declared(d[1]) for d in cursor.description]
        rows = [tuple(value(v) for v in row) for row in cursor.fetchall()]
        dst.execute(f'DROP TABLE IF EXISTS "{table}"')
        spec = ", ".join(f'"{c}" {t}' for c, t in zip(columns, types))
        dst.execute(f'CREATE TABLE "{table}" ({spec})')
        marks = ", ".join("?" for _ in columns)
        dst.executemany(f'INSERT INTO "{table}" VALUES ({marks})', rows)
        print(f"{table_schema}.{table}: {len(rows)} rows")
    dst.commit()


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(*sys.argv[1:])
