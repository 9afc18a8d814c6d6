#!/usr/bin/env bash
# worker/build.sh: build the Cloudflare Worker (worker/build/) from the built
# site (build/site, made by ./build.sh or make site).
#
#   worker/build.sh              SITE=build/site by default
#
# Steps: copy the site into worker/site (go:embed reaches only below the
# package) with the precompressed siblings emptied (the Workers runtime
# compresses responses itself; the names alone tell the handler which
# encodings to offer, as dpmcmc serve does); generate the syumai/workers JS
# glue; compile the worker for GOOS=js GOARCH=wasm; print the sizes that
# count against Cloudflare's limit (gzip of the upload).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

GO=${GO:-go}
SITE=${SITE:-build/site}
if [[ ! -f $SITE/index.html ]]; then
	echo "worker/build.sh: no built site in $SITE (run make site first)" >&2
	exit 1
fi
rm -rf worker/site
mkdir -p worker/site worker/build
cp -R "$SITE"/. worker/site/
rm -f worker/site/.sitebuild
find worker/site -type f \( -name '*.br' -o -name '*.gz' \) -exec truncate -s 0 {} +

"$GO" run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o worker/build
GOOS=js GOARCH=wasm "$GO" build -trimpath -ldflags "-s -w" -o worker/build/app.wasm ./worker

raw=$(cat worker/build/*.mjs worker/build/*.js worker/build/app.wasm | wc -c)
gz=$(cat worker/build/*.mjs worker/build/*.js worker/build/app.wasm | gzip -9 | wc -c)
site_gz=$(tar -C worker/site -cf - . | gzip -9 | wc -c)
echo "worker/build.sh: worker/build: $raw bytes, $gz bytes gzip (the site alone: $site_gz bytes gzip)"
echo "worker/build.sh: Cloudflare limits (gzip): free plan 3 MiB (3145728), paid plan 10 MiB (10485760)"
