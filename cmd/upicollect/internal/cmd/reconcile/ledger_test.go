package reconcile

import (
	"bytes"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
)

func TestParseDSN(t *testing.T) {
	tests := []struct {
		dsn, driver, source, path string
		d                         sqlstore.Dialect
	}{
		{"postgres://u@127.0.0.1/db", "pgx", "postgres://u@127.0.0.1/db", "", sqlstore.Postgres},
		{"postgresql://u@h/db?sslmode=disable", "pgx", "postgresql://u@h/db?sslmode=disable", "", sqlstore.Postgres},
		{"sqlite:orders.db", "sqlite", "file:orders.db?" + sqliteBusyTimeout, "orders.db", sqlstore.SQLite},
		{"file:/tmp/o.db?mode=rwc", "sqlite", "file:/tmp/o.db?mode=rwc&" + sqliteBusyTimeout, "/tmp/o.db", sqlstore.SQLite},
		{"sqlite:o.db?_pragma=busy_timeout(5)", "sqlite", "file:o.db?_pragma=busy_timeout(5)", "o.db", sqlstore.SQLite},
	}
	for _, tt := range tests {
		d, err := parseDSN(tt.dsn)
		require.NoError(t, err, tt.dsn)
		assert.Equal(t, []any{tt.driver, tt.source, tt.path, tt.d}, []any{d.driver, d.source, d.path, d.dialect}, tt.dsn)
	}
	for _, bad := range []string{"mysql://u:hunter2@h/db", "sqlite:", "postgres:/no-slashes", "postgres://u:pa%zz@h/db", "hunter2"} {
		_, err := parseDSN(bad)
		require.Error(t, err, bad)
		assert.NotContains(t, err.Error(), "hunter2")
		assert.NotContains(t, err.Error(), "pa%zz")
	}
}

// nastyPasswords are passwords that break a URL parser, or that a parser
// would cut short: each must be hidden whole, in every form, wherever the
// DSN is printed.
var nastyPasswords = []string{
	"s3cr/etQ9", "s3cr#etQ9", "s3cr?etQ9", "s3cr@etQ9", "s3cr%zzQ9", "s3cr%2FetQ9", "s3cr:etQ9",
	"s3cr etQ9", "s3cr&etQ9", "s3cr'etQ9", `s3cr"etQ9`, "s3cr\netQ9", "s3cr\x1b[2JQ9", "s3cr\\etQ9", "pässwörtQ9",
}

// TestRedactDSN: no password, and no part of one as long as 4
// characters, survives redactDSN, in any position a DSN can hold it.
func TestRedactDSN(t *testing.T) {
	forms := []struct {
		name string
		dsn  func(pw string) string
		keep string // what the redacted DSN still says
	}{
		{"userinfo", func(pw string) string { return "postgres://shop:" + pw + "@db.example:5432/shop?sslmode=require" }, "postgres://shop:xxxxx@db.example:5432/shop"},
		{"query", func(pw string) string { return "postgres://shop@db.example/shop?sslmode=require&password=" + pw }, "postgres://shop@db.example/shop?sslmode=require&password=xxxxx"},
		{"query first", func(pw string) string { return "postgresql://db.example/shop?password=" + pw + "&user=shop" }, "postgresql://db.example/shop?password=xxxxx"},
		{"sslpassword", func(pw string) string { return "postgres://shop@h/db?sslpassword=" + pw }, "postgres://shop@h/db?sslpassword=xxxxx"},
		{"sqlite auth", func(pw string) string { return "sqlite:shop.db?_auth_user=a&_auth_pass=" + pw }, "sqlite:shop.db?_auth_user=a&_auth_pass=xxxxx"},
		{"keywords", func(pw string) string { return "host=h user=shop password=" + pw + " dbname=shop" }, "host=h user=shop password=xxxxx"},
		{"upper case", func(pw string) string { return "POSTGRES://shop:" + pw + "@h/db?PASSWORD=" + pw }, "POSTGRES://shop:xxxxx@h/db?PASSWORD=xxxxx"},
	}
	for _, f := range forms {
		for _, pw := range nastyPasswords {
			dsn := f.dsn(pw)
			got := redactDSN(dsn)
			assert.True(t, strings.HasPrefix(got, f.keep), "%s %q: %q should start with %q", f.name, pw, got, f.keep)
			assertNoPart(t, got, pw, f.name)
			// What the output filter learns of the DSN covers it too.
			var out bytes.Buffer
			ios := iostreams.New(strings.NewReader(""), &out, io.Discard, func(string) string { return "" })
			ios.Secrets().Add(dsnSecrets(dsn)...)
			_, err := ios.Out.Write([]byte("error: " + dsn + " (" + pw + ")"))
			require.NoError(t, err)
			assertNoPart(t, out.String(), pw, f.name+" filtered")
		}
	}
	assert.Equal(t, "postgres://u@h/db", redactDSN("postgres://u@h/db"), "nothing to hide: unchanged")
	assert.Equal(t, "sqlite:/var/lib/shop.db", redactDSN("sqlite:/var/lib/shop.db"))
}

// assertNoPart fails when got holds pw or any 4 characters in a row of it
// (the passwords' fragments appear nowhere else in the DSNs).
func assertNoPart(t *testing.T, got, pw, what string) {
	t.Helper()
	r := []rune(pw)
	for i := 0; i+4 <= len(r); i++ {
		part := string(r[i : i+4])
		if strings.ContainsAny(part, "\n") {
			continue // the line break is not the password's to hide
		}
		if !assert.NotContains(t, got, part, "%s: %q leaks %q of %q", what, got, part, pw) {
			return
		}
	}
}
