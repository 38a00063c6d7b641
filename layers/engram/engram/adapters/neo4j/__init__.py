"""The Neo4j store: the profile graph (``profile_graph``)."""
