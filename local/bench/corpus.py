"""Generated, realistic-looking conversation turns for throughput and scale benchmarks."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

NAMES = ["Tom", "Anna", "Li Wei", "Maria", "Kenji", "Sofia", "Omar", "Grace", "Lucas", "Mei"]
RELATIONS = ["son", "daughter", "sister", "brother", "friend", "advisor", "colleague", "wife", "husband"]
FOODS = ["sushi", "green tea", "dark chocolate", "spicy noodles", "cilantro", "oat milk", "espresso", "mango"]
HOBBIES = ["hiking", "painting", "chess", "yoga", "photography", "cycling", "baking sourdough", "jazz piano"]
PLACES = ["Kyoto", "Lisbon", "the Alps", "Chengdu", "Cape Town", "Vancouver", "a lake cabin", "Barcelona"]
TEMPLATES = [
    "I love {food}, especially after a long day.",
    "I don't like {food} at all.",
    "{name} is my {relation}, we talk every weekend.",
    "Last weekend I went {hobby} with {name}.",
    "I'm planning a trip to {place} next month.",
    "Can you remind me to call {name} tomorrow?",
    "I've been practising {hobby} for about {n} years now.",
    "Maybe I'll try {hobby} again if the weather is nice.",
    "I'm allergic to {food}, so please keep that in mind.",
    "My {relation} {name} just started a new job in {place}.",
    "We celebrated {name}'s birthday yesterday with {food}.",
    "I felt really stressed at work this week.",
    "我喜欢{zh_food}，尤其是周末。",
    "我昨天和{name}一起去了{zh_place}。",
    "提醒我下周给{name}打电话。",
    "Thanks, that's helpful!",
    "Honestly {hobby} is the only thing that relaxes me lately.",
    "I finished reading a book about {place} and now I want to go there.",
]
ZH_FOODS = ["绿茶", "火锅", "饺子", "咖啡", "香菜"]
ZH_PLACES = ["公园", "博物馆", "海边", "山里", "图书馆"]


def turns(count: int, seed: int = 7, start: datetime | None = None) -> list[dict]:
    """``count`` user turns in API form, one minute apart."""
    rng = random.Random(seed)
    start = start or datetime(2026, 1, 5, 9, tzinfo=UTC)
    out = []
    for i in range(count):
        text = rng.choice(TEMPLATES).format(
            food=rng.choice(FOODS), name=rng.choice(NAMES), relation=rng.choice(RELATIONS),
            hobby=rng.choice(HOBBIES), place=rng.choice(PLACES), n=rng.randint(2, 15),
            zh_food=rng.choice(ZH_FOODS), zh_place=rng.choice(ZH_PLACES))
        out.append({"role": "user", "content": text, "message_id": f"g{seed}-{i}",
                    "client_ts": (start + timedelta(minutes=i)).isoformat()})
    return out
