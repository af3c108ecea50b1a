package main

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Chart geometry, in SVG user units.
const (
	width, height = 640, 360
	left, right   = 70, 150 // room for the y labels and the legend
	top, bottom   = 40, 50
	plotW         = width - left - right
	plotH         = height - top - bottom
)

// palette colours the series in order.
var palette = []string{"#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#ff7f0e"}

type svg struct{ b strings.Builder }

func (s *svg) printf(format string, a ...any) { fmt.Fprintf(&s.b, format, a...) }

func (s *svg) open(title string) {
	s.printf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	s.printf(`<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	s.printf(`<text x="%d" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(title))
}

func (s *svg) close() string {
	s.printf("</svg>\n")
	return s.b.String()
}

func (s *svg) legend(series []string) {
	for i, name := range series {
		y := top + 10 + i*20
		s.printf(`<rect x="%d" y="%d" width="12" height="12" fill="%s"/>`+"\n", width-right+15, y-10, palette[i%len(palette)])
		s.printf(`<text x="%d" y="%d">%s</text>`+"\n", width-right+32, y, html.EscapeString(name))
	}
}

// axes draws the y grid for ticks (already scaled to plot heights) and
// the axis label.
func (s *svg) axes(yLabel string, ticks []float64, y func(float64) float64, format func(float64) string) {
	for _, t := range ticks {
		py := y(t)
		s.printf(`<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, left+plotW, py, py)
		s.printf(`<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, py+4, format(t))
	}
	s.printf(`<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#333"/>`+"\n", left, left+plotW, top+plotH, top+plotH)
	s.printf(`<text transform="translate(16 %d) rotate(-90)" text-anchor="middle">%s</text>`+"\n", top+plotH/2, html.EscapeString(yLabel))
}

// barChart draws values[group][series] as grouped bars from zero.
func barChart(title, yLabel string, groups, series []string, values [][]float64) string {
	var s svg
	s.open(title)
	maxV := niceCeil(maxOf(values))
	yOf := func(v float64) float64 { return float64(topPad) + float64(plotH)*(1-v/maxV) }
	s.axes(yLabel, linearTicks(maxV), yOf, shortNumber)
	groupW := float64(plotW) / float64(len(groups))
	barW := groupW * 0.8 / float64(len(series))
	for g, name := range groups {
		x0 := float64(left) + float64(g)*groupW + groupW*0.1
		for i := range series {
			v := values[g][i]
			if math.IsNaN(v) {
				continue
			}
			s.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`+"\n",
				x0+float64(i)*barW, yOf(v), barW-2, yOf(0)-yOf(v), palette[i%len(palette)],
				html.EscapeString(name), html.EscapeString(series[i]), shortNumber(v))
		}
		s.printf(`<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x0+groupW*0.4, topPad+plotH+18, html.EscapeString(name))
	}
	s.legend(series)
	return s.close()
}

// lineChart draws values[series][x] against evenly spaced x labels, on a
// linear or logarithmic y axis.
func lineChart(title, yLabel, xLabel string, xs, series []string, values [][]float64, logY bool) string {
	var s svg
	s.open(title)
	maxV := niceCeil(maxOf(values))
	yOf := func(v float64) float64 { return float64(topPad) + float64(plotH)*(1-v/maxV) }
	ticks := linearTicks(maxV)
	if logY {
		decades := math.Max(1, math.Ceil(math.Log10(maxOf(values))))
		yOf = func(v float64) float64 {
			return float64(topPad) + float64(plotH)*(1-math.Log10(math.Max(v, 1))/decades)
		}
		ticks = nil
		for d := 0.0; d <= decades; d++ {
			ticks = append(ticks, math.Pow(10, d))
		}
	}
	s.axes(yLabel, ticks, yOf, shortNumber)
	xOf := func(i int) float64 {
		return float64(left) + float64(plotW)*(float64(i)+0.5)/float64(len(xs))
	}
	for i, x := range xs {
		s.printf(`<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", xOf(i), topPad+plotH+18, html.EscapeString(x))
	}
	s.printf(`<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", left+plotW/2, topPad+plotH+38, html.EscapeString(xLabel))
	for si, name := range series {
		var pts []string
		for i, v := range values[si] {
			if math.IsNaN(v) {
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", xOf(i), yOf(v)))
			s.printf(`<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s at %s: %s</title></circle>`+"\n",
				xOf(i), yOf(v), palette[si%len(palette)], html.EscapeString(name), html.EscapeString(xs[i]), shortNumber(v))
		}
		s.printf(`<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), palette[si%len(palette)])
	}
	s.legend(series)
	return s.close()
}

const topPad = top

func maxOf(values [][]float64) float64 {
	m := 0.0
	for _, row := range values {
		for _, v := range row {
			if !math.IsNaN(v) && v > m {
				m = v
			}
		}
	}
	return m
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func linearTicks(maxV float64) []float64 {
	ticks := make([]float64, 0, 6)
	for i := 0; i <= 5; i++ {
		ticks = append(ticks, maxV*float64(i)/5)
	}
	return ticks
}

// shortNumber prints 1234 as "1.2k" and 2500000 as "2.5M".
func shortNumber(v float64) string {
	switch {
	case v >= 1e6:
		return trim(fmt.Sprintf("%.1f", v/1e6)) + "M"
	case v >= 1e3:
		return trim(fmt.Sprintf("%.1f", v/1e3)) + "k"
	case v >= 10 || v == 0:
		return fmt.Sprintf("%.0f", v)
	}
	return trim(fmt.Sprintf("%.2f", v))
}

func trim(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
