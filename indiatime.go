package upicollect

import "github.com/upicollect/upicollect-go/internal/vocab"

// IndiaTime is India Standard Time (UTC+05:30, no daylight saving), the
// service's clock: an expiry the service writes without an offset
// (Intent.ExpiresAt) is read in it, and the sandbox's pages, the CLI and
// its dashboard show times in it. It is a fixed zone, so that no time zone
// database is needed. It is the one India time zone of every module of
// the SDK: use it, never a zone of your own.
var IndiaTime = vocab.IndiaTime
