"""Copies the served OpenAPI document for schemathesis, working around one of its bugs.

schemathesis 4.32 rewrites a Draft 2020-12 tuple (`prefixItems`) into the Draft 4 spelling (`items: [...]`)
and then checks the result against the 2020-12 meta-schema, which refuses it ("Invalid Schema Object in
response definition"), so responses holding tuples (the lag series' `[t, offsetLag, timeLagMs]` points)
could not be checked at all. Each tuple is loosened here to "an array of exactly N items, each one of the
positions' schemas"; the served document keeps the exact tuple.

    python3 schema.py served.json for-schemathesis.json
"""

import json
import sys


def loosen_tuples(node):
    if isinstance(node, list):
        return [loosen_tuples(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: loosen_tuples(value) for key, value in node.items()}
    positions = node.pop("prefixItems", None)
    if positions is not None:
        rest = node.pop("items", False)
        choices = positions + ([rest] if rest is not False else [])
        node["items"] = {"anyOf": choices}
        node.setdefault("minItems", len(positions))
        if rest is False:
            node.setdefault("maxItems", len(positions))
    return node


def main(source, target):
    with open(source, encoding="utf-8") as file:
        document = json.load(file)
    with open(target, "w", encoding="utf-8") as file:
        json.dump(loosen_tuples(document), file, indent=1)


if __name__ == "__main__":
    main(*sys.argv[1:3])
