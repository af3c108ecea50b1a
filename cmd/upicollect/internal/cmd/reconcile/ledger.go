package reconcile

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL, as "pgx"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/iostreams"
	"github.com/upicollect/upicollect-go/reconcile"
	"github.com/upicollect/upicollect-go/reconcile/sqlstore"
	_ "modernc.org/sqlite" // SQLite in pure Go, as "sqlite"
)

// sqliteBusyTimeout is added to a SQLite DSN without a busy timeout:
// sweepers sharing the file wait for its write lock instead of failing.
const sqliteBusyTimeout = "_pragma=busy_timeout(10000)"

// ledgerDSN is a --dsn taken apart: the driver and source to open, and
// the secrets it holds, which no output may carry.
type ledgerDSN struct {
	raw     string
	driver  string
	source  string
	dialect sqlstore.Dialect
	path    string   // SQLite: the file; "" for PostgreSQL
	secrets []string // the password and secret parameters, as written and decoded
}

// openStore opens the ledger named by dsn and its store. A SQLite file
// that does not exist is refused unless create: a typo in a path must not
// start an empty ledger. A reader (readOnly) refuses a database that holds
// no ledger instead of creating its tables there. Every error names the
// DSN redacted (redactDSN) and carries none of its secrets, whatever the
// driver put in it.
func (o *ledgerOptions) openStore(dsn string, readOnly bool) (reconcile.Store, func(), error) {
	ctx, create := o.Ctx, o.Create
	d, err := parseDSN(dsn)
	if err != nil {
		return nil, nil, cmdutil.UsageError(err)
	}
	o.IO.Secrets().Add(d.secrets...)
	if d.path != "" && !create {
		if _, err := os.Stat(d.path); errors.Is(err, os.ErrNotExist) {
			return nil, nil, cmdutil.UsageError(fmt.Errorf("--dsn %s: no such file; add --create to start a new ledger there", redactDSN(dsn)))
		}
	}
	db, err := sql.Open(d.driver, d.source)
	if err != nil {
		return nil, nil, cmdutil.UsageError(fmt.Errorf("--dsn %s: %s", redactDSN(dsn), d.scrub(err)))
	}
	if readOnly {
		if err := db.PingContext(ctx); err != nil {
			db.Close()
			return nil, nil, fmt.Errorf("%s database %s: %s", d.dialect, redactDSN(dsn), d.scrub(err))
		}
		var one int
		err := db.QueryRowContext(ctx, "SELECT 1 FROM "+sqlstore.OrdersTable+" LIMIT 1").Scan(&one)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			db.Close()
			return nil, nil, cmdutil.UsageError(fmt.Errorf("--dsn %s holds no reconcile ledger (no table %s); "+
				"it is made by your application's sqlstore.New, or by reconcile run or track", redactDSN(dsn), sqlstore.OrdersTable))
		}
	}
	var opts []sqlstore.Option
	if d.dialect == sqlstore.SQLite || o.followClock {
		// SQLite keeps no clock: the store's is this process's, the one
		// every command reads (tests set their own); a sweeper on a
		// sandbox's time keeps it for PostgreSQL too.
		opts = append(opts, sqlstore.WithClock(o.IO.Now))
	}
	st, err := sqlstore.New(ctx, db, d.dialect, opts...)
	if err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("%s database %s: %s", d.dialect, redactDSN(dsn), d.scrub(err))
	}
	return st, func() { db.Close() }, nil
}

// scrub is err's text with the DSN and every secret of it replaced: a
// driver's error may quote the DSN, whole or in part.
func (d *ledgerDSN) scrub(err error) string {
	msg := err.Error()
	if d.raw != "" {
		msg = strings.ReplaceAll(msg, d.raw, redactDSN(d.raw))
	}
	for _, s := range d.secrets {
		msg = strings.ReplaceAll(msg, s, dsnMark)
	}
	return msg
}

// parseDSN picks the driver and dialect from dsn's scheme: postgres:// or
// postgresql:// for PostgreSQL, sqlite:PATH or file:PATH for SQLite (with
// a busy timeout unless dsn sets one). A PostgreSQL DSN that is not a
// valid URL is refused here, before the driver sees it: drivers quote a
// DSN they cannot parse.
func parseDSN(dsn string) (*ledgerDSN, error) {
	d := &ledgerDSN{raw: dsn, secrets: dsnSecrets(dsn)}
	scheme, rest, _ := strings.Cut(dsn, ":")
	switch strings.ToLower(scheme) {
	case "postgres", "postgresql":
		if _, err := url.Parse(dsn); err != nil || !strings.HasPrefix(rest, "//") {
			return nil, fmt.Errorf("--dsn %s: not a valid URL (percent-encode a password's / # ? @ %% and spaces)", redactDSN(dsn))
		}
		d.driver, d.source, d.dialect = "pgx", dsn, sqlstore.Postgres
		return d, nil
	case "sqlite", "file":
		path, query, _ := strings.Cut(rest, "?")
		if path == "" {
			break
		}
		d.source, d.path = "file:"+rest, path
		if !strings.Contains(query, "busy_timeout") {
			sep := "?"
			if strings.Contains(rest, "?") {
				sep = "&"
			}
			d.source += sep + sqliteBusyTimeout
		}
		d.driver, d.dialect = "sqlite", sqlstore.SQLite
		return d, nil
	}
	shown := "" // an unknown DSN is not shown: it may be a password pasted by mistake
	if ok, _ := regexp.MatchString(`^[A-Za-z][A-Za-z0-9+.-]*:`, dsn); ok {
		shown = " " + scheme + ":…"
	}
	return nil, fmt.Errorf("--dsn%s: want postgres://…, postgresql://…, sqlite:PATH or file:PATH", shown)
}

// dsnMark replaces a DSN's password and secret parameters.
const dsnMark = "xxxxx"

// secretParam finds a parameter whose value is a secret (password,
// sslpassword, _auth_pass, pwd, secret, token, sslkey ...): a query
// parameter after '?' or '&', or a key=value word.
var secretParam = regexp.MustCompile(`(?i)(?:^|[?&\s])([a-z_]*(?:pass|pwd|secret|token|key)[a-z_]*=)`)

// passwordParam finds a parameter that holds a password (password,
// sslpassword, _auth_pass, pwd, secret, token ...): secretParam without
// the names that hold a file's path (sslkey).
var passwordParam = regexp.MustCompile(`(?i)(?:^|[?&\s])[a-z_]*(?:pass|pwd|secret|token)[a-z_]*=`)

// dsnPassword reports whether dsn holds a password: in its user
// information (postgres://user:password@…, an empty one aside) or as a
// parameter (?password=…, password=… in key=value form).
func dsnPassword(dsn string) bool {
	p := splitDSN(dsn)
	return p.password != "" || passwordParam.MatchString(dsn)
}

// dsnParts is a DSN taken apart for redaction, by rules no password can
// break: the first secret parameter starts the secret tail; the user
// information ends at the last '@' before it.
type dsnParts struct {
	prefix   string // scheme and "://", or "" when there is none
	user     string // the user name; "" when none
	password string // the user information's password as written
	hasPass  bool   // the user information has a ':' (a password, maybe empty)
	hasInfo  bool   // there is user information (an '@')
	middle   string // from after the user information to the secret tail
	param    string // the first secret parameter's "name="; "" when none
	tail     string // its value and everything after it
}

func splitDSN(dsn string) dsnParts {
	var p dsnParts
	rest := dsn
	if i := strings.Index(dsn, "://"); i >= 0 {
		p.prefix, rest = dsn[:i+3], dsn[i+3:]
	}
	if m := secretParam.FindStringSubmatchIndex(rest); m != nil {
		p.param, p.tail = rest[m[2]:m[3]], rest[m[3]:]
		rest = rest[:m[2]]
	}
	if p.prefix != "" {
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			p.hasInfo = true
			p.user, p.password, p.hasPass = strings.Cut(rest[:at], ":")
			rest = rest[at+1:]
		}
	}
	p.middle = rest
	return p
}

// redactDSN is dsn for messages and logs, without its password in any
// form. It parses nothing the way a driver would, so that no password can
// break it: in a URL DSN everything between "://" and the last '@' is the
// user information, of which only the user name is kept (a password
// holding '/', '#', '?', '@' or a bad %xx is cut whole); from the first
// secret parameter (password=, sslpassword=, ...) on, the rest of the DSN
// is dropped, since where such a value ends depends on the driver. It
// hides too much rather than too little.
func redactDSN(dsn string) string {
	p := splitDSN(dsn)
	var b strings.Builder
	b.WriteString(p.prefix)
	if p.hasInfo {
		b.WriteString(p.user)
		if p.hasPass {
			b.WriteString(":" + dsnMark)
		}
		b.WriteString("@")
	}
	b.WriteString(p.middle)
	if p.param != "" {
		b.WriteString(p.param + dsnMark)
		if p.tail != "" {
			b.WriteString("…")
		}
	}
	return iostreams.TerminalSafe(b.String())
}

// dsnSecrets lists the secrets of dsn, as written and decoded, for the
// output filter: the user information's password, and the value of the
// first secret parameter (to the end of the DSN, and to the next '&' or
// blank).
func dsnSecrets(dsn string) []string {
	var out []string
	add := func(s string) {
		if len(s) < 3 { // too short to search for without mangling text
			return
		}
		out = append(out, s)
		for _, dec := range []func(string) (string, error){url.PathUnescape, url.QueryUnescape} {
			if v, err := dec(s); err == nil && v != s && len(v) >= 3 {
				out = append(out, v)
			}
		}
	}
	p := splitDSN(dsn)
	add(p.password)
	// Where the value ends depends on the driver: every prefix that ends
	// at a separator is a candidate, and so is the whole tail.
	add(strings.Trim(p.tail, `'"`))
	for i, c := range p.tail {
		if c == '&' || c == ' ' || c == '\t' || c == '\n' {
			add(strings.Trim(p.tail[:i], `'"`))
		}
	}
	return out
}
