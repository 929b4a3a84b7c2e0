#!/usr/bin/env bash
# Assemble an AppImage-style folder (AppDir) from the PyInstaller one-folder build.
#
#   packaging/linux/make-appdir.sh BUILD OUT
#
# BUILD: the PyInstaller output folder (holding the `gst-viewer` executable and
# `_internal/`); OUT: the AppDir to (re)create. The result runs as OUT/AppRun,
# and `appimagetool OUT` turns it into a single-file AppImage (appimagetool is
# not part of this build: it is not in Debian, and the build downloads nothing).
#
#   OUT/AppRun                                   starts usr/lib/gst-viewer/gst-viewer
#   OUT/io.github.gst_bench.gst_viewer.desktop   desktop entry (also in usr/share/applications)
#   OUT/gst-viewer.png, OUT/.DirIcon             256 px icon
#   OUT/usr/bin/gst-viewer                       symlink to the executable
#   OUT/usr/lib/gst-viewer/                      the PyInstaller build
#   OUT/usr/share/metainfo/, usr/share/icons/hicolor/...
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ID=io.github.gst_bench.gst_viewer
BUILD="${1:?usage: make-appdir.sh PYINSTALLER_BUILD_DIR OUT_APPDIR}"
OUT="${2:?usage: make-appdir.sh PYINSTALLER_BUILD_DIR OUT_APPDIR}"

[ -x "$BUILD/gst-viewer" ] || { echo "make-appdir: $BUILD/gst-viewer: no executable (run PyInstaller first)" >&2; exit 1; }
mkdir -p "$(dirname "$OUT")"
case "$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT")" in
  /|"$HOME"|"$(pwd)") echo "make-appdir: refusing to replace $OUT" >&2; exit 1 ;;
esac

rm -rf "$OUT"
mkdir -p "$OUT/usr/bin" "$OUT/usr/lib" "$OUT/usr/share/applications" "$OUT/usr/share/metainfo" \
         "$OUT/usr/share/icons/hicolor/scalable/apps"
# Hard links when on the same file system: no second copy of ~0.5 GB.
cp -al "$BUILD" "$OUT/usr/lib/gst-viewer" 2>/dev/null || { rm -rf "$OUT/usr/lib/gst-viewer"; cp -a "$BUILD" "$OUT/usr/lib/gst-viewer"; }
ln -s ../lib/gst-viewer/gst-viewer "$OUT/usr/bin/gst-viewer"

install -m 644 "$HERE/$ID.desktop" "$OUT/usr/share/applications/$ID.desktop"
install -m 644 "$HERE/$ID.desktop" "$OUT/$ID.desktop"
install -m 644 "$HERE/$ID.metainfo.xml" "$OUT/usr/share/metainfo/$ID.metainfo.xml"
install -m 644 "$HERE/icons/gst-viewer.svg" "$OUT/usr/share/icons/hicolor/scalable/apps/gst-viewer.svg"
for png in "$HERE"/icons/hicolor/*/apps/gst-viewer.png; do
  size="$(basename "$(dirname "$(dirname "$png")")")"
  mkdir -p "$OUT/usr/share/icons/hicolor/$size/apps"
  install -m 644 "$png" "$OUT/usr/share/icons/hicolor/$size/apps/gst-viewer.png"
done
install -m 644 "$HERE/icons/hicolor/256x256/apps/gst-viewer.png" "$OUT/gst-viewer.png"
ln -s gst-viewer.png "$OUT/.DirIcon"

cat > "$OUT/AppRun" <<'EOF'
#!/bin/sh
# AppImage entry point: run the bundled gst-viewer with the arguments given.
HERE="$(dirname "$(readlink -f "$0")")"
export APPDIR="${APPDIR:-$HERE}"
exec "$HERE/usr/lib/gst-viewer/gst-viewer" "$@"
EOF
chmod 755 "$OUT/AppRun"

echo "make-appdir: $OUT ($(du -sh "$OUT" | cut -f1)); run it as $OUT/AppRun"
if command -v appimagetool >/dev/null 2>&1; then
  echo "make-appdir: appimagetool found; to make a single file: appimagetool $OUT"
fi
