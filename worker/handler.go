// Command worker serves the built site on Cloudflare Workers with
// github.com/syumai/workers: the same http.Handler as `dpmcmc serve`
// (package server), over a copy of build/site embedded in the worker.
//
//	worker/build.sh          copy build/site into worker/site, build worker/build/
//	cd worker && npx wrangler dev --ip 127.0.0.1 --port 8787
//	cd worker && npx wrangler deploy
//
// Built natively (go run ./worker --dir build/site) it serves the same
// handler with net/http, for debugging. See worker/README.md.
package main

import (
	"io/fs"
	"net/http"

	"github.com/dpmcmc/dpmcmc/server"
)

// newHandler is the worker's handler over site: the runtime compresses the
// responses (Cloudflare Workers encode a body whose Content-Encoding is set),
// so the embedded copy needs no precompressed bytes, only their names.
// frameAncestors is the FRAME_ANCESTORS variable (wrangler.toml [vars]):
// the origins that may frame embed.html.
func newHandler(site fs.FS, frameAncestors string, runtimeEncodes bool) (http.Handler, error) {
	fa, err := server.ParseFrameAncestors(frameAncestors)
	if err != nil {
		return nil, err
	}
	h, err := server.New(server.Config{FS: site, FrameAncestors: fa, RuntimeEncodes: runtimeEncodes})
	if err != nil {
		return nil, err
	}
	return headWithoutLength(h), nil
}

// headWithoutLength drops Content-Length from the responses to HEAD
// requests: syumai/workers turns a Content-Length into a FixedLengthStream,
// which fails (500) when no body follows. (Content-Length is a transport
// header: the security headers are untouched.)
func headWithoutLength(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w = noLength{w}
		}
		h.ServeHTTP(w, r)
	})
}

type noLength struct{ http.ResponseWriter }

func (w noLength) WriteHeader(code int) {
	w.Header().Del("Content-Length")
	w.ResponseWriter.WriteHeader(code)
}

func (w noLength) Write(b []byte) (int, error) {
	w.Header().Del("Content-Length")
	return w.ResponseWriter.Write(b)
}
