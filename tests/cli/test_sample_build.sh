#!/bin/bash
# SPDX-License-Identifier: MIT
# The build and modify steps against an installed gnio: `cmake --install`
# into a scratch prefix; the installed `gnio sample new` copies a sample into
# a new folder; the copy builds with CMake (find_package(gnio)) and with make
# (pkg-config), its CUDA kernel included when gnio was built with CUDA, and
# runs on the CPU device with balanced books. Every sample's C builds out of
# tree with pkg-config and runs. The package files carry the CUDA settings.
. "$(dirname "$0")/lib.sh"
: "${GNIO_BUILD:?}"

san="" cuda=0
grep -q '^GNIO_SANITIZE:BOOL=ON' "$GNIO_BUILD/CMakeCache.txt" 2>/dev/null && san="-fsanitize=address,undefined"
grep -q '^GNIO_WITH_CUDA:BOOL=ON' "$GNIO_BUILD/CMakeCache.txt" 2>/dev/null && cuda=1
NVCC=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$GNIO_BUILD/CMakeCache.txt")
# One GPU architecture keeps each nvcc run short here; the default (the
# library's list) is checked in the package files below.
ARCH=90

P="$TMP/prefix"
cmake --install "$GNIO_BUILD" --prefix "$P" >"$TMP/install.log" 2>&1 ||
	{ cat "$TMP/install.log"; echo "FAIL: cmake --install"; exit 1; }
pcdir=$(ls -d "$P"/lib*/pkgconfig | head -1)
export PKG_CONFIG_PATH="$pcdir"

# --- the package files -----------------------------------------------------------
want_cuda=no
[ $cuda = 1 ] && want_cuda=yes
check "gnio.pc says cuda=$want_cuda" [ "$(pkg-config --variable=cuda gnio)" = $want_cuda ]
if [ $cuda = 1 ]; then
	check "gnio.pc names the nvcc gnio was built with" [ "$(pkg-config --variable=nvcc gnio)" = "$NVCC" ]
	flags=$(pkg-config --variable=cudaflags gnio)
	check "gnio.pc cudaflags: C++17 and sm_90 code ($flags)" \
		sh -c "echo '$flags' | grep -q -- '-std=c++17' && echo '$flags' | grep -q 'code=sm_90'"
	check "gnioConfig.cmake exports GNIO_CUDA_ARCHITECTURES" \
		grep -q 'set(GNIO_CUDA_ARCHITECTURES "[0-9]' "$P"/lib*/cmake/gnio/gnioConfig.cmake
fi
check "gnioConfig.cmake exports GNIO_WITH_CUDA and GNIO_SAMPLES_DIR" \
	sh -c "grep -q 'set(GNIO_WITH_CUDA ' $P/lib*/cmake/gnio/gnioConfig.cmake && grep -q GNIO_SAMPLES_DIR $P/lib*/cmake/gnio/gnioConfig.cmake"
check "the samples are installed as sources" [ -f "$P/share/gnio/samples/packet_processing/packet_processing_kernel.cu" ]

# run_green BIN WHAT ARGS...: the program runs on the CPU device over sw with
# exact counts and says ok.
run_green() {
	local bin=$1 what=$2
	shift 2
	"$bin" -g cpu --json "$@" >"$TMP/run.out" 2>"$TMP/run.err"
	local rc=$?
	tail -n 1 "$TMP/run.out" >"$TMP/run.json"
	check "$what: runs green (exit $rc)" [ $rc -eq 0 ]
	check "$what: ok, books balanced" [ "$(jq_py "$TMP/run.json" 'd["ok"] and d["balanced"]')" = True ]
	# on failure: the reason and the books the program printed
	if [ $rc -ne 0 ]; then
		tail -n 5 "$TMP/run.err"
		cat "$TMP/run.json"
	fi
}
has_cuda_kernel() { nm "$1" 2>/dev/null | grep -q "$2_cuda"; }

# --- gnio sample new, then CMake with find_package(gnio) --------------------------
"$P/bin/gnio" sample new packet_processing "$TMP/my/pp" >"$TMP/new.out" 2>&1; rc=$?
check "the installed gnio sample new copies packet_processing (exit $rc)" [ $rc -eq 0 ]
check "... from the installed samples" grep -q "$P/share/gnio/samples" <<< "$("$P/bin/gnio" sample list)"
check "... and says how to build it" grep -q "cmake -S $TMP/my/pp" "$TMP/new.out"
cmake -S "$TMP/my/pp" -B "$TMP/my/pp/build" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_CUDA_ARCHITECTURES=$ARCH-real \
	${NVCC:+-DCMAKE_CUDA_COMPILER=$NVCC} -DCMAKE_C_FLAGS="$san" -DCMAKE_EXE_LINKER_FLAGS="$san" \
	>"$TMP/cm.log" 2>&1 && cmake --build "$TMP/my/pp/build" -j2 >>"$TMP/cm.log" 2>&1
rc=$?
check "the copy builds with CMake, find_package(gnio) (exit $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || tail -20 "$TMP/cm.log"
bin="$TMP/my/pp/build/gnio_packet_processing"
if [ $cuda = 1 ]; then
	check "its CUDA kernel is built in (packet_processing_kernel.cu)" has_cuda_kernel "$bin" packet_processing
else
	check "without CUDA in gnio, it is the CPU-device body only" sh -c "! nm '$bin' | grep -q packet_processing_cuda"
fi
check "it links the installed libgnio" sh -c "ldd '$bin' | grep -q '$P/lib.*/libgnio.so'"
run_green "$bin" "CMake-built packet_processing" -c 8000
check "CMake-built packet_processing: 1000 echo replies" [ "$(jq_py "$TMP/run.json" 'd["icmp_replies"]')" = 1000 ]

# --- modify: a change to the copy is what runs ------------------------------------
sed -i 's|<h1>gnio packet_processing</h1>|<h1>my packet_processing</h1>|' "$TMP/my/pp/pp_pages.c"
cmake --build "$TMP/my/pp/build" >>"$TMP/cm.log" 2>&1
check "a modified copy rebuilds" sh -c "strings '$bin' | grep -q 'my packet_processing'"

# --- make with pkg-config ----------------------------------------------------------
"$P/bin/gnio" sample new l2fwd "$TMP/my/fwd" >/dev/null 2>&1
make -C "$TMP/my/fwd" CUDAFLAGS="-std=c++17 -arch=sm_$ARCH" CFLAGS="-O1 -g $san" LDFLAGS="$san" \
	>"$TMP/mk.log" 2>&1
rc=$?
check "the l2fwd copy builds with make and pkg-config (exit $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || tail -20 "$TMP/mk.log"
if [ $cuda = 1 ]; then
	check "its CUDA kernel is built in (l2fwd_kernel.cu, nvcc from gnio.pc)" has_cuda_kernel "$TMP/my/fwd/gnio_l2fwd" l2fwd
	check "nvcc compiled it" grep -q "$NVCC .*l2fwd_kernel.cu" "$TMP/mk.log"
fi
run_green "$TMP/my/fwd/gnio_l2fwd" "make-built l2fwd" -c 20000
check "make-built l2fwd: every frame back" [ "$(jq_py "$TMP/run.json" 'd["peer_received"]')" = 20000 ]

# --- every sample's C, out of tree from the installed sources ---------------------
cp -r "$P/share/gnio/samples" "$TMP/all"
for s in simple_receive simple_send send_wait_time l2fwd packet_processing; do
	make -C "$TMP/all/$s" CUDA=0 CFLAGS="-O1 -g $san" LDFLAGS="$san" >"$TMP/mk_$s.log" 2>&1
	rc=$?
	check "installed $s builds with make CUDA=0 (exit $rc)" [ $rc -eq 0 ]
	[ $rc -eq 0 ] || { tail -10 "$TMP/mk_$s.log"; continue; }
	case $s in
	simple_send) run_green "$TMP/all/$s/gnio_$s" "out-of-tree $s" -c 2000 ;;
	send_wait_time) run_green "$TMP/all/$s/gnio_$s" "out-of-tree $s" -c 10 -i 1000 ;;
	*) run_green "$TMP/all/$s/gnio_$s" "out-of-tree $s" -c 2000 ;;
	esac
done
env -u PKG_CONFIG_PATH PATH="$PATH" make -C "$TMP/all/l2fwd" clean >"$TMP/clean.log" 2>&1
check "make clean needs no pkg-config and removes the build" \
	sh -c "[ ! -e '$TMP/all/l2fwd/gnio_l2fwd' -a ! -d '$TMP/all/l2fwd/obj' ] && ! grep -q 'not found' '$TMP/clean.log'"
finish
