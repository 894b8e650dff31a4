#!/usr/bin/env bash
# The installed library is usable: `cmake --install` into a scratch prefix,
# then a small program built against it with pkg-config and with CMake's
# find_package(gnio) creates the CPU device and prints the version.
set -euo pipefail
: "${GNIO_BUILD:?}" "${GNIO_SRC:?}"
work=$(mktemp -d)
# A sanitizer build installs an instrumented library: consumers need the
# same runtime first in line, so build them with the same flags.
san=""
grep -q '^GNIO_SANITIZE:BOOL=ON' "$GNIO_BUILD/CMakeCache.txt" 2>/dev/null && san="-fsanitize=address,undefined"
trap 'rm -rf "$work"' EXIT
cmake --install "$GNIO_BUILD" --prefix "$work/prefix" >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; echo "FAIL: cmake --install"; exit 1; }
for f in include/gnio/gnio.h include/gnio/device/gnio_dev.h include/gnio/impl/ring.h bin/gnio \
	share/gnio/schemas/env.schema.json; do
	[ -e "$work/prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
cat >"$work/main.c" <<'C'
#include <gnio/gnio.h>
#include <stdio.h>
int main(void)
{
	struct gnio_gpu *g;
	gnio_error_t e = gnio_gpu_create("cpu", &g);
	if (e != GNIO_SUCCESS)
		return 1;
	printf("gnio %s %s\n", gnio_version(), gnio_gpu_get_backend(g));
	return gnio_gpu_destroy(g) == GNIO_SUCCESS ? 0 : 1;
}
C
pc=$(ls -d "$work"/prefix/lib*/pkgconfig | head -1)
flags=$(PKG_CONFIG_PATH="$pc" pkg-config --cflags --libs gnio)
libdir=$(PKG_CONFIG_PATH="$pc" pkg-config --variable=libdir gnio)
cc -std=c11 $san "$work/main.c" $flags -Wl,-rpath,"$libdir" -o "$work/pc"
out=$("$work/pc")
[ "$out" = "gnio $(sed -n 's/.*GNIO_VERSION_STRING "\(.*\)".*/\1/p' "$GNIO_SRC/include/gnio/version.h") cpu" ] ||
	{ echo "FAIL: pkg-config consumer printed '$out'"; exit 1; }
cat >"$work/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(gnio REQUIRED)
add_executable(cm main.c)
target_link_libraries(cm gnio::gnio)
C
cmake -S "$work" -B "$work/b" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_C_FLAGS="$san" >"$work/cm.log" 2>&1 &&
	cmake --build "$work/b" >>"$work/cm.log" 2>&1 || { cat "$work/cm.log"; echo "FAIL: find_package consumer"; exit 1; }
out2=$("$work/b/cm")
[ "$out2" = "$out" ] || { echo "FAIL: find_package consumer printed '$out2'"; exit 1; }
# The shared library exports the public API and nothing internal.
so=$(ls "$libdir"/libgnio.so.*.*.* | head -1)
syms=$(nm -D --defined-only "$so")
grep -q ' gnio_gpu_create@' <<<"$syms" || { echo "FAIL: gnio_gpu_create not exported"; exit 1; }
for internal in gnio_fail_msg gnio_wire_find gnio_rx_proxy_step gnio_gpu_alloc_internal; do
	if grep -q " $internal@" <<<"$syms"; then
		echo "FAIL: internal $internal is exported"
		exit 1
	fi
done
echo "ok: installed gnio used via pkg-config and find_package ($out)"
