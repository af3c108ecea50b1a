package loopback_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/upicollect/upicollect-go/loopback"
)

// A server on loopback answers this machine's names only, and refuses a
// browser's cross-site requests.
func ExampleGuard() {
	g := loopback.Guard{Hosts: func() []string { return []string{"laptop.lan"} }}
	guarded := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.AllowHost(r.Host) {
			http.Error(w, "misdirected request", http.StatusMisdirectedRequest)
			return
		}
		if !g.AllowOrigin(r) {
			http.Error(w, "cross-site request", http.StatusForbidden)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	for _, host := range []string{"127.0.0.1:8787", "laptop.lan:8787", "evil.example"} {
		w := httptest.NewRecorder()
		guarded.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://"+host+"/", nil))
		fmt.Println(host, w.Code)
	}
	// Output:
	// 127.0.0.1:8787 200
	// laptop.lan:8787 200
	// evil.example 421
}

func ExampleHost() {
	fmt.Println(loopback.Host("localhost"), loopback.Host("[::1]"), loopback.Host("shop.example"))
	// Output: true true false
}
