"""`--format junit`: a JUnit XML report, which Jenkins, GitLab (`artifacts:reports:junit`),
Azure Pipelines (PublishTestResults) and CircleCI show as test results.

As ruff writes it: one `testsuite` per file with diagnostics, one failed `testcase` per
diagnostic (`name` the code, `classname` the path, with its line and column); a run without
diagnostics is one passing test case, so the report is never empty. Text is kept to what XML
1.0 can hold: a control character is written as `\\xNN`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import groupby
from pathlib import Path
from xml.etree import ElementTree

from shapecheck.diagnostic import Diagnostic
from shapecheck.formats.locations import shown

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml(text: str) -> str:
    return _NOT_XML.sub(lambda match: f"\\x{ord(match.group()):02x}", shown(text))


def render(diagnostics: Sequence[Diagnostic], files: int, root: Path | None = None,
           texts: Mapping[str, str] | None = None) -> str:
    count = len(diagnostics)
    suites = ElementTree.Element("testsuites", name="shapecheck", tests=str(max(count, 1)),
                                 failures=str(count), errors="0")
    if not diagnostics:
        suite = ElementTree.SubElement(suites, "testsuite", name="shapecheck", tests="1", failures="0",
                                       errors="0")
        ElementTree.SubElement(suite, "testcase", name="No errors found", classname="shapecheck")
    for path, group in groupby(diagnostics, key=lambda d: d.path):
        found = list(group)
        suite = ElementTree.SubElement(suites, "testsuite", name=_xml(path), tests=str(len(found)),
                                       failures=str(len(found)), errors="0")
        for d in found:
            case = ElementTree.SubElement(suite, "testcase", name=f"shapecheck.{d.code}", classname=_xml(path),
                                          line=str(d.span.line), column=str(d.span.column + 1))
            notes = "".join(f"\nnote: {n.message} ({n.path}:{n.span.line})" for n in d.notes)
            failure = ElementTree.SubElement(case, "failure", message=_xml(d.message), type=d.code)
            failure.text = _xml(f"line {d.span.line}, col {d.span.column + 1}, {d.message}{notes}")
    ElementTree.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(suites, encoding="unicode") + "\n"
