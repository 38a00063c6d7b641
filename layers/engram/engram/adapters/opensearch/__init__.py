"""The OpenSearch stores: episodic events (``episode_store``) in the index ``episode_index`` lays out."""
