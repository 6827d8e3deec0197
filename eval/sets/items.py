"""The message-set format (docs/contracts.md §5): one JSON object per line.

    id                  unique in its file
    kind                faq | document | greeting | ability | smalltalk | leaving | out_of_scope
    lang                ko | en
    register            polite | banmal | typo | nospace | emoji | english | mixed
    text                the student's message
    gold                faq: the entry (a bundled college: its URL path and fragment, "/faq/ai.html#ai-01";
                        the real FAQ: the entry's integer id); document: the page's URL path; else null
    profile             what the simulated student answers when asked: {attribute: canonical value}
    profile_independent faq / document: the gold applies to every student (from the ground truth)

The gold comes from each institution's ground truth (the generators' manifests, the real FAQ's
entries), written by someone who did not see the system's training data (README of each folder).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

KINDS = ("faq", "document", "greeting", "ability", "smalltalk", "leaving", "out_of_scope")
TEMPLATE_KINDS = ("greeting", "ability", "smalltalk", "leaving")
GOLD_KINDS = ("faq", "document")
LANGS = ("ko", "en")
REGISTERS = ("polite", "banmal", "typo", "nospace", "emoji", "english", "mixed")


class SetFormatError(ValueError):
    """A set file that is not in the format (said with its file and line)."""


@dataclass(frozen=True)
class Item:
    id: str
    kind: str
    lang: str
    register: str
    text: str
    gold: str | int | None = None
    profile: dict = field(default_factory=dict)
    profile_independent: bool | None = None


def read_items(path: Path) -> list[Item]:
    """Every item of a set file, checked: fields, kinds, languages, registers, gold where the kind
    needs one, unique ids."""
    path = Path(path)
    items: list[Item] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path.name}:{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SetFormatError(f"{where}: not JSON ({exc.msg})") from None
        items.append(_item(row, where))
    ids = [item.id for item in items]
    if len(set(ids)) != len(ids):
        raise SetFormatError(f"{path.name}: duplicate ids")
    return items


def _item(row: dict, where: str) -> Item:
    missing = [key for key in ("id", "kind", "lang", "register", "text") if not row.get(key)]
    if missing:
        raise SetFormatError(f"{where}: missing {', '.join(missing)}")
    for key, allowed in (("kind", KINDS), ("lang", LANGS), ("register", REGISTERS)):
        if row[key] not in allowed:
            raise SetFormatError(f"{where}: {key} {row[key]!r} is not one of {', '.join(allowed)}")
    if (row.get("gold") is None) == (row["kind"] in GOLD_KINDS):
        raise SetFormatError(f"{where}: a {row['kind']} item {'needs' if row['kind'] in GOLD_KINDS else 'has no'} gold")
    profile = row.get("profile") or {}
    if not isinstance(profile, dict):
        raise SetFormatError(f"{where}: profile must be an object")
    return Item(id=str(row["id"]), kind=row["kind"], lang=row["lang"], register=row["register"], text=row["text"],
                gold=row.get("gold"), profile=profile, profile_independent=row.get("profile_independent"))
