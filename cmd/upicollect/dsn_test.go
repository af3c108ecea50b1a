package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sqlOpen opens the SQLite file at path as the CLI does.
func sqlOpen(path string) (*sql.DB, error) {
	return sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
}

// nastyPasswords (as the reconcile package's tests have them) are passwords that break a URL parser, or that a parser
// would cut short: each must be hidden whole, in every form, wherever the
// DSN is printed.
var nastyPasswords = []string{
	"s3cr/etQ9", "s3cr#etQ9", "s3cr?etQ9", "s3cr@etQ9", "s3cr%zzQ9", "s3cr%2FetQ9", "s3cr:etQ9",
	"s3cr etQ9", "s3cr&etQ9", "s3cr'etQ9", `s3cr"etQ9`, "s3cr\netQ9", "s3cr\x1b[2JQ9", "s3cr\\etQ9", "pässwörtQ9",
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

// TestDSNPasswordNeverPrinted runs the commands with DSNs whose
// passwords break parsers, given each way a DSN comes (the variable, a
// --dsn-file, --dsn, which refuses it), against a PostgreSQL that is not
// there: the errors name the DSN, never its password.
func TestDSNPasswordNeverPrinted(t *testing.T) {
	dsnFile := filepath.Join(t.TempDir(), "ledger.dsn")
	for _, pw := range nastyPasswords {
		for _, dsn := range []string{
			"postgres://shop:" + pw + "@127.0.0.1:1/shop?connect_timeout=1",
			"postgres://shop@127.0.0.1:1/shop?connect_timeout=1&password=" + pw,
		} {
			require.NoError(t, os.WriteFile(dsnFile, []byte(dsn+"\n"), 0o600))
			for _, args := range [][]string{
				{"reconcile", "list", "--dsn-file", dsnFile}, {"reconcile", "show", "o-1", "--json"}, {"reconcile", "list", "--dsn", dsn},
			} {
				env := []string{envDSN + "=" + dsn}
				r := cli(t, env, "", args...)
				assert.NotEqual(t, exitOK, r.code)
				assertNoPart(t, r.output(), pw, strings.Join(args[:2], " "))
			}
		}
	}
}
