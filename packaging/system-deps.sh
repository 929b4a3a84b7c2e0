#!/usr/bin/env bash
# Debian packages the app and its tests need: Qt's xcb platform, open3d's
# runtime, a virtual screen, and the Vulkan/GL software renderers.
# Installs what is missing when run as root; otherwise names it and fails.
set -euo pipefail
PACKAGES=(
  libusb-1.0-0 libgomp1
  libgl1 libegl1 libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-image0
  libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0
  libdbus-1-3 libfontconfig1
  xvfb xauth
  mesa-vulkan-drivers libvulkan1 libgl1-mesa-dri
)
command -v dpkg-query >/dev/null 2>&1 || { echo "system-deps: not a Debian system; make sure the equivalents of: ${PACKAGES[*]} are installed" >&2; exit 0; }
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
  echo "system-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "system-deps: missing Debian packages: ${missing[*]}" >&2
  echo "system-deps: install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
