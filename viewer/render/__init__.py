"""Meshes, ray casting and offscreen images (open3d, trimesh, opencv). No Qt."""
