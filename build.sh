#!/usr/bin/env bash
# build.sh: build the browser app into build/site/ (gitignored).
#
#   ./build.sh                  build the wasm engine and the site
#   ./build.sh --print-version  print the version stamped into builds
#
# Steps: compile ./wasm for GOOS=js GOARCH=wasm (-trimpath, -s -w, the
# version in main.Version; extra -gcflags from WASM_GCFLAGS), write the
# module as a hex script asset (wasm/hexasset; the page's CSP forbids
# fetching a .wasm), then server/sitebuild assembles
# site/ + Go's wasm_exec.js + that asset, gives assets content-hashed names,
# and precompresses them (.gz always, .br when the brotli tool is installed).
#
# Environment: VERSION overrides the version; GO overrides the go command;
# OUT overrides the output directory (default build/site); TAGS adds Go build
# tags to the engine. The test variant (TAGS=dpmcmc_testkey
# OUT=build/site-testkey, made by `make site-testkey`) uses the fixed noise
# key of core/rng so its draws can be compared with the CLI's bit for bit; it
# is for the end-to-end tests only, never deployed nor served by make serve.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

GO=${GO:-go}
# WASM_GCFLAGS: extra -gcflags for the wasm build, e.g. to measure the
# kernels without bounds checks:
#   WASM_GCFLAGS="-gcflags=github.com/dpmcmc/dpmcmc/core/model=-B" ./build.sh
# (≈ 1.5× on the HMC browser benchmark). The shipped build keeps the
# checks: in wasm the noise key, the data and the released draws share one
# linear memory, and an indexing bug that a check would turn into a crash
# could, without it, read other memory into the released output.
read -r -a WASM_GCFLAGS <<< "${WASM_GCFLAGS:-}"

version() {
	# A tag if there is one, else dev-<12-digit commit>; -dirty if modified.
	if v=$(git describe --tags --dirty --match 'v*' 2>/dev/null); then
		echo "$v"
	elif v=$(git describe --always --dirty --abbrev=12 2>/dev/null); then
		echo "dev-$v"
	else
		echo dev
	fi
}

if [[ ${1:-} == --print-version ]]; then
	version
	exit 0
fi
if [[ $# -gt 0 ]]; then
	echo "usage: $0 [--print-version]" >&2
	exit 2
fi

VERSION=${VERSION:-$(version)}
OUT=${OUT:-build/site}
TAGS=${TAGS:-}
wasm_out=build/wasm/app${TAGS:+-$TAGS}.wasm
goroot=$("$GO" env GOROOT)

mkdir -p build/wasm
echo "build.sh: wasm engine ($VERSION${TAGS:+, tags $TAGS})"
GOOS=js GOARCH=wasm "$GO" build -trimpath ${WASM_GCFLAGS[@]+"${WASM_GCFLAGS[@]}"} -tags "$TAGS" -ldflags "-s -w -X main.Version=$VERSION" \
	-o "$wasm_out" ./wasm

# The module travels as a script holding its hex text (wasm/hexasset: hex
# compresses ~20% smaller than sitebuild's -wasm base64 under brotli).
"$GO" run ./wasm/hexasset "$wasm_out" "$wasm_out.js"

echo "build.sh: site -> $OUT"
"$GO" run ./server/sitebuild -src site -out "$OUT" \
	-add "js/wasm_exec.js=$goroot/lib/wasm/wasm_exec.js" \
	-add "js/app.wasm.js=$wasm_out.js"

wasm_bytes=$(wc -c < "$wasm_out")
echo "build.sh: app.wasm is $wasm_bytes bytes uncompressed"
