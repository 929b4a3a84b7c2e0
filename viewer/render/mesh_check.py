"""What a mesh file must be before its triangles are used: checked on the file's own bytes and on the arrays
read from it, so that nothing a reader quietly repairs or wraps around reaches a scene.

trimesh, left to itself, drops the faces of NaN vertices, wraps an index of -1 (or an OBJ index of 0) to the
last vertex, keeps the faces read before an ASCII PLY ends early, and follows a glTF node that is its own
child for ever. So, before trimesh reads a file: a glTF's scene graph is walked with cycle detection, an
OBJ's face lines are checked against the vertices defined so far (1-based; 0 is no index), and an ASCII
PLY's rows are counted against its header. After, `array_problem` checks every face index against the
vertex count and every coordinate for NaN or infinity. Each problem is one sentence, for a UserError
naming the file.
"""
from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import numpy as np

# Lines of an OBJ or PLY read for the checks: beyond this, a file is left to the reader's own checks (a
# scene of 8 million triangles is about 10 million lines).
MAX_CHECKED_LINES = 20_000_000


def file_problem(path: Path) -> str | None:
    """Why the mesh file at `path` must not be read, from its bytes; None when nothing is wrong."""
    suffix = path.suffix.lower()
    check = {".gltf": _gltf_problem, ".glb": _gltf_problem, ".obj": _obj_problem, ".ply": _ply_problem}.get(suffix)
    if check is None:
        return None
    try:
        return check(path)
    except OSError as e:
        return f"cannot be read ({e.strerror or e})"


def array_problem(vertices: np.ndarray, faces: np.ndarray, what: str) -> str | None:
    """Why one part's arrays cannot be drawn: face indices outside [0, V) or vertices not finite."""
    n = len(vertices)
    if len(faces):
        lo, hi = int(faces.min()), int(faces.max())
        if lo < 0 or hi >= n:
            bad = int(((faces < 0) | (faces >= n)).any(axis=1).sum())
            worst = lo if lo < 0 else hi
            return (f"{what}: {bad:,} faces use vertex indices outside 0..{n - 1} (e.g. {worst}); the mesh has "
                    f"{n:,} vertices")
    finite = np.isfinite(vertices).all(axis=1)
    if not finite.all():
        k = int(np.flatnonzero(~finite)[0])
        return (f"{what}: {int((~finite).sum()):,} vertices have NaN or infinite coordinates "
                f"(e.g. vertex {k}: {vertices[k].tolist()})")
    return None


# ------------------------------------------------------------------ glTF
def _gltf_json(path: Path) -> dict | None:
    data = path.read_bytes()
    if path.suffix.lower() == ".glb" or data[:4] == b"glTF":
        if len(data) < 20 or data[:4] != b"glTF":
            raise ValueError("not a GLB file (no glTF header)")
        length, kind = struct.unpack("<I4s", data[12:20])
        if kind != b"JSON" or 20 + length > len(data):
            raise ValueError("its JSON chunk is missing or cut short")
        data = data[20:20 + length]
    doc = json.loads(data)
    return doc if isinstance(doc, dict) else None


def _gltf_problem(path: Path) -> str | None:
    try:
        doc = _gltf_json(path)
    except (ValueError, RecursionError, UnicodeDecodeError) as e:
        return f"not a readable glTF ({e})"
    if doc is None:
        return "not a glTF document (a JSON object)"
    return gltf_graph_problem(doc)


def gltf_graph_problem(doc: dict) -> str | None:
    """A glTF node hierarchy is a set of disjoint strict trees (the specification): a node that is its own
    ancestor, a child named twice, or an index beyond `nodes` is said; an iterative walk, so that a deep
    graph cannot exhaust the stack."""
    nodes = doc.get("nodes") or []
    if not isinstance(nodes, list):
        return "'nodes' is not a list"
    n = len(nodes)
    parent: dict[int, int] = {}
    for k, node in enumerate(nodes):
        children = node.get("children", []) if isinstance(node, dict) else []
        if not isinstance(children, list):
            return f"node {k}: 'children' is not a list"
        for c in children:
            if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < n:
                return f"node {k} names child {c!r}, but the file has {n} nodes"
            if c == k:
                return f"node {k} is its own child (a cycle in the scene graph)"
            if c in parent:
                return (f"node {c} is a child of node {parent[c]} and of node {k}: a glTF node has one parent "
                        "(the scene graph is not a tree)")
            parent[c] = k
    for start in range(n):          # with one parent each, a cycle is a chain of parents that comes back
        seen, k = {start}, start
        while k in parent:
            k = parent[k]
            if k in seen:
                return f"node {start} is its own ancestor (a cycle in the scene graph)"
            seen.add(k)
    for s, scene in enumerate(doc.get("scenes") or []):
        for root in (scene.get("nodes", []) if isinstance(scene, dict) else []):
            if not isinstance(root, int) or isinstance(root, bool) or not 0 <= root < n:
                return f"scene {s} names node {root!r}, but the file has {n} nodes"
    return None


# ------------------------------------------------------------------ OBJ
def _obj_problem(path: Path) -> str | None:
    vertices = 0
    highest = (0, 0)                 # the highest positive index and its line (vertices may follow faces)
    with open(path, "rb") as f:
        for line_no, raw in enumerate(f, 1):
            if line_no > MAX_CHECKED_LINES:
                return None
            tokens = raw.split()
            if not tokens:
                continue
            if tokens[0] == b"v":
                try:
                    xyz = [float(t) for t in tokens[1:4]]
                except ValueError:
                    return f"line {line_no}: a vertex that is not numbers ({raw[:60].decode('latin-1').strip()!r})"
                if len(xyz) < 3:
                    return f"line {line_no}: a vertex with {len(xyz)} coordinates" + _cut(raw)
                if not all(math.isfinite(c) for c in xyz):
                    return f"line {line_no}: vertex {vertices + 1} has NaN or infinite coordinates {xyz}"
                vertices += 1
            elif tokens[0] == b"f":
                if len(tokens) < 4:
                    return f"line {line_no}: a face with {len(tokens) - 1} vertices" + _cut(raw)
                for t in tokens[1:]:
                    head = t.split(b"/")[0]
                    try:
                        i = int(head)
                    except ValueError:
                        return f"line {line_no}: face index {head.decode('latin-1')!r} is not a number" + _cut(raw)
                    if i == 0:
                        return (f"line {line_no}: face index 0; OBJ indices start at 1 (a 0-based file is not "
                                "an OBJ)")
                    if -i > vertices:
                        return (f"line {line_no}: face index {i}, but {vertices} vertices are defined before it "
                                "(a negative OBJ index counts back from the last vertex)")
                    highest = max(highest, (i, line_no))
    if highest[0] > vertices:
        return (f"line {highest[1]}: face index {highest[0]}, but the file defines {vertices} vertices "
                "(OBJ indices count from 1)")
    return None


def _cut(raw: bytes) -> str:
    return "; the file ends mid-line: it is cut short" if not raw.endswith(b"\n") else ""


# ------------------------------------------------------------------ PLY
def _ply_problem(path: Path) -> str | None:
    with open(path, "rb") as f:
        if f.readline().strip() != b"ply":
            return "not a PLY file (no 'ply' first line)"
        fmt, elements, props = None, [], []        # props: per element, for each property whether it is a list
        for _ in range(10_000):
            line = f.readline()
            if not line:
                return "the header has no end_header: the file is cut short"
            tokens = line.split()
            if not tokens:
                continue
            if tokens[0] == b"format" and len(tokens) > 1:
                fmt = tokens[1].decode("latin-1")
            elif tokens[0] == b"element" and len(tokens) >= 3:
                try:
                    elements.append((tokens[1].decode("latin-1"), int(tokens[2])))
                    props.append([])
                except ValueError:
                    return f"element {tokens[1].decode('latin-1')!r} has no count"
            elif tokens[0] == b"property" and props:
                props[-1].append(len(tokens) > 1 and tokens[1] == b"list")
            elif tokens[0] == b"end_header":
                break
        else:
            return "the header has no end_header"
        if fmt != "ascii":
            return None          # binary: the reader checks its length against the header
        rows = sum(count for _, count in elements)
        seen, last = 0, b""
        for line in f:
            if line.strip():
                seen += 1
                last = line
                if seen >= MAX_CHECKED_LINES:
                    return None
    if seen >= rows:
        return _last_row_problem(last, elements, props)
    done = 0
    for name, count in elements:
        if seen < done + count:
            return (f"its header declares {count:,} {name} rows but the file holds {max(0, seen - done):,} of them: "
                    "the file is cut short")
        done += count
    return None


def _last_row_problem(last: bytes, elements: list, props: list) -> str | None:
    """A file cut inside its last row still has as many rows as its header says: the row is short."""
    if last.endswith(b"\n") or not elements:
        return None
    name, kinds = elements[-1][0], props[-1]
    tokens = last.split()
    k = 0
    for is_list in kinds:
        if k >= len(tokens):
            break
        if is_list:
            try:
                k += 1 + int(float(tokens[k]))
            except ValueError:
                return f"its last {name} row is not numbers: the file is cut short or damaged"
        else:
            k += 1
    if k > len(tokens) or (kinds and k == 0):
        return f"its last {name} row is incomplete ({len(tokens)} values): the file is cut short"
    return None
