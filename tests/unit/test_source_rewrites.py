"""Copies of sources with edits (orchestrator.compiler.source_rewrites): the new text, and every
position of the copy mapped back to the user's text, checked against positions read off the
texts by hand."""

from pathlib import Path

import pytest

from orchestrator.compiler.source_rewrites import Edit, Rewrite, Rewritten

TEXT = "model A\n  Real x;\nequation\n  x = sin(time);\nend A;\n"


def test_a_replacement_and_an_insertion_give_the_new_text_and_map_back():
    start = TEXT.index("sin")
    rewrite = Rewrite(TEXT, [Edit(start, start + 3, "Modelica.Math.sin"), Edit(0, 0, "// a\n")])
    assert rewrite.text == "// a\n" + TEXT.replace("sin(", "Modelica.Math.sin(")
    # text after both edits moves back by the length they added
    time = rewrite.text.index("time")
    assert rewrite.original_offset(time) == TEXT.index("time")
    # inside an edit's text: the start of the range it replaced
    assert rewrite.original_offset(rewrite.text.index("Math")) == start
    assert rewrite.original_offset(2) == 0
    assert rewrite.new_offset(rewrite.edits[1]) == start + len("// a\n")


def test_overlapping_edits_are_refused():
    with pytest.raises(ValueError, match="overlapping"):
        Rewrite(TEXT, [Edit(0, 5, "a"), Edit(3, 6, "b")])


def _rename_x(text: str) -> list[Edit]:
    return [Edit(k, k + 1, "xx") for k, c in enumerate(text) if c == "x" and text[k - 1] == " "]


def test_a_copy_of_a_folder_holds_new_text_where_edited_and_maps_places_back(tmp_path):
    library = tmp_path / "Lib"
    (library / "Sub").mkdir(parents=True)
    (library / "package.mo").write_text("package Lib\nend Lib;\n")
    (library / "Sub" / "A.mo").write_text(TEXT)
    (library / "Sub" / "data.txt").write_text("1 2 3\n")
    rewritten = Rewritten([library], [_rename_x])
    copy = rewritten.copy_of(library / "Sub" / "A.mo")
    assert copy.read_text() == TEXT.replace(" x", " xx")
    assert rewritten.copy_of(library / "Sub" / "data.txt").read_text() == "1 2 3\n"
    assert rewritten.rewrite(rewritten.copy_of(library / "package.mo")) is None
    assert rewritten.user_path(copy) == library / "Sub" / "A.mo"
    assert rewritten.user_path(Path("/elsewhere/B.mo")) == Path("/elsewhere/B.mo")
    # line 4 of the copy, "  xx = sin(time);": 'sin' at column 8, the user's column 7
    assert rewritten.user_line_column(copy, 4, 8) == (4, 7)
    assert rewritten.user_offset(copy, copy.read_text().index("sin")) == TEXT.index("sin")


def test_a_rewriter_whose_edits_overlap_an_earlier_ones_is_left_out_of_that_file(tmp_path):
    library = tmp_path / "Lib"
    library.mkdir()
    (library / "package.mo").write_text(TEXT)

    def whole_sin(text: str) -> list[Edit]:  # the first rewriter: kept
        start = text.index("sin")
        return [Edit(start, start + 3, "Modelica.Math.sin")]

    def sin_and_x(text: str) -> list[Edit]:  # its first edit overlaps whole_sin's: all left out
        start = text.index("sin")
        return [Edit(start + 1, start + 2, "I"), Edit(0, 0, "// x\n")]

    rewritten = Rewritten([library], [whole_sin, sin_and_x, _rename_x])
    text = rewritten.copy_of(library / "package.mo").read_text()
    assert text == TEXT.replace("sin(", "Modelica.Math.sin(").replace(" x", " xx")
