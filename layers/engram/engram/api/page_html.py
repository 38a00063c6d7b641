"""The memory page as HTML: one self-contained document, no script, no external asset, every value
escaped (memories are what users and others said: attacker-controlled text). English and Chinese.

The only inline content is the style sheet, allowed by its hash in the Content-Security-Policy.
Forms post back to the page's own address (relative URLs, so the API's base path does not matter)
with the link's token in the body, never in a cookie.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from html import escape, unescape
from urllib.parse import urlencode

from ..domain.limits import MAX_OBJECT_CHARS

LANGS = ("en", "zh")
CSS = (
    "body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1a1a1a;background:#fafafa}"
    "main{max-width:46rem;margin:0 auto;padding:1rem}"
    "h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem}h3{font-size:1.05rem;margin:0 0 .5rem}"
    "ul.items{list-style:none;padding:0}"
    "li.item{background:#fff;border:1px solid #ccc;border-radius:6px;padding:1rem;margin:0 0 1rem}"
    "dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0 0 .75rem}"
    "dt{font-weight:600}dd{margin:0}"
    ".confirm{display:inline-block;background:#fff3cd;color:#5c4400;border:1px solid #d9b200;border-radius:4px;"
    "padding:0 .4rem;margin-left:.5rem;font-size:.9rem}"
    ".notice{background:#e7f4e8;border:1px solid #3c8d40;border-radius:6px;padding:.5rem 1rem}"
    "form{margin:.5rem 0}input[type=text]{font:inherit;padding:.3rem;width:min(24rem,100%)}"
    "button{font:inherit;padding:.3rem .8rem;cursor:pointer}"
    "button.danger{background:#b00020;color:#fff;border:1px solid #7a0016}"
    ":focus-visible{outline:3px solid #1a5fb4;outline-offset:2px}"
    "q{font-style:italic}.muted{color:#555}nav{float:right}"
)
CSS_HASH = "sha256-" + base64.b64encode(hashlib.sha256(CSS.encode()).digest()).decode()
CONTENT_SECURITY_POLICY = (f"default-src 'none'; style-src '{CSS_HASH}'; img-src 'none'; form-action 'self'; "
                           "frame-ancestors 'none'; base-uri 'none'")

# Each label in both languages side by side (English, Chinese), so a label is never added to one only.
_TEXTS = {
    "title": ("What your assistant remembers about you", "你的助手记得关于你的什么"),
    "intro": ("This page lists what is believed about you. You can correct or delete any item, and download "
              "everything that is kept. This link works until {expires}.",
              "本页列出关于你的已知信息。你可以更正或删除任何一项，并下载保存的全部数据。此链接有效期至 {expires}。"),
    "believed": ("What is believed", "已知信息"),
    "none": ("Nothing is believed about you yet.", "目前还没有关于你的信息。"),
    "confidence": ("Confidence", "可信度"),
    "needs_confirmation": ("needs confirmation", "需要确认"),
    "source": ("Source", "来源"),
    "since": ("Since", "起始时间"),
    "from": ("From what was said", "出自以下对话"),
    "no_messages": ("(the words are no longer kept)", "（原话已不再保存）"),
    "correct_label": ("Correct it to", "更正为"),
    "save": ("Save correction", "保存更正"),
    "confirm": ("Yes, this is right", "是的，这是对的"),
    "delete": ("Delete…", "删除…"),
    "delete_confirm": ("Delete this memory", "删除这条记忆"),
    "your_data": ("Your data", "你的数据"),
    "export": ("Download everything (JSON)", "下载全部数据（JSON）"),
    "export_ready": ("Your export is ready", "导出已准备好"),
    "export_link": ("Download the export", "下载导出文件"),
    "corrected": ("Your correction is saved.", "更正已保存。"),
    "deleted": ("The memory is deleted.", "该记忆已删除。"),
    "other_lang": ("中文", "English"),
    "you": ("you", "你"),
    "assistant": ("assistant", "助手"),
}
_SOURCES = {
    "user": ("you said it", "你亲口说的"),
    "rule": ("read from what you said", "从你的话中读取"),
    "llm": ("inferred by a model", "由模型推断"),
    "system": ("another system", "其他系统"),
    "human": ("corrected by a person", "由人工更正"),
}
LABELS = {lang: {**{key: texts[i] for key, texts in _TEXTS.items()},
                  "sources": {key: texts[i] for key, texts in _SOURCES.items()}}
          for i, lang in enumerate(("en", "zh"))}


PREDICATES_ZH = {
    "has_name": "名字", "has_age": "年龄", "has_preference": "喜欢", "dislikes": "不喜欢", "allergic_to": "过敏",
    "has_condition": "健康状况", "has_child": "孩子", "has_parent": "父母", "has_spouse": "配偶",
    "has_sibling": "兄弟姐妹", "has_friend": "朋友", "has_advisor": "导师", "has_colleague": "同事",
    "has_manager": "上司", "struggles_with": "感到困难的", "masters": "擅长", "works_as": "职业", "lives_in": "居住地",
    "has_pet": "宠物", "works_at": "工作单位", "comes_from": "家乡", "has_birthday": "生日",
    "has_hobby": "爱好", "studied_at": "就读学校", "studied": "所学专业",
}


def pick_lang(asked: str | None, accept_language: str | None) -> str:
    """``?lang=`` when it is one of ours, else the first of ours in Accept-Language, else English."""
    if asked in LANGS:
        return asked
    for part in (accept_language or "").split(","):
        tag = part.split(";")[0].strip().lower()
        if tag.startswith("zh"):
            return "zh"
        if tag.startswith("en"):
            return "en"
    return "en"


def page_query(token: str, lang: str, done: str | None = None) -> str:
    return urlencode({"token": token, "lang": lang, **({"done": done} if done else {})})


def _e(value: object) -> str:
    return escape("" if value is None else str(value), quote=True)


def _when(iso: str | None) -> str:
    return f'<time datetime="{_e(iso)}">{_e((iso or "")[:16].replace("T", " "))} UTC</time>' if iso else ""


def _hidden(token: str, lang: str, **fields: str) -> str:
    values = {"token": token, "lang": lang, **fields}
    return "".join(f'<input type="hidden" name="{_e(k)}" value="{_e(v)}">' for k, v in values.items())


def _item(item: dict, n: int, messages: dict, token: str, lang: str) -> str:
    t = LABELS[lang]
    predicate = item["type"]
    name = PREDICATES_ZH.get(predicate, predicate) if lang == "zh" else predicate.replace("_", " ")
    mark = f'<span class="confirm">{_e(t["needs_confirmation"])}</span>' if item["needs_confirmation"] else ""
    said = [messages[m] for m in item["provenance"]["message_ids"] if m in messages]
    # The turn log keeps what was said HTML-escaped (domain.ingest.sanitise, reversibly): shown as said.
    quotes = "".join(f'<li><q>{_e(unescape(m["content"]))}</q> <span class="muted">('
                     f'{_e(t["you"] if m["role"] == "user" else t["assistant"])}'
                     f'{", " + _when(m["at"]) if m["at"] else ""})</span></li>' for m in said)
    source = t["sources"].get(item["trust_source"], item["trust_source"])
    def hidden() -> str:  # each form its own request id: a resubmitted form is one request
        return _hidden(token, lang, item_id=item["memory_id"], request_id=secrets.token_urlsafe(16))

    confirm = (f'<form method="post" action="memory-page/corrections" class="confirm-form">{hidden()}'
               f'<input type="hidden" name="object" value="{_e(item["object"])}">'
               f'<button type="submit" class="confirm-button">{_e(t["confirm"])}</button></form>'
               if item["needs_confirmation"] else "")
    return (
        f'<li class="item" data-item-id="{_e(item["memory_id"])}"><article aria-labelledby="item-{n}">'
        f'<h3 id="item-{n}" lang="{lang}">{_e(name)}: <span class="object">{_e(item["object"])}</span></h3><dl>'
        f'<dt>{_e(t["confidence"])}</dt><dd>{item["decayed_confidence"]:.2f}{mark}</dd>'
        f'<dt>{_e(t["source"])}</dt><dd>{_e(source)}</dd>'
        f'<dt>{_e(t["since"])}</dt><dd>{_when(item["valid_from"])}</dd>'
        f'<dt>{_e(t["from"])}</dt><dd>{f"<ul>{quotes}</ul>" if quotes else _e(t["no_messages"])}</dd></dl>'
        f'{confirm}<form method="post" action="memory-page/corrections" class="correct">{hidden()}'
        f'<label for="object-{n}">{_e(t["correct_label"])}</label> '
        f'<input type="text" id="object-{n}" name="object" value="{_e(item["object"])}" '
        f'maxlength="{MAX_OBJECT_CHARS}" required> '
        f'<button type="submit">{_e(t["save"])}</button></form>'
        f'<details><summary>{_e(t["delete"])}</summary><form method="post" action="memory-page/deletions" '
        f'class="delete">{hidden()}<button type="submit" class="danger">{_e(t["delete_confirm"])}</button>'
        f'</form></details></article></li>'
    )


def _document(lang: str, body: str) -> str:
    return (f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            f'<meta name="referrer" content="no-referrer"><title>{_e(LABELS[lang]["title"])}</title>'
            f'<style>{CSS}</style></head><body><main>{body}</main></body></html>')


def render_page(view: dict, token: str, lang: str, expires_iso: str, done: str | None) -> str:
    t = LABELS[lang]
    other = "zh" if lang == "en" else "en"
    notice = (f'<p class="notice" role="status">{_e(t[done])}</p>' if done in ("corrected", "deleted") else "")
    items = "".join(_item(item, n, view["messages"], token, lang) for n, item in enumerate(view["items"]))
    listing = f'<ul class="items">{items}</ul>' if items else f'<p>{_e(t["none"])}</p>'
    return _document(lang, (
        f'<nav><a href="memory-page?{_e(page_query(token, other))}" lang="{other}" hreflang="{other}">'
        f'{_e(t["other_lang"])}</a></nav><h1>{_e(t["title"])}</h1>'
        f'<p>{_e(t["intro"]).format(expires=_when(expires_iso))}</p>{notice}'
        f'<section aria-labelledby="believed"><h2 id="believed">{_e(t["believed"])} ({len(view["items"])})</h2>'
        f'{listing}</section><section aria-labelledby="data"><h2 id="data">{_e(t["your_data"])}</h2>'
        f'<form method="post" action="memory-page/export">{_hidden(token, lang)}'
        f'<button type="submit">{_e(t["export"])}</button></form></section>'))


def render_export_link(url: str, lang: str) -> str:
    """A stored export (too large to answer inline) is reached by its pre-signed URL."""
    t = LABELS[lang]
    return _document(lang, f'<h1>{_e(t["export_ready"])}</h1><p><a href="{_e(url)}">{_e(t["export_link"])}</a></p>')
