"""The place of a connection rumoca 0.10 cannot orient: two elements of connector arrays linked.

rumoca 0.10 writes the equations of a connection set as a chain through its members in the
order the connect statements first name them (``connect(p.y, a.u[2]); connect(p.y, b.u[2])``
gives ``p.y = a.u[2]`` and ``a.u[2] = b.u[2]``), and gives each link of Boolean or Integer
signals a direction by the distance of the two arrays from the signal's source. Where ``a.u``
and ``b.u`` are both fed directly at another element, the link between them has none, and
rumoca refuses the model ("element assignments must cover a discrete coordinate exactly
once", no place given). :func:`tied_connection` finds, in a source text, the first connect
statement that makes such a link: the one naming the later of two elements of different
arrays that stand next to each other in their set's chain.
"""

from __future__ import annotations

import re

from orchestrator.compiler.tokens import tokens

CONNECT = re.compile(r"\bconnect\s*\(")


def _arguments(text: str, start: int) -> tuple[str, str] | None:
    """The two arguments of the connect statement whose ``(`` is at ``start``, white space
    removed."""
    depth, pieces, current = 0, [], []
    for _, token in tokens(text, start):
        if token in "([{" and len(token) == 1:
            depth += 1
            if depth == 1:
                continue
        elif token in ")]}" and len(token) == 1:
            depth -= 1
            if depth == 0:
                pieces.append("".join(current))
                return (pieces[0], pieces[1]) if len(pieces) == 2 else None
        elif token == "," and depth == 1:
            pieces.append("".join(current))
            current = []
            continue
        current.append(token)
    return None


def _base(member: str) -> str | None:
    """The array a subscripted member names an element of (``a.u[2]``: ``a.u``), None for a
    member that is not one."""
    found = re.fullmatch(r"([\w.]+)\[[^\]]+\]", member)
    return found.group(1) if found else None


def tied_connection(text: str) -> int | None:
    """The position in ``text`` of the first connect statement that links two elements of
    different connector arrays in rumoca 0.10's chain of their connection set; None where no
    statement does."""
    parent: dict[str, str] = {}
    named: dict[str, int] = {}  # each member: the position of the statement first naming it

    def root(member: str) -> str:
        while parent[member] != member:
            member = parent[member]
        return member

    for found in CONNECT.finditer(text):
        arguments = _arguments(text, found.end() - 1)
        if arguments is None:
            continue
        for member in arguments:
            parent.setdefault(member, member)
            named.setdefault(member, found.start())
        first, second = map(root, arguments)
        if first != second:
            parent[second] = first
    chains: dict[str, list[str]] = {}
    for member in sorted(named, key=named.__getitem__):
        chains.setdefault(root(member), []).append(member)
    places = []
    for chain in chains.values():
        for before, after in zip(chain, chain[1:], strict=False):
            bases = _base(before), _base(after)
            if None not in bases and bases[0] != bases[1]:
                places.append(named[after])
    return min(places, default=None)
