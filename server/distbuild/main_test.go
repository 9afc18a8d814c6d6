package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/dpmcmc/dpmcmc/server"
)

// parseHeaders reads a _headers file: URL -> header -> value. It fails on
// a URL given twice.
func parseHeaders(t *testing.T, text string) map[string]map[string]string {
	t.Helper()
	rules := map[string]map[string]string{}
	var cur map[string]string
	for _, line := range strings.Split(text, "\n") {
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "  "):
			k, v, ok := strings.Cut(strings.TrimSpace(line), ": ")
			if !ok || cur == nil {
				t.Fatalf("bad line %q", line)
			}
			cur[k] = v
		default:
			if _, dup := rules[line]; dup {
				t.Fatalf("rule %s twice", line)
			}
			cur = map[string]string{}
			rules[line] = cur
		}
	}
	return rules
}

func TestDistHeadersMatchServer(t *testing.T) {
	site := fstest.MapFS{
		"index.html":              {Data: []byte("<!doctype html><meta charset=\"utf-8\"><title>app</title>")},
		"embed.html":              {Data: []byte("<!doctype html><meta charset=utf-8><title>embed</title>")},
		"sw.js":                   {Data: []byte("//")},
		"dp-sampler.js":           {Data: []byte("//")},
		"js/main.0123456789ab.js": {Data: []byte("//")},
		"css/a.0123456789ab.css":  {Data: []byte("p{}")},
	}
	files, err := collect(site)
	if err != nil {
		t.Fatal(err)
	}
	fa := []string{"'self'", "https://docs.example.org"}
	out, err := Build(files, fa)
	if err != nil {
		t.Fatal(err)
	}
	rules := parseHeaders(t, string(out["_headers"]))
	h, err := server.New(server.Config{FS: site, FrameAncestors: fa})
	if err != nil {
		t.Fatal(err)
	}
	for url, want := range rules {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url, nil))
		if url == "/embed" {
			rec = httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/embed.html", nil))
		}
		for k, v := range want {
			if got := rec.Header().Get(k); got != v {
				t.Errorf("%s: _headers %s = %q, dpmcmc serve sends %q", url, k, v, got)
			}
		}
		for _, k := range []string{"Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy", "Permissions-Policy",
			"Cross-Origin-Opener-Policy", "Cross-Origin-Resource-Policy", "X-Frame-Options", "Cache-Control"} {
			if _, ok := want[k]; !ok && rec.Header().Get(k) != "" {
				t.Errorf("%s: _headers lacks %s", url, k)
			}
		}
	}
	for _, url := range []string{"/", "/index.html", "/embed", "/embed.html", "/sw.js", "/dp-sampler.js", "/js/main.0123456789ab.js", "/css/a.0123456789ab.css"} {
		if rules[url] == nil {
			t.Errorf("no rule for %s", url)
		}
	}
	if !strings.Contains(rules["/embed.html"]["Content-Security-Policy"], "frame-ancestors 'self' https://docs.example.org") ||
		!strings.HasSuffix(rules["/"]["Content-Security-Policy"], "frame-ancestors 'none'") {
		t.Errorf("frame-ancestors: embed %q, app %q", rules["/embed.html"]["Content-Security-Policy"], rules["/"]["Content-Security-Policy"])
	}
	for _, n := range []string{"index.html", "embed.html"} {
		html := string(out[n])
		meta := `<meta http-equiv="Content-Security-Policy" content="` + MetaPolicy() + `">`
		if i := strings.Index(html, meta); i < 0 || i > strings.Index(html, "<title>") {
			t.Errorf("%s: meta policy missing or after content:\n%s", n, html)
		}
	}
	if strings.Contains(MetaPolicy(), "frame-ancestors") || !strings.Contains(MetaPolicy(), "connect-src 'none'") {
		t.Errorf("meta policy %q", MetaPolicy())
	}
	if _, ok := out[".nojekyll"]; !ok {
		t.Error("no .nojekyll")
	}
}

func TestInjectMetaNeedsCharset(t *testing.T) {
	if _, err := InjectMeta([]byte("<!doctype html><title>x</title>")); err == nil {
		t.Fatal("no error without <meta charset>")
	}
}
