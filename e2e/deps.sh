#!/usr/bin/env bash
# e2e/deps.sh: install what the end-to-end tests need on a fresh machine:
# Debian's Chromium (/usr/bin/chromium) and, with npm ci, playwright-core
# from package-lock.json. Never `npx playwright install`: browser downloads
# are not reachable here; playwright-core drives the Debian build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}

# Debian packages: chromium, and brotli for the site's precompressed .br
# files (server/sitebuild writes them only when the tool is on PATH; without
# them `dpmcmc serve` answers "br, gzip" with gzip while the worker's
# platform answers br, and e2e/worker.test.mjs compares the two).
pkgs=()
[[ -x $CHROMIUM ]] || pkgs+=(chromium)
command -v brotli >/dev/null || pkgs+=(brotli)
if ((${#pkgs[@]})); then
	sudo=()
	if [[ $(id -u) -ne 0 ]]; then
		sudo=(sudo -n)
	fi
	export DEBIAN_FRONTEND=noninteractive
	echo "e2e/deps.sh: installing ${pkgs[*]} with apt-get"
	"${sudo[@]}" apt-get update -q
	if ! "${sudo[@]}" apt-get install -y -q "${pkgs[@]}"; then
		# Seen once: a dpkg archive error that a fix-up run cures.
		echo "e2e/deps.sh: apt-get install failed; retrying after apt-get -f install" >&2
		"${sudo[@]}" apt-get -f install -y -q
		"${sudo[@]}" apt-get install -y -q "${pkgs[@]}"
	fi
fi
"$CHROMIUM" --version 2>/dev/null || true # (Debian's wrapper script prints noise on stderr)

# npm ci only when node_modules is missing or older than the lock file.
stamp=node_modules/.package-lock.json
if [[ ! -f $stamp || package-lock.json -nt $stamp || ! -d node_modules/playwright-core ]]; then
	echo "e2e/deps.sh: npm ci"
	npm ci --no-audit --no-fund
fi

# wrangler (worker/package-lock.json) for e2e/worker.test.mjs, which skips
# itself with a message when it is missing.
wstamp=worker/node_modules/.package-lock.json
if [[ ! -f $wstamp || worker/package-lock.json -nt $wstamp || ! -x worker/node_modules/.bin/wrangler ]]; then
	echo "e2e/deps.sh: npm ci --prefix worker (wrangler)"
	npm ci --prefix worker --no-audit --no-fund || echo "e2e/deps.sh: wrangler not installed; the worker test will skip" >&2
fi
