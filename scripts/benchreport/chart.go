package main

import (
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// chart draws CPU per frame against frame size (RGBA 360p, 1080p, 4K),
// log–log, one line per pipeline (the cases with a Chart label).
func chart(cases []*Case, path string) error {
	p := plot.New()
	p.Title.Text = "Steady-state CPU per frame vs frame size (whole process, median of rounds)"
	p.X.Label.Text = "frame size, MB (RGBA 360p, 1080p, 4K)"
	p.Y.Label.Text = "CPU per frame, ms (user+sys)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = false, false // bottom right: the lines rise to the right
	p.Add(plotter.NewGrid())

	var order []string
	lines := map[string]plotter.XYs{}
	for _, c := range cases {
		if c.Chart == "" || len(c.runs) == 0 {
			continue
		}
		if _, ok := lines[c.Chart]; !ok {
			order = append(order, c.Chart)
		}
		y := c.msPerFrame()
		if y <= 0 {
			y = math.SmallestNonzeroFloat32
		}
		lines[c.Chart] = append(lines[c.Chart], plotter.XY{X: float64(c.Bytes) / 1e6, Y: y})
	}
	palette := []color.RGBA{
		{0xd6, 0x27, 0x28, 255}, {0x1f, 0x77, 0xb4, 255}, {0x2c, 0xa0, 0x2c, 255}, {0xff, 0x7f, 0x0e, 255},
		{0x94, 0x67, 0xbd, 255}, {0x8c, 0x56, 0x4b, 255}, {0xe3, 0x77, 0xc2, 255}, {0x7f, 0x7f, 0x7f, 255},
	}
	for i, name := range order {
		l, pts, err := plotter.NewLinePoints(lines[name])
		if err != nil {
			return err
		}
		col := palette[i%len(palette)]
		l.Color, pts.Color = col, col
		l.Width = vg.Points(1.5)
		pts.Shape = draw.CircleGlyph{}
		if strings.Contains(name, "pattern=none") {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(l, pts)
		p.Legend.Add(name, l, pts)
	}
	return p.Save(9*vg.Inch, 6*vg.Inch, path)
}
