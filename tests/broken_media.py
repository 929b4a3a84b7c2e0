"""Small media files, whole and broken the ways issue 26 found (shared by the fuzz, end-to-end and window tests).

Videos are H.264 MP4s written by PyAV; meshes are written here in the formats' real layouts (checked against
trimesh's own writers: `ply` with `element vertex/face` and `property list uchar int vertex_indices`, OBJ
`v`/`f` lines counting from 1, GLB a 12-byte header, a JSON chunk and a BIN chunk).
"""
from __future__ import annotations

import functools
import io
import json
import struct

import numpy as np


# ------------------------------------------------------------------ videos
@functools.lru_cache(maxsize=8)
def small_mp4(frames: int = 12, faststart: bool = True, gop: int = 4, size: tuple[int, int] = (32, 24)) -> bytes:
    """An H.264 MP4 of `frames` frames at 10 fps, frame k grey level 20 k; `faststart` puts the moov box (the
    index) before the data, as published benchmark videos have it."""
    import os
    import tempfile

    import av
    w, h = size
    fd, path = tempfile.mkstemp(suffix=".mp4")      # faststart rewrites the file: not a BytesIO
    os.close(fd)
    with av.open(path, "w", format="mp4", options={"movflags": "faststart"} if faststart else {}) as c:
        s = c.add_stream("libx264", rate=10)
        s.width, s.height, s.pix_fmt = w, h, "yuv420p"
        s.options = {"g": str(gop)}
        for k in range(frames):
            frame = av.VideoFrame.from_ndarray(np.full((h, w, 3), (20 * k) % 256, np.uint8), format="rgb24")
            for packet in s.encode(frame):
                c.mux(packet)
        for packet in s.encode():
            c.mux(packet)
    try:
        with open(path, "rb") as f:
            return f.read()
    finally:
        os.unlink(path)


@functools.lru_cache(maxsize=1)
def audio_only_mp4() -> bytes:
    import av
    buf = io.BytesIO()
    with av.open(buf, "w", format="mp4") as c:
        s = c.add_stream("aac", rate=8000)
        s.layout = "mono"
        for k in range(4):
            f = av.AudioFrame.from_ndarray(np.zeros((1, 1024), np.float32), format="fltp", layout="mono")
            f.sample_rate, f.pts = 8000, k * 1024
            for packet in s.encode(f):
                c.mux(packet)
        for packet in s.encode():
            c.mux(packet)
    return buf.getvalue()


def boxes(data: bytes) -> list[tuple[str, int, int]]:
    """The top-level MP4 boxes: (type, offset, length)."""
    out, at = [], 0
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        out.append((kind.decode("latin-1"), at, length))
        if length < 8:
            break
        at += length
    return out


def broken_video(kind: str, where: float = 0.5, seed: int = 0) -> bytes:
    """A video broken as `kind` says: "whole", "cut" (truncated at fraction `where`), "cut-moov-last" (the index
    written after the data, then cut), "moov-renamed", "garbage-avcC", "audio-only", "zero-frames", "empty"."""
    rng = np.random.default_rng(seed)
    if kind == "whole":
        return small_mp4()
    if kind == "cut":
        data = small_mp4()
        return data[:max(1, min(len(data) - 1, int(len(data) * where)))]
    if kind == "cut-moov-last":
        data = small_mp4(faststart=False)
        return data[:max(1, min(len(data) - 1, int(len(data) * where)))]
    if kind == "moov-renamed":
        return small_mp4().replace(b"moov", b"moow", 1)
    if kind == "garbage-avcC":
        data = bytearray(small_mp4())
        k = data.index(b"avcC") + 4
        n = struct.unpack(">I", data[k - 8:k - 4])[0] - 8
        # keep the version byte and the NAL length size, as a writer would; the SPS/PPS are garbage
        data[k + 6:k + n] = rng.integers(0, 256, n - 6, dtype=np.uint8).tobytes()
        return bytes(data)
    if kind == "audio-only":
        return audio_only_mp4()
    if kind == "zero-frames":     # the video track kept, its sample table emptied (stsz's sample count 0)
        data = bytearray(small_mp4())
        k = data.index(b"stsz") + 4
        data[k + 8:k + 12] = bytes(4)
        return bytes(data)
    if kind == "empty":
        return b""
    raise ValueError(kind)


VIDEO_KINDS = ("whole", "cut", "cut-moov-last", "moov-renamed", "garbage-avcC", "audio-only", "zero-frames", "empty")


# ------------------------------------------------------------------ meshes
def tetra() -> tuple[np.ndarray, np.ndarray]:
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float)
    f = np.array([[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]])
    return v, f


def ply_ascii(v: np.ndarray, f: np.ndarray) -> bytes:
    head = (f"ply\nformat ascii 1.0\nelement vertex {len(v)}\nproperty float x\nproperty float y\n"
            f"property float z\nelement face {len(f)}\nproperty list uchar int vertex_indices\nend_header\n")
    body = "".join(f"{a!r} {b!r} {c!r}\n" for a, b, c in v.tolist())
    body += "".join("3 " + " ".join(str(int(i)) for i in face) + "\n" for face in f)
    return (head + body).encode()


def ply_binary(v: np.ndarray, f: np.ndarray) -> bytes:
    head = (f"ply\nformat binary_little_endian 1.0\nelement vertex {len(v)}\nproperty float x\nproperty float y\n"
            f"property float z\nelement face {len(f)}\nproperty list uchar int vertex_indices\nend_header\n")
    rows = np.zeros(len(f), dtype=[("n", "u1"), ("i", "<i4", 3)])
    rows["n"], rows["i"] = 3, f
    return head.encode() + np.asarray(v, "<f4").tobytes() + rows.tobytes()


def obj_text(v: np.ndarray, f: np.ndarray, base: int = 1) -> bytes:
    lines = [f"v {a!r} {b!r} {c!r}" for a, b, c in v.tolist()]
    lines += ["f " + " ".join(str(int(i) + base) for i in face) for face in f]
    return ("\n".join(lines) + "\n").encode()


def glb(v: np.ndarray, f: np.ndarray, nodes: list[dict] | None = None, scene_nodes: list[int] | None = None) -> bytes:
    """A GLB of one mesh; `nodes` replaces the node list (each node may name the mesh and children)."""
    idx = np.asarray(f, "<u4").tobytes()
    pos = np.asarray(v, "<f4").tobytes()
    binary = idx + pos
    finite = np.isfinite(v).all() if len(v) else True
    doc = {
        "asset": {"version": "2.0"}, "scene": 0,
        "scenes": [{"nodes": scene_nodes if scene_nodes is not None else [0]}],
        "nodes": nodes if nodes is not None else [{"name": "part", "mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 1}, "indices": 0, "mode": 4}]}],
        "buffers": [{"byteLength": len(binary)}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": len(idx)},
                        {"buffer": 0, "byteOffset": len(idx), "byteLength": len(pos)}],
        "accessors": [
            {"bufferView": 0, "componentType": 5125, "count": int(np.size(f)), "type": "SCALAR"},
            {"bufferView": 1, "componentType": 5126, "count": len(v), "type": "VEC3",
             "min": (np.min(v, axis=0).tolist() if finite and len(v) else [0, 0, 0]),
             "max": (np.max(v, axis=0).tolist() if finite and len(v) else [0, 0, 0])}],
    }
    j = json.dumps(doc).encode()
    j += b" " * (-len(j) % 4)
    binary += b"\0" * (-len(binary) % 4)
    body = struct.pack("<I4s", len(j), b"JSON") + j + struct.pack("<I4s", len(binary), b"BIN\0") + binary
    return b"glTF" + struct.pack("<II", 2, 12 + len(body)) + body
