"""Recall's rules: reading a question (``cues``, ``query``), lexical relevance (``lexical``), fusing
what each layer recalled (``fusion``) and what a recall reports to monitoring (``metrics``)."""
