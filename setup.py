"""Build of the compiled inner loop (a C extension, compiled with the system's C compiler)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "orchestrator._kernel",
            sources=[
                "orchestrator/_kernel.c",
                "orchestrator/_coupling.c",
                "orchestrator/_transfer.c",
            ],
            depends=["orchestrator/_coupling.h", "orchestrator/_transfer.h"],
            extra_compile_args=["-O3", "-std=c11"],
        )
    ]
)
