package dashboard

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestChartGolden pins every number of the chart: each bar's place and
// width, its label, its segments' heights and titles, the axis's ticks and
// the legend, for ledgers whose busiest day sets a scale with a half tick
// (4), one without (5), a scale of tens (20) and an empty ledger
// (testdata/chart_*.json; -update rewrites them). A result the chart does
// not know is left out.
func TestChartGolden(t *testing.T) {
	ev := func(r reconcile.Result, daysAgo int, hour int) reconcile.Event {
		d := now.AddDate(0, 0, -daysAgo)
		return reconcile.Event{Result: r, At: time.Date(d.Year(), d.Month(), d.Day(), hour, 0, 0, 0, upicollect.IndiaTime)}
	}
	many := func(n int, r reconcile.Result, daysAgo int) []reconcile.OrderState {
		out := make([]reconcile.OrderState, n)
		for i := range out {
			out[i] = reconcile.OrderState{Events: []reconcile.Event{ev(r, daysAgo, i%24)}}
		}
		return out
	}
	join := func(parts ...[]reconcile.OrderState) []reconcile.OrderState {
		var out []reconcile.OrderState
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, tt := range []struct {
		name   string
		orders []reconcile.OrderState
		days   int
	}{
		{"scale4", join(
			many(2, reconcile.Paid, 13), // the first day of the chart
			many(1, reconcile.Expired, 13),
			many(1, reconcile.LatePaid, 7),
			many(1, reconcile.Mismatch, 1),
			many(1, reconcile.Failed, 0),
			many(2, reconcile.Paid, 0),
			many(1, reconcile.Result("refunded"), 0), // a result the chart does not draw
		), 14},
		{"scale5", join(many(3, reconcile.Paid, 2), many(2, reconcile.Failed, 2), many(1, reconcile.Expired, 0)), 7},
		{"scale20", join(many(11, reconcile.Paid, 1), many(4, reconcile.LatePaid, 1), many(3, reconcile.Paid, 0)), 30},
		{"empty", nil, 14},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := chartJSON(t, newChart(tt.orders, now, tt.days))
			file := filepath.Join("testdata", "chart_"+tt.name+".json")
			if *update {
				require.NoError(t, os.MkdirAll("testdata", 0o755))
				require.NoError(t, os.WriteFile(file, append(got, '\n'), 0o644))
			}
			want, err := os.ReadFile(file)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got)+"\n")
		})
	}
}

// chartJSON is c as indented JSON with every number rounded to a
// thousandth, so that the golden files hold no last-bit float noise (a
// platform whose compiler fuses multiply-adds may differ there).
func chartJSON(t *testing.T, c chart) []byte {
	t.Helper()
	b, err := json.Marshal(c)
	require.NoError(t, err)
	var v any
	require.NoError(t, json.Unmarshal(b, &v))
	out, err := json.MarshalIndent(rounded(v), "", "  ")
	require.NoError(t, err)
	return out
}

func rounded(v any) any {
	switch v := v.(type) {
	case float64:
		return math.Round(v*1000) / 1000
	case []any:
		for i := range v {
			v[i] = rounded(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = rounded(v[k])
		}
	}
	return v
}
