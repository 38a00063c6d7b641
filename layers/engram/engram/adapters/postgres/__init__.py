"""The PostgreSQL stores and the schema they share (``schema.sql``, applied by ``engram.migrate``); the
key store keeps wrapped data keys here and unwraps them with KMS."""
