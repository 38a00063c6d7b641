"""One API URL across restarts and redeploys.

LocalStack keeps no state across `down`/`up`, so every new stack would get a new REST API id, and
with it a new URL, breaking every configured agent, MCP host and client. LocalStack gives a REST
API the id of its ``_custom_id_`` tag, so the id is made once, kept in the run dir (like the KMS
key's), and set on the API at deploy: SAM puts the Serverless::Api's tags on the RestApi it
generates when PropagateTags is on. This is done to the packaged template only, so AWS never sees
the tag. A stack that already runs keeps its id: the first deploy with this module adopts it.
"""

from __future__ import annotations

import secrets
import string

from botocore.exceptions import ClientError

from .common import RUN_DIR, log

API_ID_FILE = RUN_DIR / "api_id"
API_RESOURCE = "EngramApi"
_ALPHABET = string.ascii_lowercase + string.digits  # API Gateway's ids: 10 lowercase letters and digits


def _deployed_api_id(cfn, stack_name: str) -> str | None:
    try:
        outputs = cfn.describe_stacks(StackName=stack_name)["Stacks"][0].get("Outputs", [])
    except ClientError:
        return None
    return next((o["OutputValue"] for o in outputs if o["OutputKey"] == "ApiId"), None)


def pinned_api_id(cfn, stack_name: str) -> str:
    """The REST API id this machine keeps: made once (or taken from the running stack) and kept."""
    if API_ID_FILE.exists():
        return API_ID_FILE.read_text().strip()
    api_id = _deployed_api_id(cfn, stack_name) or "".join(secrets.choice(_ALPHABET) for _ in range(10))
    API_ID_FILE.parent.mkdir(parents=True, exist_ok=True)
    API_ID_FILE.write_text(api_id)
    return api_id


def may_pin(cfn, apigateway, stack_name: str, creating: bool) -> bool:
    """Whether this deploy's template may carry the id tag: when it creates the stack (the API is
    made now, with its id), or when the running API already has the tag. Not otherwise: SAM puts
    the tag on the API's stage too, and LocalStack cannot update a stage: it creates it again,
    which fails ("Stage already exists"), and the rollback deletes the stage."""
    if creating:
        return True
    deployed = _deployed_api_id(cfn, stack_name)
    try:
        return bool(deployed) and "_custom_id_" in apigateway.get_rest_api(restApiId=deployed).get("tags", {})
    except ClientError:
        return False


def pin_api_id(template: dict, api_id: str) -> dict:
    """The packaged template with the API's id fixed (LocalStack only)."""
    props = template["Resources"][API_RESOURCE].setdefault("Properties", {})
    props["Tags"] = {**props.get("Tags", {}), "_custom_id_": api_id}
    props["PropagateTags"] = True
    return template


def api_url(endpoint: str, api_id: str, stage: str) -> str:
    return f"{endpoint}/restapis/{api_id}/{stage}/_user_request_"


def check_deployed(api_id: str, deployed: str, pinned: bool) -> None:
    if deployed != api_id:
        log(f"deploy: the REST API is {deployed}, not the pinned {api_id} ({API_ID_FILE}); it becomes "
            f"{api_id} when the stack is next created (down, then up)")
    elif not pinned:
        log(f"deploy: the REST API {api_id} was made before ids were pinned; it keeps {api_id} when the "
            f"stack is next created (down, then up)")
