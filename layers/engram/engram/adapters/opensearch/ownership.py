"""Ownership, checked inside OpenSearch as well as by the id scheme: a scripted update or
redaction applies only to a document whose tenant and user are the caller's."""

from __future__ import annotations

from ...domain.model import Scope

# An update applies only to the owner's document. Document ids are per owner already; the check
# stays as a second guard (a document written under another id scheme, a hash collision).
OWNED_UPDATE = ("if (ctx._source.tenant == params.tenant && ctx._source.user_id == params.user_id) "
                 "{ ctx._source.putAll(params.doc) } else { ctx.op = 'none' }")


# A redaction: the owner's document takes the blanks and loses its vector; one that has neither
# anything to blank nor a vector is not rewritten (a "noop"), so a retry counts nothing.
OWNED_REDACTION = """
boolean changed = false;
if (ctx._source.tenant == params.tenant && ctx._source.user_id == params.user_id) {
  changed = ctx._source.remove('vector') != null;
  for (entry in params.blanks.entrySet()) {
    if (ctx._source[entry.getKey()] != entry.getValue()) {
      ctx._source[entry.getKey()] = entry.getValue();
      changed = true;
    }
  }
}
if (!changed) { ctx.op = 'none' }
"""


def owned_by(doc: dict, scope: Scope) -> bool:
    return doc.get("tenant") == scope.tenant and doc.get("user_id") == scope.user_id


def owned_update(scope: Scope, fields: dict) -> dict:
    return {"script": {"source": OWNED_UPDATE, "lang": "painless",
                       "params": {"tenant": scope.tenant, "user_id": scope.user_id, "doc": fields}}}
