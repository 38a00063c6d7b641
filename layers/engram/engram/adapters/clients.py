"""Every network client of the process, created on first use and then shared.

``Clients`` owns the connection pools (psycopg pool, Redis pool, Neo4j's Bolt pool, urllib3's
pool inside opensearch-py, boto3 clients). Nothing connects at import or at construction: a cold
Lambda pays for a connection only when a request needs that store. The composition root
(``engram.bootstrap``) makes one ``Clients`` per process and hands it to every adapter.

Store credentials: with ``ENGRAM_POSTGRES_SECRET_ARN`` / ``ENGRAM_NEO4J_SECRET_ARN`` set (as the
template sets them), the login comes from Secrets Manager, fetched when the pool is first made
(once per process, never at import or construction); without them, from the plain settings
(local development). A rotated secret reaches a process when it next starts.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import boto3
import orjson
import psycopg
import redis
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError
from opensearchpy import OpenSearch
from opensearchpy.exceptions import SerializationError
from opensearchpy.serializer import JSONSerializer
from psycopg.conninfo import make_conninfo
from psycopg_pool import ConnectionPool, PoolTimeout

from ..config import Settings
from ..errors import StoreUnavailable

if TYPE_CHECKING:
    import neo4j

T = TypeVar("T")


class FastJsonSerializer(JSONSerializer):
    """opensearch-py's JSON serializer on orjson. A write request carries each event's 384-float
    vector (a k-NN check and a bulk write: twice per event), which the standard library takes
    ~0.17 ms per vector to format; orjson ~0.01 ms, with the same JSON out (numpy types and
    dates as the standard serializer writes them)."""

    def dumps(self, data: Any) -> Any:
        if isinstance(data, str):
            return data
        try:
            return orjson.dumps(data, default=self.default, option=orjson.OPT_SERIALIZE_NUMPY).decode()
        except (TypeError, orjson.JSONEncodeError) as exc:
            raise SerializationError(data, exc) from exc

    def loads(self, s: str) -> Any:
        try:
            return orjson.loads(s)
        except orjson.JSONDecodeError as exc:
            raise SerializationError(s, exc) from exc

# The keys of an RDS-style secret that go into a libpq conninfo, and what libpq calls them.
_PG_SECRET_KEYS = {"username": "user", "password": "password", "host": "host", "port": "port", "dbname": "dbname"}


def postgres_conninfo(dsn: str, secret: dict | None) -> str:
    """``dsn`` with what ``secret`` says (login, and host/port/dbname when it has them) in place."""
    if not secret:
        return dsn
    return make_conninfo(dsn, **{key: str(secret[name]) for name, key in _PG_SECRET_KEYS.items()
                                 if secret.get(name) not in (None, "")})


class Clients:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._made: dict[str, Any] = {}
        # Reentrant: making a pool makes what it needs first (its secret, that secret's boto3 client).
        self._lock = threading.RLock()

    def _once(self, name: str, make: Callable[[], T]) -> T:
        made = self._made.get(name)
        if made is None:
            with self._lock:
                made = self._made.get(name)
                if made is None:
                    made = self._made[name] = make()
        return made

    # -- credentials --------------------------------------------------------------------------

    def secret(self, arn: str) -> dict:
        """The JSON of a Secrets Manager secret, fetched once per process; a failure is not kept
        (the next connect asks again) and names the secret, never its value."""
        def make() -> dict:
            try:
                value = self.aws("secretsmanager").get_secret_value(SecretId=arn)["SecretString"]
            except (BotoCoreError, ClientError) as exc:
                raise StoreUnavailable(f"secret {arn}: {exc}") from exc
            try:
                parsed = json.loads(value)
            except ValueError:
                parsed = None
            if not isinstance(parsed, dict):
                raise StoreUnavailable(f"secret {arn}: not a JSON object")
            return parsed
        return self._once(f"secret:{arn}", make)

    def postgres_conninfo(self) -> str:
        """The runtime's conninfo: ENGRAM_POSTGRES_DSN, its login from the secret when there is one."""
        arn = self.settings.postgres_secret_arn
        return postgres_conninfo(self.settings.postgres_dsn, self.secret(arn) if arn else None)

    def neo4j_auth(self) -> tuple[str, str]:
        arn = self.settings.neo4j_secret_arn
        if not arn:
            return self.settings.neo4j_user, self.settings.neo4j_password
        secret = self.secret(arn)
        if not secret.get("password"):
            raise StoreUnavailable(f"secret {arn}: no password")
        return str(secret.get("username") or self.settings.neo4j_user), str(secret["password"])

    # -- PostgreSQL / TimescaleDB -----------------------------------------------------------

    @property
    def pg_pool(self) -> ConnectionPool:
        def make() -> ConnectionPool:
            # min_size=0: a cold Lambda pays for one connection only when it needs one.
            pool = ConnectionPool(self.postgres_conninfo(), min_size=0, max_size=self.settings.postgres_pool_max,
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
        def make() -> neo4j.Driver:
            # Imported with the driver, not with this module: it takes a tenth of a second (it
            # loads pyarrow too), and a request that writes no fact never needs it.
            import neo4j

            return neo4j.GraphDatabase.driver(
                self.settings.neo4j_uri, auth=self.neo4j_auth(),
                max_connection_pool_size=self.settings.neo4j_pool_max, connection_timeout=3,
                # Optional properties (sealed, counter_evidence) are absent on most edges by design.
                notifications_min_severity="OFF",
                # Retrying a dead server for the default 30 s would hold a request thread hostage; the
                # caller (recall's breaker, the client's retry of an ingest) decides what happens next.
                max_transaction_retry_time=2.0)
        return self._once("neo4j", make)

    @property
    def opensearch(self) -> OpenSearch:
        return self._once("opensearch", lambda: OpenSearch(
            hosts=[self.settings.opensearch_url], timeout=5, max_retries=1, pool_maxsize=8,
            serializer=FastJsonSerializer()))

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
