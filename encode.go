package upicollect

import (
	"net/url"

	"github.com/google/go-querystring/query"
)

// form encodes a wire request struct. The structs hold only strings and
// integers, which query.Values cannot fail on; an error would be a bug here.
func form(v any) url.Values {
	f, err := query.Values(v)
	if err != nil {
		panic("upicollect: encoding a wire request: " + err.Error())
	}
	return f
}
