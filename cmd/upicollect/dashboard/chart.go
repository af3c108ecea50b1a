package dashboard

import (
	"fmt"
	"time"

	upicollect "github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/reconcile"
)

// chartResults are the results the chart stacks, bottom up, with the CSS
// class that colours each.
var chartResults = []reconcile.Result{reconcile.Paid, reconcile.LatePaid, reconcile.Mismatch, reconcile.Failed, reconcile.Expired}

// The chart's geometry, in SVG user units (the SVG scales to its box).
const (
	chartW      = 560.0
	chartH      = 260.0
	chartLeft   = 34.0 // room for the y axis's numbers
	chartRight  = 24.0 // room for the last day's label
	chartTop    = 22.0 // room for a bar's total
	chartBottom = 30.0 // room for the days
)

// chart is the outcomes-over-time bar chart: the events of each day (India
// time), one bar a day, stacked by result. The template draws it as inline
// SVG; every number is computed here.
type chart struct {
	Width, Height float64
	Bars          []bar
	Ticks         []tick
	Legend        []legendItem
	Days          []day // the same numbers, for the table under the chart
	Total         int
	From, To      time.Time
}

type bar struct {
	X, W, Mid float64
	Label     string // "26 Nov"; "" where the axis has no room
	Narrow    bool   // the label stays on a narrow screen too (every fourth day)
	Total     int
	TotalY    float64
	Segs      []seg
}

type seg struct {
	Y, H  float64
	Class string
	Title string
}

type tick struct {
	Y     float64
	Value int
}

type legendItem struct {
	Class string
	Name  string
	Count int
}

type day struct {
	Date   time.Time
	Counts []int // by chartResults
	Total  int
}

// newChart counts the events of orders over the days days ending on
// now's day (IST).
func newChart(orders []reconcile.OrderState, now time.Time, days int) chart {
	now = now.In(upicollect.IndiaTime)
	last := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, upicollect.IndiaTime)
	first := last.AddDate(0, 0, -(days - 1))
	c := chart{Width: chartW, Height: chartH, From: first, To: last}
	c.Days = make([]day, days)
	for i := range c.Days {
		c.Days[i] = day{Date: first.AddDate(0, 0, i), Counts: make([]int, len(chartResults))}
	}
	perResult := make([]int, len(chartResults))
	for _, o := range orders {
		for _, e := range o.Events {
			at := e.At.In(upicollect.IndiaTime)
			d := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, upicollect.IndiaTime)
			i := dayIndex(first, d)
			k := resultIndex(e.Result)
			if i < 0 || i >= days || k < 0 {
				continue
			}
			c.Days[i].Counts[k]++
			c.Days[i].Total++
			perResult[k]++
			c.Total++
		}
	}
	for k, r := range chartResults {
		c.Legend = append(c.Legend, legendItem{Class: "r-" + string(r), Name: stateName(reconcile.State(r)), Count: perResult[k]})
	}
	top := 0
	for _, d := range c.Days {
		top = max(top, d.Total)
	}
	scaleMax := niceCeil(top)
	plotH := chartH - chartTop - chartBottom
	y := func(v int) float64 { return chartTop + plotH - plotH*float64(v)/float64(scaleMax) }
	for _, v := range []int{0, scaleMax / 2, scaleMax} {
		if v == scaleMax/2 && (scaleMax%2 != 0 || v == 0) {
			continue
		}
		c.Ticks = append(c.Ticks, tick{Y: y(v), Value: v})
	}
	slot := (chartW - chartLeft - chartRight) / float64(days)
	for i, d := range c.Days {
		b := bar{X: chartLeft + slot*float64(i) + slot*0.18, W: slot * 0.64, Total: d.Total, TotalY: y(d.Total) - 5}
		b.Mid = b.X + b.W/2
		if (days-1-i)%2 == 0 { // every other day, ending today
			b.Label, b.Narrow = d.Date.Format("02 Jan"), (days-1-i)%4 == 0
		}
		base := 0
		for k, n := range d.Counts {
			if n == 0 {
				continue
			}
			top, bottom := y(base+n), y(base)
			b.Segs = append(b.Segs, seg{Y: top, H: bottom - top, Class: "r-" + string(chartResults[k]),
				Title: fmt.Sprintf("%s: %d %s", d.Date.Format("02 Jan"), n, stateName(reconcile.State(chartResults[k])))})
			base += n
		}
		c.Bars = append(c.Bars, b)
	}
	return c
}

// dayIndex is how many days d is after first (both midnights in IST,
// which has no daylight saving).
func dayIndex(first, d time.Time) int {
	if d.Before(first) {
		return -1
	}
	return int(d.Sub(first).Hours()+0.5) / 24
}

func resultIndex(r reconcile.Result) int {
	for i, x := range chartResults {
		if x == r {
			return i
		}
	}
	return -1
}

// niceCeil is the smallest of 2, 4, 5, 10, 20, 40, 50, 100, ... at least
// n (2 for n <= 2): an axis top with a round half.
func niceCeil(n int) int {
	for step := 1; ; step *= 10 {
		for _, m := range []int{2, 4, 5, 10} {
			if m*step >= n {
				return m * step
			}
		}
	}
}
