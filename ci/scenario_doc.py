#!/usr/bin/env python3
"""Writes the field reference of docs/scenario-format.md from the scenario's JSON Schema
(examples/schema/scenario.schema.json, generated from the serde types' doc comments),
so that the reference cannot drift from the code.

Usage:
  ci/scenario_doc.py          rewrite the block between the GENERATED markers
  ci/scenario_doc.py --check  exit 1 when the page is not what the schema gives
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA = os.path.join(ROOT, "examples", "schema", "scenario.schema.json")
PAGE = os.path.join(ROOT, "docs", "scenario-format.md")
BEGIN, END = "<!-- BEGIN GENERATED -->", "<!-- END GENERATED -->"


def one_line(text):
    return " ".join((text or "").split()).replace("|", "\\|")


def type_of(node):
    if "$ref" in node:
        return node["$ref"].split("/")[-1]
    t = node.get("type")
    if isinstance(t, list):
        t = " or ".join(x for x in t if x != "null") + (" (optional)" if "null" in t else "")
    if t == "array":
        items = node.get("items", {})
        if isinstance(items, dict):
            return f"array of {type_of(items)}"
        return "array"
    if "const" in node:
        return f'"{node["const"]}"'
    if "enum" in node:
        return " / ".join(f'"{v}"' for v in node["enum"])
    for key in ("oneOf", "anyOf"):
        if key in node:
            parts = [type_of(x) for x in node[key] if x.get("type") != "null"]
            return " or ".join(parts)
    return t or "any"


def rows(props, required):
    out = []
    for name, node in sorted(props.items()):
        if name == "$schema":
            continue
        default = json.dumps(node["default"]) if "default" in node else ""
        req = "yes" if name in required else ""
        out.append(f"| `{name}` | {type_of(node)} | {req} | {one_line(default)} | "
                   f"{one_line(node.get('description'))} |")
    return out


def table(title, node):
    lines = [f"### {title}", ""]
    if node.get("description"):
        lines += [one_line(node["description"]), ""]
    variants = node.get("oneOf") or node.get("anyOf")
    if "properties" in node:
        lines += ["| field | type | required | default | meaning |",
                  "| --- | --- | --- | --- | --- |"]
        lines += rows(node["properties"], node.get("required", []))
        lines.append("")
    elif variants:
        for v in variants:
            if "properties" not in v:
                lines += [f"- {type_of(v)}: {one_line(v.get('description'))}"]
                continue
            tag = next((f'`{k}` = "{p["const"]}"' for k, p in v["properties"].items()
                        if "const" in p), "variant")
            lines += ["", f"**{tag}**: {one_line(v.get('description'))}", "",
                      "| field | type | required | default | meaning |",
                      "| --- | --- | --- | --- | --- |"]
            lines += rows(v["properties"], v.get("required", []))
        lines.append("")
    elif "enum" in node:
        lines += [f"One of {type_of(node)}.", ""]
    return lines


def generate():
    with open(SCHEMA) as f:
        schema = json.load(f)
    lines = [BEGIN, ""] + table("Scenario (the top level)", schema)
    for name, node in sorted(schema.get("$defs", {}).items()):
        lines += table(name, node)
    lines.append(END)
    return "\n".join(lines)


def main():
    with open(PAGE) as f:
        page = f.read()
    if BEGIN not in page or END not in page:
        print(f"scenario_doc: {PAGE} has no {BEGIN} ... {END} block", file=sys.stderr)
        return 2
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = head + generate() + tail
    if "--check" in sys.argv[1:]:
        if new != page:
            print("scenario_doc: docs/scenario-format.md is out of date with the schema; "
                  "run python3 ci/scenario_doc.py")
            return 1
        print("scenario_doc: docs/scenario-format.md matches the schema")
        return 0
    with open(PAGE, "w") as f:
        f.write(new)
    print(f"scenario_doc: wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
