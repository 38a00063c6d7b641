"""Privacy's rules: consent and child mode (``consent``), envelope encryption (``crypto``), what a
sealed event is still found by (``blind_index``) and signed memory page links (``page_links``)."""
