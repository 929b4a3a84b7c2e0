#!/usr/bin/env bash
# `make package`: the PyInstaller one-folder build, the AppDir around it, and
# the built binary's --selftest, headless (offscreen; and on a virtual X
# screen when xvfb-run is there, which proves the xcb platform plugin loads).
#
#   packaging/package.sh [PYTHON]      PYTHON: the venv's python (default .venv/bin/python)
#
# Output (all under build/, not committed):
#   build/pyinstaller/dist/gst-viewer/   the one-folder build
#   build/gst-viewer.AppDir/             the AppDir (run ./AppRun)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${1:-.venv/bin/python}"
OUT=build
DIST="$OUT/pyinstaller/dist/gst-viewer"
APPDIR="$OUT/gst-viewer.AppDir"

if ! command -v objdump >/dev/null 2>&1; then          # PyInstaller reads binaries with it
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "package: installing binutils (PyInstaller needs objdump)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends binutils >/dev/null
  else
    echo "package: PyInstaller needs objdump; install binutils (sudo apt-get install binutils)" >&2
    exit 1
  fi
fi
if ! "$PY" -c "import PyInstaller" 2>/dev/null; then
  echo "package: installing PyInstaller into $(dirname "$PY")/.."
  "$PY" -m pip install --quiet "pyinstaller>=6.0"
fi

t0=$(date +%s)
"$PY" -m PyInstaller --noconfirm --clean --log-level WARN packaging/pyinstaller/gst-viewer.spec \
  --distpath "$OUT/pyinstaller/dist" --workpath "$OUT/pyinstaller/work"
t1=$(date +%s)
echo "package: PyInstaller build in $((t1 - t0)) s: $DIST ($(du -sh "$DIST" | cut -f1))"

bash packaging/linux/make-appdir.sh "$DIST" "$APPDIR"

echo "package: self-test of the built binary, headless (offscreen)"
env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM=offscreen "$APPDIR/AppRun" --selftest
if command -v xvfb-run >/dev/null 2>&1; then
  echo "package: self-test on a virtual X screen (xcb platform plugin)"
  env -u QT_QPA_PLATFORM xvfb-run -a -s "-screen 0 1600x1000x24" "$APPDIR/AppRun" --selftest
fi
echo "package: done in $(($(date +%s) - t0)) s; run $APPDIR/AppRun"
