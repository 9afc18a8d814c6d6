//go:build js && wasm

package main

import (
	"embed"
	"io/fs"
	"net/http"

	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"
)

// site is the copy of build/site made by worker/build.sh.
//
//go:embed all:site
var site embed.FS

func main() {
	sub, err := fs.Sub(site, "site")
	var h http.Handler
	if err == nil {
		h, err = newHandler(sub, cloudflare.Getenv("FRAME_ANCESTORS"), true)
	}
	if err != nil {
		msg := "worker misconfigured: " + err.Error()
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, msg, http.StatusInternalServerError)
		})
	}
	workers.Serve(h)
}
