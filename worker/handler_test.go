package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/dpmcmc/dpmcmc/server"
)

// transport headers may differ; every other header must not.
var transport = map[string]bool{"Content-Length": true, "Date": true}

// The worker's handler (runtime compression, empty precompressed siblings)
// sends the same headers as dpmcmc serve's for every file and encoding.
func TestSameHeadersAsServe(t *testing.T) {
	site := fstest.MapFS{
		"index.html":                   {Data: []byte("<!doctype html><title>app</title>")},
		"index.html.gz":                {Data: []byte("gz")},
		"embed.html":                   {Data: []byte("<!doctype html><title>embed</title>")},
		"sw.js":                        {Data: []byte("//sw")},
		"dp-sampler.js":                {Data: []byte("//loader")},
		"js/app.0123456789ab.js":       {Data: []byte("export {};")},
		"js/app.0123456789ab.js.br":    {Data: []byte("br")},
		"img/x.0123456789ab.png":       {Data: []byte("\x89PNG")},
		"demo/cohort.0123456789ab.csv": {Data: []byte("a,b\n1,2\n")},
		".etags":                       {Data: []byte("index.html\t\"e1\"\n")},
	}
	// The worker's copy: the same names, the siblings emptied.
	copySite := fstest.MapFS{}
	for n, f := range site {
		data := f.Data
		if filepath.Ext(n) == ".br" || filepath.Ext(n) == ".gz" {
			data = nil
		}
		copySite[n] = &fstest.MapFile{Data: data}
	}
	native, err := server.New(server.Config{FS: site, FrameAncestors: []string{"https://docs.example.org"}})
	if err != nil {
		t.Fatal(err)
	}
	worker, err := newHandler(copySite, "https://docs.example.org", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"/", "/embed.html", "/sw.js", "/dp-sampler.js", "/js/app.0123456789ab.js",
		"/img/x.0123456789ab.png", "/demo/cohort.0123456789ab.csv", "/missing", "/.etags", "/js"} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			for _, accept := range []string{"", "br, gzip"} {
				a, b := httptest.NewRecorder(), httptest.NewRecorder()
				req := func() *http.Request {
					r := httptest.NewRequest(method, target, nil)
					r.Header.Set("Accept-Encoding", accept)
					return r
				}
				native.ServeHTTP(a, req())
				worker.ServeHTTP(b, req())
				if a.Code != b.Code {
					t.Errorf("%s %s (%q): status %d vs %d", method, target, accept, a.Code, b.Code)
				}
				for k := range a.Header() {
					if !transport[k] && a.Header().Get(k) != b.Header().Get(k) {
						t.Errorf("%s %s (%q): %s = %q natively, %q in the worker", method, target, accept, k, a.Header().Get(k), b.Header().Get(k))
					}
				}
				for k := range b.Header() {
					if !transport[k] && a.Header().Get(k) == "" {
						t.Errorf("%s %s (%q): worker sends %s, dpmcmc serve does not", method, target, accept, k)
					}
				}
				if method == http.MethodHead && b.Header().Get("Content-Length") != "" {
					t.Errorf("HEAD %s: worker sends Content-Length (breaks syumai's FixedLengthStream)", target)
				}
				// The worker writes the identity bytes; the runtime encodes.
				if method == http.MethodGet && b.Code == 200 && b.Header().Get("Content-Encoding") != "" {
					if b.Body.Len() == 0 || b.Body.String() == "br" || b.Body.String() == "gz" {
						t.Errorf("GET %s: worker body %q is not the identity bytes", target, b.Body.String())
					}
				}
			}
		}
	}
}
