"""Spring-mass test FMUs with one faulty FMI function (``data/faults.c``), made in the tests.

The healthy function of ``data/spring_mass.c`` (or ``spring_mass_fmi3.c``) is renamed
``healthy_<function>`` in its object file (objcopy), and the exported ``<function>`` of
``faults.c`` segfaults, aborts, exits, hangs, returns an error or returns NaN once ``after``
calls have gone well.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from foreign import DATA, HEADERS, SPRING_MASS, spring_mass_fmu

KINDS = ("SEGV", "ABORT", "EXIT", "HANG", "ERROR", "NAN_VALUES")


def faulty_fmu(
    folder: Path,
    function: str,
    kind: str,
    after: int,
    interfaces: tuple[str, ...] = ("ModelExchange",),
    above: float | None = None,
) -> Path:
    """A spring-mass FMU (FMI 3.0 if ``function`` starts with fmi3) whose ``function`` fails
    with ``kind`` (one of ``KINDS``) on its call number ``after`` + 1; with ``above`` (a
    derivative function), only in calls where the speed exceeds ``above`` (m/s)."""
    assert kind in KINDS, kind
    version = "3.0" if function.startswith("fmi3") else "2.0"
    identifier, sources, *_ = SPRING_MASS[version]
    folder.mkdir(parents=True, exist_ok=True)
    compile_ = ["gcc", "-c", "-fPIC", "-O2", f"-I{HEADERS}"]
    objects = []
    for source in sources:
        target = folder / f"{Path(source).stem}.o"
        subprocess.run([*compile_, str(DATA / source), "-o", str(target)], check=True)
        objects.append(target)
    subprocess.run(
        ["objcopy", f"--redefine-sym={function}=healthy_{function}", str(objects[0])], check=True
    )
    flags = [f"-DFAULT_{function}", f"-DFAULT_KIND={kind}", f"-DFAULT_AFTER={after}"]
    flags += ["-DFMI3"] if version == "3.0" else []
    flags += [f"-DFAULT_ABOVE={above!r}"] if above is not None else []
    faults = folder / "faults.o"
    subprocess.run([*compile_, *flags, str(DATA / "faults.c"), "-o", str(faults)], check=True)
    binary = folder / f"{identifier}.so"
    subprocess.run(
        ["gcc", "-shared", *map(str, [*objects, faults]), "-o", str(binary), "-lm"], check=True
    )
    return spring_mass_fmu(folder, interfaces, version)
