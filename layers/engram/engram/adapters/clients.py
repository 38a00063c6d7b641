"""Every network client of the process, created on first use and then shared.

``Clients`` owns the connection pools (psycopg pool, Redis pool, Neo4j's Bolt pool, urllib3's
pool inside opensearch-py, boto3 clients). Nothing connects at import or at construction: a cold
Lambda pays for a connection only when a request needs that store. The composition root
(``engram.bootstrap``) makes one ``Clients`` per process and hands it to every adapter.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import boto3
import neo4j
import psycopg
import redis
from botocore.config import Config
from opensearchpy import OpenSearch
from psycopg_pool import ConnectionPool, PoolTimeout

from ..config import Settings
from ..errors import StoreUnavailable

T = TypeVar("T")


class Clients:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._made: dict[str, Any] = {}
        self._lock = threading.Lock()

    def _once(self, name: str, make: Callable[[], T]) -> T:
        made = self._made.get(name)
        if made is None:
            with self._lock:
                made = self._made.get(name)
                if made is None:
                    made = self._made[name] = make()
        return made

    # -- PostgreSQL / TimescaleDB -----------------------------------------------------------

    @property
    def pg_pool(self) -> ConnectionPool:
        def make() -> ConnectionPool:
            # min_size=0: a cold Lambda pays for one connection only when it needs one.
            pool = ConnectionPool(self.settings.postgres_dsn, min_size=0, max_size=self.settings.postgres_pool_max,
                                  max_idle=self.settings.postgres_pool_max_idle_s,
                                  kwargs={"autocommit": True, "connect_timeout": 3}, open=False, timeout=5)
            pool.open(wait=False)
            return pool
        return self._once("pg", make)

    @contextmanager
    def pg(self, timeout: float | None = None) -> Iterator[psycopg.Connection]:
        """A pooled autocommit connection; a dead server is ``StoreUnavailable``."""
        try:
            with self.pg_pool.connection(timeout=timeout) as conn:
                yield conn
        except (psycopg.OperationalError, PoolTimeout) as exc:
            raise StoreUnavailable(f"postgres: {exc}") from exc

    # -- Redis, Neo4j, OpenSearch -----------------------------------------------------------

    @property
    def redis(self) -> redis.Redis:
        return self._once("redis", lambda: redis.Redis.from_url(
            self.settings.redis_url, decode_responses=True, socket_timeout=2, socket_connect_timeout=2,
            health_check_interval=30))

    @property
    def neo4j(self) -> neo4j.Driver:
        return self._once("neo4j", lambda: neo4j.GraphDatabase.driver(
            self.settings.neo4j_uri, auth=(self.settings.neo4j_user, self.settings.neo4j_password),
            max_connection_pool_size=self.settings.neo4j_pool_max, connection_timeout=3,
            # Optional properties (sealed, counter_evidence) are absent on most edges by design.
            notifications_min_severity="OFF",
            # Retrying a dead server for the default 30 s would hold a request thread hostage; the
            # caller (recall's breaker, the client's retry of an ingest) decides what happens next.
            max_transaction_retry_time=2.0))

    @property
    def opensearch(self) -> OpenSearch:
        return self._once("opensearch", lambda: OpenSearch(
            hosts=[self.settings.opensearch_url], timeout=5, max_retries=1, pool_maxsize=8))

    # -- AWS --------------------------------------------------------------------------------

    def aws(self, service: str, **config: Any):
        """One boto3 client per service, pointed at LocalStack when ``AWS_ENDPOINT_URL`` says so."""
        def make():
            return boto3.client(service, region_name=self.settings.aws_region,
                                endpoint_url=self.settings.aws_endpoint_url,
                                config=Config(retries={"mode": "standard", "max_attempts": 3}, connect_timeout=2,
                                              read_timeout=10, **config))
        return self._once(f"aws:{service}:{sorted(config.items())}", make)

    # -- health -----------------------------------------------------------------------------

    def probes(self) -> dict[str, Callable[[], None]]:
        timeout = self.settings.health_timeout_s

        def postgres() -> None:
            with self.pg_pool.connection(timeout=timeout) as conn:
                conn.execute("SELECT 1")

        return {
            "redis": lambda: self.redis.ping(),
            "postgres": postgres,
            "neo4j": lambda: self.neo4j.verify_connectivity(),
            "opensearch": lambda: self.opensearch.cluster.health(request_timeout=timeout),
            "s3": lambda: self.aws("s3").head_bucket(Bucket=self.settings.archive_bucket),
        }
