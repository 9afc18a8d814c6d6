package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/dpmcmc/dpmcmc/server"
	"github.com/dpmcmc/dpmcmc/server/embedded"
)

func init() {
	register("serve", "serve the browser app on this machine", runServe)
}

func runServe(args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, args, stdout, stderr)
}

// serve runs the server until ctx is done, then shuts it down gracefully.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", "[--addr 127.0.0.1:8080] [--dir build/site] [--frame-ancestors ORIGINS]", stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "`host:port` to listen on; an empty host means 127.0.0.1, port 0 a free port")
	dirHelp := "built site to serve (made by ./build.sh or make build)"
	site, hasEmbedded := embedded.FS()
	if hasEmbedded {
		dirHelp += "; without --dir, the site embedded in this binary"
	}
	dir := fs.String("dir", "build/site", dirHelp)
	frame := fs.String("frame-ancestors", "'none'", "origins allowed to embed the demo page (embed.html) in a frame, space or comma\n"+
		"separated (e.g. 'self' https://docs.example.org); the app itself is never frameable")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ancestors, err := server.ParseFrameAncestors(*frame)
	if err != nil {
		return err
	}
	dirGiven := false
	fs.Visit(func(f *flag.Flag) { dirGiven = dirGiven || f.Name == "dir" })
	if !hasEmbedded || dirGiven {
		if st, err := os.Stat(filepath.Join(*dir, "index.html")); err != nil || !st.Mode().IsRegular() {
			return fmt.Errorf("no built site in %s (run ./build.sh or make build first)", *dir)
		}
		site = os.DirFS(*dir)
	}
	h, err := server.New(server.Config{FS: site, FrameAncestors: ancestors})
	if err != nil {
		return err
	}

	host, port, err := net.SplitHostPort(*addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %v", *addr, err)
	}
	if host == "" {
		host = "127.0.0.1" // never listen on every interface by accident
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return err
	}
	la := ln.Addr().(*net.TCPAddr)
	urlHost := la.IP.String()
	if la.IP.IsUnspecified() {
		fmt.Fprintf(stderr, "dpmcmc serve: warning: listening on all interfaces (%s); other machines can reach this server\n", la)
		urlHost = "127.0.0.1"
	}
	fmt.Fprintf(stdout, "Serving on http://%s/\n", net.JoinHostPort(urlHost, fmt.Sprint(la.Port)))

	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
