"""Where a string is still readable: every store scanned raw, the way an operator with database
access (or a stolen backup) would read it, not through the service's own ports.

Each function returns where it found ``token`` (empty when it is nowhere). Ciphertext does not
count: an ``eg1:`` token is base64 of AES-GCM output and cannot contain the plaintext.
"""

from __future__ import annotations

import io
import json

import pyarrow.parquet as pq
from psycopg import sql


def redis_hits(redis, token: str) -> list[str]:
    """Every key whose name or value (any type) contains ``token``."""
    hits, keys = [], list(redis.scan_iter(count=1000))
    for start in range(0, len(keys), 500):
        batch = keys[start:start + 500]
        with redis.pipeline(transaction=False) as pipe:
            for key in batch:
                pipe.type(key)
            types = pipe.execute()
        with redis.pipeline(transaction=False) as pipe:
            for key, kind in zip(batch, types, strict=True):
                {"string": lambda k: pipe.get(k), "hash": lambda k: pipe.hgetall(k),
                 "zset": lambda k: pipe.zrange(k, 0, -1), "list": lambda k: pipe.lrange(k, 0, -1),
                 "set": lambda k: pipe.smembers(k), "stream": lambda k: pipe.xrange(k)}.get(
                    kind, lambda k: pipe.exists(k))(key)
            values = pipe.execute()
        hits += [k for k, v in zip(batch, values, strict=True) if token in k or token in json.dumps(v, default=str)]
    return hits


def postgres_hits(conn, token: str) -> dict[str, int]:
    """Rows of every table of the schema whose text form contains ``token`` (hypertables
    include their chunks)."""
    tables = [r[0] for r in conn.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename").fetchall()]
    found = {}
    for table in tables:
        n = conn.execute(sql.SQL("SELECT count(*) FROM {} AS r WHERE r::text LIKE %s").format(sql.Identifier(table)),
                         (f"%{token}%",)).fetchone()[0]
        if n:
            found[table] = n
    return found


def opensearch_hits(client, token: str) -> list[str]:
    """Documents of every index holding ``token`` in any field (analysed text or keyword)."""
    body = {"size": 50, "_source": False, "query": {"bool": {"should": [
        {"multi_match": {"query": token, "fields": ["*"], "lenient": True}},
        {"query_string": {"query": f"*{token}*", "fields": ["*"], "lenient": True, "analyze_wildcard": True}}]}}}
    hits = client.search(index="*,-.*", body=body)["hits"]["hits"]
    return [f"{h['_index']}/{h['_id']}" for h in hits]


def neo4j_hits(driver, token: str) -> list[str]:
    """Nodes and relationships with a property value containing ``token``."""
    found = []
    for what, query in (("node", "MATCH (n) RETURN elementId(n) AS id, labels(n) AS kind, properties(n) AS p"),
                        ("relationship", "MATCH ()-[r]->() RETURN elementId(r) AS id, type(r) AS kind, "
                                         "properties(r) AS p")):
        records, _, _ = driver.execute_query(query)
        found += [f"{what} {r['kind']} {r['id']}" for r in records if token in json.dumps(r["p"], default=str)]
    return found


def s3_hits(s3, bucket: str, token: str, prefixes: list[str]) -> list[str]:
    """Every version of every object under ``prefixes``: Parquet read column by column (its pages
    are compressed, so the raw bytes prove nothing), anything else as bytes."""
    found = []
    for prefix in prefixes:
        for page in s3.get_paginator("list_object_versions").paginate(Bucket=bucket, Prefix=prefix):
            for version in page.get("Versions", []):
                body = s3.get_object(Bucket=bucket, Key=version["Key"], VersionId=version["VersionId"])["Body"].read()
                if version["Key"].endswith(".parquet"):
                    table = pq.read_table(io.BytesIO(body))
                    columns = [name for name in table.column_names
                               if token in json.dumps(table.column(name).to_pylist(), default=str)]
                    found += [f"{version['Key']}@{version['VersionId']}:{c}" for c in columns]
                elif token.encode() in body:
                    found.append(f"{version['Key']}@{version['VersionId']}")
    return found
