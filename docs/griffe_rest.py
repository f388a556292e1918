"""A griffe extension for the site's API reference (mkdocs.yml): barley's docstrings are written in
reStructuredText, as Sphinx reads it, and mkdocstrings renders Markdown; this rewrites the few
reST constructs they use, at build time, so that the pages show what the docstrings mean and the
docstrings stay as they are in the code.

* a role, ``:func:`name``` (``class``, ``meth``, ``mod``, ``data``, ``attr``, ``exc``, ``obj``;
  ``~`` keeps the last dotted part; ``title <target>`` the title) → the name as code;
* a literal, ````text```` → ```text```;
* an indented block → a fenced code block (a paragraph ending in ``::`` before it ends in ``:``:
  reST's literal block; barley's docstrings also indent examples without it), except a block
  whose lines each begin with a literal (````name````: what it is), a list of definitions: its
  lines unindented, as text.
"""

from __future__ import annotations

import re

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|data|attr|exc|obj|const):`([^`]+)`")
LITERAL = re.compile(r"``(.+?)``")


def _role(match: re.Match) -> str:
    text = match.group(1)
    titled = re.fullmatch(r"(.+?)\s*<(.+)>", text)
    if titled:
        text = titled.group(1)
    elif text.startswith("~"):
        text = text[1:].rsplit(".", 1)[-1]
    return f"``{text.lstrip('!')}``"  # a literal: LITERAL makes it code with the others


def markdown(docstring: str) -> str:
    """``docstring`` (reST, dedented) with the constructs above made Markdown."""
    lines = docstring.splitlines()
    out: list[str] = []
    k = 0
    fenced = False  # inside a Markdown code fence: left as it is
    while k < len(lines):
        line = lines[k]
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced or line.lstrip().startswith("```"):
            out.append(line)
            k += 1
            continue
        indented = line.startswith((" ", "\t")) and line.strip()
        if indented and (not out or not out[-1].strip()):  # a block after a blank line
            block = []
            while k < len(lines) and (not lines[k].strip() or lines[k].startswith((" ", "\t"))):
                block.append(lines[k])
                k += 1
            while block and not block[-1].strip():
                block.pop()
            depth = min(len(b) - len(b.lstrip()) for b in block if b.strip())
            block = [b[depth:] for b in block]
            if all(b.startswith("``") for b in block if b.strip()):  # definitions
                out += [_inline(b) for b in block] + [""]
                continue
            previous = next((p for p in reversed(out) if p.strip()), "")
            if previous.rstrip().endswith("::"):
                at = max(i for i, p in enumerate(out) if p.strip())
                out[at] = out[at].rstrip()[:-1].rstrip(":") + ":" if out[at].strip() != "::" else ""
            out += ["```", *block, "```", ""]
            continue
        out.append(_inline(line))
        k += 1
    return "\n".join(out)


def _inline(line: str) -> str:
    return LITERAL.sub(lambda m: f"`{m.group(1)}`", ROLE.sub(_role, line))


class RestDocstrings(griffe.Extension):
    """Every docstring of the objects mkdocstrings loads, rewritten by :func:`markdown`."""

    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
