"""Copies of Modelica sources with edits rumoca 0.10 needs, and the way back to the user's text.

Where rumoca 0.10 refuses a construct that an equivalent text of the same model avoids, the
build gives rumoca a copy of the sources with edits: each source rewriter reads a file's text
and gives its edits (text in place of a range of the user's text; an insertion replaces an
empty range). The copy holds new text only for the files some rewriter edits; every other file is
a hard link to the user's, so a copy of a large library on the library path (the Modelica
Standard Library) costs little more than a scan of its text. Every place rumoca gives in the
copy maps back to the user's file, line and column (:meth:`Rewritten.user_path`,
:meth:`Rewritten.user_offset`, :meth:`Rewritten.user_line_column`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Edit:
    """``text`` in place of the user's characters ``start`` to ``end`` (``end`` excluded;
    ``start == end``: an insertion before ``start``); ``origin``: where in the user's text
    ``text`` stands as it is, for a piece moved there (None: new text)."""

    start: int
    end: int
    text: str
    origin: int | None = None


SourceRewriter = Callable[[str], list[Edit]]
"""A file's text to the edits it needs (none for most files: check cheaply first)."""


@dataclass(frozen=True)
class LibraryRewriter:
    """A source rewriter whose edits of one file depend on the library's other files (a call
    in one file of a function declared in another): ``prepare`` is given the texts of all
    files of the copied folders and gives the rewriter of each file."""

    prepare: Callable[[list[str]], SourceRewriter]


@dataclass
class Rewrite:
    """A user's source text with its edits (in order, not overlapping) and the new text."""

    original: str
    edits: list[Edit] = field(default_factory=list)
    text: str = field(init=False)

    def __post_init__(self) -> None:
        self.edits = sorted(self.edits, key=lambda edit: (edit.start, edit.end))
        pieces, previous = [], 0
        for edit in self.edits:
            if edit.start < previous or edit.end < edit.start:
                raise ValueError(f"overlapping or reversed source edit {edit}")
            pieces += [self.original[previous : edit.start], edit.text]
            previous = edit.end
        self.text = "".join([*pieces, self.original[previous:]])

    def new_offset(self, edit: Edit) -> int:
        """The position in the new text where ``edit``'s text starts."""
        shift = 0
        for other in self.edits:
            if other is edit:
                return edit.start + shift
            shift += len(other.text) - (other.end - other.start)
        raise ValueError(f"{edit} is not an edit of this text")

    def original_offset(self, offset: int) -> int:
        """The position in the user's text of ``offset`` in the new text (a position in an
        edit's text maps to the start of the range it replaced, or, in a moved piece, to
        where it stands in the user's text)."""
        shift = 0
        for edit in self.edits:
            if offset < edit.start + shift:
                break
            if offset < edit.start + shift + len(edit.text):
                if edit.origin is not None:
                    return edit.origin + offset - edit.start - shift
                return edit.start
            shift += len(edit.text) - (edit.end - edit.start)
        return offset - shift


def _compatible(text: str, proposed: list[list[Edit]]) -> list[Edit]:
    """The edits of each rewriter in turn (``proposed``) that overlap none of the earlier
    rewriters' edits kept; a rewriter's edits are kept or left out together, so that what it
    leaves as written is refused by rumoca as before rather than rewritten halfway."""
    kept: list[Edit] = []
    for edits in proposed:
        try:
            Rewrite(text, kept + edits)
        except ValueError:
            continue
        kept += edits
    return kept


def _line_starts(text: str) -> list[int]:
    return [0] + [k + 1 for k, c in enumerate(text) if c == "\n"]


class Rewritten:
    """Copies of library folders (the user's package, the library path's entries) with the
    edits of ``rewriters`` in their ``.mo`` files, in a temporary folder kept while this object
    lives, and the way back from the copies' paths and positions to the user's."""

    def __init__(
        self, roots: Sequence[Path], rewriters: Sequence[SourceRewriter | LibraryRewriter]
    ) -> None:
        self._temporary = tempfile.TemporaryDirectory(prefix="rewritten-sources-")
        base = Path(self._temporary.name).resolve()
        self.copies: dict[Path, Path] = {}  # the user's folder by its copy
        self.rewrites: dict[Path, Rewrite] = {}  # by the copy's path of each edited file
        roots = [Path(root).resolve() for root in roots]
        texts = {
            path: path.read_text(encoding="utf-8", errors="replace")
            for root in roots
            for path in sorted(root.rglob("*.mo"))
        }
        of_file = [
            r.prepare(list(texts.values())) if isinstance(r, LibraryRewriter) else r
            for r in rewriters
        ]
        for number, root in enumerate(roots):
            copy = base / str(number) / root.name
            self.copies[copy] = root
            edited = {}
            for path in sorted(root.rglob("*.mo")):
                text = texts[path]
                edits = _compatible(text, [rewriter(text) for rewriter in of_file])
                if edits:
                    edited[path.relative_to(root)] = Rewrite(text, edits)
            self._mirror(root, copy, edited)
            self.rewrites |= {copy / relative: rewrite for relative, rewrite in edited.items()}

    @staticmethod
    def _mirror(root: Path, copy: Path, edited: dict[Path, Rewrite]) -> None:
        """``copy`` as ``root`` with the new text of its ``edited`` files (paths relative to
        ``root``) and hard links to (or, across file systems, copies of) the user's other
        files: rumoca 0.10 follows symbolic links to the user's folder and would read both."""
        for folder, _, files in os.walk(root):
            relative = Path(folder).relative_to(root)
            (copy / relative).mkdir(parents=True, exist_ok=True)
            for name in files:
                source, target = root / relative / name, copy / relative / name
                if relative / name in edited:
                    target.write_text(edited[relative / name].text, encoding="utf-8")
                    continue
                try:
                    os.link(source, target)
                except OSError:
                    shutil.copyfile(source, target)

    def copy_of(self, path: Path) -> Path:
        """The copy's path of a user's file or folder under one of the roots."""
        path = Path(path).resolve()
        for copy, root in self.copies.items():
            if path.is_relative_to(root):
                return copy / path.relative_to(root)
        raise ValueError(f"{path} is in none of the copied folders")

    @property
    def roots(self) -> list[Path]:
        """The copies of the roots, in their order."""
        return list(self.copies)

    def user_path(self, path: Path) -> Path:
        """The user's file of a path in a copy (any other path as it is)."""
        path = Path(path).resolve()
        for copy, root in self.copies.items():
            if path.is_relative_to(copy):
                return root / path.relative_to(copy)
        return path

    def rewrite(self, path: Path) -> Rewrite | None:
        """The rewrite of a copy's file, None when it holds the user's text."""
        return self.rewrites.get(Path(path).resolve())

    def user_offset(self, path: Path, offset: int) -> int:
        """The position in the user's file of ``offset`` in the copy's file ``path``."""
        rewrite = self.rewrite(path)
        return rewrite.original_offset(offset) if rewrite else offset

    def user_line_column(self, path: Path, line: int, column: int) -> tuple[int, int]:
        """The user's line and column of a line and column (from 1) in the copy's ``path``."""
        rewrite = self.rewrite(path)
        if rewrite is None:
            return line, column
        starts = _line_starts(rewrite.text)
        offset = rewrite.original_offset(starts[min(line, len(starts)) - 1] + column - 1)
        starts = _line_starts(rewrite.original)
        row = bisect_right(starts, offset)
        return row, offset - starts[row - 1] + 1
