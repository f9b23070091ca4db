"""The class definitions the source scans find (``redeclarations.py``, ``package_constants.py``),
from an index of each text's heads and ``end name;`` made once per text.

Each definition used to be searched for its end from its head on, a scan of the text per
name: a word after ``model`` in a documentation string ("the model is ...") whose ``end is;``
never comes read the rest of the file, and a build of MSL's ``HeatingMOSInverter`` spent 4 of
its 8 minutes so (145 000 searches over the 2600 files rumoca read). The index must give the
same regions as that scan, which is kept here as the reference.
"""

from __future__ import annotations

import re
from pathlib import Path

from orchestrator.compiler.package_constants import DEFINITION, _regions
from orchestrator.compiler.redeclarations import _class_regions, enclosing_class

DATA = Path(__file__).parents[1] / "data"
TEXT = """package Lib "the model is documented here"
  model Foo "a model Foo2 is not Foo"
    model Inner
    end Inner;
  end Foo ;
  model Foo2
    extends Foo;
  end Foo2;
  package Short = Other(x = 1);
  block Foo
  end Foo;
end Lib;
"""


def _scanned_regions(text: str, name: str) -> list[tuple[int, int]]:
    """The definitions of ``name`` by a search per head, as the scans found them before."""
    regions = []
    for found in re.finditer(rf"\b(?:model|block|record|class|connector)\s+{name}\b", text):
        ending = re.compile(rf"\bend\s+{name}\s*;").search(text, found.end())
        if ending:
            regions.append((found.start(), ending.end()))
    return regions


def _scanned_definitions(text: str) -> list[tuple[int, int, str, str]]:
    found = []
    for match in DEFINITION.finditer(text):
        kind, name = match.groups()
        if re.match(r"\s*=", text[match.end() :]):
            continue
        ending = re.compile(rf"\bend\s+{name}\s*;").search(text, match.end())
        if ending:
            found.append((match.start(), ending.end(), kind, name))
    return found


def test_regions_of_a_text_with_false_heads_and_repeated_names():
    foo = TEXT.index("model Foo ")
    block = TEXT.index("block Foo")
    assert _class_regions(TEXT, "Foo") == [
        (foo, TEXT.index("end Foo ;") + len("end Foo ;")),
        (block, TEXT.index("end Foo;", block) + len("end Foo;")),
    ]
    # "model Foo2" in Foo's description string ends at Foo2's own end, as the scan found it
    assert _class_regions(TEXT, "Foo2") == _scanned_regions(TEXT, "Foo2")
    assert len(_class_regions(TEXT, "Foo2")) == 2
    assert _class_regions(TEXT, "is") == []
    inner = TEXT.index("end Inner;")
    assert enclosing_class((0, inner), {0: ("Lib.mo", TEXT)}) == [
        (0, TEXT.index("model Inner"), inner + len("end Inner;"))
    ]
    kinds = [(kind, name) for _, _, kind, name in _regions(TEXT)]
    assert ("package", "Short") not in kinds and ("package", "Lib") in kinds


def test_regions_are_those_of_a_search_per_definition():
    texts = [p.read_text(encoding="utf-8") for p in sorted(DATA.rglob("*.mo"))]
    assert len(texts) > 50
    for text in [TEXT, *texts]:
        names = set(re.findall(r"\b(?:model|block|record|class|connector)\s+(\w+)", text))
        for name in names | {"Absent"}:
            assert _class_regions(text, name) == _scanned_regions(text, name), name
        assert _regions(text) == _scanned_definitions(text)
