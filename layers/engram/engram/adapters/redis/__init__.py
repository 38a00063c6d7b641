"""The Redis store: working memory of a device's session (``session_store``)."""
