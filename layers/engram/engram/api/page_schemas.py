"""Request and response models of the memory page (``api.memory_page``): its link, and the forms
the page posts, each carrying the link's token in its body."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictInt, StringConstraints

from ..domain.limits import MAX_OBJECT_CHARS
from .schemas import Id, _Body, _Out, text


class PageLinkBody(_Body):
    ttl_s: StrictInt | None = Field(None, description="how long the link works, 60 s up to ENGRAM_PAGE_LINK_TTL_S "
                                                       "(the default)")


class PageLinkResponse(_Out):
    url: str = Field(description="the page, on the API's base URL: hand it to the user")
    path: str = Field(description="the same, relative to the API's base URL")
    token: str
    expires_at: str


PageToken = text(4096) | None
PageLang = Literal["en", "zh"] | None
RequestId = Annotated[str, StringConstraints(strict=True, pattern=r"^[A-Za-z0-9_-]{1,64}$")] | None


class PageExportForm(_Body):
    """A form of the memory page: its link's token travels in the body, never in a cookie."""

    token: PageToken = None
    lang: PageLang = None


class PageDeletionForm(PageExportForm):
    item_id: Id
    request_id: RequestId = Field(None, description="one per rendered form: a resubmission replays the first result")


class PageCorrectionForm(PageDeletionForm):
    object: text(MAX_OBJECT_CHARS, 1)
