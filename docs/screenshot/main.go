// Command screenshot renders a terminal screen captured with its colours
// (tmux capture-pane -e -p) to a PNG, the way a terminal draws it: the
// ANSI text goes through a terminal emulator (charmbracelet/x/vt), and each
// cell is painted with DejaVu Sans Mono on a dark theme. Box-drawing
// characters are drawn as lines, so that borders join from cell to cell.
//
//	tmux capture-pane -e -p -t demo > screen.ansi
//	go run . -cols 120 -rows 40 -o ../tui.png < screen.ansi
//
// capture.sh beside this file runs agview demo in tmux and does both steps.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"os"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// The theme: a dark background and a 16-colour palette in the spirit of
// common terminal themes.
var (
	background = color.RGBA{0x1d, 0x20, 0x26, 0xff}
	foreground = color.RGBA{0xd5, 0xd8, 0xde, 0xff}
	palette    = [16]color.RGBA{
		{0x2e, 0x33, 0x3c, 0xff}, // black
		{0xe0, 0x6c, 0x75, 0xff}, // red
		{0x98, 0xc3, 0x79, 0xff}, // green
		{0xe5, 0xc0, 0x7b, 0xff}, // yellow
		{0x61, 0xaf, 0xef, 0xff}, // blue
		{0xc6, 0x78, 0xdd, 0xff}, // magenta
		{0x56, 0xb6, 0xc2, 0xff}, // cyan
		{0xd5, 0xd8, 0xde, 0xff}, // white
		{0x6b, 0x72, 0x80, 0xff}, // bright black (grey)
		{0xff, 0x7b, 0x86, 0xff},
		{0xb5, 0xe8, 0x90, 0xff},
		{0xff, 0xd6, 0x8a, 0xff},
		{0x8c, 0xc8, 0xff, 0xff},
		{0xde, 0x9b, 0xf2, 0xff},
		{0x7c, 0xe3, 0xf0, 0xff}, // bright cyan
		{0xff, 0xff, 0xff, 0xff},
	}
)

func main() {
	cols := flag.Int("cols", 120, "terminal columns")
	rows := flag.Int("rows", 40, "terminal rows")
	out := flag.String("o", "screen.png", "the PNG to write")
	size := flag.Float64("size", 26, "font size in pixels")
	fonts := flag.String("fonts", "/usr/share/fonts/truetype/dejavu", "the directory holding the DejaVu fonts")
	title := flag.String("title", "agview demo", "the window title")
	flag.Parse()
	if err := run(os.Stdin, *out, *cols, *rows, *size, *fonts, *title); err != nil {
		fmt.Fprintln(os.Stderr, "screenshot:", err)
		os.Exit(1)
	}
}

// faces holds the font faces, regular and bold, each with fallbacks for
// glyphs the monospaced font lacks.
type faces struct {
	regular, bold []font.Face
}

func loadFaces(dir string, size float64) (*faces, error) {
	load := func(name string) (font.Face, error) {
		b, err := os.ReadFile(dir + "/" + name)
		if err != nil {
			return nil, err
		}
		f, err := opentype.Parse(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	}
	var fs faces
	for _, n := range []string{"DejaVuSansMono.ttf", "DejaVuSans.ttf"} {
		f, err := load(n)
		if err != nil {
			return nil, err
		}
		fs.regular = append(fs.regular, f)
	}
	for _, n := range []string{"DejaVuSansMono-Bold.ttf", "DejaVuSans-Bold.ttf"} {
		f, err := load(n)
		if err != nil {
			return nil, err
		}
		fs.bold = append(fs.bold, f)
	}
	return &fs, nil
}

func run(in io.Reader, out string, cols, rows int, size float64, fontDir, title string) error {
	fs, err := loadFaces(fontDir, size)
	if err != nil {
		return err
	}
	// capture-pane ends lines with LF alone; a terminal needs CR LF. The
	// attributes carry over from one line to the next, as capture-pane
	// writes them: it sets them only where they change, so a line that
	// starts in the colour the previous one ended in (a box's border) says
	// nothing of it.
	emu := vt.NewEmulator(cols, rows)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	first := true
	for sc.Scan() {
		if !first {
			_, _ = emu.Write([]byte("\r\n"))
		}
		first = false
		_, _ = emu.Write(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		return err
	}

	adv, _ := fs.regular[0].GlyphAdvance('M')
	cw := int(math.Ceil(float64(adv) / 64))
	m := fs.regular[0].Metrics()
	ch := int(math.Ceil(float64(m.Height)/64*1.08)) + 1
	ascent := int(math.Round(float64(m.Ascent) / 64))
	pad := cw * 2
	bar := ch + ch/2 // the window's title bar
	img := image.NewRGBA(image.Rect(0, 0, cols*cw+2*pad, rows*ch+2*pad+bar))
	draw.Draw(img, img.Bounds(), &image.Uniform{background}, image.Point{}, draw.Src)
	drawTitleBar(img, fs, bar, cw, title)

	for y := 0; y < rows; y++ {
		for x := 0; x < cols; x++ {
			c := emu.CellAt(x, y)
			if c == nil || c.Width == 0 && c.Content == "" {
				continue
			}
			fg, bg := colors(c.Style)
			w := max(c.Width, 1)
			r := image.Rect(pad+x*cw, bar+pad+y*ch, pad+(x+w)*cw, bar+pad+(y+1)*ch)
			if bg != background {
				draw.Draw(img, r, &image.Uniform{bg}, image.Point{}, draw.Src)
			}
			content := c.Content
			if content == "" || content == " " {
				continue
			}
			rn := []rune(content)[0]
			if drawBox(img, r, rn, fg) {
				continue
			}
			face := fs.regular
			if c.Style.Attrs&uv.AttrBold != 0 {
				face = fs.bold
			}
			drawGlyph(img, face, content, r.Min.X, r.Min.Y+ascent+(ch-int(math.Ceil(float64(m.Height)/64)))/2, fg, c.Style.Attrs&uv.AttrItalic != 0, cw*w)
		}
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	// The best compression keeps the picture small enough for a README.
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// drawTitleBar paints a window title bar with the three buttons.
func drawTitleBar(img *image.RGBA, fs *faces, h, cw int, title string) {
	barC := color.RGBA{0x2b, 0x2f, 0x37, 0xff}
	draw.Draw(img, image.Rect(0, 0, img.Bounds().Dx(), h), &image.Uniform{barC}, image.Point{}, draw.Src)
	for i, c := range []color.RGBA{{0xff, 0x5f, 0x57, 0xff}, {0xfe, 0xbc, 0x2e, 0xff}, {0x28, 0xc8, 0x40, 0xff}} {
		cx, cy, r := cw*2+i*cw*2, h/2, cw*2/5+2
		for y := -r; y <= r; y++ {
			for x := -r; x <= r; x++ {
				if x*x+y*y <= r*r {
					img.Set(cx+x, cy+y, c)
				}
			}
		}
	}
	m := fs.regular[0].Metrics()
	tw := font.MeasureString(fs.regular[1], title).Ceil()
	drawGlyph(img, fs.regular[1:], title, (img.Bounds().Dx()-tw)/2, h/2+int(m.Ascent/64)/2-1, color.RGBA{0x9a, 0xa1, 0xad, 0xff}, false, tw)
}

// colors resolves a cell's foreground and background, with faint and
// reverse applied.
func colors(st uv.Style) (fg, bg color.RGBA) {
	fg, bg = foreground, background
	if st.Fg != nil {
		fg = resolve(st.Fg)
	}
	if st.Bg != nil {
		bg = resolve(st.Bg)
	}
	if st.Attrs&uv.AttrReverse != 0 {
		fg, bg = bg, fg
	}
	if st.Attrs&uv.AttrFaint != 0 {
		fg = mix(fg, bg, 0.45)
	}
	return fg, bg
}

func resolve(c color.Color) color.RGBA {
	switch c := c.(type) {
	case ansi.BasicColor:
		return palette[int(c)%16]
	case ansi.IndexedColor:
		if c < 16 {
			return palette[c]
		}
	}
	r, g, b, _ := c.RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0xff}
}

func mix(a, b color.RGBA, t float64) color.RGBA {
	l := func(x, y uint8) uint8 { return uint8(float64(x)*(1-t) + float64(y)*t) }
	return color.RGBA{l(a.R, b.R), l(a.G, b.G), l(a.B, b.B), 0xff}
}

// drawGlyph draws s at (x, baseline) with the first face that has its
// glyphs; italic shears it.
func drawGlyph(img *image.RGBA, faces []font.Face, s string, x, baseline int, c color.RGBA, italic bool, w int) {
	face := faces[0]
	for _, f := range faces {
		ok := true
		for _, r := range s {
			if _, has := f.GlyphAdvance(r); !has {
				ok = false
				break
			}
		}
		if ok {
			face = f
			break
		}
	}
	if !italic {
		d := &font.Drawer{Dst: img, Src: &image.Uniform{c}, Face: face, Dot: fixed.P(x, baseline)}
		d.DrawString(s)
		return
	}
	// Italic: draw into a scratch image and shear it in.
	h := face.Metrics().Height.Ceil() * 2
	tmp := image.NewAlpha(image.Rect(0, 0, w+h, h))
	d := &font.Drawer{Dst: tmp, Src: image.Opaque, Face: face, Dot: fixed.P(h/4, h*3/4)}
	d.DrawString(s)
	for yy := 0; yy < h; yy++ {
		shift := (h*3/4 - yy) / 5
		for xx := 0; xx < w+h; xx++ {
			a := tmp.AlphaAt(xx, yy).A
			if a == 0 {
				continue
			}
			px, py := x+xx-h/4+shift, baseline+yy-h*3/4
			blend(img, px, py, c, a)
		}
	}
}

func blend(img *image.RGBA, x, y int, c color.RGBA, a uint8) {
	if !(image.Point{x, y}.In(img.Bounds())) {
		return
	}
	o := img.RGBAAt(x, y)
	t := float64(a) / 255
	img.SetRGBA(x, y, mix(o, c, t))
}

// drawBox draws the box-drawing characters agview uses as lines through the
// cell, light or heavy, rounded corners as quarter circles. It reports
// whether r was one of them.
func drawBox(img *image.RGBA, cell image.Rectangle, r rune, c color.RGBA) bool {
	type seg struct{ up, down, left, right bool }
	light := map[rune]seg{
		'─': {left: true, right: true}, '│': {up: true, down: true},
		'╭': {down: true, right: true}, '╮': {down: true, left: true},
		'╰': {up: true, right: true}, '╯': {up: true, left: true},
	}
	heavy := map[rune]seg{
		'━': {left: true, right: true}, '┃': {up: true, down: true},
		'┏': {down: true, right: true}, '┓': {down: true, left: true},
		'┗': {up: true, right: true}, '┛': {up: true, left: true},
	}
	s, ok := light[r]
	th := max(cell.Dx()/8, 2)
	if !ok {
		if s, ok = heavy[r]; !ok {
			return false
		}
		th = max(cell.Dx()/4, 3)
	}
	cx := cell.Min.X + cell.Dx()/2
	cy := cell.Min.Y + cell.Dy()/2
	fill := func(x0, y0, x1, y1 int) {
		draw.Draw(img, image.Rect(x0, y0, x1, y1), &image.Uniform{c}, image.Point{}, draw.Src)
	}
	rounded := strings.ContainsRune("╭╮╰╯", r)
	if rounded {
		// A quarter circle of radius rad joins the two half lines.
		rad := cell.Dx() / 2
		var ox, oy int // the circle's centre
		switch r {
		case '╭':
			ox, oy = cx+rad, cy+rad
		case '╮':
			ox, oy = cx-rad, cy+rad
		case '╰':
			ox, oy = cx+rad, cy-rad
		case '╯':
			ox, oy = cx-rad, cy-rad
		}
		for y := cell.Min.Y; y < cell.Max.Y; y++ {
			for x := cell.Min.X; x < cell.Max.X; x++ {
				d := math.Hypot(float64(x-ox)+0.5, float64(y-oy)+0.5)
				e := math.Abs(d - float64(rad))
				inQuarter := (x-ox)*(cx-ox) >= 0 && (y-oy)*(cy-oy) >= 0
				if inQuarter && e < float64(th)/2+0.5 {
					a := uint8(255 * math.Min(1, float64(th)/2+0.5-e))
					blend(img, x, y, c, a)
				}
			}
		}
		if s.down {
			fill(cx-th/2, oy, cx-th/2+th, cell.Max.Y)
		}
		if s.up {
			fill(cx-th/2, cell.Min.Y, cx-th/2+th, oy)
		}
		if s.right {
			fill(ox, cy-th/2, cell.Max.X, cy-th/2+th)
		}
		if s.left {
			fill(cell.Min.X, cy-th/2, ox, cy-th/2+th)
		}
		return true
	}
	if s.left {
		fill(cell.Min.X, cy-th/2, cx+th-th/2, cy-th/2+th)
	}
	if s.right {
		fill(cx-th/2, cy-th/2, cell.Max.X, cy-th/2+th)
	}
	if s.up {
		fill(cx-th/2, cell.Min.Y, cx-th/2+th, cy+th-th/2)
	}
	if s.down {
		fill(cx-th/2, cy-th/2, cx-th/2+th, cell.Max.Y)
	}
	return true
}
