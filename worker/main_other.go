//go:build !(js && wasm)

package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
)

// main serves the worker's handler natively, for debugging: the same
// handler as on Cloudflare, without the runtime's compression.
func main() {
	addr := flag.String("addr", "127.0.0.1:8787", "host:port to listen on")
	dir := flag.String("dir", "build/site", "built site")
	fa := flag.String("frame-ancestors", "'none'", "origins allowed to frame embed.html")
	flag.Parse()
	h, err := newHandler(os.DirFS(*dir), *fa, false)
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("Serving on http://%s/\n", ln.Addr())
	log.Fatal(http.Serve(ln, h))
}
