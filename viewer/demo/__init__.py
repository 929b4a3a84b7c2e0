"""A generated GST-Bench release with 3D scenes: `gst-viewer make-demo OUT`.

Qt-free. apartment/placement/furniture build the scenes, trajectory walks
them, scenebuild renders them (viewer.render), questions/prompts write the
12 tasks, models simulate predictions, writer/generate put it on disk.
"""
