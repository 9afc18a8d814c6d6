package server

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

const wantCSP = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; " +
	"style-src 'self'; img-src 'self' blob: data:; connect-src 'none'; base-uri 'none'; " +
	"form-action 'none'; object-src 'none'; frame-ancestors 'none'"

const hash = "0123456789ab"

func testFS() fstest.MapFS {
	f := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	return fstest.MapFS{
		"index.html":                     f("<!doctype html><title>t</title>"),
		"index.html.gz":                  f("gz-index"),
		"js/main." + hash + ".js":        f("export {};"),
		"js/main." + hash + ".js.br":     f("br-main"),
		"js/main." + hash + ".js.gz":     f("gz-main"),
		"js/worker." + hash + ".mjs":     f("self.onmessage = () => {};"),
		"js/app.wasm." + hash + ".js":    f("globalThis.x = 'AGFzbQ==';"),
		"js/app.wasm." + hash + ".js.gz": f("gz-wasm"),
		"css/app." + hash + ".css":       f("body{}"),
		"img/logo." + hash + ".svg":      f("<svg xmlns='http://www.w3.org/2000/svg'/>"),
		"img/photo." + hash + ".png":     f("\x89PNG"),
		"data/demo.csv":                  f("y,x\n1,2\n"),
		"bin/core.wasm":                  f("\x00asm"),
		"plain.txt":                      f("hello"),
		"blob.xyz":                       f("?"),
		"docs/index.html":                f("<!doctype html><title>docs</title>"),
		"embed.html":                     f("<!doctype html><title>embed</title>"),
		"sw.js":                          f("self.oninstall = () => {};"),
		"dp-sampler.js":                  f("customElements.define('dp-sampler', class extends HTMLElement {});"),
		".secret":                        f("no"),
		"js/.hidden.js":                  f("no"),
	}
}

func newTest(t *testing.T, cfg Config) *Handler {
	t.Helper()
	if cfg.FS == nil {
		cfg.FS = testFS()
	}
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func get(h http.Handler, method, target string, hdr ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Add(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func checkSecurityHeaders(t *testing.T, rec *httptest.ResponseRecorder, target string) {
	t.Helper()
	h := rec.Header()
	want := map[string]string{
		"Content-Security-Policy":      wantCSP,
		"X-Content-Type-Options":       "nosniff",
		"Referrer-Policy":              "no-referrer",
		"Cross-Origin-Opener-Policy":   "same-origin",
		"Cross-Origin-Resource-Policy": "same-origin",
		"X-Frame-Options":              "DENY",
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s: %s = %q, want %q", target, k, got, v)
		}
	}
	pp := h.Get("Permissions-Policy")
	for _, feature := range []string{"camera=()", "microphone=()", "geolocation=()", "usb=()", "payment=()"} {
		if !strings.Contains(pp, feature) {
			t.Errorf("%s: Permissions-Policy %q lacks %s", target, pp, feature)
		}
	}
}

func TestAssetTypes(t *testing.T) {
	h := newTest(t, Config{})
	const immutable = "public, max-age=31536000, immutable"
	tests := []struct {
		target, contentType, cache string
	}{
		{"/", "text/html; charset=utf-8", "no-cache"},
		{"/index.html", "text/html; charset=utf-8", "no-cache"},
		{"/docs/", "text/html; charset=utf-8", "no-cache"},
		{"/js/main." + hash + ".js", "text/javascript; charset=utf-8", immutable},
		{"/js/worker." + hash + ".mjs", "text/javascript; charset=utf-8", immutable},
		{"/js/app.wasm." + hash + ".js", "text/javascript; charset=utf-8", immutable},
		{"/css/app." + hash + ".css", "text/css; charset=utf-8", immutable},
		{"/img/logo." + hash + ".svg", "image/svg+xml", immutable},
		{"/img/photo." + hash + ".png", "image/png", immutable},
		{"/data/demo.csv", "text/csv; charset=utf-8", "no-cache"},
		{"/bin/core.wasm", "application/wasm", "no-cache"},
		{"/plain.txt", "text/plain; charset=utf-8", "no-cache"},
		{"/blob.xyz", "application/octet-stream", "no-cache"},
	}
	for _, tc := range tests {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			rec := get(h, method, tc.target)
			if rec.Code != http.StatusOK {
				t.Errorf("%s %s: status %d", method, tc.target, rec.Code)
				continue
			}
			checkSecurityHeaders(t, rec, tc.target)
			if got := rec.Header().Get("Content-Type"); got != tc.contentType {
				t.Errorf("%s: Content-Type = %q, want %q", tc.target, got, tc.contentType)
			}
			if got := rec.Header().Get("Cache-Control"); got != tc.cache {
				t.Errorf("%s: Cache-Control = %q, want %q", tc.target, got, tc.cache)
			}
			if rec.Header().Get("ETag") == "" {
				t.Errorf("%s: no ETag", tc.target)
			}
			if method == http.MethodHead && rec.Body.Len() != 0 {
				t.Errorf("HEAD %s: body of %d bytes", tc.target, rec.Body.Len())
			}
		}
	}
}

func TestErrorsCarrySecurityHeaders(t *testing.T) {
	h := newTest(t, Config{})
	tests := []struct {
		method, target string
		code           int
	}{
		{http.MethodGet, "/missing.js", http.StatusNotFound},
		{http.MethodGet, "/.secret", http.StatusNotFound},
		{http.MethodGet, "/js/.hidden.js", http.StatusNotFound},
		{http.MethodGet, "/../etc/passwd", http.StatusNotFound},
		{http.MethodGet, "/js/", http.StatusNotFound}, // directory without index.html
		{http.MethodPost, "/", http.StatusMethodNotAllowed},
		{http.MethodPut, "/index.html", http.StatusMethodNotAllowed},
		{http.MethodOptions, "/", http.StatusMethodNotAllowed},
	}
	for _, tc := range tests {
		rec := get(h, tc.method, tc.target)
		if rec.Code != tc.code {
			t.Errorf("%s %s: status %d, want %d", tc.method, tc.target, rec.Code, tc.code)
		}
		checkSecurityHeaders(t, rec, tc.target)
		if got := rec.Header().Get("Cache-Control"); got != "no-store" {
			t.Errorf("%s %s: Cache-Control = %q, want no-store", tc.method, tc.target, got)
		}
		if rec.Body.String() == "no" {
			t.Errorf("%s: served a hidden file", tc.target)
		}
	}
	if rec := get(h, http.MethodPost, "/"); rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("405 without Allow: GET, HEAD")
	}
}

func TestDirectoryRedirect(t *testing.T) {
	h := newTest(t, Config{})
	rec := get(h, http.MethodGet, "/docs")
	if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/docs/" {
		t.Fatalf("GET /docs: %d Location %q, want 301 /docs/", rec.Code, rec.Header().Get("Location"))
	}
	checkSecurityHeaders(t, rec, "/docs")
}

func TestPrecompressed(t *testing.T) {
	h := newTest(t, Config{})
	js := "/js/main." + hash + ".js"
	tests := []struct {
		target, accept, encoding, body string
	}{
		{js, "gzip, deflate, br, zstd", "br", "br-main"},
		{js, "gzip", "gzip", "gz-main"},
		{js, "br;q=0, gzip;q=0.5", "gzip", "gz-main"},
		{js, "br;q=0, gzip;q=0", "", "export {};"},
		{js, "", "", "export {};"},
		{js, "identity", "", "export {};"},
		{js, "*", "br", "br-main"},
		{js, "BR", "br", "br-main"},
		{"/js/app.wasm." + hash + ".js", "br, gzip", "gzip", "gz-wasm"}, // no .br: next best
		{"/", "gzip", "gzip", "gz-index"},
		{"/css/app." + hash + ".css", "br, gzip", "", "body{}"}, // no variants
	}
	for _, tc := range tests {
		rec := get(h, http.MethodGet, tc.target, "Accept-Encoding", tc.accept)
		if rec.Code != http.StatusOK {
			t.Errorf("%s (%q): status %d", tc.target, tc.accept, rec.Code)
			continue
		}
		if got := rec.Header().Get("Content-Encoding"); got != tc.encoding {
			t.Errorf("%s (%q): Content-Encoding %q, want %q", tc.target, tc.accept, got, tc.encoding)
		}
		if got := rec.Body.String(); got != tc.body {
			t.Errorf("%s (%q): body %q, want %q", tc.target, tc.accept, got, tc.body)
		}
		if got := rec.Header().Get("Vary"); got != "Accept-Encoding" {
			t.Errorf("%s: Vary = %q", tc.target, got)
		}
		if ct := rec.Header().Get("Content-Type"); strings.Contains(ct, "gzip") || strings.Contains(ct, "octet") {
			t.Errorf("%s (%q): Content-Type %q is the variant's, not the file's", tc.target, tc.accept, ct)
		}
	}
	// Two Accept-Encoding header lines are one list.
	rec := get(h, http.MethodGet, js, "Accept-Encoding", "identity", "Accept-Encoding", "gzip")
	if got := rec.Header().Get("Content-Encoding"); got != "gzip" {
		t.Errorf("split Accept-Encoding: Content-Encoding %q, want gzip", got)
	}
}

func TestETagRevalidation(t *testing.T) {
	h := newTest(t, Config{})
	rec := get(h, http.MethodGet, "/", "Accept-Encoding", "gzip")
	etag := rec.Header().Get("ETag")
	plain := get(h, http.MethodGet, "/").Header().Get("ETag")
	if etag == "" || etag != plain {
		t.Fatalf("ETag gzip %q, identity %q: want the identity file's for both", etag, plain)
	}
	rec = get(h, http.MethodGet, "/", "Accept-Encoding", "gzip", "If-None-Match", etag)
	if rec.Code != http.StatusNotModified {
		t.Fatalf("If-None-Match: status %d, want 304", rec.Code)
	}
	checkSecurityHeaders(t, rec, "/ (304)")
}

func TestETagFollowsRebuild(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "index.html")
	if err := os.WriteFile(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newTest(t, Config{FS: os.DirFS(dir)})
	e1 := get(h, http.MethodGet, "/").Header().Get("ETag")
	if err := os.WriteFile(p, []byte("two!"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := get(h, http.MethodGet, "/")
	if e2 := rec.Header().Get("ETag"); e1 == e2 || rec.Body.String() != "two!" {
		t.Fatalf("after rewrite: ETag %q (was %q), body %q", e2, e1, rec.Body.String())
	}
}

func TestFrameAncestors(t *testing.T) {
	fa, err := ParseFrameAncestors("https://docs.example.org, 'self' https://*.example.net:8443")
	if err != nil {
		t.Fatal(err)
	}
	h := newTest(t, Config{FrameAncestors: fa})
	// The embed page may be framed by the configured origins...
	rec := get(h, http.MethodGet, "/embed.html")
	want := strings.TrimSuffix(wantCSP, "'none'") + "https://docs.example.org 'self' https://*.example.net:8443"
	if got := rec.Header().Get("Content-Security-Policy"); got != want {
		t.Errorf("embed.html: CSP = %q\nwant  %q", got, want)
	}
	if got := rec.Header().Get("X-Frame-Options"); got != "" {
		t.Errorf("embed.html: X-Frame-Options = %q with allowed ancestors", got)
	}
	// ...the app and everything else never.
	for _, target := range []string{"/", "/index.html", "/docs/", "/js/main." + hash + ".js", "/missing"} {
		checkSecurityHeaders(t, get(h, http.MethodGet, target), target)
	}
	// Without ancestors the embed page is not frameable either.
	checkSecurityHeaders(t, get(newTest(t, Config{}), http.MethodGet, "/embed.html"), "/embed.html (no ancestors)")
	// Other embed pages can be named.
	h = newTest(t, Config{FrameAncestors: fa, EmbedPages: []string{"docs/index.html"}})
	if got := get(h, http.MethodGet, "/docs/").Header().Get("Content-Security-Policy"); got != want {
		t.Errorf("EmbedPages docs/index.html: CSP = %q", got)
	}
	checkSecurityHeaders(t, get(h, http.MethodGet, "/embed.html"), "/embed.html (not an embed page)")
}

func TestParseFrameAncestors(t *testing.T) {
	for _, s := range []string{"", "'none'", " 'none' "} {
		if fa, err := ParseFrameAncestors(s); err != nil || fa != nil {
			t.Errorf("ParseFrameAncestors(%q) = %q, %v; want nil, nil", s, fa, err)
		}
	}
	good := []string{"'self'", "https://a.org", "http://127.0.0.1:8000", "https://*.a.org", "http://[::1]:8080", "http://localhost"}
	for _, s := range good {
		if fa, err := ParseFrameAncestors(s); err != nil || len(fa) != 1 || fa[0] != s {
			t.Errorf("ParseFrameAncestors(%q) = %q, %v", s, fa, err)
		}
	}
	bad := []string{
		"*", "https:", "https://a.org/path", "https://a.org; script-src *", "'unsafe-inline'",
		"javascript:alert(1)", "https://a.org\r\nX: y", "'none' https://a.org", "ftp://a.org", "https://",
		"data:", "https://a.org:123456",
	}
	for _, s := range bad {
		if fa, err := ParseFrameAncestors(s); err == nil {
			t.Errorf("ParseFrameAncestors(%q) = %q, want an error", s, fa)
		}
	}
	if _, err := New(Config{FS: testFS(), FrameAncestors: []string{"https://a.org; img-src *"}}); err == nil {
		t.Error("New accepted a frame-ancestors source with a semicolon")
	}
}

func TestIsHashed(t *testing.T) {
	for name, want := range map[string]bool{
		"js/main.0123456789ab.js":      true,
		"app.wasm.0123456789ab.js":     true,
		"main.js":                      false,
		"main.0123456789AB.js":         false,
		"main.0123456789a.js":          false,
		"index.html":                   false,
		"0123456789ab.0123456789ab.js": true,
	} {
		if got := IsHashed(name); got != want {
			t.Errorf("IsHashed(%q) = %v", name, got)
		}
	}
}

func TestNilFS(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Fatal("New with nil FS: no error")
	}
}

func TestPrecompressedLengthAndRange(t *testing.T) {
	h := newTest(t, Config{})
	js := "/js/main." + hash + ".js"
	rec := get(h, http.MethodGet, js, "Accept-Encoding", "br", "Range", "bytes=0-1")
	if rec.Code != http.StatusOK || rec.Body.String() != "br-main" || rec.Header().Get("Content-Length") != "7" {
		t.Errorf("br with Range: %d %q Content-Length %q; want 200, whole variant, 7",
			rec.Code, rec.Body.String(), rec.Header().Get("Content-Length"))
	}
	rec = get(h, http.MethodHead, js, "Accept-Encoding", "gzip")
	if rec.Header().Get("Content-Length") != "7" || rec.Header().Get("Content-Encoding") != "gzip" {
		t.Errorf("HEAD gzip: headers %v", rec.Header())
	}
	rec = get(h, http.MethodGet, js, "Range", "bytes=0-5")
	if rec.Code != http.StatusPartialContent || rec.Body.String() != "export" {
		t.Errorf("identity Range: %d %q", rec.Code, rec.Body.String())
	}
}

// A manifest written by sitebuild replaces hashing, and is re-read when it
// changes.
func TestETagsManifest(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("index.html", "hello")
	h := newTest(t, Config{FS: os.DirFS(dir)})
	computed := get(h, http.MethodGet, "/").Header().Get("ETag")
	if computed != `"2cf24dba5fb0a30e26e83b2a"` {
		t.Fatalf("computed ETag %s", computed)
	}
	write(ETagsFile, "index.html\t\"from-manifest\"\n")
	if got := get(h, http.MethodGet, "/").Header().Get("ETag"); got != `"from-manifest"` {
		t.Errorf("ETag %s, want the manifest's", got)
	}
	if got := get(h, http.MethodGet, "/", "Accept-Encoding", "gzip").Header().Get("ETag"); got != `"from-manifest"` {
		t.Errorf("no .gz sibling: ETag %s", got)
	}
	write(ETagsFile, "index.html\t\"second-version\"\n")
	if got := get(h, http.MethodGet, "/").Header().Get("ETag"); got != `"second-version"` {
		t.Errorf("ETag %s after the manifest changed", got)
	}
	if rec := get(h, http.MethodGet, "/"+ETagsFile); rec.Code != http.StatusNotFound {
		t.Errorf("manifest served: %d", rec.Code)
	}
}
