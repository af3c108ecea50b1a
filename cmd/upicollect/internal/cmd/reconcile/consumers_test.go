package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdtest"
	"github.com/upicollect/upicollect-go/cmd/upicollect/internal/cmdutil"
	"github.com/upicollect/upicollect-go/sandbox"
)

func TestDerivedConsumer(t *testing.T) {
	for _, tc := range []struct{ deliver, want string }{
		{"exec:php credit.php", "exec:" + shortHash("php credit.php")},
		{"exec:  php credit.php ", "exec:" + shortHash("php credit.php")},
		{"https://Shop.example/upi/hook?token=s3cret", "webhook:shop.example/upi/hook"},
		{"https://user:pw@shop.example/hook", "webhook:shop.example/hook"},
		{"https://shop.example/" + strings.Repeat("a", 80), "webhook:" + shortHash("shop.example/"+strings.Repeat("a", 80))},
	} {
		got := derivedConsumer(tc.deliver)
		assert.Equal(t, tc.want, got, tc.deliver)
		assert.NotContains(t, got, "s3cret")
		assert.NotContains(t, got, "pw")
		assert.LessOrEqual(t, len(got), maxDerivedConsumer)
	}
	assert.NotEqual(t, derivedConsumer("exec:php a.php"), derivedConsumer("exec:php b.php"), "two targets never share")
	assert.Len(t, shortHash("x"), 12)
}

// TestConsumersRun: two runs with different targets each deliver the
// event (checked once); consumers lists them; a consumer with a pending
// event not seen for longer than --stale-after is flagged and exits 1;
// --remove ends it.
func TestConsumersRun(t *testing.T) {
	re := newRunEnv(t)
	ctx := context.Background()
	target := func(who string) string { return `exec:cat > ` + re.dir + `/` + who + `-$UPICOLLECT_ORDER_ID.json` }
	consumers := func(now time.Time, args ...string) (string, error) {
		f, stdout, _ := testFactory(map[string]string{envDSN: re.dsn})
		f.IOStreams.Now = func() time.Time { return now }
		err := cmdtest.ExecuteIn(ctx, NewCmdConsumers(f, nil), args...)
		return stdout.String(), err
	}
	// Each registers at its first step, before any event.
	for _, who := range []string{"app", "php"} {
		_, stderr, err := re.run(ctx, "--once", "--clock", "local", "--deliver", target(who))
		require.NoError(t, err, stderr)
	}
	_, stderr, err := re.run(ctx, "--once", "--clock", "local", "--deliver", "exec:true", "--consumer", "mail")
	require.NoError(t, err, stderr)
	re.order(t, "ORD-1", 499, sandbox.StatusSuccess)
	for _, who := range []string{"app", "php"} {
		stdout, stderr, err := re.run(ctx, "--once", "--clock", "local", "--deliver", target(who))
		require.NoError(t, err, stderr)
		assert.Contains(t, stdout, "paid      ORD-1", who)
		_, err = os.Stat(filepath.Join(re.dir, who+"-ORD-1.json"))
		require.NoError(t, err, "%s got the event", who)
	}
	checks := 0
	for _, r := range re.s.Requests() {
		if r.Op == "checkPaymentStatus" {
			checks++
		}
	}
	assert.Equal(t, 1, checks, "one check: the second target's delivery needs none")

	out, err := consumers(cmdtest.Now)
	require.NoError(t, err)
	app, php := derivedConsumer(target("app")), derivedConsumer(target("php"))
	if php < app {
		app, php = php, app // listed by name
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 4, out)
	assert.Regexp(t, `^CONSUMER\s+PENDING\s+DELIVERED\s+LAST SEEN`, lines[0])
	assert.Regexp(t, `^`+app+`\s+0\s+1\s+2026-11-26 15:30:00 IST\s*$`, lines[1])
	assert.Regexp(t, `^`+php+`\s+0\s+1\s+2026-11-26 15:30:00 IST\s*$`, lines[2])
	assert.Regexp(t, `^mail\s+1\s+0\s+2026-11-26 15:30:00 IST\s*$`, lines[3], "pending, seen just now: not flagged")

	out, err = consumers(cmdtest.Now.Add(10*time.Minute), "--json")
	require.Error(t, err, "mail has a pending event and was not seen for 10 minutes")
	code, kind := exitOf(t, err)
	assert.Equal(t, []any{cmdutil.ExitFailure, "stale_consumer"}, []any{code, kind})
	assert.Contains(t, out, `{"name":"mail","pending":1,"delivered":0,"last_seen":"2026-11-26T10:00:00Z","stale":true}`)
	assert.Equal(t, 1, strings.Count(out, `"stale":true`), "the others have nothing pending")

	out, err = consumers(cmdtest.Now, "--remove", "mail")
	require.NoError(t, err)
	assert.Equal(t, "removed mail\n", out)
	_, err = consumers(cmdtest.Now.Add(time.Hour))
	require.NoError(t, err, "nothing stale left")
	_, err = consumers(cmdtest.Now, "--remove", "mail")
	code, kind = exitOf(t, err)
	assert.Equal(t, []any{cmdutil.ExitRefused, "no_consumer"}, []any{code, kind})

	_, _, err = re.run(ctx, "--once", "--deliver", "exec:true", "--consumer", "bad\x01name")
	code, _ = exitOf(t, err)
	assert.Equal(t, cmdutil.ExitUsage, code)
}
