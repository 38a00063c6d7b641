"""The local API's one URL (local/stackctl/stable_url.py) and the template's wiring of the memory
page links' secret: no server involved."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from local.stackctl import stable_url
from local.stackctl.deploy import load_template


class Cfn:
    def __init__(self, api_id: str | None) -> None:
        self.api_id = api_id

    def describe_stacks(self, StackName):  # noqa: N803 - boto3's name
        if self.api_id is None:
            raise ClientError({"Error": {"Code": "ValidationError", "Message": "does not exist"}}, "DescribeStacks")
        return {"Stacks": [{"Outputs": [{"OutputKey": "ApiId", "OutputValue": self.api_id}]}]}


class ApiGateway:
    def __init__(self, tags: dict) -> None:
        self.tags = tags

    def get_rest_api(self, restApiId):  # noqa: N803
        return {"id": restApiId, "tags": self.tags}


@pytest.fixture
def id_file(tmp_path, monkeypatch):
    path = tmp_path / "api_id"
    monkeypatch.setattr(stable_url, "API_ID_FILE", path)
    return path


def test_the_id_is_made_once_and_kept(id_file):
    made = stable_url.pinned_api_id(Cfn(None), "engram-local")
    assert len(made) == 10 and made.islower() and made.isalnum() and id_file.read_text() == made
    assert stable_url.pinned_api_id(Cfn("otherid123"), "engram-local") == made


def test_a_running_stacks_id_is_adopted(id_file):
    assert stable_url.pinned_api_id(Cfn("1o0gb720uu"), "engram-local") == "1o0gb720uu"
    assert id_file.read_text() == "1o0gb720uu"


def test_the_tag_goes_on_the_packaged_api_only_when_it_is_safe():
    template = stable_url.pin_api_id(load_template(), "abc123defg")
    props = template["Resources"]["EngramApi"]["Properties"]
    assert props["Tags"] == {"_custom_id_": "abc123defg"} and props["PropagateTags"] is True
    assert "Tags" not in load_template()["Resources"]["EngramApi"]["Properties"]  # AWS never sees it
    assert stable_url.may_pin(Cfn(None), ApiGateway({}), "s", creating=True)
    assert stable_url.may_pin(Cfn("abc"), ApiGateway({"_custom_id_": "abc"}), "s", creating=False)
    # A running API made without the tag keeps its stage untouched (LocalStack cannot update one).
    assert not stable_url.may_pin(Cfn("abc"), ApiGateway({}), "s", creating=False)


def test_only_the_api_reads_the_page_link_secret():
    template = load_template()
    resources = template["Resources"]
    assert "PublicApiUrl" in template["Parameters"]
    readers = [name for name, r in resources.items() if r["Type"] == "AWS::Serverless::Function"
               and {"Ref": "PageLinkSecretAccess"} in r["Properties"].get("Policies", [])]
    assert readers == ["ApiFunction"]
    env = resources["ApiFunction"]["Properties"]["Environment"]["Variables"]
    assert env["ENGRAM_PAGE_LINK_SECRET_ARN"] == {"Ref": "PageLinkSecret"}
    statement = resources["PageLinkSecretAccess"]["Properties"]["PolicyDocument"]["Statement"]
    assert statement == [{"Effect": "Allow", "Action": ["secretsmanager:GetSecretValue"],
                          "Resource": {"Ref": "PageLinkSecret"}}]
