package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func writeSite(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"index.html": "<!doctype html><title>ok</title>", "embed.html": "<!doctype html><title>embed</title>"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var servingRE = regexp.MustCompile(`^Serving on (http://127\.0\.0\.1:[1-9][0-9]*/)$`)

// startServe runs serve in the background and returns its URL and a stop
// function that returns serve's error.
func startServe(t *testing.T, args ...string) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	var stderr strings.Builder
	go func() {
		err := serve(ctx, args, pw, &stderr)
		pw.Close()
		done <- err
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	go io.Copy(io.Discard, pr)
	m := servingRE.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		cancel()
		t.Fatalf("first line %q (%v), stderr %q", line, err, stderr.String())
	}
	return m[1], func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("serve did not stop")
			return nil
		}
	}
}

func TestServe(t *testing.T) {
	dir := writeSite(t)
	url, stop := startServe(t, "--addr", ":0", "--dir", dir, "--frame-ancestors", "https://docs.example.org")
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "<title>ok</title>") {
		t.Errorf("GET %s: %d %q", url, resp.StatusCode, body)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "connect-src 'none'") || !strings.HasSuffix(csp, "frame-ancestors 'none'") {
		t.Errorf("app CSP = %q", csp)
	}
	// --frame-ancestors applies to the embed page only.
	resp, err = http.Get(url + "embed.html")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); resp.StatusCode != 200 || !strings.HasSuffix(csp, "frame-ancestors https://docs.example.org") {
		t.Errorf("embed.html: %d, CSP = %q", resp.StatusCode, csp)
	}
	if err := stop(); err != nil {
		t.Fatalf("serve returned %v after interrupt", err)
	}
}

func TestServeDefaultsToLoopback(t *testing.T) {
	// startServe checks that the printed URL is on 127.0.0.1.
	_, stop := startServe(t, "-addr", "127.0.0.1:0", "-dir", writeSite(t))
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

func TestServeErrors(t *testing.T) {
	site := writeSite(t)
	for _, args := range [][]string{
		{"--dir", t.TempDir(), "--addr", ":0"},                               // no index.html
		{"--dir", site, "--addr", "nonsense"},                                // bad address
		{"--dir", site, "--addr", ":0", "--frame-ancestors", "https://a; x"}, // injection
		{"--dir", site, "--addr", ":0", "extra"},                             // stray argument
		{"--nope"},
	} {
		var out, errb strings.Builder
		if err := serve(context.Background(), args, &out, &errb); err == nil {
			t.Errorf("serve %q: no error", args)
		}
	}
}

func TestServeRegistered(t *testing.T) {
	c, ok := commands["serve"]
	if !ok || c.summary != "serve the browser app on this machine" {
		t.Fatalf("serve not registered: %+v", c)
	}
	var out, errb strings.Builder
	if code := runMain([]string{"serve", "-h"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "--addr") && !strings.Contains(out.String(), "-addr") {
		t.Fatalf("serve -h: exit %d, stderr %q", code, errb.String())
	}
}
