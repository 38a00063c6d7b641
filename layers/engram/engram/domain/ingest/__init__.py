"""Ingestion's rules: make a turn safe and uniform (``sanitise``), tag what is uncertain and pin down
when things happened (``tagging``, over ``relative_time``)."""
