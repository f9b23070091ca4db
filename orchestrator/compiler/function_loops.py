"""While loops with a provable bound and returns inside loops, in forms rumoca 0.10 translates.

rumoca 0.10 refuses, in a function's algorithm, a while loop counting down ("contains a
statement without a checked DAE owner"), a ``return`` inside a loop or a nested branch ("a
non-guarded nested return"), and loses a function's values where a loop stands in nested
if-branches and a variable it assigns is unassigned on another path ("missing function value
definition"); it translates for loops over an array's size and if-statements. A source rewriter
(:mod:`orchestrator.compiler.source_rewrites`) gives it such a function in that form:

- ``while C loop S end while;`` becomes ``for p in 1:size(a, d) loop if C then S end if; end
  for;`` where the loop's bound is provable from its text: one statement of ``S`` at its top
  level moves a counter ``c`` by +1 or -1 (``c := c + 1;``), nothing else in ``S`` assigns ``c``
  or ``a``, and a conjunct of ``C`` (one of its operands of ``and``, without ``or``, ``and`` or
  if-expressions of its own) reads ``a`` at subscript ``d`` by ``c`` alone or shifted by a whole
  number ``m`` (``x[c]``, ``x[c + 1]``). Each pass starts where ``C`` holds, so that element was
  read there and ``1 <= c + m <= size(a, d)``: a counter moving by one through that range makes
  at most ``size(a, d)`` passes. Once ``C`` fails no statement runs, so nothing ``C`` reads
  changes and it fails on every later pass: the for loop leaves every variable as the while loop
  does. A counter declared without a binding first gets 0, the value the build's translation
  gives such a variable anyway (:meth:`Translator.call`), which rumoca 0.10 needs to see the
  variable defined on every path.
- A while loop whose counter rises to a bound, ``while c <= B loop S end while;`` (``c <= B``
  a conjunct of its condition), where ``S`` moves ``c`` by ``c := c + 1;`` at its top level
  and assigns it before that only as ``c := B;`` (MSL's ``Matrices.isEqual`` leaving its two
  loops where an element differs), ``c`` starts at a whole number ``s`` (the assignment
  just before the loop, or the declaration where nothing assigns it before a loop not inside
  another) and nothing in ``S`` assigns a variable ``B`` reads: each pass starts with ``c <=
  B``, ends with ``c`` one above its value at the start or at ``B + 1``, so there are at most
  as many passes as whole numbers in ``s:B``. It becomes ``for p in s:B loop r := C; ...
  end for;``, a fresh Boolean ``r`` holding the condition at the start of each pass and every
  statement of ``S`` run only where it holds: one without loops inside ``if r then ... end
  if;``, a for loop with its body's statements so guarded, a while loop of this form in
  ``S`` rewritten the same way, its condition taken only where ``r`` holds (``if r then r2 :=
  C2; else r2 := false; end if;``). rumoca 0.10 refuses a loop inside a branch whose
  condition it cannot decide ("requires assignments or nested conditionals in every checked
  branch"), hence the guard on each statement rather than one around ``S``; it needs each
  such Boolean assigned before the loops (``r := false;`` first). Once the condition fails no
  guarded statement runs, so the passes left change nothing the while loop would not.
- A function with a ``return`` inside a loop or a nested branch gets a protected Boolean
  that the return sets instead (Modelica Language Specification 3.6, Sec. 11.2.9: a return
  ends the function); the statements after one that may return, each loop's body and each
  while loop's condition holding one run only while it is false.

Any other while loop stays as written, and rumoca refuses it in one line as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from orchestrator.compiler.source_algorithms import source_algorithms
from orchestrator.compiler.source_rewrites import Edit
from orchestrator.compiler.tokens import tokens

Token = tuple[int, str]
LOOPS = {"while", "for"}
BRANCHES = {"if": ("elseif", "else"), "when": ("elsewhen",)}
CANDIDATES = re.compile(r"\bend\s+while\s*;|\breturn\s*;")


@dataclass
class Statement:
    """One statement of an algorithm's tokens: its ``kind`` (``while``, ``for``, ``if``,
    ``when``, ``return``, ``break``, or ``simple``), its tokens from the first to the ``;``,
    and for a loop its head (condition or range), the ``loop`` and ``end`` tokens and its
    body, for an if- or when-statement its branches' statements."""

    kind: str
    tokens: list[Token]
    head: list[Token] = field(default_factory=list)
    loop: Token | None = None
    end: Token | None = None
    body: list[Statement] = field(default_factory=list)
    branches: list[list[Statement]] = field(default_factory=list)

    @property
    def stop(self) -> int:
        """The position after the statement's ``;``."""
        return self.tokens[-1][0] + 1

    def inner(self) -> list[Statement]:
        """The statements inside, nested ones included."""
        found = []
        for statement in self.body + [s for branch in self.branches for s in branch]:
            found += [statement, *statement.inner()]
        return found


class _UnreadableError(Exception):
    """Tokens that do not form the statements this module reads."""


def _find(tokens: list[Token], k: int, word: str) -> int:
    """The index of the first ``word`` at bracket depth 0 from ``k`` on."""
    depth = 0
    for j in range(k, len(tokens)):
        token = tokens[j][1]
        if depth == 0 and token == word:
            return j
        depth += (token in "([{") - (token in ")]}")
    raise _UnreadableError(word)


def _statements(tokens: list[Token], k: int, stops: set[str]) -> tuple[list[Statement], int]:
    """The statements from index ``k`` up to a token of ``stops`` (or the end) where a
    statement would start, and that token's index."""
    found = []
    while k < len(tokens) and tokens[k][1] not in stops:
        statement, k = _statement(tokens, k)
        found.append(statement)
    return found, k


def _statement(tokens: list[Token], k: int) -> tuple[Statement, int]:
    word = tokens[k][1]
    if word in LOOPS:
        loop = _find(tokens, k + 1, "loop")
        body, end = _statements(tokens, loop + 1, {"end"})
        if [t for _, t in tokens[end : end + 3]] != ["end", word, ";"]:
            raise _UnreadableError(word)
        statement = Statement(word, tokens[k : end + 3], tokens[k + 1 : loop], tokens[loop])
        statement.end, statement.body = tokens[end], body
        return statement, end + 3
    if word in BRANCHES:
        branches, j = [], _find(tokens, k + 1, "then")
        while True:
            stops = {*BRANCHES[word], "end"}
            branch, j = _statements(tokens, j + 1, stops)
            branches.append(branch)
            if j >= len(tokens):
                raise _UnreadableError(word)
            if tokens[j][1] == "end":
                break
            j = j if tokens[j][1] == "else" else _find(tokens, j + 1, "then")
        if [t for _, t in tokens[j : j + 3]] != ["end", word, ";"]:
            raise _UnreadableError(word)
        statement = Statement(word, tokens[k : j + 3], branches=branches)
        return statement, j + 3
    end = _find(tokens, k, ";")
    kind = word if word in ("return", "break") else "simple"
    return Statement(kind, tokens[k : end + 1]), end + 1


def _words(tokens: list[Token]) -> list[str]:
    return [t for _, t in tokens]


def _assigns(statements: list[Statement], name: str) -> bool:
    """Whether a statement among ``statements`` (nested ones included) may assign ``name``:
    an assignment to it or an element of it, a call's output list naming it, or a for loop
    over it."""
    for statement in statements + [s for t in statements for s in t.inner()]:
        words = _words(statement.tokens)
        if statement.kind == "for" and words[1] == name:
            return True
        if statement.kind != "simple":
            continue
        target = words[: words.index(":")] if ":" in words else []
        if name in target and words[words.index(":") + 1] == "=":
            return True
    return False


def _conjuncts(head: list[Token]) -> list[list[str]]:
    """The operands of the condition's ``and`` at bracket depth 0."""
    parts: list[list[str]] = [[]]
    depth = 0
    for _, token in head:
        if depth == 0 and token == "and":
            parts.append([])
            continue
        depth += (token in "([{") - (token in ")]}")
        parts[-1].append(token)
    return parts


def _subscripted(conjunct: list[str], counter: str) -> tuple[str, int] | None:
    """An array and the subscript (from 1) the conjunct reads it at by ``counter`` alone or
    shifted by a whole number (``x[c]``, ``x[c + 1]``)."""
    for k in range(len(conjunct) - 2):
        if conjunct[k + 1] != "[" or not re.fullmatch(r"[A-Za-z_]\w*", conjunct[k]):
            continue
        entries: list[list[str]] = [[]]
        depth = 0
        for token in conjunct[k + 2 :]:
            if depth == 0 and token == "]":
                break
            if depth == 0 and token == ",":
                entries.append([])
                continue
            depth += (token in "([{") - (token in ")]}")
            entries[-1].append(token)
        for position, entry in enumerate(entries, 1):
            shifted = len(entry) == 3 and entry[1] in "+-" and entry[2].isdigit()
            if entry == [counter] or (shifted and entry[0] == counter):
                return conjunct[k], position
    return None


def _bound(statement: Statement) -> tuple[str, str, int] | None:
    """The counter, array and subscript that bound a while loop (see the module's text), or
    None where the loop's text does not prove a bound."""
    steps = [
        s
        for s in statement.body
        if s.kind == "simple"
        and len(words := _words(s.tokens)) == 7
        and words[1:3] == [":", "="]
        and words[3] == words[0]
        and words[4] in "+-"
        and words[5] == "1"
    ]
    for step in steps:
        counter = step.tokens[0][1]
        others = [s for s in statement.body if s is not step]
        if _assigns(others, counter):
            continue
        for conjunct in _conjuncts(statement.head):
            if {"if", "or", "and"} & set(conjunct):
                continue
            found = _subscripted(conjunct, counter)
            if found and not _assigns(statement.body, found[0]):
                return counter, *found
    return None


def _start(statement: Statement, counter: str) -> str | None:
    """The whole number ``statement`` assigns ``counter`` (``c := 1;``), or None."""
    words = _words(statement.tokens)
    literal = statement.kind == "simple" and len(words) == 5 and words[3].isdigit()
    return words[3] if literal and words[:3] == [counter, ":", "="] else None


def _declared_start(declarations: list[Token], counter: str) -> str | None:
    """The whole number ``counter`` is declared with (``Integer i = 1;``), not as an input."""
    words = _words(declarations)
    for k in range(1, len(words) - 3):
        if words[k : k + 2] != [counter, "="] or not words[k + 2].isdigit():
            continue
        if words[k + 3] not in (";", ",") and words[k + 3][0] != '"':
            continue
        start = max((j for j in range(k) if words[j] == ";"), default=-1) + 1
        before = words[start:k]
        if before.count("(") == before.count(")") and "input" not in before:
            return words[k + 2]
    return None


def _rising_bound(statement: Statement) -> tuple[str, str] | None:
    """The counter and the bound ``B`` (its text) of a while loop whose counter rises to ``B``
    (see the module's text), its start aside; None where its text does not show one."""
    body = statement.body
    for t, step in enumerate(body):
        counter = step.tokens[0][1]
        if step.kind != "simple" or _words(step.tokens) != [counter, *":=", counter, *"+1;"]:
            continue
        if _assigns(body[t + 1 :], counter):
            return None
        assigned = [
            s
            for first in body[:t]
            for s in (first, *first.inner())
            if s.kind in ("simple", "for") and _assigns([s], counter)
        ]
        for conjunct in _conjuncts(statement.head):
            bound = conjunct[3:]
            read = set(bound)
            if conjunct[:3] != [counter, "<", "="] or not bound or {"if", "or", counter} & read:
                continue
            names = {w for w in bound if re.fullmatch(r"[A-Za-z_]\w*", w)}
            jump = [counter, ":", "=", *bound, ";"]
            if not any(_assigns(body, n) for n in names) and all(
                _words(s.tokens) == jump for s in assigned
            ):
                return counter, " ".join(bound)
        return None
    return None


def _guardable(statements: list[Statement], risings: dict[int, tuple[str, str, str]]) -> bool:
    """Whether each of ``statements`` can run under a guard of its own (see the module's
    text): no return or break, loops only as for loops and while loops in ``risings``, none
    inside a branch."""
    for statement in statements:
        inner = {s.kind for s in statement.inner()}
        if (
            statement.kind in ("return", "break")
            or (statement.kind == "for" and not _guardable(statement.body, risings))
            or (statement.kind == "while" and id(statement) not in risings)
            or (statement.kind in BRANCHES and inner & {*LOOPS, "return", "break"})
        ):
            return False
    return True


def _risings(
    statements: list[Statement],
    declarations: list[Token],
    every: list[Statement],
    in_loop: bool = False,
) -> dict[int, tuple[str, str, str]]:
    """The while loops among ``statements`` (nested ones included) whose counter rises to a
    bound from a known start and whose bodies can be guarded (see the module's text), by
    ``id``: their counter, start and bound. ``every``: the function's statements, nested ones
    included; ``in_loop``: whether ``statements`` stand in a loop."""
    found: dict[int, tuple[str, str, str]] = {}
    for k, statement in enumerate(statements):
        looped = statement.kind in LOOPS
        for block in [statement.body] if looped else statement.branches:
            found |= _risings(block, declarations, every, in_loop or looped)
        rising = statement.kind == "while" and _rising_bound(statement)
        if not rising or not _guardable(statement.body, found):
            continue
        counter, bound = rising
        start = _start(statements[k - 1], counter) if k else None
        before = [s for s in every if s.stop <= statement.tokens[0][0]]
        if start is None and not in_loop and not _assigns(before, counter):
            start = _declared_start(declarations, counter)
        if start is not None:
            found[id(statement)] = (counter, start, bound)
    return found


@dataclass
class _Guards:
    """The edits of a function's rising while loops, with what they need: the function's
    ``text``, its ``risings``, the names ``taken``, the Boolean ``flags`` added and the
    loops ``done``."""

    text: str
    risings: dict[int, tuple[str, str, str]]
    taken: set[str]
    edits: list[Edit] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    done: list[int] = field(default_factory=list)

    def loop(self, statement: Statement, guard: str | None) -> None:
        """A rising while loop as a for loop, its condition taken only where ``guard`` holds
        (None: always)."""
        _, start, bound = self.risings[id(statement)]
        passes, run = (
            _fresh(self.text, "__pass", self.taken),
            _fresh(self.text, "__run", self.taken),
        )
        condition = self.text[statement.head[0][0] : statement.loop[0]].strip()
        taken = f"{run} := {condition};"
        if guard is not None:
            taken = f"if {guard} then {taken} else {run} := false; end if;"
        first, loop, end = statement.tokens[0][0], statement.loop[0], statement.end[0]
        self.edits += [
            Edit(first, loop + 4, f"for {passes} in {start}:{bound} loop {taken}"),
            Edit(end, statement.tokens[-2][0] + 5, "end for"),
        ]
        self.flags.append(run)
        self.done.append(id(statement))
        self.guard(statement.body, run)

    def guard(self, statements: list[Statement], run: str) -> None:
        """Each of ``statements`` run only where ``run`` holds."""
        for statement in statements:
            if statement.kind == "for":
                self.guard(statement.body, run)
            elif statement.kind == "while":
                self.loop(statement, run)
            else:
                first = statement.tokens[0][0]
                self.edits += [
                    Edit(first, first, f"if {run} then "),
                    Edit(statement.stop, statement.stop, " end if;"),
                ]


def _fresh(text: str, stem: str, taken: set[str]) -> str:
    """A name ``stem`` with a number, in neither ``text`` nor ``taken`` (then taken)."""
    number = 1
    while f"{stem}{number}" in text or f"{stem}{number}" in taken:
        number += 1
    taken.add(f"{stem}{number}")
    return f"{stem}{number}"


def _unbound(declarations: list[Token], name: str) -> bool:
    """Whether ``name`` is declared among ``declarations`` (a function's tokens before its
    algorithm) without a binding or modification, and not as an input."""
    words = _words(declarations)
    for k in range(1, len(words) - 1):
        if words[k] != name or not (words[k + 1] in (";", ",") or words[k + 1][0] == '"'):
            continue
        start = max((j for j in range(k) if words[j] == ";"), default=-1) + 1
        return "input" not in words[start:k]
    return False


def _guard_returns(statements: list[Statement], flag: str, edits: list[Edit]) -> bool:
    """The edits that let ``flag`` stand for the returns among ``statements``; whether one of
    them may return."""
    returns = False
    for k, statement in enumerate(statements):
        here = False
        if statement.kind == "return":
            edits.append(Edit(statement.tokens[0][0], statement.stop, f"{flag} := true;"))
            here = True
        elif statement.kind in LOOPS and _guard_returns(statement.body, flag, edits):
            after_loop = statement.loop[0] + len("loop")
            edits += [
                Edit(after_loop, after_loop, f" if not {flag} then"),
                Edit(statement.end[0], statement.end[0], "end if; "),
            ]
            if statement.kind == "while":
                first, last = statement.head[0][0], statement.loop[0]
                edits += [Edit(first, first, f"not {flag} and ("), Edit(last, last, ") ")]
            here = True
        elif statement.branches:
            here = any([_guard_returns(b, flag, edits) for b in statement.branches])
        if here and k + 1 < len(statements):
            edits += [
                Edit(statement.stop, statement.stop, f" if not {flag} then"),
                Edit(statements[-1].stop, statements[-1].stop, " end if;"),
            ]
        returns = returns or here
    return returns


def _nested_return(statements: list[Statement], depth: int = 0) -> bool:
    """Whether a return stands inside a loop or inside a branch nested in another."""
    for statement in statements:
        if statement.kind == "return" and depth > 1:
            return True
        inner = [statement.body] if statement.kind in LOOPS else statement.branches
        step = 2 if statement.kind in LOOPS else 1
        if any(_nested_return(s, depth + step) for s in inner):
            return True
    return False


def unbounded_while(text: str, function: str) -> int | None:
    """The position in ``text`` of the first while loop of a function named ``function`` (its
    last name) whose passes its text does not bound (:func:`_bound`), which stays as written
    and rumoca 0.10 refuses; None where there is none."""
    for section in source_algorithms(text):
        keyword = section.start - len("algorithm")
        head = text.rfind("function", 0, keyword)
        named = [t for _, t in tokens(text[:keyword], max(head, 0))][1:2]
        if section.class_kind != "function" or named != [function]:
            continue
        try:
            statements, _ = _statements(section.statements, 0, set())
        except _UnreadableError:
            continue
        declarations = list(tokens(text[:keyword], max(head, 0)))
        every = statements + [s for t in statements for s in t.inner()]
        risings = _risings(statements, declarations, every)
        for statement in every:
            if statement.kind == "while" and not _bound(statement) and id(statement) not in risings:
                return statement.tokens[0][0]
    return None


def function_loops(text: str) -> list[Edit]:
    """The edits that give rumoca 0.10 the while loops with a provable bound and the returns
    inside loops of the functions in ``text`` in forms it translates (a source rewriter)."""
    if not CANDIDATES.search(text):
        return []
    edits: list[Edit] = []
    taken: set[str] = set()
    for section in source_algorithms(text):
        if section.class_kind != "function":
            continue
        try:
            statements, _ = _statements(section.statements, 0, set())
        except _UnreadableError:
            continue
        keyword = section.start - len("algorithm")
        head = text.rfind("function", 0, keyword)
        declarations = list(tokens(text[:keyword], max(head, 0)))
        every = statements + [s for t in statements for s in t.inner()]
        initialized = set()
        guards = _Guards(text, _risings(statements, declarations, every), taken)
        for statement in every:
            if id(statement) in guards.done:  # rewritten inside a rising loop around it
                continue
            bound = statement.kind == "while" and _bound(statement)
            if not bound and id(statement) in guards.risings:
                guards.loop(statement, None)
            if not bound:
                continue
            counter, array, position = bound
            name = _fresh(text, "__pass", taken)
            start, loop, end = statement.tokens[0][0], statement.loop[0], statement.end[0]
            edits += [
                Edit(start, start + 5, f"for {name} in 1:size({array}, {position}) loop if"),
                Edit(loop, loop + 4, "then"),
                Edit(end, statement.tokens[-2][0] + 5, "end if; end for"),
            ]
            if counter not in initialized and _unbound(declarations, counter):
                edits.append(Edit(section.start, section.start, f" {counter} := 0;"))
                initialized.add(counter)
        edits += guards.edits
        for run in guards.flags:
            edits += [
                Edit(keyword, keyword, f"protected Boolean {run}; "),
                Edit(section.start, section.start, f" {run} := false;"),
            ]
        for counter in dict.fromkeys(guards.risings[k][0] for k in guards.done):
            if counter not in initialized and _unbound(declarations, counter):
                edits.append(Edit(section.start, section.start, f" {counter} := 0;"))
                initialized.add(counter)
        if _nested_return(statements):
            flag = _fresh(text, "__returned", taken)
            edits += [
                Edit(keyword, keyword, f"protected Boolean {flag}; "),
                Edit(section.start, section.start, f" {flag} := false;"),
            ]
            _guard_returns(statements, flag, edits)
    return edits
