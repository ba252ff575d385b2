#!/bin/sh
# Makes .devdeps/ for scripts/gpu-session.sh on a bare GPU machine: the
# Debian packages it lacks (jansson for libcuzk, GMP for the tests),
# unpacked, with unversioned links for the linker and a setup.sh that
# gpu-session.sh sources.  Run it here (apt-get download needs Debian's
# archive), then send .devdeps with the tree: git ignores it, so the
# machine's copy must be asked for by name (the device tool's "carry").
# The daemon (libmicrohttpd, libinih) and the fleet (libpq) are not built
# there (gpu-session.sh turns them off when .devdeps is present).
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
D=$SRC/.devdeps
rm -rf "$D"
mkdir -p "$D/debs" "$D/root" "$D/lnk" "$D/include"
(cd "$D/debs" && apt-get download libjansson4 libjansson-dev libgmp10 libgmp-dev)
for f in "$D"/debs/*.deb; do dpkg -x "$f" "$D/root"; done
rm -rf "$D/debs"
lib=../root/usr/lib/x86_64-linux-gnu
ln -s "$lib/libjansson.so.4" "$D/lnk/libjansson.so"
ln -s "$lib/libjansson.so.4" "$D/lnk/libjansson.so.4"
ln -s "$lib/libgmp.so.10" "$D/lnk/libgmp.so"
ln -s "$lib/libgmp.so.10" "$D/lnk/libgmp.so.10"
cp "$D"/root/usr/include/jansson*.h "$D/include/"
cp "$D/root/usr/include/x86_64-linux-gnu/gmp.h" "$D/include/"
cat >"$D/setup.sh" <<'END'
# Sourced by scripts/gpu-session.sh ($SRC is the tree): the unpacked
# libraries come first on the loader's path.
export LD_LIBRARY_PATH="$SRC/.devdeps/lnk${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
END
echo "gpu-devdeps: $(du -sh "$D" | cut -f1) in $D"
