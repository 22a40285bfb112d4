package decode

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// ReadLabels reads a labels file: one label per line, line i (from 0)
// naming class i. Each line is trimmed of surrounding white space (and of
// a Windows line end). A blank line is kept as an empty label, so that
// the line numbers stay the class ids (a model whose class 0 is
// "background" or unused may leave that line blank): objects of such a
// class carry no label. A final line end adds no label. An error wraps
// ErrLabels and the file's error (errors.Is(err, fs.ErrNotExist) for a
// missing file) and names the path.
func ReadLabels(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("decode: labels file %s: %w: %w", path, ErrLabels, err)
	}
	defer f.Close()
	labels, err := ParseLabels(f)
	if err != nil {
		return nil, fmt.Errorf("decode: labels file %s: %w", path, err)
	}
	return labels, nil
}

// ParseLabels reads labels from r as ReadLabels reads a file.
func ParseLabels(r io.Reader) ([]string, error) {
	var labels []string
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		labels = append(labels, strings.TrimSpace(sc.Text()))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLabels, err)
	}
	return labels, nil
}
