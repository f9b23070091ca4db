"""Build of the compiled inner loop (a C extension, compiled with the system's C compiler)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "orchestrator.native._kernel",
            sources=[
                "orchestrator/native/_kernel.c",
                "orchestrator/native/_coupling.c",
                "orchestrator/native/_transfer.c",
                "orchestrator/native/_navigation.c",
                "orchestrator/native/_controllers.c",
            ],
            depends=[
                "orchestrator/native/_coupling.h",
                "orchestrator/native/_transfer.h",
                "orchestrator/native/_navigation.h",
                "orchestrator/native/_controllers.h",
                "orchestrator/native/_algebra3.h",
                "orchestrator/native/_buffers.h",
            ],
            # no fused multiply-adds: the controllers' laws give the same numbers as the
            # Python statements they replaced on every processor
            extra_compile_args=["-O3", "-std=c11", "-ffp-contract=off"],
        ),
        Extension(
            "orchestrator.native._ticks",
            sources=["orchestrator/native/_ticks.c"],
            extra_compile_args=["-O3", "-std=c11"],
        ),
        Extension(
            "orchestrator.native._allocation",
            sources=["orchestrator/native/_allocation.c"],
            depends=["orchestrator/native/_buffers.h", "orchestrator/native/_daqp.h"],
            extra_compile_args=["-O3", "-std=c11"],
        ),
    ]
)
