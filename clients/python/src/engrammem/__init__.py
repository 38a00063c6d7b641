"""Python client for Engram, user memory for AI agents.

    from engrammem import Engram
    engram = Engram()   # ENGRAM_API_URL, ENGRAM_API_KEY
    engram.ingest("alice", "I adopted a grey cat called Pixel.")
    print(engram.recall("alice", "What is my cat called?").context_block)
"""

from . import models
from .client import AsyncEngram, Engram
from .core import RetryPolicy
from .errors import EngramAPIError, EngramError, EngramTransportError

__all__ = ["AsyncEngram", "Engram", "EngramAPIError", "EngramError", "EngramTransportError", "RetryPolicy", "models"]
__version__ = "0.1.0"
