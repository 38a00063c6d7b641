"""OpenSearch client (urllib3 connection pool)."""

from __future__ import annotations

from functools import cache

from opensearchpy import OpenSearch

from ..config import get_settings


@cache
def opensearch_client() -> OpenSearch:
    settings = get_settings()
    return OpenSearch(hosts=[settings.opensearch_url], timeout=5, max_retries=1, pool_maxsize=8)


def ping() -> None:
    opensearch_client().cluster.health(request_timeout=get_settings().health_timeout_s)
