// Package server serves the built browser app (build/site, or an embedded
// copy of it) with the security headers the privacy design relies on.
//
// Every response, including errors, carries a strict Content-Security-Policy:
// the page may run its own scripts and compile WebAssembly, and may open no
// connection at all (connect-src 'none'), so raw data loaded into the tab
// cannot be sent anywhere by the page. The same header on script responses
// is what a Web Worker's policy comes from, so workers are restricted too.
//
// Static files are served from an fs.FS. A file name carrying a content hash
// (name.<12 hex>.ext, as written by server/sitebuild) is cached for a year as
// immutable; everything else, HTML in particular, is revalidated on every
// use. A precompressed sibling (file.br, file.gz) is served when the client
// accepts its encoding.
//
// A few files get their own policy (see Handler.Headers):
//
//   - the embeddable pages (embed.html) may be framed by the configured
//     documentation origins (frame-ancestors); every other page, the app in
//     particular, keeps frame-ancestors 'none' and X-Frame-Options: DENY;
//   - the service worker script (sw.js) may fetch the app's own assets
//     (connect-src 'self'), which its install step needs to cache them for
//     offline use; the page and its Web Workers keep connect-src 'none';
//   - the embed loader script (dp-sampler.js), which documentation pages of
//     another origin include, is Cross-Origin-Resource-Policy: cross-origin.
//
// The same handler runs natively (dpmcmc serve) and on Cloudflare Workers
// (worker/); there the runtime compresses responses itself (RuntimeEncodes).
package server

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Config configures a Handler.
type Config struct {
	// FS holds the built site; its root holds index.html.
	FS fs.FS
	// FrameAncestors lists the origins allowed to embed the embeddable pages
	// (EmbedPages) in a frame (CSP frame-ancestors sources). Empty means
	// 'none'. Check entries with ParseFrameAncestors. The other pages, the
	// app in particular, are never frameable.
	FrameAncestors []string
	// EmbedPages are the names of the pages FrameAncestors applies to; nil
	// means DefaultEmbedPages.
	EmbedPages []string
	// RuntimeEncodes says that the platform compresses response bodies
	// itself when the handler sets Content-Encoding (Cloudflare Workers do,
	// unless a response asks otherwise). The handler then chooses the
	// encoding exactly as with precompressed siblings (their presence in FS
	// decides; their content is never read, so they may be empty files) but
	// writes the identity bytes and no Content-Length.
	RuntimeEncodes bool
}

// DefaultEmbedPages are the pages other origins may frame when
// Config.FrameAncestors allows them.
var DefaultEmbedPages = []string{"embed.html"}

// ServiceWorker is the service worker script: the one response whose policy
// lets it fetch the app's own assets (connect-src 'self').
const ServiceWorker = "sw.js"

// EmbedLoader is the script documentation pages include to get the
// <dp-sampler> element; it may be loaded by another origin.
const EmbedLoader = "dp-sampler.js"

// Handler serves a built site. Create it with New.
type Handler struct {
	fsys           fs.FS
	headers        [][2]string // security headers of every response, in order
	embedHeaders   [][2]string // of the embeddable pages
	swHeaders      [][2]string // of the service worker script
	loaderHeaders  [][2]string // of the embed loader script
	embedPages     map[string]bool
	runtimeEncodes bool

	etags sync.Map // etagKey -> string

	manifestMu  sync.Mutex
	manifestKey etagKey           // of the manifest file last read
	manifest    map[string]string // name -> etag, from ETagsFile
}

// ETagsFile is the manifest of validators that server/sitebuild writes
// next to the site: lines "name<TAB>etag". When present, its entries are
// used instead of hashing files (it is re-read when it changes, so a
// rebuilt directory is noticed).
const ETagsFile = ".etags"

type etagKey struct {
	name    string
	size    int64
	modTime time.Time
}

// basePolicy is the Content-Security-Policy without frame-ancestors.
const basePolicy = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; " +
	"style-src 'self'; img-src 'self' blob: data:; connect-src 'none'; base-uri 'none'; " +
	"form-action 'none'; object-src 'none'"

// swPolicy is the service worker's policy: basePolicy with connect-src
// 'self' (a service worker's fetches, cache.addAll included, are governed by
// its own script's policy) and frame-ancestors 'none'.
var swPolicy = strings.Replace(basePolicy, "connect-src 'none'", "connect-src 'self'", 1) + "; frame-ancestors 'none'"

// permissionsPolicy denies powerful features the app never uses. Only
// features Chromium recognises are listed (unknown ones log console errors).
const permissionsPolicy = "accelerometer=(), autoplay=(), browsing-topics=(), camera=(), " +
	"display-capture=(), encrypted-media=(), geolocation=(), gyroscope=(), hid=(), idle-detection=(), " +
	"magnetometer=(), microphone=(), midi=(), payment=(), publickey-credentials-get=(), " +
	"screen-wake-lock=(), serial=(), usb=(), xr-spatial-tracking=()"

// ContentSecurityPolicy returns the policy sent with frameAncestors as the
// frame-ancestors sources ('none' when empty).
func ContentSecurityPolicy(frameAncestors []string) string {
	fa := "'none'"
	if len(frameAncestors) > 0 {
		fa = strings.Join(frameAncestors, " ")
	}
	return basePolicy + "; frame-ancestors " + fa
}

// New returns a handler serving cfg.FS.
func New(cfg Config) (*Handler, error) {
	if cfg.FS == nil {
		return nil, errors.New("server: nil FS")
	}
	for _, s := range cfg.FrameAncestors {
		if err := checkSource(s); err != nil {
			return nil, err
		}
	}
	h := &Handler{fsys: cfg.FS, runtimeEncodes: cfg.RuntimeEncodes, embedPages: map[string]bool{}}
	pages := cfg.EmbedPages
	if pages == nil {
		pages = DefaultEmbedPages
	}
	for _, p := range pages {
		h.embedPages[p] = true
	}
	set := func(csp, corp string, deny bool) [][2]string {
		hs := [][2]string{
			{"Content-Security-Policy", csp},
			{"X-Content-Type-Options", "nosniff"},
			{"Referrer-Policy", "no-referrer"},
			{"Permissions-Policy", permissionsPolicy},
			{"Cross-Origin-Opener-Policy", "same-origin"},
			{"Cross-Origin-Resource-Policy", corp},
		}
		if deny {
			// For browsers that predate frame-ancestors.
			hs = append(hs, [2]string{"X-Frame-Options", "DENY"})
		}
		return hs
	}
	none := ContentSecurityPolicy(nil)
	h.headers = set(none, "same-origin", true)
	h.embedHeaders = set(ContentSecurityPolicy(cfg.FrameAncestors), "same-origin", len(cfg.FrameAncestors) == 0)
	h.swHeaders = set(swPolicy, "same-origin", true)
	h.loaderHeaders = set(none, "cross-origin", true)
	return h, nil
}

// Headers returns the security headers of the response for file name (a
// path in FS, such as "index.html" or "js/app.0123456789ab.js"; "" for an
// error response), in the order they are sent.
func (h *Handler) Headers(name string) [][2]string {
	switch {
	case h.embedPages[name]:
		return h.embedHeaders
	case name == ServiceWorker:
		return h.swHeaders
	case name == EmbedLoader:
		return h.loaderHeaders
	}
	return h.headers
}

// CacheControl returns the Cache-Control of a successful response for name.
func CacheControl(name string) string {
	if IsHashed(name) {
		return "public, max-age=31536000, immutable"
	}
	return "no-cache"
}

// ParseFrameAncestors splits a space- or comma-separated list of
// frame-ancestors sources and checks each: 'none', 'self', or an origin such
// as https://docs.example.org, https://*.example.org or http://127.0.0.1:8000.
// "" and "'none'" give nil (no embedding).
func ParseFrameAncestors(s string) ([]string, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	var out []string
	for _, f := range fields {
		if err := checkSource(f); err != nil {
			return nil, err
		}
		if f == "'none'" {
			if len(fields) > 1 {
				return nil, errors.New("frame-ancestors: 'none' cannot be combined with other sources")
			}
			return nil, nil
		}
		out = append(out, f)
	}
	return out, nil
}

var originRE = regexp.MustCompile(`^https?://(\*\.)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?$|^https?://\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$`)

func checkSource(s string) error {
	switch {
	case s == "'none'", s == "'self'":
		return nil
	case originRE.MatchString(s):
		return nil
	}
	return fmt.Errorf("frame-ancestors: %q is not 'self', 'none' or an origin like https://docs.example.org", s)
}

// hashedName matches file names written by sitebuild: name.<12 hex>.ext.
var hashedName = regexp.MustCompile(`\.[0-9a-f]{12}\.[A-Za-z0-9]+$`)

// IsHashed reports whether name carries a content hash, so that it can be
// cached forever.
func IsHashed(name string) bool { return hashedName.MatchString(path.Base(name)) }

// contentTypes is the MIME table; it does not depend on the host's
// mime.types, so every machine serves the same types.
var contentTypes = map[string]string{
	".html":        "text/html; charset=utf-8",
	".js":          "text/javascript; charset=utf-8",
	".mjs":         "text/javascript; charset=utf-8",
	".css":         "text/css; charset=utf-8",
	".wasm":        "application/wasm",
	".svg":         "image/svg+xml",
	".png":         "image/png",
	".jpg":         "image/jpeg",
	".jpeg":        "image/jpeg",
	".webp":        "image/webp",
	".ico":         "image/x-icon",
	".csv":         "text/csv; charset=utf-8",
	".json":        "application/json",
	".txt":         "text/plain; charset=utf-8",
	".map":         "application/json",
	".woff2":       "font/woff2",
	".webmanifest": "application/manifest+json",
	".gz":          "application/gzip",
	".br":          "application/octet-stream",
}

// ContentType returns the Content-Type served for name.
func ContentType(name string) string {
	if ct, ok := contentTypes[strings.ToLower(path.Ext(name))]; ok {
		return ct
	}
	return "application/octet-stream"
}

// encodings are the precompressed variants, in order of preference.
var encodings = []struct{ token, suffix string }{
	{"br", ".br"},
	{"gzip", ".gz"},
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	setAll := func(name string) {
		for _, kv := range h.headers {
			hdr.Del(kv[0])
		}
		for _, kv := range h.Headers(name) {
			hdr.Set(kv[0], kv[1])
		}
	}
	setAll("")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hdr.Set("Allow", "GET, HEAD")
		httpError(w, http.StatusMethodNotAllowed)
		return
	}
	name, redirect, ok := h.resolve(r.URL.Path)
	if !ok {
		httpError(w, http.StatusNotFound)
		return
	}
	if redirect != "" {
		http.Redirect(w, r, redirect, http.StatusMovedPermanently)
		return
	}
	setAll(name)
	hdr.Set("Content-Type", ContentType(name))
	hdr.Set("Cache-Control", CacheControl(name))

	served, encoding := name, ""
	if compressible(name) {
		hdr.Add("Vary", "Accept-Encoding")
		accept := strings.Join(r.Header.Values("Accept-Encoding"), ",")
		for _, e := range encodings {
			if acceptsEncoding(accept, e.token) && isFile(h.fsys, name+e.suffix) {
				served, encoding = name+e.suffix, e.token
				break
			}
		}
		if h.runtimeEncodes {
			served = name // the platform encodes the identity bytes
		}
	}
	f, err := h.fsys.Open(served)
	if err != nil {
		httpError(w, http.StatusNotFound)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		httpError(w, http.StatusNotFound)
		return
	}
	rs, err := seeker(f)
	if err != nil {
		httpError(w, http.StatusInternalServerError)
		return
	}
	// The validator is the identity file's, whatever the encoding (as
	// nginx's gzip_static does): on Workers the handler never learns the
	// client's encodings (the edge asks for br and decodes for clients
	// that cannot), so an encoding tag could not match dpmcmc serve's.
	etag, err := h.etag(name)
	if err != nil {
		httpError(w, http.StatusInternalServerError)
		return
	}
	if encoding != "" {
		hdr.Set("Content-Encoding", encoding)
		if !h.runtimeEncodes {
			// ServeContent leaves out Content-Length when an encoding is
			// set (it cannot know the encoded size); ours is the file's size.
			hdr.Set("Content-Length", strconv.FormatInt(st.Size(), 10))
		}
		// Ranges of a compressed variant are not worth supporting: send it
		// whole.
		r2 := *r
		r2.Header = r.Header.Clone()
		r2.Header.Del("Range")
		r2.Header.Del("If-Range")
		r = &r2
	}
	hdr.Set("ETag", etag)
	// No Last-Modified: the ETag validates, and an embedded FS has no times
	// (so the native and the Workers responses carry the same headers).
	http.ServeContent(w, r, name, time.Time{}, rs)
}

func seeker(f fs.File) (io.ReadSeeker, error) {
	if rs, ok := f.(io.ReadSeeker); ok {
		return rs, nil
	}
	// Every fs.FS in the standard library (os.DirFS, embed.FS,
	// fstest.MapFS) gives seekable files; be safe for others.
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	return strings.NewReader(string(data)), nil
}

// resolve maps a URL path to a file name in the FS: "/" and directories to
// their index.html. A directory named without its trailing slash gives a
// redirect instead (so relative URLs in its index.html resolve). Hidden
// names (a segment starting with ".") are refused.
func (h *Handler) resolve(urlPath string) (name, redirect string, ok bool) {
	if !strings.HasPrefix(urlPath, "/") {
		urlPath = "/" + urlPath
	}
	clean := path.Clean(urlPath)
	name = strings.TrimPrefix(clean, "/")
	if name == "" {
		name = "."
	}
	if !fs.ValidPath(name) {
		return "", "", false
	}
	for _, seg := range strings.Split(name, "/") {
		if strings.HasPrefix(seg, ".") && seg != "." {
			return "", "", false
		}
	}
	if isDir(h.fsys, name) {
		if !strings.HasSuffix(urlPath, "/") {
			return "", clean + "/", true
		}
		name = path.Join(name, "index.html")
	}
	return name, "", isFile(h.fsys, name)
}

// etag returns a strong validator of file name: its manifest entry, else
// computed from its bytes, cached by name, size and modification time (so a
// rebuilt os.DirFS is noticed).
func (h *Handler) etag(name string) (string, error) {
	if e, ok := h.manifestETag(name); ok {
		return e, nil
	}
	f, err := h.fsys.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	key := etagKey{name, st.Size(), st.ModTime()}
	if v, ok := h.etags.Load(key); ok {
		return v.(string), nil
	}
	sum := sha256.New()
	if _, err := io.Copy(sum, f); err != nil {
		return "", err
	}
	etag := `"` + hex.EncodeToString(sum.Sum(nil)[:12]) + `"`
	h.etags.Store(key, etag)
	return etag, nil
}

// manifestETag looks name up in the ETagsFile manifest, re-reading it when
// its size or modification time changed.
func (h *Handler) manifestETag(name string) (string, bool) {
	st, err := fs.Stat(h.fsys, ETagsFile)
	if err != nil {
		return "", false
	}
	key := etagKey{ETagsFile, st.Size(), st.ModTime()}
	h.manifestMu.Lock()
	defer h.manifestMu.Unlock()
	if h.manifest == nil || key != h.manifestKey {
		data, err := fs.ReadFile(h.fsys, ETagsFile)
		if err != nil {
			return "", false
		}
		m := map[string]string{}
		for _, line := range strings.Split(string(data), "\n") {
			if n, e, ok := strings.Cut(line, "\t"); ok {
				m[n] = e
			}
		}
		h.manifest, h.manifestKey = m, key
	}
	e, ok := h.manifest[name]
	return e, ok
}

// compressible reports whether name may be served compressed: the types
// Cloudflare's edge also compresses (so that it decodes them for clients
// that cannot; text/csv is not one of them, and is served as it is).
func compressible(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".html", ".js", ".mjs", ".css", ".wasm", ".svg", ".json", ".txt", ".map", ".webmanifest":
		return true
	}
	return false
}

// acceptsEncoding reports whether an Accept-Encoding header value accepts
// token with a non-zero quality (or through "*").
func acceptsEncoding(header, token string) bool {
	star := false
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = f
				}
			}
		}
		switch coding {
		case token:
			return q > 0
		case "*":
			star = q > 0
		}
	}
	return star
}

func isFile(fsys fs.FS, name string) bool {
	st, err := fs.Stat(fsys, name)
	return err == nil && st.Mode().IsRegular()
}

func isDir(fsys fs.FS, name string) bool {
	if name == "" {
		name = "."
	}
	st, err := fs.Stat(fsys, name)
	return err == nil && st.IsDir()
}

func httpError(w http.ResponseWriter, code int) {
	h := w.Header()
	h.Del("Content-Encoding")
	h.Del("ETag")
	h.Set("Cache-Control", "no-store")
	http.Error(w, http.StatusText(code), code)
}
