#!/usr/bin/env bash
# build.sh: build the browser app into build/site/ (gitignored).
#
#   ./build.sh                  build the wasm engine and the site
#   ./build.sh --print-version  print the version stamped into builds
#
# Steps: compile ./wasm for GOOS=js GOARCH=wasm (-trimpath, -s -w, the
# version in main.Version), then server/sitebuild assembles site/ + Go's
# wasm_exec.js + the module as a base64 script asset (the page's CSP forbids
# fetching a .wasm), gives assets content-hashed names, and precompresses
# them (.gz always, .br when the brotli tool is installed).
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
GOOS=js GOARCH=wasm "$GO" build -trimpath -tags "$TAGS" -ldflags "-s -w -X main.Version=$VERSION" \
	-o "$wasm_out" ./wasm

echo "build.sh: site -> $OUT"
"$GO" run ./server/sitebuild -src site -out "$OUT" \
	-add "js/wasm_exec.js=$goroot/lib/wasm/wasm_exec.js" \
	-wasm "js/app.wasm.js=$wasm_out"

wasm_bytes=$(wc -c < "$wasm_out")
echo "build.sh: app.wasm is $wasm_bytes bytes uncompressed"
