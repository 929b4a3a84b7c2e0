"""`gst-viewer make-demo OUT`: the demo release, generated (viewer/demo; needs the [demo] extra)."""
from __future__ import annotations

import argparse
from pathlib import Path

from .cli_args import EXIT_OK, add_executor_options, add_workers_option, batch_executor
from .core.diagnostics import UserError


def cmd_make_demo(argv: list[str]) -> int:
    """Generate a demo release with 3D scenes, videos and simulated models' predictions."""
    p = argparse.ArgumentParser(prog="gst-viewer make-demo",
                                description="Generate a demo release with 3D scenes, videos and predictions.")
    p.add_argument("out", help="output folder")
    p.add_argument("--scenes", type=int, default=3,
                   help="how many apartments (scenes) to build, each with its video and questions (default 3)")
    p.add_argument("--seed", type=int, default=0,
                   help="random seed: the same seed gives the same scenes, questions and predictions (default 0)")
    p.add_argument("--no-scenes", action="store_true",
                   help="write no 3D metadata (scene.json, meshes, meta), as the real release ships")
    p.add_argument("--settings", action="store_true",
                   help="also write the Local-Video and Local-Image variants of the object questions and "
                        "models built for Table 2 (docs/data-format.md, Settings)")
    p.add_argument("--textured", action="store_true",
                   help="render walls, floors and furniture with procedural textures (wallpaper, floorboards, "
                        "tiles, wood grain, fabric), fixed to the surfaces and drawn from --seed, so the videos "
                        "carry features for structure from motion as real footage does (docs/data-format.md)")
    add_executor_options(p, "the per-scene work")
    add_workers_option(p, "processes building scenes (--executor local) or a LocalCluster's workers (dask); "
                          "default: one scene after another here")
    args = p.parse_args(argv)
    try:
        from .demo.generate import generate_demo
        from .demo.scenebuild import DemoConfig
    except ImportError as e:
        raise UserError(f"the demo generator is not available ({e})") from None
    executor = batch_executor(args)
    try:
        generate_demo(Path(args.out), scenes=args.scenes, seed=args.seed, config=DemoConfig(textured=args.textured),
                      with_scenes=not args.no_scenes, with_settings=args.settings, executor=executor)
    finally:
        if executor is not None:
            executor.close()
    return EXIT_OK
