"""Redis client with its connection pool."""

from __future__ import annotations

from functools import cache

import redis

from ..config import get_settings


@cache
def redis_client() -> redis.Redis:
    settings = get_settings()
    return redis.Redis.from_url(settings.redis_url, decode_responses=True, socket_timeout=2,
                                socket_connect_timeout=2, health_check_interval=30)


def ping() -> None:
    redis_client().ping()
