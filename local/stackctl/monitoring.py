"""The alarms and dashboard of ``template.yaml`` on LocalStack.

They need LocalStack's CloudWatch, which joined ``services/localstack.py``'s SERVICES with them. A
LocalStack started before that still serves the app but refuses every CloudWatch call ("Service
'cloudwatch' is not enabled"), which would fail the whole stack; so its deploy leaves the
``AWS::CloudWatch::*`` resources out and says so, and the next start of LocalStack brings them
(``local/stack down && local/stack up``). AWS always gets them: this touches the packaged
template only. (LocalStack community itself skips ``AWS::CloudWatch::Dashboard``: it has no
resource provider for it.)
"""

from __future__ import annotations

CLOUDWATCH = "AWS::CloudWatch::"


def serves_cloudwatch(health: dict) -> bool:
    """Whether the running LocalStack (its ``health()``) answers CloudWatch calls."""
    return health.get("services", {}).get("cloudwatch") in ("available", "running")


def without_cloudwatch(template: dict) -> tuple[dict, list[str]]:
    """The packaged template without its CloudWatch resources, and their logical ids."""
    resources = template.get("Resources", {})
    dropped = sorted(name for name, r in resources.items() if str(r.get("Type", "")).startswith(CLOUDWATCH))
    kept = {name: r for name, r in resources.items() if name not in dropped}
    return {**template, "Resources": kept}, dropped
